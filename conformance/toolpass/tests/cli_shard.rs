//! Sharding as CI uses it: `--partition hash:K/N` splits the built-in suite
//! into shards that are disjoint and add up to it, with or without other
//! filters.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::parts;

/// The ids `toolpass list` prints with `args`.
fn listed(args: &[&str]) -> Vec<String> {
    let (code, stdout, stderr) = parts(common::toolpass(Path::new("."), args));
    assert_eq!(code, Some(0), "toolpass {args:?}: {stderr}");
    stdout
        .lines()
        .map(|line| line.split("  ").next().unwrap_or(line).to_owned())
        .collect()
}

#[test]
fn shards_of_the_suite_are_disjoint_and_add_up_to_it_for_any_count() {
    for filter in [None, Some("edit/**")] {
        let mut base = vec!["list"];
        base.extend(filter.iter().flat_map(|glob| ["--filter", glob]));
        let suite: BTreeSet<String> = listed(&base).into_iter().collect();
        assert!(suite.len() > 20, "{base:?} lists {} scenarios", suite.len());
        for total in [1, 2, 3, 7] {
            let mut union = BTreeSet::new();
            for shard in 1..=total {
                let partition = format!("hash:{shard}/{total}");
                let mut args = base.clone();
                args.extend(["--partition", &partition]);
                let ids = listed(&args);
                for id in ids {
                    assert!(
                        suite.contains(&id),
                        "{partition} lists {id}, not in {base:?}"
                    );
                    assert!(union.insert(id.clone()), "{id} is in two shards of {total}");
                }
            }
            assert_eq!(union, suite, "the {total} shards of {base:?}");
        }
    }
}

#[test]
fn a_partition_that_is_no_shard_is_refused_naming_the_syntax() {
    for (bad, wanted) in [
        ("hash:0/3", "the shard must be from 1 to 3"),
        ("count:1/2", "a partition is `hash:K/N`"),
    ] {
        let (code, _, stderr) = parts(common::toolpass(
            Path::new("."),
            &["list", "--partition", bad],
        ));
        assert_eq!(code, Some(2), "{bad}: {stderr}");
        assert!(stderr.contains(wanted), "{bad}: {stderr}");
    }
}
