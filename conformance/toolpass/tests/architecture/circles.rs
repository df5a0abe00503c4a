//! No import circles: inside each crate, no file reaches itself through the
//! files it imports. A circle means no file of it can be read, tested or
//! moved without the others; it is how a module boundary quietly stops
//! being one.
//!
//! The imports are read from the text, as a reviewer would: `use` trees
//! (groups, `self`, globs, `as`), and `crate::`, `super::` and `self::`
//! paths anywhere in the code. A path leads to the file of the longest
//! module it names; a name that module only re-exports (`pub use`) leads on
//! to where it comes from. Tests (`#[cfg(test)]` and after) and comments
//! are left out: a test module may use its parent.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::{CRATES, files_under, workspace_root};

/// A module as its path from the crate root (`[]` is `lib.rs`).
type ModulePath = Vec<String>;

/// One crate's files by module path, each with its code.
struct Modules {
    files: BTreeMap<ModulePath, (PathBuf, String)>,
    /// Each module's `pub use` paths, read once for every lookup.
    exports: BTreeMap<ModulePath, Vec<ModulePath>>,
}

impl Modules {
    fn read(src: &Path) -> Modules {
        let mut paths = Vec::new();
        files_under(src, &mut paths);
        let mut files = BTreeMap::new();
        for path in paths {
            let relative = path.strip_prefix(src).unwrap();
            // src/bin/* are crate roots of their own.
            if path.extension().is_none_or(|e| e != "rs") || relative.starts_with("bin") {
                continue;
            }
            let mut module: ModulePath = relative
                .with_extension("")
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|last| last == "mod") {
                module.pop();
            }
            if module == ["lib"] || module == ["main"] {
                module.clear();
            }
            let text = std::fs::read_to_string(&path).unwrap();
            files.insert(module, (path, code_of(&text)));
        }
        Modules::with_exports(files)
    }

    fn with_exports(files: BTreeMap<ModulePath, (PathBuf, String)>) -> Modules {
        let mut crate_ = Modules {
            files,
            exports: BTreeMap::new(),
        };
        crate_.exports = (crate_.files.iter())
            .map(|(module, (_, code))| (module.clone(), imports(code, module, &crate_, true)))
            .collect();
        crate_
    }

    /// The module a path leads to: the longest one it names, followed
    /// through the re-export of the item after it, if that is one.
    fn resolve(&self, path: &[String], depth: usize) -> Option<ModulePath> {
        let module = (0..=path.len())
            .rev()
            .map(|n| &path[..n])
            .find(|m| self.files.contains_key(*m))?;
        let (Some(item), true) = (path.get(module.len()), depth < 8) else {
            return Some(module.to_vec());
        };
        let reexported = self.exports[module].iter().find(|p| p.last() == Some(item));
        match reexported {
            Some(origin) => self.resolve(origin, depth + 1),
            None => Some(module.to_vec()),
        }
    }

    /// Each module's imports, as the modules they lead to.
    fn edges(&self) -> BTreeMap<ModulePath, BTreeSet<ModulePath>> {
        self.files
            .iter()
            .map(|(module, (_, code))| {
                let targets = imports(code, module, self, false)
                    .iter()
                    .filter_map(|path| self.resolve(path, 0))
                    .filter(|target| target != module)
                    .collect();
                (module.clone(), targets)
            })
            .collect()
    }
}

impl Modules {
    /// A crate made of texts, for this test's own tests.
    fn of<const N: usize>(files: [(ModulePath, &str); N]) -> Modules {
        let files = files
            .into_iter()
            .map(|(m, text)| (m, (PathBuf::new(), code_of(text))))
            .collect();
        Modules::with_exports(files)
    }
}

/// The text without comments and without the tests at its end.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or(text);
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The absolute module paths that `code`, the file of `module`, names:
/// its `pub use` trees when `only_pub`, else its other `use` trees and
/// every `crate::`, `super::` or `self::` path.
fn imports(code: &str, module: &[String], crate_: &Modules, only_pub: bool) -> Vec<ModulePath> {
    let bytes = code.as_bytes();
    let mut written = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let boundary = i == 0 || !is_ident(bytes[i - 1]) && bytes[i - 1] != b':';
        let at = &bytes[i..];
        let before = code.as_bytes()[..i].trim_ascii_end();
        // `pub use` and `pub(crate) use`.
        let public = before.ends_with(b"pub") || before.ends_with(b")");
        // A module's `pub use` is its face, not a use of its own: only
        // followed when resolving (a parent re-exporting its child's
        // type, which the child's sibling names through the parent, is no
        // circle).
        if boundary && at.starts_with(b"use ") && public == only_pub {
            i += "use ".len();
            tree(bytes, &mut i, Vec::new(), &mut written);
        } else if boundary
            && !only_pub
            && [&b"crate::"[..], b"super::", b"self::"]
                .iter()
                .any(|p| at.starts_with(p))
        {
            tree(bytes, &mut i, Vec::new(), &mut written);
        } else {
            i += 1;
        }
    }
    written
        .iter()
        .filter_map(|path| absolute(path, module, crate_))
        .collect()
}

/// Reads the use tree at `i` into `out`, each leaf with its prefix.
fn tree(bytes: &[u8], i: &mut usize, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let skip = |i: &mut usize, also: u8| {
        while bytes
            .get(*i)
            .is_some_and(|b| b.is_ascii_whitespace() || *b == also)
        {
            *i += 1;
        }
    };
    loop {
        skip(i, b' ');
        match bytes.get(*i) {
            Some(b'{') => {
                *i += 1;
                while !matches!(bytes.get(*i), Some(b'}') | None) {
                    tree(bytes, i, prefix.clone(), out);
                    skip(i, b',');
                }
                *i += 1;
                return;
            }
            Some(b'*') => {
                *i += 1;
                out.push(prefix);
                return;
            }
            _ => {}
        }
        let start = *i;
        while bytes.get(*i).copied().is_some_and(is_ident) {
            *i += 1;
        }
        if *i == start {
            out.push(prefix);
            return;
        }
        let ident = String::from_utf8_lossy(&bytes[start..*i]).into_owned();
        if bytes[*i..].starts_with(b"::") {
            *i += 2;
            prefix.push(ident);
            continue;
        }
        if ident != "self" {
            prefix.push(ident);
        }
        out.push(prefix);
        // `as` and the new name: the import is the old one.
        let after = *i;
        skip(i, b' ');
        if bytes[*i..].starts_with(b"as") && !bytes.get(*i + 2).copied().is_some_and(is_ident) {
            *i += 2;
            skip(i, b' ');
            while bytes.get(*i).copied().is_some_and(is_ident) {
                *i += 1;
            }
        } else {
            *i = after;
        }
        return;
    }
}

/// A path as written in the file of `module`, made absolute; `None` for
/// another crate's.
fn absolute(path: &[String], module: &[String], crate_: &Modules) -> Option<ModulePath> {
    let (first, mut rest) = path.split_first()?;
    let mut base = module.to_vec();
    match first.as_str() {
        "crate" => base.clear(),
        "self" => {}
        "super" => {
            base.pop();
            while let Some((_, tail)) = rest.split_first().filter(|(h, _)| *h == "super") {
                base.pop();
                rest = tail;
            }
        }
        child => {
            // A bare first segment is a child module of this one (2018
            // paths), or another crate.
            base.push(child.to_owned());
            if !crate_.files.contains_key(&base) {
                return None;
            }
        }
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The crate's circles: each the set of modules that reach one another.
fn circles(crate_: &Modules) -> Vec<BTreeSet<ModulePath>> {
    let edges = crate_.edges();
    let reach = |from: &ModulePath| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(m) = todo.pop() {
            for next in &edges[&m] {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<_, _> = edges.keys().map(|m| (m.clone(), reach(m))).collect();
    let mut found: Vec<BTreeSet<ModulePath>> = Vec::new();
    for (module, seen) in &reached {
        if !seen.contains(module) || found.iter().any(|c| c.contains(module)) {
            continue;
        }
        let circle = seen
            .iter()
            .filter(|other| reached[*other].contains(module))
            .cloned()
            .collect();
        found.push(circle);
    }
    found
}

#[test]
fn no_crate_has_an_import_circle() {
    let root = workspace_root();
    let mut report = Vec::new();
    for dir in CRATES {
        let crate_ = Modules::read(&root.join(dir).join("src"));
        for circle in circles(&crate_) {
            let files: Vec<_> = circle
                .iter()
                .map(|m| {
                    crate_.files[m]
                        .0
                        .strip_prefix(&root)
                        .unwrap()
                        .display()
                        .to_string()
                })
                .collect();
            report.push(files.join(", "));
        }
    }
    assert!(
        report.is_empty(),
        "files that import one another (move what both sides need into a file of its own):\n{}",
        report.join("\n")
    );
}

#[test]
fn a_circle_is_found_through_a_re_export_and_a_super_path() {
    // lib re-exports a's Thing; b names crate::Thing, which is a's, and a
    // names super::b: a and b form a circle, and lib is in none.
    let files = [
        (vec![], "mod a;\nmod b;\npub use a::Thing;\n"),
        (
            vec!["a".to_owned()],
            "use super::b::Other;\npub struct Thing;\n",
        ),
        (
            vec!["b".to_owned()],
            "use crate::{Thing as T, a::{self}};\npub struct Other;\n#[cfg(test)]\nuse crate::c;\n",
        ),
    ];
    let crate_ = Modules::of(files);
    let expected: BTreeSet<ModulePath> = [vec!["a".to_owned()], vec!["b".to_owned()]].into();
    assert_eq!(circles(&crate_), vec![expected]);
}

#[test]
fn a_chain_without_a_way_back_is_no_circle() {
    let files = [
        (vec![], "mod a;\nmod b;\npub use b::Other;\n"),
        (vec!["a".to_owned()], "use crate::Other; // not super::a\n"),
        (vec!["b".to_owned()], "pub struct Other;\n"),
    ];
    let crate_ = Modules::of(files);
    assert_eq!(circles(&crate_), Vec::<BTreeSet<ModulePath>>::new());
}
