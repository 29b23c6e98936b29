//! The per-puzzle step shared by the parallel pipeline and the sequential oracle: a record's
//! body to the library's [`Verdict`].

use crate::io::Body;
use crate::verdict::{self, JudgeOptions, Verdict};

/// Solves one record and decides its status: a malformed record is `invalid`, a puzzle goes to
/// [`verdict::judge`] with the reference solution the input gave.
pub fn judge(body: &Body, options: &JudgeOptions<'_>) -> Verdict {
    match body {
        Body::Invalid { message, .. } => Verdict::invalid(message.clone()),
        Body::Puzzle { puzzle, reference } => verdict::judge(puzzle, reference.as_ref(), options),
    }
}
