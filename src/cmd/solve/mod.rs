//! `solve`: the pipeline wiring. The calling thread reads records in chunks (lines and CSV
//! fields are only cut out, not parsed), the pool parses and solves the chunks on all cores,
//! and a writer thread writes the result rows in input order (through `run::ordered_map`).
//!
//! ```text
//! calling thread: read chunk ──spawn──▶ rayon pool (one task per chunk, rows formatted there)
//!      ▲                                        │ (seq, bytes, scores)
//!      └──── token (bounded in-flight) ◀── writer thread: reorder by seq, write, merge tallies
//! ```
//! Memory stays bounded: a chunk may only be read after a token comes back from the writer, so
//! at most `in_flight` chunks exist at once, whatever the input size.
//!
//! Long runs: `--shard K/N` keeps only the records of one shard (rows keep their global
//! `index`); `--resume` checks an interrupted run's rows against the input and appends the rest;
//! Ctrl-C stops reading, finishes the chunks in flight, and leaves `FILE.partial` for `--resume`.
//!
//! [`judge()`] is the per-puzzle step; `resume` takes an interrupted run's rows back.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod judge;
pub(crate) mod resume;

pub use crate::verdict::Verdict;
pub use judge::judge;

use crate::cmd::outcome::{RunReport, RunSummary};
use crate::cmd::sidecar::{
    check_header_for_resume, hashing, wants_sidecar, ReadHashes, RowsOut, RunDefinition, RunLimits,
    RunManifest, Sidecar, SOLVE_KIND,
};
use crate::cmd::RunOptions;
use crate::error::{Error, Result};
use crate::io::compress::Codec;
use crate::io::output::{write_json, Output, OutputOptions};
use crate::io::results::{Column, GridText, RowFormat, RowValues, Status};
use crate::io::targets::check_run_targets;
use crate::io::Input;
use crate::io::{Body, Columns, Record, RecordReader};
use crate::run::records::{Chunk, ChunkSize, ShardedRecords};
use crate::run::{check_threads, interrupt, ordered_map, Progress, Workers, INLINE_START};
use crate::shard::{Shard, ShardChoice};
use crate::solver::{Budget, SolverKind};
use crate::stats::{Summary, Tally};
use crate::sysinfo::thread_cpu_time;
use crate::verdict::JudgeOptions;
use resume::Resumed;

/// Most records per chunk handed to the pool. Every chunk wakes the writer and the reader once
/// (a wake-up costs microseconds on a VM), and a chunk's rows of at least the output's 256 KiB
/// buffer are written straight through it instead of being copied: 2,048 easy rows are ~420 KB.
/// Chunks of slow puzzles are smaller (see `ChunkSize`), so hard sets still spread over the
/// threads.
const CHUNK: usize = 2048;

/// Fewest records per chunk (puzzles that take milliseconds each).
const MIN_CHUNK: usize = 16;

/// The solving time a chunk aims at: long enough that per-chunk costs vanish, short enough
/// that a few hundred puzzles of minutes' work still spread over the threads.
const CHUNK_SOLVE_NS: u64 = 4_000_000;

/// Line text per chunk: a chunk of long lines ends early, so memory stays bounded by
/// `in_flight` chunks of at most this plus one line of [`crate::io::MAX_LINE`] bytes.
const CHUNK_TEXT: usize = 512 * 1024;

/// Most chunks in flight (read, not yet written), whatever the thread count: with
/// [`CHUNK_TEXT`] of text and ~420 KB of rows each, 48 keep peak memory near 48 MB.
const MAX_IN_FLIGHT: usize = 48;

/// Everything `solve` needs, built from the command line.
#[derive(Debug, Clone)]
pub struct SolveConfig {
    /// The inputs, how to read them, the JSON summary, solver threads and quiet.
    pub run: RunOptions,
    /// Output CSV file; `None` for stdout.
    pub output: Option<PathBuf>,
    /// The output's encoding; `None` follows its extension (`.gz`, `.zst`; stdout is plain).
    pub compress: Option<Codec>,
    /// Which solver.
    pub solver: SolverKind,
    /// Prove uniqueness (solution limit 2).
    pub unique: bool,
    /// Give up on a puzzle after this many guesses (`gave_up`); `None`: never.
    pub max_guesses: Option<u64>,
    /// With `resume`: solve the kept `gave_up` rows again instead of keeping them.
    pub retry_gave_up: bool,
    /// Which records to process.
    pub shard: ShardChoice,
    /// Continue an interrupted run: keep the rows of `FILE.partial` that match the input.
    pub resume: bool,
    /// The output columns, in order (`--columns`); every column by default.
    pub columns: Vec<Column>,
    /// Whether the output opens with its header line (`--no-header` turns it off).
    pub header: bool,
}

impl SolveConfig {
    /// How each puzzle is judged: this run's solver, uniqueness and guess bound, giving up when
    /// `stop` is set.
    pub(crate) fn judge_options<'a>(&self, stop: Option<&'a AtomicBool>) -> JudgeOptions<'a> {
        JudgeOptions {
            solver: self.solver,
            unique: self.unique,
            budget: Budget::new(self.max_guesses, stop),
        }
    }

    /// A configuration with defaults for everything but the inputs.
    pub fn new(inputs: Vec<Input>) -> Self {
        SolveConfig {
            run: RunOptions::new(inputs),
            output: None,
            compress: None,
            solver: SolverKind::default(),
            unique: false,
            max_guesses: None,
            retry_gave_up: false,
            shard: ShardChoice::All,
            resume: false,
            columns: Column::ALL.to_vec(),
            header: true,
        }
    }
}

impl SolveConfig {
    /// Checks every file the run will write (`-o` with its `.partial` and `.run.json`,
    /// `--summary`) before anything is read ([`check_run_targets`]).
    pub fn check_targets(&self) -> Result<()> {
        let inputs: Vec<PathBuf> = self.run.inputs.iter().map(Input::path).collect();
        check_run_targets(&inputs, self.output.as_deref(), self.run.summary.as_deref())
    }
}

/// What a finished `solve` run reports.
pub type SolveReport = RunReport<Summary>;

impl RunSummary for Summary {
    fn to_text(&self) -> String {
        Summary::to_text(self)
    }

    fn passed(&self) -> (u64, u64) {
        (self.puzzles, self.solved)
    }
}

/// A solved chunk: its formatted CSV rows and, per record, what the summary needs. The writer
/// records these into one histogram: a histogram per chunk cost ~15% of a run in allocation and
/// merging. Its buffers go back to [`Buffers`] once written.
#[derive(Default)]
struct ChunkOut {
    rows: Vec<u8>,
    scores: Vec<Score>,
    /// Estimated CPU time the chunk spent in the solver (see [`SolverCpu`]).
    solver_cpu_ns: u64,
    /// The run is stopping and a puzzle of this chunk was stopped mid-search: the rows end
    /// before it, and no later chunk may be written (the output stays a prefix of the input).
    cut: bool,
}

/// Emptied chunk buffers, handed back for the next chunks. Freeing a chunk's buffers on one
/// thread and allocating fresh ones on another made glibc return and re-fault their pages:
/// 11–16 page faults per 256-record chunk, ~100–150 ns a puzzle.
#[derive(Default)]
struct Buffers {
    chunks: Mutex<Vec<Chunk>>,
    outs: Mutex<Vec<ChunkOut>>,
}

impl Buffers {
    fn chunk(&self) -> Chunk {
        lock(&self.chunks)
            .pop()
            .unwrap_or_else(|| Chunk::with_capacity(CHUNK))
    }

    fn give_chunk(&self, mut chunk: Chunk) {
        chunk.clear();
        lock(&self.chunks).push(chunk);
    }

    fn out(&self) -> ChunkOut {
        lock(&self.outs).pop().unwrap_or_default()
    }

    fn give_out(&self, mut out: ChunkOut) {
        out.rows.clear();
        out.scores.clear();
        out.solver_cpu_ns = 0;
        out.cut = false;
        lock(&self.outs).push(out);
    }
}

/// A mutex's value; a panic elsewhere does not make buffers unusable.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Estimates the CPU time a chunk spent in the solver without a CPU-clock read per puzzle (a
/// thread CPU clock is a system call): the thread's CPU time over the chunk, times the share of
/// the chunk's wall time that its puzzles' `solve_ns` cover. Preemption stretches both wall
/// figures alike, so it cancels out, where the plain sum of `solve_ns` counts it.
struct SolverCpu {
    wall: Instant,
    cpu: Option<Duration>,
}

impl SolverCpu {
    fn start() -> SolverCpu {
        SolverCpu {
            cpu: thread_cpu_time(),
            wall: Instant::now(),
        }
    }

    /// The solver's share of the thread's CPU time since `start`, in nanoseconds.
    fn finish(self, solve_ns: u64) -> u64 {
        let wall = self.wall.elapsed().as_nanos() as f64;
        let (Some(before), Some(after)) = (self.cpu, thread_cpu_time()) else {
            return 0;
        };
        let cpu = after.saturating_sub(before).as_nanos() as f64;
        let share = if wall > 0.0 {
            (solve_ns as f64 / wall).min(1.0)
        } else {
            0.0
        };
        (cpu * share) as u64
    }
}

/// One record's contribution to the summary.
#[derive(Clone, Copy)]
struct Score {
    status: Status,
    reached_solver: bool,
    guesses: u64,
    solve_ns: u64,
}

impl Score {
    fn add_to(self, tally: &mut Tally) {
        tally.record(
            self.status,
            self.reached_solver,
            self.guesses,
            self.solve_ns,
        );
    }
}

/// Parses, solves and formats the records of `chunk` one at a time, straight into `out`'s
/// reused buffers (no per-chunk vectors of records or verdicts).
fn solve_chunk(chunk: &Chunk, out: &mut ChunkOut, options: &JudgeOptions<'_>, format: &RowFormat) {
    let clock = SolverCpu::start();
    let mut solve_ns = 0u64;
    out.rows.reserve(chunk.records.len() * 220);
    out.scores.reserve(chunk.records.len());
    for (index, record) in chunk.iter() {
        let body = record.with_fields(&chunk.text, Body::from_fields);
        let verdict = judge(&body, options);
        if verdict.stopped {
            out.cut = true;
            break;
        }
        let puzzle = match &body {
            Body::Puzzle { puzzle, .. } => GridText::Grid(*puzzle),
            Body::Invalid { text, .. } => GridText::Text(text.as_bytes()),
        };
        format.write(
            &mut out.rows,
            &RowValues {
                index,
                line: record.line,
                puzzle,
                solution: verdict.solution.map_or(GridText::Text(b""), GridText::Grid),
                status: verdict.status,
                guesses: verdict.guesses,
                solve_ns: verdict.solve_ns,
                message: &verdict.message,
                file: record.file,
            },
        );
        solve_ns += verdict.solve_ns;
        out.scores.push(Score {
            status: verdict.status,
            reached_solver: verdict.reached_solver,
            guesses: verdict.guesses,
            solve_ns: verdict.solve_ns,
        });
    }
    out.solver_cpu_ns = clock.finish(solve_ns);
}

/// The sequential oracle: the same rows as [`run`] without threads, as (index, verdict).
pub(crate) fn solve_sequential(config: &SolveConfig) -> Result<Vec<(Record, Verdict)>> {
    let reader = RecordReader::new(
        config.run.inputs.clone(),
        config.run.read.clone(),
        Arc::default(),
    );
    reader
        .map(|record| {
            record.map(|r| {
                let verdict = judge(&r.body, &config.judge_options(None));
                (r, verdict)
            })
        })
        .collect()
}

/// Where this run's rows go: a fresh output, or (`--resume`) the earlier run's, after its kept
/// rows, which are consumed from `records`.
fn open_output(
    config: &SolveConfig,
    records: &mut ShardedRecords,
    files: &mut [String],
    manifest: Option<&mut RunManifest>,
    notes: &mut Vec<String>,
) -> Result<Resumed> {
    let out_options = OutputOptions {
        compress: config.compress,
        inputs: config.run.inputs.iter().map(Input::path).collect(),
        // A fresh output is removed if the run fails before its first rows are written; from
        // then on it is kept for `--resume` (`keep_on_failure`).
        resumable: false,
        flag: None,
    };
    match (config.resume, config.output.as_deref()) {
        (false, path) => Ok(Resumed::fresh(Output::create_with(path, &out_options)?)),
        (true, None) => Err(Error::Usage("--resume needs -o FILE".into())),
        (true, Some(path)) if path.as_os_str() == "-" => {
            Err(Error::Usage("--resume needs -o FILE".into()))
        }
        (true, Some(path)) => resume::resume(
            path,
            &out_options,
            records,
            files,
            resume::ThisRun {
                columns: &config.columns,
                manifest,
                // The stop flag: a gave_up row's re-check may take the bound's guesses.
                claims: crate::verdict::Claims {
                    unique: config.unique,
                    run: Some(config.judge_options(Some(crate::run::interrupt::flag()))),
                },
                retry_gave_up: config.retry_gave_up,
            },
            notes,
        ),
    }
}

/// The run's summary: `tally` holds kept and new rows, `solved_now` how many were solved by this
/// run (its throughput counts only those); `cpu` is the process CPU reading at the start and the
/// solver's estimated CPU nanoseconds.
fn run_summary(
    tally: &Tally,
    solved_now: u64,
    started: Instant,
    threads: usize,
    solver: SolverKind,
    (cpu_at_start, solver_cpu_ns): (Option<Duration>, u64),
) -> Summary {
    let wall = started.elapsed();
    let mut summary = tally.summary(wall, threads, solver.name());
    let cpu = match (cpu_at_start, crate::sysinfo::process_cpu_time()) {
        (Some(start), Some(end)) => Some(end.saturating_sub(start)),
        _ => None,
    };
    summary.set_cpu(cpu, solver_cpu_ns);
    summary.puzzles_per_second = if wall.as_secs_f64() > 0.0 {
        solved_now as f64 / wall.as_secs_f64()
    } else {
        0.0
    };
    summary
}

/// What the pool did: the rows' tally, the solver's estimated CPU time, and whether a stop
/// ended the run early.
struct Solved {
    tally: Tally,
    solver_cpu_ns: u64,
    interrupted: bool,
}

/// Solves the records on `workers` and writes their rows in input order.
fn solve_records(
    config: &SolveConfig,
    (workers, records, format): (&Workers, &mut ShardedRecords, &RowFormat),
    (output, sidecar): (&mut Output, &mut Sidecar<'_>),
    (progress, bytes_read): (&mut Progress, &AtomicU64),
) -> Result<Solved> {
    let threads = config.run.threads.max(1);
    let buffers = Buffers::default();
    let chunk_size = ChunkSize::new(MIN_CHUNK, CHUNK, CHUNK_SOLVE_NS);
    let produce = |inline: bool| -> Result<Option<Chunk>> {
        // A chunk worked on this thread at the start (`INLINE_START`) is small, so a slow
        // first puzzle (or solver) cannot keep the pool idle for long.
        let size = if inline {
            chunk_size.next_inline()
        } else {
            chunk_size.next()
        };
        records.next_chunk(buffers.chunk(), size, CHUNK_TEXT)
    };
    let options = config.judge_options(Some(interrupt::flag()));
    // Compressed output: each chunk becomes one gzip member / zstd frame here, on the pool.
    let codec = output.codec();
    let work = |chunk: Chunk| -> ChunkOut {
        let mut out = buffers.out();
        solve_chunk(&chunk, &mut out, &options, format);
        let solve_ns = out.scores.iter().map(|s| s.solve_ns).sum();
        chunk_size.record(solve_ns, out.scores.len() as u64);
        buffers.give_chunk(chunk);
        codec.seal(&mut out.rows);
        out
    };
    let mut solver_cpu_ns = 0u64;
    let mut cut = false;
    let mut tally = Tally::default();
    let consume = |out: ChunkOut| -> Result<()> {
        if cut {
            // After a puzzle stopped mid-search: these rows would leave a gap.
            buffers.give_out(out);
            return Ok(());
        }
        cut = out.cut;
        if out.scores.is_empty() {
            // A chunk stopped before its first puzzle was solved: no row, so nothing to keep.
            buffers.give_out(out);
            return Ok(());
        }
        sidecar.rows_written(output)?;
        output.write_sealed(&out.rows)?;
        out.scores.iter().for_each(|score| score.add_to(&mut tally));
        solver_cpu_ns += out.solver_cpu_ns;
        progress.advance(out.scores.len() as u64, bytes_read.load(Ordering::Relaxed));
        buffers.give_out(out);
        Ok(())
    };
    let in_flight = (threads * 4 + 2).min(MAX_IN_FLIGHT);
    let result = ordered_map(workers, in_flight, INLINE_START, produce, work, consume);
    progress.finish();
    result?;
    Ok(Solved {
        tally,
        solver_cpu_ns,
        // A stop that came after the last chunk was read still cut a puzzle short.
        interrupted: records.stopped() || cut,
    })
}

/// Refuses what cannot run, before anything is read or written: an input that cannot be
/// opened, a bad output target, no columns, `--resume` without a header.
fn check_run(config: &SolveConfig) -> Result<()> {
    for input in &config.run.inputs {
        input.check()?;
    }
    config.check_targets()?;
    if config.columns.is_empty() {
        return Err(Error::Usage("--columns needs at least one column".into()));
    }
    check_header_for_resume(config.header, config.resume)
}

/// The shard this run solves (from `--shard` or the scheduler), warning when `merge` would
/// refuse its output.
fn resolve_shard(config: &SolveConfig, notes: &mut Vec<String>) -> Result<Option<Shard>> {
    let shard = config.shard.resolve_into(notes)?;
    crate::cmd::shards::warn_if_unmergeable(
        shard.is_some(),
        config.output.as_deref(),
        &config.columns,
        &crate::cmd::shards::MERGE_COLUMNS,
        config.header,
    );
    Ok(shard)
}

/// Runs `solve`: reads every input, solves on `config.run.threads` threads, writes the rows in
/// input order, and returns the summary. Bad records are rows, not errors; errors are I/O.
///
/// With a shard, only that shard's records are solved (rows keep their global `index`). With
/// `resume`, the rows of an interrupted run are checked against the input and kept, and the run
/// goes on from there. Ctrl-C stops cleanly: the report says `interrupted`, and the rows so far
/// are flushed to `FILE.partial` (not renamed), ready for `--resume`.
pub fn run(config: &SolveConfig) -> Result<SolveReport> {
    // The run's CPU time is counted from here: a process started by `exec` (as `cargo run`
    // starts it) inherits the CPU time its predecessor used, half a second for cargo.
    let cpu_at_start = crate::sysinfo::process_cpu_time();
    check_run(config)?;
    let mut notes = Vec::new();
    let shard = resolve_shard(config, &mut notes)?;
    let threads = config.run.threads.max(1);
    check_threads(threads, config.run.allow_oversubscribe)?;
    let workers = Workers::new(threads);
    let mut files: Vec<String> = config.run.inputs.iter().map(Input::display_name).collect();
    let total_bytes: Option<u64> = config.run.inputs.iter().map(Input::size).sum();
    let started = Instant::now();
    // From the first read on, a stop ends the run cleanly (and a silent pipe's wait at once).
    interrupt::arm(None);
    // The first input's layout and header are read before any file is created: a bad
    // `--column` or header leaves an earlier run's output and sidecar as they were.
    let hashes = ReadHashes::new(
        &config.run.inputs,
        hashing(config.output.as_deref(), config.resume, || {
            [Column::Puzzle, Column::Solution]
                .iter()
                .all(|c| config.columns.contains(c))
        }),
    );
    let (mut records, bytes_read) = ShardedRecords::open(
        &config.run.inputs,
        &config.run.read,
        Columns::default(),
        shard,
        hashes.taps(),
    )?;
    let mut sidecar = run_sidecar(config, shard, hashes)?;
    let resumed = interrupt::excuse_output(open_output(
        config,
        &mut records,
        &mut files,
        sidecar.manifest_mut(),
        &mut notes,
    ))?;
    // After `--resume`, which may give `files` the earlier run's names for the same inputs.
    let format = RowFormat::new(&config.columns, &files);
    let Resumed {
        mut output,
        rows: resumed_rows,
        mut tally,
        needs_header,
    } = resumed;
    if resumed_rows > 0 {
        sidecar.kept_rows_from(records.reader.inputs_opened());
    }
    if needs_header && config.header {
        output.write_all(format.header().as_bytes())?;
    }
    let mut progress = Progress::new(total_bytes, config.run.quiet);

    let Solved {
        tally: new_tally,
        solver_cpu_ns,
        interrupted,
    } = solve_records(
        config,
        (&workers, &mut records, &format),
        (&mut output, &mut sidecar),
        (&mut progress, &bytes_read),
    )?;
    let mut warnings = Vec::new();
    sidecar.end(
        output,
        interrupted,
        (resumed_rows + new_tally.puzzles(), records.records_read()),
        (&mut notes, &mut warnings),
    )?;
    tally += &new_tally;
    let mut summary = run_summary(
        &tally,
        new_tally.puzzles(),
        started,
        threads,
        config.solver,
        (cpu_at_start, solver_cpu_ns),
    );
    summary.interrupted = interrupted;
    if let Some(path) = &config.run.summary {
        write_json(path, &summary)?;
    }
    Ok(SolveReport {
        summary,
        empty_inputs: records.reader.empty_inputs().to_vec(),
        // `empty_shard` says nothing for a run stopped before its input's end.
        warnings: records.empty_shard().into_iter().chain(warnings).collect(),
        interrupted,
        resumed_rows,
        notes,
    })
}

/// The run's sidecar (`FILE.run.json`): what defines its rows, for `--resume` and `merge`.
fn run_sidecar(
    config: &SolveConfig,
    shard: Option<Shard>,
    hashes: ReadHashes,
) -> Result<Sidecar<'_>> {
    let manifest = RunManifest::for_run(config, shard, &config.columns, &hashes)?;
    let rows = RowsOut {
        output: config.output.as_deref(),
        summary: config.run.summary.as_deref(),
        resume: config.resume,
        header: config.header,
    };
    let unresumable = resume::check_columns(&config.columns)
        .err()
        .map(|why| why.to_string());
    Ok(Sidecar::for_rows(manifest, hashes, rows, unresumable))
}

/// The sidecar of a `solve` run.
impl RunManifest {
    /// The sidecar of a `solve` run of `config` starting now, solving `shard` (the one in
    /// effect) and writing `columns`.
    pub(crate) fn new(
        config: &SolveConfig,
        shard: Option<Shard>,
        columns: &[Column],
        hashes: &ReadHashes,
    ) -> Result<RunManifest> {
        let columns: Vec<&str> = columns.iter().map(|c| c.name()).collect();
        RunManifest::of_run(
            RunDefinition {
                kind: SOLVE_KIND,
                inputs: &config.run.inputs,
                read: &config.run.read,
                unique: config.unique,
                solver: config.solver.name(),
                columns: &columns,
                threads: config.run.threads,
                hashes,
                limits: RunLimits {
                    max_guesses: config.max_guesses,
                    ..RunLimits::default()
                },
            },
            shard,
        )
    }

    /// The sidecar for `config`'s run when it writes a regular file (`-o FILE`); `None` for
    /// stdout and for non-regular outputs (a device, a FIFO), which get no file beside them.
    pub(crate) fn for_run(
        config: &SolveConfig,
        shard: Option<Shard>,
        columns: &[Column],
        hashes: &ReadHashes,
    ) -> Result<Option<RunManifest>> {
        if !wants_sidecar(config.output.as_deref()) {
            return Ok(None);
        }
        RunManifest::new(config, shard, columns, hashes).map(Some)
    }
}
