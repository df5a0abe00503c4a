//! `run`'s progress on stderr. On a terminal, a progress bar (done/total,
//! failures so far, what is running) with each failing scenario printed
//! above it as it finishes; elsewhere (CI logs), one compact line per
//! finished scenario.

use std::io::IsTerminal as _;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use toolpass::report::text::{Style, printable_line};
use toolpass::run::{Event, ScenarioResult, Verdict};

pub(super) struct Progress {
    bar: Option<ProgressBar>,
    style: Style,
    total: usize,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    done: usize,
    failed: usize,
    running: Vec<String>,
}

impl Progress {
    /// Progress of a run of `total` scenario results.
    pub(super) fn new(total: usize) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = terminal.then(|| {
            let bar = ProgressBar::new(total as u64);
            if let Ok(style) =
                ProgressStyle::with_template("{elapsed:>4} [{bar:30}] {pos}/{len} {wide_msg}")
            {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        });
        Progress {
            bar,
            style: Style::for_terminal(terminal),
            total,
            state: Mutex::new(State::default()),
        }
    }

    pub(super) fn show(&self, event: &Event) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        if let Some(bar) = &self.bar
            && state.done == 0
            && state.running.is_empty()
        {
            // Drawn from the first scenario on, so the lines printed before
            // the run (the probe's) stay above it.
            bar.enable_steady_tick(Duration::from_millis(250));
        }
        match event {
            // A scenario's id is its file name, which may hold anything.
            Event::Started { id } => state.running.push(printable_line(id)),
            Event::Finished(result) => {
                let id = printable_line(&result.id);
                if let Some(i) = state.running.iter().position(|running| *running == id) {
                    state.running.remove(i);
                }
                state.done += 1;
                state.failed += usize::from(result.verdict.is_failure());
                self.finished(result, state.done);
            }
        }
        if let Some(bar) = &self.bar {
            bar.set_message(self.message(&state));
        }
    }

    fn finished(&self, result: &ScenarioResult, done: usize) {
        let line = format!(
            "{} {} {}",
            self.style.verdict(result.verdict),
            printable_line(&result.id),
            elapsed(result.duration)
        );
        match &self.bar {
            Some(bar) => {
                if result.verdict.is_failure() {
                    bar.println(line);
                }
                bar.inc(1);
            }
            None => {
                let width = self.total.to_string().len();
                #[allow(clippy::print_stderr)] // Progress goes to stderr, the report to stdout.
                {
                    eprintln!("[{done:>width$}/{}] {line}", self.total);
                }
            }
        }
    }

    /// The bar's message: failures so far and what is running.
    fn message(&self, state: &State) -> String {
        let failed = format!("{} failed", state.failed);
        let failed = if state.failed > 0 {
            self.style.like(Verdict::Fail, &failed)
        } else {
            failed
        };
        match state.running.as_slice() {
            [] => failed,
            [one] => format!("{failed} · {one}"),
            [first, rest @ ..] => format!("{failed} · {first} (+{})", rest.len()),
        }
    }

    /// Clears the bar, before the report is printed.
    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// A duration as people read it: `12 ms`, `3.4 s`.
fn elapsed(duration: Duration) -> String {
    if duration < Duration::from_secs(1) {
        format!("{} ms", duration.as_millis())
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Progress with no bar and no colours.
    fn plain(total: usize) -> Progress {
        Progress {
            bar: None,
            style: Style::new(false),
            total,
            state: Mutex::new(State::default()),
        }
    }

    #[test]
    fn the_message_counts_failures_and_names_what_runs() {
        let progress = plain(3);
        let mut state = State::default();
        assert_eq!(progress.message(&state), "0 failed");
        state.running = vec!["edit/a".into()];
        assert_eq!(progress.message(&state), "0 failed · edit/a");
        state.running.push("edit/b".into());
        state.running.push("grep/c".into());
        state.failed = 2;
        assert_eq!(progress.message(&state), "2 failed · edit/a (+2)");
    }

    #[test]
    fn a_scenario_id_with_terminal_escapes_is_shown_escaped() {
        let progress = plain(1);
        progress.show(&Event::Started {
            id: "a\x1b]52;c;eA==\x07\x1b[2J".into(),
        });
        let message = progress.message(&progress.state.lock().unwrap());
        assert_eq!(
            message,
            "0 failed · a\\u{001b}]52;c;eA==\\u{0007}\\u{001b}[2J"
        );
    }

    #[test]
    fn durations_read_as_milliseconds_then_seconds() {
        assert_eq!(elapsed(Duration::from_micros(12_400)), "12 ms");
        assert_eq!(elapsed(Duration::from_millis(3_460)), "3.5 s");
    }
}
