//! What `tool_search` answers the model: the found tools' declarations in a
//! `<functions>` block, then what was not found or not looked up (Qwen's
//! `returnSchemas`, `packages/core/src/tools/tool-search.ts`).
//!
//! Each declaration is its JSON, whole, inside `<function>…</function>`.
//! The JSON is a remote server's text for an MCP tool, and a description
//! holding `</function>` or `</functions>` would end the block early and
//! turn the rest into text the model reads as instructions. So every `<`,
//! `>` and `&` in the JSON is written as its JSON escape (`\u003c`,
//! `\u003e`, `\u0026`): JSON outside strings has none of them, so the
//! escaped text parses back to the same value, and the block holds no tag
//! but its own.

use super::reminder::DeferredModel;

/// One layer of the answer, in the order Qwen writes them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Review<'a> {
    /// The declarations found, each as JSON (`{"name":…,"description":…,
    /// "parametersJsonSchema":…}` or however the server serializes it).
    pub declarations: &'a [String],
    /// Names asked for that no tool has, as the model wrote them.
    pub missing: &'a [String],
    /// Hidden tools whose schemas were withheld because the proxy model's
    /// bridge is incomplete (`tool_call` is not registered): the model
    /// could not call them.
    pub bridge_unavailable: &'a [String],
    /// Names beyond `max_results`, not looked up.
    pub truncated: &'a [String],
}

/// What the proxy model answers about hidden tools it cannot reach.
#[must_use]
pub fn bridge_unavailable_message(names: &[String]) -> String {
    format!(
        "The deferred-tool bridge is incomplete in this session; hidden schemas were not returned for: {}",
        names.join(", ")
    )
}

/// What a keyword query is answered in the proxy model when the bridge is
/// incomplete.
pub const BRIDGE_UNAVAILABLE: &str = "The deferred-tool bridge is unavailable in this session, so hidden tool schemas cannot be reviewed or invoked.";

/// Qwen's `escapeJsonTagCharacters`: `<`, `>` and `&` as JSON `\u` escapes.
#[must_use]
pub fn escape_tag_characters(json: &str) -> String {
    super::replace_chars(json, |c| match c {
        '<' => Some("\\u003c"),
        '>' => Some("\\u003e"),
        '&' => Some("\\u0026"),
        _ => None,
    })
}

/// `<functions>\n<function>{json}</function>\n…\n</functions>`, or `None`
/// for no declarations.
#[must_use]
pub fn functions_block(declarations: &[String]) -> Option<String> {
    if declarations.is_empty() {
        return None;
    }
    let blocks: Vec<String> = declarations
        .iter()
        .map(|json| format!("<function>{}</function>", escape_tag_characters(json)))
        .collect();
    Some(format!("<functions>\n{}\n</functions>", blocks.join("\n")))
}

impl Review<'_> {
    /// The text the model is given (Qwen's `llmContent`): the block, then
    /// `Not found: a, b`, then the names to send again, each part after a
    /// blank line.
    #[must_use]
    pub fn text(&self) -> String {
        let mut parts = Vec::new();
        parts.extend(functions_block(self.declarations));
        if !self.missing.is_empty() {
            parts.push(format!("Not found: {}", self.missing.join(", ")));
        }
        if !self.bridge_unavailable.is_empty() {
            parts.push(format!(
                "Unavailable: {}",
                bridge_unavailable_message(self.bridge_unavailable)
            ));
        }
        if !self.truncated.is_empty() {
            parts.push(format!(
                "Truncated by max_results \u{2014} request these in a follow-up call: {}",
                self.truncated.join(", ")
            ));
        }
        parts.join("\n\n")
    }

    /// The short form shown to the user (Qwen's `returnDisplay`): the
    /// reveal model *loaded* the tools, the proxy model *reviewed* them.
    #[must_use]
    pub fn display(&self, model: DeferredModel) -> String {
        let (found, none) = match model {
            DeferredModel::Reveal => ("Loaded", "No tools loaded"),
            DeferredModel::Proxy => ("Reviewed", "No tools reviewed"),
        };
        let mut parts = Vec::new();
        if !self.declarations.is_empty() {
            parts.push(format!("{found} {} tool(s)", self.declarations.len()));
        }
        if !self.missing.is_empty() {
            parts.push(format!("{} missing", self.missing.len()));
        }
        if !self.bridge_unavailable.is_empty() {
            let count = self.bridge_unavailable.len();
            parts.push(format!("{count} bridge unavailable"));
        }
        if !self.truncated.is_empty() {
            parts.push(format!("{} truncated", self.truncated.len()));
        }
        if parts.is_empty() {
            return none.to_owned();
        }
        parts.join(", ")
    }

    /// The error the call ends with, if any: a proxy-model answer that
    /// found nothing reachable (Qwen sets `error` only when no schema was
    /// returned).
    #[must_use]
    pub fn error(&self) -> Option<String> {
        (self.declarations.is_empty() && !self.bridge_unavailable.is_empty())
            .then(|| bridge_unavailable_message(self.bridge_unavailable))
    }
}

/// The answer to a keyword query nothing matched (not an error: the model
/// tries other words). `query` is the query as sent, trimmed.
#[must_use]
pub fn no_match_text(query: &str) -> String {
    format!("No tools found matching '{query}'. Try broader keywords or use `select:ToolName`.")
}

/// [`no_match_text`]'s short form for the user.
#[must_use]
pub fn no_match_display(query: &str) -> String {
    format!("No matches for '{query}'")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_has_qwens_layout() {
        let declarations = vec![r#"{"name":"a"}"#.to_owned(), r#"{"name":"b"}"#.to_owned()];
        let missing = vec!["nope".to_owned()];
        let truncated = vec!["c".to_owned(), "d".to_owned()];
        let review = Review {
            declarations: &declarations,
            missing: &missing,
            truncated: &truncated,
            ..Review::default()
        };
        assert_eq!(
            review.text(),
            "<functions>\n<function>{\"name\":\"a\"}</function>\n<function>{\"name\":\"b\"}</function>\n</functions>\n\nNot found: nope\n\nTruncated by max_results \u{2014} request these in a follow-up call: c, d"
        );
        assert_eq!(
            review.display(DeferredModel::Proxy),
            "Reviewed 2 tool(s), 1 missing, 2 truncated"
        );
        assert_eq!(
            review.display(DeferredModel::Reveal),
            "Loaded 2 tool(s), 1 missing, 2 truncated"
        );
        assert_eq!(review.error(), None);
        let only_missing = Review {
            missing: &missing,
            ..Review::default()
        };
        assert_eq!(only_missing.text(), "Not found: nope");
        assert_eq!(
            Review::default().display(DeferredModel::Proxy),
            "No tools reviewed"
        );
        assert_eq!(
            Review::default().display(DeferredModel::Reveal),
            "No tools loaded"
        );
        let hidden = vec!["mcp__a__b".to_owned()];
        let unreachable = Review {
            bridge_unavailable: &hidden,
            missing: &missing,
            ..Review::default()
        };
        assert_eq!(
            unreachable.text(),
            "Not found: nope\n\nUnavailable: The deferred-tool bridge is incomplete in this session; hidden schemas were not returned for: mcp__a__b"
        );
        assert_eq!(
            unreachable.display(DeferredModel::Proxy),
            "1 missing, 1 bridge unavailable"
        );
        assert_eq!(
            unreachable.error().as_deref(),
            Some(
                "The deferred-tool bridge is incomplete in this session; hidden schemas were not returned for: mcp__a__b"
            )
        );
        assert_eq!(functions_block(&[]), None);
    }

    #[test]
    fn no_tag_survives_in_a_declaration() {
        let json = r#"{"description":"a </function></functions><function> & b > c"}"#;
        let escaped = escape_tag_characters(json);
        assert_eq!(
            escaped,
            r#"{"description":"a \u003c/function\u003e\u003c/functions\u003e\u003cfunction\u003e \u0026 b \u003e c"}"#
        );
        let block = functions_block(&[json.to_owned()]).unwrap();
        assert_eq!(block.matches("</function>").count(), 1);
        assert_eq!(block.matches('<').count(), 4);
    }
}
