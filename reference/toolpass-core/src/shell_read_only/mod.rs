//! Which shell commands only read, so `run_shell_command` may run them
//! without asking: Qwen Code 0.24.4's classifier (`packages/core/src/utils/
//! shellAstParser.ts`: `classifyShellCommandSafety`,
//! `isShellCommandReadOnlyASTInDirectory`; the argument rules of
//! `shell-safety-rules.ts`) on this crate's parse of the command line.
//!
//! A command line is read-only when every command it chains (with `&&`,
//! `||`, `;`, `&`, `|`, `|&`, line breaks) is: a program of Qwen's list
//! (`ls`, `cat`, `grep`, `git`, `find`, `sed`, …) whose arguments pass that
//! program's rule (git's subcommand, find's actions, sed's script, awk's
//! program, …), no environment assignment before it, no redirection that
//! writes, and nothing the shell would run while reading the line (command
//! or process substitution). It is a write when some part surely changes
//! something, unknown otherwise; both ask.
//!
//! Qwen parses with tree-sitter-bash and walks the tree; this module reads
//! lists of simple commands and subshells ([`syntax`]) and calls anything
//! else unknown, which asks where Qwen may not: a group `{ …; }`, a
//! here-document, `if`/`for`/`while`, a substitution (Qwen finds a write
//! inside them, so in plan mode it refuses where this asks). Words are the
//! shell's words after quote removal, where Qwen reads arguments as written
//! with outer quotes stripped; so `find . -del'ete'` is a write here.
//!
//! The directory matters for one thing, the repository's own git
//! configuration ([`GitConfigRisk`]); [`Verdict::in_directory`] applies it.

mod awk;
mod command;
mod find;
mod git;
mod git_config;
mod process;
mod safety;
mod sed;
mod syntax;

#[cfg(test)]
mod tests;

pub use git_config::{GIT_CONFIG_PROBE, GitConfigRisk, HELPER_KEYS, ProbeAnswer, Scopes};
pub use safety::Safety;

/// What the classifier says of a command line, before the directory is
/// looked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The safety by the text alone (Qwen's `classifyShellCommandSafety`).
    pub safety: Safety,
    /// Whether it runs git, and whether after a `cd`/`pushd` (then the
    /// repository is not the directory's).
    git: GitUse,
}

/// Whether the command runs git, whose safety depends on the repository.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct GitUse {
    runs_git: bool,
    after_cd: bool,
}

impl Verdict {
    /// Whether the answer depends on the directory's git configuration:
    /// only then need the caller ask git ([`GIT_CONFIG_PROBE`]).
    #[must_use]
    pub fn needs_git_config(&self) -> bool {
        self.safety == Safety::ReadOnly && !self.git.after_cd && self.git.runs_git
    }

    /// The safety in a directory whose repository configuration is `risk`
    /// (Qwen's `localGitConfigMakesCommandUnsafe`, over every helper
    /// setting and every git command): a read-only git command in a
    /// repository that configures a helper program, or after a `cd`,
    /// becomes unknown.
    #[must_use]
    pub fn in_directory(&self, risk: GitConfigRisk) -> Safety {
        if self.safety != Safety::ReadOnly {
            return self.safety;
        }
        let runs_a_helper = self.git.after_cd || (self.git.runs_git && risk.runs_helper);
        self.safety.doubted_if(runs_a_helper)
    }

    /// Whether the command may run without asking, its directory's
    /// configuration being `risk` (Qwen's `isShellCommandReadOnlyASTInDirectory`).
    #[must_use]
    pub fn is_read_only(&self, risk: GitConfigRisk) -> bool {
        self.in_directory(risk) == Safety::ReadOnly
    }
}

/// Classifies a command line by its text.
#[must_use]
pub fn classify(command: &str) -> Verdict {
    let verdict = classify_text(command);
    // A backslash-newline joins lines; Qwen judges the joined text too and
    // keeps "read-only" only when both agree (a `$\` newline `(` inside
    // double quotes is a substitution once joined).
    if verdict.safety == Safety::ReadOnly && command.contains("\\\n") {
        let joined = classify_text(&command.replace("\\\n", ""));
        if joined.safety != Safety::ReadOnly {
            return Verdict {
                safety: Safety::Unknown,
                ..verdict
            };
        }
    }
    verdict
}

fn classify_text(command: &str) -> Verdict {
    let unknown = Verdict {
        safety: Safety::Unknown,
        git: GitUse::default(),
    };
    if command.trim().is_empty() {
        return unknown;
    }
    let Ok(commands) = syntax::parse(command) else {
        return unknown;
    };
    // tree-sitter-bash reads a redirection after bare assignments
    // (`FOO=1 > out`) as a syntax error, which makes Qwen's whole line
    // unknown, whatever else it holds.
    if commands.iter().any(command::assignments_redirected) {
        return unknown;
    }
    let alone = commands.len() == 1;
    let safety = Safety::all(commands.iter().map(|c| command::safety(c, alone)));
    Verdict {
        safety,
        git: git_use(&commands),
    }
}

/// Qwen's walk for `localGitConfigMakesCommandUnsafe`, over every git
/// command (Qwen looks at `git diff` and `git status` only; `git show`,
/// `git log -p`, `git blame` run a diff driver's helpers as well): whether
/// git runs, and whether a `cd` or `pushd` came before it.
fn git_use(commands: &[syntax::Command]) -> GitUse {
    let mut used = GitUse::default();
    let mut changed_directory = false;
    for c in commands {
        let Some(program) = command::program(c) else {
            continue;
        };
        let name = program.value.to_lowercase();
        if name == "cd" || name == "pushd" {
            changed_directory = true;
            continue;
        }
        if name != "git" {
            continue;
        }
        used.runs_git = true;
        used.after_cd |= changed_directory;
    }
    used
}
