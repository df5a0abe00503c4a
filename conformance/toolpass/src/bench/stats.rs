//! Order statistics of a set of durations, in milliseconds.

use std::time::Duration;

use serde::Serialize;

/// What `toolpass bench` reports of a set of times.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Stats {
    /// How many.
    pub count: usize,
    /// The median.
    pub p50_ms: f64,
    /// The 95th percentile (nearest rank): the tail a user meets once in
    /// twenty calls, steadier than p99 on the few hundred calls of a bench.
    pub p95_ms: f64,
    /// The 99th percentile (nearest rank).
    pub p99_ms: f64,
    /// The fastest.
    pub min_ms: f64,
    /// The slowest.
    pub max_ms: f64,
}

impl Stats {
    /// The statistics of `times`; all zero when there are none.
    pub fn of(times: &[Duration]) -> Stats {
        let mut ms: Vec<f64> = times.iter().map(|t| t.as_secs_f64() * 1e3).collect();
        ms.sort_by(f64::total_cmp);
        Stats {
            count: ms.len(),
            p50_ms: percentile(&ms, 50.0),
            p95_ms: percentile(&ms, 95.0),
            p99_ms: percentile(&ms, 99.0),
            min_ms: ms.first().copied().unwrap_or(0.0),
            max_ms: ms.last().copied().unwrap_or(0.0),
        }
    }

    /// The median as a duration.
    pub fn p50(&self) -> Duration {
        Duration::from_secs_f64(self.p50_ms / 1e3)
    }

    /// `(max - min) / median`: 0 for a steady set.
    pub fn spread(&self) -> f64 {
        if self.p50_ms > 0.0 {
            (self.max_ms - self.min_ms) / self.p50_ms
        } else {
            0.0
        }
    }
}

/// The nearest-rank `p`th percentile of `sorted` (ascending); 0 when empty.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
