//! `find` judged as Qwen Code 0.24.4's `evaluateFindSafety` judges it
//! (`packages/core/src/utils/shellAstParser.ts`): `-delete` and the
//! `-fprint*`/`-fls` actions write; `-exec` and its kin are judged by the
//! program they run; a value predicate whose value looks like an option,
//! and `--`, make it unknown.

use super::process::process_safety;
use super::safety::{Safety, WRITING_PROGRAMS, has_help};

/// Actions that write their output to a file (`BLOCKED_FIND_PREFIXES`).
const FILE_ACTIONS: &[&str] = &["-fls", "-fprint", "-fprintf"];

/// The safety of `find ARGS`.
pub(super) fn safety(args: &[String]) -> Safety {
    let mut result = Safety::ReadOnly;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let lower = arg.to_lowercase();
        if lower == "--" {
            return result.merge(Safety::Unknown);
        }
        if lower == "--help" || lower == "--version" {
            return Safety::Unknown;
        }
        if takes_value(&lower) {
            i += 1;
            let literal = args
                .get(i)
                .is_some_and(|v| !v.is_empty() && !v.starts_with('-'));
            result = result.doubted_if(!literal);
        } else if lower == "-delete" {
            result = Safety::Write;
        } else if FILE_ACTIONS.iter().any(|p| lower.starts_with(p)) {
            result = Safety::Write;
            i += if lower.starts_with("-fprintf") { 2 } else { 1 };
        } else if matches!(lower.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let end = args
                .iter()
                .enumerate()
                .skip(i + 2)
                .find(|(_, a)| matches!(a.as_str(), ";" | "\\;" | "+"))
                .map(|(at, _)| at);
            let invoked = args.get(i + 1).map(|a| a.to_lowercase());
            let invoked_args = args
                .get(i + 2..end.unwrap_or(args.len()))
                .unwrap_or_default();
            let nested = match invoked.as_deref() {
                Some(program) if WRITING_PROGRAMS.contains(&program) => {
                    if has_help(invoked_args, &[]) {
                        Safety::Unknown
                    } else {
                        Safety::Write
                    }
                }
                Some(program @ ("kill" | "killall" | "pkill")) => {
                    process_safety(program, invoked_args)
                }
                _ => Safety::Unknown,
            };
            result = result.merge(nested);
            i = end.unwrap_or(args.len());
        }
        i += 1;
    }
    result
}

/// Qwen's `FIND_VALUE_PREDICATE`: tests and actions whose next word is
/// their value.
fn takes_value(lower: &str) -> bool {
    const NAMES: &[&str] = &[
        "newer",
        "anewer",
        "cnewer",
        "amin",
        "atime",
        "cmin",
        "ctime",
        "mmin",
        "mtime",
        "context",
        "fstype",
        "gid",
        "group",
        "lname",
        "ilname",
        "name",
        "iname",
        "path",
        "ipath",
        "regex",
        "iregex",
        "inum",
        "links",
        "maxdepth",
        "mindepth",
        "perm",
        "printf",
        "regextype",
        "samefile",
        "size",
        "type",
        "uid",
        "used",
        "user",
        "wholename",
        "xtype",
    ];
    let Some(name) = lower.strip_prefix('-') else {
        return false;
    };
    // `-newerXY`: two lowercase letters naming the times compared.
    let newer_xy = name
        .strip_prefix("newer")
        .is_some_and(|xy| xy.len() == 2 && xy.bytes().all(|b| b.is_ascii_lowercase()));
    NAMES.contains(&name) || newer_xy
}
