//! What a running invocation reaches besides its workspace: whether it has
//! been cancelled, where its live output goes while it runs, and where
//! notices go, during the call or long after it returned (a background
//! shell finishing).
//!
//! Synchronous, like the tools: a cancellation is a latch a tool polls
//! ([`Cancellation::is_requested`]) or blocks on
//! ([`Cancellation::wait_for_client`]); the sinks are plain callbacks that
//! the server turns into protocol notifications. The tool layer never sees
//! the wire.

use std::sync::{Arc, Condvar, Mutex, PoisonError};

use toolpass_shell::Cancel;
pub use toolpass_shell::cancel::Listening;

/// A one-way flag that can be waited on: set once, never reset.
#[derive(Default)]
pub struct Latch {
    set: Mutex<bool>,
    changed: Condvar,
    /// Fired when the latch is set: how it reaches what does not poll it
    /// (see [`Latch::listen`]).
    fired: Cancel,
}

impl std::fmt::Debug for Latch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Latch")
            .field("set", &self.is_set())
            .finish_non_exhaustive()
    }
}

impl Latch {
    /// Sets the latch and wakes everyone waiting on it.
    pub fn set(&self) {
        *self.set.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.changed.notify_all();
        self.fired.fire();
    }

    /// Calls `wake` when the latch is set (at once if it is), until the
    /// returned guard is dropped: how a latch reaches something that does
    /// not poll it, such as a running command's cancel signal.
    pub fn listen(&self, wake: impl Fn() + Send + 'static) -> Listening {
        self.fired.listen(wake)
    }

    /// Whether it is set.
    #[must_use]
    pub fn is_set(&self) -> bool {
        *self.set.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Why [`Cancellation::wait_for_client`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitEnd {
    /// The call was cancelled.
    Cancelled,
    /// The client's input ended: nobody is left to cancel or answer.
    InputClosed,
}

/// A call's cancellation: its own latch, set when the client cancels this
/// call, and the server's, set when the client's input ends.
///
/// A tool that runs long on its own (a command) polls
/// [`Cancellation::is_requested`] and stops when it is set; one that waits
/// for something only the client can give waits with
/// [`Cancellation::wait_for_client`], which also returns when the input
/// ends, so no call outlives its client waiting.
#[derive(Debug, Clone, Default)]
pub struct Cancellation {
    call: Arc<Latch>,
    input_closed: Arc<Latch>,
}

impl Cancellation {
    /// A cancellation for one call; `input_closed` is the server's latch for
    /// the end of the client's input, shared by every call.
    #[must_use]
    pub fn new(input_closed: Arc<Latch>) -> Self {
        Cancellation {
            call: Arc::default(),
            input_closed,
        }
    }

    /// Cancels the call.
    pub fn request(&self) {
        self.call.set();
    }

    /// Whether the call has been cancelled.
    #[must_use]
    pub fn is_requested(&self) -> bool {
        self.call.is_set()
    }

    /// Calls `wake` when the call is cancelled (at once if it has been),
    /// while the guard lives. The end of input does not call it.
    pub fn on_request(&self, wake: impl Fn() + Send + 'static) -> Listening {
        self.call.listen(wake)
    }

    /// Blocks until the call is cancelled or the client's input ends.
    #[must_use]
    pub fn wait_for_client(&self) -> WaitEnd {
        let mut set = self.call.set.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if *set {
                return WaitEnd::Cancelled;
            }
            // Checked under the call's lock: [`Cancellation::close_input`]
            // takes it before waking us, so its wake-up cannot fall between
            // this check and the wait.
            if self.input_closed.is_set() {
                return WaitEnd::InputClosed;
            }
            set = self
                .call
                .changed
                .wait(set)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Tells the call that the client's input has ended: sets the server's
    /// latch (shared by every call) and wakes this call if it waits for the
    /// client. The call itself is not cancelled: a tool that works on its
    /// own finishes.
    pub fn close_input(&self) {
        self.input_closed.set();
        drop(self.call.set.lock().unwrap_or_else(PoisonError::into_inner));
        self.call.changed.notify_all();
    }
}

/// Where a call's live output goes while it runs (Qwen's `updateOutput`
/// callback): each update is the output so far, as Qwen's live display
/// shows it, not a delta.
pub trait UpdateSink: Send + Sync {
    /// One update.
    fn update(&self, text: &str);
}

/// Where notices go: what the model would be told without having asked
/// (a background shell finished). Kept by whoever needs it past the call.
pub trait NoticeSink: Send + Sync {
    /// One notice of `kind` (`background_shell`, ...).
    fn notice(&self, kind: &str, text: &str);
}

/// Sinks that drop everything, for calls nobody watches.
struct Nowhere;

impl UpdateSink for Nowhere {
    fn update(&self, _text: &str) {}
}

impl NoticeSink for Nowhere {
    fn notice(&self, _kind: &str, _text: &str) {}
}

/// Everything an invocation reaches besides its workspace.
#[derive(Clone)]
pub struct InvocationContext {
    /// Whether the call has been cancelled.
    pub cancellation: Cancellation,
    updates: Arc<dyn UpdateSink>,
    notices: Arc<dyn NoticeSink>,
    /// The call's id in its session: what a persisted result is named
    /// after (Qwen's `<call id>.txt`).
    call_id: String,
}

impl InvocationContext {
    /// A context whose updates and notices reach `updates` and `notices`.
    #[must_use]
    pub fn new(
        cancellation: Cancellation,
        updates: Arc<dyn UpdateSink>,
        notices: Arc<dyn NoticeSink>,
    ) -> Self {
        InvocationContext {
            cancellation,
            updates,
            notices,
            call_id: detached_call_id(),
        }
    }

    /// The same context for the call `call_id`.
    #[must_use]
    pub fn with_call_id(mut self, call_id: impl Into<String>) -> Self {
        self.call_id = call_id.into();
        self
    }

    /// The call's id in its session.
    #[must_use]
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// A context nobody watches: never cancelled, updates and notices
    /// dropped. For calls made outside a server (tests, benches).
    #[must_use]
    pub fn detached() -> Self {
        InvocationContext {
            cancellation: Cancellation::default(),
            updates: Arc::new(Nowhere),
            notices: Arc::new(Nowhere),
            call_id: detached_call_id(),
        }
    }

    /// Sends one update of the call's live output.
    pub fn update(&self, text: &str) {
        self.updates.update(text);
    }

    /// The notice sink, to keep past the call.
    #[must_use]
    pub fn notices(&self) -> Arc<dyn NoticeSink> {
        Arc::clone(&self.notices)
    }
}

/// A call id for a call nobody named (tests, benches): unique in the
/// process, so two such calls never persist to the same file.
fn detached_call_id() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("call-{n}")
}

impl std::fmt::Debug for InvocationContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InvocationContext")
            .field("cancellation", &self.cancellation)
            .field("call_id", &self.call_id)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// A thread waiting for the client on `cancellation`, checked to be
    /// still waiting after 100 ms; the returned function joins it and
    /// gives how its wait ended.
    fn waiting_on(cancellation: &Cancellation) -> impl FnOnce() -> WaitEnd {
        let waiting = cancellation.clone();
        let (done, ended) = mpsc::channel();
        let waiter = std::thread::spawn(move || done.send(waiting.wait_for_client()));
        assert!(ended.recv_timeout(Duration::from_millis(100)).is_err());
        move || {
            let end = ended
                .recv_timeout(Duration::from_secs(10))
                .expect("the wait ends");
            waiter.join().unwrap().unwrap();
            end
        }
    }

    #[test]
    fn a_waiting_call_wakes_when_it_is_cancelled() {
        let cancellation = Cancellation::new(Arc::default());
        let ended = waiting_on(&cancellation);
        cancellation.request();
        assert_eq!(ended(), WaitEnd::Cancelled);
    }

    #[test]
    fn a_waiting_call_wakes_when_the_input_closes() {
        let input = Arc::new(Latch::default());
        let cancellation = Cancellation::new(Arc::clone(&input));
        let ended = waiting_on(&cancellation);
        cancellation.close_input();
        assert_eq!(ended(), WaitEnd::InputClosed);
        assert!(!cancellation.is_requested());
        // A call that starts waiting after the input closed returns at once.
        let later = Cancellation::new(input);
        assert_eq!(later.wait_for_client(), WaitEnd::InputClosed);
    }

    #[test]
    fn a_listener_is_called_once_on_cancel_and_not_after_its_guard_is_dropped() {
        let cancellation = Cancellation::new(Arc::default());
        let (tx, rx) = mpsc::channel();
        let early = tx.clone();
        let kept = cancellation.on_request(move || early.send("kept").unwrap_or(()));
        let dropped = tx.clone();
        drop(cancellation.on_request(move || dropped.send("dropped").unwrap_or(())));
        cancellation.close_input();
        assert!(rx.try_recv().is_err(), "the end of input is no cancel");
        cancellation.request();
        cancellation.request();
        let late = cancellation.on_request(move || tx.send("late").unwrap_or(()));
        let got: Vec<_> = rx.try_iter().collect();
        assert_eq!(got, ["kept", "late"]);
        drop((kept, late));
    }

    #[test]
    fn the_detached_context_drops_everything_and_never_cancels() {
        let context = InvocationContext::detached();
        context.update("x");
        context.notices().notice("kind", "text");
        assert!(!context.cancellation.is_requested());
    }
}
