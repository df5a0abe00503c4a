//! `sed` judged as Qwen Code 0.24.4's `classifySedCommandSafety` judges
//! it (`packages/core/src/utils/shell-safety-rules.ts`): `-i` writes; a
//! script file, an unknown option or a script with `e`, `r`, `R` (or a `w`
//! without a file) is unknown; `w FILE` writes; the rest reads.
//!
//! Scripts are walked as Qwen walks them, by character index.

use super::safety::{Safety, before_terminator};

/// Options that take the next word (`SED_VALUE_OPTIONS`).
const VALUE_OPTIONS: &[&str] = &["-f", "--file", "-e", "--expression", "-l", "--line-length"];

/// The safety of `sed ARGS`.
pub(super) fn command_safety(args: &[String]) -> Safety {
    let options = before_terminator(args);
    let help = options.iter().enumerate().any(|(i, arg)| {
        let after_value_option = i
            .checked_sub(1)
            .and_then(|p| options.get(p))
            .is_some_and(|p| VALUE_OPTIONS.contains(&p.as_str()));
        (arg.eq_ignore_ascii_case("--help") || arg.eq_ignore_ascii_case("--version"))
            && !after_value_option
    });
    if help {
        return Safety::Unknown;
    }
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            break;
        }
        if VALUE_OPTIONS.contains(&arg.as_str()) {
            i += 1;
        } else if !is_expression_flag(arg) && is_in_place(arg) {
            return Safety::Write;
        }
        i += 1;
    }
    let Some((scripts, script_positions)) = scripts(args) else {
        return Safety::Unknown;
    };
    let mut result = Safety::ReadOnly;
    for script in &scripts {
        match script_safety(&chars(script)) {
            Safety::Write => return Safety::Write,
            Safety::Unknown => result = Safety::Unknown,
            Safety::ReadOnly => {}
        }
    }
    let remaining: Vec<&str> = args
        .iter()
        .enumerate()
        .filter(|(i, _)| !script_positions.contains(i))
        .map(|(_, a)| a.as_str())
        .collect();
    result.doubted_if(names_a_file_command(&chars(&remaining.join(" "))))
}

/// `-[nErsuz]*e.+`: an `-e` with its script in the same word.
fn is_expression_flag(arg: &str) -> bool {
    arg.strip_prefix('-').is_some_and(|rest| {
        let flags = rest.trim_start_matches(['n', 'E', 'r', 's', 'u', 'z']);
        flags
            .strip_prefix('e')
            .is_some_and(|script| !script.is_empty())
    })
}

/// `-[nErsuz]*[iI]…` or `--in-place[=…]`.
fn is_in_place(arg: &str) -> bool {
    let short = arg.strip_prefix('-').is_some_and(|rest| {
        rest.trim_start_matches(['n', 'E', 'r', 's', 'u', 'z'])
            .starts_with(['i', 'I'])
    });
    let long = arg
        .strip_prefix("--in-place")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('='));
    short || long
}

/// The scripts of a sed command and their argument positions; `None` when
/// Qwen calls the command unknown (a script file, an unknown option, a
/// missing script).
fn scripts(args: &[String]) -> Option<(Vec<String>, Vec<usize>)> {
    let mut scripts = Vec::new();
    let mut positions = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            if scripts.is_empty() {
                let script = args.get(i + 1).filter(|s| !s.starts_with('-'))?;
                scripts.push(script.clone());
                positions.push(i + 1);
            }
            break;
        }
        if arg == "-l" || arg == "--line-length" {
            i += 1;
            args.get(i).filter(|v| !v.is_empty())?;
        }
        let file_option = arg.starts_with("-f")
            || arg
                .strip_prefix("--file")
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('='));
        if file_option {
            return None;
        }
        if arg == "-e" || arg == "--expression" {
            i += 1;
            let script = args
                .get(i)
                .filter(|s| !s.is_empty() && !s.starts_with('-'))?;
            scripts.push(script.clone());
            positions.push(i);
        } else if let Some(script) = arg
            .strip_prefix("--expression=")
            .or_else(|| arg.strip_prefix("-e").filter(|s| !s.is_empty()))
        {
            if script.starts_with('-') {
                return None;
            }
            scripts.push(script.to_owned());
            positions.push(i);
        } else if unknown_option(arg) {
            return None;
        } else if !arg.starts_with('-') && scripts.is_empty() {
            scripts.push(arg.clone());
            positions.push(i);
        }
        i += 1;
    }
    Some((scripts, positions))
}

/// A long option other than `--line-length` (even `--quiet`, which Qwen's
/// order of checks never reaches), or a short one not in
/// `SAFE_SED_OPTION`.
fn unknown_option(arg: &str) -> bool {
    let other_long = arg.starts_with("--")
        && !arg
            .strip_prefix("--line-length")
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('='));
    other_long || (arg.starts_with('-') && !safe_option(arg))
}

/// Qwen's `SAFE_SED_OPTION`.
fn safe_option(arg: &str) -> bool {
    matches!(
        arg,
        "-n" | "-E" | "-l" | "-r" | "-s" | "-u" | "-z" | "--quiet" | "--silent" | "--line-length"
    ) || arg.starts_with("--line-length=")
}

fn chars(text: &str) -> Vec<char> {
    text.chars().collect()
}

/// `(?:^|[^\\])[ewr]\s`: a letter that may be an `e`, `w` or `r` command
/// followed by its argument; Qwen doubts such a script.
fn names_a_file_command(script: &[char]) -> bool {
    script.windows(2).enumerate().any(|(i, pair)| {
        matches!(pair, [c, space] if "ewr".contains(*c) && space.is_whitespace())
            && (i == 0 || script.get(i - 1) != Some(&'\\'))
    })
}

/// The length of the address at `start` and the blanks around it (Qwen's
/// `SED_ADDRESS`): a line number or `$`, optionally a range, or a
/// `/regex/`; possibly none.
fn address_end(script: &[char], start: usize) -> usize {
    let skip_blanks = |mut at: usize| {
        while script.get(at).is_some_and(|c| c.is_whitespace()) {
            at += 1;
        }
        at
    };
    let line = |at: usize| -> Option<usize> {
        match script.get(at) {
            Some('$') => Some(at + 1),
            Some(c) if c.is_ascii_digit() => {
                let mut end = at;
                while script.get(end).is_some_and(char::is_ascii_digit) {
                    end += 1;
                }
                Some(end)
            }
            _ => None,
        }
    };
    let at = skip_blanks(start);
    let after_address = if let Some(end) = line(at) {
        let comma = skip_blanks(end);
        match script.get(comma) {
            Some(',') => line(skip_blanks(comma + 1)).unwrap_or(end),
            _ => end,
        }
    } else if script.get(at) == Some(&'/') {
        let mut i = at + 1;
        loop {
            match script.get(i) {
                Some('\\') if i + 1 < script.len() => i += 2,
                Some('/') => break i + 1,
                Some('\\') | None => break at,
                Some(_) => i += 1,
            }
        }
    } else {
        at
    };
    skip_blanks(after_address)
}

/// Qwen's `scanDelimitedSection`: the index after the closing `delimiter`
/// at or after `start`, backslash escapes skipped.
fn after_delimited(script: &[char], start: usize, delimiter: char) -> Option<usize> {
    let mut escaped = false;
    for (i, &c) in script.iter().enumerate().skip(start) {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == delimiter {
            return Some(i + 1);
        }
    }
    None
}

/// Where an `s` command's flags start, or `None` when it is malformed.
fn substitution_flags(script: &[char], command_at: usize) -> Option<usize> {
    let delimiter = *script.get(command_at + 1)?;
    if delimiter == '\\' || delimiter.is_whitespace() {
        return None;
    }
    let replacement = after_delimited(script, command_at + 2, delimiter)?;
    after_delimited(script, replacement, delimiter)
}

/// Qwen's `classifySingleSedCommandSafety`.
fn single_command_safety(script: &[char]) -> Safety {
    let compatibility_doubt = names_a_file_command(script);
    let at = address_end(script, 0);
    let Some(&command) = script.get(at) else {
        return Safety::ReadOnly;
    };
    let rest = |from: usize| script.get(from..).unwrap_or_default();
    let has_block_or_separator =
        |text: &[char]| text.iter().any(|c| matches!(c, ';' | '\n' | '{' | '}'));
    if command == 'w' || command == 'W' {
        return if rest(at + 1).iter().all(|c| c.is_whitespace()) {
            Safety::Unknown
        } else {
            Safety::Write
        };
    }
    if "eErR".contains(command) {
        return Safety::Unknown;
    }
    if command == 's' {
        let Some(flags_at) = substitution_flags(script, at) else {
            return Safety::Unknown;
        };
        let flags: String = rest(flags_at).iter().collect();
        let flags = flags.trim();
        if flags.contains([';', '\n', '{', '}']) {
            return Safety::Unknown;
        }
        if let Some(w) = flags.find('w') {
            let file = flags.get(w + 1..).unwrap_or_default();
            return if file.trim().is_empty() {
                Safety::Unknown
            } else {
                Safety::Write
            };
        }
        if flags.contains(['e', 'E', 'r', 'R', 'W'])
            || !flags
                .chars()
                .all(|c| c.is_ascii_digit() || "gIpM".contains(c))
        {
            return Safety::Unknown;
        }
        return Safety::ReadOnly.doubted_if(compatibility_doubt);
    }
    if has_block_or_separator(rest(at + 1)) || !"dDgGhHlnNpPqQxz=".contains(command) {
        return Safety::Unknown;
    }
    Safety::ReadOnly.doubted_if(compatibility_doubt)
}

/// Qwen's `classifySedScriptSafety`: the script's commands one by one.
fn script_safety(script: &[char]) -> Safety {
    let mut result = Safety::ReadOnly;
    let mut start = 0;
    while start < script.len() {
        let at = address_end(script, start);
        let Some(&command) = script.get(at) else {
            return result;
        };
        if command == 'w' || command == 'W' {
            let writer = single_command_safety(script.get(start..).unwrap_or_default());
            return if writer == Safety::Write {
                Safety::Write
            } else {
                Safety::Unknown
            };
        }
        if "eErR".contains(command) || (command != 's' && !"dDgGhHlnNpPqQxz=".contains(command)) {
            return Safety::Unknown;
        }
        let body_end = if command == 's' {
            match substitution_flags(script, at) {
                Some(flags_at) => flags_at,
                None => return Safety::Unknown,
            }
        } else {
            at + 1
        };
        let separator = script
            .iter()
            .enumerate()
            .skip(body_end)
            .find(|(_, c)| matches!(c, ';' | '\n'))
            .map_or(script.len(), |(i, _)| i);
        match single_command_safety(script.get(start..separator).unwrap_or_default()) {
            Safety::Write => return Safety::Write,
            Safety::Unknown => result = Safety::Unknown,
            Safety::ReadOnly => {}
        }
        if separator == script.len() {
            return result;
        }
        start = separator + 1;
    }
    result
}
