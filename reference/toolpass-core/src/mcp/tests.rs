use super::*;

#[test]
fn a_tool_is_named_for_its_server_and_shown_with_it() {
    assert_eq!(tool_name("notes", "read_note"), "mcp__notes__read_note");
    assert_eq!(legacy_alias("notes", "read_note"), None);
    assert_eq!(
        display_name("notes", "read_note"),
        "read_note (notes MCP Server)"
    );
    assert_eq!(search_hint("notes"), "mcp notes");
    // A server name outside [A-Za-z0-9_-] is made valid with a hash, and
    // the old rule's spelling stays an alias.
    let name = tool_name("my notes", "read_note");
    assert!(name.starts_with("mcp__my_notes__read_note_"), "{name}");
    assert_eq!(
        legacy_alias("my notes", "read_note").as_deref(),
        Some("mcp__my_notes__read_note")
    );
    // Too long for 63 characters: cut and hashed.
    let long = tool_name(
        "x",
        "count_every_note_in_the_notes_directory_and_the_bytes_they_hold_in_all",
    );
    assert_eq!(long.len(), 63);
}

#[test]
fn exclude_wins_and_include_matches_a_name_or_a_name_with_arguments() {
    let names = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert!(is_enabled("read_note", None, &[]));
    assert!(!is_enabled("read_note", None, &names(&["read_note"])));
    let include = names(&["read_note", "write_note(name)"]);
    assert!(is_enabled("read_note", Some(&include), &[]));
    assert!(is_enabled("write_note", Some(&include), &[]));
    assert!(!is_enabled("list_notes", Some(&include), &[]));
    assert!(
        !is_enabled("read", Some(&include), &[]),
        "a prefix without ( is no match"
    );
    assert!(!is_enabled(
        "read_note",
        Some(&include),
        &names(&["read_note"])
    ));
    assert!(!is_enabled("", None, &[]));
    assert!(!is_enabled("read_note", Some(&[]), &[]));
}

#[test]
fn only_a_trusted_read_only_or_idempotent_tool_is_replayed() {
    let read_only = Hints {
        read_only: Some(true),
        ..Hints::default()
    };
    assert!(can_safely_replay(true, Some(read_only)));
    assert!(!can_safely_replay(false, Some(read_only)));
    assert!(!can_safely_replay(true, None));
    assert!(!can_safely_replay(true, Some(Hints::default())));
    let idempotent = Hints {
        idempotent: Some(true),
        ..Hints::default()
    };
    assert!(can_safely_replay(true, Some(idempotent)));
    let destructive_reader = Hints {
        destructive: Some(true),
        ..read_only
    };
    assert!(!can_safely_replay(true, Some(destructive_reader)));
    let once_only_reader = Hints {
        idempotent: Some(false),
        ..read_only
    };
    assert!(!can_safely_replay(true, Some(once_only_reader)));
}

#[test]
fn connection_errors_are_told_from_others_by_their_message() {
    assert!(is_connection_error("MCP error -32000: Connection closed"));
    assert!(is_connection_error("Transport closed"));
    assert!(is_connection_error("read ECONNRESET"));
    assert!(!is_connection_error("MCP error -32602: unknown tool"));
}

#[test]
fn progress_reads_as_qwens_display_renders_it() {
    assert_eq!(
        progress_line(1.0, Some(3.0), Some("step 1 of 3")),
        "\u{25CC} [1/3] step 1 of 3"
    );
    assert_eq!(
        progress_line(0.5, None, None),
        "\u{25CC} [0.5] Progress: 0.5"
    );
}

#[test]
fn a_tool_error_names_the_tool_the_call_and_the_response() {
    assert_eq!(
        tool_error_display("read_note"),
        "Error: MCP tool 'read_note' reported an error."
    );
    assert_eq!(
        tool_error_message("read_note", "{\"name\":\"read_note\"}", "[]"),
        "MCP tool 'read_note' reported tool error for function call: {\"name\":\"read_note\"} \
         with response: []"
    );
}
