//! Plain bitmask backtracking: candidate masks from row/column/box bitmasks, an explicit
//! empty-cell list, and the cell with the fewest candidates chosen at every node. No other
//! propagation: a cell with one candidate is simply a branch with one alternative (not a guess).
//!
//! Placing a cell swaps it to the end of the live part of `empty` and shrinks the length, so
//! undo only has to restore the masks and grow the length back.

use super::Outcome;
use crate::grid::{box_of, Grid, CELLS};

const ALL: u16 = 0x1FF;

struct State {
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
}

/// Solves `puzzle` up to `limit` solutions; clues that conflict give no solution.
pub(super) fn solve(puzzle: &Grid, limit: u32) -> Outcome {
    if puzzle.has_conflict() {
        return Outcome::NONE; // clues that contradict each other: no solution
    }
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
    };
    for (cell, &digit) in puzzle.cells().iter().enumerate() {
        if digit == 0 {
            state.empty[state.empty_len] = cell as u8;
            state.empty_len += 1;
        } else {
            state.toggle(cell, 1 << (digit - 1));
        }
    }
    state.search();
    Outcome {
        count: state.count,
        solution: state.first,
        guesses: state.guesses,
    }
}

impl State {
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

    /// Depth-first search; returns true when the solution limit is reached.
    fn search(&mut self) -> bool {
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
        }
        let last = self.empty_len - 1;
        self.empty.swap(best, last);
        let cell = self.empty[last] as usize;
        let mut cands = self.candidates(cell);
        self.empty_len = last;
        let mut done = false;
        while cands != 0 {
            let bit = cands & cands.wrapping_neg();
            cands &= cands - 1;
            self.toggle(cell, bit);
            self.cells[cell] = bit.trailing_zeros() as u8 + 1;
            done = self.search();
            self.toggle(cell, bit);
            if done {
                break;
            }
        }
        self.cells[cell] = 0;
        self.empty_len = last + 1;
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
        let out = solve(&puzzle, 2);
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
        let out = solve(&puzzle, 2);
        assert_eq!(
            out,
            Outcome {
                count: 1,
                solution: Some(full),
                guesses: 0
            }
        );
    }

    #[test]
    fn counts_up_to_the_limit_on_the_empty_grid() {
        let out = solve(&Grid::empty(), 3);
        assert_eq!(out.count, 3);
        assert!(out.solution.unwrap().is_solution_of(&Grid::empty()));
    }
}
