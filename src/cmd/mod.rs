//! The subcommands, one module each, and [`run`], which dispatches a built [`Command`].

pub mod bench;
pub mod generate;
pub mod merge;
pub mod outcome;
pub mod rate;
pub mod report;
pub(crate) mod shards;
pub(crate) mod sidecar;
pub mod solve;
pub mod verify;

use std::path::PathBuf;

use crate::error::Result;
use crate::io::{Input, ReadOptions};

/// What every command that reads records on a pool of threads (`solve`, `rate`, `verify`) is
/// given alike: the inputs and how to read them, where the JSON summary goes, the thread count
/// and whether to stay quiet.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Inputs, read in order.
    pub inputs: Vec<Input>,
    /// How to read them: the layout (auto-detected per input by default) and the CSV column
    /// that holds the puzzle.
    pub read: ReadOptions,
    /// Where to write the JSON summary, if anywhere.
    pub summary: Option<PathBuf>,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Allow more than 4 threads per logical core (`--allow-oversubscribe`).
    pub allow_oversubscribe: bool,
    /// No progress bar and no summary.
    pub quiet: bool,
}

impl RunOptions {
    /// Defaults for everything but the inputs: detected layout, no JSON summary, every logical
    /// core, quiet (a library caller asks for the progress bar).
    pub fn new(inputs: Vec<Input>) -> Self {
        RunOptions {
            inputs,
            read: ReadOptions::default(),
            summary: None,
            threads: crate::run::default_threads(),
            allow_oversubscribe: false,
            quiet: true,
        }
    }
}

/// A command, built from the command line, ready to run.
#[derive(Debug, Clone)]
pub enum Command {
    /// Solve puzzle files.
    Solve(solve::SolveConfig),
    /// Measure solver throughput.
    Bench(bench::BenchConfig),
    /// Compare results across machines.
    Report(report::ReportConfig),
    /// Merge sharded outputs back into input order.
    Merge(merge::MergeConfig),
    /// Generate puzzles with exactly one solution.
    Generate(generate::GenerateConfig),
    /// Check solution files.
    Verify(verify::VerifyConfig),
    /// Rate puzzles on Sudoku Explainer's scale.
    Rate(rate::RateConfig),
}

/// How a command that ran to the end went; the process exit status follows from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// Every record passed (exit 0).
    AllGood,
    /// The run finished but some records did not pass (exit 1).
    SomeFailed,
    /// The run was stopped by a signal after flushing the rows done so far (exit 128 + the
    /// signal's number: 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP).
    Interrupted,
}

impl Finish {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Finish::AllGood => 0,
            Finish::SomeFailed => 1,
            Finish::Interrupted => crate::run::interrupt::exit_code(),
        }
    }
}

/// Runs a command, prints its report as the command line does and returns its outcome.
/// Errors are usage or I/O failures (exit 2); bad puzzles are rows, not errors.
pub fn run(command: Command) -> Result<Finish> {
    // The stopwatch's calibration runs from here, alongside the command's start-up.
    crate::stopwatch::start();
    match command {
        Command::Solve(config) => {
            no_summary_when_cut(solve::run(&config), config.run.summary.as_deref())?
                .finish(config.run.quiet)
        }
        Command::Merge(config) => {
            no_summary_when_cut(merge::run(&config), config.summary.as_deref())?
                .finish(config.quiet)
        }
        Command::Bench(config) => bench::run(&config)?.finish(),
        Command::Report(config) => report::finish(&report::run(&config)?, &config),
        Command::Generate(config) => generate::run(&config)?.finish(&config),
        Command::Rate(config) => {
            no_summary_when_cut(rate::run(&config), config.run.summary.as_deref())?
                .finish(config.run.quiet)
        }
        Command::Verify(config) => verify::run(&config)?.finish(&config),
    }
}

/// A run whose standard output was closed before the end (`| head`) ends quietly with 0 (the
/// reader has what it wanted), but writes no `--summary`: then an earlier run's summary must
/// not stay there looking like this run's, and stderr says why there is none.
fn no_summary_when_cut<T>(result: Result<T>, summary: Option<&std::path::Path>) -> Result<T> {
    if let (Err(error), Some(path)) = (&result, summary) {
        if error.is_broken_pipe() {
            crate::io::output::remove_stale(path);
            stderr!(line:
                "sudoku-batch: standard output was closed before the end: no summary in {}",
                path.display()
            );
        }
    }
    result
}

/// Writes a command's text result to stdout, naming stdout in errors.
pub(crate) fn print_stdout(text: &str) -> Result<()> {
    let mut out = crate::io::output::Output::create(None)?;
    out.write_all(text.as_bytes())?;
    out.finish()
}
