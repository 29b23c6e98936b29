//! The per-puzzle step shared by the parallel pipeline and the sequential oracle: solve one
//! record and decide its [`Status`], with every reported solution checked.

use crate::grid::Grid;
use crate::io::results::Status;
use crate::io::Body;
use crate::run::stopwatch;
use crate::solver::SolverKind;

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
}

/// Solves one record and decides its status. This is the per-puzzle path that both the parallel
/// pipeline and the sequential oracle use.
pub fn judge(body: &Body, solver: SolverKind, unique: bool) -> Verdict {
    let invalid = |message: String| Verdict {
        status: Status::Invalid,
        solution: None,
        guesses: 0,
        solve_ns: 0,
        message,
        reached_solver: false,
    };
    let (puzzle, reference) = match body {
        Body::Invalid { message, .. } => return invalid(message.clone()),
        Body::Puzzle { puzzle, reference } => (puzzle, reference),
    };
    let limit = if unique { 2 } else { 1 };
    let started = stopwatch::now();
    // Every solver answers "no solution" for clues that contradict each other (`bands` finds
    // them while building its state), so the scan that names the conflict runs only then:
    // before solving it took 7% of a million-puzzle run.
    let outcome = solver.solve(puzzle, limit);
    let solve_ns = stopwatch::elapsed_ns(started, stopwatch::now());
    if outcome.count == 0 {
        if let Some(conflict) = puzzle.first_conflict() {
            return invalid(format!("contradictory clues: {conflict}"));
        }
    }
    let verdict = |status, solution, message: String| Verdict {
        status,
        solution,
        guesses: outcome.guesses,
        solve_ns,
        message,
        reached_solver: true,
    };
    let Some(solution) = outcome.solution.filter(|_| outcome.count > 0) else {
        return verdict(Status::Unsolvable, None, "no solution".into());
    };
    if let Err(e) = solution.check_solution_of(puzzle) {
        // A solver bug: never report an unchecked grid as a solution.
        return verdict(
            Status::Mismatch,
            None,
            format!("solver {solver} returned a bad grid: {e}"),
        );
    }
    if unique && outcome.count >= 2 {
        return verdict(Status::Multiple, None, "at least 2 solutions".into());
    }
    if let Some(reference) = reference {
        if reference != &solution {
            let cell = (0..81)
                .find(|&i| reference.get(i) != solution.get(i))
                .unwrap_or(0);
            let why = match reference.check_solution_of(puzzle) {
                Ok(()) => {
                    "; the reference is also a solution, so the puzzle has several".to_string()
                }
                Err(e) => format!("; the reference is wrong: {e}"),
            };
            return verdict(
                Status::Mismatch,
                Some(solution),
                format!(
                    "reference solution differs at row {}, column {}{why}",
                    cell / 9 + 1,
                    cell % 9 + 1
                ),
            );
        }
    }
    verdict(Status::Solved, Some(solution), String::new())
}
