//! The classifier against Qwen Code's own: every command line of
//! `cases.rs` (Qwen 0.24.4's answers, generated from its published package
//! by `scripts/qwen-shell-safety-cases.mjs`) gets Qwen's answer here, or
//! the departure listed below, each with its reason.

mod cases;

use cases::QWEN_VERDICTS;
use toolpass_core::shell_read_only::Safety::{self, ReadOnly, Unknown, Write};
use toolpass_core::shell_read_only::classify;

/// Where this classifier answers otherwise, and why. Every departure but
/// the last two is towards asking: what this parse does not model is
/// unknown, where Qwen's tree-sitter walk finds a verdict.
const DEPARTURES: &[(&str, Safety, &str)] = &[
    // Substitution is refused whole; Qwen judges the inner command too
    // (a write inside makes it a write, which plan mode refuses).
    ("echo $(rm x)", Unknown, "substitution"),
    ("echo $(touch file)", Unknown, "substitution"),
    ("echo `rm -rf /`", Unknown, "substitution"),
    ("echo $(echo $(rm foo))", Unknown, "substitution"),
    ("echo \"$(rm x)\"", Unknown, "substitution"),
    ("echo $((1+2))", Unknown, "arithmetic is refused with `$(`"),
    ("echo $'\\x41'", Unknown, "$'…' quoting is not shlex's"),
    // Groups, control flow, negation and here-documents are not parsed.
    ("{ ls; pwd; }", Unknown, "group"),
    ("cat <<EOF\nhello\nEOF", Unknown, "here-document"),
    ("if true; then rm target; fi", Unknown, "control flow"),
    ("while false; do rm target; done", Unknown, "control flow"),
    (
        "for item in value; do rm target; done",
        Unknown,
        "control flow",
    ),
    ("! rm target", Unknown, "negation"),
    ("! ls", Unknown, "negation"),
    ("x=(a b)", Unknown, "an array assignment"),
    // tree-sitter-bash recovers from these without an error node.
    ("ls ;; pwd", Unknown, "a case terminator outside case"),
    ("ls &&\npwd", Unknown, "a line break after an operator"),
    // Arguments are the shell's words, not the text with outer quotes
    // stripped: this is what git and find receive.
    ("git sta\"tus\"", ReadOnly, "git receives `status`"),
    ("find . -del'ete'", Write, "find receives `-delete`"),
];

#[test]
fn every_case_gets_qwens_verdict_or_its_listed_departure() {
    let mut wrong = Vec::new();
    for &(command, qwen) in QWEN_VERDICTS {
        let ours = classify(command).safety;
        let expected = DEPARTURES
            .iter()
            .find(|(c, _, _)| *c == command)
            .map_or(qwen, |&(_, departure, _)| departure);
        if ours != expected {
            wrong.push(format!(
                "{command:?}: expected {expected:?} (Qwen {qwen:?}), got {ours:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_departure_is_a_case_and_differs_from_qwen() {
    for &(command, departure, why) in DEPARTURES {
        let qwen = QWEN_VERDICTS
            .iter()
            .find(|(c, _)| *c == command)
            .map(|&(_, s)| s);
        assert!(qwen.is_some(), "{command:?} ({why}) is not in cases.rs");
        assert_ne!(
            qwen,
            Some(departure),
            "{command:?} ({why}) agrees with Qwen now"
        );
    }
}

#[test]
fn nothing_qwen_asks_for_runs_unasked_here_but_the_real_words() {
    let widened: Vec<&str> = QWEN_VERDICTS
        .iter()
        .filter(|&&(command, qwen)| qwen != ReadOnly && classify(command).safety == ReadOnly)
        .map(|&(command, _)| command)
        .collect();
    assert_eq!(widened, ["git sta\"tus\""]);
}

#[test]
fn the_corpus_covers_all_three_answers() {
    for safety in [ReadOnly, Write, Unknown] {
        let count = QWEN_VERDICTS.iter().filter(|(_, s)| *s == safety).count();
        assert!(count >= 50, "{safety:?}: only {count} cases");
    }
}

/// Qwen's "adversarial rule inputs in bounded time" test, at this parse's
/// worst: lines at the length bound made of the characters whose quoting
/// is probed.
#[test]
fn hostile_lines_at_the_bound_are_judged_in_bounded_time() {
    let started = std::time::Instant::now();
    for unit in [" ", "| ", "a ", "'x' ", "\\ ", "$a ", "p;", "\\{"] {
        let line = format!("ls {}", unit.repeat(2000 / unit.len()));
        let _ = classify(&line);
        let sed = format!("sed '{}' file", unit.repeat(2000 / unit.len()));
        let _ = classify(&sed);
    }
    let elapsed = started.elapsed();
    assert!(elapsed.as_secs_f64() < 2.0, "took {elapsed:?}");
}
