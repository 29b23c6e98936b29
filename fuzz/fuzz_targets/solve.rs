//! Fuzz target: an arbitrary 81-cell grid solved by every solver with limits 1 and 2. Every
//! reported solution must pass the independent validator, and all solvers that ran must agree on
//! the solution count and on whether there is a solution.
//!
//! The baselines (`naive`, `backtrack`) run under a budget; see `BASELINE_NODE_BUDGET`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sudoku_batch::grid::{box_of, col_of, row_of, CELLS};
use sudoku_batch::{Grid, SolverKind};

/// The most search nodes (calls of their recursive step) `naive` or `backtrack` may be able to
/// visit on a grid before the harness declines to run them on it as it is.
///
/// Why a budget, and why this one: the two baselines have no propagation. `naive` fills cells
/// in row-major order with no look-ahead, so on a sparse grid whose dead end sits late in that
/// order (no contradictory clue, no solution, or few solutions behind a dead end) it enumerates
/// every consistent filling of the earlier cells: exponential by design, minutes even in
/// release. The old harness ran it on every grid, so `cargo fuzz run solve` stopped after a few
/// minutes on a libFuzzer timeout inside `naive`. Once `naive` was budgeted the
/// fuzzer found the same for `backtrack` within seconds: a sparse grid with no solution that
/// `singles` and `bands` reject with 0 guesses takes `backtrack` (fewest candidates first, but
/// no hidden singles) 1.5 million guesses, 2.4 s in release and over 10 s under ASan.
///
/// A budget on what the fast solvers report does not help: their guesses say nothing about
/// the baselines' trees (0 against 1.5 million above). So the harness bounds each baseline's
/// own tree before running it (`naive_node_bound`, `any_order_node_bound`: proven upper bounds,
/// not estimates): neither can time out, whatever grid the fuzzer builds. 100,000 nodes is a
/// few tens of milliseconds under ASan in the worst case.
///
/// A grid over the budget is not skipped: the baseline solves a derived puzzle instead, the
/// grid with its first open cells (row-major) filled until the bound is under the budget. On a
/// grid with a solution the fill comes from the solution `bands` found; on a grid without one
/// any digit that fits will do (more clues cannot make an unsolvable grid solvable). The
/// baseline must agree with `bands` on the derived puzzle (and find nothing in the second
/// case). So the baselines still meet every kind of grid the fuzzer makes, sparse and hostile
/// ones included, only with fewer open cells. `singles` and `bands` run on every grid
/// unbudgeted: they are what users run, and a slow hostile grid there is a finding.
const BASELINE_NODE_BUDGET: u64 = 100_000;

/// An upper bound on the nodes `naive` visits on `puzzle`, whatever the limit, capped just above
/// `cap`.
///
/// `naive` assigns the empty cells in row-major order, so the nodes at depth k are consistent
/// assignments of the first k empty cells, and there are at most the product of the choices
/// each of those cells can have. A cell's choices are at most its candidates given the clues,
/// and also at most the digits its row still misses less the empty cells before it in that row
/// (each took a different one of them), and likewise for its column and box. The bound is the
/// sum of those products over every depth (plus the root).
fn naive_node_bound(puzzle: &Grid, cap: u64) -> u64 {
    let cells = puzzle.cells();
    let (mut row, mut col, mut bx) = ([0u16; 9], [0u16; 9], [0u16; 9]);
    for (cell, &digit) in cells.iter().enumerate() {
        if digit != 0 {
            let bit = 1 << digit;
            row[row_of(cell)] |= bit;
            col[col_of(cell)] |= bit;
            bx[box_of(cell)] |= bit;
        }
    }
    // Empty cells seen so far in each row, column and box.
    let (mut row_seen, mut col_seen, mut box_seen) = ([0u32; 9], [0u32; 9], [0u32; 9]);
    let (mut total, mut product) = (1u64, 1u64);
    for cell in (0..CELLS).filter(|&c| cells[c] == 0) {
        let (r, c, b) = (row_of(cell), col_of(cell), box_of(cell));
        let free = |used: u16, seen: u32| (9 - used.count_ones()).saturating_sub(seen);
        let candidates = 9 - (row[r] | col[c] | bx[b]).count_ones();
        let choices = candidates
            .min(free(row[r], row_seen[r]))
            .min(free(col[c], col_seen[c]))
            .min(free(bx[b], box_seen[b]));
        (row_seen[r], col_seen[c], box_seen[b]) =
            (row_seen[r] + 1, col_seen[c] + 1, box_seen[b] + 1);
        product = product.saturating_mul(u64::from(choices));
        if product == 0 {
            break; // no node gets past this cell
        }
        total = total.saturating_add(product);
        if total > cap {
            break;
        }
    }
    total
}

/// An upper bound on the nodes a search that picks its cells in *any* order visits (what
/// `backtrack`'s fewest-candidates-first order needs), capped just above `cap`.
///
/// A node's branches are at most the candidates its cell has given the clues, and the cells
/// along one path are distinct, so every path to depth k multiplies at most the k largest
/// candidate counts; a tree whose paths to depth k all multiply to at most M has at most M
/// nodes there. The bound is the sum of those products over every depth (plus the root).
fn any_order_node_bound(puzzle: &Grid, cap: u64) -> u64 {
    let used = unit_masks(puzzle);
    let mut choices: Vec<u64> = (0..CELLS)
        .filter(|&cell| puzzle.get(cell) == 0)
        .map(|cell| u64::from(9 - used(cell).count_ones()))
        .collect();
    choices.sort_unstable_by(|a, b| b.cmp(a));
    let (mut total, mut product) = (1u64, 1u64);
    for choice in choices {
        product = product.saturating_mul(choice);
        total = total.saturating_add(product);
        if product == 0 || total > cap {
            break;
        }
    }
    total
}

/// The digits (bit d for digit d) in `cell`'s row, column and box.
fn used_digits(puzzle: &Grid, cell: usize) -> u16 {
    unit_masks(puzzle)(cell)
}

/// The digits in each row, column and box of `puzzle`, as a function of a cell.
fn unit_masks(puzzle: &Grid) -> impl Fn(usize) -> u16 {
    let (mut row, mut col, mut bx) = ([0u16; 9], [0u16; 9], [0u16; 9]);
    for cell in (0..CELLS).filter(|&cell| puzzle.get(cell) != 0) {
        let bit = 1 << puzzle.get(cell);
        row[row_of(cell)] |= bit;
        col[col_of(cell)] |= bit;
        bx[box_of(cell)] |= bit;
    }
    move |cell| row[row_of(cell)] | col[col_of(cell)] | bx[box_of(cell)]
}

/// Runs `kind` on `puzzle` with limits 1 and 2, checks each outcome, and returns the limit-2
/// outcome.
fn solve_checked(kind: SolverKind, puzzle: &Grid) -> sudoku_batch::Outcome {
    let contradictory = puzzle.first_conflict().is_some();
    let mut outcomes = [sudoku_batch::Outcome::NONE; 2];
    for (limit, slot) in [1, 2].into_iter().zip(&mut outcomes) {
        let outcome = kind.solve(puzzle, limit);
        assert!(outcome.count <= limit, "{kind}: count above the limit");
        assert_eq!(outcome.count > 0, outcome.solution.is_some(), "{kind}");
        if contradictory {
            assert_eq!(
                outcome.count, 0,
                "{kind}: contradictory clues have no solution"
            );
        }
        if let Some(solution) = outcome.solution {
            if let Err(e) = solution.check_solution_of(puzzle) {
                panic!("{kind} returned a bad solution of {puzzle}: {e}");
            }
        }
        *slot = outcome;
    }
    let [first, second] = outcomes;
    assert_eq!(
        first.count,
        second.count.min(1),
        "{kind}: limits 1 and 2 disagree on {puzzle}"
    );
    second
}

/// Runs the baseline `kind` on `puzzle`, or on a puzzle derived from it when its node bound
/// is over the budget (see `BASELINE_NODE_BUDGET`), and checks it against `bands`.
fn check_baseline(
    kind: SolverKind,
    bound_of: fn(&Grid, u64) -> u64,
    puzzle: &Grid,
    bands: &sudoku_batch::Outcome,
) {
    if puzzle.first_conflict().is_some() {
        // Contradictory clues: documented to give no solution at once whichever solver runs
        // (the baselines check for a conflict before they search), and no fill could remove
        // the conflict. Run unbudgeted: if that promise broke, the timeout is the finding.
        solve_checked(kind, puzzle);
        return;
    }
    let mut derived = *puzzle;
    let mut next = 0;
    let bound = loop {
        let bound = bound_of(&derived, BASELINE_NODE_BUDGET);
        if bound <= BASELINE_NODE_BUDGET {
            break bound;
        }
        // Fill the next open cell that takes a digit: the solution's, or any that fits.
        let Some(cell) = (next..CELLS).find(|&cell| {
            derived.get(cell) == 0
                && (bands.solution.is_some() || used_digits(&derived, cell) != 0x3FE)
        }) else {
            return; // cannot happen: with every open cell dead the bound is tiny
        };
        let digit = match bands.solution {
            Some(solution) => solution.get(cell),
            None => (1..=9)
                .find(|&d| used_digits(&derived, cell) & (1 << d) == 0)
                .unwrap(),
        };
        derived.set(cell, digit);
        next = cell + 1;
    };
    let expected = if derived == *puzzle {
        bands.count
    } else {
        assert!(
            derived.first_conflict().is_none(),
            "the fill made a conflict in {derived}"
        );
        let reference = SolverKind::Bands.solve(&derived, 2);
        if bands.solution.is_some() {
            assert!(
                reference.count >= 1,
                "bands lost its own solution in {derived}"
            );
        } else {
            assert_eq!(
                reference.count, 0,
                "bands solved {derived}, which has more clues than an unsolvable {puzzle}"
            );
        }
        reference.count
    };
    let outcome = solve_checked(kind, &derived);
    assert!(
        outcome.guesses <= bound,
        "{kind} made {} guesses, over its bound {bound}",
        outcome.guesses
    );
    assert_eq!(
        outcome.count, expected,
        "{kind} and bands disagree on the count of {derived}"
    );
}

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
    let mut counts = Vec::new();
    let mut bands = None;
    for kind in [SolverKind::Singles, SolverKind::Bands] {
        let outcome = solve_checked(kind, &puzzle);
        counts.push((kind, outcome.count));
        bands = Some(outcome);
    }
    assert!(
        counts.windows(2).all(|w| w[0].1 == w[1].1),
        "solvers disagree on the solution count of {puzzle}: {counts:?}"
    );
    let bands = bands.unwrap();
    // The baselines, within their budget (see BASELINE_NODE_BUDGET).
    check_baseline(SolverKind::Naive, naive_node_bound, &puzzle, &bands);
    check_baseline(SolverKind::Backtrack, any_order_node_bound, &puzzle, &bands);
    // A solver added to SolverKind::ALL must be added here, budgeted or not.
    assert_eq!(
        SolverKind::ALL.len(),
        4,
        "a new solver: add it to the solve fuzz target"
    );
});
