//! Golden tests: every puzzle shipped in `data/` is solved and each solution checked by the
//! independent validator (`Grid::check_solution_of`), against the references the data carries
//! (tdoku's exact solution counts are in the solvers module, for every solver).

use std::sync::Arc;

use sudoku_batch::io::Input;
use sudoku_batch::io::{Body, ReadOptions, RecordReader};
use sudoku_batch::{Grid, SolverKind};

use crate::cli::rows;
use crate::support::bin;

/// Every data file with a puzzle list, and the number of puzzles it holds.
pub const DATA: &[(&str, usize)] = &[
    ("data/norvig_easy50.txt", 50),
    ("data/norvig_top95.txt", 95),
    ("data/norvig_hardest.txt", 11),
    ("data/norvig_sudokus_hard_375.txt", 375),
    ("data/magictour_top1465.txt", 1465),
    ("data/kaggle3m_radcliffe_first1000.csv", 1000),
    ("data/sudokuexchange_diabolical_2020_39719.txt", 39719),
];

fn read_all(path: &str) -> Vec<(u64, Grid, Option<Grid>)> {
    let reader = RecordReader::new(
        vec![Input::File(path.into())],
        ReadOptions::default(),
        Arc::default(),
    );
    reader
        .map(|r| {
            let r = r.expect("data file reads");
            match r.body {
                Body::Puzzle { puzzle, reference } => (r.line, puzzle, reference),
                Body::Invalid { message, .. } => panic!("{path}:{}: {message}", r.line),
            }
        })
        .collect()
}

#[test]
fn every_data_puzzle_has_one_validated_solution() {
    for &(path, expected) in DATA {
        let puzzles = read_all(path);
        assert_eq!(puzzles.len(), expected, "{path}");
        for (line, puzzle, reference) in puzzles {
            let outcome = SolverKind::default().solve(&puzzle, 2);
            assert_eq!(
                outcome.count, 1,
                "{path}:{line}: expected exactly one solution"
            );
            let solution = outcome.solution.expect("a solution");
            solution
                .check_solution_of(&puzzle)
                .unwrap_or_else(|e| panic!("{path}:{line}: {e}"));
            if let Some(reference) = reference {
                assert_eq!(
                    solution, reference,
                    "{path}:{line}: differs from the data's solution"
                );
            }
        }
    }
}

/// `solve`'s output on norvig_easy50 equals the checked-in golden file (timing column aside), and
/// the golden file itself passes the validator row by row.
#[test]
fn solve_output_matches_validated_golden_file() {
    let golden = rows(&std::fs::read("tests/golden/norvig_easy50.csv").unwrap());
    assert_eq!(golden.len(), 50);
    for row in &golden {
        let puzzle: Grid = row.puzzle.parse().unwrap();
        let solution: Grid = row.solution.parse().unwrap();
        assert!(solution.is_solution_of(&puzzle), "golden row {}", row.index);
    }
    let out = bin()
        .args(["solve", "-q", "--unique", "data/norvig_easy50.txt"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let strip = |rows: Vec<sudoku_batch::io::results::ResultRow>| {
        rows.into_iter()
            .map(|r| {
                (
                    r.index, r.line, r.puzzle, r.solution, r.status, r.message, r.file,
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(rows(&out.stdout)), strip(golden));
}
