//! `bench` from the command line: the table's columns, CSV appending with machine metadata,
//! JSON, the skip rule, invalid records, errors and Ctrl-C. Runs use a tiny input and a short
//! `--min-time` so the whole file takes seconds.

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
pub fn tiny_input(dir: &Path, name: &str, source: &str, n: usize) -> PathBuf {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(source)).unwrap();
    let lines: Vec<&str> = text.lines().take(n).collect();
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// `bench` with the fast settings used by every test.
pub fn fast_bench() -> Command {
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

#[test]
fn csv_appends_rows_with_metadata_and_writes_the_header_once() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top6.txt", "data/norvig_top95.txt", 6);
    let csv_path = dir.path().join("results.csv");
    fast_bench()
        .args(["-j", "1"])
        .arg(&input)
        .arg("--csv")
        .arg(&csv_path)
        .assert()
        .success();
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
            let share: f64 = row[column(&header, "cpu_share")].parse().unwrap();
            // Coarse OS accounting makes short runs imprecise; only sanity is checked.
            assert!((0.0..3.0).contains(&share), "{share}");
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
    let binary = assert_cmd::cargo::cargo_bin("sudoku-batch");
    let child = std::process::Command::new(binary)
        .args(["bench", "--warmup", "0", "--runs", "1", "--min-time", "2"])
        .args(["-j", "1,2", "--solvers", "singles", "--csv"])
        .arg(&csv_path)
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

#[test]
fn an_external_solver_that_prints_too_few_lines_fails_naming_the_missing_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "top.txt", "data/norvig_top95.txt", 5);
    let json = dir.path().join("bench.json");
    let bin = assert_cmd::cargo::cargo_bin("sudoku-batch");
    let short = format!(
        "short={} solve - -q --columns solution | tail -n +2 | head -n 3",
        bin.display()
    );
    fast_bench()
        .args(["-j", "1", "--no-permute", "--external", &short, "--summary"])
        .arg(&json)
        .arg(&input)
        .assert()
        .code(1);
    let rows: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let row = rows.iter().find(|r| r["solver"] == "short").unwrap();
    assert_eq!(row["status"], "wrong");
    assert!(
        row["note"]
            .as_str()
            .unwrap()
            .contains("3 solution lines for 5 puzzles (line 4 is missing)"),
        "{row}"
    );
}
