//! Aligned pair exclusion (6.2): two cells' candidate combinations that would empty a bivalue
//! cell seeing both (or repeat a digit in a shared house) are impossible; a digit with no
//! possible combination left is eliminated.

use super::board::{cells, digits, Board, Cells, PEERS};
use super::scale::Technique;
use super::Step;

/// Aligned pair exclusion over every pair of candidate cells, in SE's row-major pair order.
pub fn aligned_pair(b: &Board) -> Option<Step> {
    let biv = b.bivalue();
    let mut naked_single: Cells = 0;
    for c in cells(b.empty) {
        if b.cand[c].count_ones() == 1 {
            naked_single |= 1 << c;
        }
    }
    let mut list = [0usize; 81];
    let mut n = 0;
    for c in cells(b.empty) {
        if b.cand[c].count_ones() >= 2 && PEERS[c] & naked_single == 0 && PEERS[c] & biv != 0 {
            list[n] = c;
            n += 1;
        }
    }
    for i in 0..n {
        for j in i + 1..n {
            let (c0, c1) = (list[i], list[j]);
            let excl = PEERS[c0] & PEERS[c1] & biv;
            if excl.count_ones() < 2 {
                continue;
            }
            let see = PEERS[c0] & (1u128 << c1) != 0;
            let (m0, m1) = (b.cand[c0], b.cand[c1]);
            let (mut ok0, mut ok1) = (0u16, 0u16);
            for d0 in digits(m0) {
                for d1 in digits(m1) {
                    if d0 == d1 && see {
                        continue;
                    }
                    let pair = (1u16 << (d0 - 1)) | (1u16 << (d1 - 1));
                    if cells(excl).any(|e| b.cand[e] & !pair == 0) {
                        continue;
                    }
                    ok0 |= 1 << (d0 - 1);
                    ok1 |= 1 << (d1 - 1);
                }
            }
            if ok0 != m0 || ok1 != m1 {
                let mut s = Step::new(Technique::AlignedPairExclusion);
                for d in digits(m0 & !ok0) {
                    s.eliminations.push((c0 as u8, d));
                }
                for d in digits(m1 & !ok1) {
                    s.eliminations.push((c1 as u8, d));
                }
                s.set_cells((1u128 << c0) | (1u128 << c1) | excl);
                return Some(s);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate::board::bit;

    #[test]
    fn pair_exclusion_removes_a_digit_that_would_empty_a_bivalue_cell() {
        let mut cand = [0x1ffu16; 81];
        // r1c1 = {1,2} and r1c2 = {1,3,4}; bivalue cells r2c3 = {1,3} and r3c3 = {2,3} see both.
        // Then r1c2 = 3 needs r1c1 = 1 (kills {1,3}) or r1c1 = 2 (kills {2,3}): 3 is impossible.
        cand[0] = bit(1) | bit(2);
        cand[1] = bit(1) | bit(3) | bit(4);
        cand[11] = bit(1) | bit(3);
        cand[20] = bit(2) | bit(3);
        let b = Board::from_parts([0; 81], cand);
        let s = aligned_pair(&b).unwrap();
        assert_eq!(s.technique, Technique::AlignedPairExclusion);
        assert!(s.eliminations.contains(&(1, 3)));
    }
}
