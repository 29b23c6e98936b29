//! Run statistics: counts by status, solve-time percentiles, guesses, throughput; mergeable, and
//! printable as text or JSON. Times stay in nanoseconds until they are printed.

use hdrhistogram::Histogram;
use serde::Serialize;
use std::time::Duration;

use crate::error::Result;
use crate::io::results::{Column, ResultRowRef, Status};

/// Accumulates per-puzzle results.
#[derive(Debug, Clone)]
pub struct Tally {
    counts: [u64; Status::ALL.len()],
    solver_runs: u64,
    guesses: u64,
    solved_without_guess: u64,
    total_ns: u128,
    /// The slowest solve, exact: the histogram keeps 3 significant digits, and its `max()` is
    /// the top of a bucket, which can lie above every value recorded.
    max_ns: u64,
    histogram: Histogram<u64>,
}

impl Default for Tally {
    fn default() -> Self {
        Tally {
            counts: [0; Status::ALL.len()],
            solver_runs: 0,
            guesses: 0,
            solved_without_guess: 0,
            total_ns: 0,
            max_ns: 0,
            // 3 significant digits, auto-resizing: any solve time fits.
            histogram: Histogram::new(3).expect("3 significant figures is a valid precision"),
        }
    }
}

fn status_slot(status: Status) -> usize {
    Status::ALL.iter().position(|&s| s == status).unwrap_or(0)
}

impl Tally {
    /// Records one record's result. `solved_by_solver` is false for records that never reached
    /// the solver (malformed or contradictory), which are left out of timing and guess figures.
    pub fn record(&mut self, status: Status, reached_solver: bool, guesses: u64, solve_ns: u64) {
        self.counts[status_slot(status)] += 1;
        if reached_solver {
            self.solver_runs += 1;
            self.guesses += guesses;
            self.total_ns += u128::from(solve_ns);
            self.max_ns = self.max_ns.max(solve_ns);
            // `record` grows the auto-resizing histogram; `saturating_record` would clamp.
            if self.histogram.record(solve_ns.max(1)).is_err() {
                self.histogram.saturating_record(solve_ns.max(1));
            }
            if status == Status::Solved && guesses == 0 {
                self.solved_without_guess += 1;
            }
        }
    }

    /// The columns [`Tally::add_row`] reads.
    pub const ROW_COLUMNS: [Column; 3] = [Column::Status, Column::Guesses, Column::SolveNs];

    /// Records a result row read back (`--resume`, `merge`) as [`Tally::record`] would have
    /// when it was solved: `invalid` rows never reached the solver. The row must have
    /// [`Tally::ROW_COLUMNS`]; the error names the one it lacks.
    pub fn add_row(&mut self, row: &ResultRowRef<'_>) -> Result<()> {
        let status = row.status.ok_or_else(|| row.missing(Column::Status))?;
        let guesses = row.guesses.ok_or_else(|| row.missing(Column::Guesses))?;
        let solve_ns = row.solve_ns.ok_or_else(|| row.missing(Column::SolveNs))?;
        self.record(status, status != Status::Invalid, guesses, solve_ns);
        Ok(())
    }

    /// Number of records with `status`.
    pub fn count(&self, status: Status) -> u64 {
        self.counts[status_slot(status)]
    }

    /// Number of records seen.
    pub fn puzzles(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Builds the summary of a run that took `wall` on `threads` threads with `solver`.
    pub fn summary(&self, wall: Duration, threads: usize, solver: &str) -> Summary {
        let puzzles = self.puzzles();
        let wall_seconds = wall.as_secs_f64();
        let runs = self.solver_runs.max(1) as f64;
        let solved = self.count(Status::Solved);
        let q = |quantile: f64| {
            if self.solver_runs == 0 {
                0
            } else {
                // A bucket's top may lie above the slowest row: never report more than it.
                self.histogram.value_at_quantile(quantile).min(self.max_ns)
            }
        };
        Summary {
            puzzles,
            solved,
            unsolvable: self.count(Status::Unsolvable),
            multiple: self.count(Status::Multiple),
            invalid: self.count(Status::Invalid),
            mismatch: self.count(Status::Mismatch),
            gave_up: self.count(Status::GaveUp),
            threads,
            solver: solver.to_string(),
            wall_seconds,
            puzzles_per_second: if wall_seconds > 0.0 {
                puzzles as f64 / wall_seconds
            } else {
                0.0
            },
            solve_ns: SolveNs {
                mean: (self.total_ns as f64 / runs).round() as u64,
                p50: q(0.50),
                p90: q(0.90),
                p99: q(0.99),
                max: self.max_ns,
            },
            guesses_per_puzzle: self.guesses as f64 / runs,
            no_guess_percent: if solved == 0 {
                0.0
            } else {
                100.0 * self.solved_without_guess as f64 / solved as f64
            },
            cpu_seconds: 0.0,
            solve_share: 0.0,
            interrupted: false,
        }
    }
}

impl std::ops::AddAssign<&Tally> for Tally {
    fn add_assign(&mut self, other: &Tally) {
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a += b;
        }
        self.solver_runs += other.solver_runs;
        self.guesses += other.guesses;
        self.solved_without_guess += other.solved_without_guess;
        self.total_ns += other.total_ns;
        self.max_ns = self.max_ns.max(other.max_ns);
        // Both histograms auto-resize, so adding cannot fail for range reasons.
        let _ = self.histogram.add(&other.histogram);
    }
}

/// Solve-time statistics in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct SolveNs {
    /// Mean.
    pub mean: u64,
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// Slowest.
    pub max: u64,
}

/// The summary of a run; its JSON keys are stable.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Summary {
    /// Records read.
    pub puzzles: u64,
    /// Records solved.
    pub solved: u64,
    /// Puzzles with no solution.
    pub unsolvable: u64,
    /// Puzzles with several solutions (`--unique`).
    pub multiple: u64,
    /// Malformed records or contradictory clues.
    pub invalid: u64,
    /// Records whose reference solution differs.
    pub mismatch: u64,
    /// Puzzles given up on after `--max-guesses` guesses.
    #[serde(default)]
    pub gave_up: u64,
    /// Solver threads.
    pub threads: usize,
    /// Solver name.
    pub solver: String,
    /// Wall-clock time of the run.
    pub wall_seconds: f64,
    /// Records per second of wall time.
    pub puzzles_per_second: f64,
    /// Solve-time statistics over the puzzles that reached the solver.
    pub solve_ns: SolveNs,
    /// Mean guesses per puzzle that reached the solver.
    pub guesses_per_puzzle: f64,
    /// Share of solved puzzles that needed no guess, in percent.
    pub no_guess_percent: f64,
    /// CPU time (user + system) of the whole process since the run started, in seconds: all
    /// threads, reading, solving, writing; 0 where not measured (`merge`, other OSes).
    #[serde(default)]
    pub cpu_seconds: f64,
    /// The share of `cpu_seconds` spent in the solver, 0 to 1. Per chunk of puzzles it is the
    /// worker thread's CPU time times the share of the chunk's wall time its puzzles' `solve_ns`
    /// cover (`solve_ns` is wall time, so on a loaded machine its plain sum also counts time the
    /// thread waited for a core; the ratio cancels that out). The rest went to reading, parsing,
    /// checking, formatting, ordering and writing.
    #[serde(default)]
    pub solve_share: f64,
    /// The run was stopped by a signal: the counts cover the rows written before it only (the
    /// rest of the input was not read). Written to the JSON only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

impl Summary {
    /// Sets [`Summary::cpu_seconds`] from the process's CPU time (`None`: not measured) and
    /// [`Summary::solve_share`] from the solver's estimated CPU time in nanoseconds.
    pub(crate) fn set_cpu(&mut self, process: Option<Duration>, solver_cpu_ns: u64) {
        let Some(process) = process else {
            return;
        };
        self.cpu_seconds = process.as_secs_f64();
        if self.cpu_seconds > 0.0 {
            self.solve_share = (solver_cpu_ns as f64 / 1e9 / self.cpu_seconds).min(1.0);
        }
    }

    /// Where the CPU time went, when it was measured.
    fn cpu_text(&self) -> String {
        if self.cpu_seconds <= 0.0 {
            return String::new();
        }
        format!(
            "cpu: {:.3} s (user + sys), {:.0}% of it in the solver\n",
            self.cpu_seconds,
            100.0 * self.solve_share
        )
    }

    /// The human-readable summary printed to stderr.
    pub fn to_text(&self) -> String {
        let us = |ns: u64| ns as f64 / 1000.0;
        let per_puzzle_us = if self.puzzles_per_second > 0.0 {
            1e6 / self.puzzles_per_second
        } else {
            0.0
        };
        // `gave up` only when there are some: the line scripts read stays as it was otherwise.
        let gave_up = if self.gave_up > 0 {
            format!(", gave up {}", self.gave_up)
        } else {
            String::new()
        };
        format!(
            "puzzles: {} (solved {}, unsolvable {}, multiple {}, invalid {}, mismatch {}{gave_up})\n\
             wall: {:.3} s, {:.0} puzzles/s, {:.2} µs/puzzle, {} thread(s), solver {}\n\
             solve time µs: mean {:.2}, p50 {:.2}, p90 {:.2}, p99 {:.2}, max {:.2}\n\
             guesses/puzzle: {:.2}, solved without guessing: {:.1}%\n{}",
            self.puzzles,
            self.solved,
            self.unsolvable,
            self.multiple,
            self.invalid,
            self.mismatch,
            self.wall_seconds,
            self.puzzles_per_second,
            per_puzzle_us,
            self.threads,
            self.solver,
            us(self.solve_ns.mean),
            us(self.solve_ns.p50),
            us(self.solve_ns.p90),
            us(self.solve_ns.p99),
            us(self.solve_ns.max),
            self.guesses_per_puzzle,
            self.no_guess_percent,
            self.cpu_text(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_max_is_exact_where_the_histogram_rounds() {
        for slowest in [27_852_274u64, 1_000_001, 3] {
            let mut a = Tally::default();
            a.record(Status::Solved, true, 0, 1000);
            let mut b = Tally::default();
            b.record(Status::Solved, true, 0, slowest);
            a += &b;
            let s = a.summary(Duration::from_secs(1), 1, "x");
            assert_eq!(s.solve_ns.max, slowest.max(1000));
        }
    }

    #[test]
    fn tallies_merge_and_summarize() {
        let mut a = Tally::default();
        a.record(Status::Solved, true, 0, 1000);
        a.record(Status::Solved, true, 2, 3000);
        a.record(Status::Invalid, false, 0, 0);
        let mut b = Tally::default();
        b.record(Status::Unsolvable, true, 4, 2000);
        a += &b;
        let s = a.summary(Duration::from_secs(2), 2, "x");
        assert_eq!((s.puzzles, s.solved, s.unsolvable, s.invalid), (4, 2, 1, 1));
        assert_eq!(s.puzzles_per_second, 2.0);
        assert_eq!(s.solve_ns.mean, 2000);
        assert_eq!(s.solve_ns.max, 3000, "exact, not a bucket's top");
        assert!((1999..=2001).contains(&s.solve_ns.p50));
        assert_eq!(s.guesses_per_puzzle, 2.0);
        assert_eq!(s.no_guess_percent, 50.0);
        let json = serde_json::to_value(&s).unwrap();
        for key in [
            "puzzles",
            "solved",
            "unsolvable",
            "multiple",
            "invalid",
            "mismatch",
            "threads",
            "solver",
            "wall_seconds",
            "puzzles_per_second",
            "solve_ns",
            "guesses_per_puzzle",
            "no_guess_percent",
            "cpu_seconds",
            "solve_share",
        ] {
            assert!(json.get(key).is_some(), "{key}");
        }
        for key in ["mean", "p50", "p90", "p99", "max"] {
            assert!(json["solve_ns"].get(key).is_some(), "{key}");
        }
    }

    #[test]
    fn rows_read_back_tally_as_when_they_were_solved() {
        use crate::io::results::ResultReader;
        let text = "status,solve_ns,guesses\nsolved,1000,0\ninvalid,0,0\nunsolvable,2000,4\n";
        let mut rows = ResultReader::new(text.as_bytes(), "r.csv")
            .unwrap()
            .unwrap();
        let mut read = Tally::default();
        while let Some(row) = rows.next_row().unwrap() {
            read.add_row(&row).unwrap();
        }
        let mut solved = Tally::default();
        solved.record(Status::Solved, true, 0, 1000);
        solved.record(Status::Invalid, false, 0, 0);
        solved.record(Status::Unsolvable, true, 4, 2000);
        let summary = |t: &Tally| t.summary(Duration::from_secs(1), 1, "x");
        assert_eq!(summary(&read), summary(&solved));
        // A row without a column the tally needs is refused, naming it.
        let mut rows = ResultReader::new(&b"status\nsolved\n"[..], "s.csv")
            .unwrap()
            .unwrap();
        let row = rows.next_row().unwrap().unwrap();
        let error = Tally::default().add_row(&row).unwrap_err().to_string();
        assert_eq!(error, "s.csv: line 2: no guesses column");
    }

    #[test]
    fn empty_tally_has_zero_figures() {
        let s = Tally::default().summary(Duration::ZERO, 1, "x");
        assert_eq!(s.puzzles, 0);
        assert_eq!(s.solve_ns.p99, 0);
        assert_eq!(s.puzzles_per_second, 0.0);
    }
}
