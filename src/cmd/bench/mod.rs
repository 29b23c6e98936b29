//! `bench`: a careful throughput measurement of solvers × datasets × thread counts, with a
//! built-in graded suite, seeded equivalence transforms, per-puzzle timings and machine
//! metadata; results as a Markdown table, appended CSV rows and JSON.
//!
//! For each dataset × solver, an untimed check pass solves the original puzzles one by one
//! through [`crate::cmd::solve::judge`] (so every solution is validated) and estimates a pass's length;
//! a solver whose one-thread pass would exceed `max_pass` on a dataset is skipped there. Then,
//! for each thread count: warm-up passes for `warmup`, and timed passes until both `min_time`
//! (summed pass time) and `runs` are reached. A pass solves the whole dataset once, each puzzle
//! under a fresh random equivalence transform (`--permute`, prepared before the clock starts).
//! The row reports the median pass; the per-puzzle percentiles pool every timed pass.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::grid::Grid;
use crate::io::results::Status;
use crate::io::Input;
use crate::io::{parse_line, Body, ReadOptions, RecordReader};
use crate::run::{self, Progress};
use crate::solver::SolverKind;
use crate::stats::Tally;
use crate::sysinfo::{self, Machine};
use crate::transform::TransformStream;

/// The permutation seed used unless `--permute SEED` or `--no-permute` says otherwise.
pub const DEFAULT_SEED: u64 = 1;

/// Puzzles of the Sudoku Exchange "diabolical" bank used as the `moderate` dataset.
const MODERATE_PUZZLES: usize = 10_000;

/// Transform streams at or above this number are used by warm-up passes, below it by timed ones.
const WARMUP_STREAM: u64 = 1 << 32;

/// Everything `bench` needs, built from the command line.
#[derive(Debug, Clone)]
pub struct BenchConfig {
    /// Puzzle files, each one dataset; empty for the built-in suite.
    pub inputs: Vec<Input>,
    /// How to read them.
    pub read: ReadOptions,
    /// Solvers to measure; empty for all.
    pub solvers: Vec<SolverKind>,
    /// Thread counts; empty for 1 and all logical cores.
    pub threads: Vec<usize>,
    /// Warm-up time before the timed passes of each configuration.
    pub warmup: Duration,
    /// Least total time of the timed passes.
    pub min_time: Duration,
    /// Least number of timed passes.
    pub runs: usize,
    /// A solver × dataset whose one-thread pass would take longer than this is skipped.
    pub max_pass: Duration,
    /// Prove uniqueness (solution limit 2) instead of stopping at the first solution.
    pub unique: bool,
    /// Seed of the equivalence transforms; `None` solves the puzzles as given.
    pub permute: Option<u64>,
    /// Append rows to this CSV file.
    pub csv: Option<PathBuf>,
    /// Write rows to this JSON file.
    pub json: Option<PathBuf>,
    /// No progress bar.
    pub quiet: bool,
}

impl BenchConfig {
    /// The defaults of the command line, for `inputs`.
    pub fn new(inputs: Vec<Input>) -> BenchConfig {
        BenchConfig {
            inputs,
            read: ReadOptions::default(),
            solvers: Vec::new(),
            threads: Vec::new(),
            warmup: Duration::from_secs(1),
            min_time: Duration::from_secs(3),
            runs: 3,
            max_pass: Duration::from_secs(2),
            unique: false,
            permute: Some(DEFAULT_SEED),
            csv: None,
            json: None,
            quiet: false,
        }
    }

    fn solvers(&self) -> Vec<SolverKind> {
        if self.solvers.is_empty() {
            SolverKind::ALL.to_vec()
        } else {
            self.solvers.clone()
        }
    }

    /// Thread counts, ascending, without repeats, so the one-thread rate comes first.
    fn threads(&self) -> Vec<usize> {
        let mut threads = if self.threads.is_empty() {
            vec![1, run::default_threads()]
        } else {
            self.threads.clone()
        };
        threads.iter_mut().for_each(|t| *t = (*t).max(1));
        threads.sort_unstable();
        threads.dedup();
        threads
    }

    fn mode(&self) -> &'static str {
        if self.unique {
            "unique"
        } else {
            "first"
        }
    }
}

/// A list of puzzles held in memory, with its identity.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Name in the results: the built-in grade or the input's file name.
    pub name: String,
    /// The puzzles.
    pub puzzles: Vec<Grid>,
    /// Reference solutions from the input, where it has them (checked in the check pass).
    pub references: Vec<Option<Grid>>,
    /// Records left out because they were not valid puzzles (malformed or contradictory).
    pub invalid: u64,
    /// SHA-256 of the puzzle list: each puzzle in 81-character `.` notation plus `\n`.
    pub sha256: String,
}

impl Dataset {
    fn from_bodies(name: String, bodies: impl IntoIterator<Item = Body>) -> Dataset {
        let mut puzzles = Vec::new();
        let mut references = Vec::new();
        let mut invalid = 0;
        for body in bodies {
            match body {
                Body::Puzzle { puzzle, reference } if puzzle.first_conflict().is_none() => {
                    puzzles.push(puzzle);
                    references.push(reference);
                }
                _ => invalid += 1,
            }
        }
        let sha256 = puzzle_list_sha256(&puzzles);
        Dataset {
            name,
            puzzles,
            references,
            invalid,
            sha256,
        }
    }
}

/// SHA-256 (hex) of puzzles written one per line in `.` notation: `sha256sum` of such a file.
pub fn puzzle_list_sha256(puzzles: &[Grid]) -> String {
    let mut hasher = Sha256::new();
    for puzzle in puzzles {
        hasher.update(puzzle.to_bytes());
        hasher.update(b"\n");
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A built-in dataset: grade, source file, lines to use.
struct Builtin {
    name: &'static str,
    text: &'static str,
    skip_header: bool,
    limit: usize,
}

/// The built-in suite, embedded in the binary, from easiest to hardest (see `data/README.md`).
const SUITE: &[Builtin] = &[
    // Kaggle "3 million Sudoku puzzles with ratings": typical newspaper puzzles.
    Builtin {
        name: "easy",
        text: include_str!("../../../data/kaggle3m_radcliffe_first1000.csv"),
        skip_header: true,
        limit: usize::MAX,
    },
    // Sudoku Exchange "diabolical" tier, first 10,000: human-hard, machine-moderate.
    Builtin {
        name: "moderate",
        text: include_str!("../../../data/sudokuexchange_diabolical_2020_39719.txt"),
        skip_header: false,
        limit: MODERATE_PUZZLES,
    },
    // magictour top1465: the classic "hard" benchmark.
    Builtin {
        name: "hard",
        text: include_str!("../../../data/magictour_top1465.txt"),
        skip_header: false,
        limit: usize::MAX,
    },
    // The forum's hardest-puzzles database (375): many guesses per puzzle.
    Builtin {
        name: "hardest",
        text: include_str!("../../../data/norvig_sudokus_hard_375.txt"),
        skip_header: false,
        limit: usize::MAX,
    },
];

/// What each built-in dataset is, for `--help` and the README.
pub const SUITE_HELP: &str = "easy = data/kaggle3m_radcliffe_first1000.csv (1,000); \
     moderate = first 10,000 of data/sudokuexchange_diabolical_2020_39719.txt; \
     hard = data/magictour_top1465.txt (1,465); hardest = data/norvig_sudokus_hard_375.txt (375)";

/// The built-in graded suite: easy, moderate, hard, hardest.
pub fn builtin_suite() -> Vec<Dataset> {
    SUITE
        .iter()
        .map(|b| {
            let lines = b.text.lines().skip(usize::from(b.skip_header));
            let bodies = lines.filter_map(|line| parse_line(line.as_bytes()));
            Dataset::from_bodies(b.name.to_string(), bodies.take(b.limit))
        })
        .collect()
}

/// Loads one input file as a dataset: its valid puzzles, in order.
pub fn load_dataset(input: &Input, read: &ReadOptions) -> Result<Dataset> {
    input.check()?;
    let reader = RecordReader::new(vec![input.clone()], read.clone(), Arc::default());
    let mut bodies = Vec::new();
    for record in reader {
        bodies.push(record?.body);
    }
    let name = match input {
        Input::Stdin => "-".to_string(),
        Input::File(path) => path.file_name().map_or_else(
            || input.display_name(),
            |n| n.to_string_lossy().into_owned(),
        ),
    };
    let dataset = Dataset::from_bodies(name, bodies);
    if dataset.puzzles.is_empty() {
        return Err(Error::Input {
            path: input.path(),
            message: format!(
                "no valid puzzles to benchmark ({} invalid records)",
                dataset.invalid
            ),
        });
    }
    Ok(dataset)
}

/// One result row: a dataset × solver × mode × thread count on one machine. The CSV header,
/// the JSON keys and `report`'s input all come from this struct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchRow {
    /// When the row was measured, UTC, RFC 3339.
    pub timestamp: String,
    /// Dataset name.
    pub dataset: String,
    /// Puzzles in the dataset.
    pub puzzles: u64,
    /// SHA-256 of the dataset's puzzle list (see [`puzzle_list_sha256`]).
    pub sha256: String,
    /// Solver name.
    pub solver: String,
    /// `first` (solution limit 1) or `unique` (limit 2).
    pub mode: String,
    /// Solver threads.
    pub threads: usize,
    /// Seed of the equivalence transforms; empty when the puzzles were solved as given.
    pub permute_seed: Option<u64>,
    /// `ok`, `skipped` (too slow for `--max-pass`) or `wrong` (the check pass found a bad
    /// solution).
    pub status: String,
    /// Puzzles the check pass solved (of `puzzles`).
    pub solved: Option<u64>,
    /// Timed passes.
    pub passes: u64,
    /// Puzzles per second of the median pass (wall clock).
    pub puzzles_per_s: Option<f64>,
    /// Slowest pass, puzzles per second.
    pub min_puzzles_per_s: Option<f64>,
    /// Fastest pass, puzzles per second.
    pub max_puzzles_per_s: Option<f64>,
    /// Wall-clock microseconds per puzzle of the median pass (1e6 / `puzzles_per_s`).
    pub us_per_puzzle: Option<f64>,
    /// Median solve time of one puzzle, µs, over every timed pass.
    pub p50_us: Option<f64>,
    /// 99th percentile solve time of one puzzle, µs.
    pub p99_us: Option<f64>,
    /// Mean guesses per puzzle.
    pub guesses_per_puzzle: Option<f64>,
    /// Share of puzzles solved without a guess, percent.
    pub no_guess_pct: Option<f64>,
    /// Rate ÷ (threads × one-thread rate); empty without a one-thread row.
    pub efficiency: Option<f64>,
    /// CPU time the process got during the timed passes ÷ (their wall time × threads): below 1
    /// when other work took the cores (the numbers are then low); empty where not measured.
    pub cpu_share: Option<f64>,
    /// Why a row was skipped, or other remarks.
    pub note: String,
    /// One-minute load average when the row was finished (Linux; empty elsewhere): other work
    /// on the machine makes the numbers noisy.
    pub load_1m: Option<f64>,
    /// Host name.
    pub hostname: String,
    /// CPU model.
    pub cpu: String,
    /// Logical cores.
    pub logical_cores: usize,
    /// Physical cores.
    pub physical_cores: usize,
    /// Operating system.
    pub os: String,
    /// Architecture.
    pub arch: String,
    /// sudoku-batch version.
    pub version: String,
    /// Git commit of the build.
    pub git_commit: String,
    /// rustc version of the build.
    pub rustc: String,
    /// CPU features the solvers were compiled to use.
    pub cpu_features_used: String,
    /// CPU features this CPU has.
    pub cpu_features_available: String,
}

/// The CSV header line `bench --csv` writes.
pub fn csv_header() -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    // Serializing a row writes the header first; the row is dropped.
    let _ = writer.serialize(empty_row(&Machine::detect()));
    let text = String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default();
    text.lines().next().unwrap_or_default().to_string()
}

fn empty_row(machine: &Machine) -> BenchRow {
    BenchRow {
        timestamp: sysinfo::utc_now_rfc3339(),
        dataset: String::new(),
        puzzles: 0,
        sha256: String::new(),
        solver: String::new(),
        mode: String::new(),
        threads: 0,
        permute_seed: None,
        status: String::new(),
        solved: None,
        passes: 0,
        puzzles_per_s: None,
        min_puzzles_per_s: None,
        max_puzzles_per_s: None,
        us_per_puzzle: None,
        p50_us: None,
        p99_us: None,
        guesses_per_puzzle: None,
        no_guess_pct: None,
        efficiency: None,
        cpu_share: None,
        note: String::new(),
        load_1m: None,
        hostname: machine.hostname.clone(),
        cpu: machine.cpu.clone(),
        logical_cores: machine.logical_cores,
        physical_cores: machine.physical_cores,
        os: machine.os.clone(),
        arch: machine.arch.clone(),
        version: machine.version.clone(),
        git_commit: machine.git_commit.clone(),
        rustc: machine.rustc.clone(),
        cpu_features_used: machine.cpu_features_used.clone(),
        cpu_features_available: machine.cpu_features_available.clone(),
    }
}

/// What a bench run produced.
#[derive(Debug, Clone)]
pub struct BenchReport {
    /// Every row, in measurement order.
    pub rows: Vec<BenchRow>,
    /// True when Ctrl-C stopped the run early.
    pub interrupted: bool,
    /// The Markdown report (table and notes) printed on stdout.
    pub markdown: String,
}

/// Whether Ctrl-C asked the run to stop after the current pass.
fn interrupted() -> bool {
    crate::run::interrupt::requested()
}

/// One puzzle's measurement inside a pass.
#[derive(Debug, Clone, Copy)]
struct Sample {
    solve_ns: u64,
    guesses: u64,
    count: u32,
}

/// Appends rows to a results CSV, writing the header only into an empty file.
struct CsvAppender {
    path: PathBuf,
    file: std::fs::File,
    wrote_header: bool,
}

impl CsvAppender {
    /// Opens `path` for appending; an existing file must start with this version's header.
    fn open(path: &Path) -> Result<CsvAppender> {
        let write_err = |source| Error::Write {
            path: path.to_path_buf(),
            cause: source,
        };
        let existing = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(source) => {
                return Err(Error::Read {
                    path: path.to_path_buf(),
                    cause: source,
                })
            }
        };
        let header = csv_header();
        if !existing.is_empty() {
            let first = existing.split(|&b| b == b'\n').next().unwrap_or_default();
            let first = String::from_utf8_lossy(first);
            if first.trim_end() != header {
                return Err(Error::Input {
                    path: path.to_path_buf(),
                    message: "its header is not this version's results header; \
                              append to a new file instead (rows are never rewritten)"
                        .to_string(),
                });
            }
            if !existing.ends_with(b"\n") {
                return Err(Error::Input {
                    path: path.to_path_buf(),
                    message: "the last row is incomplete (no final newline); \
                              fix or move the file before appending"
                        .to_string(),
                });
            }
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(write_err)?;
        Ok(CsvAppender {
            path: path.to_path_buf(),
            file,
            wrote_header: !existing.is_empty(),
        })
    }

    /// Appends one row (and the header first, into an empty file), flushed at once so a crash
    /// keeps every finished row.
    fn append(&mut self, row: &BenchRow) -> Result<()> {
        let mut writer = csv::WriterBuilder::new()
            .has_headers(!self.wrote_header)
            .from_writer(Vec::new());
        let bytes = writer
            .serialize(row)
            .map_err(std::io::Error::other)
            .and_then(|()| writer.into_inner().map_err(|e| e.into_error()));
        let write_err = |source| Error::Write {
            path: self.path.clone(),
            cause: source,
        };
        let bytes = bytes.map_err(write_err)?;
        self.file.write_all(&bytes).map_err(write_err)?;
        self.file.flush().map_err(write_err)?;
        self.wrote_header = true;
        Ok(())
    }
}

/// Runs the benchmark and returns its rows and Markdown report.
pub fn run_bench(config: &BenchConfig) -> Result<BenchReport> {
    let datasets = if config.inputs.is_empty() {
        builtin_suite()
    } else {
        config
            .inputs
            .iter()
            .map(|input| load_dataset(input, &config.read))
            .collect::<Result<Vec<_>>>()?
    };
    for dataset in &datasets {
        if dataset.invalid > 0 {
            eprintln!(
                "note: {}: {} invalid records skipped, {} puzzles kept",
                dataset.name,
                dataset.invalid,
                dataset.puzzles.len()
            );
        }
    }
    let mut csv = config.csv.as_deref().map(CsvAppender::open).transpose()?;
    let machine = Machine::detect();
    let solvers = config.solvers();
    let threads = config.threads();
    let pools = threads
        .iter()
        .map(|&t| {
            if t > 1 {
                run::build_pool(t).map(Some)
            } else {
                Ok(None)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    crate::run::interrupt::arm(Some(
        "\ninterrupted: stopping after the current pass (Ctrl-C again to quit now)",
    ));
    let steps = (datasets.len() * solvers.len() * threads.len()) as u64;
    let progress = Progress::steps(steps, config.quiet);
    let mut rows: Vec<BenchRow> = Vec::new();

    'all: for dataset in &datasets {
        for &solver in &solvers {
            let label = format!("{} × {}", dataset.name, solver.name());
            progress.set_message(format!("{label}: check pass"));
            let check = check_pass(dataset, solver, config.unique, config.max_pass);
            if interrupted() {
                break 'all;
            }
            let mut one_thread_rate = None;
            for (&thread_count, pool) in threads.iter().zip(&pools) {
                let mut row = empty_row(&machine);
                row.dataset = dataset.name.clone();
                row.puzzles = dataset.puzzles.len() as u64;
                row.sha256 = dataset.sha256.clone();
                row.solver = solver.name().to_string();
                row.mode = config.mode().to_string();
                row.threads = thread_count;
                row.permute_seed = config.permute;
                row.solved = Some(check.solved);
                if let Some(why) = &check.problem {
                    row.status = why.status.to_string();
                    row.note = why.note.clone();
                    row.solved = None;
                } else {
                    let context = format!("{label} · {thread_count} thread(s)");
                    let Some(measured) =
                        measure(dataset, solver, config, pool.as_ref(), &progress, &context)
                    else {
                        break 'all;
                    };
                    measured.fill(&mut row);
                    if thread_count == 1 {
                        one_thread_rate = row.puzzles_per_s;
                    }
                    row.efficiency = match (row.puzzles_per_s, one_thread_rate) {
                        (Some(rate), Some(one)) if one > 0.0 => {
                            Some(round(rate / (thread_count as f64 * one), 3))
                        }
                        _ => None,
                    };
                }
                row.timestamp = sysinfo::utc_now_rfc3339();
                row.load_1m = sysinfo::load_average();
                if let Some(csv) = csv.as_mut() {
                    csv.append(&row)?;
                }
                rows.push(row);
                progress.step();
            }
        }
    }
    progress.finish();
    let interrupted = interrupted();
    if let Some(path) = &config.json {
        crate::io::output::write_json(path, &rows)?;
    }
    let markdown = markdown_report(&rows, &datasets, &machine, config, interrupted);
    Ok(BenchReport {
        rows,
        interrupted,
        markdown,
    })
}

/// Why a solver × dataset is not measured.
struct Problem {
    status: &'static str,
    note: String,
}

/// What the check pass found.
struct Check {
    solved: u64,
    problem: Option<Problem>,
}

/// Solves the original puzzles one by one on this thread, validating every answer; stops
/// early (and reports a problem) when the pass runs over `max_pass`.
fn check_pass(dataset: &Dataset, solver: SolverKind, unique: bool, max_pass: Duration) -> Check {
    let started = Instant::now();
    let mut solved = 0;
    let mut wrong = 0;
    for (done, (puzzle, reference)) in dataset.puzzles.iter().zip(&dataset.references).enumerate() {
        if interrupted() {
            break;
        }
        if started.elapsed() > max_pass {
            return Check {
                solved,
                problem: Some(Problem {
                    status: "skipped",
                    note: format!(
                        "one 1-thread pass takes over {} s (--max-pass): {done} of {} puzzles \
                         in {:.1} s",
                        seconds(max_pass),
                        dataset.puzzles.len(),
                        started.elapsed().as_secs_f64()
                    ),
                }),
            };
        }
        let body = Body::Puzzle {
            puzzle: *puzzle,
            reference: *reference,
        };
        let verdict = crate::cmd::solve::judge(&body, solver, unique);
        match verdict.status {
            Status::Solved => solved += 1,
            Status::Mismatch => wrong += 1,
            _ => {}
        }
    }
    let problem = (wrong > 0).then(|| Problem {
        status: "wrong",
        note: format!("{wrong} solutions failed validation or differ from the reference"),
    });
    Check { solved, problem }
}

/// The timed passes of one configuration.
struct Measured {
    pass_rates: Vec<f64>,
    tally: Tally,
    wall: Duration,
    cpu: Option<Duration>,
}

impl Measured {
    fn fill(&self, row: &mut BenchRow) {
        let mut rates = self.pass_rates.clone();
        rates.sort_by(f64::total_cmp);
        let median = median_of_sorted(&rates);
        let summary = self.tally.summary(Duration::ZERO, row.threads, &row.solver);
        row.status = "ok".to_string();
        row.passes = rates.len() as u64;
        row.puzzles_per_s = Some(round(median, 1));
        row.min_puzzles_per_s = rates.first().map(|&r| round(r, 1));
        row.max_puzzles_per_s = rates.last().map(|&r| round(r, 1));
        row.us_per_puzzle = (median > 0.0).then(|| round(1e6 / median, 3));
        row.p50_us = Some(round(summary.solve_ns.p50 as f64 / 1000.0, 3));
        row.p99_us = Some(round(summary.solve_ns.p99 as f64 / 1000.0, 3));
        row.guesses_per_puzzle = Some(round(summary.guesses_per_puzzle, 3));
        // Share of all puzzles (not only the solved ones) that needed no guess.
        let no_guess = self.tally.count(Status::Solved) as f64 * summary.no_guess_percent
            / (self.tally.puzzles().max(1) as f64);
        row.no_guess_pct = Some(round(no_guess, 2));
        row.cpu_share = self.cpu.map(|cpu| {
            let available = self.wall.as_secs_f64() * row.threads as f64;
            round(cpu.as_secs_f64() / available.max(1e-9), 3)
        });
    }
}

/// Warm-up and timed passes of one dataset × solver × thread count; `None` if interrupted.
fn measure(
    dataset: &Dataset,
    solver: SolverKind,
    config: &BenchConfig,
    pool: Option<&rayon::ThreadPool>,
    progress: &Progress,
    context: &str,
) -> Option<Measured> {
    let limit = if config.unique { 2 } else { 1 };
    let mut samples: Vec<Sample> = Vec::with_capacity(dataset.puzzles.len());
    let prepare = |stream: u64| match config.permute {
        Some(seed) => TransformStream::new(seed, stream).apply_all(&dataset.puzzles),
        None => dataset.puzzles.clone(),
    };
    let pass = |puzzles: &[Grid], samples: &mut Vec<Sample>| -> Duration {
        let work = |puzzle: &Grid| {
            let started = Instant::now();
            let outcome = solver.solve(puzzle, limit);
            Sample {
                solve_ns: u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX),
                guesses: outcome.guesses,
                count: outcome.count,
            }
        };
        let started = Instant::now();
        match pool {
            Some(pool) => run::par_map_into(pool, puzzles, samples, work),
            None => {
                samples.clear();
                samples.extend(puzzles.iter().map(work));
            }
        }
        started.elapsed()
    };

    let warmup_started = Instant::now();
    let mut stream = WARMUP_STREAM;
    while warmup_started.elapsed() < config.warmup {
        if interrupted() {
            return None;
        }
        progress.set_message(format!("{context}: warm-up"));
        let puzzles = prepare(stream);
        pass(&puzzles, &mut samples);
        stream += 1;
    }

    let mut pass_rates = Vec::new();
    let mut timed = Duration::ZERO;
    let mut cpu = Some(Duration::ZERO);
    let mut tally = Tally::default();
    while timed < config.min_time || pass_rates.len() < config.runs.max(1) {
        if interrupted() {
            return None;
        }
        progress.set_message(format!("{context}: pass {}", pass_rates.len() + 1));
        let puzzles = prepare(pass_rates.len() as u64);
        let cpu_before = sysinfo::process_cpu_time();
        let wall = pass(&puzzles, &mut samples);
        cpu = match (cpu, cpu_before, sysinfo::process_cpu_time()) {
            (Some(sum), Some(before), Some(after)) => Some(sum + after.saturating_sub(before)),
            _ => None,
        };
        timed += wall;
        pass_rates.push(puzzles.len() as f64 / wall.as_secs_f64().max(1e-9));
        for sample in &samples {
            let status = match sample.count {
                0 => Status::Unsolvable,
                1 => Status::Solved,
                _ if config.unique => Status::Multiple,
                _ => Status::Solved,
            };
            tally.record(status, true, sample.guesses, sample.solve_ns);
        }
    }
    Some(Measured {
        pass_rates,
        tally,
        wall: timed,
        cpu,
    })
}

fn median_of_sorted(values: &[f64]) -> f64 {
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn round(value: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (value * scale).round() / scale
}

fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    format!("{s}")
}

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

fn opt(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(|| "–".to_string(), |v| format!("{v:.decimals$}"))
}

/// The Markdown report: a line naming machine, build and settings, the table, and notes.
fn markdown_report(
    rows: &[BenchRow],
    datasets: &[Dataset],
    machine: &Machine,
    config: &BenchConfig,
    interrupted: bool,
) -> String {
    let mut out = String::new();
    out.push_str(&format!(
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
    ));
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
    out.push_str(&format!("| {} |\n", MARKDOWN_COLUMNS.join(" | ")));
    let aligns: Vec<&str> = MARKDOWN_COLUMNS
        .iter()
        .map(|c| match *c {
            "dataset" | "sha256" | "solver" | "mode" => "---",
            _ => "---:",
        })
        .collect();
    out.push_str(&format!("|{}|\n", aligns.join("|")));
    for row in rows {
        let rate = match row.status.as_str() {
            "ok" => opt(row.puzzles_per_s, 0),
            other => other.to_string(),
        };
        let spread = match (row.min_puzzles_per_s, row.max_puzzles_per_s) {
            (Some(lo), Some(hi)) => format!("{lo:.0}–{hi:.0}"),
            _ => "–".to_string(),
        };
        let cells = [
            row.dataset.clone(),
            row.puzzles.to_string(),
            row.sha256.chars().take(12).collect(),
            row.solver.clone(),
            row.mode.clone(),
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
        ];
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    let mut notes = Vec::new();
    for row in rows.iter().filter(|r| !r.note.is_empty()) {
        let note = format!(
            "- {} × {} ({}): {}",
            row.dataset, row.solver, row.status, row.note
        );
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    for dataset in datasets.iter().filter(|d| d.invalid > 0) {
        notes.push(format!(
            "- {}: {} invalid records skipped",
            dataset.name, dataset.invalid
        ));
    }
    if interrupted {
        notes.push("- interrupted by Ctrl-C: the rows above are what was measured".to_string());
    }
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&notes.join("\n"));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_suite_is_graded_and_complete() {
        let suite = builtin_suite();
        let names: Vec<&str> = suite.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["easy", "moderate", "hard", "hardest"]);
        let sizes: Vec<usize> = suite.iter().map(|d| d.puzzles.len()).collect();
        // Sizes from data/README.md; moderate is a prefix.
        assert_eq!(sizes, [1000, MODERATE_PUZZLES, 1465, 375]);
        for dataset in &suite {
            assert_eq!(dataset.invalid, 0, "{}", dataset.name);
            assert_eq!(dataset.sha256.len(), 64);
        }
        // The Kaggle set carries its solutions, which the check pass compares against.
        assert!(suite[0].references.iter().all(Option::is_some));
    }

    #[test]
    fn sha256_matches_sha256sum_of_the_listing() {
        // `printf '' | sha256sum`
        assert_eq!(
            puzzle_list_sha256(&[]),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let a = puzzle_list_sha256(&[Grid::empty()]);
        let b = puzzle_list_sha256(&[Grid::empty(), Grid::empty()]);
        assert_ne!(a, b);
        let mut text = Grid::empty().to_bytes().to_vec();
        text.push(b'\n');
        assert_eq!(a, format!("{:x}", Sha256::digest(&text)));
    }

    #[test]
    fn medians_and_rounding() {
        assert_eq!(median_of_sorted(&[]), 0.0);
        assert_eq!(median_of_sorted(&[1.0, 2.0, 9.0]), 2.0);
        assert_eq!(median_of_sorted(&[1.0, 2.0, 4.0, 9.0]), 3.0);
        assert_eq!(round(1.23456, 2), 1.23);
    }

    #[test]
    fn threads_are_sorted_and_deduplicated() {
        let mut config = BenchConfig::new(Vec::new());
        config.threads = vec![4, 1, 4, 2];
        assert_eq!(config.threads(), [1, 2, 4]);
        config.threads = Vec::new();
        assert_eq!(config.threads()[0], 1);
    }

    #[test]
    fn header_names_every_field_once() {
        let header = csv_header();
        let columns: Vec<&str> = header.split(',').collect();
        for want in [
            "timestamp",
            "dataset",
            "sha256",
            "solver",
            "mode",
            "threads",
            "puzzles_per_s",
            "p99_us",
            "efficiency",
            "hostname",
            "cpu",
            "git_commit",
            "rustc",
            "cpu_features_used",
        ] {
            assert_eq!(columns.iter().filter(|c| **c == want).count(), 1, "{want}");
        }
    }
}
