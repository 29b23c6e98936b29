//! sudoku-batch: solve Sudoku puzzles in bulk, fast, on all cores, and measure how fast.
//!
//! The library holds all the logic; the binary parses arguments ([`cli`]) and calls [`run()`].
//! Without default features it is only the core: [`Grid`], the solvers ([`SolverKind`]), the
//! puzzle [`generate`]r, the equivalence [`transform`]s and the Sudoku Explainer difficulty
//! [`rate`]r; the `io` feature adds the record layer ([`io`] when enabled).
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

#![warn(clippy::undocumented_unsafe_blocks, missing_docs, unreachable_pub)]

/// `eprintln!` and `eprint!` (`stderr!(line: ...)`, `stderr!(text: ...)`) that never panic: when
/// stderr is a closed pipe (its reader left), the message is lost, not the run's outcome.
#[allow(unused_macros)]
macro_rules! stderr {
    (line: $($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
    (text: $($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

// The core: depends on nothing above it and builds without the CLI's crates.
// Its callers: the stopwatch (Linux) and the machine description (the CLI).
#[cfg(all(target_arch = "x86_64", any(target_os = "linux", feature = "cli")))]
mod cpuid;
pub mod error;
pub mod generate;
pub mod grid;
pub mod rate;
pub mod rng;
pub mod solver;
pub mod stopwatch;
pub mod threads;
pub mod transform;
pub mod verdict;

// Records in, results out (the `io` feature: csv, gzip, zstd, zip).
#[cfg(feature = "io")]
pub mod io;
pub mod testing;

// The commands and the machinery they share (the `cli` feature, on by default).
#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "cli")]
pub mod cmd;
#[cfg(feature = "cli")]
mod run;
#[cfg(feature = "cli")]
pub mod shard;
#[cfg(feature = "cli")]
pub mod stats;
#[cfg(feature = "cli")]
mod sysinfo;

pub use error::{Error, Result};
pub use grid::Grid;
pub use solver::{solve, Outcome, SolverKind};

#[cfg(feature = "cli")]
pub use cmd::{run, Command, Finish};
