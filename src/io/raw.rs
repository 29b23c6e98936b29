//! The raw-record vocabulary every layout speaks, a leaf of `io` (it imports nothing from it):
//! the input [`Format`]s, the bounded line reader ([`read_line_bounded`], lines cut at
//! [`MAX_LINE`] bytes), the crate-private `Layout` trait each layout implements to cut
//! [`RawRecord`]s, and what a raw record is read into: its [`Fields`], then a [`Body`].
//!
//! A layout yields raw records (the text cut out, not yet split or parsed), so the thread that
//! reads only cuts; whoever consumes them reads their [`Fields`] (puzzle, solution and status
//! text as written, or a bad record's message) on its own thread. `solve` reads fields into a
//! [`Body`] (a puzzle grid and a reference solution); `verify` keeps the text, to say exactly
//! what is wrong with it.
//!
//! A record whose text is not a valid puzzle is still a record: it comes out as
//! [`Body::Invalid`] with a message, so the output keeps one row per input record, in order.

use std::borrow::Cow;
use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use crate::error::Result;
use crate::grid::Grid;

/// Longest line (or CSV record) read into memory; longer ones become bad records.
pub const MAX_LINE: usize = 64 * 1024;

/// Longest excerpt of a bad record echoed into the `puzzle` column.
const MAX_ECHO: usize = 100;

/// Tokens at least this long are puzzle candidates; shorter ones are ids, ratings, counts.
const MIN_PUZZLE_TOKEN: usize = 40;

pub use crate::error::OptionNames;

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

impl Format {
    /// Every format, `auto` first.
    pub const ALL: [Format; 4] = [Format::Auto, Format::Lines, Format::Csv, Format::Grid];

    /// The name used on the command line and in Python.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Lines => "lines",
            Format::Csv => "csv",
            Format::Grid => "grid",
        }
    }

    /// One line on what the format reads, for `--help`.
    pub const fn about(self) -> &'static str {
        match self {
            Format::Auto => "Decide from each input's content",
            Format::Lines => {
                "One puzzle per line (the first 81-cell token; ids and trailing text allowed)"
            }
            Format::Csv => "CSV with a header naming the puzzle column",
            Format::Grid => {
                "9 rows of 9 cells per puzzle (`|`, `-`, `+`, spaces allowed), blocks separated \
                 by blank lines or headers such as `Grid 01` (Project Euler 96)"
            }
        }
    }
}

impl std::str::FromStr for Format {
    type Err = crate::error::UnknownName;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                crate::error::UnknownName::new("format", name, Self::ALL.map(Format::name))
            })
    }
}

/// One layout's reader over one input: cuts raw records out of its stream, one at a time.
pub(crate) trait Layout {
    /// The next raw record, its text appended to `text` uncut into fields, or `None` at the end
    /// of the input.
    fn next_raw(&mut self, text: &mut Vec<u8>) -> Result<Option<RawRecord>>;

    /// Appends raw records to `out` (their text to `text`) until `out` holds `max` or `text`
    /// about `text_limit` bytes; false once the input has ended. A layout that can cut many
    /// records out of its read buffer at once overrides it.
    fn next_batch(
        &mut self,
        text: &mut Vec<u8>,
        out: &mut Vec<RawRecord>,
        max: usize,
        text_limit: usize,
    ) -> Result<bool> {
        while out.len() < max && text.len() < text_limit {
            match self.next_raw(text)? {
                Some(record) => out.push(record),
                None => return Ok(false),
            }
        }
        Ok(true)
    }
}

/// A raw record whose fields are still to be cut out of the text it was read into: a line of a
/// line file, a CSV row or a grid block's cells are handed on as text, so that worker threads
/// split and parse them rather than the one thread that reads (parsing on the reader capped how
/// well `solve` scales with threads).
#[derive(Debug, Clone, PartialEq)]
pub struct RawRecord {
    /// Position of the input file in the run's input list.
    pub file: u32,
    /// 1-based line of the record's start in its file.
    pub line: u64,
    pub(super) body: RawBody,
}

/// What a raw record holds, by the layout that cut it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum RawBody {
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

impl RawBody {
    /// A bad record: only the start of its text is kept, for the excerpt.
    pub(super) fn bad(text: &[u8], message: String) -> RawBody {
        RawBody::Bad {
            text: text[..text.len().min(MAX_ECHO)].to_vec(),
            message,
        }
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

impl<'a> Fields<'a> {
    /// The same fields without a solution, for a command that has no use for one (`rate`):
    /// a line's second long token is then ignored as a CSV file's solution column is.
    pub fn without_solution(&self) -> Fields<'a> {
        match self {
            Fields::Puzzle {
                format,
                puzzle,
                status,
                ..
            } => Fields::Puzzle {
                format: *format,
                puzzle,
                solution: None,
                status: *status,
            },
            bad => bad.clone(),
        }
    }
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
    /// A malformed record: an excerpt of `text` and what is wrong with it.
    pub(super) fn invalid(text: &[u8], message: impl Into<String>) -> Body {
        Body::Invalid {
            text: echo(text),
            message: message.into(),
        }
    }

    /// Reads a record's fields as a puzzle. A solution column of a CSV file must hold a complete
    /// grid (or nothing); so must the second long token of a line that is digits 1-9 only, 72 to
    /// 90 of them (a solution, whole or damaged); anything else there is other data, ignored.
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
            // In a line file the second long token may be other data (a second puzzle,
            // pencilmarks, a hash): it is the reference when it is a full grid, or a damaged
            // one, judged as a CSV column's (digits 1-9 only, a few cells more or fewer).
            Some(text) if format == Format::Lines && !is_reference_like(text) => None,
            Some(text) => {
                // The puzzle is well formed: the row shows it normalized, as any other.
                let invalid = |message: String| Body::Invalid {
                    text: puzzle.to_string(),
                    message,
                };
                match Grid::from_bytes(text) {
                    Ok(grid) if grid.is_complete() => Some(grid),
                    Ok(grid) => {
                        let blanks = 81 - grid.clue_count();
                        return invalid(format!(
                            "reference solution has {blanks} blank cell{}",
                            if blanks == 1 { "" } else { "s" }
                        ));
                    }
                    Err(e) => return invalid(format!("reference solution: {e}")),
                }
            }
        };
        Body::Puzzle { puzzle, reference }
    }

    /// [`Body::from_fields`] with any solution left out ([`Fields::without_solution`]).
    pub fn puzzle_only(fields: &Fields) -> Body {
        Body::from_fields(&fields.without_solution())
    }
}

/// Whether a line's second long token is a solution, whole or damaged (cells lost or doubled):
/// digits 1-9 only, within nine of 81 of them. Anything else (a second puzzle, 729 pencilmarks,
/// a long number) is other data.
fn is_reference_like(text: &[u8]) -> bool {
    (72..=90).contains(&text.len()) && text.iter().all(|b| (b'1'..=b'9').contains(b))
}

/// The first characters of `text`, lossily decoded, for echoing a bad record. A control
/// character (a NUL, a tab, an escape) shows as U+FFFD, like a byte that is not UTF-8: it
/// holds its place, so the cells a message counts are the cells the excerpt shows.
pub(super) fn echo(text: &[u8]) -> String {
    let cut = &text[..text.len().min(MAX_ECHO)];
    String::from_utf8_lossy(cut)
        .chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

/// `\n` and `\r` both end lines (`\r\n` leaves an empty line between, which is skipped).
pub(super) fn is_line_end(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

/// The lines `text` ends, counted as the record readers number them: `\n`, `\r\n` and a
/// lone `\r` each end one.
pub(super) fn lines_ended(text: &[u8]) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', text).count();
    let lone_returns = memchr::memchr_iter(b'\r', text)
        .filter(|&at| text.get(at + 1) != Some(&b'\n'))
        .count();
    (newlines + lone_returns) as u64
}

fn is_separator(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b',' | b':' | b';' | b'|')
}

/// The tokens of `line`: runs of bytes between whitespace, `,`, `:`, `;` and `|`.
pub(super) fn tokens(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|&b| is_separator(b)).filter(|t| !t.is_empty())
}

/// The tokens of `line` long enough to be a puzzle or a solution (shared: the line layout
/// finds its puzzle by them, and a CSV header holds none).
pub(super) fn long_tokens(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    tokens(line).filter(|t| t.len() >= MIN_PUZZLE_TOKEN)
}

/// Reads one line (without its line end) into `buf`, keeping at most `limit` bytes and skipping
/// the rest. Returns `None` at end of input, otherwise whether the line was longer than `limit`.
///
/// A line ends at `\n`, `\r\n` or a lone `\r` (old Mac files), each one line end.
pub fn read_line_bounded(
    stream: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Option<bool>> {
    buf.clear();
    append_line_bounded(stream, buf, limit)
}

/// The run's stop flag, once the run layer has handed it over ([`set_stop_flag`]).
static STOP: OnceLock<&'static AtomicBool> = OnceLock::new();

/// Hands the readers the flag a stop request (Ctrl-C, SIGTERM, SIGHUP) sets, so that skipping
/// the rest of an overlong record (a "line" of `/dev/zero` has no end) stops when it is set:
/// the input ends there for the reader, without that unfinished record (a run that is stopping
/// writes only whole records, so `--resume` reads it again), and the run stops.
pub fn set_stop_flag(flag: &'static AtomicBool) {
    let _ = STOP.set(flag);
}

/// Whether a stop was requested ([`set_stop_flag`]).
pub(super) fn stop_requested() -> bool {
    STOP.get().is_some_and(|flag| flag.load(Ordering::Relaxed))
}

/// Appends one line (without its line end: `\n`, `\r\n` or a lone `\r`) to `buf`, letting
/// `buf` grow to at most `limit` bytes and skipping the rest of the line. Returns `None` at end
/// of input (nothing appended), or when a stop is requested while the rest of an overlong line
/// is skipped or the input ends inside a line (the line is left unfinished: see
/// [`set_stop_flag`]); otherwise whether the line did not fit.
pub(super) fn append_line_bounded(
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
            // At a stop request the input may end inside a line (a pipe's wait cut short): the
            // line is unfinished.
            return Ok((seen_any && !stop_requested()).then_some(overlong));
        }
        seen_any = true;
        // `(line part, bytes used, line ended, a `\r` ended it as the buffer's last byte)`.
        let (chunk, used, done, cr_last) = match memchr::memchr2(b'\n', b'\r', available) {
            Some(i) if available[i] == b'\n' => (&available[..i], i + 1, true, false),
            Some(i) => match available.get(i + 1) {
                Some(b'\n') => (&available[..i], i + 2, true, false),
                Some(_) => (&available[..i], i + 1, true, false),
                None => (&available[..i], i + 1, true, true),
            },
            None => (available, available.len(), false, false),
        };
        let room = limit.saturating_sub(buf.len());
        if chunk.len() > room {
            overlong = true;
        }
        buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
        stream.consume(used);
        if cr_last {
            skip_lf(stream)?;
        }
        if done {
            return Ok(Some(overlong));
        }
        if overlong && stop_requested() {
            return Ok(None);
        }
    }
}

/// After a `\r` that ended a buffer: the `\n` of a `\r\n`, if it comes next, is the same
/// line end.
fn skip_lf(stream: &mut dyn BufRead) -> std::io::Result<()> {
    loop {
        match stream.fill_buf() {
            Ok(next) => {
                if next.first() == Some(&b'\n') {
                    stream.consume(1);
                }
                return Ok(());
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_echo_shows_every_cell_the_message_counts() {
        assert_eq!(echo(b"\0\0\0"), "\u{fffd}".repeat(3));
        let mut line = b"1.3".to_vec();
        line[1] = 0x1b;
        assert_eq!(echo(&line), "1\u{fffd}3");
        assert_eq!(echo(b"12\xff4").chars().count(), 4);
        assert_eq!(echo(&[b'5'; 500]).len(), MAX_ECHO);
    }

    #[test]
    fn lines_ended_counts_as_the_readers_number() {
        assert_eq!(lines_ended(b""), 0);
        assert_eq!(lines_ended(b"partial"), 0);
        assert_eq!(lines_ended(b"a\nb\r\nc\rd"), 3);
        assert_eq!(lines_ended(b"\r\n\r\n\r"), 3);
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
        assert_eq!(buf, b"ab");
        assert_eq!(
            read_line_bounded(&mut stream, &mut buf, 10).unwrap(),
            Some(false)
        );
        assert_eq!(buf, b"last");
        assert_eq!(read_line_bounded(&mut stream, &mut buf, 10).unwrap(), None);
    }

    #[test]
    fn cr_lf_and_crlf_each_end_one_line() {
        // One byte per read too, so a `\r\n` split across reads is still one line end.
        let text = b"a\r\nb\rc\nd\r\re\r\n\nf\r";
        let expected: Vec<&[u8]> = vec![b"a", b"b", b"c", b"d", b"", b"e", b"", b"f"];
        for capacity in [1, 2, 3, 64] {
            let mut stream = std::io::BufReader::with_capacity(capacity, &text[..]);
            let mut buf = Vec::new();
            let mut lines = Vec::new();
            while read_line_bounded(&mut stream, &mut buf, 10)
                .unwrap()
                .is_some()
            {
                lines.push(buf.clone());
            }
            assert_eq!(lines, expected, "capacity {capacity}");
        }
    }
}
