//! CLI tests for `solve`: formats, stdin, several inputs, every status, every exit code,
//! parallel == sequential, summary JSON, broken pipes.

use std::io::{Read, Write};
use std::process::Stdio;

use crate::support::bin;
use predicates::prelude::*;
use sudoku_batch::io::results::{ResultRow, Status, COLUMNS};
use sudoku_batch::Grid;

pub const CLASSIC: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
pub const CLASSIC_SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

pub fn rows(csv_text: &[u8]) -> Vec<ResultRow> {
    let mut reader = csv::Reader::from_reader(csv_text);
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(header, COLUMNS);
    reader
        .deserialize()
        .map(|r| r.expect("row parses"))
        .collect()
}

fn solve_stdin(input: &str, args: &[&str]) -> (Vec<ResultRow>, i32, String) {
    let out = bin()
        .arg("solve")
        .args(args)
        .write_stdin(input)
        .output()
        .unwrap();
    (
        rows(&out.stdout),
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A puzzle with exactly two solutions: the classic solution with one deadly pattern opened.
fn two_solution_puzzle() -> String {
    // Blank every cell but keep a full solution minus a 4-cell swap rectangle.
    let sol: Vec<u8> = CLASSIC_SOLUTION.bytes().collect();
    // Find a rectangle (r1,c1),(r1,c2),(r2,c1),(r2,c2) in one band with a,b / b,a pattern.
    for r1 in 0..9 {
        for r2 in (r1 + 1)..9 {
            if r1 / 3 != r2 / 3 {
                continue;
            }
            for c1 in 0..9 {
                for c2 in (c1 + 1)..9 {
                    if c1 / 3 == c2 / 3 {
                        continue;
                    }
                    let (a, b) = (sol[r1 * 9 + c1], sol[r1 * 9 + c2]);
                    if sol[r2 * 9 + c1] == b && sol[r2 * 9 + c2] == a {
                        let mut p = sol.clone();
                        for i in [r1 * 9 + c1, r1 * 9 + c2, r2 * 9 + c1, r2 * 9 + c2] {
                            p[i] = b'.';
                        }
                        return String::from_utf8(p).unwrap();
                    }
                }
            }
        }
    }
    panic!("no deadly rectangle in the classic solution")
}

#[test]
fn solves_a_line_file_with_all_columns() {
    // Integration tests run with the crate root as working directory.
    let out = bin()
        .args(["solve", "-q", "data/norvig_easy50.txt"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let rows = rows(&out.stdout);
    assert_eq!(rows.len(), 50);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.index, i as u64);
        assert_eq!(row.line, i as u64 + 1);
        assert_eq!(row.status, Status::Solved);
        let puzzle: Grid = row.puzzle.parse().unwrap();
        let solution: Grid = row.solution.parse().unwrap();
        assert!(solution.is_solution_of(&puzzle), "row {i}");
        assert!(row.message.is_empty());
        assert!(row.file.ends_with("norvig_easy50.txt"));
    }
}

#[test]
fn crlf_without_final_newline_and_comments() {
    let input = format!("# a comment\r\n\r\n{CLASSIC}\r\n  {CLASSIC}  extra text");
    let (rows, code, _) = solve_stdin(&input, &["-q"]);
    assert_eq!(code, 0);
    assert_eq!(rows.iter().map(|r| r.line).collect::<Vec<_>>(), vec![3, 4]);
    assert!(rows.iter().all(|r| r.solution == CLASSIC_SOLUTION));
}

#[test]
fn csv_with_reference_solutions_and_mismatch() {
    let mut wrong = CLASSIC_SOLUTION.as_bytes().to_vec();
    wrong.swap(0, 1);
    let wrong = String::from_utf8(wrong).unwrap();
    let input = format!(
        "id,Quizzes,solutions\n1,{CLASSIC},{CLASSIC_SOLUTION}\n2,{CLASSIC},{wrong}\n3,{CLASSIC},\n"
    );
    let (rows, code, _) = solve_stdin(&input, &["-q"]);
    assert_eq!(code, 1);
    let statuses: Vec<Status> = rows.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        vec![Status::Solved, Status::Mismatch, Status::Solved]
    );
    assert_eq!(
        rows.iter().map(|r| r.line).collect::<Vec<_>>(),
        vec![2, 3, 4]
    );
    assert!(
        rows[1].message.contains("row 1, column 1"),
        "{}",
        rows[1].message
    );
    assert_eq!(rows[1].solution, CLASSIC_SOLUTION);
}

#[test]
fn csv_column_by_name_or_number_and_missing_column() {
    let input = format!("a,b\nx,{CLASSIC}\n");
    let (rows, code, _) = solve_stdin(&input, &["-q", "--column", "B"]);
    assert_eq!((code, rows.len(), rows[0].status), (0, 1, Status::Solved));
    let (rows, _, _) = solve_stdin(&input, &["-q", "--column", "2"]);
    assert_eq!(rows[0].status, Status::Solved);
    // Names are matched trimmed on both sides, as a header written `a, b` is read.
    let spaced = format!("a, b\nx,{CLASSIC}\n");
    let (rows, code, _) = solve_stdin(&spaced, &["-q", "--column", " b"]);
    assert_eq!((code, rows[0].status), (0, Status::Solved));
    bin()
        .args(["solve", "-q"])
        .write_stdin(input.clone())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no puzzle column").and(predicate::str::contains("-:")));
    bin()
        .args(["solve", "-q", "--column", "zz"])
        .write_stdin(input)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no column \"zz\""));
}

#[test]
fn every_status_and_message() {
    let mut contradictory = CLASSIC.as_bytes().to_vec();
    contradictory[2] = b'5';
    let contradictory = String::from_utf8(contradictory).unwrap();
    // Valid clues but no solution: row 1 holds 1-8 and column 9 already has a 9 below.
    let unsolvable = format!("12345678.{}9{}", ".".repeat(8), ".".repeat(63));
    let multiple = two_solution_puzzle();
    let stray = format!("x{}", &CLASSIC[1..]);
    let input = [
        CLASSIC.to_string(),
        CLASSIC[..80].to_string(),
        stray,
        contradictory,
        unsolvable,
        multiple.clone(),
    ]
    .join("\n");
    let (rows, code, _) = solve_stdin(&input, &["-q", "--unique"]);
    assert_eq!(code, 1);
    let got: Vec<(Status, &str)> = rows
        .iter()
        .map(|r| (r.status, r.message.as_str()))
        .collect();
    assert_eq!(got[0], (Status::Solved, ""));
    assert_eq!(got[1], (Status::Invalid, "expected 81 cells, found 80"));
    assert_eq!(got[2].0, Status::Invalid);
    assert!(got[2].1.contains("invalid character 'x' at cell 1"));
    assert_eq!(
        got[3],
        (
            Status::Invalid,
            "contradictory clues: digit 5 appears twice in row 1"
        )
    );
    assert_eq!(got[4], (Status::Unsolvable, "no solution"));
    assert_eq!(got[5], (Status::Multiple, "at least 2 solutions"));
    assert_eq!(
        rows.iter().map(|r| r.index).collect::<Vec<_>>(),
        vec![0, 1, 2, 3, 4, 5]
    );
    assert_eq!(rows[1].puzzle, &CLASSIC[..80]);
    // Without --unique the two-solution puzzle is simply solved.
    let (rows, code, _) = solve_stdin(&multiple, &["-q"]);
    assert_eq!((code, rows[0].status), (0, Status::Solved));
}

#[test]
fn stdin_dash_and_several_inputs_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.csv");
    std::fs::write(&a, format!("{CLASSIC}\n\n{CLASSIC}\n")).unwrap();
    std::fs::write(&b, format!("puzzle\n{}\n{CLASSIC}\n", &CLASSIC[..10])).unwrap();
    let out = bin()
        .args(["solve", "-q"])
        .arg(&a)
        .arg("-")
        .arg(&b)
        .write_stdin(format!("{CLASSIC}\n"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let rows = rows(&out.stdout);
    let summary: Vec<(u64, u64, Status)> =
        rows.iter().map(|r| (r.index, r.line, r.status)).collect();
    assert_eq!(
        summary,
        vec![
            (0, 1, Status::Solved),
            (1, 3, Status::Solved),
            (2, 1, Status::Solved),
            (3, 2, Status::Invalid),
            (4, 3, Status::Solved),
        ]
    );
    assert_eq!(rows[2].file, "-");
    assert!(rows[3].file.ends_with("b.csv"));
}

#[test]
fn exit_codes_for_io_and_usage_errors() {
    let missing = bin().args(["solve", "no/such/file.txt"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
    // One line naming the file and the cause, the cause said once.
    let stderr = String::from_utf8(missing.stderr).unwrap();
    assert!(stderr.contains("cannot open no/such/file.txt"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let cause = std::fs::File::open("no/such/file.txt")
        .unwrap_err()
        .to_string();
    assert_eq!(stderr.matches(&cause).count(), 1, "{stderr}");
    let dir = tempfile::tempdir().unwrap();
    let unwritable = dir.path().join("missing-dir").join("out.csv");
    bin()
        .args(["solve", "-q", "-o"])
        .arg(&unwritable)
        .write_stdin(CLASSIC)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("out.csv"));
    bin().args(["solve", "--no-such-flag"]).assert().code(2);
    bin()
        .args(["solve", "--solver", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("choose one of"));
    bin().args(["solve", "-j", "0"]).assert().code(2);
    bin()
        .arg("solve")
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("directory"));
}

#[test]
fn empty_input_warns_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    let out = bin().args(["solve", "-q"]).arg(&empty).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty.txt: no puzzles found"));
    assert_eq!(rows(&out.stdout).len(), 0);
}

#[test]
fn output_file_is_complete_and_partial_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("out.csv");
    let json = dir.path().join("summary.json");
    bin()
        .args(["solve", "-q", "-o"])
        .arg(&out_path)
        .arg("--summary")
        .arg(&json)
        .write_stdin(format!("{CLASSIC}\n{}\n", &CLASSIC[..5]))
        .assert()
        .code(1)
        .stdout(predicate::str::is_empty());
    assert_eq!(rows(&std::fs::read(&out_path).unwrap()).len(), 2);
    assert!(!dir.path().join("out.csv.partial").exists());
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(summary["puzzles"], 2);
    assert_eq!(summary["solved"], 1);
    assert_eq!(summary["invalid"], 1);
    for key in [
        "threads",
        "solver",
        "wall_seconds",
        "puzzles_per_second",
        "guesses_per_puzzle",
        "no_guess_percent",
    ] {
        assert!(summary.get(key).is_some(), "{key}");
    }
    for key in ["mean", "p50", "p90", "p99", "max"] {
        assert!(summary["solve_ns"][key].is_u64(), "{key}");
    }
}

#[test]
fn summary_is_printed_to_stderr_unless_quiet() {
    let out = bin().arg("solve").write_stdin(CLASSIC).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    for needle in [
        "puzzles: 1 (solved 1",
        "puzzles/s",
        "µs/puzzle",
        "p50",
        "p99",
        "max",
        "guesses/puzzle",
        "thread",
    ] {
        assert!(stderr.contains(needle), "missing {needle:?} in {stderr}");
    }
    let quiet = bin()
        .args(["solve", "-q"])
        .write_stdin(CLASSIC)
        .output()
        .unwrap();
    assert!(quiet.stderr.is_empty());
}

fn without_timing(rows: &[ResultRow]) -> Vec<ResultRow> {
    rows.iter()
        .cloned()
        .map(|r| ResultRow { solve_ns: 0, ..r })
        .collect()
}

#[test]
fn one_thread_and_two_threads_give_the_same_rows() {
    // A real hard set plus bad records sprinkled in, larger than one chunk.
    let data = std::fs::read_to_string("data/norvig_top95.txt").unwrap();
    let mut input = String::new();
    for (i, line) in data.lines().cycle().take(700).enumerate() {
        input.push_str(line);
        input.push('\n');
        if i % 97 == 0 {
            input.push_str("garbage line\n");
        }
    }
    let one = bin()
        .args(["solve", "-q", "-j", "1", "--unique"])
        .write_stdin(input.clone())
        .output()
        .unwrap();
    let two = bin()
        .args(["solve", "-q", "-j", "2", "--unique"])
        .write_stdin(input)
        .output()
        .unwrap();
    let (one, two) = (rows(&one.stdout), rows(&two.stdout));
    assert_eq!(one.len(), 708);
    assert_eq!(without_timing(&one), without_timing(&two));
}

#[test]
fn closed_stdout_pipe_ends_quietly() {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("sudoku-batch"))
        .args(["solve", "-q", "-j", "2", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let line = format!("{CLASSIC}\n");
        for _ in 0..200_000 {
            if stdin.write_all(line.as_bytes()).is_err() {
                break;
            }
        }
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let status = child.wait().unwrap();
    let _ = writer.join();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
}

/// Standard input named twice can be read once: the run is refused before anything is read,
/// for every command that reads puzzles.
#[test]
fn stdin_named_twice_is_refused() {
    for args in [
        &["solve", "-", "-"][..],
        &["rate", "-", "-"],
        &["verify", "-", "-"],
        &["bench", "-j", "1", "-", "-"],
        // The same pipe by another name.
        &["solve", "-", "/dev/stdin"],
        &["rate", "/dev/stdin", "-"],
        &["verify", "-", "/proc/self/fd/0"],
    ] {
        bin()
            .args(args)
            .write_stdin(format!("{CLASSIC}\n"))
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(
                "standard input is given more than once (`-`, or a name such as /dev/stdin); \
                 it can be read only once",
            ));
    }
}

/// `--generate KIND` into a pipe closed before it writes (`| head` that has quit) ends
/// quietly, like a command's rows (clap_complete's own writer panics on a write error).
#[test]
fn generated_scripts_into_a_closed_pipe_end_quietly() {
    for kind in ["complete-bash", "complete-zsh", "complete-fish", "man"] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("sudoku-batch"))
            .args(["--generate", kind])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{kind}: {stderr}");
        assert!(!stderr.contains("panicked"), "{kind}: {stderr}");
    }
}

/// For `verify` the exit status is the verdict: a closed stdout loses the summary (and a
/// `--report -`, here longer than any write buffer), not the 1 of a failed row.
#[test]
fn a_closed_stdout_keeps_the_verdict_of_verify() {
    let dir = tempfile::tempdir().unwrap();
    let wrong = format!("{}8", &CLASSIC_SOLUTION[..80]);
    let path = dir.path().join("rows.txt");
    for (solution, code) in [(CLASSIC_SOLUTION.to_string(), 0), (wrong, 1)] {
        std::fs::write(&path, format!("{CLASSIC} {solution}\n").repeat(3000)).unwrap();
        for report in [&[][..], &["--report", "-"][..]] {
            let mut child =
                std::process::Command::new(assert_cmd::cargo::cargo_bin("sudoku-batch"))
                    .arg("verify")
                    .arg(&path)
                    .args(report)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
            drop(child.stdout.take());
            let output = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(code), "{report:?}: {stderr}");
            assert!(!stderr.contains("error"), "{stderr}");
        }
    }
}

/// The parallel pipeline writes what the plain sequential path (`solve_sequential`, the oracle)
/// decides, record for record, across two inputs of different formats with bad records mixed in.
#[test]
fn parallel_pipeline_matches_the_sequential_oracle() {
    use sudoku_batch::cmd::solve::{self, SolveConfig};
    use sudoku_batch::io::Input;
    use sudoku_batch::testing::solve_sequential;

    let dir = tempfile::tempdir().unwrap();
    let lines = dir.path().join("hard.txt");
    let csv = dir.path().join("kaggle.csv");
    let mut text = String::new();
    for (i, line) in std::fs::read_to_string("data/norvig_top95.txt")
        .unwrap()
        .lines()
        .enumerate()
    {
        text.push_str(line);
        text.push('\n');
        if i % 10 == 3 {
            text.push_str(&line[..70]);
            text.push('\n');
        }
    }
    std::fs::write(&lines, text).unwrap();
    let kaggle = std::fs::read_to_string("data/kaggle3m_radcliffe_first1000.csv").unwrap();
    let head: Vec<&str> = kaggle.lines().take(300).collect();
    std::fs::write(&csv, head.join("\n")).unwrap();

    let out = dir.path().join("out.csv");
    let mut config = SolveConfig::new(vec![Input::File(lines), Input::File(csv)]);
    config.run.threads = 2;
    config.unique = true;
    config.output = Some(out.clone());
    solve::run(&config).unwrap();
    let parallel = rows(&std::fs::read(&out).unwrap());
    let oracle = solve_sequential(&config).unwrap();
    assert_eq!(parallel.len(), oracle.len());
    assert_eq!(parallel.len(), 95 + 10 + 299);
    for (index, (row, (record, verdict))) in parallel.iter().zip(&oracle).enumerate() {
        assert_eq!(row.index, index as u64);
        assert_eq!(row.line, record.line, "row {index}");
        assert_eq!(row.status, verdict.status, "row {index}");
        assert_eq!(row.message, verdict.message, "row {index}");
        assert_eq!(row.guesses, verdict.guesses, "row {index}");
        let solution = verdict.solution.map(|s| s.to_string()).unwrap_or_default();
        assert_eq!(row.solution, solution, "row {index}");
    }
    assert!(parallel.iter().any(|r| r.status == Status::Invalid));
}

/// Every subcommand a user can type (not `help`).
const SUBCOMMANDS: [&str; 6] = ["solve", "bench", "report", "merge", "generate", "verify"];

#[test]
fn man_page_and_completions_cover_every_subcommand() {
    for kind in [
        "man",
        "complete-bash",
        "complete-zsh",
        "complete-fish",
        "complete-powershell",
        "complete-elvish",
    ] {
        let out = bin().args(["--generate", kind]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{kind}");
        // roff writes a hyphen as `\-`.
        let text = String::from_utf8(out.stdout).unwrap().replace("\\-", "-");
        assert!(text.len() > 1000, "{kind}: {} bytes", text.len());
        for sub in SUBCOMMANDS {
            assert!(text.contains(sub), "{kind} does not mention {sub}");
        }
        // Options of subcommands are there too, not only their names.
        assert!(text.contains("resume"), "{kind} lacks solve --resume");
        assert!(text.contains("max-pass"), "{kind} lacks bench --max-pass");
    }
    let man = bin().args(["--generate", "man"]).output().unwrap().stdout;
    assert!(String::from_utf8(man).unwrap().starts_with(".ie"), "roff");
}

#[test]
fn generate_flag_is_hidden_and_bare_call_shows_help() {
    let help = bin().arg("--help").output().unwrap();
    assert_eq!(help.status.code(), Some(0));
    let text = String::from_utf8(help.stdout).unwrap();
    assert!(!text.contains("--generate"), "{text}");
    for sub in SUBCOMMANDS {
        assert!(text.contains(sub), "{sub}");
    }
    let bare = bin().output().unwrap();
    assert_eq!(bare.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bare.stderr).contains("Usage"));
}

#[test]
fn every_subcommand_help_reads() {
    for sub in SUBCOMMANDS {
        let out = bin().args([sub, "--help"]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{sub}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains(&format!("Usage: sudoku-batch {sub}")),
            "{text}"
        );
        assert!(
            !text.contains("--json"),
            "{sub}: --json is a hidden alias\n{text}"
        );
    }
    for sub in ["solve", "merge", "verify", "bench"] {
        let text = bin().args([sub, "--help"]).output().unwrap().stdout;
        assert!(
            String::from_utf8(text).unwrap().contains("--summary"),
            "{sub}"
        );
    }
}
