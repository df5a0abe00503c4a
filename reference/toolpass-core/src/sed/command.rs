//! Which `run_shell_command` commands are a `sed -i` edit this crate can
//! take over, following Qwen Code 0.24.4's `parseSedEditCommand`
//! (`packages/core/src/utils/sedEditParser.ts`) and `getSedEditInfo`
//! (`packages/core/src/tools/shell.ts`).
//!
//! The command line is split into words by `shlex` (POSIX shell quoting,
//! no expansion, no execution). A word list is only what sed would get if
//! the shell had nothing else to do: a pipe, a `&&`, a redirection, a
//! glob, a brace expansion, a command substitution or a comment left
//! unquoted would make the shell do more (or other) than run sed, so such
//! a command is refused. Which characters were quoted is asked of `shlex`
//! too: with spaces put around every such character, the words change
//! exactly when one of them was unquoted (or escaped with a backslash,
//! which is refused as well; quoting is the usual way to write a script).
//! A command wrapped in `sh -c`, `bash -c` or `zsh -c` is unwrapped once
//! first, as Qwen does, the wrapper held to the same rules.

use std::fmt;

use super::regex::Syntax;
use super::script::{ScriptError, Substitution, parse_script};

/// How the call runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// The model waits for the command (`is_background` false or absent).
    Foreground,
    /// `is_background: true`: Qwen never intercepts it.
    Background,
}

/// A `sed -i` command the tool layer runs as an edit instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The file argument as written (after shell quote removal), neither
    /// resolved nor checked: the caller resolves it against the call's
    /// directory and the sandbox.
    pub file: String,
    /// The one substitution to run on it.
    pub substitution: Substitution,
}

/// Why a command is left to the shell. Every reason means the same to the
/// caller (run the command as it is); the reason is for logs and tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotIntercepted {
    /// The call runs in the background.
    Background,
    /// The command starts with an environment assignment (`LC_ALL=C sed …`),
    /// which may change what sed does.
    EnvAssignment,
    /// The command is not `sed` followed by arguments.
    NotSed,
    /// The command spans lines: a second line is a second command.
    MultiLine,
    /// The command does not split into words: an unterminated quote or a
    /// trailing backslash.
    Unsplittable,
    /// An unquoted shell character that makes the shell do more than run
    /// sed with literal words.
    ShellSyntax(char),
    /// The script or the file needs the shell to expand it: `$NAME`,
    /// `${…}`, `$(…)`, a backquote, a leading `~`.
    Expansion(String),
    /// No `-i`, `--in-place` or a combined `-Ei`-style flag.
    NotInPlace,
    /// `-i` with a backup suffix (`-i.bak`, `-iE`, `--in-place=.bak`).
    BackupSuffix(String),
    /// An option the emulation does not take on (`-n`, `-s`, `-z`,
    /// `--posix`, `-f`, `--`, …).
    Option(String),
    /// No script, or an empty one.
    NoScript,
    /// More than one script (`-e` twice, or `-e` and a positional one).
    SeveralScripts,
    /// No file: sed would read standard input.
    NoFile,
    /// More than one file.
    SeveralFiles,
    /// The script is not a substitution the emulation takes on.
    Script(ScriptError),
}

impl fmt::Display for NotIntercepted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Background => f.write_str("the call runs in the background"),
            Self::EnvAssignment => f.write_str("the command starts with an environment assignment"),
            Self::NotSed => f.write_str("the command is not a sed command"),
            Self::MultiLine => f.write_str("the command spans more than one line"),
            Self::Unsplittable => f.write_str("the command has an unterminated quote or escape"),
            Self::ShellSyntax(c) => write!(
                f,
                "the command has an unquoted {c:?}, which the shell would act on"
            ),
            Self::Expansion(word) => write!(f, "{word:?} needs the shell to expand it"),
            Self::NotInPlace => f.write_str("sed is not asked to edit in place (-i)"),
            Self::BackupSuffix(arg) => write!(f, "{arg:?} asks for a backup file"),
            Self::Option(arg) => write!(f, "the option {arg:?} is not supported"),
            Self::NoScript => f.write_str("the command has no script"),
            Self::SeveralScripts => f.write_str("the command has more than one script"),
            Self::NoFile => f.write_str("the command names no file"),
            Self::SeveralFiles => f.write_str("the command names more than one file"),
            Self::Script(e) => write!(f, "{e}"),
        }
    }
}

/// Characters the shell acts on when they are unquoted: control operators
/// and redirections, globs, brace expansion, command substitution and
/// comments. `$` is not among them: a `$` anywhere in the script or file is
/// judged as Qwen judges it, quoted or not.
const SHELL_CHARACTERS: &[char] = &[
    '|', '&', ';', '<', '>', '(', ')', '*', '?', '[', ']', '{', '}', '`', '#',
];

/// Decides whether `command` is a `sed -i` edit to take over, and if so
/// what it does.
///
/// # Errors
/// The [`NotIntercepted`] reason when the command is left to the shell.
pub fn plan(command: &str, call: Call) -> Result<Plan, NotIntercepted> {
    if call == Call::Background {
        return Err(NotIntercepted::Background);
    }
    let trimmed = command.trim();
    if starts_with_assignment(trimmed) {
        return Err(NotIntercepted::EnvAssignment);
    }
    let unwrapped = unwrap_shell(trimmed)?;
    let command = unwrapped.as_deref().map_or(trimmed, str::trim);
    if starts_with_assignment(command) {
        return Err(NotIntercepted::EnvAssignment);
    }
    let arguments = command
        .strip_prefix("sed")
        .filter(|rest| rest.starts_with(char::is_whitespace))
        .ok_or(NotIntercepted::NotSed)?;
    let words = shell_words(arguments)?;
    let arguments = Arguments::read(&words)?;
    if !arguments.in_place {
        return Err(NotIntercepted::NotInPlace);
    }
    let script = arguments
        .script
        .filter(|s| !s.is_empty())
        .ok_or(NotIntercepted::NoScript)?;
    let file = arguments
        .file
        .filter(|f| !f.is_empty())
        .ok_or(NotIntercepted::NoFile)?;
    if has_expansion(script) {
        return Err(NotIntercepted::Expansion(script.to_owned()));
    }
    if file.starts_with('~') || file.contains(['$', '`']) {
        return Err(NotIntercepted::Expansion(file.to_owned()));
    }
    let substitution = parse_script(script, arguments.syntax).map_err(NotIntercepted::Script)?;
    Ok(Plan {
        file: file.to_owned(),
        substitution,
    })
}

/// The words a shell would pass, when it would do nothing else with the
/// text: one line, quotes closed, no unquoted shell character, no comment.
fn shell_words(text: &str) -> Result<Vec<String>, NotIntercepted> {
    if text.contains(['\n', '\r']) {
        return Err(NotIntercepted::MultiLine);
    }
    let words = shlex::split(text).ok_or(NotIntercepted::Unsplittable)?;
    if let Some(c) = unquoted_shell_character(text, &words) {
        return Err(NotIntercepted::ShellSyntax(c));
    }
    // A `#` that starts a word begins a comment, which the words no longer
    // show. The shell would ignore it too, but Qwen refuses it.
    if text.matches('#').count() > words.iter().map(|w| w.matches('#').count()).sum() {
        return Err(NotIntercepted::ShellSyntax('#'));
    }
    Ok(words)
}

/// The command inside `sh -c 'CMD'`, `bash -lc "CMD"` or `zsh -c CMD`,
/// unwrapped once as Qwen's `stripShellWrapper` does (flags before the
/// command word skipped, `-o`/`+o` with their operand); `None` when the
/// command is no such wrapper. Words after the command (`$0`, `$1`, …)
/// are refused: Qwen ignores them, but the script could refer to them.
fn unwrap_shell(command: &str) -> Result<Option<String>, NotIntercepted> {
    let first = command.split_whitespace().next().unwrap_or_default();
    let shell = first.rsplit('/').next().unwrap_or_default();
    if !matches!(shell, "sh" | "bash" | "zsh") {
        return Ok(None);
    }
    let words = shell_words(command)?;
    let mut rest = words.iter().skip(1);
    while let Some(word) = rest.next() {
        let is_flag = word.starts_with('-') || word.starts_with('+');
        if !is_flag || word == "--" {
            return Err(NotIntercepted::NotSed);
        }
        if word == "-o" || word == "+o" {
            rest.next();
            continue;
        }
        let letters = word.get(1..).unwrap_or_default();
        if word.starts_with('-')
            && letters.contains('c')
            && letters.chars().all(|c| c.is_ascii_alphabetic())
        {
            let inner = rest.next().ok_or(NotIntercepted::NotSed)?;
            if rest.next().is_some() {
                return Err(NotIntercepted::Option(format!("{shell} -c with arguments")));
            }
            return Ok(Some(inner.clone()));
        }
    }
    Err(NotIntercepted::NotSed)
}

/// The options and operands of a sed command line, read as Qwen reads
/// them.
struct Arguments<'w> {
    in_place: bool,
    syntax: Syntax,
    script: Option<&'w str>,
    file: Option<&'w str>,
}

impl<'w> Arguments<'w> {
    fn read(words: &'w [String]) -> Result<Self, NotIntercepted> {
        let mut read = Self {
            in_place: false,
            syntax: Syntax::Basic,
            script: None,
            file: None,
        };
        let mut words = words.iter().map(String::as_str).peekable();
        while let Some(word) = words.next() {
            match word {
                _ if is_combined_flags(word) => {
                    read.in_place |= word.ends_with('i');
                    read.syntax = Syntax::Extended;
                }
                // GNU sed, the one that runs, takes no separate word after
                // `-i`: in `-i ''` (BSD sed's "no backup") the empty word
                // is the script, which Qwen skips.
                "-i" => read.in_place = true,
                "--in-place" | "--in-place=" => read.in_place = true,
                _ if word.starts_with("-i") || word.starts_with("--in-place=") => {
                    return Err(NotIntercepted::BackupSuffix(word.to_owned()));
                }
                "-E" | "-r" | "--regexp-extended" => read.syntax = Syntax::Extended,
                "-e" | "--expression" => {
                    let script = words.next().ok_or(NotIntercepted::NoScript)?;
                    read.set_script(script)?;
                }
                _ if word.starts_with("--expression=") => {
                    read.set_script(word.get("--expression=".len()..).unwrap_or_default())?;
                }
                _ if word.starts_with('-') => return Err(NotIntercepted::Option(word.to_owned())),
                _ if read.script.is_none() => read.script = Some(word),
                _ if read.file.is_none() => read.file = Some(word),
                _ => return Err(NotIntercepted::SeveralFiles),
            }
        }
        Ok(read)
    }

    fn set_script(&mut self, script: &'w str) -> Result<(), NotIntercepted> {
        if self.script.is_some() {
            return Err(NotIntercepted::SeveralScripts);
        }
        self.script = Some(script);
        Ok(())
    }
}

/// `-Ei`, `-ri`, `-rE`: flags combined in one word, with `i` only last
/// (GNU sed reads whatever follows `-i` as a backup suffix: `-iE` backs up
/// to `FILE.E`). Qwen 0.24.4's `isSafeCombinedFlagArg`.
fn is_combined_flags(word: &str) -> bool {
    let Some(flags) = word.strip_prefix('-') else {
        return false;
    };
    let body = flags.strip_suffix('i').unwrap_or(flags);
    word.len() > 2 && !flags.starts_with('-') && body.chars().all(|c| c == 'E' || c == 'r')
}

/// Qwen's `LEADING_ENV_ASSIGNMENT_RE`: `^\s*[A-Za-z_][A-Za-z0-9_]*=`.
pub(crate) fn starts_with_assignment(command: &str) -> bool {
    let Some((name, _)) = command.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Qwen's `hasShellVariableReference`: a backquote, or `$` followed by a
/// name, `{`, `(`, a digit or a special parameter.
fn has_expansion(word: &str) -> bool {
    word.contains('`')
        || word.match_indices('$').any(|(at, _)| {
            word.get(at + 1..)
                .and_then(|rest| rest.chars().next())
                .is_some_and(|c| {
                    c.is_ascii_alphanumeric()
                        || matches!(c, '_' | '{' | '(' | '#' | '?' | '@' | '$' | '!' | '*')
                })
        })
}

/// The first of [`SHELL_CHARACTERS`] that `shlex` did not read as quoted.
fn unquoted_shell_character(arguments: &str, words: &[String]) -> Option<char> {
    let first = arguments.chars().find(|c| SHELL_CHARACTERS.contains(c))?;
    let spaced = |text: &str| {
        text.chars()
            .fold(String::with_capacity(text.len()), |mut out, c| {
                if SHELL_CHARACTERS.contains(&c) {
                    out.push(' ');
                    out.push(c);
                    out.push(' ');
                } else {
                    out.push(c);
                }
                out
            })
    };
    let expected: Vec<String> = words.iter().map(|w| spaced(w)).collect();
    let probed = shlex::split(&spaced(arguments));
    (probed.as_deref() != Some(expected.as_slice())).then(|| {
        // Name the first character that changed the split, for the reason:
        // one before which the text splits is not inside quotes. Bounded,
        // as each try splits a prefix again.
        arguments
            .char_indices()
            .filter(|(_, c)| SHELL_CHARACTERS.contains(c))
            .take(64)
            .find(|(at, _)| shlex::split(arguments.get(..*at).unwrap_or_default()).is_some())
            .map_or(first, |(_, c)| c)
    })
}
