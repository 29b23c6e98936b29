//! Items only tests, benchmarks and examples reach for: a light loader of the puzzle files in
//! `data/`, the single-threaded oracle of `solve` and a bare writer of result rows. Nothing in
//! the command line or the Python package calls them; they are public so the integration
//! tests, benchmarks and examples can, and they are not part of the library's intended API.

use std::path::Path;

use crate::grid::Grid;

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

/// The puzzles of a data file, each with the rest of its record. In a `.csv` file (with a
/// header) the second field is the puzzle and the third the rest; in any other file the first
/// 81-character token of a line (tokens split at whitespace and `:`) is the puzzle, and what
/// follows it (without a leading `:`) the rest. Lines with no puzzle are skipped.
pub fn load_puzzles(path: impl AsRef<Path>) -> std::io::Result<Vec<(Grid, String)>> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path)?;
    let csv = path.extension().is_some_and(|e| e == "csv");
    Ok(text
        .lines()
        .skip(usize::from(csv))
        .filter_map(|line| {
            let (token, rest) = if csv {
                let mut fields = line.split(',');
                let _id = fields.next()?;
                let puzzle = fields.next()?;
                (puzzle, fields.next().unwrap_or("").to_string())
            } else {
                let token = line
                    .split(|c: char| c.is_whitespace() || c == ':')
                    .find(|t| t.len() == 81)?;
                let at = line.find(token)? + 81;
                (token, line[at..].trim_start_matches(':').trim().to_string())
            };
            Some((Grid::from_bytes(token.as_bytes()).ok()?, rest))
        })
        .collect())
}

/// A CSV writer for result rows without a header (the header is written once, separately).
#[cfg(feature = "io")]
pub fn row_writer<W: std::io::Write>(sink: W) -> csv::Writer<W> {
    crate::io::results::row_writer(sink)
}
