//! The ordered parallel pipeline every command shares: a rayon pool, and a map that produces
//! work items on the calling thread, works them on the pool and consumes the results in order
//! on a writer thread, with a bounded number in flight. A caller may have the first items
//! worked and consumed on the calling thread (`Start::Inline`): a small input is then done
//! before any thread would have woken.
//!
//! ```text
//! calling thread: produce item ──spawn──▶ rayon pool (work)
//!      ▲                                        │ (seq, output)
//!      └──── token (bounded in-flight) ◀── writer thread: reorder by seq, consume
//! ```

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::Pool;
use crate::error::{Error, Result};

/// The worker pool of an [`ordered_map`] run, started when the run first hands work to it: a
/// run that ends within its [`Start::Inline`] window starts no thread. A worker's start (a
/// thread, its stack and its allocator arena) measured 0.15 ms of CPU in a program that does
/// nothing else, against about 1.5 ms for a whole `solve` of one puzzle.
pub(crate) struct Workers {
    threads: usize,
    pool: std::sync::OnceLock<Pool>,
}

impl Workers {
    /// `threads` workers, not started yet.
    pub(crate) fn new(threads: usize) -> Workers {
        Workers {
            threads,
            pool: std::sync::OnceLock::new(),
        }
    }

    /// `threads` workers, started now: a command that hands them every item from the start
    /// refuses a thread limit before it reads or writes anything.
    pub(crate) fn started(threads: usize) -> Result<Workers> {
        let workers = Workers::new(threads);
        workers.pool()?;
        Ok(workers)
    }

    /// The pool, started on the first call ([`build_pool`]).
    fn pool(&self) -> Result<&Pool> {
        if let Some(pool) = self.pool.get() {
            return Ok(pool);
        }
        let pool = build_pool(self.threads)?;
        Ok(self.pool.get_or_init(|| pool))
    }
}

/// The number of logical cores this process may use ([`crate::threads::cores`]).
pub(crate) fn default_threads() -> usize {
    crate::threads::cores()
}

/// How [`ordered_map`] starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Start {
    /// Every item goes to the pool and the writer thread.
    Threads,
    /// Items are worked and consumed on the calling thread, in order, until this long has
    /// passed since the start (the item under way then finishes there); the rest go to the
    /// pool. `produce` is told which items are worked inline, so it can keep them small and
    /// the window is checked often. Waking a sleeping thread costs tens to hundreds of
    /// microseconds on a virtual machine, and a run of a few thousand easy puzzles hands over
    /// a dozen chunks: on a 2-vCPU VM, timestamps printed along a `-j 1` run of 1,000 easy
    /// puzzles put 3.2-3.9 ms between the first chunk read and the last row written (the
    /// writer once woke 1.7 ms after the worker's sixth chunk), against 1.4 ms for the same
    /// rows on the calling thread alone.
    Inline(Duration),
}

/// [`Start::Inline`] for `solve` and `verify`: long enough for a file of a thousand easy
/// puzzles, short against any run that gains from more threads. On a 2-vCPU VM a thousand
/// Kaggle puzzles take 2.5-3 ms to read, solve and write on one thread: a 2 ms window started
/// the pool and the writer near their end, and the whole process (`solve - -j 1` or `-j 2`)
/// took 15-18% more CPU than with this one (medians of 5 rounds: 4.86 against 4.13 ms, 4.65
/// against 4.04 ms).
pub(crate) const INLINE_START: Start = Start::Inline(Duration::from_millis(5));

/// Runs an ordered parallel map: `produce` is called on this thread for the next work item
/// (a chunk) until it returns `None` or an error, with `true` when the item will be worked
/// here (at the `start`) rather than on the pool; `work` runs on the pool's threads (or this
/// one); `consume` gets the results on a writer thread (or this one), in the order the items
/// were produced.
///
/// At most `in_flight` items exist at once (produced, not yet consumed), so memory is bounded
/// whatever the input size. If `consume` fails, production stops and its error is returned;
/// if `produce` fails, the items already produced are still worked and consumed, then its
/// error is returned. A panic in `consume` is returned as an internal error.
pub(crate) fn ordered_map<T, O>(
    workers: &Workers,
    in_flight: usize,
    start: Start,
    mut produce: impl FnMut(bool) -> Result<Option<T>>,
    work: impl Fn(T) -> O + Sync,
    mut consume: impl FnMut(O) -> Result<()> + Send,
) -> Result<()>
where
    T: Send,
    O: Send,
{
    if let Start::Inline(window) = start {
        let started = Instant::now();
        while started.elapsed() < window {
            let Some(item) = produce(true)? else {
                return Ok(());
            };
            let out = work(item);
            std::panic::catch_unwind(AssertUnwindSafe(|| consume(out)))
                .unwrap_or_else(|panic| Err(writer_panicked(panic.as_ref())))?;
        }
    }
    let pool = workers.pool()?;
    let in_flight = in_flight.max(1);
    let (token_tx, token_rx) = crossbeam_channel::bounded::<()>(in_flight);
    for _ in 0..in_flight {
        let _ = token_tx.send(());
    }
    let (done_tx, done_rx) = crossbeam_channel::unbounded::<(u64, O)>();
    std::thread::scope(|threads| {
        let writer = threads.spawn(move || -> Result<()> {
            let mut consume = consume;
            let mut pending: BTreeMap<u64, O> = BTreeMap::new();
            let mut next = 0u64;
            for (seq, out) in done_rx.iter() {
                pending.insert(seq, out);
                while let Some(out) = pending.remove(&next) {
                    // On error, returning drops `token_tx`, which stops the producer; a closed
                    // standard output also stops the items in flight (a rating may take
                    // seconds), as nothing will read their rows.
                    consume(out).inspect_err(|e| {
                        if e.is_broken_pipe() {
                            super::interrupt::abandon();
                        }
                    })?;
                    let _ = token_tx.send(());
                    next += 1;
                }
            }
            Ok(())
        });
        let work = &work;
        let mut produced = Ok(());
        pool.in_place_scope(|scope| {
            let mut seq = 0u64;
            while token_rx.recv().is_ok() {
                match produce(false) {
                    Ok(Some(item)) => {
                        let done_tx = done_tx.clone();
                        let this = seq;
                        scope.spawn(move |_| {
                            let _ = done_tx.send((this, work(item)));
                        });
                        seq += 1;
                    }
                    Ok(None) => break,
                    Err(e) => {
                        produced = Err(e);
                        break;
                    }
                }
            }
        });
        drop(done_tx);
        let written = writer
            .join()
            .unwrap_or_else(|panic| Err(writer_panicked(panic.as_ref())));
        written.and(produced)
    })
}

/// Maps every item on the pool into `out` (cleared first, reused), in item order. `bench` times
/// its parallel passes around this call, so it does nothing but the work.
pub(crate) fn par_map_into<T: Sync, O: Send>(
    pool: &Pool,
    items: &[T],
    out: &mut Vec<O>,
    work: impl Fn(&T) -> O + Sync + Send,
) {
    pool.install(|| items.par_iter().map(work).collect_into_vec(out));
}

/// Refuses a thread count above [`crate::threads::bound`] unless `allow_oversubscribe`,
/// naming the bound.
pub(crate) fn check_threads(threads: usize, allow_oversubscribe: bool) -> Result<()> {
    let (cores, bound) = (crate::threads::cores(), crate::threads::bound());
    if threads <= bound || allow_oversubscribe {
        return Ok(());
    }
    let per_core = crate::threads::MAX_PER_CORE;
    Err(Error::Usage(format!(
        "-j {threads} is more than {per_core} threads per logical core ({bound} for the {cores} \
         core(s) here): threads beyond the cores only take turns; use -j {bound} or fewer, or pass --allow-oversubscribe"
    )))
}

/// Builds the rayon pool for `threads` solver threads. When the system refuses a thread, the
/// error names the limit that stopped it where one is known (RLIMIT_NPROC, a cgroup's
/// `pids.max`) and the OS error.
pub(crate) fn build_pool(threads: usize) -> Result<Pool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .thread_name(|i| format!("worker-{i}"))
        .build()
        .map_err(|e| {
            Error::Usage(format!(
                "cannot start {threads} worker threads: {e}{}; lower -j",
                thread_limits()
            ))
        })
}

/// The limits on this process's threads that are set: `; the limit on processes and threads
/// of this user is 20 (RLIMIT_NPROC, ulimit -u)`, and the cgroup's `pids.max`.
fn thread_limits() -> String {
    #[cfg(target_os = "linux")]
    {
        let mut limits = String::new();
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes into the struct passed, which lives through the call.
        if unsafe { libc::getrlimit(libc::RLIMIT_NPROC, &mut limit) } == 0
            && limit.rlim_cur != libc::RLIM_INFINITY
        {
            limits += &format!(
                "; the limit on processes and threads of this user is {} (RLIMIT_NPROC, \
                 `ulimit -u`)",
                limit.rlim_cur
            );
        }
        let cgroup = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        if let Some(path) = cgroup.lines().find_map(|l| l.strip_prefix("0::")) {
            let file = format!("/sys/fs/cgroup{}/pids.max", path.trim_end_matches('/'));
            if let Ok(max) = std::fs::read_to_string(&file) {
                if max.trim() != "max" {
                    limits += &format!("; the cgroup allows {} tasks ({file})", max.trim());
                }
            }
        }
        limits
    }
    #[cfg(not(target_os = "linux"))]
    String::new()
}

/// The error for a panic of the consumer, with its message.
fn writer_panicked(payload: &(dyn std::any::Any + Send)) -> Error {
    Error::Internal(format!("the writer panicked: {}", panic_message(payload)))
}

/// The text a panic was raised with (`panic!("...")` gives a `&str` or a `String`).
fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every item to the pool; every item inline; the first few inline, then the pool (the
    /// first items take a millisecond each, so the window ends after about five).
    const STARTS: [Start; 3] = [
        Start::Threads,
        Start::Inline(Duration::from_secs(3600)),
        Start::Inline(Duration::from_millis(5)),
    ];

    #[test]
    fn results_come_in_input_order_whatever_the_start() {
        let workers = Workers::new(2);
        let caller = std::thread::current().id();
        for start in STARTS {
            let mut next = 0u32;
            let mut seen = Vec::new();
            let mut here = Vec::new();
            let mut told = Vec::new();
            ordered_map(
                &workers,
                4,
                start,
                |inline| {
                    next += 1;
                    told.push(inline);
                    Ok((next <= 100).then_some(next))
                },
                |n| {
                    if n <= 20 {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    (n * 2, std::thread::current().id() == caller)
                },
                |(n, on_caller)| {
                    seen.push(n);
                    here.push(on_caller);
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(
                seen,
                (1..=100).map(|n| n * 2).collect::<Vec<_>>(),
                "{start:?}"
            );
            // The calling thread works a prefix of the items, then the pool the rest, and
            // `produce` was told which.
            let inline = here.iter().take_while(|&&h| h).count();
            assert!(here[inline..].iter().all(|&h| !h), "{start:?}: {here:?}");
            assert_eq!(told[..100], here[..], "{start:?}");
            match start {
                Start::Threads => assert_eq!(inline, 0),
                Start::Inline(window) if window.as_secs() > 60 => assert_eq!(inline, 100),
                Start::Inline(_) => assert!((1..20).contains(&inline), "{inline}"),
            }
        }
    }

    #[test]
    fn a_run_done_within_its_inline_window_starts_no_worker() {
        let workers = Workers::new(2);
        let mut next = 0u32;
        let mut seen = Vec::new();
        let window = Start::Inline(Duration::from_secs(3600));
        let produce = |_| {
            next += 1;
            Ok((next <= 10).then_some(next))
        };
        ordered_map(
            &workers,
            4,
            window,
            produce,
            |n| n,
            |n| {
                seen.push(n);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, (1..=10).collect::<Vec<_>>());
        assert!(workers.pool.get().is_none());
        // Past the window, the pool starts.
        let mut next = 0u32;
        let produce = |_| {
            next += 1;
            Ok((next <= 10).then_some(next))
        };
        ordered_map(&workers, 4, Start::Threads, produce, |n| n, |_| Ok(())).unwrap();
        assert_eq!(workers.pool.get().map(Pool::current_num_threads), Some(2));
    }

    #[test]
    fn a_panicked_writer_is_an_internal_error_with_its_message() {
        let workers = Workers::new(1);
        for start in STARTS {
            let mut next = 0u32;
            let result = ordered_map(
                &workers,
                2,
                start,
                |_| {
                    next += 1;
                    Ok((next <= 10).then_some(next))
                },
                |n| n,
                |n| {
                    assert!(n < 3, "consumer gave up at {n}");
                    Ok(())
                },
            );
            match result {
                Err(Error::Internal(message)) => {
                    assert!(message.contains("writer panicked"), "{message}");
                    assert!(message.contains("consumer gave up at 3"), "{message}");
                }
                other => panic!("{start:?}: expected an internal error, got {other:?}"),
            }
        }
    }

    #[test]
    fn a_failed_read_comes_after_the_items_before_it_whatever_the_start() {
        let workers = Workers::started(2).unwrap();
        for start in STARTS {
            let mut next = 0u32;
            let mut seen = Vec::new();
            let result = ordered_map(
                &workers,
                4,
                start,
                |_| {
                    next += 1;
                    if next == 8 {
                        return Err(Error::Internal("read failed".into()));
                    }
                    Ok(Some(next))
                },
                |n| n,
                |n| {
                    seen.push(n);
                    Ok(())
                },
            );
            assert!(matches!(result, Err(Error::Internal(m)) if m == "read failed"));
            assert_eq!(seen, (1..8).collect::<Vec<_>>(), "{start:?}");
        }
    }
}
