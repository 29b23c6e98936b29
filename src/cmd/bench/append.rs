//! The results CSV `bench --csv` appends to: the header only into an empty file, each row
//! flushed at once (a row that cannot be written whole is cut off again), and never a row added
//! to a file of another version's header.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

use super::row::{csv_header, BenchRow};

/// Appends rows to a results CSV, writing the header only into an empty file.
pub(super) struct CsvAppender {
    path: PathBuf,
    /// The file, or `None` for standard output (`--csv -`), which gets the header first.
    file: Option<std::fs::File>,
    wrote_header: bool,
}

impl CsvAppender {
    /// Opens `path` for appending; an existing file must start with this version's header.
    /// Standard output (`-`, `/dev/stdout`) and other paths written directly (a device, a
    /// FIFO) are never read: they get the header first.
    pub(super) fn open(path: &Path) -> Result<CsvAppender> {
        if crate::io::targets::is_stdout(path) {
            return Ok(CsvAppender {
                path: path.to_path_buf(),
                file: None,
                wrote_header: false,
            });
        }
        if crate::io::targets::is_direct(path) {
            let file = std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .map_err(|cause| Error::Write {
                    path: path.to_path_buf(),
                    cause,
                })?;
            return Ok(CsvAppender {
                path: path.to_path_buf(),
                file: Some(file),
                wrote_header: false,
            });
        }
        CsvAppender::open_file(path)
    }

    /// [`open`](CsvAppender::open) for a file (or a name for one: a link, a new name).
    fn open_file(path: &Path) -> Result<CsvAppender> {
        let write_err = |source| Error::Write {
            path: path.to_path_buf(),
            cause: source,
        };
        // A new file gets its header at once, so that it reads as a results file even when no
        // row comes (a run stopped before its first). Made only where nothing is (another run
        // may be making it too); a file there, or a link, is read below.
        match std::fs::OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(path)
        {
            Ok(mut file) => {
                let header = format!("{}\n", csv_header());
                file.write_all(header.as_bytes()).map_err(write_err)?;
                return Ok(CsvAppender {
                    path: path.to_path_buf(),
                    file: Some(file),
                    wrote_header: true,
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(write_err(e)),
        }
        let existing = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(source) => {
                return Err(Error::Read {
                    path: path.to_path_buf(),
                    cause: source,
                })
            }
        };
        let header = csv_header();
        // A spreadsheet that saved the file may have put a byte order mark before it.
        let unmarked = existing
            .strip_prefix(crate::io::UTF8_BOM)
            .unwrap_or(&existing);
        if !unmarked.is_empty() {
            let first = unmarked.split(|&b| b == b'\n').next().unwrap_or_default();
            let first = String::from_utf8_lossy(first);
            if first.strip_suffix('\r').unwrap_or(&first) != header {
                return Err(Error::Input {
                    path: path.to_path_buf(),
                    message: "its header is not this version's results header; \
                              append to a new file instead (rows are never rewritten)"
                        .to_string(),
                });
            }
            if !existing.ends_with(b"\n") {
                return Err(Error::Input {
                    path: path.to_path_buf(),
                    message: "the last row is incomplete (no final newline); \
                              fix or move the file before appending"
                        .to_string(),
                });
            }
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(write_err)?;
        // An empty file (or one made through a link) gets its header at once too.
        let empty = existing.is_empty() && file.metadata().is_ok_and(|m| m.len() == 0);
        if empty {
            let header = format!("{header}\n");
            file.write_all(header.as_bytes()).map_err(write_err)?;
        }
        Ok(CsvAppender {
            path: path.to_path_buf(),
            file: Some(file),
            wrote_header: empty || !unmarked.is_empty(),
        })
    }

    /// Appends one row (and the header first, into an empty file), flushed at once so a crash
    /// keeps every finished row.
    pub(super) fn append(&mut self, row: &BenchRow) -> Result<()> {
        let mut writer = csv::WriterBuilder::new()
            .has_headers(!self.wrote_header)
            .from_writer(Vec::new());
        let bytes = writer
            .serialize(row)
            .map_err(std::io::Error::other)
            .and_then(|()| writer.into_inner().map_err(|e| e.into_error()));
        let write_err = |source| Error::Write {
            path: self.path.clone(),
            cause: source,
        };
        let bytes = bytes.map_err(write_err)?;
        let Some(file) = self.file.as_mut() else {
            let mut out = std::io::stdout().lock();
            out.write_all(&bytes)
                .and_then(|()| out.flush())
                .map_err(write_err)?;
            self.wrote_header = true;
            return Ok(());
        };
        // A failed write (a full disk) must not leave half a row: cut back to where it began.
        let before = file.metadata().map(|m| m.len());
        if let Err(error) = file.write_all(&bytes).and_then(|()| file.flush()) {
            if let Ok(len) = before {
                let _ = file.set_len(len);
            }
            return Err(write_err(error));
        }
        self.wrote_header = true;
        Ok(())
    }
}
