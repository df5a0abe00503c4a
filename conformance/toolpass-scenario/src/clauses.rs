//! The clauses of a specification (`SPEC.md`): what scenarios cite in
//! `spec:`.
//!
//! A clause is a level-3 heading of exactly this shape, on one line:
//!
//! ```text
//! ### `edit.fuzzy.fold` MUST
//! ### `read.paging` SHOULD · safety
//! ```
//!
//! The id is dotted lowercase words (`[a-z][a-z0-9-]*` then one or more
//! `.[a-z0-9-]+`), the word after it the clause's strength (RFC 2119), and
//! ` · safety` marks a clause of the safety profile. Everything else in the
//! file (other headings, prose, code blocks) is free text. A `###` heading
//! that holds a backticked dotted id but is not of that shape is an error
//! naming its line, so a typo cannot silently drop a clause that scenarios
//! cite.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::level::Level;
use crate::load::{LoadError, LoadErrors};
use crate::located::Pos;

/// How strongly a clause binds (RFC 2119).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strength {
    /// `MUST`: scenarios citing it are `required`.
    Must,
    /// `SHOULD`: scenarios citing it are `recommended`.
    Should,
    /// `MAY`: scenarios citing it are `optional`.
    May,
}

impl Strength {
    const WORDS: [(&'static str, Strength); 3] = [
        ("MUST", Strength::Must),
        ("SHOULD", Strength::Should),
        ("MAY", Strength::May),
    ];

    /// The word as written in a heading.
    pub fn as_str(self) -> &'static str {
        match self {
            Strength::Must => "MUST",
            Strength::Should => "SHOULD",
            Strength::May => "MAY",
        }
    }

    /// The level a scenario citing a clause of this strength is scored at.
    pub fn level(self) -> Level {
        match self {
            Strength::Must => Level::Required,
            Strength::Should => Level::Recommended,
            Strength::May => Level::Optional,
        }
    }
}

impl fmt::Display for Strength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One clause heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clause {
    /// The id, e.g. `edit.fuzzy.fold`.
    pub id: String,
    /// Its strength.
    pub strength: Strength,
    /// Whether it belongs to the safety profile (` · safety`).
    pub safety: bool,
    /// The file it was read from.
    pub source: PathBuf,
    /// The line of its heading, from 1.
    pub line: u32,
}

/// The clauses of one or more specification files, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Clauses {
    clauses: Vec<Clause>,
    by_id: BTreeMap<String, usize>,
}

/// The separator before `safety` in a heading: a middle dot between spaces.
const SAFETY_MARK: &str = " · safety";

const SHAPE: &str = "a clause heading is ### `dotted.id` MUST|SHOULD|MAY, \
                     optionally followed by ` · safety`, and nothing else";

impl Clauses {
    /// The clauses of the text of a specification file named `source`
    /// (named in errors); or every malformed heading, bad or duplicate id,
    /// each as `source:line:column: message`.
    pub fn parse(text: &str, source: &Path) -> Result<Clauses, LoadErrors> {
        let mut clauses = Clauses::default();
        let mut errors = Vec::new();
        let mut fence: Option<&str> = None;
        for (n, line) in text.lines().enumerate() {
            let line_no = u32::try_from(n + 1).unwrap_or(u32::MAX);
            let line = line.strip_suffix('\r').unwrap_or(line);
            // A heading inside a fenced code block is an example, not a
            // clause (this module's own docs show some).
            let trimmed = line.trim_start();
            if let Some(open) = fence {
                if trimmed.starts_with(open) {
                    fence = None;
                }
                continue;
            }
            if let Some(marker) = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m)) {
                fence = Some(marker);
                continue;
            }
            match heading(line) {
                Heading::Prose => {}
                Heading::Clause(id, strength, safety) => {
                    let clause = Clause {
                        id: id.to_owned(),
                        strength,
                        safety,
                        source: source.to_owned(),
                        line: line_no,
                    };
                    if let Err(e) = clauses.push(clause) {
                        errors.push(e);
                    }
                }
                Heading::Bad(column, message) => errors.push(LoadError::new(
                    source,
                    Pos {
                        line: line_no,
                        column,
                    },
                    message,
                )),
            }
        }
        if errors.is_empty() {
            Ok(clauses)
        } else {
            Err(LoadErrors::sorted(errors))
        }
    }

    /// Adds the clauses of another file (an implementer's own, beside the
    /// built-in ones); an id both define is an error naming both places.
    pub fn extend(&mut self, more: Clauses) -> Result<(), LoadErrors> {
        let errors: Vec<LoadError> = more
            .clauses
            .into_iter()
            .filter_map(|clause| self.push(clause).err())
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(LoadErrors::sorted(errors))
        }
    }

    fn push(&mut self, clause: Clause) -> Result<(), LoadError> {
        if let Some(&first) = self.by_id.get(&clause.id) {
            let first = &self.clauses[first];
            let place = if first.source == clause.source {
                format!("line {}", first.line)
            } else {
                format!("{}:{}", first.source.display(), first.line)
            };
            return Err(LoadError::new(
                &clause.source,
                Pos {
                    line: clause.line,
                    column: 6,
                },
                format!(
                    "duplicate clause id `{}`: also at {place}; ids are never reused",
                    clause.id
                ),
            ));
        }
        self.by_id.insert(clause.id.clone(), self.clauses.len());
        self.clauses.push(clause);
        Ok(())
    }

    /// The clause with this id.
    pub fn get(&self, id: &str) -> Option<&Clause> {
        self.by_id.get(id).map(|&i| &self.clauses[i])
    }

    /// Every clause, in the order the files give them.
    pub fn iter(&self) -> impl Iterator<Item = &Clause> {
        self.clauses.iter()
    }

    /// How many clauses there are.
    pub fn len(&self) -> usize {
        self.clauses.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.clauses.is_empty()
    }
}

/// What a line of the specification is.
#[derive(Debug, PartialEq, Eq)]
enum Heading<'a> {
    /// Not a clause heading: prose, or a heading without a dotted id.
    Prose,
    /// `### `id` STRENGTH[ · safety]`.
    Clause(&'a str, Strength, bool),
    /// Meant as a clause (a heading with a backticked dotted id) but not of
    /// the shape: the column and what is wrong.
    Bad(u32, String),
}

fn heading(line: &str) -> Heading<'_> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    let Some(rest) = line.get(hashes..).and_then(|r| r.strip_prefix(' ')) else {
        return Heading::Prose;
    };
    if hashes == 0 {
        return Heading::Prose;
    }
    let Some((before, id, after)) = backticked_dotted(rest) else {
        return Heading::Prose;
    };
    // Column of the id's first character, counted in characters from 1.
    let column = u32::try_from(hashes + 1 + before.chars().count() + 2).unwrap_or(u32::MAX);
    let strength = strength_of(after);
    if hashes != 3 {
        // A level-4 heading naming an id is a sub-heading of prose unless it
        // carries a strength: then it was meant as a clause.
        return match strength {
            Some(_) => Heading::Bad(
                1,
                format!("`{id}` is a level-{hashes} heading: a clause is a level-3 heading (###)"),
            ),
            None => Heading::Prose,
        };
    }
    if !before.is_empty() {
        return Heading::Bad(
            1,
            format!("a clause heading starts with its id: {SHAPE} (found text before `{id}`)"),
        );
    }
    if let Some(problem) = id_problem(id) {
        return Heading::Bad(column, format!("bad clause id `{id}`: {problem}"));
    }
    match strength {
        Some((strength, safety)) => Heading::Clause(id, strength, safety),
        None => Heading::Bad(
            column,
            format!("malformed clause heading for `{id}`: {SHAPE}"),
        ),
    }
}

/// The text before the first backticked span holding a dot and no space,
/// the span, and the text after it.
fn backticked_dotted(text: &str) -> Option<(&str, &str, &str)> {
    let mut from = 0;
    while let Some(open) = text[from..].find('`').map(|i| from + i) {
        let close = text[open + 1..].find('`').map(|i| open + 1 + i)?;
        let span = &text[open + 1..close];
        if span.contains('.') && !span.contains(char::is_whitespace) {
            return Some((&text[..open], span, &text[close + 1..]));
        }
        from = close + 1;
    }
    None
}

/// The strength and safety mark after the id, when the rest of the heading
/// is exactly ` STRENGTH` or ` STRENGTH · safety`.
fn strength_of(after: &str) -> Option<(Strength, bool)> {
    let after = after.strip_prefix(' ')?;
    Strength::WORDS.into_iter().find_map(|(word, strength)| {
        let rest = after.strip_prefix(word)?;
        match rest {
            "" => Some((strength, false)),
            SAFETY_MARK => Some((strength, true)),
            _ => None,
        }
    })
}

/// Why `id` is not a clause id, or `None` when it is one.
fn id_problem(id: &str) -> Option<&'static str> {
    let word = |w: &str| {
        !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    let mut parts = id.split('.');
    let first = parts.next().unwrap_or_default();
    if !first.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Some("an id starts with a lowercase letter");
    }
    if !word(first) || !parts.all(word) {
        return Some(
            "an id is two or more dot-separated words of lowercase letters, digits and `-` \
             (e.g. `edit.fuzzy.fold`)",
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Clauses, String> {
        Clauses::parse(text, Path::new("SPEC.md")).map_err(|e| e.to_string())
    }

    #[test]
    fn clause_headings_give_id_strength_safety_and_line() {
        let clauses = parse(
            "# Spec\n\nProse with `a.b` in it.\n\n## Edit\n\n### `edit.fuzzy.fold` MUST\n\
             Body.\n\n### `read.paging` SHOULD · safety\n### `grep.backend-x2` MAY\n\
             ### Notes on `read_file`\n",
        )
        .unwrap();
        let got: Vec<(&str, Strength, bool, u32)> = clauses
            .iter()
            .map(|c| (c.id.as_str(), c.strength, c.safety, c.line))
            .collect();
        assert_eq!(
            got,
            [
                ("edit.fuzzy.fold", Strength::Must, false, 7),
                ("read.paging", Strength::Should, true, 10),
                ("grep.backend-x2", Strength::May, false, 11),
            ]
        );
        assert_eq!(
            clauses.get("read.paging").unwrap().strength.level(),
            Level::Recommended
        );
        assert!(clauses.get("read").is_none());
    }

    #[test]
    fn headings_in_code_blocks_are_examples() {
        let clauses = parse("```md\n### `x.y` MUST\n### `broken.one` MUSTN'T\n```\n").unwrap();
        assert!(clauses.is_empty());
    }

    #[test]
    fn a_malformed_heading_is_named_by_its_line() {
        let cases = [
            (
                "### `edit.fold` must\n",
                "SPEC.md:1:6: malformed clause heading for `edit.fold`",
            ),
            (
                "\n### `edit.fold` MUST · Safety\n",
                "SPEC.md:2:6: malformed clause heading",
            ),
            (
                "### `edit.fold` MUST (draft)\n",
                "SPEC.md:1:6: malformed clause heading",
            ),
            (
                "### `edit.fold`MUST\n",
                "SPEC.md:1:6: malformed clause heading",
            ),
            (
                "### The `edit.fold` MUST\n",
                "SPEC.md:1:1: a clause heading starts with its id",
            ),
            (
                "#### `edit.fold` MUST\n",
                "SPEC.md:1:1: `edit.fold` is a level-4 heading",
            ),
            (
                "### `Edit.fold` MUST\n",
                "SPEC.md:1:6: bad clause id `Edit.fold`: an id starts",
            ),
            (
                "### `edit.fold_x` MAY\n",
                "SPEC.md:1:6: bad clause id `edit.fold_x`: an id is two",
            ),
            (
                "### `edit..fold` MAY\n",
                "SPEC.md:1:6: bad clause id `edit..fold`",
            ),
        ];
        for (text, expected) in cases {
            let error = parse(text).unwrap_err();
            assert!(error.starts_with(expected), "{text:?}: {error}");
        }
    }

    #[test]
    fn a_duplicate_id_names_the_first_one() {
        let error = parse("### `a.b` MUST\n\n### `a.b` MAY\n").unwrap_err();
        assert_eq!(
            error,
            "SPEC.md:3:6: duplicate clause id `a.b`: also at line 1; ids are never reused"
        );
    }

    #[test]
    fn every_problem_of_a_file_is_reported() {
        let error = parse("### `a.B` MUST\n### `c.d` SHALL\n").unwrap_err();
        assert_eq!(error.lines().count(), 2, "{error}");
    }

    #[test]
    fn extending_refuses_an_id_of_the_built_in_file() {
        let mut clauses = parse("### `a.b` MUST\n").unwrap();
        let mine =
            Clauses::parse("### `a.b` MAY\n### `my.own` MUST\n", Path::new("mine.md")).unwrap();
        let error = clauses.extend(mine).unwrap_err().to_string();
        assert_eq!(
            error,
            "mine.md:1:6: duplicate clause id `a.b`: also at SPEC.md:1; ids are never reused"
        );
        assert!(clauses.get("my.own").is_some());
    }
}
