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
    for (threads, flavor) in [("1", None), ("2", None), ("2", Some("--se121"))] {
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
            let want = if flavor.is_some() { se121 } else { se1213 };
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
    assert!(rows[0][10].contains("max_er"));
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
    assert_eq!(explained.status.code(), Some(0));
}

#[test]
fn generate_er_keeps_puzzles_in_range_reproducibly() {
    let make = |threads: &str, range: &str| {
        let out = bin()
            .args(["generate", "-n", "12", "--seed", "5", "-q", "-j", threads])
            .args(range.split(' '))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
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
    // An empty range is a usage error.
    bin()
        .args(["generate", "-n", "1", "--er", "5.0..4.0"])
        .assert()
        .code(2);
}
