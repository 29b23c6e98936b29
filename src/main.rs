//! The `sudoku-batch` binary: parse arguments, run the library, map the result to an exit code.

use std::process::ExitCode;

use clap::Parser;
use sudoku_batch::cli::Cli;

fn main() -> ExitCode {
    let command = Cli::parse().into_command();
    match sudoku_batch::run(command) {
        Ok(finish) => ExitCode::from(finish.code()),
        // `| head` closed the pipe: the reader has what it wanted.
        Err(error) if error.is_broken_pipe() => ExitCode::SUCCESS,
        // The library's messages are complete: the file where there is one, and the cause
        // (an `anyhow` chain printed the cause a second time).
        Err(error) => {
            eprintln!("sudoku-batch: error: {error}");
            ExitCode::from(2)
        }
    }
}
