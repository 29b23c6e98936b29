//! Text decoding at the start of every input: `Peek`, the stream wrapper that gathers the first
//! meaningful line before anything reads it (so detection and `CsvCap` see it whole), and the
//! byte order marks: a UTF-8 one is dropped, UTF-16 with a mark is decoded to UTF-8, UTF-16
//! without one refused.

use std::io::{BufRead, Read};

use super::input::READ_BUFFER;
use super::raw::{is_line_end, lines_ended, MAX_LINE};
use crate::error::{Error, Result};

/// `stream` with its first meaningful line gathered in one buffer, so the first `fill_buf`
/// sees at least that line whole (a file's byte order mark included), however few bytes each
/// read of the underlying stream returns.
pub(super) fn gather_head(stream: Box<dyn BufRead + Send>, path: &std::path::Path) -> Result<Peek> {
    let mut peek = Peek::new(stream);
    fill_head(&mut peek, path)?;
    Ok(peek)
}

/// [`Peek::head`] up to a meaningful line, a read error naming `path` and the line it was
/// reading (a corrupt compressed file can fail before its first record).
fn fill_head(peek: &mut Peek, path: &std::path::Path) -> Result<()> {
    if let Err(cause) = peek.head(MAX_LINE) {
        return Err(Error::ReadAt {
            path: path.to_path_buf(),
            line: lines_ended(&peek.head) + 1,
            cause,
        });
    }
    Ok(())
}

/// Byte order marks of UTF-16: little-endian, then big-endian.
const UTF16_BOMS: [&[u8]; 2] = [b"\xff\xfe", b"\xfe\xff"];
/// The UTF-8 byte order mark (Notepad, Excel's "CSV UTF-8" and PowerShell write one).
pub(crate) const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// [`gather_head`], as UTF-8 text: a stream that opens with a UTF-16 byte order mark (as
/// Windows tools write) is decoded to UTF-8 as it is read, its mark dropped, as ripgrep does;
/// UTF-16 without a mark is refused with a message that says so. A UTF-8 mark is dropped, so
/// it is not read as part of the first record in any layout. Anything else (UTF-8 and any
/// other bytes) is passed on as it is, unwrapped.
pub(super) fn gather_text(stream: Box<dyn BufRead + Send>, path: &std::path::Path) -> Result<Peek> {
    let mut peek = gather_head(stream, path)?;
    if peek.head.starts_with(UTF8_BOM) {
        peek.head.drain(..UTF8_BOM.len());
        // The mark may have ended the head early, before a whole meaningful line.
        fill_head(&mut peek, path)?;
        return Ok(peek);
    }
    if UTF16_BOMS.iter().any(|bom| peek.head.starts_with(bom)) {
        let decoded = encoding_rs_io::DecodeReaderBytesBuilder::new()
            .strip_bom(true)
            .build(peek);
        let buffered = std::io::BufReader::with_capacity(READ_BUFFER, decoded);
        return gather_head(Box::new(buffered), path);
    }
    if let Some(order) = utf16_without_bom(&peek.head) {
        return Err(Error::Input {
            path: path.to_path_buf(),
            message: format!(
                "the input looks like UTF-16 ({order}) without a byte order mark, which cannot \
                 be read; convert it to UTF-8 (for example `iconv -f UTF-16{} -t UTF-8`) or \
                 save it as UTF-16 with a byte order mark",
                if order == "little-endian" { "LE" } else { "BE" }
            ),
        });
    }
    Ok(peek)
}

/// UTF-16 text without a byte order mark, told by its zero bytes: ASCII text in UTF-16 has a
/// zero byte in every pair, on the same side (the second for little-endian). Binary data and
/// runs of zeros do not look like this.
fn utf16_without_bom(head: &[u8]) -> Option<&'static str> {
    let pairs: Vec<&[u8]> = head[..head.len().min(1024)].chunks_exact(2).collect();
    if pairs.len() < 4 {
        return None;
    }
    let count = |side: usize| {
        pairs
            .iter()
            .filter(|pair| pair[side] == 0 && pair[1 - side] != 0)
            .count()
    };
    let (low_zero, high_zero) = (count(0), count(1));
    let most = pairs.len() * 9 / 10;
    if high_zero >= most {
        Some("little-endian")
    } else if low_zero >= most {
        Some("big-endian")
    } else {
        None
    }
}

/// A stream whose start can be looked at before it is read: [`Peek::head`] gathers bytes up to
/// the end of the first meaningful line (neither blank nor a `#` comment), however few bytes each
/// read of the underlying stream returns.
pub(super) struct Peek {
    inner: Box<dyn BufRead + Send>,
    pub(super) head: Vec<u8>,
    pos: usize,
}

impl Peek {
    pub(super) fn new(inner: Box<dyn BufRead + Send>) -> Self {
        Peek {
            inner,
            head: Vec::new(),
            pos: 0,
        }
    }

    /// The first bytes of the stream: at least through its first meaningful line, or `limit`
    /// bytes, or all of it if it is shorter.
    pub(super) fn head(&mut self, limit: usize) -> std::io::Result<&[u8]> {
        while self.head.len() < limit && !has_meaningful_line(&self.head) {
            let bytes = match self.inner.fill_buf() {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if bytes.is_empty() {
                break;
            }
            let take = bytes.len().min(limit - self.head.len());
            self.head.extend_from_slice(&bytes[..take]);
            self.inner.consume(take);
        }
        Ok(&self.head)
    }
}

/// Whether `head` holds a complete line that is neither blank nor a `#` comment.
fn has_meaningful_line(head: &[u8]) -> bool {
    let complete = match head.iter().rposition(|&b| is_line_end(b)) {
        Some(end) => &head[..end],
        None => return false,
    };
    complete.split(|&b| is_line_end(b)).any(|line| {
        let line = line.trim_ascii();
        !line.is_empty() && !line.starts_with(b"#")
    })
}

impl Read for Peek {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Peek {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos < self.head.len() {
            Ok(&self.head[self.pos..])
        } else {
            self.inner.fill_buf()
        }
    }

    fn consume(&mut self, amount: usize) {
        if self.pos < self.head.len() {
            self.pos = (self.pos + amount).min(self.head.len());
            if self.pos == self.head.len() {
                // The head is read: free it.
                self.head = Vec::new();
                self.pos = 0;
            }
        } else {
            self.inner.consume(amount);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_without_a_mark_is_told_from_binary() {
        let le: Vec<u8> = "puzzle\r\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let be: Vec<u8> = "puzzle\r\n"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        assert_eq!(utf16_without_bom(&le), Some("little-endian"));
        assert_eq!(utf16_without_bom(&be), Some("big-endian"));
        assert_eq!(utf16_without_bom(&[0; 64]), None);
        assert_eq!(utf16_without_bom(b"puzzle\n"), None);
        assert_eq!(utf16_without_bom(&le[..6]), None, "too short to tell");
    }

    #[test]
    fn a_meaningful_line_skips_blanks_and_comments() {
        assert!(has_meaningful_line(b"\r\rpuzzle\r"));
        assert!(!has_meaningful_line(b"# c\n\n  \n"));
        assert!(!has_meaningful_line(b"puzzle"), "no line end yet");
    }
}
