//! The solve pipeline: a reader thread streams records in chunks, rayon solves the chunks on
//! all cores, and the calling thread writes the result rows in input order. The only module
//! that knows rayon and indicatif.
//!
//! ```text
//! calling thread: read chunk ──spawn──▶ rayon pool (par_iter per chunk, rows formatted there)
//!      ▲                                        │ (seq, bytes, tally)
//!      └──── token (bounded in-flight) ◀── writer thread: reorder by seq, write, merge tallies
//! ```
//! [`ordered_map`] is the generic form that `verify` and `generate` reuse.
//! Memory stays bounded: a chunk may only be read after a token comes back from the writer, so
//! at most `in_flight` chunks exist at once, whatever the input size.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::grid::Grid;
use crate::io::reader::{Body, ReadOptions, Record, RecordReader};
use crate::io::writer::{row_writer, Status};
use crate::io::Input;
use crate::output::Output;
use crate::solver::SolverKind;
use crate::stats::{Summary, Tally};

/// Records per chunk handed to the pool.
const CHUNK: usize = 256;

/// Everything `solve` needs, built from the command line.
#[derive(Debug, Clone)]
pub struct SolveConfig {
    /// Inputs, read in order.
    pub inputs: Vec<Input>,
    /// How to read them.
    pub read: ReadOptions,
    /// Output CSV file; `None` for stdout.
    pub output: Option<PathBuf>,
    /// Where to write the JSON summary, if anywhere.
    pub summary_json: Option<PathBuf>,
    /// Solver threads (at least 1).
    pub threads: usize,
    /// Which solver.
    pub solver: SolverKind,
    /// Prove uniqueness (solution limit 2).
    pub unique: bool,
    /// No progress bar and no summary on stderr.
    pub quiet: bool,
}

impl SolveConfig {
    /// A configuration with defaults for everything but the inputs.
    pub fn new(inputs: Vec<Input>) -> Self {
        SolveConfig {
            inputs,
            read: ReadOptions::default(),
            output: None,
            summary_json: None,
            threads: default_threads(),
            solver: SolverKind::default(),
            unique: false,
            quiet: true,
        }
    }
}

/// The number of logical cores.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// What a finished run reports.
#[derive(Debug, Clone)]
pub struct SolveReport {
    /// The summary (also printed / written as JSON).
    pub summary: Summary,
    /// Inputs that held no records.
    pub empty_inputs: Vec<String>,
}

/// The result of solving one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Status word.
    pub status: Status,
    /// The solution to report, already checked against the clues and the rules.
    pub solution: Option<Grid>,
    /// Guesses made.
    pub guesses: u64,
    /// Nanoseconds spent in the solver.
    pub solve_ns: u64,
    /// Why the record is not `solved`.
    pub message: String,
    /// Whether the record reached the solver (false for malformed records and contradictory clues).
    pub reached_solver: bool,
}

/// Solves one record and decides its status. This is the per-puzzle path that both the parallel
/// pipeline and the sequential oracle use.
pub fn judge(body: &Body, solver: SolverKind, unique: bool) -> Verdict {
    let invalid = |message: String| Verdict {
        status: Status::Invalid,
        solution: None,
        guesses: 0,
        solve_ns: 0,
        message,
        reached_solver: false,
    };
    let (puzzle, reference) = match body {
        Body::Invalid { message, .. } => return invalid(message.clone()),
        Body::Puzzle { puzzle, reference } => (puzzle, reference),
    };
    if let Some(conflict) = puzzle.first_conflict() {
        return invalid(format!("contradictory clues: {conflict}"));
    }
    let limit = if unique { 2 } else { 1 };
    let started = Instant::now();
    let outcome = solver.solve(puzzle, limit);
    let solve_ns = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
    let verdict = |status, solution, message: String| Verdict {
        status,
        solution,
        guesses: outcome.guesses,
        solve_ns,
        message,
        reached_solver: true,
    };
    let Some(solution) = outcome.solution.filter(|_| outcome.count > 0) else {
        return verdict(Status::Unsolvable, None, "no solution".into());
    };
    if let Err(e) = solution.check_solution_of(puzzle) {
        // A solver bug: never report an unchecked grid as a solution.
        return verdict(
            Status::Mismatch,
            None,
            format!("solver {solver} returned a bad grid: {e}"),
        );
    }
    if unique && outcome.count >= 2 {
        return verdict(Status::Multiple, None, "at least 2 solutions".into());
    }
    if let Some(reference) = reference {
        if reference != &solution {
            let cell = (0..81)
                .find(|&i| reference.get(i) != solution.get(i))
                .unwrap_or(0);
            let why = match reference.check_solution_of(puzzle) {
                Ok(()) => {
                    "; the reference is also a solution, so the puzzle has several".to_string()
                }
                Err(e) => format!("; the reference is wrong: {e}"),
            };
            return verdict(
                Status::Mismatch,
                Some(solution),
                format!(
                    "reference solution differs at row {}, column {}{why}",
                    cell / 9 + 1,
                    cell % 9 + 1
                ),
            );
        }
    }
    verdict(Status::Solved, Some(solution), String::new())
}

/// A solved chunk: its formatted CSV rows and its statistics.
struct ChunkOut {
    rows: Vec<u8>,
    tally: Tally,
    records: u64,
}

/// Formats result rows for `records`, whose first has stream position `first_index`.
fn format_rows(
    records: &[Record],
    verdicts: &[Verdict],
    first_index: u64,
    files: &[String],
) -> ChunkOut {
    let mut writer = row_writer(Vec::with_capacity(records.len() * 220));
    let mut tally = Tally::default();
    let mut index_buf = itoa_buf();
    for (offset, (record, verdict)) in records.iter().zip(verdicts).enumerate() {
        let puzzle_text;
        let puzzle: &[u8] = match &record.body {
            Body::Puzzle { puzzle, .. } => {
                puzzle_text = puzzle.to_bytes();
                &puzzle_text
            }
            Body::Invalid { text, .. } => text.as_bytes(),
        };
        let solution_text = verdict.solution.map(|s| s.to_bytes());
        let solution: &[u8] = solution_text.as_ref().map_or(b"", |s| s.as_slice());
        let file = files.get(record.file as usize).map_or("-", String::as_str);
        let fields: [&[u8]; 9] = [
            index_buf.0.format(first_index + offset as u64).as_bytes(),
            index_buf.1.format(record.line).as_bytes(),
            puzzle,
            solution,
            verdict.status.as_str().as_bytes(),
            index_buf.2.format(verdict.guesses).as_bytes(),
            index_buf.3.format(verdict.solve_ns).as_bytes(),
            verdict.message.as_bytes(),
            file.as_bytes(),
        ];
        // Writing to a Vec cannot fail.
        let _ = writer.write_record(fields);
        tally.record(
            verdict.status,
            verdict.reached_solver,
            verdict.guesses,
            verdict.solve_ns,
        );
    }
    let rows = writer.into_inner().unwrap_or_default();
    ChunkOut {
        rows,
        tally,
        records: records.len() as u64,
    }
}

fn itoa_buf() -> (itoa::Buffer, itoa::Buffer, itoa::Buffer, itoa::Buffer) {
    (
        itoa::Buffer::new(),
        itoa::Buffer::new(),
        itoa::Buffer::new(),
        itoa::Buffer::new(),
    )
}

fn solve_chunk(
    records: &[Record],
    first_index: u64,
    solver: SolverKind,
    unique: bool,
    files: &[String],
) -> ChunkOut {
    let verdicts: Vec<Verdict> = records
        .par_iter()
        .with_min_len(4)
        .map(|record| judge(&record.body, solver, unique))
        .collect();
    format_rows(records, &verdicts, first_index, files)
}

/// The sequential oracle: the same rows as [`run_solve`] without threads, as (index, verdict).
pub fn solve_sequential(config: &SolveConfig) -> Result<Vec<(Record, Verdict)>> {
    let reader = RecordReader::new(config.inputs.clone(), config.read.clone(), Arc::default());
    reader
        .map(|record| {
            record.map(|r| {
                let verdict = judge(&r.body, config.solver, config.unique);
                (r, verdict)
            })
        })
        .collect()
}

/// Runs an ordered parallel map: `produce` is called on this thread for the next work item
/// (a chunk) until it returns `None` or an error; `work` runs on the pool's threads; `consume`
/// gets the results on a writer thread, in the order the items were produced.
///
/// At most `in_flight` items exist at once (produced, not yet consumed), so memory is bounded
/// whatever the input size. If `consume` fails, production stops and its error is returned;
/// if `produce` fails, the items already produced are still worked and consumed, then its
/// error is returned.
pub fn ordered_map<T, O>(
    pool: &rayon::ThreadPool,
    in_flight: usize,
    mut produce: impl FnMut() -> Result<Option<T>>,
    work: impl Fn(T) -> O + Sync,
    consume: impl FnMut(O) -> Result<()> + Send,
) -> Result<()>
where
    T: Send,
    O: Send,
{
    let in_flight = in_flight.max(1);
    let (token_tx, token_rx) = crossbeam_channel::bounded::<()>(in_flight);
    for _ in 0..in_flight {
        let _ = token_tx.send(());
    }
    let (done_tx, done_rx) = crossbeam_channel::unbounded::<(u64, O)>();
    std::thread::scope(|threads| {
        let writer = threads.spawn(move || -> Result<()> {
            let mut consume = consume;
            let mut pending: BTreeMap<u64, O> = BTreeMap::new();
            let mut next = 0u64;
            for (seq, out) in done_rx.iter() {
                pending.insert(seq, out);
                while let Some(out) = pending.remove(&next) {
                    // On error, returning drops `token_tx`, which stops the producer.
                    consume(out)?;
                    let _ = token_tx.send(());
                    next += 1;
                }
            }
            Ok(())
        });
        let work = &work;
        let mut produced = Ok(());
        pool.in_place_scope(|scope| {
            let mut seq = 0u64;
            while token_rx.recv().is_ok() {
                match produce() {
                    Ok(Some(item)) => {
                        let done_tx = done_tx.clone();
                        let this = seq;
                        scope.spawn(move |_| {
                            let _ = done_tx.send((this, work(item)));
                        });
                        seq += 1;
                    }
                    Ok(None) => break,
                    Err(e) => {
                        produced = Err(e);
                        break;
                    }
                }
            }
        });
        drop(done_tx);
        let written = writer.join().unwrap_or_else(|_| {
            Err(Error::Usage(
                "the writer thread stopped unexpectedly".into(),
            ))
        });
        written.and(produced)
    })
}

/// Maps every item on the pool into `out` (cleared first, reused), in item order. `bench` times
/// its parallel passes around this call, so it does nothing but the work.
pub fn par_map_into<T: Sync, O: Send>(
    pool: &rayon::ThreadPool,
    items: &[T],
    out: &mut Vec<O>,
    work: impl Fn(&T) -> O + Sync + Send,
) {
    pool.install(|| items.par_iter().map(work).collect_into_vec(out));
}

/// Builds the rayon pool for `threads` solver threads.
pub fn build_pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .thread_name(|i| format!("worker-{i}"))
        .build()
        .map_err(|e| Error::Usage(format!("cannot start {threads} worker threads: {e}")))
}

/// Runs `solve`: reads every input, solves on `config.threads` threads, writes the rows in
/// input order, and returns the summary. Bad records are rows, not errors; errors are I/O.
pub fn run_solve(config: &SolveConfig) -> Result<SolveReport> {
    for input in &config.inputs {
        input.check()?;
    }
    let mut output = Output::create(config.output.as_deref())?;
    let threads = config.threads.max(1);
    let pool = build_pool(threads)?;
    let files: Vec<String> = config.inputs.iter().map(Input::display_name).collect();
    let bytes_read = Arc::new(AtomicU64::new(0));
    let total_bytes: Option<u64> = config.inputs.iter().map(Input::size).sum();
    let mut progress = Progress::new(total_bytes, config.quiet);
    let started = Instant::now();
    output.write_all(crate::io::writer::header_line().as_bytes())?;

    let mut reader = RecordReader::new(
        config.inputs.clone(),
        config.read.clone(),
        bytes_read.clone(),
    );
    let mut next_index = 0u64;
    let mut finished = false;
    let produce = || -> Result<Option<(u64, Vec<Record>)>> {
        if finished {
            return Ok(None);
        }
        let mut chunk = Vec::with_capacity(CHUNK);
        while chunk.len() < CHUNK {
            match reader.next_record()? {
                Some(record) => chunk.push(record),
                None => {
                    finished = true;
                    break;
                }
            }
        }
        if chunk.is_empty() {
            return Ok(None);
        }
        let first = next_index;
        next_index += chunk.len() as u64;
        Ok(Some((first, chunk)))
    };
    let (solver, unique) = (config.solver, config.unique);
    let work =
        |(first, chunk): (u64, Vec<Record>)| solve_chunk(&chunk, first, solver, unique, &files);
    let mut tally = Tally::default();
    let consume = |out: ChunkOut| -> Result<()> {
        output.write_all(&out.rows)?;
        tally += &out.tally;
        progress.advance(out.records, bytes_read.load(Ordering::Relaxed));
        Ok(())
    };
    let result = ordered_map(&pool, threads * 8 + 2, produce, work, consume);
    progress.finish();
    result?;
    output.finish()?;
    let summary = tally.summary(started.elapsed(), threads, config.solver.name());
    if let Some(path) = &config.summary_json {
        write_json(path, &summary)?;
    }
    Ok(SolveReport {
        summary,
        empty_inputs: reader.empty_inputs().to_vec(),
    })
}

/// Writes `value` as pretty JSON to `path`.
pub fn write_json<T: serde::Serialize>(path: &std::path::Path, value: &T) -> Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Error::Write {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    std::fs::write(path, text + "\n").map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// The progress bar: by bytes when the input size is known, a counter otherwise; hidden when
/// stderr is not a terminal or the run is quiet, so callers never branch on it.
pub struct Progress {
    bar: ProgressBar,
    by_bytes: bool,
    records: u64,
    started: Instant,
}

impl Progress {
    /// A bar for `total_bytes` of input (unknown for stdin).
    pub fn new(total_bytes: Option<u64>, quiet: bool) -> Progress {
        let hidden = quiet || !std::io::stderr().is_terminal();
        let bar = match (hidden, total_bytes) {
            (true, _) => ProgressBar::hidden(),
            (false, Some(total)) => {
                let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
                bar.set_style(
                    ProgressStyle::with_template(
                        "{elapsed_precise} [{bar:30}] {bytes}/{total_bytes} {msg} ETA {eta}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
                );
                bar
            }
            (false, None) => {
                let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                bar.set_style(
                    ProgressStyle::with_template("{elapsed_precise} {spinner} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar
            }
        };
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress {
            bar,
            by_bytes: total_bytes.is_some(),
            records: 0,
            started: Instant::now(),
        }
    }

    /// A bar over `total` steps (for example `bench` configurations), with a message naming the
    /// current one; hidden when quiet or stderr is not a terminal.
    pub fn steps(total: u64, quiet: bool) -> Progress {
        let bar = if quiet || !std::io::stderr().is_terminal() {
            ProgressBar::hidden()
        } else {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar
        };
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress {
            bar,
            by_bytes: false,
            records: 0,
            started: Instant::now(),
        }
    }

    /// Shows `message` next to the bar.
    pub fn set_message(&self, message: String) {
        self.bar.set_message(message);
    }

    /// Counts one step done.
    pub fn step(&self) {
        self.bar.inc(1);
    }

    /// Counts `records` more done, with `bytes` read so far.
    pub fn advance(&mut self, records: u64, bytes: u64) {
        self.records += records;
        if self.bar.is_hidden() {
            return;
        }
        if self.by_bytes {
            self.bar.set_position(bytes);
        }
        let rate = self.records as f64 / self.started.elapsed().as_secs_f64().max(1e-9);
        self.bar
            .set_message(format!("{} puzzles, {:.0}/s", self.records, rate));
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
