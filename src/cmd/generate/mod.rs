//! `generate`: the command. It makes puzzles with [`crate::generate::Generator`] on the thread
//! pool, in chunks, and writes them in index order (`run::ordered_map`); how one puzzle is made,
//! and why the output depends only on the seed, the index and the options, is in
//! [`crate::generate`].
//!
//! This file owns the command: its configuration, the run over the thread pool and the report.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::cmd::Finish;
use crate::error::{Error, Result};
use crate::grid::CELLS;
use crate::io::output::Output;
use crate::io::targets::{check_targets, Target, WriteKind};
use crate::run::{check_threads, interrupt, ordered_map, Progress, Start, Workers};
use crate::solver::SolverKind;

pub use crate::generate::{
    fresh_seed, Effort, Generated, Generator, Shape, Symmetry, MAX_ATTEMPTS, MIN_UNIQUE_CLUES,
};

/// Puzzles per work item handed to the pool.
const CHUNK: u64 = 64;

/// Puzzles per work item with `--er`: each takes from milliseconds to seconds of rating, so
/// small items reach the output soon and spread over the threads.
const RATED_CHUNK: u64 = 4;

/// The longest a finished chunk's puzzles wait in the output buffer: a reader of a pipe, and
/// a file a kill cuts short, get them within this.
const FLUSH_EVERY: Duration = Duration::from_millis(50);

/// Everything `generate` needs, built from the command line.
#[derive(Debug, Clone)]
pub struct GenerateConfig {
    /// How many puzzles.
    pub count: u64,
    /// The seed; `None` draws one (and the summary prints it).
    pub seed: Option<u64>,
    /// What kind of puzzles.
    pub shape: Shape,
    /// Write CSV `puzzle,solution,clues` instead of one puzzle per line.
    pub with_solution: bool,
    /// Output file; `None` for stdout.
    pub output: Option<PathBuf>,
    /// The output's encoding; `None` follows its extension (`.gz`, `.zst`; stdout is plain).
    pub compress: Option<crate::io::compress::Codec>,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Allow more than 4 threads per logical core (`--allow-oversubscribe`).
    pub allow_oversubscribe: bool,
    /// The solver that proves uniqueness.
    pub solver: SolverKind,
    /// Bound each uniqueness probe of the carving to this many guesses (`None`: no bound).
    pub max_guesses: Option<u64>,
    /// Keep only puzzles whose SE rating ER (tenths) lies in this range.
    pub er: Option<(u16, u16)>,
    /// The scale the ER range is rated on.
    pub scale: crate::rate::Flavor,
    /// No progress bar and no summary on stderr.
    pub quiet: bool,
}

impl GenerateConfig {
    /// The generator this run asks for, stopping at the process's stop flag.
    fn generator(&self) -> Result<Generator> {
        Ok(Generator::new(self.shape, self.solver)?
            .with_max_guesses(self.max_guesses)
            .with_er(self.er, self.scale, &crate::error::OptionNames::CLI)?
            .with_stop(Some(interrupt::shared())))
    }

    /// A configuration for `count` default puzzles (minimal, no symmetry) from `seed`, written
    /// to stdout.
    pub fn new(count: u64, seed: u64) -> Self {
        GenerateConfig {
            count,
            seed: Some(seed),
            shape: Shape::default(),
            with_solution: false,
            output: None,
            compress: None,
            threads: crate::run::default_threads(),
            allow_oversubscribe: false,
            solver: SolverKind::default(),
            max_guesses: None,
            er: None,
            scale: crate::rate::Flavor::default(),
            quiet: true,
        }
    }
}

/// What a finished `generate` run reports.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateReport {
    /// Puzzles written.
    pub puzzles: u64,
    /// The seed used (given or drawn).
    pub seed: u64,
    /// Fewest clues of a written puzzle (0 when none were written).
    pub min_clues: usize,
    /// Most clues of a written puzzle.
    pub max_clues: usize,
    /// Mean clue count.
    pub mean_clues: f64,
    /// Grids drawn in all (more than `puzzles` when clue ranges made some retry).
    pub attempts: u64,
    /// Uniqueness questions asked of the solver.
    pub solver_calls: u64,
    /// Candidate puzzles rated to find the kept ones (0 without an ER range).
    pub rated: u64,
    /// Wall time in seconds.
    pub wall_seconds: f64,
    /// Threads used.
    pub threads: usize,
    /// Solver that proved uniqueness.
    pub solver: &'static str,
    /// The run was stopped by a signal: the puzzles written are the first `puzzles` of the
    /// whole run (the same seed makes them again), and a file output stays `FILE.partial`.
    pub interrupted: bool,
    /// Remarks for stderr: where the puzzles of a stopped run are.
    pub notes: Vec<String>,
}

impl GenerateReport {
    /// The report of a run that has made nothing yet.
    fn empty(seed: u64, threads: usize, solver: &'static str) -> Self {
        GenerateReport {
            puzzles: 0,
            seed,
            min_clues: CELLS,
            max_clues: 0,
            mean_clues: 0.0,
            attempts: 0,
            solver_calls: 0,
            rated: 0,
            wall_seconds: 0.0,
            threads,
            solver,
            interrupted: false,
            notes: Vec::new(),
        }
    }

    /// Counts the grids drawn, the solver calls and the candidates rated of a chunk.
    /// Counts the puzzles of a chunk written.
    fn add_chunk(&mut self, chunk: &ChunkOut) {
        self.puzzles += chunk.puzzles;
        self.min_clues = self.min_clues.min(chunk.min_clues);
        self.max_clues = self.max_clues.max(chunk.max_clues);
        self.add_effort(&chunk.effort);
    }

    /// The mean clue count from their sum over the puzzles written (and a minimum of 0 when
    /// there are none).
    fn set_mean_clues(&mut self, clue_sum: u64) {
        if self.puzzles == 0 {
            self.min_clues = 0;
        } else {
            self.mean_clues = clue_sum as f64 / self.puzzles as f64;
        }
    }

    fn add_effort(&mut self, effort: &Effort) {
        self.attempts += effort.attempts;
        self.solver_calls += effort.solver_calls;
        self.rated += effort.rated;
    }

    /// Prints the notes and the summary on stderr unless `quiet`; a generate run that ended
    /// is all good, one stopped by a signal is [`Finish::Interrupted`].
    pub fn finish(&self, config: &GenerateConfig) -> Result<Finish> {
        if !config.quiet {
            self.notes.iter().for_each(|note| stderr!(line: "{note}"));
            stderr!(text: "{}", self.to_text(config));
        }
        Ok(if self.interrupted {
            Finish::Interrupted
        } else {
            Finish::AllGood
        })
    }

    /// The summary printed on stderr.
    pub fn to_text(&self, config: &GenerateConfig) -> String {
        let (shape, rate) = (
            &config.shape,
            self.puzzles as f64 / self.wall_seconds.max(1e-9),
        );
        // A probe bounded by --max-guesses keeps its clue: minimal is not proven then.
        let kind = if shape.minimal && config.max_guesses.is_none() {
            "minimal"
        } else {
            "unique"
        };
        let mut text = format!(
            "generated {} {kind} puzzles (symmetry {}) in {:.3} s: {:.0} puzzles/s",
            self.puzzles, shape.symmetry, self.wall_seconds, rate,
        );
        // Figures per puzzle only when there is a puzzle (else the time would be the
        // start-up time, and the clue counts and calls per puzzle meaningless).
        let per_puzzle = self.puzzles > 0;
        if per_puzzle {
            text += &format!(
                ", {:.1} µs/puzzle per thread\nclues: min {}, mean {:.2}, max {}",
                self.wall_seconds * 1e6 * self.threads as f64 / self.puzzles as f64,
                self.min_clues,
                self.mean_clues,
                self.max_clues
            );
        }
        text += &format!(
            "\nseed {}, {} thread{}, solver {}, {} grids drawn",
            self.seed,
            self.threads,
            if self.threads == 1 { "" } else { "s" },
            self.solver,
            self.attempts,
        );
        if per_puzzle {
            text += &format!(
                ", {:.1} solver calls/puzzle",
                self.solver_calls as f64 / self.puzzles as f64
            );
            if self.rated > 0 {
                text += &format!(
                    "\n{:.1} candidates rated per kept puzzle",
                    self.rated as f64 / self.puzzles as f64
                );
            }
        } else if self.rated > 0 {
            text += &format!(", {} candidates rated", self.rated);
        }
        text.push('\n');
        text
    }
}

/// A finished work item: its formatted lines and figures.
struct ChunkOut {
    /// A stop request ended it before its last puzzle (it holds the ones before).
    cut: bool,
    bytes: Vec<u8>,
    puzzles: u64,
    clue_sum: u64,
    min_clues: usize,
    max_clues: usize,
    /// Every grid drawn and candidate rated, the puzzle a stop cut short included.
    effort: Effort,
    /// How long making it took.
    took: Duration,
}

/// Makes puzzles `first..first + count` and formats them.
fn make_chunk(
    generator: &Generator,
    seed: u64,
    first: u64,
    count: u64,
    with_solution: bool,
) -> Result<ChunkOut> {
    let started = Instant::now();
    let mut out = ChunkOut {
        took: Duration::ZERO,
        cut: false,
        bytes: Vec::with_capacity(count as usize * if with_solution { 168 } else { 82 }),
        puzzles: 0,
        clue_sum: 0,
        min_clues: CELLS,
        max_clues: 0,
        effort: Effort::default(),
    };
    for index in first..first + count {
        let made = match generator.generate_counting(seed, index, &mut out.effort) {
            Err(Error::Interrupted(_)) => {
                out.cut = true;
                break;
            }
            made => made?,
        };
        let clues = made.puzzle.clue_count();
        out.bytes.extend_from_slice(&made.puzzle.to_bytes());
        if with_solution {
            out.bytes.push(b',');
            out.bytes.extend_from_slice(&made.solution.to_bytes());
            out.bytes.push(b',');
            out.bytes
                .extend_from_slice(itoa::Buffer::new().format(clues).as_bytes());
        }
        out.bytes.push(b'\n');
        out.puzzles += 1;
        out.clue_sum += clues as u64;
        out.min_clues = out.min_clues.min(clues);
        out.max_clues = out.max_clues.max(clues);
    }
    out.took = started.elapsed();
    Ok(out)
}

/// Where the puzzles of a stopped run are (`kept`, as [`Output::keep`] says), and how to get
/// the rest.
/// Ends the output: put in place after a whole run; after a stop, left as `FILE.partial`
/// with a note, or, stopped before the first puzzle, removed (an earlier run's `FILE` stays as
/// it was).
fn end_output(config: &GenerateConfig, output: Output, report: &mut GenerateReport) -> Result<()> {
    if !report.interrupted {
        return output.finish();
    }
    if report.puzzles == 0 && output.placed().is_ok() {
        drop(output);
        report.notes.push(format!(
            "interrupted before the first puzzle: nothing was written; generate again with \
             --seed {} to make them",
            report.seed
        ));
        return Ok(());
    }
    let kept = output.keep()?;
    report.notes.push(stopped_note(config, report, kept));
    Ok(())
}

fn stopped_note(
    config: &GenerateConfig,
    report: &GenerateReport,
    kept: std::result::Result<PathBuf, PathBuf>,
) -> String {
    let whole = format!(
        "the first {} of the {} puzzles; generate again with --seed {} to make them all",
        report.puzzles, config.count, report.seed
    );
    match kept {
        Ok(partial) => format!("interrupted: {} holds {whole}", partial.display()),
        Err(_) if config.output.is_none() => format!("interrupted: stdout got {whole}"),
        Err(direct) => format!("interrupted: {} got {whole}", direct.display()),
    }
}

/// The CSV header written with `--with-solution`.
pub(crate) const CSV_HEADER: &str = "puzzle,solution,clues\n";

/// The lowest ER (tenths) of a `--er` range worth a warning: puzzles that need nested forcing
/// chains (9.5 and up) are rare among random minimal ones (9.0 and up, about one in 400).
const RARE_ER: u16 = 95;

/// Warns on stderr when an `--er` range starts where random minimal puzzles almost never rate.
fn warn_if_rare(er: Option<(u16, u16)>) {
    if let Some((low, _)) = er.filter(|&(low, _)| low >= RARE_ER) {
        stderr!(line:
            "warning: --er from {:.1}: random minimal puzzles rate that high very rarely (the \
             hardest known puzzles rate about 11.9); after {} candidates without one for a \
             puzzle the run stops with an error",
            f32::from(low) / 10.0,
            crate::generate::MAX_RATED
        );
    }
}

/// Runs `generate`: makes `config.count` puzzles on `config.threads` threads and writes them in
/// index order. A signal (Ctrl-C, SIGTERM, SIGHUP) stops it between puzzles: the puzzles written
/// are the first ones of the whole run, and a file output is left as `FILE.partial`.
pub fn run(config: &GenerateConfig) -> Result<GenerateReport> {
    // No -o writes the puzzles to standard output.
    let path = config.output.as_deref().unwrap_or(Path::new("-"));
    check_targets(&[], &[Target::new("-o", path, WriteKind::Replaced)])?;
    let generator = config.generator()?;
    let seed = config.seed.unwrap_or_else(fresh_seed);
    let threads = config.threads.max(1);
    check_threads(threads, config.allow_oversubscribe)?;
    warn_if_rare(config.er);
    let workers = Workers::started(threads)?;
    let options = crate::io::output::OutputOptions {
        compress: config.compress,
        ..Default::default()
    };
    // Before the output exists: a stop from then on leaves it as `FILE.partial`, with a note.
    interrupt::arm(Some("stopping; the puzzles made so far are kept"));
    // Rows for a pipe whose reader is gone stop the run at once (a puzzle can take seconds).
    let _watch = interrupt::watch_stdout_for(config.output.as_deref());
    let mut output = Output::create_with(config.output.as_deref(), &options)?;
    if config.with_solution {
        output.write_all(CSV_HEADER.as_bytes())?;
    }
    let mut progress = Progress::new(None, config.quiet);
    let started = Instant::now();
    let mut next = 0u64;
    let produce = |_inline: bool| -> Result<Option<(u64, u64)>> {
        if next >= config.count || interrupt::requested() {
            return Ok(None);
        }
        let chunk = if config.er.is_some() {
            RATED_CHUNK
        } else {
            CHUNK
        };
        let count = chunk.min(config.count - next);
        let item = (next, count);
        next += count;
        Ok(Some(item))
    };
    let with_solution = config.with_solution;
    let work =
        |(first, count): (u64, u64)| make_chunk(&generator, seed, first, count, with_solution);
    let mut report = GenerateReport::empty(seed, threads, config.solver.name());
    let mut clue_sum = 0u64;
    let mut cut = false;
    // An earlier run's file, which a stopped or killed run must not leave looking like its
    // own: gone with this run's first puzzles.
    let mut stale = config.output.as_ref();
    let mut last_flush = Instant::now();
    let plain = output.codec().is_plain();
    let consume = |chunk: Result<ChunkOut>| -> Result<()> {
        if cut {
            // After a chunk a stop cut short: these puzzles would leave a gap, but the grids
            // they drew were drawn.
            if let Ok(chunk) = &chunk {
                report.add_effort(&chunk.effort);
            }
            return Ok(());
        }
        let chunk = chunk?;
        if chunk.puzzles > 0 {
            if let Some(path) = stale.take() {
                remove_earlier_output(path);
            }
        }
        cut = chunk.cut;
        output.write_all(&chunk.bytes)?;
        clue_sum += chunk.clue_sum;
        report.add_chunk(&chunk);
        progress.advance(chunk.puzzles, 0);
        // A slow chunk means the next one is far off: its puzzles go out now. Fast ones are
        // flushed a few times a second. Not a compressed output: a flush ends a member there,
        // and members ended by the clock would make the bytes differ from run to run.
        if plain && (chunk.took >= FLUSH_EVERY || last_flush.elapsed() >= FLUSH_EVERY) {
            output.flush()?;
            last_flush = Instant::now();
        }
        Ok(())
    };
    let result = ordered_map(
        &workers,
        threads * 4 + 2,
        Start::Threads,
        produce,
        work,
        consume,
    );
    progress.finish();
    result?;
    interrupt::unless_abandoned()?;
    report.interrupted = cut || (report.puzzles < config.count && interrupt::requested());
    end_output(config, output, &mut report)?;
    report.wall_seconds = started.elapsed().as_secs_f64();
    report.set_mean_clues(clue_sum);
    Ok(report)
}
/// Removes an earlier run's file at `path`, with the sidecar a `solve` or `rate` run left
/// beside it (a generate run writes none).
fn remove_earlier_output(path: &Path) {
    crate::io::output::remove_stale(path);
    if let Some(sidecar) = crate::cmd::sidecar::stale_sidecar(path) {
        crate::io::output::remove_stale(&sidecar);
    }
}
