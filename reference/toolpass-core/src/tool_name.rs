//! The name a tool is declared under to the model.
//!
//! An MCP server names its tools as it likes (`literature.search pubmed`,
//! emoji, 200 characters); the model APIs accept `[A-Za-z0-9_-]` (Gemini also
//! `.`) and at most 64 characters, and reject the whole request otherwise.
//! Qwen Code declares an MCP tool as `mcp__<server>__<tool>` passed through a
//! name rule, and Qwen has had two:
//!
//! - [`NameRule::MiddleCut`]: `generateValidName` before 0.24
//!   (`packages/core/src/tools/mcp-tool.ts`), kept in 0.24.4 as
//!   `generateLegacyMcpToolName` (`packages/core/src/utils/tool-name-utils.ts`)
//!   so that permission and `disabledTools` entries written against old names
//!   still apply. Every UTF-16 unit outside `[A-Za-z0-9_.-]` becomes `_`; a
//!   result over 63 characters keeps its first 28 and last 32 around `___`.
//! - [`NameRule::HashSuffix`]: 0.24.4's `generateValidName`
//!   (`normalizeToolNameForProvider`). A name that already starts with a
//!   letter, uses only `[A-Za-z0-9_-]` and fits in 63 characters is kept;
//!   any other has every UTF-16 unit outside `[A-Za-z0-9_-]` replaced by `_`,
//!   `tool_` put in front unless it starts with a letter, and is cut to 55
//!   characters followed by `_` and the FNV-1a hash of the original name in
//!   base 36 (7 digits), so two names that sanitize alike stay apart.
//!
//! Both count in UTF-16 units as JavaScript does: an astral character (an
//! emoji) is two units, so it becomes `__`.

/// The longest name either rule produces: one under Gemini's 64, as Qwen
/// keeps it.
pub const MAX_TOOL_NAME_LENGTH: usize = 63;

/// How many leading characters [`NameRule::MiddleCut`] keeps.
const MIDDLE_CUT_HEAD: usize = 28;
/// How many trailing characters [`NameRule::MiddleCut`] keeps.
const MIDDLE_CUT_TAIL: usize = 32;
/// What [`NameRule::MiddleCut`] puts where it cut.
const MIDDLE_CUT_MARK: &str = "___";
/// What [`NameRule::HashSuffix`] puts before a name that does not start
/// with a letter.
const HASH_SUFFIX_PREFIX: &str = "tool_";
/// Width of the base-36 hash, zero-padded (`padStart(7, '0')`).
const HASH_WIDTH: usize = 7;

/// Which of Qwen's two name rules to apply (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    /// `[A-Za-z0-9_.-]`, at most 63 characters, the middle replaced by
    /// `___`: Qwen before 0.24, and 0.24.4's legacy alias.
    MiddleCut,
    /// `[A-Za-z][A-Za-z0-9_-]*`, at most 63 characters, a hash suffix on
    /// every name it had to change: Qwen 0.24.4.
    HashSuffix,
}

impl NameRule {
    /// The declared name for `name` under this rule.
    #[must_use]
    pub fn apply(self, name: &str) -> String {
        match self {
            Self::MiddleCut => middle_cut_name(name),
            Self::HashSuffix => hash_suffix_name(name),
        }
    }
}

/// Qwen's name for tool `tool` of MCP server `server` before the rule:
/// `mcp__<server>__<tool>`.
#[must_use]
pub fn mcp_qualified_name(server: &str, tool: &str) -> String {
    format!("mcp__{server}__{tool}")
}

/// [`NameRule::MiddleCut`]: `generateLegacyMcpToolName`.
#[must_use]
pub fn middle_cut_name(name: &str) -> String {
    let sanitized = replace_units(name, |c| c.is_ascii_alphanumeric() || "_.-".contains(c));
    // Every character is ASCII now, so characters and UTF-16 units agree.
    let len = sanitized.len();
    if len <= MAX_TOOL_NAME_LENGTH {
        return sanitized;
    }
    let head = sanitized.chars().take(MIDDLE_CUT_HEAD);
    let tail = sanitized.chars().skip(len - MIDDLE_CUT_TAIL);
    head.chain(MIDDLE_CUT_MARK.chars()).chain(tail).collect()
}

/// [`NameRule::HashSuffix`]: 0.24.4's `generateValidName`.
#[must_use]
pub fn hash_suffix_name(name: &str) -> String {
    if name.len() <= MAX_TOOL_NAME_LENGTH && is_provider_safe(name) {
        return name.to_owned();
    }
    let mut sanitized = replace_units(name, |c| c.is_ascii_alphanumeric() || "_-".contains(c));
    if !sanitized.starts_with(|c: char| c.is_ascii_alphabetic()) {
        sanitized.insert_str(0, HASH_SUFFIX_PREFIX);
    }
    let suffix = format!("_{}", name_hash(name));
    let keep = MAX_TOOL_NAME_LENGTH - suffix.len();
    sanitized.chars().take(keep).chain(suffix.chars()).collect()
}

/// `^[A-Za-z][A-Za-z0-9_-]*$`.
fn is_provider_safe(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `name.replace(/[^…]/g, '_')` without the `u` flag: one `_` per UTF-16
/// unit of each character `keep` refuses.
fn replace_units(name: &str, keep: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if keep(c) {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('_', c.len_utf16()));
        }
    }
    out
}

/// Qwen's `stableToolNameHash`: 32-bit FNV-1a over the UTF-16 units
/// (`Math.imul` is a wrapping multiply), in base 36, padded to 7 digits.
#[must_use]
pub fn name_hash(name: &str) -> String {
    let hash = name.encode_utf16().fold(2_166_136_261_u32, |hash, unit| {
        (hash ^ u32::from(unit)).wrapping_mul(16_777_619)
    });
    let mut digits = Vec::with_capacity(HASH_WIDTH);
    let mut rest = hash;
    while rest > 0 || digits.is_empty() {
        digits.push(char::from_digit(rest % 36, 36).unwrap_or('0'));
        rest /= 36;
    }
    while digits.len() < HASH_WIDTH {
        digits.push('0');
    }
    digits.iter().rev().collect()
}

#[cfg(test)]
mod tests;
