//! `merge`: puts the outputs of a sharded run back together. A streaming k-way merge by the
//! `index` column (memory: one row per shard), the combined CSV in input order, and a combined
//! summary.
//!
//! Percentiles cannot be combined from the shards' JSON summaries, so the combined summary's
//! counts, solve-time percentiles and guess figures are recomputed from the rows' `status`,
//! `guesses` and `solve_ns` (exact, like a single run). The shards' summaries, when given, add
//! what the rows do not hold: the solver, the threads (summed) and the wall time (the longest
//! shard's, as when shards run side by side).
//!
//! Integrity: each shard's output has a sidecar `FILE.run.json` (written by `solve -o`, see
//! `RunManifest` (in `cmd::sidecar`)) giving its run's input fingerprints, options, shard K/N, and once finished
//! its row count, size and start and end times. `merge` refuses shards of different runs (exit
//! 2), and finds missing shards (a K of 1..N without output) and cut-off ones (unfinished, or
//! not the size or row count their run wrote): those are reported with exit 1 and no final
//! file, unless [`MergeConfig::allow_incomplete`]. With sidecars the combined summary's wall
//! time is the span from the first shard's start to the last one's end, and it gives the solver
//! CPU time summed over the rows. Without sidecars (an older version's outputs) merge works as
//! before, with a warning. Every row is re-checked as `--resume` re-checks the rows it keeps
//! (the solution against the row's puzzle and the rules, the status against the solution): a
//! shard edited after its run (same size, sidecar kept) is refused, naming its file and line.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::cmd::rate::merge as rate_merge;
use crate::cmd::rate::RateSummary;
use crate::cmd::shards::{input_records, MergeSpan, MERGE_COLUMNS};
use crate::cmd::sidecar::{
    content_changed, grouped, shard_sidecar_path, sidecar_path, Compare, RunManifest,
};
use crate::cmd::Finish;
use crate::error::{Error, Result};
use crate::grid::Grid;
use crate::io::output::Output;
use crate::io::results::{
    header_line, header_of, open_result_file, open_whole_members, push_csv_record, torn_member,
    torn_row, AfterMembers, Column, ResultReader, ResultRowRef, Status,
};
use crate::io::targets::partial_path;
use crate::io::targets::{check_targets, one_on_stdout, Target, WriteKind};
use crate::run::interrupt;
use crate::solver::{Budget, SolverKind};
use crate::stats::{Summary, Tally};
use crate::verdict::{Claims, JudgeOptions};

/// Everything `merge` needs, built from the command line.
#[derive(Debug, Clone, Default)]
pub struct MergeConfig {
    /// The shards' result CSVs (any order).
    pub inputs: Vec<PathBuf>,
    /// The combined CSV; `None` for stdout.
    pub output: Option<PathBuf>,
    /// Where to write the combined JSON summary, if anywhere.
    pub summary: Option<PathBuf>,
    /// The shards' JSON summaries (`solve --summary`), for solver, threads and wall time when
    /// the shards have no sidecars.
    pub shard_summaries: Vec<PathBuf>,
    /// Merge what there is when shards are missing or cut off (warnings, exit 1) instead of
    /// writing nothing.
    pub allow_incomplete: bool,
    /// Print only warnings and errors: no summary, no remarks.
    pub quiet: bool,
}

/// What a merge reports.
#[derive(Debug, Clone)]
pub struct MergeReport {
    /// The combined summary.
    pub summary: Summary,
    /// Indices missing between the first and last row (a shard's output missing or partial).
    pub missing: u64,
    /// Warnings for stderr (printed even when quiet).
    pub notes: Vec<String>,
    /// Remarks for stderr on how the summary was made (not printed when quiet).
    pub remarks: Vec<String>,
    /// Missing or cut-off shards, each said in a sentence. Unless `allow_incomplete`, nothing
    /// was written when there are any.
    pub incomplete: Vec<String>,
    /// Whether the combined output was written.
    pub written: bool,
    /// The combined summary with what only a merge knows (span, summed solver CPU time).
    pub merged: MergedSummary,
    /// For `rate` shards: the combined rating summary (`summary` and `merged` are then empty).
    pub rated: Option<RateSummary>,
}

impl MergeReport {
    /// Prints the report on stderr as the command line does (warnings; what is missing when
    /// nothing was written; else, unless `quiet`, the remarks and the summary) and returns the
    /// outcome: all good only when the merge was written, whole, and every puzzle in it solved.
    pub fn finish(&self, quiet: bool) -> Result<Finish> {
        if !quiet {
            self.remarks.iter().for_each(|note| stderr!(line: "{note}"));
        }
        self.notes.iter().for_each(|note| stderr!(line: "{note}"));
        if !self.written {
            for problem in &self.incomplete {
                stderr!(line: "merge: incomplete: {problem}");
            }
            stderr!(line:
                "merge: nothing written: shards are missing or cut off; re-run them, or pass \
                 --allow-incomplete to merge what there is"
            );
            return Ok(Finish::SomeFailed);
        }
        let whole = self.missing == 0 && self.incomplete.is_empty();
        if let Some(rated) = &self.rated {
            if !quiet {
                stderr!(text: "{}", rated.to_text());
            }
            // No puzzle at all is a failure, as for the run itself.
            let all = rated.puzzles > 0
                && rated.statuses.get("rated").copied().unwrap_or(0) == rated.puzzles;
            return Ok(if whole && all {
                Finish::AllGood
            } else {
                Finish::SomeFailed
            });
        }
        if !quiet {
            stderr!(text: "{}", self.summary.to_text());
        }
        let s = &self.summary;
        Ok(if whole && s.puzzles > 0 && s.solved == s.puzzles {
            Finish::AllGood
        } else {
            Finish::SomeFailed
        })
    }
}

/// The combined summary as `merge --summary` writes it: a run's summary (its `wall_seconds`
/// and `puzzles_per_second` over the span when the shards have sidecars), and the span and
/// solver CPU time, which do not assume that the shards ran side by side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MergedSummary {
    /// The summary, as of one run.
    #[serde(flatten)]
    pub summary: Summary,
    /// Shards merged.
    pub shards: usize,
    /// Seconds from the first shard's start to the last shard's end (`null` without sidecars).
    pub span_seconds: Option<f64>,
    /// When the first shard started (seconds since the Unix epoch).
    pub first_start_unix: Option<f64>,
    /// When the last shard ended (seconds since the Unix epoch).
    pub last_end_unix: Option<f64>,
    /// Solver time summed over the rows (`solve_ns`), in seconds: the CPU time spent solving,
    /// whatever ran in parallel.
    pub solver_cpu_seconds: f64,
    /// With `--allow-incomplete`, what the merge lacked (missing or cut-off shards, missing
    /// indices), a sentence each. Written to the JSON only when not empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub incomplete: Vec<String>,
}

/// What `--summary` says a merge lacked: the `incomplete` sentences, and the indices missing.
fn lacking(incomplete: &[String], missing: u64) -> Vec<String> {
    let mut all = incomplete.to_vec();
    if missing > 0 {
        all.push(format!("{missing} index(es) missing"));
    }
    all
}

/// One shard's rows, read one at a time; the row last read stays in the reader.
struct ShardReader {
    reader: ResultReader<crate::io::results::ResultSource>,
    /// The index of the row last read.
    last: Option<u64>,
    /// Rows read so far.
    rows: u64,
    /// Where the shard's torn last line starts, once read to its end.
    torn: Option<u64>,
    /// What was left out after the last whole compressed member (`--allow-incomplete`).
    torn_member: Option<AfterMembers>,
}

impl ShardReader {
    /// Opens the shard at `path`; a compressed one only up to its last whole member when
    /// `whole_members` (what `--allow-incomplete` merges of a cut-off shard).
    fn open(path: &Path, whole_members: bool) -> Result<ShardReader> {
        let (source, torn_member) = match whole_members {
            true => open_whole_members(path)?,
            false => (open_result_file(path)?, None),
        };
        let reader = ResultReader::new(source, path)?.ok_or_else(|| Error::Input {
            path: path.to_path_buf(),
            message: format!(
                "not a solve output: no header line (expected the header {})",
                header_line().trim_end()
            ),
        })?;
        reader.require(&MERGE_COLUMNS, "merge")?;
        Ok(ShardReader {
            reader,
            last: None,
            rows: 0,
            torn: None,
            torn_member,
        })
    }

    fn path(&self) -> &Path {
        self.reader.path()
    }

    /// What was left out of the shard, read to its end: a torn last row, a torn member.
    fn cut_off(&self) -> impl Iterator<Item = String> + '_ {
        let row = self.torn.map(|line| torn_row(self.path(), line));
        let member = self.torn_member.map(|at| torn_member(self.path(), at));
        row.into_iter().chain(member)
    }

    /// Reads the next row and returns its index, checking that indices increase. A torn last
    /// line is no row: it is noted in `torn`.
    fn advance(&mut self) -> Result<Option<u64>> {
        let Some(row) = self.reader.next_row()? else {
            self.torn = self.reader.torn_line();
            return Ok(None);
        };
        let index = row.index.ok_or_else(|| row.missing(Column::Index))?;
        if let Some(previous) = self.last.filter(|&p| index <= p) {
            return Err(row.error(format!(
                "index {index} after {previous}; rows must be in index order"
            )));
        }
        self.last = Some(index);
        self.rows += 1;
        Ok(Some(index))
    }
}

/// Merges the shards' outputs into one CSV in index order and combines their summaries.
///
/// Errors (exit 2): an unreadable input, a file that is not a solve output (or lacks a column
/// merge needs), shards with different columns, shards of different runs (their sidecars
/// differ in input, options or shard count), a shard given twice, rows out of index order, an
/// index present in two inputs. Missing or cut-off shards (a shard whose last row was cut
/// off is one, and that row is left out) are [`MergeReport::incomplete`]: nothing is written
/// unless `allow_incomplete`. Without sidecars, missing indices are counted, not errors.
pub fn run(config: &MergeConfig) -> Result<MergeReport> {
    if config.inputs.is_empty() {
        return Err(Error::Usage("merge needs at least one input".into()));
    }
    check_merge_targets(config)?;
    refuse_streams(&config.inputs)?;
    interrupt::arm(Some("stopping; the merge will not be finished"));
    let sidecars = config
        .inputs
        .iter()
        .map(|p| RunManifest::read_for_shard(p))
        .collect::<Result<Vec<_>>>()?;
    if all_rated(&config.inputs, &sidecars)? {
        return merge_rate(config, &sidecars);
    }
    let (mut shards, columns) = open_shards(&config.inputs, config.allow_incomplete)?;
    let shard_summaries = config
        .shard_summaries
        .iter()
        .map(|path| read_summary(path))
        .collect::<Result<Vec<_>>>()?;
    let mut notes = without_sidecars(&sidecars);
    let mut incomplete = check_shards(&config.inputs, &sidecars)?;
    if !incomplete.is_empty() && !config.allow_incomplete {
        return Ok(nothing_written(notes, incomplete));
    }
    // The merged file may not be one of the shards it reads.
    let options = crate::io::output::OutputOptions {
        inputs: config.inputs.clone(),
        ..Default::default()
    };
    let mut output = Output::create_with(config.output.as_deref(), &options)?;
    refuse_edited_if_streamed(&output, &config.inputs, &sidecars)?;
    output.write_all(header_of(&columns).as_bytes())?;
    let claims = shard_claims(&sidecars);
    let mut merged_rows = interleave(&mut shards, &mut output, &claims)?;
    if let Some(records) = input_records(&sidecars).filter(|&r| r > merged_rows.expected) {
        merged_rows.missing += records - merged_rows.expected;
        merged_rows.expected = records;
    }
    // The last look: a signal after the last rows were read still stops the merge.
    interrupt::stop_point_whole("merge", &output)?;
    // Again after the rows, for a streamed output too: a shard edited while it was merged.
    refuse_edited(&config.inputs, &sidecars)?;
    incomplete.extend(shards.iter().flat_map(ShardReader::cut_off));
    incomplete.extend(rows_unlike_sidecars(&shards, &sidecars));
    if !shard_summaries.is_empty() {
        // Summaries of another run would lend the combined summary its solver, threads and
        // wall time: refused before anything is written.
        let claimed: u64 = shard_summaries.iter().map(|s| s.puzzles).sum();
        let rows = merged_rows.tally.puzzles();
        if claimed != rows {
            return Err(Error::Usage(format!(
                "the --shard-summary files count {claimed} puzzles but the shards' rows hold \
                 {rows}: are they the summaries of these shards' runs?"
            )));
        }
    }
    if !complete_output(config, output, &merged_rows.unwritten, &incomplete)? {
        return Ok(nothing_written(notes, incomplete));
    }

    let mut remarks = Vec::new();
    let mut merged = merged_summary(&merged_rows, &sidecars, &shard_summaries, &mut remarks);
    let MergedRows {
        missing, expected, ..
    } = merged_rows;
    merged.incomplete = lacking(&incomplete, missing);
    if missing > 0 {
        notes.push(format!(
            "warning: {missing} index(es) missing between 0 and {}: a shard's output is missing \
             or incomplete",
            expected.saturating_sub(1)
        ));
    }
    for problem in &incomplete {
        notes.push(format!(
            "warning: incomplete (--allow-incomplete): {problem}"
        ));
    }
    if let Some(path) = &config.summary {
        crate::io::output::write_json(path, &merged)?;
    }
    Ok(MergeReport {
        summary: merged.summary.clone(),
        missing,
        notes,
        remarks,
        incomplete,
        written: true,
        merged,
        rated: None,
    })
}

/// What interleaving the shards' rows found.
struct MergedRows {
    /// The last rows, not yet written (the output is written only once the shards are known to
    /// be whole).
    unwritten: Vec<u8>,
    /// The rows' counts.
    tally: Tally,
    /// The rows' `solve_ns`, summed.
    cpu_ns: u128,
    /// One past the last index.
    expected: u64,
    /// Indices missing between the first and the last.
    missing: u64,
}

/// Writes the shards' rows to `output` in index order, checking each row, and counts them. An
/// index in two shards is an error; gaps are counted.
fn interleave(
    shards: &mut [ShardReader],
    output: &mut Output,
    claims: &Claims<'_>,
) -> Result<MergedRows> {
    let mut heap = BinaryHeap::new();
    for (i, shard) in shards.iter_mut().enumerate() {
        if let Some(index) = shard.advance()? {
            heap.push(Reverse((index, i)));
        }
    }
    let mut merged = MergedRows {
        unwritten: Vec::with_capacity(128 * 1024),
        tally: Tally::default(),
        cpu_ns: 0,
        expected: 0,
        missing: 0,
    };
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
        merged.missing += index - merged.expected;
        merged.expected = index + 1;
        last = Some((index, i));
        let shard = &mut shards[i];
        // `advance` returned `index`, so the shard's row is there.
        if let Some(row) = shard.reader.row() {
            if let Some(why) = check_row(&row, claims) {
                return Err(row.error(format!(
                    "{why}; the shard was changed after its run wrote it (re-run that shard)"
                )));
            }
            if row.status == Some(Status::GaveUp) {
                // Its re-check may have taken the bound's guesses: a stop is seen at once.
                interrupt::stop_point_whole("merge", output)?;
            }
            merged.tally.add_row(&row)?;
            merged.cpu_ns += u128::from(row.solve_ns.unwrap_or(0));
            push_csv_record(&mut merged.unwritten, row.fields());
        }
        if merged.unwritten.len() >= 64 * 1024 {
            output.write_all(&merged.unwritten)?;
            merged.unwritten.clear();
            interrupt::stop_point_whole("merge", output)?;
        }
        if let Some(next) = shard.advance()? {
            heap.push(Reverse((next, i)));
        }
    }
    Ok(merged)
}

/// Shards with other rows than their run wrote, though of the right size, each in a sentence.
fn rows_unlike_sidecars(shards: &[ShardReader], sidecars: &[Option<RunManifest>]) -> Vec<String> {
    let mut unlike = Vec::new();
    for (shard, sidecar) in shards.iter().zip(sidecars) {
        if let Some(finished) = sidecar.as_ref().and_then(|m| m.finished) {
            if shard.rows != finished.rows {
                unlike.push(format!(
                    "{}: {} row(s), but its run wrote {}",
                    shard.path().display(),
                    grouped(shard.rows),
                    grouped(finished.rows)
                ));
            }
        }
    }
    unlike
}

/// The combined summary: over the span the shards ran in when every shard has a sidecar (with
/// a remark saying so), else from the shards' summaries.
fn merged_summary(
    rows: &MergedRows,
    sidecars: &[Option<RunManifest>],
    shard_summaries: &[Summary],
    remarks: &mut Vec<String>,
) -> MergedSummary {
    let solver_cpu_seconds = rows.cpu_ns as f64 / 1e9;
    let all_sidecars: Option<Vec<&RunManifest>> = sidecars.iter().map(Option::as_ref).collect();
    let Some(runs) = all_sidecars else {
        return MergedSummary {
            summary: summary_from_shard_summaries(&rows.tally, shard_summaries, remarks),
            shards: sidecars.len(),
            span_seconds: None,
            first_start_unix: None,
            last_end_unix: None,
            solver_cpu_seconds,
            incomplete: Vec::new(),
        };
    };
    let span = MergeSpan::of(&runs);
    let threads = runs.iter().map(|m| m.threads).sum();
    let mut solvers: Vec<&str> = runs.iter().map(|m| m.solver.as_str()).collect();
    solvers.dedup();
    let wall = Duration::from_secs_f64(span.span_seconds.unwrap_or(0.0));
    let summary = rows.tally.summary(wall, threads, &solvers.join("+"));
    remarks.push(span.remark(&format!(
        "; solver CPU time {solver_cpu_seconds:.3} s, summed over the rows"
    )));
    MergedSummary {
        summary,
        shards: span.shards,
        span_seconds: span.span_seconds,
        first_start_unix: span.first_start_unix,
        last_end_unix: span.last_end_unix,
        solver_cpu_seconds,
        incomplete: Vec::new(),
    }
}

/// What is wrong with a shard's row, or `None`; the check `--resume` makes of the rows it
/// keeps, against the row's own `puzzle` column (merge has no input): a `solved` row holds a
/// complete solution that keeps the puzzle's clues and obeys the rules; a `mismatch` row holds
/// such a solution or none; every other status has none, and an `unsolvable` or `multiple` row
/// gets its status again when its puzzle is solved again; `multiple` needs a run with
/// `--unique`; a `gave_up` row gives up again within the run's `--max-guesses`. Columns the
/// shard lacks (`--columns`) are not checked.
fn check_row(row: &ResultRowRef<'_>, claims: &Claims<'_>) -> Option<String> {
    let unique = claims.unique;
    let status = row.status?;
    let solution = row.solution?;
    // The puzzle is read for a solution to check, and for a claim that there is none to report
    // (`unsolvable`, `multiple`), which is solved again. An `invalid` row is not: its reason
    // may be in a column merge does not have (a broken reference solution). Without a puzzle
    // column a solution is checked against the rules alone.
    let claim = solution.is_empty()
        && matches!(
            status,
            Status::Unsolvable | Status::Multiple | Status::GaveUp
        );
    let puzzle = match row.puzzle.filter(|_| !solution.is_empty() || claim) {
        Some(text) => match Grid::from_bytes(text.as_bytes()) {
            Ok(puzzle) => Some(puzzle),
            Err(e) => return Some(format!("status {status} but the puzzle is not a grid: {e}")),
        },
        None => None,
    };
    let grid = puzzle.unwrap_or_else(Grid::empty);
    crate::verdict::check_result(status, solution, &grid, None, unique).or_else(|| {
        puzzle
            .filter(|_| claim)
            .and_then(|p| crate::verdict::check_claim(status, &p, None, claims))
    })
}

/// What the shards' runs tell about their rows' claims, from their sidecars: `multiple` rows
/// come only from runs with `--unique` (without sidecars it cannot be told), and the runs'
/// solver and bound judge `gave_up` rows when every shard's sidecar says (`solve` shards; the
/// sidecars agree, or merge refused them).
fn shard_claims(sidecars: &[Option<RunManifest>]) -> Claims<'static> {
    let unique = sidecars.iter().flatten().all(|m| m.unique);
    let run = match sidecars.first() {
        Some(Some(first)) if sidecars.iter().all(Option::is_some) => {
            SolverKind::from_name(&first.solver).map(|solver| JudgeOptions {
                solver,
                unique,
                // The stop flag: a gave_up row's re-check may take the bound's guesses.
                budget: Budget::new(
                    first.limits.max_guesses,
                    Some(crate::run::interrupt::flag()),
                ),
            })
        }
        _ => None,
    };
    Claims { unique, run }
}

/// Whether the shards (with their `sidecars`) are `rate` outputs (else `solve` ones),
/// refusing a mix: one merge takes the outputs of one command.
/// A shard that is neither kind (no header, not a result file) takes the others' kind, so
/// that their reader says what is wrong with it.
fn all_rated(inputs: &[PathBuf], sidecars: &[Option<RunManifest>]) -> Result<bool> {
    let kinds: Vec<Option<bool>> = inputs
        .iter()
        .zip(sidecars)
        .map(|(path, sidecar)| rate_merge::rate_output(path, sidecar.as_ref()))
        .collect();
    let Some((first, kind)) = kinds
        .iter()
        .enumerate()
        .find_map(|(i, k)| k.map(|k| (i, k)))
    else {
        return Ok(false);
    };
    for (i, path) in inputs.iter().enumerate() {
        if kinds[i] == Some(!kind) {
            let command = |rated: bool| if rated { "rate" } else { "solve" };
            return Err(Error::Input {
                path: path.clone(),
                message: format!(
                    "a `{}` output, but {} is a `{}` output; merge the shards of one run",
                    command(!kind),
                    inputs[first].display(),
                    command(kind)
                ),
            });
        }
    }
    Ok(kind)
}

/// Checks every file merge writes against everything it reads: the shards, their sidecars and
/// the shard summaries.
fn check_merge_targets(config: &MergeConfig) -> Result<()> {
    let read: Vec<PathBuf> = config
        .inputs
        .iter()
        .flat_map(|p| [p.clone(), shard_sidecar_path(p)])
        .chain(config.shard_summaries.iter().cloned())
        .collect();
    // No -o writes the merged rows to standard output.
    let mut targets = vec![Target::new(
        "-o",
        config.output.as_deref().unwrap_or(Path::new("-")),
        WriteKind::Replaced,
    )];
    if let Some(path) = &config.summary {
        targets.push(Target::new("--summary", path, WriteKind::Replaced));
    }
    one_on_stdout(&targets)?;
    check_targets(&read, &targets)
}

/// Refuses a shard that can be read only once (a pipe, FIFO or socket, as `<(cat FILE)`
/// gives): merge reads a shard's header and its rows, and checks it against its sidecar,
/// so a second read would find nothing, or wait forever for a writer.
fn refuse_streams(inputs: &[PathBuf]) -> Result<()> {
    #[cfg(unix)]
    for path in inputs {
        use std::os::unix::fs::FileTypeExt;
        let Ok(kind) = std::fs::metadata(path).map(|m| m.file_type()) else {
            continue;
        };
        if kind.is_fifo() || kind.is_socket() {
            return Err(Error::Input {
                path: path.clone(),
                message: "a pipe or FIFO, which can be read only once; merge reads a shard more \
                          than once (its header, its rows, its check against the run's \
                          sidecar): give the file itself"
                    .into(),
            });
        }
    }
    #[cfg(not(unix))]
    let _ = inputs;
    Ok(())
}

/// A shard that is not there, where its run's in-progress file is: said so, with what to do.
fn unfinished_shard(error: Error, shard: &Path) -> Error {
    let partial = crate::io::targets::partial_path(&crate::io::targets::through_links(shard));
    match error {
        Error::Open { path, cause }
            if cause.kind() == std::io::ErrorKind::NotFound && partial.is_file() =>
        {
            let text = format!(
                "{cause}; {} is there: its run did not finish (--resume finishes it; merge \
                 takes that name to merge what it holds)",
                partial.display()
            );
            Error::Open {
                path,
                cause: std::io::Error::new(cause.kind(), text),
            }
        }
        other => other,
    }
}

/// Opens the shards (at least one) and returns them with their common columns: rows are
/// copied as they are, so every shard must have the same columns in one order.
fn open_shards(inputs: &[PathBuf], whole_members: bool) -> Result<(Vec<ShardReader>, Vec<Column>)> {
    let shards = inputs
        .iter()
        .map(|p| ShardReader::open(p, whole_members).map_err(|e| unfinished_shard(e, p)))
        .collect::<Result<Vec<_>>>()?;
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
    Ok((shards, columns))
}

/// Checks the shards' sidecars: shards of different runs and a shard given twice are errors;
/// the missing and cut-off shards are returned, each said in a sentence.
fn check_shards(inputs: &[PathBuf], sidecars: &[Option<RunManifest>]) -> Result<Vec<String>> {
    let mut incomplete = Vec::new();
    let Some((first_path, first)) = inputs
        .iter()
        .zip(sidecars)
        .find_map(|(p, m)| m.as_ref().map(|m| (p, m)))
    else {
        return Ok(incomplete);
    };
    let count = first.shard_kn().1;
    let hashed = first_hashed(inputs, sidecars, first.inputs.len());
    let mut seen = std::collections::BTreeMap::new();
    // Every shard reads the whole input: their counts of its records agree (which tells shards
    // of different inputs apart where a sidecar has no hash of its input to compare).
    let mut records: Option<(&PathBuf, u64)> = None;
    let mut unnamed = Vec::new();
    for (path, sidecar) in inputs.iter().zip(sidecars) {
        let Some(run) = sidecar else {
            unnamed.push(path.display().to_string());
            incomplete.push(format!(
                "{}: no {} beside it: which run wrote it, and whether it is complete, cannot be \
                 told",
                path.display(),
                shard_sidecar_path(path).display()
            ));
            continue;
        };
        let differences = first.differences(run, Compare::Merge);
        if !differences.is_empty() {
            return Err(not_the_same_run(path, first_path, &differences));
        }
        refuse_other_hashes(&hashed, path, run)?;
        let (k, n) = run.shard_kn();
        if let Some(other) = seen.insert(k, path) {
            return Err(Error::Input {
                path: path.clone(),
                message: format!(
                    "shard {k}/{n} is also {}; give each shard once",
                    other.display()
                ),
            });
        }
        match run.finished {
            None => incomplete.push(format!(
                "{}: its run did not finish ({} records no end); finish it with `{} \
                 --resume`{}",
                path.display(),
                shard_sidecar_path(path).display(),
                run.command(),
                if run.unhashed_stream() {
                    "; what it read from standard input or a FIFO has no hash to compare with \
                     the other shards' input until then"
                } else {
                    ""
                }
            )),
            Some(finished) => {
                match records {
                    Some((other, n)) if n != finished.input_records => {
                        return Err(Error::Input {
                            path: path.clone(),
                            message: format!(
                                "not a shard of the same run as {}: its run read {} records, \
                                 that one's {}; merge the shards of one run",
                                other.display(),
                                grouped(finished.input_records),
                                grouped(n)
                            ),
                        });
                    }
                    None => records = Some((path, finished.input_records)),
                    _ => {}
                }
                let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
                if size != finished.bytes {
                    incomplete.push(format!(
                        "{}: {} bytes, but its run wrote {}: rows were cut off or changed since",
                        path.display(),
                        grouped(size),
                        grouped(finished.bytes)
                    ));
                }
            }
        }
    }
    let absent: Vec<String> = (1..=count)
        .filter(|k| !seen.contains_key(k))
        .map(|k| k.to_string())
        .collect();
    incomplete.extend(absent_shards(&absent, count, &unnamed));
    Ok(incomplete)
}

/// The problem of the shards `absent` (of `count`) that no input with a sidecar is: missing,
/// or perhaps among the inputs without one (`unnamed`), whose rows are merged all the same.
fn absent_shards(absent: &[String], count: u64, unnamed: &[String]) -> Option<String> {
    if absent.is_empty() {
        return None;
    }
    Some(if unnamed.is_empty() {
        format!(
            "shard(s) {} of {count} missing: no output of theirs among the inputs",
            absent.join(", ")
        )
    } else {
        format!(
            "shard(s) {} of {count} not found: no input with a sidecar is theirs; {} (without \
             one) may hold their rows, which cannot be told",
            absent.join(", "),
            unnamed.join(", ")
        )
    })
}

/// The warning when no shard has a sidecar (copied without them, or an older version's).
fn without_sidecars(sidecars: &[Option<RunManifest>]) -> Vec<String> {
    if !sidecars.iter().all(Option::is_none) {
        return Vec::new();
    }
    vec![format!(
        "warning: no {} beside the shards (an older version's outputs?): merge cannot check that \
         they come from one run and are complete",
        sidecar_path(Path::new("FILE")).display()
    )]
}

/// The error for shard `path`, not of the same run as `other` for the `differences` said.
fn not_the_same_run(path: &Path, other: &Path, differences: &[String]) -> Error {
    Error::Input {
        path: path.to_path_buf(),
        message: format!(
            "not a shard of the same run as {}: {}; merge the shards of one run",
            other.display(),
            differences.join("; ")
        ),
    }
}

/// For each of `count` inputs, the first shard (and its sidecar) that has the input's hash: a
/// shard stopped early has none, nor does a sidecar written before stream inputs were hashed,
/// so comparing with the first shard alone would let the order the shards are given in decide
/// what is compared.
fn first_hashed<'a>(
    inputs: &'a [PathBuf],
    sidecars: &'a [Option<RunManifest>],
    count: usize,
) -> Vec<Option<(&'a PathBuf, &'a RunManifest)>> {
    (0..count)
        .map(|i| {
            inputs
                .iter()
                .zip(sidecars)
                .find_map(|(p, m)| m.as_ref().filter(|m| m.input_hashed(i)).map(|m| (p, m)))
        })
        .collect()
}

/// Compares each input of shard `path` (its sidecar `run`) with the same input of the shard
/// that has its hash first (`hashed`, from [`first_hashed`]).
fn refuse_other_hashes(
    hashed: &[Option<(&PathBuf, &RunManifest)>],
    path: &Path,
    run: &RunManifest,
) -> Result<()> {
    for (i, reference) in hashed.iter().enumerate() {
        if let Some((other, hashed)) = reference {
            if let Some(why) = hashed.input_difference_at(run, i) {
                return Err(not_the_same_run(path, other, &[why]));
            }
        }
    }
    Ok(())
}

/// Refuses a finished shard that has the size its run wrote but other bytes (its sidecar's
/// CRC-32): an edit since the run. Asked after the rows are merged, so that an edit that breaks
/// a row's claim is named by its line first; the merged output is then not finished.
fn refuse_edited(inputs: &[PathBuf], sidecars: &[Option<RunManifest>]) -> Result<()> {
    for (path, run) in inputs.iter().zip(sidecars) {
        let Some(finished) = run.as_ref().and_then(|r| r.finished) else {
            continue;
        };
        // Another size is a cut-off shard, found before the merge.
        if std::fs::metadata(path).is_ok_and(|m| m.len() == finished.bytes) {
            if let Some(why) = content_changed(path, &finished) {
                return Err(Error::Input {
                    path: path.clone(),
                    message: format!("{why}; re-run that shard"),
                });
            }
        }
    }
    Ok(())
}

/// For an output that streams (standard output, a FIFO, a device: rows reach the reader as
/// they are merged, with no file to withhold), [`refuse_edited`] before the first byte, so a
/// refused merge sends nothing. Every output is checked after the rows too (which name an
/// edit by its line first), and a file put in place only then.
fn refuse_edited_if_streamed(
    output: &Output,
    inputs: &[PathBuf],
    sidecars: &[Option<RunManifest>],
) -> Result<()> {
    if output.placed().is_err() {
        refuse_edited(inputs, sidecars)?;
    }
    Ok(())
}

/// The report of a merge that wrote nothing because shards are missing or cut off.
fn nothing_written(notes: Vec<String>, incomplete: Vec<String>) -> MergeReport {
    let summary = Tally::default().summary(Duration::ZERO, 0, "");
    MergeReport {
        summary: summary.clone(),
        missing: 0,
        notes,
        remarks: Vec::new(),
        incomplete,
        written: false,
        rated: None,
        merged: MergedSummary {
            summary,
            shards: 0,
            span_seconds: None,
            first_start_unix: None,
            last_end_unix: None,
            solver_cpu_seconds: 0.0,
            incomplete: Vec::new(),
        },
    }
}

/// Ends the merged output: with its last rows `unwritten` put in place, unless shards are
/// `incomplete` without `--allow-incomplete`, when the partial output is removed and false
/// returned (nothing written).
fn complete_output(
    config: &MergeConfig,
    mut output: Output,
    unwritten: &[u8],
    incomplete: &[String],
) -> Result<bool> {
    if !incomplete.is_empty() && !config.allow_incomplete {
        drop(output);
        if let Some(path) = config.output.as_deref().filter(|p| p.as_os_str() != "-") {
            let _ = std::fs::remove_file(partial_path(path));
        }
        return Ok(false);
    }
    output.write_all(unwritten)?;
    output.finish()?;
    Ok(true)
}

/// [`run`] for the shards of a `rate` run: the same checks of the shards' sidecars, the rows
/// in index order with each re-checked, and the combined rating summary.
fn merge_rate(config: &MergeConfig, sidecars: &[Option<RunManifest>]) -> Result<MergeReport> {
    let mut notes = without_sidecars(sidecars);
    if !config.shard_summaries.is_empty() {
        notes.push(
            "warning: --shard-summary not used: it is for solve shards (rate shards' summaries \
             come from their rows and sidecars)"
                .into(),
        );
    }
    let mut incomplete = check_shards(&config.inputs, sidecars)?;
    if !incomplete.is_empty() && !config.allow_incomplete {
        return Ok(nothing_written(notes, incomplete));
    }
    let options = crate::io::output::OutputOptions {
        inputs: config.inputs.clone(),
        ..Default::default()
    };
    let mut output = Output::create_with(config.output.as_deref(), &options)?;
    refuse_edited_if_streamed(&output, &config.inputs, sidecars)?;
    let mut merged = rate_merge::interleave(
        &config.inputs,
        sidecars,
        &mut output,
        config.allow_incomplete,
    )?;
    interrupt::stop_point_whole("merge", &output)?;
    refuse_edited(&config.inputs, sidecars)?;
    incomplete.append(&mut merged.unlike_sidecars);
    if !complete_output(config, output, &merged.unwritten, &incomplete)? {
        return Ok(nothing_written(notes, incomplete));
    }
    let runs: Option<Vec<&RunManifest>> = sidecars.iter().map(Option::as_ref).collect();
    let merge_span = runs.map(|runs| MergeSpan::of(&runs));
    let span = merge_span.and_then(|m| m.span_seconds);
    let mut remarks = Vec::new();
    if let Some(m) = &merge_span {
        remarks.push(m.remark(""));
    }
    let summary = &mut merged.summary;
    summary.merged = merge_span;
    summary.threads = sidecars.iter().flatten().map(|m| m.threads).sum();
    summary.wall_seconds = span.unwrap_or(0.0);
    summary.puzzles_per_second = match span {
        Some(s) if s > 0.0 => summary.puzzles as f64 / s,
        _ => 0.0,
    };
    if merged.missing > 0 {
        notes.push(format!(
            "warning: {} index(es) missing: a shard's output is missing or incomplete",
            merged.missing
        ));
    }
    for problem in &incomplete {
        notes.push(format!(
            "warning: incomplete (--allow-incomplete): {problem}"
        ));
    }
    merged.summary.incomplete = lacking(&incomplete, merged.missing);
    if let Some(path) = &config.summary {
        crate::io::output::write_json(path, &merged.summary)?;
    }
    let mut report = nothing_written(notes, incomplete);
    report.written = true;
    report.missing = merged.missing;
    report.remarks = remarks;
    report.rated = Some(merged.summary);
    Ok(report)
}

/// The combined summary without sidecars: solver, threads (summed) and wall time (the longest
/// shard's) from the shards' JSON summaries, when given.
fn summary_from_shard_summaries(
    tally: &Tally,
    shard_summaries: &[Summary],
    remarks: &mut Vec<String>,
) -> Summary {
    let wall = shard_summaries
        .iter()
        .map(|s| s.wall_seconds)
        .fold(0.0, f64::max);
    let threads = shard_summaries.iter().map(|s| s.threads).sum();
    let mut solvers: Vec<&str> = shard_summaries.iter().map(|s| s.solver.as_str()).collect();
    solvers.dedup();
    let mut summary = tally.summary(Duration::from_secs_f64(wall), threads, &solvers.join("+"));
    if shard_summaries.is_empty() {
        remarks.push(
            "no --shard-summary given: threads, solver and wall time unknown (0); counts and \
             solve times are recomputed from the rows"
                .into(),
        );
    } else {
        summary.puzzles_per_second = if wall > 0.0 {
            summary.puzzles as f64 / wall
        } else {
            0.0
        };
    }
    summary
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

    /// A row of an unsolvable puzzle (its first cell has no candidate left: 2-9 in its row, 1
    /// below it), which merge solves again to check an `unsolvable` row.
    fn row(index: u64, status: &str) -> String {
        format!(
            "{index},{},.234567891{},,{status},1,{},,a.txt\n",
            index + 1,
            ".".repeat(71),
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
        let report = run(&config).unwrap();
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
        let error = run(&dup).unwrap_err().to_string();
        assert!(error.contains("index 0 is also in"), "{error}");
        let unordered = write(dir.path(), "u.csv", &[2, 1]);
        let bad = MergeConfig {
            inputs: vec![unordered],
            output: Some(out),
            ..MergeConfig::default()
        };
        let error = run(&bad).unwrap_err().to_string();
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
            run(&config).map(|_| ()).unwrap_err().to_string()
        };
        let whole = write(dir.path(), "a.csv", &[0, 2]);
        let cut = dir.path().join("b.csv");
        // (`unsolvable`: a `solved` row needs a solution, which merge re-checks.)
        let mut text = header_line() + &row(1, "unsolvable");
        text.push_str(&row(3, "unsolvable")[..20]);
        std::fs::write(&cut, text).unwrap();
        let config = MergeConfig {
            inputs: vec![whole.clone(), cut.clone()],
            output: Some(out.clone()),
            ..MergeConfig::default()
        };
        let report = run(&config).unwrap();
        assert!(!report.written && !out.exists(), "no final file");
        let torn = "b.csv: line 3: a cut-off row (no line end), left out";
        assert!(
            report.incomplete.iter().any(|i| i.contains(torn)),
            "{:?}",
            report.incomplete
        );
        // With --allow-incomplete, the rows before it.
        let report = run(&MergeConfig {
            allow_incomplete: true,
            ..config
        })
        .unwrap();
        assert!(report.written, "{:?}", report.incomplete);
        assert!(
            report.notes.iter().any(|n| n.contains(torn)),
            "{:?}",
            report.notes
        );
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(text.lines().count(), 4, "the header and rows 0-2: {text}");
        std::fs::remove_file(&out).unwrap();

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
        assert!(error.ends_with("e.csv: not a result row: line 2: status \"sovled\" is not one of solved, unsolvable, multiple, invalid, mismatch, gave_up"), "{error}");

        // A subset of the columns in any order merges, and keeps them.
        let other = dir.path().join("f.csv");
        std::fs::write(&other, "status,index,guesses,solve_ns\nunsolvable,0,2,7\n").unwrap();
        let config = MergeConfig {
            inputs: vec![reordered, other],
            output: Some(out.clone()),
            ..MergeConfig::default()
        };
        let report = run(&config).unwrap();
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "status,index,guesses,solve_ns\nunsolvable,0,2,7\nsolved,1,0,5\n"
        );
        assert_eq!((report.summary.puzzles, report.summary.solved), (2, 1));
    }
}
