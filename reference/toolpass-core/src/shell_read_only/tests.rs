//! Unit tests: the parse, the directory rule, and properties over hostile
//! input. Qwen's own verdicts are checked in `tests/qwen_shell_safety/`.

use proptest::prelude::*;

use super::syntax::{MAX_LENGTH, parse};
use super::*;

fn safety(command: &str) -> Safety {
    classify(command).safety
}

#[test]
fn words_are_the_shells_and_redirections_are_apart_from_them() {
    let commands = parse("grep -n 'a b' \"c\"d 2>&1 <in.txt | head -3").unwrap();
    assert_eq!(commands.len(), 2);
    let values: Vec<&str> = commands[0].words.iter().map(|w| w.value.as_str()).collect();
    assert_eq!(values, ["grep", "-n", "a b", "cd"]);
    let redirects: Vec<(&str, &str)> = commands[0]
        .redirects
        .iter()
        .map(|r| (r.operator, r.target.value.as_str()))
        .collect();
    assert_eq!(redirects, [(">&", "1"), ("<", "in.txt")]);
}

#[test]
fn a_word_glued_to_a_redirection_is_a_word_unless_it_is_a_descriptor() {
    let commands = parse("echo a>b 2>c").unwrap();
    let values: Vec<&str> = commands[0].words.iter().map(|w| w.value.as_str()).collect();
    assert_eq!(values, ["echo", "a"]);
    assert_eq!(commands[0].redirects.len(), 2);
    assert_eq!(safety("echo a>b"), Safety::Write);
}

#[test]
fn quoted_syntax_is_no_syntax() {
    for command in [
        "grep 'a|b' f",
        "grep \"a;b\" f",
        "echo 'x > y'",
        "grep a\\|b f",
        "echo '$(rm x)'",
        "echo \"\\$(rm x)\"",
        "echo '`rm x`'",
        "grep '(' f",
        "echo \"#not a comment\"",
    ] {
        assert_eq!(safety(command), Safety::ReadOnly, "{command}");
    }
}

#[test]
fn what_the_parse_does_not_model_asks() {
    for command in [
        "(ls)(pwd)",
        "( )",
        "((1))",
        "f() { ls; }",
        "echo )",
        "(ls",
        "(ls) foo",
        "ls $(pwd)",
        "ls `pwd`",
        "echo \"$(rm x)\"",
        "cat <(ls)",
        "cat <<EOF\nx\nEOF",
        "cat <> f",
        "ls {fd}>&2",
        "ls # comment",
        "echo $'a'",
        "echo \"${x@P}\"",
        "ls;;",
        "; ls",
        "ls |",
        "ls && && ls",
        "'unterminated",
        "ls \\",
        "ls\0",
        "",
        " \t ",
    ] {
        assert_ne!(safety(command), Safety::ReadOnly, "{command:?}");
    }
}

#[test]
fn a_subshell_is_its_commands_and_its_redirections_apply_to_it_all() {
    assert_eq!(safety("(ls; pwd) | grep x"), Safety::ReadOnly);
    assert_eq!(safety("( (ls) ) 2>&1"), Safety::ReadOnly);
    assert_eq!(safety("(ls) > out"), Safety::Write);
    assert_eq!(safety("(ls > out) && pwd"), Safety::Write);
    assert_eq!(safety("ls && (rm x)"), Safety::Write);
    let after_cd = classify("(cd sub && git status)");
    assert_eq!(after_cd.in_directory(GitConfigRisk::NONE), Safety::Unknown);
}

#[test]
fn a_line_over_the_bound_asks_and_one_under_it_is_judged() {
    let under = format!("echo {}", "a".repeat(MAX_LENGTH - 10));
    assert_eq!(safety(&under), Safety::ReadOnly);
    let over = format!("echo {}", "a".repeat(MAX_LENGTH));
    assert_eq!(safety(&over), Safety::Unknown);
}

#[test]
fn a_continued_line_is_judged_joined_as_well() {
    assert_eq!(safety("grep pattern\\\nfile"), Safety::ReadOnly);
    // Joined, `$(` appears inside double quotes.
    assert_eq!(safety("echo \"$\\\n(touch x)\""), Safety::Unknown);
}

#[test]
fn every_git_command_depends_on_the_repositorys_configuration() {
    let helper = GitConfigRisk { runs_helper: true };
    for command in [
        "git diff && ls",
        "git status --short",
        "git show HEAD",
        "git log -p",
        "git blame a.txt",
        "git ls-files -m",
        "git describe --dirty",
        "git remote show origin",
    ] {
        let verdict = classify(command);
        assert!(verdict.needs_git_config(), "{command}");
        assert!(verdict.is_read_only(GitConfigRisk::NONE), "{command}");
        assert!(!verdict.is_read_only(helper), "{command}");
    }
    // Other programs, and git commands that ask anyway, do not ask git.
    assert!(!classify("ls").needs_git_config());
    assert!(!classify("git commit").needs_git_config());
    assert_eq!(classify("ls").in_directory(helper), Safety::ReadOnly);
}

#[test]
fn git_status_after_a_cd_is_unknown_before_one_it_is_not() {
    let after = classify("cd /elsewhere && git status");
    assert_eq!(after.safety, Safety::ReadOnly);
    assert!(!after.needs_git_config());
    assert_eq!(after.in_directory(GitConfigRisk::NONE), Safety::Unknown);
    let before = classify("git status && cd /elsewhere");
    assert_eq!(before.in_directory(GitConfigRisk::NONE), Safety::ReadOnly);
}

/// Constructs this parse refuses, each one read-only-looking otherwise.
const REFUSED: &[&str] = &[
    "$(ls)", "`ls`", "(ls)", "<(ls)", "<<EOF", "<>f", "{fd}>&2", "#c", "$'x'", "${x@P}", ";;",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Not understood ⇒ asks: a refused construct, unquoted, anywhere in
    /// a line of read-only commands makes the line not read-only.
    #[test]
    fn a_construct_not_understood_asks(
        before in proptest::sample::select(vec!["ls", "cat f", "git status", "ls | wc -l", "echo a"]),
        after in proptest::sample::select(vec!["", " f", " && ls", "; pwd"]),
        construct in proptest::sample::select(REFUSED.to_vec()),
    ) {
        let command = format!("{before} {construct}{after}");
        prop_assert_ne!(safety(&command), Safety::ReadOnly, "{:?}", command);
    }

    /// Any text: no panic, and the verdict is the same twice.
    #[test]
    fn any_text_is_judged_without_panic(text in any::<String>()) {
        prop_assert_eq!(classify(&text), classify(&text));
    }

    /// Shell-ish noise: operators, quotes and escapes in any order, with
    /// read-only words among them so that some lines are read-only.
    #[test]
    fn shell_noise_is_judged_without_panic(
        text in proptest::collection::vec(
            proptest::sample::select(vec![
                "ls", " ", "'", "\"", "\\", "$", "(", ")", "`", "|", "&", ";", "<", ">", "\n",
                "#", "{", "}", "*", "=", "git", "-", "diff", "\\\n", "é", "\t", "2",
                "cat f", " | wc", " && ls", "2>&1", "'x'",
            ]),
            0..40,
        )
    ) {
        // No panic; a read-only line splits into words, and a write
        // appended to it is not read-only (the fuzz target's property).
        let text: String = text.concat();
        let checked = crate::testkit::shell_read_only::check_shell_read_only(&text);
        prop_assert!(checked.is_ok(), "{:?}", checked);
    }
}
