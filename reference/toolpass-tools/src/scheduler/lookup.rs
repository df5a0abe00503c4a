//! Finding the tool a call names, and Qwen's answer when there is none.

use crate::session::Session;

/// Qwen's `getToolNotFoundMessage`: the three declared names closest by
/// Levenshtein distance.
pub(super) fn tool_not_found_message(session: &Session, name: &str) -> String {
    // The names to suggest are the declared ones, all of them: build the
    // factories left first.
    session.registry().warm_all();
    let declarations = session.registry().declarations();
    let mut names: Vec<(usize, &str)> = declarations
        .tools
        .iter()
        .map(|t| (levenshtein(name, t.name()), t.name()))
        .collect();
    // A stable sort by distance alone keeps declaration order among ties,
    // as JavaScript's sort does.
    names.sort_by_key(|(distance, _)| *distance);
    let top: Vec<String> = names
        .iter()
        .take(3)
        .map(|(_, n)| format!("\"{n}\""))
        .collect();
    let suggestion = match top.len() {
        0 => String::new(),
        1 => format!(" Did you mean {}?", top.join(", ")),
        _ => format!(" Did you mean one of: {}?", top.join(", ")),
    };
    format!(
        "Tool \"{name}\" not found in registry. Tools must use the exact names that are registered.{suggestion}"
    )
}

/// Edit distance between two names, by characters.
fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = i;
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let (Some(&left), Some(&above)) = (row.get(j), row.get(j + 1)) else {
                break;
            };
            let value = (above + 1)
                .min(left + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = value;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levenshtein_counts_edits() {
        assert_eq!(levenshtein("edit", "edit"), 0);
        assert_eq!(levenshtein("edti", "edit"), 2);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("abc", ""), 3);
        assert_eq!(levenshtein("read_fle", "read_file"), 1);
    }
}
