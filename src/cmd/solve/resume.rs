//! `--resume`: takes an interrupted run's rows back, checks them against the input, and opens
//! the output to append the rest.

use std::path::Path;

use crate::cmd::sidecar::{compare_for_resume, RunManifest};
use crate::error::{Error, Result};
use crate::grid::Grid;
use crate::io::output::{take_for_resume, Earlier, Output, OutputOptions};
use crate::io::results::{header_of, Column, ResultReader, ResultRowRef, Status};
use crate::io::{Body, Record};
use crate::run::records::ShardedRecords;
use crate::stats::Tally;
use crate::verdict::Claims;

/// The columns `--resume` matches against the input, those of them the output has; it needs
/// one of the first three (`file` alone does not tell records apart).
const MATCHED_COLUMNS: [Column; 4] = [Column::Index, Column::Line, Column::Puzzle, Column::File];

/// Refuses a `--columns` choice `--resume` cannot work with: it counts kept rows in the summary
/// (`status`, `guesses`, `solve_ns`) and checks them against the input (`index`, `line` or
/// `puzzle`).
pub(super) fn check_columns(columns: &[Column]) -> Result<()> {
    check_resume_columns(columns, &Tally::ROW_COLUMNS, &MATCHED_COLUMNS[..3])
}

/// Refuses a `--columns` choice without every column of `counted` (what the summary counts
/// kept rows by) and one of `matched` (what tells them apart in the input), naming what lacks.
pub(crate) fn check_resume_columns<C>(columns: &[C], counted: &[C], matched: &[C]) -> Result<()>
where
    C: Copy + PartialEq + std::fmt::Display,
{
    let join = |list: &[C], sep: &str| {
        let names: Vec<String> = list.iter().map(C::to_string).collect();
        names.join(sep)
    };
    let missing: Vec<C> = counted
        .iter()
        .copied()
        .filter(|c| !columns.contains(c))
        .collect();
    let has_match = matched.iter().any(|c| columns.contains(c));
    if missing.is_empty() && has_match {
        return Ok(());
    }
    let mut needs = Vec::new();
    if !missing.is_empty() {
        needs.push(format!("{} (to count the kept rows)", join(&missing, ", ")));
    }
    if !has_match {
        needs.push(format!(
            "one of {} (to check the kept rows against the input)",
            join(matched, ", ")
        ));
    }
    Err(Error::Usage(format!(
        "--resume needs the column(s) {}, which --columns {} lacks",
        needs.join(" and "),
        join(columns, ",")
    )))
}

/// What defines the rows of the run that resumes: its output columns, its sidecar (none for
/// outputs that have none) and whether it proves uniqueness.
pub(super) struct ThisRun<'a> {
    /// The `--columns` choice.
    pub columns: &'a [Column],
    /// This run's sidecar, compared with the earlier run's.
    pub manifest: Option<&'a mut RunManifest>,
    /// What this run tells about the kept rows' claims (`--unique`, and the solver and
    /// `--max-guesses` its `gave_up` rows are judged by).
    pub claims: Claims<'static>,
    /// `--retry-gave-up`: stop keeping rows at the first `gave_up` row.
    pub retry_gave_up: bool,
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
    pub(super) fn fresh(output: Output) -> Resumed {
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
///
/// Before any row is read, the earlier run's sidecar (`FILE.run.json`) is compared with
/// `this_run`: every option or input that differs is named, and the run is refused. The kept
/// rows are then re-checked: each against its input record, and its solution against its
/// puzzle and the rules. Nothing is moved or changed until every check has passed, so a
/// refusal leaves the earlier output as it was. `files` (the `file` column) takes the earlier
/// run's names for inputs that are the same files, so that rows stay alike when a path is
/// given another way (relative, absolute).
/// A compressed output's rows are read from its complete members.
pub(super) fn resume(
    path: &Path,
    options: &OutputOptions,
    records: &mut ShardedRecords,
    files: &mut [String],
    this_run: ThisRun<'_>,
    notes: &mut Vec<String>,
) -> Result<Resumed> {
    let ThisRun {
        columns,
        manifest: this_run,
        claims,
        retry_gave_up,
    } = this_run;
    check_columns(columns)?;
    // The earlier rows are read where they are: nothing is renamed before every check passed.
    let Some(earlier) = take_for_resume(path, options)? else {
        notes.push(format!(
            "resume: no earlier output for {}; starting from the beginning",
            path.display()
        ));
        return Ok(Resumed::fresh(Output::create_with(Some(path), options)?));
    };
    compare_for_resume(path, &earlier, this_run, files, notes, retry_gave_up)
        .map_err(cannot_resume)?;
    let kept = keep_rows(&earlier, records, files, columns, &claims, retry_gave_up)
        .map_err(cannot_resume)?;
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
/// keeps them while they match (same `index`, `line`, `puzzle` and `file`) and are right (see
/// [`check_row`]). A torn last line is dropped. A row that does not match the input is an
/// error: the input changed, and appending to those rows would mix two runs. A wrong row is an
/// error naming its line. A `file` column that names the input's file another way (relative
/// or absolute) matches, and `files` takes that name.
fn keep_rows(
    earlier: &Earlier,
    records: &mut ShardedRecords,
    files: &mut [String],
    written: &[Column],
    claims: &Claims<'_>,
    retry_gave_up: bool,
) -> Result<Kept> {
    let mut kept = Kept {
        rows: 0,
        keep_bytes: 0,
        last_index: None,
        tally: Tally::default(),
    };
    let Some(mut rows) = open_kept_rows(earlier, written)? else {
        return Ok(kept); // Empty or torn header: start over.
    };
    kept.keep_bytes = rows.header_end();
    let mut matcher = RecordMatch::new(earlier.path(), &rows);
    while let Some(row) = rows.next_row()? {
        crate::run::interrupt::stop_point_kept(kept.rows)?;
        if let Some(line) = row.after_blank {
            return Err(Error::Input {
                path: earlier.path().to_path_buf(),
                message: format!("line {line}: {}", crate::io::results::BLANK_LINE),
            });
        }
        if retry_gave_up && row.status == Some(Status::GaveUp) {
            // Solved again from here: this row and every later one are dropped.
            break;
        }
        let Some((index, record)) = records.next()? else {
            return Err(matcher.mismatch(format!(
                "row {} (line {}) has no matching input record (the input has fewer records)",
                kept.rows + 1,
                row.at_line
            )));
        };
        matcher.check(&row, index, &record, files)?;
        if let Some(why) = check_row(&row, &record.body, claims) {
            return Err(row.error(why));
        }
        if row.status == Some(Status::GaveUp) {
            // Its re-check may have taken the bound's guesses: a stop is seen at once.
            crate::run::interrupt::stop_point_kept(0)?;
        }
        kept.tally.add_row(&row)?;
        kept.rows += 1;
        kept.last_index = Some(index);
        kept.keep_bytes = row.end;
    }
    Ok(kept)
}

/// The interrupted run's rows, positioned after their header, once the header is checked to be
/// this run's (`written`) with the columns `--resume` matches and counts by; `None` when the
/// file is empty or its header torn (then the run starts over).
fn open_kept_rows(
    earlier: &Earlier,
    written: &[Column],
) -> Result<Option<ResultReader<Box<dyn std::io::Read + Send>>>> {
    let partial = earlier.path();
    let Some(rows) = ResultReader::new(earlier.rows()?, partial)? else {
        check_torn_header(earlier, written)?;
        return Ok(None);
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
    Ok(Some(rows))
}

/// Matches kept rows against the input records, on the columns of [`MATCHED_COLUMNS`] the
/// output has (`--columns`).
struct RecordMatch<'a> {
    partial: &'a Path,
    rows_have: [bool; Column::COUNT],
    index_text: itoa::Buffer,
    line_text: itoa::Buffer,
}

impl<'a> RecordMatch<'a> {
    fn new<R: std::io::Read>(partial: &'a Path, rows: &ResultReader<R>) -> Self {
        let mut rows_have = [false; Column::COUNT];
        for column in MATCHED_COLUMNS {
            rows_have[column as usize] = rows.has(column);
        }
        RecordMatch {
            partial,
            rows_have,
            index_text: itoa::Buffer::new(),
            line_text: itoa::Buffer::new(),
        }
    }

    /// The error for a row that does not match the input.
    fn mismatch(&self, message: String) -> Error {
        Error::Input {
            path: self.partial.to_path_buf(),
            message,
        }
    }

    /// Checks that `row` is the row of input record `record` at stream position `index`. A
    /// `file` column that names the record's file another way takes over its name in `files`.
    fn check(
        &mut self,
        row: &ResultRowRef<'_>,
        index: u64,
        record: &Record,
        files: &mut [String],
    ) -> Result<()> {
        let found_file = row.raw(Column::File).unwrap_or_default();
        if let Some(name) = files.get_mut(record.file as usize) {
            if name.as_bytes() != found_file && same_file(name, found_file) {
                *name = String::from_utf8_lossy(found_file).into_owned();
            }
        }
        let file = files.get(record.file as usize).map_or("-", String::as_str);
        let partial = self.partial;
        let mismatch = |message: String| Error::Input {
            path: partial.to_path_buf(),
            message,
        };
        let expected: [(Column, &[u8], &[u8]); 4] = [
            (
                Column::Index,
                self.index_text.format(index).as_bytes(),
                row.raw(Column::Index).unwrap_or_default(),
            ),
            (
                Column::Line,
                self.line_text.format(record.line).as_bytes(),
                row.raw(Column::Line).unwrap_or_default(),
            ),
            (
                Column::Puzzle,
                &puzzle_column(&record.body),
                row.raw(Column::Puzzle).unwrap_or_default(),
            ),
            (Column::File, file.as_bytes(), found_file),
        ];
        for (column, want, found) in expected {
            if self.rows_have[column as usize] && want != found {
                return Err(mismatch(format!(
                    "line {} (index {}) has {column} {:?} but the input record at line {} has \
                     {:?}; the input or the partial file changed since the interrupted run",
                    row.at_line,
                    row.index.unwrap_or(index),
                    String::from_utf8_lossy(found),
                    record.line,
                    String::from_utf8_lossy(want),
                )));
            }
        }
        Ok(())
    }
}

/// Whether the `file` column text `found` names the file `name` another way.
pub(crate) fn same_file(name: &str, found: &[u8]) -> bool {
    let Ok(found) = std::str::from_utf8(found) else {
        return false;
    };
    if name == "-" || found == "-" {
        return false;
    }
    match (std::fs::canonicalize(name), std::fs::canonicalize(found)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// What is wrong with a kept row whose record is `body`, or `None`: a `solved` row must hold a
/// complete solution that keeps the clues and obeys the rules (and equals the input's reference
/// solution, when it has one); a `mismatch` row holds such a solution, which the input's
/// reference must differ from, or none; every other status has no solution, and an
/// `unsolvable`, `multiple` or `invalid` row gets its status again when the puzzle is solved
/// again, and a `gave_up` row gives up again within this run's `--max-guesses`
/// ([`crate::verdict::check_claim`]); a malformed record is `invalid`; `multiple` needs
/// `--unique`.
fn check_row(row: &ResultRowRef<'_>, body: &Body, claims: &Claims<'_>) -> Option<String> {
    let unique = claims.unique;
    let status = row.status?;
    let (puzzle, reference) = match body {
        Body::Invalid { message, .. } => {
            return (status != Status::Invalid).then(|| {
                format!("status {status} for a malformed record (this run finds: {message})")
            })
        }
        Body::Puzzle { puzzle, reference } => (puzzle, reference),
    };
    let solution = row.solution?;
    if let Some(why) =
        crate::verdict::check_result(status, solution, puzzle, reference.as_ref(), unique)
    {
        return Some(why);
    }
    if solution.is_empty() {
        return crate::verdict::check_claim(status, puzzle, reference.as_ref(), claims).map(
            |why| match status {
                // Without a sidecar this run's bound stands for the earlier run's.
                Status::GaveUp => format!("{why} (resume with the bound of the run that wrote it)"),
                _ => why,
            },
        );
    }
    // A mismatch is with the input's reference: it must still be there, and still differ.
    if status != Status::Mismatch {
        return None;
    }
    match reference {
        None => Some("status mismatch but the input has no reference solution".into()),
        Some(r) if Grid::from_bytes(solution.as_bytes()).is_ok_and(|g| &g == r) => {
            Some("status mismatch but the solution is the input's reference solution".into())
        }
        Some(_) => None,
    }
}

/// For an output without a complete header line: fine when what is there is the start of the
/// header (a run killed while writing it), refused as not a result file otherwise.
fn check_torn_header(earlier: &Earlier, written: &[Column]) -> Result<()> {
    let partial = earlier.path();
    let header = header_of(written);
    let mut head = Vec::with_capacity(header.len() + 1);
    let read = earlier.rows()?;
    let read = {
        use std::io::Read;
        read.take(header.len() as u64 + 1).read_to_end(&mut head)
    };
    read.map_err(|cause| Error::Read {
        path: partial.to_path_buf(),
        cause,
    })?;
    if header.as_bytes().starts_with(&head) {
        return Ok(());
    }
    Err(Error::Input {
        path: partial.to_path_buf(),
        message: format!(
            "not a result file: it starts with {:?}, not with the header {}",
            String::from_utf8_lossy(&head[..head.len().min(40)]),
            header.trim_end()
        ),
    })
}

/// The text of the `puzzle` column for a record.
fn puzzle_column(body: &Body) -> std::borrow::Cow<'_, [u8]> {
    match body {
        Body::Puzzle { puzzle, .. } => std::borrow::Cow::Owned(puzzle.to_bytes().to_vec()),
        Body::Invalid { text, .. } => std::borrow::Cow::Borrowed(text.as_bytes()),
    }
}

/// Says that a refusal is `--resume`'s: `FILE.partial: cannot resume: ...`; content that is
/// no solve output at all is called that, not a changed input.
fn cannot_resume(error: Error) -> Error {
    match error {
        Error::Input { path, message } if message.starts_with("not a result file") => {
            Error::Input {
                path,
                message: format!(
                    "cannot resume: {message} (--resume continues the output of a solve run, \
                     header included: remove it to start over)"
                ),
            }
        }
        Error::Input { path, message } => Error::Input {
            path,
            message: format!("cannot resume: {message}"),
        },
        other => other,
    }
}
