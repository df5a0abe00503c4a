//! The one writer of stdout. Everything the server says (replies,
//! `toolpass/notice`, `notifications/progress`) is serialized into a whole
//! line by whoever produces it, usually a worker on the blocking pool, and
//! queued here; one thread writes the lines in queue order, each with one
//! `write_all`, so lines never interleave whatever runs concurrently.
//!
//! A reply is serialized straight from its typed result
//! ([`write_result`]), never through a `serde_json::Value`: an edit's
//! Outcome carries the whole file twice.

use std::io::{self, Write};
use std::thread::JoinHandle;

use tokio::sync::mpsc;
use toolpass_protocol::method::{Method, NotificationMethod};
use toolpass_protocol::{
    Message, Notification, RequestId, Response, ResponseError, write_message, write_result,
};

/// A handle to the writer: cheap to clone, usable from any thread.
#[derive(Clone, Debug)]
pub(crate) struct Outbound {
    lines: mpsc::UnboundedSender<Vec<u8>>,
}

/// The writer thread; [`Writer::finish`] waits until every queued line is
/// written.
pub(crate) struct Writer {
    thread: JoinHandle<io::Result<()>>,
}

impl Outbound {
    /// A writer of `output` on its own thread, and the handle to queue
    /// lines for it. The thread ends once every handle is dropped and the
    /// queue is written.
    pub(crate) fn start(mut output: Box<dyn Write + Send>) -> (Outbound, Writer) {
        let (lines, mut queue) = mpsc::unbounded_channel::<Vec<u8>>();
        let thread = std::thread::Builder::new()
            .name("toolpass-writer".into())
            .spawn(move || {
                while let Some(line) = queue.blocking_recv() {
                    output.write_all(&line)?;
                    output.flush()?;
                }
                Ok(())
            });
        let thread = match thread {
            Ok(thread) => thread,
            // Without a writer the server cannot say anything; the handle
            // still works and the lines go nowhere.
            Err(e) => std::thread::spawn(move || Err(e)),
        };
        (Outbound { lines }, Writer { thread })
    }

    /// Queues the success response to request `id`.
    pub(crate) fn result<M: Method>(&self, id: &RequestId, result: &M::Result) {
        let mut line = Vec::new();
        match write_result::<M>(&mut line, id, result) {
            Ok(()) => self.send(line),
            Err(e) => self.error(Some(id.clone()), ResponseError::internal(e)),
        }
    }

    /// Queues the error response to request `id` (`None`: a request too
    /// broken to read its id).
    pub(crate) fn error(&self, id: Option<RequestId>, error: ResponseError) {
        self.message(&Message::Response(Response {
            id,
            result: Err(error),
        }));
    }

    /// Queues a notification.
    pub(crate) fn notify<N: NotificationMethod>(&self, params: &N::Params) {
        self.message(&Message::Notification(Notification::new::<N>(params)));
    }

    fn message(&self, message: &Message) {
        let mut line = Vec::new();
        // Writing to a Vec cannot fail, and the wire types always
        // serialize.
        if write_message(&mut line, message).is_ok() {
            self.send(line);
        }
    }

    fn send(&self, line: Vec<u8>) {
        // The writer is gone only when stdout failed, which `Writer::finish`
        // reports; the line has nowhere to go.
        let _ = self.lines.send(line);
    }
}

impl Writer {
    /// Waits until every line queued before the last handle was dropped is
    /// written; the error that stopped the writer, if any.
    pub(crate) fn finish(self) -> io::Result<()> {
        self.thread
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use toolpass_protocol::{NoticeParams, SessionId, method, parse_line};

    /// A `Write` the test can read back: what reached "stdout".
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            // One byte at a time: a writer that interleaved would show it.
            let mut out = self.0.lock().unwrap();
            out.push(bytes[0]);
            Ok(1)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_never_interleave_under_concurrent_producers() {
        let captured = Captured::default();
        let (outbound, writer) = Outbound::start(Box::new(captured.clone()));
        let producers: Vec<_> = (0..8)
            .map(|producer| {
                let outbound = outbound.clone();
                std::thread::spawn(move || {
                    for i in 0..200 {
                        outbound.notify::<method::Notice>(&NoticeParams {
                            session_id: SessionId::from("s1"),
                            kind: "test".into(),
                            text: format!("producer {producer} notice {i} {}", "x".repeat(i)),
                            call_id: None,
                        });
                        let id = RequestId::Number(producer * 1000 + i as i64);
                        outbound.error(Some(id), ResponseError::internal("e"));
                    }
                })
            })
            .collect();
        for producer in producers {
            producer.join().unwrap();
        }
        drop(outbound);
        writer.finish().unwrap();
        let bytes = captured.0.lock().unwrap().clone();
        let text = String::from_utf8(bytes).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 8 * 200 * 2);
        for line in lines {
            parse_line(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        }
    }
}
