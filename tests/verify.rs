//! `verify` end to end: it passes the solution files in `data/` and `solve`'s own output, and
//! catches each kind of failure in files crafted from real puzzles.

use std::path::Path;

use crate::support::bin;
use crate::support::kaggle_pairs;
use predicates::prelude::*;
use sudoku_batch::{Grid, SolverKind};

const KAGGLE: &str = "data/kaggle3m_radcliffe_first1000.csv";
const TDOKU: &str = "data/tdoku_test_puzzles.txt";

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// One crafted row per failure kind, plus valid rows around them: (puzzle, solution, kind).
fn crafted_rows() -> Vec<(String, String, &'static str)> {
    let pairs = kaggle_pairs(8);
    let (p, s) = pairs[0].clone();
    let mut rows = vec![(p.clone(), s.clone(), "valid")];
    rows.push((p.clone(), s[..80].to_string(), "wrong_length"));
    rows.push((p[..79].to_string(), s.clone(), "wrong_length"));
    rows.push((p.clone(), format!("{}x{}", &s[..40], &s[41..]), "malformed"));
    rows.push((
        p.clone(),
        format!("{}.{}", &s[..40], &s[41..]),
        "incomplete",
    ));
    // Swap two cells of one row, both blanks in the puzzle: the row is still 1-9, columns break.
    let row = (0..9)
        .find(|r| (0..9).filter(|c| p.as_bytes()[r * 9 + c] == b'.').count() >= 2)
        .unwrap();
    let blanks: Vec<usize> = (0..9)
        .map(|c| row * 9 + c)
        .filter(|&i| p.as_bytes()[i] == b'.')
        .collect();
    let mut swapped = s.clone().into_bytes();
    swapped.swap(blanks[0], blanks[1]);
    rows.push((
        p.clone(),
        String::from_utf8(swapped).unwrap(),
        "broken_rule",
    ));
    // Another puzzle's (valid) solution contradicts this puzzle's clues.
    let other = pairs[1].1.clone();
    assert!(matches!(
        other
            .parse::<Grid>()
            .unwrap()
            .check_solution_of(&p.parse().unwrap()),
        Err(sudoku_batch::grid::SolutionError::ClueContradicted { .. })
    ));
    rows.push((p.clone(), other, "clue_contradicted"));
    // Remove clues from a real puzzle until it has several solutions; its solution still fits.
    let mut loose: Grid = pairs[2].0.parse().unwrap();
    let mut cell = 0;
    while SolverKind::default().solve(&loose, 2).count < 2 {
        loose.set(cell, 0);
        cell += 1;
    }
    let loose = String::from_utf8(loose.to_bytes().to_vec()).unwrap();
    rows.push((loose, pairs[2].1.clone(), "not_unique"));
    for (p, s) in &pairs[3..] {
        rows.push((p.clone(), s.clone(), "valid"));
    }
    rows
}

#[test]
fn passes_the_kaggle_sample() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.json");
    bin()
        .args(["verify", KAGGLE, "--unique", "-j", "2", "--json"])
        .arg(&summary)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("valid                  1000"));
    let s = json(&summary);
    assert_eq!(s["rows"], 1000);
    assert_eq!(s["valid"], 1000);
    assert_eq!(s["failed"], 0);
    assert_eq!(s["unique"], true);
}

#[test]
fn passes_tdoku_solutions_and_skips_lines_without_one() {
    let text = std::fs::read_to_string(TDOKU).unwrap();
    let with_solution = text.lines().filter(|l| l.split(':').count() == 3).count();
    let without = text.lines().count() - with_solution;
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("s.json");
    // Without --unique the puzzle-only lines are skipped. (This ran with --unique before
    // puzzle-only records were proven under it; now --unique proves them, below.)
    bin()
        .args(["verify", TDOKU, "--json"])
        .arg(&summary)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("no solution given; first at"));
    let s = json(&summary);
    assert_eq!(s["valid"], with_solution as u64);
    assert_eq!(s["skipped"], without as u64);
    // With --unique each puzzle-only line is proven, and tdoku's own solution counts (the
    // second field) say which fail how: 0 solutions, or several.
    let count = |n: fn(u64) -> bool| {
        text.lines()
            .filter(|l| l.split(':').count() == 2)
            .filter(|l| n(l.split(':').nth(1).unwrap().parse().unwrap()))
            .count() as u64
    };
    bin()
        .args(["verify", TDOKU, "--unique", "-q", "--json"])
        .arg(&summary)
        .assert()
        .code(1);
    let s = json(&summary);
    assert_eq!(s["valid"], with_solution as u64 + count(|n| n == 1));
    assert_eq!(s["skipped"], 0);
    assert_eq!(s["failures"]["no_solution"], count(|n| n == 0));
    assert_eq!(s["failures"]["not_unique"], count(|n| n >= 2));
    assert_eq!(s["failed"], without as u64);
    // With --require-solution the lines without one fail.
    bin()
        .args(["verify", TDOKU, "--require-solution", "-q"])
        .assert()
        .code(1);
}

#[test]
fn passes_solves_own_output() {
    let dir = tempfile::tempdir().unwrap();
    let solved = dir.path().join("solved.csv");
    // tdoku's set has unsolvable and multi-solution puzzles: their rows have no solution.
    bin()
        .args([
            "solve",
            "--unique",
            "-q",
            "data/norvig_top95.txt",
            TDOKU,
            "-o",
        ])
        .arg(&solved)
        .assert()
        .code(1);
    let summary = dir.path().join("s.json");
    bin()
        .args(["verify", "--unique", "--json"])
        .arg(&summary)
        .arg(&solved)
        .assert()
        .code(0);
    let s = json(&summary);
    assert_eq!(s["rows"], 95 + 43);
    assert_eq!(s["valid"], 95 + 18);
    assert_eq!(s["skipped"], 25);
}

#[test]
fn solve_rows_marked_solved_without_solution_fail() {
    let dir = tempfile::tempdir().unwrap();
    let solved = dir.path().join("solved.csv");
    bin()
        .args(["solve", "-q", "data/norvig_easy50.txt", "-o"])
        .arg(&solved)
        .assert()
        .code(0);
    // Blank the solution of the first row, keeping its status `solved`.
    let text = std::fs::read_to_string(&solved).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let fields: Vec<&str> = lines[1].split(',').collect();
    let mut fields: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
    assert_eq!(fields[4], "solved");
    fields[3] = String::new();
    lines[1] = fields.join(",");
    std::fs::write(&solved, lines.join("\n") + "\n").unwrap();
    bin()
        .arg("verify")
        .arg(&solved)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            ":2: malformed: status is solved but the solution is empty",
        ));
}

/// Writes the crafted rows as a line file with `sep` and as a `puzzle,solution` CSV.
fn write_crafted(dir: &Path, sep: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let rows = crafted_rows();
    let mut lines = String::from("# crafted from the Kaggle sample\n\n");
    let mut csv = String::from("puzzle,solution\n");
    for (p, s, _) in &rows {
        lines += &format!("{p}{sep}{s}\n");
        csv += &format!("{p},{s}\r\n");
    }
    let (l, c) = (dir.join("crafted.txt"), dir.join("crafted.csv"));
    std::fs::write(&l, lines).unwrap();
    std::fs::write(&c, csv).unwrap();
    (l, c)
}

#[test]
fn catches_each_failure_kind_in_lines_and_csv() {
    let rows = crafted_rows();
    for sep in [":", ",", " ", "\t"] {
        let dir = tempfile::tempdir().unwrap();
        let (lines, csv) = write_crafted(dir.path(), sep);
        for (file, first_line) in [(&lines, 3u64), (&csv, 2)] {
            let report = dir.path().join("report.csv");
            let summary = dir.path().join("summary.json");
            let out = bin()
                .args(["verify", "--unique", "-j", "2", "--report"])
                .arg(&report)
                .arg("--json")
                .arg(&summary)
                .arg(file)
                .assert()
                .code(1)
                .get_output()
                .stdout
                .clone();
            let out = String::from_utf8(out).unwrap();
            let s = json(&summary);
            assert_eq!(s["rows"], rows.len() as u64, "{sep:?} {out}");
            let valid = rows.iter().filter(|r| r.2 == "valid").count() as u64;
            assert_eq!(s["valid"], valid, "{out}");
            for kind in [
                "malformed",
                "incomplete",
                "broken_rule",
                "clue_contradicted",
                "not_unique",
            ] {
                assert_eq!(s["failures"][kind], 1, "{kind} {sep:?}: {out}");
            }
            assert_eq!(s["failures"]["wrong_length"], 2, "{out}");
            // The report lists every failure at its line, in order.
            let mut reader = csv::Reader::from_path(&report).unwrap();
            let got: Vec<(u64, String)> = reader
                .records()
                .map(|r| {
                    let r = r.unwrap();
                    assert_eq!(&r[0], file.display().to_string());
                    (r[1].parse().unwrap(), r[2].to_string())
                })
                .collect();
            let expected: Vec<(u64, String)> = rows
                .iter()
                .enumerate()
                .filter(|(_, r)| r.2 != "valid")
                .map(|(i, r)| (first_line + i as u64, r.2.to_string()))
                .collect();
            assert_eq!(got, expected, "{sep:?}");
            // The first failures are printed as file:line: kind: reason.
            let (line, kind) = &expected[0];
            assert!(
                out.contains(&format!("{}:{line}: {kind}: ", file.display())),
                "{out}"
            );
            assert!(out.contains("appears twice in column"), "{out}");
        }
    }
}

#[test]
fn broken_rule_and_clue_messages_name_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let (_, csv) = write_crafted(dir.path(), ",");
    bin()
        .arg("verify")
        .arg(&csv)
        .assert()
        .code(1)
        .stdout(
            predicate::str::is_match(r"broken_rule: digit \d appears twice in column \d").unwrap(),
        )
        .stdout(
            predicate::str::is_match(r"clue_contradicted: .*clue \d at row \d, column \d").unwrap(),
        );
}

#[test]
fn same_report_with_one_or_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let (lines, csv) = write_crafted(dir.path(), ":");
    let mut reports = Vec::new();
    for threads in ["1", "2"] {
        let report = dir.path().join(format!("r{threads}.csv"));
        bin()
            .args(["verify", "-q", "--unique", "-j", threads, "--report"])
            .arg(&report)
            .arg(&lines)
            .arg(&csv)
            .arg(KAGGLE)
            .assert()
            .code(1);
        reports.push(std::fs::read(&report).unwrap());
    }
    assert_eq!(reports[0], reports[1]);
    assert!(reports[0].len() > 100);
}

#[test]
fn cut_off_rows_and_stdin() {
    let pairs = kaggle_pairs(3);
    // The last row is cut off inside its solution, with no final newline.
    let mut text = String::from("quizzes,solutions\n");
    text += &format!("{},{}\n", pairs[0].0, pairs[0].1);
    text += &format!("{}\n", pairs[1].0);
    text += &format!("{},{}", pairs[2].0, &pairs[2].1[..50]);
    bin()
        .args(["verify", "-"])
        .write_stdin(text)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "-:3: malformed: row has 1 field(s); the solution column \"solutions\" is field 2",
        ))
        .stdout(predicate::str::contains(
            "-:4: wrong_length: solution: expected 81 cells, found 50",
        ));
}

#[test]
fn usage_and_io_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    bin()
        .args(["verify", "no/such/file.csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no/such/file.csv"));
    let no_solution = dir.path().join("p.csv");
    std::fs::write(
        &no_solution,
        "id,puzzle\n1,".to_string() + &".".repeat(81) + "\n",
    )
    .unwrap();
    bin()
        .arg("verify")
        .arg(&no_solution)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no solution column"));
    bin()
        .args(["verify", KAGGLE, "--report", "/no/such/dir/r.csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("/no/such/dir/r.csv"));
    // An empty file checks nothing: not a success.
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    bin()
        .arg("verify")
        .arg(&empty)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no rows found"));
}
