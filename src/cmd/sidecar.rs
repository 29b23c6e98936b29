//! The run sidecar `FILE.run.json`: what defines the rows of `-o FILE` (inputs and their
//! content, format, column, `--unique`, solver, shard, output columns), when the run started,
//! and, once it finished, when it ended and how many rows and bytes it wrote.
//!
//! `solve -o FILE` and `rate -o FILE` write it with the first rows (unfinished) and again when `FILE` is in place
//! (finished), each time whole: into `FILE.run.json.tmp`, then renamed. `--resume` compares the
//! earlier run's sidecar with this run and names what differs; `merge` checks that its shards
//! come from one run and are complete.
//!
//! Inputs are fingerprinted by the BLAKE3 hash of their bytes on disk (compressed bytes for a
//! compressed file; for a zip archive the archive's, with the name of the member read beside
//! it). The whole file, not a sample: a merge must notice a change anywhere in the input, and a
//! hash of the first and last MiB misses an edit in the middle. The reader hashes the bytes as
//! it reads them ([`ReadHashes`]), so the finished sidecar has the hash without a second read;
//! runs that need the hash before they start or cannot check their rows without it read the
//! file once more first (BLAKE3 runs at about 8 GB/s on one core with AVX-512: 10 ms for 82 MB
//! of puzzles, where SHA-256 with the SHA extensions took 38 ms). Version 1 sidecars recorded
//! SHA-256; they are still read, and an input whose recorded hash is of the other kind is
//! compared by size and file, with every row re-checked against it as for a FIFO. Standard
//! input and other non-regular inputs (FIFOs) cannot be read twice, so they are recorded by
//! name only: resuming them relies on the row-by-row check alone.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::io::output::{Earlier, Output};
use crate::io::targets::{SIDECAR_KIND_PREFIX, SIDECAR_SUFFIX};
use crate::io::{Input, ReadOptions, SharedTap, Tap};
use crate::shard::Shard;

/// The value of [`RunManifest::kind`] for a `solve` run: marks a file as a run sidecar.
pub(crate) const SOLVE_KIND: &str = "sudoku-batch solve run";

/// The value of [`RunManifest::kind`] for a `rate` run.
pub(crate) const RATE_KIND: &str = "sudoku-batch rate run";

/// The sidecar format this version writes (it reads 1 too).
const VERSION: u32 = 2;

/// The sidecar path for output `path`: beside the file the path's symbolic links lead to,
/// as its in-progress file is, so that the run is found by either name.
pub(crate) fn sidecar_path(path: &Path) -> PathBuf {
    beside(&crate::io::targets::through_links(path))
}

/// `path` with the sidecar suffix.
fn beside(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(SIDECAR_SUFFIX);
    PathBuf::from(name)
}

/// The sidecar of output `path` to read: [`sidecar_path`], or where there is none and `path`
/// is a symbolic link, the one beside the link (where earlier versions wrote it).
fn sidecar_to_read(path: &Path) -> PathBuf {
    let resolved = sidecar_path(path);
    let by_link = beside(path);
    if !resolved.exists() && resolved != by_link && by_link.exists() {
        return by_link;
    }
    resolved
}

/// The sidecar of a shard given to `merge`: the one beside it (or beside the file a symbolic
/// link to it leads to), or for a run's in-progress file `FILE.partial` without one, `FILE`'s
/// (where that run writes it).
pub(crate) fn shard_sidecar_path(path: &Path) -> PathBuf {
    let found = sidecar_to_read(path);
    if found.exists() {
        return found;
    }
    let suffix = crate::io::targets::PARTIAL_SUFFIX;
    match path.to_str().and_then(|p| p.strip_suffix(suffix)) {
        Some(output) if !output.is_empty() => sidecar_to_read(Path::new(output)),
        _ => found,
    }
}

/// What defines a run's rows, and how far it got. Its JSON keys are stable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunManifest {
    /// `sudoku-batch solve run` or `sudoku-batch rate run`: which command wrote the rows.
    pub kind: String,
    /// The sidecar format's version (2: inputs hashed with BLAKE3; 1: with SHA-256).
    pub version: u32,
    /// The inputs, in order.
    pub inputs: Vec<InputId>,
    /// `--format` (`auto`, `lines`, `csv`, `grid`).
    pub format: String,
    /// `--column`, if given.
    pub column: Option<String>,
    /// `--unique`.
    pub unique: bool,
    /// The solver's name (`solve`), or the scale followed (`rate`: `se1.2.1.3`, `se1.2.1`).
    pub solver: String,
    /// The shard, `K/N`; `None` for every record.
    pub shard: Option<String>,
    /// The output's columns, in order.
    pub columns: Vec<String>,
    /// The per-puzzle limits, which turn rows into `gave_up` (absent from older sidecars: no
    /// limit).
    #[serde(default, skip_serializing_if = "RunLimits::is_none")]
    pub limits: RunLimits,
    /// Solver threads of the (last) run.
    pub threads: usize,
    /// When the run started (seconds since the Unix epoch); a resumed run keeps the start of
    /// the run it continues.
    pub started_unix: f64,
    /// Set once the output is complete and in place.
    pub finished: Option<Finished>,
}

/// A run's per-puzzle limits; its JSON keys are stable, each absent when not set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RunLimits {
    /// `--max-guesses` (`solve`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_guesses: Option<u64>,
    /// `--max-er`, in tenths (`rate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_er_tenths: Option<u16>,
    /// `--timeout-ms` (`rate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl RunLimits {
    fn is_none(&self) -> bool {
        *self == RunLimits::default()
    }

    /// Whether every limit of `self` is at least as loose as `earlier`'s: a row that ended
    /// within `earlier`'s limits ends the same way within these (a puzzle's guesses and
    /// steps do not depend on the limit that stops them).
    pub(crate) fn no_tighter_than(&self, earlier: &RunLimits) -> bool {
        fn looser<T: PartialOrd>(now: Option<T>, then: Option<T>) -> bool {
            match (now, then) {
                (None, _) => true,
                (Some(_), None) => false,
                (Some(now), Some(then)) => now >= then,
            }
        }
        looser(self.max_guesses, earlier.max_guesses)
            && looser(self.max_er_tenths, earlier.max_er_tenths)
            && looser(self.timeout_ms, earlier.timeout_ms)
    }

    /// The limits as options, for messages: `--max-er 2.0 --timeout-ms 50`, or `no limit`.
    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(n) = self.max_guesses {
            parts.push(format!("--max-guesses {n}"));
        }
        if let Some(t) = self.max_er_tenths {
            parts.push(format!("--max-er {}.{}", t / 10, t % 10));
        }
        if let Some(ms) = self.timeout_ms {
            parts.push(format!("--timeout-ms {ms}"));
        }
        if parts.is_empty() {
            "no limit".to_string()
        } else {
            parts.join(" ")
        }
    }
}

/// The end of a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct Finished {
    /// When it ended (seconds since the Unix epoch).
    pub ended_unix: f64,
    /// Rows in the output (the header not counted).
    pub rows: u64,
    /// The output's size in bytes.
    pub bytes: u64,
    /// Records in the whole input stream (every shard's, not only this one's).
    pub input_records: u64,
    /// CRC-32 of the output's bytes as written (absent from sidecars that predate it): an
    /// edit since the run that keeps the size changes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crc32: Option<u32>,
}

/// One input: its name, which file it is, and its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct InputId {
    /// The name as given (the `file` column of the rows); a name that is not UTF-8 escaped
    /// (`\xFF`), its bytes in `name_hex`.
    pub name: String,
    /// The bytes of a name that is not UTF-8, in hex: the name, losslessly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_hex: Option<String>,
    /// The canonical path of the file on disk, when it is a file.
    pub canonical: Option<String>,
    /// Device and inode of the file on disk (Unix), when it is a file.
    pub dev_inode: Option<(u64, u64)>,
    /// Size in bytes on disk, for a regular file; for standard input or a FIFO read to its
    /// end, the bytes read (from standard input's offset when the run started).
    pub size: Option<u64>,
    /// BLAKE3 of the bytes on disk (hex), for a regular file; of the bytes read, for standard
    /// input or a FIFO read to its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blake3: Option<String>,
    /// SHA-256 of the bytes on disk (hex): what version 1 sidecars recorded instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The member read, for a zip archive (named as `ARCHIVE.zip:MEMBER`, or the one a whole
    /// archive's read takes), whose file, size and hashes are the archive's: another member of
    /// the same archive is another input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zip_member: Option<String>,
}

/// Seconds since the Unix epoch, now.
pub(crate) fn now_unix() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl InputId {
    /// Identifies `input`, hashing its content now when it is a regular file and `hash_now`
    /// (otherwise [`RunManifest::finish`] records the hash).
    pub(crate) fn of(input: &Input, hash_now: bool) -> Result<InputId> {
        let name = input.display_name();
        let Input::File(path) = input else {
            return Ok(InputId {
                name,
                name_hex: None,
                canonical: None,
                dev_inode: None,
                size: None,
                blake3: None,
                sha256: None,
                zip_member: None,
            });
        };
        let disk = crate::io::targets::input_on_disk(path);
        let canonical = std::fs::canonicalize(&disk)
            .ok()
            .map(|p| crate::io::input::escape_name(p.as_os_str()));
        let metadata = std::fs::metadata(&disk).ok();
        let dev_inode = metadata.as_ref().and_then(crate::io::input::inode_of);
        let regular = metadata.as_ref().filter(|m| m.is_file());
        let (size, blake3) = match regular {
            Some(m) if hash_now => (Some(m.len()), Some(blake3_of(&disk)?)),
            Some(m) => (Some(m.len()), None),
            None => (None, None),
        };
        Ok(InputId {
            name,
            name_hex: input.name_hex(),
            canonical,
            dev_inode,
            size,
            blake3,
            sha256: None,
            zip_member: crate::io::input::zip_member_read(path),
        })
    }

    /// Whether `self` and `other` name one file (by canonical path or device and inode).
    fn same_file(&self, other: &InputId) -> bool {
        (self.canonical.is_some() && self.canonical == other.canonical)
            || (self.dev_inode.is_some() && self.dev_inode == other.dev_inode)
    }

    /// The content hash both sides recorded: (name, this side's, the other's).
    fn common_hash<'a>(&'a self, other: &'a InputId) -> Option<(&'static str, &'a str, &'a str)> {
        match (&self.blake3, &other.blake3, &self.sha256, &other.sha256) {
            (Some(a), Some(b), _, _) => Some(("BLAKE3", a, b)),
            (_, _, Some(a), Some(b)) => Some(("SHA-256", a, b)),
            _ => None,
        }
    }

    /// The zip member read: as recorded, or, from a sidecar that predates the record, as its
    /// name `ARCHIVE.zip:MEMBER` gives it (when its file is a `.zip` archive, not a file of
    /// that whole name).
    fn member(&self) -> Option<&str> {
        if let Some(member) = &self.zip_member {
            return Some(member);
        }
        let (_, member) = crate::io::input::split_zip_name(&self.name)?;
        // The file read is the archive, not a file of the whole name.
        let file = self.canonical.as_deref()?.as_bytes();
        (file.len() >= 4 && file[file.len() - 4..].eq_ignore_ascii_case(b".zip")).then_some(member)
    }

    /// Whether the two have the same known content.
    fn same_content(&self, other: &InputId) -> bool {
        self.size == other.size && self.common_hash(other).is_some_and(|(_, a, b)| a == b)
    }
}

/// The BLAKE3 hash of the file at `path`, in hex.
fn blake3_of(path: &Path) -> Result<String> {
    let error = |cause| Error::Read {
        path: path.to_path_buf(),
        cause,
    };
    let mut file = File::open(path).map_err(|cause| Error::Open {
        path: path.to_path_buf(),
        cause,
    })?;
    let mut hasher = blake3::Hasher::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                hasher.update(&buf[..n]);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(error(e)),
        }
    }
    Ok(hasher.finalize().to_hex().to_string())
}

/// The BLAKE3 hashes of a run's input files taken as the run reads them, so that a run reads
/// each input once. The sidecar written with the first rows then records no hash (the input
/// has not been read through yet); the finished one does. Until then a `--resume` compares the
/// input's file and size and checks every kept row against the input: exact when the rows hold
/// what the input decides of them (see [`hashing`]). Other runs, `--resume` itself (which
/// compares hashes before it starts) and zip archives (of which only a member is read) hash
/// first, and then (but zip archives) as they read too: a file can change between the two, and
/// the finished sidecar must describe what the rows were read from.
pub(crate) struct ReadHashes {
    /// Per input: the file on disk and, when hashed as read, where the hash arrives once the
    /// reader has seen all of it; `None` for an input that is not a regular file.
    inputs: Vec<Option<(PathBuf, Option<HashSlot>)>>,
    /// Per input that is no regular file on disk (standard input, a FIFO): where the hash of
    /// its bytes arrives once it has been read to its end. Such an input cannot be read again
    /// to compare it with, but the shards of one run all read it whole, so their hashes agree.
    streams: Vec<Option<HashSlot>>,
    /// The inputs were hashed first ([`Hashing::First`]).
    first: bool,
    /// The taps that compute them, handed to the reader.
    taps: Vec<Option<SharedTap>>,
}

/// Where a [`HashTap`] leaves the hash (hex) and the number of bytes it covers, once it has
/// seen a whole file.
type HashSlot = Arc<OnceLock<(String, u64)>>;

/// Hashes an input's bytes as they are read.
struct HashTap {
    hasher: blake3::Hasher,
    bytes: u64,
    done: HashSlot,
}

impl Tap for HashTap {
    fn read(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
        self.bytes += bytes.len() as u64;
    }

    fn whole(&mut self) {
        let hash = self.hasher.finalize().to_hex().to_string();
        let _ = self.done.set((hash, self.bytes));
    }
}

/// How a run hashes its inputs for its sidecar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hashing {
    /// Not at all: the run has no sidecar.
    None,
    /// First (by [`InputId::of`]), and as read, but zip archives.
    First,
    /// As read, but zip archives, which are hashed first.
    WhileReading,
}

impl ReadHashes {
    /// For a run over `inputs`, hashed as `hashing` says.
    pub(crate) fn new(inputs: &[Input], hashing: Hashing) -> ReadHashes {
        let mut hashes = ReadHashes {
            inputs: Vec::with_capacity(inputs.len()),
            streams: Vec::with_capacity(inputs.len()),
            taps: Vec::with_capacity(inputs.len()),
            first: hashing == Hashing::First,
        };
        for input in inputs {
            let disk = match input {
                Input::File(path) => {
                    Some(crate::io::targets::input_on_disk(path)).filter(|d| d.is_file())
                }
                Input::Stdin => None,
            };
            // A member `ARCHIVE.zip:MEMBER` is on disk as its archive, not at its own path.
            let tapped = |d: &PathBuf| {
                matches!(input, Input::File(p) if p == d) && !crate::io::input::is_zip_file(d)
            };
            let done = disk
                .as_ref()
                .filter(|d| hashing != Hashing::None && tapped(d))
                .map(|_| HashSlot::default());
            let stream = (disk.is_none() && hashing != Hashing::None).then(HashSlot::default);
            let tap = done.as_ref().or(stream.as_ref()).map(|done| {
                Arc::new(Mutex::new(HashTap {
                    hasher: blake3::Hasher::new(),
                    bytes: 0,
                    done: done.clone(),
                })) as SharedTap
            });
            hashes.taps.push(tap);
            hashes.inputs.push(disk.map(|disk| (disk, done)));
            hashes.streams.push(stream);
        }
        hashes
    }

    /// The hash of input `i`, a stream (standard input, a FIFO), and the bytes it covers, when
    /// the reader read it to its end.
    fn of_stream(&self, i: usize) -> Option<&(String, u64)> {
        self.streams.get(i)?.as_ref()?.get()
    }

    /// The taps for the reader (`RecordReader::with_taps`).
    pub(crate) fn taps(&self) -> Vec<Option<SharedTap>> {
        self.taps.clone()
    }

    /// Whether input `i` is hashed as it is read rather than first.
    fn while_reading(&self, i: usize) -> bool {
        !self.first && matches!(self.inputs.get(i), Some(Some((_, Some(_)))))
    }

    /// The file of input `i` when it is hashed first only (a zip archive, of which only a
    /// member is read, so no tap sees its bytes).
    fn hashed_first_only(&self, i: usize) -> Option<&Path> {
        match self.inputs.get(i) {
            Some(Some((disk, None))) => Some(disk),
            _ => None,
        }
    }

    /// The hash of input `i` as read and the bytes it covers, when the reader saw all of it.
    fn as_read(&self, i: usize) -> Option<&(String, u64)> {
        match self.inputs.get(i) {
            Some(Some((_, Some(done)))) => done.get(),
            _ => None,
        }
    }

    /// The hash of input `i` (hashed while read) and the bytes it covers: as read, or, should
    /// the reader not have seen the whole file, by reading it now.
    fn of(&self, i: usize) -> Result<Option<(String, Option<u64>)>> {
        match self.inputs.get(i) {
            Some(Some((disk, done))) => match done.as_ref().and_then(|d| d.get()) {
                Some((hash, bytes)) => Ok(Some((hash.clone(), Some(*bytes)))),
                None => blake3_of(disk).map(|hash| Some((hash, None))),
            },
            _ => Ok(None),
        }
    }
}

/// A run's sidecar as the run goes: written with the first rows (so a run that fails before
/// writing any leaves an earlier run's sidecar as it was), marked finished once the output is
/// in place.
pub(crate) struct Sidecar<'a> {
    manifest: Option<RunManifest>,
    output: Option<&'a Path>,
    pending: bool,
    hashes: ReadHashes,
    /// Why a stopped run's rows cannot be resumed (`--no-header`, `--columns` without what
    /// `--resume` reads, `--explain`); `None` when they can.
    not_resumable: Option<String>,
    /// Files an earlier run left that would pass for this run's (its `FILE`, its
    /// `--summary`): removed with this run's first rows.
    stale: Vec<PathBuf>,
    /// How many inputs (the first ones) the rows kept from an earlier run (`--resume`) were
    /// read from.
    kept_inputs: usize,
}

/// Where a `solve` or `rate` run writes its rows, for its [`Sidecar`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct RowsOut<'a> {
    /// `-o`, when given.
    pub output: Option<&'a Path>,
    /// `--summary`, when given.
    pub summary: Option<&'a Path>,
    /// `--resume`: the earlier run's `FILE` is taken back, not replaced.
    pub resume: bool,
    /// The rows have their header (not `--no-header`).
    pub header: bool,
}

impl<'a> Sidecar<'a> {
    /// The sidecar `manifest` (`None`: the output gets none) of the output at `output`.
    /// Its inputs are hashed as `hashes` says.
    pub(crate) fn new(
        manifest: Option<RunManifest>,
        output: Option<&'a Path>,
        hashes: ReadHashes,
    ) -> Sidecar<'a> {
        let pending = manifest.is_some() && output.is_some();
        Sidecar {
            manifest,
            output,
            pending,
            hashes,
            not_resumable: None,
            stale: Vec::new(),
            kept_inputs: 0,
        }
    }

    /// The sidecar of a `solve` or `rate` run writing its rows as `rows` says.
    ///
    /// Once the run writes its first rows, an earlier run's files that would pass for this
    /// run's (its finished `FILE`, not with `--resume`, and its `--summary`) go: from then on
    /// this run's sidecar and `FILE.partial` stand in their place, and a stopped or killed run
    /// must not leave them looking like its own finished output. A run that fails before its
    /// first row leaves them as they were. A stopped run's note offers `--resume` only when
    /// its rows can be resumed: they have a header, and `unresumable` gives no reason against.
    pub(crate) fn for_rows(
        manifest: Option<RunManifest>,
        hashes: ReadHashes,
        rows: RowsOut<'a>,
        unresumable: Option<String>,
    ) -> Sidecar<'a> {
        let writes_sidecar = manifest.is_some();
        let mut sidecar = Sidecar::new(manifest, rows.output, hashes);
        sidecar.stale = stale_outputs(rows.output, rows.summary, rows.resume);
        // A run that writes no sidecar (`rate --explain`) over an earlier run's output: that
        // run's sidecar would describe a file no longer there.
        if !writes_sidecar && !rows.resume {
            sidecar.stale.extend(rows.output.and_then(stale_sidecar));
        }
        sidecar.not_resumable = match rows.header {
            false => Some("they have no header (--no-header)".into()),
            true => unresumable,
        };
        sidecar
    }

    /// Rows of an earlier run were kept (`--resume`), read from the first `inputs` inputs.
    pub(crate) fn kept_rows_from(&mut self, inputs: usize) {
        self.kept_inputs = inputs;
    }

    /// The manifest, for `--resume` to compare with the earlier run's.
    pub(crate) fn manifest_mut(&mut self) -> Option<&mut RunManifest> {
        self.manifest.as_mut()
    }

    /// Before rows are written to `output`: writes the sidecar the first time, and from then
    /// on a failed run keeps its `FILE.partial` for `--resume`.
    pub(crate) fn rows_written(&mut self, output: &mut Output) -> Result<()> {
        if std::mem::take(&mut self.pending) {
            if let (Some(manifest), Some(path)) = (&self.manifest, self.output) {
                manifest.write(path)?;
            }
        }
        for path in std::mem::take(&mut self.stale) {
            crate::io::output::remove_stale(&path);
        }
        output.keep_on_failure();
        Ok(())
    }

    /// Ends the run's output: a stopped run's rows are flushed and left in `FILE.partial`
    /// (with a note saying so), or, when it stopped before its first row, nothing is left (an
    /// [`Error::Interrupted`] says so); a finished run's output is put in place and its sidecar
    /// marked finished with `rows` rows of `input_records` records.
    pub(crate) fn end(
        &mut self,
        mut output: Output,
        interrupted: bool,
        (rows, input_records): (u64, u64),
        (notes, warnings): (&mut Vec<String>, &mut Vec<String>),
    ) -> Result<()> {
        if interrupted && rows == 0 && output.placed().is_ok() {
            // Stopped before any row (a pipe or FIFO that sent nothing yet): dropping the output
            // removes its `FILE.partial`, and an earlier run's `FILE` and sidecar stay as they
            // were, as when a stop comes before the header is read.
            drop(output);
            return Err(Error::Interrupted(format!(
                "stopped by {} before the first row: nothing was written",
                crate::run::interrupt::stopped_by()
            )));
        }
        if interrupted {
            self.rows_written(&mut output)?;
            match output.keep()? {
                Ok(partial) => match &self.not_resumable {
                    None => notes.push(format!(
                        "interrupted: the rows so far are in {}; run again with --resume to \
                         finish",
                        partial.display()
                    )),
                    // Said even with -q: the run has to start over.
                    Some(why) => warnings.push(format!(
                        "interrupted: the rows so far are in {}, but --resume cannot continue \
                         them ({why}); run again to start over",
                        partial.display()
                    )),
                },
                // A device or FIFO was written as the rows came: no `.partial` to resume.
                Err(direct) if self.output.is_some() => notes.push(format!(
                    "interrupted: the rows so far went to {} (not a regular file, so --resume \
                     cannot continue them)",
                    direct.display()
                )),
                Err(_) => {}
            }
            return Ok(());
        }
        // The hashes first: a failure to take one leaves the output unfinished, as it should.
        if let (Some(manifest), Some(_)) = (self.manifest.as_mut(), self.output) {
            manifest.record_hashes(&self.hashes, self.kept_inputs)?;
        }
        // The finished sidecar before the rows take their final name: a failure to write it
        // leaves the output in progress, which --resume finishes.
        let (manifest, path) = (self.manifest.as_mut(), self.output);
        let not_resumable = self.not_resumable.as_deref();
        output.finish_then(|crc, bytes| match (manifest, path) {
            (Some(manifest), Some(path)) => manifest
                .finish(path, rows, input_records, crc, bytes)
                .map_err(|e| unfinished(e, path, not_resumable)),
            _ => Ok(()),
        })?;
        // A signal the run no longer needed to stop for (a closed standard output is not one).
        let signal =
            crate::run::interrupt::requested() && crate::run::interrupt::unless_abandoned().is_ok();
        if signal {
            let complete = (self.output)
                .map(|path| format!(", and {} is complete", path.display()))
                .unwrap_or_default();
            warnings.push(format!(
                "{} came after the last record was read: the run finished{complete}",
                crate::run::interrupt::stopped_by()
            ));
        }
        Ok(())
    }
}

/// The error of a finished sidecar that could not be written, with what became of the rows:
/// whole in the in-progress file of `output`, which `--resume` finishes (or, when it cannot
/// continue them, `why_not`, a rename keeps).
fn unfinished(error: Error, output: &Path, why_not: Option<&str>) -> Error {
    let Error::Write { path, cause } = error else {
        return error;
    };
    let file = crate::io::targets::through_links(output);
    let partial = crate::io::targets::partial_path(&file);
    let next = match why_not {
        None => "run again with --resume to finish".to_string(),
        Some(why) => format!(
            "--resume cannot continue them ({why}); rename it to {} to keep them",
            file.display()
        ),
    };
    let text = format!(
        "{cause}; the rows are whole in {}: {next}",
        partial.display()
    );
    Error::Write {
        path,
        cause: std::io::Error::new(cause.kind(), text),
    }
}

/// The sidecar an earlier run left beside `output`, which goes when a run that writes none
/// replaces `output`; none when `output` is standard output or a device (written, not
/// replaced: the file behind it is not this run's).
pub(crate) fn stale_sidecar(output: &Path) -> Option<PathBuf> {
    let written = crate::error::is_stdout(output) || crate::io::targets::is_direct(output);
    (!written).then(|| sidecar_path(output))
}

/// The files an earlier run left that this run replaces (see [`Sidecar::for_rows`]): its
/// finished `-o FILE` (not with `--resume`, which takes it back) and its `--summary`
/// ([`remove_stale`](crate::io::output::remove_stale) leaves standard output and devices be).
fn stale_outputs(output: Option<&Path>, summary: Option<&Path>, resume: bool) -> Vec<PathBuf> {
    let output = output.filter(|_| !resume);
    [output, summary]
        .into_iter()
        .flatten()
        .map(Path::to_path_buf)
        .collect()
}

/// For `--resume` of the output `path`, whose earlier rows are in `earlier`: compares the
/// earlier run's sidecar with this run's (`this`), refusing any difference (an error naming
/// `earlier` and every difference), and takes the earlier run's input names (into `files`) and
/// start time. Without an earlier sidecar, `notes` says that only the rows are checked. With
/// `retry_gave_up` the limits may be loosened: the `gave_up` rows are redone, and every kept
/// row is what the looser limits give too.
pub(crate) fn compare_for_resume(
    path: &Path,
    earlier: &Earlier,
    this: Option<&mut RunManifest>,
    files: &mut [String],
    notes: &mut Vec<String>,
    retry_gave_up: bool,
) -> Result<()> {
    match (RunManifest::read(path)?, this) {
        (Some(mut before), Some(this)) => {
            if retry_gave_up && this.limits.no_tighter_than(&before.limits) {
                before.limits = this.limits;
            }
            let mut differences = before.differences(this, Compare::Resume);
            differences.extend(changed_since_finished(earlier, &before));
            if !differences.is_empty() {
                return Err(Error::Input {
                    path: earlier.path().to_path_buf(),
                    message: differences.join("; "),
                });
            }
            for (name, input) in files.iter_mut().zip(&before.inputs) {
                name.clone_from(&input.name);
            }
            this.started_unix = before.started_unix;
        }
        (None, _) => notes.push(format!(
            "resume: no {} (an older version's output?): the earlier run's options cannot be \
             compared; its rows are checked against the input",
            sidecar_path(path).display()
        )),
        (Some(_), None) => {}
    }
    Ok(())
}

/// For a finished output (the `-o` file itself, not `FILE.partial`) whose sidecar says what
/// its run wrote: a difference in size or CRC-32, which no finished run leaves (an edit since).
fn changed_since_finished(earlier: &Earlier, before: &RunManifest) -> Option<String> {
    let finished = before.finished?;
    if !earlier.is_finished() {
        return None;
    }
    changed_since_its_run(earlier.path(), &finished)
        .map(|why| format!("{why} (run again without --resume to redo it)"))
}

/// How the finished output at `path` differs from what its run wrote (`finished`): its size,
/// or at the same size its CRC-32 ([`content_changed`]); `None` when it does not.
pub(crate) fn changed_since_its_run(path: &Path, finished: &Finished) -> Option<String> {
    let size = std::fs::metadata(path).ok()?.len();
    if size != finished.bytes {
        return Some(format!(
            "it holds {} bytes, but its run wrote {}: it was changed since",
            grouped(size),
            grouped(finished.bytes)
        ));
    }
    content_changed(path, finished)
}

/// For a finished output of the size its run wrote: other bytes than it wrote (its CRC-32,
/// where the sidecar has one), said in a sentence; `None` when they are the same.
pub(crate) fn content_changed(path: &Path, finished: &Finished) -> Option<String> {
    let (Some(wrote), Ok(now)) = (finished.crc32, crate::io::output::file_crc(path)) else {
        return None;
    };
    (wrote != now).then(|| {
        format!(
            "it has the size its run wrote ({} bytes) but other content (CRC-32 {now:08x}, its \
             run wrote {wrote:08x}): it was changed since",
            grouped(finished.bytes)
        )
    })
}

/// What defines a run's rows, for its sidecar.
pub(crate) struct RunDefinition<'a> {
    /// [`RunManifest::kind`].
    pub kind: &'static str,
    /// The inputs, in order.
    pub inputs: &'a [Input],
    /// How they are read.
    pub read: &'a ReadOptions,
    /// `--unique`.
    pub unique: bool,
    /// [`RunManifest::solver`].
    pub solver: &'a str,
    /// The output's column names, in order.
    pub columns: &'a [&'a str],
    /// Worker threads.
    pub threads: usize,
    /// How the inputs are hashed.
    pub hashes: &'a ReadHashes,
    /// The per-puzzle limits.
    pub limits: RunLimits,
}

/// Refuses `--resume` into an output written without its header (`--no-header`): resuming
/// reads the earlier rows by the header's column names.
pub(crate) fn check_header_for_resume(header: bool, resume: bool) -> Result<()> {
    if resume && !header {
        return Err(Error::Usage(
            "--resume reads the earlier rows by their header: it cannot go with --no-header".into(),
        ));
    }
    Ok(())
}

/// How a run writing to `output`, resuming or not, hashes its inputs ([`ReadHashes`]): not at
/// all without a sidecar; as it reads them when it is no `--resume` and its rows hold
/// everything of the input that decides them (`rows_say_their_input`: for `rate` the puzzle
/// text, for `solve` the puzzle and the solution, which a resume checks against the input's
/// reference), so that resuming it without a hash still checks every kept row exactly; first
/// otherwise.
pub(crate) fn hashing(
    output: Option<&Path>,
    resume: bool,
    rows_say_their_input: impl FnOnce() -> bool,
) -> Hashing {
    if !wants_sidecar(output) {
        Hashing::None
    } else if !resume && rows_say_their_input() {
        Hashing::WhileReading
    } else {
        Hashing::First
    }
}

/// Whether a run writing to `output` gets a sidecar: a regular file (or a new one) does;
/// stdout, devices and FIFOs do not.
pub(crate) fn wants_sidecar(output: Option<&Path>) -> bool {
    match output {
        Some(path) if path.as_os_str() != "-" => {
            std::fs::metadata(path).map_or(true, |m| m.is_file())
        }
        _ => false,
    }
}

/// The command a sidecar's kind names: `solve`, `rate`.
fn command_of(kind: &str) -> &str {
    kind.strip_prefix(SIDECAR_KIND_PREFIX)
        .and_then(|k| k.strip_suffix(" run"))
        .unwrap_or(kind)
}

/// `n` with thousands separators: `8,200`.
pub(crate) fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What a comparison of two runs is for: `--resume` compares one output's runs (same shard),
/// `merge` the runs of several shards (same shard count, any shard number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compare {
    /// `--resume`: `self` is the earlier run, `other` this one.
    Resume,
    /// `merge`: `self` is one shard's run, `other` another's.
    Merge,
}

impl Compare {
    /// How the two runs are named in a sentence: the earlier one, then this one.
    fn sides(self) -> (&'static str, &'static str) {
        match self {
            Compare::Resume => ("the earlier run", "this one"),
            Compare::Merge => ("one shard's run", "the other's"),
        }
    }
}

impl RunManifest {
    /// The sidecar of a run defined by `run` starting now, over `shard` (the one in effect).
    pub(crate) fn of_run(run: RunDefinition<'_>, shard: Option<Shard>) -> Result<RunManifest> {
        Ok(RunManifest {
            kind: run.kind.to_string(),
            version: VERSION,
            inputs: (run.inputs.iter().enumerate())
                .map(|(i, input)| InputId::of(input, !run.hashes.while_reading(i)))
                .collect::<Result<_>>()?,
            format: format!("{:?}", run.read.format).to_lowercase(),
            column: run.read.column.clone(),
            unique: run.unique,
            solver: run.solver.to_string(),
            shard: shard.map(|s| s.to_string()),
            columns: run.columns.iter().map(|c| c.to_string()).collect(),
            threads: run.threads.max(1),
            started_unix: now_unix(),
            finished: None,
            limits: run.limits,
        })
    }

    /// The shard as (K, N); (1, 1) for a run over every record.
    pub(crate) fn shard_kn(&self) -> (u64, u64) {
        self.shard
            .as_deref()
            .and_then(|s| s.parse::<Shard>().ok())
            .map_or((1, 1), |s| (s.number(), s.count()))
    }

    /// Reads the sidecar of output `path`; `None` when there is none. A sidecar that is not
    /// one is an error naming it.
    pub(crate) fn read(path: &Path) -> Result<Option<RunManifest>> {
        RunManifest::read_file(sidecar_to_read(path))
    }

    /// Reads the sidecar of a shard given to `merge` ([`shard_sidecar_path`]).
    pub(crate) fn read_for_shard(path: &Path) -> Result<Option<RunManifest>> {
        RunManifest::read_file(shard_sidecar_path(path))
    }

    fn read_file(sidecar: PathBuf) -> Result<Option<RunManifest>> {
        let text = match std::fs::read(&sidecar) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(cause) => {
                return Err(Error::Open {
                    path: sidecar,
                    cause,
                })
            }
        };
        let manifest: RunManifest = serde_json::from_slice(&text).map_err(|e| Error::Input {
            path: sidecar.clone(),
            message: format!("not a run sidecar (written by `solve -o` or `rate -o`): {e}"),
        })?;
        if ![SOLVE_KIND, RATE_KIND].contains(&manifest.kind.as_str())
            || !(1..=VERSION).contains(&manifest.version)
        {
            return Err(Error::Input {
                path: sidecar,
                message: format!(
                    "not a run sidecar of this version (kind {:?}, version {})",
                    manifest.kind, manifest.version
                ),
            });
        }
        Ok(Some(manifest))
    }

    /// Writes the sidecar of output `path`, whole or not at all (a temporary file renamed).
    pub(crate) fn write(&self, path: &Path) -> Result<()> {
        let sidecar = sidecar_path(path);
        let mut temp = sidecar.clone().into_os_string();
        temp.push(".tmp");
        let temp = PathBuf::from(temp);
        let error = |cause| Error::Write {
            path: sidecar.clone(),
            cause,
        };
        let mut text =
            serde_json::to_string_pretty(self).map_err(|e| error(std::io::Error::other(e)))?;
        text.push('\n');
        // A failed write (a full disk) leaves no temporary file behind either. The temporary
        // file is made anew (an earlier one removed first, never opened through a symbolic
        // link): the run holds the output's lock, so no other run of ours writes it.
        let _ = std::fs::remove_file(&temp);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(|e| {
                // Something the run could not remove stands there (a folder made during it).
                std::io::Error::new(
                    e.kind(),
                    format!("its temporary file {}: {e}", temp.display()),
                )
            })
            .and_then(|mut file| std::io::Write::write_all(&mut file, text.as_bytes()))
            .and_then(|()| std::fs::rename(&temp, &sidecar))
            .map_err(|e| {
                let _ = std::fs::remove_file(&temp);
                error(e)
            })
    }

    /// Records the hashes of the inputs hashed as they were read (`hashes`), each with the size
    /// it covers (a file that grew after the run started was read as it was when opened). An
    /// input hashed first and read whole since is recorded as read: it may have changed in
    /// between (between its hash and its opening, for the second input and later), and the
    /// rows come from what was read. A resumed run refuses that change in the first
    /// `kept_inputs` inputs, which its kept rows were read from when they held what they
    /// held before.
    fn record_hashes(&mut self, hashes: &ReadHashes, kept_inputs: usize) -> Result<()> {
        for (i, input) in self.inputs.iter_mut().enumerate() {
            if let Some((hash, bytes)) = hashes.of_stream(i) {
                input.blake3 = Some(hash.clone());
                input.size = Some(*bytes);
                continue;
            }
            if input.blake3.is_none() && hashes.while_reading(i) {
                if let Some((hash, bytes)) = hashes.of(i)? {
                    input.blake3 = Some(hash);
                    input.size = bytes.or(input.size);
                }
                continue;
            }
            if let (Some(hashed), Some(disk)) = (&input.blake3, hashes.hashed_first_only(i)) {
                // No tap saw what was read: the archive must be what it was at the start.
                if blake3_of(disk)? != *hashed {
                    return Err(Error::Input {
                        path: PathBuf::from(&input.name),
                        message: "it changed during the run (its content at the start and now \
                                  differ), so which content the rows come from cannot be told; \
                                  run again"
                            .into(),
                    });
                }
                continue;
            }
            let (Some(hashed), Some((read, bytes))) = (&input.blake3, hashes.as_read(i)) else {
                continue;
            };
            if hashed == read && input.size == Some(*bytes) {
                continue;
            }
            if i < kept_inputs {
                return Err(Error::Input {
                    path: PathBuf::from(&input.name),
                    message: format!(
                        "it changed after --resume compared it with the earlier run's (another \
                         content: {} bytes then, {bytes} read since): the kept rows come from \
                         what it held before, the new ones from what it holds now; run again \
                         without --resume",
                        input.size.map_or("?".to_string(), |n| n.to_string())
                    ),
                });
            }
            input.blake3 = Some(read.clone());
            input.size = Some(*bytes);
        }
        Ok(())
    }

    /// Marks the run finished: `rows` rows of `input_records` records in output `path`, of
    /// `bytes` bytes (`None`: the size of `path` now) whose CRC-32 is `crc32`. The output's
    /// in-progress file takes its final name after this is written.
    pub(crate) fn finish(
        &mut self,
        path: &Path,
        rows: u64,
        input_records: u64,
        crc32: Option<u32>,
        bytes: Option<u64>,
    ) -> Result<()> {
        let bytes = match bytes {
            Some(bytes) => bytes,
            None => std::fs::metadata(path)
                .map_err(|cause| Error::Read {
                    path: path.to_path_buf(),
                    cause,
                })?
                .len(),
        };
        self.finished = Some(Finished {
            ended_unix: now_unix(),
            rows,
            bytes,
            input_records,
            crc32,
        });
        self.write(path)
    }

    /// Everything that makes the rows of `self` and `other` differ, each said in a sentence:
    /// `the earlier run used --unique, this one does not`. Empty when they are the same run.
    /// A path given another way (relative, absolute, through a link) is not a difference.
    pub(crate) fn differences(&self, other: &RunManifest, compare: Compare) -> Vec<String> {
        let (earlier, this) = compare.sides();
        let mut out = Vec::new();
        if self.kind != other.kind {
            // Rows of another command: nothing else is worth comparing.
            return vec![format!(
                "{earlier} was `{}`, {this} `{}`",
                command_of(&self.kind),
                command_of(&other.kind)
            )];
        }
        self.input_differences(other, compare, &mut out);
        if self.format != other.format {
            out.push(format!(
                "{earlier} read with --format {}, {this} with --format {}",
                self.format, other.format
            ));
        }
        if self.column != other.column {
            let column = |c: &Option<String>| {
                c.as_ref()
                    .map_or("no --column".to_string(), |c| format!("--column {c}"))
            };
            out.push(format!(
                "{earlier} used {}, {this} {}",
                column(&self.column),
                column(&other.column)
            ));
        }
        if self.unique != other.unique {
            out.push(if self.unique {
                format!("{earlier} used --unique, {this} does not")
            } else {
                format!("{earlier} did not use --unique, {this} does")
            });
        }
        if self.solver != other.solver {
            // A rate run records its scale where a solve run records its solver.
            out.push(if self.kind == RATE_KIND {
                format!(
                    "{earlier} rated on the scale {}, {this} on {} (--scale NAME picks the \
                     scale; the default is se1.2.1)",
                    self.solver, other.solver
                )
            } else {
                format!(
                    "{earlier} used --solver {}, {this} --solver {}",
                    self.solver, other.solver
                )
            });
        }
        out.extend(self.shard_difference(other, compare));
        if self.limits != other.limits {
            out.push(format!(
                "{earlier} ran with {}, {this} with {}",
                self.limits.describe(),
                other.limits.describe()
            ));
        }
        if self.columns != other.columns {
            out.push(format!(
                "{earlier} wrote the columns {}, {this} {}",
                self.columns.join(","),
                other.columns.join(",")
            ));
        }
        out
    }

    /// The command that wrote the sidecar: `solve` or `rate`.
    pub(crate) fn command(&self) -> &str {
        command_of(&self.kind)
    }

    /// Whether an input read from standard input or a FIFO has no hash in the sidecar (its run
    /// did not read it to its end).
    pub(crate) fn unhashed_stream(&self) -> bool {
        self.inputs
            .iter()
            .any(|i| i.size.is_none() && i.blake3.is_none())
    }

    /// Whether this run's sidecar has the content hash of input `i`.
    pub(crate) fn input_hashed(&self, i: usize) -> bool {
        self.inputs
            .get(i)
            .is_some_and(|input| input.blake3.is_some() || input.sha256.is_some())
    }

    /// How input `i` of `other`, another shard of a merge, differs from this run's, if it does.
    pub(crate) fn input_difference_at(&self, other: &RunManifest, i: usize) -> Option<String> {
        let (a, b) = (self.inputs.get(i)?, other.inputs.get(i)?);
        input_difference(a, b, Compare::Merge).map(|why| format!("input {} {why}", i + 1))
    }

    /// How the inputs differ: their number, or each input that is not the same file.
    fn input_differences(&self, other: &RunManifest, compare: Compare, out: &mut Vec<String>) {
        let (earlier, this) = compare.sides();
        let names = |inputs: &[InputId]| {
            let names: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
            names.join(", ")
        };
        if self.inputs.len() != other.inputs.len() {
            out.push(format!(
                "{earlier} read {} input(s) ({}), {this} {} ({})",
                self.inputs.len(),
                names(&self.inputs),
                other.inputs.len(),
                names(&other.inputs)
            ));
        } else {
            for (i, (a, b)) in self.inputs.iter().zip(&other.inputs).enumerate() {
                if let Some(why) = input_difference(a, b, compare) {
                    out.push(format!("input {} {why}", i + 1));
                }
            }
        }
    }

    /// How the shard differs: for a resume, any other shard; for a merge, another shard count.
    fn shard_difference(&self, other: &RunManifest, compare: Compare) -> Option<String> {
        let (earlier, this) = compare.sides();
        let shard = |s: &Option<String>| {
            s.as_ref()
                .map_or("every record (no --shard)".to_string(), |s| {
                    format!("shard {s}")
                })
        };
        match compare {
            Compare::Resume if self.shard != other.shard => Some(format!(
                "{earlier} read {}, {this} {}",
                shard(&self.shard),
                shard(&other.shard)
            )),
            Compare::Merge if self.shard_kn().1 != other.shard_kn().1 => Some(format!(
                "{earlier} is {} of {}, {this} {} of {}",
                shard(&self.shard),
                self.shard_kn().1,
                shard(&other.shard),
                other.shard_kn().1
            )),
            _ => None,
        }
    }
}

/// How input `b` differs from `a` (the earlier run's, or another shard's), or `None`.
fn input_difference(a: &InputId, b: &InputId, compare: Compare) -> Option<String> {
    // Said of the earlier run's input first for a resume ("was", "now"), and of the shard the
    // message is about first for a merge ("is" here, "there" in the first shard).
    let (a, b, was, now) = match compare {
        Compare::Resume => (a, b, "was", "now"),
        Compare::Merge => (b, a, "is", "there"),
    };
    let stdin = |i: &InputId| i.name == "-" && i.canonical.is_none();
    let shown = |i: &InputId| match stdin(i) {
        true => "standard input".to_string(),
        false => i.name.clone(),
    };
    // One input read where the other run read another.
    let read_instead = |a: &InputId, b: &InputId| match compare {
        Compare::Resume => format!("differs: {} was read, now {}", shown(a), shown(b)),
        Compare::Merge => format!("differs: {} was read here, {} there", shown(a), shown(b)),
    };
    match (stdin(a), stdin(b)) {
        // Standard input on both sides: compared as any input below, by hash and size where
        // both runs read it to its end (it has one name, so nothing else tells them apart).
        // Standard input on one side, a file on the other (`/dev/stdin`, or the file
        // standard input was redirected from): the same bytes are the same input.
        (true, false) | (false, true) if a.same_content(b) => return None,
        (true, false) | (false, true) => {
            let unknown = match a.common_hash(b) {
                Some(_) => "",
                None => " (one has no hash of its bytes to compare: its run did not finish)",
            };
            return Some(format!("{}{unknown}", read_instead(a, b)));
        }
        (true, true) | (false, false) => {}
    }
    // Two members of one archive: the archive's fingerprints are the same, the inputs are not
    // (a whole archive reads the member it takes, so it and that member named are alike).
    if let (Some(x), Some(y)) = (a.member(), b.member()) {
        if x != y {
            return Some(read_instead(a, b));
        }
    }
    if a.same_content(b) {
        return None;
    }
    let same_name = a.same_file(b) || a.name == b.name;
    let (a_name, b_name) = (shown(a), shown(b));
    let size = |s: Option<u64>| s.map_or("?".to_string(), grouped);
    // Each size with the name of the file that had it.
    let sizes = || {
        let other = if same_name {
            String::new()
        } else {
            format!("{b_name} ")
        };
        format!(
            "differs: {} {was} {} bytes, {now} {other}{}",
            a_name,
            size(a.size),
            size(b.size)
        )
    };
    // Without a fingerprint of one kind on both sides (a FIFO, or a version 1 sidecar's SHA-256),
    // only the file and its size can be compared; the rows are checked against the input.
    let Some((hash, was_hash, now_hash)) = a.common_hash(b) else {
        if a.size.is_some() && b.size.is_some() && a.size != b.size {
            return Some(sizes());
        }
        return (!same_name).then(|| read_instead(a, b));
    };
    if a.size != b.size {
        return Some(sizes());
    }
    let name = if same_name {
        a_name
    } else {
        format!("{a_name} and {b_name}")
    };
    Some(format!(
        "differs: {name} {} the same size ({} bytes) but other content ({hash} {}… {was}, {}… \
         {now})",
        if same_name { "has" } else { "have" },
        size(a.size),
        was_hash.get(..12).unwrap_or(""),
        now_hash.get(..12).unwrap_or(""),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::solve::SolveConfig;
    use crate::io::results::Column;

    /// Inputs hashed before the run.
    fn no_tap(config: &SolveConfig) -> ReadHashes {
        ReadHashes::new(&config.run.inputs, Hashing::First)
    }

    /// Two files with nothing to compare but their names and sizes (one run stopped before
    /// hashing): said of each side in the comparison's words.
    #[test]
    fn another_file_read_is_named_for_resume_and_merge() {
        let id = |name: &str, blake3: Option<&str>| InputId {
            name: name.into(),
            name_hex: None,
            canonical: Some(format!("/data/{name}")),
            dev_inode: None,
            size: Some(100),
            blake3: blake3.map(String::from),
            sha256: None,
            zip_member: None,
        };
        let (a, b) = (id("a.txt", Some("ab12")), id("b.txt", None));
        assert_eq!(
            input_difference(&a, &b, Compare::Resume).unwrap(),
            "differs: a.txt was read, now b.txt"
        );
        assert_eq!(
            input_difference(&a, &b, Compare::Merge).unwrap(),
            "differs: b.txt was read here, a.txt there"
        );
        assert_eq!(
            input_difference(&a, &id("a.txt", None), Compare::Merge),
            None
        );
    }

    #[test]
    fn every_run_kind_names_a_sidecar() {
        for kind in [SOLVE_KIND, RATE_KIND] {
            assert!(kind.starts_with(SIDECAR_KIND_PREFIX), "{kind}");
        }
    }

    #[test]
    fn inputs_are_hashed_as_they_are_read_and_only_when_read_whole() {
        use crate::io::RecordReader;
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let lines: String = (0..20_000).map(|i| format!("{i:081}\n")).collect();
        let plain = dir.path().join("x.txt");
        std::fs::write(&plain, &lines).unwrap();
        let gz = dir.path().join("x.txt.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(lines.as_bytes()).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        // Each file's hash and size.
        let want: Vec<(String, u64)> = [&plain, &gz]
            .iter()
            .map(|p| {
                let bytes = std::fs::read(p).unwrap();
                let hash = blake3::hash(&bytes).to_hex().to_string();
                (hash, bytes.len() as u64)
            })
            .collect();
        let whole = |i: usize| Some((want[i].0.clone(), Some(want[i].1)));
        let inputs = vec![
            Input::File(plain.clone()),
            Input::File(gz.clone()),
            Input::Stdin,
        ];
        // The files' records (to the end when `records` is more than they hold).
        let read = |hashes: &ReadHashes, records: usize| {
            let files = inputs[..2].to_vec();
            let reader = RecordReader::new(files, ReadOptions::default(), Arc::default());
            let mut reader = reader.with_taps(hashes.taps());
            for _ in 0..records {
                reader.next_record().unwrap();
            }
        };
        // Read whole: the hashes come from the reading (the files are gone when asked).
        let hashes = ReadHashes::new(&inputs, Hashing::WhileReading);
        assert!(hashes.while_reading(0) && hashes.while_reading(1) && !hashes.while_reading(2));
        read(&hashes, 40_001);
        let backup = dir.path().join("backup");
        std::fs::rename(&plain, &backup).unwrap();
        std::fs::remove_file(&gz).unwrap();
        assert_eq!(hashes.of(0).unwrap(), whole(0));
        assert_eq!(hashes.of(1).unwrap(), whole(1));
        assert_eq!(hashes.of(2).unwrap(), None);
        // Read in part: no hash from the reading; the file is read again for it.
        std::fs::rename(&backup, &plain).unwrap();
        let inputs = &inputs[..1];
        let hashes = ReadHashes::new(inputs, Hashing::WhileReading);
        read(&hashes, 19_999);
        assert!(hashes.inputs[0]
            .as_ref()
            .unwrap()
            .1
            .as_ref()
            .unwrap()
            .get()
            .is_none());
        assert_eq!(hashes.of(0).unwrap(), Some((want[0].0.clone(), None)));
        // No sidecar: no taps. Hashed first: tapped as well, but not "while reading".
        assert!(ReadHashes::new(inputs, Hashing::None)
            .taps()
            .iter()
            .all(Option::is_none));
        let first = ReadHashes::new(inputs, Hashing::First);
        assert!(first.taps()[0].is_some() && !first.while_reading(0));
        // A zip archive, whole or as `ARCHIVE.zip:MEMBER`, is hashed first: only a member is read.
        let zip = dir.path().join("x.zip");
        let mut archive = zip::ZipWriter::new(File::create(&zip).unwrap());
        archive
            .start_file("x.txt", zip::write::SimpleFileOptions::default())
            .unwrap();
        archive.write_all(lines.as_bytes()).unwrap();
        archive.finish().unwrap();
        let member = dir.path().join("x.zip:x.txt");
        let hashes = ReadHashes::new(
            &[Input::File(zip), Input::File(member)],
            Hashing::WhileReading,
        );
        assert!(!hashes.while_reading(0) && !hashes.while_reading(1));
    }

    /// An input hashed first that changed before it was read is recorded as read, unless
    /// rows kept from an earlier run came from it.
    #[test]
    fn an_input_hashed_first_is_recorded_as_read() {
        let dir = tempfile::tempdir().unwrap();
        let x = dir.path().join("x.txt");
        std::fs::write(&x, "abc\n").unwrap();
        let config = SolveConfig::new(vec![Input::File(x.clone())]);
        let hashes = ReadHashes::new(&config.run.inputs, Hashing::First);
        let manifest = RunManifest::new(&config, None, &Column::ALL, &hashes).unwrap();
        std::fs::write(&x, "abd\n").unwrap();
        let reader = crate::io::RecordReader::new(
            config.run.inputs.clone(),
            ReadOptions::default(),
            Arc::default(),
        );
        let mut reader = reader.with_taps(hashes.taps());
        while reader.next_record().unwrap().is_some() {}
        let e = manifest.clone().record_hashes(&hashes, 1).unwrap_err();
        assert!(e.to_string().contains("it changed after --resume"), "{e}");
        let mut recorded = manifest;
        recorded.record_hashes(&hashes, 0).unwrap();
        let read = blake3::hash(b"abd\n").to_hex().to_string();
        assert_eq!(recorded.inputs[0].blake3.as_deref(), Some(read.as_str()));
    }

    /// A zip archive (hashed first only: no tap sees its bytes) that changed during the run
    /// is refused at the end, whatever was read of it.
    #[test]
    fn a_zip_archive_changed_during_the_run_is_refused() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let zip_path = dir.path().join("x.zip");
        let write_zip = |text: &[u8]| {
            let mut archive = zip::ZipWriter::new(File::create(&zip_path).unwrap());
            archive
                .start_file("x.txt", zip::write::SimpleFileOptions::default())
                .unwrap();
            archive.write_all(text).unwrap();
            archive.finish().unwrap();
        };
        write_zip(b"abc\n");
        let config = SolveConfig::new(vec![Input::File(zip_path.clone())]);
        let hashes = ReadHashes::new(&config.run.inputs, Hashing::WhileReading);
        let mut manifest = RunManifest::new(&config, None, &Column::ALL, &hashes).unwrap();
        assert!(manifest.clone().record_hashes(&hashes, 0).is_ok());
        write_zip(b"abd\n");
        let e = manifest.record_hashes(&hashes, 0).unwrap_err();
        assert!(e.to_string().contains("it changed during the run"), "{e}");
    }

    #[test]
    fn groups_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(8200), "8,200");
        assert_eq!(grouped(1234567), "1,234,567");
    }

    #[test]
    fn names_every_difference() {
        let dir = tempfile::tempdir().unwrap();
        let x = dir.path().join("x.txt");
        std::fs::write(&x, "abc").unwrap();
        let run = |unique, solver: &str, shard: Option<&str>| {
            let mut config = SolveConfig::new(vec![Input::File(x.clone())]);
            config.unique = unique;
            config.solver = crate::solver::SolverKind::from_name(solver).unwrap();
            RunManifest::new(
                &config,
                shard.map(|s| s.parse().unwrap()),
                &Column::ALL,
                &no_tap(&config),
            )
            .unwrap()
        };
        let a = run(false, "bands", Some("1/2"));
        assert!(a.differences(&a.clone(), Compare::Resume).is_empty());
        let b = run(true, "singles", Some("2/2"));
        assert_eq!(
            a.differences(&b, Compare::Resume),
            [
                "the earlier run did not use --unique, this one does",
                "the earlier run used --solver bands, this one --solver singles",
                "the earlier run read shard 1/2, this one shard 2/2",
            ]
        );
        // Merge compares the shard count, not the shard.
        let c = run(false, "bands", Some("2/2"));
        assert!(a.differences(&c, Compare::Merge).is_empty());
        std::fs::write(&x, "abd").unwrap();
        let d = run(false, "bands", Some("1/2"));
        let diff = a.differences(&d, Compare::Resume);
        assert_eq!(diff.len(), 1, "{diff:?}");
        assert!(diff[0].starts_with("input 1 differs: "), "{diff:?}");
        assert!(diff[0].contains("has the same size (3 bytes) but other content"));
    }

    #[test]
    fn version_1_sidecars_with_sha256_are_read_and_compared_by_size() {
        let dir = tempfile::tempdir().unwrap();
        let x = dir.path().join("x.txt");
        std::fs::write(&x, "abc").unwrap();
        let config = SolveConfig::new(vec![Input::File(x.clone())]);
        let now = RunManifest::new(&config, None, &Column::ALL, &no_tap(&config)).unwrap();
        assert_eq!(now.version, VERSION);
        let hex = now.inputs[0].blake3.clone().unwrap();
        assert_eq!(hex, blake3::hash(b"abc").to_hex().to_string());
        // What version 1 wrote: SHA-256 and no BLAKE3.
        let mut old = now.clone();
        old.version = 1;
        old.started_unix = 1_700_000_000.5; // exact in JSON (a float read back may differ)
        old.inputs[0].blake3 = None;
        old.inputs[0].sha256 = Some("ba7816bf8f01cfea414140de5dae2223".into());
        let out = dir.path().join("out.csv");
        old.write(&out).unwrap();
        let text = std::fs::read_to_string(sidecar_path(&out)).unwrap();
        assert!(
            text.contains("\"sha256\"") && !text.contains("\"blake3\""),
            "{text}"
        );
        let read = RunManifest::read(&out).unwrap().unwrap();
        assert_eq!(read, old);
        // The same file and size: no difference (the rows are re-checked instead).
        assert!(read.differences(&now, Compare::Resume).is_empty());
        // Another size is named.
        std::fs::write(&x, "abcd").unwrap();
        let bigger = RunManifest::new(&config, None, &Column::ALL, &no_tap(&config)).unwrap();
        let diff = read.differences(&bigger, Compare::Resume);
        assert_eq!(
            diff,
            [format!(
                "input 1 differs: {} was 3 bytes, now 4",
                x.display()
            )]
        );
        // A version this build does not know is refused, naming the file.
        let mut future = now.clone();
        future.version = VERSION + 1;
        future.write(&out).unwrap();
        let err = RunManifest::read(&out).unwrap_err().to_string();
        assert!(
            err.contains("out.csv.run.json") && err.contains("version 3"),
            "{err}"
        );
    }
}
