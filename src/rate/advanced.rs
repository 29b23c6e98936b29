//! The extra links of SE's dynamic forcing chains (+) (9.0): when an implication run has
//! nothing left to follow, the simple rules look at the run's working grid (the start grid
//! minus every candidate the run turned off) and their eliminations become new "off" nodes.
//!
//! As in SE, the rules are tried in this order and the first one that yields anything is the
//! only one used: pointing and claiming (SE's generalized intersections after them add nothing
//! on a 9x9 grid: see `intersections`), hidden pairs, naked pairs, X-Wings. A hint counts only
//! if some of the candidates that made it possible were turned off by the run (its "parents");
//! a hint that already holds on the start grid is not a link. Every elimination of a hint gets
//! all of the hint's parents, in SE's order (the hints in the order the rule finds them, each
//! hint's eliminations by cell, then digit).

use super::board::{
    bit, cells, count, count9, digits, more_than, two_digits, Board, Cells, HOUSES,
};

/// First house index of the rows, columns and boxes in [`HOUSES`].
const ROW: usize = 0;
const COL: usize = 9;
const BOX: usize = 18;

/// The eliminations the advanced rules make on a working grid, with their parents (candidates
/// as `cell * 9 + digit - 1`).
#[derive(Default)]
pub struct Advanced {
    /// Per elimination: the candidate and its parents' range in `parents`.
    pub elims: Vec<(u16, u32, u32)>,
    /// The parents of all eliminations, one run per hint, shared by the hint's eliminations.
    pub parents: Vec<u16>,
    /// Per elimination: the nested chain behind it (an index into `chains`), or `u32::MAX`
    /// for a simple rule (nested forcing chains only).
    pub nest: Vec<u32>,
    /// The nested chains: an identity (hash of the chain's nodes) and the chain's complexity.
    pub chains: Vec<(u64, u32)>,
}

impl Advanced {
    /// Adds one hint: `parents` (off candidates the hint relies on) and its eliminations, which
    /// must come by increasing candidate. Nothing is added without a parent.
    pub(super) fn push(
        &mut self,
        parents: impl Iterator<Item = u16>,
        elims: impl Iterator<Item = u16>,
    ) {
        let start = self.parents.len() as u32;
        self.parents.extend(parents);
        let end = self.parents.len() as u32;
        if end > start {
            self.elims.extend(elims.map(|e| (e, start, end)));
            self.nest.resize(self.elims.len(), u32::MAX);
        }
    }

    /// Empties the list.
    pub fn clear(&mut self) {
        self.elims.clear();
        self.parents.clear();
        self.nest.clear();
        self.chains.clear();
    }
}

/// The candidates of digit `d` in `board`, as candidate indexes.
fn cds(board: Cells, d: u8) -> impl Iterator<Item = u16> {
    cells(board).map(move |c| (c * 9 + d as usize - 1) as u16)
}

/// Fills `acc` with the eliminations of the first advanced rule that has any on `grid`, whose
/// run started from `real`.
pub fn advanced_eliminations(real: &Board, grid: &Board, acc: &mut Advanced) {
    acc.clear();
    // Each house's digit places, for pointing and claiming (which visit boxes twice, rows and
    // columns once) and hidden pairs.
    let places: [[u16; 9]; 27] = std::array::from_fn(|h| grid.house_places(h));
    intersections(real, grid, &places, acc);
    if acc.elims.is_empty() {
        hidden_pairs(real, grid, &places, acc);
    }
    if acc.elims.is_empty() {
        naked_pairs(real, grid, acc);
    }
    if acc.elims.is_empty() {
        x_wings(real, grid, acc);
    }
}

/// The candidates of digit `d` the run removed (on `real`, not on `grid`).
fn gone(real: &Board, grid: &Board, d: u8) -> Cells {
    real.pos[d as usize - 1] & !grid.pos[d as usize - 1]
}

/// Pointing and claiming in SE's order (box-column, box-row, column-box, row-box pairs, each
/// by first house, second house, digit), then SE's generalized intersections (boxes, columns,
/// rows): a digit whose places in a house all see some other cells removes it there. Parents:
/// the digit's removed places in the first house (outside the second house for the pairs).
fn intersections(real: &Board, grid: &Board, places: &[[u16; 9]; 27], acc: &mut Advanced) {
    super::intersections::scan_places(
        grid,
        |h| places[h],
        |_, _| 0x1ff,
        |h1, h2, d, _| {
            let elim = super::intersections::elims(grid, d, h1, h2);
            if elim != 0 {
                let parents = gone(real, grid, d) & HOUSES[h1] & !HOUSES[h2];
                acc.push(cds(parents, d), cds(elim, d));
            }
            None::<()>
        },
    );
    // SE then looks at its generalized intersections: a digit whose places in a house all see
    // some cells outside it removes it there. On a 9x9 grid two or more cells of a house have
    // a common peer outside it only when they share a crossing house, so each such elimination
    // is one the pairs above made, which the run has already turned off: it is not looked for
    // (`generalized_intersections_add_nothing_new` checks this on random candidate grids).
}

/// Hidden pairs (SE's HiddenSet(2)): boxes, columns, rows with more than four unsolved cells,
/// digit pairs in SE's order. Parents: the pair's digits removed from the house's other cells.
fn hidden_pairs(real: &Board, grid: &Board, places: &[[u16; 9]; 27], acc: &mut Advanced) {
    for k in [BOX, COL, ROW] {
        for i in 0..9 {
            let h = HOUSES[k + i];
            if count(grid.empty & h) <= 4 {
                continue;
            }
            // Two digits with two or more places each and two places together have the same
            // two places: compared as the house's nine-bit place masks.
            let places = &places[k + i];
            for b in 2..=9u8 {
                let pb = places[b as usize - 1];
                if count9(pb) != 2 {
                    continue;
                }
                for a in 1..b {
                    if places[a as usize - 1] != pb {
                        continue;
                    }
                    let both = grid.pos_in(b, k + i);
                    let vals = bit(a) | bit(b);
                    if cells(both).all(|c| grid.cand[c] & !vals == 0) {
                        continue;
                    }
                    let parents = cells(h & !both).flat_map(|c| {
                        digits(real.cand[c] & vals).map(move |d| (c * 9 + d as usize - 1) as u16)
                    });
                    let elims = cells(both).flat_map(|c| {
                        digits(grid.cand[c] & !vals).map(move |d| (c * 9 + d as usize - 1) as u16)
                    });
                    acc.push(parents, elims);
                }
            }
        }
    }
}

/// Naked pairs (SE's NakedSet(2)): boxes, columns, rows with at least four unsolved cells,
/// cell pairs in SE's order. Parents: the other candidates removed from the pair's cells.
fn naked_pairs(real: &Board, grid: &Board, acc: &mut Advanced) {
    // Two cells with two or more candidates each and two together are bivalue cells with the
    // same candidates: only the bivalue cells are paired, in the house's cell order.
    let mut bivalue: Cells = 0;
    for c in cells(grid.empty) {
        if two_digits(grid.cand[c]) {
            bivalue |= 1 << c;
        }
    }
    for k in [BOX, COL, ROW] {
        for i in 0..9 {
            let h = HOUSES[k + i];
            if count(grid.empty & h) < 4 || !more_than(bivalue & h, 1) {
                continue;
            }
            let mut hc = [0usize; 9];
            let mut n = 0;
            for c in cells(bivalue & h) {
                hc[n] = c;
                n += 1;
            }
            for j in 1..n {
                for i in 0..j {
                    let (a, b) = (hc[i], hc[j]);
                    let vals = grid.cand[a];
                    if grid.cand[b] != vals {
                        continue;
                    }
                    let others = h & !(1u128 << a) & !(1u128 << b);
                    if cells(others).all(|c| grid.cand[c] & vals == 0) {
                        continue;
                    }
                    let parents = [a, b].into_iter().flat_map(|c| {
                        digits(real.cand[c] & !vals).map(move |d| (c * 9 + d as usize - 1) as u16)
                    });
                    let elims = cells(others).flat_map(|c| {
                        digits(grid.cand[c] & vals).map(move |d| (c * 9 + d as usize - 1) as u16)
                    });
                    acc.push(parents, elims);
                }
            }
        }
    }
}

/// X-Wings (SE's Fisherman(2)): column bases with row covers, then row bases with column
/// covers, base pairs in SE's order, then digits (only digits placed at most five times).
/// Parents: the digit's removed places in the bases outside the covers.
fn x_wings(real: &Board, grid: &Board, acc: &mut Advanced) {
    let mut placed = [0u32; 9];
    for &v in &grid.value {
        if v != 0 {
            placed[v as usize - 1] += 1;
        }
    }
    for (base, cover) in [(COL, ROW), (ROW, COL)] {
        // Two bases with two or more places each whose places lie in two covers together have
        // two places each, in the same two covers: each base's covers, when it has two places
        // (else 0), per digit.
        let mut two_covers = [[0u16; 9]; 9];
        // Per base, the digits (bit d - 1) it has in two places.
        let mut with_two = [0u16; 9];
        for d in 1..=9u8 {
            if placed[d as usize - 1] + 4 > 9 {
                continue;
            }
            let lines = grid.line_places(d, base == COL);
            for (i, &l) in lines.iter().enumerate() {
                if count9(l) == 2 {
                    two_covers[d as usize - 1][i] = l;
                    with_two[i] |= bit(d);
                }
            }
        }
        for j in 1..9 {
            for i in 0..j {
                let bases = HOUSES[base + i] | HOUSES[base + j];
                for d in digits(with_two[i] & with_two[j]) {
                    let lines = two_covers[d as usize - 1][i];
                    if two_covers[d as usize - 1][j] != lines {
                        continue;
                    }
                    let mut covers: Cells = 0;
                    for l in 0..9 {
                        if lines & (1 << l) != 0 {
                            covers |= HOUSES[cover + l];
                        }
                    }
                    let elim = grid.pos[d as usize - 1] & covers & !bases;
                    if elim != 0 {
                        acc.push(cds(gone(real, grid, d) & bases & !covers, d), cds(elim, d));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate::board::{col, row, ALL, PEERS};
    use crate::Grid;

    fn cd(c: usize, d: u8) -> u16 {
        (c * 9 + d as usize - 1) as u16
    }

    /// A grid with no givens: every candidate everywhere.
    fn open() -> Board {
        Board::new(&".".repeat(81).parse::<Grid>().unwrap())
    }

    /// SE's generalized intersections on `grid`: a digit whose two to seven places in a house
    /// all see some cells outside it removes it there. The eliminations, as candidates.
    fn generalized_intersections(grid: &Board) -> Vec<u16> {
        let mut out = Vec::new();
        for h in HOUSES.iter() {
            for d in 1..=9u8 {
                let p = grid.pos[d as usize - 1] & h;
                if !(2..=7).contains(&count(p)) {
                    continue;
                }
                let common = cells(p).fold(ALL, |m, c| m & PEERS[c]);
                out.extend(cds(common & !h & grid.pos[d as usize - 1], d));
            }
        }
        out
    }

    // The rules as first written, every pair of houses, cells or digits tested in SE's order:
    // the reference the faster forms above must equal, hint for hint.
    fn hidden_pairs_by_pairs(real: &Board, grid: &Board, acc: &mut Advanced) {
        for k in [BOX, COL, ROW] {
            for i in 0..9 {
                let h = HOUSES[k + i];
                if count(grid.empty & h) <= 4 {
                    continue;
                }
                for b in 2..=9u8 {
                    for a in 1..b {
                        let (pa, pb) = (grid.pos_in(a, k + i), grid.pos_in(b, k + i));
                        let both = pa | pb;
                        if count(pa) < 2 || count(pb) < 2 || count(both) != 2 {
                            continue;
                        }
                        let vals = bit(a) | bit(b);
                        if cells(both).all(|c| grid.cand[c] & !vals == 0) {
                            continue;
                        }
                        let parents = cells(h & !both).flat_map(|c| {
                            digits(real.cand[c] & vals)
                                .map(move |d| (c * 9 + d as usize - 1) as u16)
                        });
                        let elims = cells(both).flat_map(|c| {
                            digits(grid.cand[c] & !vals)
                                .map(move |d| (c * 9 + d as usize - 1) as u16)
                        });
                        acc.push(parents, elims);
                    }
                }
            }
        }
    }

    fn naked_pairs_by_pairs(real: &Board, grid: &Board, acc: &mut Advanced) {
        for k in [BOX, COL, ROW] {
            for i in 0..9 {
                let h = HOUSES[k + i];
                if count(grid.empty & h) < 4 {
                    continue;
                }
                let mut hc = [0usize; 9];
                for (j, c) in cells(h).enumerate() {
                    hc[j] = c;
                }
                for j in 1..9 {
                    for i in 0..j {
                        let (a, b) = (hc[i], hc[j]);
                        let (ma, mb) = (grid.cand[a], grid.cand[b]);
                        let vals = ma | mb;
                        if ma.count_ones() < 2 || mb.count_ones() < 2 || vals.count_ones() != 2 {
                            continue;
                        }
                        let others = h & !(1u128 << a) & !(1u128 << b);
                        if cells(others).all(|c| grid.cand[c] & vals == 0) {
                            continue;
                        }
                        let parents = [a, b].into_iter().flat_map(|c| {
                            digits(real.cand[c] & !vals)
                                .map(move |d| (c * 9 + d as usize - 1) as u16)
                        });
                        let elims = cells(others).flat_map(|c| {
                            digits(grid.cand[c] & vals)
                                .map(move |d| (c * 9 + d as usize - 1) as u16)
                        });
                        acc.push(parents, elims);
                    }
                }
            }
        }
    }

    fn x_wings_by_pairs(real: &Board, grid: &Board, acc: &mut Advanced) {
        let mut placed = [0u32; 9];
        for &v in &grid.value {
            if v != 0 {
                placed[v as usize - 1] += 1;
            }
        }
        for (base, cover) in [(COL, ROW), (ROW, COL)] {
            for j in 1..9 {
                for i in 0..j {
                    let bases = HOUSES[base + i] | HOUSES[base + j];
                    for d in 1..=9u8 {
                        if placed[d as usize - 1] + 4 > 9 {
                            continue;
                        }
                        let (pi, pj) = (grid.pos_in(d, base + i), grid.pos_in(d, base + j));
                        if count(pi) < 2 || count(pj) < 2 {
                            continue;
                        }
                        let mut lines = 0u16;
                        for c in cells(pi | pj) {
                            lines |= 1 << if cover == ROW { row(c) } else { col(c) };
                        }
                        if lines.count_ones() != 2 {
                            continue;
                        }
                        let mut covers: Cells = 0;
                        for l in 0..9 {
                            if lines & (1 << l) != 0 {
                                covers |= HOUSES[cover + l];
                            }
                        }
                        let elim = grid.pos[d as usize - 1] & covers & !bases;
                        if elim != 0 {
                            acc.push(cds(gone(real, grid, d) & bases & !covers, d), cds(elim, d));
                        }
                    }
                }
            }
        }
    }

    fn places_of(grid: &Board) -> [[u16; 9]; 27] {
        std::array::from_fn(|h| grid.house_places(h))
    }

    /// A random candidate grid: each candidate of `real` kept with probability `keep / 8`.
    fn thinned(real: &Board, keep: u64, random: &mut impl FnMut() -> u64) -> Board {
        let mut grid = real.clone();
        for c in 0..81 {
            for d in 1..=9u8 {
                if random() % 8 >= keep {
                    grid.eliminate(c, d);
                }
            }
        }
        grid
    }

    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// The pair rules find the same hints, with the same parents, in the same order, as the
    /// reference forms that test every pair, on random grids thinned from an empty grid and
    /// from real puzzles.
    #[test]
    fn the_pair_rules_equal_their_reference_forms() {
        type Rule = fn(&Board, &Board, &mut Advanced);
        let rules: [(Rule, Rule); 3] = [
            (
                |real, grid, acc| hidden_pairs(real, grid, &places_of(grid), acc),
                hidden_pairs_by_pairs,
            ),
            (naked_pairs, naked_pairs_by_pairs),
            (x_wings, x_wings_by_pairs),
        ];
        let mut random = xorshift(0x2545_f491_4f6c_dd1d);
        let starts: Vec<Board> = [
            ".".repeat(81),
            "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
                .into(),
            "..9.......6...3...1...7...54...52..7.....6.4..3.9.....2......1.....2.57...48....2"
                .into(),
        ]
        .iter()
        .map(|p| Board::new(&p.parse::<Grid>().unwrap()))
        .collect();
        let mut hints = [0usize; 3];
        for round in 0..6000u64 {
            let real = &starts[round as usize % starts.len()];
            // Few candidates removed to most of them.
            let grid = thinned(real, 2 + round % 6, &mut random);
            for (k, (fast, slow)) in rules.iter().enumerate() {
                let (mut a, mut b) = (Advanced::default(), Advanced::default());
                fast(real, &grid, &mut a);
                slow(real, &grid, &mut b);
                assert_eq!(a.elims, b.elims, "rule {k}, round {round}");
                assert_eq!(a.parents, b.parents, "rule {k}, round {round}");
                hints[k] += a.elims.len();
            }
        }
        assert!(hints.iter().all(|&n| n > 100), "{hints:?}");
    }

    /// On any candidate grid, what SE's generalized intersections remove the pairings have
    /// removed already, so leaving them out of a run changes none of its nodes.
    #[test]
    fn generalized_intersections_add_nothing_new() {
        let real = open();
        let mut random = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut found = 0;
        for round in 0..3000 {
            // From a few removed candidates to most of them.
            let grid = thinned(&real, 1 + round % 7, &mut random);
            let mut acc = Advanced::default();
            intersections(&real, &grid, &places_of(&grid), &mut acc);
            let general = generalized_intersections(&grid);
            found += general.len();
            for q in general {
                assert!(
                    acc.elims.iter().any(|&(e, _, _)| e == q),
                    "candidate {q} removed only by a generalized intersection"
                );
            }
        }
        assert!(found > 1000, "{found}");
    }

    #[test]
    fn nothing_without_a_removed_candidate() {
        let b = open();
        let mut acc = Advanced::default();
        advanced_eliminations(&b, &b, &mut acc);
        assert!(acc.elims.is_empty() && acc.parents.is_empty());
        // A pointing that already holds on the grid the run started from (5 off in box 1
        // outside row 1 before the run): the run removed nothing it relies on, so no link.
        let mut real = open();
        for c in [9, 10, 11, 18, 19, 20] {
            real.eliminate(c, 5);
        }
        advanced_eliminations(&real, &real.clone(), &mut acc);
        assert!(acc.elims.is_empty() && acc.parents.is_empty());
    }

    /// Turning 5 off in box 1 (r1c1-r3c3) outside row 1 makes a pointing: 5 leaves the rest
    /// of row 1, with the six removed candidates as parents.
    #[test]
    fn pointing_made_by_the_run_has_the_removed_candidates_as_parents() {
        let real = open();
        let mut grid = real.clone();
        for c in [9, 10, 11, 18, 19, 20] {
            grid.eliminate(c, 5);
        }
        let mut acc = Advanced::default();
        advanced_eliminations(&real, &grid, &mut acc);
        // The pointing, once (SE's generalized intersection of the same box would repeat it).
        let elims: Vec<u16> = acc.elims.iter().map(|e| e.0).collect();
        let row: Vec<u16> = (3..9).map(|c| cd(c, 5)).collect();
        assert_eq!(elims, row);
        for &(_, s, e) in &acc.elims {
            let parents = &acc.parents[s as usize..e as usize];
            assert_eq!(parents, [9, 10, 11, 18, 19, 20].map(|c| cd(c, 5)));
        }
    }

    /// With no intersection, a naked pair made by the run: r1c1 and r1c2 down to {1, 2}
    /// remove 1 and 2 from the rest of row 1 and of box 1; parents are the 14 removed digits.
    #[test]
    fn naked_pair_when_no_intersection_or_hidden_pair_applies() {
        let real = open();
        let mut grid = real.clone();
        for c in [0, 1] {
            for d in 3..=9 {
                grid.eliminate(c, d);
            }
        }
        let mut acc = Advanced::default();
        advanced_eliminations(&real, &grid, &mut acc);
        assert!(!acc.elims.is_empty());
        let (_, s, e) = acc.elims[0];
        let mut parents = acc.parents[s as usize..e as usize].to_vec();
        parents.sort_unstable();
        let want: Vec<u16> = [0, 1]
            .into_iter()
            .flat_map(|c| (3..=9).map(move |d| cd(c, d)))
            .collect();
        assert_eq!(parents, want);
        // Box 1 first (SE's region order), eliminations by cell then digit.
        let first: Vec<u16> = acc.elims.iter().take(4).map(|e| e.0).collect();
        assert_eq!(first, [cd(2, 1), cd(2, 2), cd(9, 1), cd(9, 2)]);
    }
}
