//! `sudoku_batch._native`: the Rust half of the Python package.
//!
//! Every entry point takes a contiguous `(N, W)` numpy buffer (the Python half converts lists,
//! string arrays and other integer dtypes first), releases the GIL, and works on a rayon pool in
//! chunks, writing into preallocated outputs. The calling thread stays behind to check for
//! signals every 50 ms, so Ctrl-C stops a million-puzzle call within a second.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use numpy::{
    IntoPyArray, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{
    PyException, PyFileNotFoundError, PyMemoryError, PyOSError, PyOverflowError, PyRuntimeError,
    PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyString};
use rayon::prelude::*;
use sudoku_batch::error::UnknownName;
use sudoku_batch::generate::{Generator, Shape, Symmetry};
use sudoku_batch::grid::ParseError;
use sudoku_batch::io::{Body, Format, Input, OptionNames, ReadOptions, RecordReader};
use sudoku_batch::rate::verdict::{self as rate_verdict, RateStatus, RateVerdict};
use sudoku_batch::rate::{Flavor, Limits as RateLimits};
use sudoku_batch::solver::Budget;
use sudoku_batch::stopwatch;
use sudoku_batch::verdict::{
    self, CheckOptions, FailureKind, JudgeOptions, RowVerdict, Status, Verdict,
};
use sudoku_batch::{Grid, SolverKind};

/// Cells per grid.
const CELLS: usize = 81;
/// Rows per work item handed to the pool.
const CHUNK: usize = 512;
/// The cell value that marks a row the Python side could not read as a puzzle.
const BAD: u8 = 0xFF;

/// The kind code of a row that passes (failure kinds are 1 and up: [`FailureKind::code`]).
const K_OK: u8 = 0;
/// The kind code of a row with no solution to check and no uniqueness asked for: the CLI's
/// "skipped", not a failure, but not a pass either.
const K_SKIPPED: u8 = 0xFE;

/// A row's (index, message) for the rows that have one.
type Messages = Vec<(usize, Arc<str>)>;

/// `text` to keep beside a row: `last`'s allocation when the two are equal, so that a run of
/// rows that fail alike holds one copy of the text until it reaches Python.
fn share(last: Option<&Arc<str>>, text: String) -> Arc<str> {
    match last {
        Some(last) if **last == *text => Arc::clone(last),
        _ => Arc::from(text),
    }
}

/// [`Messages`] as Python takes them: the rows as an array and their messages as a list, in
/// which rows with the same text share one string.
type PyMessages<'py> = (Bound<'py, numpy::PyArray1<u64>>, Bound<'py, PyList>);

/// Python strings for texts that repeat: one object per distinct text, so a million rows that
/// fail the same way, or share a technique's name, hold one string rather than a million.
struct Texts<'py> {
    py: Python<'py>,
    seen: HashMap<String, Bound<'py, PyString>>,
}

impl<'py> Texts<'py> {
    /// Distinct texts remembered at most: past that, a text gets a string of its own (rows
    /// whose messages all differ gain nothing from the table).
    const MAX: usize = 1 << 12;

    fn new(py: Python<'py>) -> Self {
        Texts {
            py,
            seen: HashMap::new(),
        }
    }

    fn get(&mut self, text: &str) -> Bound<'py, PyString> {
        if let Some(s) = self.seen.get(text) {
            return s.clone();
        }
        let s = PyString::new(self.py, text);
        if self.seen.len() < Self::MAX {
            self.seen.insert(text.to_owned(), s.clone());
        }
        s
    }

    /// `texts` as a list of shared strings.
    fn list<'a>(
        &mut self,
        texts: impl IntoIterator<Item = &'a str>,
    ) -> PyResult<Bound<'py, PyList>> {
        let items: Vec<_> = texts.into_iter().map(|t| self.get(t)).collect();
        PyList::new(self.py, items)
    }
}

/// `messages` for Python (see [`PyMessages`]).
fn py_messages(py: Python<'_>, messages: Messages) -> PyResult<PyMessages<'_>> {
    let rows: Vec<u64> = messages.iter().map(|&(row, _)| row as u64).collect();
    let texts = Texts::new(py).list(messages.iter().map(|(_, m)| &**m))?;
    Ok((rows.into_pyarray(py), texts))
}

/// A library name (solver, symmetry, format), or `ValueError` with the library's message.
fn named<T: std::str::FromStr<Err = UnknownName>>(name: &str) -> PyResult<T> {
    name.parse()
        .map_err(|e: UnknownName| PyValueError::new_err(e.to_string()))
}

fn solver_kind(name: &str) -> PyResult<SolverKind> {
    named(name)
}

fn rows_of<'a>(array: &'a PyReadonlyArray2<'_, u8>, what: &str) -> PyResult<(&'a [u8], usize)> {
    let shape = array.shape();
    if shape[1] != CELLS {
        return Err(PyValueError::new_err(format!(
            "{what}: expected shape (N, 81), got ({}, {})",
            shape[0], shape[1]
        )));
    }
    let slice = array
        .as_slice()
        .map_err(|_| PyValueError::new_err(format!("{what}: expected a C-contiguous array")))?;
    Ok((slice, shape[0]))
}

/// A grid from 81 cell values, or why not: the first cell outside 0-9 and its value (the
/// row's index is where the caller puts the message).
fn grid_of(row: &[u8]) -> Result<Grid, String> {
    let mut cells = [0u8; CELLS];
    cells.copy_from_slice(row);
    Grid::from_cells(cells).ok_or_else(|| {
        // A whole row of the mark is one the Python side (or `read`) could not read.
        if row.iter().all(|&v| v == BAD) {
            return format!(
                "every cell holds {BAD}, the mark of a row that could not be read as a puzzle"
            );
        }
        // `from_cells` refuses a row only for a cell above 9.
        let i = row.iter().position(|&v| v > 9).unwrap_or_default();
        format!("cell {} holds {}, expected 0-9", i + 1, row[i])
    })
}

/// A `threads=` count as Python gives it: any int. One too large for a machine word is too
/// many threads like any count past the bound, and refused with the same message.
struct Threads {
    n: usize,
    /// The count as given, for the message.
    text: String,
}

impl Threads {
    fn one() -> Threads {
        Threads {
            n: 1,
            text: "1".into(),
        }
    }
}

impl<'py> FromPyObject<'py> for Threads {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        match ob.extract::<usize>() {
            Ok(n) => Ok(Threads {
                n,
                text: n.to_string(),
            }),
            Err(e) if e.is_instance_of::<PyOverflowError>(ob.py()) && ob.gt(0)? => Ok(Threads {
                n: usize::MAX,
                text: ob.str()?.to_string(),
            }),
            Err(e) => Err(e),
        }
    }
}

/// Runs `work` on a pool of `threads` threads with the GIL released, while this thread checks
/// for signals every 50 ms; a pending signal (Ctrl-C) sets the flag `work` polls, waits for it
/// to stop, and raises the signal's exception.
fn interruptible<T: Send>(
    py: Python<'_>,
    threads: Option<Threads>,
    work: impl FnOnce(&Arc<AtomicBool>) -> T + Send,
) -> PyResult<T> {
    if threads.as_ref().is_some_and(|t| t.n == 0) {
        return Err(PyValueError::new_err("threads must be at least 1, got 0"));
    }
    // The command line's bound (its `-j`), so a mistyped count does not start a million.
    let bound = sudoku_batch::threads::bound();
    if let Some(t) = threads.as_ref().filter(|t| t.n > bound) {
        return Err(PyValueError::new_err(format!(
            "threads={} is more than {} per logical core ({bound} for the {} core(s) here): \
             threads beyond the cores only take turns",
            t.text,
            sudoku_batch::threads::MAX_PER_CORE,
            sudoku_batch::threads::cores()
        )));
    }
    // All the cores this process may use by default, as the command line does (rayon's own
    // default would follow RAYON_NUM_THREADS past the bound above).
    let n = threads.map_or_else(sudoku_batch::threads::cores, |t| t.n);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start threads: {e}")))?;
    note_daemon(py)?;
    // Shared, so that a holder of its own (the rater's cutoff, the generator) can keep it.
    let cancel = Arc::new(AtomicBool::new(false));
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (pool, cancel_ref, done_ref) = (&pool, &cancel, &done);
        let watcher = std::thread::current();
        let handle = scope.spawn(move || {
            // Set (and the watcher woken) even when `work` panics, so the watcher stops waiting.
            struct Done<'a>(&'a AtomicBool, std::thread::Thread);
            impl Drop for Done<'_> {
                fn drop(&mut self) {
                    self.0.store(true, Ordering::Release);
                    self.1.unpark();
                }
            }
            let _done = Done(done_ref, watcher);
            pool.install(|| work(cancel_ref))
        });
        // Python runs signal handlers on its main thread only: another thread has no
        // KeyboardInterrupt to look for, so it waits with the GIL released until the end, and
        // never takes the GIL back while the interpreter may be exiting under it.
        let main = is_main_thread();
        loop {
            let finished = py.allow_threads(|| loop {
                // Woken by the worker when it finishes (a small call returns at once).
                if !done.load(Ordering::Acquire) {
                    std::thread::park_timeout(Duration::from_millis(50));
                }
                if exiting_elsewhere() {
                    cancel.store(true, Ordering::Relaxed);
                }
                hold_if_exiting();
                let finished = done.load(Ordering::Acquire);
                if finished || main {
                    break finished;
                }
            });
            if finished {
                break;
            }
            if let Err(err) = py.check_signals() {
                cancel.store(true, Ordering::Relaxed);
                let _ = py.allow_threads(|| {
                    let joined = handle.join();
                    hold_if_exiting();
                    joined
                });
                return Err(err);
            }
        }
        handle
            .join()
            .map_err(|_| PyRuntimeError::new_err("internal error: a worker thread panicked"))
    })
}

/// Python's main thread, the one its signal handlers run on, as the package's import found it.
static MAIN_THREAD: std::sync::OnceLock<std::thread::ThreadId> = std::sync::OnceLock::new();

/// Called by the package's import when it runs on Python's main thread.
#[pyfunction]
fn this_is_the_main_thread() {
    let _ = MAIN_THREAD.set(std::thread::current().id());
}

/// Whether this is Python's main thread; when the import did not run there, every thread
/// looks for signals as the main thread does.
fn is_main_thread() -> bool {
    MAIN_THREAD
        .get()
        .is_none_or(|id| *id == std::thread::current().id())
}

/// Set when the interpreter starts to exit (an `atexit` hook): a call still running in a daemon
/// thread must not take the GIL back then, since CPython ends such a thread with `pthread_exit`,
/// which would unwind through Rust frames (an abort or a crash at exit).
static EXITING: AtomicBool = AtomicBool::new(false);

/// The thread that runs the exit (the hook's): its own calls from later `atexit` hooks or
/// finalizers go on as usual.
static EXITING_THREAD: std::sync::OnceLock<std::thread::ThreadId> = std::sync::OnceLock::new();

/// Called by the package's `atexit` hook.
#[pyfunction]
fn interpreter_exiting() {
    let _ = EXITING_THREAD.set(std::thread::current().id());
    EXITING.store(true, Ordering::Release);
}

thread_local! {
    /// Whether the Python thread of the call on this thread is a daemon thread (noted with the
    /// GIL held as the call starts; unknown counts as one). CPython joins the other threads
    /// before it exits, so only a daemon thread may still be in a call then; a thread that an
    /// `atexit` hook starts and joins must not be held.
    static DAEMON: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Notes whether the calling Python thread is a daemon thread, before a call releases the GIL.
/// Only C-level lookups (the thread's entry in `threading._active`, its `_daemonic` flag), so
/// no Python code runs in which a pending Ctrl-C would be raised and lost; a thread `threading`
/// does not know (started by C code) counts as a daemon. Errs with a `KeyboardInterrupt` or
/// `SystemExit` met all the same.
fn note_daemon(py: Python<'_>) -> PyResult<()> {
    let looked = (|| -> PyResult<bool> {
        let ident = py.import("_thread")?.call_method0("get_ident")?;
        let active = py.import("threading")?.getattr("_active")?;
        let thread = active.call_method1("get", (ident,))?;
        if thread.is_none() {
            return Ok(true);
        }
        thread.getattr("_daemonic")?.extract::<bool>()
    })();
    let daemon = match looked {
        Ok(daemon) => daemon,
        Err(e) if e.is_instance_of::<PyException>(py) => true,
        Err(e) => return Err(e),
    };
    DAEMON.with(|d| d.set(daemon));
    Ok(())
}

/// Whether the interpreter is exiting and this thread, a daemon thread's call, is not the one
/// that runs the exit.
fn exiting_elsewhere() -> bool {
    EXITING.load(Ordering::Acquire)
        && EXITING_THREAD.get() != Some(&std::thread::current().id())
        && DAEMON.with(std::cell::Cell::get)
}

/// Before a thread that released the GIL takes it back: once the interpreter is exiting, any
/// thread but the exiting one never does (it parks until the process ends, as CPython 3.14
/// holds such threads itself).
fn hold_if_exiting() {
    if exiting_elsewhere() {
        loop {
            std::thread::park();
        }
    }
}

/// One row's verdict: [`verdict::judge`] on a grid of cell values, `invalid` for a row that is
/// not one.
fn judge(row: &[u8], options: &JudgeOptions<'_>) -> Verdict {
    match grid_of(row) {
        Ok(puzzle) => verdict::judge(&puzzle, None, options),
        Err(message) => Verdict::invalid(message),
    }
}

type SolveOut<'py> = (
    Bound<'py, PyArray2<u8>>,
    Bound<'py, numpy::PyArray1<u8>>,
    Bound<'py, numpy::PyArray1<u64>>,
    Bound<'py, numpy::PyArray1<u64>>,
    PyMessages<'py>,
);

/// Solves every row of a `(N, 81)` `uint8` array: (solutions, status, guesses, solve_ns,
/// [(row, message)]).
#[pyfunction]
#[pyo3(signature = (cells, threads=None, unique=false, solver="bands", max_guesses=None))]
fn solve_cells<'py>(
    py: Python<'py>,
    cells: PyReadonlyArray2<'py, u8>,
    threads: Option<Threads>,
    unique: bool,
    solver: &str,
    max_guesses: Option<u64>,
) -> PyResult<SolveOut<'py>> {
    let kind = solver_kind(solver)?;
    stopwatch::start();
    let (input, n) = rows_of(&cells, "puzzles")?;
    let mut solutions = vec![0u8; n * CELLS];
    let mut status = vec![0u8; n];
    let mut guesses = vec![0u64; n];
    let mut solve_ns = vec![0u64; n];
    let messages = interruptible(py, threads, |cancel| {
        solutions
            .par_chunks_mut(CHUNK * CELLS)
            .zip(status.par_chunks_mut(CHUNK))
            .zip(guesses.par_chunks_mut(CHUNK))
            .zip(solve_ns.par_chunks_mut(CHUNK))
            .enumerate()
            .map(|(c, (((sol, st), gu), ns))| {
                let options = JudgeOptions {
                    solver: kind,
                    unique,
                    budget: Budget::new(max_guesses, Some(&**cancel)),
                };
                let mut messages = Messages::new();
                for i in 0..st.len() {
                    if cancel.load(Ordering::Relaxed) {
                        break;
                    }
                    let row = c * CHUNK + i;
                    let judged = judge(&input[row * CELLS..(row + 1) * CELLS], &options);
                    st[i] = judged.status.code();
                    gu[i] = judged.guesses;
                    ns[i] = judged.solve_ns;
                    if let Some(grid) = judged.solution {
                        sol[i * CELLS..(i + 1) * CELLS].copy_from_slice(grid.cells());
                    }
                    if !judged.message.is_empty() {
                        let text = share(messages.last().map(|(_, t)| t), judged.message);
                        messages.push((row, text));
                    }
                }
                messages
            })
            .flatten_iter()
            .collect::<Messages>()
    })?;
    Ok((
        solutions.into_pyarray(py).reshape([n, CELLS])?,
        status.into_pyarray(py),
        guesses.into_pyarray(py),
        solve_ns.into_pyarray(py),
        py_messages(py, messages)?,
    ))
}

/// Counts the solutions of every row up to `limit`: -1 for a row that is not a puzzle.
#[pyfunction]
#[pyo3(signature = (cells, limit=2, threads=None, solver="bands"))]
fn count_cells<'py>(
    py: Python<'py>,
    cells: PyReadonlyArray2<'py, u8>,
    limit: u32,
    threads: Option<Threads>,
    solver: &str,
) -> PyResult<Bound<'py, numpy::PyArray1<i64>>> {
    let kind = solver_kind(solver)?;
    if limit == 0 {
        return Err(PyValueError::new_err("limit must be at least 1, got 0"));
    }
    let (input, n) = rows_of(&cells, "puzzles")?;
    let mut counts = vec![0i64; n];
    interruptible(py, threads, |cancel| {
        counts
            .par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(c, out)| {
                for (i, count) in out.iter_mut().enumerate() {
                    if cancel.load(Ordering::Relaxed) {
                        break;
                    }
                    let row = c * CHUNK + i;
                    *count = match grid_of(&input[row * CELLS..(row + 1) * CELLS]) {
                        // The stop flag ends a slow count too (the call then raises).
                        Ok(puzzle) => {
                            let budget = Budget::new(None, Some(&**cancel));
                            i64::from(kind.solve_within(&puzzle, limit, budget).count)
                        }
                        Err(_) => -1,
                    };
                }
            })
    })?;
    Ok(counts.into_pyarray(py))
}

/// The CLI `verify`'s verdict on one row ([`verdict::check`]): (kind code, message).
fn check(puzzle: &[u8], solution: Option<&[u8]>, options: &CheckOptions) -> (u8, Option<String>) {
    let malformed = |what: &str, why: String| {
        (
            FailureKind::Malformed.code(),
            Some(format!("{what}: {why}")),
        )
    };
    let puzzle = match grid_of(puzzle) {
        Ok(grid) => grid,
        Err(why) => return malformed("puzzle", why),
    };
    let solution = match solution.map(grid_of).transpose() {
        Ok(grid) => grid,
        Err(why) => return malformed("solution", why),
    };
    match verdict::check(&puzzle, solution.as_ref(), options) {
        RowVerdict::Valid => (K_OK, None),
        RowVerdict::Skipped => (
            K_SKIPPED,
            Some(
                "no solution given, so nothing was checked (unique=True checks the puzzle)".into(),
            ),
        ),
        RowVerdict::Failed(kind, reason) => (kind.code(), Some(reason)),
    }
}

/// Checks every row: (failure kind codes, [(row, message)]). `missing` marks the rows whose
/// solution is not given (as an empty solution field on the command line).
#[pyfunction]
#[pyo3(signature = (puzzles, solutions=None, unique=false, threads=None, solver="bands", missing=None))]
fn verify_cells<'py>(
    py: Python<'py>,
    puzzles: PyReadonlyArray2<'py, u8>,
    solutions: Option<PyReadonlyArray2<'py, u8>>,
    unique: bool,
    threads: Option<Threads>,
    solver: &str,
    missing: Option<PyReadonlyArray1<'py, bool>>,
) -> PyResult<(Bound<'py, numpy::PyArray1<u8>>, PyMessages<'py>)> {
    let kind = solver_kind(solver)?;
    let (input, n) = rows_of(&puzzles, "puzzles")?;
    let given = match &solutions {
        Some(array) => {
            let (slice, m) = rows_of(array, "solutions")?;
            if m != n {
                return Err(PyValueError::new_err(format!(
                    "expected as many solutions as puzzles ({n}), got {m}"
                )));
            }
            Some(slice)
        }
        None => None,
    };
    let missing = match &missing {
        Some(array) => {
            let slice = array.as_slice()?;
            if slice.len() != n {
                return Err(PyValueError::new_err(format!(
                    "expected a missing flag per puzzle ({n}), got {}",
                    slice.len()
                )));
            }
            Some(slice)
        }
        None => None,
    };
    let mut kinds = vec![K_OK; n];
    let messages = interruptible(py, threads, |cancel| {
        // The stop flag ends a slow uniqueness proof too (the call then raises).
        let options = CheckOptions {
            unique,
            require_solution: false,
            solver: kind,
            max_guesses: None,
            stop: Some(&**cancel),
        };
        let options = &options;
        kinds
            .par_chunks_mut(CHUNK)
            .enumerate()
            .map(|(c, out)| {
                let mut messages = Messages::new();
                for (i, k) in out.iter_mut().enumerate() {
                    if cancel.load(Ordering::Relaxed) {
                        break;
                    }
                    let row = c * CHUNK + i;
                    let range = row * CELLS..(row + 1) * CELLS;
                    let solution = given
                        .filter(|_| !missing.is_some_and(|m| m[row]))
                        .map(|s| &s[range.clone()]);
                    let (code, message) = check(&input[range], solution, options);
                    *k = code;
                    if let Some(message) = message {
                        let text = share(messages.last().map(|(_, t)| t), message);
                        messages.push((row, text));
                    }
                }
                messages
            })
            .flatten_iter()
            .collect::<Messages>()
    })?;
    Ok((kinds.into_pyarray(py), py_messages(py, messages)?))
}

type RateOut<'py> = (
    Bound<'py, numpy::PyArray1<f32>>,
    Bound<'py, numpy::PyArray1<f32>>,
    Bound<'py, numpy::PyArray1<f32>>,
    Bound<'py, numpy::PyArray1<u8>>,
    Bound<'py, numpy::PyArray1<i32>>,
    Bound<'py, numpy::PyArray1<u64>>,
    Bound<'py, PyList>,
    PyMessages<'py>,
);

/// Rates every row of a `(N, 81)` `uint8` array on Sudoku Explainer's scale, the CLI's `rate`
/// verdict ([`sudoku_batch::rate::verdict::judge`]): (er, ep, ed, status, steps, rate_ns,
/// technique names, [(row, message)]). ER/EP/ED are NaN and steps -1 for rows that were not
/// rated (the CLI's empty cells).
#[pyfunction]
#[pyo3(signature = (cells, threads=None, max_er=None, timeout_ms=None, scale="se1.2.1"))]
fn rate_cells<'py>(
    py: Python<'py>,
    cells: PyReadonlyArray2<'py, u8>,
    threads: Option<Threads>,
    max_er: Option<f64>,
    timeout_ms: Option<u64>,
    scale: &str,
) -> PyResult<RateOut<'py>> {
    let flavor = scale_named(scale)?;
    // The CLI's rounding: a limit between two tenths allows the lower one.
    let max_er = max_er
        .map(sudoku_batch::rate::scale::tenths_at_most)
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("max_er: {e}")))?;
    let limits = RateLimits {
        max_er,
        flavor,
        ..RateLimits::default()
    };
    let timeout = timeout_ms.map(Duration::from_millis);
    let (input, n) = rows_of(&cells, "puzzles")?;
    let (mut er, mut ep, mut ed) = (vec![f32::NAN; n], vec![f32::NAN; n], vec![f32::NAN; n]);
    let mut status = vec![0u8; n];
    // No rating, no step count: -1, as `count_cells` has for a row that is not a puzzle.
    let mut steps = vec![-1i32; n];
    let mut rate_ns = vec![0u64; n];
    let mut technique: Vec<&'static str> = vec![""; n];
    let messages = interruptible(py, threads, |cancel| {
        // A stop lands inside one puzzle's rating too (a pathological one takes seconds).
        let limits = RateLimits {
            stop: Some(Arc::clone(cancel)),
            ..limits
        };
        // Small work items: a hard puzzle takes up to a second.
        const RATE_CHUNK: usize = 16;
        er.par_chunks_mut(RATE_CHUNK)
            .zip(ep.par_chunks_mut(RATE_CHUNK))
            .zip(ed.par_chunks_mut(RATE_CHUNK))
            .zip(status.par_chunks_mut(RATE_CHUNK))
            .zip(steps.par_chunks_mut(RATE_CHUNK))
            .zip(rate_ns.par_chunks_mut(RATE_CHUNK))
            .zip(technique.par_chunks_mut(RATE_CHUNK))
            .enumerate()
            .map(|(c, ((((((er, ep), ed), st), sp), ns), tq))| {
                let mut messages = Messages::new();
                for i in 0..st.len() {
                    if cancel.load(Ordering::Relaxed) {
                        break;
                    }
                    let row = c * RATE_CHUNK + i;
                    let judged = match grid_of(&input[row * CELLS..(row + 1) * CELLS]) {
                        Ok(puzzle) => rate_verdict::judge(&puzzle, &limits, timeout, None),
                        Err(message) => RateVerdict::invalid(message),
                    };
                    st[i] = judged.status.code();
                    ns[i] = judged.rate_ns;
                    if let Some(r) = judged.rating {
                        (er[i], ep[i], ed[i]) = (r.er_f32(), r.ep_f32(), r.ed_f32());
                        sp[i] = i32::try_from(r.steps).unwrap_or(i32::MAX);
                        tq[i] = r.hardest.map_or("", |t| t.name());
                    }
                    if !judged.message.is_empty() {
                        let text = share(messages.last().map(|(_, t)| t), judged.message);
                        messages.push((row, text));
                    }
                }
                messages
            })
            .flatten_iter()
            .collect::<Messages>()
    })?;
    Ok((
        er.into_pyarray(py),
        ep.into_pyarray(py),
        ed.into_pyarray(py),
        status.into_pyarray(py),
        steps.into_pyarray(py),
        rate_ns.into_pyarray(py),
        Texts::new(py).list(technique)?,
        py_messages(py, messages)?,
    ))
}

/// One step of a solving path: technique name, rating, the pattern's cells (`r1c2`), the
/// placements and the eliminations (cell name, digit), the step in words as `rate --explain`
/// writes it, and the chains that prove a chain step (nodes as cell name, digit, on).
type ExplainedStep = (
    &'static str,
    f64,
    Vec<String>,
    Vec<(String, u8)>,
    Vec<(String, u8)>,
    String,
    Vec<Vec<(String, u8, bool)>>,
);

/// The path of one puzzle: (status, message, er, ep, ed, technique, steps, the whole path in
/// the words of `rate --explain`).
type ExplainOut = (
    u8,
    String,
    f64,
    f64,
    f64,
    &'static str,
    Vec<ExplainedStep>,
    String,
);

/// The solving path of the one row of a `(1, 81)` `uint8` array, the CLI's `rate --explain`
/// ([`sudoku_batch::rate::verdict::judge`] with its path): the verdict, ER/EP/ED (NaN when not
/// rated; whole tenths as the nearest float, so `er >= 7.2` holds for 7.2) and every step.
/// `invalid` is the message for a puzzle the caller could not read, `shown` its text, both
/// as the CLI writes them. Runs with the GIL released; Ctrl-C stops it.
#[pyfunction]
#[pyo3(signature = (cells, max_er=None, timeout_ms=None, scale="se1.2.1", invalid=None, shown=None))]
fn explain_cells<'py>(
    py: Python<'py>,
    cells: PyReadonlyArray2<'py, u8>,
    max_er: Option<f64>,
    timeout_ms: Option<u64>,
    scale: &str,
    invalid: Option<String>,
    shown: Option<String>,
) -> PyResult<ExplainOut> {
    let flavor = scale_named(scale)?;
    let max_er = max_er
        .map(sudoku_batch::rate::scale::tenths_at_most)
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("max_er: {e}")))?;
    let (input, n) = rows_of(&cells, "puzzle")?;
    if n != 1 {
        return Err(PyValueError::new_err(format!(
            "explain takes one puzzle, got {n}"
        )));
    }
    let timeout = timeout_ms.map(Duration::from_millis);
    let (judged, path, puzzle) = interruptible(py, Some(Threads::one()), |cancel| {
        let limits = RateLimits {
            max_er,
            flavor,
            stop: Some(Arc::clone(cancel)),
            ..RateLimits::default()
        };
        let mut path = Vec::new();
        let shown = shown.unwrap_or_else(|| "-".to_string());
        match (invalid, grid_of(input)) {
            (Some(message), _) | (None, Err(message)) => {
                (RateVerdict::invalid(message), path, shown)
            }
            (None, Ok(puzzle)) => (
                rate_verdict::judge(&puzzle, &limits, timeout, Some(&mut path)),
                path,
                puzzle.to_string(),
            ),
        }
    })?;
    let text = judged.explanation(&puzzle, &path, None);
    let tenths = |t| f64::from(t) / 10.0;
    let name = |c: u8| sudoku_batch::rate::board::cell_name(c as usize);
    let steps = path
        .iter()
        .map(|step| {
            (
                step.technique.name(),
                tenths(step.rating),
                sudoku_batch::rate::board::cells(step.cells)
                    .map(sudoku_batch::rate::board::cell_name)
                    .collect(),
                step.placements.iter().map(|&(c, d)| (name(c), d)).collect(),
                step.eliminations
                    .iter()
                    .map(|&(c, d)| (name(c), d))
                    .collect(),
                step.to_string(),
                step.chains
                    .iter()
                    .map(|chain| chain.iter().map(|&(c, d, on)| (name(c), d, on)).collect())
                    .collect(),
            )
        })
        .collect();
    let (er, ep, ed, technique) = match judged.rating {
        Some(r) => (
            tenths(r.er),
            tenths(r.ep),
            tenths(r.ed),
            r.hardest.map_or("", |t| t.name()),
        ),
        None => (f64::NAN, f64::NAN, f64::NAN, ""),
    };
    Ok((
        judged.status.code(),
        judged.message,
        er,
        ep,
        ed,
        technique,
        steps,
        text,
    ))
}

/// Puzzles per work item when generating (a puzzle takes about 0.1-1 ms).
const GENERATE_CHUNK: usize = 16;

type GenerateOut<'py> = (
    Bound<'py, PyArray2<u8>>,
    Bound<'py, PyArray2<u8>>,
    Bound<'py, numpy::PyArray1<u8>>,
);

/// `n` rows of `width` zero bytes, or `MemoryError` when they cannot be had (a count too
/// large to allocate must not abort the interpreter).
fn zeroed(n: usize, width: usize) -> PyResult<Vec<u8>> {
    let too_many = || PyMemoryError::new_err(format!("cannot allocate {n} rows of {width} bytes"));
    let len = n.checked_mul(width).ok_or_else(too_many)?;
    let mut out = Vec::new();
    out.try_reserve_exact(len).map_err(|_| too_many())?;
    out.resize(len, 0);
    Ok(out)
}

/// The rating scale named `name` (the CLI's `--scale`).
fn scale_named(name: &str) -> PyResult<Flavor> {
    Flavor::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Flavor::ALL.iter().map(|f| f.name()).collect();
        PyValueError::new_err(format!(
            "scale: unknown scale {name:?}; expected one of: {}",
            names.join(", ")
        ))
    })
}

/// Makes puzzles `0..n` of the run with `seed` (the CLI's `generate` with the same options makes
/// the same ones): (puzzles, solutions, clue counts).
#[pyfunction]
#[pyo3(signature = (n, seed, clues=None, min_clues=None, max_clues=None, minimal=false,
                    symmetry="none", threads=None, solver="bands", er=None, scale="se1.2.1",
                    difficulty=None, max_guesses=None))]
#[allow(clippy::too_many_arguments)]
fn generate_cells<'py>(
    py: Python<'py>,
    n: usize,
    seed: u64,
    clues: Option<usize>,
    min_clues: Option<usize>,
    max_clues: Option<usize>,
    minimal: bool,
    symmetry: &str,
    threads: Option<Threads>,
    solver: &str,
    er: Option<(f64, f64)>,
    scale: &str,
    difficulty: Option<&str>,
    max_guesses: Option<u64>,
) -> PyResult<GenerateOut<'py>> {
    let kind = solver_kind(solver)?;
    let flavor = scale_named(scale)?;
    let symmetry: Symmetry = named(symmetry)?;
    let shape = Shape::from_options(clues, min_clues, max_clues, minimal, symmetry)
        .map_err(|e| PyValueError::new_err(format!("clues, min_clues, max_clues: {e}")))?;
    if minimal && max_guesses.is_some() {
        return Err(PyValueError::new_err(
            "minimal=True and max_guesses: a probe that reaches max_guesses keeps its clue, so \
             the puzzles may not be minimal; give one",
        ));
    }
    // The CLI's rounding: the low end up and the high end down to whole tenths.
    let er = match (er, difficulty) {
        (Some(_), Some(_)) => Err(PyValueError::new_err(
            "er and difficulty both name a rating range: give one",
        )),
        (Some((low, high)), None) => sudoku_batch::rate::scale::puzzle_range(low, high)
            .map(Some)
            .map_err(|e| PyValueError::new_err(format!("er: {e}"))),
        (None, Some(name)) => sudoku_batch::rate::scale::difficulty_range(name)
            .map(Some)
            .map_err(|e| PyValueError::new_err(format!("difficulty: {e}"))),
        (None, None) => Ok(None),
    }?;
    let generator = Generator::new(shape, kind)
        .and_then(|g| g.with_er(er, flavor, &PYTHON_NAMES))
        .map(|g| g.with_max_guesses(max_guesses))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut puzzles = zeroed(n, CELLS)?;
    let mut solutions = zeroed(n, CELLS)?;
    let mut counts = zeroed(n, 1)?;
    interruptible(py, threads, |cancel| {
        // A stop lands between the candidates of one puzzle too (an ER range hard to meet).
        let generator = generator.with_stop(Some(Arc::clone(cancel)));
        puzzles
            .par_chunks_mut(GENERATE_CHUNK * CELLS)
            .zip(solutions.par_chunks_mut(GENERATE_CHUNK * CELLS))
            .zip(counts.par_chunks_mut(GENERATE_CHUNK))
            .enumerate()
            .try_for_each(|(c, ((puz, sol), cl))| {
                for i in 0..cl.len() {
                    if cancel.load(Ordering::Relaxed) {
                        break;
                    }
                    let index = (c * GENERATE_CHUNK + i) as u64;
                    let made = generator.generate(seed, index)?;
                    puz[i * CELLS..(i + 1) * CELLS].copy_from_slice(made.puzzle.cells());
                    sol[i * CELLS..(i + 1) * CELLS].copy_from_slice(made.solution.cells());
                    cl[i] = made.puzzle.clue_count() as u8;
                }
                Ok(())
            })
    })?
    .map_err(|e: sudoku_batch::Error| PyRuntimeError::new_err(e.to_string()))?;
    Ok((
        puzzles.into_pyarray(py).reshape([n, CELLS])?,
        solutions.into_pyarray(py).reshape([n, CELLS])?,
        counts.into_pyarray(py),
    ))
}

/// A seed drawn from the clock and the process id (what the CLI uses when given none).
#[pyfunction]
fn fresh_seed() -> u64 {
    sudoku_batch::generate::fresh_seed()
}

/// A parse failure: (row, kind code, message).
type ParseFailures = Vec<(usize, u8, Arc<str>)>;

/// [`ParseFailures`] for Python: a list of `(row, kind, message)` tuples, rows with the same
/// message sharing one string (see [`Texts`]).
fn py_failures(py: Python<'_>, failures: ParseFailures) -> PyResult<Bound<'_, PyList>> {
    let mut texts = Texts::new(py);
    let items: Vec<_> = failures
        .iter()
        .map(|(row, kind, message)| (*row, *kind, texts.get(message)))
        .collect();
    PyList::new(py, items)
}

fn parse_kind(e: &ParseError) -> u8 {
    FailureKind::from(e).code()
}

/// Parses puzzle text into `out` (81 cells), or fills it with [`BAD`] and says why.
fn parse_into(text: &[u8], out: &mut [u8]) -> Result<(), (u8, String)> {
    // Surrounding whitespace as Python's `str.strip` counts it: Unicode's (a no-break or
    // ideographic space, U+0085) and the separators U+001C-U+001F.
    let space = |c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c);
    let text = std::str::from_utf8(text)
        .map_or_else(|_| text.trim_ascii(), |t| t.trim_matches(space).as_bytes());
    match Grid::from_bytes(text) {
        Ok(grid) => {
            out.copy_from_slice(grid.cells());
            Ok(())
        }
        Err(e) => {
            out.fill(BAD);
            Err((parse_kind(&e), e.to_string()))
        }
    }
}

/// Reads a list of `str` (or `bytes`) into a `(N, 81)` array; rows that are not puzzles are
/// filled with 255 and listed with their failure kind and message.
#[pyfunction]
fn cells_from_list<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyList>,
) -> PyResult<(Bound<'py, PyArray2<u8>>, Bound<'py, PyList>)> {
    let n = items.len();
    let mut cells = vec![0u8; n * CELLS];
    let mut failures = ParseFailures::new();
    for (row, (item, out)) in items.iter().zip(cells.chunks_exact_mut(CELLS)).enumerate() {
        if let Err((kind, message)) = parse_item(&item, out)? {
            let text = share(failures.last().map(|(_, _, t)| t), message);
            failures.push((row, kind, text));
        }
    }
    Ok((
        cells.into_pyarray(py).reshape([n, CELLS])?,
        py_failures(py, failures)?,
    ))
}

/// Parses one item of a list of puzzles into `out` (filled with [`BAD`] when it is not a
/// puzzle): text (`str`, `bytes`, `bytearray`), or a 0-d numpy array holding such text, as
/// the array it came from would give it.
fn parse_item(item: &Bound<'_, PyAny>, out: &mut [u8]) -> PyResult<Result<(), (u8, String)>> {
    Ok(if let Ok(s) = item.downcast::<PyString>() {
        match s.to_str() {
            Ok(text) => parse_into(text.as_bytes(), out),
            // A lone surrogate cannot be UTF-8: a row that is not a puzzle.
            Err(_) => {
                out.fill(BAD);
                Err((
                    FailureKind::Malformed.code(),
                    "not a puzzle string: it holds a lone surrogate, which is not Unicode text"
                        .to_string(),
                ))
            }
        }
    } else if let Ok(b) = item.downcast::<PyBytes>() {
        parse_into(b.as_bytes(), out)
    } else if let Ok(b) = item.downcast::<PyByteArray>() {
        // Text, as bytes are (a copy: Python code may change it meanwhile).
        parse_into(&b.to_vec(), out)
    } else if let Some(a) = item
        .downcast::<PyUntypedArray>()
        .ok()
        .filter(|a| a.ndim() == 0)
    {
        return parse_item(&a.call_method0("item")?, out);
    } else {
        out.fill(BAD);
        let type_name = item.get_type().name()?.to_string();
        Err((
            FailureKind::Malformed.code(),
            format!("expected a puzzle string, got {type_name}"),
        ))
    })
}

/// Reads fixed-width text rows (numpy `S` bytes viewed as `(N, W)` `uint8`, or `U` code points
/// viewed as `(N, W)` `uint32`, trailing NULs being padding) into a `(N, 81)` array, with the
/// GIL released.
fn cells_from_text<'py, T: numpy::Element + Copy + Into<u32> + Sync>(
    py: Python<'py>,
    rows: PyReadonlyArray2<'py, T>,
) -> PyResult<(Bound<'py, PyArray2<u8>>, Bound<'py, PyList>)> {
    let [n, width] = [rows.shape()[0], rows.shape()[1]];
    let rows = rows.as_slice()?;
    let mut cells = vec![0u8; n * CELLS];
    note_daemon(py)?;
    let failures = py.allow_threads(|| {
        let failures = cells
            .par_chunks_mut(CHUNK * CELLS)
            .enumerate()
            .map(|(c, block)| {
                let mut failures = ParseFailures::new();
                for (i, out) in block.chunks_exact_mut(CELLS).enumerate() {
                    let row = c * CHUNK + i;
                    let text = &rows[row * width..(row + 1) * width];
                    let len = text
                        .iter()
                        .rposition(|&c| c.into() != 0)
                        .map_or(0, |p| p + 1);
                    let text = &text[..len];
                    // ASCII text (every puzzle) goes through a stack buffer: no allocation per row.
                    let mut ascii = [0u8; 128];
                    let parsed = if len <= ascii.len() && text.iter().all(|&c| c.into() < 128) {
                        for (b, &c) in ascii.iter_mut().zip(text) {
                            *b = c.into() as u8;
                        }
                        parse_into(&ascii[..len], out)
                    } else if std::mem::size_of::<T>() == 1 {
                        // `S` bytes are UTF-8 text, as a file's or a `bytes` object's are.
                        let bytes: Vec<u8> = text.iter().map(|&c| c.into() as u8).collect();
                        parse_into(String::from_utf8_lossy(&bytes).as_bytes(), out)
                    } else {
                        let s: String = text
                            .iter()
                            .map(|&c| {
                                char::from_u32(c.into()).unwrap_or(char::REPLACEMENT_CHARACTER)
                            })
                            .collect();
                        parse_into(s.as_bytes(), out)
                    };
                    if let Err((kind, message)) = parsed {
                        let text = share(failures.last().map(|(_, _, t)| t), message);
                        failures.push((row, kind, text));
                    }
                }
                failures
            })
            .flatten_iter()
            .collect::<ParseFailures>();
        hold_if_exiting();
        failures
    });
    Ok((
        cells.into_pyarray(py).reshape([n, CELLS])?,
        py_failures(py, failures)?,
    ))
}

#[pyfunction]
fn cells_from_bytes<'py>(
    py: Python<'py>,
    rows: PyReadonlyArray2<'py, u8>,
) -> PyResult<(Bound<'py, PyArray2<u8>>, Bound<'py, PyList>)> {
    cells_from_text(py, rows)
}

#[pyfunction]
fn cells_from_ucs4<'py>(
    py: Python<'py>,
    rows: PyReadonlyArray2<'py, u32>,
) -> PyResult<(Bound<'py, PyArray2<u8>>, Bound<'py, PyList>)> {
    cells_from_text(py, rows)
}

fn io_error(e: sudoku_batch::Error) -> PyErr {
    match &e {
        sudoku_batch::Error::Open { cause, .. } | sudoku_batch::Error::Read { cause, .. }
            if cause.kind() == std::io::ErrorKind::NotFound =>
        {
            PyFileNotFoundError::new_err(e.to_string())
        }
        sudoku_batch::Error::Open { .. }
        | sudoku_batch::Error::Read { .. }
        | sudoku_batch::Error::ReadAt { .. }
        | sudoku_batch::Error::Write { .. } => PyOSError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// Rows `read` reads with the GIL released before it looks for Ctrl-C (about 10 ms of reading).
const READ_SLICE: usize = 1 << 14;

/// The arguments of `read` and `generate`, as the library's messages name them (not the
/// command line's flags).
const PYTHON_NAMES: OptionNames = OptionNames {
    column: "column=",
    column_with_value: "column=",
    csv_format: "format=\"csv\"",
    clues_with_value: "clues=",
    sukaku_scale: "scale=\"sukaku\"",
};

/// Streams puzzles from files the CLI reads (lines, CSV, grids; plain, gzip, zstd, zip) in
/// `(N, 81)` `uint8` batches; a record that is not a puzzle is a row of 255s, listed with its
/// line and message.
/// Not `unsendable`: a generator over it may be resumed, closed or dropped on another thread.
/// The lock is held only by the call reading a batch.
#[pyclass]
struct Reader {
    inner: std::sync::Mutex<RecordReader>,
}

#[pymethods]
impl Reader {
    #[new]
    #[pyo3(signature = (path, format="auto", column=None))]
    fn new(path: PathBuf, format: &str, column: Option<String>) -> PyResult<Self> {
        let format: Format = named(format)?;
        let input = Input::from_arg(&path);
        input.check().map_err(io_error)?;
        let options = ReadOptions { format, column };
        let reader =
            RecordReader::new(vec![input], options, Arc::default()).with_option_names(PYTHON_NAMES);
        Ok(Reader {
            inner: std::sync::Mutex::new(reader),
        })
    }

    /// The next batch of at most `size` rows: (cells, [(row, line, message)]), or `None` at the
    /// end.
    #[allow(clippy::type_complexity)]
    fn next_batch<'py>(
        &self,
        py: Python<'py>,
        size: usize,
    ) -> PyResult<Option<(Bound<'py, PyArray2<u8>>, Vec<(usize, u64, String)>)>> {
        if size == 0 {
            return Err(PyValueError::new_err("batch must be at least 1, got 0"));
        }
        let mut cells: Vec<u8> = Vec::with_capacity(size.min(1 << 20) * CELLS);
        let mut bad = Vec::new();
        let mut rows = 0;
        note_daemon(py)?;
        // In slices of rows, with a look for Ctrl-C between them: a large batch is not read
        // to its end first.
        loop {
            let end = size.min(rows + READ_SLICE);
            let ended = py.allow_threads(|| {
                // A batch that failed part-way leaves the reader as any read error does.
                let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
                let mut ended = false;
                while rows < end {
                    let Some(record) = inner.next_record()? else {
                        ended = true;
                        break;
                    };
                    match record.body {
                        Body::Puzzle { puzzle, .. } => cells.extend_from_slice(puzzle.cells()),
                        Body::Invalid { message, .. } => {
                            cells.extend_from_slice(&[BAD; CELLS]);
                            bad.push((rows, record.line, message));
                        }
                    }
                    rows += 1;
                }
                hold_if_exiting();
                Ok::<_, sudoku_batch::Error>(ended)
            });
            if ended.map_err(io_error)? || rows == size {
                break;
            }
            py.check_signals()?;
        }
        if rows == 0 {
            return Ok(None);
        }
        Ok(Some((cells.into_pyarray(py).reshape([rows, CELLS])?, bad)))
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // numpy's C API is loaded (Python code runs) the first time an array is made: here, at
    // import, rather than after a call's work, where a pending Ctrl-C would fail that load
    // (and the numpy crate panic) instead of raising KeyboardInterrupt.
    numpy::PyArray1::<u8>::zeros(m.py(), 0, false);
    m.add_function(wrap_pyfunction!(solve_cells, m)?)?;
    m.add_function(wrap_pyfunction!(count_cells, m)?)?;
    m.add_function(wrap_pyfunction!(verify_cells, m)?)?;
    m.add_function(wrap_pyfunction!(rate_cells, m)?)?;
    m.add_function(wrap_pyfunction!(explain_cells, m)?)?;
    m.add_function(wrap_pyfunction!(generate_cells, m)?)?;
    m.add_function(wrap_pyfunction!(fresh_seed, m)?)?;
    m.add_function(wrap_pyfunction!(interpreter_exiting, m)?)?;
    m.add_function(wrap_pyfunction!(this_is_the_main_thread, m)?)?;
    m.add_function(wrap_pyfunction!(cells_from_list, m)?)?;
    m.add_function(wrap_pyfunction!(cells_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(cells_from_ucs4, m)?)?;
    m.add_class::<Reader>()?;
    // Status codes and words from the library: `SOLVED`, ..., and `STATUSES` [(code, word)].
    for status in Status::ALL {
        m.add(status.as_str().to_ascii_uppercase().as_str(), status.code())?;
    }
    let statuses: Vec<(u8, &str)> = Status::ALL.iter().map(|s| (s.code(), s.as_str())).collect();
    m.add("STATUSES", statuses)?;
    // `rate`'s own codes and words: `RATE_RATED`, ..., `RATE_GAVE_UP`, and `RATE_STATUSES`.
    for status in RateStatus::ALL {
        let name = format!("RATE_{}", status.as_str().to_ascii_uppercase());
        m.add(name.as_str(), status.code())?;
    }
    let rate_statuses: Vec<(u8, &str)> = RateStatus::ALL
        .iter()
        .map(|s| (s.code(), s.as_str()))
        .collect();
    m.add("RATE_STATUSES", rate_statuses)?;
    m.add("BAD", BAD)?;
    let symmetries: Vec<&str> = Symmetry::ALL.iter().map(|s| s.name()).collect();
    m.add("SYMMETRIES", symmetries)?;
    let scales: Vec<&str> = Flavor::ALL.iter().map(|f| f.name()).collect();
    m.add("SCALES", scales)?;
    let difficulties: Vec<&str> = sudoku_batch::rate::scale::DIFFICULTIES
        .iter()
        .map(|(band, _)| *band)
        .collect();
    m.add("DIFFICULTIES", difficulties)?;
    let kinds: Vec<(u8, &str)> = [(K_OK, ""), (K_SKIPPED, "skipped")]
        .into_iter()
        .chain(FailureKind::ALL.iter().map(|k| (k.code(), k.as_str())))
        .collect();
    m.add("KINDS", kinds)?;
    Ok(())
}
