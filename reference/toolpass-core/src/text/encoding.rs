//! The encodings text is decoded from and encoded back to: a wrapper over
//! `encoding_rs` that names Qwen's labels and excludes the one encoding that
//! cannot encode. Its own file because the BOM, the codec and the errors all
//! name it, and none of them should need the others for that.

use std::fmt;

use encoding_rs::Encoding;

/// A character encoding that text can be decoded from and encoded back to.
///
/// A thin wrapper over an `encoding_rs` encoding that excludes the WHATWG
/// "replacement" encoding, which cannot encode. Two values are equal when
/// they wrap the same encoding.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextEncoding(&'static Encoding);

impl TextEncoding {
    /// UTF-8.
    pub const UTF_8: Self = Self(&encoding_rs::UTF_8_INIT);
    /// UTF-16, little-endian.
    pub const UTF_16LE: Self = Self(&encoding_rs::UTF_16LE_INIT);
    /// UTF-16, big-endian.
    pub const UTF_16BE: Self = Self(&encoding_rs::UTF_16BE_INIT);
    /// GBK: GB2312 plus extensions; cannot encode characters outside it.
    pub const GBK: Self = Self(&encoding_rs::GBK_INIT);
    /// GB18030: GBK's superset that can encode all of Unicode.
    pub const GB18030: Self = Self(&encoding_rs::GB18030_INIT);
    /// Shift_JIS.
    pub const SHIFT_JIS: Self = Self(&encoding_rs::SHIFT_JIS_INIT);
    /// windows-1252 (what WHATWG also calls ISO-8859-1 and US-ASCII).
    pub const WINDOWS_1252: Self = Self(&encoding_rs::WINDOWS_1252_INIT);

    /// Wraps an `encoding_rs` encoding; `None` for the "replacement"
    /// encoding, which decodes everything to U+FFFD and cannot encode.
    #[must_use]
    pub fn new(encoding: &'static Encoding) -> Option<Self> {
        (encoding != encoding_rs::REPLACEMENT).then_some(Self(encoding))
    }

    /// The encoding a label names, as Qwen resolves `_meta.encoding`:
    /// `utf8`, `ascii` and `us-ascii` in any spelling mean UTF-8 (Qwen's
    /// `isUtf8CompatibleEncoding`), anything else is a WHATWG label
    /// (`gbk`, `gb18030`, `shift_jis`, `utf-16le`, ...). `None` for unknown
    /// labels, UTF-32 among them.
    #[must_use]
    pub fn for_label(label: &str) -> Option<Self> {
        let squashed: String = label
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if matches!(squashed.as_str(), "utf8" | "ascii" | "usascii") {
            return Some(Self::UTF_8);
        }
        Encoding::for_label(label.as_bytes()).and_then(Self::new)
    }

    /// The encoding's canonical WHATWG name, e.g. `"UTF-8"`, `"GBK"`.
    #[must_use]
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// The wrapped `encoding_rs` encoding.
    #[must_use]
    pub fn as_encoding(self) -> &'static Encoding {
        self.0
    }

    /// Whether this is UTF-8, the encoding Node writes natively.
    #[must_use]
    pub fn is_utf8(self) -> bool {
        self == Self::UTF_8
    }
}

impl fmt::Debug for TextEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TextEncoding({})", self.name())
    }
}

impl fmt::Display for TextEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
