//! The datasets `bench` measures: the built-in graded suite embedded in the binary, puzzle
//! files loaded through the record reader, and the SHA-256 identity of a puzzle list.

use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::grid::Grid;
use crate::io::Input;
use crate::io::{parse_line, Body, ReadOptions, RecordReader};

/// Puzzles of the Sudoku Exchange "diabolical" bank used as the `moderate` dataset.
const MODERATE_PUZZLES: usize = 10_000;

/// A list of puzzles held in memory, with its identity.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Name in the results: the built-in grade or the input's file name.
    pub name: String,
    /// The puzzles.
    pub puzzles: Vec<Grid>,
    /// Reference solutions from the input, where it has them (checked in the check pass).
    pub references: Vec<Option<Grid>>,
    /// The input line of each puzzle (1-based), for messages that name one.
    pub lines: Vec<u64>,
    /// Records left out because they were not valid puzzles (malformed or contradictory).
    pub invalid: u64,
    /// The input lines of the first few of them.
    pub invalid_lines: Vec<u64>,
    /// SHA-256 of the puzzle list: each puzzle in 81-character `.` notation plus `\n`.
    pub sha256: String,
}

impl Dataset {
    /// The dataset of the records `bodies`, each with its input line.
    fn from_bodies(name: String, bodies: impl IntoIterator<Item = (u64, Body)>) -> Dataset {
        let mut puzzles = Vec::new();
        let mut references = Vec::new();
        let mut lines = Vec::new();
        let mut invalid = 0;
        let mut invalid_lines = Vec::new();
        for (line, body) in bodies {
            match body {
                Body::Puzzle { puzzle, reference } if puzzle.first_conflict().is_none() => {
                    puzzles.push(puzzle);
                    references.push(reference);
                    lines.push(line);
                }
                _ => {
                    invalid += 1;
                    if invalid_lines.len() < LINES_SHOWN {
                        invalid_lines.push(line);
                    }
                }
            }
        }
        let sha256 = puzzle_list_sha256(&puzzles);
        Dataset {
            name,
            puzzles,
            references,
            lines,
            invalid,
            invalid_lines,
            sha256,
        }
    }
}

impl Dataset {
    /// "NAME: 2 invalid records skipped (lines 3, 5)".
    pub(crate) fn skipped_note(&self) -> String {
        format!(
            "{}: {} invalid records skipped ({})",
            self.name,
            self.invalid,
            lines_named(&self.invalid_lines, self.invalid)
        )
    }
}

/// How many input lines a note lists before "...".
pub(crate) const LINES_SHOWN: usize = 5;

/// `lines` (the first of `count`) as a note names them: "line 4", "lines 4, 9, ...".
pub(crate) fn lines_named(lines: &[u64], count: u64) -> String {
    let list: Vec<String> = lines.iter().take(LINES_SHOWN).map(u64::to_string).collect();
    let more = if count as usize > list.len() {
        ", ..."
    } else {
        ""
    };
    let word = if count == 1 { "line" } else { "lines" };
    format!("{word} {}{more}", list.join(", "))
}

/// SHA-256 (hex) of puzzles written one per line in `.` notation: `sha256sum` of such a file.
pub fn puzzle_list_sha256(puzzles: &[Grid]) -> String {
    let mut hasher = Sha256::new();
    for puzzle in puzzles {
        hasher.update(puzzle.to_bytes());
        hasher.update(b"\n");
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A built-in dataset: grade, source file, lines to use.
struct Builtin {
    name: &'static str,
    text: &'static str,
    skip_header: bool,
    limit: usize,
}

/// The built-in suite, embedded in the binary, from easiest to hardest (see `data/README.md`).
const SUITE: &[Builtin] = &[
    // Kaggle "3 million Sudoku puzzles with ratings": typical newspaper puzzles.
    Builtin {
        name: "easy",
        text: include_str!("../../../data/kaggle3m_radcliffe_first1000.csv"),
        skip_header: true,
        limit: usize::MAX,
    },
    // Sudoku Exchange "diabolical" tier, first 10,000: human-hard, machine-moderate.
    Builtin {
        name: "moderate",
        text: include_str!("../../../data/sudokuexchange_diabolical_2020_39719.txt"),
        skip_header: false,
        limit: MODERATE_PUZZLES,
    },
    // magictour top1465: the classic "hard" benchmark.
    Builtin {
        name: "hard",
        text: include_str!("../../../data/magictour_top1465.txt"),
        skip_header: false,
        limit: usize::MAX,
    },
    // The forum's hardest-puzzles database (375): many guesses per puzzle.
    Builtin {
        name: "hardest",
        text: include_str!("../../../data/norvig_sudokus_hard_375.txt"),
        skip_header: false,
        limit: usize::MAX,
    },
];

/// What each built-in dataset is, for `--help` and the README.
pub(crate) const SUITE_HELP: &str = "easy = data/kaggle3m_radcliffe_first1000.csv (1,000); \
     moderate = first 10,000 of data/sudokuexchange_diabolical_2020_39719.txt; \
     hard = data/magictour_top1465.txt (1,465); hardest = data/norvig_sudokus_hard_375.txt (375)";

/// The built-in graded suite: easy, moderate, hard, hardest.
pub(crate) fn builtin_suite() -> Vec<Dataset> {
    SUITE
        .iter()
        .map(|b| {
            let skip = usize::from(b.skip_header);
            let lines = b.text.lines().enumerate().skip(skip);
            let bodies = lines.filter_map(|(i, line)| {
                parse_line(line.as_bytes()).map(|body| (i as u64 + 1, body))
            });
            Dataset::from_bodies(b.name.to_string(), bodies.take(b.limit))
        })
        .collect()
}

/// Loads one input file as a dataset: its valid puzzles, in order.
pub(crate) fn load_dataset(input: &Input, read: &ReadOptions) -> Result<Dataset> {
    input.check()?;
    let reader = RecordReader::new(vec![input.clone()], read.clone(), Arc::default());
    let mut bodies = Vec::new();
    for record in reader {
        let record = record?;
        bodies.push((record.line, record.body));
    }
    let name = match input {
        Input::Stdin => "-".to_string(),
        Input::File(path) => path.file_name().map_or_else(
            || input.display_name(),
            |n| n.to_string_lossy().into_owned(),
        ),
    };
    let dataset = Dataset::from_bodies(name, bodies);
    if dataset.puzzles.is_empty() {
        return Err(Error::Input {
            path: input.path(),
            message: format!(
                "no valid puzzles to benchmark ({} invalid records)",
                dataset.invalid
            ),
        });
    }
    Ok(dataset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_suite_is_graded_and_complete() {
        let suite = builtin_suite();
        let names: Vec<&str> = suite.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["easy", "moderate", "hard", "hardest"]);
        let sizes: Vec<usize> = suite.iter().map(|d| d.puzzles.len()).collect();
        // Sizes from data/README.md; moderate is a prefix.
        assert_eq!(sizes, [1000, MODERATE_PUZZLES, 1465, 375]);
        for dataset in &suite {
            assert_eq!(dataset.invalid, 0, "{}", dataset.name);
            assert_eq!(dataset.sha256.len(), 64);
        }
        // The Kaggle set carries its solutions, which the check pass compares against.
        assert!(suite[0].references.iter().all(Option::is_some));
    }

    #[test]
    fn sha256_matches_sha256sum_of_the_listing() {
        // `printf '' | sha256sum`
        assert_eq!(
            puzzle_list_sha256(&[]),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let a = puzzle_list_sha256(&[Grid::empty()]);
        let b = puzzle_list_sha256(&[Grid::empty(), Grid::empty()]);
        assert_ne!(a, b);
        let mut text = Grid::empty().to_bytes().to_vec();
        text.push(b'\n');
        assert_eq!(a, format!("{:x}", Sha256::digest(&text)));
    }
}
