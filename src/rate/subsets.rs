//! Naked and hidden subsets (pairs, triples, quads) and the direct hidden pair/triple.

use super::board::{bit, cells, count, count9, house_cells, Board, Cells, HOUSES, HOUSE_CELLS};
use super::changed::Changed;
use super::scale::Technique;
use super::singles::scan;
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

/// Calls `f` with every `k`-combination of the indexes of `masks` (lexicographic) whose
/// nine-bit masks hold at most `k` bits together, and with that union, stopping at the first
/// `Some`. A union only grows as items join it, so a prefix already over `k` bits is not
/// extended: the combinations skipped are exactly those whose union is over `k` bits. `k` is
/// at most 4.
pub(crate) fn small_unions<T>(
    masks: &[u16],
    k: usize,
    mut f: impl FnMut(&[usize], u16) -> Option<T>,
) -> Option<T> {
    fn extend<T, F: FnMut(&[usize], u16) -> Option<T>>(
        masks: &[u16],
        k: usize,
        pick: &mut [usize; 4],
        depth: usize,
        union: u16,
        f: &mut F,
    ) -> Option<T> {
        if depth == k {
            return f(&pick[..k], union);
        }
        let from = if depth == 0 { 0 } else { pick[depth - 1] + 1 };
        for i in from..=masks.len() - (k - depth) {
            let u = union | masks[i];
            if count9(u) > k {
                continue;
            }
            pick[depth] = i;
            if let Some(r) = extend(masks, k, pick, depth + 1, u, f) {
                return Some(r);
            }
        }
        None
    }
    if k == 0 || k > 4 || k > masks.len() {
        return None;
    }
    extend(masks, k, &mut [0; 4], 0, 0, &mut f)
}

/// Naked set of `degree` cells in a house: their candidates number `degree`; those digits go
/// from the house's other cells. Only houses with a changed cell are looked at.
pub fn naked(b: &Board, degree: usize, changed: &Changed) -> Option<Step> {
    let tech = match degree {
        2 => Technique::NakedPair,
        3 => Technique::NakedTriple,
        _ => Technique::NakedQuad,
    };
    for h in scan(changed) {
        let e = b.empty & HOUSES[h];
        if (count(e) as usize) < degree * 2 {
            continue;
        }
        let mut list = [0usize; 9];
        let mut masks = [0u16; 9];
        let mut n = 0;
        for c in cells(e) {
            let k = count9(b.cand[c]);
            if k >= 2 && k <= degree {
                list[n] = c;
                masks[n] = b.cand[c];
                n += 1;
            }
        }
        let r = small_unions(&masks[..n], degree, |set, m| {
            if count9(m) != degree {
                return None;
            }
            let mut bd: Cells = 0;
            for &i in set {
                bd |= 1 << list[i];
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
    for h in scan(changed) {
        let e = b.empty & HOUSES[h];
        let ne = count(e) as usize;
        if !(ne > degree * 2 || (direct && ne > degree)) {
            continue;
        }
        // Places within the house: bit i is cell HOUSE_CELLS[h][i].
        let places = b.house_places(h);
        let mut list = [0u8; 9];
        let mut masks = [0u16; 9];
        let mut n = 0;
        for d in 1..=9u8 {
            let k = count9(places[d as usize - 1]);
            if k >= 2 && k <= degree {
                list[n] = d;
                masks[n] = places[d as usize - 1];
                n += 1;
            }
        }
        let r = small_unions(&masks[..n], degree, |set, at| {
            if count9(at) != degree {
                return None;
            }
            let mut m = 0u16;
            for &i in set {
                m |= bit(list[i]);
            }
            let common = house_cells(h, at);
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
                    let p = places[d as usize - 1];
                    if count9(p) > 1 {
                        let rest = p & !at;
                        if count9(rest) == 1 {
                            let c = HOUSE_CELLS[h][rest.trailing_zeros() as usize];
                            s.placements.push((c, d));
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
    fn small_unions_are_the_combinations_within_k_bits_in_order() {
        // Pseudo-random nine-bit masks; every k: the pruned walk lists exactly the
        // combinations whose union has at most k bits, in combos' order, with that union.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..300 {
            let n = (x % 10) as usize;
            let mut masks = [0u16; 9];
            for m in masks.iter_mut().take(n) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Sparse masks, so that some unions stay small.
                *m = (x & (x >> 9) & (x >> 18)) as u16 & 0x1ff;
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let masks = &masks[..n];
            for k in 1..=4 {
                let idx: Vec<usize> = (0..n).collect();
                let mut want = Vec::new();
                let _: Option<()> = combos(&idx, k, |set| {
                    let u = set.iter().fold(0, |u, &i| u | masks[i]);
                    if u.count_ones() as usize <= k {
                        want.push((set.to_vec(), u));
                    }
                    None
                });
                let mut got = Vec::new();
                let _: Option<()> = small_unions(masks, k, |set, u| {
                    got.push((set.to_vec(), u));
                    None
                });
                assert_eq!(got, want, "masks {masks:?}, k {k}");
            }
        }
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
        assert_eq!(s.placements[..], [(2, 5)]);
    }
}
