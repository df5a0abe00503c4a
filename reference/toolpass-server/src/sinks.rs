//! A call's live output and its notices, as protocol notifications: an
//! update becomes MCP's `notifications/progress` under the call's
//! `progressToken` (none when the caller sent no token, as MCP says), a
//! notice becomes `toolpass/notice` naming the session and the call.

use std::sync::atomic::{AtomicU64, Ordering};

use toolpass_protocol::method;
use toolpass_protocol::{NoticeParams, ProgressParams, ProgressToken, SessionId};
use toolpass_tools::context::{NoticeSink, UpdateSink};

use crate::outbound::Outbound;

/// Updates of one call.
pub(crate) struct Updates {
    outbound: Outbound,
    token: Option<ProgressToken>,
    /// Updates sent so far: MCP's `progress` must increase.
    sent: AtomicU64,
}

impl Updates {
    /// Updates sent under `token`; none when it is `None`.
    pub(crate) fn new(outbound: Outbound, token: Option<ProgressToken>) -> Self {
        Updates {
            outbound,
            token,
            sent: AtomicU64::new(0),
        }
    }
}

impl UpdateSink for Updates {
    fn update(&self, text: &str) {
        let Some(token) = &self.token else {
            return;
        };
        let progress = self.sent.fetch_add(1, Ordering::Relaxed) + 1;
        self.outbound.notify::<method::Progress>(&ProgressParams {
            progress_token: token.clone(),
            // Exact as long as a call sends fewer than 2^53 updates.
            progress: progress as f64,
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
