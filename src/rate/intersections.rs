//! Intersections (locked candidates): pointing (2.6) and claiming (2.8), and their "direct"
//! forms (1.7 / 1.9) that are only used when they immediately leave a hidden single.

use super::board::{
    boxof, col, count9, digits, more_than, row, single, Board, Cells, HOUSES, HOUSE_CELLS,
};
use super::changed::Changed;
use super::scale::Technique;
use super::Step;

/// SE's pairings: (box, column), (box, row), (column, box), (row, box).
const PAIRINGS: [(usize, usize); 4] = [(18, 9), (18, 0), (9, 18), (0, 18)];

/// Calls `f(h1, h2, d, positions)` for every digit whose candidates in house `h1` (at least two)
/// all lie in the crossing house `h2`, in SE's scan order; stops at the first `Some`. Only the
/// digits of `look(h1, t2)` (a digit mask) are looked at (`t2`: the kind of `h2`, 0 rows, 9
/// columns, 18 boxes).
pub(super) fn scan<T>(
    b: &Board,
    look: impl Fn(usize, usize) -> u16,
    f: impl FnMut(usize, usize, u8, Cells) -> Option<T>,
) -> Option<T> {
    scan_places(b, |h| b.house_places(h), look, f)
}

/// [`scan`], with each house's digit places ([`Board::house_places`]) from `places`.
pub(super) fn scan_places<T>(
    b: &Board,
    places: impl Fn(usize) -> [u16; 9],
    look: impl Fn(usize, usize) -> u16,
    mut f: impl FnMut(usize, usize, u8, Cells) -> Option<T>,
) -> Option<T> {
    for &(t1, t2) in &PAIRINGS {
        for i1 in 0..9 {
            let h1 = t1 + i1;
            if b.empty & HOUSES[h1] == 0 {
                continue;
            }
            // Each digit's places lie in at most one crossing house: find it, then visit the
            // digits in SE's order (crossing house first, then digit).
            let look = look(h1, t2);
            if look == 0 {
                continue;
            }
            // Places in h1 (bit j: cell HOUSE_CELLS[h1][j]); the places of h1 that one crossing
            // house of kind t2 holds are a group of three bits.
            let places = places(h1);
            let mut hits = [(0usize, 0u8, 0 as Cells); 9];
            let mut n = 0;
            for d in digits(look) {
                let p9 = places[d as usize - 1];
                if count9(p9) < 2 {
                    continue;
                }
                let j = p9.trailing_zeros() as usize;
                let group = if t1 == 18 && t2 == 9 {
                    0o111 << (j % 3)
                } else {
                    0o7 << (j / 3 * 3)
                };
                if p9 & !group == 0 {
                    let h2 = crossing(t2, HOUSE_CELLS[h1][j] as usize);
                    let p = b.pos_in(d, h1);
                    let mut at = n;
                    while at > 0 && hits[at - 1].0 > h2 {
                        hits[at] = hits[at - 1];
                        at -= 1;
                    }
                    hits[at] = (h2, d, p);
                    n += 1;
                }
            }
            for &(h2, d, p) in &hits[..n] {
                if let Some(r) = f(h1, h2, d, p) {
                    return Some(r);
                }
            }
        }
    }
    None
}

/// The house of kind `t` (0 rows, 9 columns, 18 boxes) holding cell `c`.
fn crossing(t: usize, c: usize) -> usize {
    match t {
        0 => row(c),
        9 => 9 + col(c),
        _ => 18 + boxof(c),
    }
}

/// The candidates of digit `d` that house `h2` loses when its places in `h1` all lie in `h2`.
pub(super) fn elims(b: &Board, d: u8, h1: usize, h2: usize) -> Cells {
    b.pos_in(d, h2) & !HOUSES[h1]
}

/// For each house, the band (three rows) and the stack (three columns) holding its first cell.
const CHUTES: [[Cells; 2]; 27] = {
    let mut t = [[0; 2]; 27];
    let mut h = 0;
    while h < 27 {
        let c = HOUSES[h].trailing_zeros() as usize;
        let mut i = 0;
        while i < 3 {
            t[h][0] |= HOUSES[row(c) / 3 * 3 + i];
            t[h][1] |= HOUSES[9 + col(c) / 3 * 3 + i];
            i += 1;
        }
        h += 1;
    }
    t
};

/// The band or stack holding the houses of the first house's kind that cross a second house of
/// kind `t2` (0 rows, 9 columns, 18 boxes): the cells a direct hint on `h1` depends on.
fn chute(h1: usize, t2: usize) -> Cells {
    let rows = h1 < 9 || (h1 >= 18 && t2 == 0);
    CHUTES[h1][!rows as usize]
}

/// Pointing or claiming whose eliminations leave a hidden single in another house of the first
/// house's kind crossing the second house. Only digits with a change in the chute are looked at.
pub fn direct(b: &Board, changed: &Changed) -> Option<Step> {
    scan(
        b,
        |h1, t2| changed.digits_in(chute(h1, t2)),
        |h1, h2, d, p| {
            let t1 = h1 / 9 * 9;
            for h3 in t1..t1 + 9 {
                if h3 == h1 || HOUSES[h3] & HOUSES[h2] == 0 {
                    continue;
                }
                let p3 = b.pos_in(d, h3);
                if more_than(p3, 1) {
                    let rest = p3 & !HOUSES[h2];
                    if single(rest) {
                        let t = if h1 >= 18 {
                            Technique::DirectPointing
                        } else {
                            Technique::DirectClaiming
                        };
                        let e = elims(b, d, h1, h2);
                        let mut s = Step::eliminate(t, d, e, p);
                        s.placements.push((rest.trailing_zeros() as u8, d));
                        return Some(s);
                    }
                }
            }
            None
        },
    )
}

/// Pointing (the first house is a box) or claiming (a line). Only digits that changed in the
/// first house are looked at.
pub fn locking(b: &Board, changed: &Changed) -> Option<Step> {
    scan(
        b,
        |h1, _| changed.digits_in(HOUSES[h1]),
        |h1, h2, d, p| {
            let e = elims(b, d, h1, h2);
            if e == 0 {
                return None;
            }
            let t = if h1 >= 18 {
                Technique::Pointing
            } else {
                Technique::Claiming
            };
            Some(Step::eliminate(t, d, e, p))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate::board::bit;

    /// A board where every cell holds every candidate, then reduced by `strip`.
    fn open_board() -> Board {
        Board::from_parts([0; 81], [0x1ff; 81])
    }

    #[test]
    fn pointing_eliminates_along_the_row() {
        let mut b = open_board();
        // Digit 5 in box 1 only in row 1 (cells 0, 1).
        for c in [2, 9, 10, 11, 18, 19, 20] {
            b.eliminate(c, 5);
        }
        let s = locking(&b, &Changed::ALL).unwrap();
        assert_eq!(s.technique, Technique::Pointing);
        let mut expected: Vec<(u8, u8)> = (3..9).map(|c| (c, 5)).collect();
        expected.sort();
        assert_eq!(s.eliminations, expected);
        assert_eq!(b.cand[3] & bit(5), bit(5));
    }

    #[test]
    fn claiming_eliminates_in_the_box() {
        let mut b = open_board();
        // Digit 7 in row 5 (cells 36..45) only in box 4 (cells 36, 37, 38)... use column instead:
        // column 1 (cells 0, 9, ..., 72): 7 only in rows 1-3.
        for r in 3..9 {
            b.eliminate(r * 9, 7);
        }
        // Make box 1 not pointing: keep 7 everywhere in box 1.
        let s = locking(&b, &Changed::ALL).unwrap();
        assert_eq!(s.technique, Technique::Claiming);
        let cells_elim: Vec<u8> = s.eliminations.iter().map(|e| e.0).collect();
        assert_eq!(cells_elim, vec![1, 2, 10, 11, 19, 20]);
        assert!(s.eliminations.iter().all(|e| e.1 == 7));
    }

    #[test]
    fn direct_intersection_places_the_single_it_leaves() {
        let mut b = open_board();
        // Row 1: 7 only in r1c1, r1c2 (a claiming in box 1). Row 2: 7 only in r2c1 and r2c5.
        // Box 3 is then left with 7 only in row 3, a pointing that leaves r2c5 as box 2's only
        // place: SE tries pointing (1.7) before claiming (1.9), so that is the step.
        for c in 2..9 {
            b.eliminate(c, 7);
        }
        for c in [10, 11, 12, 14, 15, 16, 17] {
            b.eliminate(c, 7);
        }
        let s = direct(&b, &Changed::ALL).unwrap();
        assert_eq!(s.technique, Technique::DirectPointing);
        assert_eq!(s.rating, 17);
        assert_eq!(s.placements[..], [(13, 7)]);
        assert_eq!(s.eliminations, (18..24).map(|c| (c, 7)).collect::<Vec<_>>());
    }
}
