//! `bench` and `report` from the command line. `bench`: the table's columns, CSV appending
//! with machine metadata, JSON, the skip rule, invalid records, errors and Ctrl-C; runs use a
//! tiny input and a short `--min-time` so they take seconds. `report`: the results of a real
//! `bench` run plus the same rows as measured on a second (renamed) machine, compared as
//! Markdown, CSV and an SVG chart.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use sudoku_batch::cmd::bench::{puzzle_list_sha256, MARKDOWN_COLUMNS};
use sudoku_batch::Grid;

/// Metadata columns every CSV row carries.
const METADATA: &[&str] = &[
    "timestamp",
    "hostname",
    "cpu",
    "logical_cores",
    "physical_cores",
    "os",
    "arch",
    "version",
    "git_commit",
    "rustc",
    "cpu_features_used",
    "cpu_features_available",
];

/// Measurement columns every CSV row carries.
const MEASURES: &[&str] = &[
    "dataset",
    "puzzles",
    "sha256",
    "solver",
    "mode",
    "threads",
    "permute_seed",
    "status",
    "puzzles_per_s",
    "min_puzzles_per_s",
    "max_puzzles_per_s",
    "us_per_puzzle",
    "p50_us",
    "p99_us",
    "guesses_per_puzzle",
    "no_guess_pct",
    "efficiency",
    "cpu_share",
    "load_1m",
];

/// The first `n` puzzles of a real data file, written to `dir/name`.
fn tiny_input(dir: &Path, name: &str, source: &str, n: usize) -> PathBuf {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(source)).unwrap();
    let lines: Vec<&str> = text.lines().take(n).collect();
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// `bench` with the fast settings used by every test.
fn fast_bench() -> Command {
    let mut cmd = Command::cargo_bin("sudoku-batch").unwrap();
    cmd.args([
        "bench",
        "--min-time",
        "0.05",
        "--warmup",
        "0",
        "--runs",
        "1",
        "--solvers",
        "singles",
    ]);
    cmd
}

fn table_rows(stdout: &str) -> Vec<Vec<String>> {
    stdout
        .lines()
        .filter(|l| l.starts_with("| "))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().iter().map(String::from).collect();
    let rows = reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

#[test]
fn table_has_every_column_and_one_row_per_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let easy = tiny_input(dir.path(), "easy8.txt", "data/norvig_easy50.txt", 8);
    let hard = tiny_input(dir.path(), "hard5.txt", "data/norvig_top95.txt", 5);
    let out = fast_bench()
        .args(["-j", "1,2"])
        .arg(&easy)
        .arg(&hard)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let stdout = String::from_utf8(out).unwrap();
    let rows = table_rows(&stdout);
    let header = &rows[0];
    assert_eq!(header, MARKDOWN_COLUMNS, "{stdout}");
    let data = &rows[1..];
    assert_eq!(
        data.len(),
        2 * 2,
        "2 datasets × 1 solver × 2 thread counts:\n{stdout}"
    );
    for row in data {
        assert_eq!(row.len(), header.len(), "{row:?}");
        let rate: f64 = row[6].parse().unwrap_or_else(|_| panic!("{row:?}"));
        assert!(rate > 0.0);
    }
    let puzzles: Vec<&str> = data.iter().map(|r| r[1].as_str()).collect();
    assert_eq!(puzzles, ["8", "8", "5", "5"]);
    // Efficiency of the one-thread row is 1 by definition.
    assert_eq!(data[0][5], "1");
    assert_eq!(data[0][13], "1.00");
    // The machine line names the host and the build.
    assert!(stdout.contains("sudoku-batch "), "{stdout}");
    assert!(stdout.contains("permute seed 1"), "{stdout}");
}

/// `bench` on `input`, one thread, its rows appended to `csv`.
fn bench_csv(input: &Path, csv: &Path) -> assert_cmd::assert::Assert {
    fast_bench()
        .args(["-j", "1"])
        .arg(input)
        .arg("--csv")
        .arg(csv)
        .assert()
}

/// `report` over rows of one configuration measured with and without permutation shows the
/// latest and says the two do not compare.
#[test]
fn report_notes_rows_of_other_permutations() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top6.txt", "data/norvig_top95.txt", 6);
    let csv = dir.path().join("results.csv");
    for extra in [&[][..], &["--no-permute"][..], &[][..]] {
        fast_bench()
            .args(["-j", "1", "-q"])
            .args(extra)
            .arg(&input)
            .arg("--csv")
            .arg(&csv)
            .assert()
            .success();
    }
    let output = Command::cargo_bin("sudoku-batch")
        .unwrap()
        .arg("report")
        .arg(&csv)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    // Once for the configuration, however many rows alternate.
    assert_eq!(
        stderr
            .matches("was measured with permute seeds 1 and none, whose rates do not compare")
            .count(),
        1,
        "{stderr}"
    );
}

/// Two input files of one name are told apart in the rows by the paths given.
#[test]
fn two_files_of_one_name_are_named_by_their_paths() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    tiny_input(dir.path(), "p.txt", "data/norvig_top95.txt", 4);
    tiny_input(
        &dir.path().join("sub"),
        "p.txt",
        "data/norvig_easy50.txt",
        4,
    );
    let output = fast_bench()
        .current_dir(dir.path())
        .args(["-j", "1", "p.txt", "sub/p.txt", "-q"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let names: Vec<String> = table_rows(&stdout)
        .into_iter()
        .skip(1)
        .map(|row| row[0].clone())
        .collect();
    assert_eq!(names, ["p.txt", "sub/p.txt"], "{stdout}");
}

/// Timed passes of more than half a second get a CPU share, which one thread of a process
/// that does nothing else cannot take far above 1.
#[cfg(target_os = "linux")]
#[test]
fn a_long_enough_run_gets_its_cpu_share() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top6.txt", "data/norvig_top95.txt", 6);
    let csv_path = dir.path().join("results.csv");
    Command::cargo_bin("sudoku-batch")
        .unwrap()
        .args(["bench", "--min-time", "0.6", "--warmup", "0", "--runs", "1"])
        .args(["--solvers", "singles", "-j", "1"])
        .arg(&input)
        .arg("--csv")
        .arg(&csv_path)
        .assert()
        .success();
    let text = std::fs::read_to_string(&csv_path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|&h| h == "cpu_share").unwrap();
    let share: f64 = row[at].parse().unwrap();
    assert!(share > 0.0 && share < 1.2, "{share}");
}

#[test]
fn csv_appends_rows_with_metadata_and_writes_the_header_once() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top6.txt", "data/norvig_top95.txt", 6);
    let csv_path = dir.path().join("results.csv");
    bench_csv(&input, &csv_path).success();
    let first_run = std::fs::read_to_string(&csv_path).unwrap();
    fast_bench()
        .args(["-j", "1,2", "--unique"])
        .arg(&input)
        .arg("--csv")
        .arg(&csv_path)
        .assert()
        .success();
    let both_runs = std::fs::read_to_string(&csv_path).unwrap();
    // Earlier rows are never rewritten: the first run's text is a prefix.
    assert!(both_runs.starts_with(&first_run));
    assert_eq!(both_runs.matches("timestamp,").count(), 1, "{both_runs}");

    let (header, rows) = read_csv(&csv_path);
    for name in METADATA.iter().chain(MEASURES) {
        column(&header, name);
    }
    assert_eq!(rows.len(), 1 + 2);
    let puzzles: Vec<Grid> = std::fs::read_to_string(&input)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    let sha = puzzle_list_sha256(&puzzles);
    for row in &rows {
        assert_eq!(row[column(&header, "dataset")], "top6.txt");
        assert_eq!(row[column(&header, "puzzles")], "6");
        assert_eq!(row[column(&header, "sha256")], sha);
        assert_eq!(row[column(&header, "status")], "ok");
        assert_eq!(row[column(&header, "solved")], "6");
        assert_eq!(row[column(&header, "permute_seed")], "1");
        let timestamp = &row[column(&header, "timestamp")];
        assert!(
            timestamp.ends_with('Z') && timestamp.len() == 20,
            "{timestamp}"
        );
        assert_eq!(&timestamp[10..11], "T");
        for name in [
            "hostname",
            "cpu",
            "os",
            "arch",
            "version",
            "git_commit",
            "rustc",
        ] {
            assert!(!row[column(&header, name)].is_empty(), "{name}");
        }
        let logical: usize = row[column(&header, "logical_cores")].parse().unwrap();
        let physical: usize = row[column(&header, "physical_cores")].parse().unwrap();
        assert!(physical >= 1 && physical <= logical);
        #[cfg(target_os = "linux")]
        {
            // Timed passes this short are below the OS's CPU-time accounting: no share.
            assert_eq!(&row[column(&header, "cpu_share")], "");
            let load: f64 = row[column(&header, "load_1m")].parse().unwrap();
            assert!(load >= 0.0);
        }
        let p50: f64 = row[column(&header, "p50_us")].parse().unwrap();
        let p99: f64 = row[column(&header, "p99_us")].parse().unwrap();
        assert!(0.0 < p50 && p50 <= p99, "{p50} {p99}");
    }
    let modes: Vec<&str> = rows
        .iter()
        .map(|r| r[column(&header, "mode")].as_str())
        .collect();
    assert_eq!(modes, ["first", "unique", "unique"]);
    let efficiency = column(&header, "efficiency");
    assert_eq!(rows[1][efficiency], "1.0");
    let e2: f64 = rows[2][efficiency].parse().unwrap();
    assert!(e2 > 0.0 && e2 < 2.0, "{e2}");
}

#[test]
fn csv_appends_to_a_file_a_spreadsheet_saved() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top6.txt", "data/norvig_top95.txt", 6);
    let csv_path = dir.path().join("results.csv");
    bench_csv(&input, &csv_path).success();
    let first_run = std::fs::read_to_string(&csv_path).unwrap();
    // A file a spreadsheet saved with a byte order mark is still this version's results.
    let bom_path = dir.path().join("bom.csv");
    std::fs::write(&bom_path, format!("\u{feff}{first_run}")).unwrap();
    bench_csv(&input, &bom_path).success();
    assert_eq!(read_csv(&bom_path).1.len(), 2);
    // Two such files put together: the second header is named, mark and all.
    let twice = dir.path().join("twice.csv");
    let marked = std::fs::read_to_string(&bom_path).unwrap();
    std::fs::write(&twice, format!("{marked}{marked}")).unwrap();
    report()
        .arg(&twice)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("line 4: the header again"));
    // A file holding only the mark is empty: the header is written after it.
    let only_mark = dir.path().join("mark.csv");
    std::fs::write(&only_mark, "\u{feff}").unwrap();
    bench_csv(&input, &only_mark).success();
    assert_eq!(read_csv(&only_mark).1.len(), 1);
    // A header with trailing blanks is not the results header (report could not read it).
    let blanks = dir.path().join("blanks.csv");
    let (header_line, rows) = first_run.split_once('\n').unwrap();
    std::fs::write(&blanks, format!("{header_line}  \n{rows}")).unwrap();
    bench_csv(&input, &blanks)
        .code(2)
        .stderr(predicate::str::contains(
            "not this version's results header",
        ));
}

#[test]
fn json_holds_the_same_rows_as_the_csv() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top4.txt", "data/norvig_top95.txt", 4);
    let csv_path = dir.path().join("r.csv");
    let json_path = dir.path().join("r.json");
    fast_bench()
        .args(["-j", "1,2", "--no-permute"])
        .arg(&input)
        .arg("--csv")
        .arg(&csv_path)
        .arg("--json")
        .arg(&json_path)
        .assert()
        .success();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    let items = json.as_array().unwrap();
    let (header, rows) = read_csv(&csv_path);
    assert_eq!(items.len(), rows.len());
    assert_eq!(items.len(), 2);
    for (item, row) in items.iter().zip(&rows) {
        for name in METADATA.iter().chain(MEASURES) {
            assert!(item.get(name).is_some(), "{name}");
        }
        assert!(item["permute_seed"].is_null(), "--no-permute");
        assert_eq!(row[column(&header, "permute_seed")], "");
        assert_eq!(
            item["puzzles_per_s"].as_f64().unwrap(),
            row[column(&header, "puzzles_per_s")]
                .parse::<f64>()
                .unwrap()
        );
        assert_eq!(item["hostname"], row[column(&header, "hostname")].as_str());
    }
}

#[test]
fn slow_configurations_are_skipped_and_invalid_records_counted() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top3.txt", "data/norvig_top95.txt", 3);
    let mut text = std::fs::read_to_string(&input).unwrap();
    text.push_str("not a puzzle\n");
    // Contradictory clues: two 1s in the first row.
    text.push_str(&format!("11{}\n", ".".repeat(79)));
    std::fs::write(&input, text).unwrap();
    let csv_path = dir.path().join("r.csv");
    let out = fast_bench()
        .args(["-j", "1", "--max-pass", "0"])
        .arg(&input)
        .arg("--csv")
        .arg(&csv_path)
        .assert()
        .success()
        .stderr(predicate::str::contains("2 invalid records skipped"))
        .get_output()
        .stdout
        .clone();
    let stdout = String::from_utf8(out).unwrap();
    let rows = table_rows(&stdout);
    assert_eq!(rows[1][1], "3", "only the valid puzzles count");
    assert_eq!(rows[1][6], "skipped", "{stdout}");
    assert!(stdout.contains("--max-pass"), "{stdout}");
    let (header, rows) = read_csv(&csv_path);
    assert_eq!(rows[0][column(&header, "status")], "skipped");
    assert_eq!(rows[0][column(&header, "puzzles_per_s")], "");
}

#[test]
fn bad_options_and_foreign_csv_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top2.txt", "data/norvig_top95.txt", 2);
    Command::cargo_bin("sudoku-batch")
        .unwrap()
        .args(["bench", "--solvers", "nope"])
        .arg(&input)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown solver"));
    Command::cargo_bin("sudoku-batch")
        .unwrap()
        .args(["bench", "--min-time", "-1"])
        .arg(&input)
        .assert()
        .code(2);
    let foreign = dir.path().join("foreign.csv");
    std::fs::write(&foreign, "a,b,c\n1,2,3\n").unwrap();
    fast_bench()
        .arg(&input)
        .arg("--csv")
        .arg(&foreign)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("foreign.csv"));
    assert_eq!(std::fs::read_to_string(&foreign).unwrap(), "a,b,c\n1,2,3\n");
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "nothing here\n").unwrap();
    fast_bench()
        .arg(&empty)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("empty.txt").and(predicate::str::contains("no valid")));
    fast_bench()
        .arg(dir.path().join("missing.txt"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.txt"));
}

/// Ctrl-C after the first configuration: the table holds what was measured, exit 130.
#[cfg(unix)]
#[test]
fn ctrl_c_prints_what_was_measured() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top5.txt", "data/norvig_top95.txt", 5);
    let csv_path = dir.path().join("r.csv");
    let json = dir.path().join("r.json");
    std::fs::write(&json, "[]").unwrap();
    let binary = assert_cmd::cargo::cargo_bin("sudoku-batch");
    let child = std::process::Command::new(binary)
        .args(["bench", "--warmup", "0", "--runs", "1", "--min-time", "2"])
        .args(["-j", "1,2", "--solvers", "singles", "--csv"])
        .arg(&csv_path)
        .arg("--summary")
        .arg(&json)
        .arg(&input)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Rows are appended as they finish: wait for the first, then interrupt the second, which
    // needs 2 s more.
    let started = Instant::now();
    while std::fs::read_to_string(&csv_path).map_or(0, |t| t.lines().count()) < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no row after 60 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(130), "{stdout}");
    let rows = table_rows(&stdout);
    assert_eq!(rows.len(), 2, "header and the one finished row:\n{stdout}");
    assert_eq!(rows[1][5], "1");
    assert!(stdout.contains("interrupted"), "{stdout}");
    // No JSON list of rows that would pass for the whole run's, nor an earlier one.
    assert!(!json.exists());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bench: interrupted: no "));
    // The CSV keeps exactly the finished row.
    assert_eq!(
        std::fs::read_to_string(&csv_path).unwrap().lines().count(),
        2
    );
}

/// The built-in suite end to end, one short pass each (a few seconds with the dev profile's
/// opt-level; `scripts/bench-machine.sh` is the real measurement).
#[test]
fn builtin_suite_runs_every_grade() {
    let out = Command::cargo_bin("sudoku-batch")
        .unwrap()
        .args([
            "bench",
            "--min-time",
            "0",
            "--warmup",
            "0",
            "--runs",
            "1",
            "-j",
            "1",
        ])
        .args(["--solvers", "singles", "--max-pass", "600"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let stdout = String::from_utf8(out).unwrap();
    let rows = table_rows(&stdout);
    let names: Vec<(&str, &str, &str)> = rows[1..]
        .iter()
        .map(|r| (r[0].as_str(), r[1].as_str(), r[6].as_str()))
        .map(|(name, puzzles, rate)| {
            assert!(rate.parse::<f64>().is_ok(), "{name}: {rate}");
            (name, puzzles, "ok")
        })
        .collect();
    assert_eq!(
        names,
        [
            ("easy", "1000", "ok"),
            ("moderate", "10000", "ok"),
            ("hard", "1465", "ok"),
            ("hardest", "375", "ok")
        ]
    );
}

#[test]
fn summary_is_the_name_of_json_and_json_its_alias() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top3.txt", "data/norvig_top95.txt", 3);
    let mut items = Vec::new();
    for flag in ["--summary", "--json"] {
        let path = dir
            .path()
            .join(format!("{}.json", flag.trim_start_matches('-')));
        fast_bench()
            .args(["-j", "1", "--no-permute", "-q"])
            .arg(&input)
            .arg(flag)
            .arg(&path)
            .assert()
            .success();
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let rows = json.as_array().unwrap().clone();
        assert_eq!(rows.len(), 1, "{flag}");
        assert_eq!(rows[0]["status"], "ok", "{flag}");
        assert_eq!(rows[0]["mode"], "first", "{flag}");
        items.push(rows[0]["sha256"].clone());
    }
    assert_eq!(items[0], items[1]);
}

#[test]
fn external_solvers_are_timed_checked_and_reported_beside_ours() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top.txt", "data/norvig_top95.txt", 20);
    let json = dir.path().join("bench.json");
    let bin = assert_cmd::cargo::cargo_bin("sudoku-batch");
    let bin = bin.display();
    // Our own solver as an external program: solutions only, one a line.
    let good = format!("good={bin} solve - -q --columns solution | tail -n +2");
    let externals = [
        good.as_str(),
        "wrong=sed 's/^./9/; s/\\./1/g'",
        "few=head -n 3",
        "fails=echo broken >&2; exit 3",
        "hangs=sleep 30",
    ];
    let mut cmd = fast_bench();
    cmd.args(["-j", "1", "--external-timeout", "2", "--summary"])
        .arg(&json)
        .arg(&input);
    for external in externals {
        cmd.args(["--external", external]);
    }
    let out = cmd.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a failed external row makes exit 1"
    );
    let rows: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let row = |name: &str| {
        rows.iter()
            .find(|r| r["solver"] == name)
            .unwrap_or_else(|| panic!("no row for {name}"))
            .clone()
    };
    let ok = row("good");
    assert_eq!(ok["status"], "ok");
    assert!(ok["puzzles_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(ok["solved"], 20);
    assert_eq!(
        ok["sha256"],
        row("singles")["sha256"],
        "the same puzzles as ours"
    );
    let wrong = row("wrong");
    assert_eq!(wrong["status"], "wrong");
    assert!(
        wrong["note"].as_str().unwrap().contains("line 1:"),
        "{wrong}"
    );
    let few = row("few");
    assert_eq!(few["status"], "wrong");
    assert!(
        few["note"].as_str().unwrap().contains("line 1: "),
        "puzzles echoed back are not solutions: {few}"
    );
    let fails = row("fails");
    assert_eq!(fails["status"], "failed");
    assert!(
        fails["note"].as_str().unwrap().contains("exit status: 3"),
        "{fails}"
    );
    assert!(
        fails["note"].as_str().unwrap().contains("broken"),
        "{fails}"
    );
    let hangs = row("hangs");
    assert_eq!(hangs["status"], "timeout");
    assert!(
        hangs["note"]
            .as_str()
            .unwrap()
            .contains("killed after 2.0 s"),
        "{hangs}"
    );
}

/// `bench` (quick settings, one thread, no permutation) with `args` on the first `puzzles`
/// puzzles of top95, expecting exit `code`: the rows of its JSON summary.
fn external_bench(puzzles: usize, args: &[&str], code: i32) -> Vec<serde_json::Value> {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top.txt", "data/norvig_top95.txt", puzzles);
    let json = dir.path().join("bench.json");
    // A run that hangs fails the test rather than holding it.
    fast_bench()
        .args(["-j", "1", "--no-permute"])
        .args(args)
        .arg("--summary")
        .arg(&json)
        .arg(&input)
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(code);
    serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap()
}

/// The row of `solver` among `rows`.
fn row_of(rows: &[serde_json::Value], solver: &str) -> serde_json::Value {
    rows.iter().find(|r| r["solver"] == solver).unwrap().clone()
}

/// Our own solver as an external command: one solution a line.
fn ourselves() -> String {
    let bin = assert_cmd::cargo::cargo_bin("sudoku-batch");
    format!(
        "{} solve - -q --columns solution --no-header",
        bin.display()
    )
}

/// A `--max-pass` past what the clock can hold is no limit: the pass runs and its watchdog
/// lets it end.
#[test]
fn a_huge_max_pass_is_no_limit() {
    let rows = external_bench(3, &["--max-pass", "1e19"], 0);
    assert_eq!(rows[0]["status"], "ok", "{rows:?}");
}

#[test]
fn an_external_solver_that_prints_too_few_lines_fails_naming_the_missing_line() {
    let short = format!("short={} | head -n 3", ourselves());
    let row = row_of(&external_bench(5, &["--external", &short], 1), "short");
    assert_eq!(row["status"], "wrong");
    assert!(
        row["note"].as_str().unwrap().contains(
            "3 solution lines for 5 puzzles (line 4 is missing) (its puzzle is on input line 4)"
        ),
        "{row}"
    );
}

/// What an external program leaves behind is not waited for: a background child that holds
/// the error pipe is killed with the program's group when the program exits (the pass is
/// timed to the program's exit), and a program that floods its output is killed as wrong long
/// before its timeout, its output capped.
#[cfg(unix)]
#[test]
fn an_external_program_that_floods_or_leaves_a_child_behind_ends_its_pass() {
    let left = format!("left=(sleep 30 &); {}", ourselves());
    // A child out of the program's group (which no kill of the group reaches) holding the
    // error pipe: the pass does not wait for it either.
    let escaped = format!("escaped={}; setsid sleep 30 &", ourselves());
    let has_setsid = std::process::Command::new("setsid")
        .arg("true")
        .status()
        .is_ok_and(|s| s.success());
    // Right answers, then 3 MB of blank lines, printed between two looks at the size.
    let padded = format!(
        "padded={}; head -c 3000000 /dev/zero | tr '\\0' '\\n'",
        ourselves()
    );
    let started = std::time::Instant::now();
    let rows = external_bench(
        3,
        &[
            "--external-timeout",
            "20",
            "--external",
            &left,
            "--external",
            "flood=yes 123456789",
            "--external",
            &padded,
            "--external",
            if has_setsid { &escaped } else { &left },
        ][..if has_setsid { 10 } else { 8 }],
        1,
    );
    // Neither the 30 s children nor the 20 s timeout was waited for.
    assert!(started.elapsed() < std::time::Duration::from_secs(15));
    assert_eq!(row_of(&rows, "left")["status"], "ok", "{rows:?}");
    if has_setsid {
        assert_eq!(row_of(&rows, "escaped")["status"], "ok", "{rows:?}");
    }
    for name in ["flood", "padded"] {
        let row = row_of(&rows, name);
        assert_eq!(row["status"], "wrong", "{row}");
        assert!(
            row["note"].as_str().unwrap().contains("printed more than"),
            "{row}"
        );
    }
}

/// With `--unique`, ours prove uniqueness but an external program is only asked for a
/// solution: its row says `first`.
#[test]
fn an_external_row_is_first_mode_even_with_unique() {
    let good = format!("good={}", ourselves());
    let rows = external_bench(3, &["--unique", "--external", &good], 0);
    assert_eq!(row_of(&rows, "singles")["mode"], "unique");
    assert_eq!(row_of(&rows, "good")["mode"], "first");
}

/// An external program's name is its rows' `solver`: the name of a built-in solver or of
/// another external is refused before anything runs.
#[test]
fn an_external_name_that_another_row_has_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top.txt", "data/norvig_top95.txt", 2);
    for (externals, says) in [
        (vec!["bands=cat"], "built-in solver"),
        (vec!["naive=cat"], "built-in solver"),
        (vec!["Bands=cat"], "built-in solver"),
        (vec!["mine=cat", "mine=tac"], "two external programs"),
        (vec!["mine=cat", "MINE=tac"], "two external programs"),
    ] {
        let mut cmd = fast_bench();
        cmd.args(["-j", "1", "-q"]).arg(&input);
        for e in externals {
            cmd.args(["--external", e]);
        }
        cmd.assert().code(2).stderr(predicates::str::contains(says));
    }
}

/// A stop request during an external program's pass kills the pass and ends the run at once
/// (exit 130 for SIGINT), with no row for that program.
#[cfg(unix)]
#[test]
fn a_stop_during_an_external_pass_ends_it() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top.txt", "data/norvig_top95.txt", 3);
    let csv = dir.path().join("bench.csv");
    let started = std::time::Instant::now();
    let run = std::process::Command::new("timeout")
        .args(["--preserve-status", "-s", "INT", "2"])
        .arg(assert_cmd::cargo::cargo_bin("sudoku-batch"))
        .args([
            "bench",
            "--min-time",
            "0.05",
            "--warmup",
            "0",
            "--runs",
            "1",
        ])
        .args([
            "--solvers",
            "singles",
            "-j",
            "1",
            "-q",
            "--external",
            "hang=sleep 40",
        ])
        .arg("--csv")
        .arg(&csv)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    // Our row was measured and kept; the stopped program has none.
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(rows.lines().count(), 2, "{rows}");
    assert!(
        rows.contains(",singles,") && !rows.contains(",hang,"),
        "{rows}"
    );
}

/// A stop before the first row is measured leaves a results file with its header (an empty one
/// would not read as one): a new file, an empty one, one made through a link alike. `report`
/// leaves such a file out beside files with rows, and refuses it alone.
#[cfg(unix)]
#[test]
fn a_stop_before_the_first_row_leaves_a_results_file_that_reads_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top.txt", "data/norvig_top95.txt", 95);
    let stopped = |csv: &Path| {
        // The textbook solver's check pass takes seconds on these: stopped within it.
        let run = std::process::Command::new("timeout")
            .args(["--preserve-status", "-s", "INT", "1"])
            .arg(assert_cmd::cargo::cargo_bin("sudoku-batch"))
            .args(["bench", "--solvers", "naive", "-j", "1", "-q"])
            .args(["--max-pass", "60", "--csv"])
            .arg(csv)
            .arg(&input)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
        assert_eq!(run.status.code(), Some(130), "{stderr}");
        let text = std::fs::read_to_string(csv).unwrap();
        assert!(
            text.starts_with("timestamp,") && text.lines().count() == 1,
            "{text}"
        );
    };
    let (new, empty, link) = (
        dir.path().join("new.csv"),
        dir.path().join("empty.csv"),
        dir.path().join("link.csv"),
    );
    stopped(&new);
    std::fs::write(&empty, b"").unwrap();
    stopped(&empty);
    std::os::unix::fs::symlink("made.csv", &link).unwrap();
    stopped(&link);
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());

    let rows = dir.path().join("rows.csv");
    let easy = tiny_input(dir.path(), "easy6.txt", "data/norvig_easy50.txt", 6);
    fast_bench()
        .args(["-j", "1", "-q"])
        .arg(&easy)
        .arg("--csv")
        .arg(&rows)
        .assert()
        .success();
    let report = |files: &[&Path]| {
        let run = Command::cargo_bin("sudoku-batch")
            .unwrap()
            .arg("report")
            .args(files)
            .output()
            .unwrap();
        (
            run.status.code(),
            String::from_utf8_lossy(&run.stderr).into_owned(),
        )
    };
    let (code, stderr) = report(&[&rows, &new]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("new.csv: the header alone"), "{stderr}");
    let (code, stderr) = report(&[&new]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("no result rows"), "{stderr}");
}

/// Runs a small bench into `dir/here.csv`, and writes `dir/there.csv` with the same rows as if
/// measured on host `there` at twice the speed. Returns both paths and the number of rows.
fn two_machines(dir: &Path) -> (PathBuf, PathBuf, usize) {
    let easy = tiny_input(dir, "easy6.txt", "data/norvig_easy50.txt", 6);
    let hard = tiny_input(dir, "hard4.txt", "data/norvig_top95.txt", 4);
    let here = dir.join("here.csv");
    fast_bench()
        .args(["-j", "1,2"])
        .arg(&easy)
        .arg(&hard)
        .arg("--csv")
        .arg(&here)
        .assert()
        .success();
    // The measured rates depend on the machine's load; the charts and tables built from these
    // files are checked against fixed ones: here 1,000 puzzles/s times the row number, there
    // twice as fast.
    let mut reader = csv::Reader::from_path(&here).unwrap();
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let there = dir.join("there.csv");
    let mut here_writer = csv::Writer::from_path(&here).unwrap();
    let mut writer = csv::Writer::from_path(&there).unwrap();
    here_writer.write_record(&header).unwrap();
    writer.write_record(&header).unwrap();
    let mut rows = 0;
    for record in records {
        let mut fields: Vec<String> = record.iter().map(String::from).collect();
        let rate = 1000.0 * (rows + 1) as f64;
        fields[col("puzzles_per_s")] = format!("{rate}");
        here_writer.write_record(&fields).unwrap();
        fields[col("hostname")] = "there".to_string();
        fields[col("cpu")] = "Other CPU 9000".to_string();
        fields[col("puzzles_per_s")] = format!("{}", rate * 2.0);
        writer.write_record(&fields).unwrap();
        rows += 1;
    }
    here_writer.flush().unwrap();
    writer.flush().unwrap();
    (here, there, rows)
}

fn report() -> Command {
    let mut cmd = Command::cargo_bin("sudoku-batch").unwrap();
    cmd.arg("report");
    cmd
}

#[test]
fn markdown_table_compares_machines_with_ratios() {
    let dir = tempfile::tempdir().unwrap();
    let (here, there, rows) = two_machines(dir.path());
    assert_eq!(rows, 4);
    let out = report()
        .arg(&here)
        .arg(&there)
        .args(["--baseline", "there"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let stdout = String::from_utf8(out).unwrap();
    let table: Vec<Vec<&str>> = stdout
        .lines()
        .filter(|l| l.starts_with("| "))
        .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
        .collect();
    let header = &table[0];
    assert_eq!(&header[..4], ["dataset", "solver", "mode", "threads"]);
    assert_eq!(header.len(), 6, "{stdout}");
    assert!(header[4].contains(" (") && !header[4].starts_with("there"));
    assert_eq!(header[5], "there (Other CPU 9000)");
    assert_eq!(table.len(), 1 + rows, "{stdout}");
    for row in &table[1..] {
        // This machine ran at half the speed of the baseline `there`.
        assert!(row[4].ends_with("(0.50×)"), "{row:?}");
        assert!(row[5].ends_with("(1.00×)"), "{row:?}");
    }
    let datasets: Vec<&str> = table[1..].iter().map(|r| r[0]).collect();
    assert_eq!(
        datasets,
        ["easy6.txt", "easy6.txt", "hard4.txt", "hard4.txt"]
    );
    assert!(stdout.contains("Machines"), "{stdout}");
}

#[test]
fn csv_format_has_rate_and_ratio_per_machine() {
    let dir = tempfile::tempdir().unwrap();
    let (here, there, rows) = two_machines(dir.path());
    let out = report()
        .arg(&here)
        .arg(&there)
        .args(["--format", "csv"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let mut reader = csv::Reader::from_reader(out.as_slice());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(header.len(), 5 + 2 * 2, "{header:?}");
    assert!(header[6].ends_with(" ratio"));
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), rows);
    for record in &records {
        // The first machine is the baseline by default; the second runs twice as fast.
        assert_eq!(&record[6], "1.000");
        let ratio: f64 = record[8].parse().unwrap();
        assert!((ratio - 2.0).abs() < 0.01, "{ratio}");
    }
}

/// Colours used for rectangles that are not bars or legend swatches.
fn is_background(fill: &str) -> bool {
    matches!(
        fill.to_ascii_uppercase().as_str(),
        "#FFFFFF" | "WHITE" | "NONE" | "#000000"
    )
}

/// The fill of the machine legend's swatches (`chart::MACHINE_SWATCH`).
const MACHINE_SWATCH: &str = "#A0A0A0";

/// A coloured rectangle of the chart: x, y, width, height, fill.
#[derive(Debug, Clone)]
struct Rect {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    fill: String,
}

fn number(node: roxmltree::Node, name: &str) -> f64 {
    node.attribute(name).unwrap().parse().unwrap()
}

/// The chart's coloured rectangles, and its horizontal text elements as (x, text).
fn parse_chart(text: &str) -> (f64, Vec<Rect>, Vec<(f64, String)>) {
    let doc = roxmltree::Document::parse(text).expect("the chart is well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    let rects = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect"))
        .filter(|n| !is_background(n.attribute("fill").unwrap_or("none")))
        .map(|n| Rect {
            x: number(n, "x"),
            y: number(n, "y"),
            width: number(n, "width"),
            height: number(n, "height"),
            fill: n.attribute("fill").unwrap().to_ascii_uppercase(),
        })
        .collect();
    let mut texts = Vec::new();
    for n in doc.descendants().filter(|n| n.has_tag_name("text")) {
        assert!(
            n.attribute("transform").is_none(),
            "no rotated text: {:?}",
            n.text()
        );
        texts.push((number(n, "x"), n.text().unwrap_or("").trim().to_string()));
    }
    (number(root, "width"), rects, texts)
}

/// Splits rectangles into bars (standing on the common baseline, left to right) and the rest.
fn bars_and_swatches(rects: &[Rect]) -> (Vec<Rect>, Vec<Rect>) {
    let bottom = |r: &Rect| (r.y + r.height).round() as i64;
    let mut bottoms: Vec<i64> = rects.iter().map(bottom).collect();
    bottoms.sort_unstable();
    let baseline = *bottoms
        .iter()
        .max_by_key(|&&b| bottoms.iter().filter(|&&o| o == b).count())
        .unwrap();
    let (mut bars, swatches): (Vec<Rect>, Vec<Rect>) =
        rects.iter().cloned().partition(|r| bottom(r) == baseline);
    bars.sort_by(|a, b| a.x.total_cmp(&b.x));
    (bars, swatches)
}

#[test]
fn svg_chart_groups_bars_by_dataset_with_a_legend_entry_per_series() {
    let dir = tempfile::tempdir().unwrap();
    let (here, there, rows) = two_machines(dir.path());
    for log in [false, true] {
        let svg = dir.path().join(format!("chart-{log}.svg"));
        let mut cmd = report();
        cmd.arg(&here).arg(&there).arg("--svg").arg(&svg);
        if log {
            cmd.arg("--log");
        }
        cmd.args(["--title", "Test chart"]).assert().success();
        let (width, rects, texts) = parse_chart(&std::fs::read_to_string(&svg).unwrap());
        assert_eq!(width, 800.0, "README width, log={log}");
        let has = |want: &str| texts.iter().any(|(_, t)| t == want);
        for want in [
            "Test chart",
            "easy6.txt",
            "hard4.txt",
            "singles · 1 thread",
            "singles · 2 threads",
            "there (Other CPU 9000)",
        ] {
            assert!(has(want), "{want} in {texts:?}");
        }
        assert!(texts
            .iter()
            .any(|(_, t)| t.starts_with("puzzles per second")));

        let (bars, swatches) = bars_and_swatches(&rects);
        // One bar per machine × configuration.
        assert_eq!(bars.len(), rows * 2, "log={log}: {bars:?}");
        // One colour per series (singles × 1 and 2 threads), and one legend swatch for each.
        let mut colours: Vec<&str> = bars.iter().map(|b| b.fill.as_str()).collect();
        colours.sort_unstable();
        colours.dedup();
        assert_eq!(colours.len(), 2, "{colours:?}");
        let mut legend: Vec<&str> = swatches
            .iter()
            .map(|s| s.fill.as_str())
            .filter(|&f| f != MACHINE_SWATCH)
            .collect();
        legend.sort_unstable();
        assert_eq!(legend, colours, "one legend swatch per series");
        // One machine swatch per machine.
        let machine_swatches = swatches.iter().filter(|s| s.fill == MACHINE_SWATCH).count();
        assert_eq!(machine_swatches, 2);

        // Grouped per dataset: left to right, four bars under each dataset's label, series by
        // series, the two machines side by side within a series.
        let label_x = |name: &str| texts.iter().find(|(_, t)| t == name).unwrap().0;
        let (easy, hard) = (label_x("easy6.txt"), label_x("hard4.txt"));
        assert!(easy < hard);
        for (group, centre) in bars.chunks(4).zip([easy, hard]) {
            let nearest = |b: &Rect| {
                let mid = b.x + b.width / 2.0;
                if (mid - easy).abs() < (mid - hard).abs() {
                    easy
                } else {
                    hard
                }
            };
            assert!(group.iter().all(|b| nearest(b) == centre), "{group:?}");
            assert_eq!(group[0].fill, group[1].fill);
            assert_eq!(group[2].fill, group[3].fill);
            assert_ne!(group[1].fill, group[2].fill);
            // The second machine ran twice as fast: its bar, right of the first's, is taller.
            for pair in group.chunks(2) {
                assert!(pair[1].height > pair[0].height, "log={log}: {pair:?}");
                assert!(pair[1].x >= pair[0].x + pair[0].width);
            }
        }
    }
}

#[test]
fn bad_inputs_and_unknown_baselines_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (here, _, _) = two_machines(dir.path());
    let bogus = dir.path().join("bogus.csv");
    std::fs::write(&bogus, "a,b\n1,2\n").unwrap();
    report()
        .arg(&bogus)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bogus.csv"));
    // Results stored compressed read as the plain file does; a corrupt one is an error.
    let plain = report().arg(&here).output().unwrap();
    assert_eq!(plain.status.code(), Some(0));
    let gz = dir.path().join("here.csv.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut encoder, &std::fs::read(&here).unwrap()).unwrap();
    let packed = encoder.finish().unwrap();
    std::fs::write(&gz, &packed).unwrap();
    let unpacked = report().arg(&gz).output().unwrap();
    assert_eq!(unpacked.status.code(), Some(0));
    assert_eq!(unpacked.stdout, plain.stdout);
    std::fs::write(&gz, &packed[..packed.len() / 2]).unwrap();
    report()
        .arg(&gz)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("here.csv.gz"));
    // A row cut inside its last field still parses: the missing line end gives it away.
    let results = std::fs::read_to_string(&here).unwrap();
    let torn = dir.path().join("torn.csv");
    std::fs::write(&torn, &results[..results.len() - 3]).unwrap();
    let last_line = results.lines().count();
    report()
        .arg(&torn)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "torn.csv: line {last_line}: the last row has no line end"
        )));
    report()
        .arg(dir.path().join("missing.csv"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.csv"));
    report()
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a folder"));
    report()
        .arg(&here)
        .args(["--baseline", "no-such-host"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no-such-host"));
    report().assert().code(2);
    // A value no measurement gives, and a bad field in a CRLF file, named at their lines.
    let edited = |name: &str, column: &str, value: &str, end: &str| {
        let mut lines: Vec<String> = results.lines().map(String::from).collect();
        let at = lines[0].split(',').position(|h| h == column).unwrap();
        let mut fields: Vec<String> = lines[2].split(',').map(String::from).collect();
        fields[at] = value.to_string();
        lines[2] = fields.join(",");
        let path = dir.path().join(name);
        std::fs::write(
            &path,
            lines
                .iter()
                .map(|l| format!("{l}{end}"))
                .collect::<String>(),
        )
        .unwrap();
        path
    };
    // A comma in a value makes the row one field longer than the header.
    for (name, column, value, end, why) in [
        (
            "inf.csv",
            "puzzles_per_s",
            "inf",
            "\n",
            "puzzles_per_s is inf",
        ),
        ("crlf.csv", "threads", "x", "\r\n", "column threads:"),
        ("long.csv", "note", "a,b", "\r\n", "it has"),
        (
            "when.csv",
            "timestamp",
            "yesterday",
            "\n",
            "timestamp \"yesterday\" is not a UTC time",
        ),
        ("none.csv", "threads", "0", "\n", "threads is 0"),
        (
            "norate.csv",
            "puzzles_per_s",
            "",
            "\n",
            "status is ok but puzzles_per_s is empty",
        ),
        ("nohost.csv", "hostname", "", "\n", "hostname is empty"),
    ] {
        report()
            .arg(edited(name, column, value, end))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "{name}: line 3: not a `bench --csv` result row: {why}"
            )))
            .stderr(predicate::str::contains("(line:").not());
    }
    // A rate with no room above it in f64 still charts on a log axis.
    report()
        .arg(edited("huge.csv", "puzzles_per_s", "1.7e308", "\n"))
        .arg("--svg")
        .arg(dir.path().join("huge.svg"))
        .arg("--log")
        .assert()
        .success();
}

/// A solver named twice is measured once.
#[test]
fn a_solver_named_twice_is_measured_once() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top2.txt", "data/norvig_top95.txt", 2);
    let json = dir.path().join("twice.json");
    fast_bench()
        .args(["-j", "1", "--solvers", "singles", "--summary"])
        .arg(&json)
        .arg(&input)
        .assert()
        .success();
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1, "{rows}");
}

/// `--max-pass` also ends a pass inside one slow puzzle, the last of its file too: the row is
/// `skipped` (this puzzle costs `backtrack` about 30 s).
#[test]
fn max_pass_stops_inside_a_slow_last_puzzle() {
    let dir = tempfile::tempdir().unwrap();
    let input = crate::support::slow_input(dir.path());
    let json = dir.path().join("slow.json");
    Command::cargo_bin("sudoku-batch")
        .unwrap()
        .args([
            "bench",
            "-q",
            "--solvers",
            "backtrack",
            "-j",
            "1",
            "--warmup",
            "0",
        ])
        .args([
            "--min-time",
            "0",
            "--runs",
            "1",
            "--max-pass",
            "0.2",
            "--summary",
        ])
        .arg(&json)
        .arg(&input)
        .assert()
        .success();
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(rows[0]["status"], "skipped", "{rows}");
    assert!(
        rows[0]["note"]
            .as_str()
            .unwrap()
            .contains("--max-pass): 0 of 1 puzzles"),
        "{rows}"
    );
}

/// `--max-pass` holds for the timed passes too, which solve transformed puzzles: this
/// unsolvable puzzle is instant for `naive` as written (its first row leaves no place for the 9)
/// and takes it from milliseconds to minutes in the passes' transforms. The row is `skipped`
/// after about a second, for one thread and for two.
#[test]
fn max_pass_stops_a_timed_pass_over_transformed_puzzles() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("unsolvable.txt");
    let puzzle = format!("12345678.........9{}\n", ".".repeat(63));
    std::fs::write(&input, puzzle).unwrap();
    let json = dir.path().join("rows.json");
    let started = std::time::Instant::now();
    Command::cargo_bin("sudoku-batch")
        .unwrap()
        .args(["bench", "-q", "--solvers", "naive", "-j", "1,2"])
        .args(["--warmup", "0", "--min-time", "0.1", "--runs", "1"])
        .args(["--max-pass", "0.5", "--summary"])
        .arg(&json)
        .arg(&input)
        .assert()
        .success();
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for row in [&rows[0], &rows[1]] {
        assert_eq!(row["status"], "skipped", "{rows}");
        assert!(
            row["note"]
                .as_str()
                .unwrap()
                .contains("one pass over the transformed puzzles takes over 0.5 s (--max-pass)"),
            "{rows}"
        );
    }
}

#[test]
fn skipped_rows_show_as_skipped_and_an_empty_chart_still_draws() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top2.txt", "data/norvig_top95.txt", 2);
    let results = dir.path().join("skipped.csv");
    fast_bench()
        .args(["-j", "1", "--max-pass", "0"])
        .arg(&input)
        .arg("--csv")
        .arg(&results)
        .assert()
        .success();
    let svg = dir.path().join("empty.svg");
    report()
        .arg(&results)
        .arg("--svg")
        .arg(&svg)
        .arg("--log")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "| top2.txt | singles | first | 1 | skipped |",
        ));
    let (_, rects, texts) = parse_chart(&std::fs::read_to_string(&svg).unwrap());
    assert!(rects.is_empty(), "no bars: {rects:?}");
    assert!(texts
        .iter()
        .any(|(_, t)| t.starts_with("no measured rates")));
    // The configuration without a bar is named under the chart, with its status.
    let note = "not measured: top2.txt · singles · 1 thread: skipped";
    assert!(texts.iter().any(|(_, t)| t == note), "{texts:?}");
}

/// `--csv` and `--summary` may name standard output: it then holds only that output (the
/// table goes to stderr); both there at once, and a compressed `--csv` name, are refused.
#[test]
fn csv_or_summary_on_standard_output_holds_only_them() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top.txt", "data/norvig_top95.txt", 3);
    for csv_name in ["-", "/dev/stdout"] {
        let out = fast_bench()
            .args(["-j", "1", "-q", "--csv", csv_name])
            .arg(&input)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{csv_name}");
        let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
        let header = reader.headers().unwrap().clone();
        assert!(header.iter().any(|h| h == "puzzles_per_s"), "{header:?}");
        assert_eq!(reader.records().count(), 1, "{csv_name}");
        let table = String::from_utf8(out.stderr).unwrap();
        assert!(
            table.contains("| top.txt |"),
            "the table on stderr: {table}"
        );
    }
    assert!(!dir.path().join("-").exists());
    let out = fast_bench()
        .args(["-j", "1", "-q", "--summary", "-"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 1);
    fast_bench()
        .args(["-j", "1", "-q", "--csv", "-", "--summary", "-"])
        .arg(&input)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("standard output"));
    fast_bench()
        .args(["-j", "1", "-q", "--csv"])
        .arg(dir.path().join("r.csv.gz"))
        .arg(&input)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("plain text"));
}

/// The check pass names, by input line, the puzzles timed but not solved as given: no
/// solution, several, a reference solution that differs (the input's fault: the row stays
/// `ok`), the invalid records left out; a solver given up on (`--max-guesses`) makes the row
/// `gave_up`, which `report` shows instead of a rate.
#[test]
fn the_check_pass_names_the_lines_of_what_it_met() {
    let dir = tempfile::tempdir().unwrap();
    let kaggle =
        std::fs::read_to_string(data_path("data/kaggle3m_radcliffe_first1000.csv")).unwrap();
    let mut lines: Vec<String> = kaggle.lines().take(6).map(String::from).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let sol = header
        .iter()
        .position(|h| h.starts_with("solution"))
        .unwrap();
    let puz = header.iter().position(|h| *h == "puzzle").unwrap();
    // Line 3: a wrong reference (two digits swapped); line 5: a puzzle with no solution
    // (the 9 has no place in its first row); line 6: not a puzzle.
    let mut fields: Vec<String> = lines[2].split(',').map(String::from).collect();
    let mut digits: Vec<char> = fields[sol].chars().collect();
    digits.swap(0, 1);
    fields[sol] = digits.into_iter().collect();
    lines[2] = fields.join(",");
    let mut fields: Vec<String> = lines[4].split(',').map(String::from).collect();
    fields[puz] = format!("12345678.{}9{}", ".".repeat(8), ".".repeat(63));
    fields[sol] = String::new();
    lines[4] = fields.join(",");
    let mut fields: Vec<String> = lines[5].split(',').map(String::from).collect();
    fields[puz] = "123".into();
    lines[5] = fields.join(",");
    let input = dir.path().join("k.csv");
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();

    let out = fast_bench()
        .args(["-j", "1", "--summary", "-"])
        .arg(&input)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows[0]["status"], "ok");
    let note = rows[0]["note"].as_str().unwrap();
    assert!(
        note.contains("1 puzzle(s) have no solution (line 5)"),
        "{note}"
    );
    assert!(
        note.contains(
            "1 puzzle(s) solved, but not as the input's reference solution says (line 3)"
        ),
        "{note}"
    );
    assert!(
        stderr.contains("1 invalid records skipped (line 6)"),
        "{stderr}"
    );

    let csv_path = dir.path().join("g.csv");
    let out = fast_bench()
        .args(["-j", "1", "-q", "--max-guesses", "0", "--csv"])
        .arg(&csv_path)
        .arg(data_path("data/norvig_top95.txt"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let (header, rows) = read_csv(&csv_path);
    assert_eq!(rows[0][column(&header, "status")], "gave_up");
    assert!(rows[0][column(&header, "note")].contains("gave up (--max-guesses 0)"));
    let shown = report().arg(&csv_path).output().unwrap();
    let table = String::from_utf8(shown.stdout).unwrap();
    assert!(table.contains("| gave_up |"), "{table}");
}

fn data_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

/// `report` reads the JSON of `bench --summary` as it reads the CSV, groups each dataset's
/// rows whatever order they were appended in, and names a header met again.
#[test]
fn report_reads_json_groups_rows_and_names_a_second_header() {
    let dir = tempfile::tempdir().unwrap();
    let (here, _, _) = two_machines(dir.path());
    let text = std::fs::read_to_string(&here).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len() % 2, 1, "a header and two datasets' rows");
    // The two datasets' rows interleaved (easy, hard, easy, hard): the table still groups
    // each dataset's.
    let header = lines.remove(0);
    let (first, second) = lines.split_at(lines.len() / 2);
    let lines: Vec<&str> = first
        .iter()
        .zip(second)
        .flat_map(|(a, b)| [*a, *b])
        .collect();
    let shuffled = dir.path().join("shuffled.csv");
    std::fs::write(&shuffled, format!("{header}\n{}\n", lines.join("\n"))).unwrap();
    let out = report().arg(&shuffled).output().unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    let datasets: Vec<String> = table_rows(&table)
        .into_iter()
        .map(|r| r[0].clone())
        .filter(|d| d.ends_with(".txt"))
        .collect();
    let mut grouped = datasets.clone();
    grouped.dedup();
    assert_eq!(
        grouped.len(),
        2,
        "each dataset's rows together: {datasets:?}"
    );

    let summary = dir.path().join("summary.json");
    let input = tiny_input(dir.path(), "top.txt", "data/norvig_top95.txt", 3);
    fast_bench()
        .args(["-j", "1", "-q", "--summary"])
        .arg(&summary)
        .arg(&input)
        .assert()
        .success();
    report()
        .arg(&summary)
        .assert()
        .success()
        .stdout(predicate::str::contains("| top.txt |"));
    // `-` reads standard input, gzip-compressed as well, and names it `stdin` in messages.
    let gz = std::process::Command::new("gzip")
        .arg("-c")
        .arg(&summary)
        .output()
        .unwrap();
    assert!(gz.status.success());
    report()
        .arg("-")
        .write_stdin(gz.stdout)
        .assert()
        .success()
        .stdout(predicate::str::contains("| top.txt |"));
    report()
        .arg("-")
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("stdin").and(predicate::str::contains("no result rows")));
    report()
        .args(["-", "-"])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("more than once"));

    let twice = dir.path().join("twice.csv");
    std::fs::write(&twice, format!("{text}{text}")).unwrap();
    report()
        .arg(&twice)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the header again"));
}

/// Names read from a results file (host, CPU) with a line end or a control character stay
/// on their line in every part of the Markdown report, and out of the SVG, which stays XML.
#[test]
fn control_characters_in_names_split_no_report_line() {
    let dir = tempfile::tempdir().unwrap();
    let (_, there, _) = two_machines(dir.path());
    let text = std::fs::read_to_string(&there)
        .unwrap()
        .replace("Other CPU 9000", "Other\u{1} CPU")
        .replace("there", "\"there\n- FAKE\"");
    std::fs::write(&there, text).unwrap();
    let svg = dir.path().join("chart.svg");
    let out = report()
        .arg(&there)
        .arg("--svg")
        .arg(&svg)
        .output()
        .unwrap();
    crate::support::assert_succeeded(&out);
    let shown = String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap();
    assert!(shown.contains("there\\n- FAKE"), "{shown}");
    assert!(!shown.lines().any(|l| l.starts_with("- FAKE")), "{shown}");
    assert!(!shown.contains('\u{1}'), "{shown}");
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(!chart.contains('\u{1}') && chart.contains("Other\\u{1} CPU"));
}
