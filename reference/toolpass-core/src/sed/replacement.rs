//! The replacement of an `s` command: literal text, `&` (the whole match)
//! and `\1`…`\9` (a group), with `\n`, `\&` and `\\` as escapes.

use std::fmt;

/// One piece of a [`Replacement`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Text copied as it is.
    Text(String),
    /// `&`: the whole match.
    Match,
    /// `\1`…`\9`: what that group matched, empty if it took no part.
    Group(u8),
}

/// What each chosen match becomes, parsed once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replacement {
    pieces: Vec<Piece>,
}

/// Why a replacement is outside the supported subset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplacementError {
    /// An escape other than `\1`…`\9`, `\&`, `\\`, `\n`, `\t`, `\r` and
    /// escaped punctuation: GNU's case conversions (`\U`, `\L`, `\u`, `\l`,
    /// `\E`), `\0`, `\x41` and the like, or a backslash ending the text.
    Escape(String),
    /// A group the pattern does not have (`\2` with one group): GNU sed
    /// refuses the script.
    NoSuchGroup(u8),
}

impl fmt::Display for ReplacementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Escape(escape) => write!(f, "uses the unsupported escape {escape:?}"),
            Self::NoSuchGroup(n) => {
                write!(f, "refers to group {n}, which the pattern does not have")
            }
        }
    }
}

impl Replacement {
    /// Parses a replacement as [`super::script`] split it off the script
    /// (escaped delimiters already plain characters).
    ///
    /// # Errors
    /// [`ReplacementError::Escape`] for an escape outside the subset.
    pub fn parse(text: &str) -> Result<Self, ReplacementError> {
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            let piece = match c {
                '&' => Piece::Match,
                '\\' => match chars.next() {
                    Some(d @ '1'..='9') => Piece::Group(digit_value(d)),
                    Some(escaped @ ('n' | 't' | 'r')) => {
                        literal.push(control(escaped));
                        continue;
                    }
                    Some(escaped @ ('&' | '\\')) => {
                        literal.push(escaped);
                        continue;
                    }
                    // The escaped delimiter was made plain by the splitter;
                    // any other punctuation escaped is what the delimiter
                    // would have been, and means itself in GNU sed too.
                    Some(escaped) if escaped.is_ascii_punctuation() => {
                        literal.push(escaped);
                        continue;
                    }
                    Some(escaped) => return Err(ReplacementError::Escape(format!("\\{escaped}"))),
                    None => return Err(ReplacementError::Escape("\\".to_owned())),
                },
                other => {
                    literal.push(other);
                    continue;
                }
            };
            if !literal.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut literal)));
            }
            pieces.push(piece);
        }
        if !literal.is_empty() {
            pieces.push(Piece::Text(literal));
        }
        Ok(Self { pieces })
    }

    /// The pieces in order.
    #[must_use]
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// The highest group referred to, if any.
    #[must_use]
    pub fn highest_group(&self) -> Option<u8> {
        self.pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Group(n) => Some(*n),
                Piece::Text(_) | Piece::Match => None,
            })
            .max()
    }

    /// Appends the replacement for one match to `out`; `group(n)` is the
    /// text group `n` matched (0: the whole match).
    pub(crate) fn expand<'h>(&self, out: &mut String, group: impl Fn(usize) -> &'h str) {
        for piece in &self.pieces {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::Match => out.push_str(group(0)),
                Piece::Group(n) => out.push_str(group(usize::from(*n))),
            }
        }
    }
}

/// The character GNU sed writes for `\n`, `\t` and `\r`.
fn control(escaped: char) -> char {
    match escaped {
        'n' => '\n',
        't' => '\t',
        _ => '\r',
    }
}

fn digit_value(d: char) -> u8 {
    d.to_digit(10)
        .and_then(|v| u8::try_from(v).ok())
        .unwrap_or(0)
}
