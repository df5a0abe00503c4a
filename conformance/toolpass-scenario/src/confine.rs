//! Whether a path a scenario hands to an implementation (a call argument)
//! or has the runner create (a symlink target) stays inside the scenario's
//! private directory, `<private>/root` and `<private>/outside`.
//!
//! Paths are resolved as the kernel would, without touching a disk: a
//! relative argument from the root (where an implementation resolves it),
//! a relative link target from the directory the link stands in, `..`
//! taking one component off, and every symlink the scenario itself declares
//! (in `files:` or an `fs` step) followed where it stands, so that two
//! links cannot add up to an escape neither shows alone (`a -> ../outside`,
//! then `b -> a/../..`).

use std::collections::BTreeMap;

use crate::files::{Content, FsAction, RelPath};
use crate::placeholder::{OUTSIDE, OUTSIDE_PREFIX, ROOT};
use crate::scenario::Scenario;
use crate::step::StepKind;

/// How many symlinks one resolution follows, as Linux's `MAXSYMLINKS`; a
/// longer chain is a loop the kernel refuses (`ELOOP`), no escape.
const MAX_HOPS: usize = 40;

/// How many link expansions one check may make in all: a scenario that
/// declares many targets for one path makes resolution branch.
const BUDGET: usize = 10_000;

/// The scenario's symlinks: where each stands (components below the
/// private directory, `["root", "sub", "lnk"]`) and every target declared
/// for it, in any step.
#[derive(Debug, Default)]
pub(crate) struct Links(BTreeMap<Vec<String>, Vec<String>>);

impl Links {
    /// Every symlink `scenario` declares.
    pub(crate) fn of(scenario: &Scenario) -> Links {
        let mut links = Links::default();
        let entries = scenario
            .files
            .iter()
            .map(|(path, entry)| (path, &entry.content));
        links.add_contents(entries);
        for step in &scenario.steps {
            let StepKind::Fs(actions) = &step.kind else {
                continue;
            };
            for action in actions {
                match &action.value {
                    FsAction::Write(files) => {
                        links
                            .add_contents(files.iter().map(|(path, entry)| (path, &entry.content)));
                    }
                    FsAction::Symlink(targets) => {
                        for (path, target) in targets {
                            links.add(path, target);
                        }
                    }
                    _ => {}
                }
            }
        }
        links
    }

    fn add_contents<'a>(&mut self, entries: impl Iterator<Item = (&'a RelPath, &'a Content)>) {
        for (path, content) in entries {
            if let Content::Symlink(target) = content {
                self.add(path, target);
            }
        }
    }

    fn add(&mut self, path: &RelPath, target: &str) {
        self.0
            .entry(location(path))
            .or_default()
            .push(target.to_owned());
    }
}

/// A sandbox path key as components below the private directory.
fn location(path: &RelPath) -> Vec<String> {
    let (top, rest) = match path.as_str().strip_prefix(OUTSIDE_PREFIX) {
        Some(rest) => (OUTSIDE, rest),
        None => (ROOT, path.as_str()),
    };
    std::iter::once(top)
        .chain(rest.split('/').filter(|part| !part.is_empty()))
        .map(str::to_owned)
        .collect()
}

/// Where a relative path is resolved from, and the words that say so in a
/// message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Base {
    dir: Vec<String>,
    said: String,
}

impl Base {
    /// Call arguments: an implementation resolves a relative path against
    /// its root.
    pub(crate) fn root() -> Base {
        Base {
            dir: vec![ROOT.to_owned()],
            said: format!("a relative path is resolved from {{{ROOT}}}"),
        }
    }

    /// A symlink's target: the kernel resolves a relative one against the
    /// directory the link stands in. `link` is a sandbox path key
    /// (`sub/lnk`, `{outside}/x/lnk`).
    pub(crate) fn link(link: &RelPath) -> Base {
        let mut dir = location(link);
        dir.pop();
        let shown = match dir.split_first() {
            Some((top, [])) => format!("{{{top}}}"),
            Some((top, rest)) => format!("{{{top}}}/{}", rest.join("/")),
            None => String::new(),
        };
        Base {
            dir,
            said: format!("a relative target is resolved from the link's directory, {shown}"),
        }
    }
}

/// Why `text` is not confined to the private directory: an absolute path
/// not written from a placeholder, or one that climbs above the private
/// directory. `None` for text that stays (or is no path at all).
pub(crate) fn unconfined(text: &str, base: &Base, links: &Links) -> Option<String> {
    let mut walk = Walk {
        links,
        budget: BUDGET,
        followed: false,
    };
    let (from, path) = start(text, &base.dir);
    let problem = match walk.escape(from, &path, MAX_HOPS)? {
        Escape::Absolute => return Some("is an absolute path outside the sandbox".to_owned()),
        Escape::Climbs => "climbs above the scenario's private directory",
    };
    let mut why = Vec::new();
    if !starts_with_placeholder(text) {
        why.push(base.said.clone());
    }
    if walk.followed {
        why.push("through the scenario's own symlinks".to_owned());
    }
    Some(if why.is_empty() {
        problem.to_owned()
    } else {
        format!("{problem} ({})", why.join(", "))
    })
}

fn starts_with_placeholder(text: &str) -> bool {
    [ROOT, OUTSIDE]
        .iter()
        .any(|name| text.starts_with(&format!("{{{name}}}")))
}

/// Where resolving `text` starts (`dir` for a relative one) and the path
/// to walk from there. A
/// leading `{root}` or `{outside}` is the directory of that name in the
/// private directory (`{root}-x` is the name `root-x` beside the root).
fn start(text: &str, dir: &[String]) -> (Vec<String>, String) {
    for name in [ROOT, OUTSIDE] {
        if let Some(rest) = text.strip_prefix(&format!("{{{name}}}")) {
            return (Vec::new(), format!("{name}{rest}"));
        }
    }
    (dir.to_vec(), text.to_owned())
}

/// How a path leaves the private directory.
enum Escape {
    Absolute,
    Climbs,
}

struct Walk<'a> {
    links: &'a Links,
    /// Link expansions left.
    budget: usize,
    /// Whether a declared link was followed.
    followed: bool,
}

impl Walk<'_> {
    /// Walks `path` from `at` (components below the private directory),
    /// following declared links with `hops` left.
    fn escape(&mut self, mut at: Vec<String>, path: &str, hops: usize) -> Option<Escape> {
        if path.starts_with('/') {
            return Some(Escape::Absolute);
        }
        let parts: Vec<&str> = path.split('/').collect();
        for (i, part) in parts.iter().enumerate() {
            match *part {
                "" | "." => {}
                ".." => {
                    if at.pop().is_none() {
                        return Some(Escape::Climbs);
                    }
                }
                name => {
                    at.push(name.to_owned());
                    let Some(targets) = self.links.0.get(&at) else {
                        continue;
                    };
                    if hops == 0 || self.budget == 0 {
                        return None;
                    }
                    at.pop();
                    let rest = parts[i + 1..].join("/");
                    for target in targets {
                        self.budget = self.budget.saturating_sub(1);
                        let (from, target) = start(target, &at);
                        let joined = format!("{target}/{rest}");
                        if let Some(escape) = self.escape(from, &joined, hops - 1) {
                            self.followed = true;
                            return Some(escape);
                        }
                    }
                    return None;
                }
            }
        }
        None
    }
}
