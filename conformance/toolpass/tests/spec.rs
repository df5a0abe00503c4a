//! The built-in suite against the built-in specification: every scenario
//! cites only clauses of SPEC.md at the level they set, and every MUST
//! clause is checked by a scenario that is scored (not `pending`). And the
//! CLI's side of clauses: `--spec FILE` and `list --by-spec`.

mod common;

use std::path::Path;

use common::{parts, write};

use toolpass::spec::builtin_clauses;
use toolpass_scenario::{Scenario, Strength, load_dir};

fn builtin_scenarios() -> Vec<Scenario> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    load_dir(&dir).unwrap_or_else(|e| panic!("the built-in scenarios load:\n{e}"))
}

#[test]
fn every_built_in_scenario_cites_known_clauses_at_their_level() {
    let clauses = builtin_clauses().unwrap_or_else(|e| panic!("SPEC.md parses:\n{e}"));
    let scenarios = builtin_scenarios();
    if let Err(errors) = clauses.check_all(&scenarios) {
        panic!("scenarios that do not follow SPEC.md:\n{errors}");
    }
}

#[test]
fn every_must_clause_has_a_scored_scenario() {
    let clauses = builtin_clauses().unwrap_or_else(|e| panic!("SPEC.md parses:\n{e}"));
    let scenarios = builtin_scenarios();
    let uncovered: Vec<String> = clauses
        .coverage(&scenarios)
        .iter()
        .filter(|c| c.clause.strength == Strength::Must && !c.is_scored())
        .map(|c| format!("SPEC.md:{}: `{}`", c.clause.line, c.clause.id))
        .collect();
    assert!(
        uncovered.is_empty(),
        "MUST clauses that no scored (non-pending) scenario cites:\n{}",
        uncovered.join("\n")
    );
}

#[test]
fn own_scenarios_cite_own_clauses_given_with_spec() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "s/mine.yaml",
                "title: t\nspec: [my.own-clause]\nsteps:\n  - call: read_file\n    args: {file_path: \"{root}/a\"}\n",
            ),
            (
                "mine.md",
                "# My tool layer\n\n### `my.own-clause` MUST\nProse.\n",
            ),
            ("typo.md", "### `my.own-clause` MUST (draft)\n"),
        ],
    );
    let run = |args: &[&str]| parts(common::toolpass(dir.path(), args));

    let (code, _, err) = run(&["validate", "--scenarios", "s"]);
    assert_eq!(code, Some(1));
    assert!(
        err.starts_with("s/mine.yaml:2:8: unknown clause `my.own-clause`"),
        "{err}"
    );

    let (code, out, err) = run(&["validate", "--scenarios", "s", "--spec", "mine.md"]);
    assert_eq!((code, out.as_str()), (Some(0), "1 scenario OK\n"), "{err}");

    let (code, _, err) = run(&["validate", "--scenarios", "s", "--spec", "typo.md"]);
    assert_eq!(code, Some(1));
    assert!(
        err.starts_with("typo.md:1:6: malformed clause heading for `my.own-clause`"),
        "{err}"
    );

    let (code, out, _) = run(&["list", "--by-spec", "--scenarios", "s", "--spec", "mine.md"]);
    assert_eq!(code, Some(0));
    assert!(
        out.starts_with("tools.declarations  MUST  (no scenario)\n"),
        "{out}"
    );
    assert!(
        out.contains("\nmy.own-clause  MUST  (1 scenario)\n    mine  required\n"),
        "{out}"
    );
    assert!(
        out.lines()
            .last()
            .unwrap()
            .contains("MUST clauses without a scored scenario: tools.declarations, "),
        "{out}"
    );
}
