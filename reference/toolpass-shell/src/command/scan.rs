//! Which characters of a command line the shell reads as syntax: those
//! outside quotes, backquotes and `$(...)`, and not escaped by a backslash.
//! Qwen Code tracks this by hand in each of its checks
//! (`splitCommands`, `splitTrailingShellComment`,
//! `hasTopLevelTrailingBackgroundOperator`); here it is done once.

/// What the scanner is inside of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Inside {
    Single,
    Double,
    Backquote,
    Substitution,
}

/// The characters at the top level of a command line, with their byte
/// offsets: an iterator over `(offset, char)`.
pub(super) struct TopLevel<'a> {
    text: &'a str,
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    stack: Vec<Inside>,
}

impl<'a> TopLevel<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        TopLevel {
            text,
            chars: text.char_indices().peekable(),
            stack: Vec::new(),
        }
    }

    /// Whether `$(` starts at `at`.
    fn substitution_at(&self, at: usize) -> bool {
        self.text[at..].starts_with("$(")
    }
}

impl Iterator for TopLevel<'_> {
    type Item = (usize, char);

    fn next(&mut self) -> Option<(usize, char)> {
        loop {
            let (at, c) = self.chars.next()?;
            let inside = self.stack.last().copied();
            // A backslash escapes the next character everywhere but inside
            // single quotes.
            if c == '\\' && inside != Some(Inside::Single) {
                self.chars.next();
                continue;
            }
            match inside {
                Some(Inside::Single) => {
                    if c == '\'' {
                        self.stack.pop();
                    }
                }
                Some(Inside::Backquote) => {
                    if c == '`' {
                        self.stack.pop();
                    }
                }
                Some(Inside::Double) => match c {
                    '"' => {
                        self.stack.pop();
                    }
                    '`' => self.stack.push(Inside::Backquote),
                    '$' if self.substitution_at(at) => {
                        self.chars.next();
                        self.stack.push(Inside::Substitution);
                    }
                    _ => {}
                },
                None | Some(Inside::Substitution) => match c {
                    '\'' => self.stack.push(Inside::Single),
                    '"' => self.stack.push(Inside::Double),
                    '`' => self.stack.push(Inside::Backquote),
                    '$' if self.substitution_at(at) => {
                        self.chars.next();
                        self.stack.push(Inside::Substitution);
                    }
                    ')' if inside.is_some() => {
                        self.stack.pop();
                    }
                    _ if inside.is_none() => return Some((at, c)),
                    _ => {}
                },
            }
        }
    }
}

/// Where a comment starts: a top-level `#` at the start or after white
/// space (Qwen's `splitTrailingShellComment`).
pub(super) fn comment_start(command: &str) -> Option<usize> {
    TopLevel::new(command)
        .find(|&(at, c)| {
            c == '#'
                && command[..at]
                    .chars()
                    .next_back()
                    .is_none_or(char::is_whitespace)
        })
        .map(|(at, _)| at)
}

/// What separates two commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Separator {
    /// `|` or `|&`: the status is the last command's.
    Pipe,
    /// `&&`, `||`, `;`, `&` or a line break.
    Other,
}

/// A command line split into the commands it chains.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Segments {
    /// Each command, trimmed, empty ones left out (Qwen's `splitCommands`).
    pub commands: Vec<String>,
    separators: Vec<Separator>,
    /// A top-level `(` or `)`: a subshell or a process substitution, which
    /// Qwen's exit-status rule does not look into.
    grouped: bool,
}

impl Segments {
    /// Whether the commands are a plain pipeline: joined by pipes only
    /// (Qwen's `getExitStatusSegment`: at least one `|` and no operator but
    /// pipes and redirections).
    #[must_use]
    pub fn only_pipes(&self) -> bool {
        !self.grouped
            && !self.separators.is_empty()
            && self.separators.iter().all(|s| *s == Separator::Pipe)
    }
}

/// Qwen's `splitCommands`: the commands `command` chains with `&&`, `||`,
/// `;`, `&`, `|`, `|&` and line breaks at the top level (`>&`, `<&` and
/// `>|` are redirections, not separators).
#[must_use]
pub fn split_commands(command: &str) -> Segments {
    let mut segments = Segments::default();
    let mut start = 0;
    let mut top = TopLevel::new(command).peekable();
    let cut = |segments: &mut Segments, from: usize, to: usize, separator| {
        let text = command[from..to].trim();
        if !text.is_empty() {
            segments.commands.push(text.to_owned());
        }
        segments.separators.push(separator);
    };
    while let Some((at, c)) = top.next() {
        let next = top.peek().filter(|&&(n, _)| n == at + 1).map(|&(_, c)| c);
        let before = command[..at].trim_end().chars().next_back();
        let separator = match (c, next) {
            ('&', Some('&')) | ('|', Some('|')) => {
                top.next();
                Some((Separator::Other, 2))
            }
            ('|', Some('&')) => {
                top.next();
                Some((Separator::Pipe, 2))
            }
            (';' | '\n', _) => Some((Separator::Other, 1)),
            ('&', _) if !matches!(before, Some('>' | '<')) => Some((Separator::Other, 1)),
            ('|', _) if before != Some('>') => Some((Separator::Pipe, 1)),
            ('(' | ')', _) => {
                segments.grouped = true;
                None
            }
            _ => None,
        };
        if let Some((separator, length)) = separator {
            cut(&mut segments, start, at, separator);
            start = at + length;
        }
    }
    let rest = command[start..].trim();
    if !rest.is_empty() {
        segments.commands.push(rest.to_owned());
    }
    segments
}
