//! A generated registry of deferred tools for the `tool_search` bench: what
//! a session with many MCP servers connected declares by name only.
//!
//! Nine tools in ten come from MCP servers (`mcp__<server>__<verb>_<noun>`,
//! hint `mcp <server>`), the rest are built-in tools with a search hint.
//! Descriptions are one to three sentences (about 60 to 250 bytes) from a
//! small vocabulary, so common query words match hundreds of tools and ties
//! are frequent, which is what the ranking has to cope with. Deterministic
//! (a xorshift from a fixed starting state).

use std::collections::HashSet;

use toolpass_core::tool_search::{Deferral, SearchEntry};

use crate::input::XorShift;

const SERVERS: &[&str] = &[
    "github",
    "slack",
    "jira",
    "linear",
    "postgres",
    "sentry",
    "notion",
    "figma",
    "stripe",
    "datadog",
    "gitlab",
    "confluence",
    "k8s",
    "aws",
    "gcp",
    "redis",
];
const VERBS: &[&str] = &[
    "list", "get", "create", "update", "delete", "search", "send", "close", "cancel", "stop",
    "start", "merge", "comment", "assign", "archive", "export",
];
const NOUNS: &[&str] = &[
    "issue",
    "pull_request",
    "message",
    "channel",
    "ticket",
    "query",
    "table",
    "event",
    "page",
    "invoice",
    "metric",
    "pipeline",
    "pod",
    "bucket",
    "key",
    "user",
    "project",
    "release",
];
const WORDS: &[&str] = &[
    "the",
    "a",
    "returns",
    "for",
    "given",
    "with",
    "optional",
    "filters",
    "results",
    "paginated",
    "by",
    "id",
    "name",
    "status",
    "workspace",
    "repository",
    "current",
    "user",
    "and",
    "of",
    "items",
    "recent",
    "all",
    "matching",
    "when",
    "schedule",
    "report",
    "data",
];

/// How many tools share one instance of each server: later tools come from
/// `github-1`, `github-2`, … so that names stay distinct.
const TOOLS_PER_SERVER_INSTANCE: usize = 2_000;

/// `count` deferred tools, every name distinct.
#[must_use]
pub fn deferred_tools(count: usize) -> Vec<SearchEntry> {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut taken = HashSet::new();
    let mut tools = Vec::with_capacity(count);
    while tools.len() < count {
        let i = tools.len();
        let verb = VERBS[rng.below(VERBS.len())];
        let noun = NOUNS[rng.below(NOUNS.len())];
        let entry = if i % 10 == 9 {
            let name = format!("{verb}_{noun}_{i}");
            let hint = format!("{noun} {verb} {}", WORDS[rng.below(WORDS.len())]);
            SearchEntry::builtin(
                &name,
                &description(&mut rng, verb, noun),
                Some(&hint),
                Deferral::DEFERRED,
            )
        } else {
            let server = match (
                SERVERS[rng.below(SERVERS.len())],
                i / TOOLS_PER_SERVER_INSTANCE,
            ) {
                (server, 0) => server.to_owned(),
                (server, instance) => format!("{server}-{instance}"),
            };
            let name = format!("mcp__{server}__{verb}_{noun}");
            SearchEntry::mcp(&name, &description(&mut rng, verb, noun), &server)
        };
        // A name drawn twice is drawn again.
        if taken.insert(entry.name.clone()) {
            tools.push(entry);
        }
    }
    tools
}

fn description(rng: &mut XorShift, verb: &str, noun: &str) -> String {
    let mut text = format!("{}s a {}.", capitalize(verb), noun.replace('_', " "));
    for _ in 0..rng.below(3) {
        text.push(' ');
        let words: Vec<&str> = (0..6 + rng.below(12))
            .map(|_| WORDS[rng.below(WORDS.len())])
            .collect();
        text.push_str(&capitalize(&words.join(" ")));
        text.push('.');
    }
    text
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_most_tools_are_mcp() {
        let tools = deferred_tools(10_000);
        let names: HashSet<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names.len(), tools.len());
        assert_eq!(tools.iter().filter(|t| t.mcp).count(), 9_000);
        assert_eq!(deferred_tools(1_000), tools[..1_000]);
        let bytes: usize = tools.iter().map(|t| t.description.len()).sum();
        assert!(
            (40..300).contains(&(bytes / tools.len())),
            "{} bytes a description",
            bytes / tools.len()
        );
    }
}
