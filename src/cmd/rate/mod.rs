//! `rate`: rates every puzzle of the inputs on Sudoku Explainer's scale ([`crate::rate`]) on all
//! cores and writes one CSV row per record, in input order, with a summary by rating band.
//!
//! Each puzzle is first proven to have exactly one solution by the fast solver (through the
//! library's [`verdict::judge`]); a puzzle with none or several gets that status and no rating.
//! `--explain` writes each puzzle's solving path in words instead of rows. Long runs work as
//! `solve`'s do: `--shard K/N` rates one shard's records, `-o FILE` gets a sidecar
//! (`FILE.run.json`), and `--resume` checks an interrupted run's rows and appends the rest.

mod columns;
pub(crate) mod merge;
mod resume;
mod tail;

pub use columns::RateColumn;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::cmd::outcome::{RunReport, RunSummary};
use crate::cmd::sidecar::{
    check_header_for_resume, hashing, wants_sidecar, Hashing, ReadHashes, RowsOut, RunDefinition,
    RunLimits, RunManifest, Sidecar, RATE_KIND,
};
use crate::cmd::RunOptions;
use crate::error::{Error, Result};
use crate::io::compress::Codec;
use crate::io::output::{write_json, Output, OutputOptions};
use crate::io::targets::check_run_targets;
use crate::io::{Body, Columns, Input};
use crate::rate::verdict::{self, RateStatus, RateVerdict as Rated};
use crate::rate::{self as rater, Flavor, Limits};
use crate::run::records::{Chunk, ChunkSize, ShardedRecords};
use crate::run::{check_threads, interrupt, ordered_map, Progress, Start, Workers};
use crate::shard::{Shard, ShardChoice};
use columns::{push_row, RowPlace};
use resume::Resumed;

/// Most records per work item: a hard puzzle takes up to a second, so chunks stay small.
const CHUNK: usize = 32;

/// The rating time a chunk aims at: rows reach the output (and the progress bar) often, and a
/// stop loses little, while easy puzzles still come 32 to a chunk.
const CHUNK_RATE_NS: u64 = 20_000_000;

/// Record text per work item.
const CHUNK_TEXT: usize = 64 * 1024;

/// How many of the hardest puzzles the summary lists.
const HARDEST: usize = 5;

/// Everything `rate` needs, built from the command line.
#[derive(Debug, Clone)]
pub struct RateConfig {
    /// The inputs, how to read them, the JSON summary, worker threads and quiet.
    pub run: RunOptions,
    /// Output file; `None` for stdout.
    pub output: Option<PathBuf>,
    /// The output's encoding; `None` follows its extension.
    pub compress: Option<Codec>,
    /// Stop rating a puzzle once a step above this ER (tenths) is needed.
    pub max_er: Option<u16>,
    /// Stop rating a puzzle after this long.
    pub timeout: Option<Duration>,
    /// Which Sudoku Explainer release to follow.
    pub flavor: Flavor,
    /// Write each puzzle's solving path in words instead of CSV rows.
    pub explain: bool,
    /// Which records to rate: every one, one shard's, or the scheduler's shard.
    pub shard: ShardChoice,
    /// Continue an interrupted run into `output`.
    pub resume: bool,
    /// With `resume`: rate the `gave_up` rows again (and every row after the first).
    pub retry_gave_up: bool,
    /// The output's columns, in order.
    pub columns: Vec<RateColumn>,
    /// Whether the output opens with its header line (`--no-header` turns it off).
    pub header: bool,
}

impl RateConfig {
    /// A configuration with defaults for everything but the inputs.
    pub fn new(inputs: Vec<Input>) -> Self {
        RateConfig {
            run: RunOptions::new(inputs),
            output: None,
            compress: None,
            max_er: None,
            timeout: None,
            flavor: Flavor::default(),
            explain: false,
            shard: ShardChoice::All,
            resume: false,
            retry_gave_up: false,
            columns: RateColumn::ALL.to_vec(),
            header: true,
        }
    }

    /// The name of the scale followed, as the sidecar records it.
    fn scale(&self) -> &'static str {
        self.flavor.name()
    }
}

/// Rates one record's body ([`verdict::judge`]); with `steps`, the solving path is recorded.
pub(crate) fn rate_body(
    body: &Body,
    config: &RateConfig,
    steps: Option<&mut Vec<rater::Step>>,
) -> Rated {
    let puzzle = match body {
        Body::Invalid { message, .. } => return Rated::invalid(message.clone()),
        Body::Puzzle { puzzle, .. } => puzzle,
    };
    let limits = Limits {
        max_er: config.max_er,
        flavor: config.flavor,
        stop: Some(interrupt::shared()),
        ..Limits::default()
    };
    verdict::judge(puzzle, &limits, config.timeout, steps)
}

/// Rating counts: by status, by band, the finer histogram, and the hardest puzzles.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RateSummary {
    /// Records read.
    pub puzzles: u64,
    /// Records per status word.
    pub statuses: BTreeMap<&'static str, u64>,
    /// Rated puzzles per Sudoku Exchange band: `below_1.5`, `1.5-2.5`, `2.5-5.0`, `5.0_up`
    /// (written to the JSON in that order, every band, empty ones as 0).
    #[serde(serialize_with = "in_band_order")]
    pub bands: BTreeMap<&'static str, u64>,
    /// Rated puzzles per ER in tenths (72 is ER 7.2), written to the JSON as text keys
    /// (`"7.2"`) in the order of the ratings.
    #[serde(serialize_with = "tenths_as_text")]
    pub histogram: BTreeMap<u16, u64>,
    /// The hardest rated puzzles, hardest first: (ER, index, puzzle).
    pub hardest: Vec<(f32, u64, String)>,
    /// Worker threads.
    pub threads: usize,
    /// Wall-clock time of the run.
    pub wall_seconds: f64,
    /// Records per second of wall time.
    pub puzzles_per_second: f64,
    /// The run was stopped by a signal: the counts cover the rows written before it only.
    /// Written to the JSON only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// A `merge --allow-incomplete` of shards that were missing or cut off: what was missing,
    /// a sentence each. Written to the JSON only when not empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub incomplete: Vec<String>,
    /// A merge of shards with sidecars: how many, and when they ran (`shards`, `span_seconds`,
    /// `first_start_unix`, `last_end_unix` in the JSON; `wall_seconds` is the span).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub merged: Option<crate::cmd::shards::MergeSpan>,
}

/// A map keyed by ratings in tenths as a JSON object keyed `"7.2"`, in the map's (numeric)
/// order: text keys in a `BTreeMap` would put `"11.0"` before `"2.6"`.
fn tenths_as_text<S: serde::Serializer>(
    map: &BTreeMap<u16, u64>,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    serializer.collect_map(
        map.iter()
            .map(|(tenths, n)| (format!("{}.{}", tenths / 10, tenths % 10), n)),
    )
}

/// The Sudoku Exchange bands, easiest first.
const BANDS: [&str; 4] = ["below_1.5", "1.5-2.5", "2.5-5.0", "5.0_up"];

/// The Sudoku Exchange band of an ER in tenths.
fn band(er: u16) -> &'static str {
    match er {
        0..=14 => BANDS[0],
        15..=24 => BANDS[1],
        25..=49 => BANDS[2],
        _ => BANDS[3],
    }
}

/// The band counts as a JSON object in [`BANDS`] order (as text, `below_1.5` would come last).
fn in_band_order<S: serde::Serializer>(
    map: &BTreeMap<&'static str, u64>,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    serializer.collect_map(BANDS.iter().map(|b| (b, map.get(b).copied().unwrap_or(0))))
}

impl RateSummary {
    /// Counts one record: its index, puzzle, status and (when rated) ER in tenths.
    fn add(&mut self, index: u64, puzzle: &str, status: RateStatus, er: Option<u16>) {
        self.puzzles += 1;
        *self.statuses.entry(status.as_str()).or_default() += 1;
        let (RateStatus::Rated, Some(er)) = (status, er) else {
            return;
        };
        *self.bands.entry(band(er)).or_default() += 1;
        *self.histogram.entry(er).or_default() += 1;
        let er = f32::from(er) / 10.0;
        if self.hardest.len() < HARDEST || self.hardest.last().is_some_and(|h| h.0 < er) {
            self.hardest.push((er, index, puzzle.to_string()));
            // Stable: among equal ratings the earliest puzzle stays first.
            self.hardest
                .sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            self.hardest.truncate(HARDEST);
        }
    }

    /// Takes the counts out, leaving an empty summary.
    fn take(&mut self) -> RateSummary {
        std::mem::take(self)
    }

    /// Adds `other`'s counts (kept rows of an earlier run) to these.
    fn merge(&mut self, other: RateSummary) {
        self.puzzles += other.puzzles;
        for (status, n) in other.statuses {
            *self.statuses.entry(status).or_default() += n;
        }
        for (band, n) in other.bands {
            *self.bands.entry(band).or_default() += n;
        }
        for (er, n) in other.histogram {
            *self.histogram.entry(er).or_default() += n;
        }
        self.hardest.extend(other.hardest);
        self.hardest
            .sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        self.hardest.truncate(HARDEST);
    }

    /// The human-readable summary printed to stderr.
    pub fn to_text(&self) -> String {
        let count = |s: RateStatus| self.statuses.get(s.as_str()).copied().unwrap_or(0);
        let mut text = format!(
            "puzzles: {} (rated {}, unsolvable {}, multiple {}, invalid {}, gave up {})\n",
            self.puzzles,
            count(RateStatus::Rated),
            count(RateStatus::Unsolvable),
            count(RateStatus::Multiple),
            count(RateStatus::Invalid),
            count(RateStatus::GaveUp),
        );
        text += &format!(
            "wall: {:.3} s, {:.0} puzzles/s, {} thread(s)\n",
            self.wall_seconds, self.puzzles_per_second, self.threads
        );
        let bands: Vec<String> = BANDS
            .iter()
            .map(|b| format!("{b} {}", self.bands.get(b).copied().unwrap_or(0)))
            .collect();
        text += &format!("ER bands: {}\n", bands.join(", "));
        if let Some((er, index, puzzle)) = self.hardest.first() {
            text += &format!("hardest: ER {er:.1} (index {index}) {puzzle}\n");
            // The others of the summary's hardest list that share that rating.
            let ties: Vec<String> = self.hardest[1..]
                .iter()
                .filter(|h| h.0 == *er)
                .map(|h| h.1.to_string())
                .collect();
            if !ties.is_empty() {
                text += &format!("also ER {er:.1}: index {}\n", ties.join(", "));
            }
        }
        text
    }
}

/// What a finished `rate` run reports.
pub type RateReport = RunReport<RateSummary>;

impl RunSummary for RateSummary {
    fn to_text(&self) -> String {
        RateSummary::to_text(self)
    }

    fn passed(&self) -> (u64, u64) {
        let rated = self.statuses.get("rated").copied().unwrap_or(0);
        (self.puzzles, rated)
    }
}

/// One chunk's rows (or explanations) and what the summary needs of them.
struct ChunkOut {
    text: Vec<u8>,
    rated: Vec<(u64, String, Rated)>,
    /// The length of the chunk's input text (for the progress bar).
    input_bytes: u64,
    /// Stopped mid-chunk by a signal: no later chunk may be written.
    cut: bool,
}

/// Rates the records of `chunk` in order; stops at the first puzzle a signal cut short.
fn rate_chunk(chunk: &Chunk, config: &RateConfig, files: &[String]) -> ChunkOut {
    let mut out = ChunkOut {
        text: Vec::with_capacity(chunk.records.len() * 160),
        rated: Vec::with_capacity(chunk.records.len()),
        input_bytes: chunk.text.len() as u64,
        cut: false,
    };
    for (index, record) in chunk.iter() {
        if interrupt::requested() {
            out.cut = true;
            break;
        }
        // A rating needs no solution: a line's second long token is ignored, as a CSV
        // file's solution column is.
        let body = record.with_fields(&chunk.text, Body::puzzle_only);
        let puzzle = match &body {
            Body::Puzzle { puzzle, .. } => puzzle.to_string(),
            Body::Invalid { text, .. } => text.clone(),
        };
        let mut steps = Vec::new();
        let rated = rate_body(&body, config, config.explain.then_some(&mut steps));
        if rated.stopped {
            // Stopped mid-search by the signal, not by a limit: no answer to write.
            out.cut = true;
            break;
        }
        let file = files.get(record.file as usize).map_or("-", String::as_str);
        if config.explain {
            // Only a record with no rating gets its place (the others are found by puzzle).
            let place = rated.rating.is_none().then(|| {
                let shown = if file == "-" { "stdin" } else { file };
                format!("{shown} line {}", record.line)
            });
            out.text.extend_from_slice(
                rated
                    .explanation(&puzzle, &steps, place.as_deref())
                    .as_bytes(),
            );
            out.text.push(b'\n');
        } else {
            let place = RowPlace {
                index,
                line: record.line,
                puzzle: &puzzle,
                file,
            };
            push_row(&mut out.text, &config.columns, &place, &rated);
        }
        out.rated.push((index, puzzle, rated));
    }
    out
}

/// How many records each work item gets: one until a rating is timed (a hard puzzle takes
/// seconds, so a few of them must not share one thread), then about [`CHUNK_RATE_NS`] of work.
fn chunk_size() -> ChunkSize {
    ChunkSize::new(1, CHUNK, CHUNK_RATE_NS).first(1)
}

/// Rates the records on `workers` and writes each chunk's rows (or explanations) in input order,
/// flushed chunk by chunk; the summary of the rows rated now, and whether a stop ended the run
/// early (records left unread, or a puzzle cut short with no later row written).
fn rate_records(
    config: &RateConfig,
    (workers, records, files): (&Workers, &mut ShardedRecords, &[String]),
    (output, sidecar): (&mut Output, &mut Sidecar<'_>),
    (progress, bytes_read, start_bytes): (&mut Progress, &AtomicU64, u64),
) -> Result<(RateSummary, bool)> {
    let threads = config.run.threads.max(1);
    let chunk_size = chunk_size();
    // The reader runs ahead of the rating (a small file is read whole at once, and a hard
    // puzzle takes seconds), so the bar shows the input the rated records stand for: their
    // text, scaled by the raw bytes read per byte of text handed out (below 1 for compressed
    // input), not the bytes read. `start_bytes`: the input `--resume` skipped.
    let (handed_out, mut rated_text) = (AtomicU64::new(0), 0u64);
    let produce = |_inline: bool| -> Result<Option<Chunk>> {
        let chunk =
            records.next_chunk(Chunk::with_capacity(CHUNK), chunk_size.next(), CHUNK_TEXT)?;
        if let Some(chunk) = &chunk {
            handed_out.fetch_add(chunk.text.len() as u64, Ordering::Relaxed);
        }
        Ok(chunk)
    };
    let codec = output.codec();
    let work = |chunk: Chunk| {
        let mut out = rate_chunk(&chunk, config, files);
        let rate_ns = out.rated.iter().map(|(_, _, r)| r.rate_ns).sum();
        chunk_size.record(rate_ns, out.rated.len() as u64);
        codec.seal(&mut out.text);
        out
    };
    let mut summary = RateSummary {
        threads,
        ..RateSummary::default()
    };
    let mut cut = false;
    let consume = |out: ChunkOut| -> Result<()> {
        if cut {
            return Ok(());
        }
        cut = out.cut;
        if out.rated.is_empty() {
            // A chunk stopped before its first puzzle was rated: no row, so nothing to keep.
            return Ok(());
        }
        sidecar.rows_written(output)?;
        output.write_sealed(&out.text)?;
        // A chunk is tens of milliseconds of rating or more: its rows go to disk at once, so a
        // run that is killed outright loses at most the chunks in flight.
        output.flush()?;
        for (index, puzzle, rated) in &out.rated {
            let er = rated.rating.map(|r| r.er);
            summary.add(*index, puzzle, rated.status, er);
        }
        rated_text += out.input_bytes;
        let read = bytes_read
            .load(Ordering::Relaxed)
            .saturating_sub(start_bytes);
        let text = handed_out.load(Ordering::Relaxed).max(rated_text).max(1);
        let position = u128::from(rated_text) * u128::from(read.min(text)) / u128::from(text);
        progress.advance(out.rated.len() as u64, start_bytes + position as u64);
        Ok(())
    };
    let result = ordered_map(
        workers,
        threads * 4 + 2,
        Start::Threads,
        produce,
        work,
        consume,
    );
    progress.finish();
    result?;
    interrupt::unless_abandoned()?;
    // A stop that came after the last chunk was read still cut a puzzle short.
    Ok((summary, records.stopped() || cut))
}

/// Where this run's rows go: a fresh output, or (`--resume`) the earlier run's, after its kept
/// rows, which are consumed from `records`.
fn open_output(
    config: &RateConfig,
    records: &mut ShardedRecords,
    files: &mut [String],
    manifest: Option<&mut RunManifest>,
    notes: &mut Vec<String>,
) -> Result<Resumed> {
    let options = OutputOptions {
        compress: config.compress,
        inputs: config.run.inputs.iter().map(Input::path).collect(),
        resumable: false,
        flag: None,
    };
    match (config.resume, config.output.as_deref()) {
        (false, path) => Ok(Resumed::fresh(Output::create_with(path, &options)?)),
        (true, Some(path)) if path.as_os_str() != "-" => resume::resume(
            path,
            &options,
            records,
            files,
            resume::ThisRun {
                columns: &config.columns,
                manifest,
                retry_gave_up: config.retry_gave_up,
            },
            notes,
        ),
        (true, _) => Err(Error::Usage("--resume needs -o FILE".into())),
    }
}

/// Refuses option combinations that cannot work, before anything is read or written.
fn check_config(config: &RateConfig) -> Result<()> {
    if config.columns.is_empty() {
        return Err(Error::Usage("--columns needs at least one column".into()));
    }
    check_header_for_resume(config.header, config.resume)?;
    if config.explain && config.resume {
        return Err(Error::Usage(
            "--explain writes text, not rows: it cannot --resume".into(),
        ));
    }
    for input in &config.run.inputs {
        input.check()?;
    }
    let inputs: Vec<PathBuf> = config.run.inputs.iter().map(Input::path).collect();
    check_run_targets(
        &inputs,
        config.output.as_deref(),
        config.run.summary.as_deref(),
    )?;
    check_threads(config.run.threads.max(1), config.run.allow_oversubscribe)
}

/// Runs `rate`: reads every input, rates on `config.run.threads` threads, writes the rows in input
/// order and returns the summary. Bad records are rows, not errors; errors are usage and I/O.
///
/// With a shard, only that shard's records are rated (rows keep their global `index`). With
/// `resume`, the rows of an interrupted run are checked and kept, and the run goes on from there.
pub fn run(config: &RateConfig) -> Result<RateReport> {
    check_config(config)?;
    let mut notes = Vec::new();
    let shard = resolve_shard(config, &mut notes)?;
    let threads = config.run.threads.max(1);
    let workers = Workers::started(threads)?;
    let mut files: Vec<String> = config.run.inputs.iter().map(Input::display_name).collect();
    let total_bytes: Option<u64> = config.run.inputs.iter().map(Input::size).sum();
    let sidecar_wanted = !config.explain && wants_sidecar(config.output.as_deref());
    let hashes = read_hashes(config, sidecar_wanted);
    // From the first read on, a stop ends the run cleanly (and a silent pipe's wait at once).
    interrupt::arm(None);
    // Rows for a pipe whose reader is gone stop the run at once (a rating can take seconds).
    let _watch = interrupt::watch_stdout_for(config.output.as_deref());
    // A bad input or option is an error before the output exists.
    let (mut records, bytes_read) = ShardedRecords::open(
        &config.run.inputs,
        &config.run.read,
        // A rating needs no solution: a file whose solution column is ambiguous still rates.
        Columns {
            ignore_solution: true,
            ..Columns::default()
        },
        shard,
        hashes.taps(),
    )?;
    let manifest = match sidecar_wanted {
        false => None,
        true => Some(run_manifest(config, shard, threads, &hashes)?),
    };
    let mut sidecar = run_sidecar(config, manifest, hashes);
    let Resumed {
        mut output,
        rows: resumed_rows,
        summary: mut kept,
        needs_header,
    } = interrupt::excuse_output(open_output(
        config,
        &mut records,
        &mut files,
        sidecar.manifest_mut(),
        &mut notes,
    ))?;
    if resumed_rows > 0 {
        sidecar.kept_rows_from(records.reader.inputs_opened());
    }
    if needs_header && config.header && !config.explain {
        output.write_all(RateColumn::header(&config.columns).as_bytes())?;
    }
    let mut progress = Progress::new(total_bytes, config.run.quiet);
    // What the reader took in to skip the kept rows (a read-ahead more, which is small
    // against an input worth resuming).
    let skipped_bytes = match resumed_rows {
        0 => 0,
        _ => bytes_read.load(Ordering::Relaxed),
    };
    let started = Instant::now();

    let (mut summary, interrupted) = rate_records(
        config,
        (&workers, &mut records, &files),
        (&mut output, &mut sidecar),
        (&mut progress, &bytes_read, skipped_bytes),
    )?;
    let rated_now = summary.puzzles;
    let mut warnings = Vec::new();
    sidecar.end(
        output,
        interrupted,
        (resumed_rows + rated_now, records.records_read()),
        (&mut notes, &mut warnings),
    )?;
    summary.merge(kept.take());
    summary.interrupted = interrupted;
    summary.wall_seconds = started.elapsed().as_secs_f64();
    summary.puzzles_per_second = rated_now as f64 / summary.wall_seconds.max(1e-9);
    if let Some(path) = &config.run.summary {
        write_json(path, &summary)?;
    }
    Ok(RateReport {
        summary,
        empty_inputs: records.reader.empty_inputs().to_vec(),
        // `empty_shard` says nothing for a run stopped before its input's end.
        warnings: records.empty_shard().into_iter().chain(warnings).collect(),
        interrupted,
        resumed_rows,
        notes,
    })
}

/// The shard this run rates (from `--shard` or the scheduler), warning when `merge` would
/// refuse its output.
fn resolve_shard(config: &RateConfig, notes: &mut Vec<String>) -> Result<Option<Shard>> {
    let shard = config.shard.resolve_into(notes)?;
    crate::cmd::shards::warn_if_unmergeable(
        shard.is_some(),
        config.output.as_deref(),
        // `--explain` writes text, no column at all.
        if config.explain { &[] } else { &config.columns },
        &merge::MERGE_COLUMNS,
        config.header,
    );
    Ok(shard)
}

/// What hashes the inputs as they are read, for the run's sidecar (none without one).
fn read_hashes(config: &RateConfig, sidecar_wanted: bool) -> ReadHashes {
    let how = match sidecar_wanted {
        true => hashing(config.output.as_deref(), config.resume, || {
            config.columns.contains(&RateColumn::Puzzle)
        }),
        false => Hashing::None,
    };
    ReadHashes::new(&config.run.inputs, how)
}

/// The run's sidecar (`FILE.run.json`, none with `manifest` `None`): what defines its rows,
/// for `--resume` and `merge`.
fn run_sidecar(
    config: &RateConfig,
    manifest: Option<RunManifest>,
    hashes: ReadHashes,
) -> Sidecar<'_> {
    let unresumable = match config.explain {
        true => Some("--explain writes text, not rows".to_string()),
        false => resume::check_columns(&config.columns)
            .err()
            .map(|why| why.to_string()),
    };
    let rows = RowsOut {
        output: config.output.as_deref(),
        summary: config.run.summary.as_deref(),
        resume: config.resume,
        header: config.header,
    };
    Sidecar::for_rows(manifest, hashes, rows, unresumable)
}

/// What defines the rows of `config`'s run, for its sidecar (`solve`'s counterpart is
/// `Sidecar`'s `run_manifest`).
fn run_manifest(
    config: &RateConfig,
    shard: Option<Shard>,
    threads: usize,
    hashes: &ReadHashes,
) -> Result<RunManifest> {
    let columns: Vec<&str> = config.columns.iter().map(|c| c.name()).collect();
    RunManifest::of_run(
        RunDefinition {
            kind: RATE_KIND,
            inputs: &config.run.inputs,
            read: &config.run.read,
            unique: true,
            solver: config.scale(),
            columns: &columns,
            threads,
            hashes,
            limits: RunLimits {
                max_er_tenths: config.max_er,
                timeout_ms: config.timeout.map(|t| t.as_millis() as u64),
                ..RunLimits::default()
            },
        },
        shard,
    )
}

/// Parses an ER such as `7.2` into tenths, for a limit (a value between two tenths is rounded
/// down: see [`rater::scale::tenths_at_most`]).
pub(crate) fn parse_er(text: &str) -> std::result::Result<u16, String> {
    rater::scale::tenths_at_most(parse_er_number(text)?)
}

/// An ER as written (`7.2`), not yet in tenths.
pub(crate) fn parse_er_number(text: &str) -> std::result::Result<f64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("expected a rating such as 7.2, got {text:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Grid;

    fn rate_grid(puzzle: &Grid, config: &RateConfig) -> Rated {
        let body = Body::Puzzle {
            puzzle: *puzzle,
            reference: None,
        };
        rate_body(&body, config, None)
    }

    #[test]
    fn each_record_is_its_own_work_item_until_one_is_timed() {
        // Two hard puzzles on two threads must not share a work item.
        let size = chunk_size();
        assert_eq!((size.next(), size.next()), (1, 1));
        size.record(1_000_000, 1_000); // 1 µs a rating: the most a work item holds
        assert_eq!(size.next(), CHUNK);
    }

    #[test]
    fn bands_and_er_parsing() {
        assert_eq!(band(12), "below_1.5");
        assert_eq!(band(15), "1.5-2.5");
        assert_eq!(band(25), "2.5-5.0");
        assert_eq!(band(50), "5.0_up");
        assert_eq!(parse_er("7.2"), Ok(72));
        assert!(parse_er("x").is_err() && parse_er("-1").is_err());
    }

    #[test]
    fn the_summary_json_lists_ratings_and_bands_in_their_order() {
        let mut summary = RateSummary::default();
        for (index, er) in [110u16, 26, 12, 20, 26, 95].into_iter().enumerate() {
            summary.add(index as u64, "p", RateStatus::Rated, Some(er));
        }
        let json = serde_json::to_string(&summary).unwrap();
        assert!(
            json.contains(r#""bands":{"below_1.5":1,"1.5-2.5":1,"2.5-5.0":2,"5.0_up":2}"#),
            "{json}"
        );
        assert!(
            json.contains(r#""histogram":{"1.2":1,"2.0":1,"2.6":2,"9.5":1,"11.0":1}"#),
            "{json}"
        );
        assert_eq!(summary.hardest[0].0, 11.0);
        // Empty bands are there too, as 0; ties for the hardest are named in the text.
        let mut hard = RateSummary::default();
        for (index, er) in [93u16, 60, 93, 93].into_iter().enumerate() {
            hard.add(index as u64, "p", RateStatus::Rated, Some(er));
        }
        let json = serde_json::to_string(&hard).unwrap();
        assert!(
            json.contains(r#""bands":{"below_1.5":0,"1.5-2.5":0,"2.5-5.0":0,"5.0_up":4}"#),
            "{json}"
        );
        let text = hard.to_text();
        assert!(
            text.contains("hardest: ER 9.3 (index 0) p\nalso ER 9.3: index 2, 3\n"),
            "{text}"
        );
    }

    #[test]
    fn statuses_of_bad_and_ambiguous_puzzles() {
        let config = RateConfig::new(Vec::new());
        let bad = rate_body(
            &Body::Invalid {
                text: "x".into(),
                message: "expected 81 cells".into(),
            },
            &config,
            None,
        );
        assert_eq!(bad.status, RateStatus::Invalid);
        let rated = rate_grid(&Grid::empty(), &config);
        assert_eq!(rated.status, RateStatus::Multiple);
        assert!(rated.rating.is_none());
        let easy: Grid =
            "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
                .parse()
                .unwrap();
        let rated = rate_grid(&easy, &config);
        assert_eq!(rated.status, RateStatus::Rated);
        let low = RateConfig {
            max_er: Some(10),
            ..RateConfig::new(Vec::new())
        };
        let stopped = rate_grid(&easy, &low);
        assert_eq!(stopped.status, RateStatus::GaveUp);
        assert!(stopped.message.contains("above the limit of 1.0"));
    }
}
