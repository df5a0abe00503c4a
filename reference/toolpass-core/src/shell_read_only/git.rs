//! `git` judged as Qwen Code 0.24.4's `evaluateGitSafety` judges it
//! (`packages/core/src/utils/shellAstParser.ts`): a read-only subcommand
//! is read-only unless an option writes a file or runs a helper program;
//! a writing subcommand is a write unless it only prints help or is a dry
//! run; `branch` and `remote` by their action.

use super::safety::{Safety, before_terminator, has_help, output_option, without_option_values};

/// Qwen's `READ_ONLY_GIT_SUBCOMMANDS`.
const READ_ONLY: &[&str] = &[
    "blame",
    "branch",
    "cat-file",
    "diff",
    "grep",
    "log",
    "ls-files",
    "remote",
    "rev-parse",
    "show",
    "status",
    "describe",
];

/// Qwen's `WRITE_GIT_SUBCOMMAND`.
const WRITING: &[&str] = &[
    "add",
    "am",
    "checkout",
    "cherry-pick",
    "clean",
    "clone",
    "commit",
    "fetch",
    "gc",
    "init",
    "merge",
    "mv",
    "pull",
    "push",
    "rebase",
    "reset",
    "restore",
    "revert",
    "rm",
    "stash",
    "switch",
];

/// Qwen's `WRITE_GIT_REMOTE_ACTION`.
const WRITING_REMOTE_ACTIONS: &[&str] = &[
    "add",
    "remove",
    "rm",
    "rename",
    "set-branches",
    "set-head",
    "set-url",
    "update",
];

/// `commit` options that take the next word as their value
/// (`GIT_COMMIT_VALUE_OPTION`), so `-m --help` is a message.
const COMMIT_VALUE_OPTIONS: &[&str] = &[
    "-C",
    "-c",
    "-F",
    "-m",
    "-t",
    "--author",
    "--cleanup",
    "--date",
    "--file",
    "--fixup",
    "--message",
    "--pathspec-from-file",
    "--reedit-message",
    "--reuse-message",
    "--squash",
    "--template",
    "--trailer",
];

/// The safety of `git ARGS`.
pub(super) fn safety(args: &[String]) -> Safety {
    let Some((first, rest)) = args.split_first() else {
        return Safety::ReadOnly;
    };
    match first.as_str() {
        "--version" => return Safety::ReadOnly,
        "--help" if rest.is_empty() => return Safety::ReadOnly,
        // `-c`, `--config-env`, `-C`, `--paginate`: the repository, pager or
        // configuration may change under the subcommand.
        f if f.starts_with('-') => return Safety::Unknown,
        _ => {}
    }
    let subcommand = first.to_lowercase();
    let options = before_terminator(rest);
    let invokes_helper = options.iter().any(|a| external_helper_option(a))
        || (subcommand == "grep" && options.iter().any(|a| a.starts_with("-O")))
        || (matches!(subcommand.as_str(), "log" | "show")
            && options.iter().any(|a| verifies_signature(a)));
    if WRITING.contains(&subcommand.as_str()) {
        return writing_subcommand(&subcommand, rest);
    }
    if !READ_ONLY.contains(&subcommand.as_str()) {
        return Safety::Unknown;
    }
    if matches!(subcommand.as_str(), "diff" | "log" | "show")
        && let Some(output) = output_option(rest, true, false)
    {
        return output;
    }
    if subcommand == "blame" && options.iter().any(|a| long_option(a, "--output")) {
        return Safety::Unknown;
    }
    if subcommand != "branch" && has_help(rest, &[]) {
        return Safety::Unknown;
    }
    match subcommand.as_str() {
        "remote" => remote(rest, invokes_helper),
        "branch" => branch(rest, invokes_helper),
        _ if invokes_helper => Safety::Unknown,
        _ => Safety::ReadOnly,
    }
}

/// A writing subcommand: a write, unless it prints help or is a dry run.
fn writing_subcommand(subcommand: &str, rest: &[String]) -> Safety {
    let effective = if subcommand == "commit" {
        without_option_values(rest, |a| COMMIT_VALUE_OPTIONS.contains(&a))
    } else {
        rest.to_vec()
    };
    let options = before_terminator(&effective);
    let dry_run = options.iter().any(|a| a == "--dry-run")
        || (options.iter().any(|a| a == "-n")
            && matches!(subcommand, "add" | "clean" | "mv" | "push" | "rm"));
    if has_help(&effective, &[]) || dry_run {
        Safety::Unknown
    } else {
        Safety::Write
    }
}

/// `git remote`: listing and `show`/`get-url` read; the other actions write.
fn remote(rest: &[String], invokes_helper: bool) -> Safety {
    let Some(action) = rest
        .iter()
        .find(|a| !a.starts_with('-'))
        .map(|a| a.to_lowercase())
    else {
        return if invokes_helper {
            Safety::Unknown
        } else {
            Safety::ReadOnly
        };
    };
    match action.as_str() {
        "show" | "get-url" => {
            let names_an_action = rest.iter().any(|a| {
                let a = a.to_lowercase();
                WRITING_REMOTE_ACTIONS.contains(&a.as_str()) || a == "prune"
            });
            if names_an_action || invokes_helper {
                Safety::Unknown
            } else {
                Safety::ReadOnly
            }
        }
        a if WRITING_REMOTE_ACTIONS.contains(&a) => Safety::Write,
        "prune" if rest.iter().any(|a| a == "-n" || a == "--dry-run") => Safety::Unknown,
        "prune" => Safety::Write,
        _ => Safety::Unknown,
    }
}

/// `git branch`: listing reads; a name or a delete/move/copy flag writes.
fn branch(rest: &[String], invokes_helper: bool) -> Safety {
    let actions = without_option_values(rest, |a| a == "--format" || a == "--sort");
    let action_options = before_terminator(&actions);
    if has_help(&actions, &[]) {
        return Safety::Unknown;
    }
    if actions.iter().any(|a| branch_writing_flag(a)) {
        return if action_options.iter().any(|a| branch_writing_flag(a)) {
            Safety::Write
        } else {
            Safety::Unknown
        };
    }
    if actions.len() != rest.len() {
        return Safety::Unknown;
    }
    if action_options.iter().any(|a| branch_listing_flag(a)) {
        return Safety::ReadOnly;
    }
    if rest.iter().any(|a| !a.starts_with('-')) {
        return Safety::Write;
    }
    if rest.iter().any(|a| a == "--") || invokes_helper || !rest.is_empty() {
        return Safety::Unknown;
    }
    Safety::ReadOnly
}

/// `--name` alone or `--name=…`.
fn long_option(arg: &str, name: &str) -> bool {
    arg.strip_prefix(name)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('='))
}

/// Qwen's `GIT_EXTERNAL_HELPER_OPTION`: options that run a configured
/// program (a diff driver, a filter, gpg, a pager).
fn external_helper_option(arg: &str) -> bool {
    [
        "--ext-diff",
        "--filters",
        "--show-signature",
        "--textconv",
        "--open-files-in-pager",
    ]
    .iter()
    .any(|name| long_option(arg, name))
}

/// A format with `%G?`, `%GG`, `%GK`, …: signature checks run gpg.
fn verifies_signature(arg: &str) -> bool {
    arg.match_indices("%G").any(|(at, _)| {
        arg.get(at + 2..)
            .and_then(|r| r.chars().next())
            .is_some_and(|c| "?GKFPST".contains(c))
    })
}

/// Qwen's `WRITE_GIT_BRANCH_FLAG`.
fn branch_writing_flag(arg: &str) -> bool {
    let short = arg
        .strip_prefix('-')
        .and_then(|rest| rest.chars().next())
        .is_some_and(|c| "cCdDmMu".contains(c));
    let long = [
        "--delete",
        "--move",
        "--copy",
        "--set-upstream-to",
        "--set-upstream",
        "--unset-upstream",
        "--create-reflog",
        "--edit-description",
    ]
    .iter()
    .any(|name| long_option(arg, name));
    short || long
}

/// Qwen's `GIT_BRANCH_LIST_FLAG`.
fn branch_listing_flag(arg: &str) -> bool {
    [
        "-a",
        "-l",
        "-r",
        "--all",
        "--list",
        "--remotes",
        "--show-current",
        "--contains",
        "--no-contains",
        "--merged",
        "--no-merged",
        "--points-at",
    ]
    .iter()
    .any(|name| long_option(arg, name))
}
