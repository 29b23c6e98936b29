//! sudoku-batch: solve Sudoku puzzles in bulk, fast, on all cores, and measure how fast.
//!
//! The library holds all the logic; the binary parses arguments ([`cli`]) and calls [`run`].
//!
//! ```
//! use sudoku_batch::{Grid, SolverKind};
//! let puzzle: Grid =
//!     "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
//!         .parse()
//!         .unwrap();
//! let outcome = SolverKind::default().solve(&puzzle, 2);
//! assert_eq!(outcome.count, 1); // exactly one solution
//! assert!(outcome.solution.unwrap().is_solution_of(&puzzle));
//! ```

pub mod batch;
pub mod cli;
pub mod error;
pub mod generate;
pub mod grid;
pub mod io;
pub mod output;
pub mod solver;
pub mod stats;
pub mod verify;

pub use error::{Error, Result};
pub use grid::Grid;
pub use solver::{solve, Outcome, SolverKind};

/// A command, built from the command line, ready to run.
#[derive(Debug, Clone)]
pub enum Command {
    /// Solve puzzle files.
    Solve(batch::SolveConfig),
    /// Generate puzzles with exactly one solution.
    Generate(generate::GenerateConfig),
    /// Check solution files.
    Verify(verify::VerifyConfig),
}

/// How a command that ran to the end went; the process exit status follows from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// Every record passed (exit 0).
    AllGood,
    /// The run finished but some records did not pass (exit 1).
    SomeFailed,
}

impl Finish {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Finish::AllGood => 0,
            Finish::SomeFailed => 1,
        }
    }
}

/// Runs a command. Errors are usage or I/O failures (exit 2); bad puzzles are rows, not errors.
pub fn run(command: Command) -> Result<Finish> {
    match command {
        Command::Solve(config) => {
            let report = batch::run_solve(&config)?;
            for name in &report.empty_inputs {
                eprintln!("warning: {name}: no puzzles found");
            }
            if !config.quiet {
                eprint!("{}", report.summary.to_text());
            }
            let s = &report.summary;
            Ok(if s.puzzles > 0 && s.solved == s.puzzles {
                Finish::AllGood
            } else {
                Finish::SomeFailed
            })
        }
        Command::Generate(config) => {
            let report = generate::run_generate(&config)?;
            if !config.quiet {
                eprint!("{}", report.to_text(&config.shape));
            }
            Ok(Finish::AllGood)
        }
        Command::Verify(config) => {
            let report = verify::run_verify(&config)?;
            for name in &report.empty_inputs {
                eprintln!("warning: {name}: no rows found");
            }
            if !config.quiet {
                use std::io::Write;
                std::io::stdout()
                    .write_all(report.to_text().as_bytes())
                    .map_err(|source| Error::Write {
                        path: "-".into(),
                        source,
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
