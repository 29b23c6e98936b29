//! The record stream every command's pool works on: records numbered by their position in the
//! whole input (the `index` column), only one shard's when sharding, cut into chunks of raw
//! records for the pool's threads to parse.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::Result;
use crate::io::{Columns, Input, RawRecord, ReadOptions, Record, RecordReader, SharedTap};
use crate::shard::Shard;

/// Raw records read for one pool task: consecutive records of the input stream from
/// `first_index` on. Lines and CSV fields are still text: the pool's threads parse them, so
/// the reading thread only cuts them out. When sharding, the chunk holds every record of its
/// stretch and [`Chunk::iter`] gives the shard's.
#[derive(Default)]
pub(crate) struct Chunk {
    /// The records' text, which `records` point into.
    pub(crate) text: Vec<u8>,
    /// The raw records, in input order.
    pub(crate) records: Vec<RawRecord>,
    /// The global index of the first record.
    pub(crate) first_index: u64,
    /// The shard whose records are the chunk's work, if sharding.
    pub(crate) shard: Option<Shard>,
}

impl Chunk {
    /// An empty chunk with room for `records` records of about 96 bytes.
    pub(crate) fn with_capacity(records: usize) -> Chunk {
        Chunk {
            text: Vec::with_capacity(records * 96),
            records: Vec::with_capacity(records),
            first_index: 0,
            shard: None,
        }
    }

    /// Empties the chunk, keeping its buffers.
    pub(crate) fn clear(&mut self) {
        self.text.clear();
        self.records.clear();
    }

    /// The chunk's work: (global index, raw record) of each record of the shard.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u64, &RawRecord)> {
        let first = self.first_index;
        let shard = self.shard;
        self.records
            .iter()
            .enumerate()
            .map(move |(i, record)| (first + i as u64, record))
            .filter(move |&(index, _)| shard.is_none_or(|s| s.contains(index)))
    }

    /// How many records [`Chunk::iter`] gives.
    pub(crate) fn work(&self) -> usize {
        match self.shard {
            None => self.records.len(),
            Some(_) => self.iter().count(),
        }
    }
}

/// Records with their global stream position, only those of one shard when sharding.
pub(crate) struct ShardedRecords {
    /// The reader over every input.
    pub(crate) reader: RecordReader,
    shard: Option<Shard>,
    next_index: u64,
    /// The input has ended.
    done: bool,
    /// The stream ended on a stop request ([`crate::run::interrupt`]), not at the input's end.
    stopped: bool,
    /// A read error met after some records of a chunk were read: those records go out first,
    /// then the error.
    failed: Option<crate::error::Error>,
}

impl ShardedRecords {
    /// The records of `reader`, only those of `shard` if one is given.
    pub(crate) fn new(reader: RecordReader, shard: Option<Shard>) -> ShardedRecords {
        ShardedRecords {
            reader,
            shard,
            next_index: 0,
            done: false,
            stopped: false,
            failed: None,
        }
    }

    /// Opens a reader over `inputs` (its first input's layout and header read now, so a bad
    /// input or option is an error before the caller creates any file), counting the bytes it
    /// reads into the returned counter, for the progress bar. Input `i`'s raw bytes are shown to
    /// `taps[i]`. A CSV input's columns are found as `columns` asks.
    pub(crate) fn open(
        inputs: &[Input],
        read: &ReadOptions,
        columns: Columns,
        shard: Option<Shard>,
        taps: Vec<Option<SharedTap>>,
    ) -> Result<(ShardedRecords, Arc<AtomicU64>)> {
        let bytes_read = Arc::new(AtomicU64::new(0));
        let mut reader = RecordReader::new(inputs.to_vec(), read.clone(), bytes_read.clone())
            .with_columns(columns)
            .with_taps(taps);
        crate::run::interrupt::excuse(
            reader.start(),
            "before the input's header was read",
            "nothing was written",
        )?;
        Ok((ShardedRecords::new(reader, shard), bytes_read))
    }

    /// A warning when the run's shard got no record although the input held some: a shard K
    /// takes records K, K + N, ..., so an input of fewer than K records leaves it empty.
    pub(crate) fn empty_shard(&self) -> Option<String> {
        let shard = self.shard?;
        let read = self.next_index;
        (self.done && !self.stopped && read > 0 && read < shard.number()).then(|| {
            format!(
                "warning: shard {shard} holds no record: the input has {read} record(s), and \
                 shard K of N takes records K, K + N, K + 2N, ..."
            )
        })
    }

    /// Records read so far from the whole input stream (every shard's, not only this one's).
    pub(crate) fn records_read(&self) -> u64 {
        self.next_index
    }

    /// The next record of the shard, parsed, with its index.
    pub(crate) fn next(&mut self) -> Result<Option<(u64, Record)>> {
        while let Some(record) = self.reader.next_record()? {
            if let Some(index) = self.take_index() {
                return Ok(Some((index, record)));
            }
        }
        Ok(None)
    }

    /// Whether the stream ended because a stop was requested (a signal, see
    /// [`crate::run::interrupt`]) rather than at the end of the input: then records were left
    /// unread, and a record the reader was skipping or holding was dropped.
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }

    /// Fills the emptied `chunk` with the next records of the input stream, up to `records`
    /// of them (of the shard's, when sharding) or about `text` bytes; `None` once the input has
    /// ended and no record is left, or once a stop is requested ([`stopped`](Self::stopped)
    /// says which). Every command's producer.
    pub(crate) fn next_chunk(
        &mut self,
        chunk: Chunk,
        records: usize,
        text: usize,
    ) -> Result<Option<Chunk>> {
        if crate::run::interrupt::requested() {
            self.stopped = true;
            return Ok(None);
        }
        let chunk = self.fill_chunk(chunk, records, text);
        // The reader ends the input early when a stop cuts a record short
        // (`io::raw::set_stop_flag`). A compressed pipe cut short that way is a decoding error;
        // the records before it are read again by `--resume`.
        self.stopped = crate::run::interrupt::requested() && !matches!(chunk, Ok(Some(_)));
        if self.stopped {
            return Ok(None);
        }
        chunk
    }

    /// [`next_chunk`](Self::next_chunk) without the stop check.
    fn fill_chunk(
        &mut self,
        mut chunk: Chunk,
        records: usize,
        text: usize,
    ) -> Result<Option<Chunk>> {
        let stride = self
            .shard
            .map_or(1, |s| usize::try_from(s.count()).unwrap_or(1));
        let max = records.saturating_mul(stride);
        loop {
            chunk.clear();
            chunk.first_index = self.next_index;
            chunk.shard = self.shard;
            if !self.done {
                match self
                    .reader
                    .next_batch(&mut chunk.text, &mut chunk.records, max, text)
                {
                    Ok(more) => self.done = !more,
                    // The records read before the error are whole: they are worked and
                    // written, and the error ends the input after them.
                    Err(e) => {
                        self.done = true;
                        self.failed = Some(e);
                    }
                }
            }
            self.next_index += chunk.records.len() as u64;
            if chunk.work() > 0 {
                return Ok(Some(chunk));
            }
            if let Some(e) = self.failed.take() {
                return Err(e);
            }
            if self.done {
                return Ok(None);
            }
        }
    }

    /// Numbers the record just read: its index, if it belongs to the shard.
    fn take_index(&mut self) -> Option<u64> {
        let index = self.next_index;
        self.next_index += 1;
        self.shard
            .is_none_or(|s| s.contains(index))
            .then_some(index)
    }
}

/// The work a chunk aims at while a run starts on the calling thread: small against the
/// inline window, so the window is checked often.
const INLINE_CHUNK_NS: u64 = 250_000;

/// Records in the first chunk worked on the calling thread, before any is timed.
const FIRST_INLINE_CHUNK: usize = 4;

/// How many records the next chunk gets: about `target_ns` of work at the mean time per record
/// seen so far, between `min` and `max`. The first chunks, read before any is done, get
/// `4 × min` unless [`ChunkSize::first`] says otherwise.
pub(crate) struct ChunkSize {
    min: usize,
    max: usize,
    /// Records in each chunk read before any record is timed.
    first: usize,
    target_ns: u64,
    work_ns: AtomicU64,
    records: AtomicU64,
}

impl ChunkSize {
    /// Chunks of `min` to `max` records, each about `target_ns` of work.
    pub(crate) fn new(min: usize, max: usize, target_ns: u64) -> ChunkSize {
        ChunkSize {
            min,
            max,
            first: min * 4,
            target_ns,
            work_ns: AtomicU64::new(0),
            records: AtomicU64::new(0),
        }
    }

    /// The chunks read before any record is timed get `first` records: one, where a record
    /// may take seconds, so that an input of as many records as threads keeps every thread busy.
    pub(crate) fn first(self, first: usize) -> ChunkSize {
        ChunkSize { first, ..self }
    }

    /// Records that a chunk of `records` records took `work_ns`.
    pub(crate) fn record(&self, work_ns: u64, records: u64) {
        self.work_ns.fetch_add(work_ns, Ordering::Relaxed);
        self.records.fetch_add(records, Ordering::Relaxed);
    }

    /// The size of the next chunk worked on the calling thread while a run starts
    /// ([`super::Start::Inline`]): about [`INLINE_CHUNK_NS`] of work, and
    /// [`FIRST_INLINE_CHUNK`] records before anything is known.
    pub(crate) fn next_inline(&self) -> usize {
        self.sized(INLINE_CHUNK_NS, FIRST_INLINE_CHUNK, 1)
    }

    /// The size of the next chunk.
    pub(crate) fn next(&self) -> usize {
        self.sized(self.target_ns, self.first, self.min)
    }

    /// About `target_ns` of work at the mean time per record so far, at least `least` (and
    /// at most `max`) records; `first` before any record is timed.
    fn sized(&self, target_ns: u64, first: usize, least: usize) -> usize {
        let records = self.records.load(Ordering::Relaxed);
        if records == 0 {
            return first.min(self.max);
        }
        let mean = (self.work_ns.load(Ordering::Relaxed) / records).max(1);
        usize::try_from(target_ns / mean)
            .unwrap_or(self.max)
            .clamp(least, self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_hold_about_the_target_work_within_the_bounds() {
        let size = ChunkSize::new(16, 2048, 4_000_000);
        assert_eq!(size.next(), 64);
        assert_eq!(size.next_inline(), FIRST_INLINE_CHUNK);
        size.record(1_000_000, 1000); // 1 µs a record: the most
        assert_eq!(size.next(), 2048);
        assert_eq!(size.next_inline(), 250);
        size.record(999_000_000_000, 0); // now ~1 ms a record: the fewest
        assert_eq!(size.next(), 16);
        assert_eq!(size.next_inline(), 1, "at least one record");
        let size = ChunkSize::new(1, 32, 50_000_000);
        assert_eq!(size.next(), 4);
        size.record(20_000_000, 2); // 10 ms a record
        assert_eq!(size.next(), 5);
        let size = ChunkSize::new(1, 32, 50_000_000).first(1);
        assert_eq!(size.next(), 1, "one record a chunk until one is timed");
        size.record(1_000, 1000);
        assert_eq!(size.next(), 32);
    }
}
