//! Inputs: a slowly fed FIFO is opened once and read once; a lone CR ends a line as LF
//! and CRLF do; UTF-16 with a byte order mark is decoded (and refused without one, saying
//! UTF-16); `verify` fails malformed lines rather than skipping them, and keeps its messages
//! short however long the header.

use std::io::Write;
use std::path::Path;
#[cfg(unix)]
use std::path::PathBuf;
#[cfg(unix)]
use std::process::{Command as StdCommand, Output, Stdio};
#[cfg(unix)]
use std::time::Duration;

use crate::support::{bin, kaggle_pairs};
#[cfg(unix)]
use crate::support::{mkfifo, wait_within};

/// Result rows without `solve_ns` and `file`, the columns that differ between runs of the same
/// records from differently named files.
fn rows(csv_text: &[u8]) -> Vec<Vec<String>> {
    let mut reader = csv::Reader::from_reader(csv_text);
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let drop = [
        header.iter().position(|h| h == "solve_ns").unwrap(),
        header.iter().position(|h| h == "file").unwrap(),
    ];
    reader
        .records()
        .map(|r| {
            r.unwrap()
                .iter()
                .enumerate()
                .filter(|(i, _)| !drop.contains(i))
                .map(|(_, f)| f.to_string())
                .collect()
        })
        .collect()
}

/// `solve -q FILE` on stdout, checked to exit 0.
fn solve(path: &Path) -> Vec<u8> {
    let output = bin()
        .args(["solve", "-q", "-j", "2"])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// The `line` column of result rows.
fn lines_of(result: &[u8]) -> Vec<u64> {
    rows(result).iter().map(|r| r[1].parse().unwrap()).collect()
}

/// Runs the binary with `args`, killing it (and failing) if it has not ended within `limit`.
#[cfg(unix)]
fn run_with_deadline(args: &[&std::ffi::OsStr], limit: Duration) -> Output {
    let child = StdCommand::new(assert_cmd::cargo::cargo_bin("sudoku-batch"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_within(child, limit)
}

/// A slow writer: once `after` is done (if given), opens the FIFO (which waits for a reader),
/// then writes `lines` one by one with a pause before each. Returns whether every line went
/// in: a reader that closed the FIFO unread makes a write fail (`EPIPE`; the test process
/// ignores `SIGPIPE`, as Rust programs do).
#[cfg(unix)]
fn slow_writer(
    fifo: PathBuf,
    lines: Vec<String>,
    after: Option<std::thread::JoinHandle<bool>>,
) -> std::thread::JoinHandle<bool> {
    std::thread::spawn(move || {
        if let Some(first) = after {
            let _ = first.join();
        }
        let Ok(mut file) = std::fs::OpenOptions::new().write(true).open(&fifo) else {
            return false;
        };
        for line in lines {
            std::thread::sleep(Duration::from_millis(40));
            if writeln!(file, "{line}").and_then(|_| file.flush()).is_err() {
                return false;
            }
        }
        true
    })
}

/// Two FIFOs fed slowly, the second only after the first is done (as `cmd1 > a & cmd2 > b`
/// might be), read by `args` + both FIFOs: every line must arrive, each FIFO being opened once
/// (a run that opened the FIFOs to check them, then again to read them, left the first writer
/// with no reader while it waited on the second, and hung).
#[cfg(unix)]
fn fifo_round(dir: &Path, round: usize, command: &[&str], lines: &[String]) -> Output {
    let (a, b) = (dir.join(format!("a{round}")), dir.join(format!("b{round}")));
    mkfifo(&a);
    mkfifo(&b);
    let (first, second) = lines.split_at(lines.len() / 2);
    let writer_a = slow_writer(a.clone(), first.to_vec(), None);
    let writer_b = slow_writer(b.clone(), second.to_vec(), Some(writer_a));
    let mut args: Vec<&std::ffi::OsStr> = command.iter().map(|a| a.as_ref()).collect();
    args.extend([a.as_os_str(), b.as_os_str()]);
    let output = run_with_deadline(&args, Duration::from_secs(60));
    // A hung run was killed above; a writer left without a reader says so here.
    assert!(writer_b.join().unwrap(), "a FIFO writer lost its reader");
    output
}

#[cfg(unix)]
#[test]
fn slowly_fed_fifos_are_read_once_by_solve() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = kaggle_pairs(6);
    let lines: Vec<String> = pairs.iter().map(|(p, _)| p.clone()).collect();
    let plain = dir.path().join("plain.txt");
    std::fs::write(&plain, lines.join("\n") + "\n").unwrap();
    let expected = rows(&solve(&plain));
    for round in 0..3 {
        let out = dir.path().join(format!("out{round}.csv"));
        let out_arg = out.to_str().unwrap();
        let output = fifo_round(
            dir.path(),
            round,
            &["solve", "-q", "-j", "2", "-o", out_arg],
            &lines,
        );
        assert!(
            output.status.success(),
            "round {round}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let got = rows(&std::fs::read(&out).unwrap());
        // Lines count per file: the second FIFO's start again at 1.
        let strip = |rows: Vec<Vec<String>>| -> Vec<Vec<String>> {
            rows.into_iter().map(|mut r| r.split_off(2)).collect()
        };
        assert_eq!(strip(got), strip(expected.clone()), "round {round}");
    }
}

#[cfg(unix)]
#[test]
fn slowly_fed_fifos_are_read_once_by_verify() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = kaggle_pairs(6)
        .iter()
        .map(|(p, s)| format!("{p},{s}"))
        .collect();
    for round in 0..3 {
        let summary = dir.path().join(format!("s{round}.json"));
        let output = fifo_round(
            dir.path(),
            round,
            &["verify", "-q", "--json", summary.to_str().unwrap()],
            &lines,
        );
        assert_eq!(
            output.status.code(),
            Some(0),
            "round {round}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
        assert_eq!(s["valid"], 6, "round {round}: {s}");
    }
}

#[cfg(unix)]
#[test]
fn process_substitution_is_read_once() {
    if StdCommand::new("bash")
        .arg("-c")
        .arg("true")
        .status()
        .is_err()
    {
        eprintln!("no bash: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = kaggle_pairs(4).into_iter().map(|(p, _)| p).collect();
    let out = dir.path().join("out.csv");
    let script = format!(
        "\"$0\" solve -q -o \"$1\" <(for l in {}; do echo $l; sleep 0.05; done)",
        lines.join(" ")
    );
    let status = StdCommand::new("bash")
        .arg("-c")
        .arg(script)
        .arg(assert_cmd::cargo::cargo_bin("sudoku-batch"))
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(rows(&std::fs::read(&out).unwrap()).len(), 4);
}

#[cfg(unix)]
#[test]
fn a_zip_archive_in_a_fifo_is_refused_not_reopened() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("z");
    mkfifo(&fifo);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut file = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            let _ = file.write_all(b"PK\x03\x04 not really a zip archive");
        })
    };
    let output = run_with_deadline(
        &["solve".as_ref(), fifo.as_os_str()],
        Duration::from_secs(60),
    );
    writer.join().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("zip needs random access"), "{stderr}");
}

/// Six puzzles, each layout, with `\n` and with lone `\r` line ends: the same rows.
#[test]
fn bare_cr_ends_lines_in_every_layout() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = kaggle_pairs(6);
    let puzzles: Vec<&str> = pairs.iter().map(|(p, _)| p.as_str()).collect();
    let grid = |p: &str| -> String {
        (0..9)
            .map(|r| format!("{}\n", &p[r * 9..r * 9 + 9]))
            .collect()
    };
    let layouts = [
        ("lines", puzzles.join("\n") + "\n"),
        (
            "csv",
            format!("id,puzzle\n{}\n", {
                let rows: Vec<String> = puzzles
                    .iter()
                    .enumerate()
                    .map(|(i, p)| format!("{i},{p}"))
                    .collect();
                rows.join("\n")
            }),
        ),
        (
            "grid",
            puzzles
                .iter()
                .enumerate()
                .map(|(i, p)| format!("Grid {i:02}\n{}", grid(p)))
                .collect(),
        ),
    ];
    for (name, lf) in layouts {
        let lf_path = dir.path().join(format!("{name}-lf"));
        let cr_path = dir.path().join(format!("{name}-cr"));
        std::fs::write(&lf_path, &lf).unwrap();
        std::fs::write(&cr_path, lf.replace('\n', "\r")).unwrap();
        let expected = solve(&lf_path);
        let got = solve(&cr_path);
        assert_eq!(
            rows(&got).len(),
            6,
            "{name}: {}",
            String::from_utf8_lossy(&got)
        );
        assert_eq!(rows(&got), rows(&expected), "{name}");
        // CRLF is one line end too.
        let crlf_path = dir.path().join(format!("{name}-crlf"));
        std::fs::write(&crlf_path, lf.replace('\n', "\r\n")).unwrap();
        assert_eq!(rows(&solve(&crlf_path)), rows(&expected), "{name} CRLF");
    }
    // Mixed line ends, blank lines among them: each `\n`, `\r\n` or lone `\r` is one line.
    let mixed = format!(
        "{}\r\n{}\r\r{}\n\n{}\r\n\r\n{}\r{}",
        puzzles[0], puzzles[1], puzzles[2], puzzles[3], puzzles[4], puzzles[5]
    );
    let mixed_path = dir.path().join("mixed.txt");
    std::fs::write(&mixed_path, &mixed).unwrap();
    assert_eq!(lines_of(&solve(&mixed_path)), [1, 2, 4, 6, 8, 9]);
    let csv_path = dir.path().join("mixed.csv");
    std::fs::write(&csv_path, format!("puzzle\r{mixed}")).unwrap();
    assert_eq!(lines_of(&solve(&csv_path)), [2, 3, 5, 7, 9, 10]);
}

#[test]
fn verify_reads_bare_cr_files() {
    let dir = tempfile::tempdir().unwrap();
    let body: Vec<String> = kaggle_pairs(6)
        .iter()
        .map(|(p, s)| format!("{p},{s}"))
        .collect();
    let path = dir.path().join("cr.csv");
    std::fs::write(&path, format!("puzzle,solution\r{}\r", body.join("\r"))).unwrap();
    bin()
        .arg("verify")
        .arg(&path)
        .assert()
        .code(0)
        .stdout(predicates::str::contains("valid                  6"));
}

/// A UTF-8 byte order mark (Notepad, Excel's "CSV UTF-8", PowerShell) opens the text, not the
/// first record: every layout, a comment line first, stdin, `rate` and `verify` read the same
/// records as without it.
#[test]
fn a_utf8_byte_order_mark_opens_the_text_in_every_layout() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = kaggle_pairs(4);
    let puzzles: Vec<&str> = pairs.iter().map(|(p, _)| p.as_str()).collect();
    let grid: String = puzzles
        .iter()
        .map(|p| {
            (0..9)
                .map(|r| format!("{}\n", &p[r * 9..r * 9 + 9]))
                .collect::<String>()
                + "\n"
        })
        .collect();
    let layouts = [
        ("lines", puzzles.join("\r\n") + "\r\n"),
        (
            "comment",
            format!("# four puzzles\n{}\n", puzzles.join("\n")),
        ),
        ("csv", format!("puzzle\n{}\n", puzzles.join("\n"))),
        ("grid", grid),
    ];
    for (name, text) in layouts {
        let plain = dir.path().join(format!("{name}.txt"));
        let marked = dir.path().join(format!("{name}-bom.txt"));
        std::fs::write(&plain, &text).unwrap();
        std::fs::write(&marked, format!("\u{feff}{text}")).unwrap();
        let expected = rows(&solve(&plain));
        assert_eq!(expected.len(), 4, "{name}");
        assert!(
            expected.iter().all(|r| r.contains(&"solved".to_string())),
            "{name}"
        );
        assert_eq!(rows(&solve(&marked)), expected, "{name}");
    }
    let marked = dir.path().join("lines-bom.txt");
    let stdin = bin()
        .args(["solve", "-q", "-"])
        .write_stdin(std::fs::read(&marked).unwrap())
        .output()
        .unwrap();
    assert_eq!(rows(&stdin.stdout), rows(&solve(&marked)), "stdin");
    let rated = bin()
        .args(["rate", "-q", "--columns", "status"])
        .arg(&marked)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&rated.stdout),
        "status\nrated\nrated\nrated\nrated\n"
    );
    let pairs_path = dir.path().join("pairs-bom.txt");
    let body: String = pairs.iter().map(|(p, s)| format!("{p},{s}\n")).collect();
    std::fs::write(&pairs_path, format!("\u{feff}{body}")).unwrap();
    bin()
        .arg("verify")
        .arg(&pairs_path)
        .assert()
        .code(0)
        .stdout(predicates::str::contains("valid                  4"));
}

fn utf16(text: &str, big_endian: bool, bom: bool) -> Vec<u8> {
    let mut bytes = Vec::new();
    for unit in std::iter::once('\u{feff}')
        .filter(|_| bom)
        .chain(text.chars())
        .collect::<String>()
        .encode_utf16()
    {
        bytes.extend(if big_endian {
            unit.to_be_bytes()
        } else {
            unit.to_le_bytes()
        });
    }
    bytes
}

#[test]
fn utf16_with_a_byte_order_mark_reads_as_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = kaggle_pairs(6);
    let lines: String = pairs.iter().map(|(p, _)| format!("{p}\r\n")).collect();
    let csv: String = std::iter::once("id,puzzle,solution\r\n".to_string())
        .chain(
            pairs
                .iter()
                .enumerate()
                .map(|(i, (p, s))| format!("{i},{p},{s}\r\n")),
        )
        .collect();
    for (name, text) in [("lines", lines), ("csv", csv)] {
        let utf8 = dir.path().join(format!("{name}-utf8"));
        std::fs::write(&utf8, &text).unwrap();
        let expected = rows(&solve(&utf8));
        assert_eq!(expected.len(), 6);
        for big_endian in [false, true] {
            let path = dir.path().join(format!("{name}-utf16-{big_endian}"));
            std::fs::write(&path, utf16(&text, big_endian, true)).unwrap();
            assert_eq!(
                rows(&solve(&path)),
                expected,
                "{name} big-endian {big_endian}"
            );
            // Compressed too: decoding comes after decompression.
            let gz = dir.path().join(format!("{name}-utf16-{big_endian}.gz"));
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(&utf16(&text, big_endian, true)).unwrap();
            std::fs::write(&gz, enc.finish().unwrap()).unwrap();
            assert_eq!(
                rows(&solve(&gz)),
                expected,
                "{name} gz big-endian {big_endian}"
            );
            if name == "csv" {
                bin()
                    .arg("verify")
                    .arg(&path)
                    .assert()
                    .code(0)
                    .stdout(predicates::str::contains("valid                  6"));
            }
        }
    }
}

#[test]
fn utf16_without_a_byte_order_mark_is_refused_saying_utf16() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = kaggle_pairs(3)
        .iter()
        .map(|(p, s)| format!("{p},{s}\n"))
        .collect();
    for big_endian in [false, true] {
        let path = dir.path().join(format!("nobom-{big_endian}"));
        std::fs::write(&path, utf16(&text, big_endian, false)).unwrap();
        for command in ["solve", "verify"] {
            let output = bin().arg(command).arg(&path).output().unwrap();
            assert_eq!(output.status.code(), Some(2), "{command}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(stderr.contains("UTF-16"), "{command}: {stderr}");
        }
    }
}

#[test]
fn verify_fails_malformed_lines_instead_of_skipping_them() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = kaggle_pairs(3);
    let (p, s) = &pairs[0];
    let text = format!(
        "{p},{s}\n{}\n{}{}\n{}:0\n",
        &pairs[1].0[..80],
        pairs[2].0,
        pairs[2].1,
        pairs[1].0
    );
    let path = dir.path().join("mixed.txt");
    std::fs::write(&path, text).unwrap();
    let report = dir.path().join("report.csv");
    let summary = dir.path().join("s.json");
    bin()
        .arg("verify")
        .arg(&path)
        .arg("--report")
        .arg(&report)
        .arg("--json")
        .arg(&summary)
        .assert()
        .code(1);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(s["valid"], 1, "{s}");
    assert_eq!(s["failures"]["wrong_length"], 2, "{s}");
    // Only the well-formed puzzle without a solution (tdoku's `puzzle:0`) is skipped.
    assert_eq!(s["skipped"], 1, "{s}");
    let report = std::fs::read_to_string(&report).unwrap();
    assert!(
        report.contains("2,wrong_length,\"puzzle: expected 81 cells, found 80\""),
        "{report}"
    );
    assert!(
        report.contains("found 162 (a puzzle and its solution run together?"),
        "{report}"
    );
}

#[test]
fn verify_column_errors_stay_short_however_long_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let (p, s) = &kaggle_pairs(1)[0];
    let columns = |n: usize| {
        (0..n)
            .map(|i| format!("c{i}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let long_name = "x".repeat(60_000);
    let cases: Vec<(String, Vec<&str>)> = vec![
        // 100,000 columns: 689 KB of header.
        (format!("{},puzzle\n1,{p}\n", columns(100_000)), vec![]),
        // 8,000 columns, under the record cap: no solution column.
        (format!("puzzle,{}\n{p}\n", columns(8_000)), vec![]),
        // A column named by a 60 KB name, as puzzle and solution both.
        (
            format!("{long_name},b\n{p},{s}\n"),
            vec!["--format", "csv", "--column", "1", "--solution-column", "1"],
        ),
        // No such column, asked for by a long name.
        (
            format!("puzzle,solution\n{p},{s}\n"),
            vec!["--column", &long_name],
        ),
    ];
    for (i, (text, args)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("wide{i}.csv"));
        std::fs::write(&path, text).unwrap();
        let output = bin().arg("verify").arg(&path).args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "case {i}");
        assert!(
            output.stderr.len() < 1000,
            "case {i}: {} bytes: {}",
            output.stderr.len(),
            String::from_utf8_lossy(&output.stderr[..output.stderr.len().min(300)])
        );
    }
    // A row too short to reach a long-named column: its reason is short too.
    let path = dir.path().join("short-rows.csv");
    std::fs::write(&path, format!("puzzle,{long_name}\n{p}\n")).unwrap();
    let report = dir.path().join("report.csv");
    bin()
        .arg("verify")
        .arg(&path)
        .args(["--format", "csv", "--solution-column", "2", "--report"])
        .arg(&report)
        .assert()
        .code(1);
    let report = std::fs::read_to_string(&report).unwrap();
    assert!(report.len() < 1000, "{} bytes", report.len());
}

/// `sudoku-batch ARGS` in `dir`: (exit code, stdout, stderr).
fn run_in(dir: &Path, args: &[&std::ffi::OsStr]) -> (Option<i32>, Vec<u8>, String) {
    let out = bin().current_dir(dir).args(args).output().unwrap();
    (
        out.status.code(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn os(args: &[&str]) -> Vec<std::ffi::OsString> {
    args.iter().map(std::ffi::OsString::from).collect()
}

#[test]
fn a_header_naming_the_puzzle_column_twice_is_refused_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let (p, s) = kaggle_pairs(1).remove(0);
    std::fs::write(
        dir.path().join("twice.csv"),
        format!("id,puzzle,Puzzle\n1,{s},{p}\n"),
    )
    .unwrap();
    for command in ["solve", "verify"] {
        let args = os(&[command, "-q", "twice.csv", "--unique"]);
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        let (code, _, err) = run_in(dir.path(), &args);
        assert_eq!(code, Some(2), "{command}: {err}");
        assert!(err.contains("twice.csv"), "{err}");
        assert!(err.contains("column 2 and column 3"), "{err}");
    }
    // Named by number, it is read.
    let args = os(&["solve", "-q", "twice.csv", "--column", "3"]);
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let (code, out, err) = run_in(dir.path(), &args);
    assert_eq!(code, Some(0), "{err}");
    assert!(String::from_utf8_lossy(&out).contains(&p));
    // A number is a position even where the header names a column so: the column named "1"
    // twice is chosen by number as the message says, and "1" is not the column named "1".
    let (q, _) = kaggle_pairs(2).remove(1);
    std::fs::write(dir.path().join("ones.csv"), format!("1,1\n{p},{q}\n")).unwrap();
    std::fs::write(dir.path().join("named.csv"), format!("2,1\n{p},{q}\n")).unwrap();
    for (file, number, wanted) in [("ones.csv", "2", &q), ("named.csv", "1", &p)] {
        let args = os(&[
            "solve",
            "-q",
            file,
            "--column",
            number,
            "--columns",
            "puzzle",
        ]);
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        let (code, out, err) = run_in(dir.path(), &args);
        assert_eq!(code, Some(0), "{file}: {err}");
        assert_eq!(
            String::from_utf8_lossy(&out),
            format!("puzzle\n{wanted}\n"),
            "{file}"
        );
    }
}

/// `#` comment lines and blank lines above a CSV header are skipped, as the layout detection
/// skips them, and the rows keep their input lines.
#[test]
fn comments_above_a_csv_header_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = kaggle_pairs(2);
    std::fs::write(
        dir.path().join("commented.csv"),
        format!(
            "# made by hand\n\n# puzzle,solution below\npuzzle,solution\n{},{}\n{},\n",
            pairs[0].0, pairs[0].1, pairs[1].0
        ),
    )
    .unwrap();
    for command in ["solve", "rate"] {
        let args = os(&[command, "-q", "commented.csv", "--columns", "line,puzzle"]);
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        let (code, out, err) = run_in(dir.path(), &args);
        assert_eq!(code, Some(0), "{command}: {err}");
        assert_eq!(
            String::from_utf8_lossy(&out),
            format!("line,puzzle\n5,{}\n6,{}\n", pairs[0].0, pairs[1].0),
            "{command}"
        );
    }
    let args = os(&["verify", "commented.csv"]);
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let (code, out, err) = run_in(dir.path(), &args);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        String::from_utf8_lossy(&out).contains("valid                  1"),
        "{err}"
    );
}

#[test]
fn column_with_an_input_that_is_not_csv_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let lines: String = kaggle_pairs(3).into_iter().map(|(p, _)| p + "\n").collect();
    std::fs::write(dir.path().join("lines.txt"), lines).unwrap();
    for args in [
        &["solve", "-q", "lines.txt", "--column", "puzzle"][..],
        &["verify", "-q", "--unique", "lines.txt", "--column", "1"],
        &[
            "solve",
            "-q",
            "--format",
            "lines",
            "lines.txt",
            "--column",
            "1",
        ],
    ] {
        let args = os(args);
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        let (code, _, err) = run_in(dir.path(), &args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(
            err.contains("lines.txt") && err.contains("--column"),
            "{err}"
        );
        assert!(err.contains("not CSV"), "{err}");
    }
}

#[cfg(unix)]
#[test]
fn file_names_that_are_not_utf8_stay_distinct_and_resume() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The third is UTF-8 that reads like the first's escape: it is escaped too.
    let names = [
        std::ffi::OsStr::from_bytes(b"a\xff.txt"),
        std::ffi::OsStr::from_bytes(b"a\xfe.txt"),
        std::ffi::OsStr::from_bytes(br"a\xFF.txt"),
    ];
    let pairs = kaggle_pairs(60);
    for (i, name) in names.iter().enumerate() {
        let text: String = pairs[i * 20..i * 20 + 20]
            .iter()
            .map(|(p, _)| format!("{p}\n"))
            .collect();
        std::fs::write(d.join(name), text).unwrap();
    }
    let solve: Vec<&std::ffi::OsStr> = ["solve", "-q", "-o", "out.csv"]
        .iter()
        .map(std::ffi::OsStr::new)
        .chain(names)
        .collect();
    let (code, _, err) = run_in(d, &solve);
    assert_eq!(code, Some(0), "{err}");
    let finished = std::fs::read_to_string(d.join("out.csv")).unwrap();
    let files: std::collections::BTreeSet<&str> = finished
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').next().unwrap())
        .collect();
    assert_eq!(
        files.into_iter().collect::<Vec<_>>(),
        [r"a\\xFF.txt", r"a\xFE.txt", r"a\xFF.txt"]
    );
    let sidecar = std::fs::read_to_string(d.join("out.csv.run.json")).unwrap();
    assert!(
        sidecar.contains("\"name_hex\": \"61ff2e747874\""),
        "{sidecar}"
    );
    assert!(sidecar.contains(r#""name": "a\\xFF.txt""#), "{sidecar}");
    // Cut to 25 rows as an interrupted run would leave it: --resume matches the names.
    let kept: String = finished
        .lines()
        .take(26)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(d.join("out.csv.partial"), kept).unwrap();
    std::fs::remove_file(d.join("out.csv")).unwrap();
    let resume: Vec<&std::ffi::OsStr> = solve
        .iter()
        .copied()
        .chain([std::ffi::OsStr::new("--resume")])
        .collect();
    let (code, _, err) = run_in(d, &resume);
    assert_eq!(code, Some(0), "{err}");
    let strip = |text: &str| -> Vec<String> {
        text.lines()
            .map(|l| {
                let mut f: Vec<&str> = l.split(',').collect();
                f.remove(6);
                f.join(",")
            })
            .collect()
    };
    let resumed = std::fs::read_to_string(d.join("out.csv")).unwrap();
    assert_eq!(strip(&resumed), strip(&finished));
}

#[test]
fn an_input_that_shrinks_during_a_run_ends_it_with_exit_2_and_a_partial_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = crate::support::repeated_puzzles(dir.path(), 300, "big.txt");
    let size = std::fs::metadata(&input).unwrap().len();
    let out = dir.path().join("out.csv");
    let mut child = crate::support::spawn_solve(&input, &out, &["-j", "1"]);
    crate::support::wait_for_growth(&mut child, &dir.path().join("out.csv.partial"), 300_000);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&input)
        .unwrap()
        .set_len(1284)
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let message = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(
        message.contains("big.txt") && message.contains("shrank"),
        "{message}"
    );
    assert!(
        message.contains(&format!("{size} bytes when the run opened it")),
        "{message}"
    );
    assert!(message.contains("1284 bytes now"), "{message}");
    assert!(
        !out.exists(),
        "a cut-off run's output was renamed as complete"
    );
    assert!(dir.path().join("out.csv.partial").exists());
}

/// A file rewritten in place with more bytes than it had (`cp` over it, or a write from its
/// first byte) is no file that only grew: the bytes read are not those on disk at the end, so
/// the run ends with exit 2, named or given on standard input, and the output stays partial.
/// Standard input on a regular file that shrinks ends the run the same way.
#[test]
fn an_input_rewritten_or_cut_during_a_run_ends_it_with_exit_2() {
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let other: String = kaggle_pairs(1000)
        .into_iter()
        .rev()
        .map(|(p, _)| p + "\n")
        .collect::<String>()
        .repeat(400);
    // A byte changed in place and the modification time put back (as `touch -r` or `rsync
    // --inplace -t` may): the status change time tells, and then the content.
    let cases = [
        ("rewritten", false),
        ("rewritten", true),
        ("shrank", true),
        ("same size", false),
    ];
    // Standard input on a file is looked at again only where its descriptor can be.
    for (case, on_stdin) in cases.into_iter().filter(|&(_, s)| cfg!(unix) || !s) {
        let input = crate::support::repeated_puzzles(dir.path(), 300, "big.txt");
        let size = std::fs::metadata(&input).unwrap().len();
        let out = dir.path().join("out.csv");
        let partial = dir.path().join("out.csv.partial");
        let _ = std::fs::remove_file(&partial);
        let mut command = Command::new(crate::support::bin_path());
        command.args(["solve", "-q", "-j", "1", "-o"]).arg(&out);
        if on_stdin {
            command.arg("-").stdin(std::fs::File::open(&input).unwrap());
        } else {
            command.arg(&input).stdin(Stdio::null());
        }
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        crate::support::wait_for_growth(&mut child, &partial, 300_000);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(&input)
            .unwrap();
        let modified = file.metadata().unwrap().modified().unwrap();
        match case {
            "rewritten" => file.write_all(other.as_bytes()).unwrap(),
            "shrank" => file.set_len(1284).unwrap(),
            _ => {
                use std::io::{Seek, SeekFrom};
                let old = std::fs::read(&input).unwrap()[100];
                file.seek(SeekFrom::Start(100)).unwrap();
                file.write_all(&[if old == b'9' { b'8' } else { b'9' }])
                    .unwrap();
                file.set_modified(modified).unwrap();
            }
        }
        drop(file);
        let output = child.wait_with_output().unwrap();
        let message = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{case} {on_stdin}: {message}"
        );
        assert!(message.contains(case), "{message}");
        let sizes = match case {
            "same size" => format!("same size, {size} bytes, other content"),
            _ => format!("{size} bytes when the run opened it"),
        };
        assert!(message.contains(&sizes), "{message}");
        assert!(!out.exists(), "{case} {on_stdin}: renamed as complete");
        assert!(partial.exists());
    }
}

#[test]
fn an_input_that_grows_during_a_run_is_read_as_it_was_when_opened() {
    let dir = tempfile::tempdir().unwrap();
    let input = crate::support::repeated_puzzles(dir.path(), 100, "grows.txt");
    let size = std::fs::metadata(&input).unwrap().len();
    let out = dir.path().join("out.csv");
    let mut child = crate::support::spawn_solve(&input, &out, &["-j", "1"]);
    crate::support::wait_for_growth(&mut child, &dir.path().join("out.csv.partial"), 100_000);
    let extra: String = kaggle_pairs(10)
        .into_iter()
        .map(|(p, _)| p + "\n")
        .collect();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&input)
        .unwrap()
        .write_all(extra.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let message = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{message}");
    let rows = std::fs::read_to_string(&out).unwrap().lines().count() - 1;
    assert_eq!(
        rows, 100_000,
        "the rows are those of the file as it was opened"
    );
    let sidecar: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out.csv.run.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        sidecar["inputs"][0]["size"].as_u64(),
        Some(size),
        "{sidecar}"
    );
    assert_eq!(sidecar["finished"]["input_records"].as_u64(), Some(100_000));
}

/// A stray quote in one CSV row (a quoted field that never closes) costs that row only:
/// `solve` and `rate` report it as `invalid` at its line, and every other row is there, in order,
/// also when a later row quotes a field (whose opening quote would "close" the stray one).
#[test]
fn an_unclosed_quote_costs_one_csv_row() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = kaggle_pairs(300);
    let mut text = String::from("puzzle,solution,note\n");
    for (i, (p, s)) in pairs.iter().enumerate() {
        let quote = if i == 2 { "\"" } else { "" };
        let note = if i == 5 { "\"a, b\"" } else { "c" };
        text += &format!("{p},{quote}{s},{note}\n");
    }
    let file = dir.path().join("quote.csv");
    std::fs::write(&file, &text).unwrap();
    for command in ["solve", "rate"] {
        let output = bin()
            .args([command, "-q", "-j", "2"])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{command}");
        let mut reader = csv::Reader::from_reader(output.stdout.as_slice());
        let header = reader.headers().unwrap().clone();
        let at = |name: &str| header.iter().position(|h| h == name).unwrap();
        let (line, status, message) = (at("line"), at("status"), at("message"));
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), pairs.len(), "{command}");
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row[line], (i + 2).to_string(), "{command}: {row:?}");
            let bad = row[message].starts_with("unclosed quote");
            assert_eq!(
                (&row[status] == "invalid", bad),
                (i == 2, i == 2),
                "{command}: {row:?}"
            );
        }
    }
}

#[test]
fn a_column_number_out_of_range_and_a_binary_header_are_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let (p, s) = kaggle_pairs(1).remove(0);
    let csv = dir.path().join("k.csv");
    std::fs::write(&csv, format!("puzzle,solution\n{p},{s}\n")).unwrap();
    for n in ["0", "3"] {
        bin()
            .args(["solve", "-q", "--column", n])
            .arg(&csv)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(format!(
                "no column {n}: the CSV header (puzzle,solution) has 2 column(s), numbered from 1"
            )));
    }
    // A zero timeout would stop every puzzle (every pass) at once: refused.
    bin()
        .args(["rate", "-q", "--timeout-ms", "0"])
        .arg(&csv)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--timeout-ms"));
    bin()
        .args(["bench", "--external-timeout", "0", "--external", "x=cat"])
        .arg(&csv)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("below the least timeout"));
    // Bytes no text has, with a comma on the first line so that it is read as CSV.
    let binary = dir.path().join("g.bin");
    let mut bytes = b"\x8f\x01\xfe,\xc3\x28\x00\x9a".to_vec();
    bytes.extend_from_slice(format!("\n{p}\n").as_bytes());
    std::fs::write(&binary, bytes).unwrap();
    bin()
        .args(["rate", "-q"])
        .arg(&binary)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "no puzzle column: the first line is not text (a binary file?)",
        ));
}
