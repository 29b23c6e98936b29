//! The `sudoku-batch` binary: parse arguments, run the library (or print a man page or shell
//! completions), map the result to an exit code.

use std::process::ExitCode;

use clap::Parser;
use sudoku_batch::cli::{self, Action, Cli};

fn main() -> ExitCode {
    let command = match Cli::parse().into_action() {
        Action::Run(command) => command,
        Action::Generate(kind) => {
            return match cli::write_generated(kind, &mut std::io::stdout().lock()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(error) => {
                    report(format_args!("sudoku-batch: error: cannot write -: {error}"));
                    ExitCode::from(2)
                }
            };
        }
    };
    match sudoku_batch::run(command) {
        Ok(finish) => ExitCode::from(finish.code()),
        // `| head` closed the pipe: the reader has what it wanted.
        Err(error) if error.is_broken_pipe() => ExitCode::SUCCESS,
        Err(error @ sudoku_batch::error::Error::Interrupted(_)) => {
            report(format_args!("sudoku-batch: {error}"));
            ExitCode::from(sudoku_batch::cmd::Finish::Interrupted.code())
        }
        // The library's messages are complete: the file where there is one, and the cause
        // (an `anyhow` chain printed the cause a second time).
        Err(error) => {
            report(format_args!("sudoku-batch: error: {error}"));
            ExitCode::from(2)
        }
    }
}

/// Runs before `main` (and before the standard library puts `/dev/null` on a closed standard
/// output), so that a command started with standard output shut (`>&-`) can be told from one
/// whose output goes to `/dev/null` on purpose.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static NOTE_STDOUT: extern "C" fn() = note_stdout;

#[cfg(target_os = "linux")]
extern "C" fn note_stdout() {
    sudoku_batch::io::targets::note_stdout_at_start();
}

/// Prints an error line on stderr; a closed stderr loses it (the exit status still tells).
fn report(message: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{message}");
}
