//! The library's error type: failures that stop a run (I/O, usage), as opposed to bad puzzles,
//! which are data and become `invalid` rows.

use std::path::PathBuf;

/// A failure that stops a run. Every variant but [`Error::Usage`] names the file it concerns,
/// and each message is complete on its own: it carries the cause's text too, so the cause is
/// not also returned by `source()` (whoever prints the chain would see it twice).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An input file could not be opened.
    #[error("cannot open {}: {cause}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why (its text is in the message).
        cause: std::io::Error,
    },
    /// Reading an input failed partway.
    #[error("cannot read {}: {cause}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why (its text is in the message).
        cause: std::io::Error,
    },
    /// Writing an output failed.
    #[error("cannot write {}: {cause}", path.display())]
    Write {
        /// The file (`-` for stdout).
        path: PathBuf,
        /// Why (its text is in the message).
        cause: std::io::Error,
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
        matches!(self, Error::Write { cause, .. } if cause.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// Result with the library's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn messages_carry_their_cause_once() {
        let gone = || std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let errors = [
            (
                Error::Open {
                    path: "a.txt".into(),
                    cause: gone(),
                },
                "cannot open a.txt: gone",
            ),
            (
                Error::Read {
                    path: "b.txt".into(),
                    cause: gone(),
                },
                "cannot read b.txt: gone",
            ),
            (
                Error::Write {
                    path: "-".into(),
                    cause: gone(),
                },
                "cannot write -: gone",
            ),
        ];
        for (error, message) in errors {
            assert_eq!(error.to_string(), message);
            assert!(error.source().is_none(), "{message}");
        }
    }
}
