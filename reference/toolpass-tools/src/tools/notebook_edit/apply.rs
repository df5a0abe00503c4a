//! The edit itself: Qwen Code's `applyNotebookEdit` and the helpers of
//! `packages/core/src/utils/notebook.ts` it calls (0.24.4), on the file's
//! text, with no IO. Each rule below is Qwen's, named after its function.

use std::collections::HashSet;

use super::json::{self, Js, Obj};

/// `edit_mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Replace,
    Insert,
    Delete,
}

impl Mode {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Mode::Replace => "replace",
            Mode::Insert => "insert",
            Mode::Delete => "delete",
        }
    }
}

/// What the model asked for, validated.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Request<'a> {
    /// `None` or empty: no cell named (an insert at the beginning).
    pub cell_id: Option<&'a str>,
    /// Present for replace and insert (validation made sure).
    pub new_source: &'a str,
    pub cell_type: Option<&'a str>,
    pub mode: Mode,
}

/// The edited notebook and what to tell the model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Applied {
    /// The notebook as Qwen writes it.
    pub updated: String,
    /// The id of the cell edited, inserted or deleted, as the model sees it.
    pub edited_cell_id: String,
    /// Qwen's `requiresReadAfterWrite`: an insert or a delete in a
    /// notebook whose cells do not all have real ids shifts the `cell-N`
    /// ids the model saw, so it must read the notebook again.
    pub requires_read_after_write: bool,
}

/// Why the edit cannot be made; the file keeps its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ApplyError {
    /// Not JSON, or not a notebook (`notebook_invalid_json`).
    InvalidJson(String),
    /// The cell id names more than one cell (`invalid_tool_params`).
    Ambiguous(String),
    /// No cell has that id (`notebook_cell_not_found`).
    CellNotFound(String),
}

/// `parseNotebook`: the object, with a `cells` array of objects.
///
/// # Errors
/// Qwen's words for what is not a notebook; the parser's for what is not JSON.
pub(crate) fn parse_notebook(content: &str) -> Result<Obj, String> {
    let content = content.strip_prefix('\u{FEFF}').unwrap_or(content);
    // `!parsed || typeof parsed !== "object"`: an array passes this test in
    // JavaScript and fails the next one.
    let notebook = match json::parse(content)? {
        Js::Obj(object) => object,
        Js::Arr(_) => return Err("Invalid notebook: missing cells array".to_owned()),
        _ => return Err("Invalid notebook: expected a JSON object".to_owned()),
    };
    let Some(Js::Arr(cells)) = notebook.get("cells") else {
        return Err("Invalid notebook: missing cells array".to_owned());
    };
    if let Some(i) = cells.iter().position(|c| !matches!(c, Js::Obj(_))) {
        return Err(format!(
            "Invalid notebook: cell at index {i} is not an object"
        ));
    }
    Ok(notebook)
}

/// The notebook's cells, which `parse_notebook` checked are objects.
fn cells(notebook: &Obj) -> impl Iterator<Item = &Obj> {
    let cells = match notebook.get("cells") {
        Some(Js::Arr(cells)) => cells.as_slice(),
        _ => &[],
    };
    cells.iter().filter_map(|c| match c {
        Js::Obj(o) => Some(o),
        _ => None,
    })
}

fn cells_mut(notebook: &mut Obj) -> &mut Vec<Js> {
    if !matches!(notebook.get("cells"), Some(Js::Arr(_))) {
        notebook.set("cells", Js::Arr(Vec::new()));
    }
    match notebook.get_mut("cells") {
        Some(Js::Arr(cells)) => cells,
        _ => unreachable!("cells was just made an array"),
    }
}

/// `getCellDisplayId`: the cell's real id, or `cell-N` by position.
pub(crate) fn display_id(cell: &Obj, index: usize) -> String {
    match cell.get("id") {
        Some(Js::Str(id)) if !id.is_empty() => id.clone(),
        _ => format!("cell-{index}"),
    }
}

/// `hasStableCellIds`: every cell has a real id.
pub(crate) fn has_stable_ids(notebook: &Obj) -> bool {
    cells(notebook).all(|c| matches!(c.get("id"), Some(Js::Str(id)) if !id.is_empty()))
}

/// `resolveTargetIndex`: `None` for an insert that names no cell.
fn resolve_target(notebook: &Obj, cell_id: Option<&str>) -> Result<Option<usize>, ApplyError> {
    let Some(cell_id) = cell_id.filter(|id| !id.is_empty()) else {
        // Validation refuses replace and delete without a cell id.
        return Ok(None);
    };
    let mut found = cells(notebook)
        .enumerate()
        .filter(|(i, c)| display_id(c, *i) == cell_id)
        .map(|(i, _)| i);
    match (found.next(), found.next()) {
        (Some(index), None) => Ok(Some(index)),
        (Some(_), Some(_)) => Err(ApplyError::Ambiguous(format!(
            "Cell ID \"{cell_id}\" is ambiguous in the rendered notebook. Re-read the notebook and target a stable real cell ID before editing."
        ))),
        (None, _) => Err(ApplyError::CellNotFound(format!(
            "Cell with ID \"{cell_id}\" not found in notebook."
        ))),
    }
}

/// JavaScript's `notebook.nbformat ?? 0` compared as a number.
fn format_number(notebook: &Obj, key: &str) -> f64 {
    match notebook.get(key) {
        None | Some(Js::Null) => 0.0,
        Some(Js::Num(n)) => *n,
        Some(Js::Bool(b)) => f64::from(u8::from(*b)),
        Some(Js::Str(s)) => s.trim().parse().unwrap_or(f64::NAN),
        Some(_) => f64::NAN,
    }
}

/// `makeCellId`: `qwen-cell-N` for nbformat 4.5 and later, whose cells
/// carry ids; nothing before.
fn make_cell_id(notebook: &Obj) -> Option<String> {
    let (major, minor) = (
        format_number(notebook, "nbformat"),
        format_number(notebook, "nbformat_minor"),
    );
    if !(major > 4.0 || (major == 4.0 && minor >= 5.0)) {
        return None;
    }
    let taken: HashSet<String> = cells(notebook)
        .enumerate()
        .map(|(i, c)| display_id(c, i))
        .collect();
    (1..)
        .map(|n| format!("qwen-cell-{n}"))
        .find(|id| !taken.contains(id))
}

/// Whether a cell stores its source as a list of lines (`Array.isArray`);
/// `None` when it has no `source` at all.
fn source_is_array(cell: Option<&Js>) -> Option<bool> {
    match cell {
        Some(Js::Obj(c)) => c.get("source").map(|s| matches!(s, Js::Arr(_))),
        _ => None,
    }
}

/// `inferInsertedCellSourceArrayStyle`: the neighbour before, the one
/// after, the first cell with a source, else lines.
fn inserted_source_is_array(notebook: &Obj, at: usize) -> bool {
    let cells = match notebook.get("cells") {
        Some(Js::Arr(cells)) => cells.as_slice(),
        _ => &[],
    };
    let before = at.checked_sub(1).and_then(|i| cells.get(i));
    source_is_array(before)
        .or_else(|| source_is_array(cells.get(at)))
        .or_else(|| cells.iter().find_map(|c| source_is_array(Some(c))))
        .unwrap_or(true)
}

/// `toNotebookSource`: the text, or its lines each keeping its `\n`.
fn to_source(source: &str, as_array: bool) -> Js {
    if !as_array {
        return Js::Str(source.to_owned());
    }
    Js::Arr(
        source
            .split_inclusive('\n')
            .map(|line| Js::Str(line.to_owned()))
            .collect(),
    )
}

/// `normalizeEditedCell`: the type set, metadata made an object if
/// missing; a code cell loses its outputs and execution count (they
/// belonged to the old source), any other cell has none.
fn normalize_edited_cell(cell: &mut Obj, cell_type: Option<Js>) {
    match cell_type.clone() {
        Some(t) => cell.set("cell_type", t),
        // `cell.cell_type = undefined`: JSON.stringify leaves it out.
        None => cell.remove("cell_type"),
    }
    if matches!(cell.get("metadata"), None | Some(Js::Null)) {
        cell.set("metadata", Js::Obj(Obj::default()));
    }
    if cell_type == Some(Js::Str("code".to_owned())) {
        cell.set("execution_count", Js::Null);
        cell.set("outputs", Js::Arr(Vec::new()));
    } else {
        cell.remove("execution_count");
        cell.remove("outputs");
    }
}

/// `inferNotebookJsonFormat`: the indent of the first line that starts
/// with whitespace and a quote (JSON.stringify's gap: a run of spaces
/// becomes a count, at most 10; anything else its first 10 characters),
/// none when no line does (the compact form); and whether the file ends
/// with a newline.
fn json_format(content: &str) -> (String, bool) {
    let indent = content.match_indices('\n').find_map(|(i, _)| {
        let rest = &content[i + 1..];
        let ws = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        (ws > 0 && rest[ws..].starts_with('"')).then(|| &rest[..ws])
    });
    let gap: String = indent.unwrap_or_default().chars().take(10).collect();
    (gap, content.ends_with('\n'))
}

/// `serializeNotebook`.
fn serialize(notebook: Obj, content: &str) -> String {
    let (gap, trailing_newline) = json_format(content);
    let mut text = json::stringify(&Js::Obj(notebook), &gap);
    if trailing_newline {
        text.push('\n');
    }
    text
}

/// `applyNotebookEdit`.
///
/// # Errors
/// [`ApplyError`], in Qwen's words.
pub(crate) fn apply(content: &str, request: &Request<'_>) -> Result<Applied, ApplyError> {
    let mut notebook = parse_notebook(content).map_err(ApplyError::InvalidJson)?;
    let stable_before = has_stable_ids(&notebook);
    let target = resolve_target(&notebook, request.cell_id)?;
    let source = request.new_source;
    let edited_cell_id = match (request.mode, target) {
        (Mode::Insert, target) => {
            let cell_type = request.cell_type.unwrap_or("code");
            let at = target.map_or(0, |i| i + 1);
            let mut cell = Obj::from_members(vec![
                ("cell_type".to_owned(), Js::Str(cell_type.to_owned())),
                ("metadata".to_owned(), Js::Obj(Obj::default())),
                (
                    "source".to_owned(),
                    to_source(source, inserted_source_is_array(&notebook, at)),
                ),
            ]);
            if let Some(id) = make_cell_id(&notebook) {
                cell.set("id", Js::Str(id));
            }
            normalize_edited_cell(&mut cell, Some(Js::Str(cell_type.to_owned())));
            let id = display_id(&cell, at);
            cells_mut(&mut notebook).insert(at, Js::Obj(cell));
            id
        }
        (Mode::Delete, Some(index)) => {
            let removed = cells_mut(&mut notebook).remove(index);
            match removed {
                Js::Obj(cell) => display_id(&cell, index),
                _ => format!("cell-{index}"),
            }
        }
        (Mode::Replace, Some(index)) => {
            let Some(Js::Obj(cell)) = cells_mut(&mut notebook).get_mut(index) else {
                return Err(ApplyError::CellNotFound(format!(
                    "Cell index {index} is out of range."
                )));
            };
            // `params.cell_type ?? target.cell_type`
            let final_type = match request.cell_type {
                Some(t) => Some(Js::Str(t.to_owned())),
                None => cell.get("cell_type").cloned(),
            };
            let as_array = matches!(cell.get("source"), Some(Js::Arr(_)));
            cell.set("source", to_source(source, as_array));
            normalize_edited_cell(cell, final_type);
            display_id(cell, index)
        }
        (Mode::Delete | Mode::Replace, None) => {
            return Err(ApplyError::CellNotFound(
                "cell_id is required for replace and delete operations.".to_owned(),
            ));
        }
    };
    let structural = matches!(request.mode, Mode::Insert | Mode::Delete);
    let requires_read_after_write = structural && !(stable_before && has_stable_ids(&notebook));
    Ok(Applied {
        updated: serialize(notebook, content),
        edited_cell_id,
        requires_read_after_write,
    })
}

/// Qwen's `prepareModifiedNotebookContent`: the user's text replaced the
/// proposal in the confirmation; it must still be a notebook, and is
/// written as the user left it.
///
/// # Errors
/// What makes either text no notebook.
pub(crate) fn check_modified(original: &str, modified: &str) -> Result<bool, ApplyError> {
    let edited = parse_notebook(modified).map_err(ApplyError::InvalidJson)?;
    let before = parse_notebook(original).map_err(ApplyError::InvalidJson)?;
    Ok(!has_stable_ids(&before) || !has_stable_ids(&edited))
}

#[cfg(test)]
#[path = "apply_tests.rs"]
mod tests;
