//! A generated source tree for the grep core's criterion bench, and the
//! naive search it is compared with.
//!
//! The tree is deterministic: [`DIRS`] directories of [`FILES_PER_DIR`]
//! code-like files each (the matching benches' [`code_like_text`]), with
//! [`RARE`] on one line of every [`RARE_EVERY`]th file. Two patterns then
//! bracket what a model asks grep: [`RARE_PATTERN`], a handful of hits in a
//! large tree (the cost is reading and scanning), and [`FREQUENT_PATTERN`],
//! a hit on about one line in six (the cost is collecting and decoding
//! lines).

use std::path::{Path, PathBuf};

use regex::Regex;

use crate::code_like_text;

/// Directories in the tree.
pub const DIRS: usize = 40;
/// Files in each directory.
pub const FILES_PER_DIR: usize = 50;
/// Bytes of each file, about.
pub const FILE_BYTES: usize = 8 * 1024;
/// The marker the rare pattern finds.
pub const RARE: &str = "const RARE_MARKER_QX = 1;";
/// One file in this many carries [`RARE`].
pub const RARE_EVERY: usize = 97;
/// Matches only the lines carrying [`RARE`].
pub const RARE_PATTERN: &str = r"RARE_MARKER_[A-Z]{2}\b";
/// Matches the generator's `let value_N = compute(...)` lines: about one
/// line in six.
pub const FREQUENT_PATTERN: &str = r"let value_\d+ = compute";

/// Writes the first `dirs` directories of the tree ([`DIRS`] for the
/// bench) under `root` and returns their size in bytes.
///
/// # Panics
/// When a file cannot be written: the bench cannot run without its corpus.
#[must_use]
pub fn write_corpus(root: &Path, dirs: usize) -> u64 {
    let mut total = 0;
    for d in 0..dirs {
        let dir = root.join(format!("module_{d:02}"));
        std::fs::create_dir_all(&dir).expect("the corpus directory is created");
        for f in 0..FILES_PER_DIR {
            let n = d * FILES_PER_DIR + f;
            // The generator's text is the same for every size; shifting the
            // size per file keeps files from being byte-identical.
            let mut text = code_like_text(FILE_BYTES + (n % 13) * 61);
            if n.is_multiple_of(RARE_EVERY) {
                let at = text.len() / 2;
                let at = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
                text.insert_str(at, &format!("{RARE}\n"));
            }
            total += text.len() as u64;
            std::fs::write(dir.join(format!("file_{f:03}.rs")), text)
                .expect("a corpus file is written");
        }
    }
    total
}

/// The obvious search: walk with `read_dir` recursively, read each file
/// whole into a `String`, test every line with `Regex::is_match`, and
/// return `(path, line number, line)` sorted by path, the answer the grep
/// core gives before it renders.
///
/// # Panics
/// When the tree cannot be read.
#[must_use]
pub fn naive_grep(root: &Path, pattern: &str) -> Vec<(PathBuf, u64, String)> {
    let regex = Regex::new(pattern).expect("the bench pattern compiles");
    let mut files = Vec::new();
    collect(root, &mut files);
    files.sort();
    let mut hits = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a corpus file is UTF-8");
        for (i, line) in text.lines().enumerate() {
            if regex.is_match(line) {
                hits.push((file.clone(), i as u64 + 1, line.to_owned()));
            }
        }
    }
    hits
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a corpus directory is read") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            collect(&path, files);
        } else {
            files.push(path);
        }
    }
}
