//! The one Ctrl-C flag of the process: every command that can stop cleanly asks it.
//!
//! The `ctrlc` crate allows one handler per process, so it is installed here once, and commands
//! only [`arm`] the flag and poll [`requested`]. The first Ctrl-C sets the flag (and prints the
//! armed command's notice); a second one exits at once with status 130.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

/// Set by Ctrl-C; cleared by [`arm`].
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// What to print on the first Ctrl-C (the armed command's notice), if anything.
static NOTICE: Mutex<Option<&'static str>> = Mutex::new(None);

/// Installs the handler (once per process) and clears the flag for a new run. `notice`, when
/// given, is printed on stderr at the first Ctrl-C.
pub fn arm(notice: Option<&'static str>) {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        // Failing to install (a host program has its own handler) only loses the clean stop.
        let _ = ctrlc::set_handler(|| {
            if INTERRUPTED.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            let notice = NOTICE.lock().map(|n| *n).unwrap_or(None);
            if let Some(text) = notice {
                eprintln!("{text}");
            }
        });
    });
    if let Ok(mut slot) = NOTICE.lock() {
        *slot = notice;
    }
    INTERRUPTED.store(false, Ordering::SeqCst);
}

/// Whether Ctrl-C was pressed since the last [`arm`].
pub fn requested() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
