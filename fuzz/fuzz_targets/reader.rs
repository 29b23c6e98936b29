//! Fuzz target: arbitrary bytes (plain, gzip or zstd) through the record reader in every format,
//! and through the line parser and format detection. Checks the reader's promises: no panic,
//! records in line order, puzzles that round-trip, short printable excerpts for bad records.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sudoku_batch::io::decode_bytes;
use sudoku_batch::io::{detect_format, parse_line, Body, Format, ReadOptions, RecordReader};
use sudoku_batch::Grid;

fn check_body(body: &Body) {
    match body {
        Body::Puzzle { puzzle, reference } => {
            let text = puzzle.to_bytes();
            assert_eq!(Grid::from_bytes(&text).ok(), Some(*puzzle), "puzzle round-trips");
            if let Some(reference) = reference {
                assert!(reference.is_complete(), "a reference is a full grid");
            }
        }
        Body::Invalid { text, message } => {
            assert!(text.chars().count() <= 100, "excerpt is short");
            assert!(!text.chars().any(char::is_control), "excerpt is printable");
            assert!(!message.is_empty(), "a bad record says why");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let _ = detect_format(data);
    for line in data.split(|&b| b == b'\n') {
        if let Some(body) = parse_line(line) {
            check_body(&body);
        }
    }
    for format in [Format::Auto, Format::Lines, Format::Csv, Format::Grid] {
        for column in [None, Some("2".to_string())] {
            let options = ReadOptions { format, column };
            let mut reader = RecordReader::from_stream(decode_bytes(data.to_vec()), options);
            let mut last_line = 0;
            // Errors (a CSV without a puzzle column, corrupt gzip) end the input: fine.
            while let Ok(Some(record)) = reader.next_record() {
                assert!(record.line >= 1 && record.line >= last_line, "lines in order");
                last_line = record.line;
                check_body(&record.body);
            }
        }
    }
});
