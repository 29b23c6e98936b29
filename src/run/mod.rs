//! The machinery every command shares: the ordered parallel pipeline and its thread pool, the
//! progress bar, and the one stop flag. The only module that knows rayon, crossbeam, indicatif
//! and ctrlc.

pub(crate) mod interrupt;
pub(crate) mod pipeline;
pub(crate) mod progress;
pub(crate) mod records;

pub(crate) use pipeline::{
    build_pool, check_threads, default_threads, ordered_map, par_map_into, Start, Workers,
    INLINE_START,
};
pub(crate) use progress::Progress;

/// The worker pool a run's chunks go to ([`build_pool`]).
pub(crate) type Pool = rayon::ThreadPool;
