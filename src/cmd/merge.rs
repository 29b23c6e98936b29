//! `merge`: puts the outputs of a sharded run back together. A streaming k-way merge by the
//! `index` column (memory: one row per shard), the combined CSV in input order, and a combined
//! summary.
//!
//! Percentiles cannot be combined from the shards' JSON summaries, so the combined summary's
//! counts, solve-time percentiles and guess figures are recomputed from the rows' `status`,
//! `guesses` and `solve_ns` (exact, like a single run). The shards' summaries, when given, add
//! what the rows do not hold: the solver, the threads (summed) and the wall time (the longest
//! shard's, as when shards run side by side).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::io::output::Output;
use crate::io::results::{header_line, header_of, row_writer, Column, ResultReader};
use crate::stats::{Summary, Tally};

/// Everything `merge` needs, built from the command line.
#[derive(Debug, Clone, Default)]
pub struct MergeConfig {
    /// The shards' result CSVs (any order).
    pub inputs: Vec<PathBuf>,
    /// The combined CSV; `None` for stdout.
    pub output: Option<PathBuf>,
    /// Where to write the combined JSON summary, if anywhere.
    pub summary_json: Option<PathBuf>,
    /// The shards' JSON summaries (`solve --summary`), for solver, threads and wall time.
    pub shard_summaries: Vec<PathBuf>,
}

/// What a merge reports.
#[derive(Debug, Clone)]
pub struct MergeReport {
    /// The combined summary.
    pub summary: Summary,
    /// Indices missing between the first and last row (a shard's output missing or partial).
    pub missing: u64,
    /// Remarks for stderr.
    pub notes: Vec<String>,
}

/// The columns `merge` reads: `index` to order rows, and what the summary counts.
const MERGE_COLUMNS: [Column; 4] = [
    Column::Index,
    Column::Status,
    Column::Guesses,
    Column::SolveNs,
];

/// One shard's rows, read one at a time; the row last read stays in the reader.
struct Shard {
    reader: ResultReader<File>,
    /// The index of the row last read.
    last: Option<u64>,
}

impl Shard {
    fn open(path: &Path) -> Result<Shard> {
        let reader = ResultReader::open(path)?.ok_or_else(|| Error::Input {
            path: path.to_path_buf(),
            message: format!(
                "not a solve output: no header line (expected the header {})",
                header_line().trim_end()
            ),
        })?;
        reader.require(&MERGE_COLUMNS, "merge")?;
        Ok(Shard { reader, last: None })
    }

    fn path(&self) -> &Path {
        self.reader.path()
    }

    /// Reads the next row and returns its index, checking that indices increase. A torn last
    /// line (the shard's run was cut off while writing it) is an error: that row would be lost.
    fn advance(&mut self) -> Result<Option<u64>> {
        let Some(row) = self.reader.next_row()? else {
            return match self.reader.torn_line() {
                Some(line) => Err(Error::Input {
                    path: self.path().to_path_buf(),
                    message: format!(
                        "line {line}: a cut-off row (no line end): the run writing this shard \
                         did not finish; finish it with `solve --resume`"
                    ),
                }),
                None => Ok(None),
            };
        };
        let index = row.index.ok_or_else(|| row.missing(Column::Index))?;
        if let Some(previous) = self.last.filter(|&p| index <= p) {
            return Err(row.error(format!(
                "index {index} after {previous}; rows must be in index order"
            )));
        }
        self.last = Some(index);
        Ok(Some(index))
    }
}

/// Merges the shards' outputs into one CSV in index order and combines their summaries.
///
/// Errors (exit 2): an unreadable input, a file that is not a solve output (or lacks a column
/// merge needs), shards with different columns, rows out of index order, an index present in
/// two inputs, a shard that ends in a cut-off row. Missing indices are counted, not errors.
pub fn run_merge(config: &MergeConfig) -> Result<MergeReport> {
    if config.inputs.is_empty() {
        return Err(Error::Usage("merge needs at least one input".into()));
    }
    let mut shards = config
        .inputs
        .iter()
        .map(|p| Shard::open(p))
        .collect::<Result<Vec<_>>>()?;
    // Rows are copied as they are, so every shard must have the same columns in one order.
    let columns = shards[0].reader.columns().to_vec();
    if let Some(other) = shards.iter().find(|s| s.reader.columns() != columns) {
        return Err(Error::Input {
            path: other.path().to_path_buf(),
            message: format!(
                "its columns ({}) differ from those of {} ({}); merge the shards of one run",
                Column::join(other.reader.columns(), ","),
                shards[0].path().display(),
                Column::join(&columns, ",")
            ),
        });
    }
    let shard_summaries = config
        .shard_summaries
        .iter()
        .map(|path| read_summary(path))
        .collect::<Result<Vec<_>>>()?;
    let mut output = Output::create(config.output.as_deref())?;
    output.write_all(header_of(&columns).as_bytes())?;
    let mut heap = BinaryHeap::new();
    for (i, shard) in shards.iter_mut().enumerate() {
        if let Some(index) = shard.advance()? {
            heap.push(Reverse((index, i)));
        }
    }
    let mut writer = row_writer(Vec::with_capacity(128 * 1024));
    let mut tally = Tally::default();
    let mut expected = 0u64;
    let mut missing = 0u64;
    let mut last: Option<(u64, usize)> = None;
    while let Some(Reverse((index, i))) = heap.pop() {
        if let Some((previous, j)) = last.filter(|&(p, _)| p == index) {
            return Err(Error::Input {
                path: shards[i].path().to_path_buf(),
                message: format!(
                    "index {previous} is also in {}; each index must come from one shard",
                    shards[j].path().display()
                ),
            });
        }
        missing += index - expected;
        expected = index + 1;
        last = Some((index, i));
        let shard = &mut shards[i];
        // `advance` returned `index`, so the shard's row is there.
        if let Some(row) = shard.reader.row() {
            tally.add_row(&row)?;
            // Writing to a Vec cannot fail.
            let _ = writer.write_record(row.fields());
        }
        if writer.get_ref().len() >= 64 * 1024 {
            let full = std::mem::replace(&mut writer, row_writer(Vec::with_capacity(128 * 1024)));
            output.write_all(&full.into_inner().unwrap_or_default())?;
        }
        if let Some(next) = shard.advance()? {
            heap.push(Reverse((next, i)));
        }
    }
    output.write_all(&writer.into_inner().unwrap_or_default())?;
    output.finish()?;

    let mut notes = Vec::new();
    let wall = shard_summaries
        .iter()
        .map(|s| s.wall_seconds)
        .fold(0.0, f64::max);
    let threads = shard_summaries.iter().map(|s| s.threads).sum();
    let mut solvers: Vec<&str> = shard_summaries.iter().map(|s| s.solver.as_str()).collect();
    solvers.dedup();
    let mut summary = tally.summary(Duration::from_secs_f64(wall), threads, &solvers.join("+"));
    if shard_summaries.is_empty() {
        notes.push(
            "no --shard-summary given: threads, solver and wall time unknown (0); counts and \
             solve times are recomputed from the rows"
                .into(),
        );
    } else {
        let claimed: u64 = shard_summaries.iter().map(|s| s.puzzles).sum();
        if claimed != summary.puzzles {
            notes.push(format!(
                "warning: the shard summaries count {claimed} puzzles but the rows hold {}",
                summary.puzzles
            ));
        }
        summary.puzzles_per_second = if wall > 0.0 {
            summary.puzzles as f64 / wall
        } else {
            0.0
        };
    }
    if missing > 0 {
        notes.push(format!(
            "warning: {missing} index(es) missing between 0 and {}: a shard's output is missing \
             or incomplete",
            expected.saturating_sub(1)
        ));
    }
    if let Some(path) = &config.summary_json {
        crate::io::output::write_json(path, &summary)?;
    }
    Ok(MergeReport {
        summary,
        missing,
        notes,
    })
}

fn read_summary(path: &Path) -> Result<Summary> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Open {
        path: path.to_path_buf(),
        cause: source,
    })?;
    serde_json::from_str(&text).map_err(|e| Error::Input {
        path: path.to_path_buf(),
        message: format!("not a solve summary: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(index: u64, status: &str) -> String {
        format!(
            "{index},{},{},,{status},1,{},,a.txt\n",
            index + 1,
            ".".repeat(81),
            100 * (index + 1)
        )
    }

    fn write(dir: &Path, name: &str, indices: &[u64]) -> PathBuf {
        let path = dir.join(name);
        let body: String = indices.iter().map(|&i| row(i, "unsolvable")).collect();
        std::fs::write(&path, header_line() + &body).unwrap();
        path
    }

    #[test]
    fn merges_in_index_order_and_recounts() {
        let dir = tempfile::tempdir().unwrap();
        let a = write(dir.path(), "a.csv", &[0, 3, 6]);
        let b = write(dir.path(), "b.csv", &[1, 4]);
        let c = write(dir.path(), "c.csv", &[2, 5, 8]);
        let out = dir.path().join("all.csv");
        let config = MergeConfig {
            inputs: vec![c, a.clone(), b],
            output: Some(out.clone()),
            ..MergeConfig::default()
        };
        let report = run_merge(&config).unwrap();
        let expected: String = [0, 1, 2, 3, 4, 5, 6, 8]
            .iter()
            .map(|&i| row(i, "unsolvable"))
            .collect();
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            header_line() + &expected
        );
        assert_eq!((report.summary.puzzles, report.summary.unsolvable), (8, 8));
        assert_eq!(report.missing, 1);
        assert_eq!(report.summary.guesses_per_puzzle, 1.0);

        let dup = MergeConfig {
            inputs: vec![a.clone(), a.clone()],
            output: Some(out.clone()),
            ..MergeConfig::default()
        };
        let error = run_merge(&dup).unwrap_err().to_string();
        assert!(error.contains("index 0 is also in"), "{error}");
        let unordered = write(dir.path(), "u.csv", &[2, 1]);
        let bad = MergeConfig {
            inputs: vec![unordered],
            output: Some(out),
            ..MergeConfig::default()
        };
        let error = run_merge(&bad).unwrap_err().to_string();
        assert!(error.contains("index 1 after 2"), "{error}");
    }

    #[test]
    fn refuses_cut_off_shards_missing_columns_and_mixed_columns() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("all.csv");
        let merge = |inputs: Vec<PathBuf>| {
            let config = MergeConfig {
                inputs,
                output: Some(out.clone()),
                ..MergeConfig::default()
            };
            run_merge(&config).map(|_| ()).unwrap_err().to_string()
        };
        let whole = write(dir.path(), "a.csv", &[0, 2]);
        let cut = dir.path().join("b.csv");
        let mut text = header_line() + &row(1, "solved");
        text.push_str(&row(3, "solved")[..20]);
        std::fs::write(&cut, text).unwrap();
        let error = merge(vec![whole.clone(), cut]);
        assert!(error.ends_with("b.csv: line 3: a cut-off row (no line end): the run writing this shard did not finish; finish it with `solve --resume`"), "{error}");
        assert!(!out.exists(), "no final file");

        let no_status = dir.path().join("c.csv");
        std::fs::write(&no_status, "index,puzzle\n1,x\n").unwrap();
        let error = merge(vec![whole.clone(), no_status]);
        assert!(error.ends_with("c.csv: merge needs the column(s) status, guesses, solve_ns, which its header (index,puzzle) lacks"), "{error}");

        let reordered = dir.path().join("d.csv");
        std::fs::write(&reordered, "status,index,guesses,solve_ns\nsolved,1,0,5\n").unwrap();
        let error = merge(vec![whole.clone(), reordered.clone()]);
        assert!(
            error.contains(
                "d.csv: its columns (status,index,guesses,solve_ns) differ from those of"
            ),
            "{error}"
        );

        let bad = dir.path().join("e.csv");
        std::fs::write(&bad, header_line() + &row(1, "sovled")).unwrap();
        let error = merge(vec![whole, bad]);
        assert!(error.ends_with("e.csv: not a result row: line 2: status \"sovled\" is not one of solved, unsolvable, multiple, invalid, mismatch"), "{error}");

        // A subset of the columns in any order merges, and keeps them.
        let other = dir.path().join("f.csv");
        std::fs::write(&other, "status,index,guesses,solve_ns\nunsolvable,0,2,7\n").unwrap();
        let config = MergeConfig {
            inputs: vec![reordered, other],
            output: Some(out.clone()),
            ..MergeConfig::default()
        };
        let report = run_merge(&config).unwrap();
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "status,index,guesses,solve_ns\nunsolvable,0,2,7\nsolved,1,0,5\n"
        );
        assert_eq!((report.summary.puzzles, report.summary.solved), (2, 1));
    }
}
