//! Where a session's todo list is kept: Qwen writes
//! `<runtime dir>/todos/<session id>.json` (`getTodoFilePath`); the
//! reference keeps it in the session's own private directory (the spill
//! directory, 0700, removed with the session), as `todos/<session id>.json`,
//! so nothing of a session lands outside what the session owns. The content
//! is Qwen's: `{planId?, todos, sessionId}`, pretty-printed with two spaces,
//! written whole to a temporary file and renamed over the old one.

use std::fs;
use std::io::{self, Write};
use std::path::PathBuf;

use serde_json::{Map, Value, json};

use crate::workspace::Workspace;

/// The plan as stored: its id and its items, as JSON objects.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct Plan {
    /// Qwen's `planId`, a UUID, absent once the list is cleared.
    pub(super) plan_id: Option<String>,
    /// The items as the model wrote them.
    pub(super) todos: Vec<Value>,
}

/// The session's todo file, as its tools see it.
fn path(workspace: &Workspace) -> io::Result<PathBuf> {
    // The id comes from the session's opener; anything that could leave
    // the directory is replaced.
    let name: String = workspace
        .id()
        .chars()
        .map(|c| match c {
            'A'..='Z' | 'a'..='z' | '0'..='9' | '-' | '_' => c,
            _ => '_',
        })
        .collect();
    let name = if name.is_empty() { "default" } else { &name };
    Ok(workspace
        .spill_dir()?
        .join("todos")
        .join(format!("{name}.json")))
}

/// Qwen's `readTodoPlanFromFile`: no file is an empty plan; a file that is
/// not JSON is an error.
pub(super) fn read(workspace: &Workspace) -> io::Result<Plan> {
    let text = match fs::read_to_string(path(workspace)?) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Plan::default()),
        Err(e) => return Err(e),
    };
    let data: Value = serde_json::from_str(&text).map_err(io::Error::other)?;
    Ok(Plan {
        plan_id: data
            .get("planId")
            .and_then(Value::as_str)
            .map(str::to_owned),
        todos: data
            .get("todos")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
    })
}

/// Qwen's `writeTodosToFile`: the whole plan, replacing the old one at once.
pub(super) fn write(
    workspace: &Workspace,
    todos: &[Value],
    plan_id: Option<&str>,
) -> io::Result<()> {
    let path = path(workspace)?;
    let dir = path.parent().unwrap_or(&path);
    fs::create_dir_all(dir)?;
    let mut data = Map::new();
    if let Some(plan_id) = plan_id {
        data.insert("planId".to_owned(), json!(plan_id));
    }
    data.insert("todos".to_owned(), Value::Array(todos.to_vec()));
    data.insert("sessionId".to_owned(), json!(workspace.id()));
    let text = serde_json::to_string_pretty(&data).map_err(io::Error::other)?;
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(text.as_bytes())?;
    file.as_file().sync_all()?;
    file.persist(&path).map_err(|e| e.error)?;
    Ok(())
}

/// A version 4 UUID, as `crypto.randomUUID` makes one.
pub(super) fn random_uuid() -> io::Result<String> {
    let mut bytes = [0u8; 16];
    let mut filled = 0;
    while filled < bytes.len() {
        filled +=
            rustix::rand::getrandom(&mut bytes[filled..], rustix::rand::GetRandomFlags::empty())?;
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SessionConfig;

    #[test]
    fn the_plan_lives_in_the_sessions_own_directory_and_round_trips() {
        let root = tempfile::tempdir().unwrap();
        let mut workspace = Workspace::new(root.path(), SessionConfig::default()).unwrap();
        workspace.set_id("s1/../x");
        assert_eq!(read(&workspace).unwrap(), Plan::default());
        let todos = vec![json!({"id": "1", "content": "c", "status": "pending"})];
        write(&workspace, &todos, Some("p")).unwrap();
        let file = path(&workspace).unwrap();
        assert!(file.starts_with(workspace.spill_dir().unwrap()), "{file:?}");
        assert_eq!(file.file_name().unwrap(), "s1____x.json");
        assert!(!file.starts_with(root.path()));
        let plan = read(&workspace).unwrap();
        assert_eq!(plan.plan_id.as_deref(), Some("p"));
        assert_eq!(plan.todos, todos);
        let text = fs::read_to_string(&file).unwrap();
        assert!(
            text.starts_with("{\n  \"planId\": \"p\",\n  \"todos\": ["),
            "{text}"
        );
    }

    #[test]
    fn uuids_are_version_4() {
        let id = random_uuid().unwrap();
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
        assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"), "{id}");
        assert_ne!(id, random_uuid().unwrap());
    }
}
