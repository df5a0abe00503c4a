//! Byte-level text fidelity: what a file's bytes say as text, and the exact
//! bytes to write back after the text is edited: byte-order mark, encoding
//! and line endings.
//!
//! | here | Qwen Code (`packages/core/src/...`) |
//! |---|---|
//! | [`detect_line_ending`], [`LineEnding`] | `services/fileSystemService.ts:detectLineEnding` |
//! | [`ensure_crlf`], [`LineEnding::restore`] | `services/fileSystemService.ts:ensureCrlfLineEndings` (and the `shouldUseCrlf` branch of `prepareTextFileContent`) |
//! | [`normalize_to_lf`] | `tools/edit.ts:calculateEdit`'s `replace(/\r\n/g, '\n')` |

mod eol;

pub use eol::{LineEnding, detect_line_ending, ensure_crlf, normalize_to_lf};
