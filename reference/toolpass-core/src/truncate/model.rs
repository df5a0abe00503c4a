//! A slow, literal model of Qwen's `truncateAndSaveToFile` over UTF-16 code
//! units, for tests to hold the fast walk against.
//!
//! It splits the whole input into a `Vec` of lines and does its arithmetic in
//! `i128`, the way the JavaScript does with numbers. The one change is the
//! crate's deliberate one: a cut that would separate a surrogate pair keeps
//! one unit less.

use super::{Keep, Limits, SEPARATOR, TOOL_OUTPUT_TRUNCATED_PREFIX};

const NEWLINE: u16 = 0x0A;
const ELLIPSIS: [u16; 3] = [0x2E; 3];

/// Qwen's `truncatedContent`, or `None` where Qwen returns the content as is
/// before the stub rule.
pub(super) fn preview(content: &str, limits: &Limits) -> Option<String> {
    if limits.threshold == 0
        || limits.lines == Some(0)
        || content.starts_with(TOOL_OUTPUT_TRUNCATED_PREFIX)
    {
        return None;
    }
    let text: Vec<u16> = content.encode_utf16().collect();
    let lines: Vec<&[u16]> = text.split(|&u| u == NEWLINE).collect();
    let threshold = limits.threshold as i128;
    let truncate_lines = limits.lines.map_or(i128::MAX, |l| l as i128);
    let n = lines.len() as i128;
    if text.len() as i128 <= threshold && n <= truncate_lines {
        return None;
    }

    let effective_lines = truncate_lines.min(n);
    let (head_count, tail_count) = match limits.keep {
        Keep::Head => (effective_lines, 0),
        Keep::Tail => (0, effective_lines),
        Keep::Both => {
            let head = (effective_lines / 5).max(1);
            (head, effective_lines - head)
        }
    };
    let separator: Vec<u16> = SEPARATOR.encode_utf16().collect();
    let preview_budget = limits.preview_chars.map_or(threshold, |p| p as i128);
    let sep: &[u16] = if preview_budget > separator.len() as i128 {
        &separator
    } else {
        &[]
    };
    let content_budget = preview_budget - sep.len() as i128;
    let head_budget = match limits.keep {
        Keep::Head => content_budget,
        Keep::Tail => 0,
        Keep::Both => content_budget / 5,
    };

    let mut beginning: Vec<Vec<u16>> = Vec::new();
    let mut head_chars = 0i128;
    for line in lines.iter().take(head_count.min(n) as usize) {
        let remaining = head_budget - head_chars;
        if remaining <= 0 {
            break;
        }
        let len = line.len() as i128;
        if len + 1 > remaining {
            if remaining >= 3 {
                let mut slice_len = (remaining - 3) as usize;
                if slice_len > 0 && is_high_surrogate(line[slice_len - 1]) {
                    slice_len -= 1;
                }
                let mut piece = line[..slice_len].to_vec();
                piece.extend_from_slice(&ELLIPSIS);
                beginning.push(piece);
            }
            head_chars = head_budget;
            break;
        }
        beginning.push(line.to_vec());
        head_chars += len + 1;
    }

    let tail_budget = match limits.keep {
        Keep::Head => 0,
        _ => (content_budget - head_chars).max(0),
    };
    let mut end: Vec<Vec<u16>> = Vec::new();
    let mut tail_chars = 0i128;
    let tail_start = (n - tail_count).max(beginning.len() as i128);
    let mut i = n - 1;
    while i >= tail_start {
        let line = lines[i as usize];
        let remaining = tail_budget - tail_chars;
        if remaining <= 0 {
            break;
        }
        let len = line.len() as i128;
        if len + 1 > remaining {
            if remaining >= 3 {
                let mut slice_len = (remaining - 3) as usize;
                if slice_len > 0 && is_low_surrogate(line[line.len() - slice_len]) {
                    slice_len -= 1;
                }
                let mut piece = ELLIPSIS.to_vec();
                piece.extend_from_slice(&line[line.len() - slice_len..]);
                end.insert(0, piece);
            }
            break;
        }
        end.insert(0, line.to_vec());
        tail_chars += len + 1;
        i -= 1;
    }

    // Qwen composes by direction; the walk's single shape must agree.
    let mut out = Vec::new();
    match limits.keep {
        Keep::Head => {
            out.extend(beginning.join(&NEWLINE));
            out.extend_from_slice(sep);
        }
        Keep::Tail => {
            out.extend_from_slice(sep);
            out.extend(end.join(&NEWLINE));
        }
        Keep::Both => {
            out.extend(beginning.join(&NEWLINE));
            out.extend_from_slice(sep);
            out.extend(end.join(&NEWLINE));
        }
    }
    Some(String::from_utf16(&out).expect("the model never splits a surrogate pair"))
}

fn is_high_surrogate(unit: u16) -> bool {
    (0xD800..0xDC00).contains(&unit)
}

fn is_low_surrogate(unit: u16) -> bool {
    (0xDC00..0xE000).contains(&unit)
}
