//! Format detection: which layout (lines, CSV, grid blocks) an input uses, decided from its
//! first meaningful line, and `Peek`, the stream wrapper that gathers that line first.

use std::io::{BufRead, Read};

use super::grid::grid_cells;
use super::lines::long_tokens;
use super::record::MAX_LINE;
use crate::error::{Error, Result};
use crate::grid::cell_value;

/// Column names recognised as the puzzle column, compared without case.
pub const PUZZLE_COLUMNS: &[&str] = &["puzzle", "puzzles", "quizzes", "quiz", "sudoku", "grid"];

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

/// Decides an input's format from its first meaningful line. One read may return only a few
/// bytes (a pipe, a decompressor), so this gathers up to that line first; the returned stream
/// still yields every byte.
///
/// UTF-16 text with a byte order mark is decoded to UTF-8 first (and UTF-16 without one refused).
pub fn sniff_format(
    stream: Box<dyn BufRead + Send>,
    path: &std::path::Path,
) -> Result<(Box<dyn BufRead + Send>, Format)> {
    let peek = gather_text(stream, path)?;
    let format = detect_format(&peek.head);
    Ok((Box::new(peek), format))
}

/// `stream` with its first meaningful line gathered in one buffer, so the first `fill_buf`
/// sees at least that line whole (a file's byte order mark included), however few bytes each
/// read of the underlying stream returns.
pub(super) fn gather_head(stream: Box<dyn BufRead + Send>, path: &std::path::Path) -> Result<Peek> {
    let mut peek = Peek::new(stream);
    peek.head(MAX_LINE).map_err(|cause| Error::Read {
        path: path.to_path_buf(),
        cause,
    })?;
    Ok(peek)
}

/// Byte order marks of UTF-16: little-endian, then big-endian.
const UTF16_BOMS: [&[u8]; 2] = [b"\xff\xfe", b"\xfe\xff"];

/// [`gather_head`], as UTF-8 text: a stream that opens with a UTF-16 byte order mark (as
/// Windows tools write) is decoded to UTF-8 as it is read, its mark dropped, as ripgrep does;
/// UTF-16 without a mark is refused with a message that says so. Anything else (UTF-8, with
/// or without its mark, and any other bytes) is passed on as it is, unwrapped.
pub(super) fn gather_text(stream: Box<dyn BufRead + Send>, path: &std::path::Path) -> Result<Peek> {
    let peek = gather_head(stream, path)?;
    if UTF16_BOMS.iter().any(|bom| peek.head.starts_with(bom)) {
        let decoded = encoding_rs_io::DecodeReaderBytesBuilder::new()
            .strip_bom(true)
            .build(peek);
        let buffered = std::io::BufReader::with_capacity(super::READ_BUFFER, decoded);
        return gather_head(Box::new(buffered), path);
    }
    if let Some(order) = utf16_without_bom(&peek.head) {
        return Err(Error::Input {
            path: path.to_path_buf(),
            message: format!(
                "the input looks like UTF-16 ({order}) without a byte order mark, which cannot \
                 be read; convert it to UTF-8 (for example `iconv -f UTF-16{} -t UTF-8`) or \
                 save it as UTF-16 with a byte order mark",
                if order == "little-endian" { "LE" } else { "BE" }
            ),
        });
    }
    Ok(peek)
}

/// UTF-16 text without a byte order mark, told by its zero bytes: ASCII text in UTF-16 has a
/// zero byte in every pair, on the same side (the second for little-endian). Binary data and
/// runs of zeros do not look like this.
fn utf16_without_bom(head: &[u8]) -> Option<&'static str> {
    let pairs: Vec<&[u8]> = head[..head.len().min(1024)].chunks_exact(2).collect();
    if pairs.len() < 4 {
        return None;
    }
    let count = |side: usize| {
        pairs
            .iter()
            .filter(|pair| pair[side] == 0 && pair[1 - side] != 0)
            .count()
    };
    let (low_zero, high_zero) = (count(0), count(1));
    let most = pairs.len() * 9 / 10;
    if high_zero >= most {
        Some("little-endian")
    } else if low_zero >= most {
        Some("big-endian")
    } else {
        None
    }
}

/// A stream whose start can be looked at before it is read: [`Peek::head`] gathers bytes up to
/// the end of the first meaningful line (neither blank nor a `#` comment), however few bytes each
/// read of the underlying stream returns.
pub(super) struct Peek {
    inner: Box<dyn BufRead + Send>,
    pub(super) head: Vec<u8>,
    pos: usize,
}

impl Peek {
    pub(super) fn new(inner: Box<dyn BufRead + Send>) -> Self {
        Peek {
            inner,
            head: Vec::new(),
            pos: 0,
        }
    }

    /// The first bytes of the stream: at least through its first meaningful line, or `limit`
    /// bytes, or all of it if it is shorter.
    pub(super) fn head(&mut self, limit: usize) -> std::io::Result<&[u8]> {
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

/// `\n` and `\r` both end lines (`\r\n` leaves an empty line between, which is skipped).
fn is_line_end(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

/// Whether `head` holds a complete line that is neither blank nor a `#` comment.
fn has_meaningful_line(head: &[u8]) -> bool {
    let complete = match head.iter().rposition(|&b| is_line_end(b)) {
        Some(end) => &head[..end],
        None => return false,
    };
    complete.split(|&b| is_line_end(b)).any(|line| {
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
        .split(|&b| is_line_end(b))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::record::testing::*;

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
        // A lone `\r` ends the first line as `\n` does.
        assert_eq!(detect_format(b"puzzle\r1,2\r"), Format::Csv);
        assert!(has_meaningful_line(b"\r\rpuzzle\r"));
    }

    #[test]
    fn utf16_without_a_mark_is_told_from_binary() {
        let le: Vec<u8> = "puzzle\r\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let be: Vec<u8> = "puzzle\r\n"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        assert_eq!(utf16_without_bom(&le), Some("little-endian"));
        assert_eq!(utf16_without_bom(&be), Some("big-endian"));
        assert_eq!(utf16_without_bom(&[0; 64]), None);
        assert_eq!(utf16_without_bom(b"puzzle\n"), None);
        assert_eq!(utf16_without_bom(&le[..6]), None, "too short to tell");
    }
}
