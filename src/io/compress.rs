//! Compressed output: gzip members and zstd frames, each independent, so they can be made on
//! any thread and simply concatenated (`gzip -dc`, `zstd -dc` and Python's `gzip` read every
//! member of the concatenation), and an interrupted file can be cut after its last complete one.
//!
//! - [`Codec`]: plain, gzip or zstd, chosen by the output's extension or `--compress`.
//! - [`Codec::seal`]: turns a chunk of plain bytes into one member (the `solve` pool does this
//!   per chunk, so compression runs on all cores); plain output is left as it is, for free.
//! - [`scan_members`]: finds the complete members of a file (for `--resume`), stopping at a
//!   torn or damaged one; [`read_members`] reads their plain bytes back.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// The gzip level: 1, the fastest (zlib-rs's quick deflate: about 0.75 s of CPU per million rows
/// against `gzip -1`'s 2.3 s, for a file about 1.4 times as large as `gzip -1`'s; level 2 matches
/// its size for 1.35 s).
const GZIP_LEVEL: u32 = 1;
/// The zstd level: 1, the fastest of the regular levels.
const ZSTD_LEVEL: i32 = 1;

/// How an output's bytes are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Codec {
    /// Plain bytes.
    #[default]
    None,
    /// Concatenated gzip members.
    Gzip,
    /// Concatenated zstd frames.
    Zstd,
}

impl Codec {
    /// The codec an output path's extension asks for: `.gz` gzip, `.zst` zstd (any case),
    /// anything else plain.
    pub fn from_path(path: &Path) -> Codec {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ext.eq_ignore_ascii_case("gz") {
            Codec::Gzip
        } else if ext.eq_ignore_ascii_case("zst") {
            Codec::Zstd
        } else {
            Codec::None
        }
    }

    /// The codec whose magic bytes start `head`, when they are gzip's or zstd's.
    pub(crate) fn from_magic(head: &[u8]) -> Option<Codec> {
        match crate::io::Compression::detect(head) {
            crate::io::Compression::Gzip => Some(Codec::Gzip),
            crate::io::Compression::Zstd => Some(Codec::Zstd),
            _ => None,
        }
    }

    /// The codec's name as `--compress` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Codec::None => "none",
            Codec::Gzip => "gz",
            Codec::Zstd => "zst",
        }
    }

    /// True for plain output.
    pub(crate) fn is_plain(self) -> bool {
        self == Codec::None
    }

    /// Replaces the plain bytes in `buf` with one member holding them. Plain output, and an
    /// empty `buf`, are left as they are.
    pub fn seal(self, buf: &mut Vec<u8>) {
        if self.is_plain() || buf.is_empty() {
            return;
        }
        let mut member = Vec::with_capacity(buf.len() / 4 + 64);
        self.encode_member(buf, &mut member);
        *buf = member;
    }

    /// Appends `plain` to `out` as one complete member (gzip) or frame (zstd); plain output
    /// is appended as it is.
    pub(crate) fn encode_member(self, plain: &[u8], out: &mut Vec<u8>) {
        match self {
            Codec::None => out.extend_from_slice(plain),
            Codec::Gzip => gzip_member(plain, out),
            Codec::Zstd => zstd_frame(plain, out),
        }
    }
}

thread_local! {
    /// Each thread's deflate state, reused: a new one per chunk is a large allocation.
    static DEFLATE: RefCell<Option<flate2::Compress>> = const { RefCell::new(None) };
    /// Each thread's zstd context, reused.
    static ZSTD: RefCell<Option<zstd::bulk::Compressor<'static>>> = const { RefCell::new(None) };
}

/// A gzip member: the fixed 10-byte header (no name, no time), raw deflate, CRC-32 and size.
fn gzip_member(plain: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255]);
    DEFLATE.with(|cell| {
        let mut cell = cell.borrow_mut();
        let deflate = cell.get_or_insert_with(|| {
            flate2::Compress::new(flate2::Compression::new(GZIP_LEVEL), false)
        });
        deflate.reset();
        let start_in = deflate.total_in();
        loop {
            out.reserve(plain.len() / 2 + 1024);
            let consumed = (deflate.total_in() - start_in) as usize;
            let status = deflate
                .compress_vec(&plain[consumed..], out, flate2::FlushCompress::Finish)
                // Deflating into a vector with room cannot fail.
                .expect("deflate into a vector");
            if status == flate2::Status::StreamEnd {
                break;
            }
        }
    });
    let mut crc = flate2::Crc::new();
    crc.update(plain);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&(plain.len() as u32).to_le_bytes());
}

/// A zstd frame with its content size and checksum, so a damaged frame is noticed.
fn zstd_frame(plain: &[u8], out: &mut Vec<u8>) {
    ZSTD.with(|cell| {
        let mut cell = cell.borrow_mut();
        let compressor = cell.get_or_insert_with(|| {
            let mut c = zstd::bulk::Compressor::new(ZSTD_LEVEL).expect("a zstd context");
            let _ = c.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true));
            c
        });
        // `compress_to_buffer` writes a vector from its start: append through a second one.
        let mut frame = Vec::new();
        let direct = out.is_empty();
        let into = if direct { &mut *out } else { &mut frame };
        into.reserve(zstd::zstd_safe::compress_bound(plain.len()));
        compressor
            .compress_to_buffer(plain, into)
            // The room reserved is the bound of the compressed size.
            .expect("zstd into a vector with room");
        if !direct {
            out.extend_from_slice(&frame);
        }
    });
}

/// One complete member of a compressed file: where it lies in the file and which plain bytes
/// it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// Its first byte in the file.
    pub start: u64,
    /// Just past its last byte in the file.
    pub end: u64,
    /// Its plain bytes' offset in the decompressed stream.
    pub plain_start: u64,
    /// Just past its plain bytes.
    pub plain_end: u64,
}

/// A buffered reader that counts the bytes consumed from it.
struct Counted<R> {
    inner: R,
    consumed: u64,
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amount: usize) {
        self.consumed += amount as u64;
        self.inner.consume(amount);
    }
}

/// Decodes one member from `source` into nothing, returning its plain size; an error for a
/// torn or damaged member.
fn skip_member<R: BufRead>(codec: Codec, source: &mut Counted<R>) -> io::Result<u64> {
    match codec {
        Codec::None => io::copy(source, &mut io::sink()),
        Codec::Gzip => io::copy(
            &mut flate2::bufread::GzDecoder::new(source),
            &mut io::sink(),
        ),
        Codec::Zstd => {
            let mut decoder = zstd::stream::read::Decoder::with_buffer(source)?.single_frame();
            io::copy(&mut decoder, &mut io::sink())
        }
    }
}

/// The complete members of the `codec` file at `path`, in order, stopping at the first torn
/// or damaged one (a run killed while writing it) or at the end. For a plain file, one
/// "member" covers the whole file.
pub fn scan_members(codec: Codec, path: &Path) -> io::Result<Vec<Member>> {
    let file = File::open(path)?;
    let mut source = Counted {
        inner: BufReader::with_capacity(256 * 1024, file),
        consumed: 0,
    };
    let mut members = Vec::new();
    let mut plain = 0u64;
    loop {
        if source.fill_buf()?.is_empty() {
            break;
        }
        let start = source.consumed;
        let Ok(size) = skip_member(codec, &mut source) else {
            break;
        };
        // A member that decodes to nothing but consumed nothing would loop forever.
        if source.consumed == start {
            break;
        }
        members.push(Member {
            start,
            end: source.consumed,
            plain_start: plain,
            plain_end: plain + size,
        });
        plain += size;
        if codec.is_plain() {
            break;
        }
    }
    Ok(members)
}

/// A gzip stream of one or more members, read member by member (as `MultiGzDecoder` does) so
/// that bytes after a whole member that are not another member are named as such: the
/// decoder reports them as a bad header or an early end, as if the file were no gzip at all.
pub(crate) struct GzipMembers<R: BufRead> {
    /// The member being read; `None` once the stream has ended.
    member: Option<flate2::bufread::GzDecoder<R>>,
    /// A whole member was read before this one: an error in this one is about a member cut
    /// short or damaged after the whole ones.
    after_whole: bool,
}

/// The error for a member after a whole one that starts as gzip (`1f 8b`) but fails: cut
/// short (a run stopped while writing it) or damaged, as `gzip -t` says.
fn broken_gzip_member(e: io::Error) -> io::Error {
    io::Error::new(
        e.kind(),
        format!("a gzip member after the first whole one is cut short or damaged: {e}"),
    )
}

/// The error for bytes after a whole gzip member that are not another member.
fn trailing_gzip_data() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "bytes after the end of the gzip data are not gzip (trailing data, which `gzip -d` \
         ignores with a warning)",
    )
}

impl<R: BufRead> GzipMembers<R> {
    pub(crate) fn new(raw: R) -> GzipMembers<R> {
        GzipMembers {
            member: Some(flate2::bufread::GzDecoder::new(raw)),
            after_whole: false,
        }
    }

    /// After a whole member: the end (zero bytes, as some tools pad, are the end too, as
    /// `gzip -d` takes them), another member (from its magic bytes `1f 8b` on, whole or not:
    /// `gzip -d` fails on a broken one), or trailing data (which `gzip -d` ignores).
    fn next_member(&mut self, mut raw: R) -> io::Result<bool> {
        loop {
            let rest = raw.fill_buf()?;
            match rest {
                [] => return Ok(false),
                [0x1f] | [0x1f, 0x8b, ..] => {
                    self.member = Some(flate2::bufread::GzDecoder::new(raw));
                    self.after_whole = true;
                    return Ok(true);
                }
                _ if rest.iter().all(|&b| b == 0) => {
                    let n = rest.len();
                    raw.consume(n);
                }
                _ => return Err(trailing_gzip_data()),
            }
        }
    }
}

impl<R: BufRead> Read for GzipMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(member) = self.member.as_mut() else {
                return Ok(0);
            };
            let n = match member.read(buf) {
                Ok(n) => n,
                Err(e) if self.after_whole => return Err(broken_gzip_member(e)),
                Err(e) => return Err(e),
            };
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let Some(member) = self.member.take() else {
                return Ok(0);
            };
            if !self.next_member(member.into_inner())? {
                return Ok(0);
            }
        }
    }
}

/// The plain bytes of the first `end` bytes of the `codec` file at `path` (which must end on a
/// member boundary, as [`scan_members`] gives), as one stream.
pub fn read_members(codec: Codec, path: &Path, end: u64) -> io::Result<Box<dyn Read + Send>> {
    let file = BufReader::with_capacity(256 * 1024, File::open(path)?.take(end));
    Ok(match codec {
        Codec::None => Box::new(file),
        Codec::Gzip => Box::new(GzipMembers::new(file)),
        Codec::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(file)?),
    })
}

/// The plain bytes of one member of the `codec` file `file`.
pub(crate) fn member_bytes(codec: Codec, file: &mut File, member: &Member) -> io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(member.start))?;
    let mut source = BufReader::new(file.take(member.end - member.start));
    let mut plain = Vec::with_capacity((member.plain_end - member.plain_start) as usize);
    match codec {
        Codec::None => source.read_to_end(&mut plain)?,
        Codec::Gzip => flate2::bufread::GzDecoder::new(source).read_to_end(&mut plain)?,
        Codec::Zstd => zstd::stream::read::Decoder::with_buffer(source)?
            .single_frame()
            .read_to_end(&mut plain)?,
    };
    Ok(plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members_of(codec: Codec, parts: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for part in parts {
            codec.encode_member(part, &mut out);
        }
        out
    }

    #[test]
    fn members_concatenate_and_a_torn_one_is_left_out() {
        for codec in [Codec::Gzip, Codec::Zstd] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("x");
            let whole = members_of(codec, &[b"a,b\n", b"1,2\n3,4\n", b"5,6\n"]);
            std::fs::write(&path, &whole).unwrap();
            let members = scan_members(codec, &path).unwrap();
            assert_eq!(members.len(), 3, "{codec:?}");
            assert_eq!(members[2].end, whole.len() as u64);
            assert_eq!(members[1].plain_start, 4);
            assert_eq!(members[2].plain_end, 16);
            let mut text = String::new();
            read_members(codec, &path, members[2].end)
                .unwrap()
                .read_to_string(&mut text)
                .unwrap();
            assert_eq!(text, "a,b\n1,2\n3,4\n5,6\n");
            let mut file = File::open(&path).unwrap();
            assert_eq!(
                member_bytes(codec, &mut file, &members[1]).unwrap(),
                b"1,2\n3,4\n"
            );
            // Cut inside the last member: two remain, whatever the cut.
            for cut in members[2].start + 1..members[2].end {
                std::fs::write(&path, &whole[..cut as usize]).unwrap();
                assert_eq!(
                    scan_members(codec, &path).unwrap(),
                    members[..2],
                    "{codec:?} {cut}"
                );
            }
        }
    }

    #[test]
    fn extensions_choose_the_codec() {
        assert_eq!(Codec::from_path(Path::new("a.csv.gz")), Codec::Gzip);
        assert_eq!(Codec::from_path(Path::new("a.ZST")), Codec::Zstd);
        assert_eq!(Codec::from_path(Path::new("a.csv")), Codec::None);
        let mut buf = b"plain".to_vec();
        Codec::None.seal(&mut buf);
        assert_eq!(buf, b"plain");
    }
}
