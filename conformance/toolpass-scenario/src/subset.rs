//! JSON subset matching: the expected value's members must be in the actual
//! value with matching values; members it does not name are ignored. Used
//! for a tool's declaration (`expect_tools.schema`), an Outcome's `display`
//! and `confirmation`.

use serde_json::{Map, Value};

use crate::matcher::Mismatch;

/// Whether `expected` is a subset of `actual`: objects match when every
/// member of `expected` matches the member of `actual` with that name;
/// arrays when they have the same length and match item by item; numbers
/// by value (`1` matches `1.0`); other values by equality.
///
/// The mismatch names the first path that differs, and carries both
/// values pretty-printed, the actual one cut down to the members the
/// expected one names, so a diff of the two shows only what matters.
pub fn json_subset(expected: &Value, actual: &Value) -> Result<(), Mismatch> {
    match first_difference(expected, actual, &mut String::new()) {
        None => Ok(()),
        Some(message) => Err(Mismatch::json(
            message,
            pretty(expected),
            pretty(&project(actual, expected)),
        )),
    }
}

/// Whether `expected` and `actual` are the same JSON: [`json_subset`] both
/// ways, so an object may not have members `expected` does not name.
pub fn json_exact(expected: &Value, actual: &Value) -> Result<(), Mismatch> {
    json_subset(expected, actual)?;
    match first_difference(actual, expected, &mut String::new()) {
        None => Ok(()),
        // With `expected` a subset, the only difference left is a member
        // `actual` has and `expected` does not.
        Some(message) => Err(Mismatch::json(
            message.replace("the member is missing", "a member not expected"),
            pretty(expected),
            pretty(actual),
        )),
    }
}

fn first_difference(expected: &Value, actual: &Value, path: &mut String) -> Option<String> {
    let at = |path: &str| {
        if path.is_empty() {
            "/".to_owned()
        } else {
            path.to_owned()
        }
    };
    let len = path.len();
    match (expected, actual) {
        (Value::Object(want), Value::Object(have)) => want.iter().find_map(|(key, want)| {
            path.push('/');
            path.push_str(key);
            let found = match have.get(key) {
                Some(have) => first_difference(want, have, path),
                None => Some(format!("at {path}: the member is missing")),
            };
            path.truncate(len);
            found
        }),
        (Value::Array(want), Value::Array(have)) if want.len() != have.len() => Some(format!(
            "at {}: expected {} items, found {}",
            at(path),
            want.len(),
            have.len()
        )),
        (Value::Array(want), Value::Array(have)) => {
            want.iter()
                .zip(have)
                .enumerate()
                .find_map(|(i, (want, have))| {
                    path.push('/');
                    path.push_str(&i.to_string());
                    let found = first_difference(want, have, path);
                    path.truncate(len);
                    found
                })
        }
        (Value::Number(want), Value::Number(have)) if want.as_f64() == have.as_f64() => None,
        (want, have) if want == have => None,
        (want, have) => Some(format!("at {}: expected {want}, found {have}", at(path))),
    }
}

/// `actual` with only the object members that `shape` names.
fn project(actual: &Value, shape: &Value) -> Value {
    match (actual, shape) {
        (Value::Object(have), Value::Object(want)) => Value::Object(
            want.iter()
                .filter_map(|(key, want)| Some((key.clone(), project(have.get(key)?, want))))
                .collect::<Map<_, _>>(),
        ),
        (Value::Array(have), Value::Array(want)) if have.len() == want.len() => Value::Array(
            have.iter()
                .zip(want)
                .map(|(have, want)| project(have, want))
                .collect(),
        ),
        (actual, _) => actual.clone(),
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}
