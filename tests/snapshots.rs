//! The text people script against, as snapshots: each command's summary text, its JSON summary
//! and the header of its result file, on shipped data. Timings, rates and machine facts are
//! redacted; counts, status words, keys and column names are not. `cargo insta review` (or
//! `INSTA_UPDATE=always cargo test snapshots`) records an intended change.

use std::path::Path;

use crate::support::{bin, data, mixed_input};

/// Redactions for the summary text: durations, rates, per-puzzle times and the CPU line.
fn text_filters() -> Vec<(&'static str, &'static str)> {
    vec![
        (r"\d+(\.\d+)? s\b", "[secs] s"),
        (r"\d+ (puzzles|rows)/s", "[rate] $1/s"),
        (r"\d+(\.\d+)? µs/puzzle", "[µs]/puzzle"),
        (r"(?m)^solve time µs: .*$", "solve time µs: [times]"),
        (r"(?m)^cpu: .*$", "cpu: [cpu]"),
        // Guessing depends on the solver's search order, not on the output's format.
        (
            r"guesses/puzzle: [\d.]+, solved without guessing: [\d.]+%",
            "guesses/puzzle: [g], solved without guessing: [p]%",
        ),
    ]
}

/// Snapshots `text` under `name` with the timing redactions.
fn assert_text(name: &str, text: &str) {
    insta::with_settings!({ filters => text_filters(), prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!(name, text);
    });
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn header(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().next().unwrap_or_default().to_string()
}

/// Runs the binary with `args`, returning what it printed (stdout, then stderr, where the
/// summaries of commands that write rows to stdout go) and its exit code.
fn run(args: &[&std::ffi::OsStr]) -> (String, i32) {
    let out = bin().args(args).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap();
    (text, out.status.code().unwrap())
}

/// Snapshots the JSON summary at `path` under `name`, the values at the `redact` selectors
/// (timings, rates, the machine) replaced by `[redacted]`.
fn assert_json(name: &str, path: &Path, redact: &[&str]) {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    for selector in redact {
        settings.add_redaction(selector, "[redacted]");
    }
    settings.bind(|| insta::assert_json_snapshot!(name, json(path)));
}

/// Runs a command that writes rows to `out` and a JSON summary to `summary` (their flags are in
/// `args`), expects exit `code`, and snapshots its summary text, the rows' header and the JSON.
fn assert_command(
    name: &str,
    args: &[&std::ffi::OsStr],
    code: i32,
    out: &Path,
    summary: &Path,
    redact: &[&str],
) {
    let (text, got) = run(args);
    assert_eq!(got, code, "{name}: {text}");
    assert_text(&format!("{name}_summary"), &text);
    assert_text(&format!("{name}_header"), &header(out));
    assert_json(&format!("{name}_json"), summary, redact);
}

/// What a solve summary measures rather than counts.
const SOLVE_TIMINGS: [&str; 11] = [
    ".wall_seconds",
    ".puzzles_per_second",
    ".solve_ns.mean",
    ".solve_ns.p50",
    ".solve_ns.p90",
    ".solve_ns.p99",
    ".solve_ns.max",
    ".cpu_seconds",
    ".solve_share",
    // Guessing depends on the solver's search order, not on the output's format.
    ".guesses_per_puzzle",
    ".no_guess_percent",
];

macro_rules! args {
    ($($a:expr),* $(,)?) => { &[$(std::ffi::OsStr::new($a)),*] };
}

#[test]
fn solve_and_merge() {
    let dir = tempfile::tempdir().unwrap();
    let input = mixed_input(dir.path(), "mixed.txt");
    let (out, summary) = (dir.path().join("s.csv"), dir.path().join("s.json"));
    assert_command(
        "solve",
        args![
            "solve",
            "-j",
            "2",
            "--unique",
            "-o",
            &out,
            "--summary",
            &summary,
            &input
        ],
        1,
        &out,
        &summary,
        &SOLVE_TIMINGS,
    );

    let mut shards = Vec::new();
    for k in ["1/2", "2/2"] {
        let shard = dir.path().join(format!("shard{}.csv", &k[..1]));
        let (_, code) = run(args![
            "solve", "-q", "-j", "2", "--unique", "--shard", k, "-o", &shard, &input
        ]);
        assert_eq!(code, 1);
        shards.push(shard);
    }
    let (merged, merged_json) = (dir.path().join("m.csv"), dir.path().join("m.json"));
    let merged_timings = [
        ".span_seconds",
        ".first_start_unix",
        ".last_end_unix",
        ".solver_cpu_seconds",
    ];
    assert_command(
        "merge",
        args![
            "merge",
            "-o",
            &merged,
            "--summary",
            &merged_json,
            &shards[0],
            &shards[1]
        ],
        1,
        &merged,
        &merged_json,
        &[&SOLVE_TIMINGS[..], &merged_timings[..]].concat(),
    );
}

#[test]
fn verify() {
    let dir = tempfile::tempdir().unwrap();
    let (report, summary) = (dir.path().join("v.csv"), dir.path().join("v.json"));
    let input = data("kaggle3m_radcliffe_first1000.csv");
    assert_command(
        "verify",
        args![
            "verify",
            "-j",
            "2",
            "--report",
            &report,
            "--summary",
            &summary,
            &input
        ],
        0,
        &report,
        &summary,
        &[".wall_seconds", ".rows_per_second"],
    );
}

#[test]
fn generate() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.csv");
    let (text, code) = run(args![
        "generate",
        "-n",
        "20",
        "--seed",
        "7",
        "-j",
        "2",
        "--with-solution",
        "-o",
        &out
    ]);
    assert_eq!(code, 0);
    assert_text("generate_summary", &text);
    assert_text("generate_header", &header(&out));
}

#[test]
fn rate() {
    let dir = tempfile::tempdir().unwrap();
    let (out, summary) = (dir.path().join("r.csv"), dir.path().join("r.json"));
    let input = data("norvig_easy50.txt");
    assert_command(
        "rate",
        args!["rate", "-j", "2", "-o", &out, "--summary", &summary, &input],
        0,
        &out,
        &summary,
        &[".wall_seconds", ".puzzles_per_second"],
    );
}

#[test]
fn bench() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, summary) = (dir.path().join("b.csv"), dir.path().join("b.json"));
    let (_, code) = run(args![
        "bench",
        "-q",
        "-j",
        "1",
        "--solvers",
        "singles,bands",
        "--runs",
        "1",
        "--warmup",
        "0",
        "--min-time",
        "0",
        "--csv",
        &csv,
        "--summary",
        &summary,
        &data("norvig_top95.txt")
    ]);
    assert_eq!(code, 0);
    assert_text("bench_header", &header(&csv));
    // The measured figures and the machine are redacted; what each row is and its keys stay.
    let measured = [
        "[].timestamp",
        "[].passes",
        "[].puzzles_per_s",
        "[].min_puzzles_per_s",
        "[].max_puzzles_per_s",
        "[].us_per_puzzle",
        "[].p50_us",
        "[].p99_us",
        "[].guesses_per_puzzle",
        "[].no_guess_pct",
        "[].efficiency",
        "[].cpu_share",
        "[].load_1m",
        "[].hostname",
        "[].cpu",
        "[].logical_cores",
        "[].physical_cores",
        "[].os",
        "[].arch",
        "[].version",
        "[].git_commit",
        "[].rustc",
        "[].cpu_features_used",
        "[].cpu_features_available",
    ];
    assert_json("bench_json", &summary, &measured);
}
