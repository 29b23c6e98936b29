//! The textbook baseline: cells in row-major order, digits 1–9 tried against boolean
//! row/column/box tables, recurse, undo.
//!
//! No candidate masks, no cell ordering, no propagation. A guess is counted at every empty cell
//! where two or more digits fit, the same definition every solver uses.

use super::{Budget, Outcome};
use crate::grid::{box_of, Grid, CELLS};

struct State<'a> {
    row: [[bool; 10]; 9],
    col: [[bool; 10]; 9],
    boxes: [[bool; 10]; 9],
    cells: [u8; CELLS],
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
    let mut state = State {
        row: [[false; 10]; 9],
        col: [[false; 10]; 9],
        boxes: [[false; 10]; 9],
        cells: *puzzle.cells(),
        limit,
        count: 0,
        guesses: 0,
        first: None,
        budget,
        gave_up: false,
    };
    for (cell, &digit) in puzzle.cells().iter().enumerate() {
        if digit != 0 {
            state.set(cell, digit as usize, true);
        }
    }
    state.search(0);
    Outcome {
        count: state.count,
        solution: state.first,
        guesses: state.guesses,
        gave_up: state.gave_up,
    }
}

impl State<'_> {
    #[inline]
    fn set(&mut self, cell: usize, digit: usize, used: bool) {
        self.row[cell / 9][digit] = used;
        self.col[cell % 9][digit] = used;
        self.boxes[box_of(cell)][digit] = used;
    }

    #[inline]
    fn fits(&self, cell: usize, digit: usize) -> bool {
        !self.row[cell / 9][digit] && !self.col[cell % 9][digit] && !self.boxes[box_of(cell)][digit]
    }

    /// Fills the grid from cell `from` on; returns true when the solution limit is reached.
    fn search(&mut self, from: usize) -> bool {
        let Some(cell) = (from..CELLS).find(|&c| self.cells[c] == 0) else {
            self.count += 1;
            if self.first.is_none() {
                self.first = Grid::from_cells(self.cells);
            }
            return self.count >= self.limit;
        };
        if (1..=9).filter(|&d| self.fits(cell, d)).count() >= 2 {
            self.guesses += 1;
            if self.budget.is_spent(self.guesses) {
                self.gave_up = true;
                return true;
            }
        }
        for digit in 1..=9 {
            if self.fits(cell, digit) {
                self.set(cell, digit, true);
                self.cells[cell] = digit as u8;
                let done = self.search(cell + 1);
                self.cells[cell] = 0;
                self.set(cell, digit, false);
                if done {
                    return true;
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_an_easy_puzzle_and_proves_uniqueness() {
        let puzzle: Grid =
            "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
                .parse()
                .unwrap();
        let out = solve(&puzzle, 2, Budget::UNLIMITED);
        assert_eq!(out.count, 1);
        assert!(out.solution.unwrap().is_solution_of(&puzzle));
        assert!(
            out.guesses > 0,
            "row-major order guesses even on easy puzzles"
        );
    }

    #[test]
    fn a_full_grid_is_its_own_single_solution_without_guesses() {
        let full: Grid =
            "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
                .parse()
                .unwrap();
        assert_eq!(
            solve(&full, 5, Budget::UNLIMITED),
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
}
