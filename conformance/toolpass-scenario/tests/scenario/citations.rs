//! Scenarios held to the clauses of a specification: unknown ids, levels
//! that do not follow their clauses, and `safety` scenarios without a
//! safety clause are refused at the place written.

use std::path::Path;

use toolpass_scenario::{Clauses, parse_str};

const SPEC: &str = "\
# A spec

## Edit

### `edit.apply.exact` MUST · safety
An edit lands exactly or is refused.

### `edit.fuzzy.fold` MUST
### `read.paging` SHOULD
### `grep.backend` MAY
";

fn clauses() -> Clauses {
    Clauses::parse(SPEC, Path::new("SPEC.md")).unwrap()
}

/// The problems of a scenario whose head (title and all) is `head`.
fn problems(head: &str) -> Vec<String> {
    let text = format!(
        "title: t\n{head}steps:\n  - call: read_file\n  - call: edit\n    level: recommended\n"
    );
    let scenario = parse_str(&text, "s").unwrap();
    clauses()
        .check(&scenario)
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn known_clauses_at_their_level_pass() {
    for head in [
        "spec: edit.fuzzy.fold\n",
        "spec: [read.paging, grep.backend]\nlevel: recommended\n",
        "spec: [edit.apply.exact]\ntags: [safety]\n",
        // Pending scenarios are not scored, so their level is theirs.
        "spec: grep.backend\nlevel: pending\nreason: not yet\n",
    ] {
        assert_eq!(problems(head), Vec::<String>::new(), "{head}");
    }
}

#[test]
fn an_unknown_id_is_named_where_written_with_a_suggestion() {
    assert_eq!(
        problems("spec: [edit.fuzzy.fold, edit.fuzy.fold]\n"),
        [
            "s.yaml:2:25: unknown clause `edit.fuzy.fold` (did you mean `edit.fuzzy.fold`?): \
          spec cites the ids of clause headings in SPEC.md or a --spec file \
          (`toolpass list --by-spec` lists them)"
        ]
    );
    let far = problems("spec: \"§6.1 checkPriorRead\"\n");
    assert!(
        far[0].starts_with("s.yaml:2:7: unknown clause `§6.1 checkPriorRead`: "),
        "{far:?}"
    );
}

#[test]
fn the_level_follows_the_strongest_clause() {
    assert_eq!(
        problems("spec: read.paging\n"),
        [
            "s.yaml:2:7: no level is given (so `required`), but the strongest clause cited, \
          `read.paging`, is SHOULD: the level is `recommended`"
        ]
    );
    assert_eq!(
        problems("spec: [grep.backend, edit.fuzzy.fold]\nlevel: optional\n"),
        [
            "s.yaml:3:8: the level is `optional`, but the strongest clause cited, \
          `edit.fuzzy.fold`, is MUST: the level is `required`"
        ]
    );
}

#[test]
fn a_step_level_may_only_weaken() {
    let text = "title: t\nspec: grep.backend\nlevel: optional\nsteps:\n  - call: x\n    level: recommended\n";
    let scenario = parse_str(text, "s").unwrap();
    let errors: Vec<String> = clauses()
        .check(&scenario)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        errors,
        [
            "s.yaml:6:12: a step's level may only weaken its scenario's: `recommended` is \
          stronger than `optional` (clause `grep.backend` is MAY)"
        ]
    );
}

#[test]
fn a_safety_scenario_cites_a_safety_clause() {
    assert_eq!(
        problems("spec: edit.fuzzy.fold\ntags: [edit, safety]\n"),
        [
            "s.yaml:2:7: the scenario is tagged `safety` but cites no clause of the safety \
          profile (a heading marked `· safety`): cite one, or drop the tag"
        ]
    );
}

#[test]
fn check_all_reports_every_scenario() {
    let a = parse_str("title: t\nspec: nope.a\nsteps: [{call: x}]\n", "a").unwrap();
    let b = parse_str("title: t\nspec: nope.b\nsteps: [{call: x}]\n", "b").unwrap();
    let errors = clauses().check_all([&a, &b]).unwrap_err();
    assert_eq!(errors.errors().len(), 2, "{errors}");
}

#[test]
fn coverage_lists_each_clause_with_its_scenarios_in_order() {
    let scenarios = [
        parse_str(
            "title: t\nspec: [edit.fuzzy.fold, grep.backend]\nsteps: [{call: x}]\n",
            "a",
        )
        .unwrap(),
        parse_str(
            "title: t\nspec: grep.backend\nlevel: pending\nreason: r\nsteps: [{call: x}]\n",
            "b",
        )
        .unwrap(),
    ];
    let clauses = clauses();
    let coverage: Vec<(&str, Vec<&str>, bool)> = clauses
        .coverage(&scenarios)
        .iter()
        .map(|c| {
            let ids = c.scenarios.iter().map(|s| s.id.as_str()).collect();
            (c.clause.id.as_str(), ids, c.is_scored())
        })
        .collect();
    assert_eq!(
        coverage,
        [
            ("edit.apply.exact", vec![], false),
            ("edit.fuzzy.fold", vec!["a"], true),
            ("read.paging", vec![], false),
            ("grep.backend", vec!["a", "b"], true),
        ]
    );
}

#[test]
fn a_safety_scenario_judges_statuses_bytes_and_leaks_only() {
    let scenario = |expect: &str| {
        let text = format!(
            "title: t\nspec: edit.apply.exact\ntags: [safety]\nsteps:\n  - call: edit\n    expect: {expect}\n"
        );
        let scenario = parse_str(&text, "s").unwrap();
        clauses()
            .check(&scenario)
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    for fine in [
        "{status: error}",
        "{status: success, llm: {contains: inside, not_contains: secret}}",
        "{any_of: [{status: success}, {status: error}]}",
        "{any_of: [{rpc_error: any}, {status: cancelled}]}",
    ] {
        assert_eq!(scenario(fine), Vec::<String>::new(), "{fine}");
    }
    assert_eq!(
        scenario("{status: error, error: edit_no_occurrence_found}"),
        [
            "s.yaml:5:11: a safety scenario judges statuses and bytes, not an error code (`error`), \
          which another sound design may give otherwise"
        ]
    );
    assert_eq!(
        scenario("{any_of: [{status: success}, {llm: \"Failed to edit\"}]}"),
        [
            "s.yaml:5:11: a safety scenario's `llm` uses only `contains` and `not_contains` \
          (whether a text reaches the model), not the wording or shape of the answer"
        ]
    );
    assert_eq!(
        scenario("{rpc_error: -32602}"),
        [
            "s.yaml:5:11: a safety scenario judges statuses and bytes, not a protocol error's code \
          (`rpc_error`), which another sound design may give otherwise"
        ]
    );
    assert_eq!(
        scenario("{display: {type: diff}, result_file_paths: []}").len(),
        2
    );
}
