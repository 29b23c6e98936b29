//! Digit templates: the ways to place a digit once in every row, column and box, on its placed
//! cells and candidates; which cells some template uses and which every template uses.
//!
//! A deduction that only uses one digit's house rules (a Nishio chain) is sound for every
//! template, so it can only remove a candidate no template uses, or place one every template
//! uses: the others need no search.

use super::board::{cells, Board, Cells, HOUSES};

/// For each digit, the cells some template uses and the cells every template uses.
pub(super) struct Templates {
    some: [Cells; 9],
    every: [Cells; 9],
}

/// The placements of a digit in one band (three rows, one cell each, in distinct columns and
/// boxes), grouped by the columns they use: the union and the intersection of each group.
#[derive(Default)]
struct Band {
    groups: Vec<(u16, Cells, Cells)>,
}

impl Band {
    fn new(allowed: Cells, band: usize) -> Band {
        let mut out = Band::default();
        let rows = [band * 3, band * 3 + 1, band * 3 + 2];
        for a in cells(allowed & HOUSES[rows[0]]) {
            for b in cells(allowed & HOUSES[rows[1]]) {
                if (a % 9) / 3 == (b % 9) / 3 {
                    continue;
                }
                for c in cells(allowed & HOUSES[rows[2]]) {
                    if (c % 9) / 3 == (a % 9) / 3 || (c % 9) / 3 == (b % 9) / 3 {
                        continue;
                    }
                    let cols = 1 << (a % 9) | 1 << (b % 9) | 1 << (c % 9);
                    out.add(cols, 1 << a | 1 << b | 1 << c);
                }
            }
        }
        out
    }

    fn add(&mut self, cols: u16, placed: Cells) {
        match self.groups.iter_mut().find(|g| g.0 == cols) {
            Some(g) => {
                g.1 |= placed;
                g.2 &= placed;
            }
            None => self.groups.push((cols, placed, placed)),
        }
    }
}

thread_local! {
    /// Per digit, the last cells a digit was allowed in (its placed cells and candidates) and
    /// the union and intersection of its templates there: a step changes few digits, and the
    /// templates depend on nothing else.
    static LAST: std::cell::RefCell<[Option<(Cells, Cells, Cells)>; 9]> =
        const { std::cell::RefCell::new([None; 9]) };
}

impl Templates {
    /// The templates of every digit of `b`.
    pub(super) fn new(b: &Board) -> Templates {
        let mut t = Templates {
            some: [0; 9],
            every: [0; 9],
        };
        let mut placed = [0 as Cells; 9];
        for (c, &v) in b.value.iter().enumerate() {
            if v != 0 {
                placed[v as usize - 1] |= 1 << c;
            }
        }
        LAST.with_borrow_mut(|last| {
            for d in 0..9 {
                let allowed = b.pos[d] | placed[d];
                let (some, every) = match last[d] {
                    Some((a, some, every)) if a == allowed => (some, every),
                    _ => {
                        let (some, every) = Templates::of(allowed);
                        last[d] = Some((allowed, some, every));
                        (some, every)
                    }
                };
                t.some[d] = some;
                t.every[d] = every;
            }
        });
        t
    }

    /// The cells some template uses and the cells every template uses, for a digit allowed in
    /// the cells `allowed` (none and none when it has no template).
    fn of(allowed: Cells) -> (Cells, Cells) {
        let bands = [0, 1, 2].map(|k| Band::new(allowed, k));
        let (mut some, mut every, mut any) = (0, Cells::MAX, false);
        for x in &bands[0].groups {
            for y in bands[1].groups.iter().filter(|y| x.0 & y.0 == 0) {
                for z in bands[2].groups.iter().filter(|z| (x.0 | y.0) & z.0 == 0) {
                    some |= x.1 | y.1 | z.1;
                    every &= x.2 | y.2 | z.2;
                    any = true;
                }
            }
        }
        (some, if any { every } else { 0 })
    }

    /// Whether some template places digit `d` (1-9) in cell `c`.
    pub(super) fn some_uses(&self, c: usize, d: u8) -> bool {
        self.some[d as usize - 1] >> c & 1 != 0
    }

    /// Whether every template places digit `d` (1-9) in cell `c`.
    pub(super) fn every_uses(&self, c: usize, d: u8) -> bool {
        self.every[d as usize - 1] >> c & 1 != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The templates of digit `d` by plain search, row by row.
    fn enumerate(allowed: Cells, row: usize, cols: u16, path: Cells, out: &mut Vec<Cells>) {
        if row == 9 {
            out.push(path);
            return;
        }
        for c in cells(allowed & HOUSES[row]) {
            let boxed = path & HOUSES[18 + (row / 3) * 3 + (c % 9) / 3] != 0;
            if cols >> (c % 9) & 1 == 0 && !boxed {
                enumerate(allowed, row + 1, cols | 1 << (c % 9), path | 1 << c, out);
            }
        }
    }

    #[test]
    fn unions_and_intersections_match_every_template() {
        use crate::rate::tests::golden_state;
        use crate::rate::Technique;
        let mut checked = 0;
        for tech in [Technique::Nishio, Technique::XWing, Technique::Swordfish] {
            let (b, _, _) = golden_state(tech);
            // Built twice: the second one from the thread's remembered templates.
            let (t, again) = (Templates::new(&b), Templates::new(&b));
            assert_eq!((t.some, t.every), (again.some, again.every), "{tech:?}");
            for d in 0..9 {
                let placed = (0..81)
                    .filter(|&c| b.value[c] as usize == d + 1)
                    .fold(0, |m, c| m | 1u128 << c);
                let mut all = Vec::new();
                enumerate(b.pos[d] | placed, 0, 0, 0, &mut all);
                assert!(!all.is_empty(), "{tech:?} digit {}", d + 1);
                let some = all.iter().fold(0, |m, t| m | t);
                let every = all.iter().fold(Cells::MAX, |m, t| m & t);
                assert_eq!(t.some[d], some, "{tech:?} digit {}", d + 1);
                assert_eq!(t.every[d], every, "{tech:?} digit {}", d + 1);
                checked += (some != every) as usize;
            }
        }
        assert!(checked > 0);
    }
}
