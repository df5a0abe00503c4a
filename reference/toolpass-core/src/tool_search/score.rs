//! Qwen's `scoreTool` and `candidateMatchesRequired`
//! (`packages/core/src/tools/tool-search.ts`), with the work moved out of
//! the loop: each tool's text is lowercased once when it is indexed
//! ([`IndexedTool`]), and each term's substring searchers are built once per
//! query ([`Terms`]), so scoring a tool is a few `memmem` scans.
//!
//! Per term, a tool gains:
//!
//! | where the term (or an action synonym) is found | built-in | MCP |
//! |---|---|---|
//! | the whole name, or the name ends in `_term` or `.term` | 10 | 12 |
//! | anywhere else in the name | 5 | 6 |
//! | a word of the `searchHint` | 4 | 4 |
//! | the description | 2 | 2 |
//! | an action term's *other* synonym in the name or the hint | 6 | 6 |
//!
//! The name counts once per term (its best variant). MCP tools weigh more
//! because they are always deferred: search is the only way the model finds
//! them. The action terms are `cancel`, `clear`, `delete`, `remove` and
//! `stop`, each standing for all five, so "stop the job" finds `job_cancel`.

use memchr::memmem::Finder;

/// Points for a name that is the term, or ends in `_term` / `.term`.
pub const SCORE_NAME_EXACT_BUILTIN: u32 = 10;
/// Points for a term found elsewhere in the name.
pub const SCORE_NAME_SUBSTR_BUILTIN: u32 = 5;
/// Points for a term that is a word of the search hint.
pub const SCORE_HINT: u32 = 4;
/// Points for a term found in the description.
pub const SCORE_DESC: u32 = 2;
/// [`SCORE_NAME_EXACT_BUILTIN`] for an MCP tool.
pub const SCORE_NAME_EXACT_MCP: u32 = 12;
/// [`SCORE_NAME_SUBSTR_BUILTIN`] for an MCP tool.
pub const SCORE_NAME_SUBSTR_MCP: u32 = 6;
/// Points for an action term whose synonym is in the name or the hint.
pub const SCORE_ACTION_ALIAS: u32 = 6;

/// Qwen's `ACTION_TERM_ALIASES`: each action term and its variants, the term
/// itself first.
const ACTION_ALIASES: &[(&str, [&str; 5])] = &[
    ("cancel", ["cancel", "delete", "remove", "stop", "clear"]),
    ("clear", ["clear", "delete", "remove", "cancel", "stop"]),
    ("delete", ["delete", "remove", "cancel", "stop", "clear"]),
    ("remove", ["remove", "delete", "cancel", "stop", "clear"]),
    ("stop", ["stop", "cancel", "delete", "remove", "clear"]),
];

/// What is searched of one tool: its text lowercased once.
#[derive(Debug, Clone)]
pub struct IndexedTool {
    /// The name as declared (what a search returns).
    pub name: String,
    pub(super) name_lower: String,
    pub(super) description_lower: String,
    pub(super) hint_words: Vec<String>,
    mcp: bool,
}

impl IndexedTool {
    /// Indexes a tool. `search_hint` is split into words on whitespace; an
    /// MCP tool's hint is `mcp <server>` ([`super::SearchEntry::mcp`]).
    #[must_use]
    pub fn new(name: &str, description: &str, search_hint: Option<&str>, mcp: bool) -> Self {
        let hint = search_hint.unwrap_or_default().to_lowercase();
        Self {
            name: name.to_owned(),
            name_lower: name.to_lowercase(),
            description_lower: description.to_lowercase(),
            hint_words: hint
                .split(crate::fold::is_js_whitespace)
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect(),
            mcp,
        }
    }

    /// Whether this is an MCP server's tool (Qwen's `instanceof
    /// DiscoveredMCPTool`).
    #[must_use]
    pub const fn is_mcp(&self) -> bool {
        self.mcp
    }
}

/// One variant of a term, with its searcher built once.
#[derive(Debug, Clone)]
pub(super) struct Variant {
    pub(super) text: String,
    pub(super) finder: Finder<'static>,
    /// `_variant` and `.variant`: the name suffixes that score as exact.
    suffixes: [String; 2],
}

impl Variant {
    pub(super) fn new(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            finder: Finder::new(text.as_bytes()).into_owned(),
            suffixes: [format!("_{text}"), format!(".{text}")],
        }
    }

    pub(super) fn in_text(&self, text: &str) -> bool {
        self.finder.find(text.as_bytes()).is_some()
    }
}

/// One query term and its variants (itself, or the five action synonyms).
#[derive(Debug, Clone)]
pub(super) struct Term {
    pub(super) variants: Vec<Variant>,
    /// Whether the term is an action term: its synonyms score
    /// [`SCORE_ACTION_ALIAS`] besides.
    pub(super) action: bool,
}

impl Term {
    fn new(term: &str) -> Self {
        match ACTION_ALIASES.iter().find(|(action, _)| *action == term) {
            Some((_, variants)) => Self {
                variants: variants.iter().map(|v| Variant::new(v)).collect(),
                action: true,
            },
            None => Self {
                variants: vec![Variant::new(term)],
                action: false,
            },
        }
    }

    /// The synonyms other than the term itself (the term is always first).
    pub(super) fn synonyms(&self) -> &[Variant] {
        self.variants.get(1..).unwrap_or_default()
    }

    fn in_name(&self, tool: &IndexedTool) -> bool {
        self.variants.iter().any(|v| v.in_text(&tool.name_lower))
    }
}

/// A query's terms, compiled for scoring many tools.
#[derive(Debug, Clone)]
pub struct Terms {
    pub(super) scored: Vec<Term>,
    pub(super) required: Vec<Term>,
}

impl Terms {
    /// Compiles the scored terms and the required ones (both lowercased, as
    /// [`super::Keywords`] holds them). Empty terms are skipped, as Qwen
    /// skips them.
    #[must_use]
    pub fn new(terms: &[String], required: &[String]) -> Self {
        let compile = |list: &[String]| {
            list.iter()
                .filter(|t| !t.is_empty())
                .map(|t| Term::new(t))
                .collect()
        };
        Self {
            scored: compile(terms),
            required: compile(required),
        }
    }

    /// Qwen's `candidateMatchesRequired`: every required term (or, for an
    /// action term, one of its synonyms) is in the tool's name.
    #[must_use]
    pub fn admits(&self, tool: &IndexedTool) -> bool {
        self.required.iter().all(|term| term.in_name(tool))
    }

    /// Qwen's `scoreTool`: the points `tool` earns over all terms (0: no
    /// signal).
    #[must_use]
    pub fn score(&self, tool: &IndexedTool) -> u32 {
        self.scored.iter().map(|term| score_term(term, tool)).sum()
    }
}

fn score_term(term: &Term, tool: &IndexedTool) -> u32 {
    let name = &tool.name_lower;
    let name_score = term
        .variants
        .iter()
        .filter(|v| v.in_text(name))
        .map(|v| name_points(tool.mcp, name, v))
        .max()
        .unwrap_or(0);
    let in_hint = |v: &Variant| tool.hint_words.contains(&v.text);
    let mut total = name_score;
    if term.variants.iter().any(in_hint) {
        total += SCORE_HINT;
    }
    if term
        .variants
        .iter()
        .any(|v| v.in_text(&tool.description_lower))
    {
        total += SCORE_DESC;
    }
    if term.action
        && term
            .synonyms()
            .iter()
            .any(|v| v.in_text(name) || in_hint(v))
    {
        total += SCORE_ACTION_ALIAS;
    }
    total
}

/// The points for a lowercased name known to contain `variant`: exact
/// (the whole name, or a `_variant` / `.variant` ending) or substring.
pub(super) fn name_points(mcp: bool, name_lower: &str, variant: &Variant) -> u32 {
    let exact = *name_lower == variant.text
        || variant
            .suffixes
            .iter()
            .any(|s| name_lower.ends_with(s.as_str()));
    match (exact, mcp) {
        (true, true) => SCORE_NAME_EXACT_MCP,
        (true, false) => SCORE_NAME_EXACT_BUILTIN,
        (false, true) => SCORE_NAME_SUBSTR_MCP,
        (false, false) => SCORE_NAME_SUBSTR_BUILTIN,
    }
}

#[cfg(test)]
mod tests;
