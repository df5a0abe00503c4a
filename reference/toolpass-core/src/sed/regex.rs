//! POSIX regular expressions as GNU sed reads them, rewritten into the
//! syntax of `regex-syntax` (the parser behind `regex-automata`).
//!
//! Every character that is literal in POSIX is emitted escaped when the
//! target syntax would give it a meaning, and only constructs this module
//! emits itself reach the target parser, so a pattern can never mean one
//! thing to sed and another here (`a*?` is lazy in Rust and "`a*` made
//! optional" in POSIX: it is refused). What has no faithful rendering is
//! refused with the construct named: back-references, GNU's word escapes
//! (`\w`, `\<`, `\b`, …) whose classes depend on the locale, character
//! classes (`[[:alpha:]]`), backslashes inside brackets other than GNU's
//! character escapes (`[ \t]`), and quantifiers
//! with nothing or another quantifier before them.

use std::fmt;

/// Why a pattern is outside the supported subset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegexError {
    /// A construct the emulation does not implement, as written.
    Unsupported(String),
    /// The pattern is malformed: an unmatched group, an unterminated
    /// bracket expression, a bad interval. Real sed refuses it too.
    Malformed(&'static str),
    /// The rewritten pattern did not compile (a reversed range `[z-a]`,
    /// or one too large to compile).
    Compile(String),
}

impl fmt::Display for RegexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unsupported(what) => {
                write!(f, "uses {what:?}, which the emulation does not support")
            }
            Self::Malformed(what) => write!(f, "is malformed: {what}"),
            Self::Compile(message) => write!(f, "does not compile: {message}"),
        }
    }
}

/// How `.` is rendered: GNU sed's `.` is any character but the newline;
/// JavaScript's (Qwen Code's emulation) also excludes `\r`, U+2028 and
/// U+2029.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dot {
    AnyButNewline,
    JavaScript,
}

/// A pattern rewritten for `regex-syntax`, with its number of groups.
#[derive(Debug)]
pub(crate) struct Translated {
    pub(crate) pattern: String,
    pub(crate) groups: usize,
}

/// Which regular expression syntax the pattern is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// POSIX basic regular expressions with GNU's extensions (`\+`, `\?`,
    /// `\|`): sed's default.
    Basic,
    /// POSIX extended regular expressions: `-E`, `-r`,
    /// `--regexp-extended`.
    Extended,
}

/// The number of capturing groups of `pattern`, checking that it is in the
/// supported subset and that the target parser takes the rewrite (a
/// reversed range `[z-a]` fails there). Only building the engines can find
/// a pattern too large for them; that surfaces when it is emulated.
pub(crate) fn count_groups(pattern: &str, syntax: Syntax) -> Result<usize, RegexError> {
    let translated = translate(pattern, syntax, Dot::AnyButNewline)?;
    regex_automata::util::syntax::parse(&translated.pattern)
        .map_err(|e| RegexError::Compile(e.to_string()))?;
    Ok(translated.groups)
}

/// Rewrites a POSIX pattern (GNU's dialect) for `regex-syntax`.
pub(crate) fn translate(pattern: &str, syntax: Syntax, dot: Dot) -> Result<Translated, RegexError> {
    let mut t = Translator {
        out: String::new(),
        groups: 0,
        open: 0,
        state: State::Start,
        dot,
    };
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        let token = match (c, syntax) {
            ('\\', _) => {
                let escaped = *chars
                    .get(i)
                    .ok_or(RegexError::Malformed("trailing backslash"))?;
                i += 1;
                escape_token(escaped, syntax)?
            }
            ('[', _) => {
                let (class, used) = bracket(chars.get(i..).unwrap_or_default())?;
                i += used;
                Token::Atom(class)
            }
            ('.', _) => Token::Atom(dot_class(t.dot).to_owned()),
            ('*', _) => Token::Quantifier("*".to_owned()),
            ('^', Syntax::Extended) => Token::Anchor("^"),
            ('$', Syntax::Extended) => Token::Anchor("$"),
            ('^', Syntax::Basic) if t.state == State::Start => Token::Anchor("^"),
            ('$', Syntax::Basic) if ends_basic_branch(chars.get(i..).unwrap_or_default()) => {
                Token::Anchor("$")
            }
            ('(', Syntax::Extended) => Token::Open,
            (')', Syntax::Extended) => Token::Close,
            ('|', Syntax::Extended) => Token::Alternation,
            ('+' | '?', Syntax::Extended) => Token::Quantifier(c.to_string()),
            ('{', Syntax::Extended) => {
                let (interval, used) =
                    interval(chars.get(i..).unwrap_or_default(), Syntax::Extended)?;
                i += used;
                Token::Quantifier(interval)
            }
            (other, _) => Token::Atom(literal(other)),
        };
        let token = match token {
            Token::Interval => {
                let (interval, used) = interval(chars.get(i..).unwrap_or_default(), Syntax::Basic)?;
                i += used;
                Token::Quantifier(interval)
            }
            other => other,
        };
        t.push(token, syntax)?;
    }
    if t.open != 0 {
        return Err(RegexError::Malformed("unmatched ( or \\("));
    }
    Ok(Translated {
        pattern: t.out,
        groups: t.groups,
    })
}

/// What the last emitted token allows next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Start of the pattern, of a group or of an alternative: `*` is literal
    /// in a BRE here, `^` an anchor, and an ERE quantifier is refused.
    Start,
    /// After something a quantifier may follow.
    Quantifiable,
    /// After a quantifier: another one is refused (`a**`, `a*?`).
    Quantified,
    /// After an anchor: a quantifier is refused.
    Anchored,
}

enum Token {
    Atom(String),
    Anchor(&'static str),
    Quantifier(String),
    /// A BRE `\{`: the interval is read by the caller.
    Interval,
    Open,
    Close,
    Alternation,
}

struct Translator {
    out: String,
    groups: usize,
    open: usize,
    state: State,
    dot: Dot,
}

impl Translator {
    fn push(&mut self, token: Token, syntax: Syntax) -> Result<(), RegexError> {
        match token {
            Token::Atom(text) => {
                self.out.push_str(&text);
                self.state = State::Quantifiable;
            }
            Token::Anchor(text) => {
                self.out.push_str(text);
                self.state = State::Anchored;
            }
            Token::Quantifier(q) => match self.state {
                State::Quantifiable => {
                    self.out.push_str(&q);
                    self.state = State::Quantified;
                }
                // POSIX: a `*` that starts a BRE (or a group, or follows
                // `^`) stands for itself.
                State::Start | State::Anchored if syntax == Syntax::Basic && q == "*" => {
                    self.out.push_str("\\*");
                    self.state = State::Quantifiable;
                }
                State::Start | State::Anchored | State::Quantified => {
                    return Err(RegexError::Unsupported(format!(
                        "a quantifier `{q}` with nothing to repeat"
                    )));
                }
            },
            Token::Interval => return Err(RegexError::Malformed("interval")),
            Token::Open => {
                self.out.push('(');
                self.groups += 1;
                self.open += 1;
                self.state = State::Start;
            }
            Token::Close => {
                if self.open == 0 {
                    return Err(RegexError::Malformed("unmatched ) or \\)"));
                }
                self.open -= 1;
                self.out.push(')');
                self.state = State::Quantifiable;
            }
            Token::Alternation => {
                self.out.push('|');
                self.state = State::Start;
            }
        }
        Ok(())
    }
}

fn dot_class(dot: Dot) -> &'static str {
    match dot {
        Dot::AnyButNewline => ".",
        Dot::JavaScript => "[^\\n\\r\\x{2028}\\x{2029}]",
    }
}

/// A character that means itself, escaped if the target syntax would
/// read it otherwise.
fn literal(c: char) -> String {
    let mut out = String::new();
    if regex_syntax::is_meta_character(c) {
        out.push('\\');
    }
    out.push(c);
    out
}

/// The token a backslash and `escaped` make.
fn escape_token(escaped: char, syntax: Syntax) -> Result<Token, RegexError> {
    Ok(match (escaped, syntax) {
        ('(', Syntax::Basic) => Token::Open,
        (')', Syntax::Basic) => Token::Close,
        ('|', Syntax::Basic) => Token::Alternation,
        ('+' | '?', Syntax::Basic) => Token::Quantifier(escaped.to_string()),
        ('{', Syntax::Basic) => Token::Interval,
        // GNU sed's character escapes, which `regex-syntax` spells alike.
        ('n' | 't' | 'r' | 'f' | 'v', _) => Token::Atom(format!("\\{escaped}")),
        (
            '.' | '*' | '[' | ']' | '^' | '$' | '\\' | '/' | '(' | ')' | '|' | '+' | '?' | '{'
            | '}',
            _,
        ) => Token::Atom(literal(escaped)),
        // A delimiter other than `/` arrives here already unescaped, so
        // what remains is GNU's special escapes or undefined ones.
        (other, _) => return Err(RegexError::Unsupported(format!("\\{other}"))),
    })
}

/// Whether a BRE `$` at this point ends its branch (then it is an
/// anchor; elsewhere GNU reads it as a literal `$`).
fn ends_basic_branch(rest: &[char]) -> bool {
    matches!(rest, [] | ['\\', ')' | '|', ..])
}

/// Reads an interval after its `{` (ERE) or `\{` (BRE): `m`, `m,`, `m,n`
/// or GNU's `,n`, closed by `}` (ERE) or `\}` (BRE).
fn interval(rest: &[char], syntax: Syntax) -> Result<(String, usize), RegexError> {
    let malformed = RegexError::Malformed("invalid interval");
    let close = match syntax {
        Syntax::Basic => rest
            .iter()
            .position(|&c| c == '\\')
            .filter(|&at| rest.get(at + 1) == Some(&'}')),
        Syntax::Extended => rest.iter().position(|&c| c == '}'),
    }
    .ok_or_else(|| malformed.clone())?;
    let body: String = rest.get(..close).unwrap_or_default().iter().collect();
    let (low, high) = match body.split_once(',') {
        Some((low, high)) => (low, Some(high)),
        None => (body.as_str(), None),
    };
    let number = |s: &str| s.parse::<u16>().map_err(|_| malformed.clone());
    let low = if low.is_empty() && high.is_some() {
        0
    } else {
        number(low)?
    };
    let rendered = match high {
        None => format!("{{{low}}}"),
        Some("") => format!("{{{low},}}"),
        Some(high) => {
            let high = number(high)?;
            if high < low {
                return Err(malformed);
            }
            format!("{{{low},{high}}}")
        }
    };
    let used = close + if syntax == Syntax::Basic { 2 } else { 1 };
    Ok((rendered, used))
}

/// Reads a bracket expression after its `[`; returns the class in the
/// target syntax and how many characters it took.
fn bracket(rest: &[char]) -> Result<(String, usize), RegexError> {
    let mut out = String::from("[");
    let mut i = 0;
    if rest.first() == Some(&'^') {
        out.push('^');
        i += 1;
    }
    // A `]` first in the list is a member, not the end.
    if rest.get(i) == Some(&']') {
        out.push_str("\\]");
        i += 1;
    }
    loop {
        let c = *rest
            .get(i)
            .ok_or(RegexError::Malformed("unterminated bracket expression"))?;
        i += 1;
        match c {
            ']' => break,
            '[' if matches!(rest.get(i), Some(':' | '.' | '=')) => {
                return Err(RegexError::Unsupported(format!(
                    "[{}",
                    rest.get(i).copied().unwrap_or(':')
                )));
            }
            // GNU sed turns its character escapes into the character before
            // the regex is compiled, inside brackets too (`[ \t]` is a blank
            // or a tab); any other backslash there is a literal one in POSIX
            // and an escape in Rust, too easy to get wrong either way.
            '\\' => match rest.get(i) {
                Some(&escaped @ ('n' | 't' | 'r' | 'f' | 'v')) => {
                    out.push('\\');
                    out.push(escaped);
                    i += 1;
                }
                _ => {
                    return Err(RegexError::Unsupported(
                        "a backslash in a bracket expression".to_owned(),
                    ));
                }
            },
            '-' if rest.get(i) == Some(&'-') => {
                return Err(RegexError::Unsupported(
                    "`--` in a bracket expression".to_owned(),
                ));
            }
            '-' => out.push('-'),
            '[' | '&' | '~' | '^' => {
                out.push('\\');
                out.push(c);
            }
            other => out.push(other),
        }
    }
    out.push(']');
    Ok((out, i))
}
