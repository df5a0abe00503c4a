//! A call's live output and its notices in MCP mode, sent through the
//! SDK's peer: an update is `notifications/progress` under the call's
//! `progressToken` (none without one, as MCP says), a notice is the same
//! `toolpass/notice` the toolpass mode sends, which an MCP client ignores
//! as any notification it does not know.
//!
//! The tool layer calls its sinks from the blocking pool or its own
//! threads, never from the runtime, so each send is waited for there: an
//! update is written before the tool goes on, hence before the call's
//! answer.

use std::sync::Arc;

use rmcp::model::{
    CustomNotification, ProgressNotification, ProgressNotificationParam, ProgressToken,
    ServerNotification,
};
use rmcp::{Peer, RoleServer};
use tokio::runtime::Handle;
use toolpass_protocol::method::{self, NotificationMethod as _};
use toolpass_protocol::{NoticeParams, SessionId};
use toolpass_tools::context::{Latch, NoticeSink, UpdateSink};

/// Where a call's notifications go: the client, while its input is open.
#[derive(Clone)]
pub(crate) struct Client {
    pub(crate) peer: Peer<RoleServer>,
    pub(crate) runtime: Handle,
    /// Past the end of input the SDK sends no notification (it only drains
    /// answers), so none is queued to wait for it.
    pub(crate) input_closed: Arc<Latch>,
}

impl Client {
    fn send(&self, notification: ServerNotification) {
        if self.input_closed.is_set() {
            return;
        }
        if let Err(error) = self
            .runtime
            .block_on(self.peer.send_notification(notification))
        {
            tracing::debug!("a notification was not sent: {error}");
        }
    }
}

/// Updates of one call, through the SDK's peer.
pub(crate) type Updates = crate::sinks::Updates<Client, ProgressToken>;

impl UpdateSink for Updates {
    fn update(&self, text: &str) {
        let Some((token, progress)) = self.next() else {
            return;
        };
        let params = ProgressNotificationParam::new(token.clone(), progress).with_message(text);
        self.sender.send(ServerNotification::ProgressNotification(
            ProgressNotification::new(params),
        ));
    }
}

/// Notices of one call, which may outlive it (a background shell's).
pub(crate) struct Notices {
    client: Client,
    session: SessionId,
    call_id: String,
}

impl Notices {
    pub(crate) fn new(client: Client, session: SessionId, call_id: String) -> Self {
        Notices {
            client,
            session,
            call_id,
        }
    }
}

impl NoticeSink for Notices {
    fn notice(&self, kind: &str, text: &str) {
        let params = NoticeParams {
            session_id: self.session.clone(),
            kind: kind.to_owned(),
            text: text.to_owned(),
            call_id: Some(self.call_id.clone()),
        };
        let params = match serde_json::to_value(&params) {
            Ok(params) => params,
            Err(e) => return tracing::error!("a notice could not be serialized: {e}"),
        };
        self.client.send(ServerNotification::CustomNotification(
            CustomNotification::new(method::Notice::NAME, Some(params)),
        ));
    }
}
