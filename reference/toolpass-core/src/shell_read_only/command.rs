//! One simple command judged as Qwen Code 0.24.4's `evaluateCommandSafety`
//! judges it (`packages/core/src/utils/shellAstParser.ts`): by its program,
//! its arguments and its redirections.

use super::process::process_safety;
use super::safety::{Safety, WRITING_PROGRAMS, before_terminator, has_help, output_option};
use super::syntax::{Command, Redirect, Word};
use super::{awk, find, git, sed};

/// Qwen's `READ_ONLY_ROOT_COMMANDS`.
const READ_ONLY_PROGRAMS: &[&str] = &[
    "awk", "basename", "cat", "cd", "column", "cut", "df", "dirname", "du", "echo", "find", "git",
    "grep", "head", "less", "ls", "more", "printenv", "printf", "ps", "pwd", "rg", "ripgrep",
    "sed", "sort", "stat", "tail", "tree", "uniq", "wc", "which", "where", "whoami",
];

/// Programs whose read-only verdict rests on reading their arguments, so
/// an argument the shell expands (`$X`, a glob, braces) makes it unknown.
const ARGUMENT_SENSITIVE: &[&str] = &[
    "awk", "find", "git", "printf", "rg", "ripgrep", "sed", "sort", "tree", "uniq",
];

/// Programs that judge `--help` themselves; for the others a write with
/// `--help` only prints help (Qwen calls it unknown).
const OWN_HELP_RULE: &[&str] = &["find", "git", "sed", "sort", "tree"];

/// Qwen's `WRITE_REDIRECT_OPERATORS`.
const WRITE_REDIRECTIONS: &[&str] = &[">", ">>", "&>", "&>>", ">|"];

/// The program a command runs: its first word after the assignments.
pub(super) fn program(command: &Command) -> Option<&Word> {
    command.words.iter().find(|w| !w.is_assignment())
}

/// Assignments and redirections with no program (`FOO=1 > out`).
pub(super) fn assignments_redirected(command: &Command) -> bool {
    !command.redirects.is_empty()
        && !command.words.is_empty()
        && command.words.iter().all(Word::is_assignment)
}

/// The safety of `command`; `alone` when it is the line's only command
/// (a bare assignment is read-only only then).
pub(super) fn safety(command: &Command, alone: bool) -> Safety {
    let assignments = command
        .words
        .iter()
        .take_while(|w| w.is_assignment())
        .count();
    let redirects = Safety::all(command.redirects.iter().map(redirect_safety));
    let Some((name, arguments)) = command
        .words
        .get(assignments..)
        .and_then(<[Word]>::split_first)
    else {
        // Only assignments (`FOO=bar`): Qwen's variable_assignment rule.
        return match (assignments, alone, command.redirects.is_empty()) {
            (0, _, _) => redirects,
            (_, true, true) => Safety::ReadOnly,
            _ => Safety::Unknown,
        };
    };
    let args: Vec<String> = arguments.iter().map(|w| w.value.clone()).collect();
    // Qwen reads the name as written and lowercased; a quoted, expanded or
    // upper-case name matches no list.
    let root = name.value.as_str();
    let mut result = if name.raw != name.value || root.to_lowercase() != root {
        Safety::Unknown
    } else {
        program_safety(root, &args)
    };
    if result == Safety::ReadOnly
        && ARGUMENT_SENSITIVE.contains(&root)
        && arguments.iter().any(|w| w.expands || w.pattern)
    {
        result = Safety::Unknown;
    }
    if result == Safety::Write && !OWN_HELP_RULE.contains(&root) && has_help(&args, &[]) {
        result = Safety::Unknown;
    }
    result.doubted_if(assignments > 0).merge(redirects)
}

/// The rule of the program `root` over its arguments.
fn program_safety(root: &str, args: &[String]) -> Safety {
    match root {
        _ if WRITING_PROGRAMS.contains(&root) => {
            if has_help(args, &[]) {
                Safety::Unknown
            } else {
                Safety::Write
            }
        }
        "kill" | "killall" | "pkill" => process_safety(root, args),
        "git" => git::safety(args),
        "find" => find::safety(args),
        "sed" => sed::command_safety(args),
        "awk" => awk::command_safety(args),
        "sort" | "tree" => sort_or_tree_safety(root, args),
        "uniq" => {
            if has_help(args, &[]) {
                Safety::Unknown
            } else {
                uniq_safety(args)
            }
        }
        "tee" => {
            let writes_file = args.iter().enumerate().any(|(i, arg)| {
                !arg.starts_with('-')
                    || i.checked_sub(1)
                        .and_then(|p| args.get(p))
                        .is_some_and(|p| p == "--")
            });
            if writes_file {
                Safety::Write
            } else {
                Safety::Unknown
            }
        }
        "dd" => {
            if args.iter().any(|a| a.starts_with("of=")) {
                Safety::Write
            } else {
                Safety::Unknown
            }
        }
        "printf"
            if before_terminator(args)
                .iter()
                .any(|a| short_flag_with(a, 'v')) =>
        {
            Safety::Unknown
        }
        "less" | "more" => Safety::Unknown,
        "rg" | "ripgrep" if before_terminator(args).iter().any(|a| runs_a_helper(a)) => {
            Safety::Unknown
        }
        _ if READ_ONLY_PROGRAMS.contains(&root) => Safety::ReadOnly,
        _ => Safety::Unknown,
    }
}

/// `-[^-]*X`: a short-option word that has `letter` before any further `-`.
fn short_flag_with(arg: &str, letter: char) -> bool {
    arg.strip_prefix('-').is_some_and(|rest| {
        rest.split('-')
            .next()
            .is_some_and(|flags| flags.contains(letter))
    })
}

/// ripgrep options that run another program: `--pre`, `--hostname-bin`,
/// `--search-zip` and `-z`.
fn runs_a_helper(arg: &str) -> bool {
    let long_with_value = |name: &str| {
        arg.strip_prefix(name)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('='))
    };
    long_with_value("--hostname-bin")
        || long_with_value("--pre")
        || arg == "--search-zip"
        || short_flag_with(arg, 'z')
}

/// `sort` and `tree`: `-o`/`--output` writes; an option that may hide
/// `o` (`-ro`, `--o…`) or sort's `--co…` (`--compress-program`) is unknown.
fn sort_or_tree_safety(root: &str, args: &[String]) -> Safety {
    let sort = root == "sort";
    let mut result = output_option(args, sort, true).unwrap_or(Safety::ReadOnly);
    if has_help(args, &["-o", "--output"]) {
        result = Safety::Unknown;
    }
    let hides_output = before_terminator(args).iter().any(|arg| {
        arg.starts_with("--o")
            || (sort && arg.starts_with("--co"))
            || arg.strip_prefix('-').is_some_and(|body| {
                !body.starts_with('-')
                    && body
                        .split('-')
                        .next()
                        .is_some_and(|flags| flags.chars().skip(1).any(|c| c == 'o'))
            })
    });
    result.doubted_if(hides_output)
}

/// Qwen's `evaluateUniqSafety`: a second file operand is uniq's output.
fn uniq_safety(args: &[String]) -> Safety {
    const VALUE_OPTIONS: &[&str] = &[
        "-f",
        "--skip-fields",
        "-s",
        "--skip-chars",
        "-w",
        "--check-chars",
    ];
    let mut positional = 0usize;
    let mut words = args.iter().enumerate();
    while let Some((i, arg)) = words.next() {
        if arg == "--" {
            return if args.len() - i + positional > 2 {
                Safety::Write
            } else {
                Safety::ReadOnly
            };
        } else if VALUE_OPTIONS.contains(&arg.as_str()) {
            if words.next().is_none_or(|(_, value)| value.is_empty()) {
                return Safety::Unknown;
            }
        } else if arg == "-" || !arg.starts_with('-') {
            positional += 1;
        }
    }
    if positional >= 2 {
        Safety::Write
    } else {
        Safety::ReadOnly
    }
}

/// Qwen's `evaluateRedirectionSafety` for one redirection: writing to a
/// file is a write; duplicating a descriptor (`2>&1`, `>&-`) is not;
/// `>&` to a word that may expand is unknown; reading is read-only.
fn redirect_safety(redirect: &Redirect) -> Safety {
    let target = &redirect.target;
    match redirect.operator {
        op if WRITE_REDIRECTIONS.contains(&op) => Safety::Write,
        ">&" if target.value == "-"
            || (!target.value.is_empty() && target.value.bytes().all(|b| b.is_ascii_digit())) =>
        {
            Safety::ReadOnly
        }
        ">&" if target
            .value
            .contains(['$', '`', '*', '?', '(', ')', '[', ']', '{', '}'])
            || target.expands =>
        {
            Safety::Unknown
        }
        ">&" => Safety::Write,
        _ => Safety::ReadOnly,
    }
}
