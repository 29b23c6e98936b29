//! The measurement itself: the untimed check pass that validates every answer, and the warm-up
//! and timed passes of one dataset × solver × thread count.

use std::time::{Duration, Instant};

use crate::grid::Grid;
use crate::io::results::Status;
use crate::run::{self, Progress};
use crate::solver::{Budget, SolverKind};
use crate::stats::Tally;
use crate::stopwatch;
use crate::sysinfo;
use crate::transform::TransformStream;

use super::datasets::Dataset;
use super::row::{BenchRow, BenchStatus};
use super::{interrupted, BenchConfig};

/// Transform streams at or above this number are used by warm-up passes, below it by timed ones.
const WARMUP_STREAM: u64 = 1 << 32;

/// One puzzle's measurement inside a pass.
#[derive(Debug, Clone, Copy)]
struct Sample {
    solve_ns: u64,
    guesses: u64,
    count: u32,
    gave_up: bool,
}

/// Why a solver × dataset is not measured.
pub(super) struct Problem {
    /// The row's status.
    pub(super) status: BenchStatus,
    /// Why, for the row's note.
    pub(super) note: String,
}

impl BenchRow {
    /// Marks a row that is not measured, saying why.
    pub(super) fn not_measured(&mut self, why: &Problem) {
        self.status = why.status;
        self.note = why.note.clone();
        self.solved = None;
    }
}

/// What the check pass found.
pub(super) struct Check {
    /// Puzzles solved (and validated).
    pub(super) solved: u64,
    /// Puzzles given up on (`--max-guesses`).
    pub(super) gave_up: u64,
    /// Why the solver is not measured on this dataset, if it is not.
    pub(super) problem: Option<Problem>,
    /// What the row's note says of the puzzles that were timed but not solved as given (no
    /// solution, several, given up on, a reference that differs), with their input lines.
    pub(super) notes: Vec<String>,
}

/// The puzzles of one kind the check pass met: how many, and the input lines of the first.
#[derive(Default)]
struct Met {
    count: u64,
    lines: Vec<u64>,
}

impl Met {
    fn add(&mut self, line: u64) {
        self.count += 1;
        if self.lines.len() < super::datasets::LINES_SHOWN {
            self.lines.push(line);
        }
    }

    /// "3 puzzle(s) WHAT (lines 4, 9, 12)", or nothing when none.
    fn note(&self, what: &str) -> Option<String> {
        (self.count > 0).then(|| {
            format!(
                "{} puzzle(s) {what} ({})",
                self.count,
                super::datasets::lines_named(&self.lines, self.count)
            )
        })
    }
}

/// Solves the original puzzles one by one on this thread, validating every answer; stops
/// early (and reports a problem) when the pass runs over `max_pass`, also inside a puzzle: a
/// [`Watch`] sets the search's stop flag at the limit (or on a stop request), so one slow
/// puzzle cannot hold the suite.
pub(super) fn check_pass(
    dataset: &Dataset,
    options: &crate::verdict::JudgeOptions<'_>,
    max_pass: Duration,
) -> Check {
    let watch = Watch::new();
    let options = crate::verdict::JudgeOptions {
        budget: Budget {
            stop: Some(&watch.stop),
            ..options.budget
        },
        ..*options
    };
    watch.around(|| {
        let started = watch.begin(max_pass);
        check_puzzles(dataset, &options, started, max_pass)
    })
}

/// Stops a pass that runs over `--max-pass`, and any pass on a stop request: a thread that
/// wakes every [`Watch::EVERY`] sets the flag the solvers' budget polls (every few thousand
/// guesses). A timed pass can take far longer than the check pass: it solves transformed
/// puzzles, which can send a solver such as `naive` from microseconds to minutes.
struct Watch {
    stop: std::sync::atomic::AtomicBool,
    base: Instant,
    /// Nanoseconds after `base` at which the pass under way runs over (`u64::MAX`: none).
    deadline_ns: std::sync::atomic::AtomicU64,
    finished: std::sync::atomic::AtomicBool,
}

impl Watch {
    /// How often the watching thread looks: a pass stops at most this late, and the wake-ups
    /// cost a few microseconds of the other passes' time per period.
    const EVERY: Duration = Duration::from_millis(10);

    fn new() -> Watch {
        Watch {
            stop: Default::default(),
            base: Instant::now(),
            deadline_ns: std::sync::atomic::AtomicU64::new(u64::MAX),
            finished: Default::default(),
        }
    }

    /// Runs `body` with the watching thread beside it.
    fn around<T>(&self, body: impl FnOnce() -> T) -> T {
        use std::sync::atomic::Ordering::Relaxed;
        std::thread::scope(|scope| {
            let watching = scope.spawn(|| {
                while !self.finished.load(Relaxed) {
                    let now = u64::try_from(self.base.elapsed().as_nanos()).unwrap_or(u64::MAX);
                    if now > self.deadline_ns.load(Relaxed) || interrupted() {
                        self.stop.store(true, Relaxed);
                        return;
                    }
                    std::thread::park_timeout(Self::EVERY);
                }
            });
            let out = body();
            self.finished.store(true, Relaxed);
            watching.thread().unpark();
            out
        })
    }

    /// Starts a pass that may take `limit`; returns its start.
    fn begin(&self, limit: Duration) -> Instant {
        let started = Instant::now();
        // A limit past what `Instant` can hold (`--max-pass 1e19`) is no limit.
        let end = started.checked_add(limit).map_or(u64::MAX, |end| {
            u64::try_from(end.saturating_duration_since(self.base).as_nanos()).unwrap_or(u64::MAX)
        });
        self.deadline_ns
            .store(end, std::sync::atomic::Ordering::Relaxed);
        started
    }

    /// Whether the stop flag was set (the pass under way was cut short).
    fn stopped(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// [`check_pass`]'s loop over the puzzles, with the budget its watchdog stops.
fn check_puzzles(
    dataset: &Dataset,
    options: &crate::verdict::JudgeOptions<'_>,
    started: Instant,
    max_pass: Duration,
) -> Check {
    let mut solved = 0;
    let [mut wrong, mut gave_up, mut unsolvable, mut multiple, mut differs]: [Met; 5] =
        Default::default();
    let pairs = dataset.puzzles.iter().zip(&dataset.references);
    for (done, ((puzzle, reference), &line)) in pairs.zip(&dataset.lines).enumerate() {
        if interrupted() {
            break;
        }
        let verdict = crate::verdict::judge(puzzle, reference.as_ref(), options);
        // Checked after each puzzle, the last one too: a pass over the limit is skipped.
        if started.elapsed() > max_pass {
            // The puzzle counts as done unless the limit stopped it.
            let done = done + usize::from(verdict.status != Status::GaveUp);
            return Check {
                solved,
                gave_up: gave_up.count,
                notes: Vec::new(),
                problem: Some(Problem {
                    status: BenchStatus::Skipped,
                    note: format!(
                        "one 1-thread pass takes over {} s (--max-pass): {done} of {} puzzles \
                         in {:.1} s",
                        seconds(max_pass),
                        dataset.puzzles.len(),
                        started.elapsed().as_secs_f64()
                    ),
                }),
            };
        }
        match verdict.status {
            Status::Solved => solved += 1,
            // A checked solution that the input's reference differs from: the input's fault
            // (a wrong reference, or a puzzle with several solutions), not the solver's.
            Status::Mismatch if verdict.solution.is_some() => {
                solved += 1;
                differs.add(line);
            }
            Status::Mismatch => wrong.add(line),
            Status::GaveUp => gave_up.add(line),
            Status::Unsolvable => unsolvable.add(line),
            Status::Multiple => multiple.add(line),
            Status::Invalid => {}
        }
    }
    let problem = wrong
        .note("got a grid from the solver that breaks the rules")
        .map(|note| Problem {
            status: BenchStatus::Wrong,
            note,
        });
    let notes = [
        gave_up.note(&format!(
            "gave up (--max-guesses {})",
            options.budget.max_guesses
        )),
        unsolvable.note("have no solution"),
        multiple.note("have several solutions"),
        differs.note("solved, but not as the input's reference solution says"),
    ];
    Check {
        solved,
        gave_up: gave_up.count,
        problem,
        notes: notes.into_iter().flatten().collect(),
    }
}

/// The timed passes of one configuration.
pub(super) struct Measured {
    pass_rates: Vec<f64>,
    tally: Tally,
    /// The process's CPU time over the timed passes, and the wall time of the same spans
    /// (each whole pass call, so a tiny pass's fixed cost is on both sides).
    cpu: Option<(Duration, Duration)>,
}

impl Measured {
    pub(super) fn fill(&self, row: &mut BenchRow) {
        let mut rates = self.pass_rates.clone();
        rates.sort_by(f64::total_cmp);
        let median = median_of_sorted(&rates);
        let summary = self.tally.summary(Duration::ZERO, row.threads, &row.solver);
        row.status = BenchStatus::Ok;
        row.passes = rates.len() as u64;
        row.puzzles_per_s = Some(kept_rate(median));
        row.min_puzzles_per_s = rates.first().map(|&r| kept_rate(r));
        row.max_puzzles_per_s = rates.last().map(|&r| kept_rate(r));
        row.us_per_puzzle = (median > 0.0).then(|| round(1e6 / median, 3));
        row.p50_us = Some(round(summary.solve_ns.p50 as f64 / 1000.0, 3));
        row.p99_us = Some(round(summary.solve_ns.p99 as f64 / 1000.0, 3));
        row.guesses_per_puzzle = Some(round(summary.guesses_per_puzzle, 3));
        // Share of all puzzles (not only the solved ones) that needed no guess.
        let no_guess = self.tally.count(Status::Solved) as f64 * summary.no_guess_percent
            / (self.tally.puzzles().max(1) as f64);
        row.no_guess_pct = Some(round(no_guess, 2));
        // The OS counts CPU time in clock ticks: over timed passes shorter than this, the
        // share would be mostly rounding (above 1 as often as below).
        const SHORTEST: Duration = Duration::from_millis(500);
        row.cpu_share = self
            .cpu
            .filter(|&(_, wall)| wall >= SHORTEST)
            .map(|(cpu, wall)| {
                let available = wall.as_secs_f64() * row.threads as f64;
                round(cpu.as_secs_f64() / available.max(1e-9), 3)
            });
    }
}

/// Warm-up and timed passes of one dataset × solver × thread count; `None` if interrupted,
/// `Some(Err)` (a `skipped` row) when one pass runs over `--max-pass`.
pub(super) fn measure(
    dataset: &Dataset,
    solver: SolverKind,
    config: &BenchConfig,
    pool: Option<&crate::run::Pool>,
    progress: &Progress,
    context: &str,
) -> Option<Result<Measured, Problem>> {
    // Every timed puzzle reads the calibrated counter, not the calibration's `Instant` readings
    // (the first call waits out what is left of the calibration's 2 ms).
    stopwatch::init();
    let limit = if config.unique { 2 } else { 1 };
    let watch = Watch::new();
    let budget = Budget::new(config.max_guesses, Some(&watch.stop));
    let mut samples: Vec<Sample> = Vec::with_capacity(dataset.puzzles.len());
    let prepare = |stream: u64| match config.permute {
        Some(seed) => TransformStream::new(seed, stream).apply_all(&dataset.puzzles),
        None => dataset.puzzles.clone(),
    };
    let pass = |puzzles: &[Grid], samples: &mut Vec<Sample>| -> Duration {
        // Each puzzle is timed with the stopwatch `solve` uses (two counter reads where the
        // CPU has an invariant counter): two `Instant` reads cost a few percent of an easy
        // puzzle's time, which the pass's rate would count as the solver's.
        let work = |puzzle: &Grid| {
            let started = stopwatch::now();
            let outcome = solver.solve_within(puzzle, limit, budget);
            Sample {
                solve_ns: stopwatch::elapsed_ns(started, stopwatch::now()),
                guesses: outcome.guesses,
                count: outcome.count,
                gave_up: outcome.gave_up,
            }
        };
        let started = watch.begin(config.max_pass);
        match pool {
            Some(pool) => run::par_map_into(pool, puzzles, samples, work),
            None => {
                samples.clear();
                samples.extend(puzzles.iter().map(work));
            }
        }
        started.elapsed()
    };
    // A pass cut short: by a stop request (`None`), or by `--max-pass`.
    let cut = |wall: Duration| -> Option<Problem> {
        Some(Problem {
            status: BenchStatus::Skipped,
            note: format!(
                "one pass over the transformed puzzles takes over {} s (--max-pass): stopped \
                 after {:.1} s",
                seconds(config.max_pass),
                wall.as_secs_f64()
            ),
        })
        .filter(|_| !interrupted())
    };

    watch.around(|| {
        let warmup_started = Instant::now();
        let mut stream = WARMUP_STREAM;
        while warmup_started.elapsed() < config.warmup {
            progress.set_message(format!("{context}: warm-up"));
            let wall = pass(&prepare(stream), &mut samples);
            if watch.stopped() {
                return cut(wall).map(Err);
            }
            stream += 1;
        }

        let mut pass_rates = Vec::new();
        let mut timed = Duration::ZERO;
        let mut cpu = Some((Duration::ZERO, Duration::ZERO));
        let mut tally = Tally::default();
        while timed < config.min_time || pass_rates.len() < config.runs.max(1) {
            progress.set_message(format!("{context}: pass {}", pass_rates.len() + 1));
            let puzzles = prepare(pass_rates.len() as u64);
            let (cpu_before, span) = (sysinfo::process_cpu_time(), Instant::now());
            let wall = pass(&puzzles, &mut samples);
            if watch.stopped() {
                return cut(wall).map(Err);
            }
            cpu = match (cpu, cpu_before, sysinfo::process_cpu_time()) {
                (Some((sum, spans)), Some(before), Some(after)) => {
                    Some((sum + after.saturating_sub(before), spans + span.elapsed()))
                }
                _ => None,
            };
            timed += wall;
            pass_rates.push(puzzles.len() as f64 / wall.as_secs_f64().max(1e-9));
            tally_samples(&samples, limit, config.unique, &mut tally);
        }
        Some(Ok(Measured {
            pass_rates,
            tally,
            cpu,
        }))
    })
}

/// Adds one pass's samples to `tally`, each with its status.
fn tally_samples(samples: &[Sample], limit: u32, unique: bool, tally: &mut Tally) {
    for sample in samples {
        let status = match sample.count {
            _ if sample.gave_up && sample.count < limit => Status::GaveUp,
            0 => Status::Unsolvable,
            1 => Status::Solved,
            _ if unique => Status::Multiple,
            _ => Status::Solved,
        };
        tally.record(status, true, sample.guesses, sample.solve_ns);
    }
}

pub(super) fn median_of_sorted(values: &[f64]) -> f64 {
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// A rate (puzzles/s) as a row keeps it: in tenths, or to three significant digits below 10
/// puzzles/s, so a slow solver's rate (an external program's on a small file) is not 0.
pub(super) fn kept_rate(rate: f64) -> f64 {
    if rate >= 10.0 || rate <= 0.0 || !rate.is_finite() {
        return round(rate, 1);
    }
    round(rate, 2 - rate.log10().floor() as i32)
}

pub(super) fn round(value: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (value * scale).round() / scale
}

pub(super) fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    format!("{s}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_rounding() {
        assert_eq!(median_of_sorted(&[]), 0.0);
        assert_eq!(median_of_sorted(&[1.0, 2.0, 9.0]), 2.0);
        assert_eq!(median_of_sorted(&[1.0, 2.0, 4.0, 9.0]), 3.0);
        assert_eq!(round(1.23456, 2), 1.23);
    }
}
