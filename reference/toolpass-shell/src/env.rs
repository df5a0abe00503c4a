//! The command line and environment a command runs with, as Qwen Code sets
//! them (`childProcessFallback` and `executeWithPty` in
//! `services/shellExecutionService.ts`, `getShellConfiguration` in
//! `utils/shell-utils.ts`, `getShellPagerEnv` in `utils/shell-pager-env.ts`,
//! `getShellContextEnvVars` in `services/shellContextEnv.ts`,
//! `sanitizeChildEnv` in `utils/sanitize-child-env.ts`).

use std::ffi::{OsStr, OsString};
use std::path::Path;

/// The shell Qwen runs on Linux: `bash -c <command>`.
pub const SHELL: &str = "bash";
/// Its arguments before the command.
pub const SHELL_ARGS: &[&str] = &["-c"];

/// Variables Qwen removes from the environment it passes on
/// (`INTERNAL_SECRET_ENV_VARS`), compared without case.
pub const SECRET_VARIABLES: &[&str] = &[
    "QWEN_SERVER_TOKEN",
    "QWEN_DAEMON_TOKEN",
    "QWEN_CODE_EXTERNAL_TOOL_GUARD_TOKEN",
    "QWEN_CODE_PRIVATE_ACP_CAPABILITY",
];

/// Qwen's default pager off Windows (`getDefaultShellPager`).
pub const DEFAULT_PAGER: &str = "cat";

/// Context variables Qwen always sets, empty when it has no value
/// (`QWEN_CODE_MODEL_IDENTITY`, `QWEN_CODE_AGENT_ID`, `QWEN_CODE_PROMPT_ID`).
pub const ALWAYS_SET_CONTEXT: &[&str] = &[
    "QWEN_CODE_MODEL_IDENTITY",
    "QWEN_CODE_AGENT_ID",
    "QWEN_CODE_PROMPT_ID",
];

/// How the command's output is connected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Connection {
    /// A pseudo-terminal (Qwen's node-pty path).
    Pty,
    /// Plain pipes for stdout and stderr, stdin from /dev/null (Qwen's
    /// `child_process` fallback).
    Pipes,
}

/// The environment for a command run on `connection` in `directory`:
/// `inherited` without Qwen's secrets, then `QWEN_CODE=1`, `TERM`, the
/// pager, the context variables (`context`, e.g. `QWEN_CODE_SESSION_ID`,
/// and the always-set ones), and the family mark last.
///
/// `TERM` is `xterm-256color` on pipes; on a pty node-pty overrides it with
/// the terminal's name, which Qwen passes as `xterm`, and sets `PWD` to the
/// directory. `GIT_PAGER` is set on a pty only (`includeGitPager`).
#[must_use]
pub fn environment(
    inherited: impl IntoIterator<Item = (OsString, OsString)>,
    connection: Connection,
    directory: &Path,
    context: &[(&str, &str)],
    mark: (&str, &str),
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = inherited
        .into_iter()
        .filter(|(name, _)| !is_secret(name))
        .collect();
    let mut set = |name: &str, value: &OsStr| {
        env.retain(|(n, _)| n != name);
        env.push((name.into(), value.to_owned()));
    };
    set("QWEN_CODE", OsStr::new("1"));
    set("TERM", OsStr::new("xterm-256color"));
    set("PAGER", OsStr::new(DEFAULT_PAGER));
    if connection == Connection::Pty {
        set("GIT_PAGER", OsStr::new(DEFAULT_PAGER));
    }
    for name in ALWAYS_SET_CONTEXT {
        set(name, OsStr::new(""));
    }
    for (name, value) in context {
        set(name, OsStr::new(value));
    }
    if connection == Connection::Pty {
        set("TERM", OsStr::new("xterm"));
        set("PWD", directory.as_os_str());
    }
    set(mark.0, OsStr::new(mark.1));
    env
}

fn is_secret(name: &OsStr) -> bool {
    name.to_str().is_some_and(|name| {
        SECRET_VARIABLES
            .iter()
            .any(|s| s.eq_ignore_ascii_case(name))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<'a>(env: &'a [(OsString, OsString)], name: &str) -> Option<&'a OsStr> {
        env.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_os_str())
    }

    fn build(connection: Connection) -> Vec<(OsString, OsString)> {
        let inherited = [
            ("PATH", "/bin"),
            ("qwen_server_token", "secret"),
            ("TERM", "dumb"),
            ("PAGER", "less"),
        ]
        .map(|(n, v)| (OsString::from(n), OsString::from(v)));
        environment(
            inherited,
            connection,
            Path::new("/work/dir"),
            &[("QWEN_CODE_SESSION_ID", "s1")],
            ("MARK", "m"),
        )
    }

    #[test]
    fn pipes_get_qwens_variables_without_its_secrets() {
        let env = build(Connection::Pipes);
        assert_eq!(get(&env, "PATH"), Some(OsStr::new("/bin")));
        assert_eq!(get(&env, "qwen_server_token"), None);
        assert_eq!(get(&env, "QWEN_CODE"), Some(OsStr::new("1")));
        assert_eq!(get(&env, "TERM"), Some(OsStr::new("xterm-256color")));
        assert_eq!(get(&env, "PAGER"), Some(OsStr::new("cat")));
        assert_eq!(get(&env, "GIT_PAGER"), None);
        assert_eq!(get(&env, "QWEN_CODE_AGENT_ID"), Some(OsStr::new("")));
        assert_eq!(get(&env, "QWEN_CODE_SESSION_ID"), Some(OsStr::new("s1")));
        assert_eq!(get(&env, "MARK"), Some(OsStr::new("m")));
    }

    #[test]
    fn a_pty_gets_the_terminal_name_the_git_pager_and_pwd() {
        let env = build(Connection::Pty);
        assert_eq!(get(&env, "TERM"), Some(OsStr::new("xterm")));
        assert_eq!(get(&env, "GIT_PAGER"), Some(OsStr::new("cat")));
        assert_eq!(get(&env, "PWD"), Some(OsStr::new("/work/dir")));
    }
}
