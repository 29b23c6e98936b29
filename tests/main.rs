//! The integration test crate: one binary for all integration tests (`autotests = false`).

mod cli;
mod golden;
