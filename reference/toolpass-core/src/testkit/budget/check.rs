//! The properties the proptests and the `budget` fuzz target share.

use super::{fast_finalize, model_finalize, model_fit_text, model_persist_gate, model_stub};
use crate::budget::batch::Entry;
use crate::budget::persist::PersistTarget;

/// The writer the properties use: a file named after the call id, or no
/// file when the id asks for a failure (`!` in it).
fn test_writer(call_id: &str, _content: &str) -> Option<String> {
    (!call_id.contains('!')).then(|| format!("/spill/{call_id}.txt"))
}

/// The batch property: the fast plan agrees with the model, the total after
/// is within the budget, and every replacement is whole characters.
pub fn check_batch(entries: &[Entry<'_>], budget: usize) -> Result<(), String> {
    let fast = fast_finalize(entries, budget, test_writer);
    let model = model_finalize(entries, budget, test_writer);
    if fast != model {
        return Err(format!("budget {budget}: fast {fast:?} != model {model:?}"));
    }
    if let Some((_, _, _, after)) = fast
        && after > budget
    {
        return Err(format!("after {after} is over the budget {budget}"));
    }
    Ok(())
}

/// The single-text properties: `fitText`, the preview and the stub agree
/// with their models.
pub fn check_texts(text: &str, max: usize, files: &[String]) -> Result<(), String> {
    let files = (!files.is_empty()).then_some(files);
    let fast = crate::budget::batch::fit_text(text, max, files);
    let model = model_fit_text(text, max, files);
    if fast != model {
        return Err(format!("fit_text({text:?}, {max}): {fast:?} != {model:?}"));
    }
    if fast != text && fast.encode_utf16().count() > max {
        return Err(format!("fit_text({text:?}, {max}) is over: {fast:?}"));
    }
    let target = PersistTarget::File("/spill/c.txt");
    let stub = crate::budget::persist::persisted_stub(text, text.len() as u64, "00", target);
    if stub != model_stub(text, "00", target) {
        return Err(format!("stub of {text:?} differs from the model"));
    }
    let gate = crate::budget::persist_gate("grep_search", text, false, max);
    if gate != model_persist_gate("grep_search", text, false, max) {
        return Err(format!("gate of {text:?} at {max} differs from the model"));
    }
    Ok(())
}

/// Entries and a budget from fuzz bytes: the first two bytes the budget,
/// then results separated by `0xFF`, each an `output` (a byte of 1 as the
/// first makes it an `error`, 2 an already decided result).
#[allow(clippy::panic)] // A fuzz oracle reports failure by panicking.
pub fn fuzz_batch(data: &[u8]) {
    let (budget, rest) = match data {
        [a, b, rest @ ..] => (usize::from(u16::from_le_bytes([*a, *b])), rest),
        _ => return,
    };
    let texts: Vec<(u8, String)> = rest
        .split(|&b| b == 0xFF)
        .map(|piece| match piece {
            [kind @ 1..=2, body @ ..] => (*kind, String::from_utf8_lossy(body).into_owned()),
            _ => (0, String::from_utf8_lossy(piece).into_owned()),
        })
        .collect();
    let parts: Vec<[crate::budget::Part<'_>; 1]> = texts
        .iter()
        .map(|(kind, text)| {
            let mut part = crate::budget::Part::default();
            if *kind == 1 {
                part.error = Some(text);
            } else {
                part.output = Some(text);
            }
            [part]
        })
        .collect();
    let decided: [&str; 1] = ["/old/file.output"];
    let entries: Vec<Entry<'_>> = texts
        .iter()
        .zip(&parts)
        .enumerate()
        .map(|(i, ((kind, _), parts))| Entry {
            call_id: if i % 3 == 0 { "call" } else { "call-1" },
            tool_name: "t",
            parts,
            persisted: (*kind == 2).then_some(&decided[..]),
        })
        .collect();
    if let Err(e) = check_batch(&entries, budget) {
        panic!("{e}");
    }
    for (_, text) in &texts {
        if let Err(e) = check_texts(text, budget % 600, &[]) {
            panic!("{e}");
        }
    }
}
