//! [`Error`]: what can go wrong once scenarios are loaded — substituting
//! placeholders, compiling a substituted regex, writing a snapshot.
//!
//! Loading has its own, positioned errors: [`crate::LoadErrors`].

use std::fmt;

/// A failure while running a loaded scenario's data.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// What kind of failure an [`Error`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A placeholder names a variable with no value: a capture that never
    /// ran, or a scenario that was not validated.
    UndefinedVariable,
    /// A regex does not compile once its placeholders are substituted.
    Regex,
    /// A snapshot matcher has no file, because its scenario was not loaded
    /// from a directory.
    NoSnapshotFile,
    /// Reading or writing a file failed.
    Io,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            source: None,
        }
    }

    pub(crate) fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Error {
        self.source = Some(Box::new(source));
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
