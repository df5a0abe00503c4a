//! Jupyter notebooks as `read_file` shows them: Qwen Code's
//! `readNotebookWithMetadata` (`packages/core/src/utils/notebook.ts`), a
//! header and one block per cell with its outputs, ANSI escapes stripped,
//! large outputs and long notebooks cut.

use serde_json::Value;

use crate::tools::node::{utf16_len, utf16_prefix};

/// `LARGE_OUTPUT_THRESHOLD`: characters of one cell's outputs.
const LARGE_OUTPUT_THRESHOLD: usize = 10_000;
/// `MAX_NOTEBOOK_OUTPUT_CHARS`: characters of the whole rendering.
const MAX_NOTEBOOK_OUTPUT_CHARS: usize = 100_000;

/// A rendered notebook.
pub(super) struct Rendered {
    pub content: String,
    pub is_truncated: bool,
}

/// Renders the notebook in `raw` (the file read as UTF-8).
///
/// # Errors
/// The message of the parse failure, as Qwen words its own checks.
pub(super) fn render(raw: &str) -> Result<Rendered, String> {
    let json = raw.strip_prefix('\u{FEFF}').unwrap_or(raw);
    let notebook: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let Value::Object(object) = &notebook else {
        return Err("Invalid notebook: expected a JSON object".to_owned());
    };
    let Some(Value::Array(cells)) = object.get("cells") else {
        return Err("Invalid notebook: missing cells array".to_owned());
    };
    if let Some(i) = cells.iter().position(|c| !c.is_object()) {
        return Err(format!(
            "Invalid notebook: cell at index {i} is not an object"
        ));
    }
    let language = language(&notebook);
    if cells.is_empty() {
        return Ok(Rendered {
            content: "(empty notebook)".to_owned(),
            is_truncated: false,
        });
    }
    let header = format!("Jupyter Notebook ({language}, {} cells)", cells.len());
    let mut texts: Vec<String> = Vec::new();
    let mut total = utf16_len(&header);
    let mut is_truncated = false;
    for (i, cell) in cells.iter().enumerate() {
        let text = render_cell(cell, i, &language);
        total += utf16_len(&text) + 2;
        if total > MAX_NOTEBOOK_OUTPUT_CHARS {
            is_truncated = true;
            texts.push(format!(
                "... [{} remaining cells truncated, total {} cells. Use shell to inspect: cat <path> | jq '.cells[{i}:]']",
                cells.len() - i,
                cells.len()
            ));
            break;
        }
        texts.push(text);
    }
    Ok(Rendered {
        content: format!("{header}\n\n{}", texts.join("\n\n")),
        is_truncated,
    })
}

/// `getNotebookLanguage`.
fn language(notebook: &Value) -> String {
    let meta = &notebook["metadata"];
    [
        &meta["language_info"]["name"],
        &meta["kernelspec"]["language"],
    ]
    .into_iter()
    .find(|v| !v.is_null())
    .map_or_else(|| "python".to_owned(), js_string)
}

/// JavaScript's `String(value)` for JSON values, as template literals and
/// `Array.prototype.join` apply it (`null` joins as empty).
fn js_string(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{f:.0}"),
            _ => n.to_string(),
        },
        Value::String(s) => s.clone(),
        Value::Array(items) => js_join(items, ","),
        Value::Object(_) => "[object Object]".to_owned(),
    }
}

/// `Array.prototype.join`: `null` items join as empty, the rest as
/// `String(item)`.
fn js_join(items: &[Value], separator: &str) -> String {
    items
        .iter()
        .map(|v| {
            if v.is_null() {
                String::new()
            } else {
                js_string(v)
            }
        })
        .collect::<Vec<_>>()
        .join(separator)
}

/// `normalizeSource`, and the `String()` the cell template applies to it.
fn source(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::Array(items) => js_join(items, ""),
        other => js_string(other),
    }
}

/// `getCellDisplayId`.
fn cell_id(cell: &Value, index: usize) -> String {
    match cell["id"].as_str() {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => format!("cell-{index}"),
    }
}

/// `processCell`.
fn render_cell(cell: &Value, index: usize, language: &str) -> String {
    let id = cell_id(cell, index);
    let source = source(&cell["source"]);
    let mut parts: Vec<String> = Vec::new();
    match cell["cell_type"].as_str() {
        Some("code") => {
            let exec = match &cell["execution_count"] {
                Value::Null => String::new(),
                count => format!(" [{}]", js_string(count)),
            };
            parts.push(format!("--- Code Cell {id}{exec} ---"));
            parts.push(format!("```{language}"));
            parts.push(source);
            parts.push("```".to_owned());
            if let Value::Array(outputs) = &cell["outputs"] {
                let texts: Vec<String> = outputs
                    .iter()
                    .map(render_output)
                    .filter(|t| !t.is_empty())
                    .collect();
                if !texts.is_empty() {
                    let mut combined = texts.join("\n");
                    let length = utf16_len(&combined);
                    if length > LARGE_OUTPUT_THRESHOLD {
                        combined = format!(
                            "{}\n... [output truncated, total {length} chars. Use shell: cat <notebook_path> | jq '.cells[{index}].outputs']",
                            utf16_prefix(&combined, LARGE_OUTPUT_THRESHOLD)
                        );
                    }
                    parts.push("Output:".to_owned());
                    parts.push(combined);
                }
            }
        }
        Some("markdown") => {
            parts.push(format!("--- Markdown Cell {id} ---"));
            parts.push(source);
        }
        Some("raw") => {
            parts.push(format!("--- Raw Cell {id} ---"));
            parts.push(source);
        }
        _ => {
            parts.push(format!("--- Cell {id} ---"));
            parts.push(source);
        }
    }
    parts.join("\n")
}

/// `processOutput`.
fn render_output(output: &Value) -> String {
    let text_of = |v: &Value| match v {
        Value::Null | Value::Bool(false) => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(_) => source(v),
        other => js_string(other),
    };
    match output["output_type"].as_str() {
        Some("stream") => strip_ansi(&text_of(&output["text"])),
        Some("execute_result" | "display_data") => {
            let data = &output["data"];
            match &data["text/plain"] {
                Value::String(s) => strip_ansi(s),
                Value::Array(_) => strip_ansi(&source(&data["text/plain"])),
                _ => {
                    let mimes: Vec<&str> = data
                        .as_object()
                        .map(|o| {
                            o.keys()
                                .map(String::as_str)
                                .filter(|k| is_mime(k))
                                .collect()
                        })
                        .unwrap_or_default();
                    if mimes.is_empty() {
                        String::new()
                    } else {
                        format!("[non-text output: {}]", mimes.join(", "))
                    }
                }
            }
        }
        Some("error") => {
            let mut parts: Vec<String> = Vec::new();
            for key in ["ename", "evalue"] {
                let value = text_of(&output[key]);
                if !value.is_empty() {
                    parts.push(value);
                }
            }
            if let Value::Array(lines) = &output["traceback"]
                && !lines.is_empty()
            {
                parts.push(js_join(lines, "\n"));
            }
            strip_ansi(&parts.join(": "))
        }
        _ => String::new(),
    }
}

/// `MIME_TYPE_RE`: `type/subtype` with the characters RFC 6838 allows.
fn is_mime(key: &str) -> bool {
    let token = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "!#$&^_.+-".contains(c))
    };
    key.split_once('/')
        .is_some_and(|(kind, sub)| token(kind) && token(sub))
}

/// `stripAnsi`: CSI, OSC, and two-character escape sequences.
fn strip_ansi(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1B' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some('[') => {
                // CSI: parameters 0x30-0x3F, intermediates 0x20-0x2F, a final
                // byte 0x40-0x7E; anything else leaves the ESC in place.
                let rest: String = chars.clone().skip(1).collect();
                let params = rest.chars().take_while(|c| ('0'..='?').contains(c)).count();
                let inter = rest
                    .chars()
                    .skip(params)
                    .take_while(|c| (' '..='/').contains(c))
                    .count();
                match rest.chars().nth(params + inter) {
                    Some(f) if ('@'..='~').contains(&f) => {
                        for _ in 0..params + inter + 2 {
                            chars.next();
                        }
                    }
                    _ => out.push(c),
                }
            }
            Some(']') => {
                // OSC: up to BEL or ESC \.
                let rest: Vec<char> = chars.clone().skip(1).collect();
                let body = rest
                    .iter()
                    .take_while(|c| **c != '\x07' && **c != '\x1B')
                    .count();
                let terminator = match (rest.get(body), rest.get(body + 1)) {
                    (Some('\x07'), _) => Some(1),
                    (Some('\x1B'), Some('\\')) => Some(2),
                    _ => None,
                };
                // Without a terminator, "ESC ]" is a two-character escape.
                let consumed = terminator.map_or(1, |t| body + t + 1);
                for _ in 0..consumed {
                    chars.next();
                }
            }
            Some('P' | '_' | '^' | 'X') => {
                // DCS / APC / PM / SOS: up to ESC \; a lone introducer is a
                // two-character escape.
                let rest: Vec<char> = chars.clone().skip(1).collect();
                let body = rest.iter().take_while(|c| **c != '\x1B').count();
                if rest.get(body) == Some(&'\x1B') && rest.get(body + 1) == Some(&'\\') {
                    for _ in 0..body + 3 {
                        chars.next();
                    }
                } else {
                    chars.next();
                }
            }
            Some(next) if ('@'..='Z').contains(&next) || ('\\'..='_').contains(&next) => {
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_outputs_and_errors_are_rendered_like_qwen() {
        let nb = r##"{"metadata":{"kernelspec":{"language":"python"}},"nbformat":4,"cells":[
            {"cell_type":"markdown","id":"intro","source":["# Title\n","text"]},
            {"cell_type":"code","execution_count":3,"source":"print(1)","outputs":[
                {"output_type":"stream","text":["\u001b[31m1\u001b[0m\n"]},
                {"output_type":"display_data","data":{"image/png":"..."}},
                {"output_type":"error","ename":"E","evalue":"bad","traceback":["t1","t2"]}]},
            {"cell_type":"raw","source":"r"}]}"##;
        let r = render(nb).unwrap();
        assert!(!r.is_truncated);
        assert_eq!(
            r.content,
            "Jupyter Notebook (python, 3 cells)\n\n--- Markdown Cell intro ---\n# Title\ntext\n\n\
             --- Code Cell cell-1 [3] ---\n```python\nprint(1)\n```\nOutput:\n1\n\n\
             [non-text output: image/png]\nE: bad: t1\nt2\n\n--- Raw Cell cell-2 ---\nr"
        );
    }

    #[test]
    fn malformed_notebooks_are_errors() {
        assert!(render("not json").is_err());
        assert_eq!(
            render(r#"{"cells":{}}"#).err().unwrap(),
            "Invalid notebook: missing cells array"
        );
        assert_eq!(
            render(r#"{"cells":[1]}"#).err().unwrap(),
            "Invalid notebook: cell at index 0 is not an object"
        );
        assert_eq!(
            render(r#"{"cells":[]}"#).unwrap().content,
            "(empty notebook)"
        );
    }

    #[test]
    fn ansi_sequences_are_stripped() {
        assert_eq!(strip_ansi("\x1B[1;31mred\x1B[0m"), "red");
        assert_eq!(strip_ansi("\x1B]0;title\x07x"), "x");
        assert_eq!(strip_ansi("a\x1BMb"), "ab");
        assert_eq!(strip_ansi("a\x1B]b"), "ab");
        assert_eq!(strip_ansi("a\x1B[b"), "a");
        assert_eq!(strip_ansi("a\x1B[\x01"), "a\x1B[\x01");
    }
}
