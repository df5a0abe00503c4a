//! Bytes to text and back: encoding detection, strict decoding, and encoding
//! that refuses to substitute, so that `encode(decode(bytes)) == bytes` for
//! every file `decode` accepts.
//!
//! Mirrors Qwen's `fileUtils.ts:decodeBufferWithEncodingInfo` (BOM, then
//! valid UTF-8, then statistical detection), `systemEncoding.ts:
//! detectEncodingFromBuffer` (the detector and its head/middle/tail sample),
//! `textUtils.ts:isBinary` (NUL in the first 512 bytes), `encoding.ts:
//! isUtf8CompatibleEncoding` (label handling) and the encoding half of
//! `fileSystemService.ts:prepareTextFileContent`.

use std::borrow::Cow;

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{DecoderResult, EncoderResult};

use super::bom::{Bom, strip_bom};
use super::encoding::TextEncoding;
use super::eol::{LineEnding, detect_line_ending};
use super::error::{TextError, TextErrorKind};

/// How many leading bytes are searched for a NUL to call content binary
/// (Qwen's `isBinary` `sampleSize`).
pub const BINARY_SNIFF_LEN: usize = 512;

/// Qwen's `CHARDET_SAMPLE_BYTES`: the detector sees at most this many bytes
/// from the head, the middle and the tail of a large buffer.
const DETECTION_SAMPLE_LEN: usize = 64 * 1024;

/// Non-ASCII characters that must stand in valid UTF-8 for each malformed
/// sequence before the bytes count as damaged UTF-8 rather than a legacy
/// encoding. Legacy CJK and Cyrillic text measures below 0.5 valid
/// sequences per malformed one (a GBK pair is valid UTF-8 only by accident),
/// so 4 leaves a wide margin on both sides.
const DAMAGED_UTF8_RATIO: usize = 4;

/// A file's bytes as text, with what is needed to write them back: Qwen's
/// `FileReadResult` (`content`, `encoding`, `bom`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The text, without the byte-order mark, line endings as in the file.
    pub text: String,
    /// The encoding the bytes were in.
    pub encoding: TextEncoding,
    /// The byte-order mark the bytes started with, if any.
    pub bom: Option<Bom>,
}

impl Decoded {
    /// The text's line-ending style (Qwen's `_meta.lineEnding`).
    #[must_use]
    pub fn line_ending(&self) -> LineEnding {
        detect_line_ending(&self.text)
    }
}

/// Decodes a file's bytes, detecting the encoding as Qwen does.
///
/// The order is Qwen's: an empty buffer is empty UTF-8; a byte-order mark
/// decides the encoding; without one, a NUL in the first
/// [`BINARY_SNIFF_LEN`] bytes means binary; valid UTF-8 is UTF-8; anything
/// else goes to the statistical detector (`chardetng` here, `chardet` in
/// Qwen). Unlike Qwen, the result always writes back byte for byte:
/// `encode(&d.text, d.encoding, d.bom) == bytes`. Where that cannot hold,
/// this returns an error instead of lossy text.
///
/// # Errors
///
/// - [`TextErrorKind::UnsupportedEncoding`]: a UTF-32 byte-order mark.
/// - [`TextErrorKind::Binary`]: a NUL in the sniffed prefix, no BOM.
/// - [`TextErrorKind::InvalidUtf8`]: mostly UTF-8, with malformed sequences.
/// - [`TextErrorKind::UnknownEncoding`]: not UTF-8, and the detected legacy
///   encoding yields control characters rather than text.
/// - [`TextErrorKind::Malformed`]: malformed in the declared or detected
///   encoding.
/// - [`TextErrorKind::NotRoundTrippable`]: decodes, but would not encode
///   back to the same bytes.
pub fn decode(bytes: &[u8]) -> Result<Decoded, TextError> {
    let (bom, body) = strip_bom(bytes)?;
    if let Some(bom) = bom {
        return decode_exactly(bytes, body, bom.encoding(), Some(bom));
    }
    if let Some(offset) = find_binary_marker(bytes) {
        return Err(TextErrorKind::Binary { offset }.into());
    }
    let utf8_error = match std::str::from_utf8(bytes) {
        Ok(text) => {
            return Ok(Decoded {
                text: text.to_owned(),
                encoding: TextEncoding::UTF_8,
                bom: None,
            });
        }
        Err(err) => err,
    };
    let offset = utf8_error.valid_up_to();
    if looks_like_damaged_utf8(bytes) {
        return Err(TextErrorKind::InvalidUtf8 { offset }.into());
    }
    decode_legacy(bytes, detect_legacy(bytes), offset)
}

/// Decodes bytes known to be in `encoding`, with no detection and no binary
/// check: for callers that already know the encoding (from an earlier
/// [`decode`], or from configuration). A leading byte-order mark of that
/// encoding is stripped and reported; a mark of another encoding is content.
///
/// # Errors
///
/// [`TextErrorKind::Malformed`] and [`TextErrorKind::NotRoundTrippable`], as
/// for [`decode`].
pub fn decode_as(bytes: &[u8], encoding: TextEncoding) -> Result<Decoded, TextError> {
    let bom = Bom::for_encoding(encoding).filter(|bom| bytes.starts_with(bom.bytes()));
    let body = bytes
        .get(bom.map_or(0, |bom| bom.bytes().len())..)
        .unwrap_or_default();
    decode_exactly(bytes, body, encoding, bom)
}

/// Encodes text for writing back, with the byte-order mark first.
///
/// Mirrors the encoding half of Qwen's `prepareTextFileContent`: UTF-8 is
/// written as is, other encodings through their encoder, and a BOM is
/// prepended when asked for, after dropping one U+FEFF the text may already
/// start with so the mark is never doubled. Line endings are the caller's
/// (see [`LineEnding::restore`]).
///
/// Unlike Qwen (whose `iconv-lite` writes `?` for what it cannot encode),
/// a character the encoding cannot represent is an error, and so is one the
/// encoder would write as another character's bytes (Shift_JIS `¥` as `\`):
/// the bytes always decode back to `text`.
///
/// # Errors
///
/// - [`TextErrorKind::Unmappable`]: a character with no representation in
///   `encoding`; its offset is a byte offset into `text`.
/// - [`TextErrorKind::BomMismatch`]: `bom` is not `encoding`'s mark.
pub fn encode(text: &str, encoding: TextEncoding, bom: Option<Bom>) -> Result<Vec<u8>, TextError> {
    if let Some(bom) = bom
        && bom.encoding() != encoding
    {
        return Err(TextErrorKind::BomMismatch {
            bom: bom.encoding(),
            encoding,
        }
        .into());
    }
    encode_with_bom(text, encoding, bom).map_err(|failure| {
        TextErrorKind::Unmappable {
            ch: failure.ch,
            offset: failure.offset,
            encoding,
        }
        .into()
    })
}

/// [`encode`], borrowing `text`'s own bytes when they already are the
/// encoding (UTF-8 without a BOM), so writing a large file back does not
/// copy it first.
///
/// # Errors
/// As [`encode`].
pub fn encode_borrowed(
    text: &str,
    encoding: TextEncoding,
    bom: Option<Bom>,
) -> Result<Cow<'_, [u8]>, TextError> {
    if encoding == TextEncoding::UTF_8 && bom.is_none() {
        return Ok(Cow::Borrowed(text.as_bytes()));
    }
    encode(text, encoding, bom).map(Cow::Owned)
}

/// The offset of a NUL in the first [`BINARY_SNIFF_LEN`] bytes, if any:
/// Qwen's `isBinary`. [`decode`] applies it only when there is no BOM, as
/// Qwen's `isBinaryFile` does, since UTF-16 text is full of NULs.
#[must_use]
pub fn find_binary_marker(bytes: &[u8]) -> Option<usize> {
    let sniffed = bytes.get(..BINARY_SNIFF_LEN).unwrap_or(bytes);
    memchr::memchr(0, sniffed)
}

/// Why encoding stopped: the character, its byte offset in the text, and the
/// bytes written before it (so a round-trip check can say where the bytes
/// would first change).
struct EncodeFailure {
    ch: char,
    offset: usize,
    written: Vec<u8>,
}

/// Decodes `body` (the bytes after `bom`) strictly and proves the result
/// writes back to `bytes`.
fn decode_exactly(
    bytes: &[u8],
    body: &[u8],
    encoding: TextEncoding,
    bom: Option<Bom>,
) -> Result<Decoded, TextError> {
    let bom_len = bytes.len().saturating_sub(body.len());
    let text = decode_strict(body, encoding).map_err(|offset| TextErrorKind::Malformed {
        encoding,
        offset: offset.saturating_add(bom_len),
    })?;
    let mismatch = match encode_with_bom(&text, encoding, bom) {
        Ok(written) => first_difference(bytes, &written),
        Err(failure) => {
            Some(first_difference(bytes, &failure.written).unwrap_or(failure.written.len()))
        }
    };
    if let Some(offset) = mismatch {
        return Err(TextErrorKind::NotRoundTrippable { encoding, offset }.into());
    }
    Ok(Decoded {
        text,
        encoding,
        bom,
    })
}

/// Decodes bytes that are not UTF-8 in the detected legacy encoding.
fn decode_legacy(
    bytes: &[u8],
    guess: TextEncoding,
    utf8_offset: usize,
) -> Result<Decoded, TextError> {
    let decoded = match decode_exactly(bytes, bytes, guess, None) {
        // The detector names GBK for GB18030 text too (one decoder serves
        // both); only the GB18030 encoder writes its four-byte sequences and
        // its `A2 E3` for the euro sign back, so it gets the second try.
        Err(err) if guess == TextEncoding::GBK => {
            decode_exactly(bytes, bytes, TextEncoding::GB18030, None).map_err(|_| err)?
        }
        other => other?,
    };
    // C1 controls are what single-byte decoders make of bytes no real text
    // in their encoding uses, and what the detector falls back to when every
    // legacy candidate was ruled out: such a guess is not text.
    if decoded
        .text
        .chars()
        .any(|c| ('\u{80}'..='\u{9F}').contains(&c))
    {
        return Err(TextErrorKind::UnknownEncoding {
            offset: utf8_offset,
        }
        .into());
    }
    Ok(decoded)
}

/// Whether invalid UTF-8 is damaged UTF-8: its valid non-ASCII characters
/// outnumber its malformed sequences [`DAMAGED_UTF8_RATIO`] to one.
///
/// Qwen's file reader hands such bytes to `chardet`, which decodes them as
/// mojibake; its process-output decoder (`getCachedEncodingForBuffer`) keeps
/// them UTF-8 for that reason but substitutes U+FFFD, which cannot be
/// written back. Here they are an error.
fn looks_like_damaged_utf8(bytes: &[u8]) -> bool {
    let mut valid = 0usize;
    let mut malformed = 0usize;
    for chunk in bytes.utf8_chunks() {
        valid = valid.saturating_add(chunk.valid().chars().filter(|c| !c.is_ascii()).count());
        if !chunk.invalid().is_empty() {
            malformed = malformed.saturating_add(1);
        }
    }
    malformed > 0 && valid >= malformed.saturating_mul(DAMAGED_UTF8_RATIO)
}

/// The legacy encoding `chardetng` guesses, shown the sample Qwen shows
/// `chardet`: the whole buffer up to 64 KiB, head and tail (overlapping) up
/// to 128 KiB, head, middle and tail beyond.
fn detect_legacy(bytes: &[u8]) -> TextEncoding {
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    for part in detection_sample(bytes) {
        detector.feed(part, false);
    }
    detector.feed(&[], true);
    // The generic TLD is what a local file has; UTF-8 is denied because the
    // bytes are already known not to be UTF-8.
    TextEncoding::new(detector.guess(None, Utf8Detection::Deny))
        .unwrap_or(TextEncoding::WINDOWS_1252)
}

fn detection_sample(bytes: &[u8]) -> [&[u8]; 3] {
    let len = bytes.len();
    let head = bytes.get(..DETECTION_SAMPLE_LEN).unwrap_or(bytes);
    if len <= DETECTION_SAMPLE_LEN {
        return [bytes, &[], &[]];
    }
    let tail = bytes
        .get(len.saturating_sub(DETECTION_SAMPLE_LEN)..)
        .unwrap_or_default();
    if len <= DETECTION_SAMPLE_LEN.saturating_mul(2) {
        return [head, &[], tail];
    }
    let middle_start = (len / 2).saturating_sub(DETECTION_SAMPLE_LEN / 2);
    let middle = bytes
        .get(middle_start..middle_start.saturating_add(DETECTION_SAMPLE_LEN))
        .unwrap_or_default();
    [head, middle, tail]
}

/// Decodes without replacement; `Err` carries the byte offset of the first
/// malformed sequence.
fn decode_strict(bytes: &[u8], encoding: TextEncoding) -> Result<String, usize> {
    let mut decoder = encoding.as_encoding().new_decoder_without_bom_handling();
    let capacity = decoder
        .max_utf8_buffer_length_without_replacement(bytes.len())
        .unwrap_or(bytes.len());
    let mut out = String::with_capacity(capacity);
    let mut read_total = 0usize;
    loop {
        let rest = bytes.get(read_total..).unwrap_or_default();
        let (result, read) = decoder.decode_to_string_without_replacement(rest, &mut out, true);
        read_total = read_total.saturating_add(read);
        match result {
            DecoderResult::InputEmpty => return Ok(out),
            DecoderResult::OutputFull => {
                let left = rest.len().saturating_sub(read);
                let more = decoder
                    .max_utf8_buffer_length_without_replacement(left)
                    .unwrap_or(left);
                out.reserve(more.max(16));
            }
            DecoderResult::Malformed(bad, after) => {
                let back = usize::from(bad).saturating_add(usize::from(after));
                return Err(read_total.saturating_sub(back));
            }
        }
    }
}

fn encode_with_bom(
    text: &str,
    encoding: TextEncoding,
    bom: Option<Bom>,
) -> Result<Vec<u8>, EncodeFailure> {
    let mut out = Vec::new();
    let mut body = text;
    if let Some(bom) = bom {
        out.extend_from_slice(bom.bytes());
        body = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    }
    let skipped = text.len().saturating_sub(body.len());
    encode_body(body, encoding, &mut out).map_err(|failure| EncodeFailure {
        offset: failure.offset.saturating_add(skipped),
        ..failure
    })?;
    Ok(out)
}

/// Appends `text` in `encoding` to `out`, without replacement.
fn encode_body(text: &str, encoding: TextEncoding, out: &mut Vec<u8>) -> Result<(), EncodeFailure> {
    // encoding_rs has no UTF-16 encoders (WHATWG only ever outputs UTF-8),
    // so UTF-16 is written here; every char is representable.
    if encoding == TextEncoding::UTF_16LE {
        out.reserve(text.len().saturating_mul(2));
        out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        return Ok(());
    }
    if encoding == TextEncoding::UTF_16BE {
        out.reserve(text.len().saturating_mul(2));
        out.extend(text.encode_utf16().flat_map(u16::to_be_bytes));
        return Ok(());
    }
    if encoding == TextEncoding::UTF_8 {
        out.extend_from_slice(text.as_bytes());
        return Ok(());
    }
    let start = out.len();
    let mut encoder = encoding.as_encoding().new_encoder();
    let mut read_total = 0usize;
    loop {
        let rest = text.get(read_total..).unwrap_or_default();
        let more = encoder
            .max_buffer_length_from_utf8_without_replacement(rest.len())
            .unwrap_or(rest.len());
        out.reserve(more.max(16));
        let (result, read) = encoder.encode_from_utf8_to_vec_without_replacement(rest, out, true);
        read_total = read_total.saturating_add(read);
        match result {
            EncoderResult::InputEmpty => break,
            EncoderResult::OutputFull => {}
            // `read` counts the unmappable char, so it starts that much back.
            EncoderResult::Unmappable(ch) => {
                return Err(EncodeFailure {
                    ch,
                    offset: read_total.saturating_sub(ch.len_utf8()),
                    written: std::mem::take(out),
                });
            }
        }
    }
    // Some WHATWG encoders write a character as another one's bytes instead
    // of reporting it: Shift_JIS and EUC-JP write U+00A5 as 0x5C, which reads
    // back as '\', and U+2212 as U+FF0D; ISO-2022-JP widens halfwidth
    // katakana. Reading the output back catches every such substitution
    // without a table of them.
    let produced = out.get(start..).unwrap_or_default();
    let back = decode_strict(produced, encoding).unwrap_or_default();
    match first_changed_char(text, &back) {
        None => Ok(()),
        Some((offset, ch)) => Err(EncodeFailure {
            ch,
            offset,
            written: std::mem::take(out),
        }),
    }
}

/// The first character of `text` (with its byte offset) that `back` does not
/// reproduce, or `None` when they are equal.
fn first_changed_char(text: &str, back: &str) -> Option<(usize, char)> {
    if text == back {
        return None;
    }
    let mut back_chars = back.chars();
    text.char_indices()
        .find(|&(_, ch)| back_chars.next() != Some(ch))
        // `back` only runs longer than `text` if the encoder added a
        // character; blame the last one, the nearest to where that happened.
        .or_else(|| text.char_indices().next_back())
}

/// The first offset at which `a` and `b` differ (the shorter length when one
/// is a prefix of the other), or `None` when they are equal.
fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    if a == b {
        return None;
    }
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    Some(common)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_is_whole_buffer_up_to_64k() {
        let bytes = vec![b'a'; DETECTION_SAMPLE_LEN];
        let [head, middle, tail] = detection_sample(&bytes);
        assert_eq!(
            (head.len(), middle.len(), tail.len()),
            (DETECTION_SAMPLE_LEN, 0, 0)
        );
    }

    #[test]
    fn sample_is_head_and_tail_up_to_128k() {
        let bytes = vec![b'a'; DETECTION_SAMPLE_LEN + 10];
        let [head, middle, tail] = detection_sample(&bytes);
        assert_eq!(
            (head.len(), middle.len(), tail.len()),
            (DETECTION_SAMPLE_LEN, 0, DETECTION_SAMPLE_LEN)
        );
    }

    #[test]
    fn sample_adds_the_middle_beyond_128k() {
        // Byte i holds i / 64 KiB, so each slice shows where it was taken.
        let len = 4 * DETECTION_SAMPLE_LEN;
        let bytes: Vec<u8> = (0..len)
            .map(|i| u8::try_from(i / DETECTION_SAMPLE_LEN).unwrap())
            .collect();
        let [head, middle, tail] = detection_sample(&bytes);
        assert!(head.iter().all(|&b| b == 0));
        assert_eq!(middle.len(), DETECTION_SAMPLE_LEN);
        assert_eq!((middle.first(), middle.last()), (Some(&1), Some(&2)));
        assert!(tail.iter().all(|&b| b == 3));
    }

    #[test]
    fn first_difference_cases() {
        assert_eq!(first_difference(b"abc", b"abc"), None);
        assert_eq!(first_difference(b"abc", b"abd"), Some(2));
        assert_eq!(first_difference(b"abc", b"ab"), Some(2));
        assert_eq!(first_difference(b"", b"a"), Some(0));
    }

    // upstream: encoding.ts isUtf8CompatibleEncoding (no upstream test; its
    // doc names these spellings)
    #[test]
    fn utf8_compatible_labels_mean_utf8() {
        for label in ["utf-8", "UTF8", "utf_8", "ascii", "us-ascii", "US-ASCII"] {
            assert_eq!(
                TextEncoding::for_label(label),
                Some(TextEncoding::UTF_8),
                "{label}"
            );
        }
    }

    #[test]
    fn labels_resolve_as_whatwg() {
        assert_eq!(TextEncoding::for_label("gbk"), Some(TextEncoding::GBK));
        assert_eq!(
            TextEncoding::for_label("gb18030"),
            Some(TextEncoding::GB18030)
        );
        assert_eq!(
            TextEncoding::for_label("shift_jis"),
            Some(TextEncoding::SHIFT_JIS)
        );
        assert_eq!(
            TextEncoding::for_label("utf-16le"),
            Some(TextEncoding::UTF_16LE)
        );
        assert_eq!(
            TextEncoding::for_label("utf-16be"),
            Some(TextEncoding::UTF_16BE)
        );
        assert_eq!(TextEncoding::for_label("utf-32le"), None);
        assert_eq!(
            TextEncoding::for_label("iso-2022-kr"),
            None,
            "replacement encoding"
        );
        assert_eq!(TextEncoding::for_label("no-such-encoding"), None);
    }

    fn unmappable(text: &str, label: &str) -> Option<(char, usize)> {
        let encoding = TextEncoding::for_label(label).unwrap();
        match encode(text, encoding, None).map_err(|err| err.kind().clone()) {
            Err(TextErrorKind::Unmappable { ch, offset, .. }) => Some((ch, offset)),
            Err(other) => panic!("unexpected {other:?}"),
            Ok(_) => None,
        }
    }

    // Regression: proptest found "¥" encoding to Shift_JIS 0x5C, which
    // decodes as '\'; encoding_rs reports no unmappable for it.
    #[test]
    fn substituting_encoders_are_unmappable() {
        assert_eq!(unmappable("a¥b", "shift_jis"), Some(('¥', 1)));
        assert_eq!(unmappable("x‾", "euc-jp"), Some(('‾', 1)));
        assert_eq!(unmappable("1−2", "shift_jis"), Some(('−', 1)));
        assert_eq!(unmappable("ｱ", "iso-2022-jp"), Some(('ｱ', 0)));
        assert_eq!(unmappable("¥", "iso-2022-jp"), None, "JIS-Roman has ¥");
        assert_eq!(unmappable("\\－", "shift_jis"), None);
    }

    #[test]
    fn first_changed_char_cases() {
        assert_eq!(first_changed_char("abc", "abc"), None);
        assert_eq!(first_changed_char("a¥c", "a\\c"), Some((1, '¥')));
        assert_eq!(first_changed_char("ab", "a"), Some((1, 'b')));
        assert_eq!(first_changed_char("ab", "abc"), Some((1, 'b')));
    }

    #[test]
    fn damaged_utf8_needs_many_valid_chars_per_error() {
        assert!(looks_like_damaged_utf8(
            "日本語のテキスト".as_bytes().split_last().unwrap().1
        ));
        assert!(!looks_like_damaged_utf8(b"caf\xE9"));
        let (gbk, _, _) = encoding_rs::GBK.encode("// 注释\nint x;\n");
        assert!(!looks_like_damaged_utf8(&gbk));
    }
}
