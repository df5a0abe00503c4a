//! Which characters of a command line the shell reads as syntax: those
//! outside quotes, backquotes and `$(...)`, and not escaped by a backslash.
//! Qwen Code tracks this by hand in each of its checks
//! (`splitCommands`, `splitTrailingShellComment`,
//! `hasTopLevelTrailingBackgroundOperator`); here it is done once.
//!
//! A here-document's body is data, not syntax: Qwen reads its lines as
//! commands (`cat > f <<EOF` then a line `rm x` asks about, and allows,
//! `rm`), which names programs that never run. The scanner skips a body
//! whole, from the line after its `<<WORD` to its closing `WORD` line.

/// What the scanner is inside of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Inside {
    Single,
    Double,
    Backquote,
    /// `$(…)`, `${…}` or `$[…]`, closed by the character held.
    Expansion(char),
}

/// The characters at the top level of a command line, with their byte
/// offsets: an iterator over `(offset, char)`.
pub(super) struct TopLevel<'a> {
    text: &'a str,
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    stack: Vec<Inside>,
    /// The here-documents opened on the current line, whose bodies start
    /// after its break.
    heredocs: Vec<Heredoc>,
    /// The bodies skipped so far whose here-documents were all quoted:
    /// literal data the shell does not expand.
    literal: Vec<std::ops::Range<usize>>,
}

/// A here-document's closing line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Heredoc {
    /// The word that closes it, its quotes removed.
    pub(super) delimiter: String,
    /// `<<-`: leading tabs of the body and the closing line are ignored.
    pub(super) strip_tabs: bool,
    /// The word was quoted (`<<'EOF'`, `<<\EOF`): the body is not expanded.
    pub(super) quoted: bool,
}

impl<'a> TopLevel<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        TopLevel {
            text,
            chars: text.char_indices().peekable(),
            stack: Vec::new(),
            heredocs: Vec::new(),
            literal: Vec::new(),
        }
    }

    /// The line break after the last closing line of the pending
    /// here-documents, whose bodies start at `from`; `None` when a body is
    /// never closed or the last closing line ends the text (nothing follows
    /// the bodies either way).
    fn bodies_end(&self, from: usize) -> Option<usize> {
        let mut at = from;
        let mut closed_at = None;
        for heredoc in &self.heredocs {
            loop {
                let rest = self.text.get(at..).filter(|rest| !rest.is_empty())?;
                let end = rest.find('\n').map(|end| at + end);
                let line = &self.text[at..end.unwrap_or(self.text.len())];
                let line = if heredoc.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                let end = end?;
                at = end + 1;
                if line == heredoc.delimiter {
                    closed_at = Some(end);
                    break;
                }
            }
        }
        closed_at
    }

    /// The closing character of the expansion that starts at `at`: `$(`
    /// (a command substitution, or arithmetic), `${` (a parameter, whose
    /// words are no syntax of the line) or `$[` (bash's old arithmetic).
    fn expansion_at(&self, at: usize) -> Option<char> {
        match self.text.as_bytes().get(at + 1) {
            Some(b'(') => Some(')'),
            Some(b'{') => Some('}'),
            Some(b'[') => Some(']'),
            _ => None,
        }
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
                    '$' => {
                        if let Some(close) = self.expansion_at(at) {
                            self.chars.next();
                            self.stack.push(Inside::Expansion(close));
                        }
                    }
                    _ => {}
                },
                None | Some(Inside::Expansion(_)) => match c {
                    '\'' => self.stack.push(Inside::Single),
                    '"' => self.stack.push(Inside::Double),
                    '`' => self.stack.push(Inside::Backquote),
                    '$' if self.expansion_at(at).is_some() => {
                        self.chars.next();
                        self.stack
                            .extend(self.expansion_at(at).map(Inside::Expansion));
                    }
                    _ if inside == Some(Inside::Expansion(c)) => {
                        self.stack.pop();
                    }
                    '<' if inside.is_none() => {
                        if let Some(heredoc) = heredoc_at(self.text, at) {
                            self.heredocs.push(heredoc);
                        }
                        return Some((at, c));
                    }
                    '\n' if inside.is_none() && !self.heredocs.is_empty() => {
                        let end = self.bodies_end(at + 1);
                        let literal = self.heredocs.iter().all(|h| h.quoted);
                        self.heredocs.clear();
                        let end = end.unwrap_or(self.text.len());
                        if literal {
                            self.literal.push(at + 1..end);
                        }
                        if end == self.text.len() {
                            while self.chars.next().is_some() {}
                            return None;
                        }
                        while self.chars.next_if(|&(n, _)| n <= end).is_some() {}
                        return Some((end, '\n'));
                    }
                    _ if inside.is_none() => return Some((at, c)),
                    _ => {}
                },
            }
        }
    }
}

/// The bodies of `text`'s quoted here-documents: data the shell neither
/// splits nor expands.
pub(super) fn literal_bodies(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut top = TopLevel::new(text);
    top.by_ref().for_each(drop);
    top.literal
}

/// The here-document a top-level `<` at `at` opens: `<<WORD` or
/// `<<-WORD`, not `<<<` (a here-string) nor the second `<` of one.
pub(super) fn heredoc_at(text: &str, at: usize) -> Option<Heredoc> {
    let rest = text[at..].strip_prefix("<<")?;
    if rest.starts_with('<') || text[..at].ends_with('<') {
        return None;
    }
    let (strip_tabs, rest) = match rest.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, rest),
    };
    let rest = rest.trim_start_matches([' ', '\t']);
    let mut delimiter = String::new();
    let mut quoted = false;
    let mut quote: Option<char> = None;
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => delimiter.push(c),
            (None, '\'' | '"') => {
                quoted = true;
                quote = Some(c);
            }
            (None, '\\') => {
                quoted = true;
                delimiter.extend(chars.next());
            }
            (None, c) if c.is_whitespace() || ";|&<>()".contains(c) => break,
            (None, c) => delimiter.push(c),
        }
    }
    (!delimiter.is_empty()).then_some(Heredoc {
        delimiter,
        strip_tabs,
        quoted,
    })
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
/// `;`, `&`, `|`, `|&` and line breaks at the top level (`>&`, `<&`, `&>`
/// and `>|` are redirections, not separators; a here-document's body is
/// part of the command that opens it).
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
            // `&>file` and `&>>file` redirect both streams: no separator.
            ('&', Some('>')) => None,
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
