//! Unit tests: one `check` helper per stage (command, script, emulation).

use std::num::NonZeroUsize;

use super::*;

/// Plans `command` in the foreground and returns the file and script
/// parts, or the refusal.
fn planned(command: &str) -> Result<Plan, NotIntercepted> {
    plan(command, Call::Foreground)
}

fn refused(command: &str) -> NotIntercepted {
    match planned(command) {
        Ok(plan) => panic!("{command:?} was intercepted: {plan:?}"),
        Err(reason) => reason,
    }
}

/// Runs `script` (GNU dialect) over `input` and compares with `expected`.
fn check(script: &str, syntax: Syntax, input: &str, expected: &str) {
    check_dialect(script, syntax, input, expected, Dialect::Gnu);
}

/// [`check`] over a table of `(script, syntax, input, expected)`.
fn check_all(cases: &[(&str, Syntax, &str, &str)]) {
    for &(script, syntax, input, expected) in cases {
        check(script, syntax, input, expected);
    }
}

fn check_dialect(script: &str, syntax: Syntax, input: &str, expected: &str, dialect: Dialect) {
    let substitution = parse_script(script, syntax).unwrap_or_else(|e| panic!("{script:?}: {e}"));
    let options = Options {
        dialect,
        ..Options::default()
    };
    let got = emulate(&substitution, input.as_bytes(), options)
        .unwrap_or_else(|e| panic!("{script:?}: {e}"));
    assert_eq!(
        got, expected,
        "{script:?} ({syntax:?}, {dialect:?}) on {input:?}"
    );
}

const B: Syntax = Syntax::Basic;
const E: Syntax = Syntax::Extended;

#[test]
fn the_plain_shapes_are_intercepted_with_the_file_as_written() {
    for command in [
        "sed -i 's/a/b/' file.txt",
        "  sed -i s/a/b/ file.txt  ",
        "sed --in-place 's/a/b/' file.txt",
        "sed --in-place= 's/a/b/' file.txt",
        "sed -i -e 's/a/b/' file.txt",
        "sed -i --expression 's/a/b/' file.txt",
        "sed -i --expression=s/a/b/ file.txt",
        "sed 's/a/b/' -i file.txt",
    ] {
        let plan = planned(command).unwrap_or_else(|e| panic!("{command:?}: {e}"));
        assert_eq!(plan.file, "file.txt", "{command:?}");
        assert_eq!(plan.substitution.pattern, "a", "{command:?}");
        assert_eq!(plan.substitution.syntax, Syntax::Basic, "{command:?}");
    }
    assert_eq!(
        planned("sed -i 's/a/b/' 'my file.txt'").unwrap().file,
        "my file.txt"
    );
    assert_eq!(planned("sed -i s/a/b/ ../up/x").unwrap().file, "../up/x");
}

#[test]
fn a_shell_wrapper_is_unwrapped_once() {
    for command in [
        "bash -c 'sed -i s/a/b/ f'",
        "sh -c \"sed -i 's/a/b/' f\"",
        "/bin/bash -lc 'sed -i s/a/b/ f'",
        "zsh -o pipefail -e -c 'sed -i s/a/b/ f'",
    ] {
        assert_eq!(
            planned(command).map(|p| p.file),
            Ok("f".to_owned()),
            "{command:?}"
        );
    }
    use NotIntercepted as N;
    assert_eq!(
        refused("bash -c 'sed -i s/a/b/ f' | cat"),
        N::ShellSyntax('|')
    );
    assert_eq!(
        refused("bash -c 'sed -i s/a/b/ f | cat'"),
        N::ShellSyntax('|')
    );
    assert_eq!(refused("bash -c 'FOO=1 sed -i s/a/b/ f'"), N::EnvAssignment);
    assert_eq!(refused("bash -c 'bash -c \"sed -i s/a/b/ f\"'"), N::NotSed);
    assert_eq!(refused("bash script.sh"), N::NotSed);
    assert_eq!(refused("bash -c"), N::NotSed);
    assert_eq!(
        refused("bash -c 'sed -i s/a/b/ f' x"),
        N::Option("bash -c with arguments".into())
    );
}

#[test]
fn extended_syntax_comes_from_e_r_and_combined_flags() {
    for command in [
        "sed -E -i 's/a+/b/' f",
        "sed -r -i 's/a+/b/' f",
        "sed --regexp-extended -i 's/a+/b/' f",
        "sed -Ei 's/a+/b/' f",
        "sed -ri 's/a+/b/' f",
        "sed -rE -i 's/a+/b/' f",
    ] {
        let plan = planned(command).unwrap_or_else(|e| panic!("{command:?}: {e}"));
        assert_eq!(plan.substitution.syntax, Syntax::Extended, "{command:?}");
    }
}

#[test]
fn options_qwen_refuses_are_left_to_the_shell() {
    use NotIntercepted as N;
    let cases: &[(&str, NotIntercepted)] = &[
        ("sed 's/a/b/' f", N::NotInPlace),
        ("sed -i.bak 's/a/b/' f", N::BackupSuffix("-i.bak".into())),
        ("sed -iE 's/a/b/' f", N::BackupSuffix("-iE".into())),
        (
            "sed --in-place=.orig 's/a/b/' f",
            N::BackupSuffix("--in-place=.orig".into()),
        ),
        ("sed -n -i 's/a/b/p' f", N::Option("-n".into())),
        ("sed -i -s 's/a/b/' f", N::Option("-s".into())),
        ("sed -i -z 's/a/b/' f", N::Option("-z".into())),
        ("sed -i -f script.sed f", N::Option("-f".into())),
        ("sed -i -- 's/a/b/' f", N::Option("--".into())),
        ("sed -i 's/a/b/' f g", N::SeveralFiles),
        ("sed -i -e 's/a/b/' -e 's/c/d/' f", N::SeveralScripts),
        ("sed -i 's/a/b/'", N::NoFile),
        ("sed -i", N::NoScript),
        ("sed -i -e", N::NoScript),
        // GNU sed reads `''` as the (empty) script, then two files.
        ("sed -i '' f", N::NoScript),
        ("sed -i '' 's/a/b/' f", N::SeveralFiles),
        ("sed", N::NotSed),
        ("sedx -i s/a/b/ f", N::NotSed),
        ("/bin/sed -i s/a/b/ f", N::NotSed),
        ("LC_ALL=C sed -i 's/a/b/' f", N::EnvAssignment),
        ("  FOO=1 sed -i 's/a/b/' f", N::EnvAssignment),
    ];
    for (command, reason) in cases {
        assert_eq!(&refused(command), reason, "{command:?}");
    }
    assert_eq!(
        plan("sed -i 's/a/b/' f", Call::Background),
        Err(NotIntercepted::Background)
    );
}

#[test]
fn shell_syntax_outside_quotes_is_left_to_the_shell() {
    for (command, c) in [
        ("sed -i 's/a/b/' f && rm f", '&'),
        ("sed -i 's/a/b/' f; ls", ';'),
        ("sed -i 's/a/b/' f | cat", '|'),
        ("sed -i 's/a/b/' f > out", '>'),
        ("sed -i 's/a/b/' < f", '<'),
        ("sed -i s/a*/b/ f", '*'),
        ("sed -i 's/a/b/' f?", '?'),
        ("sed -i 's/a/b/' f[12]", '['),
        ("sed -i 's/a/b/' f{1,2}", '{'),
        ("sed -i 's/a/b/' $(ls)", '('),
        ("sed -i 's/a/b/' f # note", '#'),
        ("sed -i s/a\\|b/c/ f", '|'),
    ] {
        assert_eq!(
            refused(command),
            NotIntercepted::ShellSyntax(c),
            "{command:?}"
        );
    }
    // Quoted, the same characters are the script's own.
    for command in [
        "sed -i 's/a|b/c;d/' f",
        "sed -i \"s/a*/(&)/\" f",
        "sed -i 's/[ab]\\{2\\}/#/' f",
        "sed -i 's/x/&&/' 'f[1].txt'",
    ] {
        assert!(
            planned(command).is_ok(),
            "{command:?}: {:?}",
            planned(command)
        );
    }
}

#[test]
fn expansions_and_broken_quoting_are_left_to_the_shell() {
    use NotIntercepted as N;
    assert_eq!(
        refused("sed -i \"s/$OLD/new/\" f"),
        N::Expansion("s/$OLD/new/".into())
    );
    assert_eq!(
        refused("sed -i 's/${x}/y/' f"),
        N::Expansion("s/${x}/y/".into())
    );
    assert_eq!(
        refused("sed -i 's/a/b/' $FILE"),
        N::Expansion("$FILE".into())
    );
    assert_eq!(
        refused("sed -i 's/a/b/' ~/notes"),
        N::Expansion("~/notes".into())
    );
    assert_eq!(
        refused("sed -i 's/a/b/' \"`pwd`/f\""),
        N::Expansion("`pwd`/f".into())
    );
    assert_eq!(refused("sed -i 's/a/b/ f"), N::Unsplittable);
    assert_eq!(refused("sed -i 's/a/b/' f\nrm f"), N::MultiLine);
    // `$` as an anchor is no expansion.
    assert!(planned("sed -i 's/a$/b/' f").is_ok());
}

#[test]
fn scripts_outside_the_subset_are_left_to_the_shell() {
    use ScriptError as S;
    let script_error = |command: &str| match refused(command) {
        NotIntercepted::Script(e) => e,
        other => panic!("{command:?}: {other:?}"),
    };
    assert_eq!(script_error("sed -i '1,3s/a/b/' f"), S::NotASubstitution);
    assert_eq!(script_error("sed -i '/x/d' f"), S::NotASubstitution);
    assert_eq!(script_error("sed -i 'y/ab/cd/' f"), S::NotASubstitution);
    assert_eq!(script_error("sed -i 'sxaxbx' f"), S::Delimiter('x'));
    assert_eq!(script_error("sed -i 's/a/b' f"), S::Unterminated);
    assert_eq!(script_error("sed -i 's//b/' f"), S::EmptyPattern);
    assert_eq!(script_error("sed -i 's/a/b/p' f"), S::Flag("p".into()));
    assert_eq!(
        script_error("sed -i 's/a/b/w out' f"),
        S::Flag("w out".into())
    );
    assert_eq!(
        script_error("sed -i 's/a/b/;s/c/d/' f"),
        S::Flag(";s/c/d/".into())
    );
    assert_eq!(script_error("sed -i 's/a/b/gg' f"), S::Flag("gg".into()));
    assert_eq!(script_error("sed -i 's/a/b/0' f"), S::Flag("0".into()));
    assert_eq!(script_error("sed -i 's/a/b/2g3' f"), S::Flag("2g3".into()));
    assert!(matches!(
        script_error("sed -i 's/a/\\U&/' f"),
        S::Replacement(ReplacementError::Escape(_))
    ));
    assert_eq!(
        script_error("sed -i 's/\\(a\\)/\\2/' f"),
        S::Replacement(ReplacementError::NoSuchGroup(2))
    );
    for pattern in [
        "\\w",
        "\\<a",
        "\\bword",
        "[[:alpha:]]",
        "[\\.]",
        "\\(a\\)\\1",
        "a**",
    ] {
        let command = format!("sed -i 's/{pattern}/x/' f");
        assert!(
            matches!(script_error(&command), S::Regex(RegexError::Unsupported(_))),
            "{command}"
        );
    }
    assert!(matches!(
        script_error("sed -i 's/[z-a]/x/' f"),
        S::Regex(RegexError::Compile(_))
    ));
    for pattern in ["\\(a", "a\\)", "[ab", "a\\{2"] {
        let command = format!("sed -i 's/{pattern}/x/' f");
        assert!(
            matches!(script_error(&command), S::Regex(RegexError::Malformed(_))),
            "{command}"
        );
    }
}

#[test]
fn flags_and_delimiters_are_read() {
    let sub = parse_script("s|/usr/lib|/opt/lib|3gI", B).unwrap();
    assert_eq!(sub.delimiter, '|');
    assert_eq!(sub.pattern, "/usr/lib");
    assert_eq!(
        sub.flags,
        Flags {
            global: true,
            ignore_case: true,
            occurrence: NonZeroUsize::new(3)
        }
    );
    assert_eq!(parse_script("s/a\\/b/c/", B).unwrap().pattern, "a/b");
    assert_eq!(parse_script("s,a\\,b,c,", B).unwrap().pattern, "a,b");
    assert_eq!(
        parse_script("s/a/x\\/&\\&\\\\\\n\\1/", B).map(|s| s.replacement),
        Err(ScriptError::Replacement(ReplacementError::NoSuchGroup(1)))
    );
    let sub = parse_script("s/\\(a\\)/x\\/&\\&\\\\\\n\\1/", B).unwrap();
    assert_eq!(
        sub.replacement.pieces(),
        [
            Piece::Text("x/".into()),
            Piece::Match,
            Piece::Text("&\\\n".into()),
            Piece::Group(1)
        ]
    );
}

#[test]
fn replacement_references() {
    check_all(&[
        ("s/b/[&]/", B, "abc\n", "a[b]c\n"),
        ("s/\\(a\\)\\(b\\)/\\2\\1/", B, "abc\n", "bac\n"),
        ("s/(a)|(b)/<\\1\\2>/g", E, "ab\n", "<a><b>\n"),
        ("s/b/\\&\\\\/", B, "abc\n", "a&\\c\n"),
        ("s/b/1\\n2/", B, "abc\n", "a1\n2c\n"),
        ("s|b|/|", B, "abc\n", "a/c\n"),
    ]);
}

#[test]
fn global_and_occurrence() {
    check_all(&[
        ("s/a/x/", B, "aaa\naaa\n", "xaa\nxaa\n"),
        ("s/a/x/g", B, "aaa\n", "xxx\n"),
        ("s/a/x/2", B, "aaaa\n", "axaa\n"),
        ("s/a/x/2g", B, "aaaa\n", "axxx\n"),
        ("s/a/x/5", B, "aaaa\n", "aaaa\n"),
    ]);
}

#[test]
fn empty_matches_follow_sed() {
    check_all(&[
        ("s/b*/x/g", B, "abc\n", "xaxcx\n"),
        ("s/a*/x/g", B, "baaac\n", "xbxcx\n"),
        ("s/x*/-/g", B, "abc\n", "-a-b-c-\n"),
        ("s/^/> /", B, "a\nb\n", "> a\n> b\n"),
        ("s/$/;/", B, "a\nb", "a;\nb;"),
        ("s/x*/-/2", B, "abc\n", "a-bc\n"),
    ]);
}

#[test]
fn basic_syntax_reads_posix_literals_and_gnu_operators() {
    check_all(&[
        ("s/a+b/x/", B, "a+b aab\n", "x aab\n"),
        ("s/a\\+b/x/", B, "a+b aab\n", "a+b x\n"),
        ("s/a?/x/", B, "a?\n", "x\n"),
        ("s/(a)/x/", B, "(a)\n", "x\n"),
        ("s/a{2}/x/", B, "a{2}\n", "x\n"),
        ("s/a\\{2\\}/x/", B, "aaa\n", "xa\n"),
        ("s/a\\{,2\\}/x/", B, "aaa\n", "xa\n"),
        ("s/a|b/x/", B, "a|b\n", "x\n"),
        ("s/a\\|b/x/g", B, "a|b\n", "x|x\n"),
        ("s/*a/x/", B, "*a\n", "x\n"),
        ("s/\\(*a\\)/x/", B, "*a\n", "x\n"),
        ("s/^*a/x/", B, "*a\n", "x\n"),
        ("s/a^b/x/", B, "a^b\n", "x\n"),
        ("s/a$b/x/", B, "a$b\n", "x\n"),
        ("s/\\(a$\\)/x/", B, "ba\n", "bx\n"),
        ("s/[]a]/x/g", B, "]a\n", "xx\n"),
        ("s/[^]a]/x/g", B, "]ab\n", "]ax\n"),
        ("s/[a-c&~]/x/g", B, "a&~d\n", "xxxd\n"),
        ("s/a\\.b/x/g", B, "a.b axb\n", "x axb\n"),
        ("s/\\t/x/", B, "a\tb\n", "axb\n"),
    ]);
}

#[test]
fn extended_syntax() {
    check_all(&[
        ("s/a+b/x/", E, "a+b aab\n", "a+b x\n"),
        ("s/a\\+b/x/", E, "a+b aab\n", "x aab\n"),
        ("s/(a|b){2}/x/", E, "cab\n", "cx\n"),
        ("s/a{2,}/x/", E, "aaaa\n", "x\n"),
        ("s/a|b/x/g", E, "abc\n", "xxc\n"),
        ("s/(ab)+/x/", E, "ababc\n", "xc\n"),
    ]);
}

#[test]
fn the_escaped_delimiter_means_what_the_plain_character_means() {
    // GNU sed makes `\.` the plain `.`, which a BRE reads as any character.
    check_all(&[
        ("s.a\\.b.x.g", B, "a.b axb\n", "x x\n"),
        ("s|a\\|b|x|g", B, "a|b ab\n", "x ab\n"),
        ("s|a\\|b|x|g", E, "a|b ab\n", "x|x xx\n"),
    ]);
}

#[test]
fn matches_are_leftmost_longest() {
    check("s/a|ab/x/", E, "abc\n", "xc\n");
    check(
        "s/(a|ab)(c|bcd)(d*)/[\\1][\\2][\\3]/",
        E,
        "abcd\n",
        "[a][bcd][]\n",
    );
    check("s/a?(ab)?/[&]/", E, "ab\n", "[ab]\n");
    check_dialect("s/a|ab/x/", E, "abc\n", "xbc\n", Dialect::Qwen0244);
}

#[test]
fn ignore_case() {
    check_all(&[
        ("s/hello/x/I", B, "HeLLo\n", "x\n"),
        ("s/l/x/gi", B, "heLLo\n", "hexxo\n"),
        ("s/É/e/I", B, "café\n", "cafe\n"),
    ]);
}

#[test]
fn lines_keep_their_endings() {
    check_all(&[
        ("s/b/x/", B, "", ""),
        ("s/^/x/", B, "", ""),
        ("s/^/x/", B, "\n", "x\n"),
        ("s/^/x/", B, "a\n\n", "xa\nx\n"),
        ("s/$/x/", B, "a", "ax"),
        ("s/b/x/", B, "a\nb", "a\nx"),
        ("s/.*/x/", B, "ab\ncd\n", "x\nx\n"),
    ]);
}

#[test]
fn crlf_lines_end_in_a_carriage_return_for_gnu_and_not_for_qwen() {
    let crlf = "ab\r\ncd\r\n";
    // GNU: `\r` is the last character of the line, so `$` is after it.
    check("s/b$/x/", B, crlf, crlf);
    check("s/.*/x/", B, crlf, "x\nx\n");
    check("s/\\(.\\)$/[\\1]/", B, "ab\r\n", "ab[\r]\n");
    // Qwen 0.24.4: `.` stops at `\r`, and line breaks are written back as
    // `\r\n` whenever the file had one.
    let qwen = |script: &str, input: &str, expected: &str| {
        check_dialect(script, B, input, expected, Dialect::Qwen0244)
    };
    qwen("s/b$/x/", crlf, crlf);
    qwen("s/.*/x/", crlf, "x\r\nx\r\n");
    qwen("s/b/1\\n2/", crlf, "a1\r\n2\r\ncd\r\n");
    qwen("s/\\r$//", "a\r\nb\r\n", "a\r\nb\r\n");
    check("s/\\r$//", B, "a\r\nb\r\n", "a\nb\n");
    // On a file without `\r\n` the two agree.
    qwen("s/.*/x/", "ab\ncd", "x\nx");
}

#[test]
fn emulation_failures_mean_let_sed_run() {
    let sub = parse_script("s/a/b/", B).unwrap();
    assert_eq!(
        emulate(&sub, b"a\xffb\n", Options::default()),
        Err(EmulationError::NotUtf8 { offset: 1 })
    );
    let grow = parse_script("s/x*/&&&&/g", B).unwrap();
    let small = Options {
        max_output_bytes: 100,
        ..Options::default()
    };
    assert_eq!(
        emulate(&grow, "x".repeat(60).as_bytes(), small),
        Err(EmulationError::TooLarge { limit: 100 })
    );
    let empty = parse_script("s/x*/-/g", B).unwrap();
    assert_eq!(
        emulate(&empty, "ab\né".as_bytes(), Options::default()),
        Err(EmulationError::EmptyMatchBeforeMultibyte { offset: 3 })
    );
    // Without `g` the search stops at the first match; JavaScript steps
    // over a BMP character whole.
    check("s/x*/-/", B, "é\n", "-é\n");
    check_dialect("s/x*/-/g", B, "é\n", "-é-\n", Dialect::Qwen0244);
    let by_hand = Substitution {
        pattern: "\\w".into(),
        ..sub
    };
    assert!(matches!(
        emulate(&by_hand, b"a", Options::default()),
        Err(EmulationError::Regex(_))
    ));
}

#[test]
fn every_refusal_reads_as_a_sentence() {
    let reasons = [
        refused("sed -i.bak 's/a/b/' f"),
        refused("sed -i 's/a/b/' f | cat"),
        refused("sed -i 's/\\w/b/' f"),
        refused("sed -i 's/a/\\U&/' f"),
    ];
    let text: Vec<String> = reasons.iter().map(ToString::to_string).collect();
    assert_eq!(
        text,
        [
            "\"-i.bak\" asks for a backup file",
            "the command has an unquoted '|', which the shell would act on",
            "the pattern uses \"\\\\w\", which the emulation does not support",
            "the replacement uses the unsupported escape \"\\\\U\"",
        ]
    );
}
