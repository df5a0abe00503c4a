//! The keyword search over a whole registry, term by term instead of tool
//! by tool.
//!
//! Scoring each tool in turn ([`Terms::score`]) costs a few substring
//! searches per tool and term, and at 10 000 tools the per-call overhead of
//! those searches alone passes a millisecond. The index instead asks, for
//! each variant of each term, which names and which descriptions contain it
//! ([`Corpus`]: a trigram index, then a `memmem` check of each candidate),
//! and looks hint words up in a map from word to tools. The points are Qwen's, per tool, exactly as [`Terms::score`] gives
//! them (a property test holds the two and Qwen's transcription together).

use std::collections::BTreeMap;

use super::corpus::Corpus;
use super::score::{IndexedTool, SCORE_ACTION_ALIAS, SCORE_DESC, SCORE_HINT, Terms, name_points};
use super::{Deferral, Keywords, SearchEntry, rank};

/// Below one admitted tool in this many, tools are scored one by one.
const FEW_ADMITTED_DIVISOR: usize = 8;

/// What one term earned per tool, reused from term to term.
#[derive(Debug, Clone)]
struct TermPoints {
    name: Vec<u32>,
    hint: Vec<bool>,
    description: Vec<bool>,
    alias: Vec<bool>,
}

impl TermPoints {
    fn new(tools: usize) -> Self {
        Self {
            name: vec![0; tools],
            hint: vec![false; tools],
            description: vec![false; tools],
            alias: vec![false; tools],
        }
    }

    fn clear(&mut self) {
        self.name.fill(0);
        self.hint.fill(false);
        self.description.fill(false);
        self.alias.fill(false);
    }
}

/// The tools a keyword search runs over, indexed once (when the registry
/// changes) rather than lowercased on every query as Qwen does.
#[derive(Debug, Clone, Default)]
pub struct SearchIndex {
    tools: Vec<IndexedTool>,
    deferrals: Vec<Deferral>,
    names: Corpus,
    descriptions: Corpus,
    /// Each search-hint word and the tools that have it.
    hint_words: BTreeMap<String, Vec<usize>>,
}

impl SearchIndex {
    /// Indexes `entries`.
    #[must_use]
    pub fn new(entries: &[SearchEntry]) -> Self {
        let tools: Vec<IndexedTool> = entries
            .iter()
            .map(|e| IndexedTool::new(&e.name, &e.description, e.search_hint.as_deref(), e.mcp))
            .collect();
        let mut hint_words: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, tool) in tools.iter().enumerate() {
            for word in &tool.hint_words {
                let holders = hint_words.entry(word.clone()).or_default();
                if holders.last() != Some(&i) {
                    holders.push(i);
                }
            }
        }
        Self {
            names: Corpus::new(tools.iter().map(|t| t.name_lower.as_str())),
            descriptions: Corpus::new(tools.iter().map(|t| t.description_lower.as_str())),
            deferrals: entries.iter().map(|e| e.deferral).collect(),
            hint_words,
            tools,
        }
    }

    /// The names of at most `max_results` hidden deferred tools that admit
    /// every required term and score above 0, best first; equal scores by
    /// name in `localeCompare` order. `revealed` says which tools this
    /// session has revealed: those are declared, so searching them again
    /// would only spend the model's tokens.
    #[must_use]
    pub fn search(
        &self,
        keywords: &Keywords,
        max_results: usize,
        revealed: impl Fn(&str) -> bool,
    ) -> Vec<&str> {
        let terms = Terms::new(&keywords.terms, &keywords.required);
        let admitted = self.admitted(&terms);
        let totals = self.totals(&terms, &admitted);
        let scored = self
            .tools
            .iter()
            .zip(&self.deferrals)
            .zip(admitted.iter().zip(totals))
            // Asks `revealed` (a set lookup) only about deferred tools.
            .filter(|((tool, deferral), (admitted, total))| {
                **admitted && *total > 0 && deferral.hidden(false) && !revealed(&tool.name)
            })
            .map(|((tool, _), (_, total))| (total, tool.name.as_str()))
            .collect();
        rank(scored, max_results)
    }

    /// Which tools have every required term (or one of its synonyms) in
    /// their name.
    fn admitted(&self, terms: &Terms) -> Vec<bool> {
        let mut admitted = vec![true; self.tools.len()];
        let mut has_term = vec![false; self.tools.len()];
        for term in &terms.required {
            has_term.fill(false);
            for variant in &term.variants {
                self.names.containing(variant, |i| set(&mut has_term, i));
            }
            for (ok, has) in admitted.iter_mut().zip(&has_term) {
                *ok &= *has;
            }
        }
        admitted
    }

    /// Each admitted tool's score over all terms (0 for the others).
    fn totals(&self, terms: &Terms, admitted: &[bool]) -> Vec<u32> {
        let few =
            admitted.iter().filter(|&&a| a).count() <= self.tools.len() / FEW_ADMITTED_DIVISOR;
        if few {
            // A required term left few candidates: scoring them one by one
            // is cheaper than a pass over every text per variant.
            return self
                .tools
                .iter()
                .zip(admitted)
                .map(|(tool, &admitted)| if admitted { terms.score(tool) } else { 0 })
                .collect();
        }
        let mut totals = vec![0_u32; self.tools.len()];
        let mut points = TermPoints::new(self.tools.len());
        for term in &terms.scored {
            points.clear();
            for (n, variant) in term.variants.iter().enumerate() {
                // Every variant after the first is a synonym of an action term.
                let synonym = term.action && n > 0;
                self.names.containing(variant, |i| {
                    if let (Some(best), Some(tool)) = (points.name.get_mut(i), self.tools.get(i)) {
                        *best = (*best).max(name_points(tool.is_mcp(), &tool.name_lower, variant));
                    }
                    if synonym {
                        set(&mut points.alias, i);
                    }
                });
                self.descriptions
                    .containing(variant, |i| set(&mut points.description, i));
                for &i in self.hint_words.get(&variant.text).into_iter().flatten() {
                    set(&mut points.hint, i);
                    if synonym {
                        set(&mut points.alias, i);
                    }
                }
            }
            let earned = points
                .name
                .iter()
                .zip(&points.hint)
                .zip(points.description.iter().zip(&points.alias));
            for (total, ((name, hint), (description, alias))) in totals.iter_mut().zip(earned) {
                *total += name
                    + if *hint { SCORE_HINT } else { 0 }
                    + if *description { SCORE_DESC } else { 0 }
                    + if *alias { SCORE_ACTION_ALIAS } else { 0 };
            }
        }
        totals
    }
}

fn set(flags: &mut [bool], i: usize) {
    if let Some(flag) = flags.get_mut(i) {
        *flag = true;
    }
}
