//! Streams puzzle records from line files and CSV files (file or stdin), one record at a time,
//! with the file and line each came from. Never holds a whole input in memory.
//!
//! A record whose text is not a valid puzzle is still a record: it comes out as
//! [`Body::Invalid`] with a message, so the output keeps one row per input record, in order.

use std::io::BufRead;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use super::Input;
use crate::error::{Error, Result};
use crate::grid::Grid;

/// Longest line (or CSV field) read into memory; longer ones become `invalid` records.
pub const MAX_LINE: usize = 64 * 1024;

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
}

enum Source {
    Lines(LineSource),
    Csv(CsvSource),
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
        }
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
        let mut stream = input.open(self.bytes_read.clone())?;
        let format = match self.options.format {
            Format::Auto => {
                let head = stream.fill_buf().map_err(|source| Error::Read {
                    path: input.path(),
                    source,
                })?;
                detect_format(head)
            }
            other => other,
        };
        self.current = Some(match format {
            Format::Csv => Source::Csv(CsvSource::new(
                stream,
                input,
                file,
                self.options.column.as_deref(),
            )?),
            _ => Source::Lines(LineSource {
                stream,
                file,
                line: 0,
                buf: Vec::new(),
                path: input.path(),
            }),
        });
        Ok(true)
    }

    /// The next record, or `None` at the end of the last input.
    pub fn next_record(&mut self) -> Result<Option<Record>> {
        loop {
            if self.current.is_none() && !self.open_next()? {
                return Ok(None);
            }
            let next = match self.current.as_mut() {
                Some(Source::Lines(source)) => source.next_record()?,
                Some(Source::Csv(source)) => source.next_record()?,
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

/// Decides between lines and CSV from the start of an input: CSV when the first meaningful line
/// has a comma and no puzzle-length token (a header such as `quizzes,solutions`).
pub fn detect_format(head: &[u8]) -> Format {
    let first = head
        .split(|&b| b == b'\n')
        .map(|line| line.trim_ascii())
        .find(|line| !line.is_empty() && !line.starts_with(b"#"));
    match first {
        Some(line)
            if long_tokens(line).next().is_none()
                && (line.contains(&b',') || is_puzzle_header(line)) =>
        {
            Format::Csv
        }
        _ => Format::Lines,
    }
}

/// A one-column CSV header such as `puzzle`.
fn is_puzzle_header(line: &[u8]) -> bool {
    let name = String::from_utf8_lossy(line);
    let name = name.trim().trim_start_matches('\u{feff}').trim_matches('"');
    PUZZLE_COLUMNS.iter().any(|c| c.eq_ignore_ascii_case(name))
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
    let line = line.trim_ascii();
    if line.is_empty() || line.starts_with(b"#") {
        return None;
    }
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

struct LineSource {
    stream: Box<dyn BufRead + Send>,
    file: u32,
    line: u64,
    buf: Vec<u8>,
    path: std::path::PathBuf,
}

impl LineSource {
    fn next_record(&mut self) -> Result<Option<Record>> {
        loop {
            let Some(overlong) = read_line_bounded(&mut *self.stream, &mut self.buf, MAX_LINE)
                .map_err(|source| Error::Read {
                    path: self.path.clone(),
                    source,
                })?
            else {
                return Ok(None);
            };
            self.line += 1;
            let body = if overlong {
                Some(Body::invalid(
                    &self.buf,
                    format!("line longer than {MAX_LINE} bytes"),
                ))
            } else {
                parse_line(&self.buf)
            };
            if let Some(body) = body {
                return Ok(Some(Record {
                    file: self.file,
                    line: self.line,
                    body,
                }));
            }
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
        let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
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

struct CsvSource {
    reader: csv::Reader<Box<dyn BufRead + Send>>,
    record: csv::ByteRecord,
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
        let mut reader = csv::ReaderBuilder::new()
            .flexible(true)
            .has_headers(true)
            .buffer_capacity(64 * 1024)
            .from_reader(stream);
        let header: Vec<String> = reader
            .byte_headers()
            .map_err(|e| csv_error(&path, e))?
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
                        header.join(",")
                    ),
                })?,
            None => find(PUZZLE_COLUMNS).ok_or_else(|| Error::Input {
                path: path.clone(),
                message: format!(
                    "no puzzle column in the CSV header ({}); name one with --column",
                    header.join(",")
                ),
            })?,
        };
        let solution_column = find(SOLUTION_COLUMNS).filter(|&c| c != puzzle_column);
        Ok(CsvSource {
            reader,
            record: csv::ByteRecord::new(),
            file,
            puzzle_column,
            solution_column,
            puzzle_name: header[puzzle_column].clone(),
            path,
        })
    }

    fn next_record(&mut self) -> Result<Option<Record>> {
        match self.reader.read_byte_record(&mut self.record) {
            Ok(false) => return Ok(None),
            Ok(true) => {}
            Err(e) => return Err(csv_error(&self.path, e)),
        }
        let line = self.record.position().map_or(0, |p| p.line());
        let body = self.parse_row();
        Ok(Some(Record {
            file: self.file,
            line,
            body,
        }))
    }

    fn parse_row(&self) -> Body {
        let row = &self.record;
        let Some(field) = row.get(self.puzzle_column) else {
            let text: Vec<u8> = row.iter().collect::<Vec<_>>().join(&b',');
            return Body::invalid(
                &text,
                format!(
                    "row has {} field(s); the puzzle column {:?} is field {}",
                    row.len(),
                    self.puzzle_name,
                    self.puzzle_column + 1
                ),
            );
        };
        let field = field.trim_ascii();
        let puzzle = match Grid::from_bytes(field) {
            Ok(grid) => grid,
            Err(e) => return Body::invalid(field, e.to_string()),
        };
        let reference = match self
            .solution_column
            .and_then(|c| row.get(c))
            .map(<[u8]>::trim_ascii)
        {
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
}

fn csv_error(path: &std::path::Path, error: csv::Error) -> Error {
    let line = error.position().map(|p| p.line());
    match error.into_kind() {
        csv::ErrorKind::Io(source) => Error::Read {
            path: path.to_path_buf(),
            source,
        },
        other => Error::Input {
            path: path.to_path_buf(),
            message: match line {
                Some(line) => format!("line {line}: {other:?}"),
                None => format!("{other:?}"),
            },
        },
    }
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
}
