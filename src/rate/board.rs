//! The candidate grid the rating engine works on: values, per-cell candidate masks and
//! per-digit 81-bit position boards, plus the house and peer geometry.

use crate::Grid;

/// A set of cells as an 81-bit board (bit `i` is cell `i`, row-major).
pub type Cells = u128;

/// All 81 cells.
pub const ALL: Cells = (1u128 << 81) - 1;

/// House index: 0-8 rows, 9-17 columns, 18-26 boxes.
pub type House = usize;

const fn build_houses() -> [Cells; 27] {
    let mut h = [0u128; 27];
    let mut c = 0;
    while c < 81 {
        let r = c / 9;
        let col = c % 9;
        let b = (r / 3) * 3 + col / 3;
        h[r] |= 1u128 << c;
        h[9 + col] |= 1u128 << c;
        h[18 + b] |= 1u128 << c;
        c += 1;
    }
    h
}

/// The cells of each house (rows, then columns, then boxes).
pub static HOUSES: [Cells; 27] = build_houses();

const fn build_peers() -> [Cells; 81] {
    let mut p = [0u128; 81];
    let mut c = 0;
    while c < 81 {
        let r = c / 9;
        let col = c % 9;
        let b = (r / 3) * 3 + col / 3;
        p[c] = (HOUSES[r] | HOUSES[9 + col] | HOUSES[18 + b]) & !(1u128 << c);
        c += 1;
    }
    p
}

/// The 20 peers of each cell (cells sharing a house, the cell excluded).
pub static PEERS: [Cells; 81] = build_peers();

/// Row of a cell.
#[inline]
pub const fn row(c: usize) -> usize {
    c / 9
}
/// Column of a cell.
#[inline]
pub const fn col(c: usize) -> usize {
    c % 9
}
/// Box of a cell.
#[inline]
pub const fn boxof(c: usize) -> usize {
    (c / 27) * 3 + (c % 9) / 3
}
/// The row, column and box house indexes of a cell (a table: the chain runs look them up for
/// every node, and the divisions cost more than the load).
#[inline]
pub fn houses_of(c: usize) -> [House; 3] {
    let h = CELL_HOUSES[c];
    [h[0] as usize, h[1] as usize, h[2] as usize]
}

const fn build_cell_houses() -> [[u8; 4]; 81] {
    let mut t = [[0u8; 4]; 81];
    let mut c = 0;
    while c < 81 {
        t[c] = [row(c) as u8, (9 + col(c)) as u8, (18 + boxof(c)) as u8, 0];
        c += 1;
    }
    t
}

static CELL_HOUSES: [[u8; 4]; 81] = build_cell_houses();

/// The other cells of each cell's box, row and column, in that order (SE's): the chain runs
/// look a digit's places up there for every node.
pub static HOUSE_PEERS: [[Cells; 3]; 81] = build_house_peers();

const fn build_house_peers() -> [[Cells; 3]; 81] {
    let mut t = [[0; 3]; 81];
    let mut c = 0;
    while c < 81 {
        let h = [18 + boxof(c), row(c), 9 + col(c)];
        let mut k = 0;
        while k < 3 {
            t[c][k] = HOUSES[h[k]] & !(1u128 << c);
            k += 1;
        }
        c += 1;
    }
    t
}

/// Each cell's bit in a board (a table load costs less than a 128-bit shift).
static CELL_BIT: [Cells; 81] = build_cell_bits();

const fn build_cell_bits() -> [Cells; 81] {
    let mut t = [0; 81];
    let mut c = 0;
    while c < 81 {
        t[c] = 1u128 << c;
        c += 1;
    }
    t
}

pub(crate) const fn build_house_cells() -> [[u8; 9]; 27] {
    let mut t = [[0u8; 9]; 27];
    let mut h = 0;
    while h < 27 {
        let mut i = 0;
        let mut c = 0;
        while c < 81 {
            if HOUSES[h] >> c & 1 != 0 {
                t[h][i] = c as u8;
                i += 1;
            }
            c += 1;
        }
        h += 1;
    }
    t
}

/// The cells of each house, lowest first: bit `i` of a house's [`Board::house_places`] mask is
/// cell `HOUSE_CELLS[h][i]`.
pub static HOUSE_CELLS: [[u8; 9]; 27] = build_house_cells();

const fn build_pop9() -> [u8; 512] {
    let mut t = [0u8; 512];
    let mut m = 0;
    while m < 512 {
        t[m] = (m as u32).count_ones() as u8;
        m += 1;
    }
    t
}

static POP9: [u8; 512] = build_pop9();

/// Number of bits of a nine-bit mask (a digit mask, or places in a house): a table, since the
/// portable x86-64 build has no popcount instruction.
#[inline]
pub fn count9(m: u16) -> usize {
    POP9[m as usize & 511] as usize
}

/// Number of cells in a board.
#[inline]
pub fn count(b: Cells) -> u32 {
    b.count_ones()
}

/// Whether a board holds more than `n` cells. Without a popcount instruction (the portable
/// x86-64 build) a count costs a dozen operations per word; this clears the lowest `n` cells.
#[inline]
pub fn more_than(b: Cells, n: u32) -> bool {
    let mut b = b;
    for _ in 0..n {
        b &= b.wrapping_sub(1);
    }
    b != 0
}

/// Whether a board holds exactly one cell.
#[inline]
pub fn single(b: Cells) -> bool {
    b != 0 && !more_than(b, 1)
}

/// Whether cell `c` is in board `b`: one word picked and shifted, cheaper than building a
/// 128-bit mask.
#[inline]
pub fn holds(b: Cells, c: usize) -> bool {
    let w = if c < 64 { b as u64 } else { (b >> 64) as u64 };
    w >> (c & 63) & 1 != 0
}

/// Whether a board holds exactly two cells.
#[inline]
pub fn two(b: Cells) -> bool {
    let rest = b & b.wrapping_sub(1);
    rest != 0 && rest & rest.wrapping_sub(1) == 0
}

/// Whether a digit mask holds exactly one digit (without a count, as [`more_than`]).
#[inline]
pub fn one_digit(m: u16) -> bool {
    m != 0 && m & (m - 1) == 0
}

/// Whether a digit mask holds exactly two digits (without a count, as [`more_than`]).
#[inline]
pub fn two_digits(m: u16) -> bool {
    let rest = m & m.wrapping_sub(1);
    rest != 0 && rest & (rest - 1) == 0
}

/// Iterates over the cells of a board, lowest first, one 64-bit word at a time (a 128-bit
/// "clear the lowest bit" and zero test cost twice the instructions).
#[derive(Clone, Copy)]
pub struct Iter {
    lo: u64,
    hi: u64,
}
impl Iterator for Iter {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.lo != 0 {
            let c = self.lo.trailing_zeros() as usize;
            self.lo &= self.lo - 1;
            return Some(c);
        }
        if self.hi != 0 {
            let c = self.hi.trailing_zeros() as usize + 64;
            self.hi &= self.hi - 1;
            return Some(c);
        }
        None
    }
}

/// Iterates over the cells of a board.
#[inline]
pub fn cells(b: Cells) -> Iter {
    Iter {
        lo: b as u64,
        hi: (b >> 64) as u64,
    }
}

/// Iterates over the digits (1-9) of a candidate mask (bit `d-1` is digit `d`).
#[inline]
pub fn digits(mask: u16) -> impl Iterator<Item = u8> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let d = m.trailing_zeros() as u8 + 1;
            m &= m - 1;
            Some(d)
        }
    })
}

/// The candidate-mask bit of a digit.
#[inline]
pub const fn bit(d: u8) -> u16 {
    1 << (d - 1)
}

/// Cell name like `r3c5`.
pub fn cell_name(c: usize) -> String {
    format!("r{}c{}", row(c) + 1, col(c) + 1)
}

/// The cells of board `p` in house `h`, as a nine-bit mask over the house's cells in
/// [`HOUSE_CELLS`] order, gathered without a branch on the cells.
#[inline]
pub fn places(p: Cells, h: House) -> u16 {
    match h / 9 {
        0 => row_places(p, h),
        1 => column_places(p, h - 9),
        _ => box_places(p, h - 18),
    }
}

/// The cells of house `h` that the nine-bit mask `m` (from [`places`]) holds.
pub fn house_cells(h: House, m: u16) -> Cells {
    let mut out: Cells = 0;
    for i in digits(m) {
        out |= 1 << HOUSE_CELLS[h][i as usize - 1];
    }
    out
}

/// [`places`] in row `r`: one shift.
#[inline]
fn row_places(p: Cells, r: usize) -> u16 {
    (p >> (9 * r)) as u16 & 0x1ff
}

/// [`places`] in column `col`. The column's cells lie 9 bits apart: the first eight are
/// gathered by a multiply (each lands on its own bit of the top byte, and no two partial
/// products share a bit, so nothing carries), the ninth is bit 72.
#[inline]
fn column_places(p: Cells, col: usize) -> u16 {
    let x = p >> col;
    let lo = (x as u64 & 0x8040_2010_0804_0201).wrapping_mul(0x0101_0101_0101_0101);
    (lo >> 56) as u16 | ((x >> 64) as u16 & 0x100)
}

/// [`places`] in box `bx`: its three rows' three-bit pieces.
#[inline]
fn box_places(p: Cells, bx: usize) -> u16 {
    let x = (p >> (27 * (bx / 3) + 3 * (bx % 3))) as u64;
    (x & 7 | (x >> 6) & 0o70 | (x >> 12) & 0o700) as u16
}

/// A pencil-mark grid: placed values and the remaining candidates of each empty cell.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Board {
    /// Placed value of each cell, 0 if empty.
    pub value: [u8; 81],
    /// Candidate mask of each empty cell (bit `d-1` = digit `d`); 0 for placed cells.
    pub cand: [u16; 81],
    /// For each digit (index `d-1`), the empty cells where it is still a candidate.
    pub pos: [Cells; 9],
    /// The empty cells.
    pub empty: Cells,
}

impl Board {
    /// Builds the candidate grid of a puzzle: every empty cell gets each digit that none of its
    /// peers holds.
    pub fn new(puzzle: &Grid) -> Board {
        let mut b = Board {
            value: [0; 81],
            cand: [0; 81],
            pos: [0; 9],
            empty: 0,
        };
        // The digits each house holds (bit `d`, so a blank's bit 0 falls away), then each empty
        // cell's candidates from its three houses: no data-dependent branch per peer.
        let mut held = [0u16; 27];
        for c in 0..81 {
            let v = puzzle.get(c);
            b.value[c] = v;
            b.empty |= u128::from(v == 0) << c;
            for h in houses_of(c) {
                held[h] |= 1 << v;
            }
        }
        for c in cells(b.empty) {
            let [r, k, x] = houses_of(c);
            let m = !((held[r] | held[k] | held[x]) >> 1) & 0x1ff;
            b.cand[c] = m;
            for d in digits(m) {
                b.pos[d as usize - 1] |= 1 << c;
            }
        }
        b
    }

    /// Builds a board from explicit candidate masks (0 = placed, with `values` giving the digit).
    pub fn from_parts(value: [u8; 81], cand: [u16; 81]) -> Board {
        let mut b = Board {
            value,
            cand: [0; 81],
            pos: [0; 9],
            empty: 0,
        };
        for c in 0..81 {
            if value[c] == 0 {
                b.empty |= 1 << c;
                b.cand[c] = cand[c];
                for d in digits(cand[c]) {
                    b.pos[d as usize - 1] |= 1 << c;
                }
            }
        }
        b
    }

    /// Whether every cell holds a value.
    #[inline]
    pub fn solved(&self) -> bool {
        self.empty == 0
    }

    /// Cells of `house` where `d` is a candidate.
    #[inline]
    pub fn pos_in(&self, d: u8, house: House) -> Cells {
        self.pos[d as usize - 1] & HOUSES[house]
    }

    /// The places of each digit (index `d-1`) in house `h`: [`places`] of the digits' boards
    /// (not a loop over each cell's candidates, whose exits mispredict).
    #[inline]
    pub fn house_places(&self, h: House) -> [u16; 9] {
        // One match per house, not per digit.
        let mut out = [0u16; 9];
        match h / 9 {
            0 => out
                .iter_mut()
                .zip(&self.pos)
                .for_each(|(o, &p)| *o = row_places(p, h)),
            1 => out
                .iter_mut()
                .zip(&self.pos)
                .for_each(|(o, &p)| *o = column_places(p, h - 9)),
            _ => out
                .iter_mut()
                .zip(&self.pos)
                .for_each(|(o, &p)| *o = box_places(p, h - 18)),
        }
        out
    }

    /// The places of digit `d` in each row (columns first when `by_col`) as nine-bit masks:
    /// bit `i` of line `j`'s mask is the line's `i`-th cell, that is, the cell where it crosses
    /// line `i` of the other kind.
    #[inline]
    pub fn line_places(&self, d: u8, by_col: bool) -> [u16; 9] {
        let p = self.pos[d as usize - 1];
        if by_col {
            std::array::from_fn(|col| column_places(p, col))
        } else {
            std::array::from_fn(|row| row_places(p, row))
        }
    }

    /// Whether `d` is a candidate of cell `c`.
    #[inline]
    pub fn has(&self, c: usize, d: u8) -> bool {
        self.cand[c] & bit(d) != 0
    }

    /// Removes candidate `d` from cell `c` (no-op if absent).
    #[inline]
    pub fn eliminate(&mut self, c: usize, d: u8) {
        self.cand[c] &= !bit(d);
        self.pos[d as usize - 1] &= !CELL_BIT[c];
    }

    /// Places `d` in `c` and removes `d` from the candidates of its peers.
    pub fn place(&mut self, c: usize, d: u8) {
        for e in digits(self.cand[c]) {
            self.pos[e as usize - 1] &= !(1u128 << c);
        }
        self.cand[c] = 0;
        self.value[c] = d;
        self.empty &= !(1u128 << c);
        let hit = self.pos[d as usize - 1] & PEERS[c];
        for p in cells(hit) {
            self.cand[p] &= !bit(d);
        }
        self.pos[d as usize - 1] &= !hit;
    }

    /// The cells holding exactly two candidates.
    pub fn bivalue(&self) -> Cells {
        let mut b = 0;
        for c in cells(self.empty) {
            if two_digits(self.cand[c]) {
                b |= 1 << c;
            }
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_than_single_and_two_agree_with_the_count() {
        let mut x = 0x9E37_79B9_7F4A_7C15_u64;
        for _ in 0..2000 {
            // Boards of every density: a random mask thinned by a random number of ANDs.
            let mut b: Cells = ALL;
            for _ in 0..(x % 7) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b &= u128::from(x) << 64 | u128::from(x.rotate_left(29));
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for n in 0..5 {
                assert_eq!(more_than(b, n), count(b) > n, "{b:x} {n}");
            }
            assert_eq!(single(b), count(b) == 1, "{b:x}");
            assert_eq!(two(b), count(b) == 2, "{b:x}");
            for c in 0..81 {
                assert_eq!(holds(b, c), b & 1 << c != 0, "{b:x} {c}");
            }
            let m = b as u16 & 0x1ff;
            assert_eq!(two_digits(m), m.count_ones() == 2, "{m:x}");
            assert_eq!(one_digit(m), m.count_ones() == 1, "{m:x}");
            assert!(single(b & b.wrapping_neg()) || b == 0);
        }
    }

    #[test]
    fn geometry_tables() {
        assert!(HOUSES.iter().all(|&h| count(h) == 9));
        assert!(PEERS.iter().all(|&p| count(p) == 20));
        assert_eq!(houses_of(40), [4, 13, 22]);
        for c in 0..81 {
            // Each of a cell's houses holds it, and its peers are their other cells.
            let hs = houses_of(c);
            assert!(hs.iter().all(|&h| HOUSES[h] >> c & 1 == 1), "{c}");
            assert_eq!(
                hs.map(|h| HOUSES[h]).into_iter().fold(0, |a, h| a | h),
                PEERS[c] | 1 << c
            );
            // In the order row, column, box.
            assert!(
                hs[0] < 9 && (9..18).contains(&hs[1]) && hs[2] >= 18,
                "{c}: {hs:?}"
            );
            assert_eq!((hs[0], hs[1] - 9, hs[2] - 18), (row(c), col(c), boxof(c)));
        }
        assert_eq!(boxof(80), 8);
        assert_eq!(cell_name(10), "r2c2");
    }

    #[test]
    fn place_clears_the_digit_from_peers_and_the_cell() {
        let mut b = Board::from_parts([0; 81], [0x1ff; 81]);
        b.place(0, 5);
        assert_eq!(b.value[0], 5);
        assert!(!b.solved());
        assert_eq!(b.cand[0], 0);
        assert_eq!(b.pos[4] & PEERS[0], 0);
        assert_eq!(count(b.pos[4]), 80 - 20);
        assert!(cells(PEERS[0]).all(|p| !b.has(p, 5) && b.cand[p].count_ones() == 8));
        b.eliminate(80, 1);
        assert!(!b.has(80, 1) && b.pos[0] & (1 << 80) == 0);
    }

    /// The candidate grid of a 30-clue puzzle.
    fn example_board() -> Board {
        let g: crate::Grid =
            "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
                .parse()
                .unwrap();
        Board::new(&g)
    }

    #[test]
    fn house_and_line_places_agree_with_the_boards() {
        let b = example_board();
        for h in 0..27 {
            let hp = b.house_places(h);
            for d in 1..=9u8 {
                let mut want: Cells = 0;
                for i in 0..9 {
                    if hp[d as usize - 1] >> i & 1 != 0 {
                        want |= 1 << HOUSE_CELLS[h][i];
                    }
                }
                assert_eq!(want, b.pos_in(d, h), "house {h}, digit {d}");
                assert_eq!(house_cells(h, hp[d as usize - 1]), want);
                assert_eq!(places(b.pos[d as usize - 1], h), hp[d as usize - 1]);
                assert_eq!(count9(hp[d as usize - 1]), count(want) as usize);
            }
        }
        for d in 1..=9u8 {
            for (by_col, first) in [(false, 0), (true, 9)] {
                let lines = b.line_places(d, by_col);
                for (j, &m) in lines.iter().enumerate() {
                    assert_eq!(m, b.house_places(first + j)[d as usize - 1]);
                }
            }
        }
    }

    #[test]
    fn new_board_has_the_candidates_the_clues_allow() {
        let b = example_board();
        assert_eq!(count(b.empty), 81 - 30);
        // r1c3 sees 5, 3, 7 (row), 8 (column), 9, 6 (box): candidates 1, 2, 4.
        assert_eq!(b.cand[2], bit(1) | bit(2) | bit(4));
        for d in 1..=9u8 {
            for c in cells(b.pos[d as usize - 1]) {
                assert!(b.has(c, d));
            }
        }
    }
}
