//! Stopping a run early, as the command line does on SIGINT or SIGTERM:
//! each worker kills its implementation, waits until it is gone, then
//! removes its sandbox, and no further scenario starts.

use tokio::sync::watch;

/// What a run watches for a request to stop; [`Interrupt::default`] is
/// never set.
#[derive(Debug, Clone, Default)]
pub struct Interrupt(Option<watch::Receiver<bool>>);

/// Sets its [`Interrupt`].
#[derive(Debug)]
pub struct Interrupter(watch::Sender<bool>);

impl Interrupt {
    /// An interrupt and what sets it.
    pub fn new() -> (Interrupter, Interrupt) {
        let (sender, receiver) = watch::channel(false);
        (Interrupter(sender), Interrupt(Some(receiver)))
    }

    /// Whether the run should stop.
    pub fn is_set(&self) -> bool {
        self.0.as_ref().is_some_and(|receiver| *receiver.borrow())
    }

    /// Returns once the run should stop; never if nothing can set it.
    pub(crate) async fn wait(&self) {
        if let Some(receiver) = &self.0 {
            let mut receiver = receiver.clone();
            if receiver.wait_for(|set| *set).await.is_ok() {
                return;
            }
        }
        // No interrupter, or it is gone without setting it.
        std::future::pending::<()>().await;
    }
}

impl Interrupter {
    /// Asks the run to stop.
    pub fn interrupt(&self) {
        self.0.send_replace(true);
    }
}
