//! What `solve` and `rate` shards share with `merge`: the columns merge reads, the warning a
//! sharded run gives when merge would refuse its output, and what a merged summary learns from
//! the shards' sidecars (when they ran, how many records the input held). A leaf below both
//! commands and `merge`, so their imports point down.

use std::path::Path;

use serde::Serialize;

use crate::cmd::sidecar::RunManifest;
use crate::io::results::Column;

/// The columns `merge` reads: `index` to order rows, and what the summary counts.
pub(crate) const MERGE_COLUMNS: [Column; 4] = [
    Column::Index,
    Column::Status,
    Column::Guesses,
    Column::SolveNs,
];

/// Warns, as a sharded run (`sharded`) to a file (`output`) starts, when `merge` would refuse
/// that file: it lacks a column of `needed` (what merge reads) among `columns`, or a header.
pub(crate) fn warn_if_unmergeable<C>(
    sharded: bool,
    output: Option<&Path>,
    columns: &[C],
    needed: &[C],
    header: bool,
) where
    C: Copy + PartialEq + std::fmt::Display,
{
    if !sharded || output.is_none_or(crate::error::is_stdout) {
        return;
    }
    let missing: Vec<String> = (needed.iter())
        .filter(|c| !columns.contains(c))
        .map(C::to_string)
        .collect();
    let mut lacks = Vec::new();
    if !missing.is_empty() {
        lacks.push(format!("the column(s) {}", missing.join(", ")));
    }
    if !header {
        lacks.push("a header (--no-header)".to_string());
    }
    if !lacks.is_empty() {
        stderr!(line:
            "warning: --shard: merge will refuse this shard's output, which lacks {}",
            lacks.join(" and ")
        );
    }
}

/// When the shards of a merge ran, from their sidecars: what a merged summary adds.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct MergeSpan {
    /// Shards merged.
    pub shards: usize,
    /// Seconds from the first shard's start to the last finished shard's end (`null` when none
    /// finished).
    pub span_seconds: Option<f64>,
    /// When the first shard started (seconds since the Unix epoch).
    pub first_start_unix: Option<f64>,
    /// When the last shard ended (seconds since the Unix epoch).
    pub last_end_unix: Option<f64>,
}

impl MergeSpan {
    /// The span of `runs`, the shards' sidecars.
    pub(crate) fn of(runs: &[&RunManifest]) -> MergeSpan {
        let first_start = runs.iter().map(|m| m.started_unix).reduce(f64::min);
        let last_end = (runs.iter())
            .filter_map(|m| m.finished.map(|f| f.ended_unix))
            .reduce(f64::max);
        MergeSpan {
            shards: runs.len(),
            span_seconds: first_start
                .zip(last_end)
                .map(|(start, end)| (end - start).max(0.0)),
            first_start_unix: first_start,
            last_end_unix: last_end,
        }
    }

    /// The remark that says what the wall time of a merged summary is.
    pub(crate) fn remark(&self, cpu: &str) -> String {
        format!(
            "merged {} shard(s): {:.3} s from the first shard's start to the last one's end \
             (wall time and puzzles/s are over this span){cpu}",
            self.shards,
            self.span_seconds.unwrap_or(0.0),
        )
    }
}

/// How many records the input held, as the finished shards' runs counted them (each read the
/// whole input): the indices a whole merge has, so those missing past the last row merged
/// count too.
pub(crate) fn input_records(sidecars: &[Option<RunManifest>]) -> Option<u64> {
    (sidecars.iter().flatten())
        .filter_map(|m| m.finished.map(|f| f.input_records))
        .max()
}
