//! The integration test crate: one binary for all integration tests (`autotests = false`).

mod bench;
mod cli;
mod golden;
mod report;
mod robust;
