//! One result row of `bench` and its vocabulary (status, mode): the CSV header, the JSON keys
//! and `report`'s input all come from [`BenchRow`].

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::sysinfo::{self, Machine};

/// How a row's configuration went. Serialised as the words of [`BenchStatus::as_str`], which
/// results files and scripts match on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BenchStatus {
    /// Measured.
    Ok,
    /// Not measured: one single-thread pass would take longer than `--max-pass`.
    Skipped,
    /// Not measured: the check pass found a bad solution (or an external solver printed a
    /// wrong or missing one).
    Wrong,
    /// An external solver exited unsuccessfully.
    Failed,
    /// An external solver ran past `--external-timeout` and was killed.
    Timeout,
    /// Measured, but the check pass gave up on some puzzles (`--max-guesses`): the rate is of
    /// a bounded run, not comparable with a whole one (`report` shows the status instead).
    #[serde(rename = "gave_up")]
    GaveUp,
}

impl BenchStatus {
    /// The word in results files.
    pub const fn as_str(self) -> &'static str {
        match self {
            BenchStatus::Ok => "ok",
            BenchStatus::Skipped => "skipped",
            BenchStatus::Wrong => "wrong",
            BenchStatus::Failed => "failed",
            BenchStatus::Timeout => "timeout",
            BenchStatus::GaveUp => "gave_up",
        }
    }
}

impl fmt::Display for BenchStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a solver was asked for. Serialised as the words of [`BenchMode::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BenchMode {
    /// Stop at the first solution (solution limit 1).
    First,
    /// Prove uniqueness (solution limit 2), as tdoku's benchmark does.
    Unique,
}

impl BenchMode {
    /// The mode for `--unique` or not.
    pub const fn new(unique: bool) -> BenchMode {
        if unique {
            BenchMode::Unique
        } else {
            BenchMode::First
        }
    }

    /// The word in results files.
    pub const fn as_str(self) -> &'static str {
        match self {
            BenchMode::First => "first",
            BenchMode::Unique => "unique",
        }
    }
}

impl fmt::Display for BenchMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One result row: a dataset × solver × mode × thread count on one machine. The CSV header,
/// the JSON keys and `report`'s input all come from this struct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchRow {
    /// When the row was measured, UTC, RFC 3339.
    pub timestamp: String,
    /// Dataset name.
    pub dataset: String,
    /// Puzzles in the dataset.
    pub puzzles: u64,
    /// SHA-256 of the dataset's puzzle list (see [`super::puzzle_list_sha256`]).
    pub sha256: String,
    /// Solver name.
    pub solver: String,
    /// `first` (solution limit 1) or `unique` (limit 2).
    pub mode: BenchMode,
    /// Solver threads.
    pub threads: usize,
    /// Seed of the equivalence transforms; empty when the puzzles were solved as given.
    pub permute_seed: Option<u64>,
    /// `ok`, `skipped` (too slow for `--max-pass`) or `wrong` (the check pass found a bad
    /// solution).
    pub status: BenchStatus,
    /// Puzzles the check pass solved (of `puzzles`).
    pub solved: Option<u64>,
    /// Timed passes.
    pub passes: u64,
    /// Puzzles per second of the median pass (wall clock).
    pub puzzles_per_s: Option<f64>,
    /// Slowest pass, puzzles per second.
    pub min_puzzles_per_s: Option<f64>,
    /// Fastest pass, puzzles per second.
    pub max_puzzles_per_s: Option<f64>,
    /// Wall-clock microseconds per puzzle of the median pass (1e6 / `puzzles_per_s`).
    pub us_per_puzzle: Option<f64>,
    /// Median solve time of one puzzle, µs, over every timed pass.
    pub p50_us: Option<f64>,
    /// 99th percentile solve time of one puzzle, µs.
    pub p99_us: Option<f64>,
    /// Mean guesses per puzzle.
    pub guesses_per_puzzle: Option<f64>,
    /// Share of puzzles solved without a guess, percent.
    pub no_guess_pct: Option<f64>,
    /// Rate ÷ (threads × one-thread rate); empty without a one-thread row.
    pub efficiency: Option<f64>,
    /// CPU time the process got during the timed passes ÷ (their wall time × threads): below 1
    /// when other work took the cores (the numbers are then low); empty where not measured.
    pub cpu_share: Option<f64>,
    /// Why a row was skipped, or other remarks.
    pub note: String,
    /// One-minute load average when the row was finished (Linux; empty elsewhere): other work
    /// on the machine makes the numbers noisy.
    pub load_1m: Option<f64>,
    /// Host name.
    pub hostname: String,
    /// CPU model.
    pub cpu: String,
    /// Logical cores.
    pub logical_cores: usize,
    /// Physical cores.
    pub physical_cores: usize,
    /// Operating system.
    pub os: String,
    /// Architecture.
    pub arch: String,
    /// sudoku-batch version.
    pub version: String,
    /// Git commit of the build.
    pub git_commit: String,
    /// rustc version of the build.
    pub rustc: String,
    /// CPU features the solvers were compiled to use.
    pub cpu_features_used: String,
    /// CPU features this CPU has.
    pub cpu_features_available: String,
}

impl BenchRow {
    /// What makes this row one `bench` never writes, in words: a measured number that is not
    /// finite or below 0, a timestamp not in RFC 3339 form (`report` orders runs by it), no
    /// thread, a measured row without its rate, or no host name.
    pub(crate) fn defect(&self) -> Option<String> {
        if let Some((name, value)) = self.bad_number() {
            return Some(format!(
                "{name} is {value}, not a finite number of 0 or more"
            ));
        }
        if !is_rfc3339(&self.timestamp) {
            return Some(format!(
                "timestamp {:?} is not a UTC time such as 2026-01-31T12:00:00Z",
                self.timestamp
            ));
        }
        if self.threads == 0 {
            return Some("threads is 0".into());
        }
        if self.status == BenchStatus::Ok && self.puzzles_per_s.is_none() {
            return Some("status is ok but puzzles_per_s is empty".into());
        }
        if self.hostname.trim().is_empty() {
            return Some("hostname is empty".into());
        }
        None
    }

    /// The first measured number that no measurement gives (not finite, or below 0), with its
    /// column's name: such a row was not written by `bench`.
    pub(crate) fn bad_number(&self) -> Option<(&'static str, f64)> {
        [
            ("puzzles_per_s", self.puzzles_per_s),
            ("min_puzzles_per_s", self.min_puzzles_per_s),
            ("max_puzzles_per_s", self.max_puzzles_per_s),
            ("us_per_puzzle", self.us_per_puzzle),
            ("p50_us", self.p50_us),
            ("p99_us", self.p99_us),
            ("guesses_per_puzzle", self.guesses_per_puzzle),
            ("no_guess_pct", self.no_guess_pct),
            ("efficiency", self.efficiency),
            ("cpu_share", self.cpu_share),
            ("load_1m", self.load_1m),
        ]
        .into_iter()
        .find_map(|(name, v)| v.filter(|v| !v.is_finite() || *v < 0.0).map(|v| (name, v)))
    }
}

/// Whether `text` is a UTC time in RFC 3339 form, as `bench` writes it
/// (`2026-01-31T12:00:00Z`, a fraction of a second allowed).
fn is_rfc3339(text: &str) -> bool {
    utc_time_key(text).is_some()
}

/// The order of UTC times in RFC 3339 form (`2026-01-31T12:00:00Z`, `...:00.25Z`): the
/// date and time of day (fixed width, so text order is time order) and the fraction in
/// nanoseconds; `None` for any other text (an offset, a field out of range, anything after
/// the seconds but a fraction and `Z`).
pub(crate) fn utc_time_key(text: &str) -> Option<(&str, u32)> {
    let b = text.as_bytes();
    let shape = b"dddd-dd-ddTdd:dd:dd";
    if b.len() <= shape.len()
        || !shape.iter().zip(b).all(|(&want, &got)| match want {
            b'd' => got.is_ascii_digit(),
            _ => got == want,
        })
    {
        return None;
    }
    let field = |at: usize| u32::from(b[at] - b'0') * 10 + u32::from(b[at + 1] - b'0');
    let ranges = [
        (5, 1, 12),
        (8, 1, 31),
        (11, 0, 23),
        (14, 0, 59),
        (17, 0, 60),
    ];
    if !ranges
        .iter()
        .all(|&(at, low, high)| (low..=high).contains(&field(at)))
    {
        return None;
    }
    let (&zone, fraction) = b[shape.len()..].split_last()?;
    if !matches!(zone, b'Z' | b'z') {
        return None;
    }
    let nanos = match fraction {
        [] => 0,
        [b'.', digits @ ..] if (1..=9).contains(&digits.len()) => {
            digits.iter().try_fold(0u32, |n, &d| {
                d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
            })? * 10u32.pow(9 - digits.len() as u32)
        }
        _ => return None,
    };
    Some((&text[..shape.len()], nanos))
}

/// The CSV header line `bench --csv` writes.
pub(crate) fn csv_header() -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    // Serializing a row writes the header first; the row is dropped.
    let _ = writer.serialize(empty_row(&Machine::detect()));
    let text = String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default();
    text.lines().next().unwrap_or_default().to_string()
}

pub(super) fn empty_row(machine: &Machine) -> BenchRow {
    BenchRow {
        timestamp: sysinfo::utc_now_rfc3339(),
        dataset: String::new(),
        puzzles: 0,
        sha256: String::new(),
        solver: String::new(),
        mode: BenchMode::First,
        threads: 0,
        permute_seed: None,
        status: BenchStatus::Ok,
        solved: None,
        passes: 0,
        puzzles_per_s: None,
        min_puzzles_per_s: None,
        max_puzzles_per_s: None,
        us_per_puzzle: None,
        p50_us: None,
        p99_us: None,
        guesses_per_puzzle: None,
        no_guess_pct: None,
        efficiency: None,
        cpu_share: None,
        note: String::new(),
        load_1m: None,
        hostname: machine.hostname.clone(),
        cpu: machine.cpu.clone(),
        logical_cores: machine.logical_cores,
        physical_cores: machine.physical_cores,
        os: machine.os.clone(),
        arch: machine.arch.clone(),
        version: machine.version.clone(),
        git_commit: machine.git_commit.clone(),
        rustc: machine.rustc.clone(),
        cpu_features_used: machine.cpu_features_used.clone(),
        cpu_features_available: machine.cpu_features_available.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_names_every_field_once() {
        let header = csv_header();
        let columns: Vec<&str> = header.split(',').collect();
        for want in [
            "timestamp",
            "dataset",
            "sha256",
            "solver",
            "mode",
            "threads",
            "puzzles_per_s",
            "p99_us",
            "efficiency",
            "hostname",
            "cpu",
            "git_commit",
            "rustc",
            "cpu_features_used",
        ] {
            assert_eq!(columns.iter().filter(|c| **c == want).count(), 1, "{want}");
        }
    }

    #[test]
    fn timestamps_are_rfc3339_times() {
        for good in ["2026-12-04T17:31:23Z", "2026-12-04T17:31:23.123456Z"] {
            assert!(is_rfc3339(good), "{good}");
        }
        assert!(is_rfc3339(&sysinfo::utc_now_rfc3339()));
        for bad in [
            "",
            "yesterday",
            "2026-12-04",
            "2026-12-04 17:31:23Z",
            "2026-12-04T17:31:23",
            "2026-12-04T17:31:23é",
            // An offset would sort as text against UTC times.
            "2026-12-04T17:31:23+01:00",
            "2026-12-04T17:31:23garbageZ",
            "2026-12-04T17:31:23.Z",
            "2026-13-04T17:31:23Z",
            "2026-12-04T24:00:00Z",
        ] {
            assert!(!is_rfc3339(bad), "{bad}");
        }
    }

    #[test]
    fn a_fraction_of_a_second_orders_by_its_value() {
        let key = |t| utc_time_key(t).unwrap();
        assert!(key("2026-12-05T04:27:31Z") < key("2026-12-05T04:27:31.5Z"));
        assert!(key("2026-12-05T04:27:31.5Z") == key("2026-12-05T04:27:31.500Z"));
        assert!(key("2026-12-05T04:27:31.45Z") < key("2026-12-05T04:27:31.5Z"));
        assert!(key("2026-12-05T04:27:31.999Z") < key("2026-12-05T04:27:32Z"));
    }
}
