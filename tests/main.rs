//! The integration tests, built as one crate (`autotests = false`): one module per file.

mod generate;
mod verify;
