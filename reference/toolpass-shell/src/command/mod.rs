//! What Qwen Code reads from a command line before and after running it
//! (`packages/core/src/tools/shell.ts` and `utils/shell-utils.ts`): the
//! commands it chains (`splitCommands`), each one's program
//! (`getCommandRoot`), whether an exit code is a failure
//! (`isShellExitError`), the standalone `sleep` it refuses
//! (`detectBlockedSleepPatternDetails`) and the bare trailing `&` of a
//! background command (`hasTopLevelTrailingBackgroundOperator`). Pure.
//!
//! Qwen scans the text with hand-written quote tracking; [`scan`] is that
//! tracking once, shared by every question here, and a segment is split
//! into words by `shlex` (POSIX quoting, no expansion), where Qwen calls
//! `shell-quote`.

mod runs;
mod scan;
mod self_kill;
mod sleep;

pub use runs::{Runs, runs};
pub use scan::{Segments, split_commands};
pub use self_kill::{Agent, targets_agent};
pub use sleep::blocked_sleep;

use scan::{TopLevel, comment_start};

/// Qwen's `EXIT_ONE_IS_NOT_ERROR_COMMANDS`: programs whose exit code 1 is
/// an answer ("no match", "differs", "false"), not a failure.
pub const EXIT_ONE_IS_AN_ANSWER: &[&str] = &["grep", "rg", "diff", "test", "[", "[["];

/// Qwen's `GIT_ENV_SHIFTS_REPO`: assignments that make the program's exit
/// status unattributable (Qwen then calls any non-zero code a failure).
const GIT_ENV_SHIFTS_REPO: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
];

/// `sudo` flags that take a value (`SUDO_FLAGS_WITH_VALUE`).
const SUDO_FLAGS_WITH_VALUE: &[&str] = &[
    "-u", "-g", "-h", "-D", "-r", "-t", "-C", "--user", "--group", "--host", "--chdir", "--role",
    "--type",
];
/// `env` flags that take a value (`ENV_FLAGS_WITH_VALUE`).
const ENV_FLAGS_WITH_VALUE: &[&str] = &["-u", "--unset", "-S", "--split-string"];

/// The program a command runs, Qwen's `getCommandRoot`: the first word
/// after `NAME=value` assignments, without its directory. `None` for an
/// empty command.
#[must_use]
pub fn command_root(command: &str) -> Option<String> {
    let command = command.trim();
    if command.is_empty() {
        return None;
    }
    let first = match shlex::split(command) {
        Some(words) => words.into_iter().find(|w| assignment_name(w).is_none())?,
        // Qwen's fallback when its parser throws: the first quoted or bare
        // word as written.
        None => first_word_as_written(command)?,
    };
    first.rsplit(['/', '\\']).next().map(str::to_owned)
}

/// The program of every command `command` chains, Qwen's
/// `getCommandRoots`, each once, in order.
#[must_use]
pub fn command_roots(command: &str) -> Vec<String> {
    let mut roots: Vec<String> = Vec::new();
    for segment in split_commands(command).commands {
        if let Some(root) = command_root(&segment)
            && !roots.contains(&root)
        {
            roots.push(root);
        }
    }
    roots
}

/// Qwen's `isShellExitError`: whether `exit_code` makes the call a failure.
/// 0 never does, 2 and above always do; 1 does unless the command whose
/// status the shell returns (the only command, or the last of a plain
/// pipeline) is one of [`EXIT_ONE_IS_AN_ANSWER`].
#[must_use]
pub fn is_exit_error(command: &str, exit_code: Option<i32>) -> bool {
    match exit_code {
        None | Some(0) => false,
        Some(1) => {
            let segments = split_commands(command);
            let status_segment = match segments.commands.len() {
                1 => segments.commands.last(),
                _ if segments.only_pipes() => segments.commands.last(),
                _ => None,
            };
            !status_segment
                .and_then(|segment| program(segment))
                .is_some_and(|name| EXIT_ONE_IS_AN_ANSWER.contains(&name.as_str()))
        }
        Some(_) => true,
    }
}

/// Qwen's `hasTopLevelTrailingBackgroundOperator`: whether `command`, its
/// trailing comment set aside, ends in a bare `&` (not `&&`, `|&`, `\&` or
/// one inside quotes or a command substitution).
#[must_use]
pub fn ends_in_bare_ampersand(command: &str) -> bool {
    let command = match comment_start(command) {
        Some(at) => &command[..at],
        None => command,
    };
    let trimmed = command.trim_end();
    let Some(before) = trimmed.strip_suffix('&') else {
        return false;
    };
    if matches!(before.trim_end().chars().last(), Some('&' | '|' | '\\')) {
        return false;
    }
    let last = before.len();
    TopLevel::new(trimmed).any(|(at, _)| at == last)
}

/// The program of one command (a segment of [`split_commands`]), as Qwen's
/// `tokeniseSegment` finds it for the exit-status rule: assignments,
/// `sudo`, `command` and `env` with their flags skipped; `None` when an
/// assignment or flag moves the repository or directory, or the words do
/// not split.
fn program(segment: &str) -> Option<String> {
    let words = shlex::split(segment)?;
    let mut rest = words.as_slice();
    rest = skip_assignments(rest)?;
    if let Some((wrapper, after)) = rest.split_first()
        && matches!(wrapper.as_str(), "sudo" | "command" | "env")
    {
        rest = after;
        while let Some((flag, after)) = rest.split_first()
            && flag.starts_with('-')
        {
            rest = after;
            let shifts_cwd = match wrapper.as_str() {
                "env" => shifts_cwd(flag, &["-C", "--chdir"]),
                "sudo" => shifts_cwd(flag, &["-D", "--chdir"]),
                _ => false,
            };
            if shifts_cwd {
                return None;
            }
            let takes_value = match wrapper.as_str() {
                "sudo" => SUDO_FLAGS_WITH_VALUE.contains(&flag.as_str()),
                "env" => ENV_FLAGS_WITH_VALUE.contains(&flag.as_str()),
                _ => false,
            };
            if takes_value && let Some((_, after)) = rest.split_first() {
                rest = after;
            }
        }
        if wrapper == "env" {
            rest = skip_assignments(rest)?;
        }
    }
    let executable = rest.first()?;
    let name = executable.rsplit(['/', '\\']).next()?;
    Some(strip_windows_extension(name).to_owned())
}

/// The words after the leading assignments; `None` when one of them moves
/// git's repository.
fn skip_assignments(words: &[String]) -> Option<&[String]> {
    let mut rest = words;
    while let Some((word, after)) = rest.split_first() {
        let Some(name) = assignment_name(word) else {
            break;
        };
        if GIT_ENV_SHIFTS_REPO.contains(&name) {
            return None;
        }
        rest = after;
    }
    Some(rest)
}

/// Qwen's `isShiftCwdFlag`: the flag itself, `--flag=…`, or `-Xvalue`.
fn shifts_cwd(flag: &str, set: &[&str]) -> bool {
    set.iter().any(|&f| {
        flag == f
            || (f.starts_with("--") && flag.starts_with(&format!("{f}=")))
            || (f.len() == 2 && flag.len() > 2 && flag.starts_with(f))
    })
}

/// `NAME` of a `NAME=value` word (`^[A-Za-z_][A-Za-z0-9_]*=`).
fn assignment_name(word: &str) -> Option<&str> {
    let (name, _) = word.split_once('=')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    let valid = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some(name)
}

/// `.exe`, `.cmd` or `.bat` removed, in any case.
fn strip_windows_extension(name: &str) -> &str {
    for extension in [".exe", ".cmd", ".bat"] {
        if name.len() > extension.len() {
            let (stem, tail) = name.split_at(name.len() - extension.len());
            if tail.eq_ignore_ascii_case(extension) {
                return stem;
            }
        }
    }
    name
}

/// Qwen's fallback `^"([^"]+)"|^'([^']+)'|^(\S+)`.
fn first_word_as_written(command: &str) -> Option<String> {
    for quote in ['"', '\''] {
        if let Some(rest) = command.strip_prefix(quote)
            && let Some(end) = rest.find(quote)
            && end > 0
        {
            return Some(rest[..end].to_owned());
        }
    }
    command.split_whitespace().next().map(str::to_owned)
}

#[cfg(test)]
mod tests;
