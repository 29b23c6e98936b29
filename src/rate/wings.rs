//! XY-Wing (4.2) and XYZ-Wing (4.4).

use super::board::{cells, Board, Cells, PEERS};
use super::changed::Changed;
use super::scale::Technique;
use super::Step;

/// XY-Wing (`xyz == false`: bivalue pivot xy, pincers xz and yz) or XYZ-Wing (trivalue pivot
/// xyz): z goes from every cell seeing both pincers (and, for XYZ, the pivot). Only wings with a
/// changed cell are looked at.
pub fn wing(b: &Board, xyz: bool, changed: &Changed) -> Option<Step> {
    let tech = if xyz {
        Technique::XYZWing
    } else {
        Technique::XYWing
    };
    let pivot_size = if xyz { 3 } else { 2 };
    let biv = b.bivalue();
    for p in cells(b.empty) {
        let pm = b.cand[p];
        if pm.count_ones() != pivot_size {
            continue;
        }
        let wings: Cells = biv & PEERS[p];
        let pivot_changed = changed.cells_in(1 << p);
        if !pivot_changed && !changed.cells_in(wings) {
            continue;
        }
        for a in cells(wings) {
            let am = b.cand[a];
            // A wing none of whose three cells changed was no hint before and is none now.
            let mut later = wings & !((2u128 << a) - 1);
            if !pivot_changed && !changed.cells_in(1 << a) {
                later &= changed.cells();
            }
            for c in cells(later) {
                let cm = b.cand[c];
                let union = pm | am | cm;
                if union.count_ones() != 3 || pm & am & cm != 0 && !xyz {
                    continue;
                }
                if am == cm {
                    continue;
                }
                let z = am & cm;
                if z.count_ones() != 1 || (!xyz && pm & z != 0) || (xyz && pm & z == 0) {
                    continue;
                }
                if (am & pm).count_ones() != if xyz { 2 } else { 1 }
                    || (cm & pm).count_ones() != if xyz { 2 } else { 1 }
                {
                    continue;
                }
                let d = z.trailing_zeros() as u8 + 1;
                let mut see = PEERS[a] & PEERS[c];
                if xyz {
                    see &= PEERS[p];
                }
                let e = see & b.pos[d as usize - 1];
                if e != 0 {
                    let involved = (1u128 << p) | (1u128 << a) | (1u128 << c);
                    return Some(Step::eliminate(tech, d, e, involved));
                }
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
    fn xy_wing_eliminates_the_common_digit() {
        let mut cand = [0x1ffu16; 81];
        cand[0] = bit(1) | bit(2); // pivot r1c1
        cand[5] = bit(1) | bit(3); // r1c6
        cand[27] = bit(2) | bit(3); // r4c1
        let b = Board::from_parts([0; 81], cand);
        let s = wing(&b, false, &Changed::ALL).unwrap();
        assert_eq!(s.technique, Technique::XYWing);
        // Besides the pivot, only r4c6 sees both pincers r1c6 and r4c1.
        assert_eq!(s.eliminations, vec![(32, 3)]);
    }

    #[test]
    fn xyz_wing_eliminates_where_all_three_are_seen() {
        let mut cand = [0x1ffu16; 81];
        cand[0] = bit(1) | bit(2) | bit(3); // pivot r1c1
        cand[4] = bit(1) | bit(3); // r1c5
        cand[10] = bit(2) | bit(3); // r2c2 (same box)
        let b = Board::from_parts([0; 81], cand);
        let s = wing(&b, true, &Changed::ALL).unwrap();
        assert_eq!(s.technique, Technique::XYZWing);
        // Seeing r1c1, r1c5 and r2c2: r1c2 and r1c3.
        assert_eq!(s.eliminations, vec![(1, 3), (2, 3)]);
    }
}
