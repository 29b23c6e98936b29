//! What a finished `solve` or `rate` run reports besides its rows, and how the command line
//! prints it.

use super::Finish;
use crate::error::Result;

/// The summary of a run over records, as [`RunReport`] prints and judges it.
pub trait RunSummary {
    /// The human-readable summary printed on stderr.
    fn to_text(&self) -> String;
    /// Records in the summary, and how many of them passed (solved, rated).
    fn passed(&self) -> (u64, u64);
}

/// What a finished `solve` or `rate` run reports.
#[derive(Debug, Clone)]
pub struct RunReport<S> {
    /// The summary (also printed, and written as JSON with `--summary`).
    pub summary: S,
    /// Inputs that held no records.
    pub empty_inputs: Vec<String>,
    /// Warnings for stderr, printed even with `quiet`: a shard left empty, a stopped run's rows
    /// that `--resume` cannot continue, a stop signal that came after the last record.
    pub warnings: Vec<String>,
    /// The run was stopped by a signal; the rows done so far are in `FILE.partial`.
    pub interrupted: bool,
    /// Rows kept from an interrupted run (`--resume`); they count in the summary.
    pub resumed_rows: u64,
    /// Remarks for stderr: the shard in effect, what `--resume` kept, where the rows of a
    /// stopped run are.
    pub notes: Vec<String>,
}

impl<S: RunSummary> RunReport<S> {
    /// Prints the report on stderr as the command line does (warnings always, the notes and
    /// the summary unless `quiet`) and returns the run's outcome: every record passed, some
    /// did not (or there were none), or the run was stopped by a signal.
    pub fn finish(&self, quiet: bool) -> Result<Finish> {
        // A stopped run may not have reached an input's first puzzle.
        if !self.interrupted {
            for name in &self.empty_inputs {
                stderr!(line: "warning: {name}: no puzzles found");
            }
        }
        self.warnings.iter().for_each(|w| stderr!(line: "{w}"));
        if !quiet {
            self.notes.iter().for_each(|note| stderr!(line: "{note}"));
            stderr!(text: "{}", self.summary.to_text());
        }
        let (records, passed) = self.summary.passed();
        Ok(if self.interrupted {
            Finish::Interrupted
        } else if records > 0 && passed == records {
            Finish::AllGood
        } else {
            Finish::SomeFailed
        })
    }
}
