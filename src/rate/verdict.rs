//! The per-puzzle decision of every rating front end (the `rate` command, the Python package):
//! prove the puzzle has exactly one solution with the fast solver, then rate it within the
//! limits, and say which [`RateStatus`] it gets and why.

use std::time::Instant;

use super::{explain, rate, GaveUp, Limits, Rating, Status, Step};
use crate::solver::{Budget, SolverKind};
use crate::verdict::{self as solve_verdict, JudgeOptions, Status as SolveStatus};
use crate::Grid;

/// What happened to one record. The words are stable: scripts match on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RateStatus {
    /// Rated: ER, EP and ED are the engine's rating.
    Rated,
    /// The puzzle has no solution.
    Unsolvable,
    /// The puzzle has two or more solutions.
    Multiple,
    /// A malformed record or contradictory clues.
    Invalid,
    /// A limit was reached (`max_er`, the deadline) or the puzzle needs a technique the engine
    /// lacks; ER, EP and ED are lower bounds.
    GaveUp,
}

impl RateStatus {
    /// Every status, in the order summaries list them. A status's position here is its code in
    /// the Python package's arrays.
    pub const ALL: [RateStatus; 5] = [
        RateStatus::Rated,
        RateStatus::Unsolvable,
        RateStatus::Multiple,
        RateStatus::Invalid,
        RateStatus::GaveUp,
    ];

    /// The word written in the `status` column.
    pub const fn as_str(self) -> &'static str {
        match self {
            RateStatus::Rated => "rated",
            RateStatus::Unsolvable => "unsolvable",
            RateStatus::Multiple => "multiple",
            RateStatus::Invalid => "invalid",
            RateStatus::GaveUp => "gave_up",
        }
    }

    /// The status's small-integer code: its position in [`RateStatus::ALL`].
    pub const fn code(self) -> u8 {
        self as u8
    }
}

impl std::str::FromStr for RateStatus {
    type Err = crate::error::UnknownName;

    fn from_str(word: &str) -> Result<RateStatus, Self::Err> {
        RateStatus::ALL
            .into_iter()
            .find(|s| s.as_str() == word)
            .ok_or_else(|| {
                crate::error::UnknownName::new(
                    "rate status",
                    word,
                    RateStatus::ALL.map(Self::as_str),
                )
            })
    }
}

/// The verdict on one rated puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateVerdict {
    /// Its status.
    pub status: RateStatus,
    /// The rating (`None` when the puzzle was not rated: not unique, not a puzzle, or given up
    /// before its first step); for `gave_up`, the rating of the steps taken, a lower bound.
    pub rating: Option<Rating>,
    /// Nanoseconds spent proving and rating it.
    pub rate_ns: u64,
    /// Why it is not `rated`.
    pub message: String,
    /// The search was stopped by `stop` (the run is stopping): this verdict is no answer.
    pub stopped: bool,
}

impl RateVerdict {
    /// The verdict on a record that is not a puzzle.
    pub fn invalid(message: String) -> RateVerdict {
        RateVerdict {
            status: RateStatus::Invalid,
            rating: None,
            rate_ns: 0,
            message,
            stopped: false,
        }
    }
}

/// Proves `puzzle` unique, then rates it within `limits` (its deadline counted from now when
/// `timeout` is given); `path`, when given, receives the solving steps. [`Limits::stop`] ends
/// the uniqueness proof and the rating early; the verdict is then `stopped`.
pub fn judge(
    puzzle: &Grid,
    limits: &Limits,
    timeout: Option<std::time::Duration>,
    path: Option<&mut Vec<Step>>,
) -> RateVerdict {
    let started = Instant::now();
    let done = |status, rating, message: String, stopped| RateVerdict {
        status,
        rating,
        rate_ns: u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX),
        message,
        stopped,
    };
    let options = JudgeOptions {
        solver: SolverKind::default(),
        unique: true,
        budget: Budget::new(None, limits.stop.as_deref()),
    };
    let judged = solve_verdict::judge(puzzle, None, &options);
    let status = match judged.status {
        SolveStatus::Solved => None,
        SolveStatus::Unsolvable => Some(RateStatus::Unsolvable),
        SolveStatus::Multiple => Some(RateStatus::Multiple),
        SolveStatus::GaveUp => Some(RateStatus::GaveUp),
        SolveStatus::Invalid | SolveStatus::Mismatch => Some(RateStatus::Invalid),
    };
    if let Some(status) = status {
        return done(status, None, judged.message, judged.stopped);
    }
    let limits = Limits {
        deadline: timeout
            .and_then(|t| started.checked_add(t))
            .or(limits.deadline),
        ..limits.clone()
    };
    let rating = match path {
        Some(path) => {
            let (rating, steps) = explain(puzzle, &limits);
            *path = steps;
            rating
        }
        None => rate(puzzle, &limits),
    };
    match rating.status {
        Status::Rated => done(RateStatus::Rated, Some(rating), String::new(), false),
        Status::GaveUp(why) => {
            let message = match why {
                GaveUp::MaxEr => {
                    let max = limits.max_er.unwrap_or_default();
                    format!(
                        "a step rated above the limit of {}.{} (max ER) is needed",
                        max / 10,
                        max % 10
                    )
                }
                GaveUp::Deadline => "the time limit was reached".into(),
                GaveUp::StepBudget => "the step budget was reached".into(),
                GaveUp::NoTechnique => "no technique of the scale makes progress (not even \
                                        nested forcing chains of level 5)"
                    .into(),
                GaveUp::Stopped => "stopped".into(),
            };
            let stopped = why == GaveUp::Stopped;
            // Before its first step a puzzle has no rating, not a rating of 0.0.
            let reached = (rating.steps > 0).then_some(rating);
            done(RateStatus::GaveUp, reached, message, stopped)
        }
    }
}

impl RateVerdict {
    /// The solving path `steps` of `puzzle` in words, as `rate --explain` writes it: a head
    /// line (the puzzle, ER/EP/ED, the hardest technique, the step count, why it is not
    /// `rated`), then one numbered line per step. `place` (such as `in.txt line 7`) follows
    /// the reason of a puzzle with no rating, so a bad record in a long input can be found.
    pub fn explanation(&self, puzzle: &str, steps: &[Step], place: Option<&str>) -> String {
        use std::fmt::Write;
        let mut text = String::new();
        let _ = match self.rating {
            Some(r) => writeln!(
                text,
                "{puzzle}  ER/EP/ED {}  {}  {} steps{}",
                r.se_string(),
                r.hardest.map_or("", |t| t.name()),
                r.steps,
                if self.message.is_empty() {
                    String::new()
                } else {
                    format!("  ({}: {})", self.status.as_str(), self.message)
                }
            ),
            None => writeln!(
                text,
                "{puzzle}  {}: {}{}",
                self.status.as_str(),
                self.message,
                place.map_or(String::new(), |p| format!(" ({p})"))
            ),
        };
        for (i, step) in steps.iter().enumerate() {
            let _ = writeln!(text, "  {:>3}. {step}", i + 1);
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_of_ambiguous_bounded_and_rated_puzzles() {
        let limits = Limits::default();
        let multiple = judge(&Grid::empty(), &limits, None, None);
        assert_eq!(multiple.status, RateStatus::Multiple);
        assert!(multiple.rating.is_none());
        let easy: Grid =
            "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
                .parse()
                .unwrap();
        let mut path = Vec::new();
        let rated = judge(&easy, &limits, None, Some(&mut path));
        assert_eq!(rated.status, RateStatus::Rated);
        assert_eq!(rated.rating.unwrap().steps as usize, path.len());
        let low = Limits {
            max_er: Some(10),
            ..Limits::default()
        };
        let stopped = judge(&easy, &low, None, None);
        assert_eq!(stopped.status, RateStatus::GaveUp);
        assert!(
            stopped.message.contains("above the limit of 1.0"),
            "{}",
            stopped.message
        );
        // Its first step is a 1.2: given up before any step, it has no rating, not 0.0.
        assert!(stopped.rating.is_none(), "{:?}", stopped.rating);
        for (i, status) in RateStatus::ALL.into_iter().enumerate() {
            assert_eq!(status.code() as usize, i);
        }
    }
}
