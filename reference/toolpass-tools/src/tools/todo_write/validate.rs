//! Qwen's `validateTodos` (`todoWrite.ts`, 0.24.4), over the todos as JSON:
//! `todo_write` overrides `validateToolParams`, so Qwen never checks its
//! schema and these rules, with their words, are the whole check. Extra
//! members of an item pass and are kept.

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::{Map, Value};

use crate::tools::node::{js_trim, utf16_len};

/// Qwen's `TODO_DEPENDENCY_CYCLE_ERROR`.
pub(super) const CYCLE: &str = "Todo dependencies must not contain a cycle.";

/// The longest id or dependency, in UTF-16 units.
const MAX_ID_UNITS: usize = 500;

/// JavaScript's `!s || s.trim() === ""` for a string.
fn blank(s: &str) -> bool {
    js_trim(s).is_empty()
}

/// A string member that is present, not blank, and (for ids) short enough.
fn id_like(value: Option<&Value>) -> Option<&str> {
    let id = value?.as_str()?;
    (!blank(id) && utf16_len(id) <= MAX_ID_UNITS).then_some(id)
}

/// The item's `blockedBy`, `[]` when absent.
fn blocked_by(todo: &Map<String, Value>) -> Vec<&str> {
    todo.get("blockedBy")
        .and_then(Value::as_array)
        .map(|deps| deps.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The first rule `todos` breaks, in Qwen's words; `None` when it keeps
/// them all.
pub(super) fn validate(todos: Option<&Value>) -> Option<String> {
    let Some(Value::Array(todos)) = todos else {
        return Some("Parameter \"todos\" must be an array.".to_owned());
    };
    let mut items = Vec::with_capacity(todos.len());
    for todo in todos {
        let Value::Object(todo) = todo else {
            return Some("Each todo must be an object.".to_owned());
        };
        if let Some(message) = item_error(todo) {
            return Some(message.to_owned());
        }
        items.push(todo);
    }
    graph_error(&items)
}

/// The rules about one item.
fn item_error(todo: &Map<String, Value>) -> Option<&'static str> {
    if id_like(todo.get("id")).is_none() {
        return Some("Each todo must have a non-empty \"id\" string of at most 500 characters.");
    }
    if todo
        .get("content")
        .and_then(Value::as_str)
        .is_none_or(blank)
    {
        return Some("Each todo must have a non-empty \"content\" string.");
    }
    let status = todo.get("status").and_then(Value::as_str);
    if !matches!(status, Some("pending" | "in_progress" | "completed")) {
        return Some("Each todo must have a valid \"status\" (pending, in_progress, completed).");
    }
    let deps_ok = match todo.get("blockedBy") {
        None => true,
        Some(Value::Array(deps)) => deps.iter().all(|dep| id_like(Some(dep)).is_some()),
        Some(_) => false,
    };
    (!deps_ok).then_some(
        "Each todo \"blockedBy\" value must be an array of non-empty Todo IDs of at most 500 \
         characters.",
    )
}

/// The rules about the list: unique ids, known dependencies, no cycle.
fn graph_error(items: &[&Map<String, Value>]) -> Option<String> {
    let id = |todo: &Map<String, Value>| todo["id"].as_str().unwrap_or_default().to_owned();
    let ids: Vec<String> = items.iter().map(|todo| id(todo)).collect();
    let unique: HashSet<&str> = ids.iter().map(String::as_str).collect();
    if unique.len() != ids.len() {
        return Some("Todo IDs must be unique within the array.".to_owned());
    }
    for (todo, id) in items.iter().zip(&ids) {
        let deps = blocked_by(todo);
        if deps.iter().collect::<HashSet<_>>().len() != deps.len() {
            return Some(format!(
                "Todo \"{id}\" must not contain duplicate blockedBy references."
            ));
        }
        if deps.contains(&id.as_str()) {
            return Some(format!("Todo \"{id}\" must not depend on itself."));
        }
        if let Some(missing) = deps.iter().find(|dep| !unique.contains(**dep)) {
            return Some(format!(
                "Todo \"{id}\" references unknown dependency \"{missing}\"."
            ));
        }
    }
    // Kahn's algorithm, as Qwen runs it: a cycle leaves items unvisited.
    let mut remaining: HashMap<&str, usize> = HashMap::new();
    let mut dependents: HashMap<&str, Vec<&str>> = HashMap::new();
    for (todo, id) in items.iter().zip(&ids) {
        let deps = blocked_by(todo);
        remaining.insert(id, deps.len());
        for dep in deps {
            dependents.entry(dep).or_default().push(id);
        }
    }
    let mut queue: VecDeque<&str> = ids
        .iter()
        .map(String::as_str)
        .filter(|id| remaining[id] == 0)
        .collect();
    let mut visited = 0;
    while let Some(done) = queue.pop_front() {
        visited += 1;
        for &dependent in dependents.get(done).into_iter().flatten() {
            let left = remaining.entry(dependent).or_insert(1);
            *left -= 1;
            if *left == 0 {
                queue.push_back(dependent);
            }
        }
    }
    (visited != items.len()).then(|| CYCLE.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(todos: Value) -> Option<String> {
        validate(Some(&todos))
    }

    #[test]
    fn qwens_rules_in_qwens_order_and_words() {
        assert_eq!(
            validate(None).as_deref(),
            Some("Parameter \"todos\" must be an array.")
        );
        assert_eq!(
            check(json!([1])).as_deref(),
            Some("Each todo must be an object.")
        );
        assert_eq!(
            check(json!([{"id": " ", "content": "c", "status": "pending"}])).as_deref(),
            Some("Each todo must have a non-empty \"id\" string of at most 500 characters.")
        );
        assert_eq!(
            check(json!([{"id": "1", "content": "\u{3000}", "status": "pending"}])).as_deref(),
            Some("Each todo must have a non-empty \"content\" string.")
        );
        assert_eq!(
            check(json!([{"id": "1", "content": "c", "status": "done"}])).as_deref(),
            Some("Each todo must have a valid \"status\" (pending, in_progress, completed).")
        );
        assert_eq!(
            check(json!([
                {"id": "1", "content": "c", "status": "pending"},
                {"id": "1", "content": "d", "status": "pending"}
            ]))
            .as_deref(),
            Some("Todo IDs must be unique within the array.")
        );
    }

    #[test]
    fn dependencies_must_be_known_distinct_and_acyclic() {
        let item = |id: &str, deps: Value| json!({"id": id, "content": "c", "status": "pending", "blockedBy": deps});
        assert_eq!(
            check(json!([item("a", json!(["a"]))])).as_deref(),
            Some("Todo \"a\" must not depend on itself.")
        );
        assert_eq!(
            check(json!([item("a", json!(["b"]))])).as_deref(),
            Some("Todo \"a\" references unknown dependency \"b\".")
        );
        assert_eq!(
            check(json!([item("a", json!(["b", "b"])), item("b", json!([]))])).as_deref(),
            Some("Todo \"a\" must not contain duplicate blockedBy references.")
        );
        assert_eq!(
            check(json!([item("a", json!(["b"])), item("b", json!(["a"]))])).as_deref(),
            Some(CYCLE)
        );
        assert_eq!(
            check(json!([item("a", json!(["b"])), item("b", json!([]))])),
            None
        );
        // Extra members pass: Qwen checks no schema here.
        assert_eq!(
            check(json!([{"id": "1", "content": "c", "status": "pending", "priority": "high"}])),
            None
        );
    }
}
