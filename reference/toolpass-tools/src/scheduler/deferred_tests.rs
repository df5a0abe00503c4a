//! `tool_search` and `tool_call` through the scheduler, in sessions of
//! fake deferred tools.

use serde_json::json;

use toolpass_core::tool_search::reminder::DeferredModel;

use crate::config::SessionConfig;
use crate::fake_tool::fake;
use crate::faults::FaultPoint;
use crate::result::{Display, ToolResult};
use crate::scheduler::execute_call;
use crate::session::Session;
use crate::tools::deferred_bridge;
use crate::tools::tool_search::NAME;

fn session(model: DeferredModel) -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().unwrap();
    let config = SessionConfig {
        deferred_model: model,
        ..SessionConfig::default()
    };
    let session = Session::new(dir.path(), config, Vec::new()).unwrap();
    let registry = session.registry();
    for tool in deferred_bridge(registry, model) {
        registry.register(tool);
    }
    registry.register(fake("eager_tool").arc());
    registry.register(
        fake("cron_create")
            .deferred()
            .described("Schedule a recurring prompt")
            .arc(),
    );
    registry.register(
        fake("cron_list")
            .deferred()
            .described("List scheduled jobs")
            .arc(),
    );
    registry.register(
        fake("mcp__notes__read_note")
            .of_server("notes")
            .described("Read a note")
            .arc(),
    );
    (dir, session)
}

fn search(session: &Session, query: &str) -> ToolResult {
    execute_call(session, NAME, &json!({"query": query})).result
}

fn declared(session: &Session) -> Vec<String> {
    let declarations = session.registry().declarations();
    declarations
        .tools
        .iter()
        .map(|t| t.name().to_owned())
        .collect()
}

#[test]
fn the_reveal_model_declares_what_it_returns() {
    let (_dir, session) = session(DeferredModel::Reveal);
    assert_eq!(declared(&session), ["eager_tool", "tool_search"]);
    let result = search(&session, "select:\"cron_create\",CRON_CREATE,nope");
    assert!(!result.is_error(), "{}", result.llm_content);
    assert!(
        result
            .llm_content
            .starts_with("<functions>\n<function>{\"name\":\"cron_create\""),
        "{}",
        result.llm_content
    );
    assert!(result.llm_content.ends_with("\n\nNot found: nope"));
    assert_eq!(
        result.display,
        Display::Text("Loaded 1 tool(s), 1 missing".to_owned())
    );
    assert_eq!(
        declared(&session),
        ["cron_create", "eager_tool", "tool_search"]
    );
    // A revealed tool is no keyword candidate any more.
    let again = search(&session, "cron");
    assert!(again.llm_content.contains("\"cron_list\""));
    assert!(!again.llm_content.contains("\"cron_create\""));
}

#[test]
fn a_failed_declaration_update_takes_back_every_reveal_of_the_call() {
    let (_dir, session) = session(DeferredModel::Reveal);
    search(&session, "select:cron_list");
    session.faults().arm(FaultPoint::DeclarationsUpdate, 1);
    let failed = search(
        &session,
        "select:cron_create,cron_list,mcp__notes__read_note",
    );
    assert!(failed.is_error());
    assert_eq!(
        failed.llm_content,
        "setTools failed while revealing deferred tools: the declaration update failed (fault \
         point declarations.update)"
    );
    // cron_list was revealed before this call and stays so; the other two
    // are hidden again, and a keyword search finds them.
    assert_eq!(
        declared(&session),
        ["cron_list", "eager_tool", "tool_search"]
    );
    let found = search(&session, "cron read note");
    assert!(found.llm_content.contains("\"cron_create\""));
    assert!(found.llm_content.contains("\"mcp__notes__read_note\""));
    assert_eq!(
        declared(&session),
        [
            "cron_create",
            "cron_list",
            "eager_tool",
            "mcp__notes__read_note",
            "tool_search"
        ]
    );
}

#[test]
fn the_proxy_model_shows_schemas_without_declaring_them() {
    let (_dir, session) = session(DeferredModel::Proxy);
    let before = declared(&session);
    assert_eq!(before, ["eager_tool", "tool_call", "tool_search"]);
    session.faults().arm(FaultPoint::DeclarationsUpdate, 1);
    let result = search(&session, "schedule");
    assert!(!result.is_error(), "{}", result.llm_content);
    assert!(result.llm_content.contains("\"cron_create\""));
    assert_eq!(
        result.display,
        Display::Text("Reviewed 2 tool(s)".to_owned()) // "scheduled" holds "schedule"
    );
    assert_eq!(declared(&session), before);
    // Nothing was revealed, so the same search finds it again.
    assert!(
        search(&session, "schedule")
            .llm_content
            .contains("\"cron_create\"")
    );
}

#[test]
fn the_proxy_bridge_needs_tool_call() {
    let dir = tempfile::tempdir().unwrap();
    let config = SessionConfig {
        disabled_tools: vec!["tool_call".to_owned()],
        ..SessionConfig::default()
    };
    let session = Session::new(dir.path(), config, Vec::new()).unwrap();
    for tool in deferred_bridge(session.registry(), DeferredModel::Proxy) {
        session.registry().register(tool);
    }
    session
        .registry()
        .register(fake("cron_create").deferred().arc());
    session.registry().register(fake("eager_tool").arc());
    let keyword = search(&session, "cron");
    assert_eq!(
        keyword.llm_content,
        "The deferred-tool bridge is unavailable in this session, so hidden tool schemas cannot \
         be reviewed or invoked."
    );
    let selected = search(&session, "select:cron_create,eager_tool");
    assert!(!selected.is_error());
    assert!(selected.llm_content.contains("\"eager_tool\""));
    assert!(selected.llm_content.ends_with(
        "Unavailable: The deferred-tool bridge is incomplete in this session; hidden schemas \
         were not returned for: cron_create"
    ));
}

#[test]
fn queries_that_ask_for_nothing_fail_with_qwens_messages() {
    let (_dir, session) = session(DeferredModel::Proxy);
    for (query, message) in [
        ("   ", "Empty query"),
        ("select: , ", "No tool names"),
        ("the of a", "No search terms"),
    ] {
        let result = search(&session, query);
        assert!(result.is_error(), "{query}");
        assert_eq!(result.llm_content, message, "{query}");
    }
    let none = search(&session, "zebra");
    assert!(!none.is_error());
    assert_eq!(
        none.llm_content,
        "No tools found matching 'zebra'. Try broader keywords or use `select:ToolName`."
    );
    let schema = execute_call(&session, NAME, &json!({"query": "x", "max_results": 21}));
    assert!(schema.result.is_error());
}

#[test]
fn the_index_is_rebuilt_when_the_registry_changes() {
    let (_dir, session) = session(DeferredModel::Proxy);
    assert!(
        search(&session, "zebra")
            .llm_content
            .starts_with("No tools found")
    );
    session
        .registry()
        .register(fake("zebra_feed").deferred().arc());
    assert!(
        search(&session, "zebra")
            .llm_content
            .contains("\"zebra_feed\"")
    );
}

mod bridge {

    use serde_json::json;

    use crate::config::{DeferredModel, SessionConfig};
    use crate::fake_tool::fake;
    use crate::scheduler::execute_call;
    use crate::session::Session;
    use crate::tools::deferred_bridge;

    fn session() -> (tempfile::TempDir, Session) {
        let dir = tempfile::tempdir().unwrap();
        let session = Session::new(dir.path(), SessionConfig::default(), Vec::new()).unwrap();
        let registry = session.registry();
        for tool in deferred_bridge(registry, DeferredModel::Proxy) {
            registry.register(tool);
        }
        registry.register(fake("cron_create").deferred().arc());
        registry.register(fake("eager_tool").arc());
        (dir, session)
    }

    fn call(session: &Session, envelope: serde_json::Value) -> String {
        execute_call(session, crate::tools::tool_call::NAME, &envelope)
            .result
            .llm_content
    }

    #[test]
    fn a_hidden_deferred_tool_is_called_through_the_envelope() {
        let (_dir, session) = session();
        // The fake refuses every build: its message shows the call reached
        // it, under its own name and with the envelope's arguments.
        let text = call(&session, json!({"name": "CRON_create", "arguments": {}}));
        assert_eq!(text, "a fake is never called");
    }

    #[test]
    fn the_bridge_refuses_what_it_must_not_carry() {
        let (_dir, session) = session();
        let cases = [
            (
                json!({"name": "eager_tool", "arguments": {}}),
                "[tool_call bridge refused] Tool \"eager_tool\" is already visible to the model \
                 or is not deferred. Call it directly instead of using tool_call.",
            ),
            (
                json!({"name": "tool_search", "arguments": {"query": "x"}}),
                "[tool_call bridge refused] tool_call cannot invoke bridge tool \"tool_search\".",
            ),
            (
                json!({"name": "nope", "arguments": {}}),
                "[tool_call bridge refused] Deferred tool \"nope\" is not registered in this \
                 session. Run tool_search again to inspect the available tools.",
            ),
        ];
        for (envelope, expected) in cases {
            assert_eq!(call(&session, envelope.clone()), expected, "{envelope}");
        }
        let malformed = call(&session, json!({"name": "cron_create"}));
        assert!(
            malformed.starts_with("[tool_call bridge refused] "),
            "{malformed}"
        );
        assert!(malformed.contains("arguments"), "{malformed}");
    }
}

/// What `tools/list` adds: the hidden names in `localeCompare` order, and
/// Qwen's reminder for the model, gone with what it names or its bridge.
#[test]
fn the_listing_names_the_hidden_tools_and_the_reminder_follows_the_bridge() {
    use crate::tools::deferred::deferred_listing;
    let (_dir, proxy) = session(DeferredModel::Proxy);
    let (names, reminder) = deferred_listing(proxy.registry(), DeferredModel::Proxy);
    assert_eq!(names, ["cron_create", "cron_list", "mcp__notes__read_note"]);
    let reminder = reminder.expect("tool_search and tool_call are registered");
    assert!(reminder.starts_with("<system-reminder>\nThe following tools are reachable through `tool_search` and `tool_call`."), "{reminder}");
    assert!(reminder.contains("### Bundled\n- \"cron_create\": \"Schedule a recurring prompt\"\n- \"cron_list\": \"List scheduled jobs\"\n\n### MCP servers\n#### notes\n- \"mcp__notes__read_note\": \"Read a note\""), "{reminder}");

    // The reveal model: its own introduction; a revealed tool leaves both.
    let (_dir, reveal) = session(DeferredModel::Reveal);
    search(&reveal, "select:cron_list");
    let (names, reminder) = deferred_listing(reveal.registry(), DeferredModel::Reveal);
    assert_eq!(names, ["cron_create", "mcp__notes__read_note"]);
    let reminder = reminder.unwrap();
    assert!(
        reminder.contains("reachable via `tool_search`. Call with"),
        "{reminder}"
    );
    assert!(!reminder.contains("cron_list"), "{reminder}");

    // Without tool_search nothing could reach them: they are declared
    // outright (Qwen's resolveDeferredToolsForReminder), so nothing is
    // hidden and no reminder is sent.
    let dir = tempfile::tempdir().unwrap();
    let bare = Session::new(dir.path(), SessionConfig::default(), Vec::new()).unwrap();
    bare.registry()
        .register(fake("cron_create").deferred().arc());
    assert!(bare.registry().is_deferred_and_hidden("cron_create"));
    let (names, reminder) = deferred_listing(bare.registry(), DeferredModel::Proxy);
    assert_eq!(names, Vec::<String>::new());
    assert_eq!(reminder, None);
    assert!(bare.registry().is_revealed("cron_create"));
    assert!(
        bare.registry()
            .declarations()
            .tools
            .iter()
            .any(|t| t.name() == "cron_create")
    );
    // Nothing hidden: no reminder either.
    let (_dir, empty) = session_without_deferred();
    assert_eq!(
        deferred_listing(empty.registry(), DeferredModel::Proxy),
        (Vec::new(), None)
    );
}

fn session_without_deferred() -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::new(dir.path(), SessionConfig::default(), Vec::new()).unwrap();
    for tool in deferred_bridge(session.registry(), DeferredModel::Proxy) {
        session.registry().register(tool);
    }
    (dir, session)
}
