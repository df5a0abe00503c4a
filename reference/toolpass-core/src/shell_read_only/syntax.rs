//! The shape of a command line, as far as the classifier trusts it: the
//! simple commands it chains with `&&`, `||`, `;`, `&`, `|`, `|&` and line
//! breaks, each one's words and redirections. Qwen Code parses with
//! tree-sitter-bash; here the words are `shlex`'s (POSIX quoting, as in
//! [`crate::sed`]), and which characters the shell reads as syntax is asked
//! of `shlex` too: a character is unquoted exactly when the text before it
//! splits, and inside single or double quotes when closing that quote makes
//! it split. A subshell `( … )` is read as the commands inside it (its
//! redirections apply to it all). Whatever this does not model is refused
//! (`Err`), which the classifier answers with "unknown", so the command
//! asks: groups (`{ …; }`), function definitions, arithmetic (`((`),
//! command and process substitution,
//! `$'…'` and `$"…"` quoting, `${…@P}`, here-documents, `<>`, named
//! descriptors (`{fd}>`), comments, `;;`, an operator with no command on
//! one side, and a line over [`MAX_LENGTH`] bytes.

use std::collections::BTreeMap;

/// The longest command line judged; a longer one asks. Each character the
/// shell could read as syntax costs a few splits of the text before it, so
/// the bound keeps the worst case to milliseconds.
pub(super) const MAX_LENGTH: usize = 2048;

/// Where a character stands in the shell's quoting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Quoting {
    /// Unquoted and unescaped: the shell may read it as syntax.
    Bare,
    /// Right after an unquoted backslash.
    Escaped,
    /// Inside single quotes.
    Single,
    /// Inside double quotes, where `$` and backquotes still expand.
    Double,
    /// Inside double quotes, right after a backslash.
    DoubleEscaped,
}

/// The characters whose quoting is asked: those the shell may read as
/// syntax, and the white space that separates words.
const WATCHED: &[char] = &[
    ' ', '\t', '\n', '|', '&', ';', '<', '>', '(', ')', '$', '`', '*', '?', '[', '{', '}', '#',
];

/// Why a command line is not judged.
pub(super) type Refusal = &'static str;

/// One word of a command, as written and as the shell passes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Word {
    /// The text as written, quotes included.
    pub(super) raw: String,
    /// The word after quote removal.
    pub(super) value: String,
    /// An unquoted or double-quoted `$`: a parameter expansion.
    pub(super) expands: bool,
    /// An unquoted glob character or brace expansion.
    pub(super) pattern: bool,
}

impl Word {
    /// `NAME=value` as written (a quoted name is no assignment).
    pub(super) fn is_assignment(&self) -> bool {
        crate::sed::starts_with_assignment(&self.raw)
    }
}

/// A redirection: its operator and the word it applies to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Redirect {
    /// `>`, `>>`, `>|`, `>&`, `&>`, `&>>`, `<`, `<&`, `<<<`.
    pub(super) operator: &'static str,
    pub(super) target: Word,
}

/// One simple command: its words (assignments, name, arguments) and
/// redirections.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Command {
    pub(super) words: Vec<Word>,
    pub(super) redirects: Vec<Redirect>,
}

/// What ends a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Separator {
    /// A line break.
    Newline,
    /// `;` or `&`.
    Terminator,
    /// `&&`, `||`, `|`, `|&`: a command must precede and follow.
    Connector,
}

/// Redirection operators, longest first so that the first match is the
/// operator the shell reads.
const REDIRECTIONS: &[&str] = &[
    "&>>", "<<<", "<<-", "&>", "<<", "<&", "<>", ">>", ">&", ">|", "<", ">",
];

/// The commands `text` chains, or why it is not judged.
pub(super) fn parse(text: &str) -> Result<Vec<Command>, Refusal> {
    if text.len() > MAX_LENGTH {
        return Err("too long to judge");
    }
    if text.contains('\0') {
        return Err("a NUL byte");
    }
    let words = shlex::split(text).ok_or("an unterminated quote or escape")?;
    // A `#` that starts a word begins a comment, which the words no longer
    // show; the probes below need comment-free text.
    if text.matches('#').count() > words.iter().map(|w| w.matches('#').count()).sum() {
        return Err("a comment");
    }
    let quoting = Quotings::of(text)?;
    quoting.refuse_substitutions(text)?;
    let mut line = Line {
        text,
        quoting: &quoting,
        commands: Vec::new(),
        start: 0,
        before: None,
        depth: 0,
        closed: false,
    };
    let mut cursor = quoting.bare().peekable();
    while let Some((at, c)) = cursor.next() {
        let next = text.get(at + 1..).and_then(|rest| rest.chars().next());
        let previous = at
            .checked_sub(1)
            .filter(|&p| quoting.is_bare(p))
            .and_then(|p| text.get(p..at));
        let separator = match (c, next) {
            ('(', Some('(')) => return Err("arithmetic"),
            ('(', _) => {
                line.open(at)?;
                None
            }
            (')', _) => {
                line.close(at)?;
                None
            }
            (';', Some(';')) => return Err("a case terminator"),
            ('&', Some('&')) | ('|', Some('|' | '&')) => Some((Separator::Connector, 2)),
            ('&', Some('>')) => None,
            ('&', _) if matches!(previous, Some(">" | "<")) => None,
            ('|', _) if previous == Some(">") => None,
            ('|', _) => Some((Separator::Connector, 1)),
            ('\n', _) => Some((Separator::Newline, 1)),
            (';' | '&', _) => Some((Separator::Terminator, 1)),
            _ => None,
        };
        if let Some((separator, length)) = separator {
            line.end_command(at, Some(separator))?;
            line.before = Some(separator);
            line.start = at + length;
            if length == 2 {
                cursor.next();
            }
        }
    }
    line.end_command(text.len(), None)?;
    if line.depth > 0 {
        return Err("an unclosed subshell");
    }
    if line.commands.is_empty() {
        return Err("no command");
    }
    Ok(line.commands)
}

/// The state of reading a line: the commands so far, where the current
/// one starts, what came before it, and the subshells open.
struct Line<'a> {
    text: &'a str,
    quoting: &'a Quotings,
    commands: Vec<Command>,
    start: usize,
    before: Option<Separator>,
    /// Subshells opened and not yet closed.
    depth: usize,
    /// A subshell was just closed: until the next separator only
    /// redirections (of the whole subshell) may follow.
    closed: bool,
}

impl Line<'_> {
    /// A `(` at `at`: a subshell, only where a command may start (not
    /// `f()`, `<(…)` or right after another subshell).
    fn open(&mut self, at: usize) -> Result<(), Refusal> {
        let written = self.text.get(self.start..at).unwrap_or_default();
        if !written.trim().is_empty() || self.closed {
            return Err("a function definition, process substitution or misplaced `(`");
        }
        self.depth += 1;
        self.start = at + 1;
        // A command must follow, as after `&&`.
        self.before = Some(Separator::Connector);
        Ok(())
    }

    /// A `)` at `at`: the end of the innermost subshell, after a command.
    fn close(&mut self, at: usize) -> Result<(), Refusal> {
        self.depth = self.depth.checked_sub(1).ok_or("a `)` with no `(`")?;
        let last = command(self.text, self.quoting, self.start, at)?;
        let empty = last.words.is_empty() && last.redirects.is_empty();
        if empty && !self.closed {
            return Err("an empty subshell or a separator before `)`");
        }
        self.end_command(at, Some(Separator::Terminator))?;
        self.start = at + 1;
        self.closed = true;
        Ok(())
    }

    /// Ends the command written from `start` to `end`, before `after`.
    fn end_command(&mut self, end: usize, after: Option<Separator>) -> Result<(), Refusal> {
        let command = command(self.text, self.quoting, self.start, end)?;
        if std::mem::take(&mut self.closed) {
            // What follows a subshell's `)`: its redirections, or nothing.
            if !command.words.is_empty() {
                return Err("words after a subshell");
            }
            if !command.redirects.is_empty() {
                self.commands.push(command);
            }
            return Ok(());
        }
        push(&mut self.commands, command, self.before, after)
    }
}

/// Adds a command found between `before` and `after`. An empty one is
/// allowed where the shell allows it: before a line break or the end
/// (blank lines, a trailing `;` or `&`), never next to `&&`, `||` or a
/// pipe, nor before `;` or `&`.
fn push(
    commands: &mut Vec<Command>,
    command: Command,
    before: Option<Separator>,
    after: Option<Separator>,
) -> Result<(), Refusal> {
    if !command.words.is_empty() || !command.redirects.is_empty() {
        commands.push(command);
        return Ok(());
    }
    let ends_line = matches!(after, None | Some(Separator::Newline));
    if ends_line && before != Some(Separator::Connector) {
        return Ok(());
    }
    Err("an operator with no command on one side")
}

/// The words and redirections of `text[start..end]`.
fn command(text: &str, quoting: &Quotings, start: usize, end: usize) -> Result<Command, Refusal> {
    let segment = text.get(start..end).ok_or("a split inside a character")?;
    let mut reader = CommandReader {
        text,
        quoting,
        parsed: Command::default(),
        word_start: None,
        operator: None,
    };
    let mut chars = segment.char_indices().map(|(i, c)| (start + i, c));
    while let Some((at, c)) = chars.next() {
        let bare = quoting.is_bare(at);
        if bare && (c == ' ' || c == '\t') {
            reader.finish(at)?;
            continue;
        }
        let redirection = bare
            .then(|| text.get(at..end))
            .flatten()
            .and_then(|rest| REDIRECTIONS.iter().find(|op| rest.starts_with(**op)))
            .filter(|op| c != '&' || op.starts_with("&>"));
        let Some(&op) = redirection else {
            reader.word_start.get_or_insert(at);
            continue;
        };
        reader.redirection(op, at)?;
        for _ in 1..op.len() {
            chars.next();
        }
    }
    reader.finish(end)?;
    if reader.operator.is_some() {
        return Err("a redirection without a target");
    }
    Ok(reader.parsed)
}

/// The state of reading one command: the word being read and the
/// redirection waiting for its target.
struct CommandReader<'a> {
    text: &'a str,
    quoting: &'a Quotings,
    parsed: Command,
    word_start: Option<usize>,
    operator: Option<&'static str>,
}

impl CommandReader<'_> {
    /// A redirection operator `op` at `at`.
    fn redirection(&mut self, op: &'static str, at: usize) -> Result<(), Refusal> {
        if matches!(op, "<<" | "<<-") {
            return Err("a here-document");
        }
        if op == "<>" {
            return Err("a read-write redirection");
        }
        if self.operator.is_some() && self.word_start.is_none() {
            return Err("a redirection without a target");
        }
        // Digits right before the operator name the descriptor; any other
        // word ends there (`a>b` is `a` then `>b`).
        let written = self
            .word_start
            .and_then(|s| self.text.get(s..at))
            .unwrap_or_default();
        let descriptor = !written.is_empty()
            && written.bytes().all(|b| b.is_ascii_digit())
            && !op.starts_with('&')
            && self.operator.is_none();
        if descriptor {
            self.word_start = None;
        } else if written.ends_with('}') {
            return Err("a named descriptor");
        } else {
            self.finish(at)?;
        }
        self.operator = Some(op);
        Ok(())
    }

    /// Ends the word being read before `end`: a redirection's target when
    /// one waits for it, else the command's next word.
    fn finish(&mut self, end: usize) -> Result<(), Refusal> {
        let Some(start) = self.word_start.take() else {
            return Ok(());
        };
        let word = self.quoting.word(self.text, start, end)?;
        match self.operator.take() {
            Some(operator) => self.parsed.redirects.push(Redirect {
                operator,
                target: word,
            }),
            None => self.parsed.words.push(word),
        }
        Ok(())
    }
}

/// The quoting of every watched character of a text, by byte offset.
struct Quotings(BTreeMap<usize, (char, Quoting)>);

impl Quotings {
    /// The quoting of `text`'s watched characters; refused when `shlex`
    /// accepts no completion of the text before one (which would leave an
    /// operator unplaced).
    fn of(text: &str) -> Result<Self, Refusal> {
        let mut map = BTreeMap::new();
        // Only a quote or a backslash changes the quoting, so a watched
        // character after none of them since the last one probed shares
        // its quoting: `shlex` is asked once per stretch, not per character.
        let mut last: Option<(usize, Quoting)> = None;
        for (at, c) in text.char_indices().filter(|(_, c)| WATCHED.contains(c)) {
            let unchanged = last.and_then(|(from, quoting)| {
                let between = text.get(from..at)?;
                let steady = matches!(quoting, Quoting::Bare | Quoting::Single | Quoting::Double);
                (steady && !between.contains(['\'', '"', '\\'])).then_some(quoting)
            });
            let quoting = unchanged
                .or_else(|| quoting_at(text, at))
                .ok_or("a character whose quoting is unclear")?;
            map.insert(at, (c, quoting));
            last = Some((at, quoting));
        }
        Ok(Self(map))
    }

    fn get(&self, at: usize) -> Option<Quoting> {
        self.0.get(&at).map(|&(_, q)| q)
    }

    fn is_bare(&self, at: usize) -> bool {
        self.get(at) == Some(Quoting::Bare)
    }

    /// The unquoted watched characters, in order.
    fn bare(&self) -> impl Iterator<Item = (usize, char)> + '_ {
        self.0
            .iter()
            .filter(|(_, (_, q))| *q == Quoting::Bare)
            .map(|(&at, &(c, _))| (at, c))
    }

    /// Refuses what runs or expands code while the line is read: command
    /// substitution (`$(…)`, backquotes; `<(…)` is refused as a `(`),
    /// `$'…'`/`$"…"` quoting, whose meaning `shlex` does not share, and
    /// `${…@P}`, which expands a value as a prompt (and so its `$(…)`).
    fn refuse_substitutions(&self, text: &str) -> Result<(), Refusal> {
        let mut after_dollar_dollar = None;
        for (&at, &(c, q)) in &self.0 {
            let expanding = matches!(q, Quoting::Bare | Quoting::Double);
            if !expanding || after_dollar_dollar == Some(at) {
                continue;
            }
            if c == '`' {
                return Err("a command substitution");
            }
            if c != '$' {
                continue;
            }
            let rest = text.get(at + 1..).unwrap_or_default();
            match rest.chars().next() {
                Some('(') => return Err("a command substitution"),
                Some('\'' | '"') if q == Quoting::Bare => return Err("$'…' or $\"…\" quoting"),
                Some('{')
                    if rest
                        .split('}')
                        .next()
                        .is_some_and(|inside| inside.contains("@P")) =>
                {
                    return Err("a prompt expansion");
                }
                // `$$` is the shell's pid; a `(` after it is literal.
                Some('$') => after_dollar_dollar = Some(at + 1),
                _ => {}
            }
        }
        Ok(())
    }

    /// The word written in `text[start..end]`.
    fn word(&self, text: &str, start: usize, end: usize) -> Result<Word, Refusal> {
        let raw = text.get(start..end).ok_or("a split inside a character")?;
        let value = match shlex::split(raw).as_deref() {
            Some([value]) => value.clone(),
            _ => return Err("a word the shell would split differently"),
        };
        let inside = || self.0.range(start..end).map(|(_, &(c, q))| (c, q));
        let expands =
            inside().any(|(c, q)| c == '$' && matches!(q, Quoting::Bare | Quoting::Double));
        let globs = inside().any(|(c, q)| matches!(c, '*' | '?' | '[') && q == Quoting::Bare);
        let braces =
            inside().any(|(c, q)| c == '{' && q == Quoting::Bare) && has_brace_expansion(raw);
        Ok(Word {
            raw: raw.to_owned(),
            value,
            expands,
            pattern: globs || braces,
        })
    }
}

/// The quoting of the character at `at`, from which completions of the
/// text before it `shlex` accepts.
fn quoting_at(text: &str, at: usize) -> Option<Quoting> {
    let before = text.get(..at)?;
    let splits = |completion: &str| shlex::split(&format!("{before}{completion}")).is_some();
    if splits("") {
        Some(Quoting::Bare)
    } else if splits("x") {
        Some(Quoting::Escaped)
    } else if splits("'") {
        Some(Quoting::Single)
    } else if splits("\"") {
        Some(Quoting::Double)
    } else if splits("x\"") {
        Some(Quoting::DoubleEscaped)
    } else {
        None
    }
}

/// Qwen's `hasShellBraceExpansion`: a `,` or `..` inside braces.
pub(super) fn has_brace_expansion(text: &str) -> bool {
    let mut depth = 0usize;
    let mut previous_dot = false;
    for c in text.chars() {
        match c {
            '{' => {
                depth += 1;
                previous_dot = false;
            }
            '}' => {
                depth = depth.saturating_sub(1);
                previous_dot = false;
            }
            _ if depth > 0 => {
                if c == ',' || (c == '.' && previous_dot) {
                    return true;
                }
                previous_dot = c == '.';
            }
            _ => {}
        }
    }
    false
}
