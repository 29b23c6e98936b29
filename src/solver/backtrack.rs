//! Plain bitmask backtracking: candidate masks from row/column/box bitmasks, an explicit
//! empty-cell list, and the cell with the fewest candidates chosen at every node. No other
//! propagation: a cell with one candidate is simply a branch with one alternative (not a guess).
//!
//! Placing a cell swaps it to the end of the live part of `empty` and shrinks the length, so
//! undo only has to restore the masks and grow the length back.
//!
//! The same search completes grids at random for `generate` ([`Grid::random_completion`]): the
//! candidates of each cell are tried in an order drawn from the [`Rng`] (see [`Order`]).

use super::{Budget, Outcome};
use crate::grid::{box_of, Grid, CELLS};
use crate::rng::Rng;

const ALL: u16 = 0x1FF;

struct State<'a> {
    used_row: [u16; 9],
    used_col: [u16; 9],
    used_box: [u16; 9],
    cells: [u8; CELLS],
    empty: [u8; CELLS],
    empty_len: usize,
    limit: u32,
    count: u32,
    guesses: u64,
    first: Option<Grid>,
    budget: Budget<'a>,
    gave_up: bool,
}

/// Solves `puzzle` up to `limit` solutions; clues that conflict give no solution.
pub(super) fn solve(puzzle: &Grid, limit: u32, budget: Budget<'_>) -> Outcome {
    if puzzle.has_conflict() {
        return Outcome::NONE; // clues that contradict each other: no solution
    }
    let mut state = State::new(puzzle, limit, budget);
    state.search(&mut Ascending);
    Outcome {
        count: state.count,
        solution: state.first,
        guesses: state.guesses,
        gave_up: state.gave_up,
    }
}

impl Grid {
    /// A random solution of this grid's clues, found by the backtracking solver's search with each
    /// cell's candidates tried in an order shuffled by `rng` ([`Rng::shuffle`]); `None` when the
    /// clues have no solution. The same clues and stream give the same grid: `generate`'s
    /// published datasets depend on it.
    ///
    /// (It is a method of [`Grid`] because the solver modules are private to [`crate::solver`].)
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    pub(crate) fn random_completion(&self, rng: &mut Rng) -> Option<Grid> {
        if self.has_conflict() {
            return None;
        }
        let mut state = State::new(self, 1, Budget::UNLIMITED);
        state.search(&mut Shuffled(rng));
        state.first
    }
}

/// How the search orders the candidates of the cell it branches on.
trait Order {
    /// Put the empty-cell list back in its order when a branch fails. The solver leaves it
    /// permuted (cheaper, and its guess counts are pinned that way); the random fill restores it,
    /// as `generate`'s published grids were made that way.
    const RESTORE_ON_FAIL: bool;
    /// The candidate bits of `cands`, in the order to try them.
    type Bits: Iterator<Item = u16>;
    /// The order for one node.
    fn order(&mut self, cands: u16) -> Self::Bits;
}

/// Lowest digit first (the solver).
struct Ascending;

/// The set bits of a mask, lowest first.
struct LowBits(u16);

impl Iterator for LowBits {
    type Item = u16;
    #[inline(always)]
    fn next(&mut self) -> Option<u16> {
        (self.0 != 0).then(|| {
            let bit = self.0 & self.0.wrapping_neg();
            self.0 &= self.0 - 1;
            bit
        })
    }
}

impl Order for Ascending {
    const RESTORE_ON_FAIL: bool = false;
    type Bits = LowBits;
    #[inline(always)]
    fn order(&mut self, cands: u16) -> LowBits {
        LowBits(cands)
    }
}

/// The candidates' digits in ascending order, shuffled by [`Rng::shuffle`] (the random fill).
struct Shuffled<'a>(&'a mut Rng);

impl Order for Shuffled<'_> {
    const RESTORE_ON_FAIL: bool = true;
    type Bits = std::iter::Take<std::array::IntoIter<u16, 9>>;
    fn order(&mut self, cands: u16) -> Self::Bits {
        let mut bits = [0u16; 9];
        let mut n = 0;
        for bit in LowBits(cands) {
            bits[n] = bit;
            n += 1;
        }
        self.0.shuffle(&mut bits[..n]);
        bits.into_iter().take(n)
    }
}

impl<'a> State<'a> {
    /// The search state for `puzzle` (free of conflicts), counting up to `limit` solutions.
    fn new(puzzle: &Grid, limit: u32, budget: Budget<'a>) -> State<'a> {
        let mut state = State {
            used_row: [0; 9],
            used_col: [0; 9],
            used_box: [0; 9],
            cells: *puzzle.cells(),
            empty: [0; CELLS],
            empty_len: 0,
            limit,
            count: 0,
            guesses: 0,
            first: None,
            budget,
            gave_up: false,
        };
        for (cell, &digit) in puzzle.cells().iter().enumerate() {
            if digit == 0 {
                state.empty[state.empty_len] = cell as u8;
                state.empty_len += 1;
            } else {
                state.toggle(cell, 1 << (digit - 1));
            }
        }
        state
    }

    #[inline(always)]
    fn candidates(&self, cell: usize) -> u16 {
        !(self.used_row[cell / 9] | self.used_col[cell % 9] | self.used_box[box_of(cell)]) & ALL
    }

    /// Flips `bit` in the three unit masks of `cell` (place when clear, remove when set).
    #[inline(always)]
    fn toggle(&mut self, cell: usize, bit: u16) {
        self.used_row[cell / 9] ^= bit;
        self.used_col[cell % 9] ^= bit;
        self.used_box[box_of(cell)] ^= bit;
    }

    /// Depth-first search trying candidates in `order`'s order; returns true when the solution
    /// limit is reached.
    fn search<O: Order>(&mut self, order: &mut O) -> bool {
        if self.empty_len == 0 {
            self.count += 1;
            if self.first.is_none() {
                self.first = Grid::from_cells(self.cells);
            }
            return self.count >= self.limit;
        }
        let mut best = 0;
        let mut best_count = u32::MAX;
        for pos in 0..self.empty_len {
            let n = self.candidates(self.empty[pos] as usize).count_ones();
            if n < best_count {
                best_count = n;
                best = pos;
                if n <= 1 {
                    break;
                }
            }
        }
        if best_count == 0 {
            return false;
        }
        if best_count >= 2 {
            self.guesses += 1;
            if self.budget.is_spent(self.guesses) {
                self.gave_up = true;
                return true;
            }
        }
        let last = self.empty_len - 1;
        self.empty.swap(best, last);
        let cell = self.empty[last] as usize;
        let cands = self.candidates(cell);
        self.empty_len = last;
        let mut done = false;
        for bit in order.order(cands) {
            self.toggle(cell, bit);
            self.cells[cell] = bit.trailing_zeros() as u8 + 1;
            done = self.search(order);
            self.toggle(cell, bit);
            if done {
                break;
            }
        }
        self.cells[cell] = 0;
        self.empty_len = last + 1;
        if O::RESTORE_ON_FAIL && !done {
            self.empty.swap(best, last);
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_hard_puzzle_and_proves_uniqueness() {
        let puzzle: Grid =
            "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
                .parse()
                .unwrap();
        let out = solve(&puzzle, 2, Budget::UNLIMITED);
        assert_eq!(out.count, 1);
        assert!(out.solution.unwrap().is_solution_of(&puzzle));
        assert!(out.guesses > 0);
    }

    #[test]
    fn a_puzzle_with_only_forced_cells_needs_no_guess() {
        let full: Grid =
            "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
                .parse()
                .unwrap();
        let mut puzzle = full;
        for cell in (0..CELLS).step_by(7) {
            puzzle.set(cell, 0);
        }
        let out = solve(&puzzle, 2, Budget::UNLIMITED);
        assert_eq!(
            out,
            Outcome {
                count: 1,
                solution: Some(full),
                guesses: 0,
                gave_up: false
            }
        );
    }

    #[test]
    fn counts_up_to_the_limit_on_the_empty_grid() {
        let out = solve(&Grid::empty(), 3, Budget::UNLIMITED);
        assert_eq!(out.count, 3);
        assert!(out.solution.unwrap().is_solution_of(&Grid::empty()));
    }

    #[test]
    fn random_completions_solve_their_clues_and_follow_the_stream() {
        let puzzle: Grid =
            "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
                .parse()
                .unwrap();
        let label = b"backtrack test..";
        let empty = |stream| Grid::empty().random_completion(&mut Rng::keyed(1, label, stream));
        let a = empty(0).unwrap();
        assert!(a.is_solution_of(&Grid::empty()));
        assert_eq!(empty(0), Some(a));
        assert_ne!(empty(1), Some(a));
        // A unique puzzle has one completion, whatever the order.
        let solution = solve(&puzzle, 1, Budget::UNLIMITED).solution;
        assert_eq!(
            puzzle.random_completion(&mut Rng::keyed(2, label, 0)),
            solution
        );
        let mut clash = puzzle;
        clash.set(2, 5); // a second 5 in the first row
        assert_eq!(clash.random_completion(&mut Rng::keyed(2, label, 0)), None);
    }
}
