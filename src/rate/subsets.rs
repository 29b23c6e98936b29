//! Naked and hidden subsets (pairs, triples, quads) and the direct hidden pair/triple.

use super::board::{cells, count, more_than, single, Board, Cells, HOUSES};
use super::changed::Changed;
use super::scale::Technique;
use super::singles::SCAN_ORDER;
use super::Step;

/// Calls `f` with every `k`-combination of `items` (lexicographic), stopping at the first `Some`.
/// No allocation: `k` is at most 4.
pub(crate) fn combos<T>(
    items: &[usize],
    k: usize,
    mut f: impl FnMut(&[usize]) -> Option<T>,
) -> Option<T> {
    let n = items.len();
    if k == 0 || k > n || k > 4 {
        return None;
    }
    let mut idx = [0usize; 4];
    for (i, v) in idx.iter_mut().enumerate().take(k) {
        *v = i;
    }
    let mut pick = [0usize; 4];
    loop {
        for i in 0..k {
            pick[i] = items[idx[i]];
        }
        if let Some(r) = f(&pick[..k]) {
            return Some(r);
        }
        // advance
        let mut i = k;
        loop {
            if i == 0 {
                return None;
            }
            i -= 1;
            if idx[i] < n - k + i {
                idx[i] += 1;
                for j in i + 1..k {
                    idx[j] = idx[j - 1] + 1;
                }
                break;
            }
        }
    }
}

/// Naked set of `degree` cells in a house: their candidates number `degree`; those digits go
/// from the house's other cells. Only houses with a changed cell are looked at.
pub fn naked(b: &Board, degree: usize, changed: &Changed) -> Option<Step> {
    let tech = match degree {
        2 => Technique::NakedPair,
        3 => Technique::NakedTriple,
        _ => Technique::NakedQuad,
    };
    for &h in &SCAN_ORDER {
        let e = b.empty & HOUSES[h];
        if (count(e) as usize) < degree * 2 || !changed.cells_in(HOUSES[h]) {
            continue;
        }
        let mut list = [0usize; 9];
        let mut n = 0;
        for c in cells(e) {
            let k = b.cand[c].count_ones() as usize;
            if k >= 2 && k <= degree {
                list[n] = c;
                n += 1;
            }
        }
        let r = combos(&list[..n], degree, |set| {
            let mut m = 0u16;
            let mut bd: Cells = 0;
            for &c in set {
                m |= b.cand[c];
                bd |= 1 << c;
            }
            if m.count_ones() as usize != degree {
                return None;
            }
            let mut s = Step::new(tech);
            for c in cells(e & !bd) {
                for d in super::board::digits(b.cand[c] & m) {
                    s.eliminations.push((c as u8, d));
                }
            }
            if s.eliminations.is_empty() {
                return None;
            }
            s.set_cells(bd);
            Some(s)
        });
        if r.is_some() {
            return r;
        }
    }
    None
}

/// Hidden set of `degree` digits confined to `degree` cells of a house. With `direct`, only
/// when removing the other candidates of those cells leaves a hidden single in the house
/// (and then that single is placed too). Only houses with a changed cell are looked at.
pub fn hidden(b: &Board, degree: usize, direct: bool, changed: &Changed) -> Option<Step> {
    let tech = match (degree, direct) {
        (2, true) => Technique::DirectHiddenPair,
        (3, true) => Technique::DirectHiddenTriple,
        (2, false) => Technique::HiddenPair,
        (3, false) => Technique::HiddenTriple,
        _ => Technique::HiddenQuad,
    };
    for &h in &SCAN_ORDER {
        let e = b.empty & HOUSES[h];
        let ne = count(e) as usize;
        if !(ne > degree * 2 || (direct && ne > degree)) || !changed.cells_in(HOUSES[h]) {
            continue;
        }
        let mut list = [0usize; 9];
        let mut n = 0;
        for d in 1..=9u8 {
            let p = b.pos_in(d, h);
            if more_than(p, 1) && !more_than(p, degree as u32) {
                list[n] = d as usize;
                n += 1;
            }
        }
        let r = combos(&list[..n], degree, |set| {
            let mut common: Cells = 0;
            let mut m = 0u16;
            for &d in set {
                common |= b.pos_in(d as u8, h);
                m |= 1 << (d - 1);
            }
            if count(common) as usize != degree {
                return None;
            }
            let mut s = Step::new(tech);
            for c in cells(common) {
                for d in super::board::digits(b.cand[c] & !m) {
                    s.eliminations.push((c as u8, d));
                }
            }
            if s.eliminations.is_empty() {
                return None;
            }
            s.set_cells(common);
            if direct {
                for d in 1..=9u8 {
                    if m & (1 << (d - 1)) != 0 {
                        continue;
                    }
                    let p = b.pos_in(d, h);
                    if more_than(p, 1) {
                        let rest = p & !common;
                        if single(rest) {
                            s.placements.push((rest.trailing_zeros() as u8, d));
                            return Some(s);
                        }
                    }
                }
                return None;
            }
            Some(s)
        });
        if r.is_some() {
            return r;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate::board::bit;

    fn open_board() -> Board {
        Board::from_parts([0; 81], [0x1ff; 81])
    }

    #[test]
    fn combos_enumerates_lexicographically() {
        let mut seen = Vec::new();
        let _: Option<()> = combos(&[1, 2, 3, 4], 2, |s| {
            seen.push((s[0], s[1]));
            None
        });
        assert_eq!(seen, [(1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)]);
    }

    #[test]
    fn naked_pair_clears_its_digits_from_the_box() {
        let mut b = open_board();
        b.cand[0] = bit(1) | bit(2);
        b.cand[10] = bit(1) | bit(2);
        b = Board::from_parts([0; 81], b.cand);
        let s = naked(&b, 2, &Changed::ALL).unwrap();
        assert_eq!(s.technique, Technique::NakedPair);
        // Box 1's other 7 cells lose 1 and 2.
        assert_eq!(s.eliminations.len(), 14);
        assert!(s
            .eliminations
            .iter()
            .all(|&(c, d)| c != 0 && c != 10 && (d == 1 || d == 2)));
    }

    #[test]
    fn hidden_pair_clears_the_other_candidates_of_its_cells() {
        let mut cand = [0x1ffu16; 81];
        // Box 1: digits 8 and 9 only in cells 0 and 20.
        for c in [1, 2, 9, 10, 11, 18, 19] {
            cand[c] &= !(bit(8) | bit(9));
        }
        let b = Board::from_parts([0; 81], cand);
        let s = hidden(&b, 2, false, &Changed::ALL).unwrap();
        assert_eq!(s.technique, Technique::HiddenPair);
        let mut want: Vec<(u8, u8)> = Vec::new();
        for c in [0u8, 20] {
            for d in 1..=7 {
                want.push((c, d));
            }
        }
        assert_eq!(s.eliminations, want);
    }

    #[test]
    fn direct_hidden_pair_needs_a_following_single() {
        let mut cand = [0x1ffu16; 81];
        for c in [1, 2, 9, 10, 11, 18, 19] {
            cand[c] &= !(bit(8) | bit(9));
        }
        let b = Board::from_parts([0; 81], cand);
        assert!(hidden(&b, 2, true, &Changed::ALL).is_none());
        // Now digit 5 in box 1 only in cells 0, 20 and 2: removing 5 from 0 and 20 leaves 2.
        for c in [1, 9, 10, 11, 18, 19] {
            cand[c] &= !bit(5);
        }
        let b = Board::from_parts([0; 81], cand);
        let s = hidden(&b, 2, true, &Changed::ALL).unwrap();
        assert_eq!(s.placements, vec![(2, 5)]);
    }
}
