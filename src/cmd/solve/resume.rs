//! `--resume`: takes an interrupted run's rows back, checks them against the input, and opens
//! the output to append the rest.

use std::path::Path;

use super::ShardedRecords;
use crate::error::{Error, Result};
use crate::io::output::{take_for_resume, Output};
use crate::io::results::{Column, ResultReader};
use crate::io::Body;
use crate::stats::Tally;

/// The columns `--resume` matches against the input, those of them the output has; it needs
/// one of the first three (`file` alone does not tell records apart).
const MATCHED_COLUMNS: [Column; 4] = [Column::Index, Column::Line, Column::Puzzle, Column::File];

/// Refuses a `--columns` choice `--resume` cannot work with: it counts kept rows in the summary
/// (`status`, `guesses`, `solve_ns`) and checks them against the input (`index`, `line` or
/// `puzzle`).
pub(super) fn check_columns(columns: &[Column]) -> Result<()> {
    let missing: Vec<Column> = Tally::ROW_COLUMNS
        .into_iter()
        .filter(|c| !columns.contains(c))
        .collect();
    let matched = MATCHED_COLUMNS[..3].iter().any(|c| columns.contains(c));
    if missing.is_empty() && matched {
        return Ok(());
    }
    let mut needs = Vec::new();
    if !missing.is_empty() {
        needs.push(format!(
            "{} (to count the kept rows)",
            Column::join(&missing, ", ")
        ));
    }
    if !matched {
        needs.push("one of index, line, puzzle (to check the kept rows against the input)".into());
    }
    Err(Error::Usage(format!(
        "--resume needs the column(s) {}, which --columns {} lacks",
        needs.join(" and "),
        Column::join(columns, ",")
    )))
}

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
/// gets what was kept.
pub(super) fn resume(
    path: &Path,
    records: &mut ShardedRecords,
    files: &[String],
    columns: &[Column],
    notes: &mut Vec<String>,
) -> Result<Resumed> {
    check_columns(columns)?;
    let Some(partial) = take_for_resume(path)? else {
        notes.push(format!(
            "resume: no earlier output for {}; starting from the beginning",
            path.display()
        ));
        return Ok(Resumed::fresh(Output::create(Some(path))?));
    };
    let kept = keep_rows(&partial, records, files, columns).map_err(cannot_resume)?;
    notes.push(format!(
        "resume: kept {} row(s) of {}, continuing after index {}",
        kept.rows,
        partial.display(),
        kept.last_index
            .map_or("(none)".to_string(), |i| i.to_string())
    ));
    Ok(Resumed {
        output: Output::append(path, kept.keep_bytes)?,
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
fn keep_rows(
    partial: &Path,
    records: &mut ShardedRecords,
    files: &[String],
    written: &[Column],
) -> Result<Kept> {
    let mut kept = Kept {
        rows: 0,
        keep_bytes: 0,
        last_index: None,
        tally: Tally::default(),
    };
    let Some(mut rows) = ResultReader::open(partial)? else {
        return Ok(kept); // Empty or torn header: start over.
    };
    // What this run's rows are matched and counted by.
    let needed: Vec<Column> = MATCHED_COLUMNS
        .into_iter()
        .filter(|c| written.contains(c))
        .chain(Tally::ROW_COLUMNS)
        .collect();
    rows.require(&needed, "--resume")?;
    // New rows are appended under the old header, so it must be this run's.
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
    // Only the columns the output has are matched (`--columns`).
    let mut rows_have = [false; 9];
    for column in MATCHED_COLUMNS {
        rows_have[column as usize] = rows.has(column);
    }
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
            if rows_have[column as usize] && want != found {
                return Err(mismatch(format!(
                    "row {row_number} (index {}) has {column} {:?} but the input record at line \
                     {} has {:?}; the input changed since the interrupted run",
                    row.index.unwrap_or(index),
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
