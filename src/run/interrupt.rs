//! The one stop flag of the process: every command that can stop cleanly asks it, and the
//! solvers poll it every few thousand guesses, so a slow puzzle gives its worker back at once.
//!
//! SIGINT (Ctrl-C), SIGTERM and SIGHUP (what Slurm and Kubernetes send on preemption and at a
//! time limit), SIGUSR1 and SIGUSR2 (what Slurm's `--signal` sends ahead of a time limit) and
//! SIGXCPU (a soft CPU-time limit) all set it, except SIGHUP when it was ignored at start
//! (`nohup`); the handler is installed here once, and commands only [`arm`] the
//! flag and poll [`requested`]. The first signal sets the flag and prints at once that the run
//! is stopping; a second one, from [`REPEAT_AFTER`] on, exits at once. A run stopped by a signal
//! exits with [`exit_code`]: 128 plus the signal's number (on Linux 130, 143, 129, 138, 140,
//! 152), as a shell reports it.
//! What a quit at once must not leave behind (temporary files, the process groups of programs
//! the run started) is registered with [`leave_nothing`] and removed or killed first.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Set by a stop signal; cleared by [`arm`]. Shared ([`shared`]) with what holds a stop flag
/// of its own: the rater's cutoff and the generator.
static INTERRUPTED: LazyLock<Arc<AtomicBool>> = LazyLock::new(Arc::default);

/// The number of the signal that set [`INTERRUPTED`] (0 before any).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// What to print on the first signal (the armed command's notice), if anything.
static NOTICE: Mutex<Option<&'static str>> = Mutex::new(None);

/// When the signal that set [`INTERRUPTED`] came.
static FIRST_AT: Mutex<Option<Instant>> = Mutex::new(None);

/// How long after the first signal a second one counts as a person asking again (and exits at
/// once) rather than a copy of the same request. One request often arrives twice: GNU `timeout`
/// signals its child and then its whole process group, a shell's job control and a scheduler
/// signal every process of a job, and a wrapper may forward what the group already got. Those
/// copies come within milliseconds; a person pressing Ctrl-C again takes longer.
const REPEAT_AFTER: Duration = Duration::from_millis(500);

/// SIGINT's number, the status of a stop whose signal is unknown.
const SIGINT: i32 = 2;

/// The signals that stop a run, with their names (Unix).
#[cfg(unix)]
const STOP_SIGNALS: [(i32, &str); 6] = {
    use signal_hook::consts::*;
    [
        (SIGINT, "SIGINT"),
        (SIGTERM, "SIGTERM"),
        (SIGHUP, "SIGHUP"),
        (SIGUSR1, "SIGUSR1"),
        (SIGUSR2, "SIGUSR2"),
        (SIGXCPU, "SIGXCPU"),
    ]
};

/// A signal's names: in the stop notice (`interrupt`, `SIGTERM`, `SIGHUP`, ...) and in a
/// report of what stopped the run (`Ctrl-C`, `SIGTERM`, `SIGHUP`, ...). SIGINT, and an
/// unknown signal, are named as Ctrl-C, whose status a stop of unknown cause gets too.
fn names(signal: i32) -> (&'static str, &'static str) {
    #[cfg(unix)]
    if let Some(&(_, name)) = STOP_SIGNALS
        .iter()
        .find(|&&(number, _)| number == signal && number != SIGINT)
    {
        return (name, name);
    }
    let _ = signal;
    ("interrupt", "Ctrl-C")
}

/// What stopped the run, for a report: `Ctrl-C`, `SIGTERM` or `SIGHUP`.
pub(crate) fn stopped_by() -> &'static str {
    names(SIGNAL.load(Ordering::SeqCst)).1
}

/// Something a quit at once removes or stops first.
pub(crate) enum Leftover {
    /// A temporary file.
    File(std::path::PathBuf),
    /// The process group led by this process id (a program started in a group of its own).
    Group(u32),
}

/// The registered leftovers, each with the key of its [`Registered`] guard.
static LEFTOVERS: Mutex<Vec<(u64, Leftover)>> = Mutex::new(Vec::new());

/// Keeps a [`Leftover`] registered while it lives (see [`leave_nothing`]).
pub(crate) struct Registered(u64);

impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut all) = LEFTOVERS.lock() {
            all.retain(|(key, _)| *key != self.0);
        }
    }
}

/// Registers `leftover` to be removed (a file) or killed (a process group) if a second signal
/// quits the process at once, until the returned guard is dropped. The owner still cleans up
/// after itself as usual; this covers only the exit that runs no destructors.
pub(crate) fn leave_nothing(leftover: Leftover) -> Registered {
    use std::sync::atomic::AtomicU64;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let key = NEXT.fetch_add(1, Ordering::Relaxed);
    if let Ok(mut all) = LEFTOVERS.lock() {
        all.push((key, leftover));
    }
    Registered(key)
}

/// Exits at once with `code`, first removing or killing the registered leftovers.
fn quit(code: i32) -> ! {
    clean_leftovers(|_| true);
    std::process::exit(code)
}

/// Removes or kills the registered leftovers whose key `which` picks, and forgets them.
fn clean_leftovers(which: impl Fn(u64) -> bool) {
    let picked: Vec<Leftover> = LEFTOVERS
        .lock()
        .map(|mut all| {
            let (picked, kept) = std::mem::take(&mut *all)
                .into_iter()
                .partition(|(key, _)| which(*key));
            *all = kept;
            picked.into_iter().map(|(_, leftover)| leftover).collect()
        })
        .unwrap_or_default();
    for leftover in picked {
        match leftover {
            Leftover::File(path) => {
                let _ = std::fs::remove_file(path);
            }
            Leftover::Group(pid) => kill_group(pid),
        }
    }
}

/// Kills the process group led by `pid` (a program started in a group of its own), and with
/// it whatever that program started.
#[cfg(unix)]
pub(crate) fn kill_group(pid: u32) {
    // SAFETY: `kill` with a negative pid signals a process group; it touches no memory of ours.
    unsafe {
        libc::kill(-(pid as i32), libc::SIGKILL);
    }
}

/// Without process groups there is nothing beyond the program itself to kill.
#[cfg(not(unix))]
pub(crate) fn kill_group(_pid: u32) {}

/// What the handler does with a signal: the first sets the flag and prints that the run is
/// stopping; a second one exits at once, unless it came within [`REPEAT_AFTER`] of the first.
fn on_signal(signal: i32) {
    if INTERRUPTED.load(Ordering::SeqCst) {
        let first = FIRST_AT.lock().map(|at| *at).unwrap_or(None);
        if first.is_some_and(|at| at.elapsed() < REPEAT_AFTER) {
            return;
        }
        quit(128 + signal);
    }
    // The signal first: whoever sees the flag set reads the signal that set it.
    SIGNAL.store(signal, Ordering::SeqCst);
    if let Ok(mut at) = FIRST_AT.lock() {
        *at = Some(Instant::now());
    }
    INTERRUPTED.store(true, Ordering::SeqCst);
    let notice = NOTICE.lock().map(|n| *n).unwrap_or(None);
    let notice = notice.unwrap_or("stopping; the rows so far are kept");
    stderr!(line:
        "sudoku-batch: {}: {notice} (again to quit at once)",
        names(signal).0
    );
}

/// Whether `signal` is ignored (`SIG_IGN`), as the process found it.
#[cfg(unix)]
fn ignored(signal: i32) -> bool {
    // SAFETY: `sigaction` with no new action only reads the current one into `old`, a plain C
    // struct for which all zeroes is a valid value, which outlives the call.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    }
}

/// Installs the handler once per process. Failing to install (a host program has its own
/// handler) only loses the clean stop.
fn install() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        crate::io::raw::set_stop_flag(&INTERRUPTED);
        #[cfg(unix)]
        {
            // SIGHUP ignored when the process started stays ignored: that is `nohup`. Other
            // signals are taken whatever they were: a shell script's `cmd &` starts with
            // SIGINT ignored, and its `kill -INT` (as the Slurm and Kubernetes scripts
            // forward a stop) must still stop the run.
            let numbers: Vec<i32> = (STOP_SIGNALS.iter())
                .map(|&(number, _)| number)
                .filter(|&number| number != libc::SIGHUP || !ignored(number))
                .collect();
            if let Ok(mut signals) = signal_hook::iterator::Signals::new(numbers) {
                let _ = std::thread::Builder::new()
                    .name("signals".into())
                    .spawn(move || signals.forever().for_each(on_signal));
            }
        }
        #[cfg(not(unix))]
        {
            let _ = ctrlc::set_handler(|| on_signal(SIGINT));
        }
    });
}

/// Installs the handler (once per process) and clears the flag for a new run. `notice`, when
/// given, is printed on stderr at the first signal instead of the default.
pub(crate) fn arm(notice: Option<&'static str>) {
    install();
    if let Ok(mut slot) = NOTICE.lock() {
        *slot = notice;
    }
    SIGNAL.store(0, Ordering::SeqCst);
    ABANDONED.store(false, Ordering::SeqCst);
    if let Ok(mut at) = FIRST_AT.lock() {
        *at = None;
    }
    INTERRUPTED.store(false, Ordering::SeqCst);
}

/// Stops the work in flight as a signal would (the flag that the solvers, the rater and the
/// reader check), with no signal to report: for a run whose standard output was closed (`|
/// head`), whose remaining rows have nowhere to go.
pub(crate) fn abandon() {
    ABANDONED.store(true, Ordering::SeqCst);
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Set by [`abandon`] (cleared by [`arm`]).
static ABANDONED: AtomicBool = AtomicBool::new(false);

/// `Ok` unless the run was [`abandon`]ed since the last [`arm`]; then the error of a write to
/// a closed standard output, which ends the run quietly (`| head` has what it wanted), not as
/// a stop.
pub(crate) fn unless_abandoned() -> crate::error::Result<()> {
    if !ABANDONED.load(Ordering::SeqCst) {
        return Ok(());
    }
    Err(closed_stdout())
}

/// The error of a write to a closed standard output.
fn closed_stdout() -> crate::error::Error {
    crate::error::Error::Write {
        path: "-".into(),
        cause: std::io::ErrorKind::BrokenPipe.into(),
    }
}

/// Watches a pipe on standard output while it lives (see [`watch_stdout`]). Dropped, the
/// watch ends: its thread, left to finish its last wait on its own (joining it would add that
/// wait to every run's end), acts on nothing more.
pub(crate) struct StdoutWatch {
    done: Arc<AtomicBool>,
}

impl Drop for StdoutWatch {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
    }
}

/// [`watch_stdout`] for a run whose output is `output` (`None` or a name of standard output:
/// stdout), else none.
pub(crate) fn watch_stdout_for(output: Option<&std::path::Path>) -> Option<StdoutWatch> {
    output
        .is_none_or(crate::error::is_stdout)
        .then(watch_stdout)
        .flatten()
}

/// When standard output is a pipe: a watch that [`abandon`]s the run as soon as its reader
/// closes it (`| head`), rather than at the next write, which a slow rating may hold back for
/// seconds. `None` for anything else (a file, a terminal) and off unix.
pub(crate) fn watch_stdout() -> Option<StdoutWatch> {
    // Linux reports a pipe whose reader is gone as POLLERR on its write end; elsewhere (macOS
    // among them) `poll` with no events asked is not reliable, and the next write finds it.
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::{AsFd, AsRawFd};
        use std::os::unix::fs::FileTypeExt;
        let stdout = std::io::stdout();
        let own = std::fs::File::from(stdout.as_fd().try_clone_to_owned().ok()?);
        if !own.metadata().is_ok_and(|m| m.file_type().is_fifo()) {
            return None;
        }
        let fd = stdout.as_raw_fd();
        let done = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&done);
        std::thread::Builder::new()
            .name("stdout-watch".into())
            .spawn(move || {
                while !seen.load(Ordering::SeqCst) {
                    let mut wanted = libc::pollfd {
                        fd,
                        events: 0,
                        revents: 0,
                    };
                    // SAFETY: `wanted` is one valid `pollfd` that outlives the call, and the
                    // count is 1; polling a descriptor reads nothing from it.
                    let ready = unsafe { libc::poll(&mut wanted, 1, 100) };
                    if ready > 0 && wanted.revents & libc::POLLNVAL != 0 {
                        // No longer a descriptor: nothing to watch.
                        return;
                    }
                    if ready > 0 && wanted.revents & (libc::POLLERR | libc::POLLHUP) != 0 {
                        if !seen.load(Ordering::SeqCst) {
                            abandon();
                        }
                        return;
                    }
                }
            })
            .ok()?;
        Some(StdoutWatch { done })
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Whether a stop signal came since the last [`arm`].
pub(crate) fn requested() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The flag itself, for the solvers' [`crate::solver::Budget`].
pub(crate) fn flag() -> &'static AtomicBool {
    &INTERRUPTED
}

/// The flag, for a holder that keeps it ([`crate::rate::Limits::stop`],
/// [`crate::generate::Generator::with_stop`]).
pub(crate) fn shared() -> Arc<AtomicBool> {
    Arc::clone(&INTERRUPTED)
}

/// `result`, except that an error once a stop was requested becomes
/// [`Error::Interrupted`](crate::error::Error::Interrupted): "stopped by SIGTERM `when`:
/// `outcome`". A stop ends the wait on a pipe as if the input ended there, so what that early end
/// causes (no CSV header, kept rows with no input record to match) is the stop's doing, not a
/// fault of the input, and the run ends with 128 + the signal, as a stop does.
pub(crate) fn excuse<T>(
    result: crate::error::Result<T>,
    when: &str,
    outcome: &str,
) -> crate::error::Result<T> {
    match result {
        // A closed standard output ended the wait, not a signal: the run ends quietly.
        Err(_) if ABANDONED.load(Ordering::SeqCst) => Err(closed_stdout()),
        Err(error) if requested() && !matches!(error, crate::error::Error::Interrupted(_)) => {
            Err(crate::error::Error::Interrupted(format!(
                "stopped by {} {when}: {outcome}",
                stopped_by()
            )))
        }
        other => other,
    }
}

/// [`excuse`] for opening a run's output, where `--resume` reads the kept rows back against
/// the input.
pub(crate) fn excuse_output<T>(result: crate::error::Result<T>) -> crate::error::Result<T> {
    excuse(
        result,
        "while the output was opened or --resume read it back",
        "what -o held is as it was; run again (with --resume to go on)",
    )
}

/// Where `--resume`, reading the kept rows back (seconds for millions), looks at the stop
/// flag: every 4,096 rows, and once stopped an
/// [`Error::Interrupted`](crate::error::Error::Interrupted). Nothing has been moved yet, so the
/// output (finished or not) stays as it was.
pub(crate) fn stop_point_kept(rows: u64) -> crate::error::Result<()> {
    if !rows.is_multiple_of(4096) || !requested() {
        return Ok(());
    }
    Err(crate::error::Error::Interrupted(format!(
        "stopped by {} while --resume read back the kept rows: what -o held is as it was; run \
         again with --resume to go on",
        stopped_by()
    )))
}

/// Where a command whose output is whole or worthless (`merge`) looks at the stop flag: once
/// stopped, an [`Error::Interrupted`](crate::error::Error::Interrupted) saying what `output`
/// got, so the output is dropped (a file's `FILE.partial` removed) and the command run again.
pub(crate) fn stop_point_whole(
    command: &str,
    output: &crate::io::output::Output,
) -> crate::error::Result<()> {
    if !requested() {
        return Ok(());
    }
    let left = match output.placed() {
        Ok(path) => format!("nothing was written to {}", path.display()),
        Err(direct) => format!("the rows written to {} stop short", direct.display()),
    };
    Err(crate::error::Error::Interrupted(format!(
        "{command} stopped by {} before the end: {left}; {command} again to make it",
        stopped_by()
    )))
}

/// The exit status of a run stopped by the last signal: 128 + its number (130 for Ctrl-C).
pub(crate) fn exit_code() -> u8 {
    match SIGNAL.load(Ordering::SeqCst) {
        signal @ 1..=64 => 128 + signal as u8,
        _ => 128 + SIGINT as u8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quit_removes_what_is_still_registered() {
        let dir = tempfile::tempdir().unwrap();
        let (kept, left) = (dir.path().join("kept"), dir.path().join("left"));
        std::fs::write(&kept, "x").unwrap();
        std::fs::write(&left, "x").unwrap();
        drop(leave_nothing(Leftover::File(kept.clone())));
        let guard = leave_nothing(Leftover::File(left.clone()));
        // Only this test's entries: others may run meanwhile.
        clean_leftovers(|key| key == guard.0);
        assert!(
            kept.exists(),
            "a file no longer registered is not the quit's to remove"
        );
        assert!(!left.exists(), "a registered file is removed");
    }

    #[cfg(unix)]
    #[test]
    fn a_quit_kills_a_registered_process_group() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap();
        let guard = leave_nothing(Leftover::Group(child.id()));
        clean_leftovers(|key| key == guard.0);
        let status = child.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(libc::SIGKILL));
    }
}
