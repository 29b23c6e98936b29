//! Fuzz target: a puzzle rated the way `sudoku-batch rate --explain` rates it
//! (`rate::verdict::judge`: the uniqueness proof, then the solving path with its proofs).
//!
//! Input: with at least 81 bytes, byte `i` keeps cell `i` of one of three solution grids as a
//! clue when it is odd; the next byte (if any) picks the grid and the nine after relabel its
//! digits. So most inputs are real puzzles with one solution, which reach the whole engine,
//! rather than grids with none or many, which the uniqueness proof turns away. A shorter input
//! is a grid of its own (byte % 10 per cell, blanks after it).
//!
//! Checks: no panic; a grid with no or several solutions gets that status and no rating; a
//! rated puzzle's steps never remove a solution digit or place a wrong one, and end at the
//! solution; ER is the hardest step, ED the first, EP the hardest up to the first placement;
//! a chain step's proof nodes are candidates of the board it was found on. Each puzzle gets
//! half a second (`gave_up` after that, whose steps are checked the same way).
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use sudoku_batch::rate::board::Board;
use sudoku_batch::rate::verdict::{judge, RateStatus};
use sudoku_batch::rate::Limits;
use sudoku_batch::{solve, Grid};

/// Solutions of three puzzles of `data/norvig_top95.txt`, found by the solver.
const SOLUTIONS: [&str; 3] = [
    "417369825632158947958724316825437169791586432346912758289643571573291684164875293",
    "527316489896542731314987562172453896689271354453698217941825673765134928238769145",
    "617459823248736915539128467982564371374291586156873294823647159791385642465912738",
];

fn puzzle_of(data: &[u8]) -> Option<Grid> {
    let mut cells = [0u8; 81];
    if data.len() < 81 {
        for (cell, &b) in cells.iter_mut().zip(data) {
            *cell = b % 10;
        }
        return Grid::from_cells(cells);
    }
    let rest = &data[81..];
    let solution = SOLUTIONS[rest.first().map_or(0, |&b| b as usize % SOLUTIONS.len())].as_bytes();
    // A relabelling of the digits: the identity, with each later byte swapping two labels.
    let mut label: [u8; 10] = std::array::from_fn(|d| d as u8);
    for (i, &b) in rest.iter().skip(1).take(9).enumerate() {
        label.swap(i + 1, b as usize % 9 + 1);
    }
    for (i, cell) in cells.iter_mut().enumerate() {
        if data[i] % 2 == 1 {
            *cell = label[(solution[i] - b'0') as usize];
        }
    }
    Grid::from_cells(cells)
}

fuzz_target!(|data: &[u8]| {
    let Some(puzzle) = puzzle_of(data) else {
        return;
    };
    let mut path = Vec::new();
    let verdict = judge(
        &puzzle,
        &Limits::default(),
        Some(Duration::from_millis(500)),
        Some(&mut path),
    );
    let outcome = solve(&puzzle, 2);
    match verdict.status {
        RateStatus::Unsolvable | RateStatus::Invalid => {
            assert_eq!(outcome.count, 0, "{puzzle}: {verdict:?}");
            assert!(verdict.rating.is_none() && path.is_empty());
            return;
        }
        RateStatus::Multiple => {
            assert_eq!(outcome.count, 2, "{puzzle}: {verdict:?}");
            assert!(verdict.rating.is_none() && path.is_empty());
            return;
        }
        RateStatus::Rated | RateStatus::GaveUp => assert_eq!(outcome.count, 1, "{puzzle}"),
    }
    let solution = outcome.solution.expect("a unique puzzle's solution");
    let mut b = Board::new(&puzzle);
    for step in &path {
        for chain in &step.chains {
            for &(c, d, _) in chain {
                assert!(
                    b.has(c as usize, d),
                    "{puzzle}: {step}: r{c} {d} is no candidate"
                );
            }
        }
        for &(c, d) in &step.eliminations {
            assert_ne!(
                solution.get(c as usize),
                d,
                "{puzzle}: {step} removes the solution"
            );
        }
        for &(c, d) in &step.placements {
            assert_eq!(
                solution.get(c as usize),
                d,
                "{puzzle}: {step} places a wrong digit"
            );
        }
        step.apply(&mut b);
    }
    let Some(rating) = verdict.rating else {
        // Given up before the first step.
        assert_eq!(verdict.status, RateStatus::GaveUp);
        return;
    };
    let hardest = path.iter().map(|s| s.rating).max().unwrap_or(0);
    assert_eq!(rating.er, hardest, "{puzzle}");
    if let Some(first) = path.first() {
        assert_eq!(rating.ed, first.rating, "{puzzle}");
        let placing = path.iter().position(|s| !s.placements.is_empty());
        let upto = placing.map_or(path.len(), |i| i + 1);
        let ep = path[..upto].iter().map(|s| s.rating).max().unwrap_or(0);
        assert_eq!(rating.ep, ep, "{puzzle}");
    }
    if verdict.status == RateStatus::Rated {
        assert!(b.solved(), "{puzzle}: rated, but the path stops short");
        for c in 0..81 {
            assert_eq!(b.value[c], solution.get(c), "{puzzle}");
        }
    }
});
