//! The requests in flight that run a call (`tools/call`, and
//! `toolpass/confirm`, which runs the call it approves), by JSON-RPC id,
//! with their cancellation: how `notifications/cancelled` reaches a call,
//! queued or running, and how the end of input reaches every call waiting
//! for the client.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use toolpass_protocol::RequestId;
use toolpass_tools::context::Cancellation;

/// Shared by the dispatcher, which registers and cancels, and the session
/// workers, which remove what they answered.
#[derive(Clone, Default)]
pub(crate) struct InFlight {
    calls: Arc<Mutex<HashMap<RequestId, Entry>>>,
}

/// A request in flight: the session it runs in and its cancellation.
struct Entry {
    session: String,
    cancellation: Cancellation,
}

impl InFlight {
    /// Registers request `id`, from the moment it is queued: a call
    /// cancelled before it starts must not start.
    pub(crate) fn register(&self, id: RequestId, session: &str, cancellation: Cancellation) {
        let session = session.to_owned();
        self.lock().insert(
            id,
            Entry {
                session,
                cancellation,
            },
        );
    }

    /// Forgets request `id`, answered.
    pub(crate) fn finished(&self, id: &RequestId) {
        self.lock().remove(id);
    }

    /// Cancels request `id`. A request already answered, or never made, is
    /// ignored, as MCP says: the cancellation may cross the answer.
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        match self.lock().get(id) {
            Some(entry) => {
                entry.cancellation.request();
                true
            }
            None => false,
        }
    }

    /// Cancels every call in flight: the server is told to stop.
    pub(crate) fn cancel_all(&self) {
        for entry in self.lock().values() {
            entry.cancellation.request();
        }
    }

    /// Cancels every call in flight of `session`, which is closing.
    pub(crate) fn cancel_session(&self, session: &str) {
        for entry in self.lock().values().filter(|e| e.session == session) {
            entry.cancellation.request();
        }
    }

    /// Tells every call in flight that the client's input has ended.
    pub(crate) fn close_input(&self) {
        for entry in self.lock().values() {
            entry.cancellation.close_input();
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<RequestId, Entry>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
