//! The one place the verdict depends on the directory a command runs in
//! (Qwen's `isShellCommandReadOnlyASTInDirectory`, with
//! `getLocalGitConfigRisk` of `packages/core/src/utils/git-config-safety.ts`):
//! a repository's own configuration can make a "read-only" git command run
//! a program. Qwen asks git for two settings (`diff.external`, a
//! `core.fsmonitor` hook) and only for `git diff` and `git status`; a
//! checkout the user did not write (an archive, a shared volume, a
//! submodule) has many more: a diff driver's `textconv` or `command` that
//! `git show`, `git log -p` and `git blame` run, a `filter` that any
//! index refresh runs, `gpg.program` that a signed commit's `git log`
//! runs, `core.sshCommand` and `uploadpack` that `git remote show` runs, a
//! pager, a credential helper. So every git command asks git for all of
//! them, in the repository's own configuration with its includes and in
//! each submodule's; any one set makes the command ask. This module says
//! what to ask and reads the answers, the caller runs git.

/// Whether the repository's own configuration names a program that a git
/// command may run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GitConfigRisk {
    /// Some setting of [`HELPER_KEYS`] names a program.
    pub runs_helper: bool,
}

/// The settings that name a program some read-only git command runs, as
/// `git config --get-regexp` matches them (section and variable names in
/// lower case). `core.repositoryformatversion`, set in every repository,
/// is asked for too: its origin names the repository's configuration
/// file, whose directory holds the submodules' (`modules/*/config`).
pub const HELPER_KEYS: &str = "^(diff\\.external\
|diff\\..+\\.(textconv|command)\
|filter\\..+\\.(clean|smudge|process)\
|core\\.(fsmonitor|pager|sshcommand|gitproxy|askpass|alternaterefscommand|repositoryformatversion)\
|pager\\..+\
|gpg\\.(.+\\.)?program\
|gpg\\..+command\
|remote\\..+\\.(uploadpack|receivepack|vcs)\
|protocol\\.(.+\\.)?allow\
|credential\\.(.+\\.)?helper)$";

/// The options of the `git config` that reads the settings: after `git -C
/// <directory> config` for the repository's own, after `git -C <directory>
/// config --file <file>` for a submodule's.
pub const GIT_CONFIG_PROBE: &[&str] = &[
    "--includes",
    "--show-scope",
    "--show-origin",
    "--null",
    "--get-regexp",
    HELPER_KEYS,
];

/// What one probe answered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProbeAnswer {
    /// Whether a counted setting names a program.
    pub risk: GitConfigRisk,
    /// The repository's own configuration file as git named it (relative
    /// to the directory asked, or absolute), when the answer says.
    pub local_config: Option<String>,
}

/// Which scopes of a probe's answer count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scopes {
    /// The repository's own: `local` and `worktree` (the user's global
    /// and system settings are the user's, not the checkout's).
    Repository,
    /// Every entry: a submodule's file read with `--file`.
    All,
}

impl ProbeAnswer {
    /// A probe that failed, or whose answer could not be read.
    pub const FAILED: Self = Self {
        risk: GitConfigRisk::UNKNOWN,
        local_config: None,
    };
}

impl GitConfigRisk {
    /// No risk: the directory is not one, or git found no such setting.
    pub const NONE: Self = Self { runs_helper: false };

    /// The risk assumed when git could not be asked or its answer not
    /// read (Qwen's `PROBE_FAILED`).
    pub const UNKNOWN: Self = Self { runs_helper: true };

    /// Reads the answer of a probe: its exit code (`None` when it did not
    /// exit normally: killed, timed out) and its standard output (`scope
    /// NUL origin NUL key LF value NUL`, repeated). Exit 1 means no key is
    /// set; anything but 0 or 1 is a failed probe.
    #[must_use]
    pub fn from_probe(exit_code: Option<i32>, stdout: &[u8], scopes: Scopes) -> ProbeAnswer {
        match exit_code {
            Some(1) => return ProbeAnswer::default(),
            Some(0) => {}
            _ => return ProbeAnswer::FAILED,
        }
        let Ok(stdout) = std::str::from_utf8(stdout) else {
            return ProbeAnswer::FAILED;
        };
        // The last entry of a key wins, as git's own precedence goes.
        let mut values: Vec<(&str, &str)> = Vec::new();
        let mut local_config = None;
        let fields: Vec<&str> = stdout.split('\0').collect();
        for entry in fields.chunks(3) {
            let [scope, origin, entry] = entry else { break };
            let Some((key, value)) = entry.split_once('\n') else {
                return ProbeAnswer::FAILED;
            };
            let counted = scopes == Scopes::All || matches!(*scope, "local" | "worktree");
            if !counted {
                continue;
            }
            if key == "core.repositoryformatversion" && *scope == "local" {
                local_config = origin.strip_prefix("file:").map(str::to_owned);
            }
            values.retain(|(k, _)| *k != key);
            values.push((key, value.trim()));
        }
        let runs_helper = values.iter().any(|(k, v)| names_a_program(k, v));
        ProbeAnswer {
            risk: Self { runs_helper },
            local_config,
        }
    }
}

/// Whether `key = value` makes git run a program: any non-empty value,
/// but a boolean `core.fsmonitor` (git's own daemon) or `pager.<cmd>`
/// (paging on or off), a `protocol.allow` other than `always`, and the
/// format version, which names none.
fn names_a_program(key: &str, value: &str) -> bool {
    let boolean = ["true", "false", "yes", "no", "on", "off", "0", "1"]
        .iter()
        .any(|b| value.eq_ignore_ascii_case(b));
    if value.is_empty() || key == "core.repositoryformatversion" {
        return false;
    }
    if key == "core.fsmonitor" || key.starts_with("pager.") {
        return !boolean;
    }
    if key.starts_with("protocol.") {
        return value.eq_ignore_ascii_case("always");
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn risk(stdout: &[u8]) -> bool {
        GitConfigRisk::from_probe(Some(0), stdout, Scopes::Repository)
            .risk
            .runs_helper
    }

    #[test]
    fn exit_one_is_no_setting_and_other_failures_assume_a_helper() {
        let none = GitConfigRisk::from_probe(Some(1), b"", Scopes::Repository);
        assert_eq!(none.risk, GitConfigRisk::NONE);
        for exit in [Some(128), None] {
            let failed = GitConfigRisk::from_probe(exit, b"", Scopes::Repository);
            assert_eq!(failed.risk, GitConfigRisk::UNKNOWN);
        }
        assert!(risk(b"local\0file:.git/config\0no newline\0"));
        assert!(risk(b"\xff"));
    }

    #[test]
    fn every_helper_setting_of_the_repository_counts() {
        for key in [
            "diff.external",
            "diff.evil.textconv",
            "diff.evil.command",
            "filter.lfs.clean",
            "filter.x.smudge",
            "filter.x.process",
            "core.fsmonitor",
            "core.pager",
            "core.sshcommand",
            "gpg.program",
            "gpg.ssh.program",
            "remote.origin.uploadpack",
            "credential.helper",
        ] {
            let entry = format!("local\0file:.git/config\0{key}\n./helper.sh\0");
            assert!(risk(entry.as_bytes()), "{key}");
        }
    }

    #[test]
    fn only_the_repositorys_scopes_count_and_booleans_name_no_program() {
        assert!(!risk(
            b"global\0file:/h/.gitconfig\0diff.x.textconv\nhelper\0"
        ));
        assert!(risk(
            b"worktree\0file:.git/config.worktree\0core.fsmonitor\nhook.sh\0"
        ));
        assert!(!risk(b"local\0file:.git/config\0core.fsmonitor\ntrue\0"));
        assert!(!risk(b"local\0file:.git/config\0pager.log\nfalse\0"));
        assert!(risk(b"local\0file:.git/config\0pager.log\nrm -rf .\0"));
        assert!(!risk(b"local\0file:.git/config\0protocol.allow\nuser\0"));
        assert!(risk(
            b"local\0file:.git/config\0protocol.ext.allow\nalways\0"
        ));
        // A later, empty local value clears an earlier one.
        assert!(!risk(
            b"local\0file:.git/config\0diff.external\nhelper\0local\0file:.git/config\0diff.external\n\0"
        ));
        // A submodule's file is read with --file: its scope is `command`.
        let module = GitConfigRisk::from_probe(
            Some(0),
            b"command\0file:m/config\0core.fsmonitor\n./hook\0",
            Scopes::All,
        );
        assert!(module.risk.runs_helper);
    }

    #[test]
    fn the_format_version_names_the_local_configuration_file() {
        let answer = GitConfigRisk::from_probe(
            Some(0),
            b"local\0file:.git/config\0core.repositoryformatversion\n0\0",
            Scopes::Repository,
        );
        assert_eq!(answer.risk, GitConfigRisk::NONE);
        assert_eq!(answer.local_config.as_deref(), Some(".git/config"));
    }
}
