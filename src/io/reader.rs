//! Streams puzzle records from line files, CSV files and grid files (file or stdin, plain or
//! compressed), one record at a time, with the file and line each came from. Never holds a whole
//! input in memory: lines, CSV records and grid rows are cut at [`MAX_LINE`] bytes, and a longer
//! one becomes an `invalid` record without being read into memory whole.
//!
//! A record whose text is not a valid puzzle is still a record: it comes out as
//! [`Body::Invalid`] with a message, so the output keeps one row per input record, in order.

use std::collections::VecDeque;
use std::io::{BufRead, Read};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use super::Input;
use crate::error::{Error, Result};
use crate::grid::{cell_value, Grid};

/// Longest line (or CSV field) read into memory; longer ones become `invalid` records.
pub const MAX_LINE: usize = 64 * 1024;

/// The UTF-8 byte order mark some tools write at the start of a CSV file.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// Longest excerpt of a bad record echoed into the `puzzle` column.
const MAX_ECHO: usize = 100;

/// Tokens at least this long are puzzle candidates; shorter ones are ids, ratings, counts.
const MIN_PUZZLE_TOKEN: usize = 40;

/// Column names recognised as the puzzle column, compared without case.
pub const PUZZLE_COLUMNS: &[&str] = &["puzzle", "puzzles", "quizzes", "quiz", "sudoku", "grid"];

/// Column names recognised as the reference solution column, compared without case.
pub const SOLUTION_COLUMNS: &[&str] = &["solution", "solutions"];

/// How the input is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Decide from the content of each input.
    #[default]
    Auto,
    /// One puzzle per line (the first long token), optional reference solution after it.
    Lines,
    /// CSV with a header row naming the puzzle column.
    Csv,
    /// Puzzles drawn as 9 rows of 9 cells (separators `|`, `-`, `+` and spaces allowed), blocks
    /// separated by blank lines or header lines such as `Grid 01` (Project Euler 96).
    Grid,
}

/// How to read records.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Input layout.
    pub format: Format,
    /// CSV puzzle column: a header name or a 1-based field number.
    pub column: Option<String>,
}

/// One input record.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Position of the input file in the run's input list.
    pub file: u32,
    /// 1-based line of the record's start in its file.
    pub line: u64,
    /// What the record holds.
    pub body: Body,
}

/// The content of a record.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// A well-formed puzzle, with the input's reference solution when it has one.
    Puzzle {
        /// The puzzle.
        puzzle: Grid,
        /// The reference answer from the input, if any.
        reference: Option<Grid>,
    },
    /// A malformed record.
    Invalid {
        /// An excerpt of the record's text, for the `puzzle` column.
        text: String,
        /// What is wrong with it.
        message: String,
    },
}

impl Body {
    fn invalid(text: &[u8], message: impl Into<String>) -> Body {
        Body::Invalid {
            text: echo(text),
            message: message.into(),
        }
    }
}

/// The first characters of `text`, lossily decoded, for echoing a bad record.
fn echo(text: &[u8]) -> String {
    let cut = &text[..text.len().min(MAX_ECHO)];
    let mut s = String::from_utf8_lossy(cut).into_owned();
    s.retain(|c| !c.is_control());
    s
}

/// Reads records from a list of inputs in order.
pub struct RecordReader {
    inputs: Vec<Input>,
    options: ReadOptions,
    next_input: usize,
    current: Option<Source>,
    records_in_current: u64,
    bytes_read: Arc<AtomicU64>,
    empty_inputs: Vec<String>,
    preopened: Option<Box<dyn BufRead + Send>>,
    /// Line text for [`RecordReader::next_record`], reused.
    scratch: Vec<u8>,
}

enum Source {
    Lines(LineSource),
    Csv(CsvSource),
    Grid(GridSource),
}

impl RecordReader {
    /// A reader over `inputs`; `bytes_read` is advanced by every raw byte read.
    pub fn new(inputs: Vec<Input>, options: ReadOptions, bytes_read: Arc<AtomicU64>) -> Self {
        RecordReader {
            inputs,
            options,
            next_input: 0,
            current: None,
            records_in_current: 0,
            bytes_read,
            empty_inputs: Vec::new(),
            preopened: None,
            scratch: Vec::new(),
        }
    }

    /// A reader over one already-open byte stream, shown as `-` (standard input); for tests and
    /// fuzzing. Use [`super::decode_bytes`] to read compressed bytes from memory.
    pub fn from_stream(stream: Box<dyn BufRead + Send>, options: ReadOptions) -> Self {
        let mut reader = RecordReader::new(vec![Input::Stdin], options, Arc::default());
        reader.preopened = Some(stream);
        reader
    }

    /// Inputs that held no records, by display name, among those read so far.
    pub fn empty_inputs(&self) -> &[String] {
        &self.empty_inputs
    }

    fn open_next(&mut self) -> Result<bool> {
        let Some(input) = self.inputs.get(self.next_input) else {
            return Ok(false);
        };
        let file = self.next_input as u32;
        self.next_input += 1;
        self.records_in_current = 0;
        let stream = match self.preopened.take() {
            Some(stream) => stream,
            None => input.open(self.bytes_read.clone())?,
        };
        let (stream, format): (Box<dyn BufRead + Send>, Format) = match self.options.format {
            Format::Auto => sniff_format(stream, &input.path())?,
            // Gathered all the same, so `CsvCap` sees a byte order mark whole.
            other => (Box::new(gather_head(stream, &input.path())?), other),
        };
        self.current = Some(match format {
            Format::Csv => Source::Csv(CsvSource::new(
                stream,
                input,
                file,
                self.options.column.as_deref(),
            )?),
            Format::Grid => Source::Grid(GridSource::new(stream, file, input.path())),
            Format::Auto | Format::Lines => Source::Lines(LineSource {
                stream,
                file,
                line: 0,
                path: input.path(),
            }),
        });
        Ok(true)
    }

    /// The next record, or `None` at the end of the last input.
    pub fn next_record(&mut self) -> Result<Option<Record>> {
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        let next = self.next_deferred(&mut text);
        let record = next.map(|found| found.map(|deferred| deferred.parse(&text)));
        self.scratch = text;
        record
    }

    /// The next record, or `None` at the end of the last input; a line of a line file or the
    /// fields of a CSV row come back unparsed, their text appended to `text`
    /// ([`Deferred::parse`] finishes them).
    pub fn next_deferred(&mut self, text: &mut Vec<u8>) -> Result<Option<Deferred>> {
        let parsed = |record: Option<Record>| {
            record.map(|r| Deferred {
                file: r.file,
                line: r.line,
                body: DeferredBody::Parsed(r.body),
            })
        };
        loop {
            if self.current.is_none() && !self.open_next()? {
                return Ok(None);
            }
            let next = match self.current.as_mut() {
                Some(Source::Lines(source)) => source.next_deferred(text)?,
                Some(Source::Csv(source)) => source.next_deferred(text)?,
                Some(Source::Grid(source)) => parsed(source.next_record()?),
                None => None,
            };
            match next {
                Some(record) => {
                    self.records_in_current += 1;
                    return Ok(Some(record));
                }
                None => {
                    self.current = None;
                    if self.records_in_current == 0 {
                        let name = self.inputs[self.next_input - 1].display_name();
                        self.empty_inputs.push(name);
                    }
                }
            }
        }
    }
}

impl Iterator for RecordReader {
    type Item = Result<Record>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// Decides an input's format from its first meaningful line. One read may return only a few
/// bytes (a pipe, a decompressor), so this gathers up to that line first; the returned stream
/// still yields every byte.
pub fn sniff_format(
    stream: Box<dyn BufRead + Send>,
    path: &std::path::Path,
) -> Result<(Box<dyn BufRead + Send>, Format)> {
    let peek = gather_head(stream, path)?;
    let format = detect_format(&peek.head);
    Ok((Box::new(peek), format))
}

/// `stream` with its first meaningful line gathered in one buffer, so the first `fill_buf`
/// sees at least that line whole (a file's byte order mark included), however few bytes each
/// read of the underlying stream returns.
fn gather_head(stream: Box<dyn BufRead + Send>, path: &std::path::Path) -> Result<Peek> {
    let mut peek = Peek::new(stream);
    peek.head(MAX_LINE).map_err(|cause| Error::Read {
        path: path.to_path_buf(),
        cause,
    })?;
    Ok(peek)
}

/// A stream whose start can be looked at before it is read: [`Peek::head`] gathers bytes up to
/// the end of the first meaningful line (neither blank nor a `#` comment), however few bytes each
/// read of the underlying stream returns.
struct Peek {
    inner: Box<dyn BufRead + Send>,
    head: Vec<u8>,
    pos: usize,
}

impl Peek {
    fn new(inner: Box<dyn BufRead + Send>) -> Self {
        Peek {
            inner,
            head: Vec::new(),
            pos: 0,
        }
    }

    /// The first bytes of the stream: at least through its first meaningful line, or `limit`
    /// bytes, or all of it if it is shorter.
    fn head(&mut self, limit: usize) -> std::io::Result<&[u8]> {
        while self.head.len() < limit && !has_meaningful_line(&self.head) {
            let bytes = match self.inner.fill_buf() {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if bytes.is_empty() {
                break;
            }
            let take = bytes.len().min(limit - self.head.len());
            self.head.extend_from_slice(&bytes[..take]);
            self.inner.consume(take);
        }
        Ok(&self.head)
    }
}

/// Whether `head` holds a complete line that is neither blank nor a `#` comment.
fn has_meaningful_line(head: &[u8]) -> bool {
    let complete = match head.iter().rposition(|&b| b == b'\n') {
        Some(end) => &head[..end],
        None => return false,
    };
    complete.split(|&b| b == b'\n').any(|line| {
        let line = line.trim_ascii();
        !line.is_empty() && !line.starts_with(b"#")
    })
}

impl Read for Peek {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Peek {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos < self.head.len() {
            Ok(&self.head[self.pos..])
        } else {
            self.inner.fill_buf()
        }
    }

    fn consume(&mut self, amount: usize) {
        if self.pos < self.head.len() {
            self.pos = (self.pos + amount).min(self.head.len());
            if self.pos == self.head.len() {
                // The head is read: free it.
                self.head = Vec::new();
                self.pos = 0;
            }
        } else {
            self.inner.consume(amount);
        }
    }
}

/// Decides between lines, CSV and grids from the start of an input: CSV when the first
/// meaningful line has a comma and no puzzle-length token (a header such as
/// `quizzes,solutions`); grid when it is a `Grid ...` header, a border line of `-`/`+`/`|`, or
/// a row of exactly 9 cells; lines otherwise.
pub fn detect_format(head: &[u8]) -> Format {
    let first = head
        .split(|&b| b == b'\n')
        .map(|line| line.trim_ascii())
        .find(|line| !line.is_empty() && !line.starts_with(b"#"));
    match first {
        Some(line) if is_grid_header(line) => Format::Grid,
        Some(line)
            if long_tokens(line).next().is_none()
                && (line.contains(&b',') || is_puzzle_header(line)) =>
        {
            Format::Csv
        }
        Some(line) if !line.contains(&b',') && is_grid_border_or_row(line) => Format::Grid,
        _ => Format::Lines,
    }
}

/// A one-column CSV header such as `puzzle`.
fn is_puzzle_header(line: &[u8]) -> bool {
    let name = String::from_utf8_lossy(line);
    let name = name.trim().trim_start_matches('\u{feff}').trim_matches('"');
    PUZZLE_COLUMNS.iter().any(|c| c.eq_ignore_ascii_case(name))
}

/// `Grid 01`, `grid`, `GRID: 7`: the header Project Euler 96 puts before each puzzle.
fn is_grid_header(line: &[u8]) -> bool {
    line.len() >= 4
        && line[..4].eq_ignore_ascii_case(b"grid")
        && line.get(4).is_none_or(|b| !b.is_ascii_alphabetic())
}

/// A separator line (only `|`, `-`, `+`, spaces, with at least one `-` or `+`) or a row with
/// exactly 9 cells.
fn is_grid_border_or_row(line: &[u8]) -> bool {
    let cells = grid_cells(line);
    let border = cells.is_empty() && line.iter().any(|&b| b == b'-' || b == b'+');
    border || (cells.len() == 9 && cells.iter().all(|&b| cell_value(b).is_some()))
}

/// The cells of one grid row: the line without its separators.
fn grid_cells(line: &[u8]) -> Vec<u8> {
    line.iter()
        .copied()
        .filter(|&b| !(b.is_ascii_whitespace() || matches!(b, b'|' | b'-' | b'+')))
        .collect()
}

fn is_separator(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b',' | b':' | b';' | b'|')
}

fn tokens(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|&b| is_separator(b)).filter(|t| !t.is_empty())
}

fn long_tokens(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    tokens(line).filter(|t| t.len() >= MIN_PUZZLE_TOKEN)
}

/// Parses one line of a line file: `None` for a blank or `#` line, otherwise the record body.
///
/// The puzzle is the first token of 40 or more characters (tokens are separated by whitespace,
/// `,`, `:`, `;` or `|`), so a leading id and trailing ratings are allowed. A second such token
/// of 81 digits is taken as the reference solution.
pub fn parse_line(line: &[u8]) -> Option<Body> {
    if is_skipped_line(line) {
        return None;
    }
    let line = line.trim_ascii();
    let mut long = long_tokens(line);
    let Some(token) = long.next() else {
        // No puzzle-length token: report the longest one.
        let longest = tokens(line).max_by_key(|t| t.len()).unwrap_or(line);
        return Some(match Grid::from_bytes(longest) {
            Err(e) => Body::invalid(line, e.to_string()),
            Ok(_) => Body::invalid(line, "no puzzle found"),
        });
    };
    let puzzle = match Grid::from_bytes(token) {
        Ok(grid) => grid,
        Err(e) => return Some(Body::invalid(token, e.to_string())),
    };
    let reference = long
        .next()
        .and_then(|t| Grid::from_bytes(t).ok())
        .filter(|grid| grid.is_complete());
    Some(Body::Puzzle { puzzle, reference })
}

/// Whether a line of a line file holds no record: blank, or a `#` comment.
fn is_skipped_line(line: &[u8]) -> bool {
    let line = line.trim_ascii_start();
    line.is_empty() || line[0] == b'#'
}

struct LineSource {
    stream: Box<dyn BufRead + Send>,
    file: u32,
    line: u64,
    path: std::path::PathBuf,
}

impl LineSource {
    /// The next record, its line appended to `text` unparsed (blank and comment lines are
    /// skipped here; an overlong line comes back as its `invalid` body).
    fn next_deferred(&mut self, text: &mut Vec<u8>) -> Result<Option<Deferred>> {
        loop {
            let start = text.len();
            let Some(overlong) = append_line_bounded(&mut *self.stream, text, start + MAX_LINE)
                .map_err(|source| Error::Read {
                    path: self.path.clone(),
                    cause: source,
                })?
            else {
                return Ok(None);
            };
            self.line += 1;
            let line = &text[start..];
            let body = if overlong {
                let body = Body::invalid(line, format!("line longer than {MAX_LINE} bytes"));
                text.truncate(start);
                DeferredBody::Parsed(body)
            } else if is_skipped_line(line) {
                text.truncate(start);
                continue;
            } else {
                DeferredBody::Line(start..text.len())
            };
            return Ok(Some(Deferred {
                file: self.file,
                line: self.line,
                body,
            }));
        }
    }
}

/// A record whose parsing may still be ahead: a line of a line file, or a CSV row's puzzle and
/// solution fields, are handed on as text, so that the solver threads parse them rather than
/// the one thread that reads (parsing on the reader capped how well `solve` scales with
/// threads).
#[derive(Debug, Clone, PartialEq)]
pub struct Deferred {
    /// Position of the input file in the run's input list.
    pub file: u32,
    /// 1-based line of the record's start in its file.
    pub line: u64,
    body: DeferredBody,
}

#[derive(Debug, Clone, PartialEq)]
enum DeferredBody {
    Parsed(Body),
    /// The byte range of the line in the text buffer it was read into.
    Line(std::ops::Range<usize>),
    /// A CSV row (the byte range of the whole record), with its puzzle and solution columns.
    CsvRow {
        range: std::ops::Range<usize>,
        puzzle: u32,
        solution: Option<u32>,
    },
}

impl Deferred {
    /// The record, parsing its line out of `text`, the buffer [`RecordReader::next_deferred`]
    /// appended it to.
    pub fn parse(self, text: &[u8]) -> Record {
        // Only a `text` other than the one the record was read into can lack its range.
        let lost = || Body::invalid(b"", "internal error: record text lost");
        let body = match self.body {
            DeferredBody::Parsed(body) => body,
            DeferredBody::Line(range) => text.get(range).and_then(parse_line).unwrap_or_else(lost),
            DeferredBody::CsvRow {
                range,
                puzzle,
                solution,
            } => match text.get(range) {
                None => lost(),
                Some(row) => with_csv_fields(row, |row| match row.get(puzzle as usize) {
                    None => lost(),
                    Some(field) => {
                        parse_csv_fields(field, solution.and_then(|c| row.get(c as usize)))
                    }
                }),
            },
        };
        Record {
            file: self.file,
            line: self.line,
            body,
        }
    }
}

/// Reads one line (without its `\n`) into `buf`, keeping at most `limit` bytes and skipping the
/// rest. Returns `None` at end of input, otherwise whether the line was longer than `limit`.
pub fn read_line_bounded(
    stream: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Option<bool>> {
    buf.clear();
    append_line_bounded(stream, buf, limit)
}

/// Appends one line (without its `\n`) to `buf`, letting `buf` grow to at most `limit` bytes
/// and skipping the rest of the line. Returns `None` at end of input (nothing appended),
/// otherwise whether the line did not fit.
fn append_line_bounded(
    stream: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Option<bool>> {
    let mut seen_any = false;
    let mut overlong = false;
    loop {
        let available = match stream.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(seen_any.then_some(overlong));
        }
        seen_any = true;
        let (chunk, used, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        let room = limit.saturating_sub(buf.len());
        if chunk.len() > room {
            overlong = true;
        }
        buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
        stream.consume(used);
        if done {
            return Ok(Some(overlong));
        }
    }
}

/// Reads puzzles drawn as 9 rows of 9 cells.
///
/// A row is a line whose cells remain after removing `|`, `-`, `+` and whitespace; a line left
/// with no cells is a border and is skipped. A line starting with a letter or `#` (such as
/// `Grid 01`) is a header; it and blank lines end an incomplete block. Nine rows make a block,
/// whose record line is the block's first line (its header, when it has one). A block with a
/// row of the wrong width, or cut short, is one `invalid` record.
struct GridSource {
    stream: Box<dyn BufRead + Send>,
    file: u32,
    line: u64,
    buf: Vec<u8>,
    path: std::path::PathBuf,
    /// First line of the block being read.
    start: Option<u64>,
    /// Rows read in this block.
    rows: usize,
    /// Cells of this block so far (at most 81 kept).
    cells: Vec<u8>,
    /// The first problem found in this block.
    problem: Option<String>,
}

impl GridSource {
    fn new(stream: Box<dyn BufRead + Send>, file: u32, path: std::path::PathBuf) -> Self {
        GridSource {
            stream,
            file,
            line: 0,
            buf: Vec::new(),
            path,
            start: None,
            rows: 0,
            cells: Vec::with_capacity(81),
            problem: None,
        }
    }

    /// Ends the current block as a record and resets the state for the next one.
    fn take_block(&mut self, cut_short: bool) -> Record {
        let line = self.start.unwrap_or(self.line);
        let problem = self
            .problem
            .take()
            .or_else(|| cut_short.then(|| format!("grid block has {} of 9 rows", self.rows)));
        let body = match problem {
            Some(message) => Body::invalid(&self.cells, message),
            None => match Grid::from_bytes(&self.cells) {
                Ok(puzzle) => Body::Puzzle {
                    puzzle,
                    reference: None,
                },
                Err(e) => Body::invalid(&self.cells, e.to_string()),
            },
        };
        self.start = None;
        self.rows = 0;
        self.cells.clear();
        Record {
            file: self.file,
            line,
            body,
        }
    }

    fn next_record(&mut self) -> Result<Option<Record>> {
        loop {
            let Some(overlong) = read_line_bounded(&mut *self.stream, &mut self.buf, MAX_LINE)
                .map_err(|source| Error::Read {
                    path: self.path.clone(),
                    cause: source,
                })?
            else {
                return Ok((self.rows > 0).then(|| self.take_block(true)));
            };
            self.line += 1;
            let text = self.buf.trim_ascii();
            if text.is_empty() {
                if self.rows > 0 {
                    return Ok(Some(self.take_block(true)));
                }
                self.start = None;
                continue;
            }
            if text[0].is_ascii_alphabetic() || text[0] == b'#' {
                let record = (self.rows > 0).then(|| self.take_block(true));
                self.start = Some(self.line);
                match record {
                    Some(record) => return Ok(Some(record)),
                    None => continue,
                }
            }
            let cells = grid_cells(text);
            self.start.get_or_insert(self.line);
            if cells.is_empty() && !overlong {
                continue; // a border line
            }
            self.rows += 1;
            if self.problem.is_none() && (overlong || cells.len() != 9) {
                self.problem = Some(if overlong {
                    format!(
                        "grid row at line {} is longer than {MAX_LINE} bytes",
                        self.line
                    )
                } else {
                    format!(
                        "grid row at line {} has {} cells; expected 9",
                        self.line,
                        cells.len()
                    )
                });
            }
            let room = 81usize.saturating_sub(self.cells.len());
            self.cells
                .extend_from_slice(&cells[..cells.len().min(room)]);
            if self.rows == 9 {
                return Ok(Some(self.take_block(false)));
            }
        }
    }
}

/// Where the CSV quote rules put a byte (as the `csv` crate reads them: a quote opens a quoted
/// field only at the start of a field; `""` inside quotes is a quote).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CsvState {
    FieldStart,
    Unquoted,
    Quoted,
    QuoteInQuoted,
}

impl CsvState {
    /// The state after `byte`, and whether `byte` ends a record (`\n` or `\r` outside quotes).
    fn step(self, byte: u8) -> (CsvState, bool) {
        use CsvState::*;
        match (self, byte) {
            (Quoted, b'"') => (QuoteInQuoted, false),
            (Quoted, _) => (Quoted, false),
            (QuoteInQuoted, b'"') => (Quoted, false),
            (FieldStart, b'"') => (Quoted, false),
            (_, b',') => (FieldStart, false),
            (_, b'\n' | b'\r') => (FieldStart, true),
            _ => (Unquoted, false),
        }
    }
}

/// Passes CSV bytes on to [`CsvSplitter`], cutting every record to `limit` bytes so no record
/// longer than that is ever held, however long it is in the input; and notes where each record
/// starts, with its true line number.
///
/// The rest of a cut record is skipped up to its end (found with the same quote rules as the
/// `csv` parser), and a quote is added if the cut fell inside a quoted field. Offsets are
/// counted in the bytes passed on: `cuts` holds those where records were cut, `starts` the
/// start of each record and its line.
struct CsvCap<R> {
    inner: R,
    limit: usize,
    state: CsvState,
    record_len: usize,
    cutting: bool,
    close_quote: bool,
    /// Bytes to pass on before more input: a closing quote, then the record's end.
    pending_quote: bool,
    pending_end: Option<u8>,
    /// Bytes passed on so far.
    passed: u64,
    /// The 1-based line of the next input byte.
    line: u64,
    cuts: VecDeque<u64>,
    starts: VecDeque<(u64, u64)>,
    /// Copy runs of plain bytes at once (off only in tests, as the byte-by-byte reference).
    runs: bool,
    /// Whether the start of the stream was checked for a byte order mark.
    bom_checked: bool,
}

impl<R: BufRead> CsvCap<R> {
    fn new(inner: R, limit: usize) -> Self {
        CsvCap {
            inner,
            limit,
            state: CsvState::FieldStart,
            record_len: 0,
            cutting: false,
            close_quote: false,
            pending_quote: false,
            pending_end: None,
            passed: 0,
            line: 1,
            cuts: VecDeque::new(),
            starts: VecDeque::new(),
            runs: true,
            bom_checked: false,
        }
    }

    /// Ends a cut: queue the closing quote and the record's end.
    fn end_cut(&mut self, end: Option<u8>) {
        self.cutting = false;
        self.pending_quote = self.close_quote;
        self.pending_end = end;
        self.record_len = 0;
    }

    /// Copies queued bytes into `out`; returns how many.
    fn drain_pending(&mut self, out: &mut [u8]) -> usize {
        let mut n = 0;
        while n < out.len() {
            if self.pending_quote {
                self.pending_quote = false;
                out[n] = b'"';
            } else if let Some(end) = self.pending_end.take() {
                out[n] = end;
            } else {
                break;
            }
            n += 1;
        }
        self.passed += n as u64;
        n
    }

    /// Forgets what lies before `offset`; then whether a record in `offset..end` was cut, and
    /// the line where it starts.
    fn record_at(&mut self, offset: u64, end: u64) -> (bool, Option<u64>) {
        while self.cuts.front().is_some_and(|&cut| cut < offset) {
            self.cuts.pop_front();
        }
        while self
            .starts
            .front()
            .is_some_and(|&(start, _)| start < offset)
        {
            self.starts.pop_front();
        }
        // `<=`: a record cut outside quotes at the end of the input ends at its cut.
        let cut = self.cuts.front().is_some_and(|&cut| cut <= end);
        let line = self
            .starts
            .front()
            .filter(|&&(start, _)| start < end)
            .map(|&(_, line)| line);
        (cut, line)
    }
}

impl<R: BufRead> Read for CsvCap<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        loop {
            let n = self.drain_pending(out);
            if n > 0 {
                return Ok(n);
            }
            let input = match self.inner.fill_buf() {
                Ok(input) => input,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if !self.bom_checked {
                // A byte order mark opens the file, not its first field (as for the `csv`
                // reader). `open_next` has buffered the first line (`gather_head`), so a BOM is
                // whole here.
                self.bom_checked = true;
                if input.starts_with(BOM) {
                    self.inner.consume(BOM.len());
                    continue;
                }
            }
            if input.is_empty() {
                if self.cutting {
                    self.end_cut(None);
                    continue;
                }
                return Ok(0);
            }
            let mut used = 0;
            let mut written = 0;
            while used < input.len() && written < out.len() {
                if self.runs
                    && !self.cutting
                    && self.record_len > 0
                    && self.state != CsvState::Quoted
                {
                    // Inside a record, outside quotes: bytes other than a quote or a line end
                    // change nothing but the field state, so a run of them is copied at once.
                    let rest = &input[used..];
                    let max = rest
                        .len()
                        .min(out.len() - written)
                        .min(self.limit - self.record_len);
                    let run = memchr::memchr3(b'"', b'\n', b'\r', &rest[..max]).unwrap_or(max);
                    if run > 0 {
                        out[written..written + run].copy_from_slice(&rest[..run]);
                        self.state = match rest[run - 1] {
                            b',' => CsvState::FieldStart,
                            _ => CsvState::Unquoted,
                        };
                        self.record_len += run;
                        used += run;
                        written += run;
                        continue;
                    }
                }
                let byte = input[used];
                used += 1;
                let before = self.state;
                let (after, ends_record) = before.step(byte);
                self.state = after;
                let line = self.line;
                self.line += u64::from(byte == b'\n');
                if self.cutting {
                    if ends_record {
                        self.end_cut(Some(byte));
                        break;
                    }
                    continue;
                }
                if ends_record {
                    self.record_len = 0;
                } else {
                    if self.record_len == 0 {
                        self.starts.push_back((self.passed + written as u64, line));
                    }
                    self.record_len += 1;
                    if self.record_len > self.limit {
                        self.cutting = true;
                        self.close_quote = before == CsvState::Quoted;
                        self.cuts.push_back(self.passed + written as u64);
                        continue;
                    }
                }
                out[written] = byte;
                written += 1;
            }
            self.inner.consume(used);
            self.passed += written as u64;
            if written > 0 {
                return Ok(written);
            }
        }
    }
}

struct CsvSource {
    records: CsvSplitter<Box<dyn BufRead + Send>>,
    file: u32,
    puzzle_column: usize,
    solution_column: Option<usize>,
    puzzle_name: String,
    path: std::path::PathBuf,
}

impl CsvSource {
    fn new(
        stream: Box<dyn BufRead + Send>,
        input: &Input,
        file: u32,
        column: Option<&str>,
    ) -> Result<Self> {
        let path = input.path();
        let mut records = CsvSplitter::new(CsvCap::new(stream, MAX_LINE));
        let mut header_text = Vec::new();
        let header = match records
            .next(&mut header_text)
            .map_err(|source| Error::Read {
                path: path.clone(),
                cause: source,
            })? {
            None => Vec::new(),
            Some(raw) => {
                if records.record_at(raw).0 {
                    return Err(Error::Input {
                        path,
                        message: format!("the CSV header is longer than {MAX_LINE} bytes"),
                    });
                }
                csv_fields(&header_text)
            }
        };
        let header: Vec<String> = header
            .iter()
            .map(|field| {
                String::from_utf8_lossy(field)
                    .trim()
                    .trim_start_matches('\u{feff}')
                    .to_string()
            })
            .collect();
        let find = |names: &[&str]| {
            header
                .iter()
                .position(|h| names.iter().any(|n| h.eq_ignore_ascii_case(n)))
        };
        let puzzle_column = match column {
            Some(wanted) => header
                .iter()
                .position(|h| h.eq_ignore_ascii_case(wanted))
                .or_else(|| {
                    wanted
                        .parse::<usize>()
                        .ok()
                        .filter(|&n| n >= 1 && n <= header.len())
                        .map(|n| n - 1)
                })
                .ok_or_else(|| Error::Input {
                    path: path.clone(),
                    message: format!(
                        "no column {wanted:?} in the CSV header ({})",
                        show_header(&header)
                    ),
                })?,
            None => find(PUZZLE_COLUMNS).ok_or_else(|| Error::Input {
                path: path.clone(),
                message: format!(
                    "no puzzle column in the CSV header ({}); name one with --column",
                    show_header(&header)
                ),
            })?,
        };
        let solution_column = find(SOLUTION_COLUMNS).filter(|&c| c != puzzle_column);
        Ok(CsvSource {
            records,
            file,
            puzzle_column,
            solution_column,
            puzzle_name: header[puzzle_column].clone(),
            path,
        })
    }

    /// The next record; a well-formed row is appended to `text` whole, for [`Deferred::parse`]
    /// (the solver threads split its fields and parse them).
    fn next_deferred(&mut self, text: &mut Vec<u8>) -> Result<Option<Deferred>> {
        let start = text.len();
        let Some(raw) = self.records.next(text).map_err(|source| Error::Read {
            path: self.path.clone(),
            cause: source,
        })?
        else {
            return Ok(None);
        };
        let (cut, line) = self.records.record_at(raw);
        let body = if cut || raw.fields <= self.puzzle_column {
            // Parsed here: the message needs the row's fields.
            let row = csv_fields(&text[start..]);
            text.truncate(start);
            let body = match row.get(self.puzzle_column) {
                Some(field) if cut => {
                    Body::invalid(field, format!("record longer than {MAX_LINE} bytes"))
                }
                None if cut => Body::invalid(b"", format!("record longer than {MAX_LINE} bytes")),
                _ => Body::invalid(
                    &row.join(&b',')[..],
                    format!(
                        "row has {} field(s); the puzzle column {:?} is field {}",
                        row.len(),
                        self.puzzle_name,
                        self.puzzle_column + 1
                    ),
                ),
            };
            DeferredBody::Parsed(body)
        } else {
            DeferredBody::CsvRow {
                range: start..text.len(),
                puzzle: self.puzzle_column as u32,
                // A row too short for the solution column has none: `CsvRow::get` says so.
                solution: self.solution_column.map(|c| c as u32),
            }
        };
        Ok(Some(Deferred {
            file: self.file,
            line,
            body,
        }))
    }
}

/// Where a record cut out by [`CsvSplitter`] lies in the bytes [`CsvCap`] passed on, and how
/// many fields it has.
#[derive(Debug, Clone, Copy)]
struct RawRecord {
    start: u64,
    end: u64,
    fields: usize,
}

/// Cuts CSV records out of the capped stream by the parser's quote rules, without parsing
/// their fields: the solver threads do that ([`csv_fields`]), so the reading thread stays
/// cheap (the whole `csv` parse there was the bound of `solve` on CSV input). Empty records
/// (blank lines) are skipped, as the parser skips them.
struct CsvSplitter<R> {
    input: std::io::BufReader<CsvCap<R>>,
    state: CsvState,
    /// Offset of the next byte in the bytes `CsvCap` passed on.
    offset: u64,
}

impl<R: BufRead> CsvSplitter<R> {
    fn new(cap: CsvCap<R>) -> Self {
        CsvSplitter {
            input: std::io::BufReader::with_capacity(64 * 1024, cap),
            state: CsvState::FieldStart,
            offset: 0,
        }
    }

    /// Whether a record was cut short, and the line where it starts.
    fn record_at(&mut self, raw: RawRecord) -> (bool, u64) {
        let (cut, line) = self.input.get_mut().record_at(raw.start, raw.end);
        (cut, line.unwrap_or(0))
    }

    /// Appends the next record's bytes (without its line end) to `out`.
    fn next(&mut self, out: &mut Vec<u8>) -> std::io::Result<Option<RawRecord>> {
        let mut start = None;
        let mut fields = 1;
        loop {
            let buf = match self.input.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                self.state = CsvState::FieldStart;
                return Ok(start.map(|start| RawRecord {
                    start,
                    end: self.offset,
                    fields,
                }));
            }
            let mut i = 0;
            let mut ended = false;
            // Where this buffer's part of the record begins.
            let mut from = None;
            while i < buf.len() {
                if self.state != CsvState::Quoted {
                    // Outside quotes only a quote or a line end matters; commas count fields.
                    let run =
                        memchr::memchr3(b'"', b'\n', b'\r', &buf[i..]).unwrap_or(buf.len() - i);
                    if run > 0 {
                        let bytes = &buf[i..i + run];
                        fields += memchr::memchr_iter(b',', bytes).count();
                        self.state = match bytes[run - 1] {
                            b',' => CsvState::FieldStart,
                            _ => CsvState::Unquoted,
                        };
                        from.get_or_insert(i);
                        start.get_or_insert(self.offset + i as u64);
                        i += run;
                        continue;
                    }
                }
                let (after, ends_record) = self.state.step(buf[i]);
                self.state = after;
                if ends_record {
                    if start.is_some() {
                        ended = true;
                        break;
                    }
                    i += 1; // an empty record
                    continue;
                }
                from.get_or_insert(i);
                start.get_or_insert(self.offset + i as u64);
                i += 1;
            }
            if let Some(from) = from {
                out.extend_from_slice(&buf[from..i]);
            }
            if ended {
                i += 1; // the line end
            }
            self.input.consume(i);
            self.offset += i as u64;
            if ended {
                return Ok(start.map(|start| RawRecord {
                    start,
                    end: self.offset,
                    fields,
                }));
            }
        }
    }
}

/// The fields of one CSV record (without its line end), by the `csv` parser's rules.
fn csv_fields(record: &[u8]) -> Vec<Vec<u8>> {
    with_csv_fields(record, |row| {
        (0..row.len())
            .filter_map(|i| row.get(i))
            .map(<[u8]>::to_vec)
            .collect()
    })
}

/// One parsed CSV record: the unquoted fields back to back, and where each ends.
struct CsvRow<'a> {
    fields: &'a [u8],
    ends: &'a [usize],
}

impl CsvRow<'_> {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> Option<&[u8]> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.fields.get(start..end)
    }
}

thread_local! {
    /// Each thread's CSV field parser and its buffers, reused from row to row.
    static CSV_PARSER: std::cell::RefCell<(csv_core::Reader, Vec<u8>, Vec<usize>)> =
        std::cell::RefCell::new((csv_core::Reader::new(), Vec::new(), Vec::new()));
}

/// Parses one CSV record (without its line end) with `csv_core`, as the `csv` reader would,
/// and hands its fields to `f`.
fn with_csv_fields<T>(record: &[u8], f: impl FnOnce(&CsvRow) -> T) -> T {
    use csv_core::ReadRecordResult as Step;
    CSV_PARSER.with(|cell| {
        let (parser, output, ends) = &mut *cell.borrow_mut();
        parser.reset();
        // Unquoting never makes a field longer, so the record's length suffices. The buffer
        // only grows: shrinking it would rewrite zeros on the next longer row.
        if output.len() < record.len().max(1) {
            output.resize(record.len().max(1), 0);
        }
        ends.resize(ends.len().max(16), 0);
        // After `reset`, csv_core drops a UTF-8 BOM at the start of its first input, as at the
        // start of a file. A file's BOM never gets here (`CsvCap` skips it); one starting a row
        // is data, as for the `csv` reader, so its first byte goes in alone (too short to strip).
        let first = if record.starts_with(BOM) {
            1
        } else {
            record.len()
        };
        let (mut input, mut rest) = record.split_at(first);
        let (mut written, mut ended) = (0, 0);
        loop {
            let (step, read, out, end) =
                parser.read_record(input, &mut output[written..], &mut ends[ended..]);
            input = &input[read..];
            written += out;
            ended += end;
            match step {
                // Input used up: the rest, then nothing, which ends the record.
                Step::InputEmpty => {
                    if input.is_empty() {
                        input = std::mem::take(&mut rest);
                    }
                }
                Step::OutputFull => output.resize(output.len() * 2, 0),
                Step::OutputEndsFull => ends.resize(ends.len() * 2, 0),
                Step::Record | Step::End => break,
            }
        }
        f(&CsvRow {
            fields: &output[..written],
            ends: &ends[..ended],
        })
    })
}

/// The body of a CSV row from its puzzle field and, when the file has that column, its
/// reference solution field.
fn parse_csv_fields(field: &[u8], solution: Option<&[u8]>) -> Body {
    let field = field.trim_ascii();
    let puzzle = match Grid::from_bytes(field) {
        Ok(grid) => grid,
        Err(e) => return Body::invalid(field, e.to_string()),
    };
    let reference = match solution.map(<[u8]>::trim_ascii) {
        None | Some(b"") => None,
        Some(text) => match Grid::from_bytes(text) {
            Ok(grid) if grid.is_complete() => Some(grid),
            Ok(grid) => {
                let blanks = 81 - grid.clue_count();
                return Body::invalid(
                    field,
                    format!("reference solution has {blanks} blank cells"),
                );
            }
            Err(e) => return Body::invalid(field, format!("reference solution: {e}")),
        },
    };
    Body::Puzzle { puzzle, reference }
}

/// The header for messages: its first 20 names, and how many more there are.
fn show_header(header: &[String]) -> String {
    let mut shown: Vec<String> = header.iter().take(20).map(|h| echo(h.as_bytes())).collect();
    if header.len() > 20 {
        shown.push(format!("... {} more", header.len() - 20));
    }
    shown.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str =
        "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........";
    const S: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    fn puzzle(body: Option<Body>) -> (Grid, Option<Grid>) {
        match body {
            Some(Body::Puzzle { puzzle, reference }) => (puzzle, reference),
            other => panic!("expected a puzzle, got {other:?}"),
        }
    }

    fn message(body: Option<Body>) -> String {
        match body {
            Some(Body::Invalid { message, .. }) => message,
            other => panic!("expected invalid, got {other:?}"),
        }
    }

    #[test]
    fn line_forms() {
        let p: Grid = P.parse().unwrap();
        let s: Grid = S.parse().unwrap();
        assert_eq!(puzzle(parse_line(P.as_bytes())), (p, None));
        assert_eq!(puzzle(parse_line(format!("{P}\r").as_bytes())), (p, None));
        assert_eq!(
            puzzle(parse_line(format!("00015097c6c3 {P}  7.2").as_bytes())),
            (p, None)
        );
        assert_eq!(
            puzzle(parse_line(format!("{P}:1:{S}").as_bytes())),
            (p, Some(s))
        );
        assert_eq!(
            puzzle(parse_line(format!("{P},{S}").as_bytes())),
            (p, Some(s))
        );
        assert_eq!(
            puzzle(parse_line(format!("{P}  11.9 11.9 09.9").as_bytes())),
            (p, None)
        );
        assert_eq!(
            puzzle(parse_line(format!("{P},name;extra").as_bytes())),
            (p, None)
        );
        assert_eq!(parse_line(b"# comment"), None);
        assert_eq!(parse_line(b"   \r"), None);
    }

    #[test]
    fn bad_lines_say_why() {
        assert_eq!(
            message(parse_line(&P.as_bytes()[..80])),
            "expected 81 cells, found 80"
        );
        assert_eq!(message(parse_line(b"12 34")), "expected 81 cells, found 2");
        let stray = format!("x{}", &P[1..]);
        assert!(
            message(parse_line(stray.as_bytes())).starts_with("invalid character 'x' at cell 1")
        );
        let junk = [0xffu8; 81];
        assert!(message(parse_line(&junk)).contains("invalid character"));
    }

    #[test]
    fn detects_formats() {
        assert_eq!(detect_format(b"quizzes,solutions\n0043,123\n"), Format::Csv);
        assert_eq!(
            detect_format(b"id,puzzle,solution,clues,difficulty\n"),
            Format::Csv
        );
        assert_eq!(
            detect_format(format!("# c\n\n{P}\n").as_bytes()),
            Format::Lines
        );
        assert_eq!(
            detect_format(format!("{P},{S}\n").as_bytes()),
            Format::Lines
        );
        assert_eq!(detect_format(b""), Format::Lines);
        assert_eq!(detect_format(b"Puzzle\r\n..."), Format::Csv);
        assert_eq!(detect_format(b"hello\n"), Format::Lines);
    }

    #[test]
    fn bounded_lines() {
        let text = format!("{}\nab\r\nlast", "y".repeat(100));
        let mut stream = std::io::Cursor::new(text.into_bytes());
        let mut buf = Vec::new();
        assert_eq!(
            read_line_bounded(&mut stream, &mut buf, 10).unwrap(),
            Some(true)
        );
        assert_eq!(buf, b"yyyyyyyyyy");
        assert_eq!(
            read_line_bounded(&mut stream, &mut buf, 10).unwrap(),
            Some(false)
        );
        assert_eq!(buf, b"ab\r");
        assert_eq!(
            read_line_bounded(&mut stream, &mut buf, 10).unwrap(),
            Some(false)
        );
        assert_eq!(buf, b"last");
        assert_eq!(read_line_bounded(&mut stream, &mut buf, 10).unwrap(), None);
    }

    fn read_all(bytes: &[u8], format: Format) -> Vec<Record> {
        let options = ReadOptions {
            format,
            column: None,
        };
        RecordReader::from_stream(Box::new(std::io::Cursor::new(bytes.to_vec())), options)
            .collect::<Result<Vec<_>>>()
            .unwrap()
    }

    #[test]
    fn csv_rows_are_the_csv_crate_rows() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        // Whole puzzles and solutions among CSV punctuation, so rows are both good and bad.
        let token = proptest::sample::select(vec![
            P, S, ",", ",", "\"", "\n", "\r", "x", " ", "\"\"", "\u{feff}",
        ]);
        let case = (
            proptest::collection::vec(token, 0..40),
            any::<bool>(),
            any::<bool>(),
        );
        TestRunner::new(Config::with_cases(1000))
            .run(&case, |(tokens, id, bom)| {
                // With an id column first, short rows lack the puzzle field.
                let column = usize::from(id);
                let header = if id {
                    "id,puzzle,solution"
                } else {
                    "puzzle,solution"
                };
                // A byte order mark opens some files (and, as data, may start any row).
                let bom = if bom { "\u{feff}" } else { "" };
                let text = format!("{bom}{header}\n{}", tokens.concat());
                let got: Vec<Body> = read_all(text.as_bytes(), Format::Csv)
                    .into_iter()
                    .map(|r| r.body)
                    .collect();
                let mut oracle = csv::ReaderBuilder::new()
                    .flexible(true)
                    .has_headers(true)
                    .from_reader(text.as_bytes());
                let expected: Vec<Body> = oracle
                    .byte_records()
                    .map(|row| {
                        let row = row.unwrap();
                        match row.get(column) {
                            Some(field) => parse_csv_fields(field, row.get(column + 1)),
                            None => Body::invalid(
                                &row.iter().collect::<Vec<_>>().join(&b','),
                                format!(
                                    "row has {} field(s); the puzzle column \"puzzle\" is field 2",
                                    row.len()
                                ),
                            ),
                        }
                    })
                    .collect();
                prop_assert_eq!(got, expected, "{:?}", text);
                Ok(())
            })
            .unwrap();
    }

    /// Every record of `text` through `next_deferred`, into one buffer as a chunk of the solve
    /// pipeline holds them, then parsed: the buffer and the records.
    fn read_deferred(text: &str, format: Format) -> (Vec<u8>, Vec<Record>) {
        let options = ReadOptions {
            format,
            column: None,
        };
        let mut reader =
            RecordReader::from_stream(Box::new(std::io::Cursor::new(text.to_owned())), options);
        let mut buffer = Vec::new();
        let mut deferred = Vec::new();
        while let Some(record) = reader.next_deferred(&mut buffer).unwrap() {
            deferred.push(record);
        }
        let records = deferred.into_iter().map(|d| d.parse(&buffer)).collect();
        (buffer, records)
    }

    #[test]
    fn deferred_csv_rows_parse_with_their_reference() {
        let blanks = S.replacen('5', ".", 1).replacen('3', "0", 1);
        let bad = S.replacen('5', "x", 1);
        let text = format!(
            "id,puzzle,solution\n1,{P},{S}\n2, {P} ,\n3,{P},{blanks}\n4,{P},{bad}\n5,{P}x,{S}\n6\n7,{P}\n"
        );
        let (_, records) = read_deferred(&text, Format::Csv);
        assert_eq!(records, read_all(text.as_bytes(), Format::Csv));
        let lines: Vec<u64> = records.iter().map(|r| r.line).collect();
        assert_eq!(lines, [2, 3, 4, 5, 6, 7, 8]);
        let bodies: Vec<Option<Body>> = records.into_iter().map(|r| Some(r.body)).collect();
        let [good, no_reference, with_blanks, bad_reference, bad_puzzle, short, no_solution] =
            <[Option<Body>; 7]>::try_from(bodies).unwrap();
        assert_eq!(puzzle(good), (P.parse().unwrap(), Some(S.parse().unwrap())));
        assert_eq!(puzzle(no_reference), (P.parse().unwrap(), None));
        assert_eq!(message(with_blanks), "reference solution has 2 blank cells");
        assert!(message(bad_reference).starts_with("reference solution: "));
        assert!(!message(bad_puzzle).is_empty());
        assert_eq!(
            message(short),
            "row has 1 field(s); the puzzle column \"puzzle\" is field 2"
        );
        assert_eq!(puzzle(no_solution), (P.parse().unwrap(), None));
    }

    #[test]
    fn deferred_lines_parse_like_the_lines_they_came_from() {
        let long = "7".repeat(MAX_LINE + 10);
        let lines = [
            format!("  {P}  "),
            String::new(),
            "# a comment".into(),
            format!("id7 {P} {S}"),
            "   ".into(),
            "12345".into(),
            long.clone(),
            format!("{P}x"),
            "\t# indented comment".into(),
            P.replace('.', "0"),
        ];
        let text = lines.join("\n");
        let (buffer, got) = read_deferred(&text, Format::Lines);
        assert!(buffer.len() < text.len() - MAX_LINE, "overlong line kept");
        let expected: Vec<Record> = lines
            .iter()
            .enumerate()
            .filter_map(|(i, line)| {
                let body = if line.len() > MAX_LINE {
                    Some(Body::invalid(
                        &line.as_bytes()[..MAX_LINE],
                        format!("line longer than {MAX_LINE} bytes"),
                    ))
                } else {
                    parse_line(line.as_bytes())
                };
                body.map(|body| Record {
                    file: 0,
                    line: i as u64 + 1,
                    body,
                })
            })
            .collect();
        assert_eq!(got.len(), 6);
        assert_eq!(got, expected);
        assert_eq!(got, read_all(text.as_bytes(), Format::Lines));
    }

    fn draw(grid: &str, style: usize) -> String {
        let rows: Vec<&str> = (0..9).map(|r| &grid[r * 9..r * 9 + 9]).collect();
        match style {
            0 => rows.join("\n"),
            _ => {
                let mut out = String::from("+-------+-------+-------+\n");
                for (r, row) in rows.iter().enumerate() {
                    let b = row.as_bytes();
                    let part = |i: usize| {
                        format!("{} {} {}", b[i] as char, b[i + 1] as char, b[i + 2] as char)
                    };
                    out += &format!("| {} | {} | {} |\n", part(0), part(3), part(6));
                    if r % 3 == 2 {
                        out += "+-------+-------+-------+\n";
                    }
                }
                out
            }
        }
    }

    /// A stream that returns one byte per read, like a slow pipe.
    struct Trickle(std::io::Cursor<Vec<u8>>);

    impl Read for Trickle {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = out.len().min(1);
            self.0.read(&mut out[..n])
        }
    }

    #[test]
    fn detection_sees_the_first_line_of_a_trickling_stream() {
        let cases = [
            (format!("\n\npuzzle,note\n{P},x\n"), Format::Csv),
            (format!("Grid 01\n{}\n", draw(P, 0)), Format::Grid),
            (format!("{P}\n"), Format::Lines),
        ];
        for (text, format) in cases {
            let stream = std::io::BufReader::with_capacity(
                1,
                Trickle(std::io::Cursor::new(text.into_bytes())),
            );
            let options = ReadOptions::default();
            let mut reader = RecordReader::from_stream(Box::new(stream), options);
            let record = reader.next_record().unwrap().unwrap();
            assert!(
                matches!(record.body, Body::Puzzle { .. }),
                "{format:?}: {record:?}"
            );
            let mut peek = Peek::new(Box::new(std::io::Cursor::new(b"ab\ncd".to_vec())));
            assert!(peek.head(100).unwrap().starts_with(b"ab\n"));
            let mut all = String::new();
            peek.read_to_string(&mut all).unwrap();
            assert_eq!(all, "ab\ncd");
        }
    }

    #[test]
    fn grid_blocks() {
        let p: Grid = P.parse().unwrap();
        let text = format!(
            "Grid 01\n{}\nGrid 02\n{}\n\n{}\n\n\n{}",
            draw(P, 0),
            draw(S, 0),
            draw(P, 1),
            draw(P, 0)
        );
        assert_eq!(detect_format(text.as_bytes()), Format::Grid);
        assert_eq!(detect_format(draw(P, 1).as_bytes()), Format::Grid);
        assert_eq!(detect_format(draw(P, 0).as_bytes()), Format::Grid);
        let records = read_all(text.as_bytes(), Format::Auto);
        let lines: Vec<u64> = records.iter().map(|r| r.line).collect();
        assert_eq!(lines, [1, 11, 22, 38]);
        assert_eq!(puzzle(Some(records[0].body.clone())).0, p);
        assert_eq!(puzzle(Some(records[1].body.clone())).0, S.parse().unwrap());
        assert_eq!(puzzle(Some(records[2].body.clone())).0, p);
        assert_eq!(puzzle(Some(records[3].body.clone())).0, p);
    }

    #[test]
    fn bad_grid_blocks_are_one_record_each() {
        let mut wide = draw(P, 0);
        wide.insert(12, '1'); // row 2 gets 10 cells
        let short: String = draw(P, 0).lines().take(5).collect::<Vec<_>>().join("\n");
        let text = format!("{wide}\nGrid 2\n{short}\nGrid 3\n{}\n{short}", draw(P, 0));
        let records = read_all(text.as_bytes(), Format::Grid);
        let got: Vec<(u64, String)> = records
            .iter()
            .map(|r| match &r.body {
                Body::Invalid { message, .. } => (r.line, message.clone()),
                Body::Puzzle { .. } => (r.line, "ok".into()),
            })
            .collect();
        assert_eq!(
            got,
            [
                (1, "grid row at line 2 has 10 cells; expected 9".to_string()),
                (10, "grid block has 5 of 9 rows".into()),
                (16, "ok".into()),
                (26, "grid block has 5 of 9 rows".into()),
            ]
        );
    }

    fn csv_records(text: &[u8], limit: usize) -> (Vec<u8>, Vec<u64>) {
        let mut cap = CsvCap::new(std::io::Cursor::new(text.to_vec()), limit);
        let mut out = Vec::new();
        let mut small = [0u8; 3]; // tiny reads exercise every boundary
        loop {
            let n = cap.read(&mut small).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&small[..n]);
        }
        (out, cap.cuts.into_iter().collect())
    }

    #[test]
    fn csv_cap_runs_match_the_byte_by_byte_reference() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        let bytes = proptest::sample::select(&b"ab,,\"\n\r7"[..]);
        let case = (
            proptest::collection::vec(bytes, 0..120),
            1usize..12,
            1usize..9,
        );
        let pass = |text: &[u8], limit: usize, read: usize, runs: bool| {
            let mut cap = CsvCap::new(std::io::Cursor::new(text.to_vec()), limit);
            cap.runs = runs;
            let mut out = Vec::new();
            let mut buf = vec![0u8; read];
            let mut starts = Vec::new();
            loop {
                let n = cap.read(&mut buf).unwrap();
                // Record starts are consumed as the parser advances; collect them per read.
                starts.extend(cap.starts.drain(..));
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
            }
            (out, Vec::from(cap.cuts), starts, cap.line)
        };
        TestRunner::new(Config::with_cases(2000))
            .run(&case, |(text, limit, read)| {
                prop_assert_eq!(
                    pass(&text, limit, read, true),
                    pass(&text, limit, read, false)
                );
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn csv_cap_cuts_long_records_and_keeps_lines() {
        let (out, cuts) = csv_records(b"a,b\nshort,x\n", 8);
        assert_eq!((out.as_slice(), cuts.len()), (&b"a,b\nshort,x\n"[..], 0));
        let (out, cuts) = csv_records(b"h\n0123456789abc\nok\n", 8);
        assert_eq!(out, b"h\n01234567\nok\n");
        assert_eq!(cuts, [10]);
        // Cut inside a quoted field with newlines: the quote is closed, the newlines kept.
        let (out, cuts) = csv_records(b"h\n\"0123\n5678\n\"\"x\",y\nok\n", 8);
        assert_eq!(out, b"h\n\"0123\n56\"\nok\n");
        assert_eq!(cuts, [10]);
        // A stray quote mid-field is literal, as for the parser: nothing is cut.
        let (out, cuts) = csv_records(b"a\"b\nc\nd\n", 4);
        assert_eq!((out.as_slice(), cuts.len()), (&b"a\"b\nc\nd\n"[..], 0));
    }

    #[test]
    fn long_csv_records_are_invalid_rows_at_the_right_line() {
        let long = "7".repeat(MAX_LINE + 10);
        let text = format!("puzzle,solution\n{P},{S}\n{P},\"{long}\n{long}\"\n\n{P},{S}\n");
        let records = read_all(text.as_bytes(), Format::Auto);
        assert_eq!(records.len(), 3);
        assert_eq!(records[1].line, 3);
        assert_eq!(
            message(Some(records[1].body.clone())),
            format!("record longer than {MAX_LINE} bytes")
        );
        assert_eq!(records[2].line, 6, "after a blank line too");
        assert_eq!(
            puzzle(Some(records[2].body.clone())).1,
            Some(S.parse().unwrap())
        );
        let header = format!("puzzle{long}\n{P}\n");
        let options = ReadOptions {
            format: Format::Csv,
            column: None,
        };
        let error = RecordReader::from_stream(Box::new(std::io::Cursor::new(header)), options)
            .next()
            .unwrap()
            .unwrap_err()
            .to_string();
        assert!(error.contains("header is longer than"), "{error}");
        // The last record, overlong outside quotes and without a final line end.
        let text = format!("puzzle,x\n{P},{long}");
        let records = read_all(text.as_bytes(), Format::Csv);
        assert_eq!(
            message(Some(records[0].body.clone())),
            format!("record longer than {MAX_LINE} bytes")
        );
        // A byte order mark before a quoted header field that holds a line end.
        let text = format!("\u{feff}\"x\ny\",puzzle\n1,{P}\n");
        let records = read_all(text.as_bytes(), Format::Csv);
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].line, 3);
        assert_eq!(puzzle(Some(records[0].body.clone())).0, P.parse().unwrap());
        // The same, one byte per read, with `--format csv` (no sniffing gathers the BOM;
        // detection itself would look at the first line, `"x`, so the format is given).
        let stream =
            std::io::BufReader::with_capacity(1, Trickle(std::io::Cursor::new(text.into_bytes())));
        let options = ReadOptions {
            format: Format::Csv,
            column: None,
        };
        let records = RecordReader::from_stream(Box::new(stream), options)
            .collect::<Result<Vec<_>>>()
            .unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].line, 3);
        assert_eq!(puzzle(Some(records[0].body.clone())).0, P.parse().unwrap());
    }
}
