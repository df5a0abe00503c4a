//! The notes directory the notes tools act on, reached only beneath its
//! handle (cap-std): a name that climbs out, or a symlink in the directory
//! that points outside it, is refused rather than followed, so a scenario's
//! server never touches anything but the directory it was given.

use std::io;
use std::path::{Component, Path};

use cap_std::ambient_authority;
use cap_std::fs::Dir;

/// The directory given on the command line, opened once at start.
#[derive(Debug)]
pub(crate) struct Notes {
    dir: Dir,
    /// As given, for messages.
    shown: String,
}

/// How many notes and how many bytes they hold (the long-named tool).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tally {
    pub(crate) notes: usize,
    pub(crate) bytes: u64,
}

impl Notes {
    /// Opens `path`; the error names it, since a scenario's `mcpServers`
    /// entry is where a wrong `--dir` comes from.
    pub(crate) fn open(path: &Path) -> anyhow::Result<Self> {
        let dir = Dir::open_ambient_dir(path, ambient_authority()).map_err(|e| {
            anyhow::anyhow!("open the notes directory {} (--dir): {e}", path.display())
        })?;
        Ok(Self {
            dir,
            shown: path.display().to_string(),
        })
    }

    /// The text of note `name`.
    pub(crate) fn read(&self, name: &str) -> Result<String, String> {
        let name = plain_name(name)?;
        self.dir
            .read_to_string(name)
            .map_err(|e| self.failure("read", name, &e))
    }

    /// Writes `content` as note `name`, replacing what is there; returns a
    /// line saying what was written.
    pub(crate) fn write(&self, name: &str, content: &str) -> Result<String, String> {
        let name = plain_name(name)?;
        self.dir
            .write(name, content)
            .map_err(|e| self.failure("write", name, &e))?;
        Ok(format!("wrote {} bytes to {name}", content.len()))
    }

    /// The names of the regular files, in byte order, so every listing of
    /// the same directory is the same text.
    pub(crate) fn names(&self) -> Result<Vec<String>, String> {
        let mut names = Vec::new();
        for entry in self.dir.entries().map_err(|e| self.listing(&e))? {
            let entry = entry.map_err(|e| self.listing(&e))?;
            if entry.file_type().map_err(|e| self.listing(&e))?.is_file() {
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    /// How many regular files the directory holds and their total size.
    pub(crate) fn tally(&self) -> Result<Tally, String> {
        let mut tally = Tally { notes: 0, bytes: 0 };
        for name in self.names()? {
            let size = self
                .dir
                .symlink_metadata(&name)
                .map_err(|e| self.failure("measure", &name, &e))?
                .len();
            tally.notes += 1;
            tally.bytes += size;
        }
        Ok(tally)
    }

    fn failure(&self, what: &str, name: &str, error: &io::Error) -> String {
        if error.kind() == io::ErrorKind::NotFound {
            format!("no note named {name:?} in {}", self.shown)
        } else {
            format!("{what} note {name:?} beneath {}: {error}", self.shown)
        }
    }

    fn listing(&self, error: &io::Error) -> String {
        format!("list the notes directory {}: {error}", self.shown)
    }
}

/// `name` if it is one plain file name; otherwise what is wrong with it, in
/// words a model can act on.
fn plain_name(name: &str) -> Result<&str, String> {
    let mut components = Path::new(name).components();
    match (components.next(), components.next()) {
        (Some(Component::Normal(_)), None) if !name.contains('/') => Ok(name),
        _ => Err(format!(
            "{name:?} is not a note name: give one file name, without '/' or '..'"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::plain_name;

    #[test]
    fn a_note_name_is_one_plain_file_name() {
        for good in ["a.txt", "notes", ".hidden", "a..b"] {
            assert_eq!(plain_name(good), Ok(good));
        }
        for bad in ["", ".", "..", "../x", "a/b", "/etc", "a/", "./a"] {
            let error = plain_name(bad).unwrap_err();
            assert!(error.contains("is not a note name"), "{bad:?}: {error}");
        }
    }
}
