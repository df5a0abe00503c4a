//! A background shell's output file, held under a cap: a shell left
//! printing (`yes`, a chatty server) would otherwise fill the disk. Past
//! the cap the oldest output is dropped and the newest kept, as a log
//! rotation would, and the file then starts with a line saying how many
//! bytes were dropped, so the model reading it knows where it was cut.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

/// The most bytes a background shell's output file holds (4 MiB): far
/// more than a model reads of a log, little enough that 16 running shells
/// and the ended ones kept cannot fill a disk.
pub const OUTPUT_FILE_CAP: u64 = 4 * 1024 * 1024;

/// How far back from a cut the kept output may start at a line: a cut
/// mid-line moves to the next line start when one is this close.
const LINE_SEARCH: usize = 4096;

/// An output file that keeps its newest output under a cap.
pub(super) struct CappedFile {
    file: File,
    cap: u64,
    /// The size of the file.
    len: u64,
    /// The size of the note at its start, 0 before the first cut.
    note_len: u64,
    /// The bytes dropped so far.
    dropped: u64,
}

impl CappedFile {
    /// `file`, empty, readable and writable, held under `cap` bytes (at
    /// least a few KiB, so the note and some output fit).
    pub(super) fn new(file: File, cap: u64) -> Self {
        Self {
            file,
            cap,
            len: 0,
            note_len: 0,
            dropped: 0,
        }
    }

    /// Appends `bytes` (UTF-8 text), dropping the oldest output when the
    /// file would pass its cap.
    pub(super) fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.len + bytes.len() as u64 <= self.cap {
            self.file.write_all(bytes)?;
            self.len += bytes.len() as u64;
            return Ok(());
        }
        self.cut(bytes)
    }

    /// Rewrites the file as the note and the newest half of the cap of its
    /// output followed by `bytes`: a cut costs one copy of that half and
    /// then leaves room for the next half, so appending stays linear.
    fn cut(&mut self, bytes: &[u8]) -> io::Result<()> {
        let keep = usize::try_from(self.cap / 2).unwrap_or(usize::MAX);
        let body = usize::try_from(self.len - self.note_len).unwrap_or(usize::MAX);
        let mut kept = if bytes.len() >= keep {
            bytes[bytes.len() - keep..].to_vec()
        } else {
            let from_file = (keep - bytes.len()).min(body);
            let mut old = Vec::with_capacity(from_file + bytes.len());
            self.file
                .seek(SeekFrom::Start(self.len - from_file as u64))?;
            (&mut self.file)
                .take(from_file as u64)
                .read_to_end(&mut old)?;
            old.extend_from_slice(bytes);
            old
        };
        let start = line_start(&kept);
        kept.drain(..start);
        self.dropped += (body + bytes.len() - kept.len()) as u64;
        let note = format!(
            "[toolpass: the first {} bytes of this output were dropped to keep the file under \
             {} bytes; what follows is its newest output]\n",
            self.dropped, self.cap
        );
        self.file.seek(SeekFrom::Start(0))?;
        self.file.write_all(note.as_bytes())?;
        self.file.write_all(&kept)?;
        self.note_len = note.len() as u64;
        self.len = self.note_len + kept.len() as u64;
        self.file.set_len(self.len)?;
        self.file.seek(SeekFrom::Start(self.len))?;
        Ok(())
    }
}

/// Where kept output cut from the front of a text should start: after the
/// first newline when one is near, else at the first character boundary.
fn line_start(kept: &[u8]) -> usize {
    let near = &kept[..kept.len().min(LINE_SEARCH)];
    match near.iter().position(|&b| b == b'\n') {
        Some(at) if at + 1 < kept.len() => at + 1,
        _ => kept
            .iter()
            .position(|&b| b & 0xC0 != 0x80)
            .unwrap_or(kept.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capped(cap: u64) -> (tempfile::NamedTempFile, CappedFile) {
        let named = tempfile::NamedTempFile::new().unwrap();
        let file = named.reopen().unwrap();
        (named, CappedFile::new(file, cap))
    }

    #[test]
    fn output_under_the_cap_is_kept_whole() {
        let (named, mut out) = capped(1000);
        out.append(b"one\n").unwrap();
        out.append(b"two\n").unwrap();
        assert_eq!(std::fs::read_to_string(named.path()).unwrap(), "one\ntwo\n");
    }

    #[test]
    fn past_the_cap_the_newest_output_is_kept_with_a_note_of_the_cut() {
        let (named, mut out) = capped(4096);
        let mut all = String::new();
        for i in 0..2000 {
            let line = format!("line {i}\n");
            out.append(line.as_bytes()).unwrap();
            all.push_str(&line);
            let len = std::fs::metadata(named.path()).unwrap().len();
            assert!(len <= 4096, "{len}");
        }
        let text = std::fs::read_to_string(named.path()).unwrap();
        let (note, kept) = text.split_once('\n').unwrap();
        assert!(
            all.ends_with(kept),
            "the kept output is the newest, whole lines"
        );
        assert!(kept.starts_with("line ") && kept.ends_with("line 1999\n"));
        let dropped = all.len() - kept.len();
        assert!(
            note.contains(&format!("the first {dropped} bytes")),
            "{note}"
        );
    }

    #[test]
    fn one_write_larger_than_the_cap_keeps_its_end_on_a_character_boundary() {
        let (named, mut out) = capped(4096);
        let big = "é".repeat(10_000);
        out.append(big.as_bytes()).unwrap();
        let text = std::fs::read_to_string(named.path()).expect("valid UTF-8");
        let (note, kept) = text.split_once('\n').unwrap();
        assert!(kept.len() <= 2048 && kept.chars().all(|c| c == 'é'));
        assert!(note.contains(&format!("the first {} bytes", big.len() - kept.len())));
        assert!(text.len() <= 4096);
    }
}
