//! The puzzle generator: puzzles with exactly one solution, reproducible from a seed on any
//! machine, with any thread count and with any solver.
//!
//! Puzzle `i` of a run depends only on the seed, `i` and the options: it gets its own random
//! stream ([`crate::rng::Rng::keyed`] by the seed, stream number `i`), so puzzles can be made on
//! any thread in any order and put back in index order by the caller. The chosen
//! solver is used only to answer yes/no questions (is this puzzle still unique?), whose answers do
//! not depend on which solver answers them; the solution grid is always drawn by the backtracking
//! solver's search in random digit order ([`crate::Grid`]'s `random_completion`).
//!
//! Making one puzzle:
//! 1. draw a random complete grid: fewest-candidates-first backtracking with a random digit order;
//! 2. visit the symmetry orbits of the cells in random order and remove each orbit's clues when
//!    the puzzle stays unique. A removal that would leave an unavoidable set of the grid (found
//!    from row, column and digit pairs) without a clue fails at once; one that leaves every
//!    removed cell forced by a naked or hidden single of the remaining clues succeeds at once;
//!    otherwise the solver is asked whether a removed cell can hold another digit (limit-1
//!    solves, one per other candidate);
//! 3. stop at the drawn clue target, or after every orbit was tried (then the puzzle is minimal:
//!    a removal that failed once fails for every later, smaller puzzle too); retry with a new grid
//!    when the result is outside the wanted clue range;
//! 4. prove the result unique with the solver once more before it is written.
//!
//! `shape` holds what is asked for (clue range, [`Symmetry`]), `generator` makes one puzzle
//! (steps 1–4) and `unavoidable` finds the unavoidable sets that step 2 checks first.
//! The command that runs it on all cores and writes files is `cmd::generate`; the Python package
//! calls the same [`Generator`], so both give the same puzzles for the same seed.

mod generator;
mod shape;
mod unavoidable;

pub use generator::{Effort, Generated, Generator, MAX_ATTEMPTS, MAX_RATED};
pub use shape::{Shape, Symmetry, MIN_UNIQUE_CLUES};

/// A seed for runs that were not given one: the clock and the process id, mixed.
pub fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut x = nanos ^ (u64::from(std::process::id()) << 32);
    // splitmix64 finaliser, so close clocks give unrelated seeds
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
