//! Rating throughput (`rate::rate`, serate 1.2.1.3 flavor), single-threaded, one criterion group
//! `rate` with one benchmark per ER band. Throughput is in puzzles (elements) per second.
//!
//! Bands, all from permissively licensed files in `data/`: `kaggle1000` (the first 1,000 Kaggle
//! 3M puzzles, ER 1-4 but for a third that need chains) and the Sudoku Exchange diabolical bank
//! split by its own rating (Sukaku Explainer's, close to SE's above 7): `se_6-7`, `se_7-8`,
//! `se_8-9`. When the GPL cb001 file with SE 1.2.1 ratings is present outside the repository
//! (`$CB001`, default `../shared/data/cb001_ser.txt`), its held-out lines (after the first
//! 15,000) add `cb001_1-4`, `cb001_6-7`, `cb001_7-8` and `cb001_8-9`; it is skipped otherwise.
//!
//! Run: `cargo bench --bench rate` (filter e.g. `-- rate/cb001_7-8`).

use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sudoku_batch::rate::{rate, Limits};
use sudoku_batch::Grid;

/// Puzzles of a `<puzzle> <ER>[/EP/ED]` file (any columns before the puzzle are skipped), with
/// ER in tenths, from line `skip` on.
fn rated(path: &str, skip: usize) -> Option<Vec<(Grid, u16)>> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut out = Vec::new();
    for line in text.lines().skip(skip) {
        let mut tokens = line.split_whitespace();
        let Some(p) = tokens.by_ref().find(|t| t.len() == 81) else {
            continue;
        };
        let (Ok(g), Some(r)) = (Grid::from_bytes(p.as_bytes()), tokens.next()) else {
            continue;
        };
        let Some(er) = r.split('/').next().and_then(|e| e.parse::<f32>().ok()) else {
            continue;
        };
        out.push((g, (er * 10.0).round() as u16));
    }
    Some(out)
}

/// Up to `n` puzzles rated in `lo..hi` (tenths).
fn band(all: &[(Grid, u16)], lo: u16, hi: u16, n: usize) -> Vec<Grid> {
    all.iter()
        .filter(|(_, er)| (lo..hi).contains(er))
        .map(|(g, _)| *g)
        .take(n)
        .collect()
}

fn bands() -> Vec<(String, Vec<Grid>)> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut sets = Vec::new();
    let kaggle = std::fs::read_to_string(format!("{root}/data/kaggle3m_radcliffe_first1000.csv"))
        .expect("data/kaggle3m_radcliffe_first1000.csv");
    let kaggle: Vec<Grid> = kaggle
        .lines()
        .skip(1)
        .filter_map(|l| Grid::from_bytes(l.split(',').nth(1)?.as_bytes()).ok())
        .collect();
    sets.push(("kaggle1000".to_string(), kaggle));
    let se = rated(
        &format!("{root}/data/sudokuexchange_diabolical_2020_39719.txt"),
        0,
    )
    .expect("data/sudokuexchange_diabolical_2020_39719.txt");
    for (name, lo, hi, n) in [
        ("se_6-7", 60, 70, 100),
        ("se_7-8", 70, 80, 50),
        ("se_8-9", 80, 90, 20),
    ] {
        sets.push((name.to_string(), band(&se, lo, hi, n)));
    }
    let cb = std::env::var("CB001").unwrap_or(format!("{root}/../shared/data/cb001_ser.txt"));
    match rated(&cb, 15_000) {
        Some(cb) => {
            for (name, lo, hi, n) in [
                ("cb001_1-4", 10, 40, 500),
                ("cb001_6-7", 60, 70, 100),
                ("cb001_7-8", 70, 80, 50),
                ("cb001_8-9", 80, 90, 20),
            ] {
                sets.push((name.to_string(), band(&cb, lo, hi, n)));
            }
        }
        None => eprintln!("{cb} not found: skipping the cb001 bands"),
    }
    sets.retain(|(_, p)| !p.is_empty());
    sets
}

fn bench(c: &mut Criterion) {
    let limits = Limits::default();
    let mut group = c.benchmark_group("rate");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    for (name, puzzles) in bands() {
        group.throughput(Throughput::Elements(puzzles.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(&name), &puzzles, |b, ps| {
            b.iter(|| {
                ps.iter()
                    .map(|p| u64::from(rate(black_box(p), &limits).er))
                    .sum::<u64>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
