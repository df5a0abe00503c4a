use proptest::prelude::*;

use super::*;
use crate::testkit::tool_search::{model_matches_required, model_score_tool};
use crate::tool_search::{Deferral, SearchEntry, score_tool};

fn terms(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

fn score(entry: &SearchEntry, list: &[&str]) -> u32 {
    score_tool(entry, &terms(list))
}

fn builtin(name: &str, description: &str, hint: Option<&str>) -> SearchEntry {
    SearchEntry::builtin(name, description, hint, Deferral::DEFERRED)
}

/// What Qwen 0.24.4's exported `scoreTool` returns for built-in tools
/// (run on the published bundle); the first rows are its own tests.
#[test]
fn scores_agree_with_qwen() {
    let grep = builtin("grep", "", None);
    let grep_tool = builtin("grep_tool", "", None);
    let foo = builtin("foo", "this tool does slack things", None);
    let cron_create = builtin("cron_create", "scheduler", Some("schedule recurring timer"));
    let cron_delete = builtin(
        "cron_delete",
        "Deletes a scheduled job",
        Some("cron remove"),
    );
    let job_stop = builtin("job.stop", "Stops a JOB", None);
    let monitor = builtin(
        "monitor",
        "watch a background shell; CANCEL with stop",
        Some("watch tail"),
    );
    let cases: &[(&SearchEntry, &[&str], u32)] = &[
        (&grep, &["grep"], 10),
        (&grep_tool, &["grep"], 5),
        (&foo, &["slack"], 2),
        (&foo, &["unrelated"], 0),
        (&cron_create, &["schedule"], 6),
        (&grep, &["grep", "grep"], 20),
        (&grep_tool, &["tool"], 10),
        (&foo, &["tool"], 2),
        (&cron_create, &["remove", "cron"], 5),
        (&cron_delete, &["schedule"], 2),
        (&cron_delete, &["cancel"], 22),
        (&cron_delete, &["stop", "job"], 24),
        (&cron_delete, &["remove", "cron"], 31),
        (&cron_delete, &["delete"], 22),
        (&cron_delete, &["watch", "tail", "cancel"], 22),
        (&job_stop, &["cancel"], 18),
        (&job_stop, &["stop", "job"], 19),
        (&job_stop, &["clear"], 18),
        (&monitor, &["cancel"], 2),
        (&monitor, &["watch", "tail", "cancel"], 12),
    ];
    for (entry, list, expected) in cases {
        assert_eq!(score(entry, list), *expected, "{} {list:?}", entry.name);
        assert_eq!(
            model_score_tool(entry, &terms(list)),
            *expected,
            "model: {} {list:?}",
            entry.name
        );
    }
}

#[test]
fn mcp_tools_score_higher_on_their_name_and_match_their_server() {
    // Qwen's test: the same suffix match is 12 for MCP, 10 built in.
    let builtin = builtin("send_message", "an action", None);
    assert_eq!(score(&builtin, &["send_message"]), 10);
    // What Qwen 0.24.4's `scoreTool` gives a `DiscoveredMCPTool` of server
    // `slack`, tool `send_message`, description "Post a message" (run on
    // the published bundle): the server's name is a hint word (4) and
    // inside the name (6).
    let mcp = SearchEntry::mcp("mcp__slack__send_message", "Post a message", "slack");
    let cases: &[(&str, u32)] = &[
        ("send_message", 12),
        ("slack", 10),
        ("mcp", 10),
        ("message", 14),
        ("post", 2),
        ("stop", 0),
    ];
    for (term, expected) in cases {
        assert_eq!(score(&mcp, &[term]), *expected, "{term}");
    }
}

#[test]
fn required_terms_must_be_in_the_name() {
    let slack = builtin("slack_send", "send a message", None);
    let email = builtin("email_send", "send a message about slack", None);
    let required = Terms::new(&terms(&["send"]), &terms(&["slack"]));
    let index = |e: &SearchEntry| IndexedTool::new(&e.name, &e.description, None, false);
    assert!(required.admits(&index(&slack)));
    assert!(!required.admits(&index(&email)));
    // An action term is satisfied by any of its synonyms.
    let cancel = Terms::new(&[], &terms(&["cancel"]));
    assert!(cancel.admits(&index(&builtin("job_stop", "", None))));
}

/// Names, descriptions and hints over a small alphabet with the action
/// words in it, so exact, suffix, substring, hint and synonym matches all
/// happen.
fn entries() -> impl Strategy<Value = SearchEntry> {
    let word = prop_oneof![
        Just("stop".to_owned()),
        Just("cancel".to_owned()),
        Just("job".to_owned()),
        "[a-cA-C]{1,3}",
    ];
    let name = prop::collection::vec(word.clone(), 1..4).prop_flat_map(|words| {
        prop_oneof![Just("_"), Just("."), Just("-")].prop_map(move |sep| words.join(sep))
    });
    let text = prop::collection::vec(word, 0..5).prop_map(|w| w.join(" "));
    (name, text.clone(), prop::option::of(text), any::<bool>()).prop_map(
        |(name, description, hint, mcp)| SearchEntry {
            name,
            description,
            search_hint: hint,
            mcp,
            deferral: Deferral::DEFERRED,
        },
    )
}

fn term_lists() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        prop_oneof![
            Just("stop".to_owned()),
            Just("cancel".to_owned()),
            Just("delete".to_owned()),
            Just("job".to_owned()),
            "[a-c]{1,3}",
        ],
        0..4,
    )
}

proptest! {
    #[test]
    fn score_matches_its_model(entry in entries(), list in term_lists(), required in term_lists()) {
        let indexed = IndexedTool::new(&entry.name, &entry.description, entry.search_hint.as_deref(), entry.mcp);
        let compiled = Terms::new(&list, &required);
        prop_assert_eq!(compiled.score(&indexed), model_score_tool(&entry, &list));
        prop_assert_eq!(compiled.admits(&indexed), model_matches_required(&entry, &required));
    }

    #[test]
    fn a_score_is_the_sum_over_its_terms(entry in entries(), a in term_lists(), b in term_lists()) {
        // Hence adding a term never lowers a score, and term order does not
        // matter.
        let both: Vec<String> = a.iter().chain(&b).cloned().collect();
        let reversed: Vec<String> = both.iter().rev().cloned().collect();
        let indexed = IndexedTool::new(&entry.name, &entry.description, entry.search_hint.as_deref(), entry.mcp);
        let s = |list: &[String]| Terms::new(list, &[]).score(&indexed);
        prop_assert_eq!(s(&both), s(&a) + s(&b));
        prop_assert_eq!(s(&both), s(&reversed));
    }

    #[test]
    fn more_matches_never_score_less(entry in entries(), list in term_lists(), extra in "[a-c]{1,3}") {
        // Putting a term into the description, the hint or the name only
        // adds signal; and an MCP tool never scores below the same tool
        // built in.
        let s = |e: &SearchEntry| model_score_tool(e, &list);
        let mut richer = entry.clone();
        richer.description = format!("{} {}", entry.description, list.join(" "));
        richer.search_hint = Some(format!("{} {extra}", entry.search_hint.clone().unwrap_or_default()));
        prop_assert!(s(&richer) >= s(&entry));
        let mut as_mcp = entry.clone();
        as_mcp.mcp = true;
        let mut as_builtin = entry;
        as_builtin.mcp = false;
        prop_assert!(s(&as_mcp) >= s(&as_builtin));
    }
}
