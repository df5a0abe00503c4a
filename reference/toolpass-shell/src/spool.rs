//! The whole output of a foreground run that outgrew its in-memory limits,
//! on disk while it runs, so that the spill file the model is pointed at
//! holds all of it (Qwen holds it all in memory; the runner keeps a head and
//! a tail there).
//!
//! A capture's sink writes here from the moment its stream outgrows the
//! limits (files are made only then: most commands never need one), into
//! unnamed files (`O_TMPFILE`, mode 0600) in the directory the caller gives,
//! which vanish when the run's result is dropped, whatever becomes of it.
//! For pipes each stream is kept raw; for a pty the rendered lines are.
//! [`Spooled::write_output`] turns them into the text the in-memory output
//! is cut from, in the same form: pipes decoded, joined stdout first,
//! `strip-ansi`ed and trimmed; a pty's lines trimmed at the end.

use std::cell::RefCell;
use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use crate::output::decode::Utf8Stream;
use crate::output::stream_separator;
use crate::output::strip::AnsiStream;
use crate::output::text::is_js_whitespace;

/// Bytes read or written at a time.
const CHUNK: usize = 64 * 1024;

/// Where a run may put its whole output, and how much of it: the directory
/// is asked for only when an output first outgrows its limits.
#[derive(Clone, Copy)]
pub struct SpoolDir<'a> {
    /// The directory the files are made in.
    pub dir: &'a dyn Fn() -> io::Result<PathBuf>,
    /// The most bytes the files of one run hold together. Past it the
    /// files are let go at once and the run keeps only what its limits
    /// keep: a command printing without end (`yes` with a long timeout)
    /// would otherwise fill the disk before it is stopped.
    pub cap: u64,
}

impl fmt::Debug for SpoolDir<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SpoolDir")
            .field("cap", &self.cap)
            .finish_non_exhaustive()
    }
}

/// One stream's file while the run goes on.
#[derive(Default)]
enum Slot {
    #[default]
    Unopened,
    Open(BufWriter<File>),
}

/// The files of one run: stdout (or the pty's lines) and stderr.
pub(crate) struct Spools<'a> {
    dir: SpoolDir<'a>,
    slots: [Slot; 2],
    /// The bytes written to both files.
    written: u64,
    /// The first failure: the whole output is then not available.
    failed: Option<io::Error>,
}

impl<'a> Spools<'a> {
    pub(crate) fn new(dir: SpoolDir<'a>) -> RefCell<Self> {
        RefCell::new(Self {
            dir,
            slots: [Slot::Unopened, Slot::Unopened],
            written: 0,
            failed: None,
        })
    }

    /// Appends `bytes` to stream `index` (0 stdout, 1 stderr).
    pub(crate) fn write(&mut self, index: usize, bytes: &[u8]) {
        if self.failed.is_some() {
            return;
        }
        self.written = self.written.saturating_add(bytes.len() as u64);
        let result = if self.written > self.dir.cap {
            Err(io::Error::other(format!(
                "the output passed the {} bytes a run may hold on disk; only its head and tail \
                 are kept",
                self.dir.cap
            )))
        } else {
            self.try_write(index, bytes)
        };
        if let Err(e) = result {
            // The files are unnamed: dropping them gives their space back.
            self.slots = [Slot::Unopened, Slot::Unopened];
            self.failed = Some(e);
        }
    }

    fn try_write(&mut self, index: usize, bytes: &[u8]) -> io::Result<()> {
        if matches!(self.slots[index], Slot::Unopened) {
            let dir = (self.dir.dir)()?;
            let file = tempfile::tempfile_in(dir)?;
            self.slots[index] = Slot::Open(BufWriter::with_capacity(CHUNK, file));
        }
        match &mut self.slots[index] {
            Slot::Open(file) => file.write_all(bytes),
            Slot::Unopened => Ok(()),
        }
    }

    /// The whole output once the run is over: `Ok(None)` when nothing was
    /// spooled.
    pub(crate) fn finish(self, pty: bool) -> io::Result<Option<Spooled>> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let [stdout, stderr] = self.slots.map(|slot| match slot {
            Slot::Unopened => Ok(None),
            Slot::Open(file) => file.into_inner().map(Some).map_err(|e| e.into_error()),
        });
        let (stdout, stderr) = (stdout?, stderr?);
        if stdout.is_none() && stderr.is_none() {
            return Ok(None);
        }
        Ok(Some(Spooled {
            pty,
            stdout,
            stderr,
        }))
    }
}

/// The whole output of a run, in files that vanish with this value.
#[derive(Debug)]
pub struct Spooled {
    pty: bool,
    stdout: Option<File>,
    stderr: Option<File>,
}

impl Spooled {
    /// Writes the whole output text to `out` at its position, leaving the
    /// position after it: for pipes the streams decoded, joined stdout
    /// first, `strip-ansi`ed and trimmed; for a pty the rendered lines with
    /// their end trimmed. Memory stays bounded: a chunk at a time.
    ///
    /// # Errors
    /// When a file cannot be read or `out` written.
    pub fn write_output(self, out: &mut File) -> io::Result<u64> {
        let mut text = Trimmed::new(out, !self.pty)?;
        let mut strip = (!self.pty).then(AnsiStream::default);
        let mut put = |text: &mut Trimmed<'_>, piece: &str| -> io::Result<()> {
            match &mut strip {
                Some(strip) => {
                    let mut stripped = String::with_capacity(piece.len());
                    strip.push(piece, &mut stripped);
                    text.put(&stripped)
                }
                None => text.put(piece),
            }
        };
        let mut stdout_last = None;
        if let Some(file) = self.stdout {
            stdout_last = decode(file, &mut |piece| put(&mut text, piece))?;
        }
        let stderr_len = match &self.stderr {
            Some(file) => file.metadata()?.len(),
            None => 0,
        };
        put(&mut text, stream_separator(stdout_last, stderr_len > 0))?;
        if let Some(file) = self.stderr {
            decode(file, &mut |piece| put(&mut text, piece))?;
        }
        if let Some(mut strip) = strip {
            let mut rest = String::new();
            strip.finish(&mut rest);
            text.put(&rest)?;
        }
        text.finish()
    }
}

/// Reads `file` from its start, decoding it as UTF-8 with replacement
/// characters into `each`; returns its last byte.
fn decode(mut file: File, each: &mut dyn FnMut(&str) -> io::Result<()>) -> io::Result<Option<u8>> {
    file.seek(SeekFrom::Start(0))?;
    let mut decoder = Utf8Stream::default();
    let mut buffer = vec![0; CHUNK];
    let mut text = String::with_capacity(CHUNK + 4);
    let mut last = None;
    loop {
        let read = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        last = Some(buffer[read - 1]);
        text.clear();
        decoder.decode(&buffer[..read], &mut text);
        each(&text)?;
    }
    text.clear();
    decoder.finish(&mut text);
    each(&text)?;
    Ok(last)
}

/// A writer that trims JavaScript white space off the end (and, for pipes,
/// the start) without holding it: the file is cut back to the end of the
/// last other character when the text ends.
struct Trimmed<'f> {
    out: BufWriter<&'f mut File>,
    start: u64,
    written: u64,
    content_end: u64,
    trim_start: bool,
}

impl<'f> Trimmed<'f> {
    fn new(out: &'f mut File, trim_start: bool) -> io::Result<Self> {
        let start = out.stream_position()?;
        Ok(Self {
            out: BufWriter::with_capacity(CHUNK, out),
            start,
            written: 0,
            content_end: 0,
            trim_start,
        })
    }

    fn put(&mut self, mut text: &str) -> io::Result<()> {
        if self.trim_start {
            text = text.trim_start_matches(is_js_whitespace);
            if text.is_empty() {
                return Ok(());
            }
            self.trim_start = false;
        }
        self.out.write_all(text.as_bytes())?;
        if let Some((at, c)) = text.char_indices().rfind(|&(_, c)| !is_js_whitespace(c)) {
            self.content_end = self.written + (at + c.len_utf8()) as u64;
        }
        self.written += text.len() as u64;
        Ok(())
    }

    /// Cuts the trailing white space; returns the text's length.
    fn finish(self) -> io::Result<u64> {
        let out = self.out.into_inner().map_err(|e| e.into_error())?;
        let end = self.start + self.content_end;
        out.set_len(end)?;
        out.seek(SeekFrom::Start(end))?;
        Ok(self.content_end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_are_let_go_the_moment_the_cap_is_passed() {
        let dir = tempfile::tempdir().unwrap();
        let make = || Ok::<PathBuf, io::Error>(dir.path().to_owned());
        let spools = Spools::new(SpoolDir {
            dir: &make,
            cap: 10,
        });
        let open = |spools: &RefCell<Spools<'_>>| {
            spools
                .borrow()
                .slots
                .iter()
                .map(|slot| matches!(slot, Slot::Open(_)))
                .collect::<Vec<_>>()
        };
        spools.borrow_mut().write(0, b"12345678");
        spools.borrow_mut().write(1, b"12");
        assert_eq!(open(&spools), [true, true], "ten bytes fit");
        spools.borrow_mut().write(0, b"x");
        assert_eq!(
            open(&spools),
            [false, false],
            "past the cap both are dropped"
        );
        spools.borrow_mut().write(0, b"more");
        assert_eq!(open(&spools), [false, false], "and stay so");
        let error = spools.into_inner().finish(false).unwrap_err();
        assert!(error.to_string().contains("passed the 10 bytes"), "{error}");
    }
}
