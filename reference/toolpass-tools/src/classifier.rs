//! What Qwen Code's auto-mode classifier is shown of a call: each tool's
//! `toAutoClassifierInput` (0.24.4; the base class in `tools.ts` returns
//! the fail-closed `''`, which `projectFunctionArgs` in
//! `permissions/classifier-transcript.ts` turns into `{}`). The pieces the
//! projections share live here; each tool builds its own object
//! ([`Tool::classifier_input`](crate::tool::Tool::classifier_input)).

use serde_json::{Map, Value};

use crate::tools::node::{utf16_len, utf16_prefix};

/// How much of a text `edit` and `write_file` show the classifier: 300
/// UTF-16 code units, JavaScript's `slice(0, 300)`.
pub const PREVIEW_UNITS: usize = 300;

/// The member `key` of the arguments as the model sent it; `None` when
/// absent, which `JSON.stringify` leaves out of the object.
#[must_use]
pub fn member(args: &Value, key: &str) -> Option<Value> {
    args.get(key).cloned()
}

/// A string member, `""` when absent or not a string (Qwen's
/// `params.old_string ?? ""`).
#[must_use]
pub fn text<'a>(args: &'a Value, key: &str) -> &'a str {
    args.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `text.slice(0, 300)` and whether it cut anything (`text.length > 300`).
///
/// JavaScript counts UTF-16 code units, so a character outside the Basic
/// Multilingual Plane counts two and a multi-byte UTF-8 character of the
/// plane one. Where the cut falls inside a surrogate pair, JavaScript keeps
/// a lone high surrogate, which no Rust string (nor well-formed UTF-8 JSON)
/// can hold: the preview then ends before that character, one unit short.
#[must_use]
pub fn preview(text: &str) -> (String, bool) {
    (
        utf16_prefix(text, PREVIEW_UNITS).to_owned(),
        utf16_len(text) > PREVIEW_UNITS,
    )
}

/// An object of the members given, leaving out the absent ones as
/// `JSON.stringify` leaves out `undefined`.
#[must_use]
pub fn object<const N: usize>(members: [(&str, Option<Value>); N]) -> Map<String, Value> {
    members
        .into_iter()
        .filter_map(|(key, value)| Some((key.to_owned(), value?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_preview_counts_utf16_units_as_javascript_does() {
        // 300 two-byte characters: one unit each, nothing cut.
        let accents = "é".repeat(300);
        assert_eq!(preview(&accents), (accents.clone(), false));
        // One more is cut, on a character boundary, not a byte one.
        let (cut, truncated) = preview(&format!("{accents}é"));
        assert_eq!((cut.as_str(), truncated), (accents.as_str(), true));
        // 151 emoji are 302 units: 150 of them fit exactly.
        let (cut, truncated) = preview(&"😀".repeat(151));
        assert_eq!((cut, truncated), ("😀".repeat(150), true));
    }

    #[test]
    fn a_cut_inside_a_surrogate_pair_ends_before_the_character() {
        // 299 units, then an emoji across the 300th: JavaScript keeps its
        // high surrogate alone; the preview stops before it.
        let text = format!("{}😀", "a".repeat(299));
        assert_eq!(preview(&text), ("a".repeat(299), true));
    }

    #[test]
    fn absent_members_are_left_out() {
        let args = json!({"command": "ls"});
        let object = object([
            ("command", member(&args, "command")),
            ("directory", member(&args, "directory")),
        ]);
        assert_eq!(Value::Object(object), json!({"command": "ls"}));
        assert_eq!(text(&args, "missing"), "");
    }
}
