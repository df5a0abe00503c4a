//! Truncation written the obvious way, as Qwen's `truncateAndSaveToFile`
//! does it in JavaScript: split the whole output into a vector of lines,
//! measure the UTF-16 length of everything, walk the lines and join the
//! kept ones. The bench compares `toolpass_core::truncate` against it.

/// The kept head and tail lines of `content` under Qwen's default `both`
/// split (head 1/5, tail 4/5 of `max_lines` and of `budget` characters), or
/// `None` when it is within both limits.
#[must_use]
pub fn naive_truncate(content: &str, budget: usize, max_lines: usize) -> Option<String> {
    let lines: Vec<&str> = content.split('\n').collect();
    let units = content.encode_utf16().count();
    if units <= budget && lines.len() <= max_lines {
        return None;
    }
    let effective = max_lines.min(lines.len());
    let head_count = (effective / 5).max(1);
    let tail_count = effective - head_count;
    let head_budget = budget / 5;
    let mut head: Vec<String> = Vec::new();
    let mut used = 0;
    for line in lines.iter().take(head_count) {
        let len = line.encode_utf16().count() + 1;
        if used + len > head_budget {
            break;
        }
        head.push((*line).to_owned());
        used += len;
    }
    let mut tail: Vec<String> = Vec::new();
    let mut tail_used = 0;
    let tail_budget = budget.saturating_sub(used);
    for line in lines.iter().rev().take(tail_count) {
        let len = line.encode_utf16().count() + 1;
        if tail_used + len > tail_budget {
            break;
        }
        tail.insert(0, (*line).to_owned());
        tail_used += len;
    }
    Some(format!(
        "{}\n... [CONTENT TRUNCATED] ...\n{}",
        head.join("\n"),
        tail.join("\n")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_a_head_and_a_tail_like_the_real_thing() {
        let text: String = (0..5000).map(|i| format!("line {i}\n")).collect();
        let out = naive_truncate(&text, 25_000, 1000).unwrap();
        assert!(out.starts_with("line 0\nline 1\n"));
        assert!(out.ends_with("line 4999\n"));
        assert!(naive_truncate("short", 25_000, 1000).is_none());
        let real =
            toolpass_core::truncate::truncate(&text, &toolpass_core::truncate::Limits::default())
                .unwrap();
        assert!(real.kept_head().starts_with("line 0\n"));
        assert!(real.kept_tail().ends_with("line 4999\n"));
    }
}
