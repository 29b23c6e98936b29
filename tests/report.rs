//! `report` from the command line: results of a real `bench` run plus the same rows as measured
//! on a second (renamed) machine, compared as Markdown, CSV and an SVG chart.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

use crate::bench::{fast_bench, tiny_input};

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
    let mut reader = csv::Reader::from_path(&here).unwrap();
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let there = dir.join("there.csv");
    let mut writer = csv::Writer::from_path(&there).unwrap();
    writer.write_record(&header).unwrap();
    let mut rows = 0;
    for record in reader.records() {
        let mut fields: Vec<String> = record.unwrap().iter().map(String::from).collect();
        fields[col("hostname")] = "there".to_string();
        fields[col("cpu")] = "Other CPU 9000".to_string();
        let rate: f64 = fields[col("puzzles_per_s")].parse().unwrap();
        fields[col("puzzles_per_s")] = format!("{}", rate * 2.0);
        writer.write_record(&fields).unwrap();
        rows += 1;
    }
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

#[test]
fn svg_chart_parses_and_has_one_bar_per_machine_and_configuration() {
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
        let text = std::fs::read_to_string(&svg).unwrap();
        let doc = roxmltree::Document::parse(&text).expect("the chart is well-formed XML");
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        let colored: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("rect"))
            .filter(|n| !is_background(n.attribute("fill").unwrap_or("none")))
            .collect();
        // One bar per machine × configuration, plus one legend swatch per machine.
        assert_eq!(colored.len(), rows * 2 + 2, "log={log}");
        let texts: Vec<String> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .map(|t| t.trim().to_string())
            .collect();
        for want in [
            "Test chart",
            "there (Other CPU 9000)",
            "hard4.txt · singles · first · 2t",
        ] {
            assert!(texts.iter().any(|t| t == want), "{want} in {texts:?}");
        }
        assert!(texts.iter().any(|t| t.starts_with("puzzles per second")));
        // The faster machine's bars are taller: compare the tallest bar of each colour.
        let tallest = |i: usize| {
            let fill = colored[i * rows].attribute("fill").unwrap();
            colored
                .iter()
                .filter(|n| n.attribute("fill") == Some(fill))
                .map(|n| n.attribute("height").unwrap().parse::<f64>().unwrap())
                .fold(0.0, f64::max)
        };
        assert!(tallest(1) > tallest(0), "log={log}");
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
    report()
        .arg(dir.path().join("missing.csv"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.csv"));
    report()
        .arg(&here)
        .args(["--baseline", "no-such-host"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no-such-host"));
    report().assert().code(2);
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
    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let bars = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect"))
        .filter(|n| !is_background(n.attribute("fill").unwrap_or("none")))
        .count();
    assert_eq!(bars, 1, "only the legend swatch");
}
