//! Items only the tests reach for: the single-threaded oracle of `solve` and a bare writer of
//! result rows. Nothing in the command line or the Python package calls them; they are public
//! so the integration tests can, and they are not part of the library's intended API.

#[cfg(feature = "cli")]
use crate::cmd::solve::SolveConfig;
#[cfg(feature = "cli")]
use crate::error::Result;
#[cfg(feature = "cli")]
use crate::io::Record;
#[cfg(feature = "cli")]
use crate::verdict::Verdict;

/// The rows `solve` writes, computed in order on this thread: each record with its verdict.
/// The oracle the parallel pipeline is checked against.
#[cfg(feature = "cli")]
pub fn solve_sequential(config: &SolveConfig) -> Result<Vec<(Record, Verdict)>> {
    crate::cmd::solve::solve_sequential(config)
}

/// A CSV writer for result rows without a header (the header is written once, separately).
pub fn row_writer<W: std::io::Write>(sink: W) -> csv::Writer<W> {
    crate::io::results::row_writer(sink)
}
