//! A model of Qwen's keyword search, transcribed from `scoreTool`,
//! `candidateMatchesRequired`, `getSearchTermVariants` and the ranking in
//! `ToolSearchInvocation.execute`: every tool's text lowercased on every
//! call, the hint split per call, variants as fresh vectors, `includes` as
//! `str::contains`, every match sorted. It is the naive baseline of the
//! `tool_search` bench, too.

use crate::tool_search::{SearchEntry, locale_order};

fn variants(term: &str) -> Vec<String> {
    let group: &[&str] = match term {
        "cancel" => &["cancel", "delete", "remove", "stop", "clear"],
        "clear" => &["clear", "delete", "remove", "cancel", "stop"],
        "delete" => &["delete", "remove", "cancel", "stop", "clear"],
        "remove" => &["remove", "delete", "cancel", "stop", "clear"],
        "stop" => &["stop", "cancel", "delete", "remove", "clear"],
        _ => return vec![term.to_owned()],
    };
    group.iter().map(|v| (*v).to_owned()).collect()
}

fn is_action(term: &str) -> bool {
    ["cancel", "clear", "delete", "remove", "stop"].contains(&term)
}

/// `scoreTool(tool, terms)`.
#[must_use]
pub fn model_score_tool(tool: &SearchEntry, terms: &[String]) -> u32 {
    let name = tool.name.to_lowercase();
    let desc = tool.description.to_lowercase();
    let hint = tool.search_hint.clone().unwrap_or_default().to_lowercase();
    let hint_parts: Vec<&str> = hint
        .split(crate::fold::is_js_whitespace)
        .filter(|p| !p.is_empty())
        .collect();
    let mut total = 0;
    for term in terms {
        if term.is_empty() {
            continue;
        }
        let variants = variants(term);
        let mut name_score = 0;
        for variant in &variants {
            if name == *variant
                || name.ends_with(&format!("_{variant}"))
                || name.ends_with(&format!(".{variant}"))
            {
                name_score = name_score.max(if tool.mcp { 12 } else { 10 });
            } else if name.contains(variant.as_str()) {
                name_score = name_score.max(if tool.mcp { 6 } else { 5 });
            }
        }
        total += name_score;
        if hint_parts.iter().any(|p| variants.iter().any(|v| v == p)) {
            total += 4;
        }
        if variants.iter().any(|v| desc.contains(v.as_str())) {
            total += 2;
        }
        if is_action(term)
            && variants
                .iter()
                .filter(|v| *v != term)
                .any(|v| name.contains(v.as_str()) || hint_parts.iter().any(|p| p == v))
        {
            total += 6;
        }
    }
    total
}

/// `candidateMatchesRequired(tool, required)`.
#[must_use]
pub fn model_matches_required(tool: &SearchEntry, required: &[String]) -> bool {
    let name = tool.name.to_lowercase();
    required
        .iter()
        .all(|t| variants(t).iter().any(|v| name.contains(v.as_str())))
}

/// The keyword half of `execute`: candidates (hidden deferred tools), the
/// required filter, scores above 0, a full sort by score then
/// `localeCompare`, the first `max_results`.
#[must_use]
pub fn model_search<'a>(
    tools: &'a [SearchEntry],
    terms: &[String],
    required: &[String],
    max_results: usize,
    revealed: impl Fn(&str) -> bool,
) -> Vec<&'a str> {
    let mut scored: Vec<(u32, &str)> = Vec::new();
    for tool in tools {
        if !tool.deferral.hidden(revealed(&tool.name)) || !model_matches_required(tool, required) {
            continue;
        }
        let score = model_score_tool(tool, terms);
        if score > 0 {
            scored.push((score, &tool.name));
        }
    }
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| locale_order(a.1, b.1)));
    scored
        .into_iter()
        .take(max_results)
        .map(|(_, n)| n)
        .collect()
}
