//! Byte-level text fidelity: what a file's bytes say as text, and the exact
//! bytes to write back after the text is edited: byte-order mark, encoding
//! (UTF-8, UTF-16, legacy code pages such as GBK and Shift_JIS) and line
//! endings.
//!
//! Qwen Code's edit pipeline, which this module supplies the pure pieces of:
//! read the bytes, detect BOM and encoding and decode ([`decode`]), record the
//! line-ending style ([`detect_line_ending`]), match against the LF view
//! ([`normalize_to_lf`]), then write back in the same encoding with the same
//! BOM ([`encode`]), CRLF files through [`ensure_crlf`]
//! ([`LineEnding::restore`]).
//!
//! | here | Qwen Code (`packages/core/src/...`) |
//! |---|---|
//! | [`detect_bom`], [`strip_bom`] | `utils/fileUtils.ts:detectBOM` |
//! | [`Bom::bytes`] | `services/fileSystemService.ts:getBOMBytesForEncoding` |
//! | [`decode`] | `utils/fileUtils.ts:decodeBufferWithEncodingInfo` (and `isValidUtf8`, `decodeBOMBuffer`, `bomEncodingToName`) |
//! | legacy detection inside [`decode`] | `utils/systemEncoding.ts:detectEncodingFromBuffer` (`chardet`; here `chardetng`) |
//! | [`find_binary_marker`] | `utils/textUtils.ts:isBinary`, BOM exemption from `utils/fileUtils.ts:isBinaryFile` |
//! | [`encode`] | `services/fileSystemService.ts:prepareTextFileContent` (encoding and BOM half; `iconv-lite` there) |
//! | [`TextEncoding::for_label`] | `utils/encoding.ts:isUtf8CompatibleEncoding` |
//! | [`detect_line_ending`], [`LineEnding`] | `services/fileSystemService.ts:detectLineEnding` |
//! | [`ensure_crlf`], [`LineEnding::restore`] | `services/fileSystemService.ts:ensureCrlfLineEndings` (and the `shouldUseCrlf` branch of `prepareTextFileContent`) |
//! | [`normalize_to_lf`] | `tools/edit.ts:calculateEdit`'s `replace(/\r\n/g, '\n')` |
//!
//! **Invariant:** for every `bytes` that [`decode`] accepts,
//! `encode(&d.text, d.encoding, d.bom) == bytes`. Qwen decodes lossily
//! (U+FFFD for malformed input, `?` for unencodable characters on write);
//! here each such case is a [`TextError`] instead, so an edit can never
//! silently change bytes outside the span it replaces.

mod bom;
mod codec;
mod encoding;
mod eol;
mod error;

pub use bom::{Bom, detect_bom, strip_bom};
pub use codec::{
    BINARY_SNIFF_LEN, Decoded, decode, decode_as, encode, encode_borrowed, find_binary_marker,
};
pub use encoding::TextEncoding;
pub use eol::{LineEnding, detect_line_ending, ensure_crlf, normalize_to_lf};
pub use error::{TextError, TextErrorKind};
