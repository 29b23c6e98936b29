//! The CSV layout, in one pass that both cuts and caps records: `CsvCap` passes the bytes on
//! with every record cut to [`MAX_LINE`] bytes (and notes each record's line), `CsvSplitter`
//! cuts records out of that by the quote rules without parsing them, and `with_csv_fields`
//! parses one record's fields with `csv_core` on whichever thread reads them. [`Columns`] says
//! which columns a consumer reads: the puzzle, a solution, a status.

use std::collections::VecDeque;
use std::io::{BufRead, Read};
use std::path::Path;

use super::input::Input;
use super::raw::{
    echo, long_tokens, Fields, Format, Layout, OptionNames, RawBody, RawRecord, MAX_LINE,
};
use crate::error::{Error, Result};
use crate::grid::cell_value;

// The UTF-8 byte order mark: a file's first one is dropped before any layout reads it
// (`decode::gather_text`); one that opens a row is data.
use super::decode::UTF8_BOM as BOM;

/// Column names recognised as the puzzle column, compared without case.
pub const PUZZLE_COLUMNS: &[&str] = &["puzzle", "puzzles", "quizzes", "quiz", "sudoku", "grid"];

/// Column names recognised as the solution column, compared without case.
pub const SOLUTION_COLUMNS: &[&str] = &["solution", "solutions"];

/// The name of the status column of `solve`'s output.
const STATUS_COLUMN: &str = "status";

/// Which CSV columns beyond the puzzle a consumer reads. The default is `solve`'s: a solution
/// column under a known name, if the file has one, as an optional reference.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Columns {
    /// The solution column by header name or 1-based number (default: a known name). A named
    /// column must exist.
    pub solution: Option<String>,
    /// A file without a solution column is an error.
    pub need_solution: bool,
    /// The solution is checked, not only a reference: a row too short to reach the solution
    /// column is a bad record, and a solution column that is the puzzle column is an error.
    pub check_solution: bool,
    /// Read the `status` column, when the file has one.
    pub status: bool,
    /// The command has `--solution-column` (`verify`): a solution column name found twice is
    /// then resolved with it; other commands can only ask for the header to be fixed.
    pub solution_option: bool,
    /// The command has no use for a solution (`rate`): no solution column is looked for, so
    /// one named twice is no error, and a line's second long token is ignored too.
    pub ignore_solution: bool,
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
///
/// A quoted field that goes on past a line end is held back (at most `limit` bytes) until its
/// quote closes. If it does not close within the limit (or before the input ends), or its
/// closing quote is followed by anything but a comma or a line end, the quote is taken as
/// unclosed: the record ends at that first line end (a [`Cut::Unclosed`] record), and
/// the held bytes are read again as new records from the next line. Without this, one stray
/// quote would make the rest of the file one record.
pub(super) struct CsvCap<R> {
    inner: R,
    scan: CapScan,
    /// Bytes to scan again before more input (after an unclosed quote), and how many of them
    /// were scanned.
    replay: Vec<u8>,
    replay_at: usize,
}

/// Why a record was cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cut {
    /// Longer than the limit.
    Long,
    /// A quoted field that spans a line end and does not close within the limit.
    Unclosed,
}

/// What [`CsvCap`] knows of the bytes it has seen: the CSV state, the record being passed on
/// or cut, and where records start and were cut.
struct CapScan {
    limit: usize,
    state: CsvState,
    record_len: usize,
    cutting: bool,
    close_quote: bool,
    /// Bytes to pass on before more input: a closing quote, a record's end, held bytes.
    queue: VecDeque<u8>,
    /// A quoted field crossed a line end: the bytes from there on are held in `held` until
    /// its quote closes; `held_line` is the line after that first line end.
    holding: bool,
    held: Vec<u8>,
    held_line: u64,
    /// Bytes for [`CsvCap`] to scan again, set when a held quote proves unclosed.
    to_replay: Vec<u8>,
    /// Bytes passed on so far.
    passed: u64,
    /// The 1-based line of the next input byte.
    line: u64,
    /// Whether the last input byte was a `\r` (so a `\n` right after it ends no new line).
    after_cr: bool,
    cuts: VecDeque<(u64, Cut)>,
    starts: VecDeque<(u64, u64)>,
    /// Copy runs of plain bytes at once (off only in tests, as the byte-by-byte reference).
    runs: bool,
    /// A stop was requested while a record was skipped or held: the input ends here, without
    /// that unfinished record.
    stopped: bool,
}

impl<R: BufRead> CsvCap<R> {
    fn new(inner: R, limit: usize) -> Self {
        CsvCap {
            inner,
            scan: CapScan {
                limit,
                state: CsvState::FieldStart,
                record_len: 0,
                cutting: false,
                close_quote: false,
                queue: VecDeque::new(),
                holding: false,
                held: Vec::new(),
                held_line: 0,
                to_replay: Vec::new(),
                passed: 0,
                line: 1,
                after_cr: false,
                cuts: VecDeque::new(),
                starts: VecDeque::new(),
                runs: true,
                stopped: false,
            },
            replay: Vec::new(),
            replay_at: 0,
        }
    }

    /// Forgets what lies before `offset`; then why a record in `offset..end` was cut (if it
    /// was), and the line where it starts.
    fn record_at(&mut self, offset: u64, end: u64) -> (Option<Cut>, Option<u64>) {
        self.scan.record_at(offset, end)
    }
}

impl CapScan {
    /// Ends a cut: queue the closing quote and the record's end.
    fn end_cut(&mut self, end: Option<u8>) {
        self.cutting = false;
        if self.close_quote {
            self.queue.push_back(b'"');
        }
        self.queue.extend(end);
        self.record_len = 0;
    }

    /// The held quoted field did not close: the record ends at the line end that started the
    /// hold (its quote closed there), and the bytes held after it are to be read again as new
    /// records from the next line. `at` is the offset of the next byte passed on.
    fn unclosed(&mut self, at: u64) {
        let first = self.held[0];
        self.cuts.push_back((at, Cut::Unclosed));
        self.queue.push_back(b'"');
        self.queue.push_back(first);
        self.to_replay.extend_from_slice(&self.held[1..]);
        self.held.clear();
        self.holding = false;
        self.state = CsvState::FieldStart;
        self.record_len = 0;
        self.line = self.held_line;
        self.after_cr = first == b'\r';
    }

    /// The input ended while a quoted field was held: a quote that has just closed (the last
    /// byte was it) keeps the field; one still open is unclosed.
    fn end_held(&mut self, at: u64) {
        if self.state == CsvState::QuoteInQuoted {
            self.keep_held(false);
        } else {
            self.unclosed(at);
        }
    }

    /// The held quoted field closed: it is a field with line ends, passed on as it is; the
    /// record goes on unless its last held byte ended it.
    fn keep_held(&mut self, ended: bool) {
        self.holding = false;
        self.record_len = if ended {
            0
        } else {
            self.record_len + self.held.len()
        };
        self.queue.extend(self.held.drain(..));
    }

    /// Copies queued bytes into `out`; returns how many.
    fn drain_pending(&mut self, out: &mut [u8]) -> usize {
        let n = self.queue.len().min(out.len());
        for (slot, byte) in out.iter_mut().zip(self.queue.drain(..n)) {
            *slot = byte;
        }
        self.passed += n as u64;
        n
    }

    /// Forgets what lies before `offset`; then why a record in `offset..end` was cut (if it
    /// was), and the line where it starts.
    fn record_at(&mut self, offset: u64, end: u64) -> (Option<Cut>, Option<u64>) {
        while self.cuts.front().is_some_and(|&(cut, _)| cut < offset) {
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
        let cut = self
            .cuts
            .front()
            .filter(|&&(cut, _)| cut <= end)
            .map(|&(_, why)| why);
        let line = self
            .starts
            .front()
            .filter(|&&(start, _)| start < end)
            .map(|&(_, line)| line);
        (cut, line)
    }

    /// Passes bytes of `input` on into `out`, cutting records at the limit, until either is
    /// used up or a cut record ends, a held quote resolves (so queued bytes go out first).
    /// Returns the input bytes used and the bytes written.
    #[inline]
    fn pass(&mut self, input: &[u8], out: &mut [u8]) -> (usize, usize) {
        let mut used = 0;
        let mut written = 0;
        while used < input.len() && written < out.len() {
            if self.runs
                && !self.cutting
                && !self.holding
                && self.record_len > 0
                && self.state != CsvState::Quoted
            {
                let run = self.copy_run(&input[used..], &mut out[written..]);
                if run > 0 {
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
            // `\n`, `\r\n` and a lone `\r` each end one line.
            self.line += u64::from(byte == b'\r' || (byte == b'\n' && !self.after_cr));
            self.after_cr = byte == b'\r';
            if self.holding {
                self.held.push(byte);
                // A quote that "closes" the field before anything but a comma, a line end or
                // another quote closes nothing a CSV writer would write: most likely the held
                // field's opening quote was stray, and this quote opens a later row's field.
                let junk_after_quote =
                    before == CsvState::QuoteInQuoted && after == CsvState::Unquoted;
                if junk_after_quote || self.record_len + self.held.len() > self.limit {
                    self.unclosed(self.passed + written as u64);
                    break;
                }
                if !matches!(after, CsvState::Quoted | CsvState::QuoteInQuoted) {
                    self.keep_held(ends_record);
                    break;
                }
                continue;
            }
            if self.cutting {
                // A cut quoted field ends at a line end too: what follows it past the limit
                // is read as new records, as after an unclosed quote.
                let quoted_line_end = after == CsvState::Quoted && (byte == b'\n' || byte == b'\r');
                if ends_record || quoted_line_end {
                    self.state = CsvState::FieldStart;
                    self.end_cut(Some(byte));
                    break;
                }
                continue;
            }
            if ends_record {
                self.record_len = 0;
            } else if before == CsvState::Quoted && (byte == b'\n' || byte == b'\r') {
                // A line end inside quotes (never a record's first byte): held until the quote
                // closes or proves unclosed, even where it is the byte past the limit.
                self.holding = true;
                self.held.push(byte);
                self.held_line = self.line;
                continue;
            } else {
                if self.record_len == 0 {
                    self.starts.push_back((self.passed + written as u64, line));
                }
                self.record_len += 1;
                if self.record_len > self.limit {
                    self.cutting = true;
                    self.close_quote = before == CsvState::Quoted;
                    self.cuts
                        .push_back((self.passed + written as u64, Cut::Long));
                    continue;
                }
            }
            out[written] = byte;
            written += 1;
        }
        self.passed += written as u64;
        (used, written)
    }

    /// Inside a record, outside quotes: bytes other than a quote or a line end change nothing
    /// but the field state, so a run of them (up to the limit) is copied from `rest` at once.
    /// Returns its length, 0 when `rest` starts with a quote or a line end.
    #[inline]
    fn copy_run(&mut self, rest: &[u8], out: &mut [u8]) -> usize {
        let max = rest.len().min(out.len()).min(self.limit - self.record_len);
        let run = memchr::memchr3(b'"', b'\n', b'\r', &rest[..max]).unwrap_or(max);
        if run > 0 {
            out[..run].copy_from_slice(&rest[..run]);
            self.state = match rest[run - 1] {
                b',' => CsvState::FieldStart,
                _ => CsvState::Unquoted,
            };
            self.record_len += run;
            self.after_cr = false;
        }
        run
    }
}

impl<R: BufRead> Read for CsvCap<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        loop {
            // A stop request while a record is skipped or held (it may have no end) ends the
            // input here; the splitter drops the unfinished record.
            if self.scan.stopped
                || ((self.scan.cutting || self.scan.holding) && super::raw::stop_requested())
            {
                self.scan.stopped = true;
                return Ok(0);
            }
            let n = self.scan.drain_pending(out);
            if n > 0 {
                return Ok(n);
            }
            let written = if self.replay_at < self.replay.len() {
                let (used, written) = self.scan.pass(&self.replay[self.replay_at..], out);
                self.replay_at += used;
                written
            } else {
                let input = match self.inner.fill_buf() {
                    Ok(input) => input,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                };
                if input.is_empty() {
                    if self.scan.holding {
                        self.scan.end_held(self.scan.passed);
                    } else if self.scan.cutting {
                        self.scan.end_cut(None);
                    } else {
                        return Ok(0);
                    }
                    0
                } else {
                    let (used, written) = self.scan.pass(input, out);
                    self.inner.consume(used);
                    written
                }
            };
            if !self.scan.to_replay.is_empty() {
                // Held bytes come before what was still to be read again.
                let rest = self.replay.split_off(self.replay_at);
                self.replay = std::mem::take(&mut self.scan.to_replay);
                self.replay.extend_from_slice(&rest);
                self.replay_at = 0;
            }
            if written > 0 {
                return Ok(written);
            }
        }
    }
}

/// The records of one CSV file.
pub(super) struct CsvSource {
    records: CsvSplitter<Box<dyn BufRead + Send>>,
    file: u32,
    puzzle_column: usize,
    solution_column: Option<usize>,
    status_column: Option<usize>,
    check_solution: bool,
    header: Vec<String>,
    path: std::path::PathBuf,
}

/// Whether `line`, the first meaningful line of an input, is a CSV header: a line with a comma
/// (such as `quizzes,solutions`) or a lone known puzzle column name (such as `puzzle`), holding
/// no token that looks like a puzzle (a line of puzzles separated by commas is the line
/// layout's).
pub(super) fn claims_header(line: &[u8]) -> bool {
    !long_tokens(line).any(mostly_cells) && (line.contains(&b',') || is_puzzle_header(line))
}

/// Whether a long token looks like a puzzle, even a damaged one: half or more of its
/// characters are cells (`1`-`9`, `.`, `0`, `_`) and under a tenth are letters. A long column
/// name (`rating_according_to_sudoku_explainer`, `se_rating_2023_09_01_run_0001`) has more
/// letters than that.
fn mostly_cells(token: &[u8]) -> bool {
    let cells = token.iter().filter(|&&b| cell_value(b).is_some()).count();
    let letters = token.iter().filter(|b| b.is_ascii_alphabetic()).count();
    cells * 2 >= token.len() && letters * 10 < token.len()
}

/// A one-column CSV header such as `puzzle`.
pub(super) fn is_puzzle_header(line: &[u8]) -> bool {
    let name = String::from_utf8_lossy(line);
    let name = name.trim().trim_start_matches('\u{feff}').trim_matches('"');
    PUZZLE_COLUMNS.iter().any(|c| c.eq_ignore_ascii_case(name))
}

/// Finds a column by a name or 1-based number given by the user (with `flag`, the option as
/// written before its value, such as `--column `), or else by the known
/// names (`None` when no known name is there). A name found in two columns is an error naming
/// both: taking the first would be a guess.
fn find_column(
    header: &[String],
    wanted: Option<&str>,
    known: &[&str],
    flag: Option<&str>,
    path: &std::path::Path,
) -> Result<Option<usize>> {
    let by_name = |names: &[&str]| -> Result<Option<usize>> {
        // The names in their order of preference: `puzzle` before `grid`, wherever each is.
        let Some(first) = names
            .iter()
            .find_map(|n| header.iter().position(|h| h.eq_ignore_ascii_case(n)))
        else {
            return Ok(None);
        };
        let name = &header[first];
        match header
            .iter()
            .skip(first + 1)
            .position(|h| h.eq_ignore_ascii_case(name))
        {
            None => Ok(Some(first)),
            Some(at) => Err(Error::Input {
                path: path.to_path_buf(),
                message: format!(
                    "the CSV header ({}) names two columns {:?}: column {} and column {}; {}",
                    show_header(header),
                    echo(name.as_bytes()),
                    first + 1,
                    first + 2 + at,
                    match flag {
                        Some(flag) => format!("give the one to use by number ({flag}N)"),
                        None => "rename one of them in the header".to_string(),
                    }
                ),
            }),
        }
    };
    let Some(wanted) = wanted else {
        return by_name(known);
    };
    // Header names are read trimmed (`id, puzzle` names `puzzle`), so the user's name is too.
    let wanted = wanted.trim();
    // A whole number within the header is a position, even where a column is named so: the
    // two-columns error above tells the user to give one by number, which must work.
    if let Some(n) = wanted
        .parse::<usize>()
        .ok()
        .filter(|&n| n >= 1 && n <= header.len())
    {
        return Ok(Some(n - 1));
    }
    by_name(&[wanted])?.map(Some).ok_or_else(|| Error::Input {
        path: path.to_path_buf(),
        message: match wanted.parse::<usize>() {
            Ok(n) => format!(
                "no column {n}: the CSV header ({}) has {} column(s), numbered from 1",
                show_header(header),
                header.len()
            ),
            Err(_) => format!(
                "no column {:?} in the CSV header ({})",
                echo(wanted.as_bytes()),
                show_header(header)
            ),
        },
    })
}

impl CsvSource {
    /// Reads the header of a CSV file and finds its columns: the puzzle column by `column` (or a
    /// known name), the others as `columns` asks.
    pub(super) fn new(
        stream: Box<dyn BufRead + Send>,
        input: &Input,
        file: u32,
        column: Option<&str>,
        columns: &Columns,
        names: &OptionNames,
    ) -> Result<Self> {
        let path = input.path();
        let mut records = CsvSplitter::new(CsvCap::new(stream, MAX_LINE));
        let header = read_header(&mut records, &path)?;
        let missing = |what: &str, hint: &str| Error::Input {
            path: path.clone(),
            message: if header_is_binary(&header) {
                format!(
                    "no {what} column: the first line is not text (a binary file?), so it is \
                     no CSV header"
                )
            } else {
                format!(
                    "no {what} column in the CSV header ({}); {hint}",
                    show_header(&header)
                )
            },
        };
        let puzzle_column = find_column(
            &header,
            column,
            PUZZLE_COLUMNS,
            Some(names.column_with_value),
            &path,
        )?
        .ok_or_else(|| missing("puzzle", &format!("name one with {}", names.column)))?;
        let mut solution_column = if columns.ignore_solution {
            None
        } else {
            find_column(
                &header,
                columns.solution.as_deref(),
                SOLUTION_COLUMNS,
                columns.solution_option.then_some("--solution-column "),
                &path,
            )?
        };
        if solution_column == Some(puzzle_column) {
            if columns.check_solution {
                return Err(Error::Input {
                    path,
                    message: format!(
                        "the puzzle and solution columns are both {:?}",
                        echo(header[puzzle_column].as_bytes())
                    ),
                });
            }
            solution_column = None;
        }
        if solution_column.is_none() && columns.need_solution {
            return Err(missing(
                "solution",
                "name one with --solution-column, or prove the puzzles alone with --unique",
            ));
        }
        let status_column = columns
            .status
            .then(|| {
                header
                    .iter()
                    .position(|h| h.eq_ignore_ascii_case(STATUS_COLUMN))
            })
            .flatten();
        Ok(CsvSource {
            records,
            file,
            puzzle_column,
            solution_column,
            status_column,
            check_solution: columns.check_solution,
            header,
            path,
        })
    }

    /// The message for a row too short to reach `column`.
    fn too_short(&self, fields: usize, what: &str, column: usize) -> String {
        format!(
            "row has {fields} field(s); the {what} column {:?} is field {}",
            echo(self.header[column].as_bytes()),
            column + 1
        )
    }
}

impl Layout for CsvSource {
    /// The next record; a well-formed row is appended to `text` whole, for
    /// [`RawRecord::with_fields`] (the worker threads split its fields).
    fn next_raw(&mut self, text: &mut Vec<u8>) -> Result<Option<RawRecord>> {
        let start = text.len();
        let Some(raw) = self.records.next(text).map_err(|source| Error::ReadAt {
            path: self.path.clone(),
            line: self.records.line(),
            cause: source,
        })?
        else {
            return Ok(None);
        };
        let (cut, line) = self.records.record_at(raw);
        let short_solution = self
            .solution_column
            .filter(|&c| self.check_solution && raw.fields <= c);
        let body = if cut.is_some() || raw.fields <= self.puzzle_column || short_solution.is_some()
        {
            // Read here: the message needs the row's fields.
            let row = csv_fields(&text[start..]);
            text.truncate(start);
            let why = |cut| match cut {
                Cut::Long => format!("record longer than {MAX_LINE} bytes"),
                Cut::Unclosed => format!(
                    "unclosed quote: a quoted field runs past this line and does not close \
                     (before a comma or a line end) within {MAX_LINE} bytes or before the end \
                     of the input; the row ends at this line"
                ),
            };
            match (row.get(self.puzzle_column), cut) {
                (Some(field), Some(cut)) => RawBody::bad(field, why(cut)),
                (None, Some(cut)) => RawBody::bad(b"", why(cut)),
                (None, None) => RawBody::bad(
                    &row.join(&b','),
                    self.too_short(row.len(), "puzzle", self.puzzle_column),
                ),
                (Some(_), None) => RawBody::bad(
                    &row.join(&b','),
                    self.too_short(row.len(), "solution", short_solution.unwrap_or(0)),
                ),
            }
        } else {
            RawBody::CsvRow {
                range: start..text.len(),
                puzzle: self.puzzle_column as u32,
                // A row too short for the solution column has none: `CsvRow::get` says so.
                solution: self.solution_column.map(|c| c as u32),
                status: self.status_column.map(|c| c as u32),
            }
        };
        Ok(Some(RawRecord {
            file: self.file,
            line,
            body,
        }))
    }
}

/// The fields of a CSV row (`record`, without its line end) in the columns found in its header.
pub(super) fn row_fields<T>(
    record: &[u8],
    puzzle: u32,
    solution: Option<u32>,
    status: Option<u32>,
    f: impl FnOnce(Option<&Fields>) -> T,
) -> T {
    with_csv_fields(record, |row| {
        let column = |c: Option<u32>| c.and_then(|c| row.get(c as usize)).map(<[u8]>::trim_ascii);
        match row.get(puzzle as usize) {
            None => f(None),
            Some(field) => f(Some(&Fields::Puzzle {
                format: Format::Csv,
                puzzle: field.trim_ascii(),
                solution: column(solution),
                status: column(status),
            })),
        }
    })
}

/// Where a record cut out by [`CsvSplitter`] lies in the bytes [`CsvCap`] passed on, and how
/// many fields it has.
#[derive(Debug, Clone, Copy)]
struct CsvSpan {
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

    /// The 1-based line of the next byte read from the input (where a failed read failed).
    fn line(&self) -> u64 {
        self.input.get_ref().scan.line
    }

    /// Why a record was cut short (if it was), and the line where it starts.
    fn record_at(&mut self, raw: CsvSpan) -> (Option<Cut>, u64) {
        let (cut, line) = self.input.get_mut().record_at(raw.start, raw.end);
        (cut, line.unwrap_or(0))
    }

    /// Appends the next record's bytes (without its line end) to `out`.
    fn next(&mut self, out: &mut Vec<u8>) -> std::io::Result<Option<CsvSpan>> {
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
                if self.input.get_ref().scan.stopped || super::raw::stop_requested() {
                    // The record was cut short by a stop request, not by the input's end (a
                    // pipe's wait for bytes ends at one too).
                    return Ok(None);
                }
                return Ok(start.map(|start| CsvSpan {
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
                return Ok(start.map(|start| CsvSpan {
                    start,
                    end: self.offset,
                    fields,
                }));
            }
        }
    }
}

/// The header of the CSV file at `path`: its first record's fields, trimmed, without a byte
/// order mark; none for an empty file. A header longer than [`MAX_LINE`] is an error.
fn read_header<R: BufRead>(records: &mut CsvSplitter<R>, path: &Path) -> Result<Vec<String>> {
    let mut header_text = Vec::new();
    // `#` comment lines (and blank lines) before the header are skipped, as the layout
    // detection skips them.
    let raw = loop {
        header_text.clear();
        let raw = records
            .next(&mut header_text)
            .map_err(|source| Error::Read {
                path: path.to_path_buf(),
                cause: source,
            })?;
        let text = header_text
            .strip_prefix("\u{feff}".as_bytes())
            .unwrap_or(&header_text);
        let text = text.trim_ascii();
        if raw.is_none() || !(text.is_empty() || text.starts_with(b"#")) {
            break raw;
        }
    };
    let fields = match raw {
        None => Vec::new(),
        Some(raw) => {
            let message = match records.record_at(raw).0 {
                Some(Cut::Long) => Some(format!("the CSV header is longer than {MAX_LINE} bytes")),
                Some(Cut::Unclosed) => Some("the CSV header has an unclosed quote".to_string()),
                None => None,
            };
            if let Some(message) = message {
                return Err(Error::Input {
                    path: path.to_path_buf(),
                    message,
                });
            }
            csv_fields(&header_text)
        }
    };
    Ok(fields
        .iter()
        .map(|field| {
            String::from_utf8_lossy(field)
                .trim()
                .trim_start_matches('\u{feff}')
                .to_string()
        })
        .collect())
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

/// One parsed CSV record: the unquoted fields back to back (or, for a record without quotes,
/// the record itself, its fields separated by one comma each), and where each field ends.
struct CsvRow<'a> {
    fields: &'a [u8],
    ends: &'a [usize],
    /// Whether one separator byte lies between fields.
    separated: bool,
}

impl CsvRow<'_> {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> Option<&[u8]> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 {
            0
        } else {
            self.ends[i - 1] + usize::from(self.separated)
        };
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
        // Without a quote (and without a byte order mark, which csv_core would look at) the
        // fields are the pieces between commas, found with SIMD scans: csv_core's byte-at-a-time
        // parse was 3% of a million-row `quizzes,solutions` run.
        if memchr::memchr(b'"', record).is_none() && !record.starts_with(BOM) {
            ends.clear();
            ends.extend(memchr::memchr_iter(b',', record));
            ends.push(record.len());
            return f(&CsvRow {
                fields: record,
                ends,
                separated: true,
            });
        }
        parser.reset();
        // Unquoting never makes a field longer, so the record's length suffices. The buffer
        // only grows: shrinking it would rewrite zeros on the next longer row.
        if output.len() < record.len().max(1) {
            output.resize(record.len().max(1), 0);
        }
        ends.resize(ends.len().max(16), 0);
        // After `reset`, csv_core drops a UTF-8 BOM at the start of its first input, as at the
        // start of a file. A file's BOM never gets here (`gather_text` drops it); one starting a row
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
            separated: false,
        })
    })
}

/// Whether a header line holds bytes no text has: invalid UTF-8 (read as U+FFFD) or control
/// characters other than a tab.
fn header_is_binary(header: &[String]) -> bool {
    header.iter().any(|h| {
        h.chars()
            .any(|c| c == '\u{fffd}' || (c.is_control() && c != '\t'))
    })
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
    use crate::io::raw::Body;
    use crate::io::raw::OptionNames;
    use crate::io::record::testing::*;
    use crate::io::record::{ReadOptions, RecordReader};

    /// The body `solve` reads from a CSV row's puzzle field and solution field.
    fn parse_csv_fields(field: &[u8], solution: Option<&[u8]>) -> Body {
        Body::from_fields(&Fields::Puzzle {
            format: Format::Csv,
            puzzle: field.trim_ascii(),
            solution: solution.map(<[u8]>::trim_ascii),
            status: None,
        })
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
                // A quote still open at the end is an unclosed quote here, where the csv crate
                // takes the rest of the input as the field (the unit tests above cover it).
                let end = text.bytes().fold(CsvState::FieldStart, |s, b| s.step(b).0);
                prop_assume!(end != CsvState::Quoted);
                // So is a quoted field that crosses a line end and "closes" before anything but
                // a comma, a line end or a quote, where the csv crate reads on.
                let (mut state, mut crossed, mut junk) = (CsvState::FieldStart, false, false);
                for b in text.bytes() {
                    let after = state.step(b).0;
                    crossed |= state == CsvState::Quoted && (b == b'\n' || b == b'\r');
                    junk |=
                        crossed && state == CsvState::QuoteInQuoted && after == CsvState::Unquoted;
                    crossed &= matches!(after, CsvState::Quoted | CsvState::QuoteInQuoted);
                    state = after;
                }
                prop_assume!(!junk);
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
        (out, cap.scan.cuts.into_iter().map(|(at, _)| at).collect())
    }

    #[test]
    fn records_without_quotes_split_as_the_csv_crate_splits_them() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        let bytes = proptest::sample::select(&b"ab,, 7\t\xef\xbb\xbf"[..]);
        TestRunner::new(Config::with_cases(2000))
            .run(&proptest::collection::vec(bytes, 1..40), |record| {
                let mut oracle = csv::ReaderBuilder::new()
                    .flexible(true)
                    .has_headers(false)
                    .from_reader(&record[..]);
                let mut row = csv::ByteRecord::new();
                let expected: Vec<Vec<u8>> = if oracle.read_byte_record(&mut row).unwrap() {
                    row.iter().map(<[u8]>::to_vec).collect()
                } else {
                    vec![]
                };
                // The csv reader drops a byte order mark that opens its input; ours keeps it.
                prop_assume!(!record.starts_with(BOM));
                prop_assert_eq!(csv_fields(&record), expected, "{:?}", record);
                Ok(())
            })
            .unwrap();
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
            cap.scan.runs = runs;
            let mut out = Vec::new();
            let mut buf = vec![0u8; read];
            let mut starts = Vec::new();
            loop {
                let n = cap.read(&mut buf).unwrap();
                // Record starts are consumed as the parser advances; collect them per read.
                starts.extend(cap.scan.starts.drain(..));
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
            }
            (out, Vec::from(cap.scan.cuts), starts, cap.scan.line)
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
        // A quoted field with line ends that closes within the limit passes on as it is.
        let (out, cuts) = csv_records(b"h\n\"01\n2\r\n3\",y\nok\n", 12);
        assert_eq!(
            (out.as_slice(), cuts.len()),
            (&b"h\n\"01\n2\r\n3\",y\nok\n"[..], 0)
        );
        // One that does not is an unclosed quote: the record ends at its first line end (the
        // quote closed there), and the lines after it are read again as records.
        let (out, cuts) = csv_records(b"h\n\"0123\n5678\n\"\"x\",y\nok\n", 8);
        assert_eq!(out, b"h\n\"0123\"\n5678\n\"\"x\",y\nok\n");
        assert_eq!(cuts, [7]);
        // Also where the line end inside the quote is the byte past the limit: it ends the
        // record, and the next line is read again.
        let (out, cuts) = csv_records(b"h\n\"0123456\nok\nz\n", 8);
        assert_eq!(out, b"h\n\"0123456\"\nok\nz\n");
        assert_eq!(cuts, [10]);
        // So is one still open at the end of the input.
        let (out, cuts) = csv_records(b"h\na,\"b\r\nc\nd", 8);
        assert_eq!(out, b"h\na,\"b\"\r\nc\nd");
        assert_eq!(cuts, [6]);
        // A stray quote mid-field is literal, as for the parser: nothing is cut.
        let (out, cuts) = csv_records(b"a\"b\nc\nd\n", 4);
        assert_eq!((out.as_slice(), cuts.len()), (&b"a\"b\nc\nd\n"[..], 0));
    }

    #[test]
    fn long_csv_records_are_invalid_rows_at_the_right_line() {
        let long = "7".repeat(MAX_LINE + 10);
        let text = format!("puzzle,solution\n{P},{S}\n{P},\"{S}{long}\"\n\n{P},{S}\n");
        let records = read_all(text.as_bytes(), Format::Auto);
        assert_eq!(records.len(), 3);
        assert_eq!(records[1].line, 3);
        assert_eq!(
            message(Some(records[1].body.clone())),
            format!("record longer than {MAX_LINE} bytes")
        );
        assert_eq!(records[2].line, 5, "after a blank line too");
        assert_eq!(
            puzzle(Some(records[2].body.clone())).1,
            Some(S.parse().unwrap())
        );
        // A quoted field running over line ends past the limit is an unclosed quote: its row
        // is bad, and the next lines are rows again (here an overlong one, then a good one).
        let text = format!("puzzle,solution\n{P},\"{S}\n{long}\"\n\n{P},{S}\n");
        let records = read_all(text.as_bytes(), Format::Auto);
        let lines: Vec<u64> = records.iter().map(|r| r.line).collect();
        assert_eq!(lines, [2, 3, 5]);
        assert!(message(Some(records[0].body.clone())).starts_with("unclosed quote"));
        assert_eq!(
            message(Some(records[1].body.clone())),
            format!("record longer than {MAX_LINE} bytes")
        );
        // A quoted field over the limit on its own line is cut, and its quote ends at the
        // line's end: the next lines are rows again.
        let text = format!("puzzle,solution\n{P},\"{long}\n{P},{S}\n{P},{S}\n");
        let records = read_all(text.as_bytes(), Format::Auto);
        let lines: Vec<u64> = records.iter().map(|r| r.line).collect();
        assert_eq!(lines, [2, 3, 4]);
        assert_eq!(
            message(Some(records[0].body.clone())),
            format!("record longer than {MAX_LINE} bytes")
        );
        assert_eq!(
            puzzle(Some(records[2].body.clone())).1,
            Some(S.parse().unwrap())
        );
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
        // The same, one byte per read, with `--format csv` (detection would look at the first
        // line, `"x`, so the format is given): the head is gathered whole all the same.
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

    #[test]
    fn a_csv_whose_first_column_is_grid_keeps_every_row() {
        // Detected as CSV (not as grid blocks under a `Grid` header), every row read.
        let text = format!("grid,solution\n{P},{S}\n{P},{S}\n{P},{S}\n");
        let records = read_all(text.as_bytes(), Format::Auto);
        assert_eq!(records.len(), 3);
        for (k, record) in records.iter().enumerate() {
            assert_eq!(record.line, k as u64 + 2);
            let (grid, reference) = puzzle(Some(record.body.clone()));
            assert_eq!(grid, P.parse().unwrap());
            assert_eq!(reference, Some(S.parse().unwrap()));
        }
        // Of two known names, the preferred one (`puzzle`) is the puzzle column, wherever it is.
        let text = format!("grid,puzzle\nx,{P}\n");
        let records = read_all(text.as_bytes(), Format::Auto);
        assert_eq!(records.len(), 1);
        assert_eq!(puzzle(Some(records[0].body.clone())).0, P.parse().unwrap());
    }

    #[test]
    fn messages_name_the_options_as_the_caller_spells_them() {
        let error = |text: &str, format: Format, column: Option<&str>, names| {
            let options = ReadOptions {
                format,
                column: column.map(str::to_string),
            };
            let stream = Box::new(std::io::Cursor::new(text.as_bytes().to_vec()));
            RecordReader::from_stream(stream, options)
                .with_option_names(names)
                .next()
                .unwrap()
                .unwrap_err()
                .to_string()
        };
        let keywords = OptionNames {
            column: "column=",
            column_with_value: "column=",
            csv_format: "format=\"csv\"",
            ..OptionNames::CLI
        };
        for (names, missing, twice, not_csv) in [
            (
                OptionNames::CLI,
                "name one with --column",
                "(--column N)",
                "--column \"2\" names a CSV column, but this input is read as lines (not CSV); \
                 drop --column, or give --format csv if it is CSV",
            ),
            (
                keywords,
                "name one with column=",
                "(column=N)",
                "column=\"2\" names a CSV column, but this input is read as lines (not CSV); \
                 drop column=, or give format=\"csv\" if it is CSV",
            ),
        ] {
            let got = error("a,b\n1,2\n", Format::Csv, None, names);
            assert!(got.ends_with(missing), "{got}");
            let got = error(
                &format!("puzzle,puzzle\n{P},{P}\n"),
                Format::Csv,
                None,
                names,
            );
            assert!(got.ends_with(twice), "{got}");
            let got = error(&format!("{P}\n"), Format::Auto, Some("2"), names);
            assert!(got.ends_with(not_csv), "{got}");
        }
        // A solution column named twice: only `verify` has `--solution-column` to pick one.
        let text = format!("puzzle,solution,solution\n{P},{S},{S}\n");
        for (solution_option, advice) in [
            (false, "; rename one of them in the header"),
            (
                true,
                "; give the one to use by number (--solution-column N)",
            ),
        ] {
            let stream = Box::new(std::io::Cursor::new(text.as_bytes().to_vec()));
            let got = RecordReader::from_stream(stream, ReadOptions::default())
                .with_columns(Columns {
                    solution_option,
                    ..Columns::default()
                })
                .next()
                .unwrap()
                .unwrap_err()
                .to_string();
            assert!(got.ends_with(advice), "{got}");
        }
        // `rate` looks for no solution column: the same file reads.
        let stream = Box::new(std::io::Cursor::new(text.as_bytes().to_vec()));
        let records = RecordReader::from_stream(stream, ReadOptions::default())
            .with_columns(Columns {
                ignore_solution: true,
                ..Columns::default()
            })
            .collect::<Result<Vec<_>>>()
            .unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(
            puzzle(Some(records[0].body.clone())),
            (P.parse().unwrap(), None)
        );
    }
}
