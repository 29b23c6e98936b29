//! The machinery every command shares: the ordered parallel pipeline and its thread pool, the
//! progress bar, and the one stop flag. The only module that knows rayon, crossbeam, indicatif
//! and ctrlc.

pub mod interrupt;
pub mod pipeline;
pub mod progress;

pub use pipeline::{build_pool, check_threads, default_threads, ordered_map, par_map_into};
pub use progress::Progress;
