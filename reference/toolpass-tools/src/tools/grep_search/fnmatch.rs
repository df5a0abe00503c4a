//! `fnmatch(3)` with no flags, the matcher behind both of Qwen's shell
//! filters: GNU grep's `--include` (against a base name) and a git pathspec
//! without magic (against a relative path). `*` and `?` cross `/`, a leading
//! `.` is not special, `[...]` takes ranges, `!`/`^` negation and POSIX
//! classes, and `\` quotes the next character. There is no brace expansion:
//! `*.{ts,tsx}` matches only a name with those braces in it.

/// Whether `pattern` matches all of `name`. Both are taken as UTF-8 (bytes
/// that are not become U+FFFD), one character per `?`.
#[must_use]
pub fn fnmatch(pattern: &[u8], name: &[u8]) -> bool {
    let pattern: Vec<char> = String::from_utf8_lossy(pattern).chars().collect();
    let name: Vec<char> = String::from_utf8_lossy(name).chars().collect();
    matches(&pattern, &name)
}

/// Iterative wildcard matching with one backtrack point: the latest `*`.
fn matches(pattern: &[char], name: &[char]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        let step = match pattern.get(p) {
            Some('*') => {
                star = Some((p + 1, n));
                p += 1;
                continue;
            }
            Some('?') => Some(1),
            Some('[') => match bracket(pattern, p + 1, name[n]) {
                Some((true, len)) => Some(len + 1),
                Some((false, _)) => None,
                // No closing bracket: `[` is an ordinary character.
                None => (name[n] == '[').then_some(1),
            },
            Some('\\') if p + 1 < pattern.len() => (pattern[p + 1] == name[n]).then_some(2),
            Some(&c) => (c == name[n]).then_some(1),
            None => None,
        };
        match step {
            Some(len) => {
                p += len;
                n += 1;
            }
            None => match star {
                // Let the last star swallow one more character.
                Some((sp, sn)) => {
                    p = sp;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p.min(pattern.len())..].iter().all(|&c| c == '*')
}

/// Matches `c` against the bracket expression starting at `start` (just
/// after `[`). Returns whether it matched and the expression's length up to
/// and including `]`, or `None` when the expression is not closed.
fn bracket(pattern: &[char], start: usize, c: char) -> Option<(bool, usize)> {
    let mut i = start;
    let negated = matches!(pattern.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let mut lo = *pattern.get(i)?;
        if lo == ']' && !first {
            return Some((matched != negated, i + 1 - start));
        }
        first = false;
        if lo == '[' && pattern.get(i + 1) == Some(&':') {
            let name_start = i + 2;
            if let Some(len) = pattern[name_start..]
                .windows(2)
                .position(|w| w == [':', ']'])
            {
                let class: String = pattern[name_start..name_start + len].iter().collect();
                matched |= in_class(&class, c);
                i = name_start + len + 2;
                continue;
            }
        }
        if lo == '\\' {
            i += 1;
            lo = *pattern.get(i)?;
        }
        i += 1;
        if pattern.get(i) == Some(&'-') && pattern.get(i + 1).is_some_and(|&h| h != ']') {
            let mut hi = pattern[i + 1];
            i += 2;
            if hi == '\\' {
                hi = *pattern.get(i)?;
                i += 1;
            }
            matched |= lo <= c && c <= hi;
        } else {
            matched |= lo == c;
        }
    }
}

/// The POSIX character classes, for ASCII as the C library knows them and
/// for other characters by their Unicode properties.
fn in_class(class: &str, c: char) -> bool {
    match class {
        "alpha" => c.is_alphabetic(),
        "digit" => c.is_ascii_digit(),
        "alnum" => c.is_alphanumeric(),
        "upper" => c.is_uppercase(),
        "lower" => c.is_lowercase(),
        "space" => c.is_whitespace(),
        "blank" => c == ' ' || c == '\t',
        "punct" => c.is_ascii_punctuation(),
        "xdigit" => c.is_ascii_hexdigit(),
        "cntrl" => c.is_control(),
        "print" => !c.is_control(),
        "graph" => !c.is_control() && !c.is_whitespace(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::fnmatch;

    fn check(pattern: &str, yes: &[&str], no: &[&str]) {
        for name in yes {
            assert!(
                fnmatch(pattern.as_bytes(), name.as_bytes()),
                "{pattern} should match {name}"
            );
        }
        for name in no {
            assert!(
                !fnmatch(pattern.as_bytes(), name.as_bytes()),
                "{pattern} should not match {name}"
            );
        }
    }

    #[test]
    fn stars_and_questions_cross_slashes_and_dots() {
        check(
            "*.rs",
            &["a.rs", ".rs", "src/a.rs", ".hidden.rs"],
            &["a.rsx", "a.r"],
        );
        check("**/*.rs", &["src/a.rs", "a/b/c.rs"], &["a.rs"]);
        check("a?c", &["abc", "a/c", "aéc"], &["ac", "abbc"]);
        check("*", &["", "anything/at/all"], &[]);
        check("a*b*c", &["abc", "axxbyyc", "abcbc"], &["acb", "ab"]);
    }

    #[test]
    fn brackets_ranges_negation_and_classes() {
        check("[ab].txt", &["a.txt", "b.txt"], &["c.txt", "ab.txt"]);
        check("[!ab].txt", &["c.txt"], &["a.txt"]);
        check("[^a-c]x", &["dx"], &["bx"]);
        check("[]]", &["]"], &["a"]);
        check("[[:digit:]]*", &["1abc"], &["abc"]);
        check("[a-", &["[a-"], &["a"]);
    }

    #[test]
    fn braces_are_literal_and_backslash_quotes() {
        check("*.{ts,tsx}", &["a.{ts,tsx}"], &["a.ts", "a.tsx"]);
        check(r"\*.rs", &["*.rs"], &["a.rs"]);
    }
}
