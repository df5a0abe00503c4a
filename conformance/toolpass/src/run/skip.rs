//! Why a scenario is skipped, as one type: written into the result's
//! `reason` (the text `--jsonl` carries) and read back from it, so the
//! summary can group a hundred skips into a few causes even for a report
//! read back from a file.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// A reason to skip a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// It calls tools the implementation does not declare (`tools/list`).
    Undeclared(Vec<String>),
    /// It needs toolpass/1 features the implementation does not advertise.
    Unadvertised(Vec<String>),
    /// It needs toolpass/1 features and the implementation is a plain MCP
    /// server, which has none.
    PlainMcp(Vec<String>),
}

const UNDECLARED: (&str, &str) = (
    "calls ",
    ", which the implementation does not declare (tools/list)",
);
const UNADVERTISED: (&str, &str) = ("needs ", ", which the implementation does not advertise");
const PLAIN_MCP: (&str, &str) = (
    "needs ",
    "; the implementation is a plain MCP server (tools/list and tools/call only)",
);

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ((before, after), names) = self.parts();
        write!(f, "{before}{}{after}", names.join(", "))
    }
}

impl Skip {
    fn parts(&self) -> ((&'static str, &'static str), &[String]) {
        match self {
            Skip::Undeclared(names) => (UNDECLARED, names),
            Skip::Unadvertised(names) => (UNADVERTISED, names),
            Skip::PlainMcp(names) => (PLAIN_MCP, names),
        }
    }

    /// The reason a skipped result carries, read back; `None` for a text
    /// this runner does not write.
    pub fn parse(reason: &str) -> Option<Skip> {
        let names = |(before, after): (&str, &str)| {
            let list = reason.strip_prefix(before)?.strip_suffix(after)?;
            Some(list.split(", ").map(str::to_owned).collect::<Vec<_>>())
        };
        names(UNDECLARED)
            .map(Skip::Undeclared)
            .or_else(|| names(UNADVERTISED).map(Skip::Unadvertised))
            .or_else(|| names(PLAIN_MCP).map(Skip::PlainMcp))
    }
}

/// Skips with one cause, for the summary: `35 call tools the
/// implementation does not declare: grep_search, glob`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SkipGroup {
    /// How many results were skipped for it.
    pub count: usize,
    /// The cause, worded for `count` (`need fault:fs.stat`).
    pub cause: String,
}

impl fmt::Display for SkipGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.count, self.cause)
    }
}

/// The skip reasons grouped by cause, the largest group first. Undeclared
/// tools and a plain MCP server's missing features are one group each (the
/// names united: what to declare or implement); unadvertised features are
/// a group per set of features, since each set is one thing to add; a
/// reason this runner did not write is a group of its own.
pub fn group<'a>(reasons: impl IntoIterator<Item = &'a str>) -> Vec<SkipGroup> {
    let mut undeclared = (0, BTreeSet::new());
    let mut plain = (0, BTreeSet::new());
    let mut features: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    let mut other: BTreeMap<&str, usize> = BTreeMap::new();
    for reason in reasons {
        match Skip::parse(reason) {
            Some(Skip::Undeclared(names)) => {
                undeclared.0 += 1;
                undeclared.1.extend(names);
            }
            Some(Skip::PlainMcp(names)) => {
                plain.0 += 1;
                plain.1.extend(names);
            }
            Some(Skip::Unadvertised(names)) => *features.entry(names).or_default() += 1,
            None => *other.entry(reason).or_default() += 1,
        }
    }
    let verb = |count: usize, one: &str, many: &str| if count == 1 { one } else { many }.to_owned();
    let mut groups = Vec::new();
    // Each united group: its count, its names, and its words for one and many.
    let united = [
        (
            undeclared,
            ("calls", "call"),
            " tools the implementation does not declare: ",
        ),
        (
            plain,
            ("needs", "need"),
            " toolpass features, and the implementation is a plain MCP server: ",
        ),
    ];
    for ((count, names), (one, many), cause) in united {
        if count > 0 {
            let names: Vec<String> = names.into_iter().collect();
            groups.push(SkipGroup {
                count,
                cause: verb(count, one, many) + cause + &names.join(", "),
            });
        }
    }
    for (names, count) in features {
        groups.push(SkipGroup {
            count,
            cause: verb(count, "needs ", "need ") + &names.join(", "),
        });
    }
    for (reason, count) in other {
        groups.push(SkipGroup {
            count,
            cause: reason.to_owned(),
        });
    }
    // Largest first; among equals, by cause, so the order is stable.
    groups.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.cause.cmp(&b.cause)));
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn every_reason_reads_back_as_written() {
        for skip in [
            Skip::Undeclared(names(&["grep_search", "glob"])),
            Skip::Unadvertised(names(&["fault:fs.stat"])),
            Skip::PlainMcp(names(&["prior_read", "session"])),
        ] {
            assert_eq!(Skip::parse(&skip.to_string()), Some(skip));
        }
        assert_eq!(Skip::parse("something else"), None);
        assert_eq!(
            Skip::Unadvertised(names(&["a", "b"])).to_string(),
            "needs a, b, which the implementation does not advertise"
        );
    }

    #[test]
    fn skips_group_by_cause_largest_first_worded_for_their_count() {
        let undeclared_glob = Skip::Undeclared(names(&["glob"])).to_string();
        let undeclared_grep = Skip::Undeclared(names(&["grep_search"])).to_string();
        let stat = Skip::Unadvertised(names(&["fault:fs.stat"])).to_string();
        let both = Skip::Unadvertised(names(&["fault:fs.stat", "prior_read"])).to_string();
        let mut reasons = vec![undeclared_glob.as_str(); 2];
        reasons.push(&undeclared_grep);
        reasons.extend([stat.as_str(), stat.as_str(), both.as_str(), "odd"]);
        let groups: Vec<String> = group(reasons).iter().map(ToString::to_string).collect();
        assert_eq!(
            groups,
            [
                "3 call tools the implementation does not declare: glob, grep_search",
                "2 need fault:fs.stat",
                "1 needs fault:fs.stat, prior_read",
                "1 odd",
            ]
        );
        let plain = Skip::PlainMcp(names(&["prior_read"])).to_string();
        assert_eq!(
            group([plain.as_str()])[0].to_string(),
            "1 needs toolpass features, and the implementation is a plain MCP server: prior_read"
        );
    }
}
