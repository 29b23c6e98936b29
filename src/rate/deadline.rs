//! When a rating on this thread gives up: its deadline and the run's stop flag, which the
//! nested forcing-chain searches check between their start cells and inner searches.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The instant after which a rating gives up, and the flag that stops it (a run stopping).
#[derive(Clone, Debug, Default)]
pub(super) struct Cutoff {
    /// Give up once this instant has passed (`None`: never).
    pub(super) deadline: Option<Instant>,
    /// Give up once this flag is set (`None`: never).
    pub(super) stop: Option<Arc<AtomicBool>>,
    /// The rating's `max_er`: the nested levels whose base is above it are not searched.
    pub(super) max_er: Option<u16>,
}

thread_local! {
    static CUTOFF: RefCell<Cutoff> = const {
        RefCell::new(Cutoff {
            deadline: None,
            stop: None,
            max_er: None,
        })
    };
    static CAPPED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a search rated from `base` (tenths) up is above this thread's `max_er`; if so, it
/// is skipped and [`capped`] says so.
pub(super) fn above_max(base: u16) -> bool {
    let above = CUTOFF.with(|c| c.borrow().max_er.is_some_and(|m| base > m));
    if above {
        CAPPED.with(|c| c.set(true));
    }
    above
}

/// Whether a search was skipped by [`above_max`] since the last call (which clears it).
pub(super) fn capped() -> bool {
    CAPPED.with(|c| c.replace(false))
}

/// Sets this thread's cutoff; returns the previous one.
pub(super) fn set_cutoff(cutoff: Cutoff) -> Cutoff {
    CUTOFF.with(|c| c.replace(cutoff))
}

/// Whether this thread's rating was stopped by its stop flag.
pub(super) fn stopped() -> bool {
    CUTOFF.with(|c| {
        c.borrow()
            .stop
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    })
}

/// Whether this thread's rating should give up: its deadline passed or it was [`stopped`].
pub(super) fn expired() -> bool {
    stopped() || CUTOFF.with(|c| c.borrow().deadline.is_some_and(|d| Instant::now() >= d))
}
