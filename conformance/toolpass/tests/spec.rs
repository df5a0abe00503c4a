//! The built-in suite against the built-in specification: every scenario
//! cites only clauses of SPEC.md at the level they set, and every MUST
//! clause is checked by a scenario that is scored (not `pending`). And the
//! CLI's side of clauses: `--spec FILE` and `list --by-spec`.

mod common;

use std::path::Path;

use predicates::prelude::*;
use predicates::str::{contains, starts_with};

use common::{stdout, toolpass, write};

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
    let run = |args: &[&str]| toolpass(dir.path(), args);

    run(&["validate", "--scenarios", "s"])
        .code(1)
        .stderr(starts_with(
            "s/mine.yaml:2:8: unknown clause `my.own-clause`",
        ));

    run(&["validate", "--scenarios", "s", "--spec", "mine.md"])
        .success()
        .stdout("1 scenario OK\n");

    run(&["validate", "--scenarios", "s", "--spec", "typo.md"])
        .code(1)
        .stderr(starts_with(
            "typo.md:1:6: malformed clause heading for `my.own-clause`",
        ));

    let listed = run(&["list", "--by-spec", "--scenarios", "s", "--spec", "mine.md"])
        .success()
        .stdout(
            starts_with("tools.declarations  MUST  (no scenario)\n").and(contains(
                "\nmy.own-clause  MUST  (1 scenario)\n    mine  required\n",
            )),
        );
    let out = stdout(&listed);
    assert!(
        out.lines()
            .last()
            .unwrap()
            .contains("MUST clauses without a scored scenario: tools.declarations, "),
        "{out}"
    );
}
