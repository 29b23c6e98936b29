//! Chains: X-/Y-/XY-cycles, forcing chains, Nishio, multiple and dynamic forcing chains.

use super::board::Board;
use super::Step;

/// The first chaining step in SE's order (not yet implemented).
pub fn next_chain_step(_b: &Board) -> Option<Step> {
    None
}
