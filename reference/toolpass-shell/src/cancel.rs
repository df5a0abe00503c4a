//! A cancel signal the caller fires from anywhere (another thread, an async
//! task bridging a tokio `CancellationToken`), which wakes whatever waits on
//! it at once.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

type Listener = Box<dyn Fn() + Send>;

/// A one-shot signal: once fired it stays fired. Clones share the signal.
#[derive(Clone, Default)]
pub struct Cancel(Arc<Inner>);

#[derive(Default)]
struct Inner {
    fired: AtomicBool,
    next: AtomicU64,
    listeners: Mutex<Vec<(u64, Listener)>>,
}

impl std::fmt::Debug for Cancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cancel")
            .field("fired", &self.is_fired())
            .finish()
    }
}

impl Cancel {
    /// A signal not yet fired.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Fires the signal and wakes every listener. Firing twice does nothing
    /// more.
    pub fn fire(&self) {
        if self.0.fired.swap(true, Ordering::SeqCst) {
            return;
        }
        let listeners = self
            .0
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for (_, listener) in listeners.iter() {
            listener();
        }
    }

    /// Whether the signal was fired.
    #[must_use]
    pub fn is_fired(&self) -> bool {
        self.0.fired.load(Ordering::SeqCst)
    }

    /// Calls `wake` when the signal fires (at once if it has), until the
    /// returned guard is dropped.
    pub fn listen(&self, wake: impl Fn() + Send + 'static) -> Listening {
        let id = self.0.next.fetch_add(1, Ordering::Relaxed);
        let mut listeners = self
            .0
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // Checked under the lock `fire` takes, so a fire cannot slip between
        // the check and the registration.
        if self.is_fired() {
            wake();
        }
        listeners.push((id, Box::new(wake)));
        Listening {
            cancel: self.clone(),
            id,
        }
    }
}

/// Keeps a listener registered; dropping it unregisters.
#[must_use = "dropping the guard removes the listener at once"]
pub struct Listening {
    cancel: Cancel,
    id: u64,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let mut listeners = self
            .cancel
            .0
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        listeners.retain(|(id, _)| *id != self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn listeners_are_woken_once_and_late_listeners_at_once() {
        let cancel = Cancel::new();
        let (tx, rx) = mpsc::channel();
        let early = tx.clone();
        let _guard = cancel.listen(move || early.send("early").unwrap_or(()));
        cancel.fire();
        cancel.fire();
        let _late = cancel.listen(move || tx.send("late").unwrap_or(()));
        let got: Vec<_> = rx.try_iter().collect();
        assert_eq!(got, ["early", "late"]);
        assert!(cancel.is_fired());
    }

    #[test]
    fn a_dropped_guard_is_not_woken() {
        let cancel = Cancel::new();
        let (tx, rx) = mpsc::channel();
        drop(cancel.listen(move || tx.send(()).unwrap_or(())));
        cancel.fire();
        assert!(rx.try_recv().is_err());
    }
}
