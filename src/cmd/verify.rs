//! `verify`: checks solution files (Kaggle-style CSVs, `solve`'s own output, `puzzle<sep>solution`
//! line files) and, with `--unique`, puzzle collections (lines, CSV without a solution column,
//! grid files), row by row, streaming, on all cores.
//!
//! Every row that gives a solution passes when the solution is a complete grid that obeys the
//! rules and keeps every clue of its puzzle (and, with `--unique`, when the puzzle has exactly one
//! solution). A row that gives no solution is *skipped*: counted and reported, not a failure,
//! unless `--require-solution`. That covers `solve`'s rows whose status is not `solved` (their
//! solution column is empty). A row of `solve`'s output whose status says `solved` but whose
//! solution is empty fails as malformed, and so does one whose status is neither `solved` nor
//! `mismatch` but that holds a solution.
//!
//! A puzzle-only record (a line with one puzzle, a tdoku-style `puzzle:0` line, a row of a CSV
//! without a solution column, a grid block) is skipped too, unless `--unique`: then it passes when its puzzle has exactly one
//! solution, and fails as `not_unique` or `no_solution` otherwise. Its puzzle is read all the
//! same: one that is not a puzzle (80 cells, or a puzzle and its solution run together into one
//! 162-character token) fails as `wrong_length` or `malformed`, never skipped.
//!
//! Rows come from the shared record layer ([`crate::io::RecordReader`]), the same as `solve`'s,
//! with its bounds: the reading thread only cuts records, the pool reads their fields as written
//! ([`RowContent::from_fields`]), to say exactly what is wrong with them.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use crate::cmd::{Finish, RunOptions};
use crate::error::{Error, Result};
use crate::grid::Grid;
use crate::io::output::{write_json, Output};
use crate::io::targets::{check_targets, one_on_stdout, Target, WriteKind};
use crate::io::{Columns, Fields, Input, RecordReader};
use crate::run::records::{Chunk, ShardedRecords};
use crate::run::{check_threads, interrupt, ordered_map, Progress, Workers, INLINE_START};
use crate::solver::SolverKind;
use crate::verdict::{self, CheckOptions, Status};
pub use crate::verdict::{FailureKind, RowVerdict};

/// Rows per work item handed to the pool.
const CHUNK: usize = 1024;

/// Rows per chunk while the run starts on the calling thread.
const INLINE_CHUNK: usize = 64;

/// Record text per work item: a chunk of long records ends early, so memory stays bounded by
/// the chunks in flight of at most this plus one record of [`crate::io::MAX_LINE`] bytes.
const CHUNK_TEXT: usize = 256 * 1024;

/// Fields longer than this are reported by length only.
const MAX_FIELD: usize = 1024;

/// Everything `verify` needs, built from the command line.
#[derive(Debug, Clone)]
pub struct VerifyConfig {
    /// The inputs, how to read them (layout and puzzle column), the JSON summary, worker
    /// threads and quiet.
    pub run: RunOptions,
    /// CSV solution column by name or 1-based number (default: `solution` or `solutions`).
    pub solution_column: Option<String>,
    /// Also prove that each puzzle has exactly one solution (and prove puzzle-only records).
    pub unique: bool,
    /// Rows that give no solution fail (as malformed) instead of being skipped.
    pub require_solution: bool,
    /// Write every failure as CSV `file,line,kind,reason` here.
    pub report: Option<PathBuf>,
    /// How many failures to print after the summary.
    pub show: usize,
    /// The solver for `--unique`.
    pub solver: SolverKind,
    /// A uniqueness proof that needs more guesses fails as `gave_up`.
    pub max_guesses: Option<u64>,
}

impl VerifyConfig {
    /// How each row is checked.
    pub(crate) fn check_options(&self) -> CheckOptions<'static> {
        CheckOptions {
            unique: self.unique,
            require_solution: self.require_solution,
            solver: self.solver,
            max_guesses: self.max_guesses,
            // A stop ends a slow uniqueness proof too; that row's verdict is dropped.
            stop: Some(interrupt::flag()),
        }
    }

    /// A configuration with defaults for everything but the inputs.
    pub fn new(inputs: Vec<Input>) -> Self {
        VerifyConfig {
            run: RunOptions::new(inputs),
            solution_column: None,
            unique: false,
            require_solution: false,
            report: None,
            show: 10,
            solver: SolverKind::default(),
            max_guesses: None,
        }
    }

    /// The record reader over this run's inputs, asking CSV files for a solution column (one is
    /// required unless `--unique` proves puzzles alone) and `solve`'s status column.
    fn reader(&self, bytes_read: Arc<AtomicU64>) -> RecordReader {
        let (inputs, read) = (self.run.inputs.clone(), self.run.read.clone());
        RecordReader::new(inputs, read, bytes_read).with_columns(Columns {
            solution: self.solution_column.clone(),
            need_solution: !self.unique,
            check_solution: true,
            status: true,
            solution_option: true,
            ignore_solution: false,
        })
    }
}

/// What one row holds, as read (before any checking): its text as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowContent<'a> {
    /// A puzzle field and a solution field, as written (trimmed).
    Pair {
        /// The puzzle text.
        puzzle: &'a [u8],
        /// The solution text.
        solution: &'a [u8],
    },
    /// A puzzle-only record: the input has no solution for it at all (a line with one puzzle,
    /// a CSV without a solution column, a grid block).
    PuzzleOnly {
        /// The puzzle text.
        puzzle: &'a [u8],
    },
    /// The row has a solution field, left empty.
    NoSolution,
    /// The row cannot be read.
    Bad {
        /// Why (malformed or wrong length).
        kind: FailureKind,
        /// What is wrong.
        reason: String,
    },
}

impl<'a> RowContent<'a> {
    /// Reads a raw record's fields as a row to check.
    pub fn from_fields(fields: &Fields<'a>) -> RowContent<'a> {
        let (puzzle, solution, status) = match fields {
            Fields::Bad { message, .. } => {
                return RowContent::Bad {
                    kind: FailureKind::Malformed,
                    reason: message.to_string(),
                }
            }
            Fields::Puzzle {
                puzzle,
                solution,
                status,
                ..
            } => (*puzzle, *solution, *status),
        };
        let puzzle = match keep_field("puzzle", puzzle) {
            Ok(text) => text,
            Err(bad) => return bad,
        };
        match solution {
            None => RowContent::PuzzleOnly { puzzle },
            Some(b"") if status == Some(b"solved") => RowContent::Bad {
                kind: FailureKind::Malformed,
                reason: "status is solved but the solution is empty".into(),
            },
            // An empty solution field of a file with no status column (not `solve`'s output)
            // leaves the record a puzzle alone, as a line with one puzzle is.
            Some(b"") if status.is_none() => RowContent::PuzzleOnly { puzzle },
            Some(b"") => RowContent::NoSolution,
            // `solve` writes a solution only with `solved` and `mismatch`: a row of its output
            // that claims another status (or none, or a word that is no status) and holds one
            // was changed since (as `--resume` and `merge` also refuse it).
            Some(_)
                if status.is_some_and(|s| {
                    !std::str::from_utf8(s)
                        .ok()
                        .and_then(Status::from_word)
                        .is_some_and(|s| matches!(s, Status::Solved | Status::Mismatch))
                }) =>
            {
                RowContent::Bad {
                    kind: FailureKind::Malformed,
                    reason: match status.unwrap_or_default() {
                        b"" => "status is empty but a solution is given".to_string(),
                        word if std::str::from_utf8(word)
                            .ok()
                            .and_then(Status::from_word)
                            .is_none() =>
                        {
                            // Not `solve`'s output (`rate`'s says `rated`), or edited.
                            format!(
                                "status {:?} is none of solve's ({}), so the row is no solve \
                                 output to check",
                                String::from_utf8_lossy(word),
                                Status::ALL.map(|s| s.as_str()).join(", ")
                            )
                        }
                        word => format!(
                            "status is {} but a solution is given",
                            String::from_utf8_lossy(word)
                        ),
                    },
                }
            }
            Some(solution) => match keep_field("solution", solution) {
                Ok(solution) => RowContent::Pair { puzzle, solution },
                Err(bad) => bad,
            },
        }
    }
}

/// A field as kept in a row, or a wrong-length failure when it is too long to be worth reading.
fn keep_field<'a>(what: &str, text: &'a [u8]) -> std::result::Result<&'a [u8], RowContent<'a>> {
    let text = text.trim_ascii();
    if text.len() > MAX_FIELD {
        return Err(RowContent::Bad {
            kind: FailureKind::WrongLength,
            reason: format!("{what}: expected 81 cells, found {} characters", text.len()),
        });
    }
    Ok(text)
}

fn parse_field(what: &str, text: &[u8]) -> std::result::Result<Grid, (FailureKind, String)> {
    Grid::from_bytes(text).map_err(|e| {
        let kind = FailureKind::from(&e);
        let (first, second) = text.split_at(text.len() / 2);
        let glued = text.len() == 162
            && Grid::from_bytes(first).is_ok()
            && Grid::from_bytes(second).is_ok_and(|grid| grid.is_complete());
        let hint = if glued {
            " (a puzzle and its solution run together? separate them with a comma, space or colon)"
        } else {
            ""
        };
        (kind, format!("{what}: {e}{hint}"))
    })
}

/// Checks one row: its fields read as grids, then [`verdict::check`]. This is the per-row path
/// of the parallel run and the test oracle.
pub fn check_row(content: &RowContent, options: &CheckOptions) -> RowVerdict {
    let (puzzle, solution) = match content {
        RowContent::Bad { kind, reason } => return RowVerdict::Failed(*kind, reason.clone()),
        RowContent::NoSolution => return verdict::check_missing(options),
        RowContent::PuzzleOnly { puzzle } => (puzzle, None),
        RowContent::Pair { puzzle, solution } => (puzzle, Some(solution)),
    };
    // A malformed line is a failure, not a row without a solution.
    let parsed = parse_field("puzzle", puzzle).and_then(|puzzle| {
        let solution = solution.map(|s| parse_field("solution", s)).transpose()?;
        Ok((puzzle, solution))
    });
    match parsed {
        Ok((puzzle, solution)) => verdict::check(&puzzle, solution.as_ref(), options),
        Err((kind, reason)) => RowVerdict::Failed(kind, reason),
    }
}

/// One failed row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The input's display name.
    pub file: String,
    /// 1-based line in that input.
    pub line: u64,
    /// Why it failed.
    pub kind: FailureKind,
    /// What exactly is wrong.
    pub reason: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: {}: {}",
            self.file,
            self.line,
            self.kind.as_str(),
            self.reason
        )
    }
}

/// Failure counts by kind, with stable JSON keys.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct FailureCounts {
    /// Rows that could not be read.
    pub malformed: u64,
    /// Puzzles or solutions without 81 cells.
    pub wrong_length: u64,
    /// Solutions with blank cells.
    pub incomplete: u64,
    /// Solutions that repeat a digit in a unit.
    pub broken_rule: u64,
    /// Solutions that change a clue.
    pub clue_contradicted: u64,
    /// Puzzles with several solutions (`--unique`).
    pub not_unique: u64,
    /// Puzzle-only records whose puzzle has no solution (`--unique`).
    pub no_solution: u64,
    /// Uniqueness proofs that reached `--max-guesses`.
    #[serde(default)]
    pub gave_up: u64,
}

impl FailureCounts {
    /// The count for `kind`.
    pub fn get(&self, kind: FailureKind) -> u64 {
        match kind {
            FailureKind::Malformed => self.malformed,
            FailureKind::WrongLength => self.wrong_length,
            FailureKind::Incomplete => self.incomplete,
            FailureKind::BrokenRule => self.broken_rule,
            FailureKind::ClueContradicted => self.clue_contradicted,
            FailureKind::NotUnique => self.not_unique,
            FailureKind::NoSolution => self.no_solution,
            FailureKind::GaveUp => self.gave_up,
        }
    }

    fn add(&mut self, kind: FailureKind, n: u64) {
        let slot = match kind {
            FailureKind::Malformed => &mut self.malformed,
            FailureKind::WrongLength => &mut self.wrong_length,
            FailureKind::Incomplete => &mut self.incomplete,
            FailureKind::BrokenRule => &mut self.broken_rule,
            FailureKind::ClueContradicted => &mut self.clue_contradicted,
            FailureKind::NotUnique => &mut self.not_unique,
            FailureKind::NoSolution => &mut self.no_solution,
            FailureKind::GaveUp => &mut self.gave_up,
        };
        *slot += n;
    }

    /// All failures.
    pub fn total(&self) -> u64 {
        FailureKind::ALL.iter().map(|&k| self.get(k)).sum()
    }
}

/// The outcome of a `verify` run (also written as JSON with `--json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerifySummary {
    /// Inputs read.
    pub files: usize,
    /// Rows read (blank and `#` lines of line files are not rows).
    pub rows: u64,
    /// Rows whose solution passed.
    pub valid: u64,
    /// Rows that give no solution (not checked, not failures unless `--require-solution`).
    pub skipped: u64,
    /// Rows that failed.
    pub failed: u64,
    /// Failed rows by kind.
    pub failures: FailureCounts,
    /// Whether uniqueness was checked.
    pub unique: bool,
    /// Worker threads.
    pub threads: usize,
    /// Solver used for `--unique`.
    pub solver: String,
    /// Wall time.
    pub wall_seconds: f64,
    /// Rows per second.
    pub rows_per_second: f64,
    /// The run was stopped by a signal: the counts cover the rows checked before it only. Written
    /// to the JSON only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

/// What a finished run reports.
#[derive(Debug, Clone)]
pub struct VerifyReport {
    /// The counts.
    pub summary: VerifySummary,
    /// The first failures, up to the configured number, in input order.
    pub first_failures: Vec<Failure>,
    /// Where the first skipped row is (`file:line`), if any.
    pub first_skipped: Option<String>,
    /// Inputs that held no rows.
    pub empty_inputs: Vec<String>,
    /// Remarks for stderr: what a stopped run covered, and where its report is.
    pub notes: Vec<String>,
}

impl VerifyReport {
    /// True when every row that was checked passed and at least one was checked.
    pub fn all_good(&self) -> bool {
        self.summary.failed == 0 && self.summary.valid > 0
    }

    /// Prints the report as the command line does (warnings and notes on stderr always, the
    /// text summary on stdout unless `quiet`, or on stderr when `--summary` or `--report`
    /// writes to stdout) and returns the outcome of
    /// [`all_good`](Self::all_good), or [`Finish::Interrupted`] for a run stopped by a signal.
    pub fn finish(&self, config: &VerifyConfig) -> Result<Finish> {
        if !self.summary.interrupted {
            for name in &self.empty_inputs {
                stderr!(line: "warning: {name}: no rows found");
            }
        }
        self.notes.iter().for_each(|note| stderr!(line: "{note}"));
        if !config.run.quiet {
            self.print_text(config)?;
        }
        Ok(if self.summary.interrupted {
            Finish::Interrupted
        } else if self.all_good() {
            Finish::AllGood
        } else {
            Finish::SomeFailed
        })
    }

    /// Prints the text summary on stdout, or on stderr when `--summary` or `--report` writes
    /// to stdout, so that what stdout holds is still one readable document.
    fn print_text(&self, config: &VerifyConfig) -> Result<()> {
        let stdout_taken = [&config.run.summary, &config.report]
            .into_iter()
            .flatten()
            .any(|path| crate::io::targets::is_stdout(path));
        if stdout_taken {
            stderr!(text: "{}", self.to_text());
            return Ok(());
        }
        use std::io::Write;
        match std::io::stdout().write_all(self.to_text().as_bytes()) {
            // `verify | head` closed the pipe: the exit status still gives the verdict.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            result => result.map_err(|source| Error::Write {
                path: "-".into(),
                cause: source,
            }),
        }
    }

    /// The text summary: counts, then the first failures as `file:line: kind: reason`.
    pub fn to_text(&self) -> String {
        let s = &self.summary;
        let mut text = format!(
            "verified {} rows from {} file(s) in {:.3} s ({:.0} rows/s, {} thread{}{})\n",
            s.rows,
            s.files,
            s.wall_seconds,
            s.rows_per_second,
            s.threads,
            if s.threads == 1 { "" } else { "s" },
            if s.unique {
                format!(", uniqueness by solver {}", s.solver)
            } else {
                String::new()
            }
        );
        text += &format!("  valid                  {}\n", s.valid);
        text += &format!("  skipped                {}", s.skipped);
        match &self.first_skipped {
            Some(at) => text += &format!("  (no solution given; first at {at})\n"),
            None => text += "\n",
        }
        text += &format!("  failed                 {}\n", s.failed);
        for kind in FailureKind::ALL {
            if kind == FailureKind::GaveUp && s.failures.get(kind) == 0 {
                // Only with --max-guesses, and then only when it bit.
                continue;
            }
            if kind.needs_unique() && !s.unique {
                text += &format!("    {:<21}not checked (use --unique)\n", kind.label());
            } else {
                text += &format!("    {:<21}{}\n", kind.label(), s.failures.get(kind));
            }
        }
        if s.valid == 0 && s.failed == 0 && !s.interrupted {
            text += "nothing was checked: no row gives a solution";
            text += if s.unique {
                "\n"
            } else {
                " (--unique proves puzzles alone)\n"
            };
        }
        if !self.first_failures.is_empty() {
            let shown = self.first_failures.len() as u64;
            if shown < s.failed {
                text += &format!("first {shown} of {} failures:\n", s.failed);
            } else {
                text += "failures:\n";
            }
            for failure in &self.first_failures {
                text += &format!("{failure}\n");
            }
        }
        text
    }
}

/// A checked chunk: its counts and its failures, in order.
struct ChunkOut {
    /// A stop request cut a row's uniqueness proof short: the chunk holds the rows before it.
    cut: bool,
    rows: u64,
    valid: u64,
    skipped: u64,
    counts: FailureCounts,
    failures: Vec<(u32, u64, FailureKind, String)>,
    first_skipped: Option<(u32, u64)>,
}

fn check_chunk(chunk: &Chunk, config: &VerifyConfig) -> ChunkOut {
    let mut out = ChunkOut {
        cut: false,
        rows: 0,
        valid: 0,
        skipped: 0,
        counts: FailureCounts::default(),
        failures: Vec::new(),
        first_skipped: None,
    };
    let options = config.check_options();
    for (_, record) in chunk.iter() {
        // With uniqueness proofs (which can take long) a stop ends the chunk between rows too,
        // as in `solve` and `rate`: the chunks queued behind it are not proven to their end.
        // Without them a chunk takes microseconds a row, and rows read before the stop are
        // all checked.
        if options.unique && interrupt::requested() {
            out.cut = true;
            break;
        }
        let verdict = record.with_fields(&chunk.text, |fields| {
            check_row(&RowContent::from_fields(fields), &options)
        });
        // A uniqueness proof that a stop cut short: no verdict on this row, nor on the next.
        if matches!(verdict, RowVerdict::Failed(FailureKind::GaveUp, _)) && interrupt::requested() {
            out.cut = true;
            break;
        }
        out.rows += 1;
        match verdict {
            RowVerdict::Valid => out.valid += 1,
            RowVerdict::Skipped => {
                out.skipped += 1;
                out.first_skipped.get_or_insert((record.file, record.line));
            }
            RowVerdict::Failed(kind, reason) => {
                out.counts.add(kind, 1);
                out.failures.push((record.file, record.line, kind, reason));
            }
        }
    }
    out
}

/// The header of the `--report` CSV.
pub(crate) const REPORT_COLUMNS: [&str; 4] = ["file", "line", "kind", "reason"];

/// Runs `verify`: reads every input, checks the rows on `config.run.threads` threads, writes the
/// failure report in input order, and returns the summary. Failed rows are counts, not errors;
/// errors are usage and I/O failures. A signal (Ctrl-C, SIGTERM, SIGHUP) stops the reading: the
/// summary covers the rows checked before it (a slow uniqueness proof is cut short and its row
/// left out), and a `--report` file is left as `FILE.partial`.
pub fn run(config: &VerifyConfig) -> Result<VerifyReport> {
    for input in &config.run.inputs {
        input.check()?;
    }
    // Before the report is opened: a FIFO's wait for its reader ends at a stop request too.
    interrupt::arm(Some(
        "stopping; the verdict will cover the rows checked so far",
    ));
    let mut report = open_report(config)?;
    let threads = config.run.threads.max(1);
    check_threads(threads, config.run.allow_oversubscribe)?;
    let workers = Workers::new(threads);
    let files: Vec<String> = config.run.inputs.iter().map(Input::display_name).collect();
    let bytes_read = Arc::new(AtomicU64::new(0));
    let total_bytes: Option<u64> = config.run.inputs.iter().map(Input::size).sum();
    let mut progress = Progress::new(total_bytes, config.run.quiet);
    let started = Instant::now();

    let mut records = ShardedRecords::new(config.reader(bytes_read.clone()), None);
    // Rows worked on this thread at the start (`INLINE_START`) come a few at a time, so the
    // start stays short with `--unique` on hard puzzles too.
    let produce = |inline: bool| {
        let rows = if inline { INLINE_CHUNK } else { CHUNK };
        records.next_chunk(Chunk::with_capacity(rows), rows, CHUNK_TEXT)
    };
    let work = |chunk: Chunk| check_chunk(&chunk, config);
    let mut summary = VerifySummary::new(config, threads);
    let mut first_failures = Vec::new();
    let mut first_skipped = None;
    let name = |file: u32| files.get(file as usize).map_or("-", String::as_str);
    let mut cut = false;
    // An earlier run's report and summary must not pass for this run's: they go with its
    // first rows (a run that fails or stops before them leaves them as they were).
    let mut stale: Vec<&PathBuf> = config.report.iter().chain(&config.run.summary).collect();
    let consume = |chunk: ChunkOut| -> Result<()> {
        if cut {
            // After a chunk a stop cut short: its rows would leave a gap in the verdict.
            return Ok(());
        }
        if chunk.rows > 0 {
            for path in stale.drain(..) {
                crate::io::output::remove_stale(path);
            }
        }
        cut = chunk.cut;
        summary.add(&chunk);
        if first_skipped.is_none() {
            first_skipped = chunk
                .first_skipped
                .map(|(file, line)| format!("{}:{line}", name(file)));
        }
        report.write(&report_rows(&chunk.failures, name))?;
        for (file, line, kind, reason) in chunk.failures {
            if first_failures.len() >= config.show {
                break;
            }
            first_failures.push(Failure {
                file: name(file).to_string(),
                line,
                kind,
                reason,
            });
        }
        progress.advance(chunk.rows, bytes_read.load(Ordering::Relaxed));
        Ok(())
    };
    let result = ordered_map(
        &workers,
        threads * 4 + 2,
        INLINE_START,
        produce,
        work,
        consume,
    );
    progress.finish();
    result?;
    // No chunk came (an empty input): the report is its header.
    report.write(&[])?;
    summary.interrupted = records.stopped() || cut;
    let notes = end_report(report.output, &summary)?;
    summary.finish(started.elapsed());
    if let Some(path) = &config.run.summary {
        write_json(path, &summary)?;
    }
    Ok(VerifyReport {
        summary,
        first_failures,
        first_skipped,
        empty_inputs: records.reader.empty_inputs().to_vec(),
        notes,
    })
}

/// Ends the `--report` output, if any: put in place after a whole run (a closed pipe loses it
/// quietly), flushed and left as `FILE.partial` after a stop. The notes for stderr on what a
/// stopped run covered and where its report is. A run stopped before its first row writes
/// nothing (an [`Error::Interrupted`] says so): dropping the report removes its
/// `FILE.partial`, and an earlier run's report and summary stay as they were.
fn end_report(report: Option<Output>, summary: &VerifySummary) -> Result<Vec<String>> {
    // (A report going straight to standard output or a FIFO has its header there already.)
    let direct = report.as_ref().is_some_and(|r| r.placed().is_err());
    if summary.interrupted && summary.rows == 0 && !direct {
        drop(report);
        return Err(Error::Interrupted(format!(
            "stopped by {} before the first row: nothing was written",
            interrupt::stopped_by()
        )));
    }
    let mut notes = Vec::new();
    if summary.interrupted {
        notes.push(format!(
            "interrupted: the verdict covers the {} rows checked before the stop, not the whole input",
            summary.rows
        ));
    }
    let Some(output) = report else {
        return Ok(notes);
    };
    if !summary.interrupted {
        return match output.finish() {
            Err(e) if e.is_broken_pipe() => Ok(notes),
            result => result.map(|()| notes),
        };
    }
    if let Ok(partial) = output.keep()? {
        notes.push(format!(
            "interrupted: the report of those rows is in {}",
            partial.display()
        ));
    }
    Ok(notes)
}

/// The `--report` output, if asked for. Its header goes with its first rows: an input refused
/// as it is first read (its header, say) leaves nothing on a `--report -` pipe.
struct Report {
    output: Option<Output>,
    header_due: bool,
}

impl Report {
    /// Writes `rows`, after the header the first time.
    fn write(&mut self, rows: &[u8]) -> Result<()> {
        if std::mem::take(&mut self.header_due) {
            self.put(report_header().as_bytes())?;
        }
        self.put(rows)
    }

    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        let Some(output) = self.output.as_mut() else {
            return Ok(());
        };
        match output.write_all(bytes) {
            // `--report - | head`: the reader has what it wanted; the check goes on, so the
            // exit status still gives the verdict.
            Err(e) if e.is_broken_pipe() => self.output = None,
            result => result?,
        }
        Ok(())
    }
}

/// Checks every file the run writes (`--report`, `--summary`) before anything is read, then
/// opens the `--report` file, if asked for (its header is written with the first rows).
fn open_report(config: &VerifyConfig) -> Result<Report> {
    let mut targets = Vec::new();
    if let Some(path) = &config.report {
        targets.push(Target::new("--report", path, WriteKind::Replaced));
    }
    if let Some(path) = &config.run.summary {
        targets.push(Target::new("--summary", path, WriteKind::Replaced));
    }
    let inputs: Vec<PathBuf> = config.run.inputs.iter().map(Input::path).collect();
    one_on_stdout(&targets)?;
    check_targets(&inputs, &targets)?;
    let output = match &config.report {
        // The report may not overwrite one of the files it checks.
        Some(path) => {
            let options = crate::io::output::OutputOptions {
                inputs,
                flag: Some("--report"),
                ..Default::default()
            };
            Some(Output::create_with(Some(path), &options)?)
        }
        None => None,
    };
    Ok(Report {
        output,
        header_due: true,
    })
}

/// The `--report` CSV's header line.
fn report_header() -> String {
    format!("{}\n", REPORT_COLUMNS.join(","))
}

/// The `--report` rows of `failures`: `file,line,kind,reason`, the file by name.
fn report_rows<'a>(
    failures: &[(u32, u64, FailureKind, String)],
    name: impl Fn(u32) -> &'a str,
) -> Vec<u8> {
    let mut rows = Vec::new();
    let mut number = itoa::Buffer::new();
    for (file, line, kind, reason) in failures {
        let fields: [&[u8]; 4] = [
            name(*file).as_bytes(),
            number.format(*line).as_bytes(),
            kind.as_str().as_bytes(),
            reason.as_bytes(),
        ];
        crate::io::results::push_csv_record(&mut rows, fields);
    }
    rows
}

impl VerifySummary {
    /// Counts a checked chunk's rows.
    fn add(&mut self, chunk: &ChunkOut) {
        self.rows += chunk.rows;
        self.valid += chunk.valid;
        self.skipped += chunk.skipped;
        for kind in FailureKind::ALL {
            self.failures.add(kind, chunk.counts.get(kind));
        }
    }

    /// The counts of a run that has checked nothing yet.
    fn new(config: &VerifyConfig, threads: usize) -> Self {
        VerifySummary {
            files: config.run.inputs.len(),
            rows: 0,
            valid: 0,
            skipped: 0,
            failed: 0,
            failures: FailureCounts::default(),
            unique: config.unique,
            threads,
            solver: config.solver.name().to_string(),
            wall_seconds: 0.0,
            rows_per_second: 0.0,
            interrupted: false,
        }
    }

    /// Totals the failures and sets the rates of a run that took `wall`.
    fn finish(&mut self, wall: std::time::Duration) {
        self.failed = self.failures.total();
        self.wall_seconds = wall.as_secs_f64();
        self.rows_per_second = self.rows as f64 / self.wall_seconds.max(1e-9);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(unique: bool, require_solution: bool, solver: SolverKind) -> CheckOptions<'static> {
        CheckOptions {
            unique,
            require_solution,
            solver,
            max_guesses: None,
            stop: None,
        }
    }

    const P: &str =
        "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........";

    fn solution() -> String {
        let grid: Grid = P.parse().unwrap();
        let solved = SolverKind::default().solve(&grid, 1).solution.unwrap();
        String::from_utf8(solved.to_bytes().to_vec()).unwrap()
    }

    fn verdict(puzzle: &str, solution: &str, unique: bool) -> RowVerdict {
        let content = RowContent::Pair {
            puzzle: puzzle.as_bytes(),
            solution: solution.as_bytes(),
        };
        check_row(&content, &opts(unique, false, SolverKind::default()))
    }

    fn kind(v: RowVerdict) -> Option<FailureKind> {
        match v {
            RowVerdict::Failed(kind, _) => Some(kind),
            _ => None,
        }
    }

    #[test]
    fn each_failure_kind_is_caught() {
        let s = solution();
        assert_eq!(verdict(P, &s, true), RowVerdict::Valid);
        // swap two cells of row 9: the row still holds 1-9 once, but two columns break
        let mut swapped = s.clone().into_bytes();
        swapped.swap(78, 79);
        let swapped = String::from_utf8(swapped).unwrap();
        let mut blanked = s.clone();
        blanked.replace_range(80..81, ".");
        // a clue where the puzzle had a blank, different from the solution's digit there
        let mut clue_changed_puzzle = P.to_string();
        let other = if &s[2..3] == "1" { "2" } else { "1" };
        clue_changed_puzzle.replace_range(2..3, other);
        // (puzzle, solution, unique, expected kind)
        let table: Vec<(String, String, bool, FailureKind)> = vec![
            (P.into(), s[..80].into(), false, FailureKind::WrongLength),
            (P[..79].into(), s.clone(), false, FailureKind::WrongLength),
            (
                P.into(),
                format!("x{}", &s[1..]),
                false,
                FailureKind::Malformed,
            ),
            (P.into(), blanked, false, FailureKind::Incomplete),
            (P.into(), swapped, false, FailureKind::BrokenRule),
            (
                clue_changed_puzzle,
                s.clone(),
                false,
                FailureKind::ClueContradicted,
            ),
            (".".repeat(81), s.clone(), true, FailureKind::NotUnique),
        ];
        for (puzzle, solution, unique, expected) in table {
            let v = verdict(&puzzle, &solution, unique);
            assert_eq!(
                kind(v.clone()),
                Some(expected),
                "{puzzle} {solution}: {v:?}"
            );
        }
        match verdict(&".".repeat(81), &s, true) {
            RowVerdict::Failed(_, reason) => assert!(reason.contains("another has"), "{reason}"),
            other => panic!("{other:?}"),
        }
        // without --unique the empty puzzle's solution is fine
        assert_eq!(verdict(&".".repeat(81), &s, false), RowVerdict::Valid);
    }

    #[test]
    fn broken_rule_names_the_unit() {
        let s = solution();
        let mut bytes = s.into_bytes();
        bytes.swap(78, 79);
        let v = verdict(&".".repeat(81), std::str::from_utf8(&bytes).unwrap(), false);
        match v {
            RowVerdict::Failed(FailureKind::BrokenRule, reason) => {
                assert!(reason.contains("appears twice in column"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
    }

    /// A line of a line file, read as verify reads it.
    fn parse_line(line: &[u8]) -> Option<RowContent<'static>> {
        let line: &'static [u8] = Box::leak(line.to_vec().into_boxed_slice());
        crate::io::line_fields(line).map(|fields| RowContent::from_fields(&fields))
    }

    #[test]
    fn line_forms() {
        let s = solution();
        fn pair_of<'a>(p: &'a str, s: &'a str) -> Option<RowContent<'a>> {
            Some(RowContent::Pair {
                puzzle: p.as_bytes(),
                solution: s.as_bytes(),
            })
        }
        for sep in [":", ",", " ", "\t", ":1:"] {
            assert_eq!(
                parse_line(format!("{P}{sep}{s}\r").as_bytes()),
                pair_of(P, &s)
            );
        }
        assert_eq!(
            parse_line(format!("id7 {P} {s} 7.2").as_bytes()),
            pair_of(P, &s)
        );
        assert_eq!(
            parse_line(format!("{P}:0").as_bytes()),
            Some(RowContent::PuzzleOnly {
                puzzle: P.as_bytes()
            })
        );
        assert_eq!(parse_line(b"# comment"), None);
        assert_eq!(parse_line(b"  "), None);
        assert!(matches!(
            parse_line(b"12 34"),
            Some(RowContent::Bad {
                kind: FailureKind::Malformed,
                ..
            })
        ));
        let long = "1".repeat(5000);
        assert!(matches!(
            parse_line(format!("{P} {long}").as_bytes()),
            Some(RowContent::Bad {
                kind: FailureKind::WrongLength,
                ..
            })
        ));
    }

    #[test]
    fn puzzle_only_rows_are_proven_with_unique() {
        let solver = SolverKind::default();
        let check = |puzzle: &str, unique| {
            let content = RowContent::PuzzleOnly {
                puzzle: puzzle.as_bytes(),
            };
            check_row(&content, &opts(unique, false, solver))
        };
        assert_eq!(check(P, true), RowVerdict::Valid);
        assert_eq!(check(P, false), RowVerdict::Skipped);
        let empty = ".".repeat(81);
        match check(&empty, true) {
            RowVerdict::Failed(FailureKind::NotUnique, reason) => {
                assert!(
                    reason.starts_with("the puzzle has 2 or more solutions"),
                    "{reason}"
                )
            }
            other => panic!("{other:?}"),
        }
        // Two 1s in the first row: no solution, and the reason names the conflict.
        let clash = format!("11{}", &empty[2..]);
        match check(&clash, true) {
            RowVerdict::Failed(FailureKind::NoSolution, reason) => {
                assert!(reason.contains("contradictory clues"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(kind(check(&P[..80], true)), Some(FailureKind::WrongLength));
    }

    #[test]
    fn skipped_rows_fail_when_solutions_are_required() {
        let solver = SolverKind::default();
        assert_eq!(
            check_row(&RowContent::NoSolution, &opts(false, false, solver)),
            RowVerdict::Skipped
        );
        assert_eq!(
            kind(check_row(
                &RowContent::NoSolution,
                &opts(false, true, solver)
            )),
            Some(FailureKind::Malformed)
        );
    }

    #[test]
    fn counts_add_up() {
        let mut counts = FailureCounts::default();
        for (i, kind) in FailureKind::ALL.into_iter().enumerate() {
            counts.add(kind, i as u64 + 1);
        }
        // 1 + 2 + ... + 8: every kind has its own slot.
        assert_eq!(counts.total(), 36);
        assert_eq!(counts.get(FailureKind::NotUnique), 6);
        assert_eq!(counts.get(FailureKind::GaveUp), 8);
    }
}
