//! Input/output policy in one place: where bytes come from (files or stdin), how records are
//! read from them, and where result rows go.

pub mod reader;
pub mod writer;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::{Error, Result};

/// Buffer size for input readers; also the longest first line format detection looks at.
pub const READ_BUFFER: usize = 256 * 1024;

/// One input: a file path or standard input (`-`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Standard input.
    Stdin,
    /// A file on disk.
    File(PathBuf),
}

impl Input {
    /// `-` means standard input; anything else is a path.
    pub fn from_arg(arg: &Path) -> Input {
        if arg.as_os_str() == "-" {
            Input::Stdin
        } else {
            Input::File(arg.to_path_buf())
        }
    }

    /// The name used in messages and the `file` column (`-` for stdin).
    pub fn display_name(&self) -> String {
        match self {
            Input::Stdin => "-".to_string(),
            Input::File(path) => path.display().to_string(),
        }
    }

    /// The path used in error values.
    pub fn path(&self) -> PathBuf {
        match self {
            Input::Stdin => PathBuf::from("-"),
            Input::File(path) => path.clone(),
        }
    }

    /// The size in bytes when known (regular files), for progress by bytes.
    pub fn size(&self) -> Option<u64> {
        match self {
            Input::Stdin => None,
            Input::File(path) => std::fs::metadata(path)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len()),
        }
    }

    /// Checks that the input can be opened, so a run fails before it starts, naming the file.
    pub fn check(&self) -> Result<()> {
        match self {
            Input::Stdin => Ok(()),
            Input::File(path) => {
                if path.is_dir() {
                    return Err(Error::Open {
                        path: path.clone(),
                        source: io::Error::new(io::ErrorKind::InvalidInput, "is a directory"),
                    });
                }
                File::open(path).map(drop).map_err(|source| Error::Open {
                    path: path.clone(),
                    source,
                })
            }
        }
    }

    /// Opens the input as a buffered byte stream; `counter` is advanced by every raw byte read.
    pub fn open(&self, counter: Arc<AtomicU64>) -> Result<Box<dyn BufRead + Send>> {
        let raw: Box<dyn Read + Send> = match self {
            Input::Stdin => Box::new(io::stdin()),
            Input::File(path) => Box::new(File::open(path).map_err(|source| Error::Open {
                path: path.clone(),
                source,
            })?),
        };
        Ok(Box::new(BufReader::with_capacity(
            READ_BUFFER,
            CountingReader {
                inner: raw,
                counter,
            },
        )))
    }
}

/// Counts the bytes read through it, for progress reporting.
struct CountingReader<R> {
    inner: R,
    counter: Arc<AtomicU64>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counter.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}
