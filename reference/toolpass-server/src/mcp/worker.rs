//! The implicit session's queue in MCP mode and the task that works it:
//! `tools/call` and `tools/list` are carried out one at a time, in the
//! order they were read ([`super::ordered`]), each call on the blocking
//! pool, as the toolpass mode's worker does for a session. After a call
//! that changed the declared tools (a reveal), the client is sent
//! `notifications/tools/list_changed` before the call's answer, so it lists
//! again before the model's next turn.

use std::sync::Arc;

use rmcp::Peer;
use rmcp::RoleServer;
use rmcp::model::Tool;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use toolpass_tools::confirmation::Answer;
use toolpass_tools::context::Latch;
use toolpass_tools::scheduler::{self, Scheduled};
use toolpass_tools::session::Session;

use super::job::{Call, Job, Turn};
use super::sdk;
use crate::{convert, tools};

/// The task working the session's queue.
pub(crate) struct Worker {
    session: Arc<Session>,
    /// The declared tools' names as the client last learnt them (its last
    /// list, or the last change announced).
    listed: Vec<String>,
    input_closed: Arc<Latch>,
}

impl Worker {
    pub(crate) fn new(session: Arc<Session>, input_closed: Arc<Latch>) -> Self {
        let listed = names(&session);
        Worker {
            session,
            listed,
            input_closed,
        }
    }

    /// Works the queue until every place reserved in it is settled: the
    /// transport, which reserves them, is gone once the SDK's serve loop
    /// has ended.
    pub(crate) async fn run(mut self, mut turns: mpsc::UnboundedReceiver<Turn>) {
        while let Some(turn) = turns.recv().await {
            match turn.await {
                Ok(Job::List(reply)) => self.list(reply).await,
                Ok(Job::Call(call)) => self.call(*call).await,
                // The SDK answered the request without its handler.
                Err(_) => {}
            }
        }
    }

    async fn list(&mut self, reply: oneshot::Sender<Vec<Tool>>) {
        let session = Arc::clone(&self.session);
        let listed = blocking(move || {
            let declared = tools::declared(&session);
            let names = declared.iter().map(|t| t.name().to_owned()).collect();
            let tools = declared
                .iter()
                .map(|t| sdk::tool(convert::descriptor(t.as_ref())))
                .collect();
            (names, tools)
        })
        .await;
        if let Some((names, tools)) = listed {
            self.listed = names;
            // A handler gone (the client cancelled the list) needs no answer.
            let _ = reply.send(tools);
        }
    }

    async fn call(&mut self, call: Call) {
        let Call {
            name,
            arguments,
            context,
            peer,
            reply,
        } = call;
        let session = Arc::clone(&self.session);
        let generation = session.registry().generation();
        // The answer is converted on the blocking pool too: an edit's
        // Outcome holds the file twice.
        let result = blocking(move || {
            let arguments = Value::Object(arguments);
            let outcome = match scheduler::schedule(&session, &name, &arguments, &context) {
                Scheduled::Done(outcome) => outcome,
                // The session runs in yolo mode, where no call asks; a call
                // that asked anyway would have nobody to answer it here, and
                // an MCP host asks its user before it calls a tool, so the
                // call is the approval.
                Scheduled::Awaiting(pending) => {
                    scheduler::confirm(&session, pending, Answer::ProceedOnce, &context)
                }
            };
            sdk::call_result(convert::outcome(outcome))
        })
        .await;
        if self.session.registry().generation() != generation {
            self.announce_changes(&peer).await;
        }
        if let Some(result) = result {
            // A handler gone (the service stopping) needs no answer.
            let _ = reply.send(result);
        }
    }

    /// Sends `notifications/tools/list_changed` when the declared tools are
    /// no longer what the client last learnt.
    async fn announce_changes(&mut self, peer: &Peer<RoleServer>) {
        let session = Arc::clone(&self.session);
        let Some(now) = blocking(move || names(&session)).await else {
            return;
        };
        if now == self.listed {
            return;
        }
        self.listed = now;
        // Past the end of input the SDK no longer sends notifications (it
        // only drains answers), and nobody would read them.
        if self.input_closed.is_set() {
            return;
        }
        if let Err(error) = peer.notify_tool_list_changed().await {
            tracing::warn!("notifications/tools/list_changed not sent: {error}");
        }
    }
}

/// The names of the tools the model would be shown now.
fn names(session: &Session) -> Vec<String> {
    let declared = tools::declared(session);
    declared.iter().map(|t| t.name().to_owned()).collect()
}

/// Runs `work` on the blocking pool; `None` (logged) when it panicked.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    tokio::task::spawn_blocking(work)
        .await
        .inspect_err(|e| tracing::error!("a tool call failed: {e}"))
        .ok()
}
