//! The Markdown report `bench` prints: a line naming machine, build and settings, the table,
//! and notes.

use crate::sysinfo::Machine;

use super::datasets::Dataset;
use super::measure::seconds;
use super::row::{BenchRow, BenchStatus};
use super::BenchConfig;

/// The columns of the Markdown table, in order.
pub const MARKDOWN_COLUMNS: &[&str] = &[
    "dataset",
    "puzzles",
    "sha256",
    "solver",
    "mode",
    "threads",
    "puzzles/s",
    "min–max puzzles/s",
    "µs/puzzle",
    "p50 µs",
    "p99 µs",
    "guesses/puzzle",
    "no guess %",
    "efficiency",
    "CPU share",
];

/// A rate (puzzles/s) in a table: whole puzzles, or two decimals below 10 puzzles/s.
pub(crate) fn rate_text(rate: f64) -> String {
    if rate >= 10.0 || rate == 0.0 {
        format!("{rate:.0}")
    } else {
        format!("{rate:.2}")
    }
}

fn opt(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(|| "–".to_string(), |v| format!("{v:.decimals$}"))
}

/// The Markdown report: a line naming machine, build and settings, the table, and notes.
pub(super) fn markdown_report(
    rows: &[BenchRow],
    datasets: &[Dataset],
    machine: &Machine,
    config: &BenchConfig,
    interrupted: bool,
) -> String {
    let mut out = preamble(rows, machine, config);
    out.push_str(&table(rows));
    let notes = notes(rows, datasets, interrupted);
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&notes.join("\n"));
        out.push('\n');
    }
    out
}

/// The two lines over the table: the machine and build, then the settings and the load.
fn preamble(rows: &[BenchRow], machine: &Machine, config: &BenchConfig) -> String {
    let mut out = format!(
        "**{}**: {}, {} logical / {} physical cores, {} {}; sudoku-batch {} ({}), {}.  \n",
        machine.hostname,
        machine.cpu,
        machine.logical_cores,
        machine.physical_cores,
        machine.os,
        machine.arch,
        machine.version,
        machine.git_commit,
        machine.rustc,
    );
    let load = match rows.first().and_then(|r| r.load_1m) {
        Some(load) => format!(" Load average (1 min) after the first row: {load:.2}."),
        None => String::new(),
    };
    let permute = config
        .permute
        .map_or_else(|| "off".to_string(), |seed| format!("seed {seed}"));
    out.push_str(&format!(
        "Mode {}, permute {permute}, warm-up {} s, timed ≥ {} s and ≥ {} passes, median pass; \
         skip when one pass > {} s.{load}\n\n",
        config.mode(),
        seconds(config.warmup),
        seconds(config.min_time),
        config.runs.max(1),
        seconds(config.max_pass),
    ));
    out
}

/// The table: header, alignment row, and a line per row.
fn table(rows: &[BenchRow]) -> String {
    let mut out = format!("| {} |\n", MARKDOWN_COLUMNS.join(" | "));
    let aligns: Vec<&str> = MARKDOWN_COLUMNS
        .iter()
        .map(|c| match *c {
            "dataset" | "sha256" | "solver" | "mode" => "---",
            _ => "---:",
        })
        .collect();
    out.push_str(&format!("|{}|\n", aligns.join("|")));
    for row in rows {
        let cells = table_cells(row).map(|c| table_cell(&c));
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

/// One row's cells, in [`MARKDOWN_COLUMNS`] order.
fn table_cells(row: &BenchRow) -> [String; 15] {
    let rate = match row.status {
        BenchStatus::Ok => row.puzzles_per_s.map_or_else(|| "–".into(), rate_text),
        BenchStatus::GaveUp => format!(
            "{} (gave_up)",
            row.puzzles_per_s.map_or_else(|| "–".into(), rate_text)
        ),
        other => other.to_string(),
    };
    let spread = match (row.min_puzzles_per_s, row.max_puzzles_per_s) {
        (Some(lo), Some(hi)) => format!("{}–{}", rate_text(lo), rate_text(hi)),
        _ => "–".to_string(),
    };
    [
        row.dataset.clone(),
        row.puzzles.to_string(),
        row.sha256.chars().take(12).collect(),
        row.solver.clone(),
        row.mode.to_string(),
        row.threads.to_string(),
        rate,
        spread,
        opt(row.us_per_puzzle, 2),
        opt(row.p50_us, 2),
        opt(row.p99_us, 2),
        opt(row.guesses_per_puzzle, 2),
        opt(row.no_guess_pct, 1),
        opt(row.efficiency, 2),
        opt(row.cpu_share, 2),
    ]
}

/// A Markdown table cell for `text` (a file, host or CPU name, perhaps read from a results
/// file): on one line, and a `|` escaped, so it can split neither the row nor the cell.
pub(crate) fn table_cell(text: &str) -> String {
    one_line(text).replace('|', "\\|")
}

/// `text` on one line: control characters (a newline in an external command or a file name)
/// written as escapes, so a note stays one list item, a table cell one cell, and a chart's
/// text valid XML.
pub(crate) fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The notes under the table: each distinct row note, skipped invalid records, and an
/// interruption.
fn notes(rows: &[BenchRow], datasets: &[Dataset], interrupted: bool) -> Vec<String> {
    let mut notes = Vec::new();
    for row in rows.iter().filter(|r| !r.note.is_empty()) {
        let note = format!(
            "- {}",
            one_line(&format!(
                "{} × {} ({}): {}",
                row.dataset, row.solver, row.status, row.note
            ))
        );
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    for dataset in datasets.iter().filter(|d| d.invalid > 0) {
        notes.push(format!("- {}", one_line(&dataset.skipped_note())));
    }
    if interrupted {
        notes.push(format!(
            "- interrupted by {}: the rows above are what was measured",
            crate::run::interrupt::stopped_by()
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_stays_on_one_line() {
        assert_eq!(
            one_line("external `printf 'x\n'\r\tcat`: ok"),
            "external `printf 'x\\n'\\r\\tcat`: ok"
        );
        assert_eq!(one_line("plain × text"), "plain × text");
        assert_eq!(table_cell("a\nb|c.txt"), "a\\nb\\|c.txt");
        assert_eq!(one_line("Xeon\u{1}"), "Xeon\\u{1}");
    }
}
