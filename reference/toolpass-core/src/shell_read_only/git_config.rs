//! The one place the verdict depends on the directory a command runs in
//! (Qwen's `isShellCommandReadOnlyASTInDirectory`, with
//! `getLocalGitConfigRisk` of `packages/core/src/utils/git-config-safety.ts`):
//! a repository's own configuration can make `git diff` run a program
//! (`diff.external`) and `git status` run one (`core.fsmonitor` set to a
//! command). Qwen asks git for the two settings; this module says which
//! commands need the answer and reads it, the caller runs git.

/// What the repository's own (local or worktree) configuration makes
/// `git diff` and `git status` run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GitConfigRisk {
    /// `diff.external` names a program.
    pub diff_external: bool,
    /// `core.fsmonitor` names a hook program (not a boolean).
    pub fsmonitor: bool,
}

/// The arguments of the git command that reads the two settings, after
/// `git -C <directory>`.
pub const GIT_CONFIG_PROBE: &[&str] = &[
    "config",
    "--includes",
    "--show-scope",
    "--null",
    "--get-regexp",
    "^diff\\.external$|^core\\.fsmonitor$",
];

impl GitConfigRisk {
    /// No risk: the directory is not one, or git found neither setting.
    pub const NONE: Self = Self {
        diff_external: false,
        fsmonitor: false,
    };

    /// Both risks, assumed when git could not be asked or its answer not
    /// read (Qwen's `PROBE_FAILED`).
    pub const UNKNOWN: Self = Self {
        diff_external: true,
        fsmonitor: true,
    };

    /// Reads the answer of `git -C DIR` + [`GIT_CONFIG_PROBE`]: its exit
    /// code (`None` when it did not exit normally: killed, timed out) and
    /// its standard output (`scope NUL key LF value NUL`, repeated). Exit
    /// 1 means neither key is set; anything but 0 or 1 is a failed probe.
    #[must_use]
    pub fn from_probe(exit_code: Option<i32>, stdout: &[u8]) -> Self {
        match exit_code {
            Some(1) => return Self::NONE,
            Some(0) => {}
            _ => return Self::UNKNOWN,
        }
        let Ok(stdout) = std::str::from_utf8(stdout) else {
            return Self::UNKNOWN;
        };
        // The last entry of a key wins, as git's own precedence goes.
        let mut diff_external = None;
        let mut fsmonitor = None;
        let fields: Vec<&str> = stdout.split('\0').collect();
        for pair in fields.chunks(2) {
            let [scope, entry] = pair else { break };
            let Some((key, value)) = entry.split_once('\n') else {
                return Self::UNKNOWN;
            };
            let local = matches!(*scope, "local" | "worktree");
            let value = local.then(|| value.trim().to_owned());
            match key {
                "diff.external" => diff_external = Some(value),
                "core.fsmonitor" => fsmonitor = Some(value),
                _ => {}
            }
        }
        let set = |v: &Option<Option<String>>| {
            v.as_ref()
                .and_then(Option::as_deref)
                .is_some_and(|v| !v.is_empty())
        };
        let boolean = |v: &str| {
            ["true", "false", "yes", "no", "on", "off", "0", "1"]
                .iter()
                .any(|b| v.eq_ignore_ascii_case(b))
        };
        Self {
            diff_external: set(&diff_external),
            fsmonitor: set(&fsmonitor) && !fsmonitor.flatten().is_some_and(|v| boolean(&v)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_one_is_no_setting_and_other_failures_assume_both() {
        assert_eq!(GitConfigRisk::from_probe(Some(1), b""), GitConfigRisk::NONE);
        assert_eq!(
            GitConfigRisk::from_probe(Some(128), b""),
            GitConfigRisk::UNKNOWN
        );
        assert_eq!(GitConfigRisk::from_probe(None, b""), GitConfigRisk::UNKNOWN);
        assert_eq!(
            GitConfigRisk::from_probe(Some(0), b"local\0no newline\0"),
            GitConfigRisk::UNKNOWN
        );
    }

    #[test]
    fn only_local_settings_count_and_a_boolean_fsmonitor_is_no_hook() {
        let risk = GitConfigRisk::from_probe(
            Some(0),
            b"local\0diff.external\nhelper\0local\0core.fsmonitor\ntrue\0",
        );
        assert_eq!(
            risk,
            GitConfigRisk {
                diff_external: true,
                fsmonitor: false
            }
        );
        let risk = GitConfigRisk::from_probe(
            Some(0),
            b"global\0diff.external\nhelper\0worktree\0core.fsmonitor\nhook.sh\0",
        );
        assert_eq!(
            risk,
            GitConfigRisk {
                diff_external: false,
                fsmonitor: true
            }
        );
        // A later, empty local value clears an earlier one.
        let risk = GitConfigRisk::from_probe(
            Some(0),
            b"local\0diff.external\nhelper\0local\0diff.external\n\0",
        );
        assert_eq!(risk, GitConfigRisk::NONE);
    }
}
