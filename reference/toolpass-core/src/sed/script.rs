//! The `s` command of a sed script: `s<d>pattern<d>replacement<d>flags`,
//! split the way GNU sed's `match_slash` splits it, and its flags.
//!
//! Only a lone substitution is accepted: no address, no other command, no
//! `;` after it, no flag beyond `g`, `I`/`i` and an occurrence number. What
//! is refused here is not an error of the model's command (real sed may run
//! it fine); it is outside what the emulation promises to get right.

use std::fmt;
use std::num::NonZeroUsize;

use super::regex::{self, RegexError, Syntax};
use super::replacement::{Replacement, ReplacementError};

/// The flags after the last delimiter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// `g`: every match of a line, from the occurrence on if one is given.
    pub global: bool,
    /// `I` or `i`: match without regard to case.
    pub ignore_case: bool,
    /// `N`: the Nth match of a line (with `g`: the Nth and every later one).
    pub occurrence: Option<NonZeroUsize>,
}

/// One `s` command as sed would run it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Substitution {
    /// The delimiter the script chose (`/` in `s/a/b/`).
    pub delimiter: char,
    /// The regular expression sed compiles: the text between the first two
    /// delimiters with every escaped delimiter (`\/`) made the plain
    /// character, as GNU sed does before compiling it.
    pub pattern: String,
    /// The syntax [`Substitution::pattern`] is written in.
    pub syntax: Syntax,
    /// What each chosen match becomes.
    pub replacement: Replacement,
    /// `g`, `I` and the occurrence.
    pub flags: Flags,
}

/// Why a script is not a substitution this module takes on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScriptError {
    /// The script is not `s` followed by a delimiter: another command, an
    /// address (`1,3s/…`, `/re/s/…`), or leading blanks.
    NotASubstitution,
    /// The delimiter is a backslash, a newline, a letter, a digit or not
    /// ASCII: GNU sed refuses the first two, and the others make escapes
    /// ambiguous.
    Delimiter(char),
    /// Fewer than three delimiters.
    Unterminated,
    /// The pattern is empty, which makes sed reuse the last regex it ran.
    EmptyPattern,
    /// A flag other than `g`, `I`, `i` and one occurrence number (`p`, `w`,
    /// `e`, `m`, a `;` or a second command), or one given twice, or the
    /// number zero.
    Flag(String),
    /// The replacement uses something the emulation does not implement.
    Replacement(ReplacementError),
    /// The pattern uses something the emulation does not implement, or does
    /// not compile.
    Regex(RegexError),
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotASubstitution => f.write_str("the script is not a lone `s` command"),
            Self::Delimiter(c) => write!(f, "the delimiter {c:?} is not supported"),
            Self::Unterminated => f.write_str("the `s` command is not terminated"),
            Self::EmptyPattern => {
                f.write_str("the pattern is empty (sed would reuse its last regex)")
            }
            Self::Flag(flags) => write!(
                f,
                "the flags {flags:?} are not supported (only g, I and a number)"
            ),
            Self::Replacement(e) => write!(f, "the replacement {e}"),
            Self::Regex(e) => write!(f, "the pattern {e}"),
        }
    }
}

/// Parses a script that must be exactly one `s` command.
///
/// # Errors
/// A [`ScriptError`] naming the first thing outside the supported subset.
pub fn parse_script(script: &str, syntax: Syntax) -> Result<Substitution, ScriptError> {
    let mut chars = script.chars();
    if chars.next() != Some('s') {
        return Err(ScriptError::NotASubstitution);
    }
    let delimiter = chars.next().ok_or(ScriptError::NotASubstitution)?;
    if !delimiter.is_ascii_punctuation() || delimiter == '\\' {
        return Err(ScriptError::Delimiter(delimiter));
    }
    let rest = chars.as_str();
    let (pattern, rest) = split_part(rest, delimiter, Part::Pattern)?;
    let (replacement, flags) = split_part(rest, delimiter, Part::Replacement)?;
    if pattern.is_empty() {
        return Err(ScriptError::EmptyPattern);
    }
    let flags = parse_flags(flags)?;
    let replacement = Replacement::parse(&replacement).map_err(ScriptError::Replacement)?;
    let groups = regex::count_groups(&pattern, syntax).map_err(ScriptError::Regex)?;
    if let Some(group) = replacement.highest_group()
        && usize::from(group) > groups
    {
        return Err(ScriptError::Replacement(ReplacementError::NoSuchGroup(
            group,
        )));
    }
    Ok(Substitution {
        delimiter,
        pattern,
        syntax,
        replacement,
        flags,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Pattern,
    Replacement,
}

/// Takes one delimited part off the front of `text`, as GNU sed's
/// `match_slash` does: an escaped delimiter becomes the plain character
/// (in the replacement, `\&` stays escaped when `&` is the delimiter, so
/// it still means a literal `&`); every other escape is kept as written
/// for the next stage. Bracket expressions are not special here: in
/// `s/[/]/x/` the `/` inside the brackets ends the pattern, as in sed.
fn split_part(text: &str, delimiter: char, part: Part) -> Result<(String, &str), ScriptError> {
    let mut out = String::new();
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        if c == delimiter {
            let rest = text.get(at + c.len_utf8()..).unwrap_or_default();
            return Ok((out, rest));
        }
        if c == '\\' {
            let Some((_, escaped)) = chars.next() else {
                return Err(ScriptError::Unterminated);
            };
            let keep_backslash =
                escaped != delimiter || (part == Part::Replacement && escaped == '&');
            if keep_backslash {
                out.push('\\');
            }
            out.push(escaped);
            continue;
        }
        out.push(c);
    }
    Err(ScriptError::Unterminated)
}

fn parse_flags(text: &str) -> Result<Flags, ScriptError> {
    let refuse = || ScriptError::Flag(text.to_owned());
    let mut flags = Flags::default();
    let mut seen_case = false;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            'g' if !flags.global => flags.global = true,
            'I' | 'i' if !seen_case => {
                seen_case = true;
                flags.ignore_case = true;
            }
            '1'..='9' if flags.occurrence.is_none() => {
                let mut end = at + 1;
                while let Some(&(next, d)) = chars.peek()
                    && d.is_ascii_digit()
                {
                    end = next + 1;
                    chars.next();
                }
                let digits = text.get(at..end).ok_or_else(refuse)?;
                flags.occurrence = Some(digits.parse().map_err(|_| refuse())?);
            }
            _ => return Err(refuse()),
        }
    }
    Ok(flags)
}
