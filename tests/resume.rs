//! Resume and merge: a killed run resumes to the same rows (plain, gzip, zstd), shards merged
//! equal one run; a run's sidecar (`FILE.run.json`) says what defines its rows; `--resume`
//! names what differs and re-checks the rows it keeps; `merge` refuses shards of other runs and
//! writes nothing when a shard is missing or cut off. Both read result CSVs through the one
//! reader, `ResultReader`: a `.partial` cut mid-row resumes to a clean run's rows, and a file
//! that is not a result file is refused in the reader's words.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use crate::robust::{rows_without, solve_stdout};
use crate::support::{bin, data, repeated_puzzles, spawn_solve, wait_for_growth};
use predicates::prelude::*;
use sudoku_batch::io::results::{Column, ResultReader, ResultRow};
use sudoku_batch::stats::Tally;

/// [`mixed_input`](crate::support::mixed_input) under this module's file name.
fn mixed_input(dir: &Path) -> PathBuf {
    crate::support::mixed_input(dir, "mixed.txt")
}

/// The rows of a result file read through `ResultReader`, `solve_ns` zeroed (it differs
/// between runs), and their tally's counts.
fn read_rows(path: &Path) -> (Vec<ResultRow>, [u64; 6]) {
    let mut reader = ResultReader::open(path).unwrap().expect("a header");
    assert_eq!(reader.columns(), Column::ALL);
    let mut rows = Vec::new();
    let mut tally = Tally::default();
    while let Some(row) = reader.next_row().unwrap() {
        tally.add_row(&row).unwrap();
        let full = row.to_row().expect("every column");
        rows.push(ResultRow {
            solve_ns: 0,
            ..full
        });
    }
    assert_eq!(reader.torn_line(), None, "{}", path.display());
    let s = tally.summary(std::time::Duration::ZERO, 1, "");
    let counts = [
        s.puzzles,
        s.solved,
        s.unsolvable,
        s.multiple,
        s.invalid,
        s.mismatch,
    ];
    (rows, counts)
}

/// The byte offsets where each row of `path` ends, read through `ResultReader`.
fn row_ends(path: &Path) -> (u64, Vec<u64>) {
    let mut reader = ResultReader::open(path).unwrap().unwrap();
    let mut ends = Vec::new();
    while let Some(row) = reader.next_row().unwrap() {
        ends.push(row.end);
    }
    (reader.header_end(), ends)
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

#[test]
fn a_partial_cut_mid_row_resumes_to_a_clean_run() {
    let dir = tempfile::tempdir().unwrap();
    let input = mixed_input(dir.path());
    let clean = dir.path().join("clean.csv");
    bin()
        .args(["solve", "-q", "--unique", "-j", "2", "-o"])
        .arg(&clean)
        .arg(&input)
        .assert()
        .code(1);
    let clean_bytes = std::fs::read(&clean).unwrap();
    let (clean_rows, clean_counts) = read_rows(&clean);
    assert!(
        clean_counts[3] > 0 && clean_counts[4] >= 3,
        "{clean_counts:?}"
    );
    let (header_end, ends) = row_ends(&clean);
    assert_eq!(ends.len(), clean_rows.len());
    assert_eq!(*ends.last().unwrap(), clean_bytes.len() as u64);
    // A row with a quoted message: cut inside its quotes too.
    let quoted = clean_bytes.windows(2).position(|w| w == b",\"").unwrap();
    let cuts = [
        5,                                  // inside the header
        header_end as usize,                // the header only
        header_end as usize + 7,            // inside the first row
        (ends[40] + ends[41]) as usize / 2, // mid-row
        quoted + 3,                         // inside a quoted field
        ends[ends.len() - 2] as usize + 1,  // the last row just begun
        ends[ends.len() - 1] as usize - 1,  // all but the last row's line end
    ];
    let out = dir.path().join("out.csv");
    let partial = dir.path().join("out.csv.partial");
    for cut in cuts {
        std::fs::write(&partial, &clean_bytes[..cut]).unwrap();
        let _ = std::fs::remove_file(&out);
        let kept = ends.iter().filter(|&&end| end <= cut as u64).count();
        bin()
            .args(["solve", "--unique", "-j", "2", "--resume", "-o"])
            .arg(&out)
            .arg(&input)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(format!(
                "resume: kept {kept} row(s)"
            )));
        assert!(!partial.exists());
        let (rows, counts) = read_rows(&out);
        assert_eq!(rows, clean_rows, "cut at {cut}");
        assert_eq!(counts, clean_counts, "cut at {cut}");
        // The complete rows were kept byte for byte.
        let complete = clean_bytes[..cut]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let complete = if complete as u64 >= header_end {
            complete
        } else {
            0
        };
        let got = std::fs::read(&out).unwrap();
        assert_eq!(&got[..complete], &clean_bytes[..complete], "cut at {cut}");
    }
}

#[test]
fn resume_refuses_what_the_reader_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let input = data("norvig_top95.txt");
    let clean = dir.path().join("clean.csv");
    bin()
        .args(["solve", "-q", "-o"])
        .arg(&clean)
        .arg(&input)
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&clean).unwrap();
    let out = dir.path().join("out.csv");
    let partial = dir.path().join("out.csv.partial");
    let resume = |partial_text: &str, message: &str| {
        std::fs::write(&partial, partial_text).unwrap();
        bin()
            .args(["solve", "--resume", "-o"])
            .arg(&out)
            .arg(&input)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    };
    // A bad status word: the file and line are named.
    let bad: String = text
        .lines()
        .enumerate()
        .map(|(i, line)| match i {
            3 => line.replace(",solved,", ",sovled,") + "\n",
            _ => format!("{line}\n"),
        })
        .collect();
    resume(
        &bad,
        "out.csv.partial: cannot resume: not a result row: line 4: status \"sovled\" is not one \
         of solved, unsolvable, multiple, invalid, mismatch, gave_up",
    );
    resume(
        "quizzes,solutions\n",
        "out.csv.partial: cannot resume: not a result file: its header names \"quizzes\"",
    );
    resume(
        "index,puzzle,status\n",
        "cannot resume: --resume needs the column(s) line, file, guesses, solve_ns, which its \
         header (index,puzzle,status) lacks",
    );
    let reordered = text.replacen("index,line,", "line,index,", 1);
    resume(
        &reordered,
        "cannot resume: its header (line,index,puzzle,solution,status,guesses,solve_ns,message,\
         file) is not that of this run's output (index,line,",
    );
}

/// `sudoku-batch ARGS` run in `dir`: (exit code, stderr).
fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let output = bin().current_dir(dir).args(args).output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A directory with `p.txt` (300 generated puzzles) and `out.csv`, its solved output.
fn solved_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let (code, err) = run(
        dir.path(),
        &[
            "generate", "-n", "300", "--seed", "14", "--clues", "30", "-q", "-o", "p.txt",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (code, err) = run(dir.path(), &["solve", "p.txt", "-q", "-o", "out.csv"]);
    assert_eq!(code, 0, "{err}");
    assert!(dir.path().join("out.csv.run.json").is_file());
    dir
}

/// Rows of a result CSV without `solve_ns` (column 7), header included.
fn rows(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| {
            let mut fields: Vec<&str> = line.split(',').collect();
            fields.remove(6);
            fields.join(",")
        })
        .collect()
}

/// Leaves `out.csv.partial` with the header and the first `keep` rows of `out.csv`, as an
/// interrupted run would, and removes `out.csv`.
fn interrupt(dir: &Path, keep: usize) -> PathBuf {
    let text = std::fs::read_to_string(dir.join("out.csv")).unwrap();
    let kept: String = text
        .lines()
        .take(keep + 1)
        .map(|l| format!("{l}\n"))
        .collect();
    let partial = dir.join("out.csv.partial");
    std::fs::write(&partial, kept).unwrap();
    std::fs::remove_file(dir.join("out.csv")).unwrap();
    partial
}

#[test]
fn resume_refuses_other_options_and_inputs_naming_the_difference() {
    let dir = solved_dir();
    let d = dir.path();
    let finished = std::fs::read(d.join("out.csv")).unwrap();
    let refusals: [(&[&str], &str); 4] = [
        (
            &["--unique"],
            "out.csv: cannot resume: the earlier run did not use --unique, this one does",
        ),
        (
            &["--max-guesses", "5"],
            "cannot resume: the earlier run ran with no limit, this one with --max-guesses 5",
        ),
        (
            &["--solver", "singles"],
            "cannot resume: the earlier run used --solver bands, this one --solver singles",
        ),
        (
            &["--shard", "2/3"],
            "cannot resume: the earlier run read every record (no --shard), this one shard 2/3",
        ),
    ];
    for (extra, message) in refusals {
        let mut args = vec!["solve", "p.txt", "-q", "-o", "out.csv", "--resume"];
        args.extend_from_slice(extra);
        let (code, err) = run(d, &args);
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(err.contains(message), "{extra:?}: {err}");
        assert!(!err.contains("input changed"), "{err}");
        // A refusal leaves the finished file as it was.
        assert_eq!(std::fs::read(d.join("out.csv")).unwrap(), finished);
        assert!(!d.join("out.csv.partial").exists());
    }

    // One byte changed, same size.
    let input = std::fs::read(d.join("p.txt")).unwrap();
    let mut changed = input.clone();
    let at = changed.len() - 3;
    changed[at] = if changed[at] == b'.' { b'1' } else { b'.' };
    std::fs::write(d.join("p.txt"), &changed).unwrap();
    let (code, err) = run(d, &["solve", "p.txt", "-q", "-o", "out.csv", "--resume"]);
    assert_eq!(code, 2, "{err}");
    let size = format_size(input.len());
    assert!(
        err.contains(&format!(
            "cannot resume: input 1 differs: p.txt has the same size ({size} bytes) but other \
             content"
        )),
        "{err}"
    );
    // One byte fewer.
    std::fs::write(d.join("p.txt"), &input[..input.len() - 1]).unwrap();
    let (code, err) = run(d, &["solve", "p.txt", "-q", "-o", "out.csv", "--resume"]);
    assert_eq!(code, 2, "{err}");
    let smaller = format_size(input.len() - 1);
    assert!(
        err.contains(&format!(
            "cannot resume: input 1 differs: p.txt was {size} bytes, now {smaller}"
        )),
        "{err}"
    );
    assert_eq!(std::fs::read(d.join("out.csv")).unwrap(), finished);
}

fn format_size(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn an_absolute_path_resumes_a_relative_one() {
    let dir = solved_dir();
    let d = dir.path();
    let whole = rows(&d.join("out.csv"));
    let absolute = d.join("p.txt").canonicalize().unwrap();
    let absolute = absolute.to_str().unwrap();
    for sidecar in [true, false] {
        interrupt(d, 120);
        if !sidecar {
            std::fs::remove_file(d.join("out.csv.run.json")).unwrap();
        }
        let (code, err) = run(d, &["solve", absolute, "-q", "-o", "out.csv", "--resume"]);
        assert_eq!(code, 0, "sidecar {sidecar}: {err}");
        // The rows name the file as the earlier run did, the kept and the new alike.
        assert_eq!(rows(&d.join("out.csv")), whole, "sidecar {sidecar}");
    }
}

/// An output named through a symbolic link keeps its sidecar beside the file the link leads
/// to, as its in-progress file: a run stopped under one name and resumed (or merged) under the
/// other is still checked against its sidecar, not taken for an older version's rows.
#[cfg(unix)]
#[test]
fn a_run_written_through_a_link_is_found_by_either_name() {
    let dir = solved_dir();
    let d = dir.path();
    let whole = rows(&d.join("out.csv"));
    std::fs::create_dir(d.join("real")).unwrap();
    for (write, resume) in [("link.csv", "real/out.csv"), ("real/out.csv", "link.csv")] {
        let _ = std::fs::remove_file(d.join("link.csv"));
        std::os::unix::fs::symlink("real/out.csv", d.join("link.csv")).unwrap();
        let _ = std::fs::remove_file(d.join("real/out.csv"));
        let (code, err) = run(d, &["solve", "p.txt", "-q", "-o", write]);
        assert_eq!(code, 0, "{err}");
        assert!(d.join("real/out.csv.run.json").is_file());
        assert!(!d.join("link.csv.run.json").exists());
        // Stopped after 120 rows.
        let text = std::fs::read_to_string(d.join("real/out.csv")).unwrap();
        let kept: String = text.lines().take(121).map(|l| format!("{l}\n")).collect();
        std::fs::write(d.join("real/out.csv.partial"), kept).unwrap();
        std::fs::remove_file(d.join("real/out.csv")).unwrap();
        as_if_stopped(&d.join("real/out.csv"));
        let resumed = ["solve", "p.txt", "-q", "-o", resume, "--resume"];
        let (code, err) = run(d, &[&resumed[..], &["--max-guesses", "5"]].concat());
        assert_eq!(code, 2, "{write} then {resume}: {err}");
        assert!(
            err.contains("the earlier run ran with no limit, this one with --max-guesses 5"),
            "{write} then {resume}: {err}"
        );
        let (code, err) = run(d, &resumed);
        assert_eq!(code, 0, "{write} then {resume}: {err}");
        assert!(!err.contains("older version"), "{err}");
        assert_eq!(rows(&d.join("real/out.csv")), whole);
    }
    // Shards written through links merge by their files' own names, with their sidecars.
    for k in 1..=2 {
        let link = format!("s{k}.csv");
        std::os::unix::fs::symlink(format!("real/{link}"), d.join(&link)).unwrap();
        let shard = format!("{k}/2");
        let (code, err) = run(d, &["solve", "p.txt", "-q", "--shard", &shard, "-o", &link]);
        assert_eq!(code, 0, "{err}");
    }
    let (code, err) = run(
        d,
        &["merge", "real/s1.csv", "real/s2.csv", "-q", "-o", "all.csv"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("run.json"), "{err}");
    assert_eq!(rows(&d.join("all.csv")), whole);

    // A loop of links leads to no file: refused as a shell's `>` fails, the links kept.
    std::os::unix::fs::symlink("loop2.csv", d.join("loop1.csv")).unwrap();
    std::os::unix::fs::symlink("loop1.csv", d.join("loop2.csv")).unwrap();
    let (code, err) = run(d, &["solve", "p.txt", "-q", "-o", "loop1.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("loop1.csv: -o names it, but it leads through more than 40 symbolic links"),
        "{err}"
    );
    for link in ["loop1.csv", "loop2.csv"] {
        let kind = std::fs::symlink_metadata(d.join(link)).unwrap().file_type();
        assert!(kind.is_symlink(), "{link} was replaced");
    }
    // 40 links in a row are followed, as the kernel follows them.
    let mut name = "end.csv".to_string();
    for i in 1..=40 {
        let link = format!("chain{i}.csv");
        std::os::unix::fs::symlink(&name, d.join(&link)).unwrap();
        name = link;
    }
    let (code, err) = run(d, &["solve", "p.txt", "-q", "-o", &name]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(rows(&d.join("end.csv")), whole);
    assert!(std::fs::symlink_metadata(d.join(&name))
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn a_kept_row_with_two_digits_swapped_is_refused_naming_its_line() {
    let dir = solved_dir();
    let d = dir.path();
    let partial = interrupt(d, 100);
    let text = std::fs::read_to_string(&partial).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    // Line 51 of the file (row 50): swap the first two different digits of the solution.
    let mut fields: Vec<String> = lines[50].split(',').map(String::from).collect();
    let mut solution: Vec<u8> = fields[3].clone().into_bytes();
    let j = (1..81).find(|&j| solution[j] != solution[0]).unwrap();
    solution.swap(0, j);
    fields[3] = String::from_utf8(solution).unwrap();
    lines[50] = fields.join(",");
    let corrupted = lines.join("\n") + "\n";
    std::fs::write(&partial, &corrupted).unwrap();
    let (code, err) = run(d, &["solve", "p.txt", "-q", "-o", "out.csv", "--resume"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("out.csv.partial: cannot resume: line 51: status solved but the solution"),
        "{err}"
    );
    assert!(!d.join("out.csv").exists());
    assert_eq!(std::fs::read_to_string(&partial).unwrap(), corrupted);
}

/// A blank line between kept rows (the CSV reader skips it, but no run writes one) is
/// refused, naming its line: kept, it would stay in the finished output.
#[test]
fn a_blank_line_between_kept_rows_is_refused_naming_its_line() {
    let dir = solved_dir();
    let d = dir.path();
    let partial = interrupt(d, 100);
    let text = std::fs::read_to_string(&partial).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(50, "");
    let edited = lines.join("\n") + "\n";
    std::fs::write(&partial, &edited).unwrap();
    let (code, err) = run(d, &["solve", "p.txt", "-q", "-o", "out.csv", "--resume"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("out.csv.partial: cannot resume: line 51: blank, between two rows"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&partial).unwrap(), edited);
}

/// A kept row edited to hide its solution (status `unsolvable`, no solution) is refused: the
/// puzzle is solved again, and the status must come out the same.
#[test]
fn a_kept_row_edited_to_unsolvable_is_refused_naming_its_line() {
    let dir = solved_dir();
    let d = dir.path();
    let partial = interrupt(d, 100);
    let text = std::fs::read_to_string(&partial).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut fields: Vec<String> = lines[30].split(',').map(String::from).collect();
    assert_eq!(fields[4], "solved");
    (fields[3], fields[4]) = (String::new(), "unsolvable".into());
    lines[30] = fields.join(",");
    std::fs::write(&partial, lines.join("\n") + "\n").unwrap();
    let (code, err) = run(d, &["solve", "p.txt", "-q", "-o", "out.csv", "--resume"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "out.csv.partial: cannot resume: line 31: status unsolvable, but solving the \
             puzzle again gives solved"
        ),
        "{err}"
    );
}

/// `text` with row `at` (0: the header) edited to `gave_up` with no solution; `guesses` keeps
/// its value.
fn edited_to_gave_up(text: &str, at: usize) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut fields: Vec<String> = lines[at].split(',').map(String::from).collect();
    assert_eq!(fields[4], "solved");
    (fields[3], fields[4]) = (String::new(), "gave_up".into());
    lines[at] = fields.join(",");
    lines.join("\n") + "\n"
}

/// A kept row edited to say its puzzle was given up on hides a solution: a run without
/// `--max-guesses` never gives up, and one with it must give up on that puzzle again.
#[test]
fn a_kept_row_edited_to_gave_up_is_refused_unless_the_bound_gives_up_again() {
    let dir = solved_dir();
    let d = dir.path();
    let partial = interrupt(d, 100);
    let text = std::fs::read_to_string(&partial).unwrap();
    std::fs::write(&partial, edited_to_gave_up(&text, 30)).unwrap();
    let (code, err) = run(d, &["solve", "p.txt", "-q", "-o", "out.csv", "--resume"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "out.csv.partial: cannot resume: line 31: status gave_up, which only a run with \
             --max-guesses gives"
        ),
        "{err}"
    );
    // With a bound: the rows a bounded run gave up on are kept, an edited one is refused.
    let bounded = ["solve", "p.txt", "-q", "-o", "b.csv", "--max-guesses", "1"];
    assert_eq!(run(d, &bounded).0, 1);
    let text = std::fs::read_to_string(d.join("b.csv")).unwrap();
    let gave_up = text.lines().filter(|l| l.contains(",gave_up,")).count();
    assert!(
        gave_up > 0,
        "no puzzle needs two guesses: the test shows nothing"
    );
    let lines: Vec<&str> = text.lines().collect();
    let at = (1..lines.len())
        .find(|&i| lines[i].contains(",solved,") && lines[i].split(',').nth(5) == Some("1"))
        .expect("a puzzle solved with one guess");
    // Cut after that row, so that a resume keeps it and some given-up rows before it.
    let kept: String = lines[..=at].iter().map(|l| format!("{l}\n")).collect();
    std::fs::remove_file(d.join("b.csv")).unwrap();
    std::fs::write(d.join("b.csv.partial"), &kept).unwrap();
    let resume = [&bounded[..], &["--resume"]].concat();
    let (code, err) = run(d, &resume);
    assert_eq!(code, 1, "{err}");
    std::fs::write(d.join("b-first.csv"), &text).unwrap();
    assert_eq!(rows(&d.join("b.csv")), rows(&d.join("b-first.csv")));
    std::fs::remove_file(d.join("b.csv")).unwrap();
    std::fs::write(d.join("b.csv.partial"), edited_to_gave_up(&kept, at)).unwrap();
    let (code, err) = run(d, &resume);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "b.csv.partial: cannot resume: line {}: status gave_up, but solving the puzzle again \
             within --max-guesses 1 gives solved",
            at + 1
        )),
        "{err}"
    );
}

/// A finished output edited since its run (a figure changed, so its size too) is refused by
/// `--resume`, which would otherwise keep the edited rows as they are; untouched, it resumes.
#[test]
fn a_finished_output_changed_since_its_run_is_refused() {
    let dir = solved_dir();
    let d = dir.path();
    for command in ["solve", "rate"] {
        let out = format!("{command}.csv");
        let args = [command, "p.txt", "-q", "-o", &out];
        assert_eq!(run(d, &args).0, 0);
        let resume = [&args[..], &["--resume"]].concat();
        let (code, err) = run(d, &resume);
        assert_eq!(code, 0, "{command}: {err}");
        let text = std::fs::read_to_string(d.join(&out)).unwrap();
        let edited = text
            .replacen(",rated,", ",rated,9", 1)
            .replacen(",0,", ",999,", 1);
        assert_ne!(edited.len(), text.len());
        std::fs::write(d.join(&out), &edited).unwrap();
        let (code, err) = run(d, &resume);
        assert_eq!(code, 2, "{command}: {err}");
        assert!(
            err.contains(&format!(
                "{out}: cannot resume: it holds {} bytes, but its run wrote {}: it was changed \
                 since",
                format_size(edited.len()),
                format_size(text.len())
            )),
            "{command}: {err}"
        );
        assert_eq!(std::fs::read_to_string(d.join(&out)).unwrap(), edited);
        // The same size, one clue blanked (every row's claim still holds): its CRC-32 tells.
        let blanked = blank_a_clue(&text);
        assert_eq!(blanked.len(), text.len());
        std::fs::write(d.join(&out), &blanked).unwrap();
        let (code, err) = run(d, &resume);
        assert_eq!(code, 2, "{command}: {err}");
        assert!(
            err.contains(&format!(
                "{out}: cannot resume: it has the size its run wrote ({} bytes) but other \
                 content (CRC-32 ",
                format_size(text.len())
            )) && err.contains("): it was changed since"),
            "{command}: {err}"
        );
        assert_eq!(std::fs::read_to_string(d.join(&out)).unwrap(), blanked);
    }
}

/// `text` (a result file) with the first clue of its first row's puzzle made a blank: the
/// same size, and every claim of the row still holds.
fn blank_a_clue(text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut fields: Vec<String> = lines[1].split(',').map(String::from).collect();
    let at = fields[2]
        .find(|c: char| c.is_ascii_digit() && c != '0')
        .unwrap();
    fields[2].replace_range(at..at + 1, ".");
    lines[1] = fields.join(",");
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn a_shard_edited_at_the_same_size_is_refused_by_merge() {
    let dir = solved_dir();
    let d = dir.path();
    for command in ["solve", "rate"] {
        let shards: Vec<String> = (1..=3).map(|k| format!("{command}{k}.csv")).collect();
        for (k, out) in shards.iter().enumerate() {
            let shard = format!("{}/3", k + 1);
            let args = [command, "p.txt", "-q", "--shard", &shard, "-o", out];
            let (code, err) = run(d, &args);
            assert_eq!(code, 0, "{err}");
        }
        let merge = [
            &["merge", "-q", "-o", "m.csv"][..],
            &shards.iter().map(String::as_str).collect::<Vec<_>>(),
        ]
        .concat();
        let (code, err) = run(d, &merge);
        assert_eq!(code, 0, "{command}: {err}");
        std::fs::remove_file(d.join("m.csv")).unwrap();
        let text = std::fs::read_to_string(d.join(&shards[1])).unwrap();
        let second = text.lines().nth(2).unwrap();
        let line = second.split(',').nth(1).unwrap();
        // A clue blanked, a line number changed (as many digits), and the last row's index
        // made one past the input's records (three digits, the first a 9).
        let other = |n: &str| {
            let v: u64 = n.parse().unwrap();
            let w = if v % 10 == 9 { v - 1 } else { v + 1 };
            w.to_string()
        };
        let last = text.lines().last().unwrap();
        let edits = [
            blank_a_clue(&text),
            text.replacen(
                second,
                &second.replacen(&format!(",{line},"), &format!(",{},", other(line)), 1),
                1,
            ),
            text.replacen(last, &format!("9{}", &last[1..]), 1),
        ];
        for edited in edits {
            assert_eq!(edited.len(), text.len());
            assert_ne!(edited, text);
            std::fs::write(d.join(&shards[1]), &edited).unwrap();
            let (code, err) = run(d, &merge);
            assert_eq!(code, 2, "{command}: {err}");
            assert!(
                err.contains(&format!("{}: ", shards[1]))
                    && (err.contains("but other content (CRC-32 ")
                        && err.contains("it was changed since; re-run that shard")
                        // A rating's row re-check names the line first (a blanked clue
                        // leaves the puzzle without a unique solution).
                        || err.contains("the shard was changed after its run wrote it")),
                "{command}: {err}"
            );
            assert!(!d.join("m.csv").exists() && !d.join("m.csv.partial").exists());
            // Merged to standard output, which no rename can withhold: refused before the
            // first byte.
            let streamed = bin()
                .current_dir(d)
                .args(["merge", "-q"])
                .args(&shards)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&streamed.stderr);
            assert_eq!(streamed.status.code(), Some(2), "{command}: {err}");
            assert!(err.contains("other content (CRC-32 "), "{command}: {err}");
            assert!(streamed.stdout.is_empty(), "{command}: {err}");
        }
        std::fs::write(d.join(&shards[1]), &text).unwrap();
    }
}

#[test]
fn a_garbage_partial_is_refused_as_garbage() {
    let dir = solved_dir();
    let d = dir.path();
    let partial = interrupt(d, 10);
    for garbage in [
        &b"\x00\x01\x7fELF garbage\nmore,garbage\n"[..],
        &b"\xff\xfe\x00 no line end at all, but not a header either"[..],
    ] {
        std::fs::write(&partial, garbage).unwrap();
        let (code, err) = run(d, &["solve", "p.txt", "-q", "-o", "out.csv", "--resume"]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("out.csv.partial: cannot resume: not a result file: ")
                && err.contains("(--resume continues the output of a solve run, header included: remove it to start over)"),
            "{err}"
        );
        assert!(!err.contains("input changed"), "{err}");
        assert_eq!(std::fs::read(&partial).unwrap(), garbage);
    }
}

/// Solves `input` as shards K of `n` into `s-K.csv` in `dir`.
fn shard(dir: &Path, input: &str, k: u64, n: u64) -> String {
    let name = format!("s-{k}.csv");
    let shard = format!("{k}/{n}");
    let (code, err) = run(dir, &["solve", input, "-q", "--shard", &shard, "-o", &name]);
    assert_eq!(code, 0, "{err}");
    name
}

/// A shard whose number is above the input's record count gets no record: exit 1, as for an
/// empty input, with a warning that says why (also with `-q`); the shards below it are fine.
#[test]
fn a_shard_past_the_inputs_records_says_why_it_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("two.txt");
    let text = std::fs::read_to_string(data("norvig_top95.txt")).unwrap();
    std::fs::write(
        &input,
        text.lines()
            .take(2)
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
    )
    .unwrap();
    for command in ["solve", "rate"] {
        bin()
            .args([command, "-q", "--shard", "3/3"])
            .arg(&input)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(
                "warning: shard 3/3 holds no record: the input has 2 record(s)",
            ));
        bin()
            .args([command, "-q", "--shard", "2/3"])
            .arg(&input)
            .assert()
            .code(0)
            .stderr("");
    }
}

/// Shards of an input without puzzles merge to no rows with exit 1, as the run of the whole
/// input ends (solve and rate; with and without sidecars).
#[test]
fn shards_without_puzzles_merge_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("e.txt"), "# nothing\n").unwrap();
    for command in ["solve", "rate"] {
        assert_eq!(run(d, &[command, "-q", "e.txt", "-o", "whole.csv"]).0, 1);
        for k in 1..=2 {
            let (shard, out) = (format!("{k}/2"), format!("s{k}.csv"));
            let (code, err) = run(d, &[command, "-q", "e.txt", "--shard", &shard, "-o", &out]);
            assert_eq!(code, 1, "{err}");
        }
        let merge = ["merge", "-q", "s1.csv", "s2.csv", "-o", "all.csv"];
        let (code, err) = run(d, &merge);
        assert_eq!(code, 1, "{command}: {err}");
        assert_eq!(
            std::fs::read_to_string(d.join("all.csv")).unwrap(),
            std::fs::read_to_string(d.join("whole.csv")).unwrap()
        );
        for k in 1..=2 {
            std::fs::remove_file(d.join(format!("s{k}.csv.run.json"))).unwrap();
        }
        let (code, err) = run(d, &merge);
        assert_eq!(code, 1, "{command} without sidecars: {err}");
    }
}

#[test]
fn a_merge_with_sidecars_spans_the_shards_and_says_what_is_missing() {
    let dir = solved_dir();
    let d = dir.path();
    let names: Vec<String> = (1..=3).map(|k| shard(d, "p.txt", k, 3)).collect();
    let mut args = vec!["merge"];
    args.extend(names.iter().rev().map(String::as_str));
    args.extend(["-o", "all.csv", "--summary", "all.json"]);
    let (code, err) = run(d, &args);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
    assert_eq!(rows(&d.join("all.csv")), rows(&d.join("out.csv")));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("all.json")).unwrap()).unwrap();
    assert_eq!(json["puzzles"], 300);
    assert_eq!(json["shards"], 3);
    let span = json["span_seconds"].as_f64().unwrap();
    assert!(span >= 0.0 && (span - json["wall_seconds"].as_f64().unwrap()).abs() < 1e-6);
    assert!(json["solver_cpu_seconds"].as_f64().unwrap() > 0.0);
    assert!(json["last_end_unix"].as_f64() >= json["first_start_unix"].as_f64());
    // `-q`: no summary and no remarks when all is well.
    args.push("-q");
    let (code, err) = run(d, &args);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(rows(&d.join("all.csv")), rows(&d.join("out.csv")));

    // Only two of the three: exit 1, no final file.
    std::fs::remove_file(d.join("all.csv")).unwrap();
    let (code, err) = run(d, &["merge", "s-1.csv", "s-3.csv", "-o", "all.csv"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("shard(s) 2 of 3 missing"), "{err}");
    assert!(!d.join("all.csv").exists() && !d.join("all.csv.partial").exists());

    // Older outputs without sidecars merge as before, with a warning.
    for name in &names {
        std::fs::remove_file(d.join(format!("{name}.run.json"))).unwrap();
    }
    let (code, err) = run(
        d,
        &["merge", "s-1.csv", "s-2.csv", "s-3.csv", "-o", "all.csv"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: no FILE.run.json beside the shards"),
        "{err}"
    );
    assert_eq!(rows(&d.join("all.csv")), rows(&d.join("out.csv")));
}

/// Rewrites `sidecar`, of a run over standard input, as a version that kept no hash of such an
/// input wrote it.
fn as_if_unhashed(sidecar: &Path) {
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sidecar).unwrap()).unwrap();
    let input = json["inputs"][0].as_object_mut().unwrap();
    assert!(input.remove("blake3").is_some(), "{json}");
    input.insert("size".into(), serde_json::Value::Null);
    std::fs::write(sidecar, json.to_string()).unwrap();
}

/// Generates `q.txt` beside `p.txt` in `d`: another 300 puzzles of the same size in bytes.
fn another_input(d: &Path) {
    let (code, err) = run(
        d,
        &[
            "generate", "-n", "300", "--seed", "15", "--clues", "30", "-q", "-o", "q.txt",
        ],
    );
    assert_eq!(code, 0, "{err}");
}

#[test]
fn merge_tells_inputs_read_from_standard_input_apart() {
    let dir = solved_dir();
    let d = dir.path();
    another_input(d);
    // Read from standard input, the inputs are told apart by the hashes of the bytes read.
    let from_stdin = |input: &str, k: u32, out: &str| {
        let output = bin()
            .current_dir(d)
            .args(["solve", "-", "-q", "--shard", &format!("{k}/2"), "-o", out])
            .pipe_stdin(d.join(input))
            .unwrap()
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{output:?}");
    };
    let fewer: String = std::fs::read_to_string(d.join("q.txt"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(d.join("q299.txt"), fewer).unwrap();
    from_stdin("p.txt", 1, "i1.csv");
    from_stdin("q299.txt", 2, "i2.csv");
    let (code, err) = run(d, &["merge", "i1.csv", "i2.csv", "-o", "all.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "i2.csv: not a shard of the same run as i1.csv: input 1 differs: standard input is \
             24,518 bytes, there 24,600"
        ),
        "{err}"
    );
    // Without the hashes (a sidecar written before they were kept), the shards' counts of the
    // input's records tell them apart.
    for sidecar in ["i1.csv.run.json", "i2.csv.run.json"] {
        as_if_unhashed(&d.join(sidecar));
    }
    let (code, err) = run(d, &["merge", "i1.csv", "i2.csv", "-o", "all.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "i2.csv: not a shard of the same run as i1.csv: its run read 299 records, that one's \
             300"
        ),
        "{err}"
    );
    assert!(!d.join("all.csv").exists() && !d.join("all.csv.partial").exists());
    // The same number of records: the hashes of the bytes each shard read tell them apart,
    // from a file on standard input as from a pipe.
    from_stdin("p.txt", 1, "i1.csv");
    from_stdin("q.txt", 2, "i2.csv");
    let same_size = "i2.csv: not a shard of the same run as i1.csv: input 1 differs: standard \
                     input has the same size";
    let (code, err) = run(d, &["merge", "i1.csv", "i2.csv", "-o", "all.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(same_size), "{err}");
    let piped = |input: &str, k: u32, out: &str| {
        let output = bin()
            .current_dir(d)
            .args(["solve", "-", "-q", "--shard", &format!("{k}/2"), "-o", out])
            .write_stdin(std::fs::read(d.join(input)).unwrap())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{output:?}");
    };
    piped("q.txt", 1, "i1.csv");
    piped("p.txt", 2, "i2.csv");
    let (code, err) = run(d, &["merge", "i1.csv", "i2.csv", "-o", "all.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(same_size), "{err}");
    assert!(!d.join("all.csv").exists() && !d.join("all.csv.partial").exists());
    // The same input, once on a pipe and once from the file, merges.
    from_stdin("p.txt", 1, "i1.csv");
    let (code, err) = run(d, &["merge", "i1.csv", "i2.csv", "-o", "all.csv"]);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_file(d.join("all.csv")).unwrap();
    // So does the same content read from a pipe and named.
    let (code, err) = run(
        d,
        &["solve", "p.txt", "-q", "--shard", "2/2", "-o", "i2.csv"],
    );
    assert_eq!(code, 0, "{err}");
    let (code, err) = run(d, &["merge", "i1.csv", "i2.csv", "-o", "all.csv"]);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_file(d.join("all.csv")).unwrap();
}

#[test]
fn merge_compares_each_input_with_the_first_shard_that_hashed_it() {
    let dir = solved_dir();
    let d = dir.path();
    another_input(d);
    // A file on standard input that a command before read part of (`{ read l; solve -; } <
    // FILE`): the bytes from where the run found it are hashed.
    let after_first_line = |input: &str, k: u32, out: &str| {
        use std::io::{BufRead, Seek};
        let mut file = std::io::BufReader::new(std::fs::File::open(d.join(input)).unwrap());
        file.read_line(&mut String::new()).unwrap();
        let at = file.stream_position().unwrap();
        let mut file = file.into_inner();
        file.seek(std::io::SeekFrom::Start(at)).unwrap();
        let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("sudoku-batch"))
            .current_dir(d)
            .args(["solve", "-", "-q", "--shard", &format!("{k}/3"), "-o", out])
            .stdin(file)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{output:?}");
    };
    after_first_line("p.txt", 1, "t1.csv");
    after_first_line("p.txt", 2, "t2.csv");
    after_first_line("q.txt", 3, "t3.csv");
    let (code, err) = run(d, &["merge", "t1.csv", "t2.csv", "t3.csv", "-o", "all.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("t3.csv: not a shard of the same run as t1.csv: input 1 differs: standard input has the same size"),
        "{err}"
    );
    // A first shard whose run stopped before the end has no hashes: the others are compared
    // with the first finished one, whatever the order they are given in.
    as_if_unhashed(&d.join("t1.csv.run.json"));
    as_if_stopped(&d.join("t1.csv"));
    // Its warning says that its input was not compared.
    let (code, err) = run(
        d,
        &[
            "merge",
            "--allow-incomplete",
            "t1.csv",
            "t2.csv",
            "-o",
            "all.csv",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(
            "finish it with `solve --resume`; what it read from standard input or a FIFO has no \
             hash to compare with the other shards' input until then"
        ),
        "{err}"
    );
    std::fs::remove_file(d.join("all.csv")).unwrap();
    let (code, err) = run(
        d,
        &[
            "merge",
            "--allow-incomplete",
            "t1.csv",
            "t2.csv",
            "t3.csv",
            "-o",
            "all.csv",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("t3.csv: not a shard of the same run as t2.csv: input 1 differs"),
        "{err}"
    );
    assert!(!d.join("all.csv").exists() && !d.join("all.csv.partial").exists());
    // Nor does a finished first shard whose sidecar has no hash of its input (one written
    // before inputs on standard input were hashed).
    after_first_line("p.txt", 1, "t1.csv");
    as_if_unhashed(&d.join("t1.csv.run.json"));
    let (code, err) = run(d, &["merge", "t1.csv", "t2.csv", "t3.csv", "-o", "all.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("t3.csv: not a shard of the same run as t2.csv: input 1 differs"),
        "{err}"
    );
    assert!(!d.join("all.csv").exists() && !d.join("all.csv.partial").exists());
}

#[test]
fn merge_refuses_a_shard_of_another_input() {
    let dir = solved_dir();
    let d = dir.path();
    another_input(d);
    shard(d, "p.txt", 1, 2);
    std::fs::rename(d.join("s-1.csv"), d.join("a.csv")).unwrap();
    std::fs::rename(d.join("s-1.csv.run.json"), d.join("a.csv.run.json")).unwrap();
    shard(d, "q.txt", 2, 2);
    let (code, err) = run(d, &["merge", "a.csv", "s-2.csv", "-o", "all.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "s-2.csv: not a shard of the same run as a.csv: input 1 differs: q.txt and p.txt have \
             the same size"
        ),
        "{err}"
    );
    assert!(!d.join("all.csv").exists() && !d.join("all.csv.partial").exists());
    // A `rate` shard among `solve` ones is named as such, whichever comes first.
    let (code, err) = run(
        d,
        &[
            "rate", "p.txt", "-q", "--max-er", "1.0", "--shard", "2/2", "-o", "r.csv",
        ],
    );
    assert_eq!(code, 1, "{err}");
    let (code, err) = run(d, &["merge", "a.csv", "r.csv", "-o", "all.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("r.csv: a `rate` output, but a.csv is a `solve` output"),
        "{err}"
    );
    let (code, err) = run(d, &["merge", "r.csv", "a.csv", "-o", "all.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("a.csv: a `solve` output, but r.csv is a `rate` output"),
        "{err}"
    );
    // An empty file among `rate` shards without sidecars is named for what it is, wherever
    // it comes.
    std::fs::write(d.join("empty.csv"), "").unwrap();
    std::fs::copy(d.join("r.csv"), d.join("bare.csv")).unwrap();
    for order in [["bare.csv", "empty.csv"], ["empty.csv", "bare.csv"]] {
        let (code, err) = run(d, &["merge", order[0], order[1], "-o", "all.csv"]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("empty.csv: not a rate output: no header line"),
            "{order:?}: {err}"
        );
    }
    // A shard given again through a symbolic link is the same shard, named as such.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("a.csv", d.join("link.csv")).unwrap();
        let (code, err) = run(d, &["merge", "a.csv", "link.csv", "-o", "all.csv"]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("link.csv: shard 1/2 is also a.csv; give each shard once"),
            "{err}"
        );
    }
}

#[test]
fn a_shard_still_in_progress_is_checked_against_its_runs_sidecar() {
    let dir = solved_dir();
    let d = dir.path();
    let (code, err) = run(
        d,
        &[
            "generate", "-n", "300", "--seed", "15", "--clues", "30", "-q", "-o", "q.txt",
        ],
    );
    assert_eq!(code, 0, "{err}");
    for k in 1..=2 {
        shard(d, "p.txt", k, 3);
    }
    // Shard 3 stopped early: its rows in `s-3.csv.partial`, its sidecar `s-3.csv.run.json`.
    let stopped = |input: &str| {
        shard(d, input, 3, 3);
        std::fs::rename(d.join("s-3.csv"), d.join("s-3.csv.partial")).unwrap();
        as_if_stopped(&d.join("s-3.csv"));
    };
    let merge = [
        "merge",
        "s-1.csv",
        "s-2.csv",
        "s-3.csv.partial",
        "-o",
        "all.csv",
        "--allow-incomplete",
    ];
    stopped("q.txt");
    let (code, err) = run(d, &merge);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("s-3.csv.partial: not a shard of the same run as s-1.csv: input 1 differs"),
        "{err}"
    );
    assert!(!d.join("all.csv").exists());
    stopped("p.txt");
    let (code, err) = run(d, &merge);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("s-3.csv.partial: its run did not finish (s-3.csv.run.json records no end)"),
        "{err}"
    );
    assert!(!err.contains("of 3 missing"), "{err}");
    assert_eq!(rows(&d.join("all.csv")), rows(&d.join("out.csv")));
}

/// A shard named by its final name that is still (or again) in progress is not taken for a
/// missing file: merge says where its rows are.
#[test]
fn a_shard_left_in_progress_is_named_by_merge() {
    let dir = solved_dir();
    let d = dir.path();
    std::fs::rename(d.join("out.csv"), d.join("out.csv.partial")).unwrap();
    let (code, err) = run(d, &["merge", "out.csv", "-q", "-o", "all.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("cannot open out.csv")
            && err.contains("out.csv.partial is there: its run did not finish"),
        "{err}"
    );
    assert!(!d.join("all.csv").exists());
}

/// A shard that can be read only once (a FIFO, or `<(cat FILE)`) is refused at once, naming
/// it: merge reads a shard more than once, and a second open of a FIFO whose writer is done
/// waits forever (deaf to SIGTERM, blocked in the open).
#[cfg(unix)]
#[test]
fn a_shard_given_as_a_fifo_is_refused_not_waited_on() {
    let dir = solved_dir();
    let d = dir.path();
    for k in 1..=2 {
        shard(d, "p.txt", k, 2);
    }
    let fifo = d.join("f1");
    crate::support::mkfifo(&fifo);
    // Fed once, as `cat s-1.csv > f1 &` feeds it.
    let text = std::fs::read(d.join("s-1.csv")).unwrap();
    let to = fifo.clone();
    let writer = std::thread::spawn(move || std::fs::write(to, text).is_ok());
    let output = bin()
        .current_dir(d)
        .args(["merge", "f1", "s-2.csv", "-q", "-o", "all.csv"])
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains("f1: a pipe or FIFO, which can be read only once"),
        "{err}"
    );
    assert!(!d.join("all.csv").exists());
    // The writer still waits for a reader: this one lets it finish.
    let _ = std::fs::read(&fifo);
    writer.join().unwrap();
}

#[test]
fn merge_of_a_shard_cut_short_writes_nothing_unless_allowed() {
    let dir = solved_dir();
    let d = dir.path();
    for k in 1..=3 {
        shard(d, "p.txt", k, 3);
    }
    // The last 5 rows of shard 2 are gone (whole lines: no torn row to notice).
    let text = std::fs::read_to_string(d.join("s-2.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let cut: String = lines[..lines.len() - 5]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(d.join("s-2.csv"), cut).unwrap();
    let merge = ["merge", "s-1.csv", "s-2.csv", "s-3.csv", "-o", "all.csv"];
    let (code, err) = run(d, &merge);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("merge: incomplete: s-2.csv: "), "{err}");
    assert!(err.contains("but its run wrote"), "{err}");
    assert!(err.contains("merge: nothing written"), "{err}");
    assert!(!d.join("all.csv").exists() && !d.join("all.csv.partial").exists());

    let mut allowed = merge.to_vec();
    allowed.push("--allow-incomplete");
    let (code, err) = run(d, &allowed);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("warning: incomplete (--allow-incomplete): s-2.csv: "),
        "{err}"
    );
    assert_eq!(rows(&d.join("all.csv")).len(), 1 + 300 - 5);
    // `-q` keeps the warnings, drops the summary.
    allowed.push("-q");
    let (code, quiet) = run(d, &allowed);
    assert_eq!(code, 1, "{quiet}");
    assert!(
        err.contains("puzzles: 295") && !quiet.contains("puzzles:"),
        "{quiet}"
    );
    assert!(
        quiet.contains("warning: incomplete (--allow-incomplete): s-2.csv: "),
        "{quiet}"
    );

    // An unfinished shard (its sidecar records no end) is cut off too.
    std::fs::write(d.join("s-2.csv"), text).unwrap();
    let sidecar = d.join("s-2.csv.run.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sidecar).unwrap()).unwrap();
    json["finished"] = serde_json::Value::Null;
    std::fs::write(&sidecar, json.to_string()).unwrap();
    std::fs::remove_file(d.join("all.csv")).unwrap();
    let (code, err) = run(d, &merge);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("s-2.csv: its run did not finish"), "{err}");
    assert!(!d.join("all.csv").exists());
}

/// A shard copied without its sidecar is merged with `--allow-incomplete`, and the warning
/// says its shard cannot be told, not that the shard is missing from the inputs.
#[test]
fn a_shard_without_its_sidecar_is_not_called_missing() {
    let dir = solved_dir();
    let d = dir.path();
    for k in 1..=3 {
        shard(d, "p.txt", k, 3);
    }
    std::fs::copy(d.join("s-1.csv"), d.join("copy.csv")).unwrap();
    let merge = ["merge", "copy.csv", "s-2.csv", "s-3.csv", "-o", "all.csv"];
    let (code, err) = run(d, &merge);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("copy.csv: no copy.csv.run.json beside it"),
        "{err}"
    );
    assert!(
        err.contains("shard(s) 1 of 3 not found: no input with a sidecar is theirs; copy.csv (without one) may hold their rows, which cannot be told"),
        "{err}"
    );
    assert!(!err.contains("of 3 missing"), "{err}");
    let mut allowed = merge.to_vec();
    allowed.push("--allow-incomplete");
    let (code, err) = run(d, &allowed);
    assert_eq!(code, 1, "{err}");
    assert_eq!(rows(&d.join("all.csv")).len(), 1 + 300, "{err}");
    // Without the copy, shard 1 is missing indeed.
    std::fs::remove_file(d.join("all.csv")).unwrap();
    let (code, err) = run(d, &["merge", "s-2.csv", "s-3.csv", "-o", "all.csv"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("shard(s) 1 of 3 missing: no output of theirs among the inputs"),
        "{err}"
    );
}

/// A compressed shard cut inside a member (a copy that lost its end) merges, with
/// `--allow-incomplete`, the rows of its whole members, saying where the torn one was left
/// out, as a plain shard cut inside a row merges its whole rows.
#[test]
fn a_compressed_shard_cut_inside_a_member_merges_its_whole_members() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(data("magictour_top1465.txt"), d.join("m.txt")).unwrap();
    std::fs::copy(data("norvig_top95.txt"), d.join("p.txt")).unwrap();
    for (command, input, ext) in [
        ("solve", "m.txt", "gz"),
        ("solve", "m.txt", "zst"),
        ("rate", "p.txt", "gz"),
    ] {
        let shard = |k: u32| format!("{command}-{k}.csv.{ext}");
        for k in 1..=2 {
            let args = [command, input, "-q", "--shard", &format!("{k}/2"), "-o"];
            let (code, err) = run(d, &[&args[..], &[shard(k).as_str()]].concat());
            assert_eq!(code, 0, "{err}");
        }
        let whole = format!("{command}-{ext}-whole.csv");
        let (code, err) = run(d, &["merge", &shard(1), &shard(2), "-q", "-o", &whole]);
        assert_eq!(code, 0, "{err}");
        let first = d.join(shard(1));
        let size = std::fs::metadata(&first).unwrap().len();
        std::fs::File::options()
            .write(true)
            .open(&first)
            .unwrap()
            .set_len(size * 2 / 3)
            .unwrap();
        let cut = format!("{command}-{ext}-cut.csv");
        let merge = [
            "merge",
            &shard(1),
            &shard(2),
            "-q",
            "-o",
            &cut,
            "--allow-incomplete",
        ];
        let (code, err) = run(d, &merge);
        assert_eq!(code, 1, "{command} {ext}: {err}");
        assert!(
            err.contains(&format!(
                "{}: cut off inside a compressed member at byte",
                shard(1)
            )),
            "{command} {ext}: {err}"
        );
        let rows = |name: &str| -> Vec<String> {
            let text = std::fs::read_to_string(d.join(name)).unwrap();
            text.lines().skip(1).map(String::from).collect()
        };
        let (all, kept) = (rows(&whole), rows(&cut));
        assert!(kept.len() < all.len(), "{command} {ext}");
        let (time, all_header) = (
            if command == "solve" {
                "solve_ns"
            } else {
                "rate_ns"
            },
            std::fs::read_to_string(d.join(&whole)).unwrap(),
        );
        let slot = all_header
            .lines()
            .next()
            .unwrap()
            .split(',')
            .position(|c| c == time)
            .unwrap();
        let untimed = |row: &String| -> String {
            let mut fields: Vec<&str> = row.split(',').collect();
            fields[slot] = "";
            fields.join(",")
        };
        let all: std::collections::HashSet<String> = all.iter().map(untimed).collect();
        assert!(
            kept.iter().all(|r| all.contains(&untimed(r))),
            "{command} {ext}: every merged row is a row of the whole merge"
        );
    }
}

/// A shard whose last row is torn (cut inside the row, not after a line end), for `solve` and
/// `rate` shards, plain or gzip: nothing written, and with `--allow-incomplete` that row left
/// out (any of its fields may be short), never merged as it is.
#[test]
fn a_torn_last_row_of_a_shard_is_left_out_never_merged() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(data("norvig_top95.txt"), d.join("p.txt")).unwrap();
    for (command, gz) in [
        ("solve", false),
        ("rate", false),
        ("solve", true),
        ("rate", true),
    ] {
        let ext = if gz { "csv.gz" } else { "csv" };
        for k in 1..=2 {
            let name = format!("{command}-{k}.{ext}");
            let (code, err) = run(
                d,
                &[
                    command,
                    "p.txt",
                    "-q",
                    "--shard",
                    &format!("{k}/2"),
                    "-o",
                    &name,
                ],
            );
            assert_eq!(code, 0, "{err}");
        }
        // Shard 1 loses its last three bytes: the end of its last row's `file` field.
        let first = d.join(format!("{command}-1.{ext}"));
        let plain = if gz {
            let mut text = Vec::new();
            std::io::Read::read_to_end(
                &mut flate2::read::MultiGzDecoder::new(std::fs::File::open(&first).unwrap()),
                &mut text,
            )
            .unwrap();
            text
        } else {
            std::fs::read(&first).unwrap()
        };
        let rows_in_first = plain.iter().filter(|&&b| b == b'\n').count() - 1;
        let cut = &plain[..plain.len() - 3];
        if gz {
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            std::io::Write::write_all(&mut encoder, cut).unwrap();
            std::fs::write(&first, encoder.finish().unwrap()).unwrap();
        } else {
            std::fs::write(&first, cut).unwrap();
        }
        let torn = format!(
            "{command}-1.{ext}: line {}: a cut-off row (no line end), left out",
            rows_in_first + 1
        );
        let merged = format!("{command}-all-from-{}.csv", if gz { "gz" } else { "plain" });
        let mut merge = vec![
            "merge".to_string(),
            format!("{command}-1.{ext}"),
            format!("{command}-2.{ext}"),
            "-q".into(),
            "-o".into(),
            merged.clone(),
        ];
        let args: Vec<&str> = merge.iter().map(String::as_str).collect();
        let (code, err) = run(d, &args);
        assert_eq!(code, 1, "{command} {ext}: {err}");
        // (The sidecar's byte count already tells the shard was cut.)
        assert!(
            err.contains(&format!("merge: incomplete: {command}-1.{ext}: "))
                && err.contains("merge: nothing written"),
            "{err}"
        );
        assert!(!d.join(&merged).exists(), "{command} {ext}");
        merge.push("--allow-incomplete".into());
        merge.extend(["--summary".into(), "m.json".into()]);
        let args: Vec<&str> = merge.iter().map(String::as_str).collect();
        let (code, err) = run(d, &args);
        assert_eq!(code, 1, "{command} {ext}: {err}");
        assert!(
            err.contains(&format!("warning: incomplete (--allow-incomplete): {torn}")),
            "{err}"
        );
        // The summary says so too: it is not the summary of a whole run.
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join("m.json")).unwrap()).unwrap();
        let said = json["incomplete"].as_array().unwrap();
        assert!(
            said.iter().any(|s| s.as_str().unwrap().starts_with(&torn)),
            "{command} {ext}: {json}"
        );
        let text = std::fs::read_to_string(d.join(&merged)).unwrap();
        assert_eq!(text.lines().count(), 1 + 95 - 1, "{command} {ext}");
        assert!(
            text.lines().skip(1).all(|l| l.ends_with(",p.txt")),
            "{command} {ext}"
        );
    }
}

#[test]
fn merge_rechecks_every_row_and_names_the_shard_and_line_of_a_changed_one() {
    let dir = solved_dir();
    let d = dir.path();
    for k in 1..=4 {
        let (shard, out) = (format!("{k}/4"), format!("s{k}.csv"));
        let (code, err) = run(d, &["solve", "p.txt", "-q", "--shard", &shard, "-o", &out]);
        assert_eq!(code, 0, "{err}");
    }
    let merge = [
        "merge", "s1.csv", "s2.csv", "s3.csv", "s4.csv", "-o", "m.csv",
    ];
    assert_eq!(run(d, &merge).0, 0);
    std::fs::remove_file(d.join("m.csv")).unwrap();
    // One digit of one solution changed: same size, sidecar kept.
    let text = std::fs::read_to_string(d.join("s3.csv")).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut fields: Vec<String> = lines[5].split(',').map(String::from).collect();
    let solution = &mut fields[3];
    let digit = if solution.ends_with('1') { '2' } else { '1' };
    solution.pop();
    solution.push(digit);
    lines[5] = fields.join(",");
    let changed = lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    assert_eq!(changed.len(), text.len());
    std::fs::write(d.join("s3.csv"), changed).unwrap();
    let (code, err) = run(d, &merge);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("s3.csv: line 6: status solved but the"),
        "{err}"
    );
    assert!(!d.join("m.csv").exists() && !d.join("m.csv.partial").exists());
    // A status that does not fit the row (`unsolvable` with a solution) is refused even when
    // merging what there is.
    std::fs::write(
        d.join("s3.csv"),
        text.replacen(",solved,", ",unsolvable,", 1),
    )
    .unwrap();
    let (code, err) = run(d, &[&merge[..], &["--allow-incomplete"]].concat());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("status unsolvable but a solution"), "{err}");
    // The same row with its solution removed too (merged as what there is, since the shard's
    // size changed): solved again, the puzzle has one.
    let mut fields: Vec<String> = text
        .lines()
        .nth(5)
        .unwrap()
        .split(',')
        .map(String::from)
        .collect();
    (fields[3], fields[4]) = (String::new(), "unsolvable".into());
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines[5] = fields.join(",");
    std::fs::write(d.join("s3.csv"), lines.join("\n") + "\n").unwrap();
    let (code, err) = run(d, &[&merge[..], &["--allow-incomplete"]].concat());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "s3.csv: line 6: status unsolvable, but solving the puzzle again gives solved"
        ),
        "{err}"
    );
    // The same row said given up on, the shard's size kept (the message padded): the runs had
    // no --max-guesses, so none gave up.
    let edited = edited_to_gave_up(&text, 5);
    let pad = text.len() - edited.len();
    let mut lines: Vec<String> = edited.lines().map(String::from).collect();
    let mut fields: Vec<String> = lines[5].split(',').map(String::from).collect();
    fields[7] = "x".repeat(pad);
    lines[5] = fields.join(",");
    let edited = lines.join("\n") + "\n";
    assert_eq!(edited.len(), text.len());
    std::fs::write(d.join("s3.csv"), edited).unwrap();
    let (code, err) = run(d, &merge);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("s3.csv: line 6: status gave_up, which only a run with --max-guesses gives"),
        "{err}"
    );
}

#[test]
fn killed_runs_plain_and_compressed_resume_to_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    let input = repeated_puzzles(dir.path(), 30, "big.txt"); // 30,000 puzzles, about 6 MB of output
    let full = dir.path().join("full.csv");
    bin()
        .args(["solve", "-q", "-o"])
        .arg(&full)
        .arg(&input)
        .assert()
        .code(0);
    let out = dir.path().join("out.csv");
    let partial = dir.path().join("out.csv.partial");
    let mut child = spawn_solve(&input, &out, &["-j", "2"]);
    wait_for_growth(&mut child, &partial, 300_000);
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    assert!(
        !out.exists(),
        "a killed run must not leave a finished-looking file"
    );
    // Its sidecar was written with the first rows, before the input was read through: no hash.
    assert_eq!(recorded_hashes(&out), [None]);
    let written = std::fs::read(&partial).unwrap();
    let total = std::fs::read(&full).unwrap();
    assert!(written.len() < total.len(), "killed midway");
    // Simulate a write torn by the kill: half a row at the end.
    let mut torn = std::fs::OpenOptions::new()
        .append(true)
        .open(&partial)
        .unwrap();
    torn.write_all(b"123456,7,..3.").unwrap();
    drop(torn);
    let resumed = bin()
        .args(["solve", "-j", "1", "--resume", "-o"])
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(resumed.status.code(), Some(0));
    let note = String::from_utf8_lossy(&resumed.stderr);
    assert!(note.contains("resume: kept "), "{note}");
    let hash = blake3::hash(&std::fs::read(&input).unwrap());
    assert_eq!(recorded_hashes(&out), [Some(hash.to_hex().to_string())]);
    assert!(!partial.exists());
    let got = std::fs::read(&out).unwrap();
    assert_eq!(rows_without(&got, false), rows_without(&total, false));
    // Byte-identical apart from solve_ns: the kept prefix is exactly what was written.
    let kept_len = written.iter().rposition(|&b| b == b'\n').unwrap() + 1;
    assert_eq!(&got[..kept_len], &written[..kept_len]);
    // Resuming a finished output keeps everything and solves nothing.
    bin()
        .args(["solve", "--resume", "-o"])
        .arg(&out)
        .arg(&input)
        .assert()
        .code(0)
        .stderr(predicate::str::contains("kept 30000 row(s)"));
    assert_eq!(std::fs::read(&out).unwrap(), got);
    // Rows that do not match the input are refused, not mixed with a new run.
    std::fs::write(&partial, &got[..kept_len]).unwrap();
    std::fs::remove_file(&out).unwrap();
    bin()
        .args(["solve", "--resume", "-o"])
        .arg(&out)
        .arg(data("norvig_top95.txt"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot resume: input 1 differs: "));

    // Compressed outputs, cut inside their last member as a kill during a write would cut them.
    let want = rows_without(&total, false);
    for (name, decode) in [
        ("out.csv.gz", gunzip as fn(&[u8]) -> Vec<u8>),
        ("out.csv.zst", unzstd),
    ] {
        let out = dir.path().join(name);
        let partial = dir.path().join(format!("{name}.partial"));
        let mut child = spawn_solve(&input, &out, &["-q", "-j", "2"]);
        wait_for_growth(&mut child, &partial, 40_000);
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(
            !out.exists(),
            "{name}: a killed run leaves no finished file"
        );
        let len = std::fs::metadata(&partial).unwrap().len();
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&partial)
            .unwrap();
        file.set_len(len - 7).unwrap();
        drop(file);
        let resumed = bin()
            .args(["solve", "-j", "1", "--resume", "-o"])
            .arg(&out)
            .arg(&input)
            .output()
            .unwrap();
        let note = String::from_utf8_lossy(&resumed.stderr);
        assert_eq!(resumed.status.code(), Some(0), "{name}: {note}");
        assert!(note.contains("resume: kept "), "{note}");
        assert!(!note.contains("kept 0 row"), "{name}: {note}");
        assert!(!partial.exists());
        let got = std::fs::read(&out).unwrap();
        assert_eq!(rows_without(&decode(&got), false), want, "{name}");
        let tool = if name.ends_with("gz") { "gzip" } else { "zstd" };
        if let Some(text) = tool_decompress(tool, &out) {
            assert_eq!(rows_without(&text, false), want, "{name} by {tool}");
        }
        // The sidecar's CRC-32 counts the kept members and the resealed one: a resume of the
        // finished output finds it unchanged (as the plain one above does).
        let again = bin()
            .args(["solve", "-q", "--resume", "-o"])
            .arg(&out)
            .arg(&input)
            .output()
            .unwrap();
        let note = String::from_utf8_lossy(&again.stderr);
        assert_eq!(again.status.code(), Some(0), "{name}: {note}");
        assert_eq!(std::fs::read(&out).unwrap(), got, "{name}");
    }
}

#[test]
fn resume_without_earlier_output_starts_over() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.csv");
    let input = data("norvig_top95.txt");
    bin()
        .args(["solve", "--resume", "-o"])
        .arg(&out)
        .arg(&input)
        .assert()
        .code(0)
        .stderr(predicate::str::contains("no earlier output"));
    let expected = solve_stdout(&[input.to_str().unwrap()], 0);
    let got = std::fs::read(&out).unwrap();
    assert_eq!(rows_without(&got, true), rows_without(&expected, true));
    assert!(got.starts_with(b"index,line,puzzle,"));
    // A partial output whose header was torn is started over too.
    std::fs::remove_file(&out).unwrap();
    std::fs::write(dir.path().join("out.csv.partial"), "index,li").unwrap();
    bin()
        .args(["solve", "-q", "--resume", "-o"])
        .arg(&out)
        .arg(&input)
        .assert()
        .code(0);
    assert_eq!(
        rows_without(&std::fs::read(&out).unwrap(), true),
        rows_without(&expected, true)
    );
    bin()
        .args(["solve", "--resume"])
        .arg(&input)
        .assert()
        .code(2);
}

#[test]
fn shards_merged_equal_one_run() {
    let dir = tempfile::tempdir().unwrap();
    // Every status: tdoku's set has unsolvable and multiple-solution puzzles; add bad lines.
    let mut text = std::fs::read_to_string(data("tdoku_test_puzzles.txt")).unwrap();
    text += "not a puzzle\n12345\n";
    text += &std::fs::read_to_string(data("norvig_top95.txt")).unwrap();
    let input = dir.path().join("mixed.txt");
    std::fs::write(&input, text).unwrap();
    let input = input.to_str().unwrap();
    let one = dir.path().join("one.csv");
    let one_json = dir.path().join("one.json");
    bin()
        .args(["solve", "-q", "--unique", input, "-o"])
        .arg(&one)
        .arg("--summary")
        .arg(&one_json)
        .assert()
        .code(1);
    let n = 3;
    let mut outs = Vec::new();
    let mut jsons = Vec::new();
    for k in 1..=n {
        let out = dir.path().join(format!("shard{k}.csv"));
        let json = dir.path().join(format!("shard{k}.json"));
        let mut cmd = bin();
        cmd.args(["solve", "-q", "--unique", input, "-o"]).arg(&out);
        cmd.arg("--summary").arg(&json);
        // Shard 1 from --shard, 2 from Slurm's variables, 3 from a Kubernetes Indexed Job's.
        match k {
            1 => cmd.args(["--shard", "1/3"]),
            2 => cmd
                .env("SLURM_ARRAY_TASK_ID", "5")
                .env("SLURM_ARRAY_TASK_MIN", "4")
                .env("SLURM_ARRAY_TASK_COUNT", "3"),
            _ => cmd
                .env("JOB_COMPLETION_INDEX", "2")
                .env("SUDOKU_BATCH_SHARDS", "3"),
        };
        cmd.assert().code(predicate::in_iter([0, 1]));
        let rows = rows_without(&std::fs::read(&out).unwrap(), false);
        assert!(rows
            .iter()
            .all(|r| r[0].parse::<u64>().unwrap() % n == k - 1));
        outs.push(out);
        jsons.push(json);
    }
    let merged = dir.path().join("merged.csv");
    let merged_json = dir.path().join("merged.json");
    let mut merge = bin();
    merge
        .arg("merge")
        .args(outs.iter().rev())
        .arg("-o")
        .arg(&merged);
    merge.arg("--summary").arg(&merged_json);
    for json in &jsons {
        merge.arg("--shard-summary").arg(json);
    }
    merge.assert().code(1); // some rows are not `solved`, as in the single run
    assert_eq!(
        rows_without(&std::fs::read(&merged).unwrap(), false),
        rows_without(&std::fs::read(&one).unwrap(), false)
    );
    // The same through the one reader of result files, with the counts it tallies; each
    // shard holds the rows of its indices.
    let (one_rows, one_counts) = read_rows(&one);
    let (merged_rows, merged_counts) = read_rows(&merged);
    assert_eq!(merged_rows, one_rows);
    assert_eq!(merged_counts, one_counts);
    for (k, shard) in outs.iter().enumerate() {
        let (rows, _) = read_rows(shard);
        assert!(!rows.is_empty() && rows.iter().all(|r| r.index % 3 == k as u64));
    }
    let summary = |p: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
    };
    let (a, b) = (summary(&one_json), summary(&merged_json));
    for key in [
        "puzzles",
        "solved",
        "unsolvable",
        "multiple",
        "invalid",
        "mismatch",
        "solver",
    ] {
        assert_eq!(a[key], b[key], "{key}");
    }
    assert_eq!(
        b["threads"].as_u64().unwrap(),
        3 * a["threads"].as_u64().unwrap()
    );
    assert!(b["multiple"].as_u64().unwrap() > 0 && b["invalid"].as_u64().unwrap() >= 2);
    // Summaries that do not count the shards' rows (one left out) are refused before
    // anything is written.
    let refused = dir.path().join("refused.csv");
    bin()
        .arg("merge")
        .args(&outs)
        .arg("-o")
        .arg(&refused)
        .args(["--shard-summary".as_ref(), jsons[0].as_os_str()])
        .args(["--shard-summary".as_ref(), jsons[1].as_os_str()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the --shard-summary files count"));
    assert!(!refused.exists() && !dir.path().join("refused.csv.partial").exists());
    // A missing shard is reported, not silently merged.
    bin()
        .arg("merge")
        .args(&outs[..2])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("missing"));
    // A shard with a bad row is refused with its file and line.
    let text = std::fs::read_to_string(&outs[1]).unwrap();
    std::fs::write(&outs[1], text.replacen(",solved,", ",sovled,", 1)).unwrap();
    bin()
        .arg("merge")
        .args(&outs)
        .arg("-o")
        .arg(&merged)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "shard2.csv: not a result row: line ",
        ))
        .stderr(predicate::str::contains(
            "status \"sovled\" is not one of solved, unsolvable",
        ));
    bin()
        .args(["solve", "--shard", "4/3", input])
        .assert()
        .code(2);
}

/// The BLAKE3 hash (hex) each input of the sidecar beside `out` records, in input order.
fn recorded_hashes(out: &Path) -> Vec<Option<String>> {
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.with_extension("csv.run.json")).unwrap())
            .unwrap();
    sidecar["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|input| input["blake3"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_finished_sidecar_records_the_hash_of_every_input_file_read_once_or_first() {
    let dir = solved_dir();
    let d = dir.path();
    let plain = std::fs::read(d.join("p.txt")).unwrap();
    std::fs::write(d.join("p.txt.gz"), crate::robust::gzip(&plain)).unwrap();
    crate::robust::zip_file(&d.join("p.zip"), &[("p.txt", &plain)]);
    let names = ["p.txt", "p.txt.gz", "p.zip", "p.zip:p.txt"];
    let on_disk = ["p.txt", "p.txt.gz", "p.zip", "p.zip"];
    let want: Vec<Option<String>> = on_disk
        .iter()
        .map(|f| {
            Some(
                blake3::hash(&std::fs::read(d.join(f)).unwrap())
                    .to_hex()
                    .to_string(),
            )
        })
        .collect();
    // The default columns (with the puzzle text): hashed as read, the zip archive (of which
    // only the member is read) afterwards. Without the puzzle column: hashed first.
    for columns in [None, Some("index,line,status")] {
        for command in ["solve", "rate"] {
            let mut args = vec![command, "-q", "-o", "out.csv"];
            args.extend(names);
            if let Some(columns) = columns {
                args.extend(["--columns", columns]);
            }
            let (code, err) = run(d, &args);
            assert_eq!(code, 0, "{args:?}: {err}");
            assert_eq!(recorded_hashes(&d.join("out.csv")), want, "{args:?}");
        }
    }
    // Standard input (a pipe here) by the hash of the bytes read from it.
    let out = bin()
        .current_dir(d)
        .args(["solve", "-q", "-o", "out.csv", "p.txt", "-"])
        .write_stdin(plain.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        recorded_hashes(&d.join("out.csv")),
        [want[0].clone(), want[0].clone()]
    );
}

/// Two members of one zip archive are two inputs: `--resume` and `merge` refuse to mix their
/// rows, though the archive (file, size, hash) is the same; the whole archive and its one
/// member name the same input.
#[test]
fn two_members_of_one_archive_are_two_inputs_to_resume_and_merge() {
    let dir = solved_dir();
    let d = dir.path();
    let plain = std::fs::read_to_string(d.join("p.txt")).unwrap();
    let lines: Vec<&str> = plain.lines().collect();
    let a: String = lines[..40].iter().map(|l| format!("{l}\n")).collect();
    let b: String = lines[40..80].iter().map(|l| format!("{l}\n")).collect();
    crate::robust::zip_file(
        &d.join("two.zip"),
        &[("a.txt", a.as_bytes()), ("b.txt", b.as_bytes())],
    );
    crate::robust::zip_file(&d.join("one.zip"), &[("a.txt", a.as_bytes())]);
    crate::robust::zip_file(
        &d.join("mixed.zip"),
        &[("a.txt", a.as_bytes()), ("b.dat", b.as_bytes())],
    );
    for command in ["solve", "rate"] {
        let columns = if command == "solve" {
            "index,status,guesses,solve_ns"
        } else {
            "index,status,er"
        };
        let out = format!("{command}.csv");
        let with = |input: &str, extra: &[&str]| {
            let mut args = vec![
                command,
                "-q",
                "-j",
                "1",
                input,
                "--columns",
                columns,
                "-o",
                &out,
            ];
            args.extend(extra);
            run(d, &args)
        };
        assert_eq!(with("two.zip:a.txt", &[]).0, 0);
        let (code, err) = with("two.zip:b.txt", &["--resume"]);
        assert_eq!(code, 2, "{command}: {err}");
        assert!(
            err.contains("input 1 differs: two.zip:a.txt was read, now two.zip:b.txt"),
            "{command}: {err}"
        );
        let (code, err) = with("two.zip:a.txt", &["--resume"]);
        assert_eq!(code, 0, "{command}: {err}");
        // The only member, named or not, is the same input.
        assert_eq!(with("one.zip", &[]).0, 0);
        let (code, err) = with("one.zip:a.txt", &["--resume"]);
        assert_eq!(code, 0, "{command}: {err}");
        // A whole archive reads its only .txt member: the other one named is another input.
        assert_eq!(with("mixed.zip", &[]).0, 0);
        let (code, err) = with("mixed.zip:b.dat", &["--resume"]);
        assert_eq!(code, 2, "{command}: {err}");
        assert!(
            err.contains("input 1 differs: mixed.zip was read, now mixed.zip:b.dat"),
            "{command}: {err}"
        );
        // A sidecar from before the member was recorded: told from the input's name.
        assert_eq!(with("two.zip:a.txt", &[]).0, 0);
        let sidecar = d.join(format!("{out}.run.json"));
        let mut json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&sidecar).unwrap()).unwrap();
        let input = json["inputs"][0].as_object_mut().unwrap();
        assert!(input.remove("zip_member").is_some(), "{json}");
        std::fs::write(&sidecar, json.to_string()).unwrap();
        let (code, err) = with("two.zip:b.txt", &["--resume"]);
        assert_eq!(code, 2, "{command}: {err}");

        for (k, member) in [(1, "a.txt"), (2, "b.txt")] {
            let input = format!("two.zip:{member}");
            let shard = format!("{k}/2");
            let out = format!("{command}-s{k}.csv");
            let (code, err) = run(
                d,
                &[
                    command, "-q", "-j", "1", &input, "--shard", &shard, "-o", &out,
                ],
            );
            assert_eq!(code, 0, "{err}");
        }
        let (s1, s2) = (format!("{command}-s1.csv"), format!("{command}-s2.csv"));
        let (code, err) = run(d, &["merge", "-q", &s1, &s2, "-o", "all.csv"]);
        assert_eq!(code, 2, "{command}: {err}");
        assert!(
            err.contains("input 1 differs: two.zip:b.txt was read here, two.zip:a.txt there"),
            "{command}: {err}"
        );
    }
}

/// Rewrites the sidecar beside `out` as the run that wrote it would have left it when stopped
/// before the end: not finished, and no input hash yet (hashes are taken as the input is read).
fn as_if_stopped(out: &Path) {
    let path = out.with_extension("csv.run.json");
    let mut sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    sidecar["finished"] = serde_json::Value::Null;
    for input in sidecar["inputs"].as_array_mut().unwrap() {
        input.as_object_mut().unwrap().remove("blake3");
    }
    std::fs::write(&path, serde_json::to_vec_pretty(&sidecar).unwrap()).unwrap();
}

#[test]
fn resuming_a_stopped_run_checks_kept_mismatches_against_the_references_now_in_the_input() {
    let dir = solved_dir();
    let d = dir.path();
    // `puzzle,solution` with the first 20 references wrong (two digits swapped).
    let solved: Vec<(String, String)> = std::fs::read_to_string(d.join("out.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[2].to_string(), f[3].to_string())
        })
        .collect();
    let csv = |wrong: usize| -> String {
        let mut text = String::from("puzzle,solution\n");
        for (i, (p, s)) in solved.iter().enumerate() {
            let s = if i < wrong {
                let (a, b) = (s.find('1').unwrap(), s.find('2').unwrap());
                let mut bytes = s.clone().into_bytes();
                bytes.swap(a, b);
                String::from_utf8(bytes).unwrap()
            } else {
                s.clone()
            };
            text.push_str(&format!("{p},{s}\n"));
        }
        text
    };
    std::fs::write(d.join("in.csv"), csv(20)).unwrap();
    let (code, err) = run(d, &["solve", "in.csv", "-q", "-o", "o.csv"]);
    assert_eq!(code, 1, "{err}");
    let text = std::fs::read_to_string(d.join("o.csv")).unwrap();
    assert_eq!(text.matches(",mismatch,").count(), 20);
    // Stopped after 100 rows; then the references are corrected, the file keeping its size.
    let kept: String = text.lines().take(101).map(|l| format!("{l}\n")).collect();
    std::fs::write(d.join("o.csv.partial"), kept).unwrap();
    std::fs::remove_file(d.join("o.csv")).unwrap();
    as_if_stopped(&d.join("o.csv"));
    let corrected = csv(0);
    assert_eq!(
        corrected.len(),
        std::fs::metadata(d.join("in.csv")).unwrap().len() as usize
    );
    std::fs::write(d.join("in.csv"), corrected).unwrap();
    let (code, err) = run(d, &["solve", "in.csv", "-q", "-o", "o.csv", "--resume"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("status mismatch but the solution is the input's reference solution"),
        "{err}"
    );
    // With the references as they were, the same stopped run resumes to the first run's rows.
    std::fs::write(d.join("in.csv"), csv(20)).unwrap();
    let (code, err) = run(d, &["solve", "in.csv", "-q", "-o", "o.csv", "--resume"]);
    assert_eq!(code, 1, "{err}");
    let resumed = std::fs::read_to_string(d.join("o.csv")).unwrap();
    assert_eq!(resumed.matches(",mismatch,").count(), 20);
    assert_eq!(resumed.lines().count(), text.lines().count());
}

/// Compressed shards (`-o FILE.gz`, `-o FILE.zst`, read by their first bytes, as `--resume`
/// reads them) merge to the rows of one run, beside a plain one, for `solve` and `rate` alike.
#[test]
fn compressed_shards_merge_like_plain_ones() {
    let dir = tempfile::tempdir().unwrap();
    let input = data("norvig_top95.txt");
    for command in [&["solve", "-q"][..], &["rate", "-q", "--max-er", "3.0"][..]] {
        let one = dir.path().join("one.csv");
        bin()
            .args(command)
            .arg("-o")
            .arg(&one)
            .arg(&input)
            .assert()
            .code(predicate::in_iter([0, 1]));
        let names = ["s1.csv.gz", "s2.csv.zst", "s3.csv"];
        for (k, name) in names.iter().enumerate() {
            bin()
                .args(command)
                .args(["--shard", &format!("{}/3", k + 1), "-o"])
                .arg(dir.path().join(name))
                .arg(&input)
                .assert()
                .code(predicate::in_iter([0, 1]));
        }
        let all = dir.path().join("all.csv");
        let mut merge = bin();
        merge.args(["merge", "-o"]).arg(&all);
        for name in names {
            merge.arg(dir.path().join(name));
        }
        merge.assert().code(predicate::in_iter([0, 1]));
        // Every column but the time taken.
        let without_time = |path: &Path| -> Vec<Vec<String>> {
            let mut reader = csv::Reader::from_path(path).unwrap();
            let header = reader.headers().unwrap().clone();
            reader
                .records()
                .map(|r| {
                    r.unwrap()
                        .iter()
                        .zip(header.iter())
                        .filter(|(_, h)| !h.ends_with("_ns"))
                        .map(|(f, _)| f.to_string())
                        .collect()
                })
                .collect()
        };
        let merged = without_time(&all);
        assert_eq!(merged.len(), 95, "{command:?}");
        assert_eq!(merged, without_time(&one), "{command:?}");
    }
}

/// A sharded run whose output `merge` would refuse (a column merge reads left out, or no
/// header) says so as it starts, before the cluster time is spent; one merge can read does not.
#[test]
fn a_shard_merge_would_refuse_is_warned_of_at_the_start() {
    let dir = solved_dir();
    let d = dir.path();
    for (args, lacks) in [
        (
            &["solve", "--columns", "index,puzzle,solution,status"][..],
            Some("lacks the column(s) guesses, solve_ns"),
        ),
        (
            &["rate", "--columns", "puzzle,er", "--no-header"][..],
            Some("lacks the column(s) index, status and a header (--no-header)"),
        ),
        (&["solve"][..], None),
        (&["rate", "--columns", "index,status"][..], None),
    ] {
        let mut all = args.to_vec();
        all.extend(["p.txt", "-q", "--shard", "1/2", "-o", "w.csv"]);
        let (code, err) = run(d, &all);
        assert!(code <= 1, "{err}");
        match lacks {
            Some(lacks) => assert!(
                err.contains("warning: --shard: merge will refuse this shard's output")
                    && err.contains(lacks),
                "{args:?}: {err}"
            ),
            None => assert!(!err.contains("merge will refuse"), "{args:?}: {err}"),
        }
    }
}

/// A merge with `--allow-incomplete` counts every index missing, also those past the last row
/// it merged: the finished shards' runs counted the input's records.
#[test]
fn a_merge_counts_the_indices_missing_past_its_last_row() {
    let dir = solved_dir();
    let d = dir.path();
    shard(d, "p.txt", 1, 2);
    let (code, err) = run(
        d,
        &["rate", "p.txt", "-q", "--shard", "1/2", "-o", "r-1.csv"],
    );
    assert!(code <= 1, "{err}");
    for (first, missing) in [
        ("s-1.csv", "150 index(es) missing between 0 and 299"),
        ("r-1.csv", "150 index(es) missing"),
    ] {
        let args = ["merge", first, "--allow-incomplete", "-o", "m.csv"];
        let (code, err) = run(d, &[&args[..], &["--summary", "m.json"]].concat());
        assert_eq!(code, 1, "{err}");
        assert!(err.contains(missing), "{err}");
        let json = std::fs::read_to_string(d.join("m.json")).unwrap();
        assert!(json.contains("\"150 index(es) missing\""), "{json}");
    }
}
