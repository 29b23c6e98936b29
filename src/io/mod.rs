//! Records in, results out: all input/output policy in one place.
//!
//! - [`input`]: where bytes come from (files, stdin, gzip/zstd/zip), as one byte stream each.
//! - [`reader`]: format detection and the layouts (lines, CSV, grid blocks), yielding records
//!   with the file and line each came from, in bounded memory.
//! - [`results`]: the result schema: [`Status`](results::Status), the result row and its columns.
//! - [`output`]: where rows go: stdout, or a file written crash-safely through `FILE.partial`.

pub mod input;
pub mod output;
pub mod reader;
pub mod results;

pub use input::{decode_bytes, Compression, Input, READ_BUFFER};
