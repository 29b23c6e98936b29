//! The reader over all inputs: [`RecordReader`] streams records from line files, CSV files and
//! grid files (file or stdin, plain or compressed), one at a time, with the file and line each
//! came from, in bounded memory: lines, CSV records and grid rows are cut at [`MAX_LINE`] bytes,
//! and a longer one becomes a bad record without being read into memory whole.
//!
//! A layout yields raw records ([`Deferred`]: the text cut out, not yet split or parsed), so the
//! thread that reads only cuts; whoever consumes them reads their [`Fields`] (puzzle, solution
//! and status text as written, or a bad record's message) on its own thread. `solve` reads
//! fields into a [`Body`] (a puzzle grid and a reference solution); `verify` keeps the text, to
//! say exactly what is wrong with it.
//!
//! A record whose text is not a valid puzzle is still a record: it comes out as
//! [`Body::Invalid`] with a message, so the output keeps one row per input record, in order.

use std::borrow::Cow;
use std::io::BufRead;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use super::csv::{row_fields, Columns, CsvSource};
use super::detect::{detect_format, gather_text, Format};
use super::grid::GridSource;
use super::input::Snapshot;
use super::lines::{line_fields, LineSource};
use super::Input;
use crate::error::{Error, Result};
use crate::grid::Grid;

/// Longest line (or CSV record) read into memory; longer ones become bad records.
pub const MAX_LINE: usize = 64 * 1024;

/// Longest excerpt of a bad record echoed into the `puzzle` column.
const MAX_ECHO: usize = 100;

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

/// The content of a record, read as a puzzle (what `solve` and `bench` use).
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
    pub(super) fn invalid(text: &[u8], message: impl Into<String>) -> Body {
        Body::Invalid {
            text: echo(text),
            message: message.into(),
        }
    }

    /// Reads a record's fields as a puzzle. A solution column of a CSV file must hold a complete
    /// grid (or nothing); the second long token of a line is kept as the reference only when it
    /// is one (it may be other data).
    pub fn from_fields(fields: &Fields) -> Body {
        let (format, field, solution) = match fields {
            Fields::Bad { text, message } => return Body::invalid(text, message.as_ref()),
            Fields::Puzzle {
                format,
                puzzle,
                solution,
                ..
            } => (*format, *puzzle, *solution),
        };
        let puzzle = match Grid::from_bytes(field) {
            Ok(grid) => grid,
            Err(e) => return Body::invalid(field, e.to_string()),
        };
        let reference = match solution {
            None | Some(b"") => None,
            Some(text) if format == Format::Lines => {
                Grid::from_bytes(text).ok().filter(Grid::is_complete)
            }
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

/// The fields of one raw record, as its layout cut them out (trimmed, otherwise as written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fields<'a> {
    /// A record with a puzzle field.
    Puzzle {
        /// The layout the record came from (never [`Format::Auto`]).
        format: Format,
        /// The puzzle text (a grid block's 81 cells without its separators).
        puzzle: &'a [u8],
        /// The solution text: `None` when the input has no solution column (or a line no second
        /// long token); empty when the row leaves its solution field empty.
        solution: Option<&'a [u8]>,
        /// The status text, when the input has a status column (`solve`'s output) and it was
        /// asked for.
        status: Option<&'a [u8]>,
    },
    /// A record that cannot be read: too long, too few fields, no puzzle, a broken grid block.
    Bad {
        /// The record's text, or its start.
        text: &'a [u8],
        /// What is wrong with it.
        message: Cow<'a, str>,
    },
}

/// The first characters of `text`, lossily decoded, for echoing a bad record.
pub(super) fn echo(text: &[u8]) -> String {
    let cut = &text[..text.len().min(MAX_ECHO)];
    let mut s = String::from_utf8_lossy(cut).into_owned();
    s.retain(|c| !c.is_control());
    s
}

/// A raw record whose fields are still to be cut out of the text it was read into: a line of a
/// line file, a CSV row or a grid block's cells are handed on as text, so that worker threads
/// split and parse them rather than the one thread that reads (parsing on the reader capped how
/// well `solve` scales with threads).
#[derive(Debug, Clone, PartialEq)]
pub struct Deferred {
    /// Position of the input file in the run's input list.
    pub file: u32,
    /// 1-based line of the record's start in its file.
    pub line: u64,
    pub(super) body: DeferredBody,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum DeferredBody {
    /// A bad record, found while cutting: the start of its text and what is wrong.
    Bad { text: Vec<u8>, message: String },
    /// The byte range of the line in the text buffer it was read into.
    Line(std::ops::Range<usize>),
    /// A CSV row (the byte range of the whole record), with the columns to read.
    CsvRow {
        range: std::ops::Range<usize>,
        puzzle: u32,
        solution: Option<u32>,
        status: Option<u32>,
    },
    /// The 81 cells of a grid block.
    Cells(std::ops::Range<usize>),
}

impl DeferredBody {
    /// A bad record: only the start of its text is kept, for the excerpt.
    pub(super) fn bad(text: &[u8], message: String) -> DeferredBody {
        DeferredBody::Bad {
            text: text[..text.len().min(MAX_ECHO)].to_vec(),
            message,
        }
    }
}

impl Deferred {
    /// Cuts the record's fields out of `text`, the buffer [`RecordReader::next_deferred`]
    /// appended it to, and hands them to `f`.
    pub fn with_fields<T>(&self, text: &[u8], f: impl FnOnce(&Fields) -> T) -> T {
        // Only a `text` other than the one the record was read into can lack its range.
        let lost = Fields::Bad {
            text: b"",
            message: Cow::Borrowed("internal error: record text lost"),
        };
        match &self.body {
            DeferredBody::Bad { text, message } => f(&Fields::Bad {
                text,
                message: Cow::Borrowed(message),
            }),
            DeferredBody::Line(range) => match text.get(range.clone()).map(line_fields) {
                Some(Some(fields)) => f(&fields),
                _ => f(&lost),
            },
            DeferredBody::Cells(range) => match text.get(range.clone()) {
                Some(cells) => f(&Fields::Puzzle {
                    format: Format::Grid,
                    puzzle: cells,
                    solution: None,
                    status: None,
                }),
                None => f(&lost),
            },
            DeferredBody::CsvRow {
                range,
                puzzle,
                solution,
                status,
            } => match text.get(range.clone()) {
                None => f(&lost),
                Some(row) => row_fields(row, *puzzle, *solution, *status, |fields| {
                    f(fields.unwrap_or(&lost))
                }),
            },
        }
    }

    /// The record read as a puzzle ([`Body::from_fields`]), its fields cut out of `text`.
    pub fn parse(self, text: &[u8]) -> Record {
        let body = self.with_fields(text, Body::from_fields);
        Record {
            file: self.file,
            line: self.line,
            body,
        }
    }
}

/// Reads records from a list of inputs in order.
pub struct RecordReader {
    inputs: Vec<Input>,
    options: ReadOptions,
    columns: Columns,
    next_input: usize,
    current: Option<Source>,
    records_in_current: u64,
    bytes_read: Arc<AtomicU64>,
    empty_inputs: Vec<String>,
    preopened: Option<Box<dyn BufRead + Send>>,
    /// The current input as it was when opened (a regular file), checked at its end.
    snapshot: Option<Snapshot>,
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
            columns: Columns::default(),
            next_input: 0,
            current: None,
            records_in_current: 0,
            bytes_read,
            empty_inputs: Vec::new(),
            preopened: None,
            snapshot: None,
            scratch: Vec::new(),
        }
    }

    /// The same reader, reading the CSV columns `columns` asks for (by default: an optional
    /// reference solution, as `solve` reads it).
    pub fn with_columns(mut self, columns: Columns) -> Self {
        self.columns = columns;
        self
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
            None => {
                let (stream, snapshot) = input.open_snapshot(self.bytes_read.clone())?;
                self.snapshot = snapshot;
                stream
            }
        };
        // Gathered whatever the format, so `CsvCap` sees a byte order mark whole, and UTF-16 is
        // decoded (or refused) for every layout.
        let peek = gather_text(stream, &input.path())?;
        let format = match self.options.format {
            Format::Auto => detect_format(&peek.head),
            other => other,
        };
        if let (Some(column), false) = (&self.options.column, format == Format::Csv) {
            let shown: String = column.chars().take(40).collect();
            return Err(Error::Usage(format!(
                "{}: --column {shown:?} names a CSV column, but this input is read as {} \
                 (not CSV); drop --column, or give --format csv if it is CSV",
                input.display_name(),
                if format == Format::Grid {
                    "grids"
                } else {
                    "lines"
                },
            )));
        }
        let stream: Box<dyn BufRead + Send> = Box::new(peek);
        self.current = Some(match format {
            Format::Csv => Source::Csv(CsvSource::new(
                stream,
                input,
                file,
                self.options.column.as_deref(),
                &self.columns,
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

    /// Opens the first input now and reads its layout and CSV header, so a bad input or option
    /// (no such `--column`, no puzzle column, an over-long header) is an error before the
    /// caller creates any file. Reading then goes on from its first record.
    pub fn start(&mut self) -> Result<()> {
        if self.current.is_none() && self.next_input == 0 {
            self.open_next()?;
        }
        Ok(())
    }

    /// The next record read as a puzzle, or `None` at the end of the last input.
    pub fn next_record(&mut self) -> Result<Option<Record>> {
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        let next = self.next_deferred(&mut text);
        let record = next.map(|found| found.map(|deferred| deferred.parse(&text)));
        self.scratch = text;
        record
    }

    /// The next raw record, or `None` at the end of the last input: its text is appended to
    /// `text`, uncut into fields ([`Deferred::with_fields`] and [`Deferred::parse`] finish it).
    pub fn next_deferred(&mut self, text: &mut Vec<u8>) -> Result<Option<Deferred>> {
        loop {
            if self.current.is_none() && !self.open_next()? {
                return Ok(None);
            }
            let next = match self.current.as_mut() {
                Some(Source::Lines(source)) => source.next_deferred(text)?,
                Some(Source::Csv(source)) => source.next_deferred(text)?,
                Some(Source::Grid(source)) => source.next_deferred(text)?,
                None => None,
            };
            match next {
                Some(record) => {
                    self.records_in_current += 1;
                    return Ok(Some(record));
                }
                None => {
                    self.current = None;
                    let input = &self.inputs[self.next_input - 1];
                    // A file that shrank or was replaced while it was read: its rows are not
                    // those of the file the run started on (one that grew was read as it was).
                    if let Some(snapshot) = self.snapshot.take() {
                        if let Some(why) = snapshot.changed(&self.bytes_read) {
                            return Err(Error::Input {
                                path: input.path(),
                                message: format!(
                                    "{why}; the rows read from it are not those of one file: \
                                     run again on a file that does not change"
                                ),
                            });
                        }
                    }
                    if self.records_in_current == 0 {
                        self.empty_inputs.push(input.display_name());
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

/// Shared test inputs and helpers for the layouts' tests.
#[cfg(test)]
pub(super) mod testing {
    use std::io::Read;

    use super::*;

    pub(crate) const P: &str =
        "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........";
    pub(crate) const S: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    pub(crate) fn puzzle(body: Option<Body>) -> (Grid, Option<Grid>) {
        match body {
            Some(Body::Puzzle { puzzle, reference }) => (puzzle, reference),
            other => panic!("expected a puzzle, got {other:?}"),
        }
    }

    pub(crate) fn message(body: Option<Body>) -> String {
        match body {
            Some(Body::Invalid { message, .. }) => message,
            other => panic!("expected invalid, got {other:?}"),
        }
    }

    pub(crate) fn read_all(bytes: &[u8], format: Format) -> Vec<Record> {
        let options = ReadOptions {
            format,
            column: None,
        };
        RecordReader::from_stream(Box::new(std::io::Cursor::new(bytes.to_vec())), options)
            .collect::<Result<Vec<_>>>()
            .unwrap()
    }

    pub(crate) fn draw(grid: &str, style: usize) -> String {
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
    pub(crate) struct Trickle(pub(crate) std::io::Cursor<Vec<u8>>);

    impl Read for Trickle {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = out.len().min(1);
            self.0.read(&mut out[..n])
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::testing::*;
    use super::*;
    use crate::io::detect::Peek;
    use crate::io::lines::parse_line;

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
}
