//! The default solver: per-digit, band-wise bitboards in the JCZSolve family.
//!
//! The design, the measurements behind it, and what was tried and dropped are in
//! `docs/SOLVER.md`.
//!
//! # State
//! For every digit `d` and band `b` (three rows), `cand[b*9+d]` is a 27-bit mask of the band's
//! cells where `d` can still go (bit `row_in_band*9 + col`). A solved cell keeps its bit in its
//! own digit's board only. Beside the boards: `unsolved[b]` (cells not yet fixed) and `open[k]`
//! (bit `row_in_band`: board `k`'s digit not yet placed in that row; per board, so the update
//! loop needs no division to find it), plus `dirty`, one bit per board changed since it was
//! last propagated, so only those are looked at again, and `touched`, one bit per digit for the
//! column checks below. The whole state is 156 bytes of plain integers: a branch is a `Copy` on
//! the stack, never a heap allocation, and nothing is ever undone.
//!
//! # Propagation, per changed board (one digit, one band)
//! 1. **Locked candidates inside the band.** The board shrinks to a 3×3 "minirow" occupancy
//!    (row × box). A digit needs one minirow per row and a different box per row, i.e. one of
//!    six permutations. [`LOCKED`] maps the occupancy to the union of the permutations that fit
//!    (expanded back to cells); the board is masked with it. This is pointing *and* claiming
//!    along rows, plus hidden singles in boxes (a box with one cell forces its row), in one
//!    table lookup. An empty union is a contradiction.
//! 2. **Row singles.** A not-yet-placed row with one cell left is placed: the cell is removed
//!    from the other digits' boards, and the digit from the column in the two other bands.
//!
//! When no board changes any more, **naked singles** (cells in exactly one board) are found
//! with a bit-parallel "once / twice" count over the nine boards of each band, which also
//! finds cells with no candidate at all. Then, for each digit whose boards changed since it was
//! last looked at (`touched`), the columns: **locked candidates down each stack** (the same
//! permutation rule, [`STACK`], on the band × column occupancy of each stack) and **hidden
//! singles in columns** (a once/twice count over the nine rows). Propagation repeats until
//! nothing changes.
//!
//! # Search
//! The branching cell is a bivalue cell when one exists (two alternatives), the one with the
//! highest score: its unsolved peers (a "degree" rule) plus its failed branches so far (the
//! branches on it whose propagation met a contradiction at once, `Search::failures`);
//! otherwise the cell with the fewest candidates, ties again to the highest score. Every
//! alternative but the last is tried on a copy of the state; the last one continues in place.
//! A guess is counted per branch point with two or more candidates, as in every other solver.
//!
//! # Start and CPU features
//! The clues are placed in bulk ([`State::from_clues`]), which also detects clues that conflict
//! (no separate scan of the grid). On x86-64 CPUs with the x86-64-v3 bit instructions, a second
//! copy of the whole search, compiled with them, is chosen at run time ([`solve`]); in it
//! [`clear8`] updates a band's eight boards with AVX2, the column rules run on eight digits at
//! once ([`State::column_singles_avx2`]), so do the first rounds of the band update before
//! the first propagation ([`State::first_round_avx2`]), a cell's digits are gathered by one
//! AVX2 shift and sign-bit mask ([`State::digits`]), the solution grid is spread from four bit
//! planes per band by byte shuffles ([`grid_avx2`]), and, where `pext` is fast, [`shrink`] is
//! one BMI2 `pext` instead of three table lookups. All copies give identical results (tested).
//!
//! The copies are the type parameter `C:` [`Cpu`] of the code below, a zero-sized token
//! carried in the [`State`]. The AVX2 and BMI2 code takes a [`V3`] or [`V3Pext`] token, which
//! only CPU detection can make ([`cpu`]), so safe code cannot run it on a CPU without those
//! instructions.

// Bit-board code mixes shifts, masks and ors throughout; Rust's precedence (shifts and `&`
// before `|`) is relied on deliberately, as in C bitboard code.
#![allow(clippy::precedence)]

mod cpu;

pub(super) use cpu::runtime_features;
use cpu::{Cpu, Level};
#[cfg(target_arch = "x86_64")]
use cpu::{V3Pext, V3};

use super::{Budget, Outcome};
use crate::grid::{Grid, CELLS};

/// All 27 cells of a band.
const BAND: u32 = (1 << 27) - 1;
/// One column of a band: the same column bit in each of its three rows.
const COL: u32 = 1 | 1 << 9 | 1 << 18;
/// Boards, indexed `b*9 + d` (band-major).
const BOARDS: usize = 27;

/// `MINIROWS[row9]`: which of the three minirows (boxes) of a 9-bit row have a candidate.
const MINIROWS: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut x = 0;
    while x < 512 {
        t[x] =
            ((x & 7 != 0) as u32) | ((x & 0o70 != 0) as u32) << 1 | ((x & 0o700 != 0) as u32) << 2;
        x += 1;
    }
    t
};

/// `LOCKED[occupancy]`: for a 9-bit minirow occupancy (bit `row*3 + box`), the cells of the
/// minirows used by at least one permutation (one minirow per row, distinct boxes) that fits
/// the occupancy; `0` when none fits.
const LOCKED: [u32; 512] = {
    const PERMS: [[usize; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut t = [0u32; 512];
    let mut occ = 0;
    while occ < 512 {
        let mut union = 0u32;
        let mut p = 0;
        while p < 6 {
            let perm = PERMS[p];
            let bits = 1 << perm[0] | 1 << (3 + perm[1]) | 1 << (6 + perm[2]);
            if occ & bits == bits {
                union |= 7 << (3 * perm[0]) | 7 << (9 + 3 * perm[1]) | 7 << (18 + 3 * perm[2]);
            }
            p += 1;
        }
        t[occ] = union;
        occ += 1;
    }
    t
};

/// `STACK[occupancy]`: the same permutation rule seen down a stack: for a 9-bit occupancy with
/// bit `band*3 + column_in_stack` (the box of that band has a candidate in that column), the
/// (band, column) pairs used by some fitting permutation, same bit layout; `0` when none fits.
const STACK: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut occ = 0;
    while occ < 512 {
        let cells = LOCKED[occ];
        let mut bit = 0;
        while bit < 9 {
            if cells >> (bit / 3 * 9 + bit % 3 * 3) & 7 != 0 {
                t[occ] |= 1 << bit;
            }
            bit += 1;
        }
        occ += 1;
    }
    t
};

/// `PEERS[i]`: the other cells of the band in the same row or box as band cell `i`.
const PEERS: [u32; 27] = {
    let mut t = [0u32; 27];
    let mut i = 0;
    while i < 27 {
        let row = 0x1FF << (i / 9 * 9);
        let boxc = 0o7007007 << (i % 9 / 3 * 3);
        t[i] = (row | boxc) & !(1 << i);
        i += 1;
    }
    t
};

/// `OTHER_COLUMN[i]`: the column of band cell `i` in two other bands held side by side in a
/// `u64` (bits 0-26 and 32-58), as [`State::branch_cell`] holds them.
const OTHER_COLUMN: [u64; 27] = {
    let mut t = [0u64; 27];
    let mut i = 0;
    while i < 27 {
        t[i] = ((COL as u64) << (i % 9)) * (1 | 1 << 32);
        i += 1;
    }
    t
};

/// `ROWS[m]`: the cells of the band rows selected by the 3-bit mask `m`.
const ROWS: [u32; 8] = {
    let mut t = [0u32; 8];
    let mut m = 0;
    while m < 8 {
        t[m] = (m as u32 & 1) * 0x1FF
            | (m as u32 >> 1 & 1) * 0x1FF << 9
            | (m as u32 >> 2) * 0x1FF << 18;
        m += 1;
    }
    t
};

/// `BOXES[m]`: the cells of the band's boxes selected by the 3-bit mask `m`.
const BOXES: [u32; 8] = {
    let mut t = [0u32; 8];
    let mut m = 0;
    while m < 8 {
        let mut k = 0;
        while k < 3 {
            if m >> k & 1 != 0 {
                t[m] |= 0o7007007 << (3 * k);
            }
            k += 1;
        }
        m += 1;
    }
    t
};

/// Rounds of [`State::first_round_avx2`] before the first propagation: each does the work of
/// a visit to every board of digits 1-8 at once, where the puzzle's clues leave most boards to
/// visit and most of the cells to place. One to three rounds measure the same within noise.
const FIRST_ROUNDS: usize = 2;

/// Removes `cells` from each of eight boards; bit `e` of the result says board `e` changed.
#[inline(always)]
fn clear8<C: Cpu>(cpu: C, block: &mut [u32; 8], cells: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(v3) = cpu.v3() {
            // SAFETY: a `V3` token exists, so the CPU has AVX2 (see `cpu`).
            return unsafe { clear8_avx2(v3, block, cells) };
        }
    }
    let mut changed = 0u32;
    for (e, x) in block.iter_mut().enumerate() {
        changed |= u32::from(*x & cells != 0) << e;
        *x &= !cells;
    }
    changed
}

/// [`clear8`] in three AVX2 instructions plus a load and a store.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn clear8_avx2(_: V3, block: &mut [u32; 8], cells: u32) -> u32 {
    use std::arch::x86_64::*;
    let ptr = block.as_mut_ptr().cast::<__m256i>();
    let mask = _mm256_set1_epi32(cells as i32);
    // SAFETY: `ptr` covers exactly the 32 bytes of `block`, which we borrow mutably; the
    // unaligned load has no alignment requirement.
    let old = unsafe { _mm256_loadu_si256(ptr) };
    // SAFETY: as for the load: the 32 bytes of `block`, no alignment requirement.
    unsafe { _mm256_storeu_si256(ptr, _mm256_andnot_si256(mask, old)) };
    let untouched = _mm256_cmpeq_epi32(_mm256_and_si256(old, mask), _mm256_setzero_si256());
    !(_mm256_movemask_ps(_mm256_castsi256_ps(untouched)) as u32) & 0xFF
}

/// Bit `i` of each of nine boards, as a 9-bit mask: the first eight by one AVX2 shift that
/// moves bit `i` to the sign bit and one sign-bit gather, the ninth by itself.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn digits_avx2(_: V3, boards: &[u32; 9], i: usize) -> u32 {
    use std::arch::x86_64::*;
    // SAFETY: the first 32 bytes of `boards` are readable; the load has no alignment need.
    let v = unsafe { _mm256_loadu_si256(boards.as_ptr().cast::<__m256i>()) };
    let up = _mm256_sll_epi32(v, _mm_cvtsi32_si128(31 - i as i32));
    _mm256_movemask_ps(_mm256_castsi256_ps(up)) as u32 | (boards[8] >> i & 1) << 8
}

/// The cells of a solved state (each band cell in exactly one of the band's nine boards):
/// per band, the digit's four bits as four 27-bit planes (bit `j` of cell `i` set when the
/// board holding cell `i` belongs to a digit with bit `j`), each spread to one byte per cell
/// by a byte shuffle and compare, and or-ed together. No branch on the data, against the
/// bit-scan loop's 81 poorly predicted iterations.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn grid_avx2(_: V3, cand: &[u32; BOARDS]) -> [u8; CELLS] {
    use std::arch::x86_64::*;
    // Byte `i` of the band takes byte `i / 8` of the plane and tests bit `i % 8` of it.
    let pick = _mm256_setr_epi8(
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3,
        3, 3,
    );
    let bit = _mm256_set1_epi64x(0x8040_2010_0804_0201u64 as i64);
    // Three bands of 27 bytes, the last 32-byte store reaching past cell 81.
    let mut out = [0u8; 2 * 27 + 32];
    for (b, boards) in cand.chunks_exact(9).enumerate() {
        // Digit `d + 1`'s bits: 1 for d = 0, 2, 4, 6, 8; 2 for 1, 2, 5, 6; 4 for 3..=6;
        // 8 for 7, 8.
        let planes = [
            boards[0] | boards[2] | boards[4] | boards[6] | boards[8],
            boards[1] | boards[2] | boards[5] | boards[6],
            boards[3] | boards[4] | boards[5] | boards[6],
            boards[7] | boards[8],
        ];
        let mut acc = _mm256_setzero_si256();
        for (j, &plane) in planes.iter().enumerate() {
            let bytes = _mm256_shuffle_epi8(_mm256_set1_epi32(plane as i32), pick);
            let set = _mm256_cmpeq_epi8(_mm256_and_si256(bytes, bit), bit);
            acc = _mm256_or_si256(acc, _mm256_and_si256(set, _mm256_set1_epi8(1 << j)));
        }
        // SAFETY: bytes `27 * b .. 27 * b + 32` lie inside `out` (86 bytes); no alignment need.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(27 * b).cast(), acc) };
    }
    out[..CELLS].try_into().unwrap()
}

/// Each digit's clue cells per band: index `band*9 + d` (as the boards), bit
/// `row_in_band*9 + col`.
#[inline(always)]
fn clue_masks<C: Cpu>(cpu: C, puzzle: &Grid) -> [u32; 27] {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(v3) = cpu.v3() {
            // SAFETY: a `V3` token exists, so the CPU has AVX2 (see `cpu`).
            return unsafe { clue_masks_avx2(v3, puzzle.cells()) };
        }
    }
    // Index `b*10 + 9` collects band `b`'s blanks, so the loop has no branch on the cell's
    // content.
    let mut clues = [0u32; 30];
    for (i, &v) in puzzle.cells().iter().enumerate() {
        let d = usize::from(v).wrapping_sub(1).min(9);
        clues[i / 27 * 10 + d] |= 1 << (i % 27);
    }
    std::array::from_fn(|k| clues[k / 9 * 10 + k % 9])
}

/// [`clue_masks`] by byte compares: per digit, three 32-byte compares and sign-bit gathers
/// give its 81 cells as one 128-bit mask, cut into bands.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn clue_masks_avx2(_: V3, cells: &[u8; CELLS]) -> [u32; 27] {
    use std::arch::x86_64::*;
    // SAFETY: bytes 0..32, 32..64 and 49..81 of the 81-byte array are readable; the loads
    // have no alignment need. (The last load overlaps the second to stay inside the array.)
    let (a, b, c) = unsafe {
        let p = cells.as_ptr();
        (
            _mm256_loadu_si256(p.cast()),
            _mm256_loadu_si256(p.add(32).cast()),
            _mm256_loadu_si256(p.add(CELLS - 32).cast()),
        )
    };
    let mut clues = [0u32; 27];
    for d in 0..9 {
        let digit = _mm256_set1_epi8(d as i8 + 1);
        let bits = |v| _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, digit)) as u32;
        // Cells 0..32, 32..64, and 64..81 (the last load starts at cell 49).
        let all = u128::from(bits(a))
            | u128::from(bits(b)) << 32
            | u128::from(bits(c) >> (64 - (CELLS - 32))) << 64;
        for band in 0..3 {
            clues[band * 9 + d] = (all >> (27 * band)) as u32 & BAND;
        }
    }
    clues
}

/// The boards and open rows of digits 1-8 from their clues ([`State::from_clues`] for eight
/// digits at once, one AVX2 lane per digit); false when two clues of a digit share a unit.
/// Per band and row of a digit's clues, with the row as a 9-bit value: two clues in the row
/// when clearing its lowest bit leaves any; two in a column when the row meets the columns
/// of the rows before it; two in a box when the row's minirow occupancy meets the band's
/// rows before it. Then each board is the band's unfilled cells minus the rows, boxes and
/// columns the digit holds, plus its own clues.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn place_clues8_avx2(
    _: V3,
    clues: &[u32; BOARDS],
    cand: &mut [u32; BOARDS],
    open: &mut [u8; BOARDS],
    unsolved: [u32; 3],
) -> bool {
    use std::arch::x86_64::*;
    let set = |v: u32| _mm256_set1_epi32(v as i32);
    let (or, and) = (|a, b| _mm256_or_si256(a, b), |a, b| _mm256_and_si256(a, b));
    let (m9, low2, top) = (set(0x1FF), set(0o333), set(0o444));
    // SAFETY: each band's first eight masks are 32 readable bytes; no alignment need.
    let x: [__m256i; 3] =
        std::array::from_fn(|b| unsafe { _mm256_loadu_si256(clues[b * 9..].as_ptr().cast()) });
    let (mut dup, mut col_once, mut col_twice) = (set(0), set(0), set(0));
    let mut box_cells = [set(0); 3];
    let mut row_cells = [set(0); 3];
    for b in 0..3 {
        let (mut box_once, mut box_twice) = (set(0), set(0));
        for r in 0..3 {
            let row = and(_mm256_srlv_epi32(x[b], set(9 * r)), m9);
            dup = or(dup, and(row, _mm256_sub_epi32(row, set(1))));
            col_twice = or(col_twice, and(col_once, row));
            col_once = or(col_once, row);
            // Bits 2, 5, 8: the minirows (boxes) of the row that hold a clue.
            let minis = and(or(_mm256_add_epi32(and(row, low2), low2), row), top);
            box_twice = or(box_twice, and(box_once, minis));
            box_once = or(box_once, minis);
            // The whole row, where it holds a clue.
            let full = _mm256_cmpeq_epi32(row, set(0));
            row_cells[b] = or(
                row_cells[b],
                _mm256_andnot_si256(full, set(0x1FF << (9 * r))),
            );
        }
        dup = or(dup, box_twice);
        // Bits 2, 5, 8 to the boxes' cells in all three rows: bit 3k to the minirow's three
        // cells (times 7), then to each row (times `COL`).
        let corners = _mm256_srli_epi32::<2>(box_once);
        let minirow = _mm256_sub_epi32(_mm256_slli_epi32::<3>(corners), corners);
        box_cells[b] = or(
            minirow,
            or(
                _mm256_slli_epi32::<9>(minirow),
                _mm256_slli_epi32::<18>(minirow),
            ),
        );
    }
    dup = or(dup, col_twice);
    if _mm256_testz_si256(dup, dup) == 0 {
        return false;
    }
    let col_cells = or(
        col_once,
        or(
            _mm256_slli_epi32::<9>(col_once),
            _mm256_slli_epi32::<18>(col_once),
        ),
    );
    for b in 0..3 {
        let taken = or(row_cells[b], or(box_cells[b], col_cells));
        let board = or(_mm256_andnot_si256(taken, set(unsolved[b])), x[b]);
        // SAFETY: each band's first eight boards are 32 writable bytes; no alignment need.
        unsafe { _mm256_storeu_si256(cand[b * 9..].as_mut_ptr().cast(), board) };
        // Open rows: bit r where row r of the band holds no clue of the digit.
        let mut rows = [0u32; 8];
        let compact = or(
            and(row_cells[b], set(1)),
            or(
                and(_mm256_srli_epi32::<8>(row_cells[b]), set(2)),
                and(_mm256_srli_epi32::<16>(row_cells[b]), set(4)),
            ),
        );
        // SAFETY: `rows` is 32 writable bytes; no alignment need.
        unsafe { _mm256_storeu_si256(rows.as_mut_ptr().cast(), compact) };
        for (d, &r) in rows.iter().enumerate() {
            open[b * 9 + d] = (!r & 7) as u8;
        }
    }
    true
}

/// Minirow occupancy of a band board: bit `row*3 + box`.
#[inline(always)]
fn shrink<C: Cpu>(cpu: C, x: u32) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(pext) = cpu.pext() {
            // SAFETY: a `V3Pext` token exists, so the CPU has BMI2 (see `cpu`).
            return unsafe { shrink_bmi2(pext, x) };
        }
    }
    // The masks cost nothing but let the compiler drop the bounds checks.
    (MINIROWS[(x & 0x1FF) as usize]
        | MINIROWS[(x >> 9 & 0x1FF) as usize] << 3
        | MINIROWS[(x >> 18 & 0x1FF) as usize] << 6) as usize
        & 0x1FF
}

/// [`shrink`] with one BMI2 bit gather: or each minirow's three cells into its first cell,
/// then collect those nine bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
#[inline]
fn shrink_bmi2(_: V3Pext, x: u32) -> usize {
    (std::arch::x86_64::_pext_u32(x | x >> 1 | x >> 2, 0o111_111_111) & 0x1FF) as usize
}

/// Rows (3-bit) in which a band board has a candidate.
#[inline(always)]
fn occupied_rows(x: u32) -> u32 {
    u32::from(x & 0x1FF != 0) | u32::from(x >> 9 & 0x1FF != 0) << 1 | u32::from(x >> 18 != 0) << 2
}

/// Bit 8 of each row (`0x100 * COL`) of a band board: the top bit of the row's nine.
const ROW_TOPS: u32 = 0x100 * COL;

/// The rows in which a band board has a candidate, as bit 8 of each row ([`ROW_TOPS`]):
/// adding 0xFF to a row's low eight bits carries into bit 8 exactly when they are not all
/// zero, and no carry leaves the row (0xFF + 0xFF < 0x200).
#[inline(always)]
fn nonempty_rows(x: u32) -> u32 {
    const LOW8: u32 = 0xFF * COL;
    ((x & LOW8) + LOW8 | x) & ROW_TOPS
}

/// A 3-bit row mask (bit `r`: row `r` of the band) as bit 8 of each row: the multiplier puts
/// bit `r` at `8 + 8r + r`.
#[inline(always)]
fn spread_rows(rows: u32) -> u32 {
    rows.wrapping_mul(0x0101_0100) & ROW_TOPS
}

/// The inverse of [`spread_rows`]: bits 8, 17, 26 back to bits 0, 1, 2. After the shift they
/// are bits 0, 9, 18, which the multiplier puts on 18, 19, 20; its other products land on
/// bits 2, 10, 11, 27, 28 and 36 (lost), so none adds into those three.
#[inline(always)]
fn compact_rows(tops: u32) -> u32 {
    (tops >> 8).wrapping_mul(1 << 18 | 1 << 10 | 1 << 2) >> 18 & 7
}

/// Columns (9-bit) in which a band board has a candidate.
#[inline(always)]
fn fold(x: u32) -> u32 {
    (x | x >> 9 | x >> 18) & 0x1FF
}

/// The two bands other than `b` (below 3), by arithmetic rather than a `match`: `b` is as
/// good as random where a row single is placed, so a branch on it would often mispredict.
#[inline(always)]
fn other_bands(b: usize) -> (usize, usize) {
    (usize::from(b == 0), 2 - usize::from(b == 2))
}

/// The search state, worked on by the copy of the search that `C` names.
#[derive(Clone, Copy)]
struct State<C> {
    /// Candidate cells per digit and band, index `b*9 + d`.
    cand: [u32; BOARDS],
    /// Cells not yet fixed, per band.
    unsolved: [u32; 3],
    /// Per board, bit `row_in_band`: the board's digit is not yet placed in that row.
    open: [u8; BOARDS],
    /// Bit `k`: board `k` changed since it was last propagated.
    dirty: u32,
    /// Bit `d`: a board of digit `d` changed since its columns were last checked.
    touched: u32,
    /// The token of the copy of the search (no bytes): for [`V3`] and [`V3Pext`], the proof
    /// that the CPU can run it.
    cpu: C,
}

struct Search<'a> {
    /// Per cell (`band * 27 + index`): how many branches on it failed at once, that is, the
    /// propagation right after placing one of its digits met a contradiction. Halved across
    /// the board whenever one count reaches 128. It adds to the branching score.
    failures: [u8; CELLS],
    /// The cell of the latest branch taken (`band * 27 + index`), for `failures`.
    last: usize,
    limit: u32,
    count: u32,
    guesses: u64,
    first: Option<Grid>,
    budget: Budget<'a>,
    gave_up: bool,
}

/// Solves `puzzle` up to `limit` solutions; clues that conflict give no solution.
///
/// On x86-64 CPUs with the x86-64-v3 bit instructions (POPCNT, BMI1/2, LZCNT, AVX2: Intel
/// since 2013, AMD since 2015), this runs a copy of the solver compiled with them enabled:
/// `count_ones` (branching rule, clue check) becomes one instruction instead of a dozen,
/// variable shifts and and-nots get cheaper forms, and the AVX2 helpers listed in the module
/// doc replace scalar loops. Rust compiles for the x86-64 baseline, which has none of them.
/// Any other CPU runs the same code compiled for the baseline, with identical results (tested).
pub(super) fn solve(puzzle: &Grid, limit: u32, budget: Budget<'_>) -> Outcome {
    match cpu::level() {
        #[cfg(target_arch = "x86_64")]
        Level::V3Pext(cpu) => solve_as(cpu, puzzle, limit, budget),
        #[cfg(target_arch = "x86_64")]
        Level::V3(cpu) => solve_as(cpu, puzzle, limit, budget),
        Level::Portable(cpu) => solve_as(cpu, puzzle, limit, budget),
    }
}

/// [`solve`] with the copy of the search that `cpu` names.
#[inline(always)]
fn solve_as<C: Cpu>(cpu: C, puzzle: &Grid, limit: u32, budget: Budget<'_>) -> Outcome {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(v3) = cpu.v3() {
            // SAFETY: a `V3` token exists, so the CPU has every feature `solve_v3` is compiled
            // with (see `cpu`).
            return unsafe { solve_v3(v3, cpu, puzzle, limit, budget) };
        }
    }
    solve_with(cpu, puzzle, limit, budget)
}

/// [`solve`] compiled with the x86-64-v3 bit instructions; the [`V3`] token is the proof
/// that the CPU has them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt,avx2")]
fn solve_v3<C: Cpu>(_: V3, cpu: C, puzzle: &Grid, limit: u32, budget: Budget<'_>) -> Outcome {
    solve_with(cpu, puzzle, limit, budget)
}

/// The solver body, inlined into each entry point so it is compiled with the entry's CPU
/// features. `cpu` is a [`V3`] or [`V3Pext`] only below [`solve_v3`].
#[inline(always)]
fn solve_with<C: Cpu>(cpu: C, puzzle: &Grid, limit: u32, budget: Budget<'_>) -> Outcome {
    let Some(mut state) = State::from_clues(cpu, puzzle) else {
        return Outcome::NONE; // two equal clues in a row, column or box
    };
    if !state.first_round() {
        return Outcome::NONE; // a contradiction before any guess
    }
    let mut search = Search {
        failures: [0; CELLS],
        last: 0,
        limit,
        count: 0,
        guesses: 0,
        first: None,
        budget,
        gave_up: false,
    };
    search.descend(&mut state);
    Outcome {
        count: search.count,
        solution: search.first,
        guesses: search.guesses,
        gave_up: search.gave_up,
    }
}

impl<C: Cpu> State<C> {
    /// The state with every clue placed, built in bulk: each digit's clue cells per band
    /// ([`clue_masks`]) give the rows, columns and boxes it already occupies, then each board
    /// is the band minus the filled cells and minus those units, plus the digit's own clues.
    /// `None` when two clues of one digit share a unit. Nothing is propagated yet (every board
    /// is dirty). In the v3 copy, digits 1-8 are done at once ([`place_clues8_avx2`]).
    #[inline(always)]
    fn from_clues(cpu: C, puzzle: &Grid) -> Option<State<C>> {
        let clues = clue_masks(cpu, puzzle);
        let mut state = State {
            cand: [0; BOARDS],
            unsolved: [BAND; 3],
            open: [0; BOARDS],
            dirty: (1 << BOARDS) - 1,
            touched: 0x1FF,
            cpu,
        };
        for b in 0..3 {
            for d in 0..9 {
                state.unsolved[b] &= !clues[b * 9 + d];
            }
        }
        // Digits 1-8 at once in the v3 copy, one AVX2 lane per digit; the ninth (or all
        // nine) one at a time.
        let mut first = 0;
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(v3) = cpu.v3() {
                // SAFETY: a `V3` token exists, so the CPU has AVX2 (see `cpu`).
                if !unsafe {
                    place_clues8_avx2(v3, &clues, &mut state.cand, &mut state.open, state.unsolved)
                } {
                    return None;
                }
                first = 8;
            }
        }
        for d in first..9 {
            let bands = [clues[d], clues[9 + d], clues[18 + d]];
            let (mut rows, mut boxes, mut cols, mut n) = (0u32, 0u32, 0u32, 0u32);
            for (b, &x) in bands.iter().enumerate() {
                let f = fold(x);
                rows |= occupied_rows(x) << (3 * b);
                boxes |= (u32::from(f & 0o7 != 0)
                    | u32::from(f & 0o70 != 0) << 1
                    | u32::from(f & 0o700 != 0) << 2)
                    << (3 * b);
                cols |= f;
                n += x.count_ones();
            }
            // Two clues of a digit share a unit exactly when the digit occupies fewer rows,
            // columns or boxes than it has clues.
            if rows.count_ones() != n || cols.count_ones() != n || boxes.count_ones() != n {
                return None;
            }
            let colcells = cols * COL;
            for (b, &x) in bands.iter().enumerate() {
                let taken = ROWS[(rows >> (3 * b) & 7) as usize]
                    | BOXES[(boxes >> (3 * b) & 7) as usize]
                    | colcells;
                state.cand[b * 9 + d] = state.unsolved[b] & !taken | x;
                state.open[b * 9 + d] = (!rows >> (3 * b) & 7) as u8;
            }
        }
        Some(state)
    }

    /// The first [`FIRST_ROUNDS`] rounds of the band update on the boards of digits 1-8 at
    /// once, in the v3 copy ([`State::first_round_avx2`]); elsewhere nothing (every board
    /// stays dirty). False on a contradiction.
    #[inline(always)]
    fn first_round(&mut self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(v3) = self.cpu.v3() {
                // SAFETY: a `V3` token exists, so the CPU has every feature
                // `first_round_avx2` is compiled with (see `cpu`).
                return (0..FIRST_ROUNDS).all(|_| unsafe { self.first_round_avx2(v3) });
            }
        }
        true
    }

    /// [`State::update`]'s two rules applied to every board of digits 1-8 at once, one AVX2
    /// lane per digit, instead of one board after another: locked candidates inside the band
    /// (the minirow occupancy by shifts, [`LOCKED`] by a gather), then the open rows down to
    /// one cell are placed, all together: each band's placed cells leave the other digits'
    /// boards, and their columns leave the digit's boards in the other bands. Every rule is a
    /// deduction, so the order does not matter. A board is dirty afterwards only when a
    /// placement changed it after its own update (locked candidates give the same board
    /// twice over), and the ninth digit's boards stay dirty. A cell placed by two digits at
    /// once is a contradiction; a digit placed twice in a column leaves both boards without
    /// that row's only cell, which the update loop then finds (no permutation fits).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt,avx2")]
    fn first_round_avx2(&mut self, _: V3) -> bool {
        use std::arch::x86_64::*;
        let set = |v: u32| _mm256_set1_epi32(v as i32);
        let (and, or) = (|a, b| _mm256_and_si256(a, b), |a, b| _mm256_or_si256(a, b));
        let zero = _mm256_setzero_si256();
        let mut y = [zero; 3];
        let mut solved = [zero; 3];
        let mut opens = [[0u32; 8]; 3];
        for b in 0..3 {
            // SAFETY: the band's first eight boards are 32 readable bytes; no alignment need.
            let x = unsafe { _mm256_loadu_si256(self.cand[b * 9..].as_ptr().cast()) };
            // Minirow occupancy: each minirow or-ed into its first cell (bits 3j), then those
            // nine bits packed to bits j: pairs, fours, then the last bit.
            let t = and(
                or(x, or(_mm256_srli_epi32::<1>(x), _mm256_srli_epi32::<2>(x))),
                set(0o111_111_111),
            );
            let t = and(
                or(t, _mm256_srli_epi32::<2>(t)),
                set(3 | 3 << 6 | 3 << 12 | 3 << 18 | 1 << 24),
            );
            let t = and(
                or(t, _mm256_srli_epi32::<4>(t)),
                set(0xF | 0xF << 12 | 1 << 24),
            );
            let occ = and(
                or(t, or(_mm256_srli_epi32::<8>(t), _mm256_srli_epi32::<16>(t))),
                set(0x1FF),
            );
            // SAFETY: every index is below 512 (nine bits), the length of `LOCKED`.
            let allowed = unsafe { _mm256_i32gather_epi32::<4>(LOCKED.as_ptr().cast(), occ) };
            let yb = and(x, allowed);
            if _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(yb, zero))) != 0 {
                return false;
            }
            // Open rows down to one cell, as in `update`: bit 8 of each such row.
            let open: [u32; 8] = std::array::from_fn(|d| u32::from(self.open[b * 9 + d]));
            // SAFETY: `open` is 32 readable bytes; no alignment need.
            let open = unsafe { _mm256_loadu_si256(open.as_ptr().cast()) };
            let spread = and(_mm256_mullo_epi32(open, set(0x0101_0100)), set(ROW_TOPS));
            let rest = and(yb, _mm256_sub_epi32(yb, set(COL)));
            let low8 = set(0xFF * COL);
            let nonempty = and(
                or(_mm256_add_epi32(and(rest, low8), low8), rest),
                set(ROW_TOPS),
            );
            let rows = _mm256_andnot_si256(nonempty, spread);
            // Bits 8, 17, 26 to the cells of those rows: bits 0, 9, 18 times 0x1FF.
            let firsts = _mm256_srli_epi32::<8>(rows);
            let cells = _mm256_sub_epi32(_mm256_slli_epi32::<9>(firsts), firsts);
            solved[b] = and(yb, cells);
            y[b] = yb;
            let compact = or(
                and(firsts, set(1)),
                or(
                    and(_mm256_srli_epi32::<8>(firsts), set(2)),
                    and(_mm256_srli_epi32::<16>(firsts), set(4)),
                ),
            );
            let left = _mm256_andnot_si256(compact, open);
            // SAFETY: `opens[b]` is 32 writable bytes; no alignment need.
            unsafe { _mm256_storeu_si256(opens[b].as_mut_ptr().cast(), left) };
        }
        // Per band, every cell placed by any digit (an or across the lanes: pairs, then pairs
        // of pairs, then the halves), and whether two digits placed one cell: their lanes'
        // groups then share it where they merge. That is a contradiction here, since each
        // digit keeps its own placed cells below, so nothing later would see it. Per digit and
        // band, the columns of its placed cells.
        let mut clash = zero;
        let union = solved.map(|v| {
            let w = _mm256_shuffle_epi32::<0b10_11_00_01>(v);
            clash = or(clash, and(v, w));
            let v = or(v, w);
            let w = _mm256_shuffle_epi32::<0b01_00_11_10>(v);
            clash = or(clash, and(v, w));
            let v = or(v, w);
            let w = _mm256_permute2x128_si256::<1>(v, v);
            clash = or(clash, and(v, w));
            or(v, w)
        });
        if _mm256_testz_si256(clash, clash) == 0 {
            return false;
        }
        let columns = solved.map(|v| {
            let f = and(
                or(v, or(_mm256_srli_epi32::<9>(v), _mm256_srli_epi32::<18>(v))),
                set(0x1FF),
            );
            or(f, or(_mm256_slli_epi32::<9>(f), _mm256_slli_epi32::<18>(f)))
        });
        let mut dirty = 1 << 8 | 1 << 17 | 1 << 26;
        for b in 0..3 {
            let (b1, b2) = other_bands(b);
            // Other digits' placed cells and the columns placed in the other bands go.
            let gone = or(
                _mm256_andnot_si256(solved[b], union[b]),
                or(columns[b1], columns[b2]),
            );
            let board = _mm256_andnot_si256(gone, y[b]);
            let same = _mm256_cmpeq_epi32(board, y[b]);
            dirty |= (!(_mm256_movemask_ps(_mm256_castsi256_ps(same)) as u32) & 0xFF) << (b * 9);
            // SAFETY: the band's first eight boards are 32 writable bytes; no alignment need.
            unsafe { _mm256_storeu_si256(self.cand[b * 9..].as_mut_ptr().cast(), board) };
            let placed = _mm256_cvtsi256_si32(union[b]) as u32;
            self.cand[b * 9 + 8] &= !placed;
            self.unsolved[b] &= !placed;
            for (open, &left) in self.open[b * 9..b * 9 + 8].iter_mut().zip(&opens[b]) {
                *open = left as u8;
            }
        }
        self.dirty = dirty;
        true
    }

    /// Removes `mask` from board `k`; returns bit `k` if that changed it (for `dirty`).
    #[inline(always)]
    fn clear(&mut self, k: usize, mask: u32) -> u32 {
        let old = self.cand[k];
        let new = old & !mask;
        self.cand[k] = new;
        u32::from(old != new) << k
    }

    /// Sets `d`'s board in band `b` to `keep`, removes `cells` of the band from the boards of
    /// every other digit, and the columns of `cells` from `d`'s boards in the other two bands.
    /// Returns the other boards that changed (for `dirty`), so [`State::update`] can keep its
    /// work list in a register.
    ///
    /// `keep` comes in a register rather than being stored first: the eight-board block is
    /// read as one 32-byte load, and CPUs do not forward a narrow store to a wide load over it,
    /// so the load would wait for the store (reasoning, not measured: no counters here).
    #[inline(always)]
    fn eliminate(&mut self, d: usize, b: usize, cells: u32, keep: u32) -> u32 {
        // Eight boards as one block (in the v3 copy: one AVX2 and-not, compare and movemask
        // instead of eight rounds of scalar code), then the ninth.
        let block: &mut [u32; 8] = (&mut self.cand[b * 9..b * 9 + 8]).try_into().unwrap();
        let mut changed = clear8(self.cpu, block, cells);
        let last = self.cand[b * 9 + 8];
        self.cand[b * 9 + 8] = last & !cells;
        changed |= u32::from(last & cells != 0) << 8;
        self.cand[b * 9 + d] = keep;
        let cols = fold(cells);
        let colmask = cols | cols << 9 | cols << 18;
        let (b1, b2) = other_bands(b);
        (changed & !(1 << d)) << (b * 9)
            | self.clear(b1 * 9 + d, colmask)
            | self.clear(b2 * 9 + d, colmask)
    }

    /// Places digit `d` in cell `i` of band `b` (which must still allow it).
    #[inline(always)]
    fn assign(&mut self, d: usize, b: usize, i: usize) {
        let k = b * 9 + d;
        let (old, keep) = (self.cand[k], self.cand[k] & !PEERS[i]);
        self.dirty |= u32::from(old != keep) << k | self.eliminate(d, b, 1 << i, keep);
        self.unsolved[b] &= !(1 << i);
        self.open[b * 9 + d] &= !(1 << (i / 9));
    }

    /// Propagates locked candidates and row singles over every dirty board until none is
    /// left. Returns false on a contradiction.
    #[inline(always)]
    fn update(&mut self) -> bool {
        // The work list and the digits seen live in registers until the end.
        let (mut dirty, mut seen) = (self.dirty, 0u32);
        while dirty != 0 {
            // `dirty` has bits below `BOARDS` only; `min` (a conditional move) tells the
            // compiler so and drops the bounds checks on `cand`.
            let k = (dirty.trailing_zeros() as usize).min(BOARDS - 1);
            dirty &= dirty - 1;
            let x = self.cand[k];
            let y = x & LOCKED[shrink(self.cpu, x)];
            if y == 0 {
                return false;
            }
            seen |= 1 << k;
            let open = u32::from(self.open[k]);
            // Rows still open for d that are down to one cell: place them all at once. The
            // locked-candidates mask already cleared their boxes inside the band.
            // Every row of `y` has a cell (else no permutation fits and `y` is 0), so one
            // subtraction clears the lowest cell of all three rows without borrows between
            // them; a row is down to one cell when nothing is left of it.
            let rest = y & y.wrapping_sub(COL);
            // Bit 8 of each row: the row is open and `rest` has nothing left in it.
            let rows = spread_rows(open) & !nonempty_rows(rest);
            if rows != 0 {
                let (d, b) = (k % 9, k / 9);
                let solved = y & (rows >> 8) * 0x1FF;
                self.open[k] &= !(compact_rows(rows) as u8);
                self.unsolved[b] &= !solved;
                dirty |= self.eliminate(d, b, solved, y);
            } else {
                self.cand[k] = y;
            }
        }
        // The digits of the boards looked at get their columns checked again.
        (self.dirty, self.touched) = (0, self.touched | fold(seen));
        true
    }

    /// Places naked singles; `None` on a contradiction (a cell without candidates), else
    /// whether anything was placed.
    #[inline(always)]
    fn naked_singles(&mut self) -> Option<bool> {
        let mut placed = false;
        for b in 0..3 {
            if self.unsolved[b] == 0 {
                continue;
            }
            let (mut once, mut twice) = (0u32, 0u32);
            for d in 0..9 {
                let x = self.cand[b * 9 + d];
                twice |= once & x;
                once |= x;
            }
            if once != BAND {
                return None;
            }
            let mut single = once & !twice & self.unsolved[b];
            while single != 0 {
                let i = single.trailing_zeros() as usize;
                single &= single - 1;
                // An earlier single of this pass may have taken the last candidate.
                let digits = self.digits(b, i);
                if digits == 0 {
                    return None;
                }
                self.assign(digits.trailing_zeros() as usize, b, i);
                placed = true;
            }
        }
        Some(placed)
    }

    /// Locked candidates down each stack and hidden singles in columns, for the digits whose
    /// boards changed since the last call (rows and boxes are covered by the band update).
    /// `None` on a contradiction, else whether anything changed.
    #[inline(always)]
    fn column_singles(&mut self) -> Option<bool> {
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(v3) = self.cpu.v3() {
                // SAFETY: a `V3` token exists, so the CPU has every feature
                // `column_singles_avx2` is compiled with (see `cpu`).
                return unsafe { self.column_singles_avx2(v3) };
            }
        }
        let mut placed = false;
        let mut todo = std::mem::take(&mut self.touched);
        while todo != 0 {
            let d = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            if self.open[d] | self.open[9 + d] | self.open[18 + d] != 0 {
                placed |= self.column_digit(d)?;
            }
        }
        Some(placed || self.dirty != 0)
    }

    /// [`State::column_singles`] for one digit; `None` on a contradiction, else whether a
    /// single was placed.
    #[inline(always)]
    fn column_digit(&mut self, d: usize) -> Option<bool> {
        // Locked candidates down each stack (the band update only looks along rows).
        let (f0, f1, f2) = (
            fold(self.cand[d]),
            fold(self.cand[9 + d]),
            fold(self.cand[18 + d]),
        );
        let mut keep = [0u32; 3];
        for s in 0..3 {
            let occ = (f0 >> (3 * s) & 7) | (f1 >> (3 * s) & 7) << 3 | (f2 >> (3 * s) & 7) << 6;
            let allowed = STACK[occ as usize];
            if allowed == 0 {
                return None;
            }
            keep[0] |= (allowed & 7) << (3 * s);
            keep[1] |= (allowed >> 3 & 7) << (3 * s);
            keep[2] |= (allowed >> 6) << (3 * s);
        }
        for (b, keep) in keep.into_iter().enumerate() {
            self.dirty |= self.clear(b * 9 + d, !(keep * COL));
        }
        // Count candidates per column over the nine rows, saturating at two.
        let (mut once, mut twice) = (0u32, 0u32);
        for b in 0..3 {
            let x = self.cand[b * 9 + d];
            for r in 0..3 {
                let row = x >> (9 * r) & 0x1FF;
                twice |= once & row;
                once |= row;
            }
        }
        if once != 0x1FF {
            return None;
        }
        self.place_column_singles(d, once & !twice)
    }

    /// Places digit `d` in its unsolved cells in the columns `single` (9-bit), where it was
    /// found to have one place left; `None` if a cell no longer allows it (a single placed
    /// since took it, so the column has no place left), else whether anything was placed.
    #[inline(always)]
    fn place_column_singles(&mut self, d: usize, single: u32) -> Option<bool> {
        let mut placed = false;
        let spread = single * COL;
        for b in 0..3 {
            let mut hits = self.cand[b * 9 + d] & spread & self.unsolved[b];
            while hits != 0 {
                let i = hits.trailing_zeros() as usize;
                hits &= hits - 1;
                if self.cand[b * 9 + d] & 1 << i == 0 {
                    return None;
                }
                self.assign(d, b, i);
                placed = true;
            }
        }
        Some(placed)
    }

    /// [`State::column_singles`] for digits 1-8 at once, one AVX2 lane per digit (the ninth
    /// digit by the scalar code): the same rules on every digit, touched or not, which is
    /// sound (they are deductions) and cheaper than picking lanes. Column facts found from
    /// the boards before any placement stay true after it: a placement can only leave a
    /// column with no place, which [`State::place_column_singles`] reports.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt,avx2")]
    fn column_singles_avx2(&mut self, _: V3) -> Option<bool> {
        use std::arch::x86_64::*;
        let todo = std::mem::take(&mut self.touched);
        let mut placed = false;
        if todo & 0xFF != 0 {
            let zero = _mm256_setzero_si256();
            let (m3, m9) = (_mm256_set1_epi32(7), _mm256_set1_epi32(0x1FF));
            let boards: [__m256i; 3] = std::array::from_fn(|b| {
                let block: &[u32; 8] = self.cand[b * 9..b * 9 + 8].try_into().unwrap();
                // SAFETY: `block` is 32 readable bytes; the load has no alignment need.
                unsafe { _mm256_loadu_si256(block.as_ptr().cast()) }
            });
            let folded = boards.map(|x| {
                let x = _mm256_or_si256(x, _mm256_srli_epi32::<9>(x));
                _mm256_and_si256(_mm256_or_si256(x, _mm256_srli_epi32::<9>(x)), m9)
            });
            // Locked candidates down each stack: one table lookup per digit and stack.
            let mut keep = [zero; 3];
            for s in 0..3 {
                let part = |f: __m256i| {
                    _mm256_and_si256(_mm256_srlv_epi32(f, _mm256_set1_epi32(3 * s)), m3)
                };
                let occ = _mm256_or_si256(
                    part(folded[0]),
                    _mm256_or_si256(
                        _mm256_slli_epi32::<3>(part(folded[1])),
                        _mm256_slli_epi32::<6>(part(folded[2])),
                    ),
                );
                // SAFETY: every index is below 512 (nine bits), the length of `STACK`.
                let allowed = unsafe { _mm256_i32gather_epi32::<4>(STACK.as_ptr().cast(), occ) };
                if _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(allowed, zero))) != 0 {
                    return None;
                }
                // Bits `band*3 + column_in_stack` of `allowed` to each band's columns.
                let shift = _mm256_set1_epi32(3 * s);
                let per_band = [
                    _mm256_and_si256(allowed, m3),
                    _mm256_and_si256(_mm256_srli_epi32::<3>(allowed), m3),
                    _mm256_srli_epi32::<6>(allowed),
                ];
                for (keep, cols) in keep.iter_mut().zip(per_band) {
                    *keep = _mm256_or_si256(*keep, _mm256_sllv_epi32(cols, shift));
                }
            }
            // Clear what the stacks rule out, then count places per column over nine rows.
            let (mut once, mut twice) = (zero, zero);
            let mut kept = [zero; 3];
            for b in 0..3 {
                let k = keep[b];
                let cols = _mm256_or_si256(
                    k,
                    _mm256_or_si256(_mm256_slli_epi32::<9>(k), _mm256_slli_epi32::<18>(k)),
                );
                let x = _mm256_and_si256(boards[b], cols);
                let same = _mm256_cmpeq_epi32(x, boards[b]);
                let changed = !(_mm256_movemask_ps(_mm256_castsi256_ps(same)) as u32) & 0xFF;
                self.dirty |= changed << (b * 9);
                let block: &mut [u32; 8] = (&mut self.cand[b * 9..b * 9 + 8]).try_into().unwrap();
                // SAFETY: `block` is 32 writable bytes; the store has no alignment need.
                unsafe { _mm256_storeu_si256(block.as_mut_ptr().cast(), x) };
                kept[b] = x;
                for row in [
                    _mm256_and_si256(x, m9),
                    _mm256_and_si256(_mm256_srli_epi32::<9>(x), m9),
                    _mm256_srli_epi32::<18>(x),
                ] {
                    twice = _mm256_or_si256(twice, _mm256_and_si256(once, row));
                    once = _mm256_or_si256(once, row);
                }
            }
            let full = _mm256_cmpeq_epi32(once, m9);
            if _mm256_movemask_ps(_mm256_castsi256_ps(full)) != 0xFF {
                return None;
            }
            // Digits with a column single in some band's unsolved cells.
            let single = _mm256_andnot_si256(twice, once);
            let spread = _mm256_or_si256(
                single,
                _mm256_or_si256(
                    _mm256_slli_epi32::<9>(single),
                    _mm256_slli_epi32::<18>(single),
                ),
            );
            let mut any = zero;
            for (b, &x) in kept.iter().enumerate() {
                let unsolved = _mm256_set1_epi32(self.unsolved[b] as i32);
                let hits = _mm256_and_si256(x, _mm256_and_si256(spread, unsolved));
                any = _mm256_or_si256(any, hits);
            }
            let mut lanes = !(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(any, zero)))
                as u32)
                & 0xFF;
            if lanes != 0 {
                let mut singles = [0u32; 8];
                // SAFETY: `singles` is 32 writable bytes; the store has no alignment need.
                unsafe { _mm256_storeu_si256(singles.as_mut_ptr().cast(), single) };
                while lanes != 0 {
                    let d = lanes.trailing_zeros() as usize;
                    lanes &= lanes - 1;
                    placed |= self.place_column_singles(d, singles[d])?;
                }
            }
        }
        if todo & 0x100 != 0 && self.open[8] | self.open[17] | self.open[26] != 0 {
            placed |= self.column_digit(8)?;
        }
        Some(placed || self.dirty != 0)
    }

    /// Full propagation to a fixpoint; false on a contradiction.
    #[inline(always)]
    fn propagate(&mut self) -> bool {
        loop {
            if !self.update() {
                return false;
            }
            match self.naked_singles() {
                None => return false,
                Some(true) => continue,
                Some(false) => {}
            }
            match self.column_singles() {
                None => return false,
                Some(true) => continue,
                Some(false) => return true,
            }
        }
    }

    fn solved(&self) -> bool {
        self.unsolved[0] | self.unsolved[1] | self.unsolved[2] == 0
    }

    fn grid(&self) -> Option<Grid> {
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(v3) = self.cpu.v3() {
                // SAFETY: a `V3` token exists, so the CPU has AVX2 (see `cpu`).
                return Grid::from_cells(unsafe { grid_avx2(v3, &self.cand) });
            }
        }
        let mut cells = [0u8; CELLS];
        for (band, boards) in cells.chunks_exact_mut(27).zip(self.cand.chunks_exact(9)) {
            for (digit, &board) in (1u8..).zip(boards) {
                let mut x = board & BAND;
                while x != 0 {
                    band[x.trailing_zeros() as usize] = digit;
                    x &= x - 1;
                }
            }
        }
        Grid::from_cells(cells)
    }

    /// The cell to branch on: band, index in band, and its candidate digits (9-bit mask).
    #[inline(always)]
    fn branch_cell(&self, failures: &[u8; CELLS]) -> (usize, usize, u32) {
        let mut pairs = [0u32; 3];
        for (b, pairs) in pairs.iter_mut().enumerate() {
            let (mut once, mut twice, mut thrice) = (0u32, 0u32, 0u32);
            for d in 0..9 {
                let x = self.cand[b * 9 + d];
                thrice |= twice & x;
                twice |= once & x;
                once |= x;
            }
            *pairs = twice & !thrice & self.unsolved[b];
        }
        // Among bivalue cells, the one with the most unsolved peers (row, column, box) plus
        // failed branches: the most constrained neighbourhood, so either branch propagates
        // furthest, and the cell where contradictions were met before. Ties go to the last
        // such cell (docs/SOLVER.md has the guesses each part saves).
        // The cells are visited in order of band and index, so "the highest score, ties to
        // the last" is the maximum of `score << 16 | b << 8 | i`: a conditional move per cell
        // instead of a branch on the scores, which is poorly predicted.
        let mut best = 0u32;
        for (b, &pairs) in pairs.iter().enumerate() {
            let (b1, b2) = other_bands(b);
            // The two other bands side by side, for one count of a column's cells in both.
            let others = u64::from(self.unsolved[b1]) | u64::from(self.unsolved[b2]) << 32;
            let mut cells = pairs;
            while cells != 0 {
                let i = cells.trailing_zeros() as usize;
                cells &= cells - 1;
                let score = (PEERS[i] & self.unsolved[b]).count_ones()
                    + (others & OTHER_COLUMN[i]).count_ones()
                    + u32::from(failures[b * 27 + i]);
                // Bit 24 marks that some bivalue cell was seen.
                best = best.max(1 << 24 | score << 16 | (b as u32) << 8 | i as u32);
            }
        }
        if best != 0 {
            let (b, i) = ((best >> 8 & 3) as usize, (best & 0x1F) as usize);
            return (b, i, self.digits(b, i));
        }
        // No bivalue cell: the cell with the fewest candidates, ties to the highest score.
        let mut best = 0u32;
        for b in 0..3 {
            let (b1, b2) = other_bands(b);
            let others = u64::from(self.unsolved[b1]) | u64::from(self.unsolved[b2]) << 32;
            let mut cells = self.unsolved[b];
            while cells != 0 {
                let i = cells.trailing_zeros() as usize;
                cells &= cells - 1;
                let n = self.digits(b, i).count_ones();
                let score = (PEERS[i] & self.unsolved[b]).count_ones()
                    + (others & OTHER_COLUMN[i]).count_ones()
                    + u32::from(failures[b * 27 + i]);
                best = best.max((16 - n) << 24 | score << 16 | (b as u32) << 8 | i as u32);
            }
        }
        let (b, i) = ((best >> 8 & 3) as usize, (best & 0x1F) as usize);
        (b, i, self.digits(b, i))
    }

    /// The candidate digits (9-bit mask) of cell `i` of band `b`.
    #[inline(always)]
    fn digits(&self, b: usize, i: usize) -> u32 {
        let boards: &[u32; 9] = self.cand[b * 9..b * 9 + 9].try_into().unwrap();
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(v3) = self.cpu.v3() {
                // SAFETY: a `V3` token exists, so the CPU has AVX2 (see `cpu`).
                return unsafe { digits_avx2(v3, boards, i) };
            }
        }
        let mut m = 0;
        for (d, x) in boards.iter().enumerate() {
            m |= (x >> i & 1) << d;
        }
        m
    }
}

impl Search<'_> {
    /// Searches below `state` with the copy of the search that its token names.
    #[inline(always)]
    fn descend<C: Cpu>(&mut self, state: &mut State<C>) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(v3) = state.cpu.v3() {
                // SAFETY: a `V3` token exists, so the CPU has every feature `run_v3` is
                // compiled with (see `cpu`).
                return unsafe { self.run_v3(v3, state) };
            }
        }
        self.run_portable(state)
    }

    /// The search compiled for the baseline CPU (reached with [`cpu::Portable`] states only).
    fn run_portable<C: Cpu>(&mut self, state: &mut State<C>) -> bool {
        self.run(state)
    }

    /// The search compiled with the x86-64-v3 bit instructions (see [`solve`]); the [`V3`]
    /// token is the proof that the CPU has them.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt,avx2")]
    fn run_v3<C: Cpu>(&mut self, _: V3, state: &mut State<C>) -> bool {
        self.run(state)
    }

    /// Counts a failed branch against the cell of the latest branch taken (the root's
    /// contradiction, before any branch, ends the search and counts against cell 0).
    #[cold]
    fn failed(&mut self) {
        self.failures[self.last] += 1;
        if self.failures[self.last] == 128 {
            self.failures.iter_mut().for_each(|n| *n >>= 1);
        }
    }

    /// Depth-first search from `state`; returns true when the solution limit is reached.
    #[inline(always)]
    fn run<C: Cpu>(&mut self, state: &mut State<C>) -> bool {
        loop {
            if !state.propagate() {
                self.failed();
                return false;
            }
            if state.solved() {
                self.count += 1;
                if self.first.is_none() {
                    self.first = state.grid();
                }
                return self.count >= self.limit;
            }
            let (b, i, mut digits) = state.branch_cell(&self.failures);
            debug_assert!(digits.count_ones() >= 2);
            self.guesses += 1;
            if self.budget.is_spent(self.guesses) {
                self.gave_up = true;
                return true;
            }
            while digits & (digits - 1) != 0 {
                let d = digits.trailing_zeros() as usize;
                digits &= digits - 1;
                let mut child = *state;
                child.assign(d, b, i);
                // Set again for every alternative: the search below moves it.
                self.last = b * 27 + i;
                if self.descend(&mut child) {
                    return true;
                }
            }
            state.assign(digits.trailing_zeros() as usize, b, i);
            self.last = b * 27 + i;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::cpu::Portable;
    use super::*;

    #[test]
    fn row_bit_tricks_agree_with_the_plain_forms() {
        // What `update` computes (open rows down to one cell, their cells, the rows left open),
        // against the plain forms: every value of each row in turn, with the other two rows
        // empty, one low cell, bit 8 alone or full, and every open mask.
        let others = [0u32, 1, 0x100, 0x1FF];
        for r in 0..3 {
            for v in 0..512u32 {
                for &a in &others {
                    for &b in &others {
                        let mut fields = [a, b, 0];
                        fields.rotate_right(r);
                        fields[r] = v;
                        let rest = fields[0] | fields[1] << 9 | fields[2] << 18;
                        for open in 0..8u32 {
                            let plain = open & !occupied_rows(rest);
                            let tops = spread_rows(open) & !nonempty_rows(rest);
                            assert_eq!(compact_rows(tops), plain, "{rest:#x} {open}");
                            assert_eq!((tops >> 8) * 0x1FF, ROWS[plain as usize]);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn locked_table_matches_the_rules() {
        // Full occupancy allows everything; one minirow per row on a diagonal allows exactly it.
        assert_eq!(LOCKED[0x1FF], BAND);
        assert_eq!(LOCKED[0b100_010_001], 7 | 7 << 12 | 7 << 24);
        // Two rows confined to the same box: no permutation fits.
        assert_eq!(LOCKED[0b111_001_001], 0);
        // Row 0 only in box 0 (claiming): rows 1 and 2 lose box 0.
        assert_eq!(LOCKED[0b111_111_001], 7 | 0o770 << 9 | 0o770 << 18);
        assert_eq!(shrink(Portable, 1 << 4 | 1 << 9 | 1 << 26), 0b100_001_010);
        assert_eq!(PEERS[0].count_ones(), 14);
        assert_eq!(
            std::mem::size_of::<State<Portable>>(),
            156,
            "the module doc gives the size"
        );
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(std::mem::size_of::<State<V3>>(), 156);
            assert_eq!(std::mem::size_of::<State<V3Pext>>(), 156);
        }
        assert_eq!(PEERS[13], (0x1FF << 9 | 0o070070070) & !(1 << 13));
    }

    #[test]
    fn solves_hard_puzzles_and_proves_uniqueness() {
        for text in [
            "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
            "..53.....8......2..7..1.5..4....53...1..7...6..32...8..6.5....9..4....3......97..",
            "85...24..72......9..4.........1.7..23.5...9...4...........8..7..17..........36.4.",
        ] {
            let puzzle: Grid = text.parse().unwrap();
            let out = solve(&puzzle, 2, Budget::UNLIMITED);
            assert_eq!(out.count, 1, "{text}");
            assert!(out.solution.unwrap().is_solution_of(&puzzle), "{text}");
        }
    }

    #[test]
    fn easy_puzzles_need_no_guess_and_the_empty_grid_counts_to_the_limit() {
        let puzzle: Grid =
            "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
                .parse()
                .unwrap();
        let out = solve(&puzzle, 2, Budget::UNLIMITED);
        assert_eq!((out.count, out.guesses), (1, 0));
        let out = solve(&Grid::empty(), 7, Budget::UNLIMITED);
        assert_eq!(out.count, 7);
        assert!(out.solution.unwrap().is_solution_of(&Grid::empty()));
    }

    /// `solve` and every copy of the search this CPU can run (the AVX2 copy with and without
    /// PEXT) give the portable copy's outcome on `puzzle`.
    fn assert_copies_agree(puzzle: &Grid, limit: u32, what: &str) {
        let portable = solve_as(Portable, puzzle, limit, Budget::UNLIMITED);
        assert_eq!(solve(puzzle, limit, Budget::UNLIMITED), portable, "{what}");
        #[cfg(target_arch = "x86_64")]
        if let Some(v3) = V3::detect() {
            let (fast, pext) = (
                solve_as(v3, puzzle, limit, Budget::UNLIMITED),
                solve_as(v3.with_pext(), puzzle, limit, Budget::UNLIMITED),
            );
            assert_eq!((fast, pext), (portable, portable), "{what}");
        }
    }

    #[test]
    fn fast_and_portable_copies_agree() {
        // Both copies of the search on hard puzzles: same counts, solutions and guesses.
        let top95 = include_str!("../../data/norvig_top95.txt");
        let hard = include_str!("../../data/norvig_sudokus_hard_375.txt");
        for line in top95.lines().take(40).chain(hard.lines().take(40)) {
            let puzzle: Grid = line.trim().parse().unwrap();
            for limit in [1, 2] {
                assert_copies_agree(&puzzle, limit, line);
            }
        }
        assert_eq!(
            solve(&Grid::empty(), 3, Budget::UNLIMITED),
            solve_as(Portable, &Grid::empty(), 3, Budget::UNLIMITED)
        );
    }

    #[test]
    fn v3_helpers_agree_with_the_portable_ones() {
        let mut x = 0x9E37_79B9u32;
        for _ in 0..2000 {
            let mut block = [0u32; 8];
            for v in block.iter_mut() {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                *v = x & BAND;
            }
            let cells = x.rotate_left(7) & BAND & if x & 1 == 0 { 0x1FF } else { BAND };
            let mut a = block;
            let changed = clear8(Portable, &mut a, cells);
            for e in 0..8 {
                assert_eq!(a[e], block[e] & !cells);
                assert_eq!(changed >> e & 1 == 1, block[e] & cells != 0);
            }
            #[cfg(target_arch = "x86_64")]
            {
                if let Some(v3) = V3::detect() {
                    let mut b = block;
                    assert_eq!(clear8(v3, &mut b, cells), changed);
                    assert_eq!(a, b);
                    for &x in &block {
                        let pext = v3.with_pext();
                        assert_eq!(shrink(pext, x), shrink(Portable, x), "{x:#x}");
                    }
                    fn state<C: Cpu>(cpu: C, block: &[u32; 8]) -> State<C> {
                        State {
                            cand: std::array::from_fn(|k| {
                                block[k % 8].rotate_left(k as u32) & BAND
                            }),
                            unsolved: [BAND; 3],
                            open: [0; BOARDS],
                            dirty: 0,
                            touched: 0,
                            cpu,
                        }
                    }
                    let (fast, portable) = (state(v3, &block), state(Portable, &block));
                    for b in 0..3 {
                        for i in 0..27 {
                            assert_eq!(fast.digits(b, i), portable.digits(b, i));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn conflicting_clues_are_found_while_building_the_state() {
        let puzzle: Grid =
            "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
                .parse()
                .unwrap();
        assert!(State::from_clues(Portable, &puzzle).is_some());
        assert!(State::from_clues(Portable, &Grid::empty()).is_some());
        #[cfg(target_arch = "x86_64")]
        let v3 = V3::detect();
        for cell in 0..CELLS {
            for digit in 1..=9 {
                let mut g = puzzle;
                g.set(cell, digit);
                assert_eq!(
                    State::from_clues(Portable, &g).is_none(),
                    g.has_conflict(),
                    "{g}"
                );
                #[cfg(target_arch = "x86_64")]
                if let Some(v3) = v3 {
                    // The AVX2 clue masks (every cell, first and last included) and the
                    // state built from them eight digits at a time agree.
                    assert_eq!(clue_masks(v3, &g), clue_masks(Portable, &g), "{g}");
                    fn parts<C: Cpu>(s: State<C>) -> ([u32; BOARDS], [u8; BOARDS], [u32; 3]) {
                        (s.cand, s.open, s.unsolved)
                    }
                    assert_eq!(
                        State::from_clues(v3, &g).map(parts),
                        State::from_clues(Portable, &g).map(parts),
                        "{g}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_first_rounds_match_the_portable_copy() {
        // The v3 copies' first rounds place most cells of easy and typical puzzles at once:
        // the same outcome as the portable copy (which has no such rounds) on such puzzles,
        // and on each of them with one more clue in its first blank cell, every digit in turn
        // (most of these have no solution; a clue that repeats a digit in its house is refused
        // before the rounds run).
        let kaggle = include_str!("../../data/kaggle3m_radcliffe_first1000.csv");
        let diabolical = include_str!("../../data/sudokuexchange_diabolical_2020_39719.txt");
        let puzzles = kaggle
            .lines()
            .skip(1)
            .take(60)
            .filter_map(|line| line.split(',').nth(1))
            .chain(
                diabolical
                    .lines()
                    .take(60)
                    .filter_map(|line| line.split_whitespace().find(|token| token.len() == CELLS)),
            );
        for line in puzzles {
            let puzzle: Grid = line.parse().unwrap();
            let blank = puzzle.cells().iter().position(|&v| v == 0).unwrap();
            for extra in 0..=9 {
                let mut grid = puzzle;
                if extra > 0 {
                    grid.set(blank, extra);
                }
                for limit in [1, 2] {
                    assert_copies_agree(&grid, limit, &format!("{line} {extra}"));
                }
            }
        }
    }

    #[test]
    fn two_digits_placed_on_one_cell_in_the_first_rounds_is_a_contradiction() {
        // The fuzzers' grid: in the first rounds, 1 and 8 are each down to one place in a row,
        // the same cell, so the grid has no solution before any guess. The v3 copies place
        // row singles of eight digits at once there, and each digit keeps its own placed cells,
        // so that clash must be caught then (else the search goes on from a state holding two
        // digits in one cell and takes millions of guesses to end).
        let puzzle: Grid =
            "68..................18...........184............18.......5..6...1849............."
                .parse()
                .unwrap();
        for limit in [1, 2] {
            // Bounded first, so that a regression fails at once rather than after minutes.
            let out = solve(&puzzle, limit, Budget::new(Some(1000), None));
            assert_eq!((out.count, out.guesses, out.gave_up), (0, 0, false));
            assert_copies_agree(&puzzle, limit, "two digits on one cell");
        }
    }

    #[test]
    fn contradictions_are_found() {
        // Cell 0 sees every digit.
        let dead: Grid =
            ".234567891......................................................................."
                .parse()
                .unwrap();
        assert_eq!(solve(&dead, 1, Budget::UNLIMITED).count, 0);
    }

    #[test]
    fn failed_branches_count_against_the_branch_cell_and_are_halved_at_128() {
        let mut search = Search {
            failures: [0; CELLS],
            last: 0,
            limit: 1,
            count: 0,
            guesses: 0,
            first: None,
            budget: Budget::UNLIMITED,
            gave_up: false,
        };
        search.failures[3] = 40;
        search.last = 30;
        for _ in 0..127 {
            search.failed();
        }
        assert_eq!((search.failures[30], search.failures[3]), (127, 40));
        search.failed();
        assert_eq!((search.failures[30], search.failures[3]), (64, 20));
    }
}
