use proptest::prelude::*;

use super::*;

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

fn selection(query: &str, max: usize) -> Selection {
    match parse_query(query, max) {
        Ok(Query::Select(selection)) => selection,
        other => panic!("{query:?} is not a selection: {other:?}"),
    }
}

fn keywords(query: &str) -> Keywords {
    match parse_query(query, DEFAULT_MAX_RESULTS) {
        Ok(Query::Keywords(keywords)) => keywords,
        other => panic!("{query:?} is not a keyword query: {other:?}"),
    }
}

/// What Qwen 0.24.4's exported `tokenize` returns for each (run on the
/// published bundle); the first two are its own tests.
#[test]
fn tokenize_agrees_with_qwen() {
    let cases: &[(&str, &[&str])] = &[
        ("SlACK Send Message", &["slack", "send", "message"]),
        ("   foo    bar  ", &["foo", "bar"]),
        ("+slack send", &["+slack", "send"]),
        ("how do I stop the cron job?", &["stop", "cron", "job"]),
        ("\"slack\", (email)", &["slack", "email"]),
        ("a I to", &[]),
        ("++foo !+bar +x +", &["++foo", "+bar"]),
        (
            "Ünïcode_ÉTÉ naïve… «quoted»",
            &["ünïcode_été", "naïve", "quoted"],
        ),
        ("𝒳 x 😀😀 ab", &["𝒳", "ab"]),
        (
            "C# c++ .net -x- #tag",
            &["c#", "c++", ".net", "-x-", "#tag"],
        ),
        ("select: nothing", &["select", "nothing"]),
    ];
    for (query, expected) in cases {
        assert_eq!(tokenize(query), strings(expected), "{query:?}");
    }
}

#[test]
fn keywords_split_required_terms_and_keep_them_scored() {
    let parsed = keywords("+Slack send a message");
    assert_eq!(parsed.required, strings(&["slack"]));
    assert_eq!(parsed.terms, strings(&["slack", "send", "message"]));
    // `!+bar` loses its `!` and so reads as required, as in Qwen.
    let parsed = keywords("++foo !+bar");
    assert_eq!(parsed.required, strings(&["+foo", "bar"]));
    assert_eq!(parsed.terms, strings(&["+foo", "bar"]));
}

#[test]
fn queries_that_ask_for_nothing_are_errors() {
    assert_eq!(parse_query("", 5), Err(QueryError::Empty));
    assert_eq!(parse_query(" \t\u{3000}\n", 5), Err(QueryError::Empty));
    assert_eq!(
        parse_query("the of a to", 5),
        Err(QueryError::NoSearchTerms)
    );
    assert_eq!(parse_query("+ ! ?", 5), Err(QueryError::NoSearchTerms));
    assert_eq!(parse_query("select:", 5), Err(QueryError::NoToolNames));
    assert_eq!(
        parse_query("SELECT: , '' ,\"\"", 5),
        Err(QueryError::NoToolNames)
    );
    assert!(
        QueryError::NoSearchTerms
            .message()
            .starts_with("Error: no search terms")
    );
    assert_eq!(QueryError::Empty.display(), "Empty query");
}

#[test]
fn select_strips_one_layer_of_matching_quotes_and_dedupes() {
    let parsed = selection(
        r#"Select: "cron_list" ,'cron_create',cron_list, CRON_LIST,"'x'",'y",""z"""#,
        20,
    );
    assert_eq!(
        parsed.names,
        strings(&["cron_list", "cron_create", "'x'", "'y\"", "\"z\""])
    );
    assert!(parsed.truncated.is_empty());
    assert_eq!(selection("select:\"", 5).names, strings(&["\""]));
}

#[test]
fn a_selection_resolves_without_case_and_keeps_the_models_spelling_of_the_missing() {
    let parsed = selection("select:Cron_List,MONITOR,nope,Tool_Call", 5);
    let registered = ["cron_list", "monitor", "tool_call", "TOOL_CALL", "edit"];
    let resolved = parsed.resolve(registered);
    assert_eq!(resolved.found, ["cron_list", "monitor", "TOOL_CALL"]);
    assert_eq!(resolved.missing, strings(&["nope"]));
}

#[test]
fn select_lists_what_it_did_not_look_up() {
    let parsed = selection("select:a,b,a,c,d", 2);
    assert_eq!(parsed.names, strings(&["a", "b"]));
    assert_eq!(parsed.truncated, strings(&["c", "d"]));
}

#[test]
fn ten_thousand_names_are_cut_at_max_results() {
    let names: Vec<String> = (0..10_000).map(|i| format!("tool_{i}")).collect();
    let query = format!("select:{}", names.join(","));
    let parsed = selection(&query, max_results(Some(20)));
    assert_eq!(parsed.names, names[..20]);
    assert_eq!(parsed.truncated, names[20..]);
}

#[test]
fn max_results_is_clamped_as_qwen_clamps_it() {
    assert_eq!(max_results(None), DEFAULT_MAX_RESULTS);
    assert_eq!(max_results(Some(0)), 1);
    assert_eq!(max_results(Some(-7)), 1);
    assert_eq!(max_results(Some(3)), 3);
    assert_eq!(max_results(Some(100)), HARD_MAX_RESULTS);
    assert_eq!(max_results(Some(i64::MAX)), HARD_MAX_RESULTS);
}

#[test]
fn the_term_class_is_unicode_letters_and_numbers() {
    // Letters and numbers of every category; not marks, symbols or
    // punctuation, which `char::is_alphanumeric` would partly admit.
    for c in ['é', 'ß', 'Ж', '中', 'ǅ', 'ʰ', '٣', 'Ⅻ', '½', '_', '#'] {
        assert!(is_term_char(c), "{c:?}");
    }
    for c in ['\u{301}', '\u{345}', '…', '«', '😀', '€', '!', ' '] {
        assert!(!is_term_char(c), "{c:?}");
    }
}

proptest! {
    #[test]
    fn every_term_is_lowercase_long_enough_and_no_stop_word(query in "[ a-zA-Z+#.!?,É]{0,40}") {
        // Stated of the token as Qwen returns it: a word's own `+` survives
        // the stripping, so `!+.` gives `+.` and `!+to` gives `+to`.
        for token in tokenize(&query) {
            prop_assert_eq!(token.to_lowercase(), token.clone());
            prop_assert!(token.encode_utf16().count() >= 2);
            prop_assert!(!STOP_WORDS.contains(&token.as_str()));
            prop_assert!(token.starts_with(is_term_char) && token.ends_with(is_term_char));
        }
    }

    #[test]
    fn a_selection_keeps_every_distinct_name_once(names in prop::collection::vec("[a-cA-C_]{1,3}", 0..30), max in 1_usize..=20) {
        let query = format!("select:{}", names.join(","));
        let Ok(Query::Select(parsed)) = parse_query(&query, max) else {
            prop_assert!(names.is_empty());
            return Ok(());
        };
        prop_assert!(parsed.names.len() <= max);
        let all: Vec<String> = parsed.names.iter().chain(&parsed.truncated).map(|n| n.to_lowercase()).collect();
        let mut distinct: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
        let mut seen = std::collections::HashSet::new();
        distinct.retain(|n| seen.insert(n.clone()));
        prop_assert_eq!(all, distinct);
    }
}
