//! The reader over all inputs: [`RecordReader`] streams records from line files, CSV files and
//! grid files (file or stdin, plain or compressed), one at a time, with the file and line each
//! came from, in bounded memory: lines, CSV records and grid rows are cut at [`MAX_LINE`](super::MAX_LINE) bytes,
//! and a longer one becomes a bad record without being read into memory whole.
//!
//! This is the dispatcher: it decodes each input's start, asks [`detect`](super::detect) for
//! its layout, opens that layout behind the (crate-private) `Layout` trait, and finishes the
//! raw records the layouts cut ([`RawRecord::with_fields`] and [`RawRecord::parse`], which need
//! each layout's field splitter). The vocabulary it speaks (fields, bodies, raw records) is in
//! [`raw`](super::raw).

use std::borrow::Cow;
use std::io::BufRead;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use super::csv::{row_fields, Columns, CsvSource};
use super::decode::gather_text;
use super::detect::detect_format;
use super::grid::GridSource;
use super::input::{Input, SharedTap, Snapshot};
use super::lines::{line_fields, LineSource};
use super::raw::{Body, Fields, Format, Layout, OptionNames, RawBody, RawRecord};
use crate::error::{Error, Result};

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

impl RawRecord {
    /// Cuts the record's fields out of `text`, the buffer [`RecordReader::next_raw`]
    /// appended it to, and hands them to `f`.
    pub fn with_fields<T>(&self, text: &[u8], f: impl FnOnce(&Fields) -> T) -> T {
        // Only a `text` other than the one the record was read into can lack its range.
        let lost = Fields::Bad {
            text: b"",
            message: Cow::Borrowed("internal error: record text lost"),
        };
        match &self.body {
            RawBody::Bad { text, message } => f(&Fields::Bad {
                text,
                message: Cow::Borrowed(message),
            }),
            RawBody::Line(range) => match text.get(range.clone()).map(line_fields) {
                Some(Some(fields)) => f(&fields),
                _ => f(&lost),
            },
            RawBody::Cells(range) => match text.get(range.clone()) {
                Some(cells) => f(&Fields::Puzzle {
                    format: Format::Grid,
                    puzzle: cells,
                    solution: None,
                    status: None,
                }),
                None => f(&lost),
            },
            RawBody::CsvRow {
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
        self.parse_as(text, false)
    }

    /// [`RawRecord::parse`], any solution left out when `ignore_solution` ([`Body::puzzle_only`]).
    pub fn parse_as(self, text: &[u8], ignore_solution: bool) -> Record {
        let body = match ignore_solution {
            true => self.with_fields(text, Body::puzzle_only),
            false => self.with_fields(text, Body::from_fields),
        };
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
    names: OptionNames,
    next_input: usize,
    current: Option<Box<dyn Layout + Send>>,
    records_in_current: u64,
    bytes_read: Arc<AtomicU64>,
    empty_inputs: Vec<String>,
    preopened: Option<Box<dyn BufRead + Send>>,
    /// The current input as it was when opened (a regular file), checked at its end.
    snapshot: Option<Snapshot>,
    /// What sees each input's raw bytes, by position in `inputs` ([`RecordReader::with_taps`]).
    taps: Vec<Option<SharedTap>>,
    /// Line text for [`RecordReader::next_record`], reused.
    scratch: Vec<u8>,
}

impl RecordReader {
    /// A reader over `inputs`; `bytes_read` is advanced by every raw byte read.
    pub fn new(inputs: Vec<Input>, options: ReadOptions, bytes_read: Arc<AtomicU64>) -> Self {
        RecordReader {
            inputs,
            options,
            columns: Columns::default(),
            names: OptionNames::CLI,
            next_input: 0,
            current: None,
            records_in_current: 0,
            bytes_read,
            empty_inputs: Vec::new(),
            preopened: None,
            snapshot: None,
            taps: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// The same reader, reading the CSV columns `columns` asks for (by default: an optional
    /// reference solution, as `solve` reads it).
    pub fn with_columns(mut self, columns: Columns) -> Self {
        self.columns = columns;
        self
    }

    /// The same reader, naming its options as `names` says in its messages (by default the
    /// command line's flags).
    pub fn with_option_names(mut self, names: OptionNames) -> Self {
        self.names = names;
        self
    }

    /// The same reader, showing the raw bytes of input `i` to `taps[i]` as they are read (see
    /// [`Tap`](super::input::Tap): not zip archives, of which only a member is read).
    pub fn with_taps(mut self, taps: Vec<Option<SharedTap>>) -> Self {
        self.taps = taps;
        self
    }

    /// A reader over one already-open byte stream, shown as `-` (standard input); for tests and
    /// fuzzing. Use [`super::decode_bytes`] to read compressed bytes from memory.
    pub fn from_stream(stream: Box<dyn BufRead + Send>, options: ReadOptions) -> Self {
        let mut reader = RecordReader::new(vec![Input::Stdin], options, Arc::default());
        reader.preopened = Some(stream);
        reader
    }

    /// How many of the inputs have been opened so far (the one being read included).
    pub fn inputs_opened(&self) -> usize {
        self.next_input
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
                let tap = self.taps.get(file as usize).cloned().flatten();
                let (stream, snapshot) = input.open_snapshot(self.bytes_read.clone(), tap)?;
                self.snapshot = snapshot;
                stream
            }
        };
        self.current = Some(self.layout(input, file, stream)?);
        Ok(true)
    }

    /// The layout that reads `stream`, input number `file`: its format decided (from its first
    /// line under `--format auto`), the column options checked against it, a CSV header read.
    fn layout(
        &self,
        input: &Input,
        file: u32,
        stream: Box<dyn BufRead + Send>,
    ) -> Result<Box<dyn Layout + Send>> {
        // Gathered whatever the format, so a byte order mark is seen whole: a UTF-8 one is
        // dropped and UTF-16 decoded (or refused) for every layout.
        let peek = gather_text(stream, &input.path())?;
        let format = match self.options.format {
            Format::Auto => detect_format(&peek.head),
            other => other,
        };
        if format != Format::Csv {
            let names = &self.names;
            let solution = self
                .columns
                .solution
                .as_ref()
                .filter(|_| self.columns.solution_option);
            let named = [
                (
                    self.options.column.as_ref(),
                    names.column_with_value,
                    names.column,
                ),
                (solution, "--solution-column ", "--solution-column"),
            ];
            if let Some((Some(column), with_value, flag)) =
                named.into_iter().find(|(c, _, _)| c.is_some())
            {
                let shown: String = column.chars().take(40).collect();
                return Err(Error::Usage(format!(
                    "{}: {with_value}{shown:?} names a CSV column, but this input is read as {} \
                     (not CSV); drop {flag}, or give {} if it is CSV",
                    input.display_name(),
                    if format == Format::Grid {
                        "grids"
                    } else {
                        "lines"
                    },
                    names.csv_format,
                )));
            }
        }
        let stream: Box<dyn BufRead + Send> = Box::new(peek);
        Ok(match format {
            Format::Csv => Box::new(CsvSource::new(
                stream,
                input,
                file,
                self.options.column.as_deref(),
                &self.columns,
                &self.names,
            )?),
            Format::Grid => Box::new(GridSource::new(stream, file, input.path())),
            Format::Auto | Format::Lines => Box::new(LineSource {
                stream,
                file,
                line: 0,
                path: input.path(),
            }),
        })
    }

    /// Opens the first input now and reads its layout and CSV header, and those of every other
    /// input that is a regular file, so a bad input or option (no such `--column`, no puzzle
    /// column, an over-long header) is an error before the caller creates any file. Reading
    /// then goes on from the first input's first record.
    pub fn start(&mut self) -> Result<()> {
        if self.current.is_none() && self.next_input == 0 {
            self.open_next()?;
            // The other inputs that are regular files too (a FIFO or pipe can be read only
            // once): a usage error in the third input is not found after the rows of the
            // first two are written.
            for (i, input) in self.inputs.iter().enumerate().skip(1) {
                let regular = matches!(input, Input::File(path) if is_regular(path));
                if regular {
                    let stream = input.open(Arc::new(AtomicU64::new(0)))?;
                    self.layout(input, i as u32, stream)?;
                }
            }
        }
        Ok(())
    }

    /// The next record read as a puzzle, or `None` at the end of the last input.
    pub fn next_record(&mut self) -> Result<Option<Record>> {
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        let next = self.next_raw(&mut text);
        let ignore = self.columns.ignore_solution;
        let record = next.map(|found| found.map(|raw| raw.parse_as(&text, ignore)));
        self.scratch = text;
        record
    }

    /// The next raw record, or `None` at the end of the last input: its text is appended to
    /// `text`, uncut into fields ([`RawRecord::with_fields`] and [`RawRecord::parse`] finish it).
    pub fn next_raw(&mut self, text: &mut Vec<u8>) -> Result<Option<RawRecord>> {
        loop {
            if !self.open_more()? {
                return Ok(None);
            }
            let next = match self.current.as_mut() {
                Some(layout) => layout.next_raw(text)?,
                None => None,
            };
            match next {
                Some(record) => {
                    self.records_in_current += 1;
                    return Ok(Some(record));
                }
                None => self.end_current()?,
            }
        }
    }

    /// Appends raw records to `out` (their text to `text`, as [`next_raw`](Self::next_raw)
    /// does) until `out` holds `max` or `text` about `text_limit` bytes; false once the last
    /// input has ended. The same records as `next_raw` one at a time, cut a read buffer at a
    /// time where the layout can (line files).
    pub fn next_batch(
        &mut self,
        text: &mut Vec<u8>,
        out: &mut Vec<RawRecord>,
        max: usize,
        text_limit: usize,
    ) -> Result<bool> {
        while out.len() < max && text.len() < text_limit {
            if !self.open_more()? {
                return Ok(false);
            }
            let before = out.len();
            let more = match self.current.as_mut() {
                Some(layout) => layout.next_batch(text, out, max, text_limit)?,
                None => false,
            };
            self.records_in_current += (out.len() - before) as u64;
            if !more {
                self.end_current()?;
            }
        }
        Ok(true)
    }

    /// Whether an input is open to read from, opening the next one if none is; false once the
    /// last input has ended, or once a stop is requested (`raw::set_stop_flag`): an input a
    /// stop cut short is not followed by the next one, whose records would come after a gap.
    fn open_more(&mut self) -> Result<bool> {
        if self.current.is_some() {
            return Ok(true);
        }
        Ok(!super::raw::stop_requested() && self.open_next()?)
    }

    /// After the current input's last record: checks that it did not change while it was read,
    /// and notes it if it held no record.
    fn end_current(&mut self) -> Result<()> {
        self.current = None;
        let input = &self.inputs[self.next_input - 1];
        // A file that shrank or was replaced while it was read: its rows are not those of the
        // file the run started on (one that grew was read as it was).
        if let Some(snapshot) = self.snapshot.take() {
            if let Some(why) = snapshot.end(&self.bytes_read) {
                return Err(Error::Input {
                    path: input.path(),
                    message: format!(
                        "{why}; the rows read from it are not those of one file: run again on a \
                         file that does not change"
                    ),
                });
            }
        }
        if self.records_in_current == 0 {
            self.empty_inputs.push(input.display_name());
        }
        Ok(())
    }
}

impl Iterator for RecordReader {
    type Item = Result<Record>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// Whether `path` (or for `ARCHIVE.zip:MEMBER`, the archive) is a regular file.
fn is_regular(path: &std::path::Path) -> bool {
    std::fs::metadata(super::targets::input_on_disk(path)).is_ok_and(|m| m.is_file())
}

/// Shared test inputs and helpers for the layouts' tests.
#[cfg(test)]
pub(super) mod testing {
    use std::io::Read;

    use super::*;
    use crate::grid::Grid;

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
    use crate::io::decode::Peek;
    use crate::io::lines::parse_line;
    use crate::io::raw::MAX_LINE;

    /// Every record of `text` through `next_raw`, into one buffer as a chunk of the solve
    /// pipeline holds them, then parsed: the buffer and the records.
    fn read_raw(text: &str, format: Format) -> (Vec<u8>, Vec<Record>) {
        let options = ReadOptions {
            format,
            column: None,
        };
        let mut reader =
            RecordReader::from_stream(Box::new(std::io::Cursor::new(text.to_owned())), options);
        let mut buffer = Vec::new();
        let mut raw = Vec::new();
        while let Some(record) = reader.next_raw(&mut buffer).unwrap() {
            raw.push(record);
        }
        let records = raw.into_iter().map(|r| r.parse(&buffer)).collect();
        (buffer, records)
    }

    /// Every record of `text` read in batches of at most `max` records or `text_limit` bytes,
    /// through a read buffer of `capacity` bytes, then parsed.
    fn read_batches(text: &[u8], format: Format, capacity: usize, max: usize) -> Vec<Record> {
        let options = ReadOptions {
            format,
            column: None,
        };
        let stream =
            std::io::BufReader::with_capacity(capacity, std::io::Cursor::new(text.to_vec()));
        let mut reader = RecordReader::from_stream(Box::new(stream), options);
        let mut records = Vec::new();
        loop {
            let (mut buffer, mut raw) = (Vec::new(), Vec::new());
            let more = reader.next_batch(&mut buffer, &mut raw, max, 300).unwrap();
            assert!(raw.len() <= max);
            records.extend(raw.into_iter().map(|r| r.parse(&buffer)));
            if !more {
                return records;
            }
        }
    }

    proptest::proptest! {
        /// Batches are the records read one at a time, whatever the line ends (`\n`, `\r\n`,
        /// a lone `\r`), blank, comment and overlong lines, a missing last line end, and where
        /// the read buffer and the batches break.
        #[test]
        fn batches_are_the_records_one_at_a_time(
            parts in proptest::collection::vec(0usize..9, 0..40),
            capacity in 1usize..300,
            max in 1usize..12,
        ) {
            let pieces: [&[u8]; 9] = [
                P.as_bytes(),
                b"\n",
                b"\r\n",
                b"\r",
                b"# comment",
                b"  ",
                b"12345",
                S.as_bytes(),
                b"x",
            ];
            let mut text: Vec<u8> = parts.iter().flat_map(|&i| pieces[i].to_vec()).collect();
            if parts.first() == Some(&8) {
                text.extend(std::iter::repeat_n(b'7', MAX_LINE + 3));
            }
            let one_at_a_time = read_all(&text, Format::Lines);
            proptest::prop_assert_eq!(read_batches(&text, Format::Lines, capacity, max), one_at_a_time);
        }
    }

    #[test]
    fn raw_csv_rows_parse_with_their_reference() {
        let blanks = S.replacen('5', ".", 1).replacen('3', "0", 1);
        let bad = S.replacen('5', "x", 1);
        let text = format!(
            "id,puzzle,solution\n1,{P},{S}\n2, {P} ,\n3,{P},{blanks}\n4,{P},{bad}\n5,{P}x,{S}\n6\n7,{P}\n"
        );
        let (_, records) = read_raw(&text, Format::Csv);
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

    /// A line's second long token is its reference solution when it is a solution's digits,
    /// whole or a few cells off, judged as a CSV column is (a damaged one makes the record
    /// invalid); any other token there (a second puzzle, pencilmarks, a hash) is other data.
    /// A well-formed puzzle refused for its reference shows normalized, as every other row.
    #[test]
    fn a_puzzle_refused_for_its_reference_is_shown_normalized() {
        let zeros = P.replace('.', "0");
        for line in [
            format!("{zeros}:{}", &S[..80]),
            format!("{zeros},{}", &S[..80]),
        ] {
            match parse_line(line.as_bytes()) {
                Some(Body::Invalid { text, message }) => {
                    assert_eq!(text, P);
                    assert!(message.starts_with("reference solution"), "{message}");
                }
                other => panic!("expected invalid, got {other:?}"),
            }
        }
    }

    #[test]
    fn a_lines_damaged_reference_is_refused_as_in_csv() {
        let (cut, doubled) = (&S[..80], format!("{S}7"));
        let hash = "da39a3ee5e6b4b0d3255bfef95601890afd80709";
        let pencilmarks = "123456789".repeat(81);
        let others = [
            S.replacen('5', ".", 1),
            P.to_string(),
            "0".repeat(81),
            pencilmarks,
        ];
        let mut text = format!("{P}:1:{S}\n{P}:1:{cut}\n{P},{doubled}\n{P} {hash}\n");
        for other in &others {
            text += &format!("{P} {other}\n");
        }
        let (_, records) = read_raw(&text, Format::Lines);
        let mut bodies = records.into_iter().map(|r| Some(r.body));
        let reference = Some(S.parse().unwrap());
        assert_eq!(
            puzzle(bodies.next().unwrap()),
            (P.parse().unwrap(), reference)
        );
        assert_eq!(
            message(bodies.next().unwrap()),
            "reference solution: expected 81 cells, found 80"
        );
        assert_eq!(
            message(bodies.next().unwrap()),
            "reference solution: expected 81 cells, found 82"
        );
        for body in bodies {
            assert_eq!(puzzle(body), (P.parse().unwrap(), None));
        }
    }

    #[test]
    fn raw_lines_parse_like_the_lines_they_came_from() {
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
        let (buffer, got) = read_raw(&text, Format::Lines);
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
