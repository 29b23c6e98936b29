//! Stopping: SIGINT (Ctrl-C), SIGTERM, SIGHUP, SIGUSR1 and SIGXCPU stop a run alike (rows flushed in order, a
//! message, the summary, a resumable `.partial` unless written `--no-header`, exit 128 + the
//! signal), a stop lands within a slow puzzle, and `--max-guesses` bounds what one puzzle may
//! cost (`gave_up`, kept or retried on resume).

use std::io::Write;
use std::process::{Command as StdCommand, Output, Stdio};
use std::time::{Duration, Instant};

#[cfg(unix)]
use crate::support::mkfifo;
use crate::support::{
    bin, bin_path, data, repeated_puzzles, spawn_solve, wait_for_growth, wait_within, SLOW,
};

/// The rows of a result CSV without `solve_ns`.
fn rows_without_time(csv_text: &[u8]) -> Vec<Vec<String>> {
    let mut reader = csv::Reader::from_reader(csv_text);
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let solve_ns = header.iter().position(|h| h == "solve_ns").unwrap();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (0..r.len())
                .filter(|&i| i != solve_ns)
                .map(|i| r[i].to_string())
                .collect()
        })
        .collect()
}

/// Runs the binary with `args` (and, given `feed`, a stdin pipe that gets those bytes and stays
/// open), sends `signals` after `after`, 50 ms apart, and gives its output once it has ended
/// (failing the test if it has not within 5 s) with its stderr as text.
fn stopped_after(
    args: &[&std::ffi::OsStr],
    feed: Option<&[u8]>,
    after: Duration,
    signals: &[&str],
) -> (Output, String) {
    let mut child = StdCommand::new(bin_path())
        .args(args)
        .stdin(if feed.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut writer = child.stdin.take();
    if let (Some(writer), Some(feed)) = (writer.as_mut(), feed) {
        writer.write_all(feed).unwrap();
        writer.flush().unwrap();
    }
    std::thread::sleep(after);
    for (k, signal) in signals.iter().enumerate() {
        if k > 0 {
            std::thread::sleep(Duration::from_millis(50));
        }
        kill(signal, child.id());
    }
    let output = wait_within(child, Duration::from_secs(5));
    drop(writer);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output, stderr)
}

fn kill(signal: &str, pid: u32) {
    let status = StdCommand::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn sigint_sigterm_and_sighup_flush_print_the_summary_and_resume() {
    let dir = tempfile::tempdir().unwrap();
    let input = repeated_puzzles(dir.path(), 100, "big.txt");
    let whole = bin()
        .args(["solve", "-q"])
        .arg(&input)
        .output()
        .unwrap()
        .stdout;
    for (signal, name, code) in [
        ("INT", "interrupt", 130),
        ("TERM", "SIGTERM", 143),
        ("HUP", "SIGHUP", 129),
        // What Slurm's --signal sends ahead of a time limit, and a soft CPU-time limit
        // (Linux's numbers).
        ("USR1", "SIGUSR1", 138),
        ("XCPU", "SIGXCPU", 152),
    ] {
        let out = dir.path().join(format!("{signal}.csv"));
        let partial = dir.path().join(format!("{signal}.csv.partial"));
        let json = dir.path().join(format!("{signal}.json"));
        let summary = json.to_str().unwrap();
        let mut child = spawn_solve(&input, &out, &["-j", "2", "--summary", summary]);
        wait_for_growth(&mut child, &partial, 300_000);
        kill(signal, child.id());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{stderr}");
        assert!(stderr.contains(&format!("{name}: stopping")), "{stderr}");
        assert!(
            stderr.contains("interrupted: the rows so far are in"),
            "{stderr}"
        );
        assert!(stderr.contains("puzzles: "), "summary printed: {stderr}");
        let read_json = || -> serde_json::Value {
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
        };
        assert_eq!(read_json()["interrupted"], true, "{name}: the JSON says so");
        assert!(!out.exists());
        let written = std::fs::read(&partial).unwrap();
        assert_eq!(written.last(), Some(&b'\n'), "{name}: flushed whole rows");
        let rows = rows_without_time(&written);
        assert!(!rows.is_empty() && rows.len() < 100_000, "{}", rows.len());
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row[0], i.to_string(), "{name}: rows in order, none lost");
        }
        bin()
            .args(["solve", "-q", "--resume", "--summary", summary, "-o"])
            .arg(&out)
            .arg(&input)
            .assert()
            .code(0);
        assert!(read_json().get("interrupted").is_none(), "finished: no key");
        assert_eq!(
            rows_without_time(&std::fs::read(&out).unwrap()),
            rows_without_time(&whole),
            "{name}: the resumed run equals one run"
        );
    }
}

/// A stopped `--no-header` run keeps its rows but does not offer `--resume`, which reads rows
/// by their header.
#[test]
fn a_stopped_run_without_a_header_does_not_offer_resume() {
    let dir = tempfile::tempdir().unwrap();
    let input = repeated_puzzles(dir.path(), 300, "big.txt");
    let out = dir.path().join("nh.csv");
    let partial = dir.path().join("nh.csv.partial");
    let mut child = spawn_solve(&input, &out, &["-j", "2", "--no-header"]);
    wait_for_growth(&mut child, &partial, 300_000);
    kill("INT", child.id());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted: the rows so far are in"),
        "{stderr}"
    );
    assert!(stderr.contains("--resume cannot continue them"), "{stderr}");
    assert!(!stderr.contains("run again with --resume"), "{stderr}");
    let written = std::fs::read_to_string(&partial).unwrap();
    assert!(written.starts_with("0,"), "rows only: {}", &written[..40]);
}

#[test]
fn a_stop_lands_within_a_slow_puzzle_and_says_so_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("slow.txt");
    std::fs::write(&input, format!("{SLOW}\n{SLOW}\n")).unwrap();
    let out = dir.path().join("out.csv");
    // `backtrack` spends about 30 s (release) on each of these: far past any stop.
    let child = spawn_solve(&input, &out, &["-j", "1", "--solver", "backtrack"]);
    std::thread::sleep(Duration::from_millis(500));
    let stopped = Instant::now();
    kill("INT", child.id());
    let output = child.wait_with_output().unwrap();
    let took = stopped.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(took < Duration::from_secs(10), "{took:?}: {stderr}");
    assert!(stderr.contains("interrupt: stopping"), "{stderr}");
    // The puzzle stopped mid-search is not a row, and it was the first: nothing is written.
    assert!(
        stderr.contains("before the first row: nothing was written"),
        "{stderr}"
    );
    assert!(!dir.path().join("out.csv.partial").exists());
    assert!(!dir.path().join("out.csv.run.json").exists());
}

#[test]
fn max_guesses_gives_up_counts_and_resume_keeps_or_retries() {
    let dir = tempfile::tempdir().unwrap();
    let input = data("norvig_top95.txt");
    let out = dir.path().join("out.csv");
    let summary = dir.path().join("out.json");
    let run = bin()
        .args(["solve", "-j", "2", "--max-guesses", "2", "-o"])
        .arg(&out)
        .arg("--summary")
        .arg(&summary)
        .arg(&input)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    let rows = rows_without_time(&std::fs::read(&out).unwrap());
    // index,line,puzzle,solution,status,guesses,message,file
    let gave_up: Vec<&Vec<String>> = rows.iter().filter(|r| r[4] == "gave_up").collect();
    assert!(!gave_up.is_empty() && gave_up.len() < rows.len());
    for row in &gave_up {
        assert_eq!(row[3], "", "no solution for a puzzle given up on");
        assert_eq!(row[5], "3");
        assert_eq!(row[6], "gave up after 3 guesses");
    }
    for row in rows.iter().filter(|r| r[4] != "gave_up") {
        assert_eq!(row[4], "solved");
        assert!(row[5].parse::<u64>().unwrap() <= 2);
    }
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    assert_eq!(json["gave_up"], gave_up.len());
    assert_eq!(json["unsolvable"], 0);
    assert!(
        stderr.contains(&format!("gave up {}", gave_up.len())),
        "{stderr}"
    );

    // --resume keeps the rows that gave up...
    bin()
        .args(["solve", "-q", "--resume", "--max-guesses", "2", "-o"])
        .arg(&out)
        .arg(&input)
        .assert()
        .code(1);
    assert_eq!(rows_without_time(&std::fs::read(&out).unwrap()), rows);
    // Another limit would mix two runs' rows: refused, and so is a tighter one even when
    // the rows that gave up are retried (a kept row may have needed more).
    for extra in [
        &["--max-guesses", "5"][..],
        &["--retry-gave-up", "--max-guesses", "1"],
    ] {
        bin()
            .args(["solve", "-q", "--resume", "-o"])
            .arg(&out)
            .arg(&input)
            .args(extra)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(
                "the earlier run ran with --max-guesses 2, this one with --max-guesses",
            ));
        assert_eq!(rows_without_time(&std::fs::read(&out).unwrap()), rows);
    }
    // ...unless told to retry them, here with no bound: every puzzle is solved.
    bin()
        .args(["solve", "-q", "--resume", "--retry-gave-up", "-o"])
        .arg(&out)
        .arg(&input)
        .assert()
        .code(0);
    let whole = bin()
        .args(["solve", "-q"])
        .arg(&input)
        .output()
        .unwrap()
        .stdout;
    assert_eq!(
        rows_without_time(&std::fs::read(&out).unwrap()),
        rows_without_time(&whole)
    );
    // --retry-gave-up is only for --resume.
    bin()
        .args(["solve", "-q", "--retry-gave-up"])
        .arg(&input)
        .assert()
        .code(2);
}

/// A bench whose check pass gave up on puzzles measures a bounded run: the row says how many,
/// and the exit status is 1, as for `solve`.
#[test]
fn bench_counts_puzzles_given_up_on() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bench.json");
    bin()
        .args([
            "bench",
            "-q",
            "--solvers",
            "bands",
            "-j",
            "1",
            "--warmup",
            "0",
            "--min-time",
        ])
        .args([
            "0",
            "--runs",
            "1",
            "--no-permute",
            "--max-guesses",
            "2",
            "--summary",
        ])
        .arg(&json)
        .arg(data("norvig_top95.txt"))
        .assert()
        .code(1);
    let text = std::fs::read_to_string(&json).unwrap();
    assert!(
        text.contains("gave up (--max-guesses 2) (lines ")
            && text.contains("\"status\": \"gave_up\""),
        "{text}"
    );
}

#[test]
fn verify_unique_fails_a_proof_that_reaches_max_guesses() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("v.json");
    let run = bin()
        .args(["verify", "--unique", "--max-guesses", "0", "--summary"])
        .arg(&json)
        .arg(data("norvig_top95.txt"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("gave up"), "{stdout}");
    assert!(
        stdout.contains("gave_up: gave up proving uniqueness after 1 guesses"),
        "{stdout}"
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let gave_up = summary["failures"]["gave_up"].as_u64().unwrap();
    assert!(gave_up > 0 && gave_up < 95, "{summary}");
    assert_eq!(summary["failures"]["not_unique"], 0);
    // Without the bound every proof finishes.
    bin()
        .args(["verify", "-q", "--unique"])
        .arg(data("norvig_top95.txt"))
        .assert()
        .code(0);
}

#[test]
fn generate_with_max_guesses_stays_unique_and_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    let make = |threads: &str| {
        let out = bin()
            .args([
                "generate",
                "-n",
                "40",
                "--seed",
                "7",
                "--max-guesses",
                "0",
                "-q",
                "-j",
            ])
            .arg(threads)
            .output()
            .unwrap();
        assert!(out.status.success());
        out.stdout
    };
    let one = make("1");
    assert_eq!(one, make("2"), "the thread count changes nothing");
    let path = dir.path().join("gen.txt");
    std::fs::write(&path, &one).unwrap();
    assert_eq!(String::from_utf8_lossy(&one).lines().count(), 40);
    bin()
        .args(["verify", "-q", "--unique"])
        .arg(&path)
        .assert()
        .code(0);
}

/// A line without an end (`/dev/zero`) is skipped as an overlong record; a stop request cuts the
/// skip short, so the first Ctrl-C stops `solve` and `rate` like any other run.
#[test]
#[cfg(target_os = "linux")]
fn a_stop_ends_the_skipping_of_an_endless_line() {
    let dir = tempfile::tempdir().unwrap();
    for command in ["solve", "rate"] {
        let out = dir.path().join(format!("{command}.csv"));
        let args = [
            command.as_ref(),
            "/dev/zero".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ];
        let (output, stderr) = stopped_after(&args, None, Duration::from_millis(500), &["INT"]);
        assert_eq!(output.status.code(), Some(130), "{command}: {stderr}");
    }
}

/// The same for a CSV record with no end, from a pipe: the run stops at the first signal,
/// in bounded memory, and its partial output holds the whole records before it only. The
/// signal comes after 3 s, so that a loaded machine has read those records by then.
#[test]
#[cfg(target_os = "linux")]
fn a_stop_ends_the_skipping_of_an_endless_csv_record() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.csv");
    let top95 = data("norvig_top95.txt");
    let started = Instant::now();
    let status = StdCommand::new("bash")
        .arg("-c")
        .arg(
            r#"(printf 'puzzle\n'; head -3 "$1"; cat /dev/zero) |
               timeout --preserve-status -k 10 -s INT 3 "$2" solve --format csv - -q -o "$3""#,
        )
        .arg("bash")
        .arg(&top95)
        .arg(bin_path())
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&status.stderr);
    assert_eq!(status.status.code(), Some(130), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(8));
    let partial = std::fs::read_to_string(dir.path().join("out.csv.partial")).unwrap();
    let lines: Vec<&str> = partial.lines().collect();
    assert_eq!(
        lines.len(),
        4,
        "the header and three whole records: {partial}"
    );
    assert!(
        lines[1..].iter().all(|l| l.contains(",solved,")),
        "{partial}"
    );
}

/// A stopped run whose `-o` is a device wrote its rows there as they came: the note says so
/// and offers no `.partial` to resume.
#[test]
#[cfg(unix)]
fn a_stopped_run_into_a_device_names_no_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    // The hardest puzzles, so that the run is far from done when it is stopped.
    let hard = std::fs::read_to_string(data("norvig_sudokus_hard_375.txt")).unwrap();
    let input = dir.path().join("hard.txt");
    std::fs::write(&input, hard.repeat(300)).unwrap();
    let child = spawn_solve(&input, std::path::Path::new("/dev/null"), &["-j", "2"]);
    std::thread::sleep(Duration::from_millis(400));
    kill("INT", child.id());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("the rows so far went to /dev/null (not a regular file"),
        "{stderr}"
    );
    assert!(!stderr.contains(".partial"), "{stderr}");
}

/// A signal sent to the run alone (a scheduler's, `kill`) while it waits on a pipe whose writer
/// sends nothing more: the run stops at once, without the line it was in the middle of and
/// without reading the next input, in every layout and for `solve` and `rate` alike (the rows
/// written are the whole puzzles before it, in order).
#[test]
#[cfg(unix)]
fn a_stop_ends_the_wait_on_a_silent_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let puzzles: Vec<String> = std::fs::read_to_string(data("norvig_top95.txt"))
        .unwrap()
        .lines()
        .take(3)
        .map(String::from)
        .collect();
    let grid = |p: &str| -> String {
        p.as_bytes()
            .chunks(9)
            .map(|row| format!("{}\n", String::from_utf8_lossy(row)))
            .collect()
    };
    let lines = format!(
        "{}\n{}\n{}\n{}",
        puzzles[0],
        puzzles[1],
        puzzles[2],
        &puzzles[0][..30]
    );
    let csv = format!("puzzle\n{lines}");
    let grids = format!(
        "{}\n{}\n{}\n{}",
        grid(&puzzles[0]),
        grid(&puzzles[1]),
        grid(&puzzles[2]),
        &grid(&puzzles[0])[..40]
    );
    for (command, format, text) in [
        ("solve", "lines", &lines),
        ("solve", "csv", &csv),
        ("solve", "grid", &grids),
        ("rate", "lines", &lines),
    ] {
        let case = format!("{command} --format {format}");
        let out = dir.path().join(format!("{command}-{format}.csv"));
        // A second input of the same layout, never reached: the stop comes first.
        let next = dir.path().join(format!("next-{format}.txt"));
        let whole = match format {
            "csv" => format!("puzzle\n{}\n", puzzles[0]),
            "grid" => grid(&puzzles[0]),
            _ => format!("{}\n", puzzles[0]),
        };
        std::fs::write(&next, whole).unwrap();
        let args = [
            command.as_ref(),
            "--format".as_ref(),
            format.as_ref(),
            "-q".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
            "-".as_ref(),
            next.as_os_str(),
        ];
        // The pipe stays open: the run waits for the rest of the fourth puzzle.
        let (output, stderr) = stopped_after(
            &args,
            Some(text.as_bytes()),
            Duration::from_millis(1500),
            &["TERM"],
        );
        assert_eq!(output.status.code(), Some(143), "{case}: {stderr}");
        let partial = dir.path().join(format!("{command}-{format}.csv.partial"));
        if command == "rate" && !partial.exists() {
            // Stopped before its first rating: nothing is written.
            assert!(stderr.contains("nothing was written"), "{case}: {stderr}");
            continue;
        }
        let written = std::fs::read_to_string(&partial).unwrap();
        let rows: Vec<&str> = written.lines().skip(1).collect();
        // `solve` finishes the chunk in hand; `rate` rates no further puzzle once stopped.
        let whole = if command == "solve" { 3..=3 } else { 1..=3 };
        assert!(
            whole.contains(&rows.len()),
            "{case}: the three whole puzzles at most: {written}"
        );
        for (row, puzzle) in rows.iter().zip(&puzzles) {
            assert!(row.contains(puzzle.as_str()), "{case}: {row}");
            assert!(row.ends_with(",-"), "{case}: from stdin: {row}");
        }
    }
}

/// SIGHUP ignored when the run starts (`nohup`) stays ignored; SIGINT ignored at start (a
/// shell script's background job) still stops the run, as the scripts' `kill -INT` expects.
#[test]
#[cfg(unix)]
fn sighup_ignored_at_start_stays_ignored() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let input = repeated_puzzles(dir.path(), 300, "big.txt");
    let out = dir.path().join("out.csv");
    let mut command = StdCommand::new(bin_path());
    command
        .args(["solve", "-q", "-j", "1", "--solver", "naive", "-o"])
        .arg(&out)
        .arg(&input)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGHUP, libc::SIG_IGN);
            libc::signal(libc::SIGINT, libc::SIG_IGN);
            Ok(())
        });
    }
    let mut child = command.spawn().unwrap();
    wait_for_growth(&mut child, &dir.path().join("out.csv.partial"), 1);
    kill("HUP", child.id());
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "stopped by an ignored SIGHUP"
    );
    kill("INT", child.id());
    let output = wait_within(child, Duration::from_secs(5));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        !stderr.contains("SIGHUP") && stderr.contains("interrupt:"),
        "{stderr}"
    );
}

/// `generate`, `verify` and `merge` stop on a signal too, each exiting 128 + the signal:
/// `generate` keeps the puzzles made so far in `FILE.partial` (the first ones of the run: the
/// same seed makes them again), `verify` gives the verdict on the rows checked so far and says so
/// (`"interrupted": true` in its JSON), and `merge` puts no file in place.
#[test]
#[cfg(unix)]
fn generate_verify_and_merge_stop_on_a_signal() {
    let dir = tempfile::tempdir().unwrap();
    let spawn = |args: &[&str]| {
        StdCommand::new(bin_path())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    // Runs `args`, sends SIGTERM once `file` holds `bytes`, and gives the stderr of a run that
    // exited 143.
    let stopped = |args: &[&str], file: &str, bytes: u64| -> String {
        let mut child = spawn(args);
        wait_for_growth(&mut child, std::path::Path::new(&path(file)), bytes);
        kill("TERM", child.id());
        let output = wait_within(child, Duration::from_secs(5));
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(143), "{args:?}: {stderr}");
        stderr
    };

    // An earlier run's finished file, which the stopped run must not leave beside its own.
    bin()
        .args([
            "generate",
            "-q",
            "-n",
            "3",
            "--seed",
            "1",
            "-o",
            &path("g.txt"),
        ])
        .assert()
        .success();
    let stderr = stopped(
        &[
            "generate",
            "-n",
            "100000000",
            "--seed",
            "5",
            "-o",
            &path("g.txt"),
        ],
        "g.txt.partial",
        8_200,
    );
    assert!(stderr.contains("g.txt.partial holds the first"), "{stderr}");
    assert!(!std::path::Path::new(&path("g.txt")).exists());
    let made = std::fs::read_to_string(path("g.txt.partial")).unwrap();
    let count = made.lines().count();
    assert!(count >= 100, "{count}");
    let again = bin()
        .args(["generate", "-q", "--seed", "5", "-n", &count.to_string()])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&again.stdout),
        made,
        "a prefix of the run"
    );

    // An ER range no candidate meets: the stop lands between two candidates of one puzzle,
    // before the first puzzle, so nothing is written and an earlier file stays.
    std::fs::write(path("hard.txt"), "earlier\n").unwrap();
    let stderr = stopped(
        &[
            "generate",
            "-n",
            "10",
            "--seed",
            "3",
            "--er",
            "9.5..11",
            "-o",
            &path("hard.txt"),
        ],
        "hard.txt.partial",
        0,
    );
    assert!(
        stderr.contains("interrupted before the first puzzle: nothing was written"),
        "{stderr}"
    );
    assert!(!std::path::Path::new(&path("hard.txt.partial")).exists());
    assert_eq!(
        std::fs::read_to_string(path("hard.txt")).unwrap(),
        "earlier\n"
    );
    // Stopped later, the summary counts the candidates drawn and rated for the puzzles the
    // stop cut short, not only those of kept puzzles (none here).
    let args = [
        "generate", "-n", "2", "-j", "1", "--seed", "3", "--er", "9.5..11", "-o",
    ]
    .map(std::ffi::OsStr::new);
    let hard = path("hard2.txt");
    let mut args = args.to_vec();
    args.push(hard.as_ref());
    let (output, stderr) = stopped_after(&args, None, Duration::from_millis(800), &["TERM"]);
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    let counted = |what: &str| -> u64 {
        let at = stderr
            .find(what)
            .unwrap_or_else(|| panic!("{what}: {stderr}"));
        let before = stderr[..at].trim_end();
        before[before.rfind(' ').unwrap() + 1..].parse().unwrap()
    };
    assert!(counted(" grids drawn") >= 10, "{stderr}");
    assert!(counted(" candidates rated") >= 10, "{stderr}");

    let solved = bin()
        .args(["solve", "-q"])
        .arg(data("norvig_top95.txt"))
        .output()
        .unwrap()
        .stdout;
    let json = path("v.json");
    let report = path("r.csv");
    // An earlier run's report, of other failures: gone once the stopped run has rows.
    std::fs::write(path("bad.txt"), "12345\n").unwrap();
    bin()
        .args(["verify", "-q", &path("bad.txt"), "--report", &report])
        .assert()
        .code(1);
    let args = ["verify", "-", "--json", &json, "--report", &report].map(std::ffi::OsStr::new);
    // The pipe stays open: the run waits for more rows.
    let (output, stderr) =
        stopped_after(&args, Some(&solved), Duration::from_millis(1500), &["TERM"]);
    assert_eq!(output.status.code(), Some(143), "verify: {stderr}");
    assert!(
        stderr.contains("interrupted: the verdict covers the 95 rows checked before the stop"),
        "{stderr}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path("v.json")).unwrap()).unwrap();
    assert_eq!(json["interrupted"], true);
    assert_eq!(json["valid"], 95);
    assert!(!std::path::Path::new(&report).exists(), "{stderr}");
    assert!(
        std::path::Path::new(&path("r.csv.partial")).exists(),
        "{stderr}"
    );

    let input = repeated_puzzles(dir.path(), 400, "big.txt");
    for k in ["1", "2"] {
        bin()
            .args(["solve", "-q", "--shard", &format!("{k}/2"), "-o"])
            .arg(path(&format!("s{k}.csv")))
            .arg(&input)
            .assert()
            .success();
    }
    let stderr = stopped(
        &[
            "merge",
            &path("s1.csv"),
            &path("s2.csv"),
            "-o",
            &path("m.csv"),
        ],
        "m.csv.partial",
        0,
    );
    assert!(
        stderr.contains("merge stopped by SIGTERM before the end: nothing was written to"),
        "{stderr}"
    );
    assert!(!std::path::Path::new(&path("m.csv")).exists());
    assert!(!std::path::Path::new(&path("m.csv.partial")).exists());
}

/// A stop lands inside the rating of one pathological puzzle (ER 11.6, most of a second of
/// nested forcing chains or more): the run ends at once and writes no row for it (nor anything
/// else: it is the only puzzle), so a run again rates it. The stop comes a third of the way into the rating as timed on this machine, so a
/// faster machine does not finish it first.
#[test]
fn a_stop_lands_within_a_slow_rating() {
    let dir = tempfile::tempdir().unwrap();
    let hard = std::fs::read_to_string(data("norvig_sudokus_hard_375.txt")).unwrap();
    let nugget = hard
        .lines()
        .find(|l| l.starts_with("1.......2.9.4...5...6...7...5.9.3"))
        .unwrap();
    let input = dir.path().join("nugget.txt");
    std::fs::write(&input, format!("{nugget}\n")).unwrap();
    let at = |name: &str| dir.path().join(name);
    let (out, summary) = (at("r.csv"), at("s.json"));
    let started = std::time::Instant::now();
    crate::support::bin()
        .args(["rate", "-q", "-j", "1", "-o"])
        .arg(&out)
        .arg("--summary")
        .arg(&summary)
        .arg(&input)
        .assert()
        .success();
    let rating = started.elapsed();
    let earlier = [&out, &summary, &at("r.csv.run.json")].map(|p| std::fs::read(p).unwrap());
    assert!(String::from_utf8_lossy(&earlier[0]).contains(",rated,"));
    let mut args: Vec<&std::ffi::OsStr> = ["rate", "-q", "-j", "1", "-o"]
        .iter()
        .map(|a| a.as_ref())
        .collect();
    args.extend([out.as_os_str(), "--summary".as_ref(), summary.as_os_str()]);
    args.push(input.as_os_str());
    let (output, stderr) = stopped_after(&args, None, rating / 3, &["TERM"]);
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    // Stopped before its first row: nothing written, the earlier run's files as they were.
    assert!(
        stderr.contains("before the first row: nothing was written"),
        "{stderr}"
    );
    assert!(!at("r.csv.partial").exists());
    let now = [&out, &summary, &at("r.csv.run.json")].map(|p| std::fs::read(p).unwrap());
    assert!(now == earlier, "the earlier run's files changed");
}

/// A stop lands inside `verify --unique`'s slow uniqueness proofs (the naive solver takes
/// seconds on this puzzle): the run ends at once, and the verdict counts no row it cut short.
#[test]
fn a_stop_lands_within_a_slow_uniqueness_proof() {
    let dir = tempfile::tempdir().unwrap();
    let hard = std::fs::read_to_string(data("norvig_sudokus_hard_375.txt")).unwrap();
    let slow = hard.lines().nth(17).unwrap();
    let input = dir.path().join("slow.txt");
    std::fs::write(&input, format!("{slow}\n").repeat(20)).unwrap();
    let json = dir.path().join("v.json");
    let mut args: Vec<&std::ffi::OsStr> = ["verify", "--unique", "--solver", "naive", "-j", "2"]
        .iter()
        .map(|a| a.as_ref())
        .collect();
    args.extend([input.as_os_str(), "--summary".as_ref(), json.as_os_str()]);
    let started = Instant::now();
    let (output, stderr) = stopped_after(&args, None, Duration::from_millis(700), &["INT"]);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(4), "{stderr}");
    assert!(!stderr.contains("gave up"), "{stderr}");
    // Stopped before any proof ended: nothing is written, as for any command.
    if stderr.contains("before the first row: nothing was written") {
        assert!(!json.exists());
        return;
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(json["interrupted"], true);
    // Every row counted was proven whole: valid, none given up.
    assert_eq!(json["rows"], json["valid"], "{json}");
}

/// One stop request often arrives twice within milliseconds (GNU `timeout` signals its child,
/// then its whole process group; a scheduler signals every process of a job): the copy is the
/// same request, not a second Ctrl-C that quits at once, so the rows are kept as after one.
#[test]
#[cfg(unix)]
fn a_signal_that_arrives_twice_at_once_is_one_stop() {
    let dir = tempfile::tempdir().unwrap();
    let lines: String = std::fs::read_to_string(data("norvig_top95.txt"))
        .unwrap()
        .lines()
        .take(3)
        .map(|l| format!("{l}\n"))
        .collect();
    let out = dir.path().join("out.csv");
    let args = [
        "solve".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
        "-".as_ref(),
    ];
    let (output, stderr) = stopped_after(
        &args,
        Some(lines.as_bytes()),
        Duration::from_millis(1500),
        &["INT", "INT"],
    );
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert_eq!(stderr.matches("stopping").count(), 1, "{stderr}");
    assert!(
        stderr.contains("interrupted"),
        "the run's own report: {stderr}"
    );
    let written = std::fs::read_to_string(dir.path().join("out.csv.partial")).unwrap();
    assert_eq!(
        written.lines().count(),
        4,
        "the header and three rows: {written}"
    );
}

/// A stop while the run still waits for a CSV header on a silent pipe ends it at once, saying
/// so, before any file is made.
#[test]
#[cfg(unix)]
fn a_stop_before_the_header_is_read_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.csv");
    for command in ["solve", "rate"] {
        let args = [
            command.as_ref(),
            "--format".as_ref(),
            "csv".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
            "-".as_ref(),
        ];
        let (output, stderr) =
            stopped_after(&args, Some(b""), Duration::from_millis(700), &["TERM"]);
        assert_eq!(output.status.code(), Some(143), "{command}: {stderr}");
        assert!(
            stderr.contains("stopped by SIGTERM before the input's header was read"),
            "{command}: {stderr}"
        );
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
    }
}

/// A FIFO that no writer has opened yet: the run waits for one as for bytes on a pipe, so a
/// stop request ends it (a plain `open` of the FIFO would block where no signal reaches it).
/// Stopped before any record, it writes nothing: an earlier run's finished output and its
/// sidecar stay as they were, and no `FILE.partial` is left.
#[test]
#[cfg(unix)]
fn a_stop_ends_the_wait_for_a_fifo_writer() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("in.fifo");
    mkfifo(&fifo);
    let out = dir.path().join("out.csv");
    let sidecar = dir.path().join("out.csv.run.json");
    for command in ["solve", "rate"] {
        bin()
            .args([command, "-q", "-o"])
            .arg(&out)
            .arg(data("norvig_easy50.txt"))
            .assert()
            .code(0);
        let (rows, run) = (
            std::fs::read(&out).unwrap(),
            std::fs::read(&sidecar).unwrap(),
        );
        let args = [
            command.as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
            fifo.as_os_str(),
        ];
        let (output, stderr) = stopped_after(&args, None, Duration::from_millis(700), &["TERM"]);
        assert_eq!(output.status.code(), Some(143), "{command}: {stderr}");
        assert!(
            stderr.contains("stopped by SIGTERM before the first row: nothing was written"),
            "{command}: {stderr}"
        );
        assert!(!dir.path().join("out.csv.partial").exists(), "{command}");
        assert_eq!(std::fs::read(&out).unwrap(), rows, "{command}");
        assert_eq!(std::fs::read(&sidecar).unwrap(), run, "{command}");
    }
}

/// The same for an output FIFO no reader has opened yet: the run waits for one, and a stop
/// request ends the wait, saying that nothing was written.
#[test]
#[cfg(unix)]
fn a_stop_ends_the_wait_for_a_fifo_reader() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.fifo");
    mkfifo(&fifo);
    let input = data("norvig_top95.txt");
    for command in ["solve", "rate", "generate", "verify"] {
        let output_flag = if command == "verify" {
            "--report"
        } else {
            "-o"
        };
        let mut args: Vec<&std::ffi::OsStr> = vec![command.as_ref(), output_flag.as_ref()];
        args.push(fifo.as_os_str());
        match command {
            "generate" => args.extend(["-n", "5"].map(std::ffi::OsStr::new)),
            _ => args.push(input.as_os_str()),
        }
        let (output, stderr) = stopped_after(&args, None, Duration::from_millis(700), &["TERM"]);
        assert_eq!(output.status.code(), Some(143), "{command}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "stopped while waiting for a reader of {} (the {output_flag} file): nothing \
                 was written to it",
                fifo.display()
            )),
            "{command}: {stderr}"
        );
    }
}

/// A stop while `--resume` reads the kept rows back against a pipe's records ends that wait
/// like any other: the early end of the input is the stop's, not a mismatch (exit 2) between
/// the kept rows and the input, and the kept rows stay as they were.
#[test]
#[cfg(unix)]
fn a_stop_while_resume_reads_a_pipe_is_a_stop() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.csv");
    let partial = dir.path().join("r.csv.partial");
    let all = std::fs::read_to_string(data("norvig_top95.txt")).unwrap();
    let half: String = all.lines().take(50).map(|l| format!("{l}\n")).collect();
    for command in ["solve", "rate"] {
        // The earlier run, from standard input too, left as if stopped.
        bin()
            .args([command, "-q", "-o"])
            .arg(&out)
            .arg("-")
            .write_stdin(all.clone())
            .assert()
            .success();
        std::fs::rename(&out, &partial).unwrap();
        let before = std::fs::read(&partial).unwrap();
        let args = [
            command.as_ref(),
            "--resume".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
            "-".as_ref(),
        ];
        let (output, stderr) = stopped_after(
            &args,
            Some(half.as_bytes()),
            Duration::from_millis(1000),
            &["TERM"],
        );
        assert_eq!(output.status.code(), Some(143), "{command}: {stderr}");
        assert!(
            stderr.contains(
                "stopped by SIGTERM while the output was opened or --resume read it back"
            ),
            "{command}: {stderr}"
        );
        assert_eq!(std::fs::read(&partial).unwrap(), before, "{command}");
    }
}

/// A stopped run still writes its summary to a FIFO whose reader comes late: the JSON says
/// the run was interrupted (only a stop that comes while the FIFO is awaited ends that wait).
#[test]
#[cfg(unix)]
fn a_stopped_run_waits_for_its_summary_reader() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("summary.fifo");
    mkfifo(&fifo);
    let hard = std::fs::read_to_string(data("norvig_hardest.txt")).unwrap();
    let input = dir.path().join("hard.txt");
    std::fs::write(&input, hard.repeat(200)).unwrap();
    let out = dir.path().join("x.csv");
    let reader_fifo = fifo.clone();
    // A reader that gives up after 5 s, so a run that never writes fails the test.
    let reader = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(1500));
        let read = StdCommand::new("timeout")
            .args(["5", "cat"])
            .arg(reader_fifo)
            .output()
            .unwrap();
        String::from_utf8(read.stdout).unwrap()
    });
    let args = [
        "solve".as_ref(),
        "-q".as_ref(),
        "-j".as_ref(),
        "1".as_ref(),
        "--solver".as_ref(),
        "naive".as_ref(),
        "--summary".as_ref(),
        fifo.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        input.as_os_str(),
    ];
    let (output, stderr) = stopped_after(&args, None, Duration::from_millis(500), &["TERM"]);
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    let text = reader.join().unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).expect(&text);
    assert_eq!(json["interrupted"], true, "{json}");
}

/// Once a re-run writes its first rows, an earlier run's finished `FILE` and `--summary` are
/// gone: killed after that, it leaves only its own `FILE.partial` and sidecar, never the
/// earlier files beside them looking like its finished output.
#[test]
fn a_killed_rerun_leaves_no_earlier_output_looking_finished() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("res.csv");
    let summary = dir.path().join("res.json");
    bin()
        .args(["solve", "-q", "-o"])
        .arg(&out)
        .arg("--summary")
        .arg(&summary)
        .arg(data("norvig_top95.txt"))
        .assert()
        .success();
    let input = repeated_puzzles(dir.path(), 300, "big.txt");
    let partial = dir.path().join("res.csv.partial");
    let summary_arg = summary.to_str().unwrap();
    let mut child = spawn_solve(&input, &out, &["-j", "1", "--summary", summary_arg]);
    wait_for_growth(&mut child, &partial, 300_000);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!out.exists(), "the earlier run's rows are still there");
    assert!(
        !summary.exists(),
        "the earlier run's summary is still there"
    );
    let sidecar = std::fs::read_to_string(dir.path().join("res.csv.run.json")).unwrap();
    assert!(sidecar.contains("big.txt"), "{sidecar}");
    // The re-run resumes to the whole output.
    bin()
        .args(["solve", "-q", "-j", "2", "--resume", "-o"])
        .arg(&out)
        .arg("--summary")
        .arg(&summary)
        .arg(&input)
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(&out).unwrap().lines().count(),
        300_001
    );
}

/// A stopped run whose rows `--resume` cannot continue (`--columns` without what it reads,
/// `rate --explain`) says so rather than offer it, even with `-q`.
#[test]
fn a_stopped_run_that_cannot_resume_does_not_offer_it() {
    let dir = tempfile::tempdir().unwrap();
    let input = repeated_puzzles(dir.path(), 300, "big.txt");
    let out = dir.path().join("cols.csv");
    let partial = dir.path().join("cols.csv.partial");
    let mut child = spawn_solve(
        &input,
        &out,
        &["-j", "1", "-q", "--columns", "index,status,solution"],
    );
    wait_for_growth(&mut child, &partial, 300_000);
    kill("TERM", child.id());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("--resume cannot continue them"), "{stderr}");
    assert!(stderr.contains("guesses, solve_ns"), "{stderr}");
    assert!(!stderr.contains("run again with --resume"), "{stderr}");

    let hard = std::fs::read_to_string(data("norvig_sudokus_hard_375.txt")).unwrap();
    let input = dir.path().join("hard.txt");
    std::fs::write(&input, hard.repeat(4)).unwrap();
    let out = dir.path().join("explain.txt");
    let mut child = StdCommand::new(bin_path())
        .args(["rate", "--explain", "-j", "1", "-o"])
        .arg(&out)
        .arg(&input)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_growth(&mut child, &dir.path().join("explain.txt.partial"), 1000);
    kill("TERM", child.id());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("--explain writes text"), "{stderr}");
    assert!(!stderr.contains("run again with --resume"), "{stderr}");
}

/// `scripts/slurm-array.sh` passes every stop signal on to the solver (Slurm's
/// `--signal=B:USR1@120` signals the batch shell only): the solver stops cleanly and the shell
/// ends with its status.
#[cfg(unix)]
#[test]
fn the_slurm_script_passes_usr1_on() {
    let dir = tempfile::tempdir().unwrap();
    let input = repeated_puzzles(dir.path(), 300, "big.txt");
    let outdir = dir.path().join("o");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/slurm-array.sh");
    let mut child = StdCommand::new("bash")
        .arg(&script)
        .arg(&input)
        .arg(&outdir)
        .arg("2")
        .env("SUDOKU_BATCH", bin_path())
        .env("SLURM_ARRAY_TASK_ID", "1")
        .env("SLURM_CPUS_PER_TASK", "1")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_growth(&mut child, &outdir.join("shard-1.csv.partial"), 100_000);
    kill("USR1", child.id());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("SIGUSR1: stopping"),
        "the solver got it: {stderr}"
    );
    assert_eq!(output.status.code(), Some(138), "{stderr}");
}

/// A stop while `--resume` re-checks a finished output's rows lands at once and leaves that
/// output finished: no `FILE.partial` in its place, the same bytes, a later `--resume` still
/// solving nothing. Should the re-check end before the signal, the run finishes as usual.
#[test]
#[cfg(unix)]
fn a_stop_while_resume_rechecks_a_finished_output_leaves_it_finished() {
    let dir = tempfile::tempdir().unwrap();
    // A re-check of a few tenths of a second in a debug build.
    let input = repeated_puzzles(dir.path(), 200, "in.txt");
    let out = dir.path().join("o.csv");
    bin()
        .args(["solve", "-q", "-o"])
        .arg(&out)
        .arg(&input)
        .assert()
        .success();
    let before = std::fs::read(&out).unwrap();
    let args = [
        "solve".as_ref(),
        "-q".as_ref(),
        "--resume".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
        input.as_os_str(),
    ];
    let started = Instant::now();
    let (output, stderr) = stopped_after(&args, None, Duration::from_millis(80), &["TERM"]);
    let took = started.elapsed();
    match output.status.code() {
        Some(143) => assert!(
            stderr.contains("stopped by SIGTERM while --resume read back the kept rows"),
            "{stderr}"
        ),
        Some(0) => eprintln!("the re-check ended before the signal ({took:?})"),
        other => panic!("{other:?}: {stderr}"),
    }
    assert!(!dir.path().join("o.csv.partial").exists(), "{stderr}");
    assert_eq!(std::fs::read(&out).unwrap(), before);
    bin()
        .args(["solve", "--resume", "-o"])
        .arg(&out)
        .arg(&input)
        .assert()
        .success()
        .stderr(predicates::str::contains("kept 200000 row(s)"));
}

/// A second input that changes after `--resume` compared it with the earlier run's, but
/// before the run reads it, is recorded as read: no kept row came from it, and the rows read
/// from it since come from what it holds now, so a later `--resume` finds the finished run.
#[test]
fn an_input_changed_after_resume_compared_it_is_recorded_as_read() {
    let dir = tempfile::tempdir().unwrap();
    let puzzles: Vec<String> = std::fs::read_to_string(data("norvig_top95.txt"))
        .unwrap()
        .lines()
        .map(|l| format!("{l}\n"))
        .collect();
    let second = dir.path().join("b.txt");
    std::fs::write(&second, puzzles[40..80].concat()).unwrap();
    let out = dir.path().join("o.csv");
    let args = |resume: bool| {
        let mut args = vec!["solve", "-q", "-j", "1"];
        args.extend(resume.then_some("--resume"));
        args.push("-o");
        let mut args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
        args.extend([out.clone().into(), "-".into(), second.clone().into()]);
        args
    };
    // The earlier run, stopped while it waits for more of standard input.
    let earlier = args(false);
    let earlier: Vec<&std::ffi::OsStr> = earlier.iter().map(|a| a.as_os_str()).collect();
    let first = puzzles[..10].concat();
    let (output, stderr) = stopped_after(
        &earlier,
        Some(first.as_bytes()),
        Duration::from_millis(1500),
        &["TERM"],
    );
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    let resume = || {
        StdCommand::new(bin_path())
            .args(args(true))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // The resume compares b.txt with the earlier run's, then waits for standard input while
    // b.txt is rewritten (the same size, other puzzles).
    let mut child = resume();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(first.as_bytes()).unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    let mut rewritten = puzzles[40..80].to_vec();
    rewritten.reverse();
    std::fs::write(&second, rewritten.concat()).unwrap();
    let _ = stdin.write_all(puzzles[10..30].concat().as_bytes());
    drop(stdin);
    let output = wait_within(child, Duration::from_secs(10));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let rows = std::fs::read_to_string(&out).unwrap();
    assert!(
        rows.contains(rewritten[0].trim()),
        "the rows come from what b.txt holds now"
    );
    // Finished as read: a later resume of it (from the same input) keeps every row.
    let mut again = resume();
    let mut stdin = again.stdin.take().unwrap();
    stdin.write_all(puzzles[..30].concat().as_bytes()).unwrap();
    drop(stdin);
    let output = wait_within(again, Duration::from_secs(10));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), rows);
}

/// A `verify` stopped before its first row writes nothing: an earlier run's report and
/// summary stay as they were, with no `FILE.partial` beside them.
#[test]
#[cfg(unix)]
fn a_verify_stopped_before_its_first_row_leaves_earlier_files_alone() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    std::fs::write(at("bad.txt"), "12345\n").unwrap();
    bin()
        .args([
            "verify",
            "-q",
            "--report",
            "r.csv",
            "--summary",
            "s.json",
            "bad.txt",
        ])
        .current_dir(dir.path())
        .assert()
        .code(1);
    let (report, summary) = (
        std::fs::read(at("r.csv")).unwrap(),
        std::fs::read(at("s.json")).unwrap(),
    );
    mkfifo(&at("in.fifo"));
    let args = [
        "verify",
        "-q",
        "--report",
        &at("r.csv").to_string_lossy(),
        "--summary",
        &at("s.json").to_string_lossy(),
        &at("in.fifo").to_string_lossy(),
    ]
    .map(|a| std::ffi::OsString::from(a.to_string()));
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let (output, stderr) = stopped_after(&args, None, Duration::from_millis(500), &["TERM"]);
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert_eq!(std::fs::read(at("r.csv")).unwrap(), report);
    assert_eq!(std::fs::read(at("s.json")).unwrap(), summary);
    assert!(!at("r.csv.partial").exists());
}

/// `--resume` solves a kept `gave_up` row again within the bound (seconds here): a stop lands
/// within that re-check, and the finished output stays as it was.
#[test]
fn a_stop_lands_within_the_recheck_of_a_row_given_up_on() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    std::fs::write(at("slow.txt"), format!("{SLOW}\n{SLOW}\n")).unwrap();
    let args = [
        "solve",
        "-q",
        "-j",
        "1",
        "--solver",
        "backtrack",
        "--max-guesses",
        "1500000",
        "-o",
        &at("out.csv").to_string_lossy(),
        &at("slow.txt").to_string_lossy(),
    ]
    .map(|a| std::ffi::OsString::from(a.to_string()));
    let started = Instant::now();
    let status = StdCommand::new(bin_path()).args(&args).status().unwrap();
    let run = started.elapsed();
    assert_eq!(status.code(), Some(1));
    let finished = std::fs::read(at("out.csv")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&finished)
            .matches(",gave_up,")
            .count(),
        2
    );
    let mut resume: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    resume.push("--resume".as_ref());
    let stopped = Instant::now();
    let (output, stderr) = stopped_after(&resume, None, run / 8, &["INT"]);
    let took = stopped.elapsed();
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("while --resume read back the kept rows"),
        "{stderr}"
    );
    // The re-check of both rows takes about as long as the run did: stopped well before.
    assert!(
        took < run / 2,
        "{took:?} against a run of {run:?}: {stderr}"
    );
    assert_eq!(std::fs::read(at("out.csv")).unwrap(), finished);
}

/// `generate --er` hands each few puzzles to the output as they are made, so a reader of a
/// pipe gets them at once and a run killed outright (no chance to flush) keeps those made well
/// before: whole lines, the first puzzles of the run.
#[test]
#[cfg(unix)]
fn generate_er_puzzles_reach_the_file_as_they_are_made() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.txt");
    let mut child = StdCommand::new(bin_path())
        .args(["generate", "-q", "-j", "1", "-n", "300", "--seed", "1"])
        .args(["--er", "7.0..9.0", "-o"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let partial = dir.path().join("g.txt.partial");
    wait_for_growth(&mut child, &partial, 82);
    kill("KILL", child.id());
    child.wait().unwrap();
    let kept = std::fs::read_to_string(&partial).unwrap();
    assert!(kept.ends_with('\n'), "{kept:?}");
    let lines: Vec<&str> = kept.lines().collect();
    assert!(!lines.is_empty() && lines.len() < 300, "{}", lines.len());
    let again = bin()
        .args([
            "generate", "-q", "-j", "1", "--seed", "1", "--er", "7.0..9.0", "-n",
        ])
        .arg(lines.len().to_string())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&again.stdout), kept);
}

/// A reader that closes the pipe on standard output (`| head`) ends a slow `rate` or
/// `generate --er` at once, quietly (exit 0), rather than after the puzzles in flight: a
/// rating can take seconds (each of these six takes seconds of nested forcing chains).
#[test]
#[cfg(target_os = "linux")]
fn a_closed_stdout_pipe_ends_a_slow_run_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let hardest = std::fs::read_to_string(data("norvig_sudokus_hard_375.txt")).unwrap();
    let slow = hardest.lines().nth(42).unwrap();
    let input = dir.path().join("slow.txt");
    std::fs::write(&input, format!("{slow}\n").repeat(6)).unwrap();
    let input = input.to_str().unwrap();
    for args in [
        &["rate", "-q", "-j", "1", input][..],
        &[
            "generate", "-q", "-j", "1", "-n", "50", "--seed", "1", "--er", "11..12",
        ][..],
    ] {
        let mut child = StdCommand::new(bin_path())
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let output = wait_within(child, Duration::from_secs(10));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("interrupt"), "{args:?}: {stderr}");
    }
    // Closed while the run still waits for a CSV input's header: quiet too, no stop message.
    let mut child = StdCommand::new(bin_path())
        .args(["rate", "-q", "--format", "csv", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _silent = child.stdin.take();
    std::thread::sleep(Duration::from_millis(200));
    drop(child.stdout.take());
    let output = wait_within(child, Duration::from_secs(10));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}
