//! `merge` of `rate --shard` outputs: the shards' rows in index order (a streaming k-way
//! merge, one row per shard in memory), each row re-checked as `rate --resume` checks the rows
//! it keeps, and the combined rating summary. `merge` hands over here when the shards are
//! `rate` outputs (their sidecars say so, or their header has an `er` column).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};

use super::columns::RateColumn;
use super::resume::check_row;
use super::tail::Tail;
use super::RateSummary;
use crate::cmd::sidecar::RunManifest;
use crate::error::{Error, Result};
use crate::io::output::Output;
use crate::io::results::{
    open_result_file, open_whole_members, push_csv_record, torn_member, torn_row, AfterMembers,
    ResultSource,
};
use crate::io::{Body, Fields, Format};
use crate::rate::verdict::RateStatus;

/// The columns `merge` reads from a `rate` shard: `index` to order rows, `status` to count them.
pub(crate) const MERGE_COLUMNS: [RateColumn; 2] = [RateColumn::Index, RateColumn::Status];

/// Whether the shard at `path` is a `rate` output (`Some(true)`: its sidecar says so, or
/// without one its header names the `er` column) or a `solve` one (`Some(false)`: its sidecar
/// says so, or its header names a `solve` column and not `er`); `None` when it is neither
/// (no header, not a result file), which the reader of the other shards' kind then says.
pub(crate) fn rate_output(path: &Path, sidecar: Option<&RunManifest>) -> Option<bool> {
    if let Some(sidecar) = sidecar {
        return Some(sidecar.kind == crate::cmd::sidecar::RATE_KIND);
    }
    let file = open_result_file(path).ok()?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(file);
    let mut header = csv::ByteRecord::new();
    if !matches!(reader.read_byte_record(&mut header), Ok(true)) {
        return None;
    }
    if header.iter().any(|name| name == b"er") {
        return Some(true);
    }
    let solve_column = |name: &[u8]| {
        std::str::from_utf8(name).is_ok_and(|n| crate::io::results::Column::from_name(n).is_ok())
    };
    header.iter().any(solve_column).then_some(false)
}

/// One shard's rows, read one at a time.
struct RateShard {
    path: PathBuf,
    reader: csv::Reader<Tail<ResultSource>>,
    /// The row last read.
    row: csv::ByteRecord,
    /// The index of the row last read.
    last: Option<u64>,
    /// Rows read so far.
    rows: u64,
    /// Where the shard's torn last line starts, once read to its end.
    torn: Option<u64>,
    /// What was left out after the last whole compressed member (`--allow-incomplete`).
    torn_member: Option<AfterMembers>,
}

impl RateShard {
    /// Opens a shard and reads its header.
    /// Opens the shard at `path`; a compressed one only up to its last whole member when
    /// `whole_members` (what `--allow-incomplete` merges of a cut-off shard).
    fn open(path: &Path, whole_members: bool) -> Result<(RateShard, Vec<RateColumn>)> {
        let (inner, torn_member) = match whole_members {
            true => open_whole_members(path)?,
            false => (open_result_file(path)?, None),
        };
        let file = Tail::new(inner);
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(file);
        let mut header = csv::ByteRecord::new();
        let error = |message: String| Error::Input {
            path: path.to_path_buf(),
            message,
        };
        if !reader
            .read_byte_record(&mut header)
            .map_err(|e| error(format!("not a rate output: {e}")))?
        {
            return Err(error("not a rate output: no header line".into()));
        }
        let columns = header
            .iter()
            .map(|name| {
                std::str::from_utf8(name)
                    .ok()
                    .and_then(|n| n.parse::<RateColumn>().ok())
                    .ok_or_else(|| {
                        error(format!(
                            "not a rate output: its header names {:?}, which is not a rate \
                             column",
                            crate::io::results::excerpt(name)
                        ))
                    })
            })
            .collect::<Result<Vec<_>>>()?;
        for needed in MERGE_COLUMNS {
            if !columns.contains(&needed) {
                return Err(error(format!(
                    "merge needs the column {needed}, which its header ({}) lacks",
                    RateColumn::join(&columns, ",")
                )));
            }
        }
        let shard = RateShard {
            path: path.to_path_buf(),
            reader,
            row: csv::ByteRecord::new(),
            last: None,
            rows: 0,
            torn: None,
            torn_member,
        };
        Ok((shard, columns))
    }

    /// Reads the next row and returns its index, checking that indices increase.
    fn advance(&mut self, index_slot: usize) -> Result<Option<u64>> {
        let error = |message: String| Error::Input {
            path: self.path.clone(),
            message,
        };
        if !self
            .reader
            .read_byte_record(&mut self.row)
            .map_err(|e| error(format!("not a rate output: {e}")))?
        {
            return Ok(None);
        }
        let line = self.row.position().map_or(0, |p| p.line());
        let tail = self.reader.get_ref();
        if tail.ended && self.reader.position().byte() == tail.read && !tail.ends_row(b"\n\r") {
            // The record was ended by the end of the file, not by a line end: cut off, and
            // any of its fields may be short. It is no row.
            self.torn = Some(line);
            return Ok(None);
        }
        let index = std::str::from_utf8(self.row.get(index_slot).unwrap_or_default())
            .ok()
            .and_then(|t| t.parse::<u64>().ok())
            .ok_or_else(|| error(format!("line {line}: index is not a whole number")))?;
        if let Some(previous) = self.last.filter(|&p| index <= p) {
            return Err(error(format!(
                "line {line}: index {index} after {previous}; rows must be in index order"
            )));
        }
        self.last = Some(index);
        self.rows += 1;
        Ok(Some(index))
    }
}

/// What merging rate shards found.
pub(crate) struct RateMerge {
    /// The combined summary.
    pub summary: RateSummary,
    /// Indices missing between the first and the last row.
    pub missing: u64,
    /// Shards cut off or with other row counts than their run wrote, each in a sentence.
    pub unlike_sidecars: Vec<String>,
    /// The last rows, not yet written (the output is finished only once the shards are known
    /// to be whole).
    pub unwritten: Vec<u8>,
}

/// Writes the rows of the rate shards at `inputs` to `output` in index order (the header
/// first), checking each row, and counts them. An index in two shards, rows out of order and
/// a row whose status does not fit its puzzle are errors naming the shard and line.
pub(crate) fn interleave(
    inputs: &[PathBuf],
    sidecars: &[Option<RunManifest>],
    output: &mut Output,
    whole_members: bool,
) -> Result<RateMerge> {
    let mut shards = Vec::with_capacity(inputs.len());
    let mut columns: Option<Vec<RateColumn>> = None;
    for path in inputs {
        let (shard, found) = RateShard::open(path, whole_members)?;
        if let Some(first) = columns.as_ref().filter(|c| **c != found) {
            return Err(Error::Input {
                path: path.clone(),
                message: format!(
                    "its columns ({}) differ from those of {} ({}); merge the shards of one run",
                    RateColumn::join(&found, ","),
                    inputs[0].display(),
                    RateColumn::join(first, ",")
                ),
            });
        }
        columns = Some(found);
        shards.push(shard);
    }
    let columns = columns.unwrap_or_default();
    output.write_all(RateColumn::header(&columns).as_bytes())?;
    let slot = |column: RateColumn| columns.iter().position(|&c| c == column);
    let slots: [Option<usize>; RateColumn::COUNT] = RateColumn::ALL.map(slot);
    let index_slot = slots[RateColumn::Index as usize].unwrap_or(0);
    let mut heap = BinaryHeap::new();
    for (i, shard) in shards.iter_mut().enumerate() {
        if let Some(index) = shard.advance(index_slot)? {
            heap.push(Reverse((index, i)));
        }
    }
    let mut merged = RateMerge {
        summary: RateSummary::default(),
        missing: 0,
        unlike_sidecars: Vec::new(),
        unwritten: Vec::with_capacity(128 * 1024),
    };
    let (mut expected, mut last) = (0u64, None::<(u64, usize)>);
    while let Some(Reverse((index, i))) = heap.pop() {
        if let Some((_, j)) = last.filter(|&(p, _)| p == index) {
            return Err(Error::Input {
                path: shards[i].path.clone(),
                message: format!(
                    "index {index} is also in {}; each index must come from one shard",
                    shards[j].path.display()
                ),
            });
        }
        merged.missing += index - expected;
        expected = index + 1;
        last = Some((index, i));
        let shard = &mut shards[i];
        count_row(&shard.row, index, &slots, &mut merged.summary).map_err(|why| Error::Input {
            path: shard.path.clone(),
            message: format!(
                "line {}: {why}; the shard was changed after its run wrote it (re-run that \
                     shard)",
                shard.row.position().map_or(0, |p| p.line())
            ),
        })?;
        push_csv_record(&mut merged.unwritten, shard.row.iter());
        if merged.unwritten.len() >= 64 * 1024 {
            output.write_all(&merged.unwritten)?;
            merged.unwritten.clear();
            crate::run::interrupt::stop_point_whole("merge", output)?;
        }
        if let Some(next) = shard.advance(index_slot)? {
            heap.push(Reverse((next, i)));
        }
    }
    if let Some(records) = crate::cmd::shards::input_records(sidecars) {
        merged.missing += records.saturating_sub(expected);
    }
    for (shard, sidecar) in shards.iter().zip(sidecars) {
        if let Some(line) = shard.torn {
            merged.unlike_sidecars.push(torn_row(&shard.path, line));
        }
        if let Some(at) = shard.torn_member {
            merged.unlike_sidecars.push(torn_member(&shard.path, at));
        }
        if let Some(finished) = sidecar.as_ref().and_then(|m| m.finished) {
            if shard.rows != finished.rows {
                merged.unlike_sidecars.push(format!(
                    "{}: {} row(s), but its run wrote {}",
                    shard.path.display(),
                    shard.rows,
                    finished.rows
                ));
            }
        }
    }
    Ok(merged)
}

/// Checks one row (its status against its puzzle, when the row has one, and its ratings'
/// form) and counts it in `summary`.
fn count_row(
    row: &csv::ByteRecord,
    index: u64,
    slots: &[Option<usize>; RateColumn::COUNT],
    summary: &mut RateSummary,
) -> std::result::Result<(), String> {
    let field = |column: RateColumn| -> &[u8] {
        slots[column as usize]
            .and_then(|i| row.get(i))
            .unwrap_or_default()
    };
    let status_text = field(RateColumn::Status);
    let status = std::str::from_utf8(status_text)
        .ok()
        .and_then(|s| s.parse::<RateStatus>().ok())
        .ok_or_else(|| {
            format!(
                "status {:?} is not a rate status",
                String::from_utf8_lossy(status_text)
            )
        })?;
    let puzzle = field(RateColumn::Puzzle);
    let body = slots[RateColumn::Puzzle as usize].map(|_| {
        Body::from_fields(&Fields::Puzzle {
            format: Format::Lines,
            puzzle,
            solution: None,
            status: None,
        })
    });
    let er = check_row(status, body.as_ref(), &field, slots)?;
    summary.add(index, &String::from_utf8_lossy(puzzle), status, er);
    Ok(())
}
