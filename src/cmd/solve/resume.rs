//! `--resume`: takes an interrupted run's rows back, checks them against the input, and opens
//! the output to append the rest.

use std::path::Path;

use super::ShardedRecords;
use crate::error::{Error, Result};
use crate::io::output::{take_for_resume, Earlier, Output, OutputOptions};
use crate::io::results::{Column, ResultReader};
use crate::io::Body;
use crate::stats::Tally;

/// The columns `--resume` reads: those it matches against the input, and those it counts.
const RESUME_COLUMNS: [Column; 7] = [
    Column::Index,
    Column::Line,
    Column::Puzzle,
    Column::File,
    Column::Status,
    Column::Guesses,
    Column::SolveNs,
];

/// Where a run's rows go, and what it starts with.
pub(super) struct Resumed {
    /// The output, positioned after the rows kept.
    pub output: Output,
    /// Rows kept from an interrupted run.
    pub rows: u64,
    /// Their tally.
    pub tally: Tally,
    /// Whether the header must be written (a new output, or a torn header).
    pub needs_header: bool,
}

impl Resumed {
    /// A run that starts from the beginning into `output`.
    pub fn fresh(output: Output) -> Resumed {
        Resumed {
            output,
            rows: 0,
            tally: Tally::default(),
            needs_header: true,
        }
    }
}

/// Continues the run whose output is `path`: keeps the rows of its `FILE.partial` (or of a
/// finished `FILE`) that match the input records, which are consumed from `records`, and opens
/// the output after them. Without earlier output the run starts from the beginning. `notes`
/// gets what was kept. A compressed output's rows are read from its complete members; a
/// refused resume leaves a finished `FILE` as it was.
pub(super) fn resume(
    path: &Path,
    options: &OutputOptions,
    records: &mut ShardedRecords,
    files: &[String],
    notes: &mut Vec<String>,
) -> Result<Resumed> {
    let Some(earlier) = take_for_resume(path, options)? else {
        notes.push(format!(
            "resume: no earlier output for {}; starting from the beginning",
            path.display()
        ));
        return Ok(Resumed::fresh(Output::create_with(Some(path), options)?));
    };
    let kept = keep_rows(&earlier, records, files).map_err(cannot_resume)?;
    notes.push(format!(
        "resume: kept {} row(s) of {}, continuing after index {}",
        kept.rows,
        earlier.path().display(),
        kept.last_index
            .map_or("(none)".to_string(), |i| i.to_string())
    ));
    Ok(Resumed {
        output: earlier.append(kept.keep_bytes)?,
        rows: kept.rows,
        tally: kept.tally,
        // Keep the header unless it was torn too.
        needs_header: kept.keep_bytes == 0,
    })
}

/// What `--resume` kept of an interrupted run.
struct Kept {
    rows: u64,
    keep_bytes: u64,
    last_index: Option<u64>,
    tally: Tally,
}

/// Reads the rows of an interrupted run's `partial` output in step with the input records, and
/// keeps them while they match (same `index`, `line`, `puzzle` and `file`). A torn last line is
/// dropped. A row that does not match the input is an error: the input changed, and appending
/// to those rows would mix two runs.
fn keep_rows(earlier: &Earlier, records: &mut ShardedRecords, files: &[String]) -> Result<Kept> {
    let partial = earlier.path();
    let mut kept = Kept {
        rows: 0,
        keep_bytes: 0,
        last_index: None,
        tally: Tally::default(),
    };
    let Some(mut rows) = ResultReader::new(earlier.rows()?, partial)? else {
        return Ok(kept); // Empty or torn header: start over.
    };
    rows.require(&RESUME_COLUMNS, "--resume")?;
    // New rows are appended under the old header, so it must be this run's.
    let written = &Column::ALL;
    if rows.columns() != written {
        return Err(Error::Input {
            path: partial.to_path_buf(),
            message: format!(
                "its header ({}) is not that of this run's output ({})",
                Column::join(rows.columns(), ","),
                Column::join(written, ",")
            ),
        });
    }
    kept.keep_bytes = rows.header_end();
    let mismatch = |message: String| Error::Input {
        path: partial.to_path_buf(),
        message,
    };
    let (mut index_text, mut line_text) = (itoa::Buffer::new(), itoa::Buffer::new());
    while let Some(row) = rows.next_row()? {
        let row_number = kept.rows + 1;
        let Some((index, record)) = records.next()? else {
            return Err(mismatch(format!(
                "row {row_number} has no matching input record (the input has fewer records)"
            )));
        };
        let file = files.get(record.file as usize).map_or("-", String::as_str);
        let expected: [(Column, &[u8], &[u8]); 4] = [
            (
                Column::Index,
                index_text.format(index).as_bytes(),
                row.raw(Column::Index).unwrap_or_default(),
            ),
            (
                Column::Line,
                line_text.format(record.line).as_bytes(),
                row.raw(Column::Line).unwrap_or_default(),
            ),
            (
                Column::Puzzle,
                &puzzle_column(&record.body),
                row.raw(Column::Puzzle).unwrap_or_default(),
            ),
            (
                Column::File,
                file.as_bytes(),
                row.raw(Column::File).unwrap_or_default(),
            ),
        ];
        for (column, want, found) in expected {
            if want != found {
                return Err(mismatch(format!(
                    "row {row_number} (index {}) has {column} {:?} but the input record at line \
                     {} has {:?}; the input changed since the interrupted run",
                    row.index.unwrap_or_default(),
                    String::from_utf8_lossy(found),
                    record.line,
                    String::from_utf8_lossy(want),
                )));
            }
        }
        kept.tally.add_row(&row)?;
        kept.rows += 1;
        kept.last_index = Some(index);
        kept.keep_bytes = row.end;
    }
    Ok(kept)
}

/// The text of the `puzzle` column for a record.
fn puzzle_column(body: &Body) -> std::borrow::Cow<'_, [u8]> {
    match body {
        Body::Puzzle { puzzle, .. } => std::borrow::Cow::Owned(puzzle.to_bytes().to_vec()),
        Body::Invalid { text, .. } => std::borrow::Cow::Borrowed(text.as_bytes()),
    }
}

/// Says that a refusal is `--resume`'s: `FILE.partial: cannot resume: ...`.
fn cannot_resume(error: Error) -> Error {
    match error {
        Error::Input { path, message } => Error::Input {
            path,
            message: format!("cannot resume: {message}"),
        },
        other => other,
    }
}
