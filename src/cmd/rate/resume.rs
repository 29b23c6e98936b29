//! `rate --resume`: takes an interrupted run's rows back, checks each against its input record
//! and the rules, and opens the output to append the rest.
//!
//! A kept row cannot be rated again cheaply (that is the work being saved), so what is checked
//! is what can be: the row is the input record's (`index`, `line`, `puzzle`, `file`), its
//! status is the one the fast solver gives the puzzle (`invalid` for a malformed record,
//! `unsolvable` without a solution, `multiple` with several, `rated` or `gave_up` with one),
//! and its ratings are well formed (EP and ED at most ER; none for a puzzle that was not rated).

use std::io::Read;
use std::path::Path;

use super::columns::RateColumn;
use super::tail::Tail;
use super::RateSummary;
use crate::cmd::sidecar::{compare_for_resume, RunManifest};
use crate::cmd::solve::resume::{check_resume_columns, same_file};
use crate::error::{Error, Result};
use crate::io::output::{take_for_resume, Earlier, Output, OutputOptions};
use crate::io::{Body, Record};
use crate::rate::verdict::RateStatus;
use crate::run::records::ShardedRecords;
use crate::solver::{Budget, SolverKind};
use crate::verdict::{JudgeOptions, Status};

/// The columns a kept row is matched against the input by, those of them the output has; it
/// needs one of the first three (`file` alone does not tell records apart).
const MATCHED: [RateColumn; 4] = [
    RateColumn::Index,
    RateColumn::Line,
    RateColumn::Puzzle,
    RateColumn::File,
];

/// The columns the summary counts kept rows by.
const COUNTED: [RateColumn; 2] = [RateColumn::Status, RateColumn::Er];

/// What defines the rows of the run that resumes.
pub(super) struct ThisRun<'a> {
    /// The `--columns` choice.
    pub columns: &'a [RateColumn],
    /// This run's sidecar, compared with the earlier run's.
    pub manifest: Option<&'a mut RunManifest>,
    /// `--retry-gave-up`: stop keeping rows at the first `gave_up` row.
    pub retry_gave_up: bool,
}

/// Where a run's rows go, and what it starts with.
pub(super) struct Resumed {
    /// The output, positioned after the rows kept.
    pub output: Output,
    /// Rows kept from an interrupted run.
    pub rows: u64,
    /// Their summary counts.
    pub summary: RateSummary,
    /// Whether the header must be written (a new output, or a torn header).
    pub needs_header: bool,
}

impl Resumed {
    /// A run that starts from the beginning into `output`.
    pub(super) fn fresh(output: Output) -> Resumed {
        Resumed {
            output,
            rows: 0,
            summary: RateSummary::default(),
            needs_header: true,
        }
    }
}

/// Refuses a `--columns` choice `--resume` cannot work with.
pub(super) fn check_columns(columns: &[RateColumn]) -> Result<()> {
    check_resume_columns(columns, &COUNTED, &MATCHED[..3])
}

/// Continues the `rate` run whose output is `path`: keeps the rows of its `FILE.partial` (or
/// of a finished `FILE`) that match the input records, which are consumed from `records`, and
/// opens the output after them. Without earlier output the run starts from the beginning.
/// Nothing is moved or changed until every check has passed, so a refusal leaves the earlier
/// output as it was.
pub(super) fn resume(
    path: &Path,
    options: &OutputOptions,
    records: &mut ShardedRecords,
    files: &mut [String],
    this_run: ThisRun<'_>,
    notes: &mut Vec<String>,
) -> Result<Resumed> {
    check_columns(this_run.columns)?;
    let Some(earlier) = take_for_resume(path, options)? else {
        notes.push(format!(
            "resume: no earlier output for {}; starting from the beginning",
            path.display()
        ));
        return Ok(Resumed::fresh(Output::create_with(Some(path), options)?));
    };
    compare_for_resume(
        path,
        &earlier,
        this_run.manifest,
        files,
        notes,
        this_run.retry_gave_up,
    )
    .map_err(cannot_resume)?;
    let kept = keep_rows(
        &earlier,
        records,
        files,
        this_run.columns,
        this_run.retry_gave_up,
    )
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
        summary: kept.summary,
        needs_header: kept.keep_bytes == 0,
    })
}

/// What `--resume` kept of an interrupted run.
#[derive(Default)]
struct Kept {
    rows: u64,
    keep_bytes: u64,
    last_index: Option<u64>,
    summary: RateSummary,
}

/// One row of the earlier output, read ahead: a row is only kept once the text after it
/// shows it was complete (ended by a line end).
struct Row {
    record: csv::ByteRecord,
    /// Its 1-based line in the file.
    line: u64,
    /// The byte offset just past it.
    end: u64,
}

/// The earlier output's reader: CSV records, with whether the text ends in a line end.
type EarlierRows = csv::Reader<Tail<Box<dyn Read + Send>>>;

impl Row {
    /// The record just read, `after` being the reader's position past it: the line is
    /// counted back from there, since the CSV reader skips blank lines before a record but
    /// gives the record the position where it began to read.
    fn read(record: csv::ByteRecord, after: &csv::Position) -> Row {
        let inside = memchr::memchr_iter(b'\n', record.as_slice()).count() as u64;
        Row {
            record: without_cr(record),
            line: after.line().saturating_sub(1 + inside),
            end: after.byte(),
        }
    }

    /// The line after it.
    fn next_line(&self) -> u64 {
        self.line + 1 + memchr::memchr_iter(b'\n', self.record.as_slice()).count() as u64
    }
}

/// `record` without the `\r` of a CRLF line end, which ends its last field when rows are read
/// to `\n` only.
fn without_cr(record: csv::ByteRecord) -> csv::ByteRecord {
    let n = record.len();
    match record.get(n.wrapping_sub(1)) {
        Some(last) if last.ends_with(b"\r") => {
            let mut out = csv::ByteRecord::with_capacity(record.as_slice().len(), n);
            for (i, field) in record.iter().enumerate() {
                out.push_field(if i + 1 == n {
                    &field[..field.len() - 1]
                } else {
                    field
                });
            }
            out.set_position(record.position().cloned());
            out
        }
        _ => record,
    }
}

/// Reads the earlier output's header and the row after it. `None` when there is no header
/// line, or only the start of this run's (a run stopped while writing it): start over.
/// Otherwise the offset just past the header and the first row, if any.
fn read_header(
    reader: &mut EarlierRows,
    columns: &[RateColumn],
    error: &dyn Fn(String) -> Error,
) -> Result<Option<(u64, Option<Row>)>> {
    let mut rows = Vec::new();
    while rows.len() < 2 {
        match read_row(reader, error)? {
            Some(row) => rows.push(row),
            None => break,
        }
    }
    let Some(first) = rows.first() else {
        return Ok(None);
    };
    let header = RateColumn::header(columns);
    let found: Vec<&[u8]> = first.record.iter().collect();
    let expected: Vec<&[u8]> = columns.iter().map(|c| c.name().as_bytes()).collect();
    if found != expected {
        let torn = rows.len() == 1 && !reader.get_ref().ends_row(b"\n");
        let text = found.join(&b","[..]);
        if torn && header.as_bytes().starts_with(&text) {
            return Ok(None);
        }
        return Err(error(format!(
            "its header ({}) is not that of this run's output ({})",
            String::from_utf8_lossy(&text),
            header.trim_end()
        )));
    }
    let header_end = first.end;
    if let Some(next) = rows.get(1) {
        refuse_blank_between(first, next, error)?;
    }
    Ok(Some((header_end, rows.into_iter().nth(1))))
}

/// The next row of the earlier output, past blank lines: the CSV reader skips those ended by
/// `\n` alone, and this the ones ended by `\r\n` (read as one empty field). A blank line
/// before a row shows in the row's line ([`refuse_blank_between`]); after the last row it is
/// dropped.
fn read_row(reader: &mut EarlierRows, error: &dyn Fn(String) -> Error) -> Result<Option<Row>> {
    let mut record = csv::ByteRecord::new();
    loop {
        if !reader
            .read_byte_record(&mut record)
            .map_err(|e| error(format!("not a result file: {e}")))?
        {
            return Ok(None);
        }
        let row = Row::read(record.clone(), reader.position());
        if !(row.record.len() == 1 && row.record[0].is_empty()) {
            return Ok(Some(row));
        }
    }
}

/// Refuses a blank line between two rows (or the header and the first row): the CSV reader
/// skips it, but a run writes none, and a kept one would stay in the finished output.
fn refuse_blank_between(row: &Row, next: &Row, error: &dyn Fn(String) -> Error) -> Result<()> {
    let blank = row.next_line();
    if next.line > blank {
        return Err(error(format!(
            "line {blank}: {}",
            crate::io::results::BLANK_LINE
        )));
    }
    Ok(())
}

/// Checks that a kept row is the input record `input` at `index` (in the columns it has:
/// `index`, `line`, `puzzle`, `file`), and returns the record's puzzle text. A `file` column
/// that names the input's file another way (relative or absolute) matches, and `files` takes
/// that name.
fn match_record<'a>(
    field: &dyn Fn(RateColumn) -> &'a [u8],
    has: &dyn Fn(RateColumn) -> bool,
    (index, input): (u64, &Record),
    files: &mut [String],
) -> std::result::Result<String, String> {
    let found_file = field(RateColumn::File);
    if let Some(name) = files.get_mut(input.file as usize) {
        if name.as_bytes() != found_file && same_file(name, found_file) {
            *name = String::from_utf8_lossy(found_file).into_owned();
        }
    }
    let file = files.get(input.file as usize).map_or("-", String::as_str);
    let puzzle = match &input.body {
        Body::Puzzle { puzzle, .. } => puzzle.to_string(),
        Body::Invalid { text, .. } => text.clone(),
    };
    let expected: [(RateColumn, String); 4] = [
        (RateColumn::Index, index.to_string()),
        (RateColumn::Line, input.line.to_string()),
        (RateColumn::Puzzle, puzzle.clone()),
        (RateColumn::File, file.to_string()),
    ];
    for (column, want) in expected {
        let found = field(column);
        if has(column) && want.as_bytes() != found {
            return Err(format!(
                "{column} {:?} but the input record at line {} has {want:?}; the input or the \
                 partial file changed since the interrupted run",
                String::from_utf8_lossy(found),
                input.line,
            ));
        }
    }
    Ok(puzzle)
}

/// Reads the earlier rows in step with the input records and keeps them while they match and
/// are right. A torn last line is dropped. A row that does not match its record is an error:
/// the input changed, and appending to those rows would mix two runs.
fn keep_rows(
    earlier: &Earlier,
    records: &mut ShardedRecords,
    files: &mut [String],
    columns: &[RateColumn],
    retry_gave_up: bool,
) -> Result<Kept> {
    let partial = earlier.path().to_path_buf();
    let error = |message: String| Error::Input {
        path: partial.clone(),
        message,
    };
    // Rows end at `\n` only, so a row's end takes in the `\n` of a CRLF line end (a partial
    // edited on Windows): the rows appended after it start on a line of their own.
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_reader(Tail::new(earlier.rows()?));
    let mut kept = Kept::default();
    let Some((header_end, mut pending)) = read_header(&mut reader, columns, &error)? else {
        return Ok(kept);
    };
    kept.keep_bytes = header_end;
    let slot = |column: RateColumn| columns.iter().position(|&c| c == column);
    let slots: [Option<usize>; RateColumn::COUNT] = RateColumn::ALL.map(slot);
    while let Some(row) = pending.take() {
        crate::run::interrupt::stop_point_kept(kept.rows)?;
        // Read ahead: the row is complete if another follows or the text ends with `\n`.
        if let Some(next) = read_row(&mut reader, &error)? {
            pending = Some(next);
        } else if !reader.get_ref().ends_row(b"\n") {
            break;
        }
        if let Some(next) = &pending {
            refuse_blank_between(&row, next, &error)?;
        }
        let field = |column: RateColumn| -> &[u8] {
            slots[column as usize]
                .and_then(|i| row.record.get(i))
                .unwrap_or_default()
        };
        let at = |message: String| error(format!("line {}: {message}", row.line));
        if row.record.len() != columns.len() {
            return Err(at(format!(
                "{} field(s) where the header has {}",
                row.record.len(),
                columns.len()
            )));
        }
        let status_text = field(RateColumn::Status);
        let status = std::str::from_utf8(status_text)
            .ok()
            .and_then(|s| s.parse::<RateStatus>().ok())
            .ok_or_else(|| {
                let text = String::from_utf8_lossy(status_text);
                at(format!("status {text:?} is not a rate status"))
            })?;
        if retry_gave_up && status == RateStatus::GaveUp {
            // Rated again from here: this row and every later one are dropped.
            break;
        }
        let Some((index, input)) = records.next()? else {
            return Err(at(
                "has no matching input record (the input has fewer records)".into(),
            ));
        };
        let has = |column: RateColumn| slots[column as usize].is_some();
        let puzzle = match_record(&field, &has, (index, &input), files).map_err(at)?;
        let er = check_row(status, Some(&input.body), &field, &slots).map_err(at)?;
        kept.summary.add(index, &puzzle, status, er);
        kept.rows += 1;
        kept.last_index = Some(index);
        kept.keep_bytes = row.end;
    }
    Ok(kept)
}

/// Checks a row of status `status` against its record's `body` (when known: a row without a
/// `puzzle` column cannot be checked against its puzzle) and its ratings' form; its ER in
/// tenths, if it has one.
pub(super) fn check_row<'a>(
    status: RateStatus,
    body: Option<&Body>,
    field: &dyn Fn(RateColumn) -> &'a [u8],
    slots: &[Option<usize>; RateColumn::COUNT],
) -> std::result::Result<Option<u16>, String> {
    let truth = match body {
        None => status,
        Some(Body::Invalid { .. }) => RateStatus::Invalid,
        Some(Body::Puzzle { puzzle, .. }) => {
            let options = JudgeOptions {
                solver: SolverKind::default(),
                unique: true,
                budget: Budget::new(None, None),
            };
            match crate::verdict::judge(puzzle, None, &options).status {
                Status::Solved | Status::GaveUp => RateStatus::Rated,
                Status::Unsolvable => RateStatus::Unsolvable,
                Status::Multiple => RateStatus::Multiple,
                Status::Invalid | Status::Mismatch => RateStatus::Invalid,
            }
        }
    };
    let unique = matches!(truth, RateStatus::Rated | RateStatus::GaveUp);
    if status != truth && !(unique && matches!(status, RateStatus::Rated | RateStatus::GaveUp)) {
        return Err(format!(
            "status {} but the puzzle is {}",
            status.as_str(),
            match truth {
                RateStatus::Invalid => "not a valid record",
                RateStatus::Unsolvable => "unsolvable",
                RateStatus::Multiple => "not unique",
                _ => "unique",
            }
        ));
    }
    let tenths = |column: RateColumn| -> std::result::Result<Option<u16>, String> {
        let text = field(column);
        if text.is_empty() {
            return Ok(None);
        }
        // A rating as written: whole tenths (a value between two is no rating).
        std::str::from_utf8(text)
            .ok()
            .and_then(|t| super::parse_er_number(t).ok())
            .and_then(|x| crate::rate::scale::tenths_range(x, x).ok())
            .map(|(tenths, _)| Some(tenths))
            .ok_or_else(|| {
                format!(
                    "{column} {:?} is not a rating",
                    String::from_utf8_lossy(text)
                )
            })
    };
    let er = tenths(RateColumn::Er)?;
    let (ep, ed) = (tenths(RateColumn::Ep)?, tenths(RateColumn::Ed)?);
    let rated = status == RateStatus::Rated;
    if rated && slots[RateColumn::Er as usize].is_some() && er.is_none() {
        return Err("status rated without an er".into());
    }
    if !unique && (er.is_some() || ep.is_some() || ed.is_some()) {
        return Err(format!("a rating for a puzzle that is {}", status.as_str()));
    }
    if let (Some(er), Some(low)) = (er, ep.max(ed)) {
        if low > er {
            return Err(format!(
                "ep/ed {:.1} above er {:.1}",
                f32::from(low) / 10.0,
                f32::from(er) / 10.0
            ));
        }
    }
    Ok(er)
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
