//! Which commands run without asking, and which of a compound command's
//! parts the user is asked about: Qwen Code 0.24.4's `ShellToolInvocation`
//! (`getDefaultPermission`, `getConfirmationDetails` in `tools/shell.ts`)
//! over [`toolpass_core::shell_read_only`], with the one input that needs
//! the file system, the repository's own git configuration, read here as
//! Qwen's `getLocalGitConfigRisk` reads it: by asking git, for at most a
//! second, only when the command runs `git diff` or `git status`.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use toolpass_core::shell_read_only::{GIT_CONFIG_PROBE, GitConfigRisk, Safety, classify};

use crate::tools::exec_file::exec_file;

/// How long git may take to answer (Qwen's `timeout: 1e3`).
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);
/// The most output read from git (Qwen's `maxBuffer: 64 * 1024`).
const PROBE_MAX_OUTPUT: usize = 64 * 1024;

/// Judges commands that run in one directory, asking git at most once.
pub(super) struct Judge {
    directory: PathBuf,
    risk: OnceCell<GitConfigRisk>,
}

impl Judge {
    pub(super) fn new(directory: &Path) -> Self {
        Self {
            directory: directory.to_owned(),
            risk: OnceCell::new(),
        }
    }

    /// The safety of `command` run in this directory (Qwen's
    /// `classifyShellCommandSafetyInDirectory`).
    pub(super) fn safety(&self, command: &str) -> Safety {
        let verdict = classify(command);
        let risk = if verdict.needs_git_config() {
            *self
                .risk
                .get_or_init(|| local_git_config_risk(&self.directory))
        } else {
            GitConfigRisk::NONE
        };
        verdict.in_directory(risk)
    }
}

/// What the repository at `directory` configures `git diff` and `git
/// status` to run, as git itself reads its configuration (includes,
/// worktree settings, precedence). A directory that is none is no risk; a
/// git that fails, is missing or is slow is assumed to be one.
fn local_git_config_risk(directory: &Path) -> GitConfigRisk {
    if !directory.is_dir() {
        return GitConfigRisk::NONE;
    }
    let mut git = Command::new("git");
    git.arg("-C").arg(directory).args(GIT_CONFIG_PROBE);
    match exec_file(git, None, PROBE_TIMEOUT, PROBE_MAX_OUTPUT) {
        Some(run) if !run.timed_out && !run.max_buffer_exceeded => {
            GitConfigRisk::from_probe(run.code, &run.stdout)
        }
        // Not started, too slow or too much: the worst is assumed.
        _ => GitConfigRisk::UNKNOWN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Stdio;

    fn git(dir: &Path, args: &[&str]) -> bool {
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    #[test]
    fn a_directory_that_is_no_repository_is_no_risk() {
        let dir = tempfile::tempdir().unwrap();
        // git answers 1 (no such key) or 128 (not a repository): Qwen reads
        // a failure as a risk, so only a real "not set" is none.
        let risk = local_git_config_risk(dir.path());
        assert!(risk == GitConfigRisk::NONE || risk == GitConfigRisk::UNKNOWN);
        assert_eq!(
            local_git_config_risk(&dir.path().join("missing")),
            GitConfigRisk::NONE
        );
    }

    /// A judge of `dir` after `git config ARGS` there (a fresh one: a
    /// judge asks git once).
    fn configured(dir: &Path, args: &[&str]) -> Judge {
        let mut config = vec!["config"];
        config.extend_from_slice(args);
        assert!(git(dir, &config), "git {config:?}");
        Judge::new(dir)
    }

    #[test]
    fn a_local_diff_external_makes_git_diff_ask_and_leaves_git_status() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        if !git(dir, &["init", "-q"]) {
            eprintln!("git is not available; skipped");
            return;
        }
        assert_eq!(Judge::new(dir).safety("git diff"), Safety::ReadOnly);
        let judge = configured(dir, &["diff.external", "example-external-diff"]);
        assert_eq!(judge.safety("git diff"), Safety::Unknown);
        assert_eq!(judge.safety("git status"), Safety::ReadOnly);
        configured(dir, &["--unset", "diff.external"]);
        let judge = configured(dir, &["core.fsmonitor", "example-fsmonitor"]);
        assert_eq!(judge.safety("git status"), Safety::Unknown);
        assert_eq!(judge.safety("git diff"), Safety::ReadOnly);
        let judge = configured(dir, &["core.fsmonitor", "false"]);
        assert_eq!(judge.safety("git status"), Safety::ReadOnly);
    }
}
