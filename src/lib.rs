//! sudoku-batch: solve Sudoku puzzles in bulk, fast, on all cores, and measure how fast.
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

pub mod grid;
pub mod solver;

pub use grid::Grid;
pub use solver::{solve, Outcome, SolverKind};
pub mod error;
pub mod io;
pub mod stats;
