//! The thread that runs one background shell: its output goes to the output
//! file as it arrives (`streamStdout: true` in Qwen, so a dev server's file
//! fills while it runs), with escape sequences stripped chunk by chunk as
//! Qwen strips them; on exit or cancel its family is ended, and the
//! registry is told how it ended. The file is held under its cap
//! ([`super::capped`]).

use std::fs::File;
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::SystemTime;

use super::Shared;
use super::capped::{CappedFile, OUTPUT_FILE_CAP};
use crate::cancel::Cancel;
use crate::output::Stream;
use crate::output::decode::Utf8Stream;
use crate::output::text::strip_ansi;
use crate::run::{KILL_GRACE, Started, drain, wait_for_exit};
use crate::spawn::Event;

/// Runs `started` to its end on a thread of its own.
pub(super) fn spawn(
    shared: Arc<Shared>,
    id: String,
    started: Started,
    file: File,
    cancel: Cancel,
) -> JoinHandle<()> {
    thread::spawn(move || {
        let family = started.family();
        let spawned = started.spawned;
        let mut writer = OutputFile {
            file: CappedFile::new(file, OUTPUT_FILE_CAP),
            stdout: Utf8Stream::default(),
            stderr: Utf8Stream::default(),
        };
        let wake = spawned.sender.clone();
        let listening = cancel.listen(move || {
            let _ = wake.try_send(Event::Cancelled);
        });
        let mut open_streams = spawned.streams;
        let mut exit = None;
        while !cancel.is_fired() {
            match spawned.events.recv() {
                Ok(Event::Output(stream, bytes)) => writer.write(stream, &bytes),
                Ok(Event::Closed) => open_streams -= 1,
                Ok(Event::Exited(status)) => {
                    exit = Some(status);
                    break;
                }
                Ok(Event::Cancelled) => {}
                Err(_) => break,
            }
        }
        drop(listening);
        family.end(KILL_GRACE);
        let mut sink = |stream, bytes: &[u8]| writer.write(stream, bytes);
        let status = match exit {
            Some(status) => status,
            None => wait_for_exit(&spawned, &mut sink, &mut open_streams),
        };
        drain(&spawned, open_streams, &mut sink);
        writer.finish();
        spawned.reap();
        let end = SystemTime::now();
        if cancel.is_fired() {
            shared.cancel(&id, end);
        } else if let Some(signal) = status.signal {
            shared.fail(&id, &format!("terminated by signal {signal}"), end);
        } else {
            match status.code {
                Some(0) | None => shared.complete(&id, 0, end),
                Some(code) => shared.fail(&id, &format!("exited with code {code}"), end),
            }
        }
    })
}

/// The output file and a decoder per stream.
struct OutputFile {
    file: CappedFile,
    stdout: Utf8Stream,
    stderr: Utf8Stream,
}

impl OutputFile {
    fn write(&mut self, stream: Stream, bytes: &[u8]) {
        let decoder = match stream {
            Stream::Stdout => &mut self.stdout,
            Stream::Stderr => &mut self.stderr,
        };
        let mut text = String::new();
        decoder.decode(bytes, &mut text);
        self.put(&text);
    }

    fn finish(&mut self) {
        let mut text = String::new();
        self.stdout.finish(&mut text);
        self.stderr.finish(&mut text);
        self.put(&text);
    }

    /// A failed write loses output, not the shell (Qwen logs it and goes on).
    fn put(&mut self, text: &str) {
        if !text.is_empty() {
            let _ = self.file.append(strip_ansi(text).as_bytes());
        }
    }
}
