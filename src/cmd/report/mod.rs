//! `report`: reads `bench --csv` results from many runs and machines and compares them in one
//! table (rows: dataset × solver × mode × threads; columns: machines; cells: puzzles/s and the
//! ratio to a baseline machine), as Markdown or CSV, and optionally as an SVG bar chart.
//!
//! When a machine measured the same configuration several times, its latest row (by timestamp)
//! is the one shown. Datasets are told apart by name and puzzle-list hash, so two runs compare
//! only when they solved the same puzzles.

use std::path::{Path, PathBuf};

use crate::cmd::bench::{one_line, rate_text, table_cell, BenchMode, BenchRow, BenchStatus};
use crate::cmd::{print_stdout, Finish};
use crate::error::{Error, Result};
use crate::io::targets::{check_targets, stdout_open_for, Target, WriteKind};

/// Table formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReportFormat {
    /// A Markdown table.
    #[default]
    Markdown,
    /// CSV.
    Csv,
}

/// Everything `report` needs, built from the command line.
#[derive(Debug, Clone)]
pub struct ReportConfig {
    /// Results CSV files.
    pub files: Vec<PathBuf>,
    /// Baseline machine: hostname, or text found in its label; `None` for the first machine.
    pub baseline: Option<String>,
    /// Table format.
    pub format: ReportFormat,
    /// Where to draw the SVG chart, if anywhere.
    pub svg: Option<PathBuf>,
    /// Logarithmic rate axis.
    pub log_scale: bool,
    /// Chart title.
    pub title: Option<String>,
}

impl ReportConfig {
    /// A Markdown comparison of `files` against the first machine read, without a chart.
    pub fn new(files: Vec<PathBuf>) -> Self {
        ReportConfig {
            files,
            baseline: None,
            format: ReportFormat::default(),
            svg: None,
            log_scale: false,
            title: None,
        }
    }
}

/// A machine column of the comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct MachineColumn {
    /// Host name.
    pub hostname: String,
    /// CPU model.
    pub cpu: String,
    /// The latest row seen from this machine, for its details (cores, OS, build).
    pub latest: BenchRow,
}

impl MachineColumn {
    /// `hostname (CPU)`.
    pub fn label(&self) -> String {
        format!("{} ({})", self.hostname, self.cpu)
    }
}

/// One machine's result for one configuration.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Not measured on that machine.
    Missing,
    /// Measured as not `ok` (for example `skipped`): the status.
    NotMeasured(BenchStatus),
    /// Puzzles per second.
    Rate(f64),
}

impl Cell {
    /// The rate, when there is one.
    pub fn rate(&self) -> Option<f64> {
        match self {
            Cell::Rate(rate) => Some(*rate),
            _ => None,
        }
    }
}

/// One configuration (dataset × solver × mode × threads) across machines.
#[derive(Debug, Clone, PartialEq)]
pub struct ComparisonRow {
    /// Dataset name (with a hash prefix when one name covers different puzzle lists).
    pub dataset: String,
    /// The dataset's puzzle-list SHA-256.
    pub sha256: String,
    /// Solver name.
    pub solver: String,
    /// `first` or `unique`.
    pub mode: BenchMode,
    /// Solver threads.
    pub threads: usize,
    /// One cell per machine column.
    pub cells: Vec<Cell>,
}

impl ComparisonRow {
    /// A short label for chart axes.
    pub fn label(&self) -> String {
        format!(
            "{} · {} · {} · {}t",
            self.dataset, self.solver, self.mode, self.threads
        )
    }
}

/// The comparison table.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Machine columns, in order of first appearance.
    pub machines: Vec<MachineColumn>,
    /// Configurations, in order of first appearance.
    pub rows: Vec<ComparisonRow>,
    /// Index of the baseline machine.
    pub baseline: usize,
}

/// Reads every row of the results files, in order.
pub(crate) fn load_rows(files: &[PathBuf]) -> Result<Vec<BenchRow>> {
    let mut rows = Vec::new();
    crate::io::targets::stdin_once(files)?;
    for given in files {
        // Standard input is named so in messages.
        let stdin = given.as_os_str() == "-";
        let path = &if stdin {
            PathBuf::from("stdin")
        } else {
            given.clone()
        };
        if !stdin && path.is_dir() {
            return Err(Error::Input {
                path: path.clone(),
                message: "is a folder, not a CSV written by `bench --csv`".to_string(),
            });
        }
        // Plain, or compressed with gzip or zstd (told by its first bytes), as results are
        // often stored.
        let mut source = if stdin {
            crate::io::results::decode_result(Box::new(std::io::stdin()), path)?
        } else {
            crate::io::results::open_result_file(path)?
        };
        let mut text = Vec::new();
        std::io::Read::read_to_end(&mut source, &mut text).map_err(|cause| Error::Read {
            path: path.clone(),
            cause,
        })?;
        let json = text.trim_ascii_start().starts_with(b"[");
        let file_rows = if json {
            json_rows(path, &text)?
        } else {
            csv_rows(path, &text)?
        };
        if file_rows.is_empty() {
            // A `bench --csv` file stopped before its first row holds the header alone: left
            // out beside files with rows, an error alone.
            let header_only = !json && !text.trim_ascii().is_empty();
            if !header_only || files.len() == 1 {
                return Err(Error::Input {
                    path: path.clone(),
                    message: "no result rows (expected a CSV written by `bench --csv`, or the \
                              JSON of `bench --summary`)"
                        .to_string(),
                });
            }
            stderr!(line:
                "report: {}: the header alone (a bench run stopped before its first row?); left \
                 out",
                path.display()
            );
        }
        rows.extend(file_rows);
    }
    if rows.is_empty() {
        return Err(Error::Input {
            path: files.first().cloned().unwrap_or_default(),
            message: "no result rows in any file given (each holds the header alone)".to_string(),
        });
    }
    Ok(rows)
}

/// The rows of the JSON list `bench --summary` writes, read from `path`.
fn json_rows(path: &Path, text: &[u8]) -> Result<Vec<BenchRow>> {
    let rows: Vec<BenchRow> = serde_json::from_slice(text).map_err(|e| Error::Input {
        path: path.to_path_buf(),
        message: format!("line {}: not the JSON of `bench --summary`: {e}", e.line()),
    })?;
    for (i, row) in rows.iter().enumerate() {
        if let Some(defect) = row.defect() {
            return Err(Error::Input {
                path: path.to_path_buf(),
                message: format!("row {}: not a `bench` result row: {defect}", i + 1),
            });
        }
    }
    Ok(rows)
}

/// Whether `record` is the header `headers` again, also behind the byte order mark a second
/// file's header may have.
fn is_header(record: &csv::ByteRecord, headers: &csv::ByteRecord) -> bool {
    record.len() == headers.len()
        && record.iter().zip(headers).enumerate().all(|(i, (a, b))| {
            let a = if i == 0 {
                a.strip_prefix(crate::io::UTF8_BOM).unwrap_or(a)
            } else {
                a
            };
            a == b
        })
}

/// The rows of the CSV `bench --csv` writes, read from `path`.
fn csv_rows(path: &Path, text: &[u8]) -> Result<Vec<BenchRow>> {
    let path = &path.to_path_buf();
    let mut rows = Vec::new();
    // `bench --csv` ends every row with a line end: a last row without one was cut off
    // while it was written (and a cut inside its last field would still parse).
    if !text.is_empty() && !text.ends_with(b"\n") {
        let line = text.iter().filter(|&&b| b == b'\n').count() + 1;
        return Err(Error::Input {
            path: path.clone(),
            message: format!(
                "line {line}: the last row has no line end: the file was cut off while it \
                 was written (remove that row, or run the benchmark again)"
            ),
        });
    }
    let mut reader = csv::Reader::from_reader(text);
    let headers = reader
        .byte_headers()
        .map_err(|e| csv_error(path, text, None, e))?
        .clone();
    // The measurement may be empty in a row (a failed one), so the row alone cannot tell a
    // removed column from an empty field: the header must name it.
    if !headers.is_empty() && !headers.iter().any(|name| name == b"puzzles_per_s") {
        // The csv reader skips blank lines before the header.
        let line = text
            .split(|&b| b == b'\n')
            .position(|l| !l.trim_ascii().is_empty())
            .map_or(1, |i| i + 1);
        return Err(Error::Input {
            path: path.clone(),
            message: format!(
                "line {line}: the header has no puzzles_per_s column: not `bench --csv` output \
                 (or that column was removed)"
            ),
        });
    }
    let mut record = csv::ByteRecord::new();
    while reader
        .read_byte_record(&mut record)
        .map_err(|e| csv_error(path, text, None, e))?
    {
        if is_header(&record, &headers) {
            let line = record.position().map_or(0, |p| line_at(text, p.byte()));
            return Err(Error::Input {
                path: path.clone(),
                message: format!(
                    "line {line}: the header again (two results files put together?); \
                         give each file to report by itself"
                ),
            });
        }
        let row: BenchRow = record
            .deserialize(Some(&headers))
            .map_err(|e| csv_error(path, text, Some(&headers), e))?;
        if let Some(defect) = row.defect() {
            let line = record.position().map_or(0, |p| line_at(text, p.byte()));
            return Err(Error::Input {
                path: path.clone(),
                message: format!("line {line}: not a `bench --csv` result row: {defect}"),
            });
        }
        rows.push(row);
    }
    Ok(rows)
}

/// The 1-based line of the record that starts at byte `offset` of `text`. The csv reader
/// counts a CRLF as two line ends and may place a record at the `\n` ending the line before
/// it, so line ends at `offset` are skipped and only `\n` is counted.
fn line_at(text: &[u8], offset: u64) -> u64 {
    let mut end = usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(text.len());
    while text.get(end).is_some_and(|b| matches!(b, b'\r' | b'\n')) {
        end += 1;
    }
    text[..end].iter().filter(|&&b| b == b'\n').count() as u64 + 1
}

/// The error of reading a results file, at its line (and column, given the `headers`).
fn csv_error(
    path: &Path,
    text: &[u8],
    headers: Option<&csv::ByteRecord>,
    error: csv::Error,
) -> Error {
    let line = error.position().map(|p| line_at(text, p.byte()));
    if let csv::ErrorKind::Io(_) = error.kind() {
        let csv::ErrorKind::Io(source) = error.into_kind() else {
            unreachable!("checked above")
        };
        return Error::Read {
            path: path.to_path_buf(),
            cause: source,
        };
    }
    // The csv crate's own position counts a CRLF as two lines: only `line` is given.
    let why = match error.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("it has {len} fields where the header has {expected_len}"),
        csv::ErrorKind::Deserialize { err, .. } => {
            let column = err
                .field()
                .and_then(|f| headers?.get(usize::try_from(f).ok()?))
                .map(String::from_utf8_lossy);
            match column {
                Some(name) => format!("column {name}: {}", err.kind()),
                None => err.to_string(),
            }
        }
        _ => error.to_string(),
    };
    Error::Input {
        path: path.to_path_buf(),
        message: match line {
            Some(line) => format!("line {line}: not a `bench --csv` result row: {why}"),
            None => format!("not a `bench --csv` results file: {error}"),
        },
    }
}

/// Builds the comparison of `rows`; `baseline` picks the reference machine.
pub fn compare(rows: &[BenchRow], baseline: Option<&str>) -> Result<Comparison> {
    let machines = machine_columns(rows);
    let baseline = find_baseline(&machines, baseline)?;
    let mut table = configurations(rows, &machines);
    group(&mut table);
    let rows = comparison_rows(&table);
    Ok(Comparison {
        machines,
        rows,
        baseline,
    })
}

/// A configuration and, per machine, its latest row.
type Configuration<'a> = (ComparisonRow, Vec<Option<&'a BenchRow>>);

/// Whether `a` was measured no later than `b` (the rows were checked to hold UTC times).
fn not_later(a: &BenchRow, b: &BenchRow) -> bool {
    use crate::cmd::bench::utc_time_key;
    utc_time_key(&a.timestamp) <= utc_time_key(&b.timestamp)
}

/// The machines of `rows` (host and CPU), in order of first appearance, each with its latest
/// row.
fn machine_columns(rows: &[BenchRow]) -> Vec<MachineColumn> {
    let mut machines: Vec<MachineColumn> = Vec::new();
    for row in rows {
        match machines
            .iter_mut()
            .find(|m| m.hostname == row.hostname && m.cpu == row.cpu)
        {
            Some(m) if not_later(&m.latest, row) => m.latest = row.clone(),
            Some(_) => {}
            None => machines.push(MachineColumn {
                hostname: row.hostname.clone(),
                cpu: row.cpu.clone(),
                latest: row.clone(),
            }),
        }
    }
    machines
}

/// Configurations keyed by (dataset, sha256, solver, mode, threads), first appearance first;
/// for each machine the latest row wins.
fn configurations<'a>(rows: &'a [BenchRow], machines: &[MachineColumn]) -> Vec<Configuration<'a>> {
    let mut table: Vec<Configuration<'a>> = Vec::new();
    // The configurations and machines already noted for mixing permutations.
    let mut noted: Vec<(usize, usize)> = Vec::new();
    for row in rows {
        let machine = machines
            .iter()
            .position(|m| m.hostname == row.hostname && m.cpu == row.cpu)
            .unwrap_or(0);
        let slot = table.iter().position(|(c, _)| {
            c.dataset == row.dataset
                && c.sha256 == row.sha256
                && c.solver == row.solver
                && c.mode == row.mode
                && c.threads == row.threads
        });
        let slot = slot.unwrap_or_else(|| {
            table.push((
                ComparisonRow {
                    dataset: row.dataset.clone(),
                    sha256: row.sha256.clone(),
                    solver: row.solver.clone(),
                    mode: row.mode,
                    threads: row.threads,
                    cells: Vec::new(),
                },
                vec![None; machines.len()],
            ));
            table.len() - 1
        });
        let best = &mut table[slot].1[machine];
        if let Some(other) = best.filter(|b| b.permute_seed != row.permute_seed) {
            if !noted.contains(&(slot, machine)) {
                noted.push((slot, machine));
                note_other_permutations(other, row);
            }
        }
        if best.is_none_or(|b| not_later(b, row)) {
            *best = Some(row);
        }
    }
    table
}

/// Says on stderr that one configuration of one machine was measured with other permutations
/// (`bench --permute`, `--no-permute`), whose rates do not compare: the latest row is shown.
fn note_other_permutations(a: &BenchRow, b: &BenchRow) {
    let seed = |r: &BenchRow| r.permute_seed.map_or("none".to_string(), |s| s.to_string());
    stderr!(line:
        "report: note: {} × {} × {} × {} thread(s) on {} was measured with permute seeds {} and \
         {}, whose rates do not compare; the latest row is shown",
        a.dataset,
        a.solver,
        a.mode,
        a.threads,
        a.hostname,
        seed(a),
        seed(b)
    );
}

/// Groups the table: each dataset's rows together (datasets and solvers in the order first
/// seen), then by mode and thread count, whatever order the runs were appended in.
fn group(table: &mut [Configuration<'_>]) {
    let first_seen = |key: &dyn Fn(&ComparisonRow) -> &str| {
        let mut seen: Vec<String> = Vec::new();
        for (c, _) in table.iter() {
            if !seen.iter().any(|s| s == key(c)) {
                seen.push(key(c).to_string());
            }
        }
        seen
    };
    let datasets = first_seen(&|c| c.dataset.as_str());
    let solvers = first_seen(&|c| c.solver.as_str());
    let rank = |list: &[String], name: &str| list.iter().position(|s| s == name);
    table.sort_by_key(|(c, _)| {
        (
            rank(&datasets, &c.dataset),
            c.sha256.clone(),
            rank(&solvers, &c.solver),
            c.mode.as_str(),
            c.threads,
        )
    });
}

/// The rows of the comparison, a cell per machine; a dataset name that covers several puzzle
/// lists gets the hash prefix to tell them apart.
fn comparison_rows(table: &[Configuration<'_>]) -> Vec<ComparisonRow> {
    let ambiguous = |name: &str, sha: &str| {
        table
            .iter()
            .any(|(c, _)| c.dataset == name && c.sha256 != sha)
    };
    table
        .iter()
        .map(|(config, latest)| {
            let mut row = config.clone();
            if ambiguous(&config.dataset, &config.sha256) {
                let prefix: String = config.sha256.chars().take(8).collect();
                row.dataset = format!("{} ({prefix})", config.dataset);
            }
            row.cells = latest
                .iter()
                .map(|r| match r {
                    None => Cell::Missing,
                    Some(r) => match (r.status, r.puzzles_per_s) {
                        (BenchStatus::Ok, Some(rate)) => Cell::Rate(rate),
                        (status, _) => Cell::NotMeasured(status),
                    },
                })
                .collect();
            row
        })
        .collect()
}

/// One row of a Markdown table: a `|` or a line end inside a cell (a host name, a CPU model or
/// a dataset name read from a results file) is escaped, so it can split neither the cell nor
/// the row.
fn table_row(cells: &[String]) -> String {
    let cells: Vec<String> = cells.iter().map(|c| table_cell(c)).collect();
    format!("| {} |\n", cells.join(" | "))
}

fn find_baseline(machines: &[MachineColumn], wanted: Option<&str>) -> Result<usize> {
    let Some(wanted) = wanted else {
        return Ok(0);
    };
    // A whole host name or label first; two machines of one host name (a container's, or
    // `localhost`) are told apart by their CPU, never by taking the first.
    let exact: Vec<usize> = (0..machines.len())
        .filter(|&i| machines[i].hostname == wanted || machines[i].label() == wanted)
        .collect();
    let matches = if exact.is_empty() {
        let needle = wanted.to_lowercase();
        (0..machines.len())
            .filter(|&i| machines[i].label().to_lowercase().contains(&needle))
            .collect()
    } else {
        exact
    };
    match matches.as_slice() {
        [one] => Ok(*one),
        _ => {
            let names: Vec<String> = machines.iter().map(MachineColumn::label).collect();
            Err(Error::Usage(format!(
                "--baseline {wanted:?} {} one machine; the machines are: {}",
                if matches.is_empty() {
                    "matches no"
                } else {
                    "matches more than"
                },
                names.join("; ")
            )))
        }
    }
}

impl Comparison {
    /// The ratio of a cell's rate to the baseline machine's rate in the same row.
    pub fn ratio(&self, row: &ComparisonRow, machine: usize) -> Option<f64> {
        let rate = row.cells.get(machine)?.rate()?;
        let base = row.cells.get(self.baseline)?.rate()?;
        (base > 0.0).then(|| rate / base)
    }

    /// The Markdown table, followed by the list of machines.
    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "puzzles/s (ratio to {})\n\n",
            one_line(&self.machines[self.baseline].label())
        );
        let mut header = vec![
            "dataset".to_string(),
            "solver".into(),
            "mode".into(),
            "threads".into(),
        ];
        header.extend(self.machines.iter().map(MachineColumn::label));
        out.push_str(&table_row(&header));
        let mut rule = vec!["---", "---", "---", "---:"];
        rule.extend(self.machines.iter().map(|_| "---:"));
        out.push_str(&format!("|{}|\n", rule.join("|")));
        for row in &self.rows {
            let mut cells = vec![
                row.dataset.clone(),
                row.solver.clone(),
                row.mode.to_string(),
                row.threads.to_string(),
            ];
            for (machine, cell) in row.cells.iter().enumerate() {
                cells.push(match cell {
                    Cell::Missing => "–".to_string(),
                    Cell::NotMeasured(status) => status.to_string(),
                    Cell::Rate(rate) => match self.ratio(row, machine) {
                        Some(ratio) => format!("{} ({ratio:.2}×)", rate_text(*rate)),
                        None => rate_text(*rate),
                    },
                });
            }
            out.push_str(&table_row(&cells));
        }
        out.push_str("\nMachines (latest run):\n");
        for machine in &self.machines {
            let r = &machine.latest;
            let line = format!(
                "{}: {} logical / {} physical cores, {} {}, sudoku-batch {} ({}), {}, {}",
                machine.label(),
                r.logical_cores,
                r.physical_cores,
                r.os,
                r.arch,
                r.version,
                r.git_commit,
                r.rustc,
                r.timestamp
            );
            out.push_str(&format!("- {}\n", one_line(&line)));
        }
        out
    }

    /// The CSV table: configuration columns, then `puzzles/s` and `ratio` per machine.
    pub fn to_csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let mut header = vec![
            "dataset".to_string(),
            "sha256".into(),
            "solver".into(),
            "mode".into(),
            "threads".into(),
        ];
        for machine in &self.machines {
            header.push(format!("{} puzzles/s", machine.label()));
            header.push(format!("{} ratio", machine.label()));
        }
        // Writing to a Vec cannot fail.
        let _ = writer.write_record(&header);
        for row in &self.rows {
            let mut record = vec![
                row.dataset.clone(),
                row.sha256.clone(),
                row.solver.clone(),
                row.mode.to_string(),
                row.threads.to_string(),
            ];
            for (machine, cell) in row.cells.iter().enumerate() {
                record.push(match cell {
                    Cell::Missing => String::new(),
                    Cell::NotMeasured(status) => status.to_string(),
                    Cell::Rate(rate) => format!("{rate:.1}"),
                });
                record.push(
                    self.ratio(row, machine)
                        .map_or_else(String::new, |r| format!("{r:.3}")),
                );
            }
            let _ = writer.write_record(&record);
        }
        String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
    }
}

/// Runs `report`: loads, compares, draws the chart if asked, and returns the table text.
pub fn run(config: &ReportConfig) -> Result<String> {
    let svg: Vec<Target<'_>> = (config.svg.iter())
        .map(|path| Target::new("--svg", path, WriteKind::Replaced))
        .collect();
    check_targets(&config.files, &svg)?;
    if config.svg.is_none() {
        stdout_open_for("the table", "redirect it to a file, or give --svg a file")?;
    }
    let rows = load_rows(&config.files)?;
    let comparison = compare(&rows, config.baseline.as_deref())?;
    if let Some(path) = &config.svg {
        let title = config.title.clone().unwrap_or_else(|| {
            "sudoku-batch bench: puzzles per second by machine (higher is better)".to_string()
        });
        chart::draw_svg(&comparison, path, &title, config.log_scale)?;
    }
    Ok(match config.format {
        ReportFormat::Markdown => comparison.to_markdown(),
        ReportFormat::Csv => comparison.to_csv(),
    })
}

/// Prints the table text on stdout, or on stderr when the `--svg` chart went to standard
/// output; a comparison that was made is all good.
pub fn finish(text: &str, config: &ReportConfig) -> Result<Finish> {
    if config
        .svg
        .as_deref()
        .is_some_and(crate::io::targets::is_stdout)
    {
        stderr!(text: "{text}");
    } else {
        print_stdout(text)?;
    }
    Ok(Finish::AllGood)
}

pub mod chart;

#[cfg(test)]
mod tests {
    use super::*;

    fn row(
        host: &str,
        dataset: &str,
        solver: &str,
        threads: usize,
        rate: f64,
        ts: &str,
    ) -> BenchRow {
        let json = serde_json::json!({
            "timestamp": ts, "dataset": dataset, "puzzles": 10, "sha256": format!("sha-{dataset}"),
            "solver": solver, "mode": "first", "threads": threads, "permute_seed": 1,
            "status": "ok", "solved": 10, "passes": 3, "puzzles_per_s": rate,
            "min_puzzles_per_s": rate, "max_puzzles_per_s": rate, "us_per_puzzle": 1e6 / rate,
            "p50_us": 1.0, "p99_us": 2.0, "guesses_per_puzzle": 0.5, "no_guess_pct": 50.0,
            "efficiency": null, "note": "", "load_1m": null, "hostname": host, "cpu": "CPU",
            "logical_cores": 2, "physical_cores": 2, "os": "linux", "arch": "x86_64",
            "version": "0.1.0", "git_commit": "abc", "rustc": "rustc 1", "cpu_features_used": "",
            "cpu_features_available": ""
        });
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn latest_row_wins_and_ratios_are_to_the_baseline() {
        let rows = vec![
            row("a", "hard", "singles", 1, 100.0, "2024-01-01T00:00:00Z"),
            row("b", "hard", "singles", 1, 300.0, "2024-01-01T00:00:00Z"),
            row("a", "hard", "singles", 1, 200.0, "2024-02-01T00:00:00Z"),
            row("b", "easy", "singles", 2, 50.0, "2024-01-01T00:00:00Z"),
        ];
        let c = compare(&rows, None).unwrap();
        assert_eq!(c.machines.len(), 2);
        assert_eq!(c.rows.len(), 2);
        assert_eq!(c.rows[0].cells, [Cell::Rate(200.0), Cell::Rate(300.0)]);
        assert_eq!(c.ratio(&c.rows[0], 1), Some(1.5));
        assert_eq!(c.rows[1].cells, [Cell::Missing, Cell::Rate(50.0)]);
        assert_eq!(c.ratio(&c.rows[1], 1), None);
        let c = compare(&rows, Some("b")).unwrap();
        assert_eq!(c.baseline, 1);
        assert_eq!(c.ratio(&c.rows[0], 0), Some(200.0 / 300.0));
        assert!(compare(&rows, Some("zzz")).is_err());
        assert!(compare(&rows, Some("cpu")).is_err(), "ambiguous");
        // Two machines named alike: the host name alone is ambiguous, its label is not.
        let mut twin = row("a", "hard", "singles", 1, 400.0, "2024-01-01T00:00:00Z");
        twin.cpu = "Other CPU".into();
        let rows = [rows, vec![twin]].concat();
        let error = compare(&rows, Some("a")).err().unwrap().to_string();
        assert!(error.contains("matches more than one machine"), "{error}");
        let c = compare(&rows, Some("a (Other CPU)")).unwrap();
        assert_eq!(c.machines[c.baseline].cpu, "Other CPU");
        let c = compare(&rows, Some("other")).unwrap();
        assert_eq!(c.machines[c.baseline].cpu, "Other CPU");
    }

    #[test]
    fn a_bar_in_a_name_does_not_split_a_markdown_cell() {
        let mut odd = row("a|b", "x|y", "singles", 1, 100.0, "2024-01-01T00:00:00Z");
        odd.cpu = "C|PU".into();
        let table = compare(&[odd], None).unwrap().to_markdown();
        let lines: Vec<&str> = table.lines().filter(|l| l.starts_with('|')).collect();
        assert_eq!(lines.len(), 3, "{table}");
        for line in lines {
            // Five cells: four columns and one machine.
            let bars = line.len() - line.replace('|', "").len() - line.matches("\\|").count();
            assert_eq!(bars, 6, "{line}");
        }
        assert!(
            table.contains("a\\|b (C\\|PU)") && table.contains("x\\|y"),
            "{table}"
        );
    }

    #[test]
    fn same_name_different_puzzles_are_separate_rows() {
        let mut other = row("a", "hard", "singles", 1, 10.0, "2024-01-01T00:00:00Z");
        other.sha256 = "different".into();
        let rows = vec![
            row("a", "hard", "singles", 1, 20.0, "2024-01-01T00:00:00Z"),
            other,
        ];
        let c = compare(&rows, None).unwrap();
        assert_eq!(c.rows.len(), 2);
        assert_ne!(c.rows[0].dataset, c.rows[1].dataset);
    }

    #[test]
    fn a_header_without_the_measurement_is_refused() {
        let text = b"timestamp,dataset,solver\n2024-01-01T00:00:00Z,a,bands\n";
        let error = csv_rows(Path::new("b.csv"), text).unwrap_err().to_string();
        assert!(
            error.contains("line 1: the header has no puzzles_per_s column"),
            "{error}"
        );
        let text = [&b"\n\n"[..], text].concat();
        let error = csv_rows(Path::new("b.csv"), &text).unwrap_err().to_string();
        assert!(error.contains("line 3: the header has no"), "{error}");
    }

    #[test]
    fn rates_format_compactly() {
        for (rate, text) in [
            (950.0, "950"),
            (1234.0, "1.2k"),
            (1000.0, "1k"),
            (12_600.0, "13k"),
            (0.0, "0"),
            (2.5e6, "2.5M"),
            (1e6, "1M"),
        ] {
            assert_eq!(chart::format_rate(rate), text);
        }
    }
}
