//! Fuzz target: an arbitrary 81-cell grid solved by every solver with limits 1 and 2. Every
//! reported solution must pass the independent validator, and all solvers must agree on the
//! solution count and on whether there is a solution.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sudoku_batch::{Grid, SolverKind};

fuzz_target!(|data: &[u8]| {
    if data.len() < 81 {
        return;
    }
    // Mostly blanks, like real puzzles: a byte below 160 is a blank, the rest digits 1-9.
    let mut cells = [0u8; 81];
    for (cell, &byte) in cells.iter_mut().zip(data) {
        *cell = if byte < 160 { 0 } else { (byte - 160) % 9 + 1 };
    }
    let Some(puzzle) = Grid::from_cells(cells) else {
        return;
    };
    let contradictory = puzzle.first_conflict().is_some();
    let mut counts = Vec::new();
    for &kind in SolverKind::ALL {
        for limit in [1, 2] {
            let outcome = kind.solve(&puzzle, limit);
            assert!(outcome.count <= limit, "{kind}: count above the limit");
            assert_eq!(outcome.count > 0, outcome.solution.is_some(), "{kind}");
            if contradictory {
                assert_eq!(outcome.count, 0, "{kind}: contradictory clues have no solution");
            }
            if let Some(solution) = outcome.solution {
                if let Err(e) = solution.check_solution_of(&puzzle) {
                    panic!("{kind} returned a bad solution of {puzzle}: {e}");
                }
            }
            if limit == 2 {
                counts.push((kind, outcome.count));
            }
        }
    }
    assert!(
        counts.windows(2).all(|w| w[0].1 == w[1].1),
        "solvers disagree on the solution count of {puzzle}: {counts:?}"
    );
});
