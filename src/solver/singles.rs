//! The core design: bitmask backtracking over an explicit empty-cell list, fewest candidates
//! first, with naked and hidden singles propagated at every node.
//!
//! State layout (all fixed-size, no heap):
//! ```text
//! used_row[9], used_col[9], used_box[9] : u16   bit d-1 set = digit d placed in that unit
//! cells[81]                              : u8    0 = empty, else the digit
//! empty[0..empty_len]                    : u8    indices of the still-empty cells
//! trail[0..trail_len]                    : u8    cells placed, in order, for exact undo
//! ```
//! Placing a cell swaps it to the end of the live part of `empty` and shrinks the length;
//! undoing placements in reverse order only has to grow the length back.

use super::{Budget, Outcome};
use crate::grid::{box_of, Grid, CELLS, UNITS};

const ALL: u16 = 0x1FF;

struct State<'a> {
    used_row: [u16; 9],
    used_col: [u16; 9],
    used_box: [u16; 9],
    cells: [u8; CELLS],
    empty: [u8; CELLS],
    empty_len: usize,
    trail: [u8; CELLS],
    trail_len: usize,
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
        used_row: [0; 9],
        used_col: [0; 9],
        used_box: [0; 9],
        cells: [0; CELLS],
        empty: [0; CELLS],
        empty_len: 0,
        trail: [0; CELLS],
        trail_len: 0,
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
            let bit = 1 << (digit - 1);
            state.used_row[cell / 9] |= bit;
            state.used_col[cell % 9] |= bit;
            state.used_box[box_of(cell)] |= bit;
            state.cells[cell] = digit;
        }
    }
    state.search();
    Outcome {
        count: state.count,
        solution: state.first,
        guesses: state.guesses,
        gave_up: state.gave_up,
    }
}

impl State<'_> {
    #[inline(always)]
    fn candidates(&self, cell: usize) -> u16 {
        !(self.used_row[cell / 9] | self.used_col[cell % 9] | self.used_box[box_of(cell)]) & ALL
    }

    /// Places `digit` (a one-bit mask) in the empty cell at position `pos` of the empty list.
    #[inline(always)]
    fn place(&mut self, pos: usize, bit: u16) {
        let cell = self.empty[pos] as usize;
        self.used_row[cell / 9] |= bit;
        self.used_col[cell % 9] |= bit;
        self.used_box[box_of(cell)] |= bit;
        self.cells[cell] = bit.trailing_zeros() as u8 + 1;
        self.empty_len -= 1;
        self.empty.swap(pos, self.empty_len);
        self.trail[self.trail_len] = cell as u8;
        self.trail_len += 1;
    }

    /// Undoes placements until the trail is `mark` long.
    #[inline(always)]
    fn undo_to(&mut self, mark: usize) {
        while self.trail_len > mark {
            self.trail_len -= 1;
            let cell = self.trail[self.trail_len] as usize;
            let bit = !(1u16 << (self.cells[cell] - 1));
            self.used_row[cell / 9] &= bit;
            self.used_col[cell % 9] &= bit;
            self.used_box[box_of(cell)] &= bit;
            self.cells[cell] = 0;
            self.empty_len += 1;
        }
    }

    /// Applies naked and hidden singles until none is left. Returns the position in the empty
    /// list of the cell with the fewest candidates, `Some(None)` when solved, `None` on a
    /// contradiction.
    fn propagate(&mut self) -> Option<Option<usize>> {
        loop {
            // Naked singles, and the best branching cell.
            let mut best = None;
            let mut best_count = 10;
            let mut pos = 0;
            let mut placed = false;
            while pos < self.empty_len {
                let cell = self.empty[pos] as usize;
                let cands = self.candidates(cell);
                match cands.count_ones() {
                    0 => return None,
                    1 => {
                        self.place(pos, cands);
                        placed = true;
                        // The cell swapped into `pos` has not been looked at yet.
                        continue;
                    }
                    n if n < best_count => {
                        best_count = n;
                        best = Some(pos);
                    }
                    _ => {}
                }
                pos += 1;
            }
            if self.empty_len == 0 {
                return Some(None);
            }
            if placed {
                continue;
            }
            // Hidden singles: a digit with exactly one place in a unit.
            let mut hidden_found = false;
            for (index, unit) in UNITS.iter().enumerate() {
                let used = match index {
                    0..=8 => self.used_row[index],
                    9..=17 => self.used_col[index - 9],
                    _ => self.used_box[index - 18],
                };
                let mut once = 0u16;
                let mut twice = 0u16;
                for &cell in unit {
                    if self.cells[cell as usize] == 0 {
                        let cands = self.candidates(cell as usize);
                        twice |= once & cands;
                        once |= cands;
                    }
                }
                if (once | used) != ALL {
                    return None; // some digit has no place left in this unit
                }
                let mut hidden = once & !twice;
                while hidden != 0 {
                    let bit = hidden & hidden.wrapping_neg();
                    hidden &= hidden - 1;
                    // No empty cell left for it: an earlier placement in this pass took it.
                    let cell = unit
                        .iter()
                        .map(|&c| c as usize)
                        .find(|&c| self.cells[c] == 0 && self.candidates(c) & bit != 0)?;
                    let pos = self.empty[..self.empty_len]
                        .iter()
                        .position(|&c| c as usize == cell)?;
                    self.place(pos, bit);
                    hidden_found = true;
                }
            }
            if !hidden_found {
                return Some(best);
            }
        }
    }

    /// Depth-first search; returns true when the solution limit is reached.
    fn search(&mut self) -> bool {
        let mark = self.trail_len;
        let pos = match self.propagate() {
            None => {
                self.undo_to(mark);
                return false;
            }
            Some(None) => {
                self.count += 1;
                if self.first.is_none() {
                    self.first = Grid::from_cells(self.cells);
                }
                self.undo_to(mark);
                return self.count >= self.limit;
            }
            Some(Some(pos)) => pos,
        };
        // Move the branching cell to the end of the live list: every placement below it only
        // reorders positions before it, so after undo it is found at the same position again.
        let last = self.empty_len - 1;
        self.empty.swap(pos, last);
        let cell = self.empty[last] as usize;
        let mut cands = self.candidates(cell);
        if cands.count_ones() >= 2 {
            self.guesses += 1;
            if self.budget.is_spent(self.guesses) {
                self.gave_up = true;
                self.undo_to(mark);
                return true;
            }
        }
        while cands != 0 {
            let bit = cands & cands.wrapping_neg();
            cands &= cands - 1;
            let before = self.trail_len;
            self.place(last, bit);
            if self.search() {
                self.undo_to(mark);
                return true;
            }
            self.undo_to(before);
        }
        self.undo_to(mark);
        false
    }
}
