//! Fuzz properties of the scenario loader, and the position check that the
//! expected-failures target shares.
//!
//! Not part of the API (hidden from the docs): the `scenario` target under
//! `fuzz/` calls [`fuzz_scenario`], and the `smoke` test below runs the
//! same property over mutated copies of the built-in scenarios on every
//! `cargo test`. A scenario directory may come from a pull request, so the
//! loader reads untrusted YAML:
//! - loading and validating never panics and never hangs;
//! - every error says `path:line:column: message`, with a real line and
//!   column, as the format promises;
//! - what loads can be asked what the runner asks of it (its features, its
//!   called tools, each step's level) without panicking.

#![allow(clippy::panic)] // A fuzz oracle reports failure by panicking.

use crate::load::parse_str;

/// The id the fuzz input is loaded under; errors name `fuzz.yaml`.
const ID: &str = "fuzz";

/// Fuzz entry point for the scenario loader: panics (the fuzzer's failure
/// signal) when [`check_scenario`] finds a broken property.
pub fn fuzz_scenario(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Err(message) = check_scenario(&text) {
        panic!("{message}\ninput: {text:?}");
    }
}

/// The loader's property on one text.
///
/// # Errors
/// A description of the broken property.
pub fn check_scenario(text: &str) -> Result<(), String> {
    match parse_str(text, ID) {
        Ok(scenario) => {
            let _ = (scenario.features(), scenario.called_tools());
            for step in scenario.steps.iter() {
                let _ = scenario.step_level(step);
            }
            Ok(())
        }
        Err(errors) => {
            if errors.errors().is_empty() {
                return Err("a failed load with no error".into());
            }
            for error in errors.errors() {
                check_positioned(&error.to_string(), &format!("{ID}.yaml"))?;
            }
            Ok(())
        }
    }
}

/// Checks that `message` reads `path:line:column: text` with a line and a
/// column from 1 and some text.
///
/// # Errors
/// What the message lacks.
pub fn check_positioned(message: &str, path: &str) -> Result<(), String> {
    let rest = message
        .strip_prefix(path)
        .and_then(|rest| rest.strip_prefix(':'))
        .ok_or_else(|| format!("error does not start with `{path}:`: {message:?}"))?;
    let mut parts = rest.splitn(3, ':');
    let number = |part: Option<&str>| part.and_then(|p| p.parse::<u32>().ok()).filter(|&n| n >= 1);
    match (number(parts.next()), number(parts.next()), parts.next()) {
        (Some(_), Some(_), Some(text)) if text.len() > 1 && text.starts_with(' ') => Ok(()),
        _ => Err(format!(
            "error is not `{path}:line:column: message` with a line and column from 1: {message:?}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use toolpass_protocol::fuzzing::Mutator;

    use super::*;

    /// Mutated copies of the built-in scenarios, so that `cargo test` runs
    /// the fuzz target's property without the fuzzer.
    #[test]
    fn smoke() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        let scenarios = crate::load_dir(&dir).unwrap();
        let texts: Vec<Vec<u8>> = scenarios
            .iter()
            .filter_map(|s| s.path.as_ref())
            .map(|path| std::fs::read(path).unwrap())
            .collect();
        let seeds: Vec<&[u8]> = texts.iter().map(Vec::as_slice).collect();
        assert!(seeds.len() > 100, "the built-in scenarios were not found");
        for input in Mutator::new(0x5EED).inputs(&seeds, 1500) {
            fuzz_scenario(&input);
        }
    }

    /// Found by the property: these two were reported as `fuzz.yaml:
    /// message`, without a position, because the validator saw no node.
    #[test]
    fn an_empty_step_list_and_an_empty_capture_have_positions() {
        let head = "title: t\nspec: s\n";
        for (steps, at) in [("steps: []\n", "3:8"), ("steps:\n  - capture: {}\n", "4:5")] {
            let text = format!("{head}{steps}");
            check_scenario(&text).unwrap();
            let error = parse_str(&text, ID).unwrap_err().to_string();
            assert!(error.starts_with(&format!("fuzz.yaml:{at}: ")), "{error}");
        }
    }

    #[test]
    fn a_position_is_line_and_column_from_1() {
        assert!(check_positioned("a.yaml:3:7: bad", "a.yaml").is_ok());
        for bad in [
            "a.yaml: bad",
            "a.yaml:0:0: bad",
            "a.yaml:3: bad",
            "b.yaml:1:1: x",
        ] {
            assert!(check_positioned(bad, "a.yaml").is_err(), "{bad}");
        }
    }
}
