//! Basic fish: X-Wing (3.2), Swordfish (3.8), Jellyfish (5.2).

use super::board::{count9, Board, Cells, HOUSES};
use super::changed::Changed;
use super::scale::Technique;
use super::subsets::small_unions;
use super::Step;

/// Fish of `degree` base lines (columns first, then rows, as SE scans them). Only digits with a
/// changed candidate are looked at.
pub fn fish(b: &Board, degree: usize, changed: &Changed) -> Option<Step> {
    let tech = match degree {
        2 => Technique::XWing,
        3 => Technique::Swordfish,
        _ => Technique::Jellyfish,
    };
    let mut placed = [0u32; 10];
    for &v in &b.value {
        placed[v as usize] += 1;
    }
    for base_is_col in [true, false] {
        let (base0, cover0) = if base_is_col { (9, 0) } else { (0, 9) };
        for d in 1..=9u8 {
            if placed[d as usize] as usize + degree * 2 > 9 || !changed.digit(d) {
                continue;
            }
            // Bit i of a base line's mask: where it crosses cover line i.
            let lines = b.line_places(d, base_is_col);
            let mut list = [0usize; 9];
            let mut masks = [0u16; 9];
            let mut n = 0;
            for (i, &p) in lines.iter().enumerate() {
                let k = count9(p);
                if k >= 2 && k <= degree {
                    list[n] = i;
                    masks[n] = p;
                    n += 1;
                }
            }
            let r = small_unions(&masks[..n], degree, |set, covers| {
                if count9(covers) != degree {
                    return None;
                }
                let mut base: Cells = 0;
                for &j in set {
                    base |= b.pos_in(d, base0 + list[j]);
                }
                let mut cover_cells: Cells = 0;
                for i in 0..9 {
                    if covers & (1 << i) != 0 {
                        cover_cells |= HOUSES[cover0 + i];
                    }
                }
                let e = b.pos[d as usize - 1] & cover_cells & !base;
                if e == 0 {
                    return None;
                }
                Some(Step::eliminate(tech, d, e, base))
            });
            if r.is_some() {
                return r;
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
    fn x_wing_on_two_rows_clears_the_two_columns() {
        let mut cand = [0x1ffu16; 81];
        // Digit 4 in rows 2 and 6 only in columns 2 and 7.
        for r in [1usize, 5] {
            for c in 0..9 {
                if c != 1 && c != 6 {
                    cand[r * 9 + c] &= !bit(4);
                }
            }
        }
        let b = Board::from_parts([0; 81], cand);
        let s = fish(&b, 2, &Changed::ALL).unwrap();
        assert_eq!(s.technique, Technique::XWing);
        let mut want: Vec<(u8, u8)> = Vec::new();
        for r in 0..9usize {
            if r != 1 && r != 5 {
                want.push(((r * 9 + 1) as u8, 4));
                want.push(((r * 9 + 6) as u8, 4));
            }
        }
        want.sort();
        assert_eq!(s.eliminations, want);
    }

    #[test]
    fn swordfish_on_three_columns() {
        let mut cand = [0x1ffu16; 81];
        // Digit 9 in columns 1, 5, 9 only in rows 1, 4, 7 (two each).
        let keep = [(0usize, [0usize, 3]), (4, [3, 6]), (8, [0, 6])];
        for (col, rows) in keep {
            for r in 0..9 {
                if !rows.contains(&r) {
                    cand[r * 9 + col] &= !bit(9);
                }
            }
        }
        let b = Board::from_parts([0; 81], cand);
        assert!(fish(&b, 2, &Changed::ALL).is_none());
        let s = fish(&b, 3, &Changed::ALL).unwrap();
        assert_eq!(s.technique, Technique::Swordfish);
        assert_eq!(s.eliminations.len(), 3 * 6);
        assert!(s.eliminations.iter().all(|&(c, d)| d == 9
            && [0, 3, 6].contains(&(c / 9))
            && ![0, 4, 8].contains(&(c % 9))));
    }

    #[test]
    fn jellyfish_on_four_rows() {
        let mut cand = [0x1ffu16; 81];
        // Digit 9 in rows 1, 3, 5, 7 only in columns 1-4, two per row, in a ring.
        let keep = [(0usize, [0usize, 1]), (2, [1, 2]), (4, [2, 3]), (6, [3, 0])];
        for (r, cols) in keep {
            for c in 0..9 {
                if !cols.contains(&c) {
                    cand[r * 9 + c] &= !bit(9);
                }
            }
        }
        let b = Board::from_parts([0; 81], cand);
        assert!(fish(&b, 2, &Changed::ALL).is_none() && fish(&b, 3, &Changed::ALL).is_none());
        let s = fish(&b, 4, &Changed::ALL).unwrap();
        assert_eq!(s.technique, Technique::Jellyfish);
        assert_eq!(s.eliminations.len(), 5 * 4);
        assert!(s
            .eliminations
            .iter()
            .all(|&(c, d)| d == 9 && c % 9 < 4 && ![0, 2, 4, 6].contains(&(c / 9))));
    }
}
