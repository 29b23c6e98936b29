//! The progress bar: by bytes when the input size is known, a counter otherwise, a step counter
//! for `bench`; hidden when stderr is not a terminal or the run is quiet, so callers never
//! branch on it.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The progress bar: by bytes when the input size is known, a counter otherwise; hidden when
/// stderr is not a terminal or the run is quiet, so callers never branch on it.
pub(crate) struct Progress {
    bar: ProgressBar,
    by_bytes: bool,
    records: u64,
    started: Instant,
}

impl Progress {
    /// A bar for `total_bytes` of input (unknown for stdin).
    pub(crate) fn new(total_bytes: Option<u64>, quiet: bool) -> Progress {
        let hidden = quiet || !std::io::stderr().is_terminal();
        let bar = match (hidden, total_bytes) {
            (true, _) => ProgressBar::hidden(),
            (false, Some(total)) => {
                let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
                bar.set_style(
                    ProgressStyle::with_template(
                        "{elapsed_precise} [{bar:30}] {bytes}/{total_bytes} {msg} ETA {eta}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
                );
                bar
            }
            (false, None) => {
                let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                bar.set_style(
                    ProgressStyle::with_template("{elapsed_precise} {spinner} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar
            }
        };
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress {
            bar,
            by_bytes: total_bytes.is_some(),
            records: 0,
            started: Instant::now(),
        }
    }

    /// A bar over `total` steps (for example `bench` configurations), with a message naming the
    /// current one; hidden when quiet or stderr is not a terminal.
    pub(crate) fn steps(total: u64, quiet: bool) -> Progress {
        let bar = if quiet || !std::io::stderr().is_terminal() {
            ProgressBar::hidden()
        } else {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar
        };
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress {
            bar,
            by_bytes: false,
            records: 0,
            started: Instant::now(),
        }
    }

    /// Shows `message` next to the bar.
    pub(crate) fn set_message(&self, message: String) {
        self.bar.set_message(message);
    }

    /// Counts one step done.
    pub(crate) fn step(&self) {
        self.bar.inc(1);
    }

    /// Counts `records` more done, with `bytes` read so far.
    pub(crate) fn advance(&mut self, records: u64, bytes: u64) {
        self.records += records;
        if self.bar.is_hidden() {
            return;
        }
        if self.by_bytes {
            self.bar.set_position(bytes);
        }
        let rate = self.records as f64 / self.started.elapsed().as_secs_f64().max(1e-9);
        self.bar
            .set_message(format!("{} puzzles, {:.0}/s", self.records, rate));
    }

    /// Removes the bar.
    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
