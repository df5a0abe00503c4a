//! Models of the three output gates, transcribed from Qwen Code 0.24.4 over
//! UTF-16 units as JavaScript runs them: `allocateTextBudget`'s rounds of
//! `filter`, `fitText` and its surrogate-safe slices, `finalizeToolResponses`
//! with its `Set`s and `Map`s, `maybePersistLargeToolResult`,
//! `generatePreview` and `buildStub`, and `truncateLlmContent` up to the
//! cut. Also the batch bench's naive baseline.
//!
//! The one change is the crate's: where `generatePreview`'s `slice(0, 2000)`
//! keeps half of a surrogate pair (and no newline cuts it off), the model
//! drops the half, as the fast code does.

mod batch;
mod check;
mod single;

pub use batch::{Finalize, fast_finalize, model_allocate, model_finalize, model_fit_text};
pub use check::{check_batch, check_texts, fuzz_batch};
pub use single::{model_llm_text, model_persist_gate, model_preview, model_stub};

fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// The models never split a surrogate pair, so this is never lossy; the
/// properties would catch a U+FFFD that is not in the input.
fn string(units: &[u16]) -> String {
    String::from_utf16_lossy(units)
}

fn slice_start_without_broken_surrogate(text: &[u16], length: usize) -> &[u16] {
    let mut end = length.min(text.len());
    if end > 0 && (0xD800..=0xDBFF).contains(&text[end - 1]) {
        end -= 1;
    }
    &text[..end]
}

fn slice_end_without_broken_surrogate(text: &[u16], length: usize) -> &[u16] {
    let mut start = text.len().saturating_sub(length);
    if start < text.len() && (0xDC00..=0xDFFF).contains(&text[start]) {
        start += 1;
    }
    &text[start..]
}
