//! Byte-order marks: which one a file starts with, the body without it, and
//! the bytes to put back on write (Qwen's `fileUtils.ts:detectBOM` and
//! `fileSystemService.ts:getBOMBytesForEncoding`).

use super::encoding::TextEncoding;
use super::error::{TextError, TextErrorKind};

/// A Unicode byte-order mark this crate can decode and write back.
///
/// UTF-32 marks are recognised by [`detect_bom`] but reported as an
/// unsupported encoding, because `encoding_rs` has no UTF-32 and decoding
/// UTF-32 as UTF-16 would corrupt the file on write-back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bom {
    /// `EF BB BF`.
    Utf8,
    /// `FF FE`.
    Utf16Le,
    /// `FE FF`.
    Utf16Be,
}

impl Bom {
    /// The mark's bytes, to prepend when writing the file back.
    #[must_use]
    pub const fn bytes(self) -> &'static [u8] {
        match self {
            Bom::Utf8 => &[0xEF, 0xBB, 0xBF],
            Bom::Utf16Le => &[0xFF, 0xFE],
            Bom::Utf16Be => &[0xFE, 0xFF],
        }
    }

    /// The encoding the mark declares.
    #[must_use]
    pub fn encoding(self) -> TextEncoding {
        match self {
            Bom::Utf8 => TextEncoding::UTF_8,
            Bom::Utf16Le => TextEncoding::UTF_16LE,
            Bom::Utf16Be => TextEncoding::UTF_16BE,
        }
    }

    /// The mark that belongs to `encoding`, if it has one: UTF-8 and the two
    /// UTF-16s do, legacy encodings do not.
    #[must_use]
    pub fn for_encoding(encoding: TextEncoding) -> Option<Bom> {
        [Bom::Utf8, Bom::Utf16Le, Bom::Utf16Be]
            .into_iter()
            .find(|bom| bom.encoding() == encoding)
    }
}

/// Which byte-order mark `bytes` start with, if any.
///
/// The order is Qwen's: the four-byte UTF-32 marks first (so `FF FE 00 00`
/// is UTF-32LE, not UTF-16LE followed by a NUL), then UTF-8, then UTF-16.
/// A partial mark is no mark.
///
/// # Errors
///
/// [`TextErrorKind::UnsupportedEncoding`] for a UTF-32 mark.
pub fn detect_bom(bytes: &[u8]) -> Result<Option<Bom>, TextError> {
    if bytes.starts_with(&[0xFF, 0xFE, 0x00, 0x00]) {
        return Err(TextErrorKind::UnsupportedEncoding { name: "UTF-32LE" }.into());
    }
    if bytes.starts_with(&[0x00, 0x00, 0xFE, 0xFF]) {
        return Err(TextErrorKind::UnsupportedEncoding { name: "UTF-32BE" }.into());
    }
    Ok([Bom::Utf8, Bom::Utf16Le, Bom::Utf16Be]
        .into_iter()
        .find(|bom| bytes.starts_with(bom.bytes())))
}

/// Splits `bytes` into their byte-order mark and the body after it.
///
/// # Errors
///
/// As [`detect_bom`].
pub fn strip_bom(bytes: &[u8]) -> Result<(Option<Bom>, &[u8]), TextError> {
    let bom = detect_bom(bytes)?;
    let len = bom.map_or(0, |bom| bom.bytes().len());
    let body = bytes.get(len..).unwrap_or_default();
    Ok((bom, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(bytes: &[u8], expect: Result<Option<Bom>, &str>) {
        let got = detect_bom(bytes).map_err(|err| match err.kind() {
            TextErrorKind::UnsupportedEncoding { name } => *name,
            other => panic!("unexpected error {other:?}"),
        });
        assert_eq!(got, expect, "{bytes:02X?}");
    }

    // upstream: fileUtils.test.ts "should detect UTF-8 BOM"
    #[test]
    fn detects_utf8_bom() {
        check(
            &[0xEF, 0xBB, 0xBF, 0x48, 0x65, 0x6C, 0x6C, 0x6F],
            Ok(Some(Bom::Utf8)),
        );
    }

    // upstream: fileUtils.test.ts "should detect UTF-16 LE BOM"
    #[test]
    fn detects_utf16le_bom() {
        check(
            &[0xFF, 0xFE, 0x48, 0x00, 0x65, 0x00],
            Ok(Some(Bom::Utf16Le)),
        );
    }

    // upstream: fileUtils.test.ts "should detect UTF-16 BE BOM"
    #[test]
    fn detects_utf16be_bom() {
        check(
            &[0xFE, 0xFF, 0x00, 0x48, 0x00, 0x65],
            Ok(Some(Bom::Utf16Be)),
        );
    }

    // upstream: fileUtils.test.ts "should detect UTF-32 LE BOM" (Qwen decodes
    // it; this crate reports it as unsupported instead)
    #[test]
    fn utf32le_bom_is_unsupported() {
        check(
            &[0xFF, 0xFE, 0x00, 0x00, 0x48, 0x00, 0x00, 0x00],
            Err("UTF-32LE"),
        );
    }

    // upstream: fileUtils.test.ts "should detect UTF-32 BE BOM"
    #[test]
    fn utf32be_bom_is_unsupported() {
        check(
            &[0x00, 0x00, 0xFE, 0xFF, 0x00, 0x00, 0x00, 0x48],
            Err("UTF-32BE"),
        );
    }

    // upstream: fileUtils.test.ts "should return null for no BOM"
    #[test]
    fn no_bom() {
        check(b"Hello", Ok(None));
    }

    // upstream: fileUtils.test.ts "should return null for empty buffer"
    #[test]
    fn empty_has_no_bom() {
        check(b"", Ok(None));
    }

    // upstream: fileUtils.test.ts "should return null for partial BOM"
    #[test]
    fn partial_bom_is_no_bom() {
        check(&[0xEF, 0xBB], Ok(None));
    }

    // Qwen's detectBOM only tests for UTF-32LE when four bytes are present, so
    // a bare `FF FE` or `FF FE 00` is still UTF-16LE.
    #[test]
    fn short_utf16le_prefix_is_utf16le() {
        check(&[0xFF, 0xFE], Ok(Some(Bom::Utf16Le)));
        check(&[0xFF, 0xFE, 0x00], Ok(Some(Bom::Utf16Le)));
    }

    #[test]
    fn strip_returns_body_after_the_mark() {
        assert_eq!(
            strip_bom(b"\xEF\xBB\xBFhi").ok(),
            Some((Some(Bom::Utf8), &b"hi"[..]))
        );
        assert_eq!(strip_bom(b"hi").ok(), Some((None, &b"hi"[..])));
        assert_eq!(strip_bom(b"").ok(), Some((None, &b""[..])));
    }

    #[test]
    fn bytes_and_encoding_agree() {
        for bom in [Bom::Utf8, Bom::Utf16Le, Bom::Utf16Be] {
            assert_eq!(detect_bom(bom.bytes()).ok(), Some(Some(bom)));
            assert_eq!(Bom::for_encoding(bom.encoding()), Some(bom));
        }
        assert_eq!(Bom::for_encoding(TextEncoding::GBK), None);
    }
}
