//! What every front end (the command line, the Python package) says about one puzzle or one
//! solution row: the solve [`Verdict`] and its [`Status`], the [`RowVerdict`] of a solution
//! check and its [`FailureKind`]. Every reported solution is checked here, once, for all of them.
//!
//! Front ends only turn their input into [`Grid`]s (or a reason they could not) and their
//! outputs into rows, arrays or exceptions; the decisions are these functions.

use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use crate::error::UnknownName;
use crate::grid::{Grid, ParseError, SolutionError};
use crate::solver::{Budget, Outcome, SolverKind};
use crate::stopwatch;

/// What happened to one record. The words are stable: scripts match on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Solved (and, with `--unique`, proven to have exactly one solution).
    Solved,
    /// The puzzle has no solution.
    Unsolvable,
    /// The puzzle has two or more solutions (only reported with `--unique`).
    Multiple,
    /// A malformed record or contradictory clues.
    Invalid,
    /// The input's reference solution differs from the solution found.
    Mismatch,
    /// The solver gave up: the puzzle needed more guesses than `--max-guesses` allows. Nothing
    /// is known about its solutions.
    GaveUp,
}

impl Status {
    /// Every status, in the order summaries list them. A status's position here is its code in
    /// the Python package's arrays.
    pub const ALL: [Status; 6] = [
        Status::Solved,
        Status::Unsolvable,
        Status::Multiple,
        Status::Invalid,
        Status::Mismatch,
        Status::GaveUp,
    ];

    /// The word written in the `status` column.
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::Unsolvable => "unsolvable",
            Status::Multiple => "multiple",
            Status::Invalid => "invalid",
            Status::Mismatch => "mismatch",
            Status::GaveUp => "gave_up",
        }
    }

    /// The status's small-integer code: its position in [`Status::ALL`].
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// Parses a status word.
    pub fn from_word(word: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.as_str() == word)
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Status {
    type Err = UnknownName;

    fn from_str(word: &str) -> Result<Self, Self::Err> {
        Status::from_word(word)
            .ok_or_else(|| UnknownName::new("status", word, Status::ALL.map(Status::as_str)))
    }
}

/// How to judge a puzzle: the solver, whether to prove uniqueness, and the per-puzzle bound.
#[derive(Debug, Clone, Copy, Default)]
pub struct JudgeOptions<'a> {
    /// The solver.
    pub solver: SolverKind,
    /// Prove that the puzzle has exactly one solution (`multiple` otherwise).
    pub unique: bool,
    /// Guesses and stop flag: a search that exceeds them is `gave_up`.
    pub budget: Budget<'a>,
}

/// The result of solving one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Status word.
    pub status: Status,
    /// The solution to report, already checked against the clues and the rules.
    pub solution: Option<Grid>,
    /// Guesses made.
    pub guesses: u64,
    /// Nanoseconds spent in the solver.
    pub solve_ns: u64,
    /// Why the record is not `solved`.
    pub message: String,
    /// Whether the record reached the solver (false for malformed records and contradictory clues).
    pub reached_solver: bool,
    /// The search was stopped by the budget's stop flag rather than its guess bound: the run is
    /// stopping, and this verdict is no answer (it must not be written as a row).
    pub stopped: bool,
}

impl Verdict {
    /// The verdict on a record that is not a puzzle (or whose clues contradict each other).
    pub fn invalid(message: String) -> Verdict {
        Verdict {
            status: Status::Invalid,
            solution: None,
            guesses: 0,
            solve_ns: 0,
            message,
            reached_solver: false,
            stopped: false,
        }
    }
}

/// The message of a puzzle given up on after `guesses` guesses.
fn gave_up_after(guesses: u64) -> String {
    let plural = if guesses == 1 { "" } else { "es" };
    format!("gave up after {guesses} guess{plural}")
}

/// Solves one puzzle and decides its status; `reference` is a solution the input gave with it,
/// which the solution found must equal. This is the per-puzzle step of every front end.
pub fn judge(puzzle: &Grid, reference: Option<&Grid>, options: &JudgeOptions<'_>) -> Verdict {
    let limit = if options.unique { 2 } else { 1 };
    let started = stopwatch::now();
    // Every solver answers "no solution" for clues that contradict each other (`bands` finds
    // them while building its state), so the scan that names the conflict runs only then:
    // before solving it took 7% of a million-puzzle run.
    let outcome = options.solver.solve_within(puzzle, limit, options.budget);
    let solve_ns = stopwatch::elapsed_ns(started, stopwatch::now());
    if outcome.count == 0 && !outcome.gave_up {
        if let Some(conflict) = puzzle.first_conflict() {
            return Verdict::invalid(format!("contradictory clues: {conflict}"));
        }
    }
    let verdict = |status, solution, message: String| Verdict {
        status,
        solution,
        guesses: outcome.guesses,
        solve_ns,
        message,
        reached_solver: true,
        stopped: false,
    };
    if outcome.gave_up && outcome.count < limit {
        let stopped = outcome.guesses <= options.budget.max_guesses;
        return Verdict {
            stopped,
            ..verdict(Status::GaveUp, None, gave_up_after(outcome.guesses))
        };
    }
    let Some(solution) = outcome.solution.filter(|_| outcome.count > 0) else {
        return verdict(Status::Unsolvable, None, "no solution".into());
    };
    if let Err(e) = solution.check_solution_of(puzzle) {
        // A solver bug: never report an unchecked grid as a solution.
        return verdict(
            Status::Mismatch,
            None,
            format!("solver {} returned a bad grid: {e}", options.solver),
        );
    }
    if options.unique && outcome.count >= 2 {
        return verdict(Status::Multiple, None, "at least 2 solutions".into());
    }
    if let Some(reference) = reference {
        if reference != &solution {
            let (_, place) = first_difference(reference, &solution);
            let why = match reference.check_solution_of(puzzle) {
                Ok(()) => {
                    "; the reference is also a solution, so the puzzle has several".to_string()
                }
                Err(e) => format!("; the reference is wrong: {e}"),
            };
            return verdict(
                Status::Mismatch,
                Some(solution),
                format!("reference solution differs at {place}{why}"),
            );
        }
    }
    verdict(Status::Solved, Some(solution), String::new())
}

/// Why a solution row failed. The words of [`FailureKind::as_str`] are stable: scripts match on
/// them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The row cannot be read as a puzzle and a solution (missing field, bad character, ...).
    Malformed,
    /// The puzzle or the solution does not have 81 cells.
    WrongLength,
    /// The solution has blank cells.
    Incomplete,
    /// The solution repeats a digit in a row, column or box.
    BrokenRule,
    /// The solution changes a clue of its puzzle.
    ClueContradicted,
    /// The puzzle has more than one solution (checked with `--unique`).
    NotUnique,
    /// The puzzle has no solution (a puzzle-only record, checked with `--unique`).
    NoSolution,
    /// The uniqueness proof needed more guesses than `--max-guesses` allows.
    GaveUp,
}

impl FailureKind {
    /// Every kind, in the order summaries list them. A kind's position here plus one is its
    /// code in the Python package's arrays (0 is a row that passes).
    pub const ALL: [FailureKind; 8] = [
        FailureKind::Malformed,
        FailureKind::WrongLength,
        FailureKind::Incomplete,
        FailureKind::BrokenRule,
        FailureKind::ClueContradicted,
        FailureKind::NotUnique,
        FailureKind::NoSolution,
        FailureKind::GaveUp,
    ];

    /// The word used in the report's `kind` column, the JSON keys and the failure lines.
    pub const fn as_str(self) -> &'static str {
        match self {
            FailureKind::Malformed => "malformed",
            FailureKind::WrongLength => "wrong_length",
            FailureKind::Incomplete => "incomplete",
            FailureKind::BrokenRule => "broken_rule",
            FailureKind::ClueContradicted => "clue_contradicted",
            FailureKind::NotUnique => "not_unique",
            FailureKind::NoSolution => "no_solution",
            FailureKind::GaveUp => "gave_up",
        }
    }

    /// A label for the text summary.
    pub const fn label(self) -> &'static str {
        match self {
            FailureKind::Malformed => "malformed row",
            FailureKind::WrongLength => "wrong length",
            FailureKind::Incomplete => "incomplete solution",
            FailureKind::BrokenRule => "broken rule",
            FailureKind::ClueContradicted => "clue contradicted",
            FailureKind::NotUnique => "not unique",
            FailureKind::NoSolution => "no solution",
            FailureKind::GaveUp => "gave up",
        }
    }

    /// The kind's small-integer code: its position in [`FailureKind::ALL`] plus one.
    pub const fn code(self) -> u8 {
        self as u8 + 1
    }

    /// Whether only a uniqueness check finds this kind.
    pub const fn needs_unique(self) -> bool {
        matches!(
            self,
            FailureKind::NotUnique | FailureKind::NoSolution | FailureKind::GaveUp
        )
    }
}

impl From<&ParseError> for FailureKind {
    /// A field that does not parse as a grid: the wrong number of cells, or a bad character.
    fn from(error: &ParseError) -> Self {
        match error {
            ParseError::WrongLength { .. } => FailureKind::WrongLength,
            ParseError::InvalidChar { .. } => FailureKind::Malformed,
        }
    }
}

/// The verdict on one solution row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowVerdict {
    /// The solution is correct (and the puzzle unique, when asked), or a puzzle-only record's
    /// puzzle has exactly one solution (`--unique`).
    Valid,
    /// The row gives no solution.
    Skipped,
    /// The row fails.
    Failed(FailureKind, String),
}

/// How to check a row.
#[derive(Debug, Clone, Copy, Default)]
pub struct CheckOptions<'a> {
    /// Also prove that each puzzle has exactly one solution.
    pub unique: bool,
    /// A row without a solution fails (as malformed) instead of being skipped.
    pub require_solution: bool,
    /// The solver for the uniqueness proof.
    pub solver: SolverKind,
    /// A uniqueness proof that needs more guesses fails as [`FailureKind::GaveUp`].
    pub max_guesses: Option<u64>,
    /// A stop flag the uniqueness proof polls (as the solvers do, every few thousand guesses):
    /// once it is set the proof ends as [`FailureKind::GaveUp`], a verdict the caller drops.
    pub stop: Option<&'a AtomicBool>,
}

impl CheckOptions<'_> {
    /// Counts the solutions of `puzzle` up to 2 within the guess bound: the outcome, or the
    /// failure of a proof that gave up.
    fn count_two(&self, puzzle: &Grid) -> Result<Outcome, RowVerdict> {
        let budget = Budget::new(self.max_guesses, self.stop);
        let outcome = self.solver.solve_within(puzzle, 2, budget);
        if outcome.gave_up && outcome.count < 2 {
            return Err(RowVerdict::Failed(
                FailureKind::GaveUp,
                format!(
                    "gave up proving uniqueness after {} guesses",
                    outcome.guesses
                ),
            ));
        }
        Ok(outcome)
    }
}

/// Checks a row that gives `puzzle` and, unless `None`, its `solution`: the solution must be
/// complete, obey the rules and keep every clue; with `unique` the puzzle must have exactly one
/// solution (a puzzle given alone is then proven unique). Reading the row's text into grids is
/// the front end's part.
pub fn check(puzzle: &Grid, solution: Option<&Grid>, options: &CheckOptions) -> RowVerdict {
    let Some(solution) = solution else {
        // A required solution is required with `unique` too.
        return if options.unique && !options.require_solution {
            prove_unique(puzzle, options)
        } else {
            check_missing(options)
        };
    };
    if let Err(e) = solution.check_solution_of(puzzle) {
        let (kind, mut reason) = solution_failure(e);
        // No grid keeps every clue of a puzzle whose clues clash: say that it is the puzzle.
        if kind == FailureKind::ClueContradicted {
            if let Some(conflict) = puzzle.first_conflict() {
                reason += &format!(" (the puzzle's own clues contradict each other: {conflict})");
            }
        }
        return RowVerdict::Failed(kind, reason);
    }
    if options.unique {
        let outcome = match options.count_two(puzzle) {
            Ok(outcome) => outcome,
            Err(failed) => return failed,
        };
        if outcome.count >= 2 {
            let other = outcome
                .solution
                .filter(|other| other != solution)
                .or_else(|| another_solution(puzzle, solution, options.solver));
            let reason = match other {
                Some(other) => {
                    let (cell, place) = first_difference(&other, solution);
                    format!(
                        "the puzzle has 2 or more solutions (another has {} at {place})",
                        other.get(cell),
                    )
                }
                None => "the puzzle has 2 or more solutions".to_string(),
            };
            return RowVerdict::Failed(FailureKind::NotUnique, reason);
        }
    }
    RowVerdict::Valid
}

/// The verdict on a row with no solution to check (and no puzzle to prove): skipped, or a
/// failure when a solution is required.
pub fn check_missing(options: &CheckOptions) -> RowVerdict {
    if options.require_solution {
        RowVerdict::Failed(FailureKind::Malformed, "no solution given".into())
    } else {
        RowVerdict::Skipped
    }
}

/// The failure kind and reason of a solution that is not one.
pub fn solution_failure(error: SolutionError) -> (FailureKind, String) {
    match error {
        SolutionError::Incomplete { .. } => (FailureKind::Incomplete, error.to_string()),
        SolutionError::Broken(conflict) => (FailureKind::BrokenRule, conflict.to_string()),
        SolutionError::ClueContradicted { .. } => {
            (FailureKind::ClueContradicted, error.to_string())
        }
    }
}

/// The verdict on a puzzle given alone, with a uniqueness check: valid when it has exactly one
/// solution.
fn prove_unique(puzzle: &Grid, options: &CheckOptions) -> RowVerdict {
    let solver = options.solver;
    let outcome = match options.count_two(puzzle) {
        Ok(outcome) => outcome,
        Err(failed) => return failed,
    };
    match (outcome.count, outcome.solution) {
        (1, _) => RowVerdict::Valid,
        (0, _) | (_, None) => {
            let reason = match puzzle.first_conflict() {
                Some(conflict) => {
                    format!("the puzzle has no solution (contradictory clues: {conflict})")
                }
                None => "the puzzle has no solution".to_string(),
            };
            RowVerdict::Failed(FailureKind::NoSolution, reason)
        }
        (_, Some(first)) => {
            let reason = match another_solution(puzzle, &first, solver) {
                Some(other) => format!(
                    "the puzzle has 2 or more solutions (two differ at {})",
                    first_difference(&first, &other).1
                ),
                None => "the puzzle has 2 or more solutions".to_string(),
            };
            RowVerdict::Failed(FailureKind::NotUnique, reason)
        }
    }
}

/// A solution of `puzzle` other than `known`, found by trying each other digit in each blank
/// cell in turn (only called for puzzles known to have several solutions, to name one).
fn another_solution(puzzle: &Grid, known: &Grid, solver: SolverKind) -> Option<Grid> {
    let mut probe = *puzzle;
    for cell in (0..81).filter(|&c| puzzle.get(c) == 0) {
        for digit in (1..=9).filter(|&d| d != known.get(cell)) {
            probe.set(cell, digit);
            if let Some(found) = solver.solve(&probe, 1).solution {
                return Some(found);
            }
        }
        probe.set(cell, 0);
    }
    None
}

/// What is wrong with a result row read back (`--resume`, `merge`) whose puzzle is `puzzle`, or
/// `None`: a `solved` row must hold a complete solution that keeps the clues and obeys the
/// rules (and equals `reference`, the input's reference solution, when there is one); a
/// `mismatch` row holds such a solution or none; every other status has no solution;
/// `multiple` needs a run with `unique`.
pub fn check_result(
    status: Status,
    solution: &str,
    puzzle: &Grid,
    reference: Option<&Grid>,
    unique: bool,
) -> Option<String> {
    if status == Status::Multiple && !unique {
        return Some("status multiple, which only a run with --unique gives".into());
    }
    let must_solve = status == Status::Solved;
    let may_solve = must_solve || status == Status::Mismatch;
    if solution.is_empty() {
        return must_solve.then(|| format!("status {status} but no solution"));
    }
    if !may_solve {
        return Some(format!("status {status} but a solution"));
    }
    let grid = match Grid::from_bytes(solution.as_bytes()) {
        Ok(grid) => grid,
        Err(e) => {
            return Some(format!(
                "status {status} but the solution is not a grid: {e}"
            ))
        }
    };
    if let Err(e) = grid.check_solution_of(puzzle) {
        return Some(format!("status {status} but the {e}"));
    }
    if must_solve && reference.is_some_and(|r| r != &grid) {
        return Some("status solved but the solution is not the input's reference solution".into());
    }
    None
}

/// What a run that wrote result rows tells about their claims, for [`check_claim`].
#[derive(Debug, Clone, Copy)]
pub struct Claims<'a> {
    /// The run used `--unique` (`multiple` rows come only from such runs).
    pub unique: bool,
    /// How the run judged its puzzles (solver, bound), for its `gave_up` rows; `None` when not
    /// known (a shard without its sidecar): such rows are not looked at.
    pub run: Option<JudgeOptions<'a>>,
}

/// What is wrong with a kept row's claim that `puzzle` has no solution to report, or `None`:
/// an `unsolvable`, `multiple` or `invalid` row's puzzle is solved again (`bands`, no budget)
/// and must get the same status, and a `gave_up` row's must give up again within the run's
/// bound, so a row edited to hide a solution is refused. Other statuses are
/// not looked at. Only these rows cost a search, and they are rare in real inputs.
pub fn check_claim(
    status: Status,
    puzzle: &Grid,
    reference: Option<&Grid>,
    claims: &Claims<'_>,
) -> Option<String> {
    match status {
        Status::Unsolvable | Status::Multiple | Status::Invalid => {}
        Status::GaveUp => return check_gave_up(puzzle, reference, claims.run.as_ref()),
        _ => return None,
    }
    let options = JudgeOptions {
        solver: SolverKind::default(),
        unique: claims.unique,
        budget: Budget::UNLIMITED,
    };
    let found = judge(puzzle, reference, &options).status;
    (found != status)
        .then(|| format!("status {status}, but solving the puzzle again gives {found}"))
}

/// What is wrong with a kept `gave_up` row of `puzzle`, or `None`, for a run that judged its
/// puzzles with `options` (`None`: not known, as for a shard without its sidecar, and not
/// looked at): a run without `--max-guesses` never gives up, and one with it gives up on the
/// same puzzles again (a solver's guesses do not depend on the bound), so the puzzle is solved
/// again within the bound and must give up again. A row edited to hide a solution is refused.
fn check_gave_up(
    puzzle: &Grid,
    reference: Option<&Grid>,
    options: Option<&JudgeOptions<'_>>,
) -> Option<String> {
    let options = options?;
    if options.budget.max_guesses == u64::MAX {
        return Some("status gave_up, which only a run with --max-guesses gives".into());
    }
    let found = judge(puzzle, reference, options).status;
    (found != Status::GaveUp).then(|| {
        format!(
            "status gave_up, but solving the puzzle again within --max-guesses {} gives {found}",
            options.budget.max_guesses
        )
    })
}

/// Where two grids first differ: the cell and `row R, column C`.
pub fn first_difference(a: &Grid, b: &Grid) -> (usize, String) {
    let cell = (0..81).find(|&i| a.get(i) != b.get(i)).unwrap_or(0);
    (
        cell,
        format!("row {}, column {}", cell / 9 + 1, cell % 9 + 1),
    )
}

#[cfg(test)]
mod tests {

    use super::*;

    /// What a run without a bound tells, with or without `--unique`.
    fn claims(unique: bool) -> Claims<'static> {
        Claims { unique, run: None }
    }

    const PUZZLE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

    fn grid(text: &str) -> Grid {
        text.parse().unwrap()
    }

    #[test]
    fn codes_are_positions_and_words_round_trip() {
        for (i, status) in Status::ALL.into_iter().enumerate() {
            assert_eq!(status.code() as usize, i);
            assert_eq!(status.as_str().parse::<Status>(), Ok(status));
        }
        for (i, kind) in FailureKind::ALL.into_iter().enumerate() {
            assert_eq!(kind.code() as usize, i + 1);
        }
        let err = "solvd".parse::<Status>().unwrap_err().to_string();
        assert!(
            err.contains("\"solvd\"") && err.contains("gave_up"),
            "{err}"
        );
    }

    #[test]
    fn a_claim_of_no_solution_holds_only_when_solving_again_agrees() {
        let solvable = grid(PUZZLE);
        // Two 5s in the first row: contradictory clues.
        let clash = grid(&format!("55{}", &PUZZLE[2..]));
        for status in [Status::Unsolvable, Status::Multiple, Status::Invalid] {
            let why = check_claim(status, &solvable, None, &claims(true)).unwrap();
            assert!(
                why.ends_with("solving the puzzle again gives solved"),
                "{why}"
            );
        }
        assert_eq!(
            check_claim(Status::Invalid, &clash, None, &claims(false)),
            None
        );
        assert!(check_claim(Status::Unsolvable, &clash, None, &claims(false)).is_some());
        // An empty grid has many solutions: `multiple` with --unique, `solved` without.
        assert_eq!(
            check_claim(Status::Multiple, &Grid::empty(), None, &claims(true)),
            None
        );
        assert!(check_claim(Status::Multiple, &Grid::empty(), None, &claims(false)).is_some());
        // Other statuses are not solved again.
        assert_eq!(
            check_claim(Status::GaveUp, &solvable, None, &claims(true)),
            None
        );
        assert_eq!(
            check_claim(Status::Solved, &Grid::empty(), None, &claims(true)),
            None
        );
    }

    #[test]
    fn judge_decides_each_status() {
        let puzzle = grid(PUZZLE);
        let options = JudgeOptions::default();
        let solved = judge(&puzzle, None, &options);
        assert_eq!(solved.status, Status::Solved);
        let solution = solved.solution.unwrap();
        assert!(solution.is_solution_of(&puzzle));
        assert_eq!(
            judge(&puzzle, Some(&solution), &options).status,
            Status::Solved
        );

        let mut wrong = solution;
        wrong.set(80, wrong.get(80) % 9 + 1);
        let mismatch = judge(&puzzle, Some(&wrong), &options);
        assert_eq!(mismatch.status, Status::Mismatch);
        assert!(
            mismatch.message.contains("row 9, column 9"),
            "{}",
            mismatch.message
        );

        let unique = JudgeOptions {
            unique: true,
            ..JudgeOptions::default()
        };
        assert_eq!(
            judge(&Grid::empty(), None, &unique).status,
            Status::Multiple
        );
        assert_eq!(judge(&Grid::empty(), None, &options).status, Status::Solved);

        let mut clash = puzzle;
        clash.set(2, 5);
        let invalid = judge(&clash, None, &options);
        assert_eq!(invalid.status, Status::Invalid);
        assert!(!invalid.reached_solver);
    }

    #[test]
    fn a_spent_budget_gives_up_and_is_never_unsolvable() {
        // Norvig's "hardest" for the naive solver: thousands of guesses.
        let hard = grid(
            ".....6....59.....82....8....45........3........6..3.54...325..6..................",
        );
        for solver in SolverKind::ALL.iter().copied() {
            let options = JudgeOptions {
                solver,
                unique: true,
                budget: Budget::new(Some(0), None),
            };
            let verdict = judge(&hard, None, &options);
            assert_eq!(verdict.status, Status::GaveUp, "{solver}");
            assert!(verdict.solution.is_none());
            assert_eq!(verdict.message, "gave up after 1 guess");
            // A budget the search fits in changes nothing.
            let free = judge(
                &hard,
                None,
                &JudgeOptions {
                    solver,
                    unique: true,
                    ..Default::default()
                },
            );
            let roomy = JudgeOptions {
                budget: Budget::new(Some(free.guesses), None),
                ..options
            };
            assert_eq!(judge(&hard, None, &roomy).status, free.status, "{solver}");
        }
        let stop = std::sync::atomic::AtomicBool::new(true);
        let stopped = judge(
            &Grid::empty(),
            None,
            &JudgeOptions {
                solver: SolverKind::Naive,
                unique: false,
                budget: Budget::new(None, Some(&stop)),
            },
        );
        // The empty grid needs no 4096th guess for one solution: the flag is polled only then.
        assert_eq!(stopped.status, Status::Solved);
    }

    #[test]
    fn check_names_each_failure() {
        let puzzle = grid(PUZZLE);
        let solution = SolverKind::default().solve(&puzzle, 1).solution.unwrap();
        let options = CheckOptions::default();
        assert_eq!(check(&puzzle, Some(&solution), &options), RowVerdict::Valid);
        assert_eq!(check(&puzzle, None, &options), RowVerdict::Skipped);
        let required = CheckOptions {
            require_solution: true,
            ..options
        };
        assert!(matches!(
            check(&puzzle, None, &required),
            RowVerdict::Failed(FailureKind::Malformed, _)
        ));
        let mut blank = solution;
        blank.set(40, 0);
        let mut broken = solution;
        broken.set(1, broken.get(0));
        // A complete grid that keeps the rules but not this puzzle's clues.
        let changed = SolverKind::default()
            .solve(&Grid::empty(), 1)
            .solution
            .unwrap();
        let cases = [
            (blank, FailureKind::Incomplete),
            (broken, FailureKind::BrokenRule),
            (changed, FailureKind::ClueContradicted),
        ];
        for (bad, kind) in cases {
            match check(&puzzle, Some(&bad), &options) {
                RowVerdict::Failed(k, _) if k == kind => {}
                other => panic!("{kind:?}: {other:?}"),
            }
        }
        let unique = CheckOptions {
            unique: true,
            ..options
        };
        match check(&Grid::empty(), Some(&changed), &unique) {
            RowVerdict::Failed(FailureKind::NotUnique, reason) => {
                assert!(reason.contains("another has"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            check(&Grid::empty(), None, &unique),
            RowVerdict::Failed(FailureKind::NotUnique, _)
        ));
        assert_eq!(check(&puzzle, None, &unique), RowVerdict::Valid);
        // A puzzle whose clues clash keeps no grid's clues: the reason says it is the puzzle.
        let mut clash = puzzle;
        let (c, d) = (0..81)
            .find_map(|c| (puzzle.get(c) != 0).then(|| (c, puzzle.get(c))))
            .unwrap();
        let other = (0..81)
            .find(|&o| o != c && puzzle.get(o) == 0 && o / 9 == c / 9)
            .unwrap();
        clash.set(other, d);
        match check(&clash, Some(&solution), &options) {
            RowVerdict::Failed(FailureKind::ClueContradicted, reason) => {
                assert!(
                    reason.contains("the puzzle's own clues contradict"),
                    "{reason}"
                )
            }
            other => panic!("{other:?}"),
        }
        match check(&puzzle, Some(&changed), &options) {
            RowVerdict::Failed(_, reason) => assert!(!reason.contains("own clues"), "{reason}"),
            other => panic!("{other:?}"),
        }
    }
}
