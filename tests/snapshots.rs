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

/// `assert_json_snapshot!` with redactions, named without the module prefix.
macro_rules! json_snapshot {
    ($name:expr, $value:expr, { $($sel:expr => $rep:expr),* $(,)? }) => {
        insta::with_settings!({ prepend_module_to_snapshot => false }, {
            insta::assert_json_snapshot!($name, $value, { $($sel => $rep),* });
        })
    };
}

macro_rules! args {
    ($($a:expr),* $(,)?) => { &[$(std::ffi::OsStr::new($a)),*] };
}

#[test]
fn solve_and_merge() {
    let dir = tempfile::tempdir().unwrap();
    let input = mixed_input(dir.path(), "mixed.txt");
    let (out, summary) = (dir.path().join("s.csv"), dir.path().join("s.json"));
    let (text, code) = run(args![
        "solve",
        "-j",
        "2",
        "--unique",
        "-o",
        &out,
        "--summary",
        &summary,
        &input
    ]);
    assert_eq!(code, 1);
    assert_text("solve_summary", &text);
    assert_text("solve_header", &header(&out));
    json_snapshot!("solve_json", json(&summary), {
        ".wall_seconds" => "[secs]",
        ".puzzles_per_second" => "[rate]",
        ".solve_ns.mean" => "[ns]",
        ".solve_ns.p50" => "[ns]",
        ".solve_ns.p90" => "[ns]",
        ".solve_ns.p99" => "[ns]",
        ".solve_ns.max" => "[ns]",
        ".cpu_seconds" => "[secs]",
        ".solve_share" => "[share]",
        ".guesses_per_puzzle" => "[g]",
        ".no_guess_percent" => "[p]",
    });

    let mut shards = Vec::new();
    for k in ["1/2", "2/2"] {
        let shard = dir.path().join(format!("shard{}.csv", &k[..1]));
        let (_, code) = run(args![
            "solve", "-q", "--unique", "--shard", k, "-o", &shard, &input
        ]);
        assert_eq!(code, 1);
        shards.push(shard);
    }
    let (merged, merged_json) = (dir.path().join("m.csv"), dir.path().join("m.json"));
    let (text, code) = run(args![
        "merge",
        "-o",
        &merged,
        "--summary",
        &merged_json,
        &shards[0],
        &shards[1]
    ]);
    assert_eq!(code, 1);
    assert_text("merge_summary", &text);
    assert_text("merge_header", &header(&merged));
    json_snapshot!("merge_json", json(&merged_json), {
        ".wall_seconds" => "[secs]",
        ".puzzles_per_second" => "[rate]",
        ".solve_ns.mean" => "[ns]",
        ".solve_ns.p50" => "[ns]",
        ".solve_ns.p90" => "[ns]",
        ".solve_ns.p99" => "[ns]",
        ".solve_ns.max" => "[ns]",
        ".cpu_seconds" => "[secs]",
        ".solve_share" => "[share]",
        ".span_seconds" => "[secs]",
        ".first_start_unix" => "[time]",
        ".last_end_unix" => "[time]",
        ".solver_cpu_seconds" => "[secs]",
        ".guesses_per_puzzle" => "[g]",
        ".no_guess_percent" => "[p]",
    });
}

#[test]
fn verify() {
    let dir = tempfile::tempdir().unwrap();
    let (report, summary) = (dir.path().join("v.csv"), dir.path().join("v.json"));
    let (text, code) = run(args![
        "verify",
        "-j",
        "2",
        "--report",
        &report,
        "--summary",
        &summary,
        &data("kaggle3m_radcliffe_first1000.csv")
    ]);
    assert_eq!(code, 0);
    assert_text("verify_summary", &text);
    assert_text("verify_header", &header(&report));
    json_snapshot!("verify_json", json(&summary), {
        ".wall_seconds" => "[secs]",
        ".rows_per_second" => "[rate]",
    });
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
    let (text, code) = run(args![
        "rate",
        "-j",
        "2",
        "-o",
        &out,
        "--summary",
        &summary,
        &data("norvig_easy50.txt")
    ]);
    assert_eq!(code, 0);
    assert_text("rate_summary", &text);
    assert_text("rate_header", &header(&out));
    json_snapshot!("rate_json", json(&summary), {
        ".wall_seconds" => "[secs]",
        ".puzzles_per_second" => "[rate]",
    });
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
    json_snapshot!("bench_json", json(&summary), {
        "[].timestamp" => "[time]",
        "[].passes" => "[n]",
        "[].puzzles_per_s" => "[rate]",
        "[].min_puzzles_per_s" => "[rate]",
        "[].max_puzzles_per_s" => "[rate]",
        "[].us_per_puzzle" => "[µs]",
        "[].p50_us" => "[µs]",
        "[].p99_us" => "[µs]",
        "[].guesses_per_puzzle" => "[guesses]",
        "[].no_guess_pct" => "[pct]",
        "[].efficiency" => "[share]",
        "[].cpu_share" => "[share]",
        "[].load_1m" => "[load]",
        "[].hostname" => "[machine]",
        "[].cpu" => "[machine]",
        "[].logical_cores" => "[machine]",
        "[].physical_cores" => "[machine]",
        "[].os" => "[machine]",
        "[].arch" => "[machine]",
        "[].version" => "[build]",
        "[].git_commit" => "[build]",
        "[].rustc" => "[build]",
        "[].cpu_features_used" => "[machine]",
        "[].cpu_features_available" => "[machine]",
    });
}
