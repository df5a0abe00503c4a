//! The grep core's bench compares like with like: on part of its corpus the
//! core and the naive search find the same lines, and each pattern finds
//! what the corpus was built to hold.

use toolpass_benches::grep_corpus::{
    FILES_PER_DIR, FREQUENT_PATTERN, RARE, RARE_EVERY, RARE_PATTERN, naive_grep, write_corpus,
};
use toolpass_tools::sandbox::Sandbox;
use toolpass_tools::tools::grep_search::search::{Search, Strategy};

#[test]
fn the_core_and_the_naive_search_find_the_same_lines() {
    let tree = tempfile::tempdir().unwrap();
    let dirs = 4;
    assert!(write_corpus(tree.path(), dirs) > 0);
    let sandbox = Sandbox::new(tree.path()).unwrap();
    for pattern in [RARE_PATTERN, FREQUENT_PATTERN] {
        let search = Search::new(pattern, None, Strategy::SystemGrep).unwrap();
        let core: Vec<(String, u64, String)> = search
            .run(&sandbox, sandbox.root())
            .unwrap()
            .into_iter()
            .flat_map(|file| {
                let rel = file.rel;
                file.hits
                    .into_iter()
                    .map(move |hit| (rel.clone(), hit.line_number, hit.line))
            })
            .collect();
        let naive: Vec<(String, u64, String)> = naive_grep(tree.path(), pattern)
            .into_iter()
            .map(|(path, n, line)| {
                let rel = path.strip_prefix(tree.path()).unwrap();
                (rel.to_str().unwrap().to_owned(), n, line)
            })
            .collect();
        assert_eq!(core, naive, "{pattern}");
    }
    // One file in RARE_EVERY carries the marker: files 0 and 97 of the 200.
    let rare = naive_grep(tree.path(), RARE_PATTERN);
    assert_eq!(rare.len(), (dirs * FILES_PER_DIR).div_ceil(RARE_EVERY));
    assert!(rare.iter().all(|(_, _, line)| line == RARE));
    let frequent = naive_grep(tree.path(), FREQUENT_PATTERN).len();
    assert!(frequent > 20 * rare.len(), "{frequent}");
}
