//! `bench`'s progress on stderr, since a bench can run for minutes with
//! nothing else to show: on a terminal a bar over every scenario run
//! (start-ups first), naming the round; elsewhere (CI logs) one line per
//! round when it ends.

use std::io::IsTerminal as _;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use toolpass::bench::BenchEvent;
use toolpass::report::text::counted;

pub(super) struct BenchProgress {
    bar: Option<ProgressBar>,
    /// The round being run, for the lines written without a bar.
    round: Mutex<String>,
}

impl BenchProgress {
    /// Progress of `runs` scenario runs (scenarios × implementations ×
    /// rounds, warm-up included); a bar only when stderr is a terminal.
    pub(super) fn new(runs: usize) -> BenchProgress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(runs as u64);
            if let Ok(style) =
                ProgressStyle::with_template("{elapsed:>4} [{bar:30}] {pos}/{len} {wide_msg}")
            {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        });
        BenchProgress {
            bar,
            round: Mutex::new(String::new()),
        }
    }

    pub(super) fn show(&self, event: BenchEvent) {
        match event {
            BenchEvent::Startup { done, total } => {
                if let Some(bar) = &self.bar {
                    bar.set_message(format!("start-ups {done}/{total}"));
                }
            }
            BenchEvent::Round {
                round,
                rounds,
                warmup,
            } => {
                let label = round_label(round, rounds, warmup);
                if let Some(bar) = &self.bar {
                    bar.set_message(label.clone());
                }
                if let Ok(mut current) = self.round.lock() {
                    *current = label;
                }
            }
            BenchEvent::Scenario { .. } => {
                if let Some(bar) = &self.bar {
                    bar.inc(1);
                }
            }
            BenchEvent::RoundDone {
                elapsed,
                scenarios,
                implementations,
            } => {
                if self.bar.is_none() {
                    let label = self.round.lock().map(|l| l.clone()).unwrap_or_default();
                    #[allow(clippy::print_stderr)] // Progress goes to stderr, the tables to stdout.
                    {
                        eprintln!(
                            "{}",
                            round_done(&label, scenarios, implementations, elapsed)
                        );
                    }
                }
            }
        }
    }

    /// Clears the bar, before the tables are printed.
    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// `round 2/6 (warm-up)`.
fn round_label(round: u32, rounds: u32, warmup: bool) -> String {
    format!(
        "round {round}/{rounds}{}",
        if warmup { " (warm-up)" } else { "" }
    )
}

/// The line a finished round leaves in a log.
fn round_done(label: &str, scenarios: usize, implementations: usize, elapsed: Duration) -> String {
    format!(
        "toolpass bench: {label}: {} × {} in {:.1} s",
        counted(scenarios, "scenario", "scenarios"),
        counted(implementations, "implementation", "implementations"),
        elapsed.as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_round_is_one_line_naming_round_and_what_ran() {
        assert_eq!(round_label(1, 3, true), "round 1/3 (warm-up)");
        assert_eq!(
            round_done(
                &round_label(3, 3, false),
                1,
                2,
                Duration::from_millis(2_340)
            ),
            "toolpass bench: round 3/3: 1 scenario × 2 implementations in 2.3 s"
        );
    }
}
