//! The stopwatch that gives every puzzle its `solve_ns`: the CPU's time-stamp counter where it
//! ticks at a constant rate, else [`Instant`].
//!
//! Two `Instant` reads (vDSO `clock_gettime`) cost about 44 ns per puzzle on the machine the
//! benchmarks run on, 3% of a million easy puzzles' CPU time; two `rdtsc` reads cost about 18 ns
//! (`docs/BENCHMARKS.md`). The counter's rate is calibrated once per process against `Instant`
//! over at least 2 ms: [`start`] reads both clocks as a command begins, and the first reading
//! that needs the rate sleeps only for what is left of the 2 ms, so the start-up work overlaps
//! the calibration. The result is checked for plausibility, and a machine without an invariant
//! counter (or any other architecture) uses `Instant` for every reading.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How a reading becomes nanoseconds.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// Time-stamp counter ticks; `ns = ticks * mult >> SHIFT`.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Tsc { mult: u64 },
    /// Nanoseconds since [`epoch`].
    Instant,
}

/// Fixed-point shift of the tick-to-nanosecond factor (ns per tick × 2^32; the product is taken
/// in 128 bits, so no interval overflows).
const SHIFT: u32 = 32;

/// A reading of the stopwatch: pass two to [`elapsed_ns`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Reading(u64);

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn source() -> Source {
    static SOURCE: OnceLock<Source> = OnceLock::new();
    *SOURCE.get_or_init(calibrate)
}

/// Reads both clocks for the calibration's start: call it as early as possible, so that the
/// calibration waits only for what is left of its 2 ms. Costs a few reads of the clocks.
pub fn start() {
    let _ = epoch();
    let _ = first_pair();
}

/// Sets the stopwatch up (the rest of the calibration) now rather than at the first reading.
pub fn init() {
    start();
    let _ = source();
}

/// The current reading.
#[inline]
pub fn now() -> Reading {
    match source() {
        Source::Tsc { .. } => Reading(ticks()),
        Source::Instant => Reading(epoch().elapsed().as_nanos() as u64),
    }
}

/// Nanoseconds from `start` to `end` (0 if `end` is earlier).
#[inline]
pub fn elapsed_ns(start: Reading, end: Reading) -> u64 {
    let delta = end.0.saturating_sub(start.0);
    match source() {
        Source::Tsc { mult } => ((u128::from(delta) * u128::from(mult)) >> SHIFT) as u64,
        Source::Instant => delta,
    }
}

/// Which clock the stopwatch reads: `"tsc"` or `"instant"`.
#[cfg(test)]
fn source_name() -> &'static str {
    match source() {
        Source::Tsc { .. } => "tsc",
        Source::Instant => "instant",
    }
}

#[cfg(target_arch = "x86_64")]
#[inline]
fn ticks() -> u64 {
    // SAFETY: `rdtsc` exists on every x86_64 CPU, reads a counter and touches no memory; the
    // intrinsic is `unsafe` only because it is an intrinsic.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn ticks() -> u64 {
    epoch().elapsed().as_nanos() as u64
}

/// True when the CPU says its time-stamp counter ticks at one rate whatever the core's clock and
/// sleep state (`constant_tsc` and `nonstop_tsc`; Linux lists them in `/proc/cpuinfo`).
#[cfg(target_arch = "x86_64")]
fn invariant_tsc() -> bool {
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
        return false;
    };
    let flags = info.lines().find(|l| l.starts_with("flags")).unwrap_or("");
    let has = |flag: &str| flags.split_whitespace().any(|f| f == flag);
    has("constant_tsc") && has("nonstop_tsc")
}

/// The shortest interval the counter's rate is measured over.
#[cfg(target_arch = "x86_64")]
const CALIBRATION: Duration = Duration::from_millis(2);

/// The counter read on both sides of `Instant::now()`, so that a preemption between the reads
/// shows as a wide bracket (and the calibration attempt is retried).
fn pair() -> (u64, Instant, u64) {
    let before = ticks();
    let at = Instant::now();
    let after = ticks();
    (before, at, after)
}

/// The pair the calibration starts from, taken by the first call.
fn first_pair() -> &'static (u64, Instant, u64) {
    static FIRST: OnceLock<(u64, Instant, u64)> = OnceLock::new();
    FIRST.get_or_init(pair)
}

#[cfg(target_arch = "x86_64")]
fn calibrate() -> Source {
    if std::env::var_os("SUDOKU_BATCH_CLOCK").is_some_and(|v| v == "instant") || !invariant_tsc() {
        return Source::Instant;
    }
    for attempt in 0..3 {
        // The first attempt starts from the pair `start` took; a retry takes a fresh one.
        let (b0, t0, a0) = if attempt == 0 { *first_pair() } else { pair() };
        if let Some(rest) = CALIBRATION.checked_sub(t0.elapsed()) {
            std::thread::sleep(rest);
        }
        let (b1, t1, a1) = pair();
        // `wrapping_sub`: a counter read on another core may run behind; that too is a retry.
        if a0.wrapping_sub(b0) > 10_000 || a1.wrapping_sub(b1) > 10_000 || b1 <= a0 {
            continue;
        }
        let ns = t1.duration_since(t0).as_nanos() as f64;
        let ticks = ((b1 + a1) / 2 - (b0 + a0) / 2) as f64;
        let ghz = ticks / ns;
        // A plausible counter runs between 0.1 and 10 GHz.
        if (0.1..=10.0).contains(&ghz) {
            let mult = ((1u64 << SHIFT) as f64 / ghz).round() as u64;
            return Source::Tsc { mult };
        }
    }
    Source::Instant
}

#[cfg(not(target_arch = "x86_64"))]
fn calibrate() -> Source {
    Source::Instant
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_agree_with_instant() {
        init();
        // A 20 ms sleep timed by both clocks. Each reading of ours is bracketed by two of
        // `Instant`, so a preemption between reads widens the bracket instead of failing.
        let (i0, s, i1) = (Instant::now(), now(), Instant::now());
        std::thread::sleep(Duration::from_millis(20));
        let (j0, e, j1) = (Instant::now(), now(), Instant::now());
        let ours = elapsed_ns(s, e) as f64;
        let shortest = j0.duration_since(i1).as_nanos() as f64;
        let longest = j1.duration_since(i0).as_nanos() as f64;
        assert!(
            ours >= shortest * 0.99 && ours <= longest * 1.01,
            "{} says {ours} ns, Instant between {shortest} and {longest} ns",
            source_name()
        );
        assert_eq!(elapsed_ns(e, s), 0, "an earlier end is 0, not a wrap");
    }
}
