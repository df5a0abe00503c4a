//! IMPLEMENTING.md's feature table says how many scenarios each feature
//! unlocks; this keeps those counts true to `scenarios/`.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use toolpass_protocol::Feature;
use toolpass_scenario::load_dir;

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `| `feature` | promise | N: examples |` (or `none yet`) -> (feature, N).
fn table_counts(guide: &str) -> BTreeMap<String, usize> {
    guide
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split(" | ").collect();
            let feature = cells.first()?.strip_prefix("| `")?.strip_suffix('`')?;
            let unlocks = cells.last()?.trim_end_matches(" |");
            let count = if unlocks == "none yet" {
                0
            } else {
                unlocks.split(':').next()?.parse().ok()?
            };
            Some((feature.to_owned(), count))
        })
        .collect()
}

#[test]
fn the_guides_feature_counts_are_the_scenarios() {
    let root = repository();
    let scenarios = load_dir(&root.join("scenarios")).unwrap();
    let mut actual: BTreeMap<String, usize> = Feature::KNOWN
        .iter()
        .map(|feature| (feature.to_string(), 0))
        .collect();
    for scenario in &scenarios {
        for feature in scenario.features() {
            *actual.entry(feature.to_string()).or_default() += 1;
        }
    }
    let guide = fs::read_to_string(root.join("IMPLEMENTING.md")).unwrap();
    assert_eq!(
        table_counts(&guide),
        actual,
        "IMPLEMENTING.md's feature table (left) disagrees with the scenarios (right): \
         update its `N: ...` cells"
    );
}
