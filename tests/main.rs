//! The integration test crate: one binary for all integration tests (`autotests = false`), one
//! module per file.

mod bench;
mod cli;
mod generate;
mod inputs;
mod outputs;
mod rate;
mod resume;
mod robust;
mod snapshots;
mod solvers;
mod stop;
mod verify;

/// Helpers every integration test module shares.
mod support {
    use std::path::{Path, PathBuf};

    /// The binary under test.
    pub fn bin() -> assert_cmd::Command {
        assert_cmd::Command::cargo_bin("sudoku-batch").unwrap()
    }

    /// Asserts that a finished command succeeded, showing its stderr when it did not.
    pub fn assert_succeeded(output: &std::process::Output) {
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
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

    /// Waits until `path` holds at least `bytes` (the writer flushes in blocks), for a test that
    /// interrupts a run mid-way; fails if the child ends first or nothing comes in 120 s.
    pub fn wait_for_growth(child: &mut std::process::Child, path: &Path, bytes: u64) {
        let started = std::time::Instant::now();
        loop {
            if std::fs::metadata(path).is_ok_and(|m| m.len() >= bytes) {
                return;
            }
            if let Some(status) = child.try_wait().unwrap() {
                panic!(
                    "the run ended ({status}) before it could be interrupted; make the input \
                     bigger"
                );
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(120),
                "no output after 120 s"
            );
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    /// Waits for `child` to end, at most `limit`: a run that does not stop fails the test (killed)
    /// rather than hanging it.
    pub fn wait_within(
        mut child: std::process::Child,
        limit: std::time::Duration,
    ) -> std::process::Output {
        let started = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > limit {
                child.kill().unwrap();
                let output = child.wait_with_output().unwrap();
                panic!(
                    "still running after {limit:?}: {}",
                    String::from_utf8_lossy(&output.stderr)
                );
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        child.wait_with_output().unwrap()
    }

    /// Makes a FIFO at `path` (the `mkfifo` tool).
    #[cfg(unix)]
    pub fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(status.success(), "mkfifo {}", path.display());
    }

    /// The first `n` (puzzle, solution) pairs of the Kaggle sample, each checked by the
    /// library's validator.
    pub fn kaggle_pairs(n: usize) -> Vec<(String, String)> {
        let text = std::fs::read_to_string(data("kaggle3m_radcliffe_first1000.csv")).unwrap();
        let pairs: Vec<(String, String)> = text
            .lines()
            .skip(1)
            .take(n)
            .map(|line| {
                let fields: Vec<&str> = line.split(',').collect();
                (fields[1].to_string(), fields[2].to_string())
            })
            .collect();
        for (p, s) in &pairs {
            let (p, s): (sudoku_batch::Grid, sudoku_batch::Grid) =
                (p.parse().unwrap(), s.parse().unwrap());
            assert!(s.is_solution_of(&p));
        }
        pairs
    }

    /// A permutation of an 11-clue grid with no solution: about half a minute for `backtrack`
    /// to prove it.
    pub const SLOW: &str =
        ".....2.....................17.....................5...237.............8....273...";

    /// A file `dir/slow.txt` holding [`SLOW`] once: a run on it with `--solver backtrack`
    /// holds its output until it is stopped.
    pub fn slow_input(dir: &Path) -> PathBuf {
        let path = dir.join("slow.txt");
        std::fs::write(&path, format!("{SLOW}\n")).unwrap();
        path
    }

    /// The Kaggle sample's 1,000 puzzles repeated `copies` times, one per line, in `dir/name`
    /// (debug builds solve them in tens of µs).
    pub fn repeated_puzzles(dir: &Path, copies: usize, name: &str) -> PathBuf {
        use std::io::Write;
        let lines: Vec<String> = kaggle_pairs(1000).into_iter().map(|(p, _)| p).collect();
        let path = dir.join(name);
        let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        for _ in 0..copies {
            for p in &lines {
                writeln!(file, "{p}").unwrap();
            }
        }
        file.flush().unwrap();
        path
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
