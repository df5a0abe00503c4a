//! How often a running command's output is reported: at most once per
//! interval, the first report at once and a trailing one for output that
//! arrived meanwhile (`OUTPUT_UPDATE_INTERVAL_MS` and its trailing flush in
//! `tools/shell.ts`). Pure: the caller passes the time.

use std::time::{Duration, Instant};

/// Qwen's `OUTPUT_UPDATE_INTERVAL_MS`.
pub const OUTPUT_UPDATE_INTERVAL: Duration = Duration::from_millis(1000);

/// The throttle's state.
#[derive(Debug)]
pub struct Throttle {
    interval: Duration,
    last: Option<Instant>,
    due: Option<Instant>,
}

impl Throttle {
    /// A throttle allowing one report per `interval`.
    #[must_use]
    pub fn new(interval: Duration) -> Self {
        Self {
            interval,
            last: None,
            due: None,
        }
    }

    /// Output arrived at `now`: true to report at once; otherwise a report is
    /// due at [`Throttle::due`].
    pub fn output(&mut self, now: Instant) -> bool {
        // Qwen's test is `Date.now() - lastUpdateTime > INTERVAL`.
        if self
            .last
            .is_none_or(|last| now.duration_since(last) > self.interval)
        {
            self.report(now);
            return true;
        }
        if self.due.is_none() {
            self.due = self.last.map(|last| last + self.interval);
        }
        false
    }

    /// When the trailing report is due, if one is.
    #[must_use]
    pub fn due(&self) -> Option<Instant> {
        self.due
    }

    /// Time passed: true when the trailing report is due now.
    pub fn tick(&mut self, now: Instant) -> bool {
        if self.due.is_some_and(|due| now >= due) {
            self.report(now);
            return true;
        }
        false
    }

    /// The report just made was delivered at `at`: the next interval counts
    /// from there, so a slow receiver cannot get two reports closer than the
    /// interval.
    pub fn delivered(&mut self, at: Instant) {
        self.last = Some(at);
    }

    fn report(&mut self, now: Instant) {
        self.last = Some(now);
        self.due = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_at_once_then_at_most_once_per_interval() {
        let start = Instant::now();
        let at = |ms| start + Duration::from_millis(ms);
        let mut t = Throttle::new(Duration::from_millis(1000));
        assert!(t.output(at(0)));
        assert!(!t.output(at(10)));
        assert!(!t.output(at(500)));
        assert_eq!(t.due(), Some(at(1000)));
        assert!(!t.tick(at(999)));
        assert!(t.tick(at(1000)));
        assert_eq!(t.due(), None);
        assert!(!t.output(at(1500)));
        assert!(t.output(at(2001)), "an interval after the trailing report");
    }

    #[test]
    fn no_trailing_report_without_output_after_the_first() {
        let start = Instant::now();
        let mut t = Throttle::new(Duration::from_millis(100));
        assert!(t.output(start));
        assert!(!t.tick(start + Duration::from_secs(5)));
    }
}
