//! Sharding: which deterministic slice of the records one machine of a job array handles, given
//! on the command line (`--shard K/N`) or taken from the scheduler's environment (a Slurm job
//! array or a Kubernetes Indexed Job).
//!
//! K is 1-based on the command line (`--shard 1/4` … `--shard 4/4`); record `index` (its 0-based
//! position in the whole input stream) belongs to shard K of N when `index % N == K - 1`.

use std::fmt;
use std::str::FromStr;

/// The environment variable that carries the shard count in a Kubernetes Indexed Job, which
/// sets only `JOB_COMPLETION_INDEX` itself: set it to the Job's `completions`.
pub const SHARDS_ENV: &str = "SUDOKU_BATCH_SHARDS";

/// Shard K of N (K is 1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    k: u64,
    n: u64,
}

impl Shard {
    /// Shard `k` (1-based) of `n`; `None` unless `1 <= k <= n`.
    pub fn new(k: u64, n: u64) -> Option<Shard> {
        (k >= 1 && k <= n).then_some(Shard { k, n })
    }

    /// The 1-based shard number K.
    pub fn number(self) -> u64 {
        self.k
    }

    /// The shard count N.
    pub fn count(self) -> u64 {
        self.n
    }

    /// Whether the record at 0-based stream position `index` belongs to this shard.
    pub fn contains(self, index: u64) -> bool {
        index % self.n == self.k - 1
    }

    /// The shard given by the scheduler's environment, looked up with `var`, with a note saying
    /// where it came from; `Ok(None)` when no scheduler variables are set.
    ///
    /// Slurm job arrays: K - 1 = `SLURM_ARRAY_TASK_ID` - `SLURM_ARRAY_TASK_MIN` (0 if unset),
    /// N = `SLURM_ARRAY_TASK_COUNT`; the array must be contiguous (`--array=0-3` or `1-4`, so
    /// that `SLURM_ARRAY_TASK_MAX` - MIN + 1 = COUNT; a stepped or sparse array is refused).
    /// Kubernetes Indexed Jobs: K - 1 = `JOB_COMPLETION_INDEX`, N = [`SHARDS_ENV`].
    pub fn from_env(
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<(Shard, String)>, String> {
        let number = |name: &str| -> Result<Option<u64>, String> {
            match var(name) {
                None => Ok(None),
                Some(text) => text
                    .trim()
                    .parse::<u64>()
                    .map(Some)
                    .map_err(|e| match e.kind() {
                        std::num::IntErrorKind::PosOverflow => {
                            format!("{name}={text:?} is too large (at most {})", u64::MAX)
                        }
                        _ => format!("{name}={text:?} is not a whole number"),
                    }),
            }
        };
        if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            let count = number("SLURM_ARRAY_TASK_COUNT")?
                .ok_or("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not")?;
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            // A stepped (`--array=1-7:2`) or sparse (`--array=1,4,9`) array has a span wider
            // than its count: its ids are not the shards 1..N, and the task that took id 3 of
            // `1-7:2` would run shard 3 of 4 while shard 2 ran nowhere.
            let contiguous = match number("SLURM_ARRAY_TASK_MAX")? {
                Some(max) => max.checked_sub(min).map(|span| span + 1) == Some(count),
                None => true,
            };
            let shard = id
                .checked_sub(min)
                .filter(|_| contiguous)
                .and_then(|k0| Shard::new(k0 + 1, count))
                .ok_or_else(|| {
                    format!(
                        "SLURM_ARRAY_TASK_ID={id} with SLURM_ARRAY_TASK_MIN={min} and \
                         SLURM_ARRAY_TASK_COUNT={count} is not a contiguous array; use --shard K/N"
                    )
                })?;
            let note = format!(
                "shard {shard} from SLURM_ARRAY_TASK_ID={id}, SLURM_ARRAY_TASK_MIN={min}, \
                 SLURM_ARRAY_TASK_COUNT={count}"
            );
            return Ok(Some((shard, note)));
        }
        if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let count = number(SHARDS_ENV)?.ok_or_else(|| {
                format!(
                    "JOB_COMPLETION_INDEX is set but {SHARDS_ENV} is not: set it to the Job's \
                     completions, or pass --shard K/N (--shard 1/1 for no sharding)"
                )
            })?;
            let shard = Shard::new(index + 1, count).ok_or_else(|| {
                format!("JOB_COMPLETION_INDEX={index} is not below {SHARDS_ENV}={count}")
            })?;
            let note =
                format!("shard {shard} from JOB_COMPLETION_INDEX={index}, {SHARDS_ENV}={count}");
            return Ok(Some((shard, note)));
        }
        Ok(None)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// Parses `K/N` with 1 <= K <= N.
    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("shard {text:?} is not K/N with 1 <= K <= N (K is 1-based)");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let k = k.trim().parse().map_err(|_| bad())?;
        let n = n.trim().parse().map_err(|_| bad())?;
        Shard::new(k, n).ok_or_else(bad)
    }
}

/// Which records a run processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShardChoice {
    /// All of them.
    #[default]
    All,
    /// One shard.
    Only(Shard),
    /// The shard the scheduler's environment gives ([`Shard::from_env`]), or all records when
    /// none is set.
    FromEnvironment,
}

impl ShardChoice {
    /// The shard in effect for a run (`None` for all records), a note saying where it came
    /// from pushed to `notes`; bad scheduler variables are a usage error.
    pub(crate) fn resolve_into(
        self,
        notes: &mut Vec<String>,
    ) -> crate::error::Result<Option<Shard>> {
        let resolved = match self {
            ShardChoice::All => None,
            ShardChoice::Only(shard) if shard.count() == 1 => None,
            ShardChoice::Only(shard) => Some((shard, format!("shard {shard}"))),
            ShardChoice::FromEnvironment => Shard::from_env(|name| std::env::var(name).ok())
                .map_err(crate::error::Error::Usage)?
                .filter(|(s, _)| s.count() > 1),
        };
        Ok(resolved.map(|(shard, note)| {
            notes.push(note);
            shard
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn parses_and_partitions() {
        let shards: Vec<Shard> = (1..=3).map(|k| format!("{k}/3").parse().unwrap()).collect();
        for index in 0..30u64 {
            let owners: Vec<u64> = shards
                .iter()
                .filter(|s| s.contains(index))
                .map(|s| s.number())
                .collect();
            assert_eq!(owners, [index % 3 + 1], "every record in exactly one shard");
        }
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "-1/2", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(shards[1].to_string(), "2/3");
    }

    #[test]
    fn shards_from_schedulers() {
        let none = Shard::from_env(env(&[])).unwrap();
        assert_eq!(none, None);
        let slurm0 = env(&[
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert_eq!(
            Shard::from_env(slurm0).unwrap().unwrap().0,
            Shard::new(1, 4).unwrap()
        );
        let slurm1 = env(&[
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert_eq!(
            Shard::from_env(slurm1).unwrap().unwrap().0,
            Shard::new(4, 4).unwrap()
        );
        let gappy = env(&[
            ("SLURM_ARRAY_TASK_ID", "8"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert!(Shard::from_env(gappy).unwrap_err().contains("contiguous"));
        // `--array=1-7:2`: ids 1, 3, 5, 7 of four tasks. Every task is refused, also those
        // whose id alone would pass for a shard (1 and 3).
        for id in ["1", "3", "5", "7"] {
            let vars = [
                ("SLURM_ARRAY_TASK_ID", id),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_MAX", "7"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ];
            let stepped = Shard::from_env(env(&vars));
            assert!(stepped.unwrap_err().contains("contiguous"), "{id}");
        }
        let full = env(&[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "4"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert_eq!(
            Shard::from_env(full).unwrap().unwrap().0,
            Shard::new(2, 4).unwrap()
        );
        let k8s = env(&[("JOB_COMPLETION_INDEX", "2"), (SHARDS_ENV, "3")]);
        assert_eq!(
            Shard::from_env(k8s).unwrap().unwrap().0,
            Shard::new(3, 3).unwrap()
        );
        let k8s_no_count = env(&[("JOB_COMPLETION_INDEX", "2")]);
        assert!(Shard::from_env(k8s_no_count)
            .unwrap_err()
            .contains(SHARDS_ENV));
        let junk = env(&[("JOB_COMPLETION_INDEX", "x"), (SHARDS_ENV, "3")]);
        assert!(Shard::from_env(junk).unwrap_err().contains("whole number"));
        let huge = env(&[
            ("SLURM_ARRAY_TASK_ID", "99999999999999999999999"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert!(Shard::from_env(huge).unwrap_err().contains("is too large"));
    }
}
