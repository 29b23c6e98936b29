//! Outputs: `--columns` (the hand-written row formatter quotes exactly as the csv crate does;
//! the header and rows follow the list; `--no-header` leaves the header out; `verify`, `--resume` and `merge` work with the columns
//! they need and refuse clearly without them), the summary's account of CPU time, compressed
//! output (`.gz`, `.zst`, `--compress`) read by the standard tools, non-regular outputs (FIFOs,
//! devices) written directly, one run per output at a time, bad `-o` paths refused before any
//! work, and files that appear whole or not at all.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;
use std::time::{Duration, Instant};

use crate::cli::CLASSIC;
#[cfg(unix)]
use crate::support::mkfifo;
use crate::support::{
    bin, bin_path, data, repeated_puzzles, slow_input, spawn_solve, wait_for_growth,
};
use predicates::prelude::*;
use proptest::prelude::*;
use sudoku_batch::io::results::{Column, GridText, RowFormat, RowValues, Status};
use sudoku_batch::testing::row_writer;
use sudoku_batch::Grid;

/// [`mixed_input`](crate::support::mixed_input) under this module's file name.
fn mixed_input(dir: &Path) -> PathBuf {
    crate::support::mixed_input(dir, "mixed, \"odd\" name.txt")
}

/// A CSV file's header and rows, as strings.
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .unwrap();
    let mut records = reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect::<Vec<_>>());
    let header = records.next().unwrap();
    (header, records.collect())
}

/// The rows of `path` as `columns` of `reference`'s rows (`solve_ns` blanked: it differs
/// between runs).
fn project(header: &[String], rows: &[Vec<String>], columns: &[&str]) -> Vec<Vec<String>> {
    let at: Vec<usize> = columns
        .iter()
        .map(|c| header.iter().position(|h| h == c).expect("column present"))
        .collect();
    rows.iter()
        .map(|row| {
            at.iter()
                .zip(columns)
                .map(|(&i, &c)| {
                    if c == "solve_ns" {
                        String::new()
                    } else {
                        row[i].clone()
                    }
                })
                .collect()
        })
        .collect()
}

fn solve(args: &[&str], input: &Path, out: &Path) -> std::process::Output {
    bin()
        .arg("solve")
        .args(args)
        .arg("-o")
        .arg(out)
        .arg(input)
        .output()
        .unwrap()
}

// ---- the formatter ----

/// What `csv::Writer` (the crate's defaults, as `solve` used before) writes for one row.
fn csv_crate_row(fields: &[&[u8]]) -> Vec<u8> {
    let mut writer = row_writer(Vec::new());
    writer.write_record(fields).unwrap();
    writer.into_inner().unwrap()
}

fn values_of<'a>(v: &RowValues<'a>, file: &'a [u8], columns: &[Column]) -> Vec<Vec<u8>> {
    columns
        .iter()
        .map(|c| match c {
            Column::Index => v.index.to_string().into_bytes(),
            Column::Line => v.line.to_string().into_bytes(),
            Column::Puzzle => v.puzzle.to_vec(),
            Column::Solution => v.solution.to_vec(),
            Column::Status => v.status.as_str().as_bytes().to_vec(),
            Column::Guesses => v.guesses.to_string().into_bytes(),
            Column::SolveNs => v.solve_ns.to_string().into_bytes(),
            Column::Message => v.message.as_bytes().to_vec(),
            Column::File => file.to_vec(),
        })
        .collect()
}

fn check_formatter(values: &RowValues<'_>, file: &str, columns: &[Column]) {
    let format = RowFormat::new(columns, &[file.to_string()]);
    let mut mine = b"before|".to_vec();
    format.write(&mut mine, values);
    let fields = values_of(values, file.as_bytes(), columns);
    let refs: Vec<&[u8]> = fields.iter().map(Vec::as_slice).collect();
    let mut expected = b"before|".to_vec();
    expected.extend(csv_crate_row(&refs));
    assert_eq!(
        String::from_utf8_lossy(&mine),
        String::from_utf8_lossy(&expected),
        "{columns:?}"
    );
}

const TRICKY: [&str; 12] = [
    "",
    "plain",
    "a,b",
    "say \"hi\"",
    "\"",
    "line\nbreak",
    "cr\rhere",
    "crlf\r\nend",
    "ünïcödé, “curly” 数独",
    " leading and trailing ",
    "#comment-like",
    ",,\"\"\n",
];

#[test]
fn the_formatter_quotes_exactly_as_the_csv_crate_does() {
    let puzzle: Grid = format!("{}{}", ".".repeat(80), "5").parse().unwrap();
    let solution: Grid = "123456789".repeat(9).parse().unwrap();
    for message in TRICKY {
        for file in TRICKY {
            for bad_text in TRICKY {
                for text in [GridText::Grid(puzzle), GridText::Text(bad_text.as_bytes())] {
                    let values = RowValues {
                        index: 12_345_678_901,
                        line: 7,
                        puzzle: text,
                        solution: GridText::Grid(solution),
                        status: Status::Invalid,
                        guesses: 0,
                        solve_ns: u64::MAX,
                        message,
                        file: 0,
                    };
                    check_formatter(&values, file, &Column::ALL);
                }
            }
        }
    }
    // One column: an empty field is written `""`, so that the row is not an empty line.
    for column in Column::ALL {
        let values = RowValues {
            index: 0,
            line: 0,
            puzzle: GridText::Text(b""),
            solution: GridText::Text(b""),
            status: Status::Solved,
            guesses: 0,
            solve_ns: 0,
            message: "",
            file: 0,
        };
        check_formatter(&values, "", &[column]);
        check_formatter(&values, "", &[column, Column::Message]);
    }
}

fn arb_columns() -> impl Strategy<Value = Vec<Column>> {
    Just(Column::ALL.to_vec())
        .prop_shuffle()
        .prop_flat_map(|all| (1..=all.len()).prop_map(move |n| all[..n].to_vec()))
}

fn arb_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ,\"\r\n]{0,12}",
        "\\PC{0,20}",
        any::<String>(),
        Just(String::new()),
    ]
}

proptest! {
    #[test]
    fn any_row_formats_as_the_csv_crate_writes_it(
        columns in arb_columns(),
        message in arb_text(),
        file in arb_text(),
        puzzle in prop_oneof![arb_text(), "[0-9.]{81}"],
        grid_puzzle in any::<bool>(),
        solution in "[1-9]{81}|",
        numbers in any::<(u64, u64, u64, u64)>(),
        status in 0usize..5,
    ) {
        // A solution is a grid or nothing; a puzzle is text (a bad record) or, when it parses, a
        // grid.
        let solution = match solution.parse::<Grid>() {
            Ok(grid) => GridText::Grid(grid),
            Err(_) => GridText::Text(b""),
        };
        let puzzle = match puzzle.parse::<Grid>() {
            Ok(grid) if grid_puzzle => GridText::Grid(grid),
            _ => GridText::Text(puzzle.as_bytes()),
        };
        let values = RowValues {
            index: numbers.0,
            line: numbers.1,
            puzzle,
            solution,
            status: Status::ALL[status],
            guesses: numbers.2,
            solve_ns: numbers.3,
            message: &message,
            file: 0,
        };
        check_formatter(&values, &file, &columns);
    }
}

// ---- the command ----

#[test]
fn columns_choose_and_order_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = mixed_input(dir.path());
    let full = dir.path().join("full.csv");
    assert_eq!(
        solve(&["-q", "-j", "2"], &input, &full).status.code(),
        Some(1)
    );
    let (full_header, full_rows) = read_csv(&full);
    assert_eq!(full_header, Column::ALL.map(|c| c.name()));
    let mut lists: Vec<Vec<&str>> = Column::ALL.iter().map(|c| vec![c.name()]).collect();
    lists.push(vec!["puzzle", "solution"]);
    lists.push(vec![
        "file", "message", "solve_ns", "guesses", "status", "solution", "puzzle", "line", "index",
    ]);
    lists.push(vec!["status", "index", "file"]);
    for list in lists {
        let out = dir.path().join("out.csv");
        let joined = list.join(",");
        let run = solve(&["-q", "-j", "2", "--columns", &joined], &input, &out);
        assert_eq!(run.status.code(), Some(1), "{joined}");
        let (header, rows) = read_csv(&out);
        assert_eq!(header, list, "{joined}");
        assert_eq!(rows.len(), full_rows.len(), "{joined}");
        assert_eq!(
            project(&header, &rows, &list),
            project(&full_header, &full_rows, &list),
            "{joined}"
        );
    }
}

/// `--no-header` writes the same rows without the header line, for `solve` and `rate`, on
/// stdout and into a file; such a file cannot be resumed (a usage error) nor merged (saying
/// why).
#[test]
fn no_header_writes_the_rows_alone() {
    let dir = tempfile::tempdir().unwrap();
    let input = data("norvig_easy50.txt");
    for (command, columns) in [
        ("solve", "index,puzzle,solution,status"),
        ("rate", "er,ep,ed,technique"),
    ] {
        let run = |extra: &[&str]| {
            let output = bin()
                .args([command, "-q", "-j", "2", "--columns", columns])
                .args(extra)
                .arg(&input)
                .output()
                .unwrap();
            assert_eq!(output.status.code(), Some(0), "{command} {extra:?}");
            String::from_utf8(output.stdout).unwrap()
        };
        let headed = run(&[]);
        let (header, rows) = headed.split_once('\n').unwrap();
        assert_eq!(header, columns);
        assert_eq!(rows.lines().count(), 50);
        assert_eq!(run(&["--no-header"]), rows, "{command}");
        let out = dir.path().join(format!("{command}.csv"));
        run(&["--no-header", "-o", out.to_str().unwrap()]);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), rows, "{command} -o");
        bin()
            .args([command, "-q", "--no-header", "--resume", "-o"])
            .arg(&out)
            .arg(&input)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--no-header"));
    }
    // One solution per line, as other solvers print them.
    let solutions = bin()
        .args(["solve", "-q", "--columns", "solution", "--no-header"])
        .arg(&input)
        .output()
        .unwrap();
    let text = String::from_utf8(solutions.stdout).unwrap();
    assert_eq!(text.lines().count(), 50);
    assert!(text
        .lines()
        .all(|l| l.len() == 81 && l.bytes().all(|b| b.is_ascii_digit())));
    let out = dir.path().join("merge-me.csv");
    solve(&["-q", "--no-header"], &input, &out);
    bin()
        .arg("merge")
        .arg(&out)
        .arg("-o")
        .arg(dir.path().join("merged.csv"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--no-header"));
    // Library callers are refused too, before any file is made.
    for resume in [false, true] {
        let mut config =
            sudoku_batch::cmd::solve::SolveConfig::new(vec![sudoku_batch::io::Input::File(
                input.clone(),
            )]);
        config.output = Some(dir.path().join(format!("lib-{resume}.csv")));
        config.header = false;
        config.resume = resume;
        let result = sudoku_batch::cmd::solve::run(&config);
        if resume {
            let error = result.map(|_| ()).unwrap_err().to_string();
            assert!(error.contains("--no-header"), "{error}");
            assert!(!dir.path().join("lib-true.csv").exists());
        } else {
            result.unwrap();
        }
    }
    let mut config = sudoku_batch::cmd::rate::RateConfig::new(vec![sudoku_batch::io::Input::File(
        input.clone(),
    )]);
    config.output = Some(dir.path().join("lib-rate.csv"));
    config.header = false;
    config.resume = true;
    let error = sudoku_batch::cmd::rate::run(&config)
        .map(|_| ())
        .unwrap_err();
    assert!(error.to_string().contains("--no-header"), "{error}");
    // With no row at all, a compressed output is still a stream the tools read (one empty
    // member): an empty file is not.
    let one = dir.path().join("one.txt");
    std::fs::write(
        &one,
        std::fs::read_to_string(&input)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    for name in ["none.csv.gz", "none.csv.zst"] {
        let out = dir.path().join(name);
        solve(&["-q", "--no-header", "--shard", "2/2"], &one, &out);
        let bytes = std::fs::read(&out).unwrap();
        assert!(!bytes.is_empty(), "{name}");
        let mut text = Vec::new();
        if name.ends_with(".gz") {
            flate2::read::MultiGzDecoder::new(&bytes[..])
                .read_to_end(&mut text)
                .unwrap();
        } else {
            text = zstd::decode_all(&bytes[..]).unwrap();
        }
        assert!(text.is_empty(), "{name}");
    }
}

#[test]
fn an_unknown_column_is_a_usage_error_listing_the_names() {
    let dir = tempfile::tempdir().unwrap();
    bin()
        .args(["solve", "--columns", "puzzle,answer"])
        .arg(data("norvig_easy50.txt"))
        .arg("-o")
        .arg(dir.path().join("o.csv"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown column \"answer\""))
        .stderr(predicate::str::contains(
            "index, line, puzzle, solution, status, guesses, solve_ns, message, file",
        ));
    bin()
        .args(["solve", "--columns", "puzzle,puzzle"])
        .arg(data("norvig_easy50.txt"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("named twice"));
}

#[test]
fn verify_passes_a_kaggle_style_puzzle_solution_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("kaggle.csv");
    let run = solve(
        &["-q", "--columns", "puzzle,solution"],
        &data("kaggle3m_radcliffe_first1000.csv"),
        &out,
    );
    assert_eq!(run.status.code(), Some(0));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("puzzle,solution\n"), "{}", &text[..40]);
    assert_eq!(text.lines().count(), 1001);
    bin().arg("verify").arg(&out).assert().success();
}

#[test]
fn resume_works_with_the_columns_it_needs_and_refuses_others() {
    let dir = tempfile::tempdir().unwrap();
    let input = mixed_input(dir.path());
    for list in [
        "puzzle,status,guesses,solve_ns",
        "solve_ns,guesses,status,index,solution",
    ] {
        let clean = dir.path().join("clean.csv");
        let args = ["-q", "-j", "2", "--columns", list];
        assert_eq!(solve(&args, &input, &clean).status.code(), Some(1));
        let clean_bytes = std::fs::read(&clean).unwrap();
        let (header, clean_rows) = read_csv(&clean);
        let names: Vec<&str> = header.iter().map(String::as_str).collect();
        // Cut mid-row, two thirds in.
        let cut = clean_bytes.len() * 2 / 3;
        // One output per choice: a finished run's sidecar (`FILE.run.json`) records its
        // columns, and a resume under other columns is rightly refused.
        let name = format!("out-{}.csv", list.len());
        let out = dir.path().join(&name);
        std::fs::write(
            dir.path().join(format!("{name}.partial")),
            &clean_bytes[..cut],
        )
        .unwrap();
        let kept = clean_bytes[..cut].iter().filter(|&&b| b == b'\n').count() - 1;
        bin()
            .args(["solve", "-j", "2", "--resume", "--columns", list, "-o"])
            .arg(&out)
            .arg(&input)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(format!(
                "resume: kept {kept} row(s)"
            )));
        let (got_header, rows) = read_csv(&out);
        assert_eq!(got_header, header);
        assert_eq!(
            project(&header, &rows, &names),
            project(&header, &clean_rows, &names)
        );
        // The same partial resumed with other columns is refused: the header would not match.
        std::fs::rename(&out, dir.path().join(format!("{name}.partial"))).unwrap();
        bin()
            .args([
                "solve",
                "--resume",
                "--columns",
                "index,status,guesses,solve_ns",
                "-o",
            ])
            .arg(&out)
            .arg(&input)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("cannot resume:"));
    }
    // Without the columns it counts or checks by, --resume refuses before reading anything.
    for (list, missing) in [
        (
            "puzzle,solution",
            "status, guesses, solve_ns (to count the kept rows)",
        ),
        ("status,guesses,solve_ns,file", "one of index, line, puzzle"),
    ] {
        bin()
            .args(["solve", "--resume", "--columns", list, "-o"])
            .arg(dir.path().join("x.csv"))
            .arg(&input)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "--resume needs the column(s) {missing}"
            )));
    }
}

#[test]
fn merge_works_with_the_columns_it_needs_and_refuses_others() {
    let dir = tempfile::tempdir().unwrap();
    let input = mixed_input(dir.path());
    let list = "solution,index,status,guesses,solve_ns";
    let names: Vec<&str> = list.split(',').collect();
    let whole = dir.path().join("whole.csv");
    solve(&["-q", "--columns", list], &input, &whole);
    let mut shards = Vec::new();
    for k in 1..=3 {
        let shard = dir.path().join(format!("s{k}.csv"));
        let shard_arg = format!("{k}/3");
        solve(
            &["-q", "--columns", list, "--shard", &shard_arg],
            &input,
            &shard,
        );
        shards.push(shard);
    }
    let merged = dir.path().join("merged.csv");
    bin()
        .args(["merge", "-o"])
        .arg(&merged)
        .args(&shards)
        .assert()
        .code(1); // the input has unsolvable puzzles
    let (header, rows) = read_csv(&merged);
    let (whole_header, whole_rows) = read_csv(&whole);
    assert_eq!(header, names);
    assert_eq!(
        project(&header, &rows, &names),
        project(&whole_header, &whole_rows, &names)
    );
    // Kaggle-style shards lack what merge orders and counts by.
    let kaggle = dir.path().join("k.csv");
    solve(&["-q", "--columns", "puzzle,solution"], &input, &kaggle);
    bin()
        .args(["merge", "-o"])
        .arg(dir.path().join("m2.csv"))
        .arg(&kaggle)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "merge needs the column(s) index, status, guesses, solve_ns, which its header \
             (puzzle,solution) lacks",
        ));
}

#[test]
fn the_summary_says_where_the_cpu_time_went() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("s.json");
    let out = dir.path().join("o.csv");
    let run = bin()
        .args(["solve", "-j", "1", "--summary"])
        .arg(&json)
        .arg("-o")
        .arg(&out)
        .arg(data("sudokuexchange_diabolical_2020_39719.txt"))
        .output()
        .unwrap();
    assert!(run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("% of it in the solver"), "{stderr}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cpu = summary["cpu_seconds"].as_f64().unwrap();
    let share = summary["solve_share"].as_f64().unwrap();
    assert!(cpu > 0.0, "{summary}");
    assert!(share > 0.0 && share <= 1.0, "{summary}");
}

#[test]
fn solve_ns_agrees_between_the_counter_and_the_os_clock() {
    // Each run's solve_ns summed: positive, below the run's own wall time, and of the same size
    // whichever clock measured it (a wrongly calibrated counter would be off by a large factor).
    let dir = tempfile::tempdir().unwrap();
    let input = data("magictour_top1465.txt");
    let total = |clock: Option<&str>| {
        let out = dir.path().join("t.csv");
        let mut cmd = bin();
        cmd.args([
            "solve",
            "-q",
            "-j",
            "1",
            "--columns",
            "index,solve_ns",
            "-o",
        ])
        .arg(&out)
        .arg(&input);
        if let Some(clock) = clock {
            cmd.env("SUDOKU_BATCH_CLOCK", clock);
        }
        let started = std::time::Instant::now();
        assert!(cmd.output().unwrap().status.success());
        let wall = started.elapsed().as_nanos() as f64;
        let (header, rows) = read_csv(&out);
        assert_eq!(header, ["index", "solve_ns"]);
        assert_eq!(rows.len(), 1465);
        let sum: f64 = rows
            .iter()
            .map(|r| r[1].parse::<u64>().unwrap() as f64)
            .sum();
        assert!(
            sum > 0.0 && sum < wall,
            "{clock:?}: solve_ns sum {sum} ns, wall {wall} ns"
        );
        sum
    };
    // The median of three runs each, so one preempted run does not decide.
    let median = |clock: Option<&str>| {
        let mut runs: Vec<f64> = (0..3).map(|_| total(clock)).collect();
        runs.sort_by(f64::total_cmp);
        runs[1]
    };
    let (counter, os) = (median(None), median(Some("instant")));
    let ratio = counter / os;
    assert!(
        (0.33..3.0).contains(&ratio),
        "counter {counter} ns, OS clock {os} ns"
    );
}

#[test]
fn cpu_seconds_count_this_run_not_the_process_it_replaced() {
    // A shell burns CPU, then `exec`s the binary (as `cargo run` does): the process keeps the
    // shell's CPU time, which the summary must not count.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("s.json");
    let script = format!(
        "i=0; while [ $i -lt 1000000 ]; do i=$((i+1)); done; \
         exec '{}' solve -q -j 1 --summary '{}' -o '{}' '{}'",
        crate::support::bin_path().display(),
        json.display(),
        dir.path().join("o.csv").display(),
        data("norvig_top95.txt").display()
    );
    let run = std::process::Command::new("sh")
        .arg("-c")
        .arg(&script)
        .output()
        .unwrap();
    crate::support::assert_succeeded(&run);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cpu = summary["cpu_seconds"].as_f64().unwrap();
    // The shell's loop takes about 0.7 s of CPU here (builtins only, no child processes); the 95
    // puzzles take a few milliseconds.
    assert!(
        cpu < 0.25,
        "cpu_seconds {cpu} counts the shell's time: {summary}"
    );
}

/// Result rows without `solve_ns`, which differs between runs.
fn rows(csv_text: &[u8]) -> Vec<Vec<String>> {
    let mut reader = csv::Reader::from_reader(csv_text);
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let solve_ns = header.iter().position(|h| h == "solve_ns").unwrap();
    let mut rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| {
            r.unwrap()
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != solve_ns)
                .map(|(_, f)| f.to_string())
                .collect()
        })
        .collect();
    rows.insert(0, header);
    rows
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut plain = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .read_to_end(&mut plain)
        .unwrap();
    plain
}

fn unzstd(bytes: &[u8]) -> Vec<u8> {
    zstd::stream::decode_all(bytes).unwrap()
}

/// `tool -dc` on `path`, if the tool is installed.
fn tool_decompress(tool: &str, path: &Path) -> Option<Vec<u8>> {
    let out = StdCommand::new(tool).arg("-dc").arg(path).output().ok()?;
    assert!(out.status.success(), "{tool} -dc {}", path.display());
    Some(out.stdout)
}

fn solve_to(input: &Path, out: &Path, extra: &[&str]) {
    bin()
        .args(["solve", "-q", "-j", "2"])
        .args(extra)
        .arg("-o")
        .arg(out)
        .arg(input)
        .assert()
        .code(0);
}

#[test]
fn gz_and_zst_outputs_decompress_to_the_plain_rows() {
    let dir = tempfile::tempdir().unwrap();
    let input = repeated_puzzles(dir.path(), 3, "puzzles3.txt"); // 3,000 rows: a dozen chunks, so a dozen members
    let plain = dir.path().join("plain.csv");
    solve_to(&input, &plain, &[]);
    let want = rows(&std::fs::read(&plain).unwrap());
    for (name, tool, decode) in [
        ("out.csv.gz", "gzip", gunzip as fn(&[u8]) -> Vec<u8>),
        ("out.csv.zst", "zstd", unzstd),
    ] {
        let out = dir.path().join(name);
        solve_to(&input, &out, &[]);
        let bytes = std::fs::read(&out).unwrap();
        assert!(bytes.len() < std::fs::metadata(&plain).unwrap().len() as usize);
        assert_eq!(rows(&decode(&bytes)), want, "{name}");
        match tool_decompress(tool, &out) {
            Some(text) => assert_eq!(rows(&text), want, "{tool} -dc {name}"),
            None => eprintln!("{tool} is not installed: skipped"),
        }
        // stdout, with --compress.
        let how = &name[8..];
        let out = bin()
            .args(["solve", "-q", "-j", "2", "--compress", how, "-o", "-"])
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(rows(&decode(&out.stdout)), want, "stdout --compress {how}");
    }
    // --compress none writes FILE.gz plain.
    let forced = dir.path().join("plain.gz");
    solve_to(&input, &forced, &["--compress", "none"]);
    assert_eq!(rows(&std::fs::read(&forced).unwrap()), want);
}

#[test]
fn generate_and_merge_write_gz_and_zst() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("gen.txt");
    let generate = |out: &Path| {
        bin()
            .args([
                "generate", "-q", "-n", "40", "--seed", "7", "--clues", "30", "-o",
            ])
            .arg(out)
            .assert()
            .code(0);
    };
    generate(&plain);
    let want = std::fs::read(&plain).unwrap();
    let gz = dir.path().join("gen.txt.gz");
    generate(&gz);
    assert_eq!(gunzip(&std::fs::read(&gz).unwrap()), want);
    let zst = dir.path().join("gen.txt.zst");
    generate(&zst);
    assert_eq!(unzstd(&std::fs::read(&zst).unwrap()), want);
    // Two shards merged into a .gz equal the plain merge.
    let input = repeated_puzzles(dir.path(), 1, "puzzles1.txt");
    let mut shards = Vec::new();
    for k in 1..=2 {
        let shard = dir.path().join(format!("shard{k}.csv"));
        solve_to(&input, &shard, &["--shard", &format!("{k}/2")]);
        shards.push(shard);
    }
    let merged = dir.path().join("merged.csv");
    let merged_gz = dir.path().join("merged.csv.gz");
    for out in [&merged, &merged_gz] {
        bin()
            .arg("merge")
            .args(&shards)
            .arg("-o")
            .arg(out)
            .assert()
            .code(0);
    }
    assert_eq!(
        gunzip(&std::fs::read(&merged_gz).unwrap()),
        std::fs::read(&merged).unwrap()
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_or_device_output_is_written_directly_and_never_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let input = data("norvig_top95.txt");
    let plain = dir.path().join("plain.csv");
    solve_to(&input, &plain, &[]);
    let fifo = dir.path().join("rows.fifo");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(&fifo).unwrap())
    };
    solve_to(&input, &fifo, &[]);
    let read = reader.join().unwrap();
    assert_eq!(rows(&read), rows(&std::fs::read(&plain).unwrap()));
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced: {kind:?}");
    assert!(!dir.path().join("rows.fifo.partial").exists());
    // A FIFO whose reader quits early loses rows: unlike a closed standard output (`| head`,
    // which has what it wanted), that is an error naming -o.
    let big = repeated_puzzles(dir.path(), 30, "big.txt");
    let child = std::process::Command::new(bin_path())
        .args(["solve", "-q", "-o"])
        .arg(&fifo)
        .arg(&big)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 100];
    std::fs::File::open(&fifo)
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    let out = crate::support::wait_within(child, Duration::from_secs(120));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("the -o file"), "{stderr}");
    // --resume on it is a usage error.
    bin()
        .args(["solve", "-q", "--resume", "-o"])
        .arg(&fifo)
        .arg(&input)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--resume needs -o FILE, a regular file",
        ));
    // A character device (a private /dev/null), when this test may make one.
    let null = dir.path().join("null");
    let made = StdCommand::new("mknod")
        .arg(&null)
        .args(["c", "1", "3"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        eprintln!("mknod not permitted: the device case is skipped");
        return;
    }
    solve_to(&input, &null, &[]);
    let kind = std::fs::symlink_metadata(&null).unwrap().file_type();
    assert!(kind.is_char_device(), "the device was replaced: {kind:?}");
    assert!(!dir.path().join("null.partial").exists());
}

#[test]
fn a_second_run_on_the_same_output_is_refused_and_the_first_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let input = repeated_puzzles(dir.path(), 30, "puzzles30.txt");
    let out = dir.path().join("out.csv");
    let partial = dir.path().join("out.csv.partial");
    let mut first = spawn_solve(&input, &out, &["-q", "-j", "1"]);
    wait_for_growth(&mut first, &partial, 1);
    let second = bin()
        .args(["solve", "-q", "-o"])
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    let message = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{message}");
    assert!(message.contains("out.csv"), "{message}");
    assert!(
        message.contains(&format!("pid {}", first.id())),
        "{message}"
    );
    // --resume is refused the same way.
    bin()
        .args(["solve", "-q", "--resume", "-o"])
        .arg(&out)
        .arg(&input)
        .assert()
        .code(2);
    let status = first.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let got = rows(&std::fs::read(&out).unwrap());
    assert_eq!(got.len(), 30_001);
    for (i, row) in got.iter().skip(1).enumerate() {
        assert_eq!(row[0], i.to_string(), "rows of one run, in order");
    }
}

#[test]
fn bad_output_paths_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let input = repeated_puzzles(dir.path(), 10, "puzzles10.txt");
    let before = std::fs::read(&input).unwrap();
    let folder = dir.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    let missing = dir.path().join("missing").join("out.csv");
    for (out, says) in [
        (folder.clone(), "is a folder"),
        (input.clone(), "is the input"),
        (missing.clone(), "missing"),
    ] {
        let started = Instant::now();
        let run = bin()
            .args(["solve", "-q", "-j", "1", "-o"])
            .arg(&out)
            .arg(&input)
            .output()
            .unwrap();
        let message = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{message}");
        assert!(message.contains(&*out.to_string_lossy()), "{message}");
        assert!(message.contains(says), "{message}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "refused only after {:?}",
            started.elapsed()
        );
        let mut partial = out.into_os_string();
        partial.push(".partial");
        assert!(!Path::new(&partial).exists(), "{partial:?} was created");
    }
    assert_eq!(std::fs::read(&input).unwrap(), before, "the input changed");
    // The same input named another way (a relative path from its folder) is still the input.
    let run = bin()
        .current_dir(dir.path())
        .args(["solve", "-q", "-o", "puzzles10.txt"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(std::fs::read(&input).unwrap(), before, "the input changed");
}

#[test]
fn a_refused_resume_leaves_the_finished_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.csv");
    for name in ["out.csv", "out.csv.gz"] {
        let out = dir.path().join(name);
        solve_to(&data("norvig_top95.txt"), &out, &[]);
        let finished = std::fs::read(&out).unwrap();
        bin()
            .args(["solve", "-q", "--resume", "-o"])
            .arg(&out)
            .arg(data("kaggle3m_radcliffe_first1000.csv"))
            .assert()
            .code(2)
            .stderr(predicates::str::contains("cannot resume"));
        assert_eq!(std::fs::read(&out).unwrap(), finished, "{name} changed");
        let mut partial = out.clone().into_os_string();
        partial.push(".partial");
        assert!(!Path::new(&partial).exists(), "{name}: a partial was left");
    }
    // A finished plain file resumed as .gz (another encoding) is refused too, unchanged.
    let finished = std::fs::read(&out).unwrap();
    bin()
        .args(["solve", "-q", "--resume", "--compress", "gz", "-o"])
        .arg(&out)
        .arg(data("norvig_top95.txt"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("plain but this run writes gzip"));
    assert_eq!(std::fs::read(&out).unwrap(), finished);
}

#[cfg(unix)]
#[test]
fn a_summary_that_cannot_be_written_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.json");
    // No file may grow (`ulimit -f 0`; SIGXFSZ ignored so the write fails with EFBIG); the
    // rows go to a pipe, which the limit does not concern.
    let run = StdCommand::new("sh")
        .arg("-c")
        .arg(r#"trap '' XFSZ; ulimit -f 0; exec "$0" solve -q -o - --summary "$1" "$2""#)
        .arg(crate::support::bin_path())
        .arg(&summary)
        .arg(data("norvig_top95.txt"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let message = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{message}");
    assert!(message.contains("summary.json"), "{message}");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn merge_and_verify_never_write_over_a_file_they_read() {
    let dir = tempfile::tempdir().unwrap();
    let input = data("norvig_top95.txt");
    let shards: Vec<PathBuf> = (1..=2)
        .map(|k| {
            let out = dir.path().join(format!("s{k}.csv"));
            bin()
                .args(["solve", "-q", "--shard", &format!("{k}/2"), "-o"])
                .arg(&out)
                .arg(&input)
                .assert()
                .code(0);
            out
        })
        .collect();
    let before = std::fs::read(&shards[0]).unwrap();
    bin()
        .arg("merge")
        .args(&shards)
        .arg("-o")
        .arg(&shards[0])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "writing it would destroy the input",
        ));
    assert_eq!(std::fs::read(&shards[0]).unwrap(), before);
    // The merged rows go to standard output without -o: the summary may not go there too.
    for stdout in ["-", "/dev/stdout"] {
        let mixed = bin()
            .arg("merge")
            .args(&shards)
            .args(["-q", "--summary", stdout])
            .output()
            .unwrap();
        assert_eq!(mixed.status.code(), Some(2), "{stdout}");
        assert!(mixed.stdout.is_empty(), "{stdout}");
        assert!(
            String::from_utf8_lossy(&mixed.stderr)
                .contains("--summary names standard output, where -o writes too"),
            "{stdout}"
        );
    }
    bin()
        .arg("verify")
        .arg(&shards[0])
        .arg("--report")
        .arg(&shards[0])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "writing it would destroy the input",
        ));
    assert_eq!(std::fs::read(&shards[0]).unwrap(), before);
}

#[test]
fn an_input_read_from_stdin_or_named_like_a_sidecar_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = std::fs::read(data("norvig_top95.txt")).unwrap();
    std::fs::write(d.join("in.txt"), &text).unwrap();
    std::fs::write(d.join("q.csv.run.json"), &text).unwrap();
    let cases: [&[&str]; 5] = [
        &["solve", "-q", "-o", "in.txt"],
        &["solve", "-", "-q", "-o", "o.csv", "--summary", "in.txt"],
        &["rate", "-q", "--max-er", "1.0", "-o", "in.txt"],
        &["verify", "-", "-q", "--report", "in.txt"],
        &[
            "rate",
            "q.csv.run.json",
            "-q",
            "--max-er",
            "1.0",
            "-o",
            "q.csv",
        ],
    ];
    for args in cases {
        let run = StdCommand::new(bin_path())
            .current_dir(d)
            .args(args)
            .stdin(std::fs::File::open(d.join("in.txt")).unwrap())
            .output()
            .unwrap();
        let message = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {message}");
        assert!(
            message.contains("writing it would destroy the input"),
            "{args:?}: {message}"
        );
        assert_eq!(std::fs::read(d.join("in.txt")).unwrap(), text, "{args:?}");
        assert_eq!(std::fs::read(d.join("q.csv.run.json")).unwrap(), text);
    }
    // A pipe on stdin is no file: nothing to protect, the run goes on.
    bin()
        .current_dir(d)
        .args(["solve", "-q", "-o", "in.txt.csv"])
        .write_stdin(text)
        .assert()
        .success();
}

/// Standard output redirected to a file is one more output: a command whose other output, or
/// input, is that same file is refused before it writes, for every command that prints.
#[test]
fn stdout_redirected_to_another_output_or_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = std::fs::read(data("norvig_top95.txt")).unwrap();
    std::fs::write(d.join("in.txt"), &text).unwrap();
    let solved = d.join("s.csv");
    bin()
        .args(["solve", "-q", "-o"])
        .arg(&solved)
        .arg(d.join("in.txt"))
        .assert()
        .success();
    let rows = std::fs::read(&solved).unwrap();
    std::fs::write(d.join("bench.csv"), "").unwrap();
    let both = "it is both standard output (redirected to it) and the";
    let input = "standard output is redirected to it, but it is the input";
    // (arguments, the file stdout is appended to, the refusal)
    let cases: [(&[&str], &str, &str); 9] = [
        (&["solve", "in.txt", "-q", "--summary", "out"], "out", both),
        (
            &["solve", "in.txt", "-q", "-o", "out", "--summary", "-"],
            "out",
            both,
        ),
        (
            &[
                "rate",
                "in.txt",
                "-q",
                "--max-er",
                "1.0",
                "--summary",
                "out",
            ],
            "out",
            both,
        ),
        (&["merge", "s.csv", "-q", "--summary", "out"], "out", both),
        (&["verify", "s.csv", "--report", "out"], "out", both),
        (&["report", "bench.csv", "--svg", "out"], "out", both),
        (
            &["bench", "in.txt", "-q", "--csv", "bench.csv"],
            "bench.csv",
            both,
        ),
        (&["solve", "in.txt", "-q"], "in.txt", input),
        (&["verify", "s.csv"], "s.csv", input),
    ];
    for (args, stdout, why) in cases {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(d.join(stdout))
            .unwrap();
        let run = StdCommand::new(bin_path())
            .current_dir(d)
            .args(args)
            .stdout(file)
            .output()
            .unwrap();
        let message = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {message}");
        assert!(message.contains(why), "{args:?}: {message}");
        assert!(!d.join("out").exists() || std::fs::read(d.join("out")).unwrap().is_empty());
        assert_eq!(std::fs::read(d.join("in.txt")).unwrap(), text, "{args:?}");
        assert_eq!(std::fs::read(&solved).unwrap(), rows, "{args:?}");
        assert!(
            std::fs::read(d.join("bench.csv")).unwrap().is_empty(),
            "{args:?}"
        );
    }
    // Standard output in a file of its own is fine.
    let out = std::fs::File::create(d.join("rows.csv")).unwrap();
    let run = StdCommand::new(bin_path())
        .current_dir(d)
        .args(["solve", "in.txt", "-q", "--summary", "sum.json"])
        .stdout(out)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(std::fs::read(d.join("rows.csv")).unwrap().len() > 95 * 81);
}

#[test]
fn a_closed_stdout_leaves_no_summary_that_looks_like_the_runs() {
    let dir = tempfile::tempdir().unwrap();
    let input = repeated_puzzles(dir.path(), 200, "k.txt");
    let summary = dir.path().join("s.json");
    for command in ["solve", "rate"] {
        std::fs::write(&summary, "{\"an earlier run\": true}").unwrap();
        let mut child = StdCommand::new(bin_path())
            .args([command, "-j", "2", "--summary"])
            .arg(&summary)
            .arg(&input)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Read the header, then close the pipe as `| head -1` does.
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 16];
        stdout.read_exact(&mut first).unwrap();
        drop(stdout);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{command}: {stderr}");
        assert!(
            stderr.contains("standard output was closed before the end: no summary in"),
            "{command}: {stderr}"
        );
        assert!(!summary.exists(), "{command}: the earlier summary is gone");
    }
}

/// A command started with standard output shut (`>&-`) writes nowhere: the standard library
/// puts `/dev/null` there before `main`. Each command whose text goes to standard output is
/// refused before any work, while `/dev/null` opened on purpose (discarding) and a file are not.
#[cfg(target_os = "linux")]
#[test]
fn a_command_started_with_stdout_shut_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = repeated_puzzles(dir.path(), 1, "k.txt");
    let input = input.to_str().unwrap();
    // (arguments, a file it must not have made)
    let cases: [(&[&str], &str); 5] = [
        (&["solve", input], ""),
        (&["rate", input, "--summary", "s.json"], "s.json"),
        (&["generate", "-n", "1", "--seed", "1"], ""),
        (
            &[
                "bench",
                input,
                "--min-time",
                "0",
                "--runs",
                "1",
                "--warmup",
                "0",
                "-j",
                "1",
            ],
            "",
        ),
        (&["report", "none.csv"], ""),
    ];
    let shell = |args: &[&str], redirect: &str| {
        let run = StdCommand::new("sh")
            .current_dir(dir.path())
            .arg("-c")
            .arg(format!("exec \"$0\" \"$@\" {redirect}"))
            .arg(bin_path())
            .args(args)
            .output()
            .unwrap();
        (
            run.status.code(),
            String::from_utf8_lossy(&run.stderr).into_owned(),
        )
    };
    for (args, not_made) in cases {
        let (code, stderr) = shell(args, ">&-");
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("standard output is closed") && stderr.contains("would be lost"),
            "{args:?}: {stderr}"
        );
        if !not_made.is_empty() {
            assert!(!dir.path().join(not_made).exists(), "{args:?}");
        }
    }
    // Read-write, as Python's subprocess.DEVNULL and daemon(3) open it: on purpose too.
    for redirect in ["> /dev/null", "1<> /dev/null", "> out.txt"] {
        let (code, stderr) = shell(&["solve", input], redirect);
        assert_eq!(code, Some(0), "{redirect}: {stderr}");
    }
    // With its rows in a file, a shut standard output loses nothing.
    let (code, stderr) = shell(&["solve", input, "-o", "rows.csv"], ">&-");
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("rows.csv"))
            .unwrap()
            .lines()
            .count(),
        1001
    );
}

/// Runs `sudoku-batch ARGS` in `dir`: (exit code, stderr).
fn run_in(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let run = bin().current_dir(dir).args(args).output().unwrap();
    (
        run.status.code(),
        String::from_utf8_lossy(&run.stderr).into_owned(),
    )
}

/// The bytes of every file in `dir`, by name.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn side_outputs_that_are_inputs_or_other_outputs_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(data("norvig_top95.txt"), d.join("in.txt")).unwrap();
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let out = format!("s{k}.csv");
        let args = ["solve", "-q", "--shard", &shard, "-o", &out, "in.txt"];
        assert_eq!(run_in(d, &args).0, Some(0), "{args:?}");
    }
    std::fs::write(d.join("r.csv"), "not a bench result\n").unwrap();
    let bench = [
        "bench",
        "-q",
        "--solvers",
        "bands",
        "-j",
        "1",
        "--warmup",
        "0",
        "--min-time",
        "0",
        "--runs",
        "1",
    ];
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (
            vec![
                "solve",
                "-q",
                "in.txt",
                "-o",
                "s.csv",
                "--summary",
                "in.txt",
            ],
            "in.txt",
            "--summary",
        ),
        (
            vec!["solve", "-q", "in.txt", "-o", "n.csv", "--summary", "n.csv"],
            "n.csv",
            "--summary",
        ),
        (
            vec![
                "solve",
                "-q",
                "in.txt",
                "-o",
                "s1.csv",
                "--summary",
                "s1.csv.run.json",
            ],
            "s1.csv.run.json",
            "run sidecar",
        ),
        (
            vec![
                "merge",
                "s1.csv",
                "s2.csv",
                "-o",
                "m.csv",
                "--summary",
                "s2.csv",
            ],
            "s2.csv",
            "--summary",
        ),
        (
            vec![
                "merge",
                "s1.csv",
                "s2.csv",
                "-o",
                "m.csv",
                "--summary",
                "s1.csv.run.json",
            ],
            "s1.csv.run.json",
            "--summary",
        ),
        (
            [&bench[..], &["in.txt", "--summary", "in.txt"]].concat(),
            "in.txt",
            "--summary",
        ),
        (
            [&bench[..], &["in.txt", "--csv", "in.txt"]].concat(),
            "in.txt",
            "--csv",
        ),
        (
            vec!["verify", "-q", "s1.csv", "--json", "s1.csv"],
            "s1.csv",
            "--summary",
        ),
        (
            vec![
                "verify",
                "-q",
                "s1.csv",
                "--report",
                "v.csv",
                "--summary",
                "v.csv",
            ],
            "v.csv",
            "--report",
        ),
        (vec!["report", "r.csv", "--svg", "r.csv"], "r.csv", "--svg"),
    ];
    for (args, file, flag) in cases {
        let before = snapshot(d);
        let started = Instant::now();
        let (code, message) = run_in(d, &args);
        assert_eq!(code, Some(2), "{args:?}: {message}");
        assert!(message.contains(file), "{args:?}: {message}");
        assert!(message.contains(flag), "{args:?}: {message}");
        assert!(started.elapsed() < Duration::from_secs(5), "{args:?}");
        assert_eq!(snapshot(d), before, "{args:?} changed a file");
    }
}

#[test]
fn a_side_output_in_a_missing_folder_is_refused_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let input = repeated_puzzles(dir.path(), 20, "p.txt");
    let out = dir.path().join("sm.csv");
    let run = bin()
        .args(["solve", "-q", "-j", "1", "-o"])
        .arg(&out)
        .args(["--summary", "nodir/s.json"])
        .arg(&input)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let message = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{message}");
    assert!(message.contains("nodir"), "{message}");
    assert!(!out.exists(), "the output was written");
    assert!(!dir.path().join("sm.csv.partial").exists());
    assert!(!dir.path().join("sm.csv.run.json").exists());
    // bench and verify check theirs before the work too.
    for args in [
        &[
            "verify",
            "-q",
            "p.txt",
            "--unique",
            "--report",
            "nodir/r.csv",
        ][..],
        &["bench", "-q", "p.txt", "--csv", "nodir/b.csv"],
        &["generate", "-q", "-n", "5", "-o", "nodir/g.txt"],
    ] {
        let (code, message) = run_in(dir.path(), args);
        assert_eq!(code, Some(2), "{args:?}: {message}");
        assert!(message.contains("nodir"), "{args:?}: {message}");
    }
}

#[test]
fn a_run_that_fails_to_start_leaves_an_earlier_run_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(data("kaggle3m_radcliffe_first1000.csv"), d.join("k.csv")).unwrap();
    let finished = ["solve", "-q", "k.csv", "--shard", "3/4", "-o", "s3.csv"];
    assert_eq!(run_in(d, &finished).0, Some(0));
    let before = snapshot(d);
    let (code, message) = run_in(
        d,
        &[
            "solve", "-q", "k.csv", "--shard", "3/4", "-o", "s3.csv", "--column", "nosuch",
        ],
    );
    assert_eq!(code, Some(2), "{message}");
    assert!(message.contains("nosuch"), "{message}");
    assert_eq!(snapshot(d), before, "the earlier run's files changed");
    // The finished run still merges and resumes.
    assert_eq!(
        run_in(d, &[&finished[..], &["--resume"]].concat()).0,
        Some(0)
    );
    // An error found only after the output is opened (the second input has no puzzle column)
    // leaves no partial output and no sidecar either.
    std::fs::write(d.join("empty.txt"), "").unwrap();
    std::fs::write(d.join("nopuzzle.csv"), "a,b\n1,2\n").unwrap();
    let before = snapshot(d);
    let (code, message) = run_in(
        d,
        &["solve", "-q", "empty.txt", "nopuzzle.csv", "-o", "s3.csv"],
    );
    assert_eq!(code, Some(2), "{message}");
    assert!(message.contains("nopuzzle.csv"), "{message}");
    assert_eq!(snapshot(d), before, "a failed run left files behind");
    // So does a later input's bad layout or option after a first input with rows (every
    // input that is a regular file is checked before the output is opened), for rate too.
    std::fs::write(d.join("q.csv"), format!("puzzle\n{CLASSIC}\n")).unwrap();
    std::fs::write(d.join("q.txt"), format!("{CLASSIC}\n")).unwrap();
    let before = snapshot(d);
    for args in [
        &["solve", "-q", "k.csv", "nopuzzle.csv", "-o", "s3.csv"][..],
        &[
            "rate",
            "-q",
            "q.csv",
            "--max-er",
            "1.0",
            "nopuzzle.csv",
            "-o",
            "s3.csv",
        ],
        &[
            "solve", "-q", "q.csv", "q.txt", "--column", "puzzle", "-o", "s3.csv",
        ],
    ] {
        let (code, message) = run_in(d, args);
        assert_eq!(code, Some(2), "{args:?}: {message}");
        assert!(
            message.contains("nopuzzle.csv: no puzzle column")
                || message.contains("q.txt: --column \"puzzle\" names a CSV column"),
            "{args:?}: {message}"
        );
        assert_eq!(
            snapshot(d),
            before,
            "{args:?}: the earlier run's files changed"
        );
    }
}

/// An output path that is a symbolic link is written through it, as a shell's `>` would: the
/// file it points to gets the rows, the link stays a link, and `--resume` finds the rows there.
#[cfg(unix)]
#[test]
fn an_output_that_is_a_symbolic_link_is_written_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("store");
    std::fs::create_dir(&real).unwrap();
    let input = data("norvig_top95.txt");
    for (command, name) in [("solve", "s.csv"), ("rate", "r.csv"), ("generate", "g.txt")] {
        let link = dir.path().join(name);
        std::os::unix::fs::symlink(format!("store/{name}"), &link).unwrap();
        let mut run = bin();
        run.args([command, "-q", "-o"]).arg(&link);
        if command == "generate" {
            run.args(["-n", "20", "--seed", "4"]);
        } else {
            run.arg(&input);
        }
        run.assert().success();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{command}: the link was replaced"
        );
        let written = std::fs::read_to_string(real.join(name)).unwrap();
        let expected = if command == "generate" { 20 } else { 96 };
        assert_eq!(written.lines().count(), expected, "{command}: {written}");
        assert!(!real.join(format!("{name}.partial")).exists());
        if command != "generate" {
            bin()
                .args([command, "-q", "--resume", "-o"])
                .arg(&link)
                .arg(&input)
                .assert()
                .success();
            assert_eq!(std::fs::read_to_string(real.join(name)).unwrap(), written);
        }
    }
}

/// The files beside an output are checked like the output: a folder at `FILE.partial` is
/// refused before any work, the in-progress file of `-o LINK` (beside the link's target) is
/// no other output's, and a symbolic link planted at an in-progress or temporary file is never
/// written through.
#[cfg(unix)]
#[test]
fn the_files_beside_an_output_are_checked_like_it() {
    let dir = tempfile::tempdir().unwrap();
    let input = data("norvig_top95.txt");
    let at = |name: &str| dir.path().join(name);

    std::fs::create_dir(at("a.csv.partial")).unwrap();
    std::fs::create_dir(at("s.json.partial")).unwrap();
    for extra in [
        &["-o", "a.csv"][..],
        &["-o", "b.csv", "--summary", "s.json"],
    ] {
        let run = bin()
            .current_dir(dir.path())
            .args(["solve", "-q"])
            .args(extra)
            .arg(&input)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(".partial is a folder"),
            "names the folder: {stderr}"
        );
        assert!(!at("b.csv").exists(), "refused before any work");
    }

    std::fs::create_dir(at("store")).unwrap();
    std::os::unix::fs::symlink("store/x.csv", at("link.csv")).unwrap();
    let run = bin()
        .current_dir(dir.path())
        .args([
            "solve",
            "-q",
            "-o",
            "link.csv",
            "--summary",
            "store/x.csv.partial",
        ])
        .arg(&input)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("in-progress file of -o"), "{stderr}");

    std::fs::write(at("precious.txt"), "precious\n").unwrap();
    for planted in ["p.csv.partial", "q.json.partial", "r.csv.run.json.tmp"] {
        std::os::unix::fs::symlink("precious.txt", at(planted)).unwrap();
    }
    for (out, refused) in [
        (&["-o", "p.csv"][..], true),
        (&["-o", "pp.csv", "--summary", "q.json"], true),
        (&["-o", "r.csv"], false),
    ] {
        let run = bin()
            .current_dir(dir.path())
            .args(["solve", "-q"])
            .args(out)
            .arg(&input)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        if refused {
            assert_eq!(run.status.code(), Some(2), "{out:?}: {stderr}");
            assert!(stderr.contains("symbolic link"), "{out:?}: {stderr}");
            assert!(!at(out[1]).exists(), "{out:?}: refused before any work");
        } else {
            assert_eq!(run.status.code(), Some(0), "{out:?}: {stderr}");
        }
        assert_eq!(
            std::fs::read_to_string(at("precious.txt")).unwrap(),
            "precious\n",
            "{out:?} wrote through the link"
        );
    }
    assert!(std::fs::read_to_string(at("r.csv.run.json"))
        .unwrap()
        .contains("\"finished\""));

    // A FIFO at an in-progress file would take the rows and then be put in place; a folder at
    // the run sidecar or its temporary file would fail the run at its end.
    crate::support::mkfifo(&at("f.json.partial"));
    std::fs::create_dir(at("d.csv.run.json")).unwrap();
    std::fs::create_dir(at("t.csv.run.json.tmp")).unwrap();
    for (out, why) in [
        (
            &["-o", "f.csv", "--summary", "f.json"][..],
            "not a regular file",
        ),
        (&["-o", "d.csv"], "run sidecar d.csv.run.json is a folder"),
        (
            &["-o", "t.csv"],
            "run sidecar t.csv.run.json.tmp is a folder",
        ),
    ] {
        let run = bin()
            .current_dir(dir.path())
            .args(["solve", "-q"])
            .args(out)
            .arg(&input)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{out:?}: {stderr}");
        assert!(stderr.contains(why), "{out:?}: {stderr}");
        assert!(!at(out[1]).exists(), "{out:?}: refused before any work");
    }
}

/// `FILE.partial` of a running command is locked: no other command may write it (as `-o`,
/// `--summary`, `generate -o`, `verify --report`), since the run would then put that file in
/// place of its rows.
#[test]
fn a_running_commands_in_progress_file_is_no_other_commands_output() {
    let dir = tempfile::tempdir().unwrap();
    // `backtrack` holds its lock on this until it is stopped.
    let input = slow_input(dir.path());
    let small = data("norvig_top95.txt");
    let out = dir.path().join("lk.csv");
    let partial = dir.path().join("lk.csv.partial");
    let mut first = spawn_solve(&input, &out, &["-q", "-j", "1", "--solver", "backtrack"]);
    wait_for_growth(&mut first, &partial, 0);
    let partial_arg = partial.to_str().unwrap();
    let out_arg = out.to_str().unwrap();
    let small_arg = small.to_str().unwrap();
    let elsewhere = dir.path().join("elsewhere.csv");
    let sidecar_arg = format!("{out_arg}.run.json");
    let sidecar_tmp_arg = format!("{out_arg}.run.json.tmp");
    for args in [
        // That run's own output named again: refused before any work, not at the end.
        vec![
            "solve",
            "-q",
            "-o",
            elsewhere.to_str().unwrap(),
            "--summary",
            out_arg,
            small_arg,
        ],
        vec!["solve", "-q", "-o", partial_arg, small_arg],
        vec![
            "solve",
            "-q",
            "-o",
            "/dev/null",
            "--summary",
            partial_arg,
            small_arg,
        ],
        vec![
            "generate",
            "-q",
            "-n",
            "1",
            "--seed",
            "1",
            "-o",
            partial_arg,
        ],
        vec!["verify", "-q", "--report", partial_arg, small_arg],
        // Its sidecar: replaced, the stopped run could not be resumed.
        vec!["solve", "-q", "-o", &sidecar_arg, small_arg],
        vec!["rate", "-q", "-o", &sidecar_tmp_arg, small_arg],
    ] {
        let run = bin().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("another run (pid {})", first.id()))
                || stderr.contains("it is the run sidecar of a solve or rate run's output"),
            "{args:?}: {stderr}"
        );
    }
    assert!(!elsewhere.exists(), "refused before any work");
    first.kill().unwrap();
    first.wait().unwrap();
    assert!(!out.exists());
    // A finished (or stopped) run's sidecar is what --resume and merge read: no other output
    // may replace it either.
    let done = dir.path().join("done.csv");
    bin()
        .args(["solve", "-q", "-o"])
        .arg(&done)
        .arg(&small)
        .assert()
        .success();
    let sidecar_arg = format!("{}.run.json", done.display());
    let sidecar = std::fs::read(&sidecar_arg).unwrap();
    let run = bin()
        .args([
            "solve",
            "-q",
            "-o",
            elsewhere.to_str().unwrap(),
            "--summary",
        ])
        .args([&sidecar_arg, small_arg])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("it is the run sidecar of a solve or rate run's output"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&sidecar_arg).unwrap(), sidecar);
}

/// A symbolic link to a file not made yet names the file it leads to: two outputs of one run
/// that meet there (one through a link, one as the other output's in-progress file, sidecar
/// or name) are refused before any work, as the same names given outright are.
#[cfg(unix)]
#[test]
fn a_link_to_a_file_not_yet_made_is_that_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = data("norvig_top95.txt");
    let at = |name: &str| dir.path().join(name);
    for (link, to, args, says) in [
        (
            "l1.json",
            "o.csv.partial",
            &["solve", "-q", "-o", "o.csv", "--summary", "l1.json"][..],
            "it is both the in-progress file of -o and the --summary file",
        ),
        (
            "l2.json",
            "o.csv.run.json",
            &["rate", "-q", "-o", "o.csv", "--summary", "l2.json"],
            "it is both the run sidecar of -o and the --summary file",
        ),
        (
            "l3.csv",
            "rows.csv",
            &[
                "bench",
                "--solvers",
                "bands",
                "--runs",
                "1",
                "--csv",
                "rows.csv",
                "--summary",
                "l3.csv",
            ],
            "it is both the --csv file and the --summary file",
        ),
    ] {
        std::os::unix::fs::symlink(to, at(link)).unwrap();
        let run = bin()
            .current_dir(dir.path())
            .args(args)
            .arg(&input)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(!at(to).exists(), "{args:?}: refused before any work");
    }
}

/// A run that writes no sidecar (`rate --explain`, `generate`) over an earlier run's output
/// takes that run's `FILE.run.json` away with the file: left, it would describe a file no
/// longer there, and `merge` or `--resume` would call the new file cut off or changed.
#[test]
fn an_output_replaced_by_a_run_without_a_sidecar_takes_the_old_sidecar_away() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = std::fs::read_to_string(crate::support::data("norvig_top95.txt")).unwrap();
    let three: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
    std::fs::write(d.join("t3.txt"), three).unwrap();
    let run = |args: &[&str]| {
        let output = crate::support::bin()
            .current_dir(d)
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(0), "{args:?}: {err}");
    };
    let replaced: [(&[&str], &[&str]); 2] = [
        (
            &["rate", "-q", "t3.txt", "-o", "x.csv"],
            &["rate", "--explain", "-q", "t3.txt", "-o", "x.csv"],
        ),
        (
            &["solve", "-q", "t3.txt", "-o", "x.csv"],
            &["generate", "-n", "3", "--seed", "5", "-q", "-o", "x.csv"],
        ),
    ];
    for (first, second) in replaced {
        run(first);
        assert!(d.join("x.csv.run.json").is_file(), "{first:?}");
        run(second);
        assert!(d.join("x.csv").is_file(), "{second:?}");
        assert!(!d.join("x.csv.run.json").exists(), "{second:?}");
    }
}
