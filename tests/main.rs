//! The integration test crate: one module per file (`autotests = false` in Cargo.toml).

mod bench;
mod report;
