//! Solver throughput: one criterion group per data set, every solver × mode (`first` = limit 1,
//! `unique` = limit 2), single-threaded. Each iteration solves the whole set; throughput is in
//! puzzles (elements) per second.
//!
//! Run: `cargo bench --bench solvers` (filter e.g. `-- top1465/bands`). `naive` only runs on the
//! sets where it finishes in reasonable time.

use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sudoku_batch::{Grid, SolverKind};

/// The puzzles of a shipped data file ([`sudoku_batch::testing::load_puzzles`]).
fn load(path: &str) -> Vec<Grid> {
    let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    let puzzles: Vec<Grid> = sudoku_batch::testing::load_puzzles(&full)
        .unwrap_or_else(|e| panic!("{full}: {e}"))
        .into_iter()
        .map(|(grid, _)| grid)
        .collect();
    assert!(!puzzles.is_empty(), "{full}: no puzzles");
    puzzles
}

/// (group name, file, whether `naive` is fast enough to include: in release it manages ~900
/// puzzles/s on easy50 but ~270/s on kaggle1000 and ~6/s on top95, too slow for a 10-sample run).
const SETS: &[(&str, &str, bool)] = &[
    ("top1465", "data/magictour_top1465.txt", false),
    ("hard375", "data/norvig_sudokus_hard_375.txt", false),
    (
        "diabolical",
        "data/sudokuexchange_diabolical_2020_39719.txt",
        false,
    ),
    ("kaggle1000", "data/kaggle3m_radcliffe_first1000.csv", false),
    ("top95", "data/norvig_top95.txt", false),
    ("easy50", "data/norvig_easy50.txt", true),
];

fn solve_all(kind: SolverKind, puzzles: &[Grid], limit: u32) -> u64 {
    let mut found = 0u64;
    for p in puzzles {
        found += u64::from(kind.solve(black_box(p), limit).count);
    }
    found
}

fn bench(c: &mut Criterion) {
    for &(name, path, with_naive) in SETS {
        let puzzles = load(path);
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(puzzles.len() as u64));
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(500));
        group.measurement_time(Duration::from_secs(3));
        for &kind in SolverKind::ALL {
            if kind == SolverKind::Naive && !with_naive {
                continue;
            }
            for (mode, limit) in [("first", 1), ("unique", 2)] {
                group.bench_with_input(
                    BenchmarkId::new(kind.name(), mode),
                    &puzzles,
                    |b, puzzles| b.iter(|| solve_all(kind, puzzles, limit)),
                );
            }
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
