use super::*;

#[test]
fn commands_split_on_top_level_operators_only() {
    let split = |c: &str| split_commands(c).commands;
    assert_eq!(
        split("a && b || c; d | e |& f & g\nh"),
        ["a", "b", "c", "d", "e", "f", "g", "h"]
    );
    assert_eq!(
        split("echo 'a;b' \"c && d\" e\\;f"),
        ["echo 'a;b' \"c && d\" e\\;f"]
    );
    assert_eq!(split("x $(a; b) `c | d`"), ["x $(a; b) `c | d`"]);
    assert_eq!(split("cmd 2>&1 >| out <&0"), ["cmd 2>&1 >| out <&0"]);
    assert_eq!(split("a \\\n b"), ["a \\\n b"]);
    assert_eq!(split(" ;; "), Vec::<String>::new());
    assert_eq!(split("a &> f; b &>> g"), ["a &> f", "b &>> g"]);
    assert_eq!(
        split("cat > n <<EOF\nrm x; y\nEOF\nls"),
        ["cat > n <<EOF\nrm x; y\nEOF", "ls"]
    );
    assert_eq!(split("cat <<< 'a'\nb"), ["cat <<< 'a'", "b"]);
}

#[test]
fn the_root_is_the_program_after_assignments_without_its_directory() {
    assert_eq!(
        command_root("  LC_ALL=C /usr/bin/sed -i x f").as_deref(),
        Some("sed")
    );
    assert_eq!(command_root("'my tool' --x").as_deref(), Some("my tool"));
    assert_eq!(command_root("echo \"never closed").as_deref(), Some("echo"));
    assert_eq!(command_root("   "), None);
    assert_eq!(
        command_roots("git add . && git commit; ls | wc"),
        ["git", "ls", "wc"]
    );
    assert!(command_roots(";").is_empty());
}

#[test]
fn exit_one_is_an_answer_for_the_status_command_of_a_pipeline_only() {
    let error = |c, code| is_exit_error(c, Some(code));
    assert!(!error("grep x a.txt", 1));
    assert!(!error("cat a | grep x", 1));
    assert!(!error("diff a b", 1));
    assert!(!error("[[ -e x ]]", 1));
    assert!(!error("sudo -u me rg x", 1));
    assert!(!error("env -u X FOO=1 /bin/grep x", 1));
    assert!(error("grep x a; false", 1), "a sequence is not a pipeline");
    assert!(error("grep x | cat", 1), "the last command decides");
    assert!(error("(grep x)", 1));
    assert!(error("GIT_DIR=/x grep y", 1));
    assert!(error("env -C /tmp grep y", 1));
    assert!(error("false", 1));
    assert!(error("grep x a.txt", 2), "2 and above always fail");
    assert!(!error("false", 0));
    assert!(!is_exit_error("false", None), "a signal is judged apart");
}

#[test]
fn a_bare_trailing_ampersand_is_found_outside_quotes_and_comments() {
    assert!(ends_in_bare_ampersand("npm run dev &"));
    assert!(ends_in_bare_ampersand("npm run dev &  # start it"));
    assert!(!ends_in_bare_ampersand("a && b"));
    assert!(!ends_in_bare_ampersand("a |&"));
    assert!(!ends_in_bare_ampersand("echo a\\&"));
    assert!(!ends_in_bare_ampersand("echo 'a &'"));
    assert!(!ends_in_bare_ampersand("echo \"$(a &)\""));
    assert!(!ends_in_bare_ampersand("echo done"));
}

#[test]
fn a_leading_sleep_of_two_seconds_or_more_is_refused_with_qwens_words() {
    let standalone = blocked_sleep("sleep 3").unwrap();
    assert!(
        standalone.starts_with(
            "Blocked: standalone sleep 3. Run blocking commands in the background with \
             is_background: true."
        ),
        "{standalone}"
    );
    assert!(standalone.ends_with("(up to 10 minutes)."));
    let chained = blocked_sleep("sleep 5 && touch x").unwrap();
    assert!(
        chained.starts_with("Blocked: sleep 5 followed by: touch x."),
        "{chained}"
    );
    assert!(chained.ends_with("then the follow-up command."));
    assert!(blocked_sleep("sleep 2m; ls").is_some());
    assert!(blocked_sleep("sleep 1.5").is_none());
    assert!(blocked_sleep("sleep 1500ms").is_none());
    assert!(blocked_sleep("sleep 5 | cat").is_none());
    assert!(blocked_sleep("sleep 5 &").is_none());
    assert!(blocked_sleep("sleeper 5").is_none());
    assert!(blocked_sleep("sleep $N").is_none());
    assert!(blocked_sleep("echo; sleep 5").is_none());
    assert!(blocked_sleep("sleep 3 # intentional-sleep: rate limit reset").is_none());
    let short = blocked_sleep("sleep 3 # intentional-sleep: x").unwrap();
    assert!(short.ends_with("after `intentional-sleep:`."), "{short}");
    let long = blocked_sleep("sleep 11m # intentional-sleep: a long long wait").unwrap();
    assert!(long.contains("over 10 minutes"), "{long}");
}
