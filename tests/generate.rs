//! `generate` end to end: the same seed gives the same bytes with any thread count, every puzzle
//! is unique (by `verify --unique` and by the solver), minimal when asked, with the clue counts
//! and symmetry asked for.

use crate::support::bin;
use predicates::prelude::*;
use sudoku_batch::{Grid, SolverKind};

fn generate(args: &[&str]) -> String {
    let out = bin()
        .arg("generate")
        .args(args)
        .arg("-q")
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

fn puzzles(text: &str) -> Vec<Grid> {
    text.lines().map(|l| l.parse().unwrap()).collect()
}

fn solutions(puzzle: &Grid) -> u32 {
    SolverKind::default().solve(puzzle, 2).count
}

#[test]
fn same_seed_same_bytes_with_one_or_two_threads() {
    let one = generate(&["-n", "40", "--seed", "7", "-j", "1"]);
    let two = generate(&["-n", "40", "--seed", "7", "-j", "2"]);
    assert_eq!(one, two);
    assert_eq!(one.lines().count(), 40);
    assert_ne!(one, generate(&["-n", "40", "--seed", "8", "-j", "2"]));
    // A prefix of a run is the smaller run: puzzle i depends only on (seed, i).
    let ten = generate(&["-n", "10", "--seed", "7", "-j", "2"]);
    assert!(one.starts_with(&ten));
    let csv_one = generate(&[
        "-n",
        "20",
        "--seed",
        "3",
        "--clues",
        "30",
        "--with-solution",
        "-j",
        "1",
    ]);
    let csv_two = generate(&[
        "-n",
        "20",
        "--seed",
        "3",
        "--clues",
        "30",
        "--with-solution",
        "-j",
        "2",
    ]);
    assert_eq!(csv_one, csv_two);
}

#[test]
fn puzzles_are_unique_and_minimal_by_default() {
    let text = generate(&["-n", "12", "--seed", "1"]);
    for puzzle in puzzles(&text) {
        assert_eq!(solutions(&puzzle), 1, "{puzzle}");
        for cell in 0..81 {
            if puzzle.get(cell) != 0 {
                let mut fewer = puzzle;
                fewer.set(cell, 0);
                assert_eq!(solutions(&fewer), 2, "{puzzle}: clue {cell} can go");
            }
        }
    }
}

/// A probe bounded by `--max-guesses` keeps its clue, so the puzzles are unique but not called
/// minimal (seed 2 makes some with a clue that could go).
#[test]
fn bounded_probes_make_unique_puzzles_not_called_minimal() {
    let run = bin()
        .args(["generate", "-n", "30", "--seed", "2", "--max-guesses", "0"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("generated 30 unique puzzles"), "{stderr}");
    let made = puzzles(&String::from_utf8_lossy(&run.stdout));
    assert_eq!(made.len(), 30);
    let removable = |p: &Grid| {
        (0..81).any(|cell| {
            let mut fewer = *p;
            fewer.set(cell, 0);
            p.get(cell) != 0 && solutions(&fewer) == 1
        })
    };
    assert!(made.iter().all(|p| solutions(p) == 1));
    assert!(made.iter().any(removable));
    let plain = bin()
        .args(["generate", "-n", "2", "--seed", "2"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&plain.stderr);
    assert!(stderr.contains("generated 2 minimal puzzles"), "{stderr}");
}

#[test]
fn verify_unique_passes_generated_csv() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gen.csv");
    bin()
        .args([
            "generate",
            "-n",
            "30",
            "--seed",
            "5",
            "--with-solution",
            "-q",
            "-o",
        ])
        .arg(&file)
        .assert()
        .code(0);
    let summary = dir.path().join("s.json");
    bin()
        .args(["verify", "--unique", "--json"])
        .arg(&summary)
        .arg(&file)
        .assert()
        .code(0);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(s["valid"], 30);
    // The clues column matches the puzzle.
    let mut reader = csv::Reader::from_path(&file).unwrap();
    assert_eq!(
        reader.headers().unwrap(),
        vec!["puzzle", "solution", "clues"]
    );
    for record in reader.records() {
        let record = record.unwrap();
        let puzzle: Grid = record[0].parse().unwrap();
        assert_eq!(record[2].parse::<usize>().unwrap(), puzzle.clue_count());
    }
}

#[test]
fn clue_counts_are_respected() {
    for puzzle in puzzles(&generate(&["-n", "10", "--seed", "2", "--clues", "32"])) {
        assert_eq!(puzzle.clue_count(), 32);
        assert_eq!(solutions(&puzzle), 1);
    }
    let ranged = puzzles(&generate(&[
        "-n",
        "20",
        "--seed",
        "2",
        "--min-clues",
        "26",
        "--max-clues",
        "29",
    ]));
    assert!(ranged.iter().all(|p| (26..=29).contains(&p.clue_count())));
    assert!(ranged.iter().all(|p| solutions(p) == 1));
    // Minimal and at most 24 clues.
    for puzzle in puzzles(&generate(&[
        "-n",
        "5",
        "--seed",
        "2",
        "--minimal",
        "--max-clues",
        "24",
    ])) {
        assert!(puzzle.clue_count() <= 24);
        assert_eq!(solutions(&puzzle), 1);
    }
}

/// The images of (row, column) under each symmetry, written out independently of the library.
fn images(symmetry: &str, r: usize, c: usize) -> Vec<(usize, usize)> {
    match symmetry {
        "central" => vec![(8 - r, 8 - c)],
        "quarter" => vec![(c, 8 - r), (8 - r, 8 - c), (8 - c, r)],
        "diagonal" => vec![(c, r)],
        "antidiagonal" => vec![(8 - c, 8 - r)],
        "horizontal" => vec![(8 - r, c)],
        "vertical" => vec![(r, 8 - c)],
        "dihedral" => vec![
            (c, 8 - r),
            (8 - r, 8 - c),
            (8 - c, r),
            (c, r),
            (8 - c, 8 - r),
            (8 - r, c),
            (r, 8 - c),
        ],
        _ => vec![],
    }
}

#[test]
fn symmetry_is_respected() {
    for symmetry in [
        "central",
        "quarter",
        "diagonal",
        "antidiagonal",
        "horizontal",
        "vertical",
        "dihedral",
    ] {
        let text = generate(&["-n", "4", "--seed", "9", "--symmetry", symmetry]);
        for puzzle in puzzles(&text) {
            assert_eq!(solutions(&puzzle), 1);
            for cell in 0..81 {
                let filled = puzzle.get(cell) != 0;
                for (r, c) in images(symmetry, cell / 9, cell % 9) {
                    assert_eq!(puzzle.get(r * 9 + c) != 0, filled, "{symmetry}: {puzzle}");
                }
            }
        }
    }
}

#[test]
fn output_file_and_empty_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.txt");
    bin()
        .args(["generate", "-n", "5", "--seed", "4", "-o"])
        .arg(&file)
        .assert()
        .code(0)
        .stderr(predicate::str::contains("generated 5 minimal puzzles"))
        .stderr(predicate::str::contains("µs/puzzle per thread"))
        .stderr(predicate::str::contains("seed 4"));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        generate(&["-n", "5", "--seed", "4"])
    );
    assert_eq!(generate(&["-n", "0", "--seed", "4"]), "");
    // No time per puzzle is made up for an empty run.
    bin()
        .args(["generate", "-n", "0", "--seed", "4"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains("generated 0 minimal puzzles"))
        .stderr(predicate::str::contains("µs/puzzle").not());
}

#[test]
fn impossible_requests_are_usage_errors() {
    for args in [
        &["--clues", "16"][..],
        &["--clues", "82"],
        &["--min-clues", "30", "--max-clues", "25"],
        &["--clues", "22", "--symmetry", "dihedral"],
        &["--clues", "30", "--min-clues", "20"],
        &["--symmetry", "spiral"],
        // A probe bounded by --max-guesses keeps its clue: not minimal.
        &["--minimal", "--max-guesses", "0"],
    ] {
        bin()
            .args(["generate", "-n", "1", "--seed", "1"])
            .args(args)
            .assert()
            .code(2);
    }
    // One dot too many is a malformed range, not the range 5.0..0.6.
    bin()
        .args(["generate", "-n", "1", "--er", "5...6"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "expected a range such as 5.0..6.5",
        ));
}

/// A compressed output holds the same bytes from run to run, however fast the puzzles come.
#[test]
fn compressed_output_keeps_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = |name: &str| {
        let path = dir.path().join(name);
        bin()
            .args(["generate", "-q", "-n", "20000", "--seed", "7", "-o"])
            .arg(&path)
            .assert()
            .success();
        std::fs::read(path).unwrap()
    };
    assert!(bytes("a.txt.gz") == bytes("b.txt.gz"));
}

/// Datasets are shared as `generate` command lines, so the bytes for a seed must not change by
/// accident (a new solver, a refactor, another rand version). These were made by this command
/// when the generator was written; they are checked here to still be unique and minimal. If the
/// algorithm is changed on purpose, say so in the README and update them.
#[test]
fn a_seed_keeps_its_puzzles() {
    let pinned = "\
87.2.....1..37.8.......45......53..4.17.........8...9..9..4.2.7.8.1..3.......8...
.8..12......46...2..95....3.......38...1......46....5..7.........893..7...1.8.4.6
.6....4..84.....2...9.8.......16...7....2..15.2....6....68.13....46...8.7....5.9.
";
    assert_eq!(generate(&["-n", "3", "--seed", "42", "-j", "2"]), pinned);
    for puzzle in puzzles(pinned) {
        assert_eq!(solutions(&puzzle), 1);
    }
    let central = "\
87......2..41.85.7..1.2.6..2...5....6..7.1..4....9...3..8.7.3..9.24.67..7......21
..4.12...75.4...12..9...6.3..7..69.8.........3.68..2..4.5...3..26...4.75...78.4..
";
    let args = [
        "-n",
        "2",
        "--seed",
        "42",
        "--clues",
        "30",
        "--symmetry",
        "central",
    ];
    assert_eq!(generate(&args), central);
}

/// FNV-1a (64-bit) of `bytes`: enough to pin a few kilobytes of output without a hashing crate.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Whole runs are pinned too (hashes of the bytes written before the generator's solution grids
/// came from the backtracking solver's search and its random stream from `rng.rs`), with a clue
/// range (so retries and drawn targets), a symmetry, and the default minimal puzzles.
#[test]
fn whole_runs_keep_their_bytes() {
    let range = [
        "-n",
        "100",
        "--seed",
        "7",
        "--with-solution",
        "--min-clues",
        "24",
        "--max-clues",
        "28",
    ];
    let cases: [(&[&str], u64); 3] = [
        (&range, 0xeb0d_9cba_0395_2c3d),
        (
            &["-n", "100", "--seed", "3", "--symmetry", "dihedral"],
            0x306a_19a5_3df8_f544,
        ),
        (
            &["-n", "100", "--seed", "9", "-j", "1"],
            0x1fef_2ea1_4862_9083,
        ),
    ];
    for (args, hash) in cases {
        assert_eq!(fnv1a(generate(args).as_bytes()), hash, "{args:?}");
    }
}
