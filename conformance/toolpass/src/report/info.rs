//! What a run was: the runner, the implementation it ran against, when, and
//! with which settings. The JSONL header carries it whole; the other reports
//! name the implementation.

use std::time::{SystemTime, UNIX_EPOCH};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolpass_scenario::Level;

/// What ran against what, and how.
#[derive(Debug, Clone, PartialEq)]
pub struct RunInfo {
    /// The runner's version.
    pub toolpass: String,
    /// The implementation, as it introduced itself.
    pub implementation: ImplementationInfo,
    /// When the scenarios started running.
    pub started: SystemTime,
    /// The settings of the run.
    pub config: Settings,
}

/// The implementation under test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ImplementationInfo {
    /// Its `serverInfo.name`.
    pub name: String,
    /// Its `serverInfo.version`.
    pub version: String,
    /// The command line it was started with.
    pub command: String,
    /// Its `serverInfo.description`: for an adapter, the configuration of
    /// the peer it drives (e.g. which grep backend).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The settings of a run. Read back too (`toolpass merge` holds shards to
/// the same settings), so fields added later must have a default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Settings {
    /// Workers, each with its own implementation process.
    pub jobs: usize,
    /// Seconds one request may take.
    pub timeout_s: f64,
    /// How many times each scenario ran.
    pub repeat: u32,
    /// One implementation process per scenario.
    pub isolate: bool,
    /// Which scenarios were selected.
    pub filters: Filters,
    /// The `--expected-failures` file, as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_failures: Option<String>,
    /// Whether snapshots that differed were rewritten (`--bless`).
    pub bless: bool,
    /// The shard this run took (`--partition`), `hash:K/N`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    /// The shards' reports this one was merged from (`toolpass merge`), as
    /// given, in shard order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged: Vec<String>,
}

/// The filter flags of a run; empty lists select everything.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Filters {
    /// `--filter` globs on ids.
    pub filter: Vec<String>,
    /// `--tag`.
    pub tag: Vec<String>,
    /// `--level`.
    pub level: Vec<Level>,
    /// `--area`.
    pub area: Vec<String>,
    /// `--profile`: `safety` took only the scenarios tagged `safety`.
    /// Absent for `full`, the default, so earlier reports read the same.
    #[serde(default, skip_serializing_if = "SuiteProfile::is_full")]
    pub profile: SuiteProfile,
}

/// Which part of the suite a run takes (`--profile`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SuiteProfile {
    /// Every scenario the other filters select.
    #[default]
    Full,
    /// Only the safety profile: scenarios tagged `safety`, which judge what
    /// every tool layer must guarantee whatever its design.
    Safety,
}

impl SuiteProfile {
    /// The profile as written on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            SuiteProfile::Full => "full",
            SuiteProfile::Safety => "safety",
        }
    }

    fn is_full(&self) -> bool {
        *self == SuiteProfile::Full
    }

    /// Whether a scenario with these tags belongs to the profile.
    pub fn takes(self, tags: &[String]) -> bool {
        match self {
            SuiteProfile::Full => true,
            SuiteProfile::Safety => tags.iter().any(|t| t == toolpass_scenario::SAFETY_TAG),
        }
    }
}

/// `time` as RFC 3339 in UTC, to the second: `2026-12-02T17:31:50Z`.
pub fn rfc3339(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// [`rfc3339`]'s form read back (`2026-12-02T17:31:50Z`); `None` for any
/// other text.
pub fn parse_rfc3339(text: &str) -> Option<SystemTime> {
    let (date, time) = text.strip_suffix('Z')?.split_once('T')?;
    let numbers = |text: &str, sep: char| -> Option<Vec<u64>> {
        text.split(sep).map(|n| n.parse().ok()).collect()
    };
    let (date, time) = (numbers(date, '-')?, numbers(time, ':')?);
    let (&[year, month, day], &[hour, minute, second]) = (date.as_slice(), time.as_slice()) else {
        return None;
    };
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let days = days_from_civil(year, month, day)?;
    Some(
        UNIX_EPOCH
            + std::time::Duration::from_secs(days * 86_400 + hour * 3600 + minute * 60 + second),
    )
}

/// The days from 1970-01-01 to a proleptic Gregorian date on or after it
/// (Howard Hinnant's `days_from_civil`, the inverse of [`civil_from_days`]).
fn days_from_civil(year: u64, month: u64, day: u64) -> Option<u64> {
    let year = if month <= 2 {
        year.checked_sub(1)?
    } else {
        year
    };
    let era = year / 400;
    let yoe = year % 400;
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe).checked_sub(719_468)
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, for days on or after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn at(secs: u64) -> String {
        rfc3339(UNIX_EPOCH + Duration::from_secs(secs))
    }

    #[test]
    fn rfc3339_in_utc_to_the_second() {
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_796_233_910), "2026-12-02T17:51:50Z");
        assert_eq!(at(4_107_542_399), "2100-02-28T23:59:59Z");
        assert_eq!(at(4_107_542_400), "2100-03-01T00:00:00Z");
    }

    #[test]
    fn rfc3339_reads_back_what_it_wrote_and_nothing_else() {
        for secs in [0, 951_782_400, 1_796_233_910, 4_107_542_399, 4_107_542_400] {
            let time = UNIX_EPOCH + Duration::from_secs(secs);
            assert_eq!(parse_rfc3339(&rfc3339(time)), Some(time));
        }
        for bad in [
            "",
            "2026-12-02",
            "2026-12-02T17:51:50",
            "2026-13-02T17:51:50Z",
            "1969-12-31T23:59:59Z",
            "2026-12-02T17:51Z",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }
}
