//! Placeholder substitution and its escape.

use serde_json::json;
use toolpass_scenario::Vars;
use toolpass_scenario::placeholder::{self, placeholders};

fn vars() -> Vars {
    let mut vars = Vars::new("/tmp/root");
    vars.set("pid", "42");
    vars
}

fn sub(text: &str) -> String {
    vars().substitute(text).unwrap()
}

#[test]
fn root_and_captured_variables_are_substituted() {
    assert_eq!(sub("{root}/a.txt"), "/tmp/root/a.txt");
    assert_eq!(sub("kill {pid}; ls {root}"), "kill 42; ls /tmp/root");
    assert_eq!(sub("{root}{pid}"), "/tmp/root42");
}

#[test]
fn doubled_braces_around_a_name_are_the_literal_text() {
    assert_eq!(sub("{{root}}"), "{root}");
    assert_eq!(sub("{{pid}} is {pid}"), "{pid} is 42");
    assert_eq!(sub("{{{root}}}"), "{{root}}");
    assert_eq!(sub("{{undefined}}"), "{undefined}");
}

#[test]
fn other_braces_are_literal() {
    for text in [
        "{}",
        "{ root }",
        "{\"a\": 1}",
        "fn f() { x }",
        "${1}",
        "a{2,3}",
        "style={{color: 1}}",
        "{{",
        "}}",
        "{root",
        "root}",
        "{1x}",
        "{-}",
    ] {
        assert_eq!(sub(text), text, "{text}");
    }
}

#[test]
fn placeholders_lists_names_in_order_with_repeats() {
    let names: Vec<&str> = placeholders("{a} {{b}} {c} {a} {}").collect();
    assert_eq!(names, ["a", "c", "a"]);
}

#[test]
fn an_unbound_variable_is_an_error() {
    let error = vars().substitute("{nope}").unwrap_err();
    assert_eq!(
        error.to_string(),
        "substitute `{nope}`: no variable `nope` is bound"
    );
}

#[test]
fn json_strings_are_substituted_and_keys_are_not() {
    let args = json!({
        "file_path": "{root}/a",
        "{root}": "key stays",
        "n": 3,
        "list": ["{pid}", true, null, {"deep": "{{pid}}"}],
    });
    assert_eq!(
        vars().substitute_json(&args).unwrap(),
        json!({
            "file_path": "/tmp/root/a",
            "{root}": "key stays",
            "n": 3,
            "list": ["42", true, null, {"deep": "{pid}"}],
        })
    );
}

#[test]
fn regex_values_are_escaped() {
    let mut vars = Vars::new("/tmp/a.b+c");
    vars.set("x", "(1)");
    assert_eq!(
        vars.substitute_regex(r"^{root}/\d+ {x}$").unwrap(),
        r"^/tmp/a\.b\+c/\d+ \(1\)$"
    );
}

#[test]
fn a_trailing_slash_is_dropped_from_the_root() {
    assert_eq!(Vars::new("/tmp/r/").root(), "/tmp/r");
    assert_eq!(Vars::new("/").root(), "/");
    assert_eq!(Vars::new("/tmp/r").get("root"), Some("/tmp/r"));
    assert_eq!(Vars::new("/tmp/r").get("pid"), None);
}

#[test]
fn a_later_capture_replaces_an_earlier_value() {
    let mut vars = vars();
    vars.set("pid", "7");
    assert_eq!(vars.substitute("{pid}").unwrap(), "7");
}

#[test]
fn arguments_are_sent_substituted() {
    let scenario = toolpass_scenario::parse_str(
        "title: t\nspec: s\nsteps:\n  - call: edit\n    args: {file_path: \"{root}/a\", n: 1, answer: no, code: 0755, on: true}\n",
        "p",
    )
    .unwrap();
    let toolpass_scenario::StepKind::Call(call) = &scenario.steps[0].kind else {
        panic!("a call")
    };
    let sent = call.args.substitute(&vars()).unwrap();
    assert_eq!(
        serde_json::Value::Object(sent),
        json!({"file_path": "/tmp/root/a", "n": 1, "answer": "no", "code": "0755", "on": true})
    );
}

#[test]
fn a_capture_binds_the_first_group_or_the_whole_match() {
    use toolpass_scenario::{Located, Pattern};
    let pattern = |text: &str| Pattern::new(Located::unknown(text.to_owned()));
    assert_eq!(
        pattern(r"PID: (\d+)").capture("Started. PID: 4242."),
        Some("4242")
    );
    assert_eq!(pattern(r"\d+").capture("a 12 b"), Some("12"));
    assert_eq!(pattern(r"(x)?y").capture("y"), None);
    assert_eq!(pattern(r"\d+").capture("none"), None);
    // With a placeholder, the pattern runs only once substituted.
    let with_root = pattern(r"^{root}/(\w+)");
    assert_eq!(with_root.capture("/tmp/root/out"), None);
    let ready = with_root.substitute(&vars()).unwrap();
    assert_eq!(ready.capture("/tmp/root/out"), Some("out"));
    // Escapes are undone in a pattern without placeholders: this is the
    // class `[{x}]`.
    assert_eq!(pattern(r"[{{x}}]+").capture("a{x}b"), Some("{x}"));
}

#[test]
fn template_of_gives_back_the_text_once_substituted() {
    let vars = Vars::new("/tmp/sb");
    for text in [
        "plain",
        "/tmp/sb/a.txt: {x} and {{y}} and {{{z}}}",
        "fn f() { x } {} ${1} a{2,3} {\"a\": 1} style={{color: 1}}",
        "{_a1}{b}",
        "",
    ] {
        let template = placeholder::template_of(text, "/tmp/sb");
        assert_eq!(vars.substitute(&template).unwrap(), text, "{template}");
    }
    assert_eq!(
        placeholder::template_of("/tmp/sb/a {x}", "/tmp/sb"),
        "{root}/a {{x}}"
    );
}
