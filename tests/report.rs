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
    let (_, rects, texts) = parse_chart(&std::fs::read_to_string(&svg).unwrap());
    assert!(rects.is_empty(), "no bars: {rects:?}");
    assert!(texts
        .iter()
        .any(|(_, t)| t.starts_with("no measured rates")));
}
