//! Records in, results out: all input/output policy in one place.
//!
//! Records in, one layer for every command:
//! - [`input`]: where bytes come from (files, stdin, gzip/zstd/zip), as one byte stream each.
//! - [`detect`]: which layout an input uses ([`Format`]), from its first meaningful line.
//! - [`lines`], [`csv`], [`grid`]: the layouts, each cutting raw records in bounded memory.
//! - [`record`]: [`RecordReader`], the reader over all inputs, yielding raw records with the
//!   file and line each came from; `solve` reads their fields as a [`Body`], `verify` as text.
//!
//! Results out:
//! - [`results`]: the result schema ([`Status`](results::Status), the columns, the row) and
//!   [`ResultReader`](results::ResultReader), the one reader of result CSVs (`--resume`, `merge`).
//! - [`output`]: where rows go: stdout, a device or FIFO written directly, or a file written
//!   crash-safely through `FILE.partial`, locked while a run writes it.
//! - [`compress`]: gzip members and zstd frames for compressed output (`.gz`, `.zst`).
//! - [`targets`]: every file a command will write, checked together before it starts.

pub mod compress;
pub mod csv;
pub mod detect;
pub mod grid;
pub mod input;
pub mod lines;
pub mod output;
pub mod record;
pub mod results;
pub mod targets;

pub use self::csv::{Columns, SOLUTION_COLUMNS};
pub use detect::{detect_format, sniff_format, Format, PUZZLE_COLUMNS};
pub use input::{decode_bytes, Compression, Input, READ_BUFFER};
pub use lines::{line_fields, parse_line, read_line_bounded};
pub use record::{Body, Deferred, Fields, ReadOptions, Record, RecordReader, MAX_LINE};
