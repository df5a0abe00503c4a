//! The MCP mode in process, driven by the SDK's own client over an
//! in-memory pipe: a reveal reaches the client as
//! `notifications/tools/list_changed`, of a test tool and of `task_stop`,
//! the built-in tool hidden until `tool_search` finds it.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient, ServiceExt as _};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use toolpass_tools::config::DeferredModel;
use toolpass_tools::context::InvocationContext;
use toolpass_tools::kind::Kind;
use toolpass_tools::result::{Display, Failure, ToolResult};
use toolpass_tools::session::SessionConfig;
use toolpass_tools::tool::{BuildError, Invocation, Tool};
use toolpass_tools::workspace::Workspace;

use super::{Assembled, assemble};
use crate::tools;

/// A deferred tool, hidden until `tool_search` reveals it.
struct Hidden;

const HIDDEN: &str = "probe_the_hidden";

impl Tool for Hidden {
    fn name(&self) -> &str {
        HIDDEN
    }
    fn description(&self) -> &str {
        "Answers that it was reached."
    }
    fn parameter_schema(&self) -> &Value {
        static SCHEMA: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
        SCHEMA.get_or_init(|| json!({"type": "object", "properties": {}}))
    }
    fn kind(&self) -> Kind {
        Kind::Read
    }
    fn should_defer(&self) -> bool {
        true
    }
    fn build(&self, _: &Value, _: &Workspace) -> Result<Box<dyn Invocation>, BuildError> {
        Ok(Box::new(Reached))
    }
}

struct Reached;

impl Invocation for Reached {
    fn description(&self) -> String {
        "reach the hidden tool".to_owned()
    }
    fn execute(&self, _: &Workspace, _: &InvocationContext) -> Result<ToolResult, Failure> {
        Ok(ToolResult::new(
            "reached",
            Display::Text("reached".to_owned()),
        ))
    }
}

/// A client that reports each `notifications/tools/list_changed`.
struct Watching {
    changed: mpsc::UnboundedSender<()>,
}

impl ClientHandler for Watching {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default()
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changed.send(());
    }
}

async fn names(client: &rmcp::service::RunningService<RoleClient, Watching>) -> Vec<String> {
    let tools = client.list_all_tools().await.expect("tools/list");
    tools.into_iter().map(|t| t.name.into_owned()).collect()
}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        unreachable!("arguments are an object")
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(arguments)
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    let texts = result.content.iter().filter_map(|c| c.as_text());
    texts.map(|t| t.text.as_str()).collect()
}

/// The MCP mode serving `session`, and the SDK's client watching for
/// `notifications/tools/list_changed`.
struct Served {
    client: rmcp::service::RunningService<RoleClient, Watching>,
    announced: mpsc::UnboundedReceiver<()>,
    server: tokio::task::JoinHandle<()>,
    worker: tokio::task::JoinHandle<()>,
}

async fn serve(session: toolpass_tools::session::Session) -> Served {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_end);
    let framing = rmcp::transport::async_rw::AsyncRwTransport::new_server(read, write);
    let Assembled {
        handler,
        transport,
        worker,
        ..
    } = assemble(Arc::new(session), framing);
    let server = tokio::spawn(async move {
        let running = handler.serve(transport).await.expect("the handshake");
        running.waiting().await.expect("the service ends");
    });
    let (changed, announced) = mpsc::unbounded_channel();
    let client = Watching { changed }
        .serve(client_end)
        .await
        .expect("the handshake");
    Served {
        client,
        announced,
        server,
        worker,
    }
}

impl Served {
    async fn announced_within_ten_seconds(&mut self) {
        tokio::time::timeout(Duration::from_secs(10), self.announced.recv())
            .await
            .expect("notifications/tools/list_changed after the reveal")
            .unwrap();
    }

    async fn stop(self) {
        self.client.cancel().await.unwrap();
        self.server.await.unwrap();
        self.worker.await.unwrap();
    }
}

fn reveal_session(dir: &std::path::Path) -> toolpass_tools::session::Session {
    let config = SessionConfig {
        deferred_model: DeferredModel::Reveal,
        ..SessionConfig::default()
    };
    tools::open_session(dir, config, "s1").unwrap()
}

#[tokio::test]
async fn a_reveal_is_announced_once_and_the_client_lists_and_calls_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let session = reveal_session(dir.path());
    session.registry().register(Arc::new(Hidden));
    let mut served = serve(session).await;
    let client = &served.client;
    let capability = client.peer_info().unwrap().capabilities.tools.clone();
    assert_eq!(capability.and_then(|t| t.list_changed), Some(true));

    assert!(!names(client).await.iter().any(|n| n == HIDDEN));
    let select = json!({"query": format!("select:{HIDDEN}")});
    let found = client
        .call_tool(call("tool_search", select.clone()))
        .await
        .unwrap();
    assert!(text(&found).contains(HIDDEN), "{found:?}");
    served.announced_within_ten_seconds().await;
    let client = &served.client;
    assert!(names(client).await.iter().any(|n| n == HIDDEN));
    let reached = client.call_tool(call(HIDDEN, json!({}))).await.unwrap();
    assert_eq!(text(&reached), "reached");

    // Revealed already: the list does not change again, nor does a call
    // that reveals nothing announce anything.
    client.call_tool(call("tool_search", select)).await.unwrap();
    client
        .call_tool(call("glob", json!({"pattern": "*"})))
        .await
        .unwrap();
    names(client).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        served.announced.try_recv().is_err(),
        "a second list_changed"
    );
    served.stop().await;
}

/// `task_stop` is deferred as in Qwen 0.24.4: hidden from the first list,
/// and revealing it changes the list, which the client is told.
#[tokio::test]
async fn revealing_task_stop_is_announced() {
    let dir = tempfile::tempdir().unwrap();
    let mut served = serve(reveal_session(dir.path())).await;
    let client = &served.client;
    assert!(!names(client).await.iter().any(|n| n == "task_stop"));
    let select = json!({"query": "select:task_stop"});
    let found = client.call_tool(call("tool_search", select)).await.unwrap();
    assert!(text(&found).contains("\"name\":\"task_stop\""), "{found:?}");
    served.announced_within_ten_seconds().await;
    assert!(names(&served.client).await.iter().any(|n| n == "task_stop"));
    served.stop().await;
}
