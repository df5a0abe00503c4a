//! What a tool does, as the scheduler needs to know it: Qwen Code's `Kind`
//! (`packages/core/src/tools/tools.ts`) and the two sets derived from it.

/// A tool's kind of action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Reads files or other local state.
    Read,
    /// Changes a file's content.
    Edit,
    /// Deletes files.
    Delete,
    /// Moves or renames files.
    Move,
    /// Searches files or their content.
    Search,
    /// Runs a command.
    Execute,
    /// Records the model's own notes (todos, memory). It may write to disk,
    /// which is why it is not concurrency-safe.
    Think,
    /// Starts a sub-agent.
    Agent,
    /// Fetches from the network or an MCP server.
    Fetch,
    /// Anything else.
    Other,
}

impl Kind {
    /// The name Qwen uses on the wire (`"read"`, `"edit"`, ...).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Edit => "edit",
            Kind::Delete => "delete",
            Kind::Move => "move",
            Kind::Search => "search",
            Kind::Execute => "execute",
            Kind::Think => "think",
            Kind::Agent => "agent",
            Kind::Fetch => "fetch",
            Kind::Other => "other",
        }
    }

    /// Qwen's `MUTATOR_KINDS`: the kinds with side effects.
    #[must_use]
    pub const fn is_mutator(self) -> bool {
        matches!(self, Kind::Edit | Kind::Delete | Kind::Move | Kind::Execute)
    }

    /// Qwen's `CONCURRENCY_SAFE_KINDS`: only these may run in parallel.
    /// `Think` is deliberately excluded: `save_memory` and `todo_write` write
    /// to disk.
    #[must_use]
    pub const fn is_concurrency_safe(self) -> bool {
        matches!(self, Kind::Read | Kind::Search | Kind::Fetch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Kind; 10] = [
        Kind::Read,
        Kind::Edit,
        Kind::Delete,
        Kind::Move,
        Kind::Search,
        Kind::Execute,
        Kind::Think,
        Kind::Agent,
        Kind::Fetch,
        Kind::Other,
    ];

    #[test]
    fn the_derived_sets_are_qwens() {
        let names = |f: fn(Kind) -> bool| {
            ALL.iter()
                .filter(|k| f(**k))
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(Kind::is_mutator),
            ["edit", "delete", "move", "execute"]
        );
        assert_eq!(
            names(Kind::is_concurrency_safe),
            ["read", "search", "fetch"]
        );
    }

    #[test]
    fn think_is_neither_safe_nor_a_mutator() {
        assert!(!Kind::Think.is_concurrency_safe());
        assert!(!Kind::Think.is_mutator());
    }
}
