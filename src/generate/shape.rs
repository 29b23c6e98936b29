//! What `generate` makes: the clue-count range, minimality and the [`Symmetry`] of the clue
//! pattern (its orbits of cells, which are removed together).

use crate::grid::{Grid, CELLS};

/// No 9×9 puzzle with fewer clues has a unique solution (McGuire, Tugemann, Civario 2012).
pub const MIN_UNIQUE_CLUES: usize = 17;

/// Which symmetry the pattern of clues has. The solution grid itself is not symmetric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Symmetry {
    /// No constraint on the clue pattern.
    #[default]
    None,
    /// Half-turn rotation about the centre (the classic newspaper symmetry).
    Central,
    /// Quarter-turn rotation about the centre.
    Quarter,
    /// Mirror in the main diagonal (top-left to bottom-right).
    Diagonal,
    /// Mirror in the anti-diagonal (top-right to bottom-left).
    AntiDiagonal,
    /// Mirror in the middle row (top half mirrors bottom half).
    Horizontal,
    /// Mirror in the middle column (left half mirrors right half).
    Vertical,
    /// All eight symmetries of the square at once.
    Dihedral,
}

type CellMap = fn(usize, usize) -> (usize, usize);

impl Symmetry {
    /// Every symmetry, in the order `--help` lists them.
    pub const ALL: [Symmetry; 8] = [
        Symmetry::None,
        Symmetry::Central,
        Symmetry::Quarter,
        Symmetry::Diagonal,
        Symmetry::AntiDiagonal,
        Symmetry::Horizontal,
        Symmetry::Vertical,
        Symmetry::Dihedral,
    ];

    /// The name used on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Symmetry::None => "none",
            Symmetry::Central => "central",
            Symmetry::Quarter => "quarter",
            Symmetry::Diagonal => "diagonal",
            Symmetry::AntiDiagonal => "antidiagonal",
            Symmetry::Horizontal => "horizontal",
            Symmetry::Vertical => "vertical",
            Symmetry::Dihedral => "dihedral",
        }
    }

    /// Looks a symmetry up by name.
    pub fn from_name(name: &str) -> Option<Symmetry> {
        Self::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
    }

    /// Maps (row, column) pairs that generate the symmetry group.
    fn generators(self) -> &'static [CellMap] {
        match self {
            Symmetry::None => &[],
            Symmetry::Central => &[|r, c| (8 - r, 8 - c)],
            Symmetry::Quarter => &[|r, c| (c, 8 - r)],
            Symmetry::Diagonal => &[|r, c| (c, r)],
            Symmetry::AntiDiagonal => &[|r, c| (8 - c, 8 - r)],
            Symmetry::Horizontal => &[|r, c| (8 - r, c)],
            Symmetry::Vertical => &[|r, c| (r, 8 - c)],
            Symmetry::Dihedral => &[|r, c| (c, 8 - r), |r, c| (c, r)],
        }
    }

    /// The orbits of the 81 cells: sets of cells that must be all clues or all blanks. Each orbit
    /// is sorted and the orbits are ordered by their first cell.
    pub fn orbits(self) -> Vec<Vec<u8>> {
        let mut orbit_of = [usize::MAX; CELLS];
        let mut orbits: Vec<Vec<u8>> = Vec::new();
        for start in 0..CELLS {
            if orbit_of[start] != usize::MAX {
                continue;
            }
            let id = orbits.len();
            let mut orbit = vec![start as u8];
            orbit_of[start] = id;
            let mut next = 0;
            while next < orbit.len() {
                let cell = orbit[next] as usize;
                next += 1;
                for map in self.generators() {
                    let (r, c) = map(cell / 9, cell % 9);
                    let image = r * 9 + c;
                    if orbit_of[image] == usize::MAX {
                        orbit_of[image] = id;
                        orbit.push(image as u8);
                    }
                }
            }
            orbit.sort_unstable();
            orbits.push(orbit);
        }
        orbits
    }

    /// True when the clue pattern of `grid` has this symmetry.
    pub fn is_symmetric(self, grid: &Grid) -> bool {
        self.orbits().iter().all(|orbit| {
            let filled = grid.get(orbit[0] as usize) != 0;
            orbit
                .iter()
                .all(|&cell| (grid.get(cell as usize) != 0) == filled)
        })
    }
}

impl std::str::FromStr for Symmetry {
    type Err = crate::error::UnknownName;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Symmetry::from_name(name).ok_or_else(|| {
            crate::error::UnknownName::new("symmetry", name, Self::ALL.map(Symmetry::name))
        })
    }
}

impl std::fmt::Display for Symmetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What kind of puzzles to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Fewest clues allowed.
    pub min_clues: usize,
    /// Most clues allowed.
    pub max_clues: usize,
    /// Remove clues until none can be removed without losing uniqueness.
    pub minimal: bool,
    /// Symmetry of the clue pattern.
    pub symmetry: Symmetry,
}

impl Default for Shape {
    /// Minimal puzzles with no symmetry and any clue count.
    fn default() -> Self {
        Shape {
            min_clues: MIN_UNIQUE_CLUES,
            max_clues: CELLS,
            minimal: true,
            symmetry: Symmetry::None,
        }
    }
}

impl Shape {
    /// The shape the command line and the Python package ask for: `clues` (exactly N) or a
    /// `min`/`max` range, each defaulting to the full 17–81 range. Puzzles are minimal when
    /// `minimal` is set and also when no clue count is given, since nothing else stops clue
    /// removal then. `clues` with `min` or `max` is an error (which one would count?).
    pub fn from_options(
        clues: Option<usize>,
        min: Option<usize>,
        max: Option<usize>,
        minimal: bool,
        symmetry: Symmetry,
    ) -> Result<Shape, String> {
        if clues.is_some() && (min.is_some() || max.is_some()) {
            return Err("an exact clue count and a clue range were both given: give one".into());
        }
        let all = Shape::default();
        let (min_clues, max_clues) = match clues {
            Some(n) => (n, n),
            None => (min.unwrap_or(all.min_clues), max.unwrap_or(all.max_clues)),
        };
        let counts_given = clues.is_some() || min.is_some() || max.is_some();
        Ok(Shape {
            min_clues,
            max_clues,
            minimal: minimal || !counts_given,
            symmetry,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orbits_partition_the_grid() {
        let sizes = |s: Symmetry| {
            let mut sizes: Vec<usize> = s.orbits().iter().map(Vec::len).collect();
            sizes.sort_unstable();
            sizes.dedup();
            sizes
        };
        // (symmetry, number of orbits, distinct orbit sizes)
        let table: [(Symmetry, usize, Vec<usize>); 8] = [
            (Symmetry::None, 81, vec![1]),
            (Symmetry::Central, 41, vec![1, 2]),
            (Symmetry::Quarter, 21, vec![1, 4]),
            (Symmetry::Diagonal, 45, vec![1, 2]),
            (Symmetry::AntiDiagonal, 45, vec![1, 2]),
            (Symmetry::Horizontal, 45, vec![1, 2]),
            (Symmetry::Vertical, 45, vec![1, 2]),
            (Symmetry::Dihedral, 15, vec![1, 4, 8]),
        ];
        for (symmetry, count, distinct) in table {
            let orbits = symmetry.orbits();
            assert_eq!(orbits.len(), count, "{symmetry}");
            assert_eq!(sizes(symmetry), distinct, "{symmetry}");
            let mut all: Vec<u8> = orbits.concat();
            all.sort_unstable();
            assert_eq!(all, (0..81).collect::<Vec<u8>>(), "{symmetry}");
            assert_eq!(Symmetry::from_name(symmetry.name()), Some(symmetry));
        }
    }
}
