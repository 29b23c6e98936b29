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

/// Helpers every integration test module shares.
mod support {
    use std::path::{Path, PathBuf};

    /// The binary under test.
    pub fn bin() -> assert_cmd::Command {
        assert_cmd::Command::cargo_bin("sudoku-batch").unwrap()
    }

    /// Its path, for tests that start it as a plain process (to kill it, feed a FIFO, ...).
    pub fn bin_path() -> PathBuf {
        assert_cmd::cargo::cargo_bin("sudoku-batch")
    }

    /// A shipped dataset in `data/`.
    pub fn data(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data")
            .join(name)
    }

    /// `solve ARGS -o out input` as a plain child process (to kill it mid-run), stderr piped.
    pub fn spawn_solve(input: &Path, out: &Path, args: &[&str]) -> std::process::Child {
        std::process::Command::new(bin_path())
            .arg("solve")
            .args(args)
            .arg("-o")
            .arg(out)
            .arg(input)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Every status among ~300 records: hard puzzles, unsolvable and multiple-solution ones
    /// (tdoku's set), contradictory clues and malformed lines whose excerpts and messages are
    /// quoted fields, then Norvig's top 95; written to `dir/name`.
    pub fn mixed_input(dir: &Path, name: &str) -> PathBuf {
        let mut text = std::fs::read_to_string(data("tdoku_test_puzzles.txt")).unwrap();
        text += "not a puzzle, \"quoted\"\n12345\n";
        text +=
            "11...............................................................................\n";
        text += &std::fs::read_to_string(data("norvig_top95.txt")).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}
