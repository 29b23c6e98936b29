//! Uniqueness techniques: unique rectangles and loops (types 1-4) and the bivalue universal
//! grave (BUG types 1-4).

use super::board::Board;
use super::Step;

/// Unique rectangle / loop hints (not yet implemented).
pub fn unique_loops(_b: &Board) -> Option<Step> {
    None
}

/// BUG hints (not yet implemented).
pub fn bug(_b: &Board) -> Option<Step> {
    None
}
