use proptest::prelude::*;

use super::*;
use crate::testkit::tool_name::{model_hash_suffix_name, model_middle_cut_name};

fn agrees(rule: fn(&str) -> String, cases: &[(&str, &str)]) {
    for (name, expected) in cases {
        assert_eq!(rule(name), *expected, "{name:?}");
    }
}

/// Qwen's own examples (`mcp-tool.test.ts`, `describe('generateValidName')`
/// before 0.24), and what 0.24.4's `generateLegacyMcpToolName` returns for
/// the rest (run on the published bundle).
#[test]
fn middle_cut_agrees_with_qwen() {
    let cases: &[(&str, &str)] = &[
        ("myFunction", "myFunction"),
        ("invalid-name with spaces", "invalid-name_with_spaces"),
        ("!@#$%^&*()", "__________"),
        (
            "mcp__zybio__literature.search_pubmed",
            "mcp__zybio__literature.search_pubmed",
        ),
        ("mcp__srv__😀tool", "mcp__srv____tool"),
        ("é", "_"),
        ("", ""),
        (
            "mcp__toolpass-test__long_tool_name_long_tool_name_long_tool_name_long_tool_name_long_tool_name_",
            "mcp__toolpass-test__long_too___e_long_tool_name_long_tool_name_",
        ),
        (
            "mcp__toolpass-test__a_tool_name_long_enough_to_need_cutting_in_the_middle_yes",
            "mcp__toolpass-test__a_tool_n___o_need_cutting_in_the_middle_yes",
        ),
    ];
    agrees(middle_cut_name, cases);
    assert_eq!(
        middle_cut_name(&"x".repeat(80)),
        format!("{}___{}", "x".repeat(28), "x".repeat(32))
    );
    assert_eq!(middle_cut_name(&"a".repeat(63)).len(), 63);
    assert_eq!(middle_cut_name(&"a".repeat(64)).len(), 63);
}

/// What 0.24.4's `generateValidName` (`normalizeToolNameForProvider`)
/// returns, run on the published bundle.
#[test]
fn hash_suffix_agrees_with_qwen_0_24_4() {
    let cases: &[(&str, &str)] = &[
        ("myFunction", "myFunction"),
        (
            "invalid-name with spaces",
            "invalid-name_with_spaces_1dmjtub",
        ),
        (
            "mcp__zybio__literature.search_pubmed",
            "mcp__zybio__literature_search_pubmed_0bhdeaz",
        ),
        ("!@#$%^&*()", "tool____________0hwugtj"),
        ("mcp__srv__😀tool", "mcp__srv____tool_0awmqzn"),
        ("9lives", "tool_9lives_1qyx1hj"),
        ("", "tool__0ztntfp"),
        ("é", "tool___0tz86ys"),
        (
            "mcp__toolpass-test__long_tool_name_long_tool_name_long_tool_name_long_tool_name_long_tool_name_",
            "mcp__toolpass-test__long_tool_name_long_tool_name_long__0muq0vz",
        ),
        (
            "mcp__toolpass-test__a_tool_name_long_enough_to_need_cutting_in_the_middle_yes",
            "mcp__toolpass-test__a_tool_name_long_enough_to_need_cut_1242cd5",
        ),
    ];
    agrees(hash_suffix_name, cases);
    assert_eq!(
        hash_suffix_name(&"x".repeat(80)),
        format!("{}_0ss38cl", "x".repeat(55))
    );
    assert_eq!(hash_suffix_name(&"a".repeat(63)), "a".repeat(63));
    assert_eq!(
        hash_suffix_name(&"a".repeat(64)),
        format!("{}_1obvw5h", "a".repeat(55))
    );
}

#[test]
fn the_rule_is_chosen_by_value() {
    let name = mcp_qualified_name("docs", "search.pages");
    assert_eq!(name, "mcp__docs__search.pages");
    assert_eq!(NameRule::MiddleCut.apply(&name), middle_cut_name(&name));
    assert_eq!(NameRule::HashSuffix.apply(&name), hash_suffix_name(&name));
}

/// Names heavy in what the rules treat specially: the allowed set's edges,
/// `.`, astral characters (two UTF-16 units), and lengths around 63.
fn names() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9_.\\- ]{0,80}",
        "[a-z]{0,3}[😀é.!_]{0,4}[a-zA-Z0-9_]{50,70}",
        any::<String>(),
    ]
}

proptest! {
    #[test]
    fn middle_cut_matches_its_model(name in names()) {
        prop_assert_eq!(middle_cut_name(&name), model_middle_cut_name(&name));
    }

    #[test]
    fn hash_suffix_matches_its_model(name in names()) {
        prop_assert_eq!(hash_suffix_name(&name), model_hash_suffix_name(&name));
    }

    #[test]
    fn every_name_is_valid_and_short(name in names()) {
        let cut = middle_cut_name(&name);
        prop_assert!(cut.len() <= MAX_TOOL_NAME_LENGTH);
        prop_assert!(cut.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)));
        let hashed = hash_suffix_name(&name);
        prop_assert!(hashed.len() <= MAX_TOOL_NAME_LENGTH);
        prop_assert!(is_provider_safe(&hashed), "{hashed:?}");
    }

    #[test]
    fn a_valid_name_is_kept(name in names()) {
        // A rule's output is a fixed point: declaring it again changes nothing.
        let cut = middle_cut_name(&name);
        prop_assert_eq!(middle_cut_name(&cut), cut.clone());
        let hashed = hash_suffix_name(&name);
        prop_assert_eq!(hash_suffix_name(&hashed), hashed.clone());
    }

    #[test]
    fn the_cut_keeps_both_ends(name in "[a-z_]{64,120}") {
        let cut = middle_cut_name(&name);
        prop_assert!(name.starts_with(&cut[..28]));
        prop_assert!(name.ends_with(&cut[31..]));
        prop_assert_eq!(&cut[28..31], "___");
    }
}
