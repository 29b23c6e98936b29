//! `rate`: rates every puzzle of the inputs on Sudoku Explainer's scale ([`crate::rate`]) on all
//! cores and writes one CSV row per record, in input order, with a summary by rating band.
//!
//! Each puzzle is first proven to have exactly one solution by the fast solver (through the
//! library's [`verdict::judge`]); a puzzle with none or several gets that status and no rating.
//! `--explain` writes each puzzle's solving path in words instead of rows.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::cmd::{Finish, RunOptions};
use crate::error::Result;
use crate::io::compress::Codec;
use crate::io::output::{write_json, Output, OutputOptions};
use crate::io::results::push_csv_record;
use crate::io::targets::{check_targets, Target, WriteKind};
use crate::io::{Body, Input, RawRecord, RecordReader};
use crate::rate::verdict::{self, RateStatus, RateVerdict as Rated};
use crate::rate::{self as rater, Flavor, Limits};
use crate::run::{build_pool, check_threads, interrupt, ordered_map, Progress};

/// Records per work item: a hard puzzle takes up to a second, so chunks stay small.
const CHUNK: usize = 32;

/// Record text per work item.
const CHUNK_TEXT: usize = 64 * 1024;

/// How many of the hardest puzzles the summary lists.
const HARDEST: usize = 5;

/// The columns `rate` writes, in order. The names are stable: scripts match on them.
pub const COLUMNS: [&str; 12] = [
    "index",
    "line",
    "puzzle",
    "er",
    "ep",
    "ed",
    "technique",
    "steps",
    "status",
    "rate_ns",
    "message",
    "file",
];

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
        }
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
        ..Limits::default()
    };
    verdict::judge(
        puzzle,
        &limits,
        config.timeout,
        Some(interrupt::flag()),
        steps,
    )
}

/// Rating counts: by status, by band, the finer histogram, and the hardest puzzles.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RateSummary {
    /// Records read.
    pub puzzles: u64,
    /// Records per status word.
    pub statuses: BTreeMap<&'static str, u64>,
    /// Rated puzzles per Sudoku Exchange band: `below_1.5`, `1.5-2.5`, `2.5-5.0`, `5.0_up`.
    pub bands: BTreeMap<&'static str, u64>,
    /// Rated puzzles per ER, in tenths as text (`"7.2"`).
    pub histogram: BTreeMap<String, u64>,
    /// The hardest rated puzzles, hardest first: (ER, index, puzzle).
    pub hardest: Vec<(f32, u64, String)>,
    /// Worker threads.
    pub threads: usize,
    /// Wall-clock time of the run.
    pub wall_seconds: f64,
    /// Records per second of wall time.
    pub puzzles_per_second: f64,
}

/// The Sudoku Exchange band of an ER in tenths.
fn band(er: u16) -> &'static str {
    match er {
        0..=14 => "below_1.5",
        15..=24 => "1.5-2.5",
        25..=49 => "2.5-5.0",
        _ => "5.0_up",
    }
}

impl RateSummary {
    fn add(&mut self, index: u64, puzzle: &str, rated: &Rated) {
        self.puzzles += 1;
        *self.statuses.entry(rated.status.as_str()).or_default() += 1;
        let (RateStatus::Rated, Some(rating)) = (rated.status, rated.rating) else {
            return;
        };
        *self.bands.entry(band(rating.er)).or_default() += 1;
        *self
            .histogram
            .entry(format!("{:.1}", rating.er_f32()))
            .or_default() += 1;
        let er = rating.er_f32();
        if self.hardest.len() < HARDEST || self.hardest.last().is_some_and(|h| h.0 < er) {
            self.hardest.push((er, index, puzzle.to_string()));
            // Stable: among equal ratings the earliest puzzle stays first.
            self.hardest
                .sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            self.hardest.truncate(HARDEST);
        }
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
        let bands: Vec<String> = ["below_1.5", "1.5-2.5", "2.5-5.0", "5.0_up"]
            .iter()
            .map(|b| format!("{b} {}", self.bands.get(b).copied().unwrap_or(0)))
            .collect();
        text += &format!("ER bands: {}\n", bands.join(", "));
        if let Some((er, index, puzzle)) = self.hardest.first() {
            text += &format!("hardest: ER {er:.1} (index {index}) {puzzle}\n");
        }
        text
    }
}

/// What a finished `rate` run reports.
#[derive(Debug, Clone)]
pub struct RateReport {
    /// The summary.
    pub summary: RateSummary,
    /// Inputs that held no records.
    pub empty_inputs: Vec<String>,
    /// The run was stopped by a signal; the rows so far are in `FILE.partial`.
    pub interrupted: bool,
}

impl RateReport {
    /// Prints the report on stderr as the command line does (warnings always; where the
    /// partial rows are and the summary unless `quiet`) and returns the outcome: all good when
    /// every puzzle was rated.
    pub fn finish(&self, config: &RateConfig) -> Result<Finish> {
        for name in &self.empty_inputs {
            eprintln!("warning: {name}: no puzzles found");
        }
        if !config.run.quiet {
            if self.interrupted {
                if let Some(path) = &config.output {
                    eprintln!(
                        "interrupted: the rows so far are in {}",
                        crate::io::targets::partial_path(path).display()
                    );
                }
            }
            eprint!("{}", self.summary.to_text());
        }
        let s = &self.summary;
        let rated = s.statuses.get("rated").copied().unwrap_or(0);
        Ok(if self.interrupted {
            Finish::Interrupted
        } else if s.puzzles > 0 && rated == s.puzzles {
            Finish::AllGood
        } else {
            Finish::SomeFailed
        })
    }
}

/// Raw records read for one pool task, with their global index.
struct Chunk {
    first_index: u64,
    text: Vec<u8>,
    records: Vec<RawRecord>,
}

/// One chunk's rows (or explanations) and what the summary needs of them.
struct ChunkOut {
    text: Vec<u8>,
    rated: Vec<(u64, String, Rated)>,
    /// Stopped mid-chunk by a signal: no later chunk may be written.
    cut: bool,
}

/// Writes one record's row.
fn push_row(out: &mut Vec<u8>, index: u64, line: u64, puzzle: &str, rated: &Rated, file: &str) {
    let (er, ep, ed, technique, steps) = match rated.rating {
        Some(r) => (
            format!("{:.1}", r.er_f32()),
            format!("{:.1}", r.ep_f32()),
            format!("{:.1}", r.ed_f32()),
            r.hardest.map_or("", |t| t.name()),
            r.steps.to_string(),
        ),
        None => Default::default(),
    };
    let (index, line, ns) = (
        index.to_string(),
        line.to_string(),
        rated.rate_ns.to_string(),
    );
    let fields: [&[u8]; 12] = [
        index.as_bytes(),
        line.as_bytes(),
        puzzle.as_bytes(),
        er.as_bytes(),
        ep.as_bytes(),
        ed.as_bytes(),
        technique.as_bytes(),
        steps.as_bytes(),
        rated.status.as_str().as_bytes(),
        ns.as_bytes(),
        rated.message.as_bytes(),
        file.as_bytes(),
    ];
    push_csv_record(out, fields);
}

/// Writes one record's solving path in words.
fn push_explanation(out: &mut Vec<u8>, puzzle: &str, rated: &Rated, steps: &[rater::Step]) {
    use std::fmt::Write;
    let mut text = String::new();
    match rated.rating {
        Some(r) => {
            let _ = writeln!(
                text,
                "{puzzle}  ER/EP/ED {}  {}  {} steps{}",
                r.se_string(),
                r.hardest.map_or("", |t| t.name()),
                r.steps,
                if rated.message.is_empty() {
                    String::new()
                } else {
                    format!("  ({}: {})", rated.status.as_str(), rated.message)
                }
            );
        }
        None => {
            let _ = writeln!(
                text,
                "{puzzle}  {}: {}",
                rated.status.as_str(),
                rated.message
            );
        }
    }
    for (i, step) in steps.iter().enumerate() {
        let _ = writeln!(text, "  {:>3}. {step}", i + 1);
    }
    text.push('\n');
    out.extend_from_slice(text.as_bytes());
}

fn rate_chunk(chunk: &Chunk, config: &RateConfig, files: &[String]) -> ChunkOut {
    let mut out = ChunkOut {
        text: Vec::with_capacity(chunk.records.len() * 160),
        rated: Vec::with_capacity(chunk.records.len()),
        cut: false,
    };
    for (i, record) in chunk.records.iter().enumerate() {
        if interrupt::requested() {
            out.cut = true;
            break;
        }
        let index = chunk.first_index + i as u64;
        let body = record.with_fields(&chunk.text, Body::from_fields);
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
            push_explanation(&mut out.text, &puzzle, &rated, &steps);
        } else {
            push_row(&mut out.text, index, record.line, &puzzle, &rated, file);
        }
        out.rated.push((index, puzzle, rated));
    }
    out
}

/// Runs `rate`: reads every input, rates on `config.run.threads` threads, writes the rows in input
/// order and returns the summary. Bad records are rows, not errors; errors are usage and I/O.
pub fn run(config: &RateConfig) -> Result<RateReport> {
    for input in &config.run.inputs {
        input.check()?;
    }
    let inputs: Vec<PathBuf> = config.run.inputs.iter().map(Input::path).collect();
    let mut targets = Vec::new();
    if let Some(path) = &config.output {
        targets.push(Target::new("-o", path, WriteKind::Replaced));
    }
    if let Some(path) = &config.run.summary {
        targets.push(Target::new("--summary", path, WriteKind::Replaced));
    }
    check_targets(&inputs, &targets)?;
    let threads = config.run.threads.max(1);
    check_threads(threads, config.run.allow_oversubscribe)?;
    let pool = build_pool(threads)?;
    let files: Vec<String> = config.run.inputs.iter().map(Input::display_name).collect();
    let bytes_read = Arc::new(AtomicU64::new(0));
    let total_bytes: Option<u64> = config.run.inputs.iter().map(Input::size).sum();
    let mut reader = RecordReader::new(
        config.run.inputs.clone(),
        config.run.read.clone(),
        bytes_read.clone(),
    );
    // A bad input or option is an error before the output exists.
    reader.start()?;
    let options = OutputOptions {
        compress: config.compress,
        inputs,
        resumable: false,
    };
    let mut output = Output::create_with(config.output.as_deref(), &options)?;
    if !config.explain {
        output.write_all(format!("{}\n", COLUMNS.join(",")).as_bytes())?;
    }
    interrupt::arm(None);
    let mut progress = Progress::new(total_bytes, config.run.quiet);
    let started = Instant::now();

    let mut next_index = 0u64;
    let mut finished = false;
    let produce = || -> Result<Option<Chunk>> {
        if finished || interrupt::requested() {
            return Ok(None);
        }
        let mut chunk = Chunk {
            first_index: next_index,
            text: Vec::with_capacity(CHUNK * 96),
            records: Vec::with_capacity(CHUNK),
        };
        while chunk.records.len() < CHUNK && chunk.text.len() < CHUNK_TEXT {
            match reader.next_raw(&mut chunk.text)? {
                Some(record) => chunk.records.push(record),
                None => {
                    finished = true;
                    break;
                }
            }
        }
        next_index += chunk.records.len() as u64;
        Ok((!chunk.records.is_empty()).then_some(chunk))
    };
    let codec = output.codec();
    let work = |chunk: Chunk| {
        let mut out = rate_chunk(&chunk, config, &files);
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
        output.write_sealed(&out.text)?;
        for (index, puzzle, rated) in &out.rated {
            summary.add(*index, puzzle, rated);
        }
        progress.advance(out.rated.len() as u64, bytes_read.load(Ordering::Relaxed));
        Ok(())
    };
    let result = ordered_map(&pool, threads * 4 + 2, produce, work, consume);
    progress.finish();
    result?;
    let interrupted = cut || interrupt::requested();
    if interrupted {
        output.flush()?;
    } else {
        output.finish()?;
    }
    summary.wall_seconds = started.elapsed().as_secs_f64();
    summary.puzzles_per_second = summary.puzzles as f64 / summary.wall_seconds.max(1e-9);
    if let Some(path) = &config.run.summary {
        write_json(path, &summary)?;
    }
    Ok(RateReport {
        summary,
        empty_inputs: reader.empty_inputs().to_vec(),
        interrupted,
    })
}

/// Parses an ER such as `7.2` into tenths.
pub(crate) fn parse_er(text: &str) -> std::result::Result<u16, String> {
    let value: f32 = text
        .trim()
        .parse()
        .map_err(|_| format!("expected a rating such as 7.2, got {text:?}"))?;
    if !(0.0..=20.0).contains(&value) {
        return Err(format!("a rating is between 0 and 20, got {text}"));
    }
    Ok((value * 10.0).round() as u16)
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
    fn bands_and_er_parsing() {
        assert_eq!(band(12), "below_1.5");
        assert_eq!(band(15), "1.5-2.5");
        assert_eq!(band(25), "2.5-5.0");
        assert_eq!(band(50), "5.0_up");
        assert_eq!(parse_er("7.2"), Ok(72));
        assert!(parse_er("x").is_err() && parse_er("-1").is_err());
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
        assert!(stopped.message.contains("max_er"));
    }
}
