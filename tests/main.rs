//! The integration test crate: one binary for all integration tests (`autotests = false`), one
//! module per file.

mod bench;
mod cli;
mod generate;
mod golden;
mod outputs;
mod records;
mod report;
mod results;
mod robust;
mod solvers;
mod verify;
