//! The glob pattern, as Qwen's `glob` package (minimatch with `nocase`,
//! `dot`) reads it, compiled with `globset`.
//!
//! Carried over: case-insensitive matching, `*` and `?` within one path
//! component, `**` across components (and, as minimatch does, a `**` glued
//! to other characters as a plain `*`), dot files matched by `*`, `{a,b}`
//! alternatives and `{1..3}` numeric ranges, a leading `./`, absolute
//! patterns, and Qwen's rule that a pattern naming an existing path is taken
//! literally (so `[id].ts` finds the file called that). Not carried over:
//! extglobs (`+(a|b)`), POSIX classes, patterns that climb out with `..`.
//! A pattern `globset` rejects (an unclosed `[`) is taken literally, which
//! is what minimatch makes of it too.

use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};

/// How many alternatives a numeric range may expand to; minimatch has no
/// limit, but a pattern like `{1..100000000}` must not exhaust memory.
const MAX_RANGE: i64 = 10_000;

/// A compiled glob.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// `None` when not even the escaped pattern compiles: nothing matches.
    matcher: Option<GlobMatcher>,
    absolute: bool,
    depth: Option<usize>,
}

impl Pattern {
    /// Compiles `pattern` for a search from `dir`; `exists` says whether a
    /// path relative to `dir` exists (asked beneath the root's handle).
    #[must_use]
    pub fn new(pattern: &str, dir: &Path, exists: impl FnOnce(&Path) -> bool) -> Self {
        let literal = names_existing_path(pattern, dir, exists);
        let mut p = pattern;
        while let Some(rest) = p.strip_prefix("./") {
            p = rest;
        }
        let absolute = p.starts_with('/');
        let source = if literal {
            globset::escape(p)
        } else {
            glue_double_stars(&expand_ranges(p))
        };
        let build = |s: &str| {
            GlobBuilder::new(s)
                .case_insensitive(true)
                .literal_separator(true)
                .backslash_escape(true)
                .empty_alternates(true)
                .build()
        };
        let matcher = build(&source)
            .or_else(|_| build(&globset::escape(p)))
            .ok()
            .map(|glob| glob.compile_matcher());
        let depth = (!absolute && !literal && !p.contains("**") && !p.contains('{'))
            .then(|| p.split('/').filter(|c| !c.is_empty()).count());
        Pattern {
            matcher,
            absolute,
            depth,
        }
    }

    /// The deepest level a match can be at, below the searched directory,
    /// when the pattern bounds it.
    #[must_use]
    pub fn max_depth(&self) -> Option<usize> {
        self.depth
    }

    /// Whether the file at `rel` (relative to the searched directory,
    /// `/`-separated) or, for an absolute pattern, at `abs`, matches.
    #[must_use]
    pub fn matches(&self, rel: &str, abs: &Path) -> bool {
        self.matcher.as_ref().is_some_and(|m| {
            if self.absolute {
                m.is_match(abs)
            } else {
                m.is_match(rel)
            }
        })
    }
}

/// Qwen's `fs.existsSync(path.join(searchDir, pattern))`, which makes it
/// `escape` the pattern. Only paths inside `dir` are looked at.
fn names_existing_path(pattern: &str, dir: &Path, exists: impl FnOnce(&Path) -> bool) -> bool {
    let joined = crate::tools::dir_arg::resolve_lexically(dir, pattern.trim_start_matches('/'));
    joined
        .strip_prefix(dir)
        .is_ok_and(|rel| !rel.as_os_str().is_empty() && exists(rel))
}

/// `{3..5}` → `{3,4,5}`, as brace expansion does, for ranges up to
/// [`MAX_RANGE`] items; other braces are left to `globset`.
fn expand_ranges(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(open) = rest.find('{') {
        let (before, from_open) = rest.split_at(open);
        out.push_str(before);
        let Some(close) = from_open.find('}') else {
            out.push_str(from_open);
            return out;
        };
        let inner = from_open.get(1..close).unwrap_or_default();
        match range(inner) {
            Some(items) => {
                out.push('{');
                out.push_str(&items.join(","));
                out.push('}');
            }
            None => out.push_str(from_open.get(..=close).unwrap_or_default()),
        }
        rest = from_open.get(close + 1..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

fn range(inner: &str) -> Option<Vec<String>> {
    let (a, b) = inner.split_once("..")?;
    let (a, b): (i64, i64) = (a.parse().ok()?, b.parse().ok()?);
    if (a - b).abs() >= MAX_RANGE {
        return None;
    }
    let items: Vec<String> = if a <= b {
        (a..=b).map(|i| i.to_string()).collect()
    } else {
        (b..=a).rev().map(|i| i.to_string()).collect()
    };
    Some(items)
}

/// Turns every `**` that is not a whole path component into `*`, which is
/// what minimatch makes of it and what `globset` would refuse.
fn glue_double_stars(pattern: &str) -> String {
    let components: Vec<String> = pattern
        .split('/')
        .map(|c| {
            if c == "**" || !c.contains("**") {
                c.to_owned()
            } else {
                let mut c = c.to_owned();
                while c.contains("**") {
                    c = c.replace("**", "*");
                }
                c
            }
        })
        .collect();
    components.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(pattern: &str, yes: &[&str], no: &[&str]) {
        let p = Pattern::new(pattern, Path::new("/nonexistent-toolpass-dir"), |_| false);
        for rel in yes {
            assert!(
                p.matches(rel, &Path::new("/nonexistent-toolpass-dir").join(rel)),
                "{pattern} should match {rel}"
            );
        }
        for rel in no {
            assert!(
                !p.matches(rel, &Path::new("/nonexistent-toolpass-dir").join(rel)),
                "{pattern} should not match {rel}"
            );
        }
    }

    #[test]
    fn minimatch_shapes() {
        check("*.txt", &["a.txt", "B.TXT", ".hidden.txt"], &["sub/a.txt"]);
        check("**/*.txt", &["a.txt", "x/y/a.txt"], &["a.rs"]);
        check("a**.txt", &["ab.txt", "a.txt"], &["x/ab.txt"]);
        check("./a/*.txt", &["a/b.txt"], &["b.txt"]);
        check("{a,b}.txt", &["a.txt", "B.txt"], &["c.txt"]);
        check("a1{0..9}.txt", &["a10.txt", "a19.txt"], &["a1.txt"]);
        check("[ab.txt", &["[ab.txt"], &["a.txt"]);
        check("src/**", &["src/a", "src/x/y.rs"], &["a"]);
    }

    #[test]
    fn depth_is_bounded_only_without_globstar_or_braces() {
        let dir = Path::new("/nonexistent-toolpass-dir");
        assert_eq!(Pattern::new("*.rs", dir, |_| false).max_depth(), Some(1));
        assert_eq!(
            Pattern::new("src/*/a.rs", dir, |_| false).max_depth(),
            Some(3)
        );
        assert_eq!(Pattern::new("**/a.rs", dir, |_| false).max_depth(), None);
        assert_eq!(Pattern::new("{a,b/c}.rs", dir, |_| false).max_depth(), None);
    }
}
