//! Outputs: compressed output (`.gz`, `.zst`, `--compress`) read by the standard tools,
//! non-regular outputs (FIFOs, devices) written directly, one run per output at a time, bad `-o`
//! paths refused before any work, and files that appear whole or not at all.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use crate::support::{bin, bin_path, data, mkfifo, repeated_puzzles, spawn_solve, wait_for_growth};

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
        .stderr(Stdio::null())
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
        .arg(bin_path())
        .arg(&summary)
        .arg(data("norvig_top95.txt"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
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
}
