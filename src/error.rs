//! The library's error type: failures that stop a run (I/O, usage, internal), as opposed to bad puzzles,
//! which are data and become `invalid` rows.

use std::path::PathBuf;

/// A failure that stops a run (exit status 2). Every variant but [`Error::Usage`] and
/// [`Error::Internal`] names the file it concerns, and each message is complete on its own: it
/// carries the cause's text too, so the cause is not also returned by `source()` (whoever
/// prints the chain would see it twice).
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
    /// Reading an input's records failed at a known line (a truncated or corrupt compressed
    /// file, a disk error): the records before it were read.
    #[error("cannot read {} at line {line}: {cause}", path.display())]
    ReadAt {
        /// The file.
        path: PathBuf,
        /// The 1-based line being read when it failed.
        line: u64,
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
    /// A command whose output is whole or worthless (`merge`) was stopped by a signal; the
    /// text says what was left. The command line exits with 128 plus the signal's number.
    #[error("{0}")]
    Interrupted(String),
    /// The program failed in a way that is neither the options nor the files: a bug (a
    /// panicked thread) or the system refusing a resource (threads). The text is the cause.
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// True when the error is a closed standard output (`| head`), which ends a run quietly:
    /// the reader has what it wanted. A FIFO named by `-o` whose reader quit is an error like
    /// any other output that could not be written whole.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Write { cause, path }
            if cause.kind() == std::io::ErrorKind::BrokenPipe && is_stdout(path))
    }
}

/// Whether `path` names standard output: `-`, `/dev/stdout`, `/dev/fd/1` or
/// `/proc/self/fd/1`.
pub(crate) fn is_stdout(path: &std::path::Path) -> bool {
    ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]
        .iter()
        .any(|name| path.as_os_str() == *name)
}

/// A name that is not one of a fixed list (a solver, symmetry, format, column or status), with
/// the list: the one message every `FromStr` of the library gives, on the command line and in
/// Python alike.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {name:?}; expected one of: {expected}")]
pub struct UnknownName {
    /// What kind of name it was meant to be ("solver", "format", ...).
    pub what: &'static str,
    /// The name given.
    pub name: String,
    /// The names accepted, comma-separated.
    pub expected: String,
}

impl UnknownName {
    /// The error for `name`, which is none of `expected`.
    pub fn new<'a>(
        what: &'static str,
        name: &str,
        expected: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        UnknownName {
            what,
            name: name.to_string(),
            expected: expected.into_iter().collect::<Vec<_>>().join(", "),
        }
    }
}

/// Parses a comma-separated list of names (the shape of `--columns`): every name known to
/// `T`'s `FromStr`, none twice.
#[cfg(feature = "io")]
pub(crate) fn parse_name_list<T>(list: &str) -> std::result::Result<Vec<T>, String>
where
    T: std::str::FromStr + PartialEq,
    T::Err: std::fmt::Display,
{
    let mut items = Vec::new();
    for name in list.split(',').map(str::trim) {
        let item: T = name.parse().map_err(|e: T::Err| e.to_string())?;
        if items.contains(&item) {
            return Err(format!("column {name} is named twice"));
        }
        items.push(item);
    }
    Ok(items)
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
                Error::ReadAt {
                    path: "b.gz".into(),
                    line: 58,
                    cause: gone(),
                },
                "cannot read b.gz at line 58: gone",
            ),
            (
                Error::Write {
                    path: "-".into(),
                    cause: gone(),
                },
                "cannot write -: gone",
            ),
            (
                Error::Internal("the writer thread panicked: boom".into()),
                "internal error: the writer thread panicked: boom",
            ),
        ];
        for (error, message) in errors {
            assert_eq!(error.to_string(), message);
            assert!(error.source().is_none(), "{message}");
        }
    }
}

/// How the caller's users spell the options, for the messages that tell them which one to give
/// (the reader's, the generator's): the command line's flags by default ([`OptionNames::CLI`]),
/// or a binding's own (keyword arguments in Python).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionNames {
    /// The puzzle column option on its own: `--column`.
    pub column: &'static str,
    /// The same, written before a value: `--column ` (as in `--column 2`).
    pub column_with_value: &'static str,
    /// The option that reads an input as CSV: `--format csv`.
    pub csv_format: &'static str,
    /// The clue count option, written before a value: `--clues ` (as in `--clues 78`).
    pub clues_with_value: &'static str,
    /// The option that rates on Sukaku Explainer's scale: `--scale sukaku`.
    pub sukaku_scale: &'static str,
}

impl OptionNames {
    /// The command line's flags.
    pub const CLI: OptionNames = OptionNames {
        column: "--column",
        column_with_value: "--column ",
        csv_format: "--format csv",
        clues_with_value: "--clues ",
        sukaku_scale: "--scale sukaku",
    };
}

impl Default for OptionNames {
    fn default() -> Self {
        OptionNames::CLI
    }
}
