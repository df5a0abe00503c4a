//! The one error type of the text domain: why bytes could not become text
//! that writes back to the same bytes, or why text could not become bytes.

use std::fmt;

use super::encoding::TextEncoding;

/// A failure to decode bytes to text or to encode text to bytes.
///
/// The error is opaque; [`TextError::kind`] says what went wrong. Messages are
/// lowercase fragments that read after "failed to decode file: ".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextError {
    kind: TextErrorKind,
}

/// What went wrong in a [`TextError`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextErrorKind {
    /// The bytes declare (by a byte-order mark) or the caller asked for an
    /// encoding this crate cannot decode or encode, such as UTF-32.
    UnsupportedEncoding {
        /// The encoding's name, e.g. `"UTF-32LE"`.
        name: &'static str,
    },
    /// The bytes look binary: a NUL byte within the sniffed prefix and no
    /// byte-order mark.
    Binary {
        /// Byte offset of the first NUL.
        offset: usize,
    },
    /// The bytes are mostly UTF-8 but contain malformed sequences, so they are
    /// damaged UTF-8 rather than a legacy encoding.
    InvalidUtf8 {
        /// Byte offset of the first malformed sequence.
        offset: usize,
    },
    /// The bytes are neither UTF-8 nor text in any legacy encoding the
    /// detector recognises.
    UnknownEncoding {
        /// Byte offset of the first byte that is not valid UTF-8.
        offset: usize,
    },
    /// The bytes are malformed in the encoding they were decoded as (the one a
    /// byte-order mark declared, the one detected, or the one asked for).
    Malformed {
        /// The encoding the bytes were decoded as.
        encoding: TextEncoding,
        /// Byte offset of the first malformed sequence.
        offset: usize,
    },
    /// The bytes decode, but the text would not encode back to the same
    /// bytes, so writing it back would silently change the file.
    NotRoundTrippable {
        /// The encoding the bytes were decoded as.
        encoding: TextEncoding,
        /// Byte offset of the first byte that would change.
        offset: usize,
    },
    /// A character of the text has no representation in the target encoding.
    Unmappable {
        /// The character that cannot be encoded.
        ch: char,
        /// Byte offset of the character in the text being encoded.
        offset: usize,
        /// The target encoding.
        encoding: TextEncoding,
    },
    /// A byte-order mark was asked for that does not belong to the target
    /// encoding (e.g. a UTF-8 BOM on GBK bytes).
    BomMismatch {
        /// The encoding of the byte-order mark.
        bom: TextEncoding,
        /// The target encoding.
        encoding: TextEncoding,
    },
}

impl TextError {
    /// Says what went wrong.
    #[must_use]
    pub fn kind(&self) -> &TextErrorKind {
        &self.kind
    }
}

impl From<TextErrorKind> for TextError {
    fn from(kind: TextErrorKind) -> Self {
        Self { kind }
    }
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            TextErrorKind::UnsupportedEncoding { name } => {
                write!(f, "unsupported encoding {name}")
            }
            TextErrorKind::Binary { offset } => {
                write!(f, "content looks binary (NUL byte at offset {offset})")
            }
            TextErrorKind::InvalidUtf8 { offset } => {
                write!(f, "invalid utf-8 at byte offset {offset}")
            }
            TextErrorKind::UnknownEncoding { offset } => write!(
                f,
                "unknown encoding (not utf-8 from byte offset {offset}, and no legacy encoding fits)"
            ),
            TextErrorKind::Malformed { encoding, offset } => {
                write!(f, "malformed {encoding} at byte offset {offset}")
            }
            TextErrorKind::NotRoundTrippable { encoding, offset } => write!(
                f,
                "{encoding} text would not write back to the same bytes (first change at byte offset {offset})"
            ),
            TextErrorKind::Unmappable {
                ch,
                offset,
                encoding,
            } => write!(
                f,
                "character {ch:?} (U+{:04X}) at byte offset {offset} has no {encoding} representation",
                u32::from(*ch)
            ),
            TextErrorKind::BomMismatch { bom, encoding } => {
                write!(f, "a {bom} byte-order mark cannot start {encoding} bytes")
            }
        }
    }
}

impl std::error::Error for TextError {}
