//! Quick development timing: `cargo run --release --example timing -- [solver...] [--sets a,b]`.
//! Prints puzzles/s (best of `REPS` repeats, default 3, of at least `PUZZLES` solves, default
//! 20000), guesses/puzzle and % solved without guessing, and checks every solution with the
//! independent validator.

use std::time::Instant;
use sudoku_batch::{Grid, SolverKind};

/// The puzzles of a data file.
fn load(path: &str) -> Vec<Grid> {
    let records = sudoku_batch::testing::load_puzzles(path).expect("read data file");
    records.into_iter().map(|(grid, _)| grid).collect()
}

/// Nanoseconds this thread has spent on a CPU (Linux), so time stolen by other processes on a
/// busy machine does not count; falls back to wall time elsewhere.
fn cpu_ns(wall: Instant) -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| wall.elapsed().as_nanos() as u64)
}

fn main() {
    let epoch = Instant::now();
    // Settings from the environment: solves per timed repeat, and repeats (best one kept).
    let setting = |name: &str, default: usize| -> usize {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (target, reps) = (setting("PUZZLES", 20_000), setting("REPS", 3));
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sets_arg = args
        .iter()
        .position(|a| a == "--sets")
        .map(|i| args[i + 1].clone());
    let kinds: Vec<SolverKind> = args
        .iter()
        .filter_map(|a| SolverKind::from_name(a))
        .collect::<Vec<_>>();
    let kinds = if kinds.is_empty() {
        vec![SolverKind::default()]
    } else {
        kinds
    };
    let all = [
        ("top1465", "data/magictour_top1465.txt"),
        ("hard375", "data/norvig_sudokus_hard_375.txt"),
        (
            "diabolical",
            "data/sudokuexchange_diabolical_2020_39719.txt",
        ),
        ("kaggle1000", "data/kaggle3m_radcliffe_first1000.csv"),
        ("top95", "data/norvig_top95.txt"),
        ("easy50", "data/norvig_easy50.txt"),
    ];
    for (name, path) in all {
        if let Some(s) = &sets_arg {
            if !s.split(',').any(|x| x == name) {
                continue;
            }
        }
        let puzzles = load(path);
        for &kind in &kinds {
            for limit in [1u32, 2] {
                let mut best = f64::MAX;
                // Repeat small sets so one timed rep lasts tens of milliseconds.
                let rounds = if kind == SolverKind::default() {
                    (target / puzzles.len()).max(1)
                } else {
                    1
                };
                let mut guesses = 0u64;
                let mut no_guess = 0usize;
                for _ in 0..reps {
                    guesses = 0;
                    no_guess = 0;
                    let start = cpu_ns(epoch);
                    for p in puzzles.iter().cycle().take(puzzles.len() * rounds) {
                        let out = kind.solve(p, limit);
                        guesses += out.guesses;
                        no_guess += (out.guesses == 0) as usize;
                        assert!(
                            out.solution.is_some_and(|s| s.is_solution_of(p)),
                            "{kind} {p}"
                        );
                        if limit == 2 {
                            assert_eq!(out.count, 1, "{kind} {p}");
                        }
                    }
                    best = best.min((cpu_ns(epoch) - start) as f64 * 1e-9);
                }
                let n = (puzzles.len() * rounds) as f64;
                println!(
                    "{name:>11} {kind:>9} limit {limit}: {:>10.0}/s  {:>7.2} guesses/puzzle  {:>5.1}% no guess",
                    n / best,
                    guesses as f64 / n,
                    100.0 * no_guess as f64 / n
                );
            }
        }
    }
}
