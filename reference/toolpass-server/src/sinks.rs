//! A call's live output and its notices, as protocol notifications: an
//! update becomes MCP's `notifications/progress` under the call's
//! `progressToken` (none when the caller sent no token, as MCP says), a
//! notice becomes `toolpass/notice` naming the session and the call.

use std::sync::atomic::{AtomicU64, Ordering};

use toolpass_protocol::method;
use toolpass_protocol::{NoticeParams, ProgressParams, ProgressToken, SessionId};
use toolpass_tools::context::{NoticeSink, UpdateSink};

use crate::outbound::Outbound;

/// Updates of one call, sent through `S` under a token of type `T`: the
/// toolpass mode's writer, or the MCP SDK's peer (`mcp/sinks.rs`).
pub(crate) struct Updates<S, T> {
    pub(crate) sender: S,
    token: Option<T>,
    /// Updates sent so far: MCP's `progress` must increase.
    sent: AtomicU64,
}

impl<S, T> Updates<S, T> {
    /// Updates sent under `token`; none when it is `None`.
    pub(crate) fn new(sender: S, token: Option<T>) -> Self {
        Updates {
            sender,
            token,
            sent: AtomicU64::new(0),
        }
    }

    /// The token and the `progress` of the next update; `None` when the
    /// caller sent no token, as MCP says.
    pub(crate) fn next(&self) -> Option<(&T, f64)> {
        let token = self.token.as_ref()?;
        let progress = self.sent.fetch_add(1, Ordering::Relaxed) + 1;
        // Exact as long as a call sends fewer than 2^53 updates.
        Some((token, progress as f64))
    }
}

impl UpdateSink for Updates<Outbound, ProgressToken> {
    fn update(&self, text: &str) {
        let Some((token, progress)) = self.next() else {
            return;
        };
        self.sender.notify::<method::Progress>(&ProgressParams {
            progress_token: token.clone(),
            progress,
            total: None,
            message: Some(text.to_owned()),
        });
    }
}

/// Notices of one call, which may outlive it (a background shell's).
pub(crate) struct Notices {
    outbound: Outbound,
    session: SessionId,
    call_id: String,
}

impl Notices {
    pub(crate) fn new(outbound: Outbound, session: SessionId, call_id: String) -> Self {
        Notices {
            outbound,
            session,
            call_id,
        }
    }
}

impl NoticeSink for Notices {
    fn notice(&self, kind: &str, text: &str) {
        self.outbound.notify::<method::Notice>(&NoticeParams {
            session_id: self.session.clone(),
            kind: kind.to_owned(),
            text: text.to_owned(),
            call_id: Some(self.call_id.clone()),
        });
    }
}
