//! The built-in specification: this workspace's `SPEC.md`, embedded at
//! build time, whose clauses every scenario's `spec:` cites.
//!
//! Embedded rather than read at run time (as the built-in scenarios are):
//! the clause ids are what scenario files are validated against, so an
//! installed or copied binary must hold the ones it was built with, and the
//! workspace is never packaged on its own (`publish = false`), so the file
//! outside the crate is always there to embed.

use std::fmt::Write as _;
use std::path::Path;

use toolpass_scenario::{Clauses, Coverage, LoadErrors, Strength};

use crate::report::text::printable_line;

/// The text of the workspace's `SPEC.md`.
pub const BUILTIN_SPEC: &str = include_str!("../../../SPEC.md");

/// The name errors give the built-in specification.
pub const BUILTIN_SPEC_NAME: &str = "SPEC.md";

/// The clauses of the built-in specification.
///
/// An error only when the workspace's `SPEC.md` has a malformed clause
/// heading, which the tests of this crate catch before a binary ships.
pub fn builtin_clauses() -> Result<Clauses, LoadErrors> {
    Clauses::parse(BUILTIN_SPEC, Path::new(BUILTIN_SPEC_NAME))
}

/// `toolpass list --by-spec`: each clause in order with its strength,
/// safety mark and the scenarios citing it (id and level), a clause with
/// none marked so, then a line of totals naming any MUST clause that no
/// scored scenario checks.
pub fn by_spec(coverage: &[Coverage<'_>]) -> String {
    let mut out = String::new();
    for entry in coverage {
        let clause = entry.clause;
        let safety = if clause.safety { " · safety" } else { "" };
        let count = match entry.scenarios.len() {
            0 => "no scenario".to_owned(),
            1 => "1 scenario".to_owned(),
            n => format!("{n} scenarios"),
        };
        let _ = writeln!(out, "{}  {}{safety}  ({count})", clause.id, clause.strength);
        for scenario in &entry.scenarios {
            // Ids are file names: they may hold terminal escapes.
            let _ = writeln!(
                out,
                "    {}  {}",
                printable_line(&scenario.id),
                scenario.level.value.as_str()
            );
        }
    }
    let without = coverage.iter().filter(|c| c.scenarios.is_empty()).count();
    let unscored: Vec<&str> = coverage
        .iter()
        .filter(|c| c.clause.strength == Strength::Must && !c.is_scored())
        .map(|c| c.clause.id.as_str())
        .collect();
    let _ = write!(
        out,
        "{} clauses, {without} without a scenario; ",
        coverage.len()
    );
    let _ = if unscored.is_empty() {
        writeln!(out, "every MUST clause has a scored scenario")
    } else {
        writeln!(
            out,
            "MUST clauses without a scored scenario: {}",
            unscored.join(", ")
        )
    };
    out
}

#[cfg(test)]
mod tests {
    use toolpass_scenario::parse_str;

    use super::*;

    #[test]
    fn the_built_in_specification_parses() {
        let clauses = builtin_clauses().unwrap_or_else(|e| panic!("{e}"));
        assert!(clauses.iter().any(|c| c.strength == Strength::Must));
        assert!(clauses.iter().any(|c| c.safety));
    }

    #[test]
    fn by_spec_lists_clauses_in_order_and_names_uncovered_must_clauses() {
        let spec = "### `a.one` MUST · safety\n### `a.two` SHOULD\n### `b.three` MUST\n";
        let clauses = Clauses::parse(spec, Path::new("SPEC.md")).unwrap();
        let scenarios = [
            parse_str(
                "title: t\nspec: [a.one, a.two]\nsteps: [{call: x}]\n",
                "x/one",
            )
            .unwrap(),
            parse_str(
                "title: t\nspec: b.three\nlevel: pending\nreason: r\nsteps: [{call: x}]\n",
                "x/two",
            )
            .unwrap(),
        ];
        assert_eq!(
            by_spec(&clauses.coverage(&scenarios)),
            "a.one  MUST · safety  (1 scenario)\n    x/one  required\n\
             a.two  SHOULD  (1 scenario)\n    x/one  required\n\
             b.three  MUST  (1 scenario)\n    x/two  pending\n\
             3 clauses, 0 without a scenario; MUST clauses without a scored scenario: b.three\n"
        );
    }
}
