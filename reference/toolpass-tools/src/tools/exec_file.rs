//! A program run as Node's `execFile` runs it for Qwen Code: with a
//! timeout, and at most `maxBuffer` bytes of output kept (the child killed
//! past that). One place for `read_file`'s PDF programs and the shell's
//! question to git, which Qwen both runs this way.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// What one run produced (the arguments of Node's `execFile` callback).
pub(crate) struct Finished {
    /// At most `max_stdout` bytes of the standard output.
    pub(crate) stdout: Vec<u8>,
    /// At most 1 MiB of the standard error.
    pub(crate) stderr: Vec<u8>,
    /// The exit code; `None` when a signal ended the program.
    pub(crate) code: Option<i32>,
    /// The output went past `max_stdout` (and the child was killed).
    pub(crate) max_buffer_exceeded: bool,
    /// The timeout ended the program.
    pub(crate) timed_out: bool,
}

/// Runs `command` with `input` as its standard input (none when `None`)
/// and a timeout, keeping at most `max_stdout` bytes of its output (the
/// child is killed past that, like Node's `maxBuffer`). `None` when it
/// cannot be started.
pub(crate) fn exec_file(
    mut command: Command,
    input: Option<&File>,
    timeout: Duration,
    max_stdout: usize,
) -> Option<Finished> {
    let stdin = match input {
        Some(file) => {
            let mut file = file.try_clone().ok()?;
            file.seek(SeekFrom::Start(0)).ok()?;
            Stdio::from(file)
        }
        None => Stdio::null(),
    };
    let mut child = command
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let stdout = child.stdout.take()?;
    let stderr = child.stderr.take()?;
    let overflowed = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&overflowed);
    let out_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let limit = u64::try_from(max_stdout)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        let _ = stdout.take(limit).read_to_end(&mut buf);
        if buf.len() > max_stdout {
            flag.store(true, Ordering::Relaxed);
        }
        buf
    });
    let err_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.take(1 << 20).read_to_end(&mut buf);
        buf
    });
    let deadline = Instant::now() + timeout;
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => {
                timed_out = true;
                let _ = child.kill();
                break child.wait().ok();
            }
            Ok(None) => {
                if overflowed.load(Ordering::Relaxed) {
                    // The reader stopped at the limit; a child still writing
                    // would block on the full pipe forever.
                    let _ = child.kill();
                }
                thread::sleep(Duration::from_millis(5));
            }
            Err(_) => break None,
        }
    };
    let mut stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    let max_buffer_exceeded = stdout.len() > max_stdout;
    stdout.truncate(max_stdout);
    Some(Finished {
        stdout,
        stderr,
        code: status.and_then(|s| s.code()),
        max_buffer_exceeded,
        timed_out,
    })
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn sh(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        command
    }

    #[test]
    fn the_code_both_streams_and_the_input_file_come_back() {
        let mut input = tempfile::tempfile().unwrap();
        input.write_all(b"from the file").unwrap();
        let done = exec_file(
            sh("cat; echo oops >&2; exit 3"),
            Some(&input),
            Duration::from_secs(10),
            1024,
        )
        .unwrap();
        assert_eq!(done.stdout, b"from the file");
        assert_eq!(done.stderr, b"oops\n");
        assert_eq!(done.code, Some(3));
        assert!(!done.timed_out && !done.max_buffer_exceeded);
    }

    #[test]
    fn output_past_the_limit_is_cut_and_the_writer_ended() {
        // `yes` never stops by itself: only the kill at the limit ends it.
        let done = exec_file(sh("yes"), None, Duration::from_secs(30), 100).unwrap();
        assert!(done.max_buffer_exceeded);
        assert!(!done.timed_out);
        assert_eq!(done.stdout, b"y\n".repeat(50));
    }

    #[test]
    fn the_timeout_ends_a_program_that_does_not() {
        let done = exec_file(sh("exec sleep 30"), None, Duration::from_millis(50), 100).unwrap();
        assert!(done.timed_out);
        assert_eq!(done.code, None);
    }

    #[test]
    fn a_program_that_cannot_start_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let missing = Command::new(dir.path().join("no-such-program"));
        assert!(exec_file(missing, None, Duration::from_secs(1), 100).is_none());
    }
}
