//! The stopwatch that gives every puzzle its `solve_ns`: the CPU's time-stamp counter where it
//! ticks at a constant rate, else [`Instant`].
//!
//! Two `Instant` reads (vDSO `clock_gettime`) cost about 44 ns per puzzle on the machine the
//! benchmarks run on, 3% of a million easy puzzles' CPU time; two `rdtsc` reads cost about 18 ns
//! (`docs/BENCHMARKS.md`). The counter's rate is calibrated once per process against `Instant`,
//! over at least 2 ms and without waiting: [`start`] reads both clocks as a command begins, the
//! readings of the first 2 ms come from `Instant`, and the first reading after them reads both
//! clocks again and fixes the rate. A reading of either kind converts to nanoseconds since the
//! calibration's start, so an interval may begin before the rate is known and end after. The
//! rate is checked for plausibility, and a machine without an invariant counter (or any other
//! architecture) uses `Instant` for every reading.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How readings are taken once the calibration is over.
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

/// The shortest interval the counter's rate is measured over.
const CALIBRATION: Duration = Duration::from_millis(2);

/// Marks a reading of the counter (the others are nanoseconds since [`epoch`]).
const TICKS: u64 = 1 << 63;

/// A reading of the stopwatch: pass two to [`elapsed_ns`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Reading(u64);

/// The counter and `Instant` read at one moment: the middle of two counter reads taken on both
/// sides of `Instant::now()`.
#[derive(Debug, Clone, Copy)]
struct Pair {
    ticks: u64,
    at: Instant,
}

/// Where the calibration starts: the first [`Pair`] with a tight bracket, or `None` when the
/// counter is not used (`SUDOKU_BATCH_CLOCK=instant`, no invariant counter, another
/// architecture, or no tight bracket in three tries).
fn base() -> Option<Pair> {
    static BASE: OnceLock<Option<Pair>> = OnceLock::new();
    *BASE.get_or_init(|| {
        let _ = epoch();
        let off = std::env::var_os("SUDOKU_BATCH_CLOCK").is_some_and(|v| v == "instant");
        if off || !invariant_tsc() {
            return None;
        }
        tight_pair()
    })
}

/// The start of the nanoseconds that readings of `Instant` count (before [`base`]'s pair).
fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// The source, once the calibration is over.
static SOURCE: OnceLock<Source> = OnceLock::new();

/// Reads both clocks for the calibration's start: call it as early as possible, so that the
/// readings use the counter sooner. Costs a few reads of the clocks (and a CPUID).
pub fn start() {
    let _ = base();
}

/// Finishes the calibration now, sleeping for what is left of its 2 ms, rather than at the
/// first reading after them.
pub fn init() {
    if SOURCE.get().is_none() {
        if let Some(b) = base() {
            if let Some(rest) = CALIBRATION.checked_sub(b.at.elapsed()) {
                std::thread::sleep(rest);
            }
        }
        let _ = now();
    }
}

/// The current reading.
#[inline]
pub fn now() -> Reading {
    match SOURCE.get() {
        Some(Source::Tsc { .. }) => Reading(ticks() | TICKS),
        Some(Source::Instant) => Reading(since_epoch(Instant::now())),
        None => calibrating(),
    }
}

/// A reading while the rate is not known: from `Instant`, finishing the calibration when 2 ms
/// have passed since its start.
#[cold]
fn calibrating() -> Reading {
    let at = Instant::now();
    match base() {
        None => {
            let _ = SOURCE.set(Source::Instant);
        }
        Some(b) if at.duration_since(b.at) >= CALIBRATION => {
            // An implausible rate means `Instant` for good; no tight bracket, a later try.
            if let Some(end) = tight_pair() {
                let _ = SOURCE.set(rate(b, end).unwrap_or(Source::Instant));
            }
        }
        Some(_) => {}
    }
    Reading(since_epoch(at))
}

/// Nanoseconds from [`epoch`] to `at`.
fn since_epoch(at: Instant) -> u64 {
    at.duration_since(epoch()).as_nanos() as u64 & !TICKS
}

/// The counter's rate from two pairs, if plausible (between 0.1 and 10 GHz).
fn rate(start: Pair, end: Pair) -> Option<Source> {
    let ns = end.at.duration_since(start.at).as_nanos() as f64;
    let ticks = end.ticks.checked_sub(start.ticks)? as f64;
    let ghz = ticks / ns;
    (0.1..=10.0).contains(&ghz).then(|| Source::Tsc {
        mult: ((1u64 << SHIFT) as f64 / ghz).round() as u64,
    })
}

/// Nanoseconds from `start` to `end` (0 if `end` is earlier).
#[inline]
pub fn elapsed_ns(start: Reading, end: Reading) -> u64 {
    match (start.0 & TICKS != 0, end.0 & TICKS != 0) {
        (true, true) => to_ns(end.0.saturating_sub(start.0)),
        (false, false) => end.0.saturating_sub(start.0),
        // Only across the calibration's end.
        _ => nanos(end).saturating_sub(nanos(start)),
    }
}

/// Counter ticks as nanoseconds (0 before the rate is known, which no counter reading is).
#[inline]
fn to_ns(ticks: u64) -> u64 {
    match SOURCE.get() {
        Some(Source::Tsc { mult }) => ((u128::from(ticks) * u128::from(*mult)) >> SHIFT) as u64,
        _ => 0,
    }
}

/// A reading as nanoseconds since [`epoch`]: a counter reading through the calibration's start.
#[cold]
fn nanos(r: Reading) -> u64 {
    if r.0 & TICKS == 0 {
        return r.0;
    }
    match base() {
        Some(b) => since_epoch(b.at) + to_ns((r.0 & !TICKS).saturating_sub(b.ticks)),
        None => 0,
    }
}

/// Which clock the stopwatch reads: `"tsc"` or `"instant"`.
#[cfg(test)]
fn source_name() -> &'static str {
    match SOURCE.get() {
        Some(Source::Tsc { .. }) => "tsc",
        _ => "instant",
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

/// The first of three [`pair`]s whose two counter reads lie close together.
fn tight_pair() -> Option<Pair> {
    (0..3).find_map(|_| pair())
}

/// A [`Pair`], if its two counter reads lie close together (else a preemption came between
/// them, or a counter read on another core ran behind).
fn pair() -> Option<Pair> {
    let before = ticks();
    let at = Instant::now();
    let after = ticks();
    // `wrapping_sub`: a counter read on another core may run behind; that too is a retry.
    (after.wrapping_sub(before) <= 10_000).then(|| Pair {
        ticks: before + (after - before) / 2,
        at,
    })
}

/// True when the CPU says its time-stamp counter ticks at one rate whatever the core's clock and
/// sleep state: CPUID leaf 0x8000_0007, EDX bit 8 ("invariant TSC", the same bit on Intel and
/// AMD), from which Linux sets both `constant_tsc` and `nonstop_tsc`. Asked of the CPU rather
/// than read from `/proc/cpuinfo`, which the kernel formats anew for every core at each read
/// (2,682 bytes for the 2 cores of the machine this was written on). Linux only, as before: elsewhere (macOS, where Rosetta 2
/// emulates the counter, Windows, the BSDs) readings come from `Instant`.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn invariant_tsc() -> bool {
    crate::cpuid::extended(0x8000_0007).is_some_and(|r| r.edx & (1 << 8) != 0)
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
fn invariant_tsc() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Times a sleep of `ms` with a reading from `first` and one from `second`, and asserts
    /// that ours lies within the `Instant` bracket around them (each reading of ours sits
    /// between two of `Instant`, so a preemption between reads widens the bracket instead of
    /// failing the test). Returns the two readings.
    fn agrees(first: fn() -> Reading, second: fn() -> Reading, ms: u64) -> (Reading, Reading) {
        let (i0, s, i1) = (Instant::now(), first(), Instant::now());
        std::thread::sleep(Duration::from_millis(ms));
        let (j0, e, j1) = (Instant::now(), second(), Instant::now());
        let ours = elapsed_ns(s, e) as f64;
        let shortest = j0.duration_since(i1).as_nanos() as f64;
        let longest = j1.duration_since(i0).as_nanos() as f64;
        assert!(
            ours >= shortest * 0.99 && ours <= longest * 1.01,
            "{} says {ours} ns, Instant between {shortest} and {longest} ns",
            source_name()
        );
        (s, e)
    }

    #[test]
    fn readings_agree_with_instant() {
        init();
        let (s, e) = agrees(now, now, 20);
        assert_eq!(elapsed_ns(e, s), 0, "an earlier end is 0, not a wrap");
    }

    /// An interval begun on `Instant` (in the calibration's first 2 ms) and ended on the
    /// counter, and the other way round, checked in a process of its own: a counter reading
    /// becomes `Instant` time by extrapolating from the calibration's start at the calibrated
    /// rate, close only near that start, as in a run (only an interval begun in its first 2 ms
    /// is mixed). In the test binary every test shares one calibration, which may have started
    /// half a minute earlier: a rate off by a few parts per million is then 100 us off.
    #[test]
    fn an_interval_may_start_before_the_rate_is_known_and_end_after() {
        let name = "stopwatch::tests::a_mixed_interval_in_a_fresh_process";
        let run = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--ignored", "--test-threads", "1"])
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&run.stdout);
        assert!(run.status.success() && out.contains("1 passed"), "{out}");
    }

    #[test]
    #[ignore = "run in a fresh process by an_interval_may_start_before_the_rate_is_known_and_end_after"]
    fn a_mixed_interval_in_a_fresh_process() {
        init();
        if source_name() != "tsc" {
            return;
        }
        // A reading from `Instant` (as in the first 2 ms) and one from the counter, both ways.
        let early: fn() -> Reading = || Reading(since_epoch(Instant::now()));
        let late: fn() -> Reading = || Reading(ticks() | TICKS);
        agrees(early, late, 5);
        agrees(late, early, 5);
    }
}
