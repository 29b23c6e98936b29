//! The grid layout: puzzles drawn as 9 rows of 9 cells, one record per block (the Project
//! Euler 96 shape, `Grid 01` then 9 rows, and bordered drawings alike).

use std::io::BufRead;

use super::raw::{read_line_bounded, Layout, RawBody, RawRecord, MAX_LINE};
use crate::error::{Error, Result};
use crate::grid::cell_value;

/// Whether `line`, the first meaningful line of an input, is a grid header: `Grid 01`,
/// `GRID: 7`, the header Project Euler 96 puts before each puzzle. Asked before any other
/// layout's rule (a lone `grid`, also a CSV column name, is a grid header only when a grid row
/// follows it: the caller decides).
pub(super) fn claims_header(line: &[u8]) -> bool {
    line.len() >= 4
        && line[..4].eq_ignore_ascii_case(b"grid")
        && line.get(4).is_none_or(|b| !b.is_ascii_alphabetic())
}

/// Whether `line`, the first meaningful line of an input (and not a CSV header), starts a
/// drawn grid: a separator line (only `|`, `-`, `+`, spaces, with at least one `-` or `+`) or a
/// row with exactly 9 cells, and no comma.
pub(super) fn claims_row(line: &[u8]) -> bool {
    if line.contains(&b',') {
        return false;
    }
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

/// Reads puzzles drawn as 9 rows of 9 cells.
///
/// A row is a line whose cells remain after removing `|`, `-`, `+` and whitespace; a line left
/// with no cells is a border and is skipped. A line starting with a letter or `#` (such as
/// `Grid 01`) is a header; it and blank lines end an incomplete block, and a `Grid 01` header
/// that no row follows (before the next `Grid` header or the end) is a bad record. Nine rows
/// make a block,
/// whose record line is the block's first line (its header, when it has one). A block with a
/// row of the wrong width, or cut short, is one bad record.
pub(super) struct GridSource {
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
    /// The line of a `Grid NN` header no row has followed yet: another header or the end of
    /// the input then makes it a bad record, so a puzzle cut off after its header is not lost.
    announced: Option<u64>,
}

impl GridSource {
    pub(super) fn new(
        stream: Box<dyn BufRead + Send>,
        file: u32,
        path: std::path::PathBuf,
    ) -> Self {
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
            announced: None,
        }
    }

    /// The bad record of a `Grid NN` header at `line` that no row followed.
    fn empty_block(&self, line: u64) -> RawRecord {
        RawRecord {
            file: self.file,
            line,
            body: RawBody::bad(&[], "grid header with no grid rows after it".to_string()),
        }
    }

    /// Ends the current block as a record and resets the state for the next one: a complete
    /// block's cells are appended to `text` as its puzzle field.
    fn take_block(&mut self, cut_short: bool, text: &mut Vec<u8>) -> RawRecord {
        let line = self.start.unwrap_or(self.line);
        let problem = self
            .problem
            .take()
            .or_else(|| cut_short.then(|| format!("grid block has {} of 9 rows", self.rows)));
        let body = match problem {
            Some(message) => RawBody::bad(&self.cells, message),
            None => {
                let start = text.len();
                text.extend_from_slice(&self.cells);
                RawBody::Cells(start..text.len())
            }
        };
        self.start = None;
        self.rows = 0;
        self.cells.clear();
        RawRecord {
            file: self.file,
            line,
            body,
        }
    }
}

impl Layout for GridSource {
    /// The next block.
    fn next_raw(&mut self, text: &mut Vec<u8>) -> Result<Option<RawRecord>> {
        loop {
            let Some(overlong) = read_line_bounded(&mut *self.stream, &mut self.buf, MAX_LINE)
                .map_err(|source| Error::ReadAt {
                    path: self.path.clone(),
                    line: self.line + 1,
                    cause: source,
                })?
            else {
                // At a stop request the input ends inside a line: the block is unfinished.
                if super::raw::stop_requested() {
                    return Ok(None);
                }
                if let Some(line) = self.announced.take() {
                    return Ok(Some(self.empty_block(line)));
                }
                return Ok((self.rows > 0).then(|| self.take_block(true, text)));
            };
            self.line += 1;
            let row = self.buf.trim_ascii();
            if row.is_empty() {
                if self.rows > 0 {
                    return Ok(Some(self.take_block(true, text)));
                }
                self.start = None;
                continue;
            }
            if row[0].is_ascii_alphabetic() || row[0] == b'#' {
                // A comment or title line between a `Grid` header and its rows ends nothing.
                let header = claims_header(row).then_some(self.line);
                let record = match (self.announced, header) {
                    (Some(line), Some(_)) => Some(self.empty_block(line)),
                    _ => (self.rows > 0).then(|| self.take_block(true, text)),
                };
                if header.is_some() {
                    self.announced = header;
                }
                self.start = Some(self.line);
                match record {
                    Some(record) => return Ok(Some(record)),
                    None => continue,
                }
            }
            let cells = grid_cells(row);
            self.start.get_or_insert(self.line);
            if cells.is_empty() && !overlong {
                continue; // a border line
            }
            self.announced = None;
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
                return Ok(Some(self.take_block(false, text)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Grid;
    use crate::io::raw::{Body, Format};
    use crate::io::record::testing::*;

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
        assert!(claims_header(b"Grid 01"));
        assert!(claims_row(draw(P, 1).lines().next().unwrap().as_bytes()));
        assert!(claims_row(draw(P, 0).lines().next().unwrap().as_bytes()));
        let records = read_all(text.as_bytes(), Format::Auto);
        let lines: Vec<u64> = records.iter().map(|r| r.line).collect();
        assert_eq!(lines, [1, 11, 22, 38]);
        assert_eq!(puzzle(Some(records[0].body.clone())).0, p);
        assert_eq!(puzzle(Some(records[1].body.clone())).0, S.parse().unwrap());
        assert_eq!(puzzle(Some(records[2].body.clone())).0, p);
        assert_eq!(puzzle(Some(records[3].body.clone())).0, p);
    }

    #[test]
    fn a_grid_header_that_no_row_follows_is_a_bad_record() {
        // Grid 02 is followed by the next header, Grid 04 by the end of the input (a file cut
        // off after a header): each is a bad record at its line, and the others read as before.
        let text = format!(
            "Grid 01\n{}\nGrid 02\n\nGrid 03\n{}\nGrid 04\n+---+\n",
            draw(P, 0),
            draw(P, 1)
        );
        let records = read_all(text.as_bytes(), Format::Auto);
        let lines: Vec<u64> = records.iter().map(|r| r.line).collect();
        assert_eq!(lines, [1, 11, 13, 28]);
        assert_eq!(puzzle(Some(records[0].body.clone())).0, P.parse().unwrap());
        assert_eq!(puzzle(Some(records[2].body.clone())).0, P.parse().unwrap());
        for k in [1, 3] {
            assert_eq!(
                message(Some(records[k].body.clone())),
                "grid header with no grid rows after it"
            );
        }
        // A title line that is not a `Grid` header announces nothing, and a comment between a
        // header and its rows ends nothing.
        for text in [
            format!("Puzzles of the week\n{}\n", draw(P, 0)),
            format!("Grid 01\n# easy\n{}\n", draw(P, 0)),
        ] {
            let records = read_all(text.as_bytes(), Format::Grid);
            assert_eq!(records.len(), 1, "{text}");
            assert_eq!(puzzle(Some(records[0].body.clone())).0, P.parse().unwrap());
        }
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
}
