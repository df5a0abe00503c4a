//! Batches of tool results for the batch-budget bench: `count` code-like
//! texts of uneven sizes (weights 1 to 13, so a few results are several
//! times the others and the budget cuts some and keeps others whole),
//! totalling about `total` bytes.

use toolpass_core::budget::{Entry, Part};

use crate::code_like_text;

/// The texts of a batch of `count` results totalling about `total` bytes,
/// each a run of whole lines of one generated file.
#[must_use]
pub fn batch_texts(count: usize, total: usize) -> Vec<String> {
    let text = code_like_text(total);
    let weights: Vec<usize> = (0..count).map(|i| 1 + (i * 7_919) % 13).collect();
    let sum: usize = weights.iter().sum();
    let mut texts = Vec::with_capacity(count);
    let mut start = 0;
    let mut goal = 0;
    for weight in weights {
        goal += text.len() * weight / sum.max(1);
        // Cut after the next newline, found in bytes since `goal` may fall
        // inside a curly quote: a newline is a char boundary.
        let from = goal.max(start);
        let end = text
            .as_bytes()
            .get(from..)
            .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
            .map_or(text.len(), |n| from + n + 1);
        texts.push(text.get(start..end).unwrap_or_default().to_owned());
        start = end;
    }
    texts
}

/// Each text as a result's one part: its function response's `output`.
#[must_use]
pub fn output_parts(texts: &[String]) -> Vec<[Part<'_>; 1]> {
    texts
        .iter()
        .map(|t| {
            [Part {
                output: Some(t),
                ..Part::default()
            }]
        })
        .collect()
}

/// A shell call's entry per result, under the matching id of `ids`.
#[must_use]
pub fn entries<'a>(ids: &'a [String], parts: &'a [[Part<'a>; 1]]) -> Vec<Entry<'a>> {
    ids.iter()
        .zip(parts)
        .map(|(id, parts)| Entry {
            call_id: id,
            tool_name: "run_shell_command",
            parts,
            persisted: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_add_up_to_the_file_in_uneven_whole_lines() {
        let texts = batch_texts(100, 1 << 20);
        assert_eq!(texts.len(), 100);
        let total: usize = texts.iter().map(String::len).sum();
        assert!(total > (1 << 20) - 200 && total <= 1 << 20, "{total}");
        let bad: Vec<(usize, usize)> = texts
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.ends_with('\n'))
            .map(|(i, t)| (i, t.len()))
            .collect();
        assert!(bad.is_empty(), "{bad:?}");
        let (min, max) = (
            texts.iter().map(String::len).min().unwrap(),
            texts.iter().map(String::len).max().unwrap(),
        );
        assert!(max > 8 * min, "{min}..{max}");
    }
}
