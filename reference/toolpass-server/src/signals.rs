//! The signals that stop the server (SIGTERM, SIGINT, SIGHUP): instead of
//! dying at once, which would leave every background shell and running
//! command behind (each leads a process group of its own, out of reach of
//! a signal sent to the server's), the server cancels its calls, ends its
//! sessions' shells and exits.

use tokio::signal::unix::{Signal, SignalKind, signal};

/// The stopping signals, listened to from creation on.
pub(crate) struct Signals {
    terminate: Listening,
    interrupt: Listening,
    hangup: Listening,
}

/// One signal's number and its stream, when it could be listened to.
struct Listening {
    number: i32,
    stream: Option<Signal>,
}

impl Listening {
    fn new(kind: SignalKind) -> Self {
        let number = kind.as_raw_value();
        let stream = signal(kind)
            .inspect_err(|e| tracing::warn!("cannot listen for signal {number}: {e}"))
            .ok();
        Listening { number, stream }
    }

    /// The signal's number once it arrives; never, when it is not listened
    /// to.
    async fn recv(&mut self) -> i32 {
        match &mut self.stream {
            Some(stream) => {
                stream.recv().await;
                self.number
            }
            None => std::future::pending().await,
        }
    }
}

impl Signals {
    /// Listens for each; one that cannot be listened to is logged and left
    /// to its default action.
    pub(crate) fn new() -> Self {
        Signals {
            terminate: Listening::new(SignalKind::terminate()),
            interrupt: Listening::new(SignalKind::interrupt()),
            hangup: Listening::new(SignalKind::hangup()),
        }
    }

    /// The number of the next stopping signal received.
    pub(crate) async fn recv(&mut self) -> i32 {
        tokio::select! {
            number = self.terminate.recv() => number,
            number = self.interrupt.recv() => number,
            number = self.hangup.recv() => number,
        }
    }
}
