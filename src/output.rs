//! Where a run's rows go: stdout, or a file written crash-safely (into `FILE.partial` beside it,
//! renamed to `FILE` only once the run completes, so a killed run never leaves a truncated file
//! that looks finished).

use std::fs::File;
use std::io::{self, BufWriter, Write};
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
                    source,
                })?;
                Ok(Output {
                    sink: BufWriter::with_capacity(256 * 1024, Box::new(file)),
                    target: Some(p.to_path_buf()),
                    display: p.to_path_buf(),
                })
            }
        }
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
            source,
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
                source,
            })?;
        }
        Ok(())
    }
}
