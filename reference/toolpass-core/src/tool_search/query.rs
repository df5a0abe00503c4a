//! What a `tool_search` query asks for: Qwen's `ToolSearchInvocation.execute`
//! up to the lookup (`packages/core/src/tools/tool-search.ts`).
//!
//! A query starting `select:` (any case) names tools, comma-separated; any
//! other is keywords. Both shapes come from models pasting back what they
//! were shown, so the parse forgives: a name in matching quotes (the
//! deferred-tools reminder shows names as JSON strings) is the name, a name
//! given twice (in any case) is looked up once, and a term with punctuation
//! around it (`"slack",`) is the term.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use regex_syntax::hir::{Class, HirKind};

use crate::fold::is_js_whitespace;

/// `max_results` when the call gives none.
pub const DEFAULT_MAX_RESULTS: usize = 5;
/// The most `max_results` may ask for (the declaration's `maximum`).
pub const HARD_MAX_RESULTS: usize = 20;

const SELECT_PREFIX: &str = "select:";

/// Words a keyword query drops: Qwen's `TOOL_SEARCH_STOP_WORDS`.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "at", "be", "can", "could", "did", "do", "does", "for", "from", "how",
    "i", "in", "is", "it", "me", "my", "of", "on", "or", "please", "should", "that", "the",
    "these", "this", "those", "to", "was", "were", "what", "which", "with", "would", "you",
];

/// A parsed query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// `select:a,b`: tools by name.
    Select(Selection),
    /// Anything else: keywords to score the hidden deferred tools against.
    Keywords(Keywords),
}

/// The names a `select:` query looks up, in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// At most `max_results` names, quotes stripped, each once (compared
    /// without case), as the model wrote them.
    pub names: Vec<String>,
    /// The names beyond `max_results`, not looked up: the result lists them
    /// so the model sends them again instead of assuming it saw them.
    pub truncated: Vec<String>,
}

/// A selection looked up among the registry's names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved<'a> {
    /// The tools found, under their registered names, in the order asked.
    pub found: Vec<&'a str>,
    /// The names no tool has, as the model wrote them (Qwen's `Not found:`
    /// list keeps the model's own casing so it recognises them).
    pub missing: Vec<String>,
}

impl Selection {
    /// Looks the selected names up among `registered` (every tool name,
    /// loaded or not) without case, as Qwen's `returnSchemas` does: a model
    /// writing `Cron_List` means `cron_list`. When two registered names differ
    /// only in case, the later one answers, as Qwen's map keeps the last.
    #[must_use]
    pub fn resolve<'a>(&self, registered: impl IntoIterator<Item = &'a str>) -> Resolved<'a> {
        let by_lowercase: BTreeMap<String, &'a str> = registered
            .into_iter()
            .map(|name| (name.to_lowercase(), name))
            .collect();
        let mut resolved = Resolved {
            found: Vec::new(),
            missing: Vec::new(),
        };
        for name in &self.names {
            match by_lowercase.get(&name.to_lowercase()) {
                Some(canonical) => resolved.found.push(canonical),
                None => resolved.missing.push(name.clone()),
            }
        }
        resolved
    }
}

/// The terms of a keyword query, lowercased.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keywords {
    /// The terms written `+term`: a tool whose name lacks one (or, for an
    /// action word, every synonym of it) is not a candidate.
    pub required: Vec<String>,
    /// Every term, required ones included, without the `+`: what is scored.
    pub terms: Vec<String>,
}

/// A query that asks for nothing. Each is answered to the model as an error
/// with Qwen's text ([`QueryError::message`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryError {
    /// The query is empty or only whitespace.
    Empty,
    /// Keywords that are all stop words, single characters or punctuation.
    NoSearchTerms,
    /// `select:` with no name after it.
    NoToolNames,
}

impl QueryError {
    /// The text the model is given (Qwen's `llmContent`).
    #[must_use]
    pub const fn message(self) -> &'static str {
        match self {
            Self::Empty => "Error: query is empty. Use `select:ToolName` or free-text keywords.",
            Self::NoSearchTerms => {
                "Error: no search terms extracted from query. Use `select:ToolName` or include keywords."
            }
            Self::NoToolNames => "Error: no tool names provided.",
        }
    }

    /// The short form shown to the user (Qwen's `returnDisplay`).
    #[must_use]
    pub const fn display(self) -> &'static str {
        match self {
            Self::Empty => "Empty query",
            Self::NoSearchTerms => "No search terms",
            Self::NoToolNames => "No tool names",
        }
    }
}

/// `max_results` as Qwen clamps it: the default when absent, then into
/// `1..=20`.
#[must_use]
pub fn max_results(requested: Option<i64>) -> usize {
    let Some(requested) = requested else {
        return DEFAULT_MAX_RESULTS;
    };
    usize::try_from(requested.max(1)).map_or(HARD_MAX_RESULTS, |n| n.min(HARD_MAX_RESULTS))
}

/// Parses a query (`max_results` already clamped by [`max_results`]).
///
/// # Errors
/// A [`QueryError`] when the query asks for nothing.
pub fn parse_query(query: &str, max_results: usize) -> Result<Query, QueryError> {
    let query = query.trim_matches(is_js_whitespace);
    if query.is_empty() {
        return Err(QueryError::Empty);
    }
    if let Some(list) = strip_select_prefix(query) {
        let selection = select(list, max_results.max(1));
        if selection.names.is_empty() {
            return Err(QueryError::NoToolNames);
        }
        return Ok(Query::Select(selection));
    }
    let tokens = tokenize(query);
    let required: Vec<String> = tokens
        .iter()
        .filter_map(|t| t.strip_prefix('+'))
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect();
    let terms: Vec<String> = tokens
        .iter()
        .map(|t| t.strip_prefix('+').unwrap_or(t))
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect();
    if terms.is_empty() {
        return Err(QueryError::NoSearchTerms);
    }
    Ok(Query::Keywords(Keywords { required, terms }))
}

/// The rest of a query after `select:` in any case. Only ASCII letters
/// lowercase to the prefix's letters, so comparing ASCII without case is
/// exactly `query.toLowerCase().startsWith('select:')`.
fn strip_select_prefix(query: &str) -> Option<&str> {
    let head = query.get(..SELECT_PREFIX.len())?;
    head.eq_ignore_ascii_case(SELECT_PREFIX)
        .then(|| query.get(SELECT_PREFIX.len()..))
        .flatten()
}

fn select(list: &str, max_results: usize) -> Selection {
    let mut seen = BTreeSet::new();
    let mut selection = Selection {
        names: Vec::new(),
        truncated: Vec::new(),
    };
    for raw in list.split(',') {
        let name = strip_matching_quotes(raw.trim_matches(is_js_whitespace));
        if name.is_empty() || !seen.insert(name.to_lowercase()) {
            continue;
        }
        if selection.names.len() >= max_results {
            selection.truncated.push(name.to_owned());
        } else {
            selection.names.push(name.to_owned());
        }
    }
    selection
}

/// One layer of matching `"…"` or `'…'` removed (Qwen's
/// `stripMatchingQuotes`); a lone or unbalanced quote stays.
#[must_use]
pub fn strip_matching_quotes(s: &str) -> &str {
    for quote in ['"', '\''] {
        if s.len() >= 2
            && let Some(inner) = s.strip_prefix(quote).and_then(|r| r.strip_suffix(quote))
        {
            return inner;
        }
    }
    s
}

/// Qwen's `tokenize`: the query lowercased, split on whitespace, each word
/// stripped of leading and trailing characters other than letters, digits
/// and `_ . + # -`, and dropped when shorter than two UTF-16 units or a stop
/// word. A word written `+word` comes back as `+word`.
#[must_use]
pub fn tokenize(query: &str) -> Vec<String> {
    query
        .to_lowercase()
        .split(is_js_whitespace)
        .filter_map(normalize_term)
        .collect()
}

fn normalize_term(raw: &str) -> Option<String> {
    let trimmed = raw.trim_matches(is_js_whitespace);
    let (required, body) = match trimmed.strip_prefix('+') {
        Some(body) => (true, body),
        None => (false, trimmed),
    };
    let normalized = body.trim_matches(|c| !is_term_char(c));
    if normalized.encode_utf16().count() < 2 || STOP_WORDS.contains(&normalized) {
        return None;
    }
    Some(if required {
        format!("+{normalized}")
    } else {
        normalized.to_owned()
    })
}

/// `[\p{L}\p{N}_.+#-]`, with Unicode's general categories from
/// `regex-syntax`'s tables (Rust's `char::is_alphabetic` is a wider
/// property than `\p{L}`).
fn is_term_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || "_.+#-".contains(c);
    }
    static RANGES: OnceLock<Vec<(char, char)>> = OnceLock::new();
    let ranges = RANGES.get_or_init(|| term_class(r"[\p{L}\p{N}_.+#-]"));
    ranges
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// The ranges of a character class, sorted and disjoint; empty (so only
/// the ASCII fast path answers) if the pattern did not parse, which the
/// tests rule out.
fn term_class(pattern: &str) -> Vec<(char, char)> {
    let Ok(hir) = regex_syntax::parse(pattern) else {
        return Vec::new();
    };
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => class
            .ranges()
            .iter()
            .map(|r| (r.start(), r.end()))
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests;
