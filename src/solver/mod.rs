//! The solver registry and the one entry point every solver shares.
//!
//! Every solver takes a puzzle and a solution limit (1 = first solution, 2 = prove uniqueness,
//! N = count up to N) and returns an [`Outcome`]: how many solutions were found up to the limit,
//! the first one, and how many guesses (branch points with two or more candidates) it took.
//! Guesses are counted the same way by every solver so the numbers compare across solvers.

mod backtrack;
mod bands;
mod naive;
mod singles;

use std::sync::atomic::{AtomicBool, Ordering};

use crate::grid::Grid;

/// Bounds on one solve: a guess budget, and a stop flag polled every [`Budget::POLL`] guesses so
/// a slow puzzle gives its worker back within a fraction of a second of a stop request.
#[derive(Debug, Clone, Copy)]
pub struct Budget<'a> {
    /// Give up after this many guesses (`u64::MAX`: never).
    pub max_guesses: u64,
    /// Give up once this flag is set.
    pub stop: Option<&'a AtomicBool>,
}

impl Default for Budget<'_> {
    fn default() -> Self {
        Budget::UNLIMITED
    }
}

impl<'a> Budget<'a> {
    /// No bound: search until the solution limit or the end of the tree.
    pub const UNLIMITED: Budget<'static> = Budget {
        max_guesses: u64::MAX,
        stop: None,
    };

    /// The stop flag is read once per this many guesses (a power of two). The slowest solver
    /// makes about a million guesses a second, so a stop is seen within a few milliseconds.
    pub const POLL: u64 = 4096;

    /// A budget of at most `max_guesses` guesses (`None`: unlimited) and an optional stop flag.
    pub fn new(max_guesses: Option<u64>, stop: Option<&'a AtomicBool>) -> Self {
        Budget {
            max_guesses: max_guesses.unwrap_or(u64::MAX),
            stop,
        }
    }

    /// Whether a search that has made `guesses` guesses must give up now. Called once per guess,
    /// never in the propagation loop.
    #[inline(always)]
    pub(crate) fn is_spent(&self, guesses: u64) -> bool {
        guesses > self.max_guesses
            || (guesses & (Self::POLL - 1) == 0
                && self.stop.is_some_and(|flag| flag.load(Ordering::Relaxed)))
    }
}

/// What a solver found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Number of solutions found, at most the limit that was asked for.
    pub count: u32,
    /// The first solution found, if any.
    pub solution: Option<Grid>,
    /// Branch points with two or more candidates that the search tried.
    pub guesses: u64,
    /// The search stopped early: its [`Budget`] ran out (guesses or the stop flag), so `count`
    /// is a lower bound and "no solution" means "none found".
    pub gave_up: bool,
}

impl Outcome {
    /// The outcome for a puzzle with no solution found and no guesses made.
    pub const NONE: Outcome = Outcome {
        count: 0,
        solution: None,
        guesses: 0,
        gave_up: false,
    };
}

/// The solvers this crate ships, selectable by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SolverKind {
    /// The textbook baseline: row-major cells, digits 1–9 against boolean tables, recurse, undo.
    Naive,
    /// Bitmask candidates, explicit empty-cell list, fewest candidates first, nothing else.
    Backtrack,
    /// Bitmask backtracking over an explicit empty-cell list, fewest candidates first, with naked
    /// and hidden singles propagated at every node.
    Singles,
    /// Per-digit band bitboards (JCZSolve family): locked candidates, row/column/box hidden
    /// singles and naked singles to a fixpoint, bivalue-cell branching on copied state.
    #[default]
    Bands,
}

impl SolverKind {
    /// Every solver, in order from the simplest to the default.
    pub const ALL: &'static [SolverKind] = &[
        SolverKind::Naive,
        SolverKind::Backtrack,
        SolverKind::Singles,
        SolverKind::Bands,
    ];

    /// The name used on the command line and in reports.
    pub const fn name(self) -> &'static str {
        match self {
            SolverKind::Naive => "naive",
            SolverKind::Backtrack => "backtrack",
            SolverKind::Singles => "singles",
            SolverKind::Bands => "bands",
        }
    }

    /// Looks a solver up by its name.
    pub fn from_name(name: &str) -> Option<SolverKind> {
        Self::ALL
            .iter()
            .copied()
            .find(|k| k.name().eq_ignore_ascii_case(name))
    }

    /// A one-line description for `--help` and the README.
    pub const fn description(self) -> &'static str {
        match self {
            SolverKind::Naive => "textbook: row-major cells, digits 1-9 against boolean tables, undo",
            SolverKind::Backtrack => "bitmask candidates, empty-cell list, fewest candidates first",
            SolverKind::Singles => {
                "bitmask backtracking, empty-cell list, fewest candidates first, naked + hidden singles"
            }
            SolverKind::Bands => {
                "per-digit band bitboards: locked candidates, hidden + naked singles, bivalue branching"
            }
        }
    }

    /// Solves `puzzle`, stopping after `limit` solutions (a limit of 0 is treated as 1).
    ///
    /// A puzzle whose clues already contradict each other has no solution: the result is
    /// [`Outcome::NONE`] whichever solver runs.
    pub fn solve(self, puzzle: &Grid, limit: u32) -> Outcome {
        self.solve_within(puzzle, limit, Budget::UNLIMITED)
    }

    /// [`SolverKind::solve`] within `budget`: the search gives up (and says so in
    /// [`Outcome::gave_up`]) when the guesses exceed it or its stop flag is set.
    pub fn solve_within(self, puzzle: &Grid, limit: u32, budget: Budget<'_>) -> Outcome {
        // Each solver rejects conflicting clues itself: the baselines with
        // `Grid::has_conflict`, `bands` while it builds its state (a separate scan was 8% of
        // an easy puzzle's time there).
        let limit = limit.max(1);
        match self {
            SolverKind::Naive => naive::solve(puzzle, limit, budget),
            SolverKind::Backtrack => backtrack::solve(puzzle, limit, budget),
            SolverKind::Singles => singles::solve(puzzle, limit, budget),
            SolverKind::Bands => bands::solve(puzzle, limit, budget),
        }
    }
}

impl std::str::FromStr for SolverKind {
    type Err = crate::error::UnknownName;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        SolverKind::from_name(name).ok_or_else(|| {
            crate::error::UnknownName::new("solver", name, Self::ALL.iter().map(|k| k.name()))
        })
    }
}

impl std::fmt::Display for SolverKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The CPU features the solvers use beyond the target's baseline, chosen at run time on this
/// machine: those of the copy of the `bands` search it runs (POPCNT, BMI1/2, LZCNT and AVX2 on
/// x86-64 CPUs that have them), else none. Features the build itself was compiled for are not
/// included.
pub fn cpu_features() -> &'static [&'static str] {
    bands::runtime_features()
}

/// Solves `puzzle` with the default solver; see [`SolverKind::solve`].
pub fn solve(puzzle: &Grid, limit: u32) -> Outcome {
    SolverKind::default().solve(puzzle, limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUZZLE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

    #[test]
    fn every_solver_solves_a_classic() {
        let puzzle: Grid = PUZZLE.parse().unwrap();
        for &kind in SolverKind::ALL {
            let out = kind.solve(&puzzle, 2);
            assert_eq!(out.count, 1, "{kind}");
            assert!(out.solution.unwrap().is_solution_of(&puzzle), "{kind}");
            assert_eq!(SolverKind::from_name(kind.name()), Some(kind));
        }
    }

    #[test]
    fn empty_grid_has_many_solutions_and_counts_up_to_limit() {
        for &kind in SolverKind::ALL {
            let out = kind.solve(&Grid::empty(), 5);
            assert_eq!(out.count, 5, "{kind}");
            assert!(out.guesses > 0);
            assert!(out.solution.unwrap().is_solution_of(&Grid::empty()));
        }
    }

    #[test]
    fn fast_conflict_check_agrees_with_the_validator() {
        let puzzle: Grid = PUZZLE.parse().unwrap();
        assert!(!puzzle.has_conflict() && !Grid::empty().has_conflict());
        for cell in 0..81 {
            for digit in 1..=9 {
                let mut g = puzzle;
                g.set(cell, digit);
                // Against the plain scan: `first_conflict` itself starts with `has_conflict`.
                assert_eq!(g.has_conflict(), g.scan_conflict().is_some(), "{g}");
                assert_eq!(g.first_conflict(), g.scan_conflict(), "{g}");
            }
        }
    }

    #[test]
    fn contradictory_and_unsolvable_puzzles_have_no_solution() {
        let mut bad: Grid = PUZZLE.parse().unwrap();
        bad.set(2, 5); // second 5 in row 1
                       // Valid clues but no solution: cell 0 sees every digit.
        let dead: Grid =
            ".23456789......1..........................................................1......"
                .replace("......1..", "1........")
                .parse()
                .unwrap();
        for &kind in SolverKind::ALL {
            assert_eq!(kind.solve(&bad, 1), Outcome::NONE);
            let out = kind.solve(&dead, 1);
            assert_eq!(out.count, 0, "{kind}");
            assert!(out.solution.is_none());
        }
    }
}
