//! Runs a [`Substitution`] over a file's text in memory, line by line, with
//! GNU sed's semantics (or, as an option, with those of Qwen Code 0.24.4's
//! JavaScript emulation).
//!
//! sed reads a line without its `\n`, runs the script on it and writes it
//! back with the `\n` it had (the last line keeps having none if it had
//! none). So `^`, `$` and `.` never see a newline, and on a CRLF file the
//! `\r` is an ordinary last character of each line: `s/a$/b/` does not match
//! `a\r\n`, and `s/.*/x/` eats the `\r`. GNU sed finds the leftmost match
//! and of those the longest (POSIX), where JavaScript and Rust take the
//! first alternative that matches: `s/a|ab/x/` turns `ab` into `x` in sed
//! and into `xb` in Qwen. A match that is empty and right after the
//! previous match is not a match (`s/b*/x/g` on `abc` gives `xaxcx`).

use std::fmt;
use std::ops::Range;

use regex_automata::nfa::thompson::pikevm::{self, PikeVM};
use regex_automata::util::captures::Captures;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, MatchKind, hybrid, meta};

use super::regex::{Dot, RegexError, translate};
use super::script::Substitution;

/// Whose semantics the emulation follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// GNU sed 4.9 in a UTF-8 locale.
    #[default]
    Gnu,
    /// What published Qwen Code 0.24.4 writes for the same command
    /// (`applySedSubstitution` in `packages/core/src/utils/sedEditParser.ts`
    /// and the write that follows in `tools/shell.ts`): the first matching
    /// alternative rather than the longest; `.` that does not match `\r`,
    /// U+2028 or U+2029 (a JavaScript `RegExp` without the `s` flag); and,
    /// when the file had a `\r\n`, every line break of the result written
    /// as `\r\n` (its `ensureCrlfLineEndings`), which undoes a `s/\r$//`.
    /// JavaScript's UTF-16 code units (a `.` matching half of an emoji) are
    /// not modelled.
    Qwen0244,
}

/// How to emulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Whose semantics to follow.
    pub dialect: Dialect,
    /// The largest result, in bytes, before the emulation gives up
    /// ([`EmulationError::TooLarge`]): `s/x*/&&&&/g` multiplies a file.
    pub max_output_bytes: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            dialect: Dialect::Gnu,
            max_output_bytes: 64 << 20,
        }
    }
}

/// Why the emulation did not produce a result. Every case means "let the
/// real sed run": nothing was decided about the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmulationError {
    /// The file is not UTF-8: a pattern would have to decide what `.` means
    /// on the malformed bytes, which depends on sed's locale.
    NotUtf8 {
        /// Byte offset of the first malformed sequence.
        offset: usize,
    },
    /// The pattern is outside the supported subset (a [`Substitution`]
    /// from [`super::parse_script`] never is), or too large to compile.
    Regex(RegexError),
    /// An empty match right before a multibyte character, with the search
    /// going on (`g`, or an occurrence not reached yet). GNU sed 4.9 then
    /// steps one *byte* on and can match inside the character, cutting it
    /// (`s/x*/-/g` on `é` writes `-\xC3-\xA9-`); JavaScript steps one UTF-16
    /// unit and cuts characters outside the BMP. The emulation does not
    /// reproduce a cut character, nor claim a result sed would not give.
    EmptyMatchBeforeMultibyte {
        /// Byte offset of the character in the file.
        offset: usize,
    },
    /// The result would exceed [`Options::max_output_bytes`].
    TooLarge {
        /// The limit that was passed.
        limit: usize,
    },
}

impl fmt::Display for EmulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotUtf8 { offset } => write!(f, "the file is not UTF-8 (at byte {offset})"),
            Self::Regex(e) => write!(f, "the pattern {e}"),
            Self::EmptyMatchBeforeMultibyte { offset } => write!(
                f,
                "an empty match before the multibyte character at byte {offset} would make sed cut it"
            ),
            Self::TooLarge { limit } => write!(f, "the result would exceed {limit} bytes"),
        }
    }
}

/// A substitution compiled for one dialect.
#[derive(Clone, Debug)]
pub struct Program {
    substitution: Substitution,
    options: Options,
    /// Leftmost-first, per line: where the leftmost match starts (both
    /// dialects) and, for Qwen's, the match itself.
    line: meta::Regex,
    /// The same pattern with `^` and `$` at every line: a whole-file search
    /// for the next line that may hold a match, so lines without one are
    /// copied wholesale. It may also report a match a line alone would not
    /// have (a `[^a]` matching a `\n`); that line is then run and left as is.
    candidate: meta::Regex,
    /// Anchored at a match's start, the longest match there (GNU's
    /// dialect only).
    longest: Option<Longest>,
    /// Whether the replacement uses `\1`…`\9`; without, a match's span is
    /// all it needs and the lazy DFA finds it.
    needs_groups: bool,
    /// How many bytes of a character the search steps over after an empty
    /// match without cutting it: 1 for sed (a byte), 3 for JavaScript
    /// (a UTF-16 unit holds any character up to U+FFFF, three UTF-8 bytes).
    step_bytes: usize,
}

impl Program {
    /// Compiles `substitution` for `options.dialect`.
    ///
    /// # Errors
    /// [`EmulationError::Regex`] when the pattern is outside the subset.
    pub fn new(substitution: &Substitution, options: Options) -> Result<Self, EmulationError> {
        let dot = match options.dialect {
            Dialect::Gnu => Dot::AnyButNewline,
            Dialect::Qwen0244 => Dot::JavaScript,
        };
        let translated = translate(&substitution.pattern, substitution.syntax, dot)
            .map_err(EmulationError::Regex)?;
        let syntax = syntax::Config::new().case_insensitive(substitution.flags.ignore_case);
        let compile_error =
            |e: &dyn fmt::Display| EmulationError::Regex(RegexError::Compile(e.to_string()));
        let build = |multi_line: bool| {
            meta::Regex::builder()
                .syntax(syntax.multi_line(multi_line))
                .build(&translated.pattern)
                .map_err(|e| compile_error(&e))
        };
        let longest = match options.dialect {
            Dialect::Gnu => Some(Longest::new(&translated.pattern, syntax)?),
            Dialect::Qwen0244 => None,
        };
        Ok(Self {
            substitution: substitution.clone(),
            options,
            line: build(false)?,
            candidate: build(true)?,
            longest,
            needs_groups: substitution.replacement.highest_group().is_some(),
            step_bytes: match options.dialect {
                Dialect::Gnu => 1,
                Dialect::Qwen0244 => 3,
            },
        })
    }

    /// The substitution this program runs.
    #[must_use]
    pub fn substitution(&self) -> &Substitution {
        &self.substitution
    }

    /// Runs the substitution over `text` and returns what the file becomes.
    ///
    /// # Errors
    /// [`EmulationError::NotUtf8`], [`EmulationError::EmptyMatchBeforeMultibyte`]
    /// and [`EmulationError::TooLarge`].
    pub fn apply(&self, text: &[u8]) -> Result<String, EmulationError> {
        self.apply_text(utf8(text)?)
    }

    /// [`Program::apply`] on text already known to be UTF-8 (a caller that
    /// decoded the file need not pay for a second validation).
    ///
    /// # Errors
    /// [`EmulationError::EmptyMatchBeforeMultibyte`] and
    /// [`EmulationError::TooLarge`].
    pub fn apply_text(&self, text: &str) -> Result<String, EmulationError> {
        self.run(text, Scan::Candidates)
    }

    /// [`Program::apply`] without skipping lines: the script runs on every
    /// line, as sed does. The model the fast path is checked against.
    #[cfg(any(test, feature = "testkit"))]
    pub(crate) fn apply_every_line(&self, text: &[u8]) -> Result<String, EmulationError> {
        self.run(utf8(text)?, Scan::EveryLine)
    }

    fn run(&self, text: &str, scan: Scan) -> Result<String, EmulationError> {
        let mut run = Run::new(self);
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        let mut searched = 0;
        while let Some(line) = run.next_line(text, searched, scan) {
            out.push_str(text.get(copied..line.start).unwrap_or_default());
            run.line(
                text.get(line.clone()).unwrap_or_default(),
                line.start,
                &mut out,
            )?;
            self.check_size(&out)?;
            copied = line.end;
            searched = line.end + 1;
        }
        out.push_str(text.get(copied..).unwrap_or_default());
        if self.options.dialect == Dialect::Qwen0244 && text.contains("\r\n") {
            out = out.replace("\r\n", "\n").replace('\n', "\r\n");
        }
        self.check_size(&out)?;
        Ok(out)
    }

    fn check_size(&self, out: &str) -> Result<(), EmulationError> {
        let limit = self.options.max_output_bytes;
        if out.len() > limit {
            return Err(EmulationError::TooLarge { limit });
        }
        Ok(())
    }
}

fn utf8(text: &[u8]) -> Result<&str, EmulationError> {
    std::str::from_utf8(text).map_err(|e| EmulationError::NotUtf8 {
        offset: e.valid_up_to(),
    })
}

/// Which lines [`Program::run`] visits.
#[derive(Clone, Copy)]
enum Scan {
    /// Only those the candidate search finds (the fast path).
    Candidates,
    /// All of them (the model).
    #[cfg(any(test, feature = "testkit"))]
    EveryLine,
}

/// GNU's longest match from a start: a lazy DFA and a PikeVM, both with
/// `MatchKind::All` (which keeps going after a match and reports the last
/// one), searched anchored at the leftmost match's start. The DFA gives the
/// end alone and is tried first; the PikeVM also gives the groups, and
/// stands in when the DFA gives up (its cache thrashing).
#[derive(Clone, Debug)]
struct Longest {
    /// `None` when the pattern does not build as a DFA: the PikeVM alone.
    dfa: Option<hybrid::dfa::DFA>,
    vm: PikeVM,
}

impl Longest {
    fn new(pattern: &str, syntax: syntax::Config) -> Result<Self, EmulationError> {
        let dfa = hybrid::dfa::DFA::builder()
            .syntax(syntax)
            .configure(hybrid::dfa::DFA::config().match_kind(MatchKind::All))
            .build(pattern)
            .ok();
        let vm = PikeVM::builder()
            .syntax(syntax)
            .configure(PikeVM::config().match_kind(MatchKind::All))
            .build(pattern)
            .map_err(|e| EmulationError::Regex(RegexError::Compile(e.to_string())))?;
        Ok(Self { dfa, vm })
    }
}

/// The state one application needs: the engines' scratch space and the
/// groups of the last match.
struct Run<'p> {
    program: &'p Program,
    /// The meta engines' caches, held for the whole run rather than taken
    /// from their pools at every search.
    line_cache: meta::Cache,
    candidate_cache: meta::Cache,
    captures: Captures,
    vm_cache: Option<pikevm::Cache>,
    dfa_cache: Option<hybrid::dfa::Cache>,
}

impl<'p> Run<'p> {
    fn new(program: &'p Program) -> Self {
        match &program.longest {
            Some(longest) => Self {
                program,
                line_cache: program.line.create_cache(),
                candidate_cache: program.candidate.create_cache(),
                captures: longest.vm.create_captures(),
                vm_cache: Some(longest.vm.create_cache()),
                dfa_cache: longest.dfa.as_ref().map(hybrid::dfa::DFA::create_cache),
            },
            None => Self {
                program,
                line_cache: program.line.create_cache(),
                candidate_cache: program.candidate.create_cache(),
                captures: program.line.create_captures(),
                vm_cache: None,
                dfa_cache: None,
            },
        }
    }

    /// The next line at or after `from` to run the script on: the next
    /// one, or the next one the candidate search says may hold a match.
    fn next_line(&mut self, text: &str, from: usize, scan: Scan) -> Option<Range<usize>> {
        let at = match scan {
            #[cfg(any(test, feature = "testkit"))]
            Scan::EveryLine => from,
            Scan::Candidates => {
                let input = Input::new(text).range(from..);
                self.program
                    .candidate
                    .search_with(&mut self.candidate_cache, &input)?
                    .start()
            }
        };
        // After the last `\n` (or in an empty file) there is no line: sed
        // never runs its script on an empty string there.
        if at > text.len() || (at == text.len() && (text.is_empty() || text.ends_with('\n'))) {
            return None;
        }
        let bytes = text.as_bytes();
        let start =
            memchr::memrchr(b'\n', bytes.get(..at).unwrap_or_default()).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', bytes.get(at..).unwrap_or_default())
            .map_or(text.len(), |i| at + i);
        Some(start..end)
    }

    /// Finds the match sed would take at or after `from`; returns its span,
    /// and leaves its groups in `self.captures` when the replacement needs
    /// them.
    fn find(&mut self, line: &str, from: usize) -> Option<(usize, usize)> {
        let input = Input::new(line).range(from..);
        let program = self.program;
        let Some(longest) = &program.longest else {
            if program.needs_groups {
                program
                    .line
                    .search_captures_with(&mut self.line_cache, &input, &mut self.captures);
                return self.captures.get_match().map(|m| (m.start(), m.end()));
            }
            return program
                .line
                .search_with(&mut self.line_cache, &input)
                .map(|m| (m.start(), m.end()));
        };
        let start = program
            .line
            .search_with(&mut self.line_cache, &input)?
            .start();
        let anchored = Input::new(line).range(start..).anchored(Anchored::Yes);
        if !program.needs_groups
            && let (Some(dfa), Some(cache)) = (&longest.dfa, &mut self.dfa_cache)
            && let Ok(Some(end)) = dfa.try_search_fwd(cache, &anchored)
        {
            return Some((start, end.offset()));
        }
        let cache = self.vm_cache.as_mut()?;
        longest.vm.search(cache, &anchored, &mut self.captures);
        self.captures.get_match().map(|m| (m.start(), m.end()))
    }

    /// Appends `line` (at byte `offset` of the file) with the substitution
    /// applied to `out`.
    fn line(&mut self, line: &str, offset: usize, out: &mut String) -> Result<(), EmulationError> {
        let flags = self.program.substitution.flags;
        let mut from = 0;
        let mut copied = 0;
        let mut count = 0;
        let mut last_nonempty_end = None;
        while from <= line.len() {
            let Some((start, end)) = self.find(line, from) else {
                break;
            };
            let skipped = start == end && last_nonempty_end == Some(start);
            if !skipped {
                count += 1;
                let take = flags
                    .occurrence
                    .is_none_or(|n| count == n.get() || (flags.global && count > n.get()));
                if take {
                    out.push_str(line.get(copied..start).unwrap_or_default());
                    let captures = &self.captures;
                    let whole = line.get(start..end).unwrap_or_default();
                    self.program
                        .substitution
                        .replacement
                        .expand(out, |group| match group {
                            0 => whole,
                            n => captures
                                .get_group(n)
                                .and_then(|span| line.get(span.range()))
                                .unwrap_or_default(),
                        });
                    copied = end;
                    if !flags.global {
                        break;
                    }
                }
            }
            if start == end {
                let Some(next) = line.get(start..).and_then(|rest| rest.chars().next()) else {
                    break;
                };
                if next.len_utf8() > self.program.step_bytes {
                    return Err(EmulationError::EmptyMatchBeforeMultibyte {
                        offset: offset + start,
                    });
                }
                from = start + next.len_utf8();
                last_nonempty_end = None;
            } else {
                from = end;
                last_nonempty_end = Some(end);
            }
        }
        out.push_str(line.get(copied..).unwrap_or_default());
        Ok(())
    }
}
