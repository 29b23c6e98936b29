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
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

mod judge;
mod resume;

pub use judge::{judge, Verdict};

use crate::error::{Error, Result};
use crate::io::compress::Codec;
use crate::io::output::{write_json, Output, OutputOptions};
use crate::io::results::{header_line, row_writer, Status};
use crate::io::Input;
use crate::io::{Body, Deferred, ReadOptions, Record, RecordReader};
use crate::run::{build_pool, default_threads, interrupt, ordered_map, Progress};
use crate::shard::{Shard, ShardChoice};
use crate::solver::SolverKind;
use crate::stats::{Summary, Tally};
use resume::Resumed;

/// Records per chunk handed to the pool. Every chunk wakes the writer and the reader once; on
/// a VM a wake-up costs microseconds of kernel time, so 64 records spent ~10% of a `-j 1` run in
/// `sys` (0.9–1.0 s of 8.6 s on 1M top1465 lines); 256 halve that.
const CHUNK: usize = 256;

/// Line text per chunk: a chunk of long lines ends early, so memory stays bounded by
/// `in_flight` chunks of at most this plus one line of [`crate::io::MAX_LINE`] bytes.
const CHUNK_TEXT: usize = 256 * 1024;

/// Everything `solve` needs, built from the command line.
#[derive(Debug, Clone)]
pub struct SolveConfig {
    /// Inputs, read in order.
    pub inputs: Vec<Input>,
    /// How to read them.
    pub read: ReadOptions,
    /// Output CSV file; `None` for stdout.
    pub output: Option<PathBuf>,
    /// The output's encoding; `None` follows its extension (`.gz`, `.zst`; stdout is plain).
    pub compress: Option<Codec>,
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
    /// Which records to process.
    pub shard: ShardChoice,
    /// Continue an interrupted run: keep the rows of `FILE.partial` that match the input.
    pub resume: bool,
}

impl SolveConfig {
    /// A configuration with defaults for everything but the inputs.
    pub fn new(inputs: Vec<Input>) -> Self {
        SolveConfig {
            inputs,
            read: ReadOptions::default(),
            output: None,
            compress: None,
            summary_json: None,
            threads: default_threads(),
            solver: SolverKind::default(),
            unique: false,
            quiet: true,
            shard: ShardChoice::All,
            resume: false,
        }
    }
}

/// What a finished run reports.
#[derive(Debug, Clone)]
pub struct SolveReport {
    /// The summary (also printed / written as JSON).
    pub summary: Summary,
    /// Inputs that held no records.
    pub empty_inputs: Vec<String>,
    /// The run stopped early on Ctrl-C; the rows done so far are in `FILE.partial`.
    pub interrupted: bool,
    /// Rows kept from an interrupted run (`--resume`); they count in the summary.
    pub resumed_rows: u64,
    /// Remarks for stderr: the shard in effect, what `--resume` kept.
    pub notes: Vec<String>,
}

/// Records with their global stream position, only those of one shard when sharding.
struct ShardedRecords {
    reader: RecordReader,
    shard: Option<Shard>,
    next_index: u64,
}

impl ShardedRecords {
    fn next(&mut self) -> Result<Option<(u64, Record)>> {
        while let Some(record) = self.reader.next_record()? {
            if let Some(index) = self.take_index() {
                return Ok(Some((index, record)));
            }
        }
        Ok(None)
    }

    /// The next record of the shard, its line text (if it is not parsed yet) appended to `text`.
    fn next_deferred(&mut self, text: &mut Vec<u8>) -> Result<Option<(u64, Deferred)>> {
        loop {
            let start = text.len();
            let Some(record) = self.reader.next_deferred(text)? else {
                return Ok(None);
            };
            match self.take_index() {
                Some(index) => return Ok(Some((index, record))),
                None => text.truncate(start),
            }
        }
    }

    /// Numbers the record just read: its index, if it belongs to the shard.
    fn take_index(&mut self) -> Option<u64> {
        let index = self.next_index;
        self.next_index += 1;
        self.shard
            .is_none_or(|s| s.contains(index))
            .then_some(index)
    }
}

/// Records read for one pool task. Lines and CSV fields are still text: the pool's threads parse
/// them, so the reading thread only cuts them out.
struct Chunk {
    text: Vec<u8>,
    records: Vec<(u64, Deferred)>,
}

impl Chunk {
    fn parse(self) -> Vec<(u64, Record)> {
        let text = self.text;
        self.records
            .into_iter()
            .map(|(index, record)| (index, record.parse(&text)))
            .collect()
    }
}

/// A solved chunk: its formatted CSV rows and, per record, what the summary needs. The writer
/// records these into one histogram: a histogram per chunk cost ~15% of a run in allocation and
/// merging.
struct ChunkOut {
    rows: Vec<u8>,
    scores: Vec<Score>,
    records: u64,
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

/// Formats result rows for `records`, each with its stream position.
fn format_rows(records: &[(u64, Record)], verdicts: &[Verdict], files: &[String]) -> ChunkOut {
    let mut writer = row_writer(Vec::with_capacity(records.len() * 220));
    let mut scores = Vec::with_capacity(records.len());
    let mut index_buf = itoa_buf();
    for ((index, record), verdict) in records.iter().zip(verdicts) {
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
            index_buf.0.format(*index).as_bytes(),
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
        scores.push(Score {
            status: verdict.status,
            reached_solver: verdict.reached_solver,
            guesses: verdict.guesses,
            solve_ns: verdict.solve_ns,
        });
    }
    let rows = writer.into_inner().unwrap_or_default();
    ChunkOut {
        rows,
        scores,
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
    records: &[(u64, Record)],
    solver: SolverKind,
    unique: bool,
    files: &[String],
) -> ChunkOut {
    let verdicts: Vec<Verdict> = records
        .iter()
        .map(|(_, record)| judge(&record.body, solver, unique))
        .collect();
    format_rows(records, &verdicts, files)
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

/// Runs `solve`: reads every input, solves on `config.threads` threads, writes the rows in
/// input order, and returns the summary. Bad records are rows, not errors; errors are I/O.
///
/// With a shard, only that shard's records are solved (rows keep their global `index`). With
/// `resume`, the rows of an interrupted run are checked against the input and kept, and the run
/// goes on from there. Ctrl-C stops cleanly: the report says `interrupted`, and the rows so far
/// are flushed to `FILE.partial` (not renamed), ready for `--resume`.
pub fn run_solve(config: &SolveConfig) -> Result<SolveReport> {
    for input in &config.inputs {
        input.check()?;
    }
    let mut notes = Vec::new();
    let shard = config
        .shard
        .resolve()
        .map_err(Error::Usage)?
        .map(|(shard, note)| {
            notes.push(note);
            shard
        });
    let threads = config.threads.max(1);
    let pool = build_pool(threads)?;
    let files: Vec<String> = config.inputs.iter().map(Input::display_name).collect();
    let bytes_read = Arc::new(AtomicU64::new(0));
    let total_bytes: Option<u64> = config.inputs.iter().map(Input::size).sum();
    let started = Instant::now();
    let mut records = ShardedRecords {
        reader: RecordReader::new(
            config.inputs.clone(),
            config.read.clone(),
            bytes_read.clone(),
        ),
        shard,
        next_index: 0,
    };
    let out_options = OutputOptions {
        compress: config.compress,
        inputs: config.inputs.iter().map(Input::path).collect(),
        resumable: true,
    };
    let resumed = match (config.resume, config.output.as_deref()) {
        (false, path) => Resumed::fresh(Output::create_with(path, &out_options)?),
        (true, None) => return Err(Error::Usage("--resume needs -o FILE".into())),
        (true, Some(path)) if path.as_os_str() == "-" => {
            return Err(Error::Usage("--resume needs -o FILE".into()))
        }
        (true, Some(path)) => resume::resume(path, &out_options, &mut records, &files, &mut notes)?,
    };
    let Resumed {
        mut output,
        rows: resumed_rows,
        mut tally,
        needs_header,
    } = resumed;
    if needs_header {
        output.write_all(header_line().as_bytes())?;
    }
    interrupt::arm(None);
    let mut progress = Progress::new(total_bytes, config.quiet);

    let mut finished = false;
    let mut interrupted = false;
    let produce = || -> Result<Option<Chunk>> {
        if finished {
            return Ok(None);
        }
        if interrupt::requested() {
            interrupted = true;
            return Ok(None);
        }
        let mut chunk = Chunk {
            text: Vec::with_capacity(CHUNK * 96),
            records: Vec::with_capacity(CHUNK),
        };
        while chunk.records.len() < CHUNK && chunk.text.len() < CHUNK_TEXT {
            match records.next_deferred(&mut chunk.text)? {
                Some(item) => chunk.records.push(item),
                None => {
                    finished = true;
                    break;
                }
            }
        }
        Ok((!chunk.records.is_empty()).then_some(chunk))
    };
    let (solver, unique) = (config.solver, config.unique);
    // Compressed output: each chunk becomes one gzip member / zstd frame here, on the pool.
    let codec = output.codec();
    let work = |chunk: Chunk| {
        let mut out = solve_chunk(&chunk.parse(), solver, unique, &files);
        codec.seal(&mut out.rows);
        out
    };
    let new_tally = {
        let mut new_tally = Tally::default();
        let consume = |out: ChunkOut| -> Result<()> {
            output.write_sealed(&out.rows)?;
            out.scores
                .iter()
                .for_each(|score| score.add_to(&mut new_tally));
            progress.advance(out.records, bytes_read.load(Ordering::Relaxed));
            Ok(())
        };
        let result = ordered_map(&pool, threads * 8 + 2, produce, work, consume);
        progress.finish();
        result?;
        new_tally
    };
    if interrupted {
        output.flush()?;
        if let Some(path) = &config.output {
            notes.push(format!(
                "interrupted: the rows so far are in {}; run again with --resume to finish",
                crate::io::output::partial_path(path).display()
            ));
        }
    } else {
        output.finish()?;
    }
    tally += &new_tally;
    let wall = started.elapsed();
    let mut summary = tally.summary(wall, threads, config.solver.name());
    // Throughput is this run's: kept rows were not solved now.
    summary.puzzles_per_second = if wall.as_secs_f64() > 0.0 {
        new_tally.puzzles() as f64 / wall.as_secs_f64()
    } else {
        0.0
    };
    if let Some(path) = &config.summary_json {
        write_json(path, &summary)?;
    }
    Ok(SolveReport {
        summary,
        empty_inputs: records.reader.empty_inputs().to_vec(),
        interrupted,
        resumed_rows,
        notes,
    })
}
