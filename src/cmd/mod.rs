//! The subcommands, one module each, and [`run`], which dispatches a built [`Command`].

pub mod bench;
pub mod generate;
pub mod merge;
pub mod rate;
pub mod report;
pub mod solve;
pub mod verify;

use crate::error::{Error, Result};

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

/// Runs a command. Errors are usage or I/O failures (exit 2); bad puzzles are rows, not errors.
pub fn run(command: Command) -> Result<Finish> {
    match command {
        Command::Solve(config) => {
            let report = solve::run(&config)?;
            for name in &report.empty_inputs {
                eprintln!("warning: {name}: no puzzles found");
            }
            if !config.quiet {
                report.notes.iter().for_each(|note| eprintln!("{note}"));
                eprint!("{}", report.summary.to_text());
            }
            let s = &report.summary;
            Ok(if report.interrupted {
                Finish::Interrupted
            } else if s.puzzles > 0 && s.solved == s.puzzles {
                Finish::AllGood
            } else {
                Finish::SomeFailed
            })
        }
        Command::Merge(config) => {
            let report = merge::run(&config)?;
            report.notes.iter().for_each(|note| eprintln!("{note}"));
            if !report.written {
                for problem in &report.incomplete {
                    eprintln!("merge: incomplete: {problem}");
                }
                eprintln!(
                    "merge: nothing written: shards are missing or cut off; re-run them, or pass \
                     --allow-incomplete to merge what there is"
                );
                return Ok(Finish::SomeFailed);
            }
            eprint!("{}", report.summary.to_text());
            let s = &report.summary;
            let whole = report.missing == 0 && report.incomplete.is_empty();
            Ok(if whole && s.solved == s.puzzles {
                Finish::AllGood
            } else {
                Finish::SomeFailed
            })
        }
        Command::Bench(config) => {
            let report = bench::run(&config)?;
            print_stdout(&report.markdown)?;
            Ok(if report.interrupted {
                Finish::Interrupted
            } else if report.rows.iter().any(|row| {
                matches!(
                    row.status,
                    bench::BenchStatus::Wrong
                        | bench::BenchStatus::Failed
                        | bench::BenchStatus::Timeout
                )
            }) {
                // A solver returned a bad solution in the check pass.
                Finish::SomeFailed
            } else {
                Finish::AllGood
            })
        }
        Command::Report(config) => {
            let text = report::run(&config)?;
            print_stdout(&text)?;
            Ok(Finish::AllGood)
        }
        Command::Generate(config) => {
            let report = generate::run(&config)?;
            if !config.quiet {
                eprint!("{}", report.to_text(&config.shape));
            }
            Ok(Finish::AllGood)
        }
        Command::Rate(config) => {
            let report = rate::run(&config)?;
            for name in &report.empty_inputs {
                eprintln!("warning: {name}: no puzzles found");
            }
            if !config.quiet {
                report.notes.iter().for_each(|note| eprintln!("{note}"));
                eprint!("{}", report.summary.to_text());
            }
            let s = &report.summary;
            let rated = s.statuses.get("rated").copied().unwrap_or(0);
            Ok(if report.interrupted {
                Finish::Interrupted
            } else if s.puzzles > 0 && rated == s.puzzles {
                Finish::AllGood
            } else {
                Finish::SomeFailed
            })
        }
        Command::Verify(config) => {
            let report = verify::run(&config)?;
            for name in &report.empty_inputs {
                eprintln!("warning: {name}: no rows found");
            }
            if !config.quiet {
                use std::io::Write;
                std::io::stdout()
                    .write_all(report.to_text().as_bytes())
                    .map_err(|source| Error::Write {
                        path: "-".into(),
                        cause: source,
                    })?;
            }
            Ok(if report.all_good() {
                Finish::AllGood
            } else {
                Finish::SomeFailed
            })
        }
    }
}

/// Writes a command's text result to stdout, naming stdout in errors.
fn print_stdout(text: &str) -> Result<()> {
    let mut out = crate::io::output::Output::create(None)?;
    out.write_all(text.as_bytes())?;
    out.finish()
}
