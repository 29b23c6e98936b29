//! Aligned pair exclusion (6.2) and aligned triple exclusion (7.5).

use super::board::Board;
use super::Step;

/// Aligned pair exclusion (not yet implemented).
pub fn aligned_pair(_b: &Board) -> Option<Step> {
    None
}
