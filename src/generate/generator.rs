//! The generator: a random solution grid (the backtracking solver's search in random digit
//! order), then clue removal orbit by orbit while the puzzle stays unique, and the final proof.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::grid::{box_of, Grid, CELLS, UNITS};
use crate::rng::Rng;
use crate::solver::{Budget, SolverKind};

use super::shape::{Shape, Symmetry, MIN_UNIQUE_CLUES};
use super::unavoidable::unavoidable_sets;

/// Fresh grids tried for one puzzle before the run gives up on its clue range.
pub const MAX_ATTEMPTS: u32 = 20_000;

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
    /// Candidate puzzles rated before one fell in the ER range (0 without a range).
    pub rated: u32,
    /// Its Sudoku Explainer rating in tenths, when a range was asked for.
    pub er: Option<u16>,
}

/// The work spent making puzzles, counted as it is done, so that a puzzle a stop cut short
/// still counts what it drew and rated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Effort {
    /// Grids drawn.
    pub attempts: u64,
    /// Uniqueness questions asked of the solver.
    pub solver_calls: u64,
    /// Candidate puzzles rated for an ER range.
    pub rated: u64,
}

/// Candidates rated for one puzzle before the run gives up on its ER range.
pub const MAX_RATED: u32 = 100_000;

/// Candidate k of puzzle i of a rated range is stream `i + k << CANDIDATE_SHIFT`: the low bits
/// of a stream are its puzzle.
const CANDIDATE_SHIFT: u32 = 40;

/// Makes puzzles of one [`Shape`]; cheap to share between threads.
#[derive(Debug, Clone)]
pub struct Generator {
    shape: Shape,
    solver: SolverKind,
    orbits: Vec<Vec<u8>>,
    /// The guess bound of each probe while carving (`u64::MAX`: none).
    max_guesses: u64,
    /// Keep only puzzles whose SE rating (tenths) lies in this range.
    er: Option<(u16, u16)>,
    /// The scale an ER range is rated on.
    scale: crate::rate::Flavor,
    /// Set when the run is stopping: [`Generator::generate`] then ends with
    /// [`Error::Interrupted`] between two candidates.
    stop: Option<Arc<AtomicBool>>,
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
            max_guesses: u64::MAX,
            er: None,
            scale: crate::rate::Flavor::default(),
            stop: None,
        })
    }

    /// Keeps only puzzles whose Sudoku Explainer rating ER (in tenths) lies in `low..=high`:
    /// candidates are drawn from the puzzle's own streams and rated ([`crate::rate`]) until
    /// one fits, so the puzzles stay reproducible from the seed whatever the thread count.
    ///
    /// The candidates are rated on `scale`. A range no puzzle of the shape can rate in on it is
    /// refused: only a full grid (81 clues, nothing to solve) rates below 1.0, the easiest
    /// step, a full grid rates 0.0, and below 4.5 only the techniques' own ratings occur. The
    /// refusal's advice names the options as `names` spells them.
    pub fn with_er(
        mut self,
        range: Option<(u16, u16)>,
        scale: crate::rate::Flavor,
        names: &crate::error::OptionNames,
    ) -> Result<Generator> {
        self.scale = scale;
        if let Some((low, high)) = range {
            let shown = format!(
                "{:.1}..{:.1}",
                f32::from(low) / 10.0,
                f32::from(high) / 10.0
            );
            let full_grids = self.shape.max_clues == CELLS && !self.shape.minimal;
            let why = if low > high {
                Some("is empty".to_string())
            } else if high < 10 && !full_grids {
                Some(
                    "holds no rating of a puzzle with a blank cell: only a full grid (81 \
                     clues, nothing to solve) rates below 1.0, the easiest step"
                        .to_string(),
                )
            } else if low > 0 && self.shape.min_clues == CELLS {
                Some(format!(
                    "holds no rating of a full grid, the only puzzle with {CELLS} clues (it \
                     rates 0.0: nothing to solve)"
                ))
            } else {
                let sukaku = scale == crate::rate::Flavor::Sukaku;
                crate::rate::scale::no_step_rates((low, high), sukaku, self.shape.minimal, names)
            };
            if let Some(why) = why {
                return Err(Error::Usage(format!("the ER range {shown} {why}")));
            }
        }
        self.er = range;
        Ok(self)
    }

    /// Bounds each probe of the carving to `max_guesses` guesses (`None`: no bound). A probe
    /// that gives up counts as "another solution may exist", so the clue stays: puzzles stay
    /// unique and reproducible (a probe's guesses do not depend on the machine), only a little
    /// less sparse when the bound bites.
    pub fn with_max_guesses(mut self, max_guesses: Option<u64>) -> Generator {
        self.max_guesses = max_guesses.unwrap_or(u64::MAX);
        self
    }

    /// Ends [`generate`](Generator::generate) with [`Error::Interrupted`] once `stop` is set:
    /// it is looked at before each grid drawn and each candidate rated, so a stop lands
    /// within one candidate even when an ER range is hard to meet.
    pub fn with_stop(mut self, stop: Option<Arc<AtomicBool>>) -> Generator {
        self.stop = stop;
        self
    }

    /// [`Error::Interrupted`] once the stop flag is set.
    fn stop_point(&self) -> Result<()> {
        match &self.stop {
            Some(flag) if flag.load(Ordering::Relaxed) => Err(Error::Interrupted(
                "the run was stopped before this puzzle was made".into(),
            )),
            _ => Ok(()),
        }
    }

    /// The shape this generator makes.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Makes puzzle number `index` of the run with `seed`. The result depends only on `seed`,
    /// `index`, the shape and the ER range; [`Error::Interrupted`] when the stop flag
    /// ([`with_stop`](Generator::with_stop)) is set first.
    pub fn generate(&self, seed: u64, index: u64) -> Result<Generated> {
        self.generate_counting(seed, index, &mut Effort::default())
    }

    /// [`generate`](Generator::generate), adding the work it does to `effort` as it goes: a
    /// puzzle the stop flag ends early still counts the grids it drew and the candidates it
    /// rated.
    pub fn generate_counting(
        &self,
        seed: u64,
        index: u64,
        effort: &mut Effort,
    ) -> Result<Generated> {
        let Some((low, high)) = self.er else {
            return self.candidate(seed, index, effort);
        };
        let limits = crate::rate::Limits {
            max_er: Some(high),
            // A stopped rating is not `Rated`: the next candidate's stop point ends the search.
            stop: self.stop.clone(),
            flavor: self.scale,
            ..crate::rate::Limits::default()
        };
        let (mut attempts, mut solver_calls) = (0u32, 0u32);
        for rated in 1..=MAX_RATED {
            // Candidate k of puzzle i (see `CANDIDATE_SHIFT`): the first is the puzzle a run
            // without a range makes, and no two puzzles of a run share a stream.
            let stream = index.wrapping_add(u64::from(rated - 1) << CANDIDATE_SHIFT);
            let made = self.candidate(seed, stream, effort)?;
            self.stop_point()?;
            attempts += made.attempts;
            solver_calls += made.solver_calls;
            effort.rated += 1;
            let verdict = crate::rate::verdict::judge(&made.puzzle, &limits, None, None);
            if let (crate::rate::verdict::RateStatus::Rated, Some(rating)) =
                (verdict.status, verdict.rating)
            {
                if rating.er >= low {
                    return Ok(Generated {
                        attempts,
                        solver_calls,
                        rated,
                        er: Some(rating.er),
                        ..made
                    });
                }
            }
        }
        // The last candidate's rating may have been the one a stop cut short.
        self.stop_point()?;
        Err(Error::Usage(format!(
            "no puzzle rated {:.1}..{:.1} among {MAX_RATED} candidates for puzzle {} (counted \
             from 1); widen the range",
            f32::from(low) / 10.0,
            f32::from(high) / 10.0,
            index + 1
        )))
    }

    /// One candidate puzzle from stream `stream` of `seed`, whatever its rating.
    fn candidate(&self, seed: u64, stream: u64, effort: &mut Effort) -> Result<Generated> {
        let mut rng = puzzle_rng(seed, stream);
        // The puzzle the stream is a candidate for, as messages name it.
        let index = stream & ((1 << CANDIDATE_SHIFT) - 1);
        let mut solver_calls = 0u32;
        let Shape {
            min_clues,
            max_clues,
            minimal,
            ..
        } = self.shape;
        // The clue counts of the puzzles made and refused, for the message when none fits.
        let (mut fewest, mut most) = (CELLS, 0);
        for attempt in 1..=MAX_ATTEMPTS {
            self.stop_point()?;
            let solution = random_solution(&mut rng);
            effort.attempts += 1;
            let target = if minimal {
                0
            } else {
                min_clues + rng.below((max_clues - min_clues + 1) as u32) as usize
            };
            let (puzzle, calls) = self.carve(&solution, target, &mut rng);
            solver_calls += calls;
            effort.solver_calls += u64::from(calls);
            let clues = puzzle.clue_count();
            if clues < min_clues || clues > max_clues {
                (fewest, most) = (fewest.min(clues), most.max(clues));
                continue;
            }
            // The proof: the solver, not the bookkeeping above, says the puzzle is unique.
            let outcome = self.solver.solve(&puzzle, 2);
            solver_calls += 1;
            effort.solver_calls += 1;
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
                rated: 0,
                er: None,
            });
        }
        let minimal_word = if minimal { "minimal " } else { "" };
        // What is wrong with the asked range, judged by the puzzles drawn instead.
        let advice = if max_clues < fewest {
            "; random clue removal seldom goes below about 21 clues"
        } else if minimal && min_clues > most {
            ", and a minimal puzzle with more is rare: ask for fewer clues, or for puzzles that \
             need not be minimal"
        } else {
            "; widen the clue range"
        };
        Err(Error::Usage(format!(
            "no {minimal_word}puzzle with {} clues{} found for puzzle {index} in {MAX_ATTEMPTS} \
             attempts: the {minimal_word}puzzles drawn had {fewest} to {most} clues{advice}",
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
                    let budget = Budget::new(Some(self.max_guesses), None);
                    let outcome = self.solver.solve_within(&probe, 1, budget);
                    if outcome.count > 0 || outcome.gave_up {
                        return false;
                    }
                }
            }
            probe.set(cell, digit);
        }
        true
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

/// The label in the key of every puzzle's random stream ([`Rng::keyed`]); part of what makes a
/// seed's dataset the same in every version.
const STREAM_LABEL: &[u8; 16] = b"sudoku-batch gen";

/// The random stream of puzzle `index` of the run with `seed`: ChaCha8 keyed by the seed, with
/// the puzzle index as stream number.
pub(super) fn puzzle_rng(seed: u64, index: u64) -> Rng {
    Rng::keyed(seed, STREAM_LABEL, index)
}

/// Draws a random complete grid: the three diagonal boxes (which share no unit) get random
/// permutations, then the backtracking solver's search (fewest candidates first) fills the rest,
/// trying each cell's candidates in random order ([`Grid::random_completion`]). Retries in the
/// rare case the diagonal boxes cannot be completed.
pub(super) fn random_solution(rng: &mut Rng) -> Grid {
    loop {
        let mut boxes = Grid::empty();
        for box_index in [0, 4, 8] {
            let mut digits = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
            rng.shuffle(&mut digits);
            let top_left = (box_index / 3) * 27 + (box_index % 3) * 3;
            for (k, &digit) in digits.iter().enumerate() {
                boxes.set(top_left + (k / 3) * 9 + k % 3, digit);
            }
        }
        if let Some(grid) = boxes.random_completion(rng) {
            return grid;
        }
    }
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
    fn random_streams_are_fixed_by_seed_and_index() {
        let draw = |seed, index| {
            let mut rng = puzzle_rng(seed, index);
            (0..8).map(|_| rng.below(1000)).collect::<Vec<_>>()
        };
        assert_eq!(draw(1, 0), draw(1, 0));
        assert_ne!(draw(1, 0), draw(1, 1));
        assert_ne!(draw(1, 0), draw(2, 0));
        let mut rng = puzzle_rng(7, 7);
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
        let mut rng = puzzle_rng(3, 0);
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
    fn forced_cells_are_singles() {
        let solution = random_solution(&mut puzzle_rng(1, 1));
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
