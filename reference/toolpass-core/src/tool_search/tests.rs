use proptest::prelude::*;

use super::*;
use crate::testkit::tool_search::model_search;

fn keywords(query: &str) -> Keywords {
    match parse_query(query, 20) {
        Ok(Query::Keywords(k)) => k,
        other => panic!("{other:?}"),
    }
}

/// Qwen's declaration table: not deferred, always loaded, or revealed.
#[test]
fn the_declaration_table_has_its_four_rows() {
    assert!(Deferral::EAGER.declared(false));
    let always = Deferral {
        should_defer: true,
        always_load: true,
    };
    assert!(always.declared(false));
    assert!(Deferral::DEFERRED.hidden(false));
    assert!(Deferral::DEFERRED.declared(true));
}

fn registry() -> Vec<SearchEntry> {
    vec![
        SearchEntry::builtin(
            "cron_create",
            "schedules recurring jobs",
            Some("schedule cron timer"),
            Deferral::DEFERRED,
        ),
        SearchEntry::builtin("lsp", "language server", None, Deferral::DEFERRED),
        SearchEntry::builtin(
            "schedule_run",
            "schedule something",
            Some("schedule run"),
            Deferral::EAGER,
        ),
        SearchEntry::builtin("slack_send", "send a message", None, Deferral::DEFERRED),
        SearchEntry::builtin("email_send", "send a message", None, Deferral::DEFERRED),
        SearchEntry::mcp("mcp__slack__post", "Post a message", "slack"),
        SearchEntry::builtin(
            "tool_search",
            "finds tools",
            Some("tool search discover find schema"),
            Deferral {
                should_defer: false,
                always_load: true,
            },
        ),
    ]
}

#[test]
fn candidates_are_the_hidden_deferred_tools() {
    let entries = registry();
    let index = SearchIndex::new(&entries);
    let nothing = |_: &str| false;
    // Qwen's tests: a declared tool is not a candidate...
    assert_eq!(
        index.search(&keywords("schedule"), 5, nothing),
        ["cron_create"]
    );
    assert!(index.search(&keywords("discover"), 5, nothing).is_empty());
    // ...nor is a revealed one, which a later search no longer finds.
    assert!(
        index
            .search(&keywords("schedule"), 5, |n| n == "cron_create")
            .is_empty()
    );
    // +slack keeps the tools with slack in the name: slack_send scores
    // 5 + 10 + 2, the MCP tool 6 + 4 (its server is a hint word).
    assert_eq!(
        index.search(&keywords("+slack send"), 5, nothing),
        ["slack_send", "mcp__slack__post"]
    );
    assert_eq!(
        index.search(&keywords("send message"), 5, nothing),
        ["email_send", "slack_send", "mcp__slack__post"]
    );
    assert_eq!(
        index.search(&keywords("send message"), 1, nothing),
        ["email_send"]
    );
}

#[test]
fn equal_scores_rank_by_locale_order() {
    let names = [
        "tool_B", "tool-a", "tool_b", "toolA", "tool.a", "tool1", "toola",
    ];
    let entries: Vec<SearchEntry> = names
        .iter()
        .map(|n| SearchEntry::builtin(n, "does the thing", None, Deferral::DEFERRED))
        .collect();
    let index = SearchIndex::new(&entries);
    assert_eq!(
        index.search(&keywords("thing"), 20, |_| false),
        [
            "tool_b", "tool_B", "tool-a", "tool.a", "tool1", "toola", "toolA"
        ]
    );
}

/// Many tools sharing few names, words and hints, so ties are common.
fn catalogue() -> impl Strategy<Value = Vec<SearchEntry>> {
    let word = prop_oneof![
        Just("stop"),
        Just("job"),
        Just("send"),
        Just("a"),
        Just("b")
    ];
    let entry = (
        prop::collection::vec(word.clone(), 1..3),
        prop::collection::vec(word.clone(), 0..4),
        prop::option::of(word),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(name, description, hint, mcp, deferred)| SearchEntry {
            name: name.join("_"),
            description: description.join(" "),
            search_hint: hint.map(str::to_owned),
            mcp,
            deferral: if deferred {
                Deferral::DEFERRED
            } else {
                Deferral::EAGER
            },
        });
    prop::collection::vec(entry, 0..40)
}

proptest! {
    #[test]
    fn search_matches_its_model(
        entries in catalogue(),
        query in "[+]?(stop|job|send|a|b|cancel) [+]?(job|send|b)?",
        max in 1_usize..=20,
        revealed_mask in any::<u64>(),
    ) {
        let Ok(Query::Keywords(k)) = parse_query(&query, max) else {
            return Ok(());
        };
        let revealed = |name: &str| entries.iter().position(|e| e.name == name).is_some_and(|i| revealed_mask >> (i % 64) & 1 == 1);
        let index = SearchIndex::new(&entries);
        prop_assert_eq!(
            index.search(&k, max, revealed),
            model_search(&entries, &k.terms, &k.required, max, revealed)
        );
    }

    #[test]
    fn the_candidates_order_does_not_show(entries in catalogue(), rotate in 0_usize..40, query in "(stop|job|send) (a|b)?") {
        let Ok(Query::Keywords(k)) = parse_query(&query, 20) else {
            return Ok(());
        };
        let mut shuffled = entries.clone();
        if !shuffled.is_empty() {
            let by = rotate % shuffled.len();
            shuffled.rotate_left(by);
            shuffled.reverse();
        }
        let first = SearchIndex::new(&entries);
        let second = SearchIndex::new(&shuffled);
        prop_assert_eq!(first.search(&k, 20, |_| false), second.search(&k, 20, |_| false));
    }

    #[test]
    fn every_result_has_every_required_term(entries in catalogue(), query in "\\+(stop|job|send) (a|b)") {
        let Ok(Query::Keywords(k)) = parse_query(&query, 20) else {
            return Ok(());
        };
        let index = SearchIndex::new(&entries);
        let terms = Terms::new(&k.terms, &k.required);
        for name in index.search(&k, 20, |_| false) {
            let tool = IndexedTool::new(name, "", None, false);
            prop_assert!(terms.admits(&tool), "{name} lacks {:?}", k.required);
        }
    }
}
