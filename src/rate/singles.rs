//! Singles: full house (1.0), hidden single in a box (1.2) or line (1.5), naked single (2.3).

use super::board::{build_house_cells, cells, one_digit, single, Board, ALL, HOUSES, HOUSE_CELLS};
use super::changed::Changed;
use super::scale::Technique;
use super::Step;

/// SE's house scan order for singles and sets: boxes, then columns, then rows.
pub(crate) const SCAN_ORDER: [usize; 27] = [
    18, 19, 20, 21, 22, 23, 24, 25, 26, 9, 10, 11, 12, 13, 14, 15, 16, 17, 0, 1, 2, 3, 4, 5, 6, 7,
    8,
];

/// Per cell, its three houses as bits by position in [`SCAN_ORDER`] (bit `i`: house
/// `SCAN_ORDER[i]`), derived from it.
const SCAN_BITS: [u32; 81] = {
    let house_cells = build_house_cells();
    let mut t = [0; 81];
    let mut i = 0;
    while i < 27 {
        let mut j = 0;
        while j < 9 {
            t[house_cells[SCAN_ORDER[i]][j] as usize] |= 1 << i;
            j += 1;
        }
        i += 1;
    }
    t
};

/// The houses with a changed cell, in SE's scan order ([`SCAN_ORDER`]): the bits of a mask
/// built from the changed cells, so a scan skips the others without testing them.
#[inline]
pub(crate) fn scan(changed: &Changed) -> impl Iterator<Item = usize> {
    let mut m = if changed.cells() == ALL {
        (1 << 27) - 1
    } else {
        cells(changed.cells()).fold(0, |m, c| m | SCAN_BITS[c])
    };
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            SCAN_ORDER[i]
        })
    })
}

/// Last empty cell of a house. Only houses with a changed cell are looked at: a house's empty
/// cells change only when one of its cells is placed, and so loses its candidates.
pub fn full_house(b: &Board, changed: &Changed) -> Option<Step> {
    for h in scan(changed) {
        let e = b.empty & HOUSES[h];
        if single(e) {
            let c = e.trailing_zeros() as usize;
            let m = b.cand[c];
            if one_digit(m) {
                let d = m.trailing_zeros() as u8 + 1;
                return Some(Step::place(Technique::FullHouse, c, d, e));
            }
        }
    }
    None
}

/// A digit with one place left in a house (boxes first, then columns, then rows; the lowest
/// digit first). Only houses with a changed cell are looked at: a digit's places in a house
/// change only when one of its cells loses a candidate.
pub fn hidden_single(b: &Board, changed: &Changed) -> Option<Step> {
    for h in scan(changed) {
        if b.empty & HOUSES[h] == 0 {
            continue;
        }
        // The digits with one place in the house: seen once and not twice.
        let (mut once, mut twice) = (0u16, 0u16);
        for &c in &HOUSE_CELLS[h] {
            let m = b.cand[c as usize];
            twice |= once & m;
            once |= m;
        }
        let one = once & !twice;
        if one != 0 {
            let d = one.trailing_zeros() as u8 + 1;
            let c = b.pos_in(d, h).trailing_zeros() as usize;
            let t = if h >= 18 {
                Technique::HiddenSingleBox
            } else {
                Technique::HiddenSingleLine
            };
            return Some(Step::place(t, c, d, HOUSES[h] & b.empty));
        }
    }
    None
}

/// A cell with one candidate left (the first in cell order). Only changed cells are looked at:
/// a cell's candidates change only when it loses one.
pub fn naked_single(b: &Board, changed: &Changed) -> Option<Step> {
    for c in cells(b.empty & changed.cells()) {
        let m = b.cand[c];
        if one_digit(m) {
            let d = m.trailing_zeros() as u8 + 1;
            return Some(Step::place(Technique::NakedSingle, c, d, 1 << c));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Grid;

    fn board(s: &str) -> Board {
        Board::new(&s.parse::<Grid>().unwrap())
    }

    #[test]
    fn full_house_is_found_in_a_nearly_full_row() {
        // Solved grid with r1c1 blanked: every house of r1c1 has one empty cell.
        let b = board(
            "..4678912672195348198342567859761423426853791713924856961537284287419635345286179",
        );
        // Boxes come first but box 1 has two empty cells; column 1 has one: r1c1 = 5.
        let s = full_house(&b, &Changed::ALL).unwrap();
        assert_eq!(s.technique, Technique::FullHouse);
        assert_eq!(s.placements[..], [(0, 5)]);
    }

    #[test]
    fn hidden_single_in_a_box_is_found_before_lines() {
        let b = board(
            "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79",
        );
        let s = hidden_single(&b, &Changed::ALL).unwrap();
        assert_eq!(s.technique, Technique::HiddenSingleBox);
        let (c, d) = s.placements[0];
        // The known solution of this puzzle.
        let sol =
            "534678912672195348198342567859761423426853791713924856961537284287419635345286179";
        assert_eq!(sol.as_bytes()[c as usize] - b'0', d);
    }

    #[test]
    fn naked_single_is_the_only_candidate() {
        let mut b = board(
            "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79",
        );
        // r5c5 has candidates {5} in this classic puzzle.
        let s = naked_single(&b, &Changed::ALL).unwrap();
        assert_eq!(s.technique, Technique::NakedSingle);
        s.apply(&mut b);
        assert_eq!(b.value[s.placements[0].0 as usize], s.placements[0].1);
    }

    #[test]
    fn the_scan_visits_the_houses_with_a_change_in_se_order() {
        let full = |ch: &Changed| -> Vec<usize> {
            SCAN_ORDER
                .iter()
                .copied()
                .filter(|&h| ch.cells_in(HOUSES[h]))
                .collect()
        };
        assert_eq!(scan(&Changed::ALL).collect::<Vec<_>>(), SCAN_ORDER.to_vec());
        let mut b = Board::from_parts([0; 81], [0x1ff; 81]);
        let before = b.pos;
        assert_eq!(scan(&Changed::since(&before, &b)).count(), 0);
        for c in [40, 0, 80, 13, 67] {
            b.eliminate(c, 3);
            let ch = Changed::since(&before, &b);
            assert_eq!(
                scan(&ch).collect::<Vec<_>>(),
                full(&ch),
                "after r{}c{}",
                c / 9 + 1,
                c % 9 + 1
            );
        }
    }
}
