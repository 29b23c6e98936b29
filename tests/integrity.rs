//! Resume and merge integrity: a run's sidecar (`FILE.run.json`) says what defines
//! its rows; `--resume` names what differs and re-checks the rows it keeps; `merge` refuses
//! shards of other runs and writes nothing when a shard is missing or cut off.

use std::path::{Path, PathBuf};

use crate::support::bin;

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
    let refusals: [(&[&str], &str); 3] = [
        (
            &["--unique"],
            "out.csv: cannot resume: the earlier run did not use --unique, this one does",
        ),
        (
            &["--solver", "singles"],
            "cannot resume: the earlier run used --solver bands, this one --solver singles",
        ),
        (
            &["--shard", "2/3"],
            "cannot resume: the earlier run solved every record (no --shard), this one shard 2/3",
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
                && err.contains("(this is not the output of a solve run: remove it to start over)"),
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

#[test]
fn three_good_shards_merge_equal_to_one_run_with_span_and_cpu_time() {
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

#[test]
fn merge_refuses_a_shard_of_another_input() {
    let dir = solved_dir();
    let d = dir.path();
    let (code, err) = run(
        d,
        &[
            "generate", "-n", "300", "--seed", "15", "--clues", "30", "-q", "-o", "q.txt",
        ],
    );
    assert_eq!(code, 0, "{err}");
    shard(d, "p.txt", 1, 2);
    std::fs::rename(d.join("s-1.csv"), d.join("a.csv")).unwrap();
    std::fs::rename(d.join("s-1.csv.run.json"), d.join("a.csv.run.json")).unwrap();
    shard(d, "q.txt", 2, 2);
    let (code, err) = run(d, &["merge", "a.csv", "s-2.csv", "-o", "all.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "s-2.csv: not a shard of the same run as a.csv: input 1 differs: q.txt (then p.txt)"
        ),
        "{err}"
    );
    assert!(!d.join("all.csv").exists() && !d.join("all.csv.partial").exists());
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
}
