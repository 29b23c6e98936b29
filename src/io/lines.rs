//! The line layout: one record per line, cut at [`MAX_LINE`] bytes, the puzzle being the first
//! long token of the line and a solution the second (ids, counts and ratings around them are
//! allowed). Blank and `#` lines hold no record.

use std::borrow::Cow;
use std::io::BufRead;

use super::raw::{
    append_line_bounded, long_tokens, tokens, Body, Fields, Format, Layout, RawBody, RawRecord,
    MAX_LINE,
};
use crate::error::{Error, Result};
use crate::grid::Grid;

/// Cuts one line of a line file into its fields: `None` for a blank or `#` line.
///
/// The puzzle is the first token of 40 or more characters (tokens are separated by whitespace,
/// `,`, `:`, `;` or `|`), so a leading id and trailing ratings are allowed; the second such
/// token, if any, is the solution. A line without such a token is a bad record, whose message
/// says what is wrong with its longest token (or that it is a header whose columns are not
/// separated by commas).
pub fn line_fields(line: &[u8]) -> Option<Fields<'_>> {
    // The common case, a line of exactly 81 cell characters: it is its own only token (no
    // separator, not a comment), so skip the tokenising. Anything else takes the path below.
    if is_bare_puzzle(line) {
        return Some(Fields::Puzzle {
            format: Format::Lines,
            puzzle: line,
            solution: None,
            status: None,
        });
    }
    if is_skipped_line(line) {
        return None;
    }
    let line = line.trim_ascii();
    let mut long = long_tokens(line);
    let Some(puzzle) = long.next() else {
        // A line that is one short token is a puzzle of the wrong length (as the same text in
        // a CSV column, or given to the library, is), to be judged as one.
        if tokens(line).nth(1).is_none() && !line.is_empty() {
            return Some(Fields::Puzzle {
                format: Format::Lines,
                puzzle: line,
                solution: None,
                status: None,
            });
        }
        // No puzzle-length token: a header whose columns are not separated by commas (tabs,
        // semicolons), or else what is wrong with the longest token.
        let longest = tokens(line).max_by_key(|t| t.len()).unwrap_or(line);
        let message = if is_foreign_header(line) {
            "a header naming a puzzle column, but CSV is read with commas only: this input is \
             read as one puzzle per line (replace its separators with commas to read it as CSV)"
                .to_string()
        } else {
            match Grid::from_bytes(longest) {
                Err(e) => e.to_string(),
                Ok(_) => "no puzzle found".to_string(),
            }
        };
        return Some(Fields::Bad {
            text: line,
            message: Cow::Owned(message),
        });
    };
    Some(Fields::Puzzle {
        format: Format::Lines,
        puzzle,
        solution: long.next(),
        status: None,
    })
}

/// Whether a line without a puzzle is a header of columns separated by tabs or semicolons
/// (`id<TAB>puzzle`, `Quizzes;Solutions`): one of its fields is a puzzle column's name, and
/// it has no comma and no number (a title such as `Puzzle 1` has neither separator).
fn is_foreign_header(line: &[u8]) -> bool {
    line.iter().any(|&b| b == b'\t' || b == b';')
        && !line.contains(&b',')
        && !tokens(line).any(|t| t.iter().all(u8::is_ascii_digit))
        && tokens(line).any(super::csv::is_puzzle_header)
}

/// Parses one line of a line file: `None` for a blank or `#` line, otherwise the record body.
///
/// The puzzle is the first token of 40 or more characters (see [`line_fields`]). A second such
/// token of 72 to 90 digits 1-9 is the reference solution: 81 of them, or the record is
/// invalid (as a CSV solution column's); anything else there is other data.
pub fn parse_line(line: &[u8]) -> Option<Body> {
    line_fields(line).map(|fields| Body::from_fields(&fields))
}

/// Whether `line` is exactly 81 cell characters (`1`-`9`, `.`, `0`, `_`), branch-free so it
/// vectorizes.
fn is_bare_puzzle(line: &[u8]) -> bool {
    line.len() == crate::grid::CELLS
        && line.iter().fold(true, |ok, &b| {
            ok & ((b.wrapping_sub(b'0') <= 9) | (b == b'.') | (b == b'_'))
        })
}

/// Whether a line of a line file holds no record: blank, or a `#` comment.
fn is_skipped_line(line: &[u8]) -> bool {
    let line = line.trim_ascii_start();
    line.is_empty() || line[0] == b'#'
}

/// The records of one line file.
pub(super) struct LineSource {
    pub(super) stream: Box<dyn BufRead + Send>,
    pub(super) file: u32,
    pub(super) line: u64,
    pub(super) path: std::path::PathBuf,
}

/// Cuts the complete lines at the start of `buf` into records of file `file` (their ranges
/// offset by `base`, where `buf` will be appended to the text; `line` counts the lines),
/// stopping before a line that is not ended within `buf`, is longer than [`MAX_LINE`], or ends
/// with a `\r` that is `buf`'s last byte (its `\n` may come next): the line-at-a-time path reads
/// those. Stops after `max` records in `out` or once `room` bytes are covered. Returns how many
/// bytes of `buf` the lines cut cover.
fn cut_lines(
    buf: &[u8],
    (file, line): (u32, &mut u64),
    base: usize,
    out: &mut Vec<RawRecord>,
    (max, room): (usize, usize),
) -> usize {
    let mut start = 0;
    let limit = buf.len().min(room);
    while out.len() < max && start < limit {
        let Some(at) = memchr::memchr2(b'\n', b'\r', &buf[start..]) else {
            break;
        };
        let end = start + at;
        let next = match buf[end] {
            b'\n' => end + 1,
            _ => match buf.get(end + 1) {
                Some(b'\n') => end + 2,
                Some(_) => end + 1,
                None => break,
            },
        };
        if end - start > MAX_LINE {
            break;
        }
        *line += 1;
        if !is_skipped_line(&buf[start..end]) {
            out.push(RawRecord {
                file,
                line: *line,
                body: RawBody::Line(base + start..base + end),
            });
        }
        start = next;
    }
    start
}

impl Layout for LineSource {
    /// Cuts every complete line of the read buffer at once (one copy of their text), falling
    /// back to [`next_raw`](Layout::next_raw) for a line the buffer does not hold whole.
    fn next_batch(
        &mut self,
        text: &mut Vec<u8>,
        out: &mut Vec<RawRecord>,
        max: usize,
        text_limit: usize,
    ) -> Result<bool> {
        while out.len() < max && text.len() < text_limit {
            let buf = loop {
                match self.stream.fill_buf() {
                    Ok(buf) => break buf,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(cause) => {
                        return Err(Error::ReadAt {
                            path: self.path.clone(),
                            line: self.line + 1,
                            cause,
                        })
                    }
                }
            };
            if buf.is_empty() {
                return Ok(false);
            }
            let base = text.len();
            let room = text_limit - text.len();
            let used = cut_lines(buf, (self.file, &mut self.line), base, out, (max, room));
            text.extend_from_slice(&buf[..used]);
            if used > 0 {
                self.stream.consume(used);
                continue;
            }
            // A line the buffer does not hold whole (or a lone `\r` at its end).
            match self.next_raw(text)? {
                Some(record) => out.push(record),
                None => return Ok(false),
            }
        }
        Ok(true)
    }

    /// The next record, its line appended to `text` uncut into fields (blank and comment lines
    /// are skipped here; an overlong line comes back as a bad record).
    fn next_raw(&mut self, text: &mut Vec<u8>) -> Result<Option<RawRecord>> {
        loop {
            let start = text.len();
            let Some(overlong) = append_line_bounded(&mut *self.stream, text, start + MAX_LINE)
                .map_err(|source| Error::ReadAt {
                    path: self.path.clone(),
                    line: self.line + 1,
                    cause: source,
                })?
            else {
                return Ok(None);
            };
            self.line += 1;
            let line = &text[start..];
            let body = if overlong {
                let body = RawBody::bad(line, format!("line longer than {MAX_LINE} bytes"));
                text.truncate(start);
                body
            } else if is_skipped_line(line) {
                text.truncate(start);
                continue;
            } else {
                RawBody::Line(start..text.len())
            };
            return Ok(Some(RawRecord {
                file: self.file,
                line: self.line,
                body,
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::record::testing::*;

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
        // 81 bytes that are not all cells leave the fast path: a comment, a separator.
        assert_eq!(parse_line(format!("#{}", &P[1..]).as_bytes()), None);
        assert_eq!(
            message(parse_line(format!(" {}", &P[1..]).as_bytes())),
            "expected 81 cells, found 80"
        );
        assert_eq!(
            line_fields(P.replace('.', "_").as_bytes()),
            line_fields(format!(" {} ", P.replace('.', "_")).as_bytes())
        );
        assert_eq!(parse_line(b"   \r"), None);
    }

    #[test]
    fn bad_lines_say_why() {
        assert_eq!(
            message(parse_line(&P.as_bytes()[..80])),
            "expected 81 cells, found 80"
        );
        assert_eq!(message(parse_line(b"12 34")), "expected 81 cells, found 2");
        // A header with tabs or semicolons between its columns says so.
        for header in [&b"id\tpuzzle\tsolution"[..], b"Quizzes;Solutions"] {
            let text = message(parse_line(header));
            assert!(
                text.starts_with("a header naming a puzzle column"),
                "{text}"
            );
        }
        // Titles and comma headers read as lines are judged as puzzles of the wrong length.
        for line in [
            &b"Puzzle 1"[..],
            b"id,puzzle,solution",
            b"Grid;01",
            b"sudoku;12",
        ] {
            let text = message(parse_line(line));
            assert!(text.starts_with("expected 81 cells"), "{text}");
        }
        let stray = format!("x{}", &P[1..]);
        assert!(
            message(parse_line(stray.as_bytes())).starts_with("invalid character 'x' at cell 1")
        );
        let junk = [0xffu8; 81];
        assert!(message(parse_line(&junk)).contains("invalid character"));
    }
}
