//! The result schema and the one reader of result CSVs.
//!
//! [`Status`], the nine [`Column`]s, the row [`ResultRow`] and its header say what `solve`
//! writes; [`ResultReader`] reads such a file back (`--resume`, `merge`), whatever subset and
//! order of the columns it holds, each consumer stating which columns it needs.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::grid::Grid;

pub use crate::verdict::Status;

/// One column of a result CSV. The names are stable: scripts and `--resume` match on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Column {
    /// 0-based position of the record in the input stream.
    Index,
    /// 1-based line of the record in its file.
    Line,
    /// The puzzle, normalized (an excerpt if malformed).
    Puzzle,
    /// The solution, empty when there is none.
    Solution,
    /// The [`Status`] word.
    Status,
    /// Branch points with two or more candidates.
    Guesses,
    /// Nanoseconds spent solving.
    SolveNs,
    /// Why the record is not `solved`.
    Message,
    /// The input file the record came from.
    File,
}

impl Column {
    /// How many columns there are.
    pub const COUNT: usize = 9;

    /// Every column, in the order `solve` writes them by default.
    pub const ALL: [Column; Column::COUNT] = [
        Column::Index,
        Column::Line,
        Column::Puzzle,
        Column::Solution,
        Column::Status,
        Column::Guesses,
        Column::SolveNs,
        Column::Message,
        Column::File,
    ];

    /// The column's name in the header.
    pub const fn name(self) -> &'static str {
        match self {
            Column::Index => "index",
            Column::Line => "line",
            Column::Puzzle => "puzzle",
            Column::Solution => "solution",
            Column::Status => "status",
            Column::Guesses => "guesses",
            Column::SolveNs => "solve_ns",
            Column::Message => "message",
            Column::File => "file",
        }
    }

    /// The column named `name` (exactly, as in a header); the error lists the valid names.
    pub fn from_name(name: &str) -> Result<Column, UnknownColumn> {
        Column::ALL
            .into_iter()
            .find(|c| c.name() == name)
            .ok_or_else(|| UnknownColumn(name.to_string()))
    }

    /// Parses a comma-separated list such as `puzzle,solution` (the shape of `--columns`):
    /// every name known, none twice, at least one.
    pub fn parse_list(list: &str) -> Result<Vec<Column>, String> {
        crate::error::parse_name_list(list)
    }

    /// `columns`' names joined by `sep`.
    pub fn join(columns: &[Column], sep: &str) -> String {
        let names: Vec<&str> = columns.iter().map(|c| c.name()).collect();
        names.join(sep)
    }

    /// The column's place in [`Column::ALL`].
    const fn slot(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Column {
    type Err = UnknownColumn;

    fn from_str(name: &str) -> Result<Column, UnknownColumn> {
        Column::from_name(name)
    }
}

/// A name that is not a result column; its message lists the valid names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownColumn(pub String);

impl fmt::Display for UnknownColumn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown column {:?} (the columns are {})",
            excerpt(self.0.as_bytes()),
            Column::join(&Column::ALL, ", ")
        )
    }
}

impl std::error::Error for UnknownColumn {}

/// The CSV column names, in order.
pub const COLUMNS: [&str; Column::COUNT] = {
    let mut names = [""; Column::COUNT];
    let mut i = 0;
    while i < names.len() {
        names[i] = Column::ALL[i].name();
        i += 1;
    }
    names
};

/// One output row of `solve`. Field order is the CSV column order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultRow {
    /// 0-based position of the record in the input stream.
    pub index: u64,
    /// 1-based line of the record in its file.
    pub line: u64,
    /// The puzzle, normalized to 81 characters with `.` blanks (an excerpt if malformed).
    pub puzzle: String,
    /// The solution, 81 digits, empty when there is none.
    pub solution: String,
    /// What happened.
    pub status: Status,
    /// Branch points with two or more candidates.
    pub guesses: u64,
    /// Nanoseconds spent solving this puzzle.
    pub solve_ns: u64,
    /// Why the record is not `solved`, empty otherwise.
    pub message: String,
    /// The input file the record came from (`-` for stdin).
    pub file: String,
}

/// A CSV writer for result rows without a header (the header is written once, separately).
pub(crate) fn row_writer<W: std::io::Write>(sink: W) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(sink)
}

/// The header line of the default output (every column, in order).
pub fn header_line() -> String {
    header_of(&Column::ALL)
}

/// The header line for `columns`, newline included.
pub fn header_of(columns: &[Column]) -> String {
    let mut line = Column::join(columns, ",");
    line.push('\n');
    line
}

/// The values of one result row, borrowed, for [`RowFormat::write`].
#[derive(Debug, Clone, Copy)]
pub struct RowValues<'a> {
    /// `index`.
    pub index: u64,
    /// `line`.
    pub line: u64,
    /// `puzzle`: a grid, or a bad record's excerpt (quoted as needed).
    pub puzzle: GridText<'a>,
    /// `solution`: a grid, or empty text when there is none.
    pub solution: GridText<'a>,
    /// `status`.
    pub status: Status,
    /// `guesses`.
    pub guesses: u64,
    /// `solve_ns`.
    pub solve_ns: u64,
    /// `message`, empty when solved.
    pub message: &'a str,
    /// `file`: the record's input, as a position in the list [`RowFormat::new`] was given.
    pub file: u32,
}

/// A `puzzle` or `solution` value of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridText<'a> {
    /// A grid, written as its 81 characters (`.` for a blank): never quoted, so never scanned.
    Grid(Grid),
    /// Text as it is (a bad record's excerpt; empty for no solution), quoted when it must be.
    Text(&'a [u8]),
}

impl GridText<'_> {
    /// The field's bytes before quoting.
    pub fn to_vec(&self) -> Vec<u8> {
        match self {
            GridText::Grid(grid) => grid.to_bytes().to_vec(),
            GridText::Text(text) => text.to_vec(),
        }
    }

    fn push(&self, out: &mut Vec<u8>) {
        match self {
            // A fixed-size copy, inlined: the two scans and the call of `push_csv_field` cost
            // ~3% of a million easy puzzles' CPU for the two grids of every row.
            GridText::Grid(grid) => out.extend_from_slice(&grid.to_bytes()),
            GridText::Text(text) => push_csv_field(out, text),
        }
    }
}

/// Formats result rows by hand into a caller's buffer, byte for byte as `csv::Writer` (the
/// crate's defaults: `,`, `"` doubled, `\n` rows) writes them, for the chosen columns in their
/// order. Numbers, grids and status words never need quoting, so they are copied; a bad record's
/// excerpt and the message are quoted when they must be, and each input's name is quoted once,
/// here, rather than on every row (`csv::Writer` per row was ~2,000 instructions a puzzle).
#[derive(Debug, Clone)]
pub struct RowFormat {
    columns: Vec<Column>,
    /// Each input's name as a CSV field, quoted if needed.
    files: Vec<Vec<u8>>,
}

impl RowFormat {
    /// A formatter for `columns` (in that order) of rows whose records come from `files`.
    pub fn new(columns: &[Column], files: &[String]) -> RowFormat {
        let files = files
            .iter()
            .map(|name| {
                let mut field = Vec::with_capacity(name.len() + 2);
                push_csv_field(&mut field, name.as_bytes());
                field
            })
            .collect();
        RowFormat {
            columns: columns.to_vec(),
            files,
        }
    }

    /// The columns, in order.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The header line, newline included.
    pub fn header(&self) -> String {
        header_of(&self.columns)
    }

    /// Appends one row, line end included, to `out`.
    pub fn write(&self, out: &mut Vec<u8>, row: &RowValues<'_>) {
        let start = out.len();
        for (i, column) in self.columns.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            match column {
                Column::Index => push_u64(out, row.index),
                Column::Line => push_u64(out, row.line),
                Column::Puzzle => row.puzzle.push(out),
                Column::Solution => row.solution.push(out),
                Column::Status => out.extend_from_slice(row.status.as_str().as_bytes()),
                Column::Guesses => push_u64(out, row.guesses),
                Column::SolveNs => push_u64(out, row.solve_ns),
                Column::Message => push_csv_field(out, row.message.as_bytes()),
                Column::File => match self.files.get(row.file as usize) {
                    Some(field) => out.extend_from_slice(field),
                    None => out.push(b'-'),
                },
            }
        }
        end_record(out, start);
    }
}

/// Appends `fields` as one CSV record, line end included, quoting as `csv::Writer` does: for
/// rows that are not built from [`RowValues`] (merged rows as read, `verify`'s report).
pub fn push_csv_record<'a>(out: &mut Vec<u8>, fields: impl IntoIterator<Item = &'a [u8]>) {
    let start = out.len();
    for (i, field) in fields.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_csv_field(out, field);
    }
    end_record(out, start);
}

/// Ends the record begun at `start`: a record of one empty field is written `""` (as
/// `csv::Writer` does), so that it is not an empty line, which readers skip.
fn end_record(out: &mut Vec<u8>, start: usize) {
    if out.len() == start {
        out.extend_from_slice(b"\"\"");
    }
    out.push(b'\n');
}

/// Appends `n` in decimal.
fn push_u64(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Appends `field` to `out` as a CSV field, as `csv::Writer` does with its defaults: in quotes,
/// with `"` doubled, when it holds `,`, `"`, `\r` or `\n`; as it is otherwise.
pub fn push_csv_field(out: &mut Vec<u8>, field: &[u8]) {
    // memchr's SIMD scans: a byte-wise fold here was ~5% of a `-j 1` run on easy puzzles.
    let special = memchr::memchr3(b',', b'"', b'\n', field).is_some()
        || memchr::memchr(b'\r', field).is_some();
    if !special {
        out.extend_from_slice(field);
        return;
    }
    out.reserve(field.len() + 2);
    out.push(b'"');
    for &b in field {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// The longest row [`ResultReader`] accepts. `solve`'s rows are a few hundred bytes (bad
/// records are echoed as short excerpts), so a longer one is not a result row; the reader skips
/// it in bounded memory.
pub const MAX_ROW: usize = 1 << 20;

/// Fields a row may have before the reader stops keeping them (a result row has at most nine).
const MAX_FIELDS: usize = 1024;

/// Bytes read from the source at a time. `merge` holds one reader per shard, so this stays
/// small: a thousand shards take 16 MB.
const READ_BLOCK: usize = 16 * 1024;

/// Reads a result CSV: the header first, mapping columns by name (any subset, any order), then
/// typed rows with the byte offset after each.
///
/// - A last line without `\n` (a run killed while writing it) is not a row: reading ends
///   before it, and [`torn_line`](Self::torn_line) says where it starts.
/// - Errors name the file and line: `out.csv: not a result row: line 7: status "sovled" is not
///   one of solved, unsolvable, multiple, invalid, mismatch`. A bad row does not end reading:
///   the next call reads the row after it.
/// - Memory is bounded: a row longer than [`MAX_ROW`] is an error, skipped without being held.
///
/// ```
/// use sudoku_batch::io::results::{Column, ResultReader};
/// let text = "status,index,guesses,solve_ns\nsolved,0,2,900\nsolved,1,0,4";
/// let mut reader = ResultReader::new(text.as_bytes(), "shard.csv").unwrap().unwrap();
/// reader.require(&[Column::Index, Column::Status], "merge").unwrap();
/// let row = reader.next_row().unwrap().unwrap();
/// assert_eq!((row.index, row.guesses, row.puzzle), (Some(0), Some(2), None));
/// assert_eq!(row.end, 45);
/// assert!(reader.next_row().unwrap().is_none()); // the last line is torn
/// assert_eq!(reader.torn_line(), Some(3));
/// ```
pub struct ResultReader<R> {
    source: R,
    path: PathBuf,
    csv: csv_core::Reader,
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    eof: bool,
    /// Bytes handed to the CSV parser so far.
    consumed: u64,
    /// The current record's field bytes and field ends.
    out: Vec<u8>,
    ends: Vec<usize>,
    fields: usize,
    header: Vec<Column>,
    /// For each column (by [`Column::slot`]), its field number in a row.
    slots: [Option<usize>; Column::COUNT],
    header_end: u64,
    current: Option<Current>,
    done: bool,
    torn: Option<u64>,
    /// The line where the next row starts when no blank line comes first.
    next_line: u64,
}

/// The typed values of the row last read.
#[derive(Debug, Clone, Copy)]
struct Current {
    numbers: [Option<u64>; Column::COUNT],
    status: Option<Status>,
    at_line: u64,
    end: u64,
    after_blank: Option<u64>,
}

/// What `--resume` says of a blank line between the rows it would keep.
pub const BLANK_LINE: &str =
    "blank, between two rows, where a run writes none (remove the line, then --resume again)";

/// What the CSV parser found next.
enum Raw {
    /// A complete record (ended by a line end), starting at `at_line`, the input's offset just
    /// past it; `overlong` when it was longer than [`MAX_ROW`] and not kept.
    Row {
        at_line: u64,
        end: u64,
        overlong: bool,
        /// The line after it.
        next_line: u64,
    },
    /// A last record without a line end.
    Torn { at_line: u64 },
    /// Nothing more.
    End,
}

/// A result file's plain bytes, decompressed when it is gzip or zstd (as `solve -o FILE.gz`
/// writes it).
pub type ResultSource = Box<dyn Read + Send>;

/// Opens the output file at `path` for reading back its plain bytes: gzip and zstd are told
/// by the first bytes, whatever the name (the outputs `merge` takes, `solve`'s and `rate`'s).
pub fn open_result_file(path: &Path) -> Result<ResultSource> {
    let open_error = |cause| Error::Open {
        path: path.to_path_buf(),
        cause,
    };
    let file = File::open(path).map_err(open_error)?;
    decode_result(Box::new(file), path)
}

/// What follows the last whole member of a compressed result file (see
/// [`open_whole_members`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterMembers {
    /// A member cut short, from this byte on: its rows are left out.
    TornMember(u64),
    /// Bytes that are no member, from this byte on (zero bytes are none).
    Trailing(u64),
}

/// Opens a result file as [`open_result_file`] does, but a gzip or zstd one only up to the end
/// of its last whole member: a copy cut inside a member reads as the rows of its whole
/// members, as a plain file cut inside a row reads as its whole rows. The second value says
/// what was left out after them, if anything.
pub fn open_whole_members(path: &Path) -> Result<(ResultSource, Option<AfterMembers>)> {
    use super::compress::{read_members, scan_members, Codec};
    let read_error = |cause| Error::Read {
        path: path.to_path_buf(),
        cause,
    };
    let mut head = Vec::with_capacity(4);
    File::open(path)
        .and_then(|f| f.take(4).read_to_end(&mut head))
        .map_err(|cause| Error::Open {
            path: path.to_path_buf(),
            cause,
        })?;
    let Some(codec) = Codec::from_magic(&head) else {
        return Ok((open_result_file(path)?, None));
    };
    let members = scan_members(codec, path).map_err(read_error)?;
    let end = members.last().map_or(0, |m| m.end);
    let mut tail = Vec::new();
    File::open(path)
        .and_then(|mut f| {
            std::io::Seek::seek(&mut f, std::io::SeekFrom::Start(end))?;
            f.read_to_end(&mut tail)
        })
        .map_err(read_error)?;
    let after = if tail.iter().all(|&b| b == 0) {
        None
    } else if Codec::from_magic(&tail) == Some(codec) || tail == [0x1f] {
        Some(AfterMembers::TornMember(end))
    } else {
        Some(AfterMembers::Trailing(end))
    };
    let source = read_members(codec, path, end).map_err(read_error)?;
    Ok((source, after))
}

/// Reads `inner` (named `path` in errors) as [`open_result_file`] reads a file: plain, or
/// gzip or zstd as its first bytes say.
pub fn decode_result(inner: Box<dyn Read + Send>, path: &Path) -> Result<ResultSource> {
    let open_error = |cause| Error::Open {
        path: path.to_path_buf(),
        cause,
    };
    let mut file = std::io::BufReader::with_capacity(READ_BLOCK, inner);
    let head = std::io::BufRead::fill_buf(&mut file).map_err(open_error)?;
    Ok(match super::compress::Codec::from_magic(head) {
        Some(super::compress::Codec::Gzip) => Box::new(super::compress::GzipMembers::new(file)),
        Some(super::compress::Codec::Zstd) => {
            Box::new(zstd::stream::read::Decoder::with_buffer(file).map_err(open_error)?)
        }
        _ => Box::new(file),
    })
}

impl ResultReader<ResultSource> {
    /// Opens the result CSV at `path` (plain, or gzip or zstd: [`open_result_file`]) and reads
    /// its header; `None` when it holds no complete header line (empty, or cut while the
    /// header was written).
    pub fn open(path: &Path) -> Result<Option<ResultReader<ResultSource>>> {
        ResultReader::new(open_result_file(path)?, path)
    }
}

impl<R: Read> ResultReader<R> {
    /// Reads the header from `source`, named `path` in errors; `None` when there is no complete
    /// header line. A header is refused unless it names result columns only, each once.
    pub fn new(source: R, path: impl Into<PathBuf>) -> Result<Option<ResultReader<R>>> {
        let mut reader = ResultReader {
            source,
            path: path.into(),
            csv: csv_core::Reader::new(),
            buf: vec![0; READ_BLOCK].into_boxed_slice(),
            pos: 0,
            len: 0,
            eof: false,
            consumed: 0,
            out: vec![0; 1024],
            ends: vec![0; 16],
            fields: 0,
            header: Vec::new(),
            slots: [None; Column::COUNT],
            header_end: 0,
            current: None,
            done: false,
            torn: None,
            next_line: 0,
        };
        let end = match reader.read_raw()? {
            Raw::End | Raw::Torn { .. } => return Ok(None),
            Raw::Row { overlong: true, .. } => {
                return Err(reader.file_error(format!("its header is longer than {MAX_ROW} bytes")))
            }
            Raw::Row { end, next_line, .. } => {
                reader.next_line = next_line;
                end
            }
        };
        for field in 0..reader.fields {
            let name = reader.field(field);
            let column = std::str::from_utf8(name)
                .ok()
                .and_then(|name| Column::from_name(name).ok())
                .ok_or_else(|| {
                    reader.file_error(format!(
                        "its header names {:?}, which is not a result column (the columns are \
                         {}; a file written with --no-header has no header)",
                        excerpt(name),
                        Column::join(&Column::ALL, ", ")
                    ))
                })?;
            if reader.slots[column.slot()].is_some() {
                return Err(reader.file_error(format!("its header names {column} twice")));
            }
            reader.slots[column.slot()] = Some(field);
            reader.header.push(column);
        }
        reader.header_end = end;
        Ok(Some(reader))
    }

    /// The file being read, as named in errors.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The header's columns, in file order.
    pub fn columns(&self) -> &[Column] {
        &self.header
    }

    /// Whether the file has `column`.
    pub fn has(&self, column: Column) -> bool {
        self.slots[column.slot()].is_some()
    }

    /// Refuses a file that lacks any of `needed`, naming the missing columns and `purpose`
    /// (what needs them: `--resume`, `merge`).
    pub fn require(&self, needed: &[Column], purpose: &str) -> Result<()> {
        let missing: Vec<Column> = needed.iter().copied().filter(|&c| !self.has(c)).collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(Error::Input {
            path: self.path.clone(),
            message: format!(
                "{purpose} needs the column(s) {}, which its header ({}) lacks",
                Column::join(&missing, ", "),
                Column::join(&self.header, ",")
            ),
        })
    }

    /// The byte offset just past the header line.
    pub fn header_end(&self) -> u64 {
        self.header_end
    }

    /// After the last row: the line where a torn last line (one without `\n`) starts, if the
    /// file ends in one. That line was left out.
    pub fn torn_line(&self) -> Option<u64> {
        self.torn
    }

    /// Reads the next complete row; `None` at the end (a torn last line is not a row). A row
    /// that is not a result row is an error naming its line; reading can go on after it.
    pub fn next_row(&mut self) -> Result<Option<ResultRowRef<'_>>> {
        self.current = None;
        if self.done {
            return Ok(None);
        }
        let (at_line, end, after_blank) = match self.read_raw()? {
            Raw::End => {
                self.done = true;
                return Ok(None);
            }
            Raw::Torn { at_line } => {
                self.done = true;
                self.torn = Some(at_line);
                return Ok(None);
            }
            Raw::Row {
                at_line,
                overlong: true,
                ..
            } => return Err(self.row_error(at_line, format!("longer than {MAX_ROW} bytes"))),
            Raw::Row {
                at_line,
                end,
                next_line,
                ..
            } => {
                let after_blank = (at_line > self.next_line).then_some(self.next_line);
                self.next_line = next_line;
                (at_line, end, after_blank)
            }
        };
        if self.fields != self.header.len() {
            let message = format!(
                "{} field(s) where the header has {}",
                self.fields,
                self.header.len()
            );
            return Err(self.row_error(at_line, message));
        }
        let mut current = Current {
            numbers: [None; Column::COUNT],
            status: None,
            at_line,
            end,
            after_blank,
        };
        for (field, &column) in self.header.iter().enumerate() {
            let bytes = self.field(field);
            let text = std::str::from_utf8(bytes);
            let bad = |what: &str| format!("{column} {:?} {what}", excerpt(bytes));
            match column {
                Column::Index | Column::Line | Column::Guesses | Column::SolveNs => {
                    let number = text.ok().and_then(|t| t.parse::<u64>().ok());
                    current.numbers[column.slot()] = number;
                    if number.is_none() {
                        return Err(self.row_error(at_line, bad("is not a whole number")));
                    }
                }
                Column::Status => {
                    current.status = text.ok().and_then(Status::from_word);
                    if current.status.is_none() {
                        let words: Vec<&str> = Status::ALL.iter().map(|s| s.as_str()).collect();
                        let message = bad(&format!("is not one of {}", words.join(", ")));
                        return Err(self.row_error(at_line, message));
                    }
                }
                Column::Puzzle | Column::Solution | Column::Message | Column::File => {
                    if text.is_err() {
                        return Err(self.row_error(at_line, bad("is not UTF-8")));
                    }
                }
            }
        }
        self.current = Some(current);
        Ok(self.row())
    }

    /// The row last returned by [`next_row`](Self::next_row), if it returned one.
    pub fn row(&self) -> Option<ResultRowRef<'_>> {
        let current = self.current?;
        let text = |column: Column| {
            self.slots[column.slot()].and_then(|f| std::str::from_utf8(self.field(f)).ok())
        };
        let number = |column: Column| current.numbers[column.slot()];
        Some(ResultRowRef {
            index: number(Column::Index),
            line: number(Column::Line),
            puzzle: text(Column::Puzzle),
            solution: text(Column::Solution),
            status: current.status,
            guesses: number(Column::Guesses),
            solve_ns: number(Column::SolveNs),
            message: text(Column::Message),
            file: text(Column::File),
            at_line: current.at_line,
            end: current.end,
            after_blank: current.after_blank,
            out: &self.out,
            ends: &self.ends[..self.fields],
            slots: &self.slots,
            path: &self.path,
        })
    }

    /// The bytes of field `i` of the record last read.
    fn field(&self, i: usize) -> &[u8] {
        field_of(&self.out, &self.ends[..self.fields], i)
    }

    fn file_error(&self, message: String) -> Error {
        Error::Input {
            path: self.path.clone(),
            message: format!("not a result file: {message}"),
        }
    }

    fn row_error(&self, at_line: u64, message: String) -> Error {
        Error::Input {
            path: self.path.clone(),
            message: format!("not a result row: line {at_line}: {message}"),
        }
    }

    /// Refills the input buffer once it is used up; `eof` at the end.
    fn fill(&mut self) -> Result<()> {
        debug_assert_eq!(self.pos, self.len);
        loop {
            match self.source.read(&mut self.buf) {
                Ok(n) => {
                    (self.pos, self.len, self.eof) = (0, n, n == 0);
                    return Ok(());
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(cause) => {
                    return Err(Error::Read {
                        path: self.path.clone(),
                        cause,
                    })
                }
            }
        }
    }

    /// The next input byte, not consumed.
    fn peek(&mut self) -> Result<Option<u8>> {
        if self.pos == self.len && !self.eof {
            self.fill()?;
        }
        Ok(self.buf[self.pos..self.len].first().copied())
    }

    /// Parses the next record into `out`/`ends`.
    fn read_raw(&mut self) -> Result<Raw> {
        let (mut nout, mut nend) = (0, 0);
        let mut overlong = false;
        let mut dropped_newlines = 0;
        loop {
            if self.pos == self.len && !self.eof {
                self.fill()?;
            }
            let input = &self.buf[self.pos..self.len];
            let (result, nin, o, e) =
                self.csv
                    .read_record(input, &mut self.out[nout..], &mut self.ends[nend..]);
            let at_eof = input.is_empty();
            self.pos += nin;
            self.consumed += nin as u64;
            (nout, nend) = (nout + o, nend + e);
            match result {
                csv_core::ReadRecordResult::InputEmpty => {}
                csv_core::ReadRecordResult::OutputFull if self.out.len() < MAX_ROW => {
                    self.out.resize(self.out.len() * 2, 0);
                }
                csv_core::ReadRecordResult::OutputFull => {
                    // Too long to be a result row: skip the rest, keeping only line count.
                    dropped_newlines += count_newlines(&self.out[..nout]);
                    (nout, overlong) = (0, true);
                }
                csv_core::ReadRecordResult::OutputEndsFull if self.ends.len() < MAX_FIELDS => {
                    self.ends.resize(self.ends.len() * 2, 0);
                }
                csv_core::ReadRecordResult::OutputEndsFull => (nend, overlong) = (0, true),
                csv_core::ReadRecordResult::End => return Ok(Raw::End),
                csv_core::ReadRecordResult::Record => {
                    self.fields = if overlong { 0 } else { nend };
                    // The parser counts every `\n` it consumed; take away the ones inside the
                    // record's fields and its own line end to get the line it starts on.
                    let last = (!at_eof).then(|| self.buf[self.pos - 1]);
                    let inside = dropped_newlines + count_newlines(&self.out[..nout]);
                    let at_line = self.csv.line() - u64::from(last == Some(b'\n')) - inside;
                    let end = match last {
                        // Ended by the end of the input: torn.
                        None => None,
                        // A CR ends a record when the parser sees it; the LF after it belongs
                        // to the row, and without one the row may have been cut right there.
                        Some(b'\r') => match self.peek()? {
                            Some(b'\n') => Some(self.consumed + 1),
                            Some(_) => Some(self.consumed),
                            None => None,
                        },
                        Some(_) => Some(self.consumed),
                    };
                    return Ok(match end {
                        Some(end) => Raw::Row {
                            at_line,
                            end,
                            overlong,
                            next_line: at_line + inside + 1,
                        },
                        None => Raw::Torn { at_line },
                    });
                }
            }
        }
    }
}

/// One row read by [`ResultReader`], borrowed from it: each value is `None` when the file has
/// no such column.
#[derive(Debug, Clone, Copy)]
pub struct ResultRowRef<'a> {
    /// `index`: position of the record in the input stream.
    pub index: Option<u64>,
    /// `line`: line of the record in its input file.
    pub line: Option<u64>,
    /// `puzzle`.
    pub puzzle: Option<&'a str>,
    /// `solution` (empty when there is none).
    pub solution: Option<&'a str>,
    /// `status`.
    pub status: Option<Status>,
    /// `guesses`.
    pub guesses: Option<u64>,
    /// `solve_ns`.
    pub solve_ns: Option<u64>,
    /// `message`.
    pub message: Option<&'a str>,
    /// `file`: the input file of the record.
    pub file: Option<&'a str>,
    /// The line of the result file where this row starts.
    pub at_line: u64,
    /// The byte offset in the result file just past this row (its line end included).
    pub end: u64,
    /// The first of the blank lines just before this row, if any: the parser skips them, but
    /// a run never writes one between its rows.
    pub after_blank: Option<u64>,
    out: &'a [u8],
    ends: &'a [usize],
    slots: &'a [Option<usize>; Column::COUNT],
    path: &'a Path,
}

impl<'a> ResultRowRef<'a> {
    /// The raw (unquoted) bytes of `column`, if the file has it.
    pub fn raw(&self, column: Column) -> Option<&'a [u8]> {
        let (out, ends) = (self.out, self.ends);
        self.slots[column.slot()].map(|f| field_of(out, ends, f))
    }

    /// The row's fields in file order, raw (unquoted).
    pub fn fields(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        let (out, ends) = (self.out, self.ends);
        (0..ends.len()).map(move |f| field_of(out, ends, f))
    }

    /// The whole row, when the file has every column.
    pub fn to_row(&self) -> Option<ResultRow> {
        Some(ResultRow {
            index: self.index?,
            line: self.line?,
            puzzle: self.puzzle?.to_string(),
            solution: self.solution?.to_string(),
            status: self.status?,
            guesses: self.guesses?,
            solve_ns: self.solve_ns?,
            message: self.message?.to_string(),
            file: self.file?.to_string(),
        })
    }

    /// An error about this row: `FILE: line N: MESSAGE`.
    pub fn error(&self, message: impl fmt::Display) -> Error {
        Error::Input {
            path: self.path.to_path_buf(),
            message: format!("line {}: {message}", self.at_line),
        }
    }

    /// The error for a column this row lacks (for consumers that did not
    /// [`require`](ResultReader::require) it).
    pub fn missing(&self, column: Column) -> Error {
        self.error(format!("no {column} column"))
    }
}

/// What `merge` says of a shard whose last line is torn: that row is left out (a torn row may
/// have lost any of its fields), and the shard counts as cut off.
pub fn torn_row(path: &Path, line: u64) -> String {
    format!(
        "{}: line {line}: a cut-off row (no line end), left out: the shard was cut short while \
         its run wrote it, or since; finish it with --resume",
        path.display()
    )
}

/// The sentence for what a compressed shard holds after its last whole member (see
/// [`open_whole_members`]): a member cut short, whose rows are left out, or trailing data.
pub fn torn_member(path: &Path, after: AfterMembers) -> String {
    match after {
        AfterMembers::TornMember(at) => format!(
            "{}: cut off inside a compressed member at byte {at}, whose rows are left out: the \
             shard was cut short while its run wrote it, or since; finish it with --resume",
            path.display()
        ),
        AfterMembers::Trailing(at) => format!(
            "{}: the bytes from {at} on are no compressed member (trailing data), left out",
            path.display()
        ),
    }
}

fn field_of<'a>(out: &'a [u8], ends: &[usize], i: usize) -> &'a [u8] {
    let start = if i == 0 { 0 } else { ends[i - 1] };
    &out[start..ends[i]]
}

fn count_newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

/// At most 60 characters of `bytes`, for messages.
pub(crate) fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_display_writes_them() {
        let mut samples: Vec<u64> = vec![0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, u64::MAX];
        for p in 1..20 {
            let ten = 10u64.pow(p);
            samples.extend([
                ten - 1,
                ten,
                ten + 1,
                ten.saturating_mul(3).saturating_add(7),
            ]);
        }
        let mut out = b"x".to_vec();
        let mut expected = b"x".to_vec();
        for n in samples {
            push_u64(&mut out, n);
            out.push(b',');
            expected.extend_from_slice(format!("{n},").as_bytes());
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            String::from_utf8(expected).unwrap()
        );
    }

    #[test]
    fn records_are_quoted_as_the_csv_crate_quotes_them() {
        let records: [&[&[u8]]; 6] = [
            &[b""],
            &[b"", b""],
            &[b"a,b", b"say \"hi\"", b"two\nlines", b"cr\rhere"],
            &[b"plain", b"\xc3\xa9t\xc3\xa9", b"#1", b" spaced "],
            &[b"\"", b","],
            &[b"x"],
        ];
        for fields in records {
            let mut ours = Vec::new();
            push_csv_record(&mut ours, fields.iter().copied());
            let mut theirs = row_writer(Vec::new());
            theirs.write_record(fields).unwrap();
            assert_eq!(ours, theirs.into_inner().unwrap(), "{fields:?}");
        }
    }

    #[test]
    fn header_matches_row_fields() {
        let row = ResultRow {
            index: 0,
            line: 1,
            puzzle: ".".repeat(81),
            solution: String::new(),
            status: Status::Unsolvable,
            guesses: 3,
            solve_ns: 10,
            message: "no solution, sorry".into(),
            file: "a.txt".into(),
        };
        let mut w = csv::Writer::from_writer(Vec::new());
        w.serialize(&row).unwrap();
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(text.lines().next().unwrap(), header_line().trim_end());
        assert!(text.lines().nth(1).unwrap().contains(",unsolvable,3,10,"));
        for status in Status::ALL {
            assert_eq!(Status::from_word(status.as_str()), Some(status));
        }
    }

    /// A source that hands out at most `step` bytes per read, to cross every buffer boundary.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    fn reader(text: &str) -> ResultReader<&[u8]> {
        ResultReader::new(text.as_bytes(), "r.csv")
            .unwrap()
            .expect("a header")
    }

    /// (index, at_line, end) of every row, and the torn line.
    type Walk = (Vec<(Option<u64>, u64, u64)>, Option<u64>);

    fn walk(mut reader: ResultReader<impl Read>) -> Walk {
        let mut rows = Vec::new();
        while let Some(row) = reader.next_row().unwrap() {
            rows.push((row.index, row.at_line, row.end));
        }
        (rows, reader.torn_line())
    }

    #[test]
    fn columns_are_named_listed_and_parsed() {
        assert_eq!(COLUMNS.map(|n| Column::from_name(n).unwrap()), Column::ALL);
        assert_eq!("solve_ns".parse::<Column>(), Ok(Column::SolveNs));
        let error = Column::from_name("sovle_ns").unwrap_err().to_string();
        assert_eq!(
            error,
            "unknown column \"sovle_ns\" (the columns are index, line, puzzle, solution, status, \
             guesses, solve_ns, message, file)"
        );
        assert_eq!(
            Column::parse_list("puzzle, solution"),
            Ok(vec![Column::Puzzle, Column::Solution])
        );
        assert!(Column::parse_list("puzzle,puzzle")
            .unwrap_err()
            .contains("twice"));
        assert!(Column::parse_list("")
            .unwrap_err()
            .contains("unknown column \"\""));
        assert_eq!(
            header_of(&[Column::File, Column::Index]),
            "file,index\n".to_string()
        );
    }

    #[test]
    fn reads_any_subset_and_order_of_columns() {
        let text = "file,status,index,solution\n\"a,b.txt\",solved,4,123\n-,invalid,9,\n";
        let mut r = reader(text);
        assert_eq!(
            r.columns(),
            [
                Column::File,
                Column::Status,
                Column::Index,
                Column::Solution
            ]
        );
        assert!(r.has(Column::Index) && !r.has(Column::Puzzle));
        assert_eq!(r.header_end(), 27);
        let row = r.next_row().unwrap().unwrap();
        assert_eq!(row.file, Some("a,b.txt"));
        assert_eq!(row.status, Some(Status::Solved));
        assert_eq!((row.index, row.solution), (Some(4), Some("123")));
        assert_eq!(
            (row.line, row.puzzle, row.guesses, row.solve_ns),
            (None, None, None, None)
        );
        assert_eq!(row.raw(Column::File), Some(&b"a,b.txt"[..]));
        assert_eq!(row.raw(Column::Message), None);
        let fields: Vec<&[u8]> = row.fields().collect();
        assert_eq!(fields, [&b"a,b.txt"[..], b"solved", b"4", b"123"]);
        assert_eq!((row.at_line, row.end), (2, 50));
        assert!(row.to_row().is_none());
        let row = r.next_row().unwrap().unwrap();
        assert_eq!((row.index, row.solution), (Some(9), Some("")));
        assert_eq!(r.row().unwrap().status, Some(Status::Invalid));
        assert!(r.next_row().unwrap().is_none());
        assert!(r.row().is_none() && r.torn_line().is_none());

        // Every column: the row reads back as written.
        let written = ResultRow {
            index: 7,
            line: 8,
            puzzle: "1.3".into(),
            solution: String::new(),
            status: Status::Mismatch,
            guesses: 2,
            solve_ns: 99,
            message: "differs, \"quoted\"".into(),
            file: "x.txt".into(),
        };
        let mut w = row_writer(header_line().into_bytes());
        w.serialize(&written).unwrap();
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        let mut r = reader(&text);
        assert_eq!(r.columns(), Column::ALL);
        let row = r.next_row().unwrap().unwrap();
        assert_eq!(row.to_row(), Some(written));
        assert_eq!(row.end, text.len() as u64);
    }

    #[test]
    fn a_torn_last_line_is_not_a_row() {
        // A quoted field spanning two lines, then a row cut by a kill.
        let text = "index,message\n1,\"x,\ny\"\n2,z\n3,to";
        let expected = (vec![(Some(1), 2, 23), (Some(2), 4, 27)], Some(5));
        assert_eq!(walk(reader(text)), expected);
        for step in [1, 2, 3, 7] {
            let trickle = Trickle {
                bytes: text.as_bytes(),
                step,
            };
            let r = ResultReader::new(trickle, "t.csv").unwrap().unwrap();
            assert_eq!(walk(r), expected, "step {step}");
        }
        // Cut inside a quoted field, right after a newline: still torn.
        assert_eq!(
            walk(reader("index,message\n1,a\n2,\"half\n")),
            (vec![(Some(1), 2, 18)], Some(3))
        );
        // CRLF line ends: each row's end includes its LF; a last CR without LF may be cut.
        let text = "index,file\r\n1,a\r\n\r\n2,b\r\n3,c\r";
        let expected = (vec![(Some(1), 2, 17), (Some(2), 4, 24)], Some(5));
        assert_eq!(walk(reader(text)), expected);
        for step in [1, 2, 5] {
            let trickle = Trickle {
                bytes: text.as_bytes(),
                step,
            };
            let r = ResultReader::new(trickle, "t.csv").unwrap().unwrap();
            assert_eq!(walk(r), expected, "step {step}");
        }
        // No complete header: nothing to read.
        assert!(ResultReader::new(&b""[..], "e.csv").unwrap().is_none());
        assert!(ResultReader::new(&b"index,li"[..], "e.csv")
            .unwrap()
            .is_none());
        assert!(ResultReader::new(&b"index,line\r"[..], "e.csv")
            .unwrap()
            .is_none());
    }

    #[test]
    fn bad_rows_name_the_file_and_line_and_reading_goes_on() {
        let text =
            "index,status,guesses\n0,solved,1\n1,sovled,1\n2,solved,x\n3,solved\n4,solved,5\n";
        let mut r = ResultReader::new(text.as_bytes(), "out.csv")
            .unwrap()
            .unwrap();
        assert_eq!(r.next_row().unwrap().unwrap().index, Some(0));
        let errors: Vec<String> = (0..3)
            .map(|_| r.next_row().map(|_| ()).unwrap_err().to_string())
            .collect();
        assert_eq!(
            errors,
            [
                "out.csv: not a result row: line 3: status \"sovled\" is not one of solved, \
                 unsolvable, multiple, invalid, mismatch, gave_up",
                "out.csv: not a result row: line 4: guesses \"x\" is not a whole number",
                "out.csv: not a result row: line 5: 2 field(s) where the header has 3",
            ]
        );
        let row = r.next_row().unwrap().unwrap();
        assert_eq!((row.index, row.guesses), (Some(4), Some(5)));
        assert_eq!(
            row.error("index 4 after 9").to_string(),
            "out.csv: line 6: index 4 after 9"
        );
        assert_eq!(
            row.missing(Column::SolveNs).to_string(),
            "out.csv: line 6: no solve_ns column"
        );
        assert!(r.next_row().unwrap().is_none());
    }

    #[test]
    fn a_header_that_is_not_a_result_header_is_refused() {
        let refuse = |text: &str| {
            ResultReader::new(text.as_bytes(), "in.csv")
                .map(|_| ())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            refuse("quizzes,solutions\n"),
            "in.csv: not a result file: its header names \"quizzes\", which is not a result \
             column (the columns are index, line, puzzle, solution, status, guesses, solve_ns, \
             message, file; a file written with --no-header has no header)"
        );
        assert_eq!(
            refuse("index,status,index\n"),
            "in.csv: not a result file: its header names index twice"
        );
        let r = reader("puzzle,index,status\n");
        assert!(r.require(&[Column::Index, Column::Status], "merge").is_ok());
        assert_eq!(
            r.require(&Column::ALL, "--resume").unwrap_err().to_string(),
            "r.csv: --resume needs the column(s) line, solution, guesses, solve_ns, message, \
             file, which its header (puzzle,index,status) lacks"
        );
        // A UTF-8 byte order mark before the header is not part of the first name.
        assert_eq!(
            ResultReader::new(&b"\xef\xbb\xbfindex\n"[..], "b.csv")
                .unwrap()
                .unwrap()
                .columns(),
            [Column::Index]
        );
    }

    #[test]
    fn an_overlong_row_is_skipped_in_bounded_memory() {
        let mut text = b"index,message\n0,".to_vec();
        text.extend(std::iter::repeat_n(b'x', 3 * MAX_ROW));
        text.extend_from_slice(b"\n1,\"a\nb\"\n");
        let mut r = ResultReader::new(&text[..], "big.csv").unwrap().unwrap();
        let error = r.next_row().map(|_| ()).unwrap_err().to_string();
        assert_eq!(
            error,
            format!("big.csv: not a result row: line 2: longer than {MAX_ROW} bytes")
        );
        assert!(r.out.len() <= MAX_ROW, "{}", r.out.len());
        let row = r.next_row().unwrap().unwrap();
        assert_eq!(
            (row.index, row.message, row.at_line),
            (Some(1), Some("a\nb"), 3)
        );
        assert!(r.next_row().unwrap().is_none());
    }
}
