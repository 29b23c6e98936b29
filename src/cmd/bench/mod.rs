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

mod append;
mod datasets;
pub mod external;
mod markdown;
mod measure;
mod row;

use std::path::PathBuf;
use std::time::Duration;

use crate::cmd::{print_stdout, Finish};
use crate::error::{Error, Result};
use crate::io::targets::{check_targets, one_on_stdout, stdout_open_for, Target, WriteKind};
use crate::io::Input;
use crate::io::ReadOptions;
use crate::run::{self, Progress};
use crate::solver::SolverKind;
use crate::sysinfo::{self, Machine};
use crate::transform::TransformStream;
pub(crate) use row::utc_time_key;

use append::CsvAppender;
pub(crate) use datasets::{builtin_suite, load_dataset, SUITE_HELP};
pub use datasets::{puzzle_list_sha256, Dataset};
use markdown::markdown_report;
pub use markdown::MARKDOWN_COLUMNS;
pub(crate) use markdown::{one_line, rate_text, table_cell};
use measure::{check_pass, measure, round};
use row::empty_row;
pub use row::{BenchMode, BenchRow, BenchStatus};

/// The permutation seed used unless `--permute SEED` or `--no-permute` says otherwise.
pub const DEFAULT_SEED: u64 = 1;

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
    /// Allow more than 4 threads per logical core (`--allow-oversubscribe`).
    pub allow_oversubscribe: bool,
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
    /// Give up on a puzzle after this many guesses (counted as `gave_up`); `None`: never.
    pub max_guesses: Option<u64>,
    /// Other programs to time on the same puzzles (`--external NAME=COMMAND`).
    pub externals: Vec<external::External>,
    /// Kill an external program that runs longer than this (one pass).
    pub external_timeout: Duration,
    /// Seed of the equivalence transforms; `None` solves the puzzles as given.
    pub permute: Option<u64>,
    /// Append rows to this CSV file.
    pub csv: Option<PathBuf>,
    /// Write the rows, with machine metadata, as JSON to this file (`--summary`).
    pub summary: Option<PathBuf>,
    /// No progress bar.
    pub quiet: bool,
}

impl BenchConfig {
    /// Warm-up time per configuration unless told otherwise.
    pub const DEFAULT_WARMUP: Duration = Duration::from_secs(1);
    /// Least total time of the timed passes unless told otherwise.
    pub const DEFAULT_MIN_TIME: Duration = Duration::from_secs(3);
    /// Least number of timed passes unless told otherwise.
    pub const DEFAULT_RUNS: usize = 3;
    /// Longest one-thread pass before a solver is skipped on a dataset, unless told otherwise.
    pub const DEFAULT_MAX_PASS: Duration = Duration::from_secs(2);

    /// The defaults of the command line, for `inputs`.
    pub fn new(inputs: Vec<Input>) -> BenchConfig {
        BenchConfig {
            inputs,
            read: ReadOptions::default(),
            solvers: Vec::new(),
            threads: Vec::new(),
            allow_oversubscribe: false,
            warmup: Self::DEFAULT_WARMUP,
            min_time: Self::DEFAULT_MIN_TIME,
            runs: Self::DEFAULT_RUNS,
            max_pass: Self::DEFAULT_MAX_PASS,
            unique: false,
            max_guesses: None,
            externals: Vec::new(),
            external_timeout: Duration::from_secs(60),
            permute: Some(DEFAULT_SEED),
            csv: None,
            summary: None,
            quiet: false,
        }
    }

    /// Solvers to measure, in the order given, without repeats.
    fn solvers(&self) -> Vec<SolverKind> {
        if self.solvers.is_empty() {
            SolverKind::ALL.to_vec()
        } else {
            let mut solvers = Vec::new();
            for &s in &self.solvers {
                if !solvers.contains(&s) {
                    solvers.push(s);
                }
            }
            solvers
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

    fn mode(&self) -> BenchMode {
        BenchMode::new(self.unique)
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
    /// Puzzles given up on (`--max-guesses`) in the check passes: the rows of those passes
    /// measure a bounded run.
    pub gave_up: u64,
    /// `--csv` or `--summary` writes to standard output, so the table goes to stderr.
    pub table_to_stderr: bool,
}

impl BenchReport {
    /// Prints the Markdown report on stdout and returns the outcome: some failed when a
    /// solver gave a wrong answer, failed or timed out in the check pass, or gave up on a
    /// puzzle (`--max-guesses`).
    pub fn finish(&self) -> Result<Finish> {
        if self.table_to_stderr {
            stderr!(text: "{}", self.markdown);
        } else {
            print_stdout(&self.markdown)?;
        }
        Ok(if self.interrupted {
            Finish::Interrupted
        } else if self.gave_up > 0
            || self.rows.iter().any(|row| {
                matches!(
                    row.status,
                    BenchStatus::Wrong
                        | BenchStatus::Failed
                        | BenchStatus::Timeout
                        | BenchStatus::GaveUp
                )
            })
        {
            Finish::SomeFailed
        } else {
            Finish::AllGood
        })
    }
}

/// Whether Ctrl-C asked the run to stop after the current pass.
fn interrupted() -> bool {
    crate::run::interrupt::requested()
}

/// Runs the benchmark and returns its rows and Markdown report.
pub fn run(config: &BenchConfig) -> Result<BenchReport> {
    check_bench_targets(config)?;
    let datasets = load_datasets(config)?;
    let mut csv = config.csv.as_deref().map(CsvAppender::open).transpose()?;
    let machine = Machine::detect();
    let solvers = config.solvers();
    let threads = config.threads();
    let pools = thread_pools(&threads)?;
    crate::run::interrupt::arm(Some("stopping after the current pass"));
    let steps = (datasets.len() * solvers.len() * threads.len()) as u64;
    let progress = Progress::steps(steps, config.quiet);
    let mut rows: Vec<BenchRow> = Vec::new();
    let mut gave_up = 0;

    'all: for dataset in &datasets {
        for &solver in &solvers {
            let label = format!("{} × {}", dataset.name, solver.name());
            progress.set_message(format!("{label}: check pass"));
            let options = crate::verdict::JudgeOptions {
                solver,
                unique: config.unique,
                budget: crate::solver::Budget::new(
                    config.max_guesses,
                    Some(crate::run::interrupt::flag()),
                ),
            };
            let check = check_pass(dataset, &options, config.max_pass);
            if interrupted() {
                break 'all;
            }
            if check.problem.is_none() {
                gave_up += check.gave_up;
            }
            let mut one_thread_rate = None;
            for (&thread_count, pool) in threads.iter().zip(&pools) {
                let mut row = dataset_row(&machine, dataset, solver.name(), config, thread_count);
                row.solved = Some(check.solved);
                if let Some(why) = &check.problem {
                    row.not_measured(why);
                } else {
                    let context = format!("{label} · {thread_count} thread(s)");
                    match measure(dataset, solver, config, pool.as_ref(), &progress, &context) {
                        Some(Ok(measured)) => {
                            fill_measured(&mut row, &measured, &check, &mut one_thread_rate)
                        }
                        Some(Err(why)) => row.not_measured(&why),
                        None => break 'all,
                    }
                }
                push_row(row, &mut rows, csv.as_mut())?;
                progress.step();
            }
        }
        for external in &config.externals {
            if interrupted() {
                break 'all;
            }
            progress.set_message(format!("{} × {}: external", dataset.name, external.name));
            // A stop kills the pass under way: that program gets no row.
            let Some(row) = external_row(dataset, external, config, &machine)? else {
                break 'all;
            };
            push_row(row, &mut rows, csv.as_mut())?;
        }
    }
    progress.finish();
    let interrupted = interrupted();
    write_summary(config, &rows, interrupted)?;
    let markdown = markdown_report(&rows, &datasets, &machine, config, interrupted);
    Ok(BenchReport {
        rows,
        interrupted,
        markdown,
        gave_up,
        table_to_stderr: [&config.csv, &config.summary]
            .into_iter()
            .flatten()
            .any(|p| crate::io::targets::is_stdout(p)),
    })
}

/// A pool per thread count (`None` for one thread, measured on the calling thread).
fn thread_pools(threads: &[usize]) -> Result<Vec<Option<rayon::ThreadPool>>> {
    threads
        .iter()
        .map(|&t| match t {
            t if t > 1 => run::build_pool(t).map(Some),
            _ => Ok(None),
        })
        .collect()
}

/// Writes the rows as JSON to `--summary`; a run a signal stopped writes none (the JSON is a
/// list of rows: a short one would pass for the whole run's) and removes an earlier one.
fn write_summary(config: &BenchConfig, rows: &[BenchRow], interrupted: bool) -> Result<()> {
    let Some(path) = &config.summary else {
        return Ok(());
    };
    if interrupted {
        crate::io::output::remove_stale(path);
        stderr!(line:
            "bench: interrupted: no {} written (the rows measured are in the table{})",
            path.display(),
            if config.csv.is_some() { " and --csv" } else { "" }
        );
        Ok(())
    } else {
        crate::io::output::write_json(path, &rows)
    }
}

/// Checks every file the run writes (`--csv`, `--summary`) and every thread count before
/// anything is measured.
fn check_bench_targets(config: &BenchConfig) -> Result<()> {
    let mut targets = Vec::new();
    if let Some(path) = &config.csv {
        if !crate::io::compress::Codec::from_path(path).is_plain() {
            return Err(Error::Usage(format!(
                "--csv {}: the results CSV is appended to a row at a time, as plain text; give \
                 it a .csv name (and compress it afterwards if you like)",
                path.display()
            )));
        }
        targets.push(Target::new("--csv", path, WriteKind::InPlace));
    }
    if let Some(path) = &config.summary {
        targets.push(Target::new("--summary", path, WriteKind::Replaced));
    }
    let inputs: Vec<PathBuf> = config.inputs.iter().map(Input::path).collect();
    one_on_stdout(&targets)?;
    check_targets(&inputs, &targets)?;
    if config.csv.is_none() && config.summary.is_none() {
        stdout_open_for(
            "the table",
            "redirect it to a file, or give --csv or --summary a file",
        )?;
    }
    for &threads in &config.threads() {
        run::check_threads(threads, config.allow_oversubscribe)?;
    }
    check_external_names(&config.externals)
}

/// An external program's name is its rows' `solver`: one that a built-in solver or another
/// external also has would make two rows `report` cannot tell apart.
fn check_external_names(externals: &[external::External]) -> Result<()> {
    for (i, e) in externals.iter().enumerate() {
        // Solver names are matched whatever their case (`--solvers BANDS`), so these are too.
        if SolverKind::ALL
            .iter()
            .any(|k| k.name().eq_ignore_ascii_case(&e.name))
        {
            return Err(crate::Error::Usage(format!(
                "--external {}: {:?} is the name of a built-in solver; name it otherwise",
                e.name, e.name
            )));
        }
        if externals[..i]
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case(&e.name))
        {
            return Err(crate::Error::Usage(format!(
                "--external {}: two external programs are named {:?}",
                e.name, e.name
            )));
        }
    }
    Ok(())
}

/// The datasets to measure: the inputs, or the built-in suite when there are none. Invalid
/// records skipped are noted on stderr.
fn load_datasets(config: &BenchConfig) -> Result<Vec<Dataset>> {
    let datasets = if config.inputs.is_empty() {
        builtin_suite()
    } else {
        let mut datasets = config
            .inputs
            .iter()
            .map(|input| load_dataset(input, &config.read))
            .collect::<Result<Vec<_>>>()?;
        // Two files of one name (`a/p.txt b/p.txt`): rows and notes name them as given.
        let shared: Vec<bool> = (datasets.iter())
            .map(|d| datasets.iter().filter(|o| o.name == d.name).count() > 1)
            .collect();
        for ((dataset, input), shared) in datasets.iter_mut().zip(&config.inputs).zip(shared) {
            if shared {
                dataset.name = input.display_name();
            }
        }
        datasets
    };
    for dataset in &datasets {
        if dataset.invalid > 0 {
            stderr!(line:
                "note: {}, {} puzzles kept",
                dataset.skipped_note(),
                dataset.puzzles.len()
            );
        }
    }
    Ok(datasets)
}

/// A row for `solver` on `dataset` with `threads`, its measurements still to fill in.
fn dataset_row(
    machine: &Machine,
    dataset: &Dataset,
    solver: &str,
    config: &BenchConfig,
    threads: usize,
) -> BenchRow {
    let mut row = empty_row(machine);
    row.dataset = dataset.name.clone();
    row.puzzles = dataset.puzzles.len() as u64;
    row.sha256 = dataset.sha256.clone();
    row.solver = solver.to_string();
    row.mode = config.mode();
    row.threads = threads;
    row.permute_seed = config.permute;
    row
}

/// Fills a measured row: the rates, the note on puzzles given up on, and the efficiency
/// against the one-thread rate (recorded in `one_thread_rate` when this row is it).
fn fill_measured(
    row: &mut BenchRow,
    measured: &measure::Measured,
    check: &measure::Check,
    one_thread_rate: &mut Option<f64>,
) {
    measured.fill(row);
    row.note = check.notes.join("; ");
    if check.gave_up > 0 {
        // Timed, but over puzzles it did not finish: not a rate to compare with others.
        row.status = BenchStatus::GaveUp;
    }
    if row.threads == 1 {
        *one_thread_rate = row.puzzles_per_s;
    }
    row.efficiency = match (row.puzzles_per_s, *one_thread_rate) {
        (Some(rate), Some(one)) if one > 0.0 => Some(round(rate / (row.threads as f64 * one), 3)),
        _ => None,
    };
}

/// Stamps a finished row with the time and load, appends it to the `--csv` file and keeps it.
fn push_row(
    mut row: BenchRow,
    rows: &mut Vec<BenchRow>,
    csv: Option<&mut CsvAppender>,
) -> Result<()> {
    row.timestamp = sysinfo::utc_now_rfc3339();
    row.load_1m = sysinfo::load_average();
    if let Some(csv) = csv {
        csv.append(&row)?;
    }
    rows.push(row);
    Ok(())
}

/// The row of an external solver on `dataset`: `config.runs` passes (pass k on permutation
/// stream k, as ours), each timed as a whole process; the median rate, or the first failure;
/// `None` when a stop request ended a pass.
fn external_row(
    dataset: &Dataset,
    external: &external::External,
    config: &BenchConfig,
    machine: &Machine,
) -> Result<Option<BenchRow>> {
    let mut row = dataset_row(machine, dataset, &external.name, config, 1);
    // An external program is asked for a solution, never whether it is the only one.
    row.mode = BenchMode::new(false);
    let mut rates = Vec::new();
    for pass in 0..config.runs.max(1) as u64 {
        let puzzles = match config.permute {
            Some(seed) => TransformStream::new(seed, pass).apply_all(&dataset.puzzles),
            None => dataset.puzzles.clone(),
        };
        let (status, note) = match external::run_once(
            external,
            &puzzles,
            &dataset.lines,
            config.external_timeout,
        )? {
            external::Outcome::Solved(wall) => {
                rates.push(puzzles.len() as f64 / wall.as_secs_f64().max(1e-9));
                continue;
            }
            external::Outcome::Wrong(why) => (BenchStatus::Wrong, why),
            external::Outcome::Failed(why) => (BenchStatus::Failed, why),
            external::Outcome::TimedOut(after) => (
                BenchStatus::Timeout,
                format!(
                    "killed after {:.1} s (--external-timeout)",
                    after.as_secs_f64()
                ),
            ),
            external::Outcome::Stopped => return Ok(None),
        };
        row.status = status;
        row.note = format!("external `{}`, pass {}: {note}", external.command, pass + 1);
        return Ok(Some(row));
    }
    rates.sort_by(f64::total_cmp);
    // The built-in rows' median: the mean of the middle two for an even count.
    let median = measure::median_of_sorted(&rates);
    row.status = BenchStatus::Ok;
    row.passes = rates.len() as u64;
    row.solved = Some(dataset.puzzles.len() as u64);
    row.puzzles_per_s = Some(measure::kept_rate(median));
    row.min_puzzles_per_s = rates.first().map(|&r| measure::kept_rate(r));
    row.max_puzzles_per_s = rates.last().map(|&r| measure::kept_rate(r));
    row.us_per_puzzle = Some(round(1e6 / median.max(1e-9), 3));
    row.note = format!(
        "external `{}`: whole-process wall time, every solution checked",
        external.command
    );
    Ok(Some(row))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_are_sorted_and_deduplicated() {
        let mut config = BenchConfig::new(Vec::new());
        config.threads = vec![4, 1, 4, 2];
        assert_eq!(config.threads(), [1, 2, 4]);
        config.threads = Vec::new();
        assert_eq!(config.threads()[0], 1);
    }

    /// A solver slower than a puzzle a second keeps its rate in the rows and the table.
    #[test]
    fn slow_rates_keep_three_significant_digits_and_show_two_decimals() {
        assert_eq!(measure::kept_rate(0.048_123), 0.0481);
        assert_eq!(measure::kept_rate(0.396_78), 0.397);
        assert_eq!(measure::kept_rate(2.524), 2.52);
        assert_eq!(measure::kept_rate(123_456.78), 123_456.8);
        assert_eq!(measure::kept_rate(0.0), 0.0);
        assert_eq!(rate_text(0.0481), "0.05");
        assert_eq!(rate_text(2.52), "2.52");
        assert_eq!(rate_text(123_456.8), "123457");
    }
}
