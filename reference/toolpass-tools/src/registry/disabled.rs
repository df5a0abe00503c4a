//! `disabledTools`: the names a session refuses to register (Qwen's
//! `isToolDisabled`).

use std::collections::BTreeSet;

use toolpass_core::tool_name::hash_suffix_name;

/// The prefix of every MCP tool's declared name.
const MCP_PREFIX: &str = "mcp__";

/// The disabled names of one session.
#[derive(Debug, Clone, Default)]
pub(super) struct Disabled {
    names: BTreeSet<String>,
    /// The `mcp__…` entries made valid as MCP tool names are (Qwen
    /// 0.24.4's `normalizeMcpToolName`, the hash rule of
    /// `generateValidName`): an entry written as the server spells its tool
    /// (`mcp__my notes__read`) still disables the tool declared from it.
    mcp_names: BTreeSet<String>,
}

impl Disabled {
    pub(super) fn new(names: impl IntoIterator<Item = String>) -> Self {
        let names: BTreeSet<String> = names.into_iter().collect();
        let mcp_names = names
            .iter()
            .filter(|n| n.starts_with(MCP_PREFIX))
            .map(|n| hash_suffix_name(n))
            .collect();
        Disabled { names, mcp_names }
    }

    /// Whether a tool declared as `name`, or known by one of `aliases`
    /// (its names under other rules), is disabled.
    pub(super) fn refuses(&self, name: &str, aliases: &[String]) -> bool {
        self.names.contains(name)
            || aliases.iter().any(|alias| self.names.contains(alias))
            || (name.starts_with(MCP_PREFIX) && self.mcp_names.contains(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_is_disabled_by_its_name_an_alias_or_its_mcp_spelling() {
        let disabled = Disabled::new(
            ["glob", "mcp__my notes__read", "legacy_name"]
                .into_iter()
                .map(str::to_owned),
        );
        assert!(disabled.refuses("glob", &[]));
        assert!(!disabled.refuses("grep_search", &[]));
        let declared = hash_suffix_name("mcp__my notes__read");
        assert!(declared.starts_with("mcp__my_notes__read_"), "{declared}");
        assert!(disabled.refuses(&declared, &[]));
        // The pre-0.24 spelling is the tool's alias, disabled by name.
        let legacy = Disabled::new(["mcp__my_notes__read".to_owned()]);
        assert!(legacy.refuses(&declared, &["mcp__my_notes__read".to_owned()]));
        assert!(!legacy.refuses(&declared, &[]));
        assert!(disabled.refuses("mcp__x__y", &["legacy_name".to_owned()]));
        // Only MCP names are normalised: a built-in's name is exact.
        assert!(!disabled.refuses("Glob", &[]));
    }
}
