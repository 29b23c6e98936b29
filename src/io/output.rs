//! Where a run's rows go: stdout, or a file written crash-safely (into `FILE.partial` beside it,
//! renamed to `FILE` only once the run completes, so a killed run never leaves a truncated file
//! that looks finished), and taking such a file back for `--resume` (whose rows are read by
//! [`ResultReader`](crate::io::results::ResultReader)).

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The suffix of the file a run writes into before it is complete.
pub const PARTIAL_SUFFIX: &str = ".partial";

/// An output sink that names itself in errors.
pub struct Output {
    sink: BufWriter<Box<dyn Write + Send>>,
    target: Option<PathBuf>,
    display: PathBuf,
}

/// The path of the in-progress file for `path`.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(PARTIAL_SUFFIX);
    PathBuf::from(name)
}

impl Output {
    /// Opens stdout (`None` or `-`) or creates the in-progress file for `path`.
    pub fn create(path: Option<&Path>) -> Result<Output> {
        match path {
            None => Ok(Output::stdout()),
            Some(p) if p.as_os_str() == "-" => Ok(Output::stdout()),
            Some(p) => {
                let partial = partial_path(p);
                let file = File::create(&partial).map_err(|source| Error::Write {
                    path: p.to_path_buf(),
                    cause: source,
                })?;
                Ok(Output {
                    sink: BufWriter::with_capacity(256 * 1024, Box::new(file)),
                    target: Some(p.to_path_buf()),
                    display: p.to_path_buf(),
                })
            }
        }
    }

    /// Reopens the in-progress file for `path` to continue an interrupted run: everything after
    /// its first `keep` bytes (a torn last row, rows that are redone) is cut off, and new rows
    /// are appended.
    pub fn append(path: &Path, keep: u64) -> Result<Output> {
        let partial = partial_path(path);
        let error = |source| Error::Write {
            path: partial.clone(),
            cause: source,
        };
        let mut file = OpenOptions::new()
            .write(true)
            .open(&partial)
            .map_err(error)?;
        file.set_len(keep).map_err(error)?;
        file.seek(SeekFrom::End(0)).map_err(error)?;
        Ok(Output {
            sink: BufWriter::with_capacity(256 * 1024, Box::new(file)),
            target: Some(path.to_path_buf()),
            display: path.to_path_buf(),
        })
    }

    fn stdout() -> Output {
        Output {
            sink: BufWriter::with_capacity(256 * 1024, Box::new(io::stdout())),
            target: None,
            display: PathBuf::from("-"),
        }
    }

    fn error(&self, source: io::Error) -> Error {
        Error::Write {
            path: self.display.clone(),
            cause: source,
        }
    }

    /// Writes bytes.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        self.sink.write_all(bytes).map_err(|e| self.error(e))
    }

    /// Flushes everything written so far (the in-progress file stays in place).
    pub fn flush(&mut self) -> Result<()> {
        self.sink.flush().map_err(|e| self.error(e))
    }

    /// Flushes, and for a file moves the completed output into place.
    pub fn finish(mut self) -> Result<()> {
        self.flush()?;
        if let Some(target) = self.target.take() {
            let partial = partial_path(&target);
            // Close the file before renaming (required on some platforms).
            drop(self.sink);
            std::fs::rename(&partial, &target).map_err(|source| Error::Write {
                path: target,
                cause: source,
            })?;
        }
        Ok(())
    }
}

/// Finds an earlier run's rows for `--resume`: the in-progress file for `path`, or else a
/// finished `path`, which is moved back to the in-progress name so the run can check it and
/// append to it. `None` when there is neither.
pub fn take_for_resume(path: &Path) -> Result<Option<PathBuf>> {
    let partial = partial_path(path);
    if partial.is_file() {
        return Ok(Some(partial));
    }
    if path.is_file() {
        std::fs::rename(path, &partial).map_err(|source| Error::Write {
            path: path.to_path_buf(),
            cause: source,
        })?;
        return Ok(Some(partial));
    }
    Ok(None)
}

/// Writes `value` as pretty JSON to `path`, whole or not at all (through `FILE.partial`, like
/// every output file).
#[cfg(feature = "cli")]
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Error::Write {
        path: path.to_path_buf(),
        cause: io::Error::other(e),
    })?;
    let mut output = Output::create(Some(path))?;
    output.write_all(text.as_bytes())?;
    output.write_all(b"\n")?;
    output.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_cuts_a_torn_line_and_a_finished_file_is_taken_back() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        let partial = partial_path(&target);
        std::fs::write(&partial, "a,b\n1,\"x,\ny\"\n2,z\n3,to").unwrap();
        // Keep the header and the first row (the offset `ResultReader` gives after it).
        let mut out = Output::append(&target, 13).unwrap();
        out.write_all(b"2,w\n").unwrap();
        out.finish().unwrap();
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            "a,b\n1,\"x,\ny\"\n2,w\n"
        );
        assert!(!partial.exists());
        // A finished file is taken back for resuming.
        assert_eq!(take_for_resume(&target).unwrap(), Some(partial.clone()));
        assert!(partial.exists() && !target.exists());
        std::fs::remove_file(&partial).unwrap();
        assert_eq!(take_for_resume(&target).unwrap(), None);
    }
}
