//! Every solver against the others and against the independent validator, on every data set,
//! on tdoku's exact solution counts, and on random puzzles (property test); golden files: every
//! puzzle shipped in `data/` is solved and each solution checked by the validator
//! (`Grid::check_solution_of`) against the references the data carries, and `solve`'s output
//! equals the checked-in golden file.

use std::sync::Arc;

use proptest::prelude::*;
use sudoku_batch::io::Input;
use sudoku_batch::io::{Body, ReadOptions, RecordReader};
use sudoku_batch::{Grid, Outcome, SolverKind};

use crate::cli::rows;
use crate::support::bin;

/// Puzzle records of a data file: `(puzzle, rest of the line after the puzzle token)`.
fn load(path: &str) -> Vec<(Grid, String)> {
    let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    sudoku_batch::testing::load_puzzles(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

/// Runs `kinds` on `puzzle` with `limit`, checks each result against the validator and that all
/// solvers agree on the count; returns the common outcome of the first solver.
fn agree(kinds: &[SolverKind], puzzle: &Grid, limit: u32) -> Outcome {
    let mut first: Option<Outcome> = None;
    for &kind in kinds {
        let out = kind.solve(puzzle, limit);
        assert!(out.count <= limit, "{kind} {puzzle}");
        match out.solution {
            Some(s) => assert!(
                s.is_solution_of(puzzle),
                "{kind} gave an invalid solution for {puzzle}"
            ),
            None => assert_eq!(out.count, 0, "{kind} {puzzle}"),
        }
        assert_eq!(out.count == 0, out.solution.is_none(), "{kind} {puzzle}");
        if let Some(f) = &first {
            assert_eq!(
                out.count, f.count,
                "{kind} disagrees with {} on {puzzle}",
                kinds[0]
            );
        } else {
            first = Some(out);
        }
    }
    first.expect("at least one solver")
}

/// Solvers quick enough for a whole data set in a debug build.
fn fast_kinds() -> Vec<SolverKind> {
    SolverKind::ALL
        .iter()
        .copied()
        .filter(|&k| k != SolverKind::Naive)
        .collect()
}

fn check_set(path: &str, kinds: &[SolverKind], every: usize) {
    let records = load(path);
    assert!(!records.is_empty(), "{path}");
    for (puzzle, _) in records.iter().step_by(every) {
        let out = agree(kinds, puzzle, 2);
        assert_eq!(
            out.count, 1,
            "{path}: {puzzle} should have exactly one solution"
        );
    }
}

#[test]
fn registry_order_and_default() {
    let names: Vec<&str> = SolverKind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(names, ["naive", "backtrack", "singles", "bands"]);
    assert_eq!(SolverKind::default(), SolverKind::Bands);
    assert_eq!(*SolverKind::ALL.last().unwrap(), SolverKind::default());
}

#[test]
fn all_solvers_agree_on_easy50_and_kaggle() {
    check_set("data/norvig_easy50.txt", SolverKind::ALL, 1);
    check_set("data/kaggle3m_radcliffe_first1000.csv", SolverKind::ALL, 40);
}

#[test]
fn kaggle_solutions_match_the_published_ones() {
    for (puzzle, rest) in load("data/kaggle3m_radcliffe_first1000.csv") {
        let want: Grid = rest.parse().unwrap();
        assert_eq!(
            SolverKind::default().solve(&puzzle, 2).solution,
            Some(want),
            "{puzzle}"
        );
    }
}

#[test]
fn fast_solvers_agree_on_the_hard_sets() {
    let kinds = fast_kinds();
    check_set("data/norvig_top95.txt", &kinds, 1);
    check_set("data/norvig_hardest.txt", &kinds, 1);
    // A sample in debug builds; the ignored test below runs everything.
    check_set("data/magictour_top1465.txt", &kinds, 25);
    check_set("data/norvig_sudokus_hard_375.txt", &kinds, 15);
    check_set(
        "data/sudokuexchange_diabolical_2020_39719.txt",
        &kinds,
        1000,
    );
}

#[test]
fn default_solver_on_every_puzzle_of_the_hard_sets() {
    let kinds = [SolverKind::default()];
    check_set("data/magictour_top1465.txt", &kinds, 1);
    check_set("data/norvig_sudokus_hard_375.txt", &kinds, 1);
    check_set("data/sudokuexchange_diabolical_2020_39719.txt", &kinds, 7);
}

/// Heavy: every puzzle of every set with every fast solver (and naive on the sets it handles).
/// `cargo test --release -- --ignored`.
#[test]
#[ignore]
fn every_solver_on_every_puzzle() {
    let kinds = fast_kinds();
    for path in [
        "data/norvig_top95.txt",
        "data/norvig_hardest.txt",
        "data/magictour_top1465.txt",
        "data/norvig_sudokus_hard_375.txt",
        "data/sudokuexchange_diabolical_2020_39719.txt",
    ] {
        check_set(path, &kinds, 1);
    }
    check_set("data/kaggle3m_radcliffe_first1000.csv", SolverKind::ALL, 1);
    check_set("data/norvig_top95.txt", SolverKind::ALL, 1);
}

/// Checks tdoku's exact counts with the solvers `pick` chooses for a puzzle with `count`.
fn check_tdoku(pick: impl Fn(u32) -> Vec<SolverKind>) {
    let records = load("data/tdoku_test_puzzles.txt");
    assert_eq!(records.len(), 43);
    for (puzzle, rest) in &records {
        let mut fields = rest.split(':');
        let want: u32 = fields.next().unwrap().parse().unwrap();
        let expected_solution: Option<Grid> = fields.next().map(|s| s.parse().unwrap());
        let out = agree(&pick(want), puzzle, want + 1);
        assert_eq!(out.count, want, "{puzzle}");
        if let (1, Some(s)) = (want, expected_solution) {
            assert_eq!(out.solution, Some(s), "{puzzle}");
        }
    }
}

#[test]
fn tdoku_exact_solution_counts() {
    // The slow baselines only where they stay quick in a debug build.
    check_tdoku(|want| {
        SolverKind::ALL
            .iter()
            .copied()
            .filter(|&k| match k {
                SolverKind::Naive => want == 1,
                SolverKind::Backtrack => want <= 130,
                _ => true,
            })
            .collect()
    });
}

/// Heavy: every solver on every tdoku puzzle. `cargo test --release -- --ignored`.
#[test]
#[ignore]
fn tdoku_exact_solution_counts_all_solvers() {
    check_tdoku(|_| SolverKind::ALL.to_vec());
}

#[test]
fn guesses_are_counted_alike() {
    // A puzzle solved by singles alone: no solver that propagates singles guesses, and the
    // count is zero for a complete grid in every solver.
    let full: Grid =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
            .parse()
            .unwrap();
    for &kind in SolverKind::ALL {
        assert_eq!(
            kind.solve(&full, 2),
            Outcome {
                count: 1,
                solution: Some(full),
                guesses: 0,
                gave_up: false,
            }
        );
        let out = kind.solve(&Grid::empty(), 1);
        assert!(out.guesses >= 1, "{kind}");
    }
}

/// A random solved grid: seed the first row with a permutation, solve, then relabel digits and
/// shuffle rows within bands and columns within stacks (all validity-preserving).
fn solved_grid(perm: &[u8], relabel: &[u8], rows: &[usize], cols: &[usize]) -> Grid {
    let mut seed = Grid::empty();
    for (i, &d) in perm.iter().enumerate() {
        seed.set(i, d);
    }
    let base = SolverKind::default()
        .solve(&seed, 1)
        .solution
        .expect("a first row always extends");
    let mut out = Grid::empty();
    for r in 0..9 {
        for c in 0..9 {
            let src_r = r / 3 * 3 + rows[r / 3 * 3 + r % 3] % 3;
            let src_c = c / 3 * 3 + cols[c / 3 * 3 + c % 3] % 3;
            let d = base.get(src_r * 9 + src_c);
            out.set(r * 9 + c, relabel[d as usize - 1]);
        }
    }
    out
}

fn perm9() -> impl Strategy<Value = Vec<u8>> {
    Just((1..=9).collect::<Vec<u8>>()).prop_shuffle()
}

/// Three shuffled triples: a permutation within each band or stack.
fn within_triples() -> impl Strategy<Value = Vec<usize>> {
    (
        Just(vec![0usize, 1, 2]).prop_shuffle(),
        Just(vec![3usize, 4, 5]).prop_shuffle(),
        Just(vec![6usize, 7, 8]).prop_shuffle(),
    )
        .prop_map(|(a, b, c)| [a, b, c].concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_puzzles_every_solver_agrees(
        perm in perm9(),
        relabel in perm9(),
        rows in within_triples(),
        cols in within_triples(),
        holes in proptest::collection::vec(0usize..81, 30..64),
    ) {
        let solution = solved_grid(&perm, &relabel, &rows, &cols);
        prop_assert!(solution.is_solution_of(&Grid::empty()));
        let mut puzzle = solution;
        for &h in &holes {
            puzzle.set(h, 0);
        }
        // Naive is only run on puzzles with enough clues to stay fast in debug builds.
        let kinds: Vec<SolverKind> = if puzzle.clue_count() >= 40 {
            SolverKind::ALL.to_vec()
        } else {
            fast_kinds()
        };
        let out = agree(&kinds, &puzzle, 3);
        prop_assert!(out.count >= 1, "a puzzle cut from a solution has one");
        if out.count == 1 {
            prop_assert_eq!(out.solution, Some(solution));
        }
    }
}

/// Every data file with a puzzle list, and the number of puzzles it holds.
const DATA: &[(&str, usize)] = &[
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
