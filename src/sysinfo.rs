//! The machine and build a measurement was taken on: hostname, CPU model, cores, OS,
//! architecture, sudoku-batch version and commit, rustc version, CPU features; and the UTC
//! timestamp. Recorded with every `bench` result row. Also the OS clocks of CPU time (the
//! process's and the calling thread's), which `bench` and `solve`'s summary use.

use serde::{Deserialize, Serialize};

/// sudoku-batch's version.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The git commit this binary was built from (`-dirty` with uncommitted source changes), or
/// `unknown`; set by `build.rs`.
pub(crate) const GIT_COMMIT: &str = env!("SUDOKU_BATCH_GIT_COMMIT");

/// `rustc --version` of the compiler that built this binary, or `unknown`; set by `build.rs`.
pub(crate) const RUSTC: &str = env!("SUDOKU_BATCH_RUSTC");

/// Where and with what a measurement was taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Machine {
    /// The host's name.
    pub hostname: String,
    /// The CPU's model name.
    pub cpu: String,
    /// Logical cores (hardware threads) of the machine, however few this process may use (its
    /// CPU affinity or cgroup quota): `threads` says what a run used.
    pub logical_cores: usize,
    /// Physical cores.
    pub physical_cores: usize,
    /// Operating system, with its release where known.
    pub os: String,
    /// CPU architecture (`x86_64`, `aarch64`, …).
    pub arch: String,
    /// sudoku-batch's version.
    pub version: String,
    /// The git commit of the build.
    pub git_commit: String,
    /// The compiler version of the build.
    pub rustc: String,
    /// The SIMD and bit-manipulation features the solvers use: those the build was compiled
    /// for (`-C target-feature` / `target-cpu`), plus those of the copy of `bands` chosen at run
    /// time on this CPU (POPCNT, BMI1/2, LZCNT, AVX2 where present).
    pub cpu_features_used: String,
    /// The same features as detected on this CPU at run time: what a `target-cpu=native` build
    /// could use.
    pub cpu_features_available: String,
}

impl Machine {
    /// Describes this machine and build.
    pub(crate) fn detect() -> Machine {
        Machine {
            hostname: hostname(),
            cpu: cpu_model(),
            logical_cores: machine_logical_cores(),
            physical_cores: num_cpus::get_physical(),
            os: os(),
            arch: std::env::consts::ARCH.to_string(),
            version: VERSION.to_string(),
            git_commit: GIT_COMMIT.to_string(),
            rustc: RUSTC.to_string(),
            cpu_features_used: {
                let mut used = features_used();
                for f in crate::solver::cpu_features() {
                    if !used.contains(f) {
                        used.push(f);
                    }
                }
                used.join(" ")
            },
            cpu_features_available: features_available().join(" "),
        }
    }
}

fn hostname() -> String {
    let name = gethostname::gethostname()
        .to_string_lossy()
        .trim()
        .to_string();
    if name.is_empty() {
        "unknown".to_string()
    } else {
        name
    }
}

/// The CPU's marketing name: the CPUID brand string on x86, `/proc/cpuinfo` or `sysctl`
/// elsewhere.
fn cpu_model() -> String {
    let name = cpuid_brand()
        .or_else(cpuinfo_model)
        .or_else(sysctl_brand)
        .unwrap_or_else(|| "unknown".to_string());
    // Collapse the padding some brand strings carry.
    name.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(target_arch = "x86_64")]
fn cpuid_brand() -> Option<String> {
    let mut bytes = Vec::with_capacity(48);
    for leaf in 0x8000_0002u32..=0x8000_0004 {
        let r = crate::cpuid::extended(leaf)?;
        for word in [r.eax, r.ebx, r.ecx, r.edx] {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
    }
    let text = String::from_utf8_lossy(&bytes);
    let text = text.trim_matches(char::from(0)).trim();
    (!text.is_empty()).then(|| text.to_string())
}

#[cfg(not(target_arch = "x86_64"))]
fn cpuid_brand() -> Option<String> {
    None
}

fn cpuinfo_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        let key = key.trim();
        let wanted = ["model name", "Model", "Hardware", "cpu model", "uarch"];
        (wanted.contains(&key) && !value.trim().is_empty()).then(|| value.trim().to_string())
    })
}

fn sysctl_brand() -> Option<String> {
    let output = std::process::Command::new("sysctl")
        .args(["-n", "machdep.cpu.brand_string"])
        .output()
        .ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    (output.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

/// The OS name with its distribution and kernel release where they can be read.
fn os() -> String {
    let base = std::env::consts::OS.to_string();
    let pretty = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|text| {
            text.lines().find_map(|line| {
                let value = line.strip_prefix("PRETTY_NAME=")?;
                Some(value.trim().trim_matches('"').to_string())
            })
        });
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|s| s.trim().to_string());
    match (pretty, kernel) {
        (Some(p), Some(k)) => format!("{base} {k} ({p})"),
        (None, Some(k)) => format!("{base} {k}"),
        (Some(p), None) => format!("{base} ({p})"),
        (None, None) => base,
    }
}

/// Lists the features among `$name`s for which `$test!($name)` holds.
macro_rules! feature_list {
    ($test:ident, $($name:tt),* $(,)?) => {{
        let mut found: Vec<&'static str> = Vec::new();
        $( if $test!($name) { found.push($name); } )*
        found
    }};
}

macro_rules! compiled_in {
    ($name:tt) => {
        cfg!(target_feature = $name)
    };
}

/// The features both lists look at, each tested with `$x86!(name)` on x86-64 and
/// `$arm!(name)` on AArch64 (the detection macros need literal names, hence a macro).
macro_rules! known_features {
    ($x86:ident, $arm:ident) => {{
        #[cfg(target_arch = "x86_64")]
        {
            feature_list!(
                $x86, "sse2", "sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "lzcnt", "bmi1",
                "bmi2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl"
            )
        }
        #[cfg(target_arch = "aarch64")]
        {
            feature_list!($arm, "neon", "sve", "sve2", "dotprod")
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            Vec::new()
        }
    }};
}

/// Features the compiler was allowed to use for this build.
fn features_used() -> Vec<&'static str> {
    known_features!(compiled_in, compiled_in)
}

/// The same features as detected on this CPU.
fn features_available() -> Vec<&'static str> {
    #[cfg(target_arch = "aarch64")]
    use std::arch::is_aarch64_feature_detected;
    known_features!(is_x86_feature_detected, is_aarch64_feature_detected)
}

/// The machine's online hardware threads. `num_cpus::get` counts only those this process may
/// use, so under `taskset -c 0` it said 1 logical core beside 2 physical ones; never fewer than
/// the physical cores.
fn machine_logical_cores() -> usize {
    #[cfg(unix)]
    {
        // SAFETY: `sysconf` reads a system value and touches no memory of ours.
        let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
        if let Ok(online @ 1..) = usize::try_from(online) {
            return online.max(num_cpus::get_physical());
        }
    }
    num_cpus::get().max(num_cpus::get_physical())
}

/// The one-minute load average (from `/proc/loadavg`), where the OS reports it.
pub(crate) fn load_average() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// CPU time (user + system) this process has used so far, where the OS reports it.
#[cfg(unix)]
pub(crate) fn process_cpu_time() -> Option<std::time::Duration> {
    // SAFETY: `rusage` is plain data, so all zeroes is a valid value, and `getrusage` only
    // writes into the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; RUSAGE_SELF is always a valid target.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return None;
    }
    let micros = |t: libc::timeval| {
        u64::try_from(t.tv_sec).unwrap_or(0) * 1_000_000 + u64::try_from(t.tv_usec).unwrap_or(0)
    };
    Some(std::time::Duration::from_micros(
        micros(usage.ru_utime) + micros(usage.ru_stime),
    ))
}

/// CPU time this process has used so far: not measured on this OS.
#[cfg(not(unix))]
pub(crate) fn process_cpu_time() -> Option<std::time::Duration> {
    None
}

/// The current UTC time as RFC 3339 with whole seconds, e.g. `2024-05-01T12:34:56Z`.
pub(crate) fn utc_now_rfc3339() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339_utc(seconds)
}

/// Formats seconds since the Unix epoch as RFC 3339 UTC.
pub(crate) fn rfc3339_utc(seconds: u64) -> String {
    let days = seconds / 86_400;
    let of_day = seconds % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`, for non-negative day counts).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// CPU time (user + system) the calling thread has used so far, where the OS reports it.
#[cfg(unix)]
pub(crate) fn thread_cpu_time() -> Option<std::time::Duration> {
    // SAFETY: `timespec` is plain data, so all zeroes is a valid value, and `clock_gettime`
    // only writes into the struct it is given.
    let mut time: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: as above; CLOCK_THREAD_CPUTIME_ID is a valid clock on every Unix we build for.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) } != 0 {
        return None;
    }
    Some(std::time::Duration::new(
        u64::try_from(time.tv_sec).unwrap_or(0),
        u32::try_from(time.tv_nsec).unwrap_or(0),
    ))
}

/// CPU time the calling thread has used: not measured on this OS.
#[cfg(not(unix))]
pub(crate) fn thread_cpu_time() -> Option<std::time::Duration> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_formats_known_instants() {
        for (seconds, text) in [
            (0, "1970-01-01T00:00:00Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (951_868_799, "2000-02-29T23:59:59Z"),
            (951_868_800, "2000-03-01T00:00:00Z"),
            (1_709_210_096, "2024-02-29T12:34:56Z"),
            (4_102_444_800, "2100-01-01T00:00:00Z"),
        ] {
            assert_eq!(rfc3339_utc(seconds), text, "{seconds}");
        }
        let now = utc_now_rfc3339();
        assert_eq!(now.len(), 20, "{now}");
        assert!(now.as_str() > "2024-01-01", "{now}");
    }

    #[test]
    fn cpu_time_grows_with_work() {
        let Some(before) = process_cpu_time() else {
            return;
        };
        let started = std::time::Instant::now();
        let mut x = 0u64;
        while started.elapsed() < std::time::Duration::from_millis(50) {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        let after = process_cpu_time().unwrap();
        assert!(after > before, "{before:?} {after:?}");
    }

    #[test]
    fn machine_is_described() {
        let m = Machine::detect();
        assert!(!m.hostname.is_empty());
        assert!(!m.cpu.is_empty());
        assert!(m.logical_cores >= 1 && m.physical_cores >= 1);
        assert!(m.physical_cores <= m.logical_cores);
        // The machine's count, not this process's share of it.
        let allowed = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert!(
            m.logical_cores >= allowed,
            "{} < {allowed}",
            m.logical_cores
        );
        assert_eq!(m.arch, std::env::consts::ARCH);
        assert_eq!(m.version, env!("CARGO_PKG_VERSION"));
        assert!(
            m.rustc.starts_with("rustc ") || m.rustc == "unknown",
            "{}",
            m.rustc
        );
        #[cfg(target_arch = "x86_64")]
        {
            // Every x86_64 build may use SSE2, and every x86_64 CPU has it.
            assert!(m.cpu_features_used.split(' ').any(|f| f == "sse2"));
            assert!(m.cpu_features_available.split(' ').any(|f| f == "sse2"));
        }
    }
}
