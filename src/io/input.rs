//! Where input bytes come from: files or stdin, plain or compressed.
//!
//! Compression is recognised by magic bytes, never by file name, and decoded as a stream:
//! gzip (`1f 8b`, every member of a multi-member file), zstd (`28 b5 2f fd`, or a skippable
//! frame as `pzstd` writes first; every frame), and
//! zip (`PK\3\4`: the single file inside, or the member named as `FILE.zip:MEMBER`; stored or
//! deflated). The progress counter counts raw (compressed) bytes, so progress by bytes stays
//! right against the size on disk.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::{Error, Result};

/// Buffer size for input readers; also the longest first line format detection looks at.
pub const READ_BUFFER: usize = 256 * 1024;

/// Sees the raw bytes of one input as the run reads them (the compressed bytes of a compressed
/// file), so a caller can fingerprint the input without reading it a second time.
pub trait Tap: Send {
    /// The next bytes read, in order.
    fn read(&mut self, bytes: &[u8]);
    /// The input has ended, and [`read`](Tap::read) saw every byte of it: of a regular file as
    /// it was when opened (it neither shrank nor was replaced or rewritten meanwhile), of a
    /// pipe or a FIFO up to its end. Never called for a zip archive (only its member is read),
    /// nor for an input a stop request cut short.
    fn whole(&mut self);
}

/// A [`Tap`] shared by the reader (which feeds it) and its owner (which reads the result).
pub type SharedTap = Arc<Mutex<dyn Tap>>;

/// The read buffer for a regular file of `size` bytes: [`READ_BUFFER`], or less for a smaller
/// file. A buffer is zeroed when it is first filled: all 64 pages of a quarter-megabyte one,
/// which on a file of one puzzle was a quarter of the run's page faults.
fn buffer_for(size: u64) -> usize {
    // At most `READ_BUFFER` (a multiple of 4096) before rounding up, so nothing overflows.
    let bytes = size.min(READ_BUFFER as u64) as usize + 1;
    bytes.next_multiple_of(4096).min(READ_BUFFER)
}

/// The read buffer for a pipe or a FIFO: a read returns at most what the pipe holds, 64 KiB
/// unless its owner enlarged it, so a larger buffer would only be zeroed, never filled.
const PIPE_BUFFER: usize = 64 * 1024;

/// One input: a file path or standard input (`-`).
///
/// A path `ARCHIVE.zip:MEMBER` that does not exist as written, but whose part before the last
/// `.zip:` is a file, names a member of that zip archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Standard input.
    Stdin,
    /// A file on disk.
    File(PathBuf),
}

/// How an input's bytes are encoded, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain bytes.
    None,
    /// gzip, possibly several members.
    Gzip,
    /// zstd, possibly several frames.
    Zstd,
    /// A zip archive.
    Zip,
}

impl Compression {
    /// Recognises the magic bytes at the start of an input.
    pub fn detect(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
            // A skippable frame (`5?` `2a 4d 18`), which `pzstd` writes first.
            || (head.len() >= 4 && head[0] & 0xf0 == 0x50 && head[1..4] == [0x2a, 0x4d, 0x18])
        {
            Compression::Zstd
        } else if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
            Compression::Zip
        } else {
            Compression::None
        }
    }
}

/// The compressions recognised only to be refused with a clear message (their bytes would
/// otherwise be read as text and give a bad row per line): the name and a command that
/// decompresses it.
fn unsupported_compression(head: &[u8]) -> Option<(&'static str, &'static str)> {
    const KNOWN: [(&[u8], &str, &str); 4] = [
        (&[0xfd, 0x37, 0x7a, 0x58], "xz", "xz -dc FILE"),
        (b"BZh", "bzip2", "bzip2 -dc FILE"),
        (&[0x04, 0x22, 0x4d, 0x18], "lz4", "lz4 -dc FILE"),
        (&[0x37, 0x7a, 0xbc, 0xaf], "7z", "7z x -so FILE"),
    ];
    let bzip2_level = |h: &[u8]| h.get(3).is_some_and(|b| (b'1'..=b'9').contains(b));
    KNOWN
        .iter()
        .find(|(magic, name, _)| head.starts_with(magic) && (*name != "bzip2" || bzip2_level(head)))
        .map(|&(_, name, tool)| (name, tool))
}

/// A file on disk and the zip member named in its path, if any.
type OnDisk = (PathBuf, Option<String>);

/// Splits `ARCHIVE.zip:MEMBER` when the whole path is not a file but the archive is.
pub(crate) fn zip_member(path: &Path) -> Option<(PathBuf, String)> {
    if path.exists() {
        return None;
    }
    let (archive, member) = split_zip_name(path.to_str()?)?;
    let archive = PathBuf::from(archive);
    archive.is_file().then(|| (archive, member.to_string()))
}

/// The archive and member of a name `ARCHIVE.zip:MEMBER` (the last `.zip:`, in any case; the
/// member not empty), by its text alone: whether it names them on disk is [`zip_member`]'s.
pub(crate) fn split_zip_name(text: &str) -> Option<(&str, &str)> {
    // ASCII lowercasing keeps every byte where it was.
    let cut = text.to_ascii_lowercase().rfind(".zip:")? + 4;
    let (archive, member) = (&text[..cut], &text[cut + 1..]);
    (!member.is_empty()).then_some((archive, member))
}

/// The member a zip input reads: the one its path names (`ARCHIVE.zip:MEMBER`), or, for a
/// whole archive, the one [`choose_member`] takes. `None` for any other input, and for an
/// archive whose member cannot be told (reading it is refused then).
#[cfg(feature = "cli")]
pub(crate) fn zip_member_read(path: &Path) -> Option<String> {
    if let Some((_, member)) = zip_member(path) {
        return Some(member);
    }
    if !is_zip_file(path) {
        return None;
    }
    let archive = zip::ZipArchive::new(BufReader::new(File::open(path).ok()?)).ok()?;
    choose_member(&zip_files(&archive), None, path).ok()
}

/// Whether `path` is a regular file that opens as a zip archive does (its magic bytes, as the
/// reader tells). Nothing else is opened: a FIFO would wait for its writer.
#[cfg(feature = "cli")]
pub(crate) fn is_zip_file(path: &Path) -> bool {
    let mut head = [0u8; 4];
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && File::open(path)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok()
        && Compression::detect(&head) == Compression::Zip
}

impl Input {
    /// `-` means standard input; anything else is a path.
    pub fn from_arg(arg: &Path) -> Input {
        if arg.as_os_str() == "-" {
            Input::Stdin
        } else {
            Input::File(arg.to_path_buf())
        }
    }

    /// The name used in messages and the `file` column (`-` for stdin): the path as given, a
    /// name that is not UTF-8 escaped visibly ([`escape_name`]), so two names never become one.
    pub fn display_name(&self) -> String {
        match self {
            Input::Stdin => "-".to_string(),
            Input::File(path) => escape_name(path.as_os_str()),
        }
    }

    /// The bytes of a file name that is not UTF-8, in hex (for the run sidecar, which records
    /// it losslessly); `None` for a UTF-8 name and stdin.
    pub fn name_hex(&self) -> Option<String> {
        match self {
            Input::Stdin => None,
            Input::File(path) => {
                let bytes = path.as_os_str().as_encoded_bytes();
                std::str::from_utf8(bytes)
                    .is_err()
                    .then(|| bytes.iter().map(|b| format!("{b:02x}")).collect())
            }
        }
    }

    /// The path used in error values.
    pub fn path(&self) -> PathBuf {
        match self {
            Input::Stdin => PathBuf::from("-"),
            Input::File(path) => path.clone(),
        }
    }

    /// The file on disk (the archive for `ARCHIVE.zip:MEMBER`) and the zip member, if named.
    fn on_disk(path: &Path) -> OnDisk {
        match zip_member(path) {
            Some((archive, member)) => (archive, Some(member)),
            None => (path.to_path_buf(), None),
        }
    }

    /// The size in bytes on disk when known (regular files), for progress by bytes.
    pub fn size(&self) -> Option<u64> {
        match self {
            Input::Stdin => None,
            Input::File(path) => std::fs::metadata(Input::on_disk(path).0)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len()),
        }
    }

    /// Checks that the input can be opened, so a run fails before it starts, naming the file.
    ///
    /// Only a regular file is opened to check it. A FIFO, a pipe (`<(cmd)`, `/dev/fd/N`,
    /// `/dev/stdin`) or a device is only looked up: opening one and closing it unread would
    /// leave its writer with no reader (killed by `SIGPIPE`, or blocked for good), and its data
    /// can be read only once, by [`Input::open`].
    pub fn check(&self) -> Result<()> {
        match self {
            Input::Stdin => Ok(()),
            Input::File(path) => {
                let (disk, _) = Input::on_disk(path);
                let open_error = |cause| Error::Open {
                    path: path.clone(),
                    cause,
                };
                let meta = std::fs::metadata(&disk).map_err(open_error)?;
                if meta.is_dir() {
                    return Err(open_error(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "is a directory",
                    )));
                }
                if !meta.is_file() {
                    return Ok(());
                }
                File::open(&disk).map(drop).map_err(open_error)
            }
        }
    }

    /// Opens the input as a buffered, decompressed byte stream; `counter` is advanced by every
    /// raw (compressed) byte read.
    pub fn open(&self, counter: Arc<AtomicU64>) -> Result<Box<dyn BufRead + Send>> {
        self.open_snapshot(counter, None).map(|(stream, _)| stream)
    }

    /// [`open`](Input::open), and for a regular file what it was when opened ([`Snapshot`]):
    /// the stream then ends at the size recorded, so a file that grows while it is read is read
    /// as it was, and [`Snapshot::changed`] at its end tells whether it shrank or was replaced.
    /// `tap`, when given, sees every raw byte read of an input that is not a zip archive; a
    /// regular file's snapshot holds it, for [`Snapshot::end`] to tell it the file was read
    /// whole (a pipe's or a FIFO's is told when its stream ends).
    pub fn open_snapshot(
        &self,
        counter: Arc<AtomicU64>,
        tap: Option<SharedTap>,
    ) -> Result<(Box<dyn BufRead + Send>, Option<Snapshot>)> {
        let path = self.path();
        let open_error = |source| Error::Open {
            path: path.clone(),
            cause: source,
        };
        // A FIFO or a pipe is opened here once and read once: nothing before this opened it,
        // and a zip archive (which would need a second open and seeking) is refused on one.
        let mut seekable = false;
        let mut snapshot = None;
        let (raw, file): (Box<dyn Read + Send>, Option<OnDisk>) = match self {
            Input::Stdin => {
                let (raw, taken) = stdin_stream(&counter).map_err(open_error)?;
                snapshot = taken;
                (raw, None)
            }
            Input::File(path) => {
                let (disk, member) = Input::on_disk(path);
                let file = open_for_reading(&disk).map_err(open_error)?;
                let meta = file.metadata().ok().filter(|m| m.is_file());
                seekable = meta.is_some();
                let raw: Box<dyn Read + Send> = match &meta {
                    Some(meta) => {
                        let source = Source::Path(disk.clone());
                        let taken = Snapshot::of(source, meta, member.is_some(), &counter);
                        let size = taken.size;
                        snapshot = Some(taken);
                        // Read as recorded: bytes appended while the run reads are not read.
                        Box::new(file.take(size))
                    }
                    None => waiting(file),
                };
                (raw, Some((disk, member)))
            }
        };
        let mut head = Vec::with_capacity(4);
        let mut raw = raw;
        read_prefix(&mut raw, &mut head, 4).map_err(open_error)?;
        let compression = Compression::detect(&head);
        if let Some((name, tool)) = unsupported_compression(&head) {
            return Err(Error::Input {
                path,
                message: format!(
                    "{name}-compressed input, which is not read (gzip, zstd and zip are); \
                     decompress it first, for example `{tool} | sudoku-batch solve -`"
                ),
            });
        }
        if let Some((disk, Some(member))) = &file {
            if compression != Compression::Zip {
                return Err(Error::Input {
                    path,
                    message: format!("{} is not a zip archive", disk.display()),
                });
            }
            return open_zip(&path, disk, Some(member), counter).map(|s| (s, snapshot));
        }
        if compression == Compression::Zip {
            if let Some(taken) = snapshot.as_mut() {
                taken.zip = true;
            }
            return match &file {
                Some((disk, None)) if seekable => {
                    open_zip(&path, disk, None, counter).map(|s| (s, snapshot))
                }
                _ => Err(Error::Input {
                    path,
                    message: "a zip archive cannot be read from standard input or a pipe (zip \
                              needs random access); give the file name, or unpack it with \
                              `unzip -p`"
                        .into(),
                }),
            };
        }
        let stream = counted_stream(compression, head, raw, counter, tap, snapshot.as_mut());
        Ok((stream, snapshot))
    }
}

/// The decoded stream of an input whose first bytes `head` were read from `raw`: every raw
/// byte counted in `counter`, seen by `tap` and, for a regular file, by its `snapshot`'s CRC-32.
/// A regular file's tap learns at the snapshot's end check that it saw all of it (standard
/// input's from where the run found its offset); a pipe's or a FIFO's when its stream ends.
fn counted_stream(
    compression: Compression,
    head: Vec<u8>,
    raw: Box<dyn Read + Send>,
    counter: Arc<AtomicU64>,
    tap: Option<SharedTap>,
    snapshot: Option<&mut Snapshot>,
) -> Box<dyn BufRead + Send> {
    let (mut crc, mut capacity, mut whole_at_end) = (None, PIPE_BUFFER, tap.is_some());
    if let Some(taken) = snapshot {
        taken.tap.clone_from(&tap);
        crc = Some(taken.crc.clone());
        capacity = buffer_for(taken.size - taken.start);
        whole_at_end = false;
    }
    let counted = CountingReader {
        inner: io::Cursor::new(head).chain(raw),
        counter,
        tap,
        whole_at_end,
        crc,
    };
    decode(
        compression,
        Box::new(BufReader::with_capacity(capacity, counted)),
    )
}

/// Where a [`Snapshot`]'s file is looked at again at the end.
#[derive(Debug, Clone)]
enum Source {
    /// A named file, by its path on disk.
    Path(PathBuf),
    /// Standard input on a regular file, by a descriptor of its own.
    #[cfg_attr(not(unix), allow(dead_code))]
    Stdin(Arc<File>),
}

/// A regular input file as it was when opened: its size, modification time and inode, and the
/// progress counter's value then (every raw byte read from it is counted).
#[derive(Debug, Clone)]
pub struct Snapshot {
    source: Source,
    size: u64,
    /// Where reading starts: 0, or standard input's offset when the run started.
    start: u64,
    /// The CRC-32 of the bytes read, to tell a file that was only appended to (those bytes
    /// as they were) from one rewritten while it was read.
    crc: Arc<Mutex<crc32fast::Hasher>>,
    modified: Option<std::time::SystemTime>,
    /// Its status change time (`ctime`), where the platform has one.
    status_changed: Option<(i64, i64)>,
    inode: Option<(u64, u64)>,
    counted_at_open: u64,
    /// A zip archive: only its member's bytes are read, so the count is not compared.
    zip: bool,
    /// What saw the file's bytes as they were read, told at the end whether they were all of it.
    tap: Option<SharedTap>,
}

impl std::fmt::Debug for dyn Tap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tap")
    }
}

impl Snapshot {
    fn of(source: Source, meta: &std::fs::Metadata, zip: bool, counter: &AtomicU64) -> Snapshot {
        Snapshot {
            source,
            size: meta.len(),
            start: 0,
            crc: Arc::default(),
            modified: meta.modified().ok(),
            status_changed: status_changed(meta),
            inode: inode_of(meta),
            counted_at_open: counter.load(Ordering::Relaxed),
            zip,
            tap: None,
        }
    }

    /// At the end of the input (`counter` as the stream ended): [`changed`](Snapshot::changed),
    /// and when nothing changed, the tap learns that it saw the whole file.
    pub fn end(&self, counter: &AtomicU64) -> Option<String> {
        if super::raw::stop_requested() {
            // A stop request ended the reading inside a record (`raw::set_stop_flag`): the
            // file was not read to its end, which says nothing about its size.
            return None;
        }
        let why = self.changed(counter);
        if let (None, Some(tap), false) = (&why, &self.tap, self.zip) {
            tap.lock().unwrap_or_else(PoisonError::into_inner).whole();
        }
        why
    }

    /// The CRC-32 of the bytes read.
    fn read_crc(&self) -> u32 {
        (self.crc.lock().unwrap_or_else(PoisonError::into_inner))
            .clone()
            .finalize()
    }

    /// Whether the bytes read differ from those on disk now, read again: a file that cannot be
    /// read again differs; a stop request while it is read leaves the question open (false).
    fn read_bytes_differ(&self) -> bool {
        match self.crc_now() {
            Ok(Some(now)) => now != self.read_crc(),
            Ok(None) => false,
            Err(_) => true,
        }
    }

    /// The file's metadata now.
    fn now(&self) -> Option<std::fs::Metadata> {
        match &self.source {
            Source::Path(disk) => std::fs::metadata(disk).ok(),
            Source::Stdin(file) => file.metadata().ok(),
        }
    }

    /// The CRC-32 of the bytes `start..size` of the file as it is now; `None` when a stop
    /// request came while they were read.
    fn crc_now(&self) -> io::Result<Option<u32>> {
        let file = match &self.source {
            Source::Path(disk) => File::open(disk)?,
            Source::Stdin(file) => file.try_clone()?,
        };
        let mut hasher = crc32fast::Hasher::new();
        let (mut at, end) = (self.start, self.size);
        let mut buf = vec![0u8; READ_BUFFER];
        while at < end {
            if super::raw::stop_requested() {
                return Ok(None);
            }
            let want = (end - at).min(buf.len() as u64) as usize;
            let n = read_at(&file, &mut buf[..want], at)?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
            at += n as u64;
        }
        Ok(Some(hasher.finalize()))
    }

    /// At the end of the input (`counter` as the stream ended): why it is not what was opened,
    /// or `None`. A file that shrank (fewer bytes read than it had, or fewer on disk now), was
    /// replaced (another inode at its name) or rewritten in place (same size, other modification
    /// time; or larger, and the bytes read are not those on disk now) is named with its sizes;
    /// one that was only appended to is not (it was read as it was).
    pub fn changed(&self, counter: &AtomicU64) -> Option<String> {
        let read = counter
            .load(Ordering::Relaxed)
            .saturating_sub(self.counted_at_open);
        let now = self.now();
        let now_size = now.as_ref().map(|m| m.len());
        let sizes = |now: Option<u64>| {
            format!(
                "{} bytes when the run opened it, {} now",
                self.size,
                now.map_or("gone".to_string(), |n| format!("{n} bytes"))
            )
        };
        if !self.zip && read < self.size - self.start {
            return Some(format!(
                "it shrank while it was read: {}, and {read} bytes read",
                sizes(now_size)
            ));
        }
        let Some(now) = now else {
            return Some(format!("it was removed while it was read: {}", sizes(None)));
        };
        if self.inode.is_some() && inode_of(&now) != self.inode {
            return Some(format!(
                "it was replaced by another file while it was read: {}",
                sizes(now_size)
            ));
        }
        if now.len() < self.size {
            return Some(format!("it shrank while it was read: {}", sizes(now_size)));
        }
        // Written to since it was opened: its modification time, or its status change time
        // (which a program that puts the modification time back cannot set back).
        let touched = (self.modified.is_some() && now.modified().ok() != self.modified)
            || status_changed(&now) != self.status_changed;
        if now.len() == self.size && touched && self.zip {
            return Some(format!(
                "it was rewritten while it was read (same size, {} bytes, another modification \
                 time)",
                self.size
            ));
        }
        if now.len() == self.size && touched {
            // Touched or rewritten: the bytes read must be those on disk now.
            if self.read_bytes_differ() {
                return Some(format!(
                    "it was rewritten while it was read (same size, {} bytes, other content)",
                    self.size
                ));
            }
        }
        if now.len() > self.size && !self.zip {
            // Larger: appended to, or rewritten with more bytes (whatever its modification
            // time says: a copy may keep the old one). The bytes read must be those on disk
            // now, read again to tell.
            if self.read_bytes_differ() {
                return Some(format!(
                    "it was rewritten while it was read: {}, and the {} bytes read are not those \
                     on disk now",
                    sizes(Some(now.len())),
                    self.size - self.start
                ));
            }
        }
        None
    }
}

/// Reads into `buf` from byte `at` of `file`, without moving its offset.
#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    loop {
        match file.read_at(buf, at) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

/// Reads into `buf` from byte `at` of `file` (a file of its own, whose offset may move).
#[cfg(not(unix))]
fn read_at(mut file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    file.seek(SeekFrom::Start(at))?;
    file.read(buf)
}

/// The file's status change time (seconds, nanoseconds): set by every write, and not by a
/// program, unlike the modification time. `None` where the platform has none.
#[cfg(unix)]
fn status_changed(meta: &std::fs::Metadata) -> Option<(i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.ctime(), meta.ctime_nsec()))
}

/// The file's status change time: none on this platform.
#[cfg(not(unix))]
fn status_changed(_: &std::fs::Metadata) -> Option<(i64, i64)> {
    None
}

/// The file's (device, inode) pair, which names it however the path is spelled; `None` where
/// the platform has none.
#[cfg(unix)]
pub(crate) fn inode_of(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

/// The file's (device, inode) pair: none on this platform.
#[cfg(not(unix))]
pub(crate) fn inode_of(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// A file name as text: a UTF-8 name as it is; in a name that is not UTF-8, each byte that is
/// not part of a UTF-8 character becomes `\xNN` and a backslash `\\`, so distinct names stay
/// distinct (`a\xFF.txt`, `a\xFE.txt`) where a lossy conversion makes both `a\u{fffd}.txt`.
/// A UTF-8 name that holds `\x` itself is escaped too (its backslashes doubled): every escaped
/// name holds `\x` and no name written as it is does, so two names never become one.
pub fn escape_name(name: &std::ffi::OsStr) -> String {
    let bytes = name.as_encoded_bytes();
    if let Ok(text) = std::str::from_utf8(bytes) {
        if !text.contains("\\x") {
            return text.to_string();
        }
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
        for byte in chunk.invalid() {
            out += &format!("\\x{byte:02X}");
        }
    }
    out
}

/// Reads until `buf` holds `want` bytes or the input ends.
fn read_prefix(raw: &mut dyn Read, buf: &mut Vec<u8>, want: usize) -> io::Result<()> {
    let mut chunk = [0u8; 16];
    while buf.len() < want {
        match raw.read(&mut chunk[..want - buf.len()]) {
            Ok(0) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Wraps a raw buffered stream in the decoder for `compression` (zip is handled by the caller).
fn decode(compression: Compression, raw: Box<dyn BufRead + Send>) -> Box<dyn BufRead + Send> {
    match compression {
        Compression::Gzip => Box::new(BufReader::with_capacity(
            READ_BUFFER,
            super::compress::GzipMembers::new(raw),
        )),
        Compression::Zstd => match zstd::stream::read::Decoder::with_buffer(raw) {
            Ok(decoder) => Box::new(BufReader::with_capacity(READ_BUFFER, decoder)),
            // Creating the decoder only fails on allocation; report it as a read error.
            Err(e) => Box::new(FailingReader(Some(e))),
        },
        Compression::None | Compression::Zip => raw,
    }
}

/// Decodes bytes that are already in memory exactly as a file would be (gzip and zstd
/// recognised; zip is not, since it needs a file); for tests and fuzzing.
pub fn decode_bytes(bytes: Vec<u8>) -> Box<dyn BufRead + Send> {
    let compression = Compression::detect(&bytes);
    let raw: Box<dyn BufRead + Send> = Box::new(io::Cursor::new(bytes));
    match compression {
        Compression::Zip => Box::new(FailingReader(Some(io::Error::other(
            "zip archives are only read from files",
        )))),
        other => decode(other, raw),
    }
}

/// A stream whose first read fails with a stored error.
struct FailingReader(Option<io::Error>);

impl Read for FailingReader {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        match self.0.take() {
            Some(e) => Err(e),
            None => Ok(0),
        }
    }
}

impl BufRead for FailingReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self.0.take() {
            Some(e) => Err(e),
            None => Ok(&[]),
        }
    }
    fn consume(&mut self, _: usize) {}
}

/// Members of a zip archive that hold data (not directories).
fn zip_files<R: Read + Seek>(archive: &zip::ZipArchive<R>) -> Vec<String> {
    archive
        .file_names()
        .filter(|name| !name.ends_with('/'))
        .map(str::to_string)
        .collect()
}

/// Opens one member of a zip archive as a stream: the named one, or else the only file (or the
/// only `.csv`/`.txt` file) inside. Stored and deflated members are supported; the CRC-32 and
/// size are checked at the end of the member.
fn open_zip(
    shown: &Path,
    disk: &Path,
    member: Option<&str>,
    counter: Arc<AtomicU64>,
) -> Result<Box<dyn BufRead + Send>> {
    let input_error = |message: String| Error::Input {
        path: shown.to_path_buf(),
        message,
    };
    let file = File::open(disk).map_err(|source| Error::Open {
        path: shown.to_path_buf(),
        cause: source,
    })?;
    let mut archive = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| {
        let hint = match e {
            zip::result::ZipError::InvalidArchive(_) => {
                " (its directory at the end is missing or damaged: a truncated or broken file?)"
            }
            _ => "",
        };
        input_error(format!("unreadable zip archive: {e}{hint}"))
    })?;
    let name = choose_member(&zip_files(&archive), member, disk).map_err(input_error)?;
    let entry = ZipEntry::of(&mut archive, &name).map_err(input_error)?;
    let mut file = archive.into_inner().into_inner();
    entry.seek_to_data(&mut file, shown)?;
    let raw = BufReader::with_capacity(
        READ_BUFFER,
        CountingReader {
            inner: file.take(entry.compressed),
            counter,
            tap: None,
            whole_at_end: false,
            crc: None,
        },
    );
    let data: Box<dyn Read + Send> = match entry.method {
        zip::CompressionMethod::Stored => Box::new(raw),
        zip::CompressionMethod::Deflated => Box::new(flate2::bufread::DeflateDecoder::new(raw)),
        other => {
            return Err(input_error(format!(
                "zip member {name:?} uses {other}, not supported (only stored and deflated)"
            )))
        }
    };
    let mut member: Box<dyn BufRead + Send> = Box::new(BufReader::with_capacity(
        READ_BUFFER,
        CrcCheck {
            inner: data,
            crc: flate2::Crc::new(),
            expected_crc: entry.crc,
            expected_size: entry.size,
        },
    ));
    // The member is told by its first bytes as a file is: a gzip or zstd file zipped as it was
    // is decoded, and what is not read is refused rather than read as text.
    let head = member.fill_buf().map_err(|cause| Error::Read {
        path: shown.to_path_buf(),
        cause,
    })?;
    let compression = Compression::detect(head);
    if let Some((kind, _)) = unsupported_compression(head) {
        return Err(input_error(format!(
            "zip member {name:?} is {kind}-compressed, which is not read (gzip, zstd and zip are)"
        )));
    }
    if compression == Compression::Zip {
        return Err(input_error(format!(
            "zip member {name:?} is itself a zip archive; unpack it first"
        )));
    }
    Ok(decode(compression, member))
}

/// The member of a zip archive holding `files` to read: `member` when named, else the only
/// file, else the only `.csv`/`.txt` file. The error says what the archive holds.
fn choose_member(
    files: &[String],
    member: Option<&str>,
    disk: &Path,
) -> std::result::Result<String, String> {
    let listing = || {
        let mut names: Vec<&str> = files.iter().map(String::as_str).take(10).collect();
        if files.len() > 10 {
            names.push("...");
        }
        names.join(", ")
    };
    if let Some(wanted) = member {
        return files
            .iter()
            .find(|n| n.as_str() == wanted)
            .cloned()
            .ok_or_else(|| {
                format!(
                    "no member {wanted:?} in the zip archive (it holds: {})",
                    listing()
                )
            });
    }
    let data: Vec<String> = files
        .iter()
        .filter(|n| {
            let lower = n.to_ascii_lowercase();
            lower.ends_with(".csv") || lower.ends_with(".txt")
        })
        .cloned()
        .collect();
    match (files, data.as_slice()) {
        ([only], _) | (_, [only]) => Ok(only.clone()),
        ([], _) => Err("the zip archive holds no files".into()),
        _ => Err(format!(
            "the zip archive holds several files ({}); name one as {}:MEMBER",
            listing(),
            disk.display()
        )),
    }
}

/// Where a zip member's data is and how to check it, from the central directory.
struct ZipEntry {
    name: String,
    method: zip::CompressionMethod,
    header_start: u64,
    compressed: u64,
    size: u64,
    crc: u32,
}

impl ZipEntry {
    /// The entry of member `name`; an error message when it is missing or encrypted.
    fn of<R: Read + Seek>(
        archive: &mut zip::ZipArchive<R>,
        name: &str,
    ) -> std::result::Result<ZipEntry, String> {
        let entry = archive
            .by_name(name)
            .map_err(|e| format!("zip member {name:?}: {e}"))?;
        if entry.encrypted() {
            return Err(format!("zip member {name:?} is encrypted"));
        }
        Ok(ZipEntry {
            name: name.to_string(),
            method: entry.compression(),
            header_start: entry.header_start(),
            compressed: entry.compressed_size(),
            size: entry.size(),
            crc: entry.crc32(),
        })
    }

    /// Moves `file` (the archive `shown`) to the member's first data byte, past its local
    /// header: 30 fixed bytes, then the name and the extra field.
    fn seek_to_data(&self, file: &mut File, shown: &Path) -> Result<()> {
        let read_error = |source| Error::Read {
            path: shown.to_path_buf(),
            cause: source,
        };
        let mut local = [0u8; 30];
        file.seek(SeekFrom::Start(self.header_start))
            .and_then(|_| file.read_exact(&mut local))
            .map_err(read_error)?;
        if local[..4] != *b"PK\x03\x04" {
            return Err(Error::Input {
                path: shown.to_path_buf(),
                message: format!("zip member {:?}: bad local header", self.name),
            });
        }
        let skip = u64::from(u16::from_le_bytes([local[26], local[27]]))
            + u64::from(u16::from_le_bytes([local[28], local[29]]));
        file.seek(SeekFrom::Start(self.header_start + 30 + skip))
            .map_err(read_error)?;
        Ok(())
    }
}

/// Checks a zip member's CRC-32 and size when its data ends.
struct CrcCheck<R> {
    inner: R,
    crc: flate2::Crc,
    expected_crc: u32,
    expected_size: u64,
}

impl<R: Read> Read for CrcCheck<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            let (sum, len) = (self.crc.sum(), u64::from(self.crc.amount()));
            // `amount` is 32 bits: compare sizes modulo 2^32.
            if sum != self.expected_crc || len != self.expected_size & 0xffff_ffff {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "zip member is corrupt (CRC-32 or size mismatch)",
                ));
            }
        }
        self.crc.update(&buf[..n]);
        Ok(n)
    }
}

/// Standard input, read as [`waiting`] reads a pipe, and its size when it is a regular file (`< FILE`),
/// so the read buffer fits it ([`buffer_for`]).
/// Standard input as a stream, and when it is a regular file (`< FILE`) what that file was
/// when opened: read up to its size then (as a named file is), from where its offset stood.
fn stdin_stream(counter: &AtomicU64) -> io::Result<(Box<dyn Read + Send>, Option<Snapshot>)> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        // Its own descriptor, read directly (not through `Stdin`'s buffer, which `poll` cannot
        // see into).
        let mut file = File::from(io::stdin().as_fd().try_clone_to_owned()?);
        let meta = file.metadata().ok().filter(|m| m.is_file());
        let Some(meta) = meta else {
            return Ok((waiting(file), None));
        };
        // The shell (or a command before this one) may have read part of it already.
        let start = file.stream_position().unwrap_or(0);
        let handle = Arc::new(file.try_clone()?);
        let mut taken = Snapshot::of(Source::Stdin(handle), &meta, false, counter);
        taken.start = start.min(taken.size);
        let left = taken.size - taken.start;
        Ok((Box::new(file.take(left)), Some(taken)))
    }
    #[cfg(not(unix))]
    {
        let _ = counter;
        Ok((Box::new(io::stdin()), None))
    }
}

/// Opens `disk` to read it. A FIFO is opened without waiting for a writer: a plain `open`
/// blocks until one comes, where no stop request can reach it (a run told to stop would hang
/// until killed). Its reads then block again, and [`waiting`] waits for its first bytes as for
/// any pipe: until a writer sends some or comes and goes, or a stop is requested.
fn open_for_reading(disk: &Path) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        if std::fs::metadata(disk).is_ok_and(|m| m.file_type().is_fifo()) {
            let file = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(disk)?;
            return blocking(file);
        }
    }
    File::open(disk)
}

/// `file`, opened with `O_NONBLOCK` so that opening a FIFO did not wait, with blocking reads
/// and writes again.
#[cfg(unix)]
pub(super) fn blocking(file: File) -> io::Result<File> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is the open descriptor `file` owns; F_GETFL and F_SETFL only read and set
    // its status flags.
    let cleared = unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) >= 0
    };
    match cleared {
        true => Ok(file),
        false => Err(io::Error::last_os_error()),
    }
}

/// How long a read from a pipe waits for bytes before it looks at the stop flag again.
#[cfg(unix)]
const STOP_POLL_MS: i32 = 100;

/// An input that is not a regular file (standard input, a pipe, a FIFO, a device): a read may
/// wait on its writer without end, so on unix each read first waits for bytes in slices of
/// [`STOP_POLL_MS`], and a stop request (`raw::set_stop_flag`) while it waits ends the input
/// there. The reader then drops the record it was in, as at a stop while skipping, and a run
/// stops within a tenth of a second even when the writer sends nothing (a signal sent to this
/// process only: a scheduler's, or `kill`).
fn waiting(file: File) -> Box<dyn Read + Send> {
    #[cfg(unix)]
    {
        Box::new(Waiting(file))
    }
    #[cfg(not(unix))]
    {
        Box::new(file)
    }
}

/// See [`waiting`].
#[cfg(unix)]
struct Waiting(File);

#[cfg(unix)]
impl Read for Waiting {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use std::os::fd::AsRawFd;
        let mut wanted = libc::pollfd {
            fd: self.0.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        loop {
            // Looked at before each wait, so an input read again after the stop (the reader
            // finishing its record) ends at once rather than a slice later.
            if super::raw::stop_requested() {
                return Ok(0);
            }
            // SAFETY: `wanted` is one valid `pollfd` that outlives the call, and the count is 1.
            let ready = unsafe { libc::poll(&mut wanted, 1, STOP_POLL_MS) };
            // Bytes, the end of the input, or an error (the read reports it); a signal that
            // cut the wait short (EINTR) is one more turn.
            if ready > 0
                || (ready < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted)
            {
                break;
            }
        }
        self.0.read(buf)
    }
}

/// Counts the bytes read through it, for progress reporting.
struct CountingReader<R> {
    inner: R,
    counter: Arc<AtomicU64>,
    /// Sees the bytes too.
    tap: Option<SharedTap>,
    /// The tap is told it saw the whole input when the stream ends (a pipe or a FIFO, which no
    /// [`Snapshot`] checks), unless a stop request ended it.
    whole_at_end: bool,
    /// The CRC-32 of the bytes, for a regular file's [`Snapshot`].
    crc: Option<Arc<Mutex<crc32fast::Hasher>>>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counter.fetch_add(n as u64, Ordering::Relaxed);
        if let Some(tap) = &self.tap {
            let mut tap = tap.lock().unwrap_or_else(PoisonError::into_inner);
            tap.read(&buf[..n]);
            if n == 0 && !buf.is_empty() && self.whole_at_end {
                self.whole_at_end = false;
                if !super::raw::stop_requested() {
                    tap.whole();
                }
            }
        }
        if let Some(crc) = &self.crc {
            crc.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .update(&buf[..n]);
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &[u8] = b"line one\nline two\n";

    #[test]
    fn a_small_file_gets_a_small_read_buffer() {
        assert_eq!(buffer_for(0), 4096);
        assert_eq!(buffer_for(82), 4096);
        assert_eq!(buffer_for(4095), 4096);
        assert_eq!(buffer_for(4096), 8192);
        assert_eq!(buffer_for(100_000), 102_400);
        assert_eq!(buffer_for(u64::MAX), READ_BUFFER);
    }

    fn read_all(input: &Input) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        input
            .open(Arc::default())?
            .read_to_end(&mut out)
            .map_err(|source| Error::Read {
                path: input.path(),
                cause: source,
            })?;
        Ok(out)
    }

    #[test]
    fn detects_magic() {
        assert_eq!(Compression::detect(&[0x1f, 0x8b, 8]), Compression::Gzip);
        assert_eq!(
            Compression::detect(&[0x28, 0xb5, 0x2f, 0xfd]),
            Compression::Zstd
        );
        assert_eq!(
            Compression::detect(&[0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0]),
            Compression::Zstd
        );
        assert_eq!(
            Compression::detect(&[0x50, 0x2a, 0x4d, 0x19]),
            Compression::None
        );
        assert_eq!(
            unsupported_compression(&[0xfd, 0x37, 0x7a, 0x58]).map(|u| u.0),
            Some("xz")
        );
        assert_eq!(unsupported_compression(b"BZh9").map(|u| u.0), Some("bzip2"));
        assert_eq!(unsupported_compression(b"BZh."), None);
        assert_eq!(unsupported_compression(b"1..."), None);
        assert_eq!(Compression::detect(b"PK\x03\x04"), Compression::Zip);
        assert_eq!(Compression::detect(b"PK"), Compression::None);
        assert_eq!(Compression::detect(b""), Compression::None);
    }

    #[test]
    fn gzip_members_and_zstd_frames_all_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut gz = Vec::new();
        for half in [&TEXT[..9], &TEXT[9..]] {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(half).unwrap();
            gz.extend(enc.finish().unwrap());
        }
        let mut zst = zstd::encode_all(&TEXT[..9], 1).unwrap();
        zst.extend(zstd::encode_all(&TEXT[9..], 1).unwrap());
        // A skippable frame first (magic 0x184d2a50, 4 bytes of user data), as `pzstd` writes.
        let mut skippable = vec![0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4];
        skippable.extend(&zst);
        for (name, bytes) in [
            ("a.gz", gz),
            ("a.zst", zst),
            ("p.zst", skippable),
            ("plain", TEXT.to_vec()),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, &bytes).unwrap();
            assert_eq!(read_all(&Input::File(path)).unwrap(), TEXT, "{name}");
            let mut out = Vec::new();
            decode_bytes(bytes).read_to_end(&mut out).unwrap();
            assert_eq!(out, TEXT, "{name} in memory");
        }
    }

    #[test]
    fn trailing_bytes_after_gzip_data_are_named_as_such() {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(TEXT).unwrap();
        let mut gz = enc.finish().unwrap();
        gz.extend_from_slice(b"garbage\n");
        let mut out = Vec::new();
        let e = decode_bytes(gz.clone()).read_to_end(&mut out).unwrap_err();
        assert!(
            e.to_string()
                .contains("bytes after the end of the gzip data are not gzip"),
            "{e}"
        );
        assert_eq!(out, TEXT, "the data before them is read");
        // A member's magic bytes and junk, or a whole member cut short (a run stopped while
        // writing it): a broken member, on which `gzip -d` fails too. Zero bytes (padding) are
        // the end.
        let whole = gz[..gz.len() - 8].to_vec();
        let cut = whole[..whole.len() / 2].to_vec();
        for (tail, ok) in [
            (&b"\x1f\x8bjunkjunkjunk"[..], false),
            (&cut[..], false),
            (&b"\x1f"[..], false),
            (&[0u8; 4096][..], true),
        ] {
            let mut padded = whole.clone();
            padded.extend_from_slice(tail);
            let mut out = Vec::new();
            let read = decode_bytes(padded).read_to_end(&mut out);
            match ok {
                true => assert!(read.is_ok() && out == TEXT, "{read:?}"),
                false => {
                    let e = read.unwrap_err().to_string();
                    assert!(
                        e.contains(
                            "a gzip member after the first whole one is cut short or damaged"
                        ),
                        "{e}"
                    );
                    assert!(out.starts_with(TEXT), "the whole member before it is read");
                }
            }
        }
        // Not gzip from the start: the decoder's own words.
        let e = decode_bytes(vec![0x1f, 0x8b, 0, 0])
            .read_to_end(&mut out)
            .unwrap_err();
        assert!(!e.to_string().contains("after the end"), "{e}");
    }

    #[test]
    fn zip_members() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.zip");
        let mut zip = zip::ZipWriter::new(File::create(&path).unwrap());
        let deflated = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        let stored = deflated.compression_method(zip::CompressionMethod::Stored);
        zip.start_file("one.csv", deflated).unwrap();
        zip.write_all(TEXT).unwrap();
        zip.start_file("README", stored).unwrap();
        zip.write_all(b"readme\n").unwrap();
        zip.finish().unwrap();
        // The only .csv member is picked; others by name.
        assert_eq!(read_all(&Input::File(path.clone())).unwrap(), TEXT);
        let member = |m: &str| Input::File(PathBuf::from(format!("{}:{m}", path.display())));
        assert_eq!(read_all(&member("README")).unwrap(), b"readme\n");
        assert_eq!(read_all(&member("one.csv")).unwrap(), TEXT);
        let missing = read_all(&member("nope")).unwrap_err().to_string();
        assert!(missing.contains("no member \"nope\""), "{missing}");
        assert!(member("nope").check().is_ok(), "the archive exists");
        // A corrupt member is an error, not silently wrong data.
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.windows(7).position(|w| w == b"readme\n").unwrap();
        bytes[at] = b'R';
        std::fs::write(&path, bytes).unwrap();
        let corrupt = read_all(&member("README")).unwrap_err().to_string();
        assert!(corrupt.contains("CRC-32"), "{corrupt}");
    }
}
