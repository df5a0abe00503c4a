//! The replacement primitives: Qwen's `maybeAugmentOldStringForDeletion`,
//! `countOccurrences`, `safeLiteralReplace` and `applyReplacement`, plus the
//! splice that writes a replacement into CRLF text without touching any other
//! byte.

use std::borrow::Cow;

use memchr::memmem;

use crate::text::{ensure_crlf, normalize_to_lf};

/// Qwen's `maybeAugmentOldStringForDeletion`: when deleting (`new_string` is
/// empty) and the file holds `old_string` followed by a newline, the newline
/// goes too, so the deletion does not leave a blank line behind.
///
/// As in Qwen, the check is whether `old_string + "\n"` occurs *anywhere* in
/// the file, not at a particular match.
#[must_use]
pub fn maybe_augment_old_string_for_deletion<'a>(
    file: Option<&str>,
    old_string: &'a str,
    new_string: &str,
) -> Cow<'a, str> {
    let Some(file) = file else {
        return Cow::Borrowed(old_string);
    };
    if old_string.is_empty() || !new_string.is_empty() || old_string.ends_with('\n') {
        return Cow::Borrowed(old_string);
    }
    let candidate = format!("{old_string}\n");
    if memmem::find(file.as_bytes(), candidate.as_bytes()).is_some() {
        Cow::Owned(candidate)
    } else {
        Cow::Borrowed(old_string)
    }
}

/// Qwen's `countOccurrences`: non-overlapping occurrences, scanning left to
/// right; zero for an empty needle.
#[must_use]
pub fn count_occurrences(source: &str, needle: &str) -> usize {
    if needle.is_empty() {
        return 0;
    }
    memmem::find_iter(source.as_bytes(), needle.as_bytes()).count()
}

/// Qwen's `safeLiteralReplace`: every non-overlapping occurrence of
/// `old_string` becomes `new_string`, and `$` sequences (`$&`, `$1`, `$$`,
/// `` $` ``, `$'`) stay literal. Rust's `str::replace` has no substitution
/// patterns, so there is nothing to escape: the literal behaviour Qwen has
/// to work for is the only behaviour here.
#[must_use]
pub fn safe_literal_replace(source: &str, old_string: &str, new_string: &str) -> String {
    if old_string.is_empty() {
        return source.to_owned();
    }
    // `str::replace` grows its output by doubling, which holds up to two
    // buffers of a whole file at once; counting first sizes it exactly.
    let hits = memmem::find_iter(source.as_bytes(), old_string.as_bytes()).count();
    let len = source
        .len()
        .saturating_sub(hits.saturating_mul(old_string.len()))
        .saturating_add(hits.saturating_mul(new_string.len()));
    let mut out = String::with_capacity(len);
    let mut copied = 0;
    for start in memmem::find_iter(source.as_bytes(), old_string.as_bytes()) {
        out.push_str(source.get(copied..start).unwrap_or_default());
        out.push_str(new_string);
        copied = start.saturating_add(old_string.len());
    }
    out.push_str(source.get(copied..).unwrap_or_default());
    out
}

/// Qwen's `applyReplacement` with its four cases.
///
/// - a new file: the content is `new_string`;
/// - no current content (defensive): `new_string` if `old_string` is empty,
///   else empty;
/// - an empty `old_string` on an existing file: unchanged (never an
///   "insert everywhere" replacement);
/// - otherwise [`safe_literal_replace`].
#[must_use]
pub fn apply_replacement(
    current: Option<&str>,
    old_string: &str,
    new_string: &str,
    is_new_file: bool,
) -> String {
    if is_new_file {
        return new_string.to_owned();
    }
    let Some(current) = current else {
        return if old_string.is_empty() {
            new_string.to_owned()
        } else {
            String::new()
        };
    };
    if old_string.is_empty() {
        return current.to_owned();
    }
    safe_literal_replace(current, old_string, new_string)
}

/// Text whose `\r\n` pairs were read as `\n` for matching, and the way back.
///
/// Qwen matches on `content.replace(/\r\n/g, '\n')` and, for a CRLF file,
/// writes back `ensureCrlfLineEndings(newContent)`, which also turns every
/// *lone* `\n` elsewhere in the file into `\r\n`. This type keeps Qwen's
/// matching but writes the replacement into the original text, so a file
/// with mixed line endings keeps every byte outside the replaced spans.
pub(crate) struct CrlfText<'a> {
    /// The text as it is.
    raw: &'a str,
    /// The text with every `\r\n` read as `\n` (borrowed when there is none).
    pub(crate) normalized: Cow<'a, str>,
}

impl<'a> CrlfText<'a> {
    pub(crate) fn new(raw: &'a str) -> Self {
        CrlfText {
            raw,
            normalized: normalize_to_lf(raw),
        }
    }

    /// The text as it is.
    pub(crate) fn raw(&self) -> &'a str {
        self.raw
    }

    /// Whether the text has a CRLF pair (Qwen's `detectLineEnding`).
    pub(crate) fn is_crlf(&self) -> bool {
        matches!(self.normalized, Cow::Owned(_))
    }

    /// Replaces every occurrence of `old_string` in the normalized text with
    /// `new_string`, and returns the *raw* text with those spans replaced.
    ///
    /// In a CRLF file the inserted text gets Qwen's `ensureCrlfLineEndings`
    /// treatment (each `\n` not already after a `\r` becomes `\r\n`); every
    /// other byte is copied from the original.
    pub(crate) fn replace_all(&self, old_string: &str, new_string: &str) -> String {
        if !self.is_crlf() {
            return safe_literal_replace(self.raw, old_string, new_string);
        }
        let inserted = ensure_crlf(new_string);
        let mut out = String::with_capacity(self.raw.len());
        let mut mapper = OffsetMap::new(self.raw);
        let mut copied = 0;
        for start in memmem::find_iter(self.normalized.as_bytes(), old_string.as_bytes()) {
            let raw_start = mapper.raw_offset(start);
            let raw_end = mapper.raw_offset(start + old_string.len());
            out.push_str(self.raw.get(copied..raw_start).unwrap_or_default());
            out.push_str(&inserted);
            copied = raw_end;
        }
        out.push_str(self.raw.get(copied..).unwrap_or_default());
        out
    }
}

/// Maps offsets of the normalized text back to the raw text, walking forward
/// only: each query must not be smaller than the one before.
struct OffsetMap<'a> {
    raw: &'a str,
    crlf: memmem::Finder<'static>,
    /// Raw offset where the scan for the next `\r\n` resumes.
    scan: usize,
    /// `\r` bytes dropped before `scan`.
    dropped: usize,
}

impl<'a> OffsetMap<'a> {
    fn new(raw: &'a str) -> Self {
        OffsetMap {
            raw,
            crlf: memmem::Finder::new(b"\r\n"),
            scan: 0,
            dropped: 0,
        }
    }

    /// The raw offset of normalized offset `normalized`: it moves right by
    /// one for each `\r` dropped before it. A `\r` counts as before the
    /// offset when its `\n` is at a normalized position below it, so a span
    /// starting at a line break starts at the `\r`.
    fn raw_offset(&mut self, normalized: usize) -> usize {
        while let Some(at) = self
            .raw
            .as_bytes()
            .get(self.scan..)
            .and_then(|rest| self.crlf.find(rest))
        {
            let cr = self.scan + at;
            // The '\n' of this pair sits at normalized position cr - dropped.
            if cr - self.dropped >= normalized {
                break;
            }
            self.dropped += 1;
            self.scan = cr + 2;
        }
        normalized + self.dropped
    }
}
