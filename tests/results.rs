//! Resume and merge read result CSVs through the one reader, `ResultReader`: a `.partial` cut
//! mid-row resumes to a clean run's rows, and both refuse a file that is not a result file in
//! the reader's words. [`read_rows`] is how the other modules compare result files.

use std::path::{Path, PathBuf};

use crate::support::{bin, data};
use predicates::prelude::*;
use sudoku_batch::io::results::{Column, ResultReader, ResultRow};
use sudoku_batch::stats::Tally;

/// [`mixed_input`](crate::support::mixed_input) under this module's file name.
fn mixed_input(dir: &Path) -> PathBuf {
    crate::support::mixed_input(dir, "mixed.txt")
}

/// The rows of a result file read through `ResultReader`, `solve_ns` zeroed (it differs
/// between runs), and their tally's counts.
pub(crate) fn read_rows(path: &Path) -> (Vec<ResultRow>, [u64; 6]) {
    let mut reader = ResultReader::open(path).unwrap().expect("a header");
    assert_eq!(reader.columns(), Column::ALL);
    let mut rows = Vec::new();
    let mut tally = Tally::default();
    while let Some(row) = reader.next_row().unwrap() {
        tally.add_row(&row).unwrap();
        let full = row.to_row().expect("every column");
        rows.push(ResultRow {
            solve_ns: 0,
            ..full
        });
    }
    assert_eq!(reader.torn_line(), None, "{}", path.display());
    let s = tally.summary(std::time::Duration::ZERO, 1, "");
    let counts = [
        s.puzzles,
        s.solved,
        s.unsolvable,
        s.multiple,
        s.invalid,
        s.mismatch,
    ];
    (rows, counts)
}

/// The byte offsets where each row of `path` ends, read through `ResultReader`.
fn row_ends(path: &Path) -> (u64, Vec<u64>) {
    let mut reader = ResultReader::open(path).unwrap().unwrap();
    let mut ends = Vec::new();
    while let Some(row) = reader.next_row().unwrap() {
        ends.push(row.end);
    }
    (reader.header_end(), ends)
}

#[test]
fn a_partial_cut_mid_row_resumes_to_a_clean_run() {
    let dir = tempfile::tempdir().unwrap();
    let input = mixed_input(dir.path());
    let clean = dir.path().join("clean.csv");
    bin()
        .args(["solve", "-q", "--unique", "-j", "2", "-o"])
        .arg(&clean)
        .arg(&input)
        .assert()
        .code(1);
    let clean_bytes = std::fs::read(&clean).unwrap();
    let (clean_rows, clean_counts) = read_rows(&clean);
    assert!(
        clean_counts[3] > 0 && clean_counts[4] >= 3,
        "{clean_counts:?}"
    );
    let (header_end, ends) = row_ends(&clean);
    assert_eq!(ends.len(), clean_rows.len());
    assert_eq!(*ends.last().unwrap(), clean_bytes.len() as u64);
    // A row with a quoted message: cut inside its quotes too.
    let quoted = clean_bytes.windows(2).position(|w| w == b",\"").unwrap();
    let cuts = [
        5,                                  // inside the header
        header_end as usize,                // the header only
        header_end as usize + 7,            // inside the first row
        (ends[40] + ends[41]) as usize / 2, // mid-row
        quoted + 3,                         // inside a quoted field
        ends[ends.len() - 2] as usize + 1,  // the last row just begun
        ends[ends.len() - 1] as usize - 1,  // all but the last row's line end
    ];
    let out = dir.path().join("out.csv");
    let partial = dir.path().join("out.csv.partial");
    for cut in cuts {
        std::fs::write(&partial, &clean_bytes[..cut]).unwrap();
        let _ = std::fs::remove_file(&out);
        let kept = ends.iter().filter(|&&end| end <= cut as u64).count();
        bin()
            .args(["solve", "--unique", "-j", "2", "--resume", "-o"])
            .arg(&out)
            .arg(&input)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(format!(
                "resume: kept {kept} row(s)"
            )));
        assert!(!partial.exists());
        let (rows, counts) = read_rows(&out);
        assert_eq!(rows, clean_rows, "cut at {cut}");
        assert_eq!(counts, clean_counts, "cut at {cut}");
        // The complete rows were kept byte for byte.
        let complete = clean_bytes[..cut]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let complete = if complete as u64 >= header_end {
            complete
        } else {
            0
        };
        let got = std::fs::read(&out).unwrap();
        assert_eq!(&got[..complete], &clean_bytes[..complete], "cut at {cut}");
    }
}

#[test]
fn resume_refuses_what_the_reader_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let input = data("norvig_top95.txt");
    let clean = dir.path().join("clean.csv");
    bin()
        .args(["solve", "-q", "-o"])
        .arg(&clean)
        .arg(&input)
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&clean).unwrap();
    let out = dir.path().join("out.csv");
    let partial = dir.path().join("out.csv.partial");
    let resume = |partial_text: &str, message: &str| {
        std::fs::write(&partial, partial_text).unwrap();
        bin()
            .args(["solve", "--resume", "-o"])
            .arg(&out)
            .arg(&input)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    };
    // A bad status word: the file and line are named.
    let bad: String = text
        .lines()
        .enumerate()
        .map(|(i, line)| match i {
            3 => line.replace(",solved,", ",sovled,") + "\n",
            _ => format!("{line}\n"),
        })
        .collect();
    resume(
        &bad,
        "out.csv.partial: cannot resume: not a result row: line 4: status \"sovled\" is not one \
         of solved, unsolvable, multiple, invalid, mismatch, gave_up",
    );
    resume(
        "quizzes,solutions\n",
        "out.csv.partial: cannot resume: not a result file: its header names \"quizzes\"",
    );
    resume(
        "index,puzzle,status\n",
        "cannot resume: --resume needs the column(s) line, file, guesses, solve_ns, which its \
         header (index,puzzle,status) lacks",
    );
    let reordered = text.replacen("index,line,", "line,index,", 1);
    resume(
        &reordered,
        "cannot resume: its header (line,index,puzzle,solution,status,guesses,solve_ns,message,\
         file) is not that of this run's output (index,line,",
    );
}
