//! Format detection: which layout (lines, CSV, grid blocks) an input uses, decided from its
//! first meaningful line by asking the layouts' own rules in a fixed order.

use std::io::BufRead;

use super::decode::gather_text;
use super::raw::{is_line_end, Format};
use super::{csv, grid};
use crate::error::Result;

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

/// Decides between lines, CSV and grids from the start of an input, asking the layouts in
/// order: a grid header (`Grid 01`, no comma, not a lone puzzle column name); a CSV header (a
/// comma or a lone puzzle column name, and no puzzle-like token); a grid border or row of exactly 9 cells; lines otherwise.
pub fn detect_format(head: &[u8]) -> Format {
    let mut meaningful = head
        .split(|&b| is_line_end(b))
        .map(|line| line.trim_ascii())
        .filter(|line| !line.is_empty() && !line.starts_with(b"#"));
    let first = meaningful.next();
    match first {
        // `grid,solution` is a CSV header whose puzzle column is named `grid`: a grid block's
        // header (`Grid 01`) holds no comma. A lone `grid` is either; the next line decides (a
        // row of 9 cells: a grid block), CSV when there is none in the head.
        Some(line)
            if grid::claims_header(line)
                && !line.contains(&b',')
                && (!csv::is_puzzle_header(line)
                    || meaningful.next().is_some_and(grid::claims_row)) =>
        {
            Format::Grid
        }
        Some(line) if csv::claims_header(line) => Format::Csv,
        Some(line) if grid::claims_row(line) => Format::Grid,
        _ => Format::Lines,
    }
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
        // A long column name is no puzzle; a long token of cells, even a damaged one, is.
        assert_eq!(
            detect_format(b"puzzle,rating_according_to_sudoku_explainer_1_2_1\n"),
            Format::Csv
        );
        assert_eq!(
            detect_format(b"puzzle,se_1_2_1_rating_2023_09_01_run_0001_0002\n"),
            Format::Csv
        );
        let damaged = format!("{}x{},note\n", &P[..40], &P[41..]);
        assert_eq!(detect_format(damaged.as_bytes()), Format::Lines);
        // A lone `\r` ends the first line as `\n` does.
        assert_eq!(detect_format(b"puzzle\r1,2\r"), Format::Csv);
    }

    #[test]
    fn detects_grids() {
        let text = format!("Grid 01\n{}\n", draw(P, 0));
        assert_eq!(detect_format(text.as_bytes()), Format::Grid);
        assert_eq!(detect_format(draw(P, 1).as_bytes()), Format::Grid);
        assert_eq!(detect_format(draw(P, 0).as_bytes()), Format::Grid);
        // A grid header is asked first, a CSV header before a grid row; a header line with a
        // comma is a CSV header even when its first column is `grid`.
        assert_eq!(detect_format(b"Grid 01\n"), Format::Grid);
        assert_eq!(detect_format(b"grid\n"), Format::Csv);
        assert_eq!(
            detect_format(format!("grid\n{P}\n").as_bytes()),
            Format::Csv
        );
        assert_eq!(
            detect_format(format!("Grid\n{}", draw(P, 0)).as_bytes()),
            Format::Grid
        );
        assert_eq!(detect_format(b"\"GRID\"\n"), Format::Csv);
        assert_eq!(detect_format(b"Grid 1\n"), Format::Grid);
        assert_eq!(detect_format(b"grid: 7\n"), Format::Grid);
        assert_eq!(detect_format(b"grid,note\n"), Format::Csv);
        assert_eq!(detect_format(b"grid id,puzzle\n"), Format::Csv);
        assert_eq!(detect_format(b"grid_id,puzzle,solution\n"), Format::Csv);
        assert_eq!(detect_format(b"1,2,3,4,5,6,7,8,9\n"), Format::Csv);
    }
}
