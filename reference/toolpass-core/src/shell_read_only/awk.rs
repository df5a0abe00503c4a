//! `awk` judged as Qwen Code 0.24.4's `classifyAwkCommandSafety` judges it
//! (`packages/core/src/utils/shell-safety-rules.ts`): `print > "file"` is
//! a write; `system()`, `close()`, `getline`, gawk's `@` and any other
//! `print` with `>` or `|` are unknown; options other than `-F` and `-v`
//! (a program file, `-e`, extensions) are unknown.

use super::safety::Safety;

/// The safety of `awk ARGS`.
pub(super) fn command_safety(args: &[String]) -> Safety {
    let mut program_at = None;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            program_at = Some(i + 1);
            break;
        }
        if arg == "-F" || arg == "-v" {
            i += 1;
            if args.get(i).is_none_or(String::is_empty) {
                return Safety::Unknown;
            }
        } else if arg.len() > 2 && (arg.starts_with("-F") || arg.starts_with("-v")) {
            // `-F:` or `-vname=value`: the value is in the word.
        } else if arg.starts_with('-') {
            return Safety::Unknown;
        } else {
            program_at = Some(i);
            break;
        }
        i += 1;
    }
    let Some(program_at) = program_at else {
        return Safety::ReadOnly;
    };
    let Some(program) = args.get(program_at) else {
        return Safety::Unknown;
    };
    let result = script_safety(program);
    if result != Safety::ReadOnly {
        return result;
    }
    // A file operand that reads like awk code (`'print > "out"'`) is
    // doubted too, as Qwen doubts it.
    if script_safety(&args.join(" ")) == Safety::ReadOnly {
        Safety::ReadOnly
    } else {
        Safety::Unknown
    }
}

/// Statements of a program, split as Qwen's `splitAwkStatements` splits
/// them (at `;`, braces, line breaks and comments, strings and regex
/// literals skipped), with whether a `/` could not be told apart from a
/// division and whether gawk's `@` appears.
struct Statements {
    statements: Vec<String>,
    ambiguous_slash: bool,
    at_sign: bool,
}

fn split_statements(script: &str) -> Statements {
    let chars: Vec<char> = script.chars().collect();
    let mut out = Statements {
        statements: Vec::new(),
        ambiguous_slash: false,
        at_sign: false,
    };
    let piece = |from: usize, to: usize| {
        chars
            .get(from..to)
            .unwrap_or_default()
            .iter()
            .collect::<String>()
    };
    let (mut start, mut escaped, mut in_string, mut in_regex) = (0, false, false, false);
    let mut previous = None;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if escaped {
            escaped = false;
        } else if (in_string || in_regex) && c == '\\' {
            escaped = true;
        } else if in_string {
            in_string = c != '"';
        } else if in_regex {
            in_regex = c != '/';
        } else if c == '"' {
            in_string = true;
        } else if c == '/' && previous.is_none_or(|p| "({[=,:;!~?&|".contains(p)) {
            in_regex = true;
        } else {
            if c == '/' {
                out.ambiguous_slash = true;
            }
            if c == '@' {
                out.at_sign = true;
            }
            if c == '#' {
                out.statements.push(piece(start, i));
                let Some(newline) = chars.iter().skip(i + 1).position(|&n| n == '\n') else {
                    return out;
                };
                i += 1 + newline;
                start = i + 1;
                previous = Some('\n');
            } else if matches!(c, ';' | '{' | '}' | '\n') {
                out.statements.push(piece(start, i));
                start = i + 1;
                previous = Some(c);
            } else if !c.is_whitespace() {
                previous = Some(c);
            }
        }
        i += 1;
    }
    out.statements.push(piece(start, chars.len()));
    out
}

/// Qwen's `classifyAwkScriptSafety`.
fn script_safety(script: &str) -> Safety {
    let split = split_statements(script);
    if !split.ambiguous_slash && split.statements.iter().any(|s| prints_to_a_named_file(s)) {
        return Safety::Write;
    }
    if split.at_sign || runs_or_reads(script) {
        return Safety::Unknown;
    }
    let prints = has_word(script, "print") || has_word(script, "printf");
    if prints && script.contains(['>', '|']) {
        return Safety::Unknown;
    }
    Safety::ReadOnly
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `\bWORD\b` anywhere in `text`.
fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text.get(..at).and_then(|b| b.chars().next_back());
        let after = text.get(at + word.len()..).and_then(|a| a.chars().next());
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    })
}

/// Qwen's `AWK_UNKNOWN_OPERATION`: `system(`, `close(` or `getline`.
fn runs_or_reads(script: &str) -> bool {
    let called = |name: &str| {
        script.match_indices(name).any(|(at, _)| {
            script
                .get(at + name.len()..)
                .is_some_and(|rest| rest.trim_start().starts_with('('))
        })
    };
    let getline = script.match_indices("getline").any(|(at, _)| {
        !script
            .get(at + "getline".len()..)
            .and_then(|rest| rest.chars().next())
            .is_some_and(is_word_char)
    });
    called("system") || called("close") || getline
}

/// Qwen's `AWK_STATIC_WRITE`: a statement that is `print` or `printf`
/// (not called with parentheses) whose only `>` or `>>` outside strings
/// sends it to a quoted file name ending the statement.
fn prints_to_a_named_file(statement: &str) -> bool {
    let text = statement.trim_start();
    let Some(after_keyword) = ["printf", "print"].iter().find_map(|k| {
        text.strip_prefix(k)
            .filter(|rest| !rest.chars().next().is_some_and(is_word_char))
    }) else {
        return false;
    };
    if after_keyword.trim_start().starts_with('(') {
        return false;
    }
    let mut chars = after_keyword.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => {
                // A string literal, escapes skipped; unterminated: no match.
                let mut closed = false;
                while let Some((_, s)) = chars.next() {
                    if s == '\\' {
                        chars.next();
                    } else if s == '"' {
                        closed = true;
                        break;
                    }
                }
                if !closed {
                    return false;
                }
            }
            '|' => return false,
            '>' => {
                let target = after_keyword.get(at + 1..).unwrap_or_default();
                let target = target.strip_prefix('>').unwrap_or(target).trim();
                return target.len() >= 2
                    && target.starts_with('"')
                    && target.ends_with('"')
                    && !target
                        .get(1..target.len() - 1)
                        .unwrap_or("\"")
                        .contains('"');
            }
            _ => {}
        }
    }
    false
}
