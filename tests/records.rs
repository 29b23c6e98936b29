//! The one record layer seen from both commands: `verify` reads grid files, proves puzzle-only
//! records with `--unique` (lines, CSV without a solution column, grid blocks), and meets the
//! same record cap as `solve` (an overlong field is one bad row, in bounded memory).

use std::path::Path;

use crate::support::bin;
use sudoku_batch::{Grid, SolverKind};

const TOP95: &str = "data/norvig_top95.txt";

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The first `n` puzzles of Norvig's top 95, each checked to have exactly one solution.
fn top95(n: usize) -> Vec<Grid> {
    let text = std::fs::read_to_string(TOP95).unwrap();
    let puzzles: Vec<Grid> = text.lines().take(n).map(|l| l.parse().unwrap()).collect();
    for p in &puzzles {
        assert_eq!(SolverKind::default().solve(p, 2).count, 1);
    }
    puzzles
}

/// `puzzle` with clues removed, first to last, until it has several solutions.
fn loosened(puzzle: &Grid) -> Grid {
    let mut loose = *puzzle;
    let mut cell = 0;
    while SolverKind::default().solve(&loose, 2).count < 2 {
        loose.set(cell, 0);
        cell += 1;
    }
    loose
}

/// `puzzle` with one more clue that breaks no rule yet leaves no solution: a digit other than
/// the solution's in a blank cell (any solution of the result would be a second solution of
/// `puzzle`, which has one).
fn unsolvable(puzzle: &Grid) -> Grid {
    let solution = SolverKind::default().solve(puzzle, 1).solution.unwrap();
    for cell in (0..81).filter(|&c| puzzle.get(c) == 0) {
        for digit in (1..=9).filter(|&d| d != solution.get(cell)) {
            let mut probe = *puzzle;
            probe.set(cell, digit);
            if probe.first_conflict().is_none() {
                assert_eq!(SolverKind::default().solve(&probe, 2).count, 0);
                return probe;
            }
        }
    }
    unreachable!("a real puzzle has a blank cell with a free wrong digit")
}

fn text(grid: &Grid) -> String {
    String::from_utf8(grid.to_bytes().to_vec()).unwrap()
}

/// A grid drawn as Project Euler 96 draws it: `Grid NN`, then 9 rows of digits, 0 for blanks.
fn pe96_block(number: usize, grid: &Grid) -> String {
    let mut block = format!("Grid {number:02}\n");
    for row in 0..9 {
        for col in 0..9 {
            block.push(char::from(b'0' + grid.get(row * 9 + col)));
        }
        block.push('\n');
    }
    block
}

/// Six real puzzles, then a loosened one (several solutions) and an unsolvable one, then two
/// more real ones: (puzzle, expected kind).
fn collection() -> Vec<(Grid, &'static str)> {
    let real = top95(9);
    let mut rows: Vec<(Grid, &str)> = real[..6].iter().map(|p| (*p, "valid")).collect();
    rows.push((loosened(&real[6]), "not_unique"));
    rows.push((unsolvable(&real[7]), "no_solution"));
    rows.push((real[8], "valid"));
    rows
}

/// Runs `verify` with `args` on `file`; returns the JSON summary and the report's
/// (line, kind) rows.
fn verify(
    dir: &Path,
    file: &Path,
    args: &[&str],
    code: i32,
) -> (serde_json::Value, Vec<(u64, String)>) {
    let summary = dir.join("summary.json");
    let report = dir.join("report.csv");
    bin()
        .arg("verify")
        .args(args)
        .arg("--json")
        .arg(&summary)
        .arg("--report")
        .arg(&report)
        .arg(file)
        .assert()
        .code(code);
    let mut reader = csv::Reader::from_path(&report).unwrap();
    let failures = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[1].parse().unwrap(), r[2].to_string())
        })
        .collect();
    (json(&summary), failures)
}

/// The failures expected for `rows` when row `i` starts at line `line(i)`.
fn expected_failures(rows: &[(Grid, &str)], line: impl Fn(usize) -> u64) -> Vec<(u64, String)> {
    rows.iter()
        .enumerate()
        .filter(|(_, r)| r.1 != "valid")
        .map(|(i, r)| (line(i), r.1.to_string()))
        .collect()
}

#[test]
fn verify_reads_grid_files_and_proves_their_puzzles() {
    let dir = tempfile::tempdir().unwrap();
    let real = top95(5);
    let file = dir.path().join("p096_sudoku.txt");
    let blocks: String = real
        .iter()
        .enumerate()
        .map(|(i, p)| pe96_block(i + 1, p))
        .collect();
    std::fs::write(&file, blocks).unwrap();
    // Detected as grids, and given as grids: five proven puzzles, nothing malformed.
    for args in [&["--unique"][..], &["--unique", "--format", "grid"]] {
        let (s, failures) = verify(dir.path(), &file, args, 0);
        assert_eq!(s["rows"], 5, "{args:?}");
        assert_eq!(s["valid"], 5);
        assert_eq!(s["failed"], 0);
        assert!(failures.is_empty(), "{failures:?}");
    }
    // Without --unique a grid block gives no solution to check: skipped, not malformed.
    let (s, _) = verify(dir.path(), &file, &[], 1);
    assert_eq!(
        (s["rows"].as_u64(), s["skipped"].as_u64()),
        (Some(5), Some(5))
    );
    assert_eq!(s["failures"]["malformed"], 0);
    // `solve` reads the same records: its solutions are those of the puzzles.
    let out = bin()
        .args(["solve", "-q"])
        .arg(&file)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let mut reader = csv::Reader::from_reader(out.as_slice());
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 5);
    for (row, puzzle) in rows.iter().zip(&real) {
        assert_eq!(&row[1], ((rows_before(row) * 10) + 1).to_string());
        let solution: Grid = row[3].parse().unwrap();
        assert!(solution.is_solution_of(puzzle));
    }
}

/// The 0-based index of a `solve` row.
fn rows_before(row: &csv::StringRecord) -> u64 {
    row[0].parse().unwrap()
}

#[test]
fn verify_unique_proves_puzzle_only_lines_csv_and_grids() {
    let dir = tempfile::tempdir().unwrap();
    let rows = collection();
    let valid = rows.iter().filter(|r| r.1 == "valid").count() as u64;

    // Lines: a comment line first, then one puzzle per line with an id before it.
    let mut lines = String::from("# puzzles only\n");
    for (i, (p, _)) in rows.iter().enumerate() {
        lines += &format!("p{i} {}\n", text(p));
    }
    // CSV without a solution column.
    let mut csv = String::from("id,puzzle,rating\r\n");
    for (i, (p, _)) in rows.iter().enumerate() {
        csv += &format!("{i},{},7.2\r\n", text(p));
    }
    // Grid blocks, Project Euler 96 style.
    let grids: String = rows
        .iter()
        .enumerate()
        .map(|(i, (p, _))| pe96_block(i + 1, p))
        .collect();
    // (file name, content, line of row i)
    type Case = (&'static str, String, fn(usize) -> u64);
    let cases: [Case; 3] = [
        ("puzzles.txt", lines, |i| i as u64 + 2),
        ("puzzles.csv", csv, |i| i as u64 + 2),
        ("puzzles.grid", grids, |i| i as u64 * 10 + 1),
    ];
    for (name, content, line) in cases {
        let file = dir.path().join(name);
        std::fs::write(&file, content).unwrap();
        let (s, failures) = verify(dir.path(), &file, &["--unique", "-j", "2"], 1);
        assert_eq!(s["rows"], rows.len() as u64, "{name}");
        assert_eq!(s["valid"], valid, "{name}");
        assert_eq!(s["skipped"], 0, "{name}");
        assert_eq!(s["failures"]["not_unique"], 1, "{name}");
        assert_eq!(s["failures"]["no_solution"], 1, "{name}");
        assert_eq!(s["failed"], 2, "{name}");
        assert_eq!(failures, expected_failures(&rows, line), "{name}");
    }
    // The text summary names the new kind; its reason says what was proven.
    let file = dir.path().join("puzzles.txt");
    let out = bin()
        .args(["verify", "--unique"])
        .arg(&file)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("    no solution          1\n"), "{out}");
    assert!(
        out.contains(":9: no_solution: the puzzle has no solution"),
        "{out}"
    );
    assert!(
        out.contains(":8: not_unique: the puzzle has 2 or more solutions"),
        "{out}"
    );
    // Without --unique, puzzle-only lines are skipped as before.
    let (s, _) = verify(dir.path(), &file, &[], 1);
    assert_eq!(s["skipped"], rows.len() as u64);
    assert_eq!(s["failed"], 0);
}

/// A CSV whose second row holds one quoted field of `len` bytes (line ends inside it), between
/// two rows with real puzzles and their solutions.
fn long_field_csv(path: &Path, len: usize) -> (Grid, Grid) {
    use std::io::Write;
    let puzzle = top95(1)[0];
    let solution = SolverKind::default().solve(&puzzle, 1).solution.unwrap();
    let (p, s) = (text(&puzzle), text(&solution));
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    write!(out, "puzzle,solution\n{p},{s}\n{p},\"").unwrap();
    let chunk = [b"1234567\n".repeat(1024), b"\"\"".to_vec()].concat();
    let mut written = 0;
    while written < len {
        out.write_all(&chunk).unwrap();
        written += chunk.len();
    }
    write!(out, "\"\n{p},{s}\n").unwrap();
    out.flush().unwrap();
    (puzzle, solution)
}

#[test]
fn an_overlong_field_is_one_bad_row_for_verify_and_solve() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.csv");
    long_field_csv(&file, 1 << 20);
    let (s, failures) = verify(dir.path(), &file, &[], 1);
    assert_eq!(
        (s["rows"].as_u64(), s["valid"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(failures, [(3, "malformed".to_string())]);
    bin()
        .arg("verify")
        .arg(&file)
        .assert()
        .code(1)
        .stdout(predicates::str::contains(
            ":3: malformed: record longer than 65536 bytes",
        ));
    // `solve` too; the row after it keeps its true line (the file's last).
    let out = bin()
        .args(["solve", "-q"])
        .arg(&file)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let mut reader = csv::Reader::from_reader(out.as_slice());
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let got: Vec<(&str, &str, &str)> = rows.iter().map(|r| (&r[1], &r[4], &r[7])).collect();
    let bytes = std::fs::read(&file).unwrap();
    let after = bytes.iter().filter(|&&b| b == b'\n').count().to_string();
    assert!(bytes.len() > 1 << 20);
    assert_eq!(
        got,
        [
            ("2", "solved", ""),
            ("3", "invalid", "record longer than 65536 bytes"),
            (after.as_str(), "solved", ""),
        ]
    );
    let (s, _) = verify(dir.path(), &file, &[], 1);
    assert_eq!(s["rows"], 3);
}

/// Peak resident memory of `command`, in KiB, from `/usr/bin/time -v`.
fn peak_rss_kib(args: &[&std::ffi::OsStr]) -> u64 {
    let out = std::process::Command::new("/usr/bin/time")
        .arg("-v")
        .arg(assert_cmd::cargo::cargo_bin("sudoku-batch"))
        .args(args)
        .output()
        .expect("/usr/bin/time runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    stderr
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no peak RSS in {stderr}"))
}

/// The case: one quoted field of 200 MB. Both commands stay under 100 MB peak.
/// Slow (writes 200 MB): `cargo test --release -- --ignored two_hundred_mb`.
#[test]
#[ignore]
fn a_two_hundred_mb_field_stays_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("huge.csv");
    long_field_csv(&file, 200 << 20);
    let out = dir.path().join("out.csv");
    let report = dir.path().join("report.csv");
    let solve = peak_rss_kib(&[
        "solve".as_ref(),
        "-q".as_ref(),
        file.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    let verify = peak_rss_kib(&[
        "verify".as_ref(),
        "-q".as_ref(),
        file.as_os_str(),
        "--report".as_ref(),
        report.as_os_str(),
    ]);
    eprintln!("peak RSS: solve {solve} KiB, verify {verify} KiB");
    assert!(solve < 100 * 1024, "solve {solve} KiB");
    assert!(verify < 100 * 1024, "verify {verify} KiB");
    let report = std::fs::read_to_string(&report).unwrap();
    assert!(
        report.contains(",3,malformed,record longer than 65536 bytes"),
        "{report}"
    );
}
