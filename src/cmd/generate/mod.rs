//! `generate`: puzzles with exactly one solution, reproducible from a seed on any machine, with
//! any thread count and with any solver.
//!
//! Puzzle `i` of a run depends only on the seed, `i` and the options: it gets its own random
//! stream (ChaCha8 keyed by the seed, stream number `i`), so puzzles can be made on any thread in
//! any order and written in index order ([`crate::run::ordered_map`]). The solver is used only
//! to answer yes/no questions (is this puzzle still unique?), whose answers do not depend on which
//! solver answers them; the solution grid is drawn by this module's own randomised fill.
//!
//! Making one puzzle:
//! 1. draw a random complete grid: fewest-candidates-first backtracking with a random digit order;
//! 2. visit the symmetry orbits of the cells in random order and remove each orbit's clues when
//!    the puzzle stays unique. A removal that would leave an unavoidable set of the grid (found
//!    from row, column and digit pairs) without a clue fails at once; one that leaves every
//!    removed cell forced by a naked or hidden single of the remaining clues succeeds at once;
//!    otherwise the solver is asked whether a removed cell can hold another digit (limit-1
//!    solves, one per other candidate);
//! 3. stop at the drawn clue target, or after every orbit was tried (then the puzzle is minimal:
//!    a removal that failed once fails for every later, smaller puzzle too); retry with a new grid
//!    when the result is outside the wanted clue range;
//! 4. prove the result unique with the solver once more before it is written.

use std::path::PathBuf;
use std::time::Instant;

use rand_chacha::rand_core::{Rng as _, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::{Error, Result};
use crate::grid::{box_of, Grid, CELLS, UNITS};
use crate::io::output::Output;
use crate::run::{build_pool, ordered_map, Progress};
use crate::solver::SolverKind;

/// Puzzles per work item handed to the pool.
const CHUNK: u64 = 64;

/// Fresh grids tried for one puzzle before the run gives up on its clue range.
pub const MAX_ATTEMPTS: u32 = 20_000;

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

/// Everything `generate` needs, built from the command line.
#[derive(Debug, Clone)]
pub struct GenerateConfig {
    /// How many puzzles.
    pub count: u64,
    /// The seed; `None` draws one (and the summary prints it).
    pub seed: Option<u64>,
    /// What kind of puzzles.
    pub shape: Shape,
    /// Write CSV `puzzle,solution,clues` instead of one puzzle per line.
    pub with_solution: bool,
    /// Output file; `None` for stdout.
    pub output: Option<PathBuf>,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The solver that proves uniqueness.
    pub solver: SolverKind,
    /// No progress bar and no summary on stderr.
    pub quiet: bool,
}

impl GenerateConfig {
    /// A configuration for `count` default puzzles (minimal, no symmetry) from `seed`, written
    /// to stdout.
    pub fn new(count: u64, seed: u64) -> Self {
        GenerateConfig {
            count,
            seed: Some(seed),
            shape: Shape::default(),
            with_solution: false,
            output: None,
            threads: crate::run::default_threads(),
            solver: SolverKind::default(),
            quiet: true,
        }
    }
}

/// One generated puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generated {
    /// The puzzle, proven to have exactly one solution.
    pub puzzle: Grid,
    /// Its solution.
    pub solution: Grid,
    /// Grids drawn before one gave a puzzle in the clue range (1 = first try).
    pub attempts: u32,
    /// Uniqueness questions asked of the solver (the rest were settled by singles).
    pub solver_calls: u32,
}

/// Makes puzzles of one [`Shape`]; cheap to share between threads.
#[derive(Debug, Clone)]
pub struct Generator {
    shape: Shape,
    solver: SolverKind,
    orbits: Vec<Vec<u8>>,
}

impl Generator {
    /// A generator, or a usage error when no puzzle can have the shape (for example fewer than
    /// 17 clues, or a clue count the symmetry cannot produce).
    pub fn new(shape: Shape, solver: SolverKind) -> Result<Generator> {
        let Shape {
            min_clues,
            max_clues,
            ..
        } = shape;
        if min_clues > max_clues {
            return Err(Error::Usage(format!(
                "the minimum clue count {min_clues} is above the maximum {max_clues}"
            )));
        }
        if max_clues > CELLS {
            return Err(Error::Usage(format!(
                "a puzzle has at most 81 clues, not {max_clues}"
            )));
        }
        if max_clues < MIN_UNIQUE_CLUES {
            return Err(Error::Usage(format!(
                "no puzzle with fewer than {MIN_UNIQUE_CLUES} clues has a unique solution \
                 (asked for at most {max_clues})"
            )));
        }
        let orbits = shape.symmetry.orbits();
        // Which clue counts can this symmetry make at all? (subset sums of orbit sizes)
        let mut reachable = [false; CELLS + 1];
        reachable[0] = true;
        for orbit in &orbits {
            for total in (orbit.len()..=CELLS).rev() {
                reachable[total] |= reachable[total - orbit.len()];
            }
        }
        if !(min_clues..=max_clues).any(|n| reachable[n]) {
            return Err(Error::Usage(format!(
                "symmetry {} cannot make a puzzle with {} clues",
                shape.symmetry,
                if min_clues == max_clues {
                    min_clues.to_string()
                } else {
                    format!("{min_clues} to {max_clues}")
                }
            )));
        }
        Ok(Generator {
            shape,
            solver,
            orbits,
        })
    }

    /// The shape this generator makes.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Makes puzzle number `index` of the run with `seed`. The result depends only on `seed`,
    /// `index` and the shape.
    pub fn generate(&self, seed: u64, index: u64) -> Result<Generated> {
        let mut rng = Rng::new(seed, index);
        let mut solver_calls = 0u32;
        let Shape {
            min_clues,
            max_clues,
            minimal,
            ..
        } = self.shape;
        for attempt in 1..=MAX_ATTEMPTS {
            let solution = random_solution(&mut rng);
            let target = if minimal {
                0
            } else {
                min_clues + rng.below((max_clues - min_clues + 1) as u32) as usize
            };
            let (puzzle, calls) = self.carve(&solution, target, &mut rng);
            solver_calls += calls;
            let clues = puzzle.clue_count();
            if clues < min_clues || clues > max_clues {
                continue;
            }
            // The proof: the solver, not the bookkeeping above, says the puzzle is unique.
            let outcome = self.solver.solve(&puzzle, 2);
            solver_calls += 1;
            if outcome.count != 1 || outcome.solution != Some(solution) {
                return Err(Error::Usage(format!(
                    "internal error: puzzle {index} ({}) is not proven unique by solver {} \
                     ({} solutions found)",
                    String::from_utf8_lossy(&puzzle.to_bytes()),
                    self.solver,
                    outcome.count
                )));
            }
            return Ok(Generated {
                puzzle,
                solution,
                attempts: attempt,
                solver_calls,
            });
        }
        Err(Error::Usage(format!(
            "no {}puzzle with {} clues{} found for puzzle {index} in {MAX_ATTEMPTS} attempts; \
             random clue removal seldom goes below about 21 clues",
            if minimal { "minimal " } else { "" },
            if min_clues == max_clues {
                min_clues.to_string()
            } else {
                format!("{min_clues}-{max_clues}")
            },
            match self.shape.symmetry {
                Symmetry::None => String::new(),
                s => format!(" and {s} symmetry"),
            }
        )))
    }

    /// Removes clues from `solution` orbit by orbit in random order while the puzzle stays
    /// unique, not going below `target` clues. Returns the puzzle and the solver calls made.
    fn carve(&self, solution: &Grid, target: usize, rng: &mut Rng) -> (Grid, u32) {
        let mut board = Board::new(solution);
        let deadly = unavoidable_sets(solution);
        let mut blanks = 0u128;
        let mut order: Vec<u16> = (0..self.orbits.len() as u16).collect();
        rng.shuffle(&mut order);
        let mut clues = CELLS;
        let mut solver_calls = 0;
        for &orbit in &order {
            let cells = &self.orbits[orbit as usize];
            if clues < target + cells.len() {
                continue;
            }
            let orbit_mask = cells.iter().fold(0u128, |m, &c| m | 1 << c);
            if deadly.would_empty_a_set(cells, orbit_mask, blanks) {
                // Every cell of an unavoidable set would be blank: not unique, no solver needed.
                continue;
            }
            for &cell in cells {
                board.clear(cell as usize);
            }
            let unique = cells.iter().all(|&cell| board.is_forced(cell as usize))
                || self.no_other_solution(&board, cells, &mut solver_calls);
            if unique {
                blanks |= orbit_mask;
                clues -= cells.len();
                if clues == target {
                    break;
                }
            } else {
                for &cell in cells {
                    board.restore(cell as usize, solution.get(cell as usize));
                }
            }
        }
        (board.grid(), solver_calls)
    }
}

impl Generator {
    /// True when the puzzle on `board` (whose solution is known to be `board.values`, with the
    /// clues of `cells` just removed) has no other solution. Instead of counting solutions up to
    /// 2, which must search the known solution's whole subtree again, it asks whether any removed
    /// cell can differ: for each removed cell in turn (the earlier ones fixed to their solution
    /// digits), each other candidate digit is placed and the solver looks for one solution.
    fn no_other_solution(&self, board: &Board, cells: &[u8], solver_calls: &mut u32) -> bool {
        let mut probe = board.grid();
        for &cell in cells {
            let cell = cell as usize;
            let digit = board.values[cell];
            let others = board.candidates(cell) & !(1u16 << (digit - 1));
            for other in 1..=9u8 {
                if others & (1 << (other - 1)) != 0 {
                    probe.set(cell, other);
                    *solver_calls += 1;
                    if self.solver.solve(&probe, 1).count > 0 {
                        return false;
                    }
                }
            }
            probe.set(cell, digit);
        }
        true
    }
}

/// Unavoidable sets of `solution` found from pairs of rows in one band (and of columns in one
/// stack), as masks of cell indices: a puzzle that leaves every cell of one blank has a second
/// solution, so a removal that would do that fails without asking the solver.
///
/// For rows r1, r2 of a band, follow each column c to the column where r2 holds r1's digit of c;
/// every cycle C of that map is such a set: swapping the two rows' digits on C keeps both rows
/// (same digits), each column (two cells swapped) and each box (r1 and r2 share the band's
/// boxes) valid, and changes exactly the 2·|C| cells.
fn unavoidable_sets(solution: &Grid) -> Deadly {
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
fn cells_of(mut set: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let cell = set.trailing_zeros() as usize;
            set &= set - 1;
            cell
        })
    })
}

/// Unavoidable sets with an index from each cell to the sets that contain it.
struct Deadly {
    sets: Vec<u128>,
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
    fn would_empty_a_set(&self, orbit: &[u8], orbit_mask: u128, blanks: u128) -> bool {
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

/// A puzzle being carved, with the digits each row, column and box holds as clues.
///
/// ```text
/// cells[81]                 0 = blank, else the clue
/// rows[9], cols[9], boxes[9] bit d-1 set = digit d is a clue in that unit
/// values[81]                the solution, to know what a blank cell must hold
/// ```
struct Board {
    cells: [u8; CELLS],
    values: [u8; CELLS],
    rows: [u16; 9],
    cols: [u16; 9],
    boxes: [u16; 9],
}

impl Board {
    fn new(solution: &Grid) -> Board {
        let mut board = Board {
            cells: [0; CELLS],
            values: *solution.cells(),
            rows: [0; 9],
            cols: [0; 9],
            boxes: [0; 9],
        };
        for cell in 0..CELLS {
            board.restore(cell, solution.get(cell));
        }
        board
    }

    fn grid(&self) -> Grid {
        Grid::from_cells(self.cells).unwrap_or_else(Grid::empty)
    }

    fn clear(&mut self, cell: usize) {
        if self.cells[cell] == 0 {
            return;
        }
        let bit = !(1u16 << (self.cells[cell] - 1));
        self.rows[cell / 9] &= bit;
        self.cols[cell % 9] &= bit;
        self.boxes[box_of(cell)] &= bit;
        self.cells[cell] = 0;
    }

    fn restore(&mut self, cell: usize, digit: u8) {
        let bit = 1u16 << (digit - 1);
        self.rows[cell / 9] |= bit;
        self.cols[cell % 9] |= bit;
        self.boxes[box_of(cell)] |= bit;
        self.cells[cell] = digit;
    }

    /// Digits the clues allow in `cell` (bit d-1 = digit d).
    #[inline]
    fn candidates(&self, cell: usize) -> u16 {
        !(self.rows[cell / 9] | self.cols[cell % 9] | self.boxes[box_of(cell)]) & 0x1FF
    }

    /// True when the clues alone force the blank `cell` to its solution digit by a naked single
    /// (no other digit fits) or a hidden single (no other blank cell of one of its units can
    /// take the digit). Every solution of the puzzle then has that digit there.
    fn is_forced(&self, cell: usize) -> bool {
        let bit = 1u16 << (self.values[cell] - 1);
        if self.candidates(cell) == bit {
            return true;
        }
        let units = [cell / 9, 9 + cell % 9, 18 + box_of(cell)];
        units.iter().any(|&unit| {
            UNITS[unit].iter().all(|&other| {
                let other = other as usize;
                other == cell || self.cells[other] != 0 || self.candidates(other) & bit == 0
            })
        })
    }
}

/// Draws a random complete grid: the three diagonal boxes (which share no unit) get random
/// permutations, then fewest-candidates-first backtracking fills the rest, trying each cell's
/// candidates in random order. Retries in the rare case the diagonal boxes cannot be completed.
fn random_solution(rng: &mut Rng) -> Grid {
    loop {
        let mut fill = Fill {
            cells: [0; CELLS],
            rows: [0; 9],
            cols: [0; 9],
            boxes: [0; 9],
            empty: [0; CELLS],
            empty_len: 0,
        };
        for box_index in [0, 4, 8] {
            let mut digits = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
            rng.shuffle(&mut digits);
            let top_left = (box_index / 3) * 27 + (box_index % 3) * 3;
            for (k, &digit) in digits.iter().enumerate() {
                fill.set(top_left + (k / 3) * 9 + k % 3, digit, 1 << (digit - 1));
            }
        }
        for cell in 0..CELLS {
            if fill.cells[cell] == 0 {
                fill.empty[fill.empty_len] = cell as u8;
                fill.empty_len += 1;
            }
        }
        if fill.search(rng) {
            if let Some(grid) = Grid::from_cells(fill.cells) {
                return grid;
            }
        }
    }
}

/// Backtracking state of [`random_solution`]; `empty[..empty_len]` are the blank cells.
struct Fill {
    cells: [u8; CELLS],
    rows: [u16; 9],
    cols: [u16; 9],
    boxes: [u16; 9],
    empty: [u8; CELLS],
    empty_len: usize,
}

impl Fill {
    fn search(&mut self, rng: &mut Rng) -> bool {
        if self.empty_len == 0 {
            return true;
        }
        let mut best = (0usize, 10u32);
        for pos in 0..self.empty_len {
            let count = self.candidates(self.empty[pos] as usize).count_ones();
            if count < best.1 {
                best = (pos, count);
                if count <= 1 {
                    break;
                }
            }
        }
        let (pos, count) = best;
        if count == 0 {
            return false;
        }
        // Take the chosen cell out of the live part of the list (undone on the way back).
        let last = self.empty_len - 1;
        self.empty.swap(pos, last);
        self.empty_len = last;
        let cell = self.empty[last] as usize;
        let mask = self.candidates(cell);
        let mut digits = [0u8; 9];
        let mut n = 0;
        for digit in 1..=9u8 {
            if mask & (1 << (digit - 1)) != 0 {
                digits[n] = digit;
                n += 1;
            }
        }
        rng.shuffle(&mut digits[..n]);
        for &digit in &digits[..n] {
            let bit = 1u16 << (digit - 1);
            self.set(cell, digit, bit);
            if self.search(rng) {
                return true;
            }
            self.set(cell, 0, bit);
        }
        self.empty_len = last + 1;
        self.empty.swap(pos, last);
        false
    }

    #[inline]
    fn candidates(&self, cell: usize) -> u16 {
        !(self.rows[cell / 9] | self.cols[cell % 9] | self.boxes[box_of(cell)]) & 0x1FF
    }

    /// Places `digit` (0 = clears) with mask `bit`, toggling the unit masks.
    fn set(&mut self, cell: usize, digit: u8, bit: u16) {
        self.rows[cell / 9] ^= bit;
        self.cols[cell % 9] ^= bit;
        self.boxes[box_of(cell)] ^= bit;
        self.cells[cell] = digit;
    }
}

/// The random stream of one puzzle: ChaCha8 with the seed as key and the puzzle index as stream
/// number. Only `next_u32` is used, and the bounded draws and shuffles are defined here, so the
/// output never depends on a `rand` version's sampling algorithms.
struct Rng(ChaCha8Rng);

impl Rng {
    fn new(seed: u64, index: u64) -> Rng {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        key[8..24].copy_from_slice(b"sudoku-batch gen");
        let mut rng = ChaCha8Rng::from_seed(key);
        rng.set_stream(index);
        Rng(rng)
    }

    /// A uniform integer in `0..n` (`n` ≥ 1), by Lemire's multiply-and-reject.
    fn below(&mut self, n: u32) -> u32 {
        let n = n.max(1);
        let threshold = n.wrapping_neg() % n;
        loop {
            let product = u64::from(self.0.next_u32()) * u64::from(n);
            if (product as u32) >= threshold {
                return (product >> 32) as u32;
            }
        }
    }

    /// Fisher–Yates shuffle.
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }
}

/// A seed for runs that were not given one: the clock and the process id, mixed.
pub fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut x = nanos ^ (u64::from(std::process::id()) << 32);
    // splitmix64 finaliser, so close clocks give unrelated seeds
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// What a finished `generate` run reports.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateReport {
    /// Puzzles written.
    pub puzzles: u64,
    /// The seed used (given or drawn).
    pub seed: u64,
    /// Fewest clues of a written puzzle (0 when none were written).
    pub min_clues: usize,
    /// Most clues of a written puzzle.
    pub max_clues: usize,
    /// Mean clue count.
    pub mean_clues: f64,
    /// Grids drawn in all (more than `puzzles` when clue ranges made some retry).
    pub attempts: u64,
    /// Uniqueness questions asked of the solver.
    pub solver_calls: u64,
    /// Wall time in seconds.
    pub wall_seconds: f64,
    /// Threads used.
    pub threads: usize,
    /// Solver that proved uniqueness.
    pub solver: &'static str,
}

impl GenerateReport {
    /// The summary printed on stderr.
    pub fn to_text(&self, shape: &Shape) -> String {
        let rate = self.puzzles as f64 / self.wall_seconds.max(1e-9);
        let kind = if shape.minimal { "minimal" } else { "unique" };
        let mut text = format!(
            "generated {} {kind} puzzles (symmetry {}) in {:.3} s: {:.0} puzzles/s",
            self.puzzles, shape.symmetry, self.wall_seconds, rate,
        );
        // Figures per puzzle only when there is a puzzle (else the time would be the
        // start-up time, and the clue counts and calls per puzzle meaningless).
        let per_puzzle = self.puzzles > 0;
        if per_puzzle {
            text += &format!(
                ", {:.1} µs/puzzle per thread\nclues: min {}, mean {:.2}, max {}",
                self.wall_seconds * 1e6 * self.threads as f64 / self.puzzles as f64,
                self.min_clues,
                self.mean_clues,
                self.max_clues
            );
        }
        text += &format!(
            "\nseed {}, {} threads, solver {}, {} grids drawn",
            self.seed, self.threads, self.solver, self.attempts,
        );
        if per_puzzle {
            text += &format!(
                ", {:.1} solver calls/puzzle",
                self.solver_calls as f64 / self.puzzles as f64
            );
        }
        text.push('\n');
        text
    }
}

/// A finished work item: its formatted lines and figures.
struct ChunkOut {
    bytes: Vec<u8>,
    puzzles: u64,
    clue_sum: u64,
    min_clues: usize,
    max_clues: usize,
    attempts: u64,
    solver_calls: u64,
}

/// Makes puzzles `first..first + count` and formats them.
fn make_chunk(
    generator: &Generator,
    seed: u64,
    first: u64,
    count: u64,
    with_solution: bool,
) -> Result<ChunkOut> {
    let mut out = ChunkOut {
        bytes: Vec::with_capacity(count as usize * if with_solution { 168 } else { 82 }),
        puzzles: count,
        clue_sum: 0,
        min_clues: CELLS,
        max_clues: 0,
        attempts: 0,
        solver_calls: 0,
    };
    for index in first..first + count {
        let made = generator.generate(seed, index)?;
        let clues = made.puzzle.clue_count();
        out.bytes.extend_from_slice(&made.puzzle.to_bytes());
        if with_solution {
            out.bytes.push(b',');
            out.bytes.extend_from_slice(&made.solution.to_bytes());
            out.bytes.push(b',');
            out.bytes
                .extend_from_slice(itoa::Buffer::new().format(clues).as_bytes());
        }
        out.bytes.push(b'\n');
        out.clue_sum += clues as u64;
        out.min_clues = out.min_clues.min(clues);
        out.max_clues = out.max_clues.max(clues);
        out.attempts += u64::from(made.attempts);
        out.solver_calls += u64::from(made.solver_calls);
    }
    Ok(out)
}

/// The CSV header written with `--with-solution`.
pub const CSV_HEADER: &str = "puzzle,solution,clues\n";

/// Runs `generate`: makes `config.count` puzzles on `config.threads` threads and writes them in
/// index order.
pub fn run_generate(config: &GenerateConfig) -> Result<GenerateReport> {
    let generator = Generator::new(config.shape, config.solver)?;
    let seed = config.seed.unwrap_or_else(fresh_seed);
    let threads = config.threads.max(1);
    let pool = build_pool(threads)?;
    let mut output = Output::create(config.output.as_deref())?;
    if config.with_solution {
        output.write_all(CSV_HEADER.as_bytes())?;
    }
    let mut progress = Progress::new(None, config.quiet);
    let started = Instant::now();
    let mut next = 0u64;
    let produce = || -> Result<Option<(u64, u64)>> {
        if next >= config.count {
            return Ok(None);
        }
        let count = CHUNK.min(config.count - next);
        let item = (next, count);
        next += count;
        Ok(Some(item))
    };
    let with_solution = config.with_solution;
    let work =
        |(first, count): (u64, u64)| make_chunk(&generator, seed, first, count, with_solution);
    let mut report = GenerateReport {
        puzzles: 0,
        seed,
        min_clues: CELLS,
        max_clues: 0,
        mean_clues: 0.0,
        attempts: 0,
        solver_calls: 0,
        wall_seconds: 0.0,
        threads,
        solver: config.solver.name(),
    };
    let mut clue_sum = 0u64;
    let consume = |chunk: Result<ChunkOut>| -> Result<()> {
        let chunk = chunk?;
        output.write_all(&chunk.bytes)?;
        report.puzzles += chunk.puzzles;
        clue_sum += chunk.clue_sum;
        report.min_clues = report.min_clues.min(chunk.min_clues);
        report.max_clues = report.max_clues.max(chunk.max_clues);
        report.attempts += chunk.attempts;
        report.solver_calls += chunk.solver_calls;
        progress.advance(chunk.puzzles, 0);
        Ok(())
    };
    let result = ordered_map(&pool, threads * 4 + 2, produce, work, consume);
    progress.finish();
    result?;
    output.finish()?;
    report.wall_seconds = started.elapsed().as_secs_f64();
    if report.puzzles == 0 {
        report.min_clues = 0;
    } else {
        report.mean_clues = clue_sum as f64 / report.puzzles as f64;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(min: usize, max: usize, minimal: bool, symmetry: Symmetry) -> Shape {
        Shape {
            min_clues: min,
            max_clues: max,
            minimal,
            symmetry,
        }
    }

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

    #[test]
    fn random_streams_are_fixed_by_seed_and_index() {
        let draw = |seed, index| {
            let mut rng = Rng::new(seed, index);
            (0..8).map(|_| rng.below(1000)).collect::<Vec<_>>()
        };
        assert_eq!(draw(1, 0), draw(1, 0));
        assert_ne!(draw(1, 0), draw(1, 1));
        assert_ne!(draw(1, 0), draw(2, 0));
        let mut rng = Rng::new(7, 7);
        for n in [1, 2, 3, 9, 81] {
            assert!((0..200).all(|_| rng.below(n) < n));
        }
        let mut items: Vec<u32> = (0..20).collect();
        rng.shuffle(&mut items);
        items.sort_unstable();
        assert_eq!(items, (0..20).collect::<Vec<u32>>());
    }

    #[test]
    fn random_solutions_are_valid_and_differ() {
        let mut rng = Rng::new(3, 0);
        let a = random_solution(&mut rng);
        let b = random_solution(&mut rng);
        assert!(a.is_solution_of(&Grid::empty()));
        assert!(b.is_solution_of(&Grid::empty()));
        assert_ne!(a, b);
    }

    #[test]
    fn minimal_puzzles_are_unique_and_minimal() {
        let generator = Generator::new(Shape::default(), SolverKind::default()).unwrap();
        for index in 0..3 {
            let made = generator.generate(11, index).unwrap();
            assert_eq!(made, generator.generate(11, index).unwrap());
            let solver = SolverKind::default();
            let outcome = solver.solve(&made.puzzle, 2);
            assert_eq!(outcome.count, 1);
            assert_eq!(outcome.solution, Some(made.solution));
            for cell in 0..81 {
                if made.puzzle.get(cell) != 0 {
                    let mut fewer = made.puzzle;
                    fewer.set(cell, 0);
                    assert_eq!(solver.solve(&fewer, 2).count, 2, "cell {cell} removable");
                }
            }
        }
    }

    #[test]
    fn clue_targets_and_symmetry_are_met() {
        let generator = Generator::new(
            shape(30, 30, false, Symmetry::Central),
            SolverKind::default(),
        )
        .unwrap();
        for index in 0..3 {
            let made = generator.generate(5, index).unwrap();
            assert_eq!(made.puzzle.clue_count(), 30);
            assert!(Symmetry::Central.is_symmetric(&made.puzzle));
            assert!(made.solution.is_solution_of(&made.puzzle));
        }
    }

    #[test]
    fn output_does_not_depend_on_the_solver() {
        // Dense puzzles keep this quick for slow solvers too.
        let dense = shape(45, 45, false, Symmetry::None);
        let made = |solver| {
            let generator = Generator::new(dense, solver).unwrap();
            (0..2)
                .map(|i| generator.generate(9, i).unwrap().puzzle)
                .collect::<Vec<_>>()
        };
        let expected = made(SolverKind::default());
        for &solver in SolverKind::ALL {
            assert_eq!(made(solver), expected, "{solver}");
        }
    }

    #[test]
    fn unavoidable_sets_are_unavoidable() {
        let solution = random_solution(&mut Rng::new(2, 0));
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

    #[test]
    fn forced_cells_are_singles() {
        let solution = random_solution(&mut Rng::new(1, 1));
        let mut board = Board::new(&solution);
        board.clear(40);
        // One blank in a full grid: a naked single.
        assert!(board.is_forced(40));
        // A whole row blank: every cell is still a hidden single in its column.
        for cell in 0..9 {
            board.clear(cell);
        }
        assert!((0..9).all(|cell| board.is_forced(cell)));
    }

    #[test]
    fn impossible_shapes_are_usage_errors() {
        let solver = SolverKind::default();
        for bad in [
            shape(16, 16, false, Symmetry::None),
            shape(30, 20, false, Symmetry::None),
            shape(17, 82, false, Symmetry::None),
            // dihedral orbits have 1, 4 or 8 cells: clue counts are 0 or 1 mod 4
            shape(22, 23, false, Symmetry::Dihedral),
        ] {
            assert!(
                matches!(Generator::new(bad, solver), Err(Error::Usage(_))),
                "{bad:?}"
            );
        }
        assert!(Generator::new(shape(24, 24, false, Symmetry::Dihedral), solver).is_ok());
    }
}
