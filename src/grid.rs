//! `Grid`: one 9×9 puzzle or solution; parsing, formatting, clue validation and solution checks.
//!
//! Cells are stored row-major in `[u8; 81]`, `0` for a blank and `1..=9` for a digit. This module
//! is the independent validator: `is_solution_of` and `first_conflict` use plain loops and no
//! solver code, so the golden tests can check every solver against it.

use std::fmt;

/// Number of cells in a grid.
pub const CELLS: usize = 81;

/// A 9×9 Sudoku grid, row-major, `0` for a blank cell.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Grid {
    cells: [u8; CELLS],
}

/// Why a puzzle string could not be read as a grid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The record has the wrong number of cell characters.
    #[error("expected 81 cells, found {found}")]
    WrongLength {
        /// How many cell characters were found.
        found: usize,
    },
    /// A character that is neither a digit nor a blank marker.
    #[error("invalid character {ch:?} at cell {cell} (digits 1-9 and blanks . 0 _ are allowed)")]
    InvalidChar {
        /// 1-based cell position.
        cell: usize,
        /// The offending character.
        ch: char,
    },
}

/// A house (row, column or box) of the grid, numbered 1–9 when displayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Row, 0-based.
    Row(u8),
    /// Column, 0-based.
    Col(u8),
    /// 3×3 box, 0-based, numbered row-major.
    Box(u8),
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Unit::Row(i) => write!(f, "row {}", i + 1),
            Unit::Col(i) => write!(f, "column {}", i + 1),
            Unit::Box(i) => write!(f, "box {}", i + 1),
        }
    }
}

/// A digit that appears twice in one unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("digit {digit} appears twice in {unit}")]
pub struct Conflict {
    /// The repeated digit.
    pub digit: u8,
    /// The unit in which it repeats.
    pub unit: Unit,
}

/// Why a candidate solution is not a solution of a puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SolutionError {
    /// The solution still has blank cells.
    #[error("solution has {blanks} blank cell{}", if *blanks == 1 { "" } else { "s" })]
    Incomplete {
        /// Number of blanks.
        blanks: usize,
    },
    /// The solution breaks a rule.
    #[error("solution breaks the rules: {0}")]
    Broken(Conflict),
    /// The solution changes a clue of the puzzle.
    #[error("solution contradicts the clue {clue} at row {row}, column {col} (has {found})")]
    ClueContradicted {
        /// 1-based row.
        row: usize,
        /// 1-based column.
        col: usize,
        /// The clue digit.
        clue: u8,
        /// The digit found in the solution.
        found: u8,
    },
}

/// The 27 units as lists of cell indices: rows 0–8, columns 9–17, boxes 18–26.
pub const UNITS: [[u8; 9]; 27] = build_units();

const fn build_units() -> [[u8; 9]; 27] {
    let mut units = [[0u8; 9]; 27];
    let mut i = 0;
    while i < 9 {
        let mut j = 0;
        while j < 9 {
            units[i][j] = (i * 9 + j) as u8;
            units[9 + i][j] = (j * 9 + i) as u8;
            let r = (i / 3) * 3 + j / 3;
            let c = (i % 3) * 3 + j % 3;
            units[18 + i][j] = (r * 9 + c) as u8;
            j += 1;
        }
        i += 1;
    }
    units
}

fn unit_of(index: usize) -> Unit {
    match index {
        0..=8 => Unit::Row(index as u8),
        9..=17 => Unit::Col((index - 9) as u8),
        _ => Unit::Box((index - 18) as u8),
    }
}

/// Row of a cell index.
#[inline]
pub const fn row_of(cell: usize) -> usize {
    cell / 9
}

/// Column of a cell index.
#[inline]
pub const fn col_of(cell: usize) -> usize {
    cell % 9
}

/// Box of a cell index (row-major numbering of the 3×3 boxes).
#[inline]
pub const fn box_of(cell: usize) -> usize {
    (cell / 27) * 3 + (cell % 9) / 3
}

/// Maps a puzzle byte to a cell value: `Some(0)` for a blank, `Some(d)` for a digit.
#[inline]
pub const fn cell_value(byte: u8) -> Option<u8> {
    match byte {
        b'1'..=b'9' => Some(byte - b'0'),
        b'.' | b'0' | b'_' => Some(0),
        _ => None,
    }
}

impl Grid {
    /// The empty grid.
    pub const fn empty() -> Self {
        Grid { cells: [0; CELLS] }
    }

    /// Builds a grid from cell values (`0` blank, `1..=9` digits); `None` if any value is above 9.
    pub fn from_cells(cells: [u8; CELLS]) -> Option<Self> {
        // The largest value, not `all`: without its early exit the check is a few vector
        // instructions (the solvers build every solution through here).
        (cells.iter().fold(0, |max, &v| max.max(v)) <= 9).then_some(Grid { cells })
    }

    /// Parses exactly 81 cell characters (`1`–`9`; `.`, `0`, `_` for blanks).
    pub fn from_bytes(text: &[u8]) -> Result<Self, ParseError> {
        if text.len() != CELLS {
            // A line break (a quoted CSV field spanning lines) that comes before any other
            // stray character is named where it is, not counted as a cell.
            if let Some(i) = text.iter().position(|&b| cell_value(b).is_none()) {
                if text[i] == b'\n' || text[i] == b'\r' {
                    return Err(ParseError::InvalidChar {
                        cell: i + 1,
                        ch: text[i] as char,
                    });
                }
            }
            return Err(non_ascii_error(text).unwrap_or(ParseError::WrongLength {
                found: char_count(text),
            }));
        }
        // Branch-free over the 81 bytes (the compiler vectorises it; the reader thread parses
        // every record, so this is on the critical path of `-j N` runs); the error, with its
        // position, is looked for only when some byte is not a cell.
        let mut cells = [0u8; CELLS];
        let mut bad = false;
        for (&byte, cell) in text.iter().zip(cells.iter_mut()) {
            let digit = byte.wrapping_sub(b'0');
            let is_digit = digit <= 9;
            *cell = if is_digit { digit } else { 0 };
            bad |= !(is_digit | (byte == b'.') | (byte == b'_'));
        }
        if bad {
            for (i, &byte) in text.iter().enumerate() {
                if cell_value(byte).is_none() {
                    return Err(ParseError::InvalidChar {
                        cell: i + 1,
                        ch: first_char(&text[i..]),
                    });
                }
            }
        }
        Ok(Grid { cells })
    }

    /// The cell values, row-major, `0` for blanks.
    #[inline]
    pub const fn cells(&self) -> &[u8; CELLS] {
        &self.cells
    }

    /// The value of one cell (`0` for blank).
    #[inline]
    pub fn get(&self, cell: usize) -> u8 {
        self.cells[cell]
    }

    /// Sets one cell (`0` clears it).
    ///
    /// # Panics
    /// If `cell >= 81` or `value > 9`.
    #[inline]
    pub fn set(&mut self, cell: usize, value: u8) {
        assert!(value <= 9, "cell value {value} out of range");
        self.cells[cell] = value;
    }

    /// Number of filled cells.
    pub fn clue_count(&self) -> usize {
        self.cells.iter().filter(|&&v| v != 0).count()
    }

    /// True when no cell is blank.
    pub fn is_complete(&self) -> bool {
        self.cells.iter().all(|&v| v != 0)
    }

    /// Writes the 81-character form (`.` for blanks) into a fixed buffer.
    pub fn to_bytes(&self) -> [u8; CELLS] {
        // Branch-free, so it vectorizes: a blank is `'0' - 2`, which is `'.'`. The conditional
        // store it replaces was half the row formatting of a `solve` run.
        let mut out = [0u8; CELLS];
        for (o, &v) in out.iter_mut().zip(self.cells.iter()) {
            *o = b'0' + v - 2 * u8::from(v == 0);
        }
        out
    }

    /// True when a digit repeats in a row, column or box: the same answer as
    /// `first_conflict().is_some()`. It runs before every baseline solve and in every solution
    /// check, where the plain loops of `first_conflict` cost ~8% of a run.
    ///
    /// Each digit is one bit (a blank none); distinct powers of two sum to their OR, so a unit
    /// repeats a digit exactly when the sum of its bits differs from their OR. Whole rows at a
    /// time, with no store-to-load chain through per-unit masks, so it vectorizes (the
    /// cell-by-cell version with a clash mask was ~4% of a `solve` run in the solution check).
    pub fn has_conflict(&self) -> bool {
        let (mut col_or, mut col_sum) = ([0u16; 9], [0u16; 9]);
        let mut clash = false;
        for band in self.cells.chunks_exact(27) {
            let (mut box_or, mut box_sum) = ([0u16; 3], [0u16; 3]);
            for row in band.chunks_exact(9) {
                // A blank (0) shifts to bit 15, masked off; at most nine bits of 256 per sum.
                let bits: [u16; 9] =
                    std::array::from_fn(|c| (1u16 << (row[c].wrapping_sub(1) & 15)) & 0x1FF);
                let (mut or, mut sum) = (0u16, 0u16);
                for (c, bit) in bits.into_iter().enumerate() {
                    or |= bit;
                    sum += bit;
                    col_or[c] |= bit;
                    col_sum[c] += bit;
                    box_or[c / 3] |= bit;
                    box_sum[c / 3] += bit;
                }
                clash |= or != sum;
            }
            clash |= box_or != box_sum;
        }
        clash | (col_or != col_sum)
    }

    /// The first digit repeated within a row, column or box, if any (rows, then columns, then
    /// boxes; lowest unit first).
    pub fn first_conflict(&self) -> Option<Conflict> {
        if !self.has_conflict() {
            return None;
        }
        self.scan_conflict()
    }

    /// [`Grid::first_conflict`] by plain loops over the units, without the bitmask check: the
    /// independent oracle the fast check is tested against.
    pub(crate) fn scan_conflict(&self) -> Option<Conflict> {
        for (index, unit) in UNITS.iter().enumerate() {
            let mut seen = [false; 10];
            for &cell in unit {
                let digit = self.cells[cell as usize];
                if digit == 0 {
                    continue;
                }
                if seen[digit as usize] {
                    return Some(Conflict {
                        digit,
                        unit: unit_of(index),
                    });
                }
                seen[digit as usize] = true;
            }
        }
        None
    }

    /// Checks that `self` is a complete grid obeying the rules and keeping every clue of `puzzle`.
    pub fn check_solution_of(&self, puzzle: &Grid) -> Result<(), SolutionError> {
        let pairs = || puzzle.cells.iter().zip(self.cells.iter());
        // Branch-free first (both vectorize); the slow path below only names what is wrong.
        let contradicted = pairs().fold(false, |any, (&clue, &found)| {
            any | ((clue != 0) & (clue != found))
        });
        if self.all_units_complete() && !contradicted {
            return Ok(());
        }
        let blanks = self.cells.iter().filter(|&&v| v == 0).count();
        if blanks > 0 {
            return Err(SolutionError::Incomplete { blanks });
        }
        if let Some(conflict) = self.first_conflict() {
            return Err(SolutionError::Broken(conflict));
        }
        for (i, (&clue, &found)) in pairs().enumerate() {
            if clue != 0 && clue != found {
                return Err(SolutionError::ClueContradicted {
                    row: i / 9 + 1,
                    col: i % 9 + 1,
                    clue,
                    found,
                });
            }
        }
        Ok(())
    }

    /// True when every row, column and box holds the nine digits 1-9. Nine cells hold nine
    /// different digits exactly when their digit bits OR to all nine bits, so, unlike
    /// [`Grid::has_conflict`], which must tell a repeat from a blank, this needs no counts: a blank
    /// sets bit 0 and fails the unit.
    fn all_units_complete(&self) -> bool {
        const ALL: u16 = 0x3FE; // bits 1-9
        let mut col_or = [0u16; 9];
        let mut ok = true;
        for band in self.cells.chunks_exact(27) {
            let mut box_or = [0u16; 3];
            for row in band.chunks_exact(9) {
                let bits: [u16; 9] = std::array::from_fn(|c| 1u16 << (row[c] & 15));
                let mut or = 0u16;
                for (c, bit) in bits.into_iter().enumerate() {
                    or |= bit;
                    col_or[c] |= bit;
                    box_or[c / 3] |= bit;
                }
                ok &= or == ALL;
            }
            ok &= box_or == [ALL; 3];
        }
        ok & (col_or == [ALL; 9])
    }

    /// True when `self` is a complete valid solution of `puzzle`.
    pub fn is_solution_of(&self, puzzle: &Grid) -> bool {
        self.check_solution_of(puzzle).is_ok()
    }
}

/// For text of 81 characters but not 81 bytes: the first character that is not a cell.
fn non_ascii_error(text: &[u8]) -> Option<ParseError> {
    let s = std::str::from_utf8(text).ok()?;
    if s.chars().count() != CELLS {
        return None;
    }
    s.chars()
        .enumerate()
        .find(|&(_, ch)| !ch.is_ascii() || cell_value(ch as u8).is_none())
        .map(|(i, ch)| ParseError::InvalidChar { cell: i + 1, ch })
}

fn char_count(text: &[u8]) -> usize {
    match std::str::from_utf8(text) {
        Ok(s) => s.chars().count(),
        Err(_) => text.len(),
    }
}

fn first_char(text: &[u8]) -> char {
    let end = text.len().min(4);
    for len in (1..=end).rev() {
        if let Ok(s) = std::str::from_utf8(&text[..len]) {
            if let Some(c) = s.chars().next() {
                return c;
            }
        }
    }
    char::REPLACEMENT_CHARACTER
}

impl std::str::FromStr for Grid {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Grid::from_bytes(s.as_bytes())
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes = self.to_bytes();
        // The bytes are ASCII digits and dots by construction.
        f.write_str(std::str::from_utf8(&bytes).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({self})")
    }
}

impl Default for Grid {
    fn default() -> Self {
        Grid::empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUZZLE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    const SOLUTION: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    #[test]
    fn fast_parse_agrees_with_cell_value_for_every_byte() {
        for byte in 0..=255u8 {
            for at in [0, 40, 80] {
                let mut text = [b'.'; CELLS];
                text[at] = byte;
                match (Grid::from_bytes(&text), cell_value(byte)) {
                    (Ok(g), Some(v)) => assert_eq!(g.get(at), v, "byte {byte}"),
                    (Err(ParseError::InvalidChar { cell, .. }), None) => assert_eq!(cell, at + 1),
                    (got, want) => panic!("byte {byte} at {at}: {got:?} vs {want:?}"),
                }
            }
        }
    }

    #[test]
    fn parses_and_formats_round_trip() {
        let grid: Grid = PUZZLE.parse().unwrap();
        assert_eq!(grid.to_string(), PUZZLE);
        assert_eq!(&grid.to_bytes()[..], PUZZLE.as_bytes());
        assert_eq!(grid.clue_count(), 30);
        let zeros = PUZZLE.replace('.', "0");
        assert_eq!(zeros.parse::<Grid>().unwrap(), grid);
        let underscores = PUZZLE.replace('.', "_");
        assert_eq!(underscores.parse::<Grid>().unwrap(), grid);
    }

    #[test]
    fn parse_errors_name_the_problem() {
        let cases: &[(&str, ParseError)] = &[
            (&PUZZLE[..80], ParseError::WrongLength { found: 80 }),
            ("", ParseError::WrongLength { found: 0 }),
            (&format!("{PUZZLE}1"), ParseError::WrongLength { found: 82 }),
            (
                &format!("x{}", &PUZZLE[1..]),
                ParseError::InvalidChar { cell: 1, ch: 'x' },
            ),
            (
                &format!("{}é", &PUZZLE[..80]),
                ParseError::InvalidChar { cell: 81, ch: 'é' },
            ),
            // A quoted CSV field spanning lines: the break is named, not counted as a cell,
            // unless another stray character comes first.
            (
                &format!("{}\n{}", &PUZZLE[..40], &PUZZLE[40..]),
                ParseError::InvalidChar { cell: 41, ch: '\n' },
            ),
            (
                &format!("x{}\n{}", &PUZZLE[1..40], &PUZZLE[40..]),
                ParseError::WrongLength { found: 82 },
            ),
        ];
        for (text, want) in cases {
            // 'é' is two bytes: 82 bytes but 81 characters, reported as the bad character
            assert_eq!(
                &Grid::from_bytes(text.as_bytes()).unwrap_err(),
                want,
                "input {text:?}"
            );
        }
        assert_eq!(
            ParseError::WrongLength { found: 80 }.to_string(),
            "expected 81 cells, found 80"
        );
    }

    #[test]
    fn detects_conflicts_in_each_unit_kind() {
        let mut row = Grid::empty();
        row.set(0, 5);
        row.set(8, 5);
        assert_eq!(
            row.first_conflict(),
            Some(Conflict {
                digit: 5,
                unit: Unit::Row(0)
            })
        );
        let mut col = Grid::empty();
        col.set(4, 3);
        col.set(76, 3);
        assert_eq!(
            col.first_conflict(),
            Some(Conflict {
                digit: 3,
                unit: Unit::Col(4)
            })
        );
        let mut bx = Grid::empty();
        bx.set(30, 9);
        bx.set(50, 9);
        assert_eq!(
            bx.first_conflict(),
            Some(Conflict {
                digit: 9,
                unit: Unit::Box(4)
            })
        );
        assert_eq!(
            bx.first_conflict().unwrap().to_string(),
            "digit 9 appears twice in box 5"
        );
        assert_eq!(PUZZLE.parse::<Grid>().unwrap().first_conflict(), None);
    }

    #[test]
    fn complete_grids_conflict_exactly_when_the_plain_scan_says() {
        let solution: Grid = SOLUTION.parse().unwrap();
        assert!(!solution.has_conflict());
        assert!(solution.all_units_complete());
        // Every grid one cell away from the solution, and every swap of two cells in a row.
        let mut changed = 0;
        for cell in 0..CELLS {
            for digit in 1..=9 {
                let mut grid = solution;
                grid.set(cell, digit);
                let clash = grid.has_conflict();
                assert_eq!(clash, grid.scan_conflict().is_some(), "{grid}");
                assert_eq!(grid.all_units_complete(), !clash, "{grid}");
                changed += usize::from(clash);
                // With a blank instead: never complete, whatever else holds.
                grid.set(cell, 0);
                assert!(!grid.all_units_complete(), "{grid}");
            }
            let mut swapped = solution;
            let other = cell / 9 * 9 + (cell + 1) % 9;
            swapped.set(cell, solution.get(other));
            swapped.set(other, solution.get(cell));
            assert!(swapped.has_conflict(), "{swapped}");
            assert!(swapped.scan_conflict().is_some());
            assert!(!swapped.all_units_complete(), "{swapped}");
        }
        assert_eq!(changed, CELLS * 8);
    }

    #[test]
    fn checks_solutions() {
        let puzzle: Grid = PUZZLE.parse().unwrap();
        let solution: Grid = SOLUTION.parse().unwrap();
        assert!(solution.is_solution_of(&puzzle));
        assert!(solution.is_solution_of(&solution));
        assert_eq!(
            puzzle.check_solution_of(&puzzle),
            Err(SolutionError::Incomplete { blanks: 51 })
        );
        let mut swapped = solution;
        swapped.set(0, 3);
        swapped.set(1, 5);
        assert_eq!(
            swapped.check_solution_of(&Grid::empty()),
            Err(SolutionError::Broken(Conflict {
                digit: 3,
                unit: Unit::Col(0)
            }))
        );
        // A valid grid that disagrees with a clue.
        let other: Grid =
            "123456789456789123789123456214365897365897214897214365531642978642978531978531642"
                .parse()
                .unwrap();
        assert!(other.first_conflict().is_none());
        assert!(matches!(
            other.check_solution_of(&puzzle),
            Err(SolutionError::ClueContradicted {
                row: 1,
                col: 1,
                clue: 5,
                found: 1
            })
        ));
    }

    #[test]
    fn unit_table_covers_each_cell_three_times() {
        let mut count = [0; CELLS];
        for unit in UNITS.iter() {
            for &c in unit {
                count[c as usize] += 1;
            }
        }
        assert!(count.iter().all(|&n| n == 3));
        for cell in 0..CELLS {
            assert!(UNITS[row_of(cell)].contains(&(cell as u8)));
            assert!(UNITS[9 + col_of(cell)].contains(&(cell as u8)));
            assert!(UNITS[18 + box_of(cell)].contains(&(cell as u8)));
        }
    }
}
