//! The library's error type: failures that stop a run (I/O, usage), as opposed to bad puzzles,
//! which are data and become `invalid` rows.

use std::path::PathBuf;

/// A failure that stops a run. Every variant but [`Error::Usage`] names the file it concerns,
/// and each message is complete on its own: it carries the cause's text too.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An input file could not be opened.
    #[error("cannot open {}: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Reading an input failed partway.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Writing an output failed.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file (`-` for stdout).
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The input is unusable as a whole (for example a CSV header without a puzzle column).
    #[error("{}: {message}", path.display())]
    Input {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The options given make no sense together.
    #[error("{0}")]
    Usage(String),
}

impl Error {
    /// True when the error is a closed output pipe, which ends a run quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Write { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// Result with the library's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
