//! `rate`'s output columns: their stable names, `--columns` parsing, and one row's fields.

use std::fmt;
use std::str::FromStr;

use crate::error::UnknownName;
use crate::io::results::push_csv_record;
use crate::rate::verdict::RateVerdict;

/// A column of `rate`'s output. The names are stable: scripts match on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateColumn {
    /// The record's 0-based position in the whole input stream.
    Index,
    /// The record's line in its file.
    Line,
    /// The puzzle as 81 characters (`.` for empty cells), or the bad record's text.
    Puzzle,
    /// The rating: the hardest step on the solving path.
    Er,
    /// The hardest step before the first placement.
    Ep,
    /// The hardest step before the first elimination.
    Ed,
    /// The hardest step's technique.
    Technique,
    /// Steps on the solving path.
    Steps,
    /// `rated`, `unsolvable`, `multiple`, `invalid` or `gave_up`.
    Status,
    /// Nanoseconds spent rating the puzzle.
    RateNs,
    /// Why a record was not rated.
    Message,
    /// The input file's name.
    File,
}

impl RateColumn {
    /// Every column, in the default order.
    pub const ALL: [RateColumn; 12] = [
        RateColumn::Index,
        RateColumn::Line,
        RateColumn::Puzzle,
        RateColumn::Er,
        RateColumn::Ep,
        RateColumn::Ed,
        RateColumn::Technique,
        RateColumn::Steps,
        RateColumn::Status,
        RateColumn::RateNs,
        RateColumn::Message,
        RateColumn::File,
    ];

    /// How many columns there are.
    pub const COUNT: usize = RateColumn::ALL.len();

    /// The column's name in the header.
    pub fn name(self) -> &'static str {
        match self {
            RateColumn::Index => "index",
            RateColumn::Line => "line",
            RateColumn::Puzzle => "puzzle",
            RateColumn::Er => "er",
            RateColumn::Ep => "ep",
            RateColumn::Ed => "ed",
            RateColumn::Technique => "technique",
            RateColumn::Steps => "steps",
            RateColumn::Status => "status",
            RateColumn::RateNs => "rate_ns",
            RateColumn::Message => "message",
            RateColumn::File => "file",
        }
    }

    /// Parses a comma-separated list such as `puzzle,er` (the shape of `--columns`): every
    /// name known, none twice.
    pub fn parse_list(list: &str) -> Result<Vec<RateColumn>, String> {
        crate::error::parse_name_list(list)
    }

    /// `columns`' names joined by `sep`.
    pub fn join(columns: &[RateColumn], sep: &str) -> String {
        let names: Vec<&str> = columns.iter().map(|c| c.name()).collect();
        names.join(sep)
    }

    /// The header line of an output with `columns`, with its line end.
    pub fn header(columns: &[RateColumn]) -> String {
        format!("{}\n", RateColumn::join(columns, ","))
    }
}

impl fmt::Display for RateColumn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RateColumn {
    type Err = UnknownName;

    fn from_str(name: &str) -> Result<RateColumn, UnknownName> {
        RateColumn::ALL
            .into_iter()
            .find(|c| c.name() == name)
            .ok_or_else(|| UnknownName::new("rate column", name, RateColumn::ALL.map(Self::name)))
    }
}

/// One record's place in the input, for its row.
pub(super) struct RowPlace<'a> {
    /// The record's global index.
    pub index: u64,
    /// Its line in its file.
    pub line: u64,
    /// The puzzle (or the bad record's text).
    pub puzzle: &'a str,
    /// The input file's name.
    pub file: &'a str,
}

/// Writes one record's row: the fields of `columns`, in that order.
pub(super) fn push_row(
    out: &mut Vec<u8>,
    columns: &[RateColumn],
    place: &RowPlace<'_>,
    rated: &RateVerdict,
) {
    let mut text = [const { String::new() }; RateColumn::COUNT];
    for &column in columns {
        let slot = &mut text[column as usize];
        let rating = rated.rating.as_ref();
        *slot = match column {
            RateColumn::Index => place.index.to_string(),
            RateColumn::Line => place.line.to_string(),
            RateColumn::Er => rating.map_or(String::new(), |r| format!("{:.1}", r.er_f32())),
            RateColumn::Ep => rating.map_or(String::new(), |r| format!("{:.1}", r.ep_f32())),
            RateColumn::Ed => rating.map_or(String::new(), |r| format!("{:.1}", r.ed_f32())),
            RateColumn::Steps => rating.map_or(String::new(), |r| r.steps.to_string()),
            RateColumn::RateNs => rated.rate_ns.to_string(),
            _ => continue,
        };
    }
    let technique = rated
        .rating
        .and_then(|r| r.hardest)
        .map_or("", |t| t.name());
    let fields = columns.iter().map(|&column| -> &[u8] {
        match column {
            RateColumn::Puzzle => place.puzzle.as_bytes(),
            RateColumn::Technique => technique.as_bytes(),
            RateColumn::Status => rated.status.as_str().as_bytes(),
            RateColumn::Message => rated.message.as_bytes(),
            RateColumn::File => place.file.as_bytes(),
            other => text[other as usize].as_bytes(),
        }
    });
    push_csv_record(out, fields);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_lists_refuse_unknown_and_repeated_names() {
        for column in RateColumn::ALL {
            assert_eq!(column.name().parse::<RateColumn>(), Ok(column));
        }
        assert_eq!(
            RateColumn::parse_list("puzzle, er").unwrap(),
            [RateColumn::Puzzle, RateColumn::Er]
        );
        let unknown = RateColumn::parse_list("puzzle,solution").unwrap_err();
        assert!(
            unknown.contains("\"solution\"") && unknown.contains("rate_ns"),
            "{unknown}"
        );
        assert!(RateColumn::parse_list("er,er")
            .unwrap_err()
            .contains("twice"));
    }
}
