//! Where a run's rows go, and who owns them while they are written.
//!
//! - stdout (`-`), or a non-regular path (a device such as `/dev/null`, a FIFO, `/dev/stdout`):
//!   written directly, never replaced.
//! - a regular file `FILE`: written crash-safely into `FILE.partial` beside it, renamed to
//!   `FILE` only once the run completes, so a killed run never leaves a truncated file that
//!   looks finished. `FILE.partial` is locked (`flock`) for the whole run: a second run on the
//!   same `FILE` is refused, naming the first one's pid. A `FILE` that is a symbolic link is
//!   written through it: the file it points to is the one replaced. Before anything is created, `FILE` is
//!   checked ([`crate::io::targets`], which every command also calls for all its outputs at
//!   start): not a folder, not one of the inputs, in a folder that exists and can be written.
//! - compressed (`.gz`, `.zst`, or `--compress`): a sequence of independent gzip members or
//!   zstd frames ([`crate::io::compress`]); `solve` seals each chunk into a member on its pool's
//!   threads and hands it over with [`Output::write_sealed`], other writers just write bytes.
//!
//! [`take_for_resume`] takes an interrupted (or finished) run's output back for `--resume`:
//! its rows are read (through [`ResultReader`](crate::io::results::ResultReader)) from its
//! complete members only, and it is cut after the rows kept. A finished file stays in place,
//! unchanged, until the resume is known good.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::io::compress::{member_bytes, read_members, scan_members, Codec, Member};
use crate::io::targets::{
    check_targets, is_direct, lock_holder, partial_path, through_links, Target, WriteKind,
};

/// Plain bytes gathered into one member before it is compressed, for writers that write bytes.
const MEMBER_BYTES: usize = 1024 * 1024;

/// How an output is opened.
#[derive(Debug, Clone, Default)]
pub struct OutputOptions {
    /// The encoding; `None` follows the path's extension (`.gz`, `.zst`), plain for stdout.
    pub compress: Option<Codec>,
    /// The run's input files: the output may not be one of them.
    pub inputs: Vec<PathBuf>,
    /// Keep `FILE.partial` when the run fails (`solve`, for `--resume`); otherwise a failed
    /// output leaves nothing behind.
    pub resumable: bool,
    /// The option that named the file, for messages; `None` is `-o`.
    pub flag: Option<&'static str>,
}

impl OutputOptions {
    fn flag(&self) -> &'static str {
        self.flag.unwrap_or("-o")
    }

    /// The encoding for `path` (`None` for stdout).
    pub(crate) fn codec_for(&self, path: Option<&Path>) -> Codec {
        self.compress.unwrap_or_else(|| {
            path.filter(|p| !is_stdout(p))
                .map_or(Codec::None, Codec::from_path)
        })
    }
}

/// Where the bytes go.
enum Sink {
    Stdout(io::Stdout),
    File(File),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(s) => s.write(buf),
            Sink::File(f) => f.write(buf),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout(s) => s.write_all(buf),
            Sink::File(f) => f.write_all(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(s) => s.flush(),
            Sink::File(f) => f.flush(),
        }
    }
}

/// An output sink that names itself in errors.
pub struct Output {
    sink: io::BufWriter<Sink>,
    codec: Codec,
    /// Plain bytes not yet sealed into a member (compressed output only).
    pending: Vec<u8>,
    /// For a regular file: the final name, renamed to on [`finish`](Output::finish).
    target: Option<PathBuf>,
    display: PathBuf,
    /// Remove `FILE.partial` if dropped unfinished.
    discard: bool,
    /// Nothing is in the output yet (no byte written, none kept from an earlier run).
    empty: bool,
    /// The option that named the file, for messages.
    flag: &'static str,
    /// CRC-32 of every byte in a regular file output so far (kept rows included), for the run
    /// sidecar: a finished output edited since its run is told apart by it.
    crc: Option<crc32fast::Hasher>,
}

fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

fn write_error(path: &Path, cause: io::Error) -> Error {
    Error::Write {
        path: path.to_path_buf(),
        cause,
    }
}

fn refuse(path: &Path, why: String) -> Error {
    write_error(path, io::Error::other(why))
}

/// A write error on the file that `flag` names says so, as in "cannot write F: the -o file:
/// No space left on device": the failure may come long after the command line was typed.
/// Standard output (`-`) is named well enough by itself.
fn naming(flag: &'static str) -> impl Fn(Error) -> Error {
    move |error| match error {
        Error::Write { path, cause } if !is_stdout(&path) => Error::Write {
            cause: io::Error::new(cause.kind(), format!("the {flag} file: {cause}")),
            path,
        },
        other => other,
    }
}

/// Checks a regular output path before anything is created: not a folder, not one of the
/// inputs, in a folder that exists ([`check_targets`], for this one output).
fn check_target(path: &Path, options: &OutputOptions) -> Result<()> {
    check_targets(
        &options.inputs,
        &[Target::new(options.flag(), path, WriteKind::Replaced)],
    )
}

/// Opens a non-regular output (a device, a FIFO) to append to it. A FIFO no reader has opened
/// yet is waited for a tenth of a second at a time, and a stop request that comes during the
/// wait ends it with an `Interrupted` error: a plain `open` would block until a reader came,
/// where no signal reaches it. A stopped run still waits to write its summary, which says it
/// stopped (a second signal quits).
fn open_direct(path: &Path) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo()) {
            let stopped_before = super::raw::stop_requested();
            loop {
                let opened = OpenOptions::new()
                    .append(true)
                    .custom_flags(libc::O_NONBLOCK)
                    .open(path);
                match opened {
                    Ok(file) => return super::input::blocking(file),
                    // No reader yet.
                    Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                        if !stopped_before && super::raw::stop_requested() {
                            return Err(io::Error::from(io::ErrorKind::Interrupted));
                        }
                        std::thread::sleep(std::time::Duration::from_millis(100));
                    }
                    Err(e) => return Err(e),
                }
            }
        }
    }
    OpenOptions::new().append(true).open(path)
}

/// Opens (creating if needed, never truncating) and exclusively locks the in-progress file
/// `partial` of `target`. Another run holding it is an error naming its pid where known.
fn open_locked(partial: &Path, target: &Path) -> Result<File> {
    loop {
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        // Never through a symbolic link: one planted at `FILE.partial` (in a shared folder)
        // would have the run write its rows into whatever file it points to.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW);
        let file = options.open(partial).map_err(|e| {
            super::targets::partial_problem(partial)
                .map_or_else(|| write_error(target, e), |why| refuse(target, why))
        })?;
        // A FIFO, socket or device planted there (opened read-write, a FIFO does not wait)
        // would take the rows and then be renamed into place.
        if !file.metadata().is_ok_and(|m| m.is_file()) {
            let why = super::targets::partial_problem(partial)
                .unwrap_or_else(|| format!("{} is not a regular file", partial.display()));
            return Err(refuse(target, why));
        }
        lock(&file, partial, target)?;
        // The name may have been renamed or removed by the run that held the lock just before
        // it was taken: then the lock is on a file that is no longer `partial`; try again.
        if still_named(&file, partial).map_err(|e| write_error(target, e))? {
            return Ok(file);
        }
    }
}

/// Whether `file` is still the file at `partial` (same device and inode).
#[cfg(unix)]
fn still_named(file: &File, partial: &Path) -> io::Result<bool> {
    let held = file.metadata()?;
    Ok(std::fs::metadata(partial).is_ok_and(|now| {
        super::input::inode_of(&now).is_some_and(|id| Some(id) == super::input::inode_of(&held))
    }))
}

/// Whether `file` is still the file at `partial`: always, since Windows renames or removes no
/// file while a handle opened without delete sharing (as `std` opens files) holds it.
#[cfg(not(unix))]
fn still_named(_: &File, _: &Path) -> io::Result<bool> {
    Ok(true)
}

/// Takes an exclusive, non-blocking lock on `file` (named `partial`, the output `target`):
/// `flock` on Unix, `LockFileEx` on Windows.
fn lock(file: &File, partial: &Path, target: &Path) -> Result<()> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(std::fs::TryLockError::Error(error)) => Err(write_error(target, error)),
        Err(std::fs::TryLockError::WouldBlock) => {
            let who = lock_holder(file).map_or(String::new(), |pid| format!(" (pid {pid})"));
            Err(refuse(
                target,
                format!(
                    "another run{who} is writing it ({} is locked); wait for it, or stop it",
                    partial.display()
                ),
            ))
        }
    }
}

impl Output {
    /// Opens stdout (`None` or `-`) or the output `path`, encoded as its extension says.
    pub fn create(path: Option<&Path>) -> Result<Output> {
        Output::create_with(path, &OutputOptions::default())
    }

    /// Opens stdout (`None` or `-`), a non-regular `path` directly, or the locked in-progress
    /// file of a regular `path` (emptied), after checking `path` (see the module's text).
    pub(crate) fn create_with(path: Option<&Path>, options: &OutputOptions) -> Result<Output> {
        let codec = options.codec_for(path);
        let Some(path) = path.filter(|p| !is_stdout(p)) else {
            return Ok(Output::new(
                Sink::Stdout(io::stdout()),
                codec,
                None,
                PathBuf::from("-"),
                false,
            ));
        };
        if is_direct(path) {
            let file = open_direct(path).map_err(|e| match e.kind() {
                io::ErrorKind::Interrupted => Error::Interrupted(format!(
                    "stopped while waiting for a reader of {} (the {} file): nothing was \
                     written to it",
                    path.display(),
                    options.flag()
                )),
                _ => naming(options.flag())(write_error(path, e)),
            })?;
            return Ok(
                Output::new(Sink::File(file), codec, None, path.into(), false)
                    .named(options.flag()),
            );
        }
        // The checks refuse a file another run holds locked, and what stands at the
        // in-progress name; the open below refuses what is planted there after them.
        check_target(path, options)?;
        let path = &through_links(path);
        let partial = partial_path(path);
        let file = open_locked(&partial, path).map_err(naming(options.flag()))?;
        // Emptied only when there is something to empty: on ext4 a truncation to 0 marks the
        // file for "replace via truncate", and closing it then writes all its data back inside
        // `close` (48 ms for 200 MB here, with the other core idle).
        let error = |e| naming(options.flag())(write_error(path, e));
        let len = file.metadata().map_err(error)?.len();
        if len > 0 {
            file.set_len(0).map_err(error)?;
        }
        let mut output = Output::new(
            Sink::File(file),
            codec,
            Some(path.into()),
            path.into(),
            !options.resumable,
        )
        .named(options.flag());
        output.crc = Some(crc32fast::Hasher::new());
        Ok(output)
    }

    fn new(
        sink: Sink,
        codec: Codec,
        target: Option<PathBuf>,
        display: PathBuf,
        discard: bool,
    ) -> Output {
        Output {
            sink: io::BufWriter::with_capacity(256 * 1024, sink),
            codec,
            pending: Vec::new(),
            target,
            display,
            discard,
            empty: true,
            flag: "-o",
            crc: None,
        }
    }

    fn named(mut self, flag: &'static str) -> Output {
        self.flag = flag;
        self
    }

    /// Keeps `FILE.partial` if the run now fails (for `--resume`): `solve` calls it once rows
    /// are written, so a run that fails before its first row leaves nothing behind.
    pub fn keep_on_failure(&mut self) {
        self.discard = false;
    }

    /// Where the output goes: `Ok` with the final name of a file written through
    /// `FILE.partial` (and put in place by [`finish`](Output::finish)), or `Err` with the name
    /// of the stdout (`-`), device or FIFO the bytes go straight to.
    #[cfg(feature = "cli")]
    pub(crate) fn placed(&self) -> std::result::Result<&Path, &Path> {
        self.target.as_deref().ok_or(&self.display)
    }

    /// Ends the output of a run a signal stopped: flushed, and a file left as `FILE.partial`
    /// (not put in place). `Ok` with that partial file, or `Err` with the name of the stdout
    /// (`-`), device or FIFO the bytes went straight to. An error when another program
    /// removed or replaced `FILE.partial`: the rows are not there to resume.
    #[cfg(feature = "cli")]
    pub(crate) fn keep(mut self) -> Result<std::result::Result<PathBuf, PathBuf>> {
        self.keep_on_failure();
        self.flush()?;
        Ok(match self.placed() {
            Ok(target) => {
                let partial = partial_path(target);
                self.check_still_named(&partial)?;
                Ok(partial)
            }
            Err(direct) => Err(direct.to_path_buf()),
        })
    }

    /// An error when the file this output writes is no longer the one at `partial` (its
    /// in-progress name): another program removed it or put another file there, so the rows
    /// written are not where the run would put them in place, or leave them to resume.
    fn check_still_named(&self, partial: &Path) -> Result<()> {
        let Sink::File(file) = self.sink.get_ref() else {
            return Ok(());
        };
        match still_named(file, partial) {
            Ok(true) => Ok(()),
            Ok(false) => Err(self.error(io::Error::other(format!(
                "its in-progress file {} was removed or replaced by another program during \
                 the run, so its rows are lost; run it again",
                partial.display()
            )))),
            Err(e) => Err(self.error(e)),
        }
    }

    /// How the output is encoded: `solve` seals each chunk with it ([`Codec::seal`]) before
    /// handing it to [`write_sealed`](Output::write_sealed).
    pub fn codec(&self) -> Codec {
        self.codec
    }

    fn error(&self, source: io::Error) -> Error {
        naming(self.flag)(write_error(&self.display, source))
    }

    /// Writes `bytes` to the sink as they are, counting them in the CRC.
    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        if let Some(crc) = &mut self.crc {
            crc.update(bytes);
        }
        self.sink.write_all(bytes).map_err(|e| self.error(e))
    }

    /// Writes plain bytes (compressed output gathers them into members of about a megabyte).
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        self.empty &= bytes.is_empty();
        if self.codec.is_plain() {
            return self.put(bytes);
        }
        self.pending.extend_from_slice(bytes);
        if self.pending.len() >= MEMBER_BYTES {
            self.seal_pending()?;
        }
        Ok(())
    }

    /// Writes bytes already encoded with [`codec`](Output::codec) (whole members), after any
    /// plain bytes written before them.
    pub fn write_sealed(&mut self, bytes: &[u8]) -> Result<()> {
        self.empty &= bytes.is_empty();
        self.seal_pending()?;
        self.put(bytes)
    }

    fn seal_pending(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut member = Vec::with_capacity(self.pending.len() / 4 + 64);
        self.codec.encode_member(&self.pending, &mut member);
        self.pending.clear();
        self.put(&member)
    }

    /// Flushes everything written so far, as complete members (the in-progress file stays in
    /// place).
    pub fn flush(&mut self) -> Result<()> {
        self.seal_pending()?;
        self.sink.flush().map_err(|e| self.error(e))
    }

    /// Flushes, and for a file moves the completed output into place. A compressed output
    /// that got no bytes at all (no rows, `--no-header`) is one empty member, which `gzip -dc`
    /// and `zstd -dc` read as empty (they refuse an empty file).
    pub fn finish(self) -> Result<()> {
        self.finish_with_crc().map(|_| ())
    }

    /// [`finish`](Output::finish), returning the CRC-32 of the file's bytes (`None` for
    /// standard output, a device or a FIFO).
    pub(crate) fn finish_with_crc(self) -> Result<Option<u32>> {
        self.finish_then(|_, _| Ok(()))
    }

    /// [`finish_with_crc`](Output::finish_with_crc), calling `before_named` with the CRC-32
    /// and the byte size of the completed file (`None` for standard output, a device or a
    /// FIFO) once it is flushed and before it takes its final name: a failure there leaves
    /// the output in progress, not looking finished.
    pub(crate) fn finish_then(
        mut self,
        before_named: impl FnOnce(Option<u32>, Option<u64>) -> Result<()>,
    ) -> Result<Option<u32>> {
        if self.empty && !self.codec.is_plain() {
            let mut member = Vec::new();
            self.codec.encode_member(&[], &mut member);
            self.put(&member)?;
        }
        self.flush()?;
        let crc = self.crc.take().map(crc32fast::Hasher::finalize);
        let Some(target) = self.target.take() else {
            before_named(crc, None)?;
            return Ok(crc);
        };
        let partial = partial_path(&target);
        // On unix the file stays open, and locked, until it has its final name: closed
        // before, another run could take the lock and empty it before the rename.
        #[cfg(not(unix))]
        {
            let sink = std::mem::replace(
                &mut self.sink,
                io::BufWriter::new(Sink::Stdout(io::stdout())),
            );
            drop(sink);
        }
        let named = naming(self.flag);
        self.check_still_named(&partial)?;
        let bytes = std::fs::metadata(&partial).map_err(|e| named(write_error(&partial, e)))?;
        before_named(crc, Some(bytes.len()))?;
        std::fs::rename(&partial, &target).map_err(|e| named(write_error(&target, e)))?;
        Ok(crc)
    }
}

impl Drop for Output {
    /// An unfinished output that cannot be resumed leaves nothing behind.
    fn drop(&mut self) {
        if let Some(target) = self.target.take().filter(|_| self.discard) {
            let _ = std::fs::remove_file(partial_path(&target));
        }
    }
}

/// An earlier run's output, taken back for `--resume` and locked: its rows are read with
/// [`rows`](Earlier::rows) and checked, then [`append`](Earlier::append) cuts it after the rows
/// kept and opens it for the rest. Dropped without `append` (a refused resume), it leaves a
/// finished file exactly as it was.
pub struct Earlier {
    target: PathBuf,
    partial: PathBuf,
    /// The locked in-progress file (an empty placeholder while the rows are in a finished file).
    lock: File,
    /// The file the rows are read from: `FILE.partial`, or a finished `FILE`.
    source: PathBuf,
    finished: bool,
    codec: Codec,
    /// Compressed: the complete members.
    members: Vec<Member>,
    /// The bytes of `source` that can be read: up to the end of the last complete member.
    readable: u64,
    appended: bool,
}

/// Finds an earlier run's rows for `--resume` of the output `path`: its in-progress file, or
/// else a finished `path` (left in place until [`Earlier::append`]). `None` when there is
/// neither. `path` must be a regular file's (not stdout, not a device or FIFO); its encoding
/// must be the one this run writes (`options`).
pub fn take_for_resume(path: &Path, options: &OutputOptions) -> Result<Option<Earlier>> {
    if is_stdout(path) || is_direct(path) {
        return Err(Error::Usage(format!(
            "--resume needs -o FILE, a regular file; {} is written directly (stdout, a device \
             or a FIFO), so there is nothing to resume",
            path.display()
        )));
    }
    check_target(path, options)?;
    let path = &through_links(path);
    let partial = partial_path(path);
    let lock = open_locked(&partial, path).map_err(naming(options.flag()))?;
    let partial_len = lock.metadata().map_err(|e| write_error(path, e))?.len();
    let (source, finished) = if partial_len > 0 {
        (partial.clone(), false)
    } else if path.is_file() {
        (path.to_path_buf(), true)
    } else {
        // Nothing to resume: the caller starts afresh (and takes the lock again).
        let _ = std::fs::remove_file(&partial);
        return Ok(None);
    };
    let mut earlier = Earlier {
        target: path.to_path_buf(),
        partial,
        lock,
        source,
        finished,
        codec: Codec::None,
        members: Vec::new(),
        readable: 0,
        appended: false,
    };
    let wanted = options.codec_for(Some(path));
    let read_error = |e| Error::Read {
        path: earlier.source.clone(),
        cause: e,
    };
    let mut head = Vec::with_capacity(4);
    File::open(&earlier.source)
        .and_then(|f| f.take(4).read_to_end(&mut head))
        .map_err(read_error)?;
    let found = match Codec::from_magic(&head) {
        Some(codec) => codec,
        // A compressed file cut inside its first member's magic bytes holds nothing.
        None if !wanted.is_plain() && head.len() < 4 && magic_prefix(wanted, &head) => wanted,
        None => Codec::None,
    };
    if found != wanted {
        return Err(Error::Input {
            path: earlier.source.clone(),
            message: format!(
                "cannot resume: it is {} but this run writes {} (the output's extension or \
                 --compress changed)",
                describe(found),
                describe(wanted)
            ),
        });
    }
    earlier.codec = found;
    if found.is_plain() {
        earlier.readable = std::fs::metadata(&earlier.source)
            .map_err(read_error)?
            .len();
    } else {
        earlier.members = scan_members(found, &earlier.source).map_err(read_error)?;
        earlier.readable = earlier.members.last().map_or(0, |m| m.end);
    }
    Ok(Some(earlier))
}

fn magic_prefix(codec: Codec, head: &[u8]) -> bool {
    let magic: &[u8] = match codec {
        Codec::Gzip => &[0x1f, 0x8b],
        Codec::Zstd => &[0x28, 0xb5, 0x2f, 0xfd],
        Codec::None => return false,
    };
    magic.starts_with(head)
}

fn describe(codec: Codec) -> &'static str {
    match codec {
        Codec::None => "plain",
        Codec::Gzip => "gzip",
        Codec::Zstd => "zstd",
    }
}

impl Earlier {
    /// The file the rows are read from (`FILE.partial`, or a finished `FILE`).
    pub fn path(&self) -> &Path {
        &self.source
    }

    /// Whether the rows are those of a finished `FILE` (not an interrupted run's
    /// `FILE.partial`).
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The earlier rows' plain bytes: for compressed output those of its complete members (a
    /// torn last member is left out, and its rows are redone).
    pub fn rows(&self) -> Result<Box<dyn Read + Send>> {
        if self.readable == 0 {
            // No complete member (a run killed while writing its first): no rows to keep; a
            // decoder would call the empty stream a truncated one.
            return Ok(Box::new(std::io::empty()));
        }
        read_members(self.codec, &self.source, self.readable).map_err(|e| Error::Open {
            path: self.source.clone(),
            cause: e,
        })
    }

    /// Keeps the first `keep` plain bytes (the header and the rows kept, as
    /// [`ResultReader`](crate::io::results::ResultReader) gives them) and opens the output to
    /// append the rest. A finished file is moved back to `FILE.partial` only now.
    pub fn append(mut self, keep: u64) -> Result<Output> {
        let target = self.target.clone();
        let error = |e| write_error(&target, e);
        let mut file = if self.finished {
            // Lock the finished file too, then give it the in-progress name (replacing the
            // placeholder): both names stay locked throughout.
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .open(&self.target)
                .map_err(error)?;
            lock(&file, &self.target, &self.target)?;
            std::fs::rename(&self.target, &self.partial).map_err(error)?;
            file
        } else {
            self.lock.try_clone().map_err(error)?
        };
        self.appended = true;
        // Where to cut, and the plain bytes of a member cut in the middle, to re-seal.
        let (cut, reseal) = if self.codec.is_plain() {
            (keep, Vec::new())
        } else {
            let whole = self.members.partition_point(|m| m.plain_end <= keep);
            let cut = whole.checked_sub(1).map_or(0, |i| self.members[i].end);
            let mut reseal = Vec::new();
            if let Some(member) = self.members.get(whole).filter(|m| m.plain_start < keep) {
                let plain = member_bytes(self.codec, &mut file, member).map_err(error)?;
                reseal = plain[..(keep - member.plain_start) as usize].to_vec();
            }
            (cut, reseal)
        };
        file.set_len(cut).map_err(error)?;
        file.seek(SeekFrom::Start(0)).map_err(error)?;
        let crc = crc_of(&mut file).map_err(error)?;
        file.seek(SeekFrom::End(0)).map_err(error)?;
        let mut output = Output::new(
            Sink::File(file),
            self.codec,
            Some(target.clone()),
            target,
            false,
        );
        output.empty = cut == 0;
        output.crc = Some(crc);
        if !reseal.is_empty() {
            output.write_all(&reseal)?;
        }
        Ok(output)
    }
}

impl Drop for Earlier {
    /// A refused resume of a finished file removes only the placeholder it locked.
    fn drop(&mut self) {
        if self.finished && !self.appended {
            let _ = std::fs::remove_file(&self.partial);
        }
    }
}

/// The CRC-32 of `file`'s bytes from its current position to its end.
fn crc_of(file: &mut impl Read) -> io::Result<crc32fast::Hasher> {
    let mut crc = crc32fast::Hasher::new();
    let mut buf = vec![0; 1 << 20];
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Ok(crc),
            Ok(n) => crc.update(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// The CRC-32 of the file at `path`, as a finished run's sidecar records it.
#[cfg(feature = "cli")]
pub(crate) fn file_crc(path: &Path) -> io::Result<u32> {
    crc_of(&mut File::open(path)?).map(crc32fast::Hasher::finalize)
}

/// Removes the regular file at `path`, if there is one, so that an earlier run's output does
/// not pass for this run's when this one writes none (standard output, a device, FIFO or folder
/// is left alone).
#[cfg(feature = "cli")]
pub(crate) fn remove_stale(path: &Path) {
    if is_stdout(path) || is_direct(path) {
        return;
    }
    // Through symbolic links, as this run would have written it.
    let path = &through_links(path);
    // Never another run's locked in-progress file.
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
        && crate::io::targets::refuse_locked(path).is_ok()
    {
        let _ = std::fs::remove_file(path);
    }
}

/// Writes `value` as pretty JSON to `path` (every command's `--summary`), whole or not at all
/// (through `FILE.partial`, like every output file). A failure names `--summary`: it comes
/// after the run, when the message no longer sits beside the command line.
#[cfg(feature = "cli")]
pub(crate) fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<()> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| naming("--summary")(write_error(path, io::Error::other(e))))?;
    let options = OutputOptions {
        flag: Some("--summary"),
        ..OutputOptions::default()
    };
    let mut output = Output::create_with(Some(path), &options)?;
    output.write_all(text.as_bytes())?;
    output.write_all(b"\n")?;
    output.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resume_at(target: &Path, keep: u64) -> Output {
        take_for_resume(target, &OutputOptions::default())
            .unwrap()
            .unwrap()
            .append(keep)
            .unwrap()
    }

    #[test]
    fn append_cuts_a_torn_line_and_a_finished_file_is_taken_back() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        let partial = partial_path(&target);
        std::fs::write(&partial, "a,b\n1,\"x,\ny\"\n2,z\n3,to").unwrap();
        // Keep the header and the first row (the offset `ResultReader` gives after it).
        let mut out = resume_at(&target, 13);
        out.write_all(b"2,w\n").unwrap();
        out.finish().unwrap();
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            "a,b\n1,\"x,\ny\"\n2,w\n"
        );
        assert!(!partial.exists());
        // A finished file is read in place; refused (dropped), it stays as it was.
        let earlier = take_for_resume(&target, &OutputOptions::default())
            .unwrap()
            .unwrap();
        assert_eq!(earlier.path(), target);
        drop(earlier);
        assert!(!partial.exists() && target.exists());
        // Accepted, it becomes the in-progress file.
        let out = resume_at(&target, 4);
        assert!(partial.exists() && !target.exists());
        drop(out);
        std::fs::remove_file(&partial).unwrap();
        assert_eq!(
            take_for_resume(&target, &OutputOptions::default())
                .unwrap()
                .map(|e| e.path().to_path_buf()),
            None
        );
        assert!(!partial.exists());
    }

    #[test]
    fn a_compressed_partial_is_cut_after_the_rows_kept() {
        for (name, codec) in [("out.csv.gz", Codec::Gzip), ("out.csv.zst", Codec::Zstd)] {
            let dir = tempfile::tempdir().unwrap();
            let target = dir.path().join(name);
            let mut bytes = Vec::new();
            for part in ["a,b\n", "1,x\n2,y\n", "3,z\n"] {
                codec.encode_member(part.as_bytes(), &mut bytes);
            }
            let (earlier, text) = kept_rows(&target, &bytes[..bytes.len() - 3]);
            assert_eq!(text, "a,b\n1,x\n2,y\n", "{name}");
            // Keep the header and row 1: the second member is cut and re-sealed.
            let mut out = earlier.append(8).unwrap();
            out.write_all(b"2,w\n").unwrap();
            out.finish().unwrap();
            let mut text = String::new();
            crate::io::compress::read_members(
                codec,
                &target,
                std::fs::metadata(&target).unwrap().len(),
            )
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
            assert_eq!(text, "a,b\n1,x\n2,w\n", "{name}");
        }
    }

    #[test]
    fn a_compressed_partial_with_only_a_torn_first_member_keeps_no_rows() {
        for (name, codec) in [("out.csv.gz", Codec::Gzip), ("out.csv.zst", Codec::Zstd)] {
            let dir = tempfile::tempdir().unwrap();
            let target = dir.path().join(name);
            let mut bytes = Vec::new();
            codec.encode_member(b"a,b\n1,x\n", &mut bytes);
            for torn in [2, 5, bytes.len() - 1] {
                let (_, text) = kept_rows(&target, &bytes[..torn]);
                assert_eq!(text, "", "{name}, {torn} bytes");
            }
        }
    }

    /// Writes `partial` as the in-progress file of `target` and reads back what `--resume`
    /// keeps of it.
    fn kept_rows(target: &Path, partial: &[u8]) -> (Earlier, String) {
        std::fs::write(partial_path(target), partial).unwrap();
        let earlier = take_for_resume(target, &OutputOptions::default())
            .unwrap()
            .unwrap();
        let mut text = String::new();
        earlier.rows().unwrap().read_to_string(&mut text).unwrap();
        (earlier, text)
    }

    /// What must be written before the output takes its final name (its run's finished
    /// sidecar) sees the completed file's size and CRC-32; when it fails, the output stays in
    /// progress.
    #[test]
    fn a_failure_before_the_final_name_leaves_the_output_in_progress() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        let mut output = Output::create(Some(&target)).unwrap();
        output.write_all(b"rows\n").unwrap();
        let mut seen = None;
        let crc = output
            .finish_then(|crc, bytes| {
                seen = Some((crc, bytes));
                Ok(())
            })
            .unwrap();
        assert_eq!(seen, Some((crc, Some(5))));
        assert_eq!(crc, Some(crc32fast::hash(b"rows\n")));
        assert_eq!(std::fs::read(&target).unwrap(), b"rows\n");

        let mut output = Output::create(Some(&target)).unwrap();
        output.write_all(b"more rows\n").unwrap();
        let failed = output.finish_then(|_, _| Err(Error::Usage("no room".into())));
        assert_eq!(failed.err().unwrap().to_string(), "no room");
        assert_eq!(
            std::fs::read(partial_path(&target)).unwrap(),
            b"more rows\n"
        );
        assert_eq!(std::fs::read(&target).unwrap(), b"rows\n");
    }

    /// Another program's file at `FILE.partial` (renamed over it, or the name removed) is
    /// never put in place as this output, and a stopped run does not claim rows it lost.
    #[cfg(unix)]
    #[test]
    fn an_in_progress_file_replaced_or_removed_is_not_put_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        let foreign = dir.path().join("foreign");
        let mut output = Output::create(Some(&target)).unwrap();
        output.write_all(b"rows\n").unwrap();
        std::fs::write(&foreign, "someone else's\n").unwrap();
        std::fs::rename(&foreign, partial_path(&target)).unwrap();
        let error = output.finish().err().unwrap().to_string();
        assert!(error.contains("removed or replaced"), "{error}");
        assert!(!target.exists(), "the foreign file was put in place");
        assert_eq!(
            std::fs::read_to_string(partial_path(&target)).unwrap(),
            "someone else's\n"
        );
        std::fs::remove_file(partial_path(&target)).unwrap();

        let mut output = Output::create(Some(&target)).unwrap();
        output.write_all(b"rows\n").unwrap();
        std::fs::remove_file(partial_path(&target)).unwrap();
        let error = output.keep().err().unwrap().to_string();
        assert!(error.contains("removed or replaced"), "{error}");
    }

    /// A run's locked in-progress file is never another output's target, and a symbolic
    /// link at `FILE.partial` is never written through.
    #[cfg(unix)]
    #[test]
    fn a_locked_in_progress_file_or_a_planted_link_is_refused() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("run.csv");
        let running = Output::create(Some(&target)).unwrap();
        let error = Output::create(Some(&partial_path(&target)))
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("another run"), "{error}");
        assert!(error.contains("in-progress file"), "{error}");
        drop(running);

        let precious = dir.path().join("precious.txt");
        std::fs::write(&precious, "precious\n").unwrap();
        let other = dir.path().join("other.csv");
        std::os::unix::fs::symlink(&precious, partial_path(&other)).unwrap();
        let error = Output::create(Some(&other)).err().unwrap().to_string();
        assert!(error.contains("symbolic link"), "{error}");
        assert_eq!(std::fs::read_to_string(&precious).unwrap(), "precious\n");
        // Planted after the targets were checked: the open itself refuses it.
        let late = dir.path().join("late.csv");
        std::os::unix::fs::symlink(&precious, partial_path(&late)).unwrap();
        let error = open_locked(&partial_path(&late), &late)
            .unwrap_err()
            .to_string();
        assert!(error.contains("symbolic link"), "{error}");

        // A FIFO would take the rows and be renamed into place: refused up front, and by the
        // open (which does not wait on it) when planted after the check.
        let piped = dir.path().join("piped.csv");
        let fifo = partial_path(&piped);
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        for error in [
            Output::create(Some(&piped)).err().unwrap(),
            open_locked(&fifo, &piped).unwrap_err(),
        ] {
            let error = error.to_string();
            assert!(error.contains("not a regular file"), "{error}");
        }
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo());
    }

    #[test]
    fn a_second_writer_is_refused_and_a_failed_one_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.json");
        let first = Output::create(Some(&target)).unwrap();
        let second = Output::create(Some(&target)).err().unwrap().to_string();
        assert!(second.contains("another run"), "{second}");
        assert!(
            second.contains(&format!("pid {}", std::process::id())),
            "{second}"
        );
        drop(first);
        assert!(!partial_path(&target).exists());
        let folder = Output::create(Some(dir.path())).err().unwrap().to_string();
        assert!(folder.contains("is a folder"), "{folder}");
    }

    #[cfg(feature = "cli")]
    #[test]
    fn a_summary_that_cannot_be_written_says_it_is_the_summary() {
        let dir = tempfile::tempdir().unwrap();
        let nowhere = dir.path().join("missing").join("s.json");
        let message = write_json(&nowhere, &[1, 2]).unwrap_err().to_string();
        assert!(
            message.contains("s.json") && message.contains("--summary names it"),
            "{message}"
        );
        let there = dir.path().join("s.json");
        write_json(&there, &[1, 2]).unwrap();
        assert!(std::fs::read_to_string(&there).unwrap().ends_with("]\n"));
    }

    /// Refused by the checks before the open ("-o names it, but ...") or by the open itself
    /// ("the -o file: ..."), the message names the option.
    #[test]
    fn a_file_that_cannot_be_opened_names_the_option_that_gave_it() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("r.csv");
        let _held = Output::create(Some(&target)).unwrap();
        let mut cases = vec![
            (target.clone(), None, ["-o names it, but another run"; 2]),
            (
                target,
                Some("--report"),
                ["--report names it, but another run"; 2],
            ),
        ];
        // A folder where no file can be made: for root it passes the checks and the open
        // fails; for others the folder check refuses it.
        if cfg!(target_os = "linux") {
            let proc = PathBuf::from("/proc/x.csv");
            cases.push((proc.clone(), None, ["the -o file: ", "-o names it"]));
            cases.push((
                proc,
                Some("--report"),
                ["the --report file: ", "--report names it"],
            ));
        }
        for (path, flag, either) in cases {
            let options = OutputOptions {
                flag,
                ..OutputOptions::default()
            };
            let message = Output::create_with(Some(&path), &options)
                .err()
                .unwrap()
                .to_string();
            assert!(either.iter().any(|w| message.contains(w)), "{message}");
        }
    }
}
