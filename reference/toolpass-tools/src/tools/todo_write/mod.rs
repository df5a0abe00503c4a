//! `todo_write`: Qwen Code's `TodoWriteTool` (`packages/core/src/tools/
//! todoWrite.ts`, 0.24.4). The model writes its whole todo list each time;
//! the list is kept per session ([`store`]) so that an update can keep the
//! dependencies it leaves out and a rewrite that changes nothing is told
//! so. Kind `think`: it writes, so it is not concurrency-safe.
//!
//! Left out, with no counterpart here: the todo hooks (`TodoCreated`,
//! `TodoCompleted`), the session-workflow plan revision and the
//! active-todo reminder injected into later turns.

mod store;
mod validate;

use serde_json::Value;

use crate::context::InvocationContext;
use crate::kind::Kind;
use crate::result::{Display, Failure, Todo, TodoStatus, ToolResult};
use crate::tool::{BuildError, DeclarativeTool, Invocation};
use crate::workspace::Workspace;

/// The tool's name.
pub const NAME: &str = "todo_write";

/// `todo_write`.
#[derive(Debug, Default)]
pub struct TodoWriteTool;

impl DeclarativeTool for TodoWriteTool {
    const NAME: &'static str = NAME;
    const KIND: Kind = Kind::Think;
    const DECLARATION: &'static str = include_str!("../declarations/todo_write.json");
    /// Qwen overrides `validateToolParams` with `validateTodos`: no schema.
    const SCHEMA_CHECKED: bool = false;
    type Params = Value;

    fn validate_values(
        &self,
        params: &mut Value,
        _workspace: &Workspace,
    ) -> Result<(), BuildError> {
        BuildError::check(validate::validate(params.get("todos")))
    }

    fn create_invocation(&self, params: Value, _workspace: &Workspace) -> Box<dyn Invocation> {
        let todos = match params.get("todos") {
            Some(Value::Array(todos)) => todos.clone(),
            _ => Vec::new(),
        };
        Box::new(TodoWriteInvocation { todos })
    }
}

struct TodoWriteInvocation {
    /// The items as the model wrote them, checked.
    todos: Vec<Value>,
}

impl Invocation for TodoWriteInvocation {
    fn description(&self) -> String {
        "Update todos".to_owned()
    }

    fn execute(
        &self,
        workspace: &Workspace,
        _context: &InvocationContext,
    ) -> Result<ToolResult, Failure> {
        // Qwen reports any failure here as a result, not an error: the
        // model is told the list was not modified and why.
        Ok(self.write(workspace).unwrap_or_else(|message| {
            ToolResult::new(
                format!(
                    "Failed to modify todos. An error occurred during the operation.\n\n\
                     <system-reminder>\nTodo list modification failed with error: {message}. \
                     You may need to retry or handle this error appropriately.\n</system-reminder>"
                ),
                Display::Text(format!("Error writing todos: {message}")),
            )
        }))
    }
}

impl TodoWriteInvocation {
    fn write(&self, workspace: &Workspace) -> Result<ToolResult, String> {
        let previous = store::read(workspace).map_err(|e| e.to_string())?;
        let todos = self.keeping_dependencies(&previous.todos);
        if let Some(message) = validate::validate(Some(&Value::Array(todos.clone()))) {
            return Err(message);
        }
        let display = Display::Todos(todos.iter().filter_map(shown).collect());
        if previous.todos == todos {
            return Ok(ToolResult::new(UNCHANGED, display));
        }
        let every_completed = previous
            .todos
            .iter()
            .all(|t| status(t) == Some("completed"));
        let starts_new_plan = !todos.is_empty() && (previous.todos.is_empty() || every_completed);
        let plan_id = match previous.plan_id {
            _ if todos.is_empty() => None,
            Some(id) if !starts_new_plan => Some(id),
            _ => Some(store::random_uuid().map_err(|e| e.to_string())?),
        };
        store::write(workspace, &todos, plan_id.as_deref()).map_err(|e| e.to_string())?;
        let text = if todos.is_empty() {
            CLEARED.to_owned()
        } else {
            let json = serde_json::to_string(&todos).map_err(|e| e.to_string())?;
            format!(
                "Todos have been modified successfully. Ensure that you continue to use the todo \
                 list to track your progress. Please proceed with the current tasks if \
                 applicable\n\n<system-reminder>\nYour todo list has changed. DO NOT mention \
                 this explicitly to the user. Here are the latest contents of your todo \
                 list:\n\n{json}. Continue on with the tasks at hand if applicable.\n\
                 </system-reminder>"
            )
        };
        Ok(ToolResult::new(text, display))
    }

    /// Qwen's update rule: while a plan is active (an item not completed),
    /// an item that gives no `blockedBy` keeps its stored one, less the
    /// dependencies no longer in the list; if what is kept makes a cycle,
    /// the list is taken as the model wrote it.
    fn keeping_dependencies(&self, previous: &[Value]) -> Vec<Value> {
        let active = previous.iter().any(|t| status(t) != Some("completed"));
        if !active {
            return self.todos.clone();
        }
        let listed = |id: &str| {
            self.todos
                .iter()
                .any(|t| t.get("id").and_then(Value::as_str) == Some(id))
        };
        let mut kept_any = false;
        let todos: Vec<Value> = self
            .todos
            .iter()
            .map(|todo| {
                if todo.get("blockedBy").is_some() {
                    return todo.clone();
                }
                let stored = previous
                    .iter()
                    .find(|old| old.get("id") == todo.get("id"))
                    .and_then(|old| old.get("blockedBy"))
                    .and_then(Value::as_array);
                let Some(stored) = stored else {
                    return todo.clone();
                };
                kept_any = true;
                let deps: Vec<Value> = stored
                    .iter()
                    .filter(|dep| dep.as_str().is_some_and(listed))
                    .cloned()
                    .collect();
                let mut todo = todo.clone();
                if let Value::Object(members) = &mut todo {
                    members.insert("blockedBy".to_owned(), Value::Array(deps));
                }
                todo
            })
            .collect();
        let cycle = kept_any
            && validate::validate(Some(&Value::Array(todos.clone()))).as_deref()
                == Some(validate::CYCLE);
        if cycle { self.todos.clone() } else { todos }
    }
}

/// Qwen's answer to a list that is already what the model wrote.
const UNCHANGED: &str = "Todo list is already up to date. No changes were needed.\n\n\
                         <system-reminder>\nYour todo list was not modified because it is \
                         already current. Continue with your existing tasks.\n</system-reminder>";

/// Qwen's answer to an emptied list.
const CLEARED: &str = "Todo list has been cleared.\n\n<system-reminder>\nYour todo list is now \
                       empty. DO NOT mention this explicitly to the user. You have no pending \
                       tasks in your todo list.\n</system-reminder>";

fn status(todo: &Value) -> Option<&str> {
    todo.get("status").and_then(Value::as_str)
}

/// An item for display.
fn shown(todo: &Value) -> Option<Todo> {
    let text = |key: &str| todo.get(key).and_then(Value::as_str).map(str::to_owned);
    Some(Todo {
        id: text("id")?,
        content: text("content")?,
        status: match status(todo)? {
            "pending" => TodoStatus::Pending,
            "in_progress" => TodoStatus::InProgress,
            _ => TodoStatus::Completed,
        },
        blocked_by: todo.get("blockedBy").and_then(Value::as_array).map(|deps| {
            deps.iter()
                .filter_map(|d| d.as_str().map(str::to_owned))
                .collect()
        }),
    })
}
