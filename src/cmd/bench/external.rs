//! `bench --external NAME=COMMAND`: anyone's solver, timed as a whole process on the same
//! (permuted) puzzles as ours, every printed solution checked, in the same rows and table.
//!
//! The command runs under `sh -c` with the puzzles on stdin (a file, one 81-character puzzle a
//! line, as `COMMAND < file > out` would) and must print one solution per line, in order. A
//! line may carry more than the solution (`puzzle:solution`, `puzzle,solution`): the last
//! 81-character token is taken. The rate is puzzles over the wall time of the whole process,
//! start to exit, so start-up and reading count as they do for a user.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::grid::Grid;
use crate::run::interrupt::{leave_nothing, Leftover, Registered};

/// An external solver: its name in the results and the shell command that runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct External {
    /// The name in the `solver` column.
    pub name: String,
    /// The command, run by `sh -c`.
    pub command: String,
}

impl std::str::FromStr for External {
    type Err = String;

    /// `NAME=COMMAND`.
    fn from_str(text: &str) -> std::result::Result<Self, String> {
        let (name, command) = text
            .split_once('=')
            .ok_or_else(|| format!("expected NAME=COMMAND, got {text:?}"))?;
        let (name, command) = (name.trim(), command.trim());
        if name.is_empty() || command.is_empty() {
            return Err(format!("expected NAME=COMMAND, got {text:?}"));
        }
        if name.contains([',', '"', '|']) || name.contains(char::is_control) {
            return Err(format!(
                "the name {name:?} may not hold a comma, a quote, a `|` (it is a column of the \
                 CSV and of the Markdown table) or a control character"
            ));
        }
        Ok(External {
            name: name.to_string(),
            command: command.to_string(),
        })
    }
}

/// How one external run went.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Every puzzle got a correct solution, in this wall time.
    Solved(Duration),
    /// A printed line is not a solution of its puzzle, or lines are missing.
    Wrong(String),
    /// The command exited unsuccessfully.
    Failed(String),
    /// The command ran past the timeout and was killed.
    TimedOut(Duration),
    /// A stop request (Ctrl-C, SIGTERM) came during the pass, which was killed.
    Stopped,
}

/// A temporary file removed when dropped, or by a quit at once (while it is registered).
struct TempFile(PathBuf, #[allow(dead_code)] Registered);

impl TempFile {
    fn new(tag: &str) -> TempFile {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "sudoku-batch-external-{}-{n}-{tag}",
            std::process::id()
        ));
        let registered = leave_nothing(Leftover::File(path.clone()));
        TempFile(path, registered)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn io_error(path: &std::path::Path, cause: std::io::Error) -> Error {
    Error::Write {
        path: path.to_path_buf(),
        cause,
    }
}

/// How long a pass waits, after the program ended, for its error output to end.
const STDERR_GRACE: Duration = Duration::from_millis(500);

/// Runs `external` on `puzzles` (one pass) and checks what it prints.
/// `input_lines` gives each puzzle's line in the dataset's input, for the messages.
pub(crate) fn run_once(
    external: &External,
    puzzles: &[Grid],
    input_lines: &[u64],
    timeout: Duration,
) -> Result<Outcome> {
    let input = TempFile::new("in.txt");
    let output = TempFile::new("out.txt");
    write_puzzles(&input.0, puzzles)?;
    let stdin = File::open(&input.0).map_err(|e| io_error(&input.0, e))?;
    let stdout = File::create(&output.0).map_err(|e| io_error(&output.0, e))?;
    // More than any correct answer holds (a `PUZZLE:SOLUTION` line is 164 bytes): a program
    // that floods its output is stopped before it fills the disk.
    let most = puzzles.len() as u64 * 256 + 64 * 1024;
    let started = Instant::now();
    let mut child = spawn(external, stdin, stdout)?;
    // A second signal quits at once; the program's group must not outlive the bench.
    let _group = leave_nothing(Leftover::Group(child.id()));
    let reader = keep_stderr(&mut child);
    let mut looked = started;
    let status: ExitStatus = loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| Error::Internal(e.to_string()))?
        {
            break status;
        }
        let ended = if started.elapsed() > timeout {
            Some(Outcome::TimedOut(timeout))
        } else if crate::run::interrupt::requested() {
            Some(Outcome::Stopped)
        } else if looked.elapsed() > Duration::from_millis(50) {
            looked = Instant::now();
            let size = std::fs::metadata(&output.0).map_or(0, |m| m.len());
            (size > most).then(|| {
                Outcome::Wrong(format!(
                    "printed more than {most} bytes for {} puzzles, and was killed",
                    puzzles.len()
                ))
            })
        } else {
            None
        };
        if let Some(outcome) = ended {
            kill_group(&mut child);
            let _ = child.wait();
            reader.finish(STDERR_GRACE);
            return Ok(outcome);
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    let wall = started.elapsed();
    // What the command left running in its group (a daemon, a `cmd &`) goes with it: it would
    // hold the error pipe open, and the next pass would share the machine with it.
    kill_group(&mut child);
    let stderr = reader.finish(STDERR_GRACE);
    if !status.success() {
        return Ok(Outcome::Failed(failure(status, &stderr)));
    }
    // The size is looked at every 50 ms while the program runs: one that printed too much and
    // ended in between is caught here.
    let size = std::fs::metadata(&output.0).map_or(0, |m| m.len());
    if size > most {
        return Ok(Outcome::Wrong(format!(
            "printed more than {most} bytes for {} puzzles",
            puzzles.len()
        )));
    }
    let file = File::open(&output.0).map_err(|e| io_error(&output.0, e))?;
    Ok(
        match check_output(BufReader::new(file), puzzles, input_lines) {
            Some(why) => Outcome::Wrong(why),
            None => Outcome::Solved(wall),
        },
    )
}

/// Writes `puzzles` to `path`, one a line.
fn write_puzzles(path: &Path, puzzles: &[Grid]) -> Result<()> {
    let mut text = Vec::with_capacity(puzzles.len() * 82);
    for puzzle in puzzles {
        text.extend_from_slice(&puzzle.to_bytes());
        text.push(b'\n');
    }
    std::fs::write(path, text).map_err(|e| io_error(path, e))
}

/// Starts `sh -c COMMAND` reading `stdin` and writing `stdout`, its error output piped.
fn spawn(external: &External, stdin: File, stdout: File) -> Result<Child> {
    let mut command = Process::new("sh");
    command
        .arg("-c")
        .arg(&external.command)
        .stdin(Stdio::from(stdin))
        .stdout(Stdio::from(stdout))
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        // Its own process group, so a timeout kills what the shell started too.
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    command.spawn().map_err(|cause| {
        Error::Usage(format!(
            "--external {}: cannot start `sh -c {}`: {cause}",
            external.name, external.command
        ))
    })
}

/// The child's error output, read on another thread as it comes, so a chatty program cannot
/// block on a full pipe.
struct KeptStderr {
    /// The start and the end of it, for the note.
    kept: std::sync::Arc<std::sync::Mutex<Ends>>,
    /// Closed (the sender dropped) when the pipe reached its end.
    done: std::sync::mpsc::Receiver<()>,
}

impl KeptStderr {
    /// What was kept, once the pipe ended or `grace` passed: a process that left the group
    /// (`setsid cmd &`) may hold the pipe open long after the program ended, and the pass must
    /// not wait for it (the reading thread is left to end when the pipe does).
    fn finish(self, grace: Duration) -> Ends {
        let _ = self.done.recv_timeout(grace);
        self.kept
            .lock()
            .map(|kept| kept.clone())
            .unwrap_or_default()
    }
}

/// The first and the last bytes of a stream: where a failing program says what it was doing,
/// and where it says why it stopped (a Python traceback's last line).
#[derive(Clone, Debug, Default)]
struct Ends {
    head: Vec<u8>,
    /// The latest bytes after `head` filled up, at most twice [`Ends::KEEP`].
    tail: Vec<u8>,
}

impl Ends {
    /// Bytes kept at each end.
    const KEEP: usize = 2000;

    fn push(&mut self, mut bytes: &[u8]) {
        let room = Self::KEEP.saturating_sub(self.head.len()).min(bytes.len());
        self.head.extend_from_slice(&bytes[..room]);
        bytes = &bytes[room..];
        self.tail.extend_from_slice(bytes);
        if self.tail.len() > 2 * Self::KEEP {
            self.tail.drain(..self.tail.len() - Self::KEEP);
        }
    }

    /// The first and the last non-blank line (the same line twice when there is one; the
    /// last may lack its start when it began before the kept tail).
    fn first_and_last(&self) -> (String, String) {
        let last_line = |bytes: &[u8]| {
            String::from_utf8_lossy(bytes)
                .lines()
                .map(str::trim)
                .rfind(|l| !l.is_empty())
                .map(String::from)
        };
        let head = String::from_utf8_lossy(&self.head);
        let first = head.lines().map(str::trim).find(|l| !l.is_empty());
        let last = last_line(&self.tail).or_else(|| last_line(&self.head));
        (
            first.unwrap_or_default().to_string(),
            last.unwrap_or_default(),
        )
    }
}

fn keep_stderr(child: &mut Child) -> KeptStderr {
    let mut stderr = child.stderr.take();
    let kept = std::sync::Arc::new(std::sync::Mutex::new(Ends::default()));
    let (sender, done) = std::sync::mpsc::channel::<()>();
    let shared = std::sync::Arc::clone(&kept);
    std::thread::spawn(move || {
        let _ended = sender;
        if let Some(stderr) = stderr.as_mut() {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                if let Ok(mut kept) = shared.lock() {
                    kept.push(&chunk[..n]);
                }
            }
        }
    });
    KeptStderr { kept, done }
}

/// The note for a program that failed: its exit status and the first and last non-blank
/// lines of its error output.
fn failure(status: ExitStatus, stderr: &Ends) -> String {
    let (first, last) = stderr.first_and_last();
    let cut = |l: &str| l.chars().take(200).collect::<String>();
    let said = match (first.is_empty(), last.is_empty() || last == first) {
        (true, true) => String::new(),
        (false, true) => format!(": {}", cut(&first)),
        (true, false) => format!(": {}", cut(&last)),
        (false, false) => format!(": {} ... {}", cut(&first), cut(&last)),
    };
    format!("exited with {status}{said}")
}

/// What is wrong with the printed lines, or `None` when each is a solution of its puzzle;
/// a message naming a line also names its puzzle's line in the input (`input_lines`, where
/// known).
fn check_output(lines: impl BufRead, puzzles: &[Grid], input_lines: &[u64]) -> Option<String> {
    let from = |i: usize| {
        input_lines.get(i).map_or(String::new(), |l| {
            format!(" (its puzzle is on input line {l})")
        })
    };
    let mut count = 0usize;
    for (i, line) in lines.split(b'\n').enumerate() {
        let Ok(line) = line else {
            return Some(format!("line {}: cannot be read", i + 1));
        };
        let line = line.trim_ascii();
        if line.is_empty() && i >= puzzles.len() {
            continue;
        }
        let Some(puzzle) = puzzles.get(i) else {
            return Some(format!(
                "line {}: more lines than the {} puzzles",
                i + 1,
                puzzles.len()
            ));
        };
        let token = line
            .split(|&b| b == b':' || b == b',' || b.is_ascii_whitespace())
            .rev()
            .find(|t| t.len() == 81)
            .unwrap_or(line);
        let grid = Grid::from_bytes(token);
        let why = match &grid {
            Ok(grid) => grid.check_solution_of(puzzle).err().map(|e| e.to_string()),
            Err(e) => Some(e.to_string()),
        };
        if let Some(why) = why {
            // A puzzle with no solution has no solution line: any answer but a full grid (an
            // empty line, "no solution", the puzzle back) says so.
            let claims_a_grid = grid.as_ref().is_ok_and(Grid::is_complete);
            if claims_a_grid {
                return Some(format!("line {}: {why}{}", i + 1, from(i)));
            }
            if crate::solve(puzzle, 1).count > 0 {
                return Some(format!(
                    "line {}: no solution grid ({why}), but the puzzle has a solution{}",
                    i + 1,
                    from(i)
                ));
            }
        }
        count += 1;
    }
    (count < puzzles.len()).then(|| {
        format!(
            "{count} solution lines for {} puzzles (line {} is missing){}",
            puzzles.len(),
            count + 1,
            from(count)
        )
    })
}

/// Kills the program and its process group (it was started with `process_group(0)`), so what
/// it left running goes too.
fn kill_group(child: &mut std::process::Child) {
    crate::run::interrupt::kill_group(child.id());
    let _ = child.kill();
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUZZLE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    const SOLUTION: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    #[test]
    fn a_failure_note_gives_the_first_and_the_last_line_of_the_error_output() {
        let mut ends = Ends::default();
        ends.push(b"\n  \nTraceback (most recent call last):\n");
        // Far more than both ends keep, in pieces of every size.
        for k in 0..3000 {
            ends.push(format!("  frame {k}\n").as_bytes());
        }
        ends.push(b"ValueError: bad");
        ends.push(b" puzzle\n\n");
        assert_eq!(
            ends.first_and_last(),
            (
                "Traceback (most recent call last):".to_string(),
                "ValueError: bad puzzle".to_string()
            )
        );
        assert!(ends.head.len() <= Ends::KEEP && ends.tail.len() <= 2 * Ends::KEEP);
        let mut one = Ends::default();
        one.push(b"only this\n");
        assert_eq!(
            one.first_and_last(),
            ("only this".into(), "only this".into())
        );
        assert_eq!(
            Ends::default().first_and_last(),
            (String::new(), String::new())
        );
    }

    #[test]
    fn parses_name_and_command() {
        let e: External = "tdoku=./run_tdoku -x".parse().unwrap();
        assert_eq!(
            (e.name.as_str(), e.command.as_str()),
            ("tdoku", "./run_tdoku -x")
        );
        assert!("nocommand".parse::<External>().is_err());
        assert!("=cmd".parse::<External>().is_err());
        assert!("a,b=cmd".parse::<External>().is_err());
        assert!("a|b=cmd".parse::<External>().is_err());
        assert!("a\tb=cmd".parse::<External>().is_err());
    }

    #[test]
    fn output_lines_are_checked_against_their_puzzles() {
        let puzzle: Grid = PUZZLE.parse().unwrap();
        let two = [puzzle, puzzle];
        let ok = format!("{SOLUTION}\n{PUZZLE}:{SOLUTION}\n");
        assert_eq!(check_output(ok.as_bytes(), &two, &[]), None);
        let short = format!("{SOLUTION}\n");
        assert!(check_output(short.as_bytes(), &two, &[])
            .unwrap()
            .contains("1 solution lines for 2 puzzles"));
        let bad = SOLUTION.replacen('5', "4", 1);
        let wrong = format!("{SOLUTION}\n{bad}\n");
        assert!(check_output(wrong.as_bytes(), &two, &[])
            .unwrap()
            .starts_with("line 2:"));
        // "No solution" for a puzzle that has one is named as that, not as a bad grid.
        let gave_up = format!("{SOLUTION}\nno solution\n");
        let why = check_output(gave_up.as_bytes(), &two, &[7, 9]).unwrap();
        assert!(
            why.starts_with("line 2: no solution grid (")
                && why
                    .ends_with("), but the puzzle has a solution (its puzzle is on input line 9)"),
            "{why}"
        );
    }

    #[test]
    fn a_puzzle_with_no_solution_takes_any_answer_but_a_grid() {
        // A 1 where the solution has a 4: no clue repeats, but there is no solution.
        let none: Grid = format!("531{}", &PUZZLE[3..]).parse().unwrap();
        assert_eq!(crate::solve(&none, 1).count, 0);
        let puzzle: Grid = PUZZLE.parse().unwrap();
        let set = [puzzle, none, puzzle];
        for answer in ["", "no solution", "\"\"", &format!("{none}")] {
            let text = format!("{SOLUTION}\n{answer}\n{SOLUTION}\n");
            assert_eq!(check_output(text.as_bytes(), &set, &[]), None, "{answer:?}");
        }
        // A full grid claims a solution, which it cannot be.
        let text = format!("{SOLUTION}\n{SOLUTION}\n{SOLUTION}\n");
        assert!(check_output(text.as_bytes(), &set, &[])
            .unwrap()
            .starts_with("line 2:"));
        // A puzzle with a solution still needs it.
        let text = format!("{SOLUTION}\nno solution\n{SOLUTION}\n");
        assert!(
            check_output(text.as_bytes(), &[puzzle, puzzle, puzzle], &[])
                .unwrap()
                .starts_with("line 2:")
        );
    }
}
