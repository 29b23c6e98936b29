//! When a rating on this thread gives up: its deadline and the run's stop flag, which the
//! nested forcing-chain searches check between their start cells and inner searches.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The instant after which a rating gives up, and the flag that stops it (a run stopping).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Cutoff {
    /// Give up once this instant has passed (`None`: never).
    pub(super) deadline: Option<Instant>,
    /// Give up once this flag is set (`None`: never).
    pub(super) stop: Option<&'static AtomicBool>,
}

thread_local! {
    static CUTOFF: Cell<Cutoff> = const {
        Cell::new(Cutoff {
            deadline: None,
            stop: None,
        })
    };
}

/// Sets this thread's cutoff; returns the previous one.
pub(super) fn set_cutoff(cutoff: Cutoff) -> Cutoff {
    CUTOFF.with(|c| c.replace(cutoff))
}

/// Whether this thread's rating was stopped by its stop flag.
pub(super) fn stopped() -> bool {
    CUTOFF.with(|c| c.get().stop.is_some_and(|f| f.load(Ordering::Relaxed)))
}

/// Whether this thread's rating should give up: its deadline passed or it was [`stopped`].
pub(super) fn expired() -> bool {
    stopped() || CUTOFF.with(|c| c.get().deadline.is_some_and(|d| Instant::now() >= d))
}
