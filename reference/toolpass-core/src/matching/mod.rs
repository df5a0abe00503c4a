//! Finding the real on-disk slice an `old_string` refers to.
//!
//! This is Qwen Code's `findMatchedSlice` / `normalizeEditStrings`
//! (`packages/core/src/utils/editHelper.ts`): a chain of tiers, the first hit
//! wins.
//!
//! 1. [`MatchTier::Literal`]: the needle as is.
//! 2. [`MatchTier::Folded`]: both sides folded (curly quotes, dashes, special
//!    spaces; see [`crate::fold`]).
//! 3. [`MatchTier::Lines`]: line windows compared exactly, then with trailing
//!    whitespace trimmed, then folded and trimmed. Leading whitespace is never
//!    relaxed, so an edit cannot land at the wrong indentation.
//! 4. The same line passes without a trailing empty line of the needle; the
//!    caller then drops one trailing newline from `new_string`.
//!
//! The result is always a byte range of the haystack: the bytes the file
//! really has, never the approximation the model sent. Qwen's fold is
//! length-preserving in UTF-16 so it can reuse indices; in UTF-8 it is not
//! (`’` is three bytes, `'` one), so this module never maps offsets between a
//! folded copy and the original: it folds lazily while it walks the original.
//!
//! Speed: the literal tier is one `memmem` search. The other tiers look for
//! the longest run of fold-stable characters of the needle with `memmem`,
//! then verify around each hit, so a failing chain costs a few `memmem`
//! passes over the file and allocates nothing proportional to it.

mod folded;
mod lines;

use std::ops::Range;

/// How a line window was compared when it matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinePass {
    /// Every line equal as is.
    Exact,
    /// Every line equal once trailing whitespace (JavaScript's `trimEnd`) is
    /// removed from both sides.
    TrimEnd,
    /// Every line equal once folded and trimmed.
    FoldTrimEnd,
}

/// Which tier of the chain found the match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatchTier {
    /// The needle appears in the haystack byte for byte.
    Literal,
    /// The needle appears once both sides are folded.
    Folded,
    /// A window of whole lines matches under the given pass.
    Lines(LinePass),
}

/// Where an `old_string` landed in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SliceMatch {
    /// Byte range of the haystack: the real on-disk slice.
    pub range: Range<usize>,
    /// The tier that found it.
    pub tier: MatchTier,
    /// The match was found only after dropping the needle's trailing empty
    /// line; `new_string` must then lose one trailing newline.
    pub removed_trailing_final_empty_line: bool,
}

impl SliceMatch {
    /// A match found without dropping the needle's trailing empty line.
    #[must_use]
    pub fn new(range: Range<usize>, tier: MatchTier) -> Self {
        SliceMatch {
            range,
            tier,
            removed_trailing_final_empty_line: false,
        }
    }

    /// The matched slice of `haystack` (the haystack this match came from).
    ///
    /// Returns an empty string if `haystack` is not the one searched.
    #[must_use]
    pub fn slice<'h>(&self, haystack: &'h str) -> &'h str {
        haystack.get(self.range.clone()).unwrap_or_default()
    }
}

/// Finds the slice of `haystack` that `needle` refers to, or `None`.
///
/// An empty needle never matches (Qwen: `needle === ''` returns null).
#[must_use]
pub fn find_matched_slice(haystack: &str, needle: &str) -> Option<SliceMatch> {
    if needle.is_empty() {
        return None;
    }
    if let Some(start) = memchr::memmem::find(haystack.as_bytes(), needle.as_bytes()) {
        return Some(SliceMatch::new(
            start..start + needle.len(),
            MatchTier::Literal,
        ));
    }
    if let Some(range) = folded::find(haystack, needle) {
        return Some(SliceMatch::new(range, MatchTier::Folded));
    }
    lines::find(haystack, needle)
}

/// The `old_string` / `new_string` pair after normalization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NormalizedEdit<'a> {
    /// The canonical slice of the file when a tier matched, else the
    /// `old_string` as given.
    pub old_string: &'a str,
    /// `new_string`, minus one trailing newline when the match needed the
    /// needle's trailing empty line dropped. Never otherwise changed: it is
    /// the model's intent (Qwen issue #1618).
    pub new_string: &'a str,
    /// The match, when there was one.
    pub matched: Option<SliceMatch>,
}

/// Qwen's `normalizeEditStrings`: replaces `old_string` with the real slice
/// of `file` it matched, and adjusts `new_string` when the match dropped a
/// trailing empty line.
///
/// `file` is `None` for a file that does not exist. With no file, an empty
/// `old_string` or no match, both strings come back unchanged.
#[must_use]
pub fn normalize_edit_strings<'a>(
    file: Option<&'a str>,
    old_string: &'a str,
    new_string: &'a str,
) -> NormalizedEdit<'a> {
    let unchanged = NormalizedEdit {
        old_string,
        new_string,
        matched: None,
    };
    let Some(file) = file else {
        return unchanged;
    };
    let Some(matched) = find_matched_slice(file, old_string) else {
        return unchanged;
    };
    let new_string = if matched.removed_trailing_final_empty_line {
        remove_trailing_newline(new_string)
    } else {
        new_string
    };
    NormalizedEdit {
        old_string: matched.slice(file),
        new_string,
        matched: Some(matched),
    }
}

/// Qwen's `removeTrailingNewline`: drops one `\r\n`, `\n` or `\r`.
fn remove_trailing_newline(text: &str) -> &str {
    text.strip_suffix("\r\n")
        .or_else(|| text.strip_suffix('\n'))
        .or_else(|| text.strip_suffix('\r'))
        .unwrap_or(text)
}

#[cfg(test)]
mod tests;
