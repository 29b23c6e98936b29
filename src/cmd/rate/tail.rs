//! The bytes of an earlier result file (a shard, a partial output) as a CSV reader takes them,
//! with what tells whether the text read so far ends a row: the last byte, the end of the
//! input, and whether it stops inside a quoted field.

/// A shard's (or a partial output's) bytes, noting how many were read, the last one, whether
/// the end was reached and whether an odd number of quotes went by: what tells a last row
/// ended by a line end from one cut off by the end of the file, even inside a quoted field.
pub(super) struct Tail<R> {
    inner: R,
    pub(super) read: u64,
    last: u8,
    pub(super) ended: bool,
    odd_quotes: bool,
}

impl<R> Tail<R> {
    pub(super) fn new(inner: R) -> Tail<R> {
        Tail {
            inner,
            read: 0,
            last: b'\n',
            ended: false,
            odd_quotes: false,
        }
    }

    /// Whether the text read so far ends a row: its last byte is one of `line_ends`, outside
    /// any quoted field. A whole row holds an even number of quotes (`""` stands for one inside
    /// a field), so after an odd number its last field is still open, even right after a line
    /// end in it.
    pub(super) fn ends_row(&self, line_ends: &[u8]) -> bool {
        line_ends.contains(&self.last) && !self.odd_quotes
    }
}

impl<R: std::io::Read> std::io::Read for Tail<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        match buf[..n].last() {
            Some(&b) => self.last = b,
            None => self.ended = !buf.is_empty(),
        }
        self.odd_quotes ^= memchr::memchr_iter(b'"', &buf[..n]).count() % 2 == 1;
        Ok(n)
    }
}
