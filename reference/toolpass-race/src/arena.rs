//! Where an attack happens: one directory per attack inside the harness's
//! own temp dir, holding the session `root/`, the `outside/` it must not
//! reach, the `spare` the swapper exchanges with `root/d`, and the server's
//! own `tmp/` (its TMPDIR, so spill directories are counted and contained).
//!
//! Also the snapshot of a tree and the difference of two, which is how
//! writes outside are found after a run, whatever the replies said.

use std::collections::BTreeMap;
use std::fs;
use std::hash::{DefaultHasher, Hasher};
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result};

use crate::count::{Markers, is_temp_name};

/// How many distinctively named files each side of the swap holds.
const NAMED_FILES: usize = 4;

/// One attack's directories.
#[derive(Debug)]
pub(crate) struct Arena {
    /// The attack's own directory; everything below is the attack's.
    pub(crate) dir: PathBuf,
    /// The session root.
    pub(crate) root: PathBuf,
    /// Beside the root: what a confined server never reads or writes.
    pub(crate) outside: PathBuf,
    /// The server's TMPDIR.
    pub(crate) tmp: PathBuf,
}

/// The top-level entries an arena is made of; anything else appearing
/// there escaped the root.
const LAYOUT: [&str; 4] = ["root", "outside", "spare", "tmp"];

impl Arena {
    /// Creates `parent/name` with an empty root, outside and tmp.
    pub(crate) fn new(parent: &Path, name: &str) -> Result<Arena> {
        let dir = parent.join(name);
        let arena = Arena {
            root: dir.join("root"),
            outside: dir.join("outside"),
            tmp: dir.join("tmp"),
            dir,
        };
        for d in [&arena.root, &arena.outside, &arena.tmp] {
            fs::create_dir_all(d).with_context(|| format!("create {}", d.display()))?;
        }
        Ok(arena)
    }

    /// The directory inside the root that the swapper replaces.
    pub(crate) fn swapped(&self) -> PathBuf {
        self.root.join("d")
    }

    /// What `root/d` is exchanged with: a symlink to the outside while
    /// `root/d` is the real directory, and the real directory while
    /// `root/d` is the symlink. It sits in the arena, not in the root, so
    /// the tools see the outside only through the race.
    pub(crate) fn spare(&self) -> PathBuf {
        self.dir.join("spare")
    }

    /// Fills both sides of the swap: `root/d` with innocent files, the
    /// outside with files of the same names (`x`, `f`) and distinctively
    /// named ones, every one carrying the secret marker.
    pub(crate) fn seed_swap(&self, markers: &Markers) -> Result<()> {
        let inside = self.swapped();
        fs::create_dir(&inside)?;
        write(&inside.join("x"), &format!("{} x\n", markers.inside))?;
        write(&inside.join("f"), &edited(&markers.inside))?;
        for k in 0..NAMED_FILES {
            write(
                &inside.join(format!("{}-{k}.txt", markers.inside)),
                &format!("{} {k}\n", markers.inside),
            )?;
        }
        write(&self.outside.join("x"), &format!("{} x\n", markers.secret))?;
        // The same anchor as inside, so an edit that escapes succeeds and
        // shows up as a changed outside file rather than a failed match.
        write(&self.outside.join("f"), &edited(&markers.secret))?;
        for k in 0..NAMED_FILES {
            write(
                &self.outside.join(format!("{}-{k}.txt", markers.name)),
                &format!("{} {k}\n", markers.secret),
            )?;
        }
        // Absolute: the link moves between the arena and the root, and a
        // relative target would mean something else in each.
        std::os::unix::fs::symlink(&self.outside, self.spare())?;
        Ok(())
    }

    /// Files in the root that hold outside content or carry an outside
    /// name: what an escaped read wrote back inside.
    pub(crate) fn copied_inside(&self, markers: &Markers) -> Result<Vec<PathBuf>> {
        let mut copied = Vec::new();
        for (rel, node) in snapshot(&self.root)? {
            let named = rel.to_string_lossy().contains(&markers.name);
            let holds = node.kind == Kind::File
                && fs::read_to_string(self.root.join(&rel))
                    .is_ok_and(|text| text.contains(&markers.secret));
            if named || holds {
                copied.push(rel);
            }
        }
        Ok(copied)
    }

    /// Entries at the arena's top level that are not part of its layout:
    /// a write that climbed out of the root some other way than through
    /// the swapped link.
    pub(crate) fn strays(&self) -> Result<Vec<String>> {
        let mut strays = Vec::new();
        for entry in fs::read_dir(&self.dir)? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if !LAYOUT.contains(&name.as_str()) {
                strays.push(name);
            }
        }
        Ok(strays)
    }
}

/// The file the edit attack edits: its anchor `TARGET` on line 1, its
/// marker on the last line, more lines apart than an edit's snippet shows
/// around the change (4) and than the attack reads (1). So its replies show
/// the marker only if the file changed beyond the edit, and the marker
/// copied inside by an edit that read the outside file and wrote inside is
/// counted once, by [`Arena::copied_inside`], not again in every later
/// reply.
fn edited(marker: &str) -> String {
    let filler: String = (0..10).map(|k| format!("filler {k}\n")).collect();
    format!("TARGET\n{filler}{marker} f\n")
}

fn write(path: &Path, text: &str) -> Result<()> {
    fs::write(path, text).with_context(|| format!("write {}", path.display()))
}

/// One entry of a [`Tree`], as much as tells a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Node {
    kind: Kind,
    len: u64,
    mtime: Option<SystemTime>,
    ino: u64,
    /// A hash of a file's bytes or a link's target; 0 for a directory.
    digest: u64,
}

/// What a [`Node`] is; symlinks are never followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Dir,
    Symlink,
    Other,
}

/// Every entry below a directory, by path relative to it.
pub(crate) type Tree = BTreeMap<PathBuf, Node>;

/// Walks `dir` without following symlinks.
pub(crate) fn snapshot(dir: &Path) -> io::Result<Tree> {
    let mut tree = Tree::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        for entry in fs::read_dir(dir.join(&rel))? {
            let entry = entry?;
            let rel = rel.join(entry.file_name());
            let path = entry.path();
            let meta = fs::symlink_metadata(&path)?;
            let file_type = meta.file_type();
            let (kind, digest) = if file_type.is_symlink() {
                (
                    Kind::Symlink,
                    hash(fs::read_link(&path)?.as_os_str().as_encoded_bytes()),
                )
            } else if file_type.is_dir() {
                pending.push(rel.clone());
                (Kind::Dir, 0)
            } else if file_type.is_file() {
                (Kind::File, hash(&fs::read(&path)?))
            } else {
                (Kind::Other, 0)
            };
            let node = Node {
                kind,
                len: meta.len(),
                mtime: meta.modified().ok(),
                ino: std::os::unix::fs::MetadataExt::ino(&meta),
                digest,
            };
            tree.insert(rel, node);
        }
    }
    Ok(tree)
}

fn hash(bytes: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    hasher.write(bytes);
    hasher.finish()
}

/// How a tree changed between two snapshots.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Changes {
    /// New regular files (temporary ones apart).
    pub(crate) files: Vec<PathBuf>,
    /// New hidden `.tmp` files: a writer's leftovers.
    pub(crate) temp_files: Vec<PathBuf>,
    /// New directories.
    pub(crate) dirs: Vec<PathBuf>,
    /// New symlinks and other entries.
    pub(crate) others: Vec<PathBuf>,
    /// Entries whose content, size, mtime, inode or kind changed.
    pub(crate) modified: Vec<PathBuf>,
    /// Entries that are gone.
    pub(crate) removed: Vec<PathBuf>,
}

impl Changes {
    /// Every changed entry counts once.
    pub(crate) fn total(&self) -> usize {
        self.files.len()
            + self.temp_files.len()
            + self.dirs.len()
            + self.others.len()
            + self.modified.len()
            + self.removed.len()
    }

    /// One line for the report, listing only what happened.
    pub(crate) fn describe(&self) -> String {
        let parts = [
            (self.files.len(), "files created"),
            (self.dirs.len(), "dirs created"),
            (self.temp_files.len(), "temp files left"),
            (self.others.len(), "other entries created"),
            (self.modified.len(), "files modified"),
            (self.removed.len(), "entries removed"),
        ];
        let said: Vec<String> = parts
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect();
        if said.is_empty() {
            "unchanged".to_owned()
        } else {
            said.join(", ")
        }
    }
}

/// What changed from `before` to `after`.
pub(crate) fn diff(before: &Tree, after: &Tree) -> Changes {
    let mut changes = Changes::default();
    for (path, node) in after {
        match before.get(path) {
            Some(old) if old == node => {}
            Some(_) => changes.modified.push(path.clone()),
            None => {
                let name = path.file_name().map(|n| n.to_string_lossy());
                let list = match node.kind {
                    Kind::File if name.is_some_and(|n| is_temp_name(&n)) => &mut changes.temp_files,
                    Kind::File => &mut changes.files,
                    Kind::Dir => &mut changes.dirs,
                    Kind::Symlink | Kind::Other => &mut changes.others,
                };
                list.push(path.clone());
            }
        }
    }
    changes.removed = before
        .keys()
        .filter(|path| !after.contains_key(*path))
        .cloned()
        .collect();
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arena() -> (tempfile::TempDir, Arena, Markers) {
        let dir = tempfile::tempdir().unwrap();
        let arena = Arena::new(dir.path(), "a").unwrap();
        let markers = Markers::new(7);
        arena.seed_swap(&markers).unwrap();
        (dir, arena, markers)
    }

    #[test]
    fn seeding_puts_markers_only_where_they_belong() {
        let (_dir, arena, markers) = arena();
        let inside = snapshot(&arena.root).unwrap();
        for rel in inside.keys() {
            let path = arena.root.join(rel);
            assert!(!rel.to_string_lossy().contains(&markers.name), "{rel:?}");
            if path.is_file() {
                let text = fs::read_to_string(&path).unwrap();
                assert!(!text.contains(&markers.secret), "{rel:?}");
                assert!(text.contains(&markers.inside), "{rel:?}");
            }
        }
        let outside = snapshot(&arena.outside).unwrap();
        assert_eq!(outside.len(), 2 + NAMED_FILES);
        for rel in outside.keys() {
            let text = fs::read_to_string(arena.outside.join(rel)).unwrap();
            assert!(text.contains(&markers.secret), "{rel:?}");
        }
        assert_eq!(fs::read_link(arena.spare()).unwrap(), arena.outside);
        // The edited file has one layout on both sides, so what an edit
        // shows and where its tokens go do not tell the sides apart.
        let inside_f = fs::read_to_string(arena.swapped().join("f")).unwrap();
        let outside_f = fs::read_to_string(arena.outside.join("f")).unwrap();
        assert_eq!(
            inside_f.replace(&markers.inside, "M"),
            outside_f.replace(&markers.secret, "M")
        );
        assert!(arena.strays().unwrap().is_empty());
    }

    #[test]
    fn an_untouched_tree_is_unchanged() {
        let (_dir, arena, _) = arena();
        let before = snapshot(&arena.outside).unwrap();
        let after = snapshot(&arena.outside).unwrap();
        let changes = diff(&before, &after);
        assert_eq!(changes, Changes::default());
        assert_eq!(changes.total(), 0);
        assert_eq!(changes.describe(), "unchanged");
    }

    #[test]
    fn every_kind_of_change_is_counted_once() {
        let (_dir, arena, _) = arena();
        let out = &arena.outside;
        let before = snapshot(out).unwrap();
        fs::write(out.join("new-1"), "w").unwrap();
        fs::create_dir_all(out.join("sub-2")).unwrap();
        fs::write(out.join("sub-2/new"), "w").unwrap();
        fs::write(out.join(".new-3.toolpass-9-0.tmp"), "").unwrap();
        fs::write(out.join("f"), "rewritten\n").unwrap();
        fs::remove_file(out.join("x")).unwrap();
        let changes = diff(&before, &snapshot(out).unwrap());
        assert_eq!(changes.files, [PathBuf::from("new-1"), "sub-2/new".into()]);
        assert_eq!(changes.dirs, [PathBuf::from("sub-2")]);
        assert_eq!(
            changes.temp_files,
            [PathBuf::from(".new-3.toolpass-9-0.tmp")]
        );
        assert_eq!(changes.modified, [PathBuf::from("f")]);
        assert_eq!(changes.removed, [PathBuf::from("x")]);
        assert_eq!(changes.total(), 6);
        assert_eq!(
            changes.describe(),
            "2 files created, 1 dirs created, 1 temp files left, 1 files modified, 1 entries removed"
        );
    }

    #[test]
    fn same_bytes_written_again_count_as_modified() {
        // An escaped write of identical content still wrote outside: the
        // inode (rename) or the mtime moves even when the bytes do not.
        let (_dir, arena, _) = arena();
        let out = &arena.outside;
        let before = snapshot(out).unwrap();
        let bytes = fs::read(out.join("x")).unwrap();
        fs::write(out.join(".x.tmp"), &bytes).unwrap();
        fs::rename(out.join(".x.tmp"), out.join("x")).unwrap();
        assert_eq!(
            diff(&before, &snapshot(out).unwrap()).modified,
            [PathBuf::from("x")]
        );
    }

    #[test]
    fn outside_content_or_names_written_inside_are_found() {
        let (_dir, arena, markers) = arena();
        assert!(arena.copied_inside(&markers).unwrap().is_empty());
        let d = arena.swapped();
        fs::write(d.join("f"), format!("TARGET e1\n{} f\n", markers.secret)).unwrap();
        fs::write(d.join(format!("{}-9.txt", markers.name)), "copied name").unwrap();
        fs::write(d.join("new-1"), "innocent").unwrap();
        let mut copied = arena.copied_inside(&markers).unwrap();
        copied.sort();
        assert_eq!(
            copied,
            [
                PathBuf::from(format!("d/{}-9.txt", markers.name)),
                "d/f".into()
            ]
        );
    }

    #[test]
    fn the_edited_file_keeps_its_marker_out_of_an_edits_view() {
        let text = edited("MARK");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "TARGET");
        let marker_line = lines.iter().position(|l| l.contains("MARK")).unwrap();
        // Line 1 is read; the snippet shows 4 lines around the change.
        assert!(marker_line > 1 + 4, "{text}");
    }

    #[test]
    fn files_inside_the_root_are_not_outside() {
        let (_dir, arena, _) = arena();
        let before = snapshot(&arena.outside).unwrap();
        fs::write(arena.swapped().join("new-1"), "w").unwrap();
        fs::write(arena.root.join(".y.toolpass-1-1.tmp"), "").unwrap();
        assert_eq!(diff(&before, &snapshot(&arena.outside).unwrap()).total(), 0);
        assert!(arena.strays().unwrap().is_empty());
        fs::write(arena.dir.join("escaped"), "").unwrap();
        assert_eq!(arena.strays().unwrap(), ["escaped"]);
    }
}
