//! Records in, results out: all input/output policy in one place.
//!
//! Records in, one layer for every command (imports point down this list, never up):
//! - [`record`]: [`RecordReader`], the reader over all inputs, yielding raw records with the
//!   file and line each came from; `solve` reads their fields as a [`Body`], `verify` as text.
//! - [`detect`]: which layout an input uses ([`Format`]), asking the layouts in order.
//! - [`lines`], [`csv`], [`grid`]: the layouts, each cutting raw records in bounded memory
//!   behind one trait, and each owning the rule by which it claims an input's first line.
//! - `decode`: the start of every input gathered, byte order marks read, UTF-16 decoded.
//! - [`raw`]: the vocabulary all of them share, a leaf: [`Format`], [`RawRecord`], [`Fields`],
//!   [`Body`], [`MAX_LINE`] and the bounded line reader.
//! - [`input`]: where bytes come from (files, stdin, gzip/zstd/zip), as one byte stream each.
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
mod decode;
#[cfg(feature = "cli")]
pub(crate) use decode::UTF8_BOM;
pub mod detect;
pub mod grid;
pub mod input;
pub mod lines;
pub mod output;
pub mod raw;
pub mod record;
pub mod results;
pub mod targets;

pub use self::csv::{Columns, PUZZLE_COLUMNS, SOLUTION_COLUMNS};
pub use detect::{detect_format, sniff_format};
pub use input::{decode_bytes, Compression, Input, SharedTap, Tap, READ_BUFFER};
pub use lines::{line_fields, parse_line};
pub use raw::{read_line_bounded, Body, Fields, Format, OptionNames, RawRecord, MAX_LINE};
pub use record::{ReadOptions, Record, RecordReader};
