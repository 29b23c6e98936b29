//! `rate`: ER/EP/ED equal to Sudoku Explainer's on the golden set (rated by `serate` outside
//! the repository), the same rows for 1 and 2 threads, statuses for bad and ambiguous puzzles,
//! `--max-er`, `--explain`, and the summary's bands.

use std::path::Path;

use crate::support::bin;

/// (puzzle, ER/EP/ED by serate 1.2.1.3, ER/EP/ED by SE 1.2.1) from the golden file.
fn golden() -> Vec<(String, String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/se_ratings.txt");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].to_string(), f[1].to_string(), f[2].to_string())
        })
        .collect()
}

fn rows(csv_text: &[u8]) -> Vec<csv::StringRecord> {
    csv::Reader::from_reader(csv_text)
        .records()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn ratings_equal_sudoku_explainers_and_do_not_depend_on_threads() {
    let dir = tempfile::tempdir().unwrap();
    let golden = golden();
    let input = dir.path().join("golden.txt");
    let text: String = golden.iter().map(|(p, _, _)| format!("{p}\n")).collect();
    std::fs::write(&input, text).unwrap();
    let mut outputs = Vec::new();
    for (threads, flavor) in [("1", None), ("2", None), ("2", Some("--serate1213"))] {
        let mut cmd = bin();
        cmd.args(["rate", "-q", "-j", threads]).arg(&input);
        if let Some(flag) = flavor {
            cmd.arg(flag);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.code() == Some(0) || out.status.code() == Some(1));
        let rows = rows(&out.stdout);
        assert_eq!(rows.len(), golden.len());
        let mut rated = 0;
        for (row, (puzzle, se1213, se121)) in rows.iter().zip(&golden) {
            assert_eq!(&row[2], puzzle);
            let want = if flavor.is_some() { se1213 } else { se121 };
            let got = format!("{}/{}/{}", &row[3], &row[4], &row[5]);
            match &row[8] {
                "rated" => {
                    assert_eq!(&got, want, "{puzzle}");
                    rated += 1;
                }
                // Only puzzles beyond the implemented chains may give up.
                "gave_up" => assert!(want.as_str() >= "9.0", "{puzzle}: {want} gave up"),
                other => panic!("{puzzle}: status {other}"),
            }
        }
        assert!(
            rated >= golden.len() - 5,
            "{rated} of {} rated",
            golden.len()
        );
        outputs.push(out.stdout);
    }
    let strip = |text: &[u8]| -> Vec<Vec<String>> {
        rows(text)
            .iter()
            .map(|r| {
                r.iter()
                    .enumerate()
                    .filter(|&(i, _)| i != 9) // rate_ns
                    .map(|(_, f)| f.to_string())
                    .collect()
            })
            .collect()
    };
    assert_eq!(strip(&outputs[0]), strip(&outputs[1]), "1 and 2 threads");
}

/// `--scale sukaku` rates as Sukaku Explainer 1.15.10 does on its golden set, for 1 and 2
/// threads; `generate --scale sukaku --er` keeps puzzles that scale rates in range; a scale
/// named twice or unknown is a usage error.
#[test]
fn the_sukaku_scale_rates_as_sukaku_explainer() {
    let dir = tempfile::tempdir().unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/sukaku_ratings.txt");
    let golden: Vec<(String, String)> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].to_string(), f[1].to_string())
        })
        .collect();
    let input = dir.path().join("sukaku.txt");
    let text: String = golden.iter().map(|(p, _)| format!("{p}\n")).collect();
    std::fs::write(&input, text).unwrap();
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let out = bin()
            .args(["rate", "-q", "--scale", "sukaku", "-j", threads])
            .args(["--columns", "puzzle,er,ep,ed,status"])
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let rows = rows(&out.stdout);
        assert_eq!(rows.len(), golden.len());
        for (row, (puzzle, want)) in rows.iter().zip(&golden) {
            assert_eq!(&row[0], puzzle);
            assert_eq!(&row[4], "rated");
            assert_eq!(
                &format!("{}/{}/{}", &row[1], &row[2], &row[3]),
                want,
                "{puzzle}"
            );
        }
        outputs.push(out.stdout);
    }
    assert_eq!(outputs[0], outputs[1]);
    // The default scale rates most of these puzzles higher.
    let se = bin()
        .args(["rate", "-q", "--columns", "er"])
        .arg(&input)
        .output()
        .unwrap();
    let higher = rows(&se.stdout)
        .iter()
        .zip(&golden)
        .filter(|(r, (_, want))| r[0].parse::<f32>().unwrap() > want[..3].parse::<f32>().unwrap())
        .count();
    assert!(higher * 2 > golden.len(), "{higher} of {}", golden.len());

    let made = bin()
        .args(["generate", "-n", "4", "--seed", "5", "-j", "2", "-q"])
        .args(["--scale", "sukaku", "--er", "5.5..5.6"])
        .output()
        .unwrap();
    assert_eq!(made.status.code(), Some(0));
    let puzzles = dir.path().join("made.txt");
    std::fs::write(&puzzles, &made.stdout).unwrap();
    let ers = |scale: &str| -> Vec<f32> {
        let rated = bin()
            .args(["rate", "-q", "--scale", scale, "--columns", "er"])
            .arg(&puzzles)
            .output()
            .unwrap();
        rows(&rated.stdout)
            .iter()
            .map(|r| r[0].parse().unwrap())
            .collect()
    };
    let (sukaku, se) = (ers("sukaku"), ers("se1.2.1"));
    assert_eq!(sukaku.len(), 4);
    assert!(
        sukaku.iter().all(|&e| (5.5..=5.6).contains(&e)),
        "{sukaku:?}"
    );
    // Kept for the Sukaku scale: SE 1.2.1, which lacks its wings and strong links, rates
    // them higher.
    assert!(se.iter().any(|&e| e > 5.6), "{se:?}");

    for args in [
        &["--scale", "sukaku", "--serate1213"][..],
        &["--scale", "se1.2"][..],
    ] {
        let out = bin().arg("rate").args(args).arg(&input).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--scale"), "{stderr}");
    }
}

#[test]
fn bad_ambiguous_and_bounded_puzzles_are_rows_with_their_status() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("mixed.txt");
    let hard = "48.3............71.2.......7.5....6....2..8.............1.76...3.....4......5....";
    std::fs::write(
        &input,
        format!(
            "{hard}\nnot a puzzle\n{}\n55..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n",
            ".".repeat(81)
        ),
    )
    .unwrap();
    let summary = dir.path().join("s.json");
    let out_csv = dir.path().join("r.csv");
    let run = bin()
        .args(["rate", "--max-er", "6.0", "-o"])
        .arg(&out_csv)
        .arg("--summary")
        .arg(&summary)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("puzzles: 4 (rated 0, unsolvable 0, multiple 1, invalid 2, gave up 1)"),
        "{stderr}"
    );
    let rows = rows(&std::fs::read(&out_csv).unwrap());
    let statuses: Vec<&str> = rows.iter().map(|r| &r[8]).collect();
    assert_eq!(statuses, ["gave_up", "invalid", "multiple", "invalid"]);
    assert!(
        rows[0][10].contains("above the limit of 6.0 (max ER)"),
        "{:?}",
        rows[0]
    );
    assert!(
        rows[3][10].contains("contradictory clues"),
        "{:?}",
        &rows[3]
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    assert_eq!(json["puzzles"], 4);
    assert_eq!(json["statuses"]["gave_up"], 1);

    // --explain: the path in words, ending on the hardest step.
    let explained = bin()
        .args(["rate", "-q", "--explain"])
        .write_stdin(format!("{hard}\n"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&explained.stdout);
    assert!(
        text.starts_with(&format!("{hard}  ER/EP/ED 7.1/1.2/1.2")),
        "{text}"
    );
    assert!(text.contains("Forcing Chain (7.1)"), "{text}");
    // A forcing chain's step shows its two chains, from the assumption to a contradiction.
    let chain_step = text
        .lines()
        .find(|l| l.contains("Forcing Chain (7.1)"))
        .unwrap();
    assert!(
        chain_step.contains(" -> ") && chain_step.contains(" and "),
        "{chain_step}"
    );
    assert_eq!(explained.status.code(), Some(0));
    // A record with no rating says where it is.
    let explained = bin()
        .args(["rate", "-q", "--explain", "-"])
        .write_stdin(format!("{hard}\n1234\n"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&explained.stdout);
    assert!(
        text.contains("1234  invalid: expected 81 cells, found 4 (stdin line 2)\n"),
        "{text}"
    );
    // Rows and the summary cannot share standard output.
    let mixed = bin()
        .args(["rate", "-q", "--summary", "-", "-"])
        .write_stdin(format!("{hard}\n"))
        .output()
        .unwrap();
    assert_eq!(mixed.status.code(), Some(2));
    assert!(mixed.stdout.is_empty());
    assert!(String::from_utf8_lossy(&mixed.stderr).contains("--summary names standard output"));
}

#[test]
fn generate_er_keeps_puzzles_in_range_reproducibly() {
    let make = |threads: &str, range: &str| {
        let out = bin()
            .args(["generate", "-n", "12", "--seed", "5", "-q", "-j", threads])
            .args(range.split(' '))
            .output()
            .unwrap();
        crate::support::assert_succeeded(&out);
        out.stdout
    };
    let one = make("1", "--er 2.6..4.5");
    assert_eq!(
        one,
        make("2", "--er 2.6..4.5"),
        "the thread count changes nothing"
    );
    let rated = bin()
        .args(["rate", "-q"])
        .write_stdin(one.clone())
        .output()
        .unwrap();
    let kept = rows(&rated.stdout);
    assert_eq!(kept.len(), 12);
    for row in &kept {
        assert_eq!(&row[8], "rated");
        let er: f32 = row[3].parse().unwrap();
        assert!((2.6..=4.5).contains(&er), "{er}");
    }
    // A named band, and the summary's count of candidates rated.
    let easy = bin()
        .args(["generate", "-n", "4", "--seed", "5", "--difficulty", "easy"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&easy.stderr);
    assert!(
        stderr.contains("candidates rated per kept puzzle"),
        "{stderr}"
    );
    let rated = bin()
        .args(["rate", "-q"])
        .write_stdin(easy.stdout)
        .output()
        .unwrap();
    for row in rows(&rated.stdout) {
        assert!(row[3].parse::<f32>().unwrap() < 1.5, "{:?}", row);
    }
    // An empty range is a usage error, and so is one that holds no whole tenth.
    bin()
        .args(["generate", "-n", "1", "--er", "5.0..4.0"])
        .assert()
        .code(2);
    bin()
        .args(["generate", "-n", "1", "--er", "4.41..4.49"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("holds no rating"));
    // And one of whole tenths no technique of the scale gives, which no number of candidates
    // would fill: 4.1 is a Sukaku Explainer technique's.
    bin()
        .args(["generate", "-n", "1", "--er", "1.3..1.4"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "the ER range 1.3..1.4 holds no rating a minimal puzzle reaches: below 4.5 the \
             ratings on SE's scale are 1.2, 1.5, 1.7, 2.0,",
        ));
    for range in ["4.1..4.1", "1.8..1.9"] {
        bin()
            .args(["generate", "-n", "1", "--er", range])
            .assert()
            .code(2)
            .stderr(predicates::str::contains("3.8, 4.0, 4.2, 4.4"));
    }
    let kite = bin()
        .args([
            "generate", "-n", "1", "-q", "--seed", "2", "--er", "4.1..4.1", "--scale", "sukaku",
        ])
        .output()
        .unwrap();
    assert_eq!(kite.status.code(), Some(0), "{kite:?}");
    let rated = bin()
        .args(["rate", "-", "-q", "--scale", "sukaku", "--columns", "er"])
        .write_stdin(kite.stdout)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&rated.stdout), "er\n4.1\n");
    // So is one below the easiest step, found before any puzzle is drawn: only a full grid
    // rates there (0.0), and a full grid rates nowhere else.
    bin()
        .args(["generate", "-n", "1", "--er", "0..0.9"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "only a full grid (81 clues, nothing to solve) rates below 1.0",
        ));
    bin()
        .args(["generate", "-n", "1", "--clues", "81", "--er", "1..2"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("holds no rating of a full grid"));
    let full = bin()
        .args([
            "generate", "-n", "1", "-q", "--seed", "3", "--clues", "81", "--er", "0..0",
        ])
        .output()
        .unwrap();
    assert!(full.status.success());
    let grid = String::from_utf8(full.stdout).unwrap();
    let grid: sudoku_batch::Grid = grid.trim().parse().unwrap();
    assert!(grid.is_complete() && !grid.has_conflict(), "{grid}");
    // A range that random minimal puzzles almost never reach is warned about at the start.
    bin()
        .args(["generate", "-n", "0", "-q", "--er", "12..20"])
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "warning: --er from 12.0: random minimal puzzles rate that high very rarely",
        ));
    // From 9.5 (nested forcing chains) on, not below.
    for (range, warned) in [("9.5..20", true), ("9.4..20", false)] {
        let out = bin()
            .args(["generate", "-n", "0", "-q", "--er", range])
            .output()
            .unwrap();
        assert!(out.status.success());
        let said = String::from_utf8_lossy(&out.stderr).contains("warning: --er from");
        assert_eq!(said, warned, "{range}");
    }
}

/// Bounds between two tenths keep every rating on their side: a range's low end rounds up and
/// its high end down, and `--max-er` rounds down (4.45 allows 4.4, not 4.5).
#[test]
fn bounds_between_tenths_let_no_rating_outside_them() {
    let made = bin()
        .args([
            "generate",
            "-n",
            "3",
            "--seed",
            "3",
            "--er",
            "4.41..4.59",
            "-q",
        ])
        .output()
        .unwrap();
    crate::support::assert_succeeded(&made);
    let rated = bin()
        .args(["rate", "-q", "--columns", "er"])
        .write_stdin(made.stdout)
        .output()
        .unwrap();
    let ers: Vec<String> = rows(&rated.stdout)
        .iter()
        .map(|r| r[0].to_string())
        .collect();
    assert_eq!(ers, ["4.5", "4.5", "4.5"]);
    let text = std::fs::read_to_string(crate::support::data("magictour_top1465.txt")).unwrap();
    let some: String = text.lines().take(300).map(|l| format!("{l}\n")).collect();
    let limited = bin()
        .args(["rate", "-q", "--max-er", "4.45", "--columns", "er,status"])
        .write_stdin(some)
        .output()
        .unwrap();
    let (mut rated, mut gave_up) = (0, 0);
    for row in rows(&limited.stdout) {
        let er: f32 = if row[0].is_empty() {
            0.0
        } else {
            row[0].parse().unwrap()
        };
        assert!(er <= 4.4, "{row:?}");
        match &row[1] {
            "rated" => rated += 1,
            "gave_up" => gave_up += 1,
            other => panic!("{other}"),
        }
    }
    assert!(rated > 0 && gave_up > 0, "{rated} rated, {gave_up} gave up");
}

/// The rows of a rate CSV without `rate_ns` (the only column that differs between runs).
fn rows_without_time(csv_text: &[u8]) -> Vec<Vec<String>> {
    let mut reader = csv::Reader::from_reader(csv_text);
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let time = header.iter().position(|h| h == "rate_ns");
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (0..r.len())
                .filter(|&i| Some(i) != time)
                .map(|i| r[i].to_string())
                .collect()
        })
        .collect()
}

/// The golden set's first 40 puzzles, a malformed line and a puzzle with many solutions.
fn mixed_rate_input(dir: &Path) -> std::path::PathBuf {
    let mut text: String = golden()
        .iter()
        .take(40)
        .map(|(p, _, _)| format!("{p}\n"))
        .collect();
    text += "not a puzzle\n";
    text += &format!("{}\n", ".".repeat(81));
    let input = dir.join("in.txt");
    std::fs::write(&input, text).unwrap();
    input
}

#[test]
fn shards_and_columns_give_the_rows_of_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let input = mixed_rate_input(dir.path());
    let whole = dir.path().join("whole.csv");
    bin()
        .args(["rate", "-q", "-j", "2", "-o"])
        .arg(&whole)
        .arg(&input)
        .assert()
        .code(1);
    let whole_rows = rows_without_time(&std::fs::read(&whole).unwrap());
    assert_eq!(whole_rows.len(), 42);
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("whole.csv.run.json")).unwrap())
            .unwrap();
    assert_eq!(sidecar["kind"], "sudoku-batch rate run");
    assert_eq!(sidecar["finished"]["rows"], 42);

    let mut sharded = Vec::new();
    let mut shard_files = Vec::new();
    for k in 1..=3 {
        let shard = dir.path().join(format!("s{k}.csv"));
        let run = bin()
            .args(["rate", "-q", "-j", "1", "--shard", &format!("{k}/3"), "-o"])
            .arg(&shard)
            .arg(&input)
            .output()
            .unwrap();
        assert!(matches!(run.status.code(), Some(0 | 1)), "{run:?}");
        let rows = rows_without_time(&std::fs::read(&shard).unwrap());
        assert!(rows
            .iter()
            .all(|r| r[0].parse::<u64>().unwrap() % 3 == k - 1));
        sharded.extend(rows);
        shard_files.push(shard);
    }
    sharded.sort_by_key(|r| r[0].parse::<u64>().unwrap());
    assert_eq!(sharded, whole_rows, "the shards hold the rows of one run");

    // merge puts rate shards back together, checking each row; a shard short of one is
    // incomplete, and a changed status is refused by shard and line.
    let merged = dir.path().join("merged.csv");
    let summary = dir.path().join("merged.json");
    let out = bin()
        .arg("merge")
        .args(&shard_files)
        .arg("-o")
        .arg(&merged)
        .arg("--summary")
        .arg(&summary)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("puzzles: 42 "), "{stderr}");
    assert_eq!(
        rows_without_time(&std::fs::read(&merged).unwrap()),
        whole_rows
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    assert_eq!(json["puzzles"], 42);
    assert_eq!(json["statuses"]["multiple"], 1);
    // Over the span the shards ran in, as a merge of `solve` shards says.
    assert_eq!(json["shards"], 3, "{json}");
    let (start, end) = (
        json["first_start_unix"].as_f64(),
        json["last_end_unix"].as_f64(),
    );
    let span = json["span_seconds"].as_f64().unwrap();
    assert!(
        (end.unwrap() - start.unwrap() - span).abs() < 1e-6,
        "{json}"
    );
    assert_eq!(json["wall_seconds"].as_f64(), Some(span), "{json}");
    assert!(stderr.contains("merged 3 shard(s): "), "{stderr}");
    // A summary given for rate shards is said to go unused.
    bin()
        .arg("merge")
        .args(&shard_files)
        .arg("-o")
        .arg(dir.path().join("merged2.csv"))
        .arg("--shard-summary")
        .arg(&summary)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "--shard-summary not used: it is for solve shards",
        ));
    bin()
        .arg("merge")
        .args(&shard_files[..2])
        .arg("-o")
        .arg(&merged)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("nothing written"));
    // A same-size change (the size is checked first): the first row's ER below its EP.
    let text = std::fs::read_to_string(&shard_files[1]).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut fields: Vec<&str> = lines[1].split(',').collect();
    assert_eq!((fields[4], fields[8]), ("1.2", "rated"), "{}", lines[1]);
    fields[3] = "1.0";
    lines[1] = fields.join(",");
    std::fs::write(&shard_files[1], lines.join("\n") + "\n").unwrap();
    bin()
        .arg("merge")
        .args(&shard_files)
        .arg("-o")
        .arg(&merged)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("s2.csv: line 2"))
        .stderr(predicates::str::contains("above er 1.0"));
    // Shards copied without their sidecars merge with the warning that nothing tells their
    // run or completeness, as `solve` shards do.
    std::fs::write(&shard_files[1], &text).unwrap();
    for shard in &shard_files {
        std::fs::remove_file(format!("{}.run.json", shard.display())).unwrap();
    }
    let out = bin()
        .arg("merge")
        .args(&shard_files)
        .arg("-o")
        .arg(&merged)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("warning: no FILE.run.json beside the shards"),
        "{stderr}"
    );
    assert_eq!(
        rows_without_time(&std::fs::read(&merged).unwrap()),
        whole_rows
    );

    let picked = bin()
        .args(["rate", "-q", "--columns", "er,puzzle,status"])
        .arg(&input)
        .output()
        .unwrap();
    let text = String::from_utf8(picked.stdout).unwrap();
    assert!(text.starts_with("er,puzzle,status\n"), "{text}");
    let picked_rows = rows_without_time(text.as_bytes());
    let projected: Vec<Vec<String>> = whole_rows
        .iter()
        .map(|r| vec![r[3].clone(), r[2].clone(), r[8].clone()])
        .collect();
    assert_eq!(picked_rows, projected);
    bin()
        .args(["rate", "--columns", "er,solution"])
        .arg(&input)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "unknown rate column \"solution\"",
        ));
}

/// A rating needs no solution: a damaged reference solution is ignored alike as a CSV column
/// and as a line's second token, and the puzzle is rated either way.
#[test]
fn a_damaged_reference_is_ignored_alike_in_csv_and_lines() {
    let dir = tempfile::tempdir().unwrap();
    let (puzzle, solution) = crate::support::kaggle_pairs(1).remove(0);
    let cut = &solution[..80];
    let csv = dir.path().join("a.csv");
    std::fs::write(&csv, format!("puzzle,solution\n{puzzle},{cut}\n")).unwrap();
    let lines = dir.path().join("a.txt");
    std::fs::write(&lines, format!("{puzzle}:{cut}\n")).unwrap();
    for input in [&csv, &lines] {
        let output = bin()
            .args(["rate", "-q", "--columns", "status,message"])
            .arg(input)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{stdout}");
        assert_eq!(stdout, "status,message\nrated,\n", "{}", input.display());
    }
}

/// [`mixed_rate_input`] in `dir` and its rows rated in one run (to stdout).
fn mixed_rated_whole(dir: &Path) -> (std::path::PathBuf, Vec<u8>) {
    let input = mixed_rate_input(dir);
    let whole = bin()
        .args(["rate", "-q", "-j", "2"])
        .arg(&input)
        .output()
        .unwrap()
        .stdout;
    (input, whole)
}

/// Kept rows that end in CRLF (a partial edited on Windows) are kept whole: the rows rated
/// after them start on lines of their own. A blank line between kept rows is refused, naming
/// its line, and the partial is left as it was.
#[test]
fn resume_keeps_crlf_rows_whole_and_refuses_a_blank_line_between_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (input, whole) = mixed_rated_whole(dir.path());
    let whole_text = String::from_utf8(whole.clone()).unwrap();
    let lines: Vec<&str> = whole_text.lines().collect();
    let out = dir.path().join("r.csv");
    let partial = dir.path().join("r.csv.partial");
    let resume = || {
        bin()
            .args(["rate", "-j", "2", "-q", "--resume", "-o"])
            .arg(&out)
            .arg(&input)
            .output()
            .unwrap()
    };
    // With an editor's blank line at the end, which is dropped.
    std::fs::write(&partial, lines[..21].join("\r\n") + "\r\n\r\n").unwrap();
    let resumed = resume();
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(1), "{stderr}");
    let text = std::fs::read_to_string(&out).unwrap().replace("\r\n", "\n");
    // A CR left without its LF would join two rows on one line.
    assert!(!text.contains('\r'), "{text}");
    assert_eq!(text.lines().count(), lines.len());
    assert_eq!(
        rows_without_time(text.as_bytes()),
        rows_without_time(&whole)
    );

    std::fs::remove_file(&out).unwrap();
    let mut blank: Vec<&str> = lines[..21].to_vec();
    blank.insert(11, "");
    for end in ["\n", "\r\n"] {
        let edited = blank.join(end) + end;
        std::fs::write(&partial, &edited).unwrap();
        let resumed = resume();
        let stderr = String::from_utf8_lossy(&resumed.stderr);
        assert_eq!(resumed.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("r.csv.partial: cannot resume: line 12: blank, between two rows"),
            "{end:?}: {stderr}"
        );
        assert_eq!(std::fs::read_to_string(&partial).unwrap(), edited);
        assert!(!out.exists());
    }
}

/// A partial cut inside a quoted field, just after a line end in it (an input whose name holds
/// a newline, in the `file` column), ends in a torn row: it is dropped and rated again, not
/// kept as a row that differs from its record.
#[cfg(unix)]
#[test]
fn resume_drops_a_row_cut_inside_a_quoted_field() {
    let dir = tempfile::tempdir().unwrap();
    let input = newline_named_input(dir.path());
    let whole = bin()
        .args(["rate", "-q"])
        .arg(&input)
        .output()
        .unwrap()
        .stdout;
    let cut = cut_in_file_name(&whole, "6");
    let out = dir.path().join("r.csv");
    std::fs::write(dir.path().join("r.csv.partial"), &whole[..cut]).unwrap();
    let resumed = bin()
        .args(["rate", "-q", "--resume", "-o"])
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(0), "{stderr}");
    let resumed = std::fs::read(&out).unwrap();
    assert_eq!(rows_without_time(&resumed), rows_without_time(&whole));
}

/// The same cut in a `rate` shard: `merge --allow-incomplete` leaves the torn row out, naming
/// its line, and merges only the whole rows.
#[cfg(unix)]
#[test]
fn merge_leaves_out_a_shard_row_cut_inside_a_quoted_field() {
    let dir = tempfile::tempdir().unwrap();
    let input = newline_named_input(dir.path());
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let out = dir.path().join(format!("s{k}.csv"));
        let run = bin()
            .args(["rate", "-q", "--shard", &shard, "-o"])
            .arg(&out)
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(0));
    }
    let s1 = dir.path().join("s1.csv");
    let whole = std::fs::read(&s1).unwrap();
    let rows = rows_without_time(&whole);
    // Its third row.
    let third = &rows[2][0];
    let cut = cut_in_file_name(&whole, third);
    std::fs::write(&s1, &whole[..cut]).unwrap();
    let merged = dir.path().join("all.csv");
    let run = bin()
        .args(["merge", "--allow-incomplete", "-o"])
        .arg(&merged)
        .arg(&s1)
        .arg(dir.path().join("s2.csv"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("a cut-off row (no line end), left out"),
        "{stderr}"
    );
    let merged = rows_without_time(&std::fs::read(&merged).unwrap());
    assert!(merged.iter().all(|r| r[0] != *third), "{merged:?}");
    for kept in &rows[..2] {
        assert!(merged.contains(kept), "{kept:?}");
    }
}

/// A rating read back from a shard (or a partial) is whole tenths, as `rate` writes it: a
/// shard edited to hold `7.25` or a word is refused, naming the line and the value.
#[test]
fn merge_refuses_a_rating_that_is_not_whole_tenths() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("p.txt");
    let text: String = golden()
        .iter()
        .take(3)
        .map(|(p, _, _)| format!("{p}\n"))
        .collect();
    std::fs::write(&input, text).unwrap();
    let shard = dir.path().join("r.csv");
    let run = bin()
        .args(["rate", "-q", "--columns", "index,er,status", "-o"])
        .arg(&shard)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0));
    // Without its sidecar, merge reads the ratings from the rows.
    std::fs::remove_file(dir.path().join("r.csv.run.json")).unwrap();
    let rows = std::fs::read_to_string(&shard).unwrap();
    let second: Vec<&str> = rows.lines().nth(2).unwrap().split(',').collect();
    for bad in ["7.25", "hard"] {
        let edited = rows.replacen(&second.join(","), &[second[0], bad, second[2]].join(","), 1);
        std::fs::write(&shard, edited).unwrap();
        let run = bin()
            .args(["merge", "-o"])
            .arg(dir.path().join("all.csv"))
            .arg(&shard)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("line 3: er \"{bad}\" is not a rating")),
            "{stderr}"
        );
    }
}

/// Twelve golden puzzles in `dir`, in a file whose name holds a newline (`a\nb.txt`), so that
/// the `file` column is a quoted field with a line end inside.
#[cfg(unix)]
fn newline_named_input(dir: &Path) -> std::path::PathBuf {
    let input = dir.join("a\nb.txt");
    let text: String = golden()
        .iter()
        .take(12)
        .map(|(p, _, _)| format!("{p}\n"))
        .collect();
    std::fs::write(&input, text).unwrap();
    input
}

/// Where to cut the rows of [`newline_named_input`] so that the row of `index` ends just after
/// the newline inside its file name.
#[cfg(unix)]
fn cut_in_file_name(rows: &[u8], index: &str) -> usize {
    let start = find(rows, format!("\n{index},").as_bytes()) + 1;
    start + find(&rows[start..], b"a\nb.txt") + 2
}

/// Where `needle` first occurs in `hay` (it must).
#[cfg(unix)]
fn find(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).position(|w| w == needle).unwrap()
}

#[test]
fn resume_keeps_checked_rows_and_refuses_changed_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (input, whole) = mixed_rated_whole(dir.path());
    let whole_text = String::from_utf8(whole.clone()).unwrap();
    let lines: Vec<&str> = whole_text.lines().collect();
    let out = dir.path().join("r.csv");
    let partial = dir.path().join("r.csv.partial");
    let resume = |columns: Option<&str>| {
        let mut cmd = bin();
        cmd.args(["rate", "-j", "2", "--resume", "-o"])
            .arg(&out)
            .arg(&input);
        if let Some(columns) = columns {
            cmd.args(["--columns", columns]);
        }
        cmd.output().unwrap()
    };
    // The first 20 rows and a torn 21st: the torn one is rated again.
    let mut head = lines[..21].join("\n");
    head += &format!("\n{}", &lines[21][..30]);
    std::fs::write(&partial, &head).unwrap();
    let resumed = resume(None);
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("kept 20 row(s)"), "{stderr}");
    assert!(
        stderr.contains("puzzles: 42 "),
        "the kept rows count: {stderr}"
    );
    assert_eq!(
        rows_without_time(&std::fs::read(&out).unwrap()),
        rows_without_time(&whole)
    );

    // A row whose status does not fit its puzzle, and one of another puzzle, are refused by
    // line, and the earlier output is left as it was.
    let unique_row = lines[5];
    let tampered = [
        (unique_row.replace(",rated,", ",multiple,"), "line 6"),
        (
            unique_row.replacen(&lines[5][..12], &lines[6][..12], 1),
            "the input or the partial file changed",
        ),
    ];
    for (row, expected) in tampered {
        let mut text = lines[..5].join("\n");
        text += &format!("\n{row}\n");
        std::fs::remove_file(&out).ok();
        std::fs::remove_file(dir.path().join("r.csv.run.json")).ok();
        std::fs::write(&partial, &text).unwrap();
        let refused = resume(None);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("cannot resume"), "{stderr}");
        assert!(stderr.contains(expected), "{expected}: {stderr}");
        assert_eq!(std::fs::read_to_string(&partial).unwrap(), text);
    }

    bin()
        .args(["rate", "-q", "-j", "2", "-o"])
        .arg(&out)
        .arg(&input)
        .assert()
        .code(1);
    std::fs::remove_file(&out).unwrap();
    std::fs::write(&partial, lines[..5].join("\n") + "\n").unwrap();
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("r.csv.run.json")).unwrap()).unwrap();
    // A run on the other scale is refused in the words of rate's own flag, and another
    // --max-er or --timeout-ms would mix two runs' rows.
    let edits = [
        (
            "solver",
            serde_json::json!("se1.2.1.3"),
            "the earlier run rated on the scale se1.2.1.3, this one on se1.2.1 (--scale",
        ),
        (
            "limits",
            serde_json::json!({"max_er_tenths": 20, "timeout_ms": 50}),
            "the earlier run ran with --max-er 2.0 --timeout-ms 50, this one with no limit",
        ),
    ];
    for (key, value, says) in edits {
        let mut edited = sidecar.clone();
        edited[key] = value;
        std::fs::write(
            dir.path().join("r.csv.run.json"),
            serde_json::to_vec(&edited).unwrap(),
        )
        .unwrap();
        let refused = resume(None);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(says), "{key}: {stderr}");
    }

    // --resume needs the columns it counts and matches by; --explain writes no rows.
    let refused = resume(Some("puzzle,ep"));
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("status, er"));
    bin()
        .args(["rate", "--explain", "--resume", "-o"])
        .arg(&out)
        .arg(&input)
        .assert()
        .code(2);
}

#[test]
fn a_stopped_rate_run_resumes_to_the_rows_of_one_run() {
    let dir = tempfile::tempdir().unwrap();
    // Hard puzzles (ER 7-9), a few tenths of a second each in a test build.
    let text: String = std::fs::read_to_string(crate::support::data("magictour_top1465.txt"))
        .unwrap()
        .lines()
        .take(24)
        .map(|l| format!("{l}\n"))
        .collect();
    let input = dir.path().join("hard.txt");
    std::fs::write(&input, text).unwrap();
    let whole = bin()
        .args(["rate", "-q", "-j", "2"])
        .arg(&input)
        .output()
        .unwrap()
        .stdout;
    let out = dir.path().join("r.csv");
    let partial = dir.path().join("r.csv.partial");
    let mut child = std::process::Command::new(crate::support::bin_path())
        .args(["rate", "-j", "1", "-o"])
        .arg(&out)
        .arg(&input)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The header and at least one row (the writer flushes each chunk of rows).
    crate::support::wait_for_growth(&mut child, &partial, 200);
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let stopped = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&stopped.stderr);
    assert_eq!(stopped.status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("--resume"), "{stderr}");
    assert!(!out.exists());
    let kept = rows_without_time(&std::fs::read(&partial).unwrap()).len();
    assert!(kept < 24, "{kept} rows before the stop");
    let resumed = bin()
        .args(["rate", "-j", "2", "--resume", "-o"])
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert!(stderr.contains(&format!("kept {kept} row(s)")), "{stderr}");
    assert_eq!(
        rows_without_time(&std::fs::read(&out).unwrap()),
        rows_without_time(&whole),
        "the resumed run equals one run"
    );
}
