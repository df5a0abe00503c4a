//! Which commands run without asking, and which of a compound command's
//! parts the user is asked about: Qwen Code 0.24.4's `ShellToolInvocation`
//! (`getDefaultPermission`, `getConfirmationDetails` in `tools/shell.ts`)
//! over [`toolpass_core::shell_read_only`], with the one input that needs
//! the file system, the repository's own git configuration, read here as
//! Qwen's `getLocalGitConfigRisk` reads it: by asking git, for at most a
//! second a question, only when the command runs git; for every helper
//! setting, and in each submodule's configuration as well
//! ([`toolpass_core::shell_read_only::HELPER_KEYS`]).

use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use toolpass_core::shell_read_only::{
    GIT_CONFIG_PROBE, GitConfigRisk, ProbeAnswer, Safety, Scopes, classify,
};

use crate::tools::exec_file::exec_file;

/// How long git may take to answer (Qwen's `timeout: 1e3`).
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);
/// The most output read from git (Qwen's `maxBuffer: 64 * 1024`).
const PROBE_MAX_OUTPUT: usize = 64 * 1024;
/// The most submodule configurations read; a repository with more is
/// assumed to configure a helper (the question must stay quick).
const MAX_MODULES: usize = 32;
/// How many directories deep under `modules` configurations are looked
/// for (a name's `/` and a submodule's own submodules each add one).
const MAX_MODULE_DEPTH: usize = 8;

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

/// Whether the repository at `directory`, or one of its submodules,
/// configures a program some git command runs, as git itself reads its
/// configuration (includes, worktree settings, precedence). A directory
/// that is none is no risk; a git that fails, is missing or is slow is
/// assumed to be one.
fn local_git_config_risk(directory: &Path) -> GitConfigRisk {
    if !directory.is_dir() {
        return GitConfigRisk::NONE;
    }
    let answer = probe(directory, None, Scopes::Repository);
    if answer.risk.runs_helper {
        return answer.risk;
    }
    let Some(local_config) = answer.local_config.as_deref() else {
        return answer.risk;
    };
    // `git status` and `git diff` run in each submodule too, under its
    // own configuration: `<git dir>/modules/<name>/config`.
    let git_dir = directory.join(local_config);
    let Some(modules) = git_dir.parent().map(|d| d.join("modules")) else {
        return answer.risk;
    };
    let mut configs = Vec::new();
    if !module_configs(&modules, MAX_MODULE_DEPTH, &mut configs) {
        return GitConfigRisk::UNKNOWN;
    }
    GitConfigRisk {
        runs_helper: configs
            .iter()
            .any(|config| probe(directory, Some(config), Scopes::All).risk.runs_helper),
    }
}

/// Runs `git -C DIRECTORY config [--file FILE]` with [`GIT_CONFIG_PROBE`];
/// a git that cannot start, is slow or says too much is assumed to
/// configure a helper.
fn probe(directory: &Path, file: Option<&Path>, scopes: Scopes) -> ProbeAnswer {
    let mut git = Command::new("git");
    git.arg("-C").arg(directory).arg("config");
    if let Some(file) = file {
        git.arg("--file").arg(file);
    }
    git.args(GIT_CONFIG_PROBE);
    match exec_file(git, None, PROBE_TIMEOUT, PROBE_MAX_OUTPUT) {
        Some(run) if !run.timed_out && !run.max_buffer_exceeded => {
            GitConfigRisk::from_probe(run.code, &run.stdout, scopes)
        }
        _ => ProbeAnswer::FAILED,
    }
}

/// Adds the `config` files of the submodules under `modules` (and of
/// theirs) to `found`, without following symbolic links; false when there
/// are more than [`MAX_MODULES`], or deeper than `depth` directories. A
/// directory with a `config` is a submodule's git directory, its own
/// submodules under its `modules`; one without is part of a name with a
/// `/` (`modules/lib/a/config`).
fn module_configs(modules: &Path, depth: usize, found: &mut Vec<PathBuf>) -> bool {
    let Ok(entries) = std::fs::read_dir(modules) else {
        return true;
    };
    for entry in entries.flatten() {
        if !entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            continue;
        }
        if depth == 0 {
            return false;
        }
        let directory = entry.path();
        let config = directory.join("config");
        let below = if config.is_file() {
            found.push(config);
            directory.join("modules")
        } else {
            directory
        };
        if found.len() > MAX_MODULES || !module_configs(&below, depth - 1, found) {
            return false;
        }
    }
    true
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

    /// A fresh repository in a temporary directory, `None` without git.
    fn repository() -> Option<tempfile::TempDir> {
        let dir = tempfile::tempdir().unwrap();
        if git(dir.path(), &["init", "-q"]) {
            Some(dir)
        } else {
            eprintln!("git is not available; skipped");
            None
        }
    }

    #[test]
    fn any_helper_the_repository_configures_makes_every_git_command_ask() {
        let Some(dir) = repository() else { return };
        let dir = dir.path();
        assert_eq!(Judge::new(dir).safety("git show HEAD"), Safety::ReadOnly);
        for (key, value) in [
            ("diff.external", "example-external-diff"),
            ("diff.evil.textconv", "./ran.sh"),
            ("filter.evil.clean", "./ran.sh"),
            ("core.fsmonitor", "./ran.sh"),
            ("gpg.program", "./ran.sh"),
            ("core.sshCommand", "./ran.sh"),
            ("remote.origin.uploadpack", "./ran.sh"),
        ] {
            let judge = configured(dir, &[key, value]);
            for command in ["git show HEAD", "git log -p", "git blame a", "git status"] {
                assert_eq!(judge.safety(command), Safety::Unknown, "{key} {command}");
            }
            assert_eq!(judge.safety("ls"), Safety::ReadOnly);
            configured(dir, &["--unset", key]);
        }
        let judge = configured(dir, &["core.fsmonitor", "false"]);
        assert_eq!(judge.safety("git status"), Safety::ReadOnly);
    }

    #[test]
    fn an_included_file_and_a_submodules_configuration_count() {
        let Some(dir) = repository() else { return };
        let dir = dir.path();
        std::fs::write(
            dir.join("evil.cfg"),
            "[diff \"x\"]\n\ttextconv = ./ran.sh\n",
        )
        .unwrap();
        let judge = configured(dir, &["include.path", "../evil.cfg"]);
        assert_eq!(judge.safety("git log -p"), Safety::Unknown);
        configured(dir, &["--unset", "include.path"]);
        assert_eq!(Judge::new(dir).safety("git log -p"), Safety::ReadOnly);

        // A submodule whose name has a slash, its git directory where
        // `git submodule add` puts it.
        let module = dir.join(".git/modules/lib/a");
        std::fs::create_dir_all(&module).unwrap();
        std::fs::write(module.join("config"), "[core]\n\tfsmonitor = ../ran.sh\n").unwrap();
        assert_eq!(Judge::new(dir).safety("git status"), Safety::Unknown);
        std::fs::write(module.join("config"), "[core]\n\tbare = false\n").unwrap();
        assert_eq!(Judge::new(dir).safety("git status"), Safety::ReadOnly);
    }

    #[test]
    fn too_many_submodules_are_assumed_to_configure_a_helper() {
        let Some(dir) = repository() else { return };
        let dir = dir.path();
        for n in 0..=MAX_MODULES {
            let module = dir.join(format!(".git/modules/m{n}"));
            std::fs::create_dir_all(&module).unwrap();
            std::fs::write(module.join("config"), "[core]\n").unwrap();
        }
        assert_eq!(Judge::new(dir).safety("git status"), Safety::Unknown);
    }
}
