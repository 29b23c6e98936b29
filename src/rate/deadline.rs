//! The per-thread deadline of a rating: nested forcing-chain searches check it between their
//! start cells and inner searches.

use std::cell::Cell;
use std::time::Instant;

thread_local! {
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Sets the instant after which nested searches on this thread give up (`None`: never);
/// returns the previous setting.
pub fn set_deadline(d: Option<Instant>) -> Option<Instant> {
    DEADLINE.with(|c| c.replace(d))
}

/// Whether this thread's nested-search deadline has passed.
pub fn expired() -> bool {
    DEADLINE.with(|c| c.get().is_some_and(|d| Instant::now() >= d))
}
