//! The result row (one per input record) and how rows are written as CSV.

use serde::{Deserialize, Serialize};

/// What happened to one record. The words are stable: scripts match on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Solved (and, with `--unique`, proven to have exactly one solution).
    Solved,
    /// The puzzle has no solution.
    Unsolvable,
    /// The puzzle has two or more solutions (only reported with `--unique`).
    Multiple,
    /// A malformed record or contradictory clues.
    Invalid,
    /// The input's reference solution differs from the solution found.
    Mismatch,
}

impl Status {
    /// Every status, in the order summaries list them.
    pub const ALL: [Status; 5] = [
        Status::Solved,
        Status::Unsolvable,
        Status::Multiple,
        Status::Invalid,
        Status::Mismatch,
    ];

    /// The word written in the `status` column.
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::Unsolvable => "unsolvable",
            Status::Multiple => "multiple",
            Status::Invalid => "invalid",
            Status::Mismatch => "mismatch",
        }
    }

    /// Parses a status word.
    pub fn from_word(word: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.as_str() == word)
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One output row of `solve`. Field order is the CSV column order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultRow {
    /// 0-based position of the record in the input stream.
    pub index: u64,
    /// 1-based line of the record in its file.
    pub line: u64,
    /// The puzzle, normalized to 81 characters with `.` blanks (an excerpt if malformed).
    pub puzzle: String,
    /// The solution, 81 digits, empty when there is none.
    pub solution: String,
    /// What happened.
    pub status: Status,
    /// Branch points with two or more candidates.
    pub guesses: u64,
    /// Nanoseconds spent solving this puzzle.
    pub solve_ns: u64,
    /// Why the record is not `solved`, empty otherwise.
    pub message: String,
    /// The input file the record came from (`-` for stdin).
    pub file: String,
}

/// The CSV column names, in order.
pub const COLUMNS: [&str; 9] = [
    "index", "line", "puzzle", "solution", "status", "guesses", "solve_ns", "message", "file",
];

/// A CSV writer for result rows without a header (the header is written once, separately).
pub fn row_writer<W: std::io::Write>(sink: W) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(sink)
}

/// The header line.
pub fn header_line() -> String {
    let mut line = COLUMNS.join(",");
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_matches_row_fields() {
        let row = ResultRow {
            index: 0,
            line: 1,
            puzzle: ".".repeat(81),
            solution: String::new(),
            status: Status::Unsolvable,
            guesses: 3,
            solve_ns: 10,
            message: "no solution, sorry".into(),
            file: "a.txt".into(),
        };
        let mut w = csv::Writer::from_writer(Vec::new());
        w.serialize(&row).unwrap();
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(text.lines().next().unwrap(), header_line().trim_end());
        assert!(text.lines().nth(1).unwrap().contains(",unsolvable,3,10,"));
        for status in Status::ALL {
            assert_eq!(Status::from_word(status.as_str()), Some(status));
        }
    }
}
