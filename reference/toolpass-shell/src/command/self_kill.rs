//! Whether a command would end the tool layer's own process: Qwen Code's
//! `detectSelfKillCommand` (`packages/core/src/utils/shell-utils.ts`),
//! which refuses `pkill node`, `killall qwen`, `taskkill /im node.exe`,
//! `kill $(pgrep node)` and `pgrep node | xargs kill` before anything runs.
//! Here the names are the running server's own, and the targets a shell
//! can name without knowing them are refused too: `$PPID` (the shell's
//! parent is the server), the server's pid written out, and `-1` (every
//! process the user may signal). A guard against a model's mistake, not a
//! boundary: a line can always reach the server some other way. Pure.

use regex::RegexBuilder;

use super::runs::{self, substitutions};
use super::scan::split_commands;
use super::{assignment_name, strip_windows_extension};

/// The process a command must not end.
#[derive(Clone, Debug)]
pub struct Agent {
    /// Its pid.
    pub pid: u32,
    /// Its names as `pkill`, `killall` and `taskkill` match them: the
    /// executable's file name and the kernel's 15-byte `comm`.
    pub names: Vec<String>,
}

/// `pkill`/`pgrep` options that take a value.
const PKILL_OPTIONS_WITH_VALUES: &[&str] = &[
    "-F",
    "--pidfile",
    "-G",
    "--group",
    "-g",
    "--pgroup",
    "-P",
    "--parent",
    "-s",
    "--session",
    "-t",
    "--terminal",
    "-T",
    "--thread",
    "-U",
    "--uid",
    "-u",
    "--euid",
];
/// `killall` options that take a value.
const KILLALL_OPTIONS_WITH_VALUES: &[&str] = &[
    "-n",
    "--ns",
    "-o",
    "--older-than",
    "-s",
    "--signal",
    "-t",
    "--tty",
    "-u",
    "--user",
    "-y",
    "--younger-than",
    "-Z",
    "--context",
];

/// Whether `command` would signal `agent`.
#[must_use]
pub fn targets_agent(command: &str, agent: &Agent) -> bool {
    if !command.to_ascii_lowercase().contains("kill") {
        return false;
    }
    let segments = split_commands(command).commands;
    segments.iter().enumerate().any(|(index, segment)| {
        let Some(words) = shlex::split(segment) else {
            return false;
        };
        let words = unwrap_prefixes(&words);
        let Some((program, args)) = words.split_first() else {
            return false;
        };
        let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
        match strip_windows_extension(&name.to_ascii_lowercase()) {
            "kill" => kill_targets(args, agent) || pgrep_substitution_targets(segment, agent),
            "pkill" => pkill_targets(args, agent),
            "killall" => operands(args, KILLALL_OPTIONS_WITH_VALUES)
                .any(|name| names_match(name, agent, false)),
            "taskkill" => taskkill_targets(args, agent),
            // `pgrep NAME | xargs kill`: the pids flow to a later kill.
            "pgrep" => {
                pkill_targets(args, agent)
                    && segments[index + 1..].iter().any(|later| xargs_kills(later))
            }
            _ => false,
        }
    })
}

/// The words after leading assignments and the wrappers that run what
/// follows (`sudo`, `env`, `timeout -s KILL 5`, `setsid`, ...), as the
/// allow-list reads them.
fn unwrap_prefixes(words: &[String]) -> &[String] {
    let mut rest = words;
    while let Some((word, after)) = rest.split_first() {
        let bare = word.rsplit('/').next().unwrap_or(word);
        if assignment_name(word).is_some() {
            rest = after;
        } else if runs::is_wrapper(bare) {
            rest = runs::wrapped(bare, after);
        } else {
            break;
        }
    }
    rest
}

/// The operands of a command's arguments: options and the values of
/// `with_values` left out, everything after `--` kept.
fn operands<'a>(
    args: &'a [String],
    with_values: &'a [&'a str],
) -> impl Iterator<Item = &'a str> + 'a {
    let mut skip_next = false;
    let mut rest_are_operands = false;
    args.iter().filter_map(move |arg| {
        if std::mem::take(&mut skip_next) {
            return None;
        }
        if rest_are_operands || !arg.starts_with('-') {
            return Some(arg.as_str());
        }
        if arg == "--" {
            rest_are_operands = true;
        } else if with_values.contains(&arg.as_str()) {
            skip_next = true;
        }
        None
    })
}

/// `kill [-SIGNAL | -s SIGNAL | -n NUMBER] TARGET…`: a target that is the
/// agent's pid, `$PPID`, or `-1`.
fn kill_targets(args: &[String], agent: &Agent) -> bool {
    let mut rest = args;
    match rest.first().map(String::as_str) {
        Some("-s" | "-n") => rest = rest.get(2..).unwrap_or_default(),
        Some("-l" | "-L") => return false,
        Some("--") => rest = &rest[1..],
        Some(signal) if signal.starts_with('-') && signal != "-1" => rest = &rest[1..],
        _ => {}
    }
    let pid = agent.pid.to_string();
    rest.iter().any(|target| {
        let target = target.as_str();
        matches!(target, "$PPID" | "${PPID}" | "-1") || target == pid
    })
}

/// `kill $(pgrep NAME)` or `` kill `pgrep NAME` `` naming the agent.
fn pgrep_substitution_targets(segment: &str, agent: &Agent) -> bool {
    substitutions(segment).into_iter().any(|inner| {
        inner
            .trim()
            .strip_prefix("pgrep")
            .is_some_and(|args| shlex::split(args).is_some_and(|args| pkill_targets(&args, agent)))
    })
}

/// `pkill`/`pgrep` patterns, searched in the agent's names (with `-f`,
/// in its command line, which holds the executable's name).
fn pkill_targets(args: &[String], agent: &Agent) -> bool {
    operands(args, PKILL_OPTIONS_WITH_VALUES).any(|pattern| names_match(pattern, agent, true))
}

/// Whether `pattern` names the agent: as a regular expression searched in
/// a name (`pkill`'s reading), or as the whole name (`killall`'s), case
/// aside.
fn names_match(pattern: &str, agent: &Agent, search: bool) -> bool {
    agent.names.iter().any(|name| {
        if !search {
            return strip_windows_extension(pattern).eq_ignore_ascii_case(name);
        }
        RegexBuilder::new(pattern)
            .case_insensitive(true)
            .size_limit(1 << 20)
            .build()
            .is_ok_and(|regex| regex.is_match(name))
    })
}

/// `taskkill /im NAME` or `/fi "imagename eq NAME"` naming the agent.
fn taskkill_targets(args: &[String], agent: &Agent) -> bool {
    args.iter().enumerate().any(|(at, arg)| {
        let lower = arg.to_ascii_lowercase();
        let image = match lower.as_str() {
            "/im" | "-im" => args.get(at + 1).cloned(),
            "/fi" | "-fi" => args.get(at + 1).and_then(|filter| {
                filter
                    .to_ascii_lowercase()
                    .split_once("imagename eq")
                    .map(|(_, n)| n.trim().to_owned())
            }),
            _ => lower
                .strip_prefix("/im:")
                .or_else(|| lower.strip_prefix("-im:"))
                .map(str::to_owned),
        };
        image.is_some_and(|image| names_match(&image, agent, false))
    })
}

/// Whether a command is `xargs … kill …`.
fn xargs_kills(segment: &str) -> bool {
    let Some(words) = shlex::split(segment) else {
        return false;
    };
    // `kill` behind the wrappers, `xargs` among them.
    let program = unwrap_prefixes(&words);
    let wrappers = &words[..words.len() - program.len()];
    wrappers
        .iter()
        .any(|w| w.rsplit('/').next() == Some("xargs"))
        && program
            .first()
            .is_some_and(|w| w.rsplit('/').next() == Some("kill"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent() -> Agent {
        Agent {
            pid: 4242,
            names: vec!["toolpass-server".to_owned()],
        }
    }

    #[test]
    fn commands_that_end_the_agent_are_found() {
        for command in [
            "kill -9 $PPID",
            "kill ${PPID}",
            "kill -s TERM 4242",
            "kill -- 4242",
            "kill -9 -1",
            "sudo kill 4242",
            "pkill toolpass",
            "pkill -9 -f toolpass-server",
            "pkill -f 'toolpass.*'",
            "killall toolpass-server",
            "killall -s KILL TOOLPASS-SERVER",
            "taskkill /im toolpass-server.exe /f",
            "taskkill /fi \"IMAGENAME eq toolpass-server\"",
            "kill $(pgrep toolpass)",
            "kill -9 `pgrep -f toolpass-server`",
            "pgrep toolpass | xargs kill -9",
            "echo x && pkill -f toolpass",
            // Behind wrappers, their options' values skipped.
            "timeout -s KILL 5 pkill toolpass",
            "nice -n 5 pkill toolpass",
            "setsid pkill toolpass",
            "env -u HOME FOO=1 kill 4242",
            "sudo -u root timeout 3 kill $PPID",
        ] {
            assert!(targets_agent(command, &agent()), "{command}");
        }
    }

    #[test]
    fn other_kills_are_left_alone() {
        for command in [
            "kill 1234",
            "kill -9 $!",
            "kill -l",
            "pkill -f 'node server.js'",
            "killall toolpass",
            "pgrep toolpass",
            "pgrep toolpass | wc -l",
            "pgrep toolpass | kill xargs",
            "echo kill $PPID",
            "ls",
            "taskkill /im node.exe",
        ] {
            assert!(!targets_agent(command, &agent()), "{command}");
        }
    }
}
