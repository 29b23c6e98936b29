//! Unavoidable sets of a solution grid (from row, column and digit pairs), indexed by cell, so a
//! clue removal that would leave one without a clue is refused without asking the solver.

use crate::grid::{Grid, CELLS, UNITS};

/// Unavoidable sets of `solution` found from pairs of rows in one band (and of columns in one
/// stack), as masks of cell indices: a puzzle that leaves every cell of one blank has a second
/// solution, so a removal that would do that fails without asking the solver.
///
/// For rows r1, r2 of a band, follow each column c to the column where r2 holds r1's digit of c;
/// every cycle C of that map is such a set: swapping the two rows' digits on C keeps both rows
/// (same digits), each column (two cells swapped) and each box (r1 and r2 share the band's
/// boxes) valid, and changes exactly the 2·|C| cells.
pub(super) fn unavoidable_sets(solution: &Grid) -> Deadly {
    let at = |r: usize, c: usize| solution.get(r * 9 + c) as usize;
    let mut sets = Vec::new();
    for transpose in [false, true] {
        // (line, position) -> cell index, for rows or, transposed, for columns
        let cell = |line: usize, pos: usize| {
            if transpose {
                pos * 9 + line
            } else {
                line * 9 + pos
            }
        };
        let digit = |line: usize, pos: usize| {
            if transpose {
                at(pos, line)
            } else {
                at(line, pos)
            }
        };
        for band in 0..3 {
            for a in band * 3..band * 3 + 3 {
                for b in a + 1..band * 3 + 3 {
                    let mut pos_in_b = [0usize; 10];
                    for pos in 0..9 {
                        pos_in_b[digit(b, pos)] = pos;
                    }
                    let mut seen = [false; 9];
                    for start in 0..9 {
                        let mut set = 0u128;
                        let mut pos = start;
                        while !seen[pos] {
                            seen[pos] = true;
                            set |= 1 << cell(a, pos) | 1 << cell(b, pos);
                            pos = pos_in_b[digit(a, pos)];
                        }
                        if set != 0 {
                            sets.push(set);
                        }
                    }
                }
            }
        }
    }
    // Digit pairs a, b: swapping a and b on a set T of their 18 cells keeps the grid valid when
    // every unit that meets T has both its a-cell and its b-cell in T; the smallest such T are
    // the connected parts of the graph linking the a-cell and b-cell of each unit.
    let mut cell_of = [0u8; 27 * 10]; // [unit * 10 + digit] -> cell
    for (unit, cells) in UNITS.iter().enumerate() {
        for &cell in cells {
            cell_of[unit * 10 + solution.get(cell as usize) as usize] = cell;
        }
    }
    for a in 1..=9usize {
        for b in a + 1..=9 {
            // Union-find over the 18 cells (a-cells by row are 0..9, b-cells 9..18).
            let mut parent: [u8; 18] = std::array::from_fn(|i| i as u8);
            fn root(parent: &mut [u8; 18], mut x: u8) -> u8 {
                while parent[x as usize] != x {
                    parent[x as usize] = parent[parent[x as usize] as usize];
                    x = parent[x as usize];
                }
                x
            }
            let node = |cell: u8, is_b: bool| (cell / 9) + if is_b { 9 } else { 0 };
            for unit in 0..27 {
                let x = node(cell_of[unit * 10 + a], false);
                let y = node(cell_of[unit * 10 + b], true);
                let (rx, ry) = (root(&mut parent, x), root(&mut parent, y));
                parent[rx as usize] = ry;
            }
            let mut parts = [0u128; 18];
            for row in 0..9 {
                let (ca, cb) = (cell_of[row * 10 + a], cell_of[row * 10 + b]);
                parts[root(&mut parent, node(ca, false)) as usize] |= 1 << ca;
                parts[root(&mut parent, node(cb, true)) as usize] |= 1 << cb;
            }
            sets.extend(parts.iter().copied().filter(|&set| set != 0));
        }
    }
    // Smallest first: they are the ones most often left all blank.
    sets.sort_unstable_by_key(|s| (s.count_ones(), *s));
    sets.dedup();
    Deadly::new(sets)
}

/// The cell indices of a mask, lowest first.
pub(super) fn cells_of(mut set: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let cell = set.trailing_zeros() as usize;
            set &= set - 1;
            cell
        })
    })
}

/// Unavoidable sets with an index from each cell to the sets that contain it.
pub(super) struct Deadly {
    pub(super) sets: Vec<u128>,
    /// `entries[offsets[cell]..offsets[cell + 1]]` are the indices of the sets holding `cell`.
    offsets: [u16; CELLS + 1],
    entries: Vec<u16>,
}

impl Deadly {
    fn new(sets: Vec<u128>) -> Deadly {
        let mut offsets = [0u16; CELLS + 1];
        for &set in &sets {
            for cell in cells_of(set) {
                offsets[cell + 1] += 1;
            }
        }
        for cell in 0..CELLS {
            offsets[cell + 1] += offsets[cell];
        }
        let mut entries = vec![0u16; offsets[CELLS] as usize];
        let mut fill = offsets;
        for (index, &set) in sets.iter().enumerate() {
            for cell in cells_of(set) {
                entries[fill[cell] as usize] = index as u16;
                fill[cell] += 1;
            }
        }
        Deadly {
            sets,
            offsets,
            entries,
        }
    }

    /// True when blanking the cells of `orbit` (mask `orbit_mask`) on top of `blanks` would
    /// leave some unavoidable set with no clue.
    pub(super) fn would_empty_a_set(&self, orbit: &[u8], orbit_mask: u128, blanks: u128) -> bool {
        let blank = blanks | orbit_mask;
        orbit.iter().any(|&cell| {
            let range =
                self.offsets[cell as usize] as usize..self.offsets[cell as usize + 1] as usize;
            self.entries[range]
                .iter()
                .any(|&index| self.sets[index as usize] & !blank == 0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::generator::{puzzle_rng, random_solution};
    use crate::solver::SolverKind;

    #[test]
    fn unavoidable_sets_are_unavoidable() {
        let solution = random_solution(&mut puzzle_rng(2, 0));
        let deadly = unavoidable_sets(&solution);
        // every pair of rows of a band and of columns of a stack gives at least one set,
        // and so does every digit pair
        assert!(deadly.sets.len() >= 18 + 36, "{}", deadly.sets.len());
        assert!(deadly.sets.iter().all(|s| s.count_ones() >= 4));
        for &set in &deadly.sets {
            let mut puzzle = solution;
            for cell in cells_of(set) {
                puzzle.set(cell, 0);
            }
            assert_eq!(SolverKind::default().solve(&puzzle, 2).count, 2, "{set:x}");
            let first = cells_of(set).next().unwrap();
            assert!(deadly.would_empty_a_set(&[first as u8], 1 << first, set));
            assert!(!deadly.would_empty_a_set(&[first as u8], 1 << first, 0));
        }
    }
}
