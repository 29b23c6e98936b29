//! The integration test crate: one binary for all integration tests (`autotests = false`), one
//! module per file.

mod bench;
mod cli;
mod columns;
mod generate;
mod golden;
mod inputs;
mod integrity;
mod outputs;
mod records;
mod report;
mod results;
mod robust;
mod solvers;
mod verify;
