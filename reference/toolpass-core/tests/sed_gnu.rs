//! The `sed -i` emulation against real GNU sed: a table of scripts and
//! generated scripts over generated files, each run by `sed -i` on a file
//! in a temporary directory and by the emulation, byte for byte.
//!
//! GNU sed is required, not optional: it is on every Linux machine this
//! project builds on (CI included), and a test that skipped itself when it
//! is missing would pass while proving nothing. sed runs in the `C.UTF-8`
//! locale, the one the emulation models (a `.` is a character, not a byte).

use std::fs;
use std::path::Path;
use std::process::Command;

use proptest::prelude::*;
use toolpass_core::sed::{EmulationError, Options, Syntax, emulate, parse_script};

/// What GNU sed makes of `input` under `script`, run as `sed -i`.
fn gnu_sed(dir: &Path, script: &str, syntax: Syntax, input: &[u8]) -> Vec<u8> {
    let file = dir.join("target.txt");
    fs::write(&file, input).unwrap();
    let mut command = Command::new("sed");
    command.env("LC_ALL", "C.UTF-8").arg("-i");
    if syntax == Syntax::Extended {
        command.arg("-E");
    }
    let output = command.arg("-e").arg(script).arg(&file).output().unwrap();
    assert!(
        output.status.success(),
        "GNU sed refused {script:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    fs::read(&file).unwrap()
}

fn require_gnu_sed() {
    let version = Command::new("sed").arg("--version").output();
    let banner = version
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    assert!(
        banner.contains("GNU sed"),
        "the differential test needs GNU sed on PATH (Debian: apt-get install sed); found {banner:?}"
    );
}

/// Compares the emulation with GNU sed on one case.
fn compare(dir: &Path, script: &str, syntax: Syntax, input: &str) -> Result<(), String> {
    let substitution =
        parse_script(script, syntax).map_err(|e| format!("{script:?} not accepted: {e}"))?;
    let emulated = match emulate(&substitution, input.as_bytes(), Options::default()) {
        Ok(emulated) => emulated,
        // Refused where GNU sed would cut a character: the real sed runs,
        // so there is nothing to compare; only non-ASCII text can do it.
        Err(EmulationError::EmptyMatchBeforeMultibyte { .. }) if !input.is_ascii() => return Ok(()),
        Err(e) => return Err(format!("{script:?} not emulated: {e}")),
    };
    let real = gnu_sed(dir, script, syntax, input.as_bytes());
    if emulated.as_bytes() == real {
        Ok(())
    } else {
        Err(format!(
            "{script:?} ({syntax:?}) on {input:?}\n emulated: {emulated:?}\n GNU sed:  {:?}",
            String::from_utf8_lossy(&real)
        ))
    }
}

const B: Syntax = Syntax::Basic;
const E: Syntax = Syntax::Extended;

/// Scripts written by hand for what each feature does at its edges.
const TABLE: &[(&str, Syntax)] = &[
    ("s/a/x/", B),
    ("s/a/x/g", B),
    ("s/a/x/2", B),
    ("s/a/x/2g", B),
    ("s/a*/x/g", B),
    ("s/a*/x/2", B),
    ("s/a*/x/3g", B),
    ("s/b*/-/g", B),
    ("s/^/> /", B),
    ("s/$/;/", B),
    ("s/$/\\r/", B),
    ("s/\\r$//", B),
    ("s/.$/<&>/", B),
    ("s/a$/x/", B),
    ("s/.*/[&]/", B),
    ("s/[^a]/x/g", B),
    ("s/[]a]/x/g", B),
    ("s/[a-c]\\{2\\}/x/g", B),
    ("s/a\\{,2\\}/x/g", B),
    ("s/a\\{2,\\}/x/g", B),
    ("s/\\(a\\|b\\)\\+/<\\1>/g", B),
    ("s/\\(a\\)\\(b\\)\\?/\\2\\1/g", B),
    ("s/a+b?(c){1}|/x/g", B),
    ("s/*a/x/g", B),
    ("s/\\(*a\\)/x/g", B),
    ("s/^*/x/", B),
    ("s/a^b$c/x/g", B),
    ("s.a\\.b.x.g", B),
    ("s|a\\|b|x|g", B),
    ("s|a\\|b|x|g", E),
    ("s,a\\,b,x\\,y,g", B),
    ("s&a&x\\&y&g", B),
    ("s/a/x\\/y\\n\\tz/", B),
    ("s/a/\\,\\;\\-\\!/", B),
    ("s/A/x/Ig", B),
    ("s/é/E/Ig", B),
    ("s/(a|ab)(c|bcd)(d*)/[\\1][\\2][\\3]/", E),
    ("s/a|ab|abc/x/g", E),
    ("s/(a*)(ab)*/[\\1][\\2]/g", E),
    ("s/(a|b)*/[\\1]/g", E),
    ("s/(a*)*/[\\1]/g", E),
    ("s/(a*)+b/[\\1]/g", E),
    ("s/x*|a/[&]/g", E),
    ("s/a{2}|b+/x/g", E),
    ("s/a{,2}/x/g", E),
    ("s/()/x/g", E),
    ("s/(|a)b/[\\1]/g", E),
    ("s/^a|c$/x/g", E),
    ("s/.\\./x/g", E),
    ("s/./x/g", B),
    ("s/[ \\t]*$//", B),
    ("s/[\\t\\r]/x/g", E),
];

const INPUTS: &[&str] = &[
    "",
    "\n",
    "abc\n",
    "abc",
    "aaa aab\nbab\n\nabcd\n",
    "a.b axb a|b a,b a&b\n",
    "AbA aBa\r\nab\r\n",
    "*a ^a a^b$c\n(a) a+b? c{1}\n",
    "ab]a é É\n😀 ü\n",
    "abcd\nabcbcd\nxxabab\n",
    "a \t \nb\t\r\nc\\t \n",
];

#[test]
fn the_table_agrees_with_gnu_sed() {
    require_gnu_sed();
    let dir = tempfile::tempdir().unwrap();
    let failures: Vec<String> = TABLE
        .iter()
        .flat_map(|&(script, syntax)| INPUTS.iter().map(move |input| (script, syntax, input)))
        .filter_map(|(script, syntax, input)| compare(dir.path(), script, syntax, input).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A pattern from the accepted grammar, as a tree so it renders in either
/// syntax and knows its groups.
#[derive(Clone, Debug)]
enum Node {
    Literal(char),
    Dot,
    Class { negated: bool, members: String },
    Start,
    End,
    Star(Box<Node>),
    Plus(Box<Node>),
    Optional(Box<Node>),
    Interval(Box<Node>, u8, Option<u8>),
    Group(Box<Node>),
    Concat(Vec<Node>),
    Alternation(Vec<Node>),
}

impl Node {
    fn render(&self, syntax: Syntax, out: &mut String) {
        let basic = syntax == Syntax::Basic;
        let op = |out: &mut String, s: &str| {
            if basic {
                out.push('\\');
            }
            out.push_str(s);
        };
        match self {
            Self::Literal(c) => out.push(*c),
            Self::Dot => out.push('.'),
            Self::Class { negated, members } => {
                out.push('[');
                if *negated {
                    out.push('^');
                }
                out.push_str(members);
                out.push(']');
            }
            Self::Start => out.push('^'),
            Self::End => out.push('$'),
            Self::Star(inner) => {
                inner.render(syntax, out);
                out.push('*');
            }
            Self::Plus(inner) => {
                inner.render(syntax, out);
                op(out, "+");
            }
            Self::Optional(inner) => {
                inner.render(syntax, out);
                op(out, "?");
            }
            Self::Interval(inner, low, high) => {
                inner.render(syntax, out);
                op(out, "{");
                out.push_str(&low.to_string());
                if let Some(high) = high {
                    out.push(',');
                    out.push_str(&high.to_string());
                }
                op(out, "}");
            }
            Self::Group(inner) => {
                op(out, "(");
                inner.render(syntax, out);
                op(out, ")");
            }
            Self::Concat(nodes) => nodes.iter().for_each(|n| n.render(syntax, out)),
            Self::Alternation(nodes) => {
                for (i, n) in nodes.iter().enumerate() {
                    if i > 0 {
                        op(out, "|");
                    }
                    n.render(syntax, out);
                }
            }
        }
    }

    fn groups(&self) -> usize {
        match self {
            Self::Group(inner) => 1 + inner.groups(),
            Self::Star(n) | Self::Plus(n) | Self::Optional(n) | Self::Interval(n, _, _) => {
                n.groups()
            }
            Self::Concat(nodes) | Self::Alternation(nodes) => nodes.iter().map(Node::groups).sum(),
            Self::Literal(_) | Self::Dot | Self::Class { .. } | Self::Start | Self::End => 0,
        }
    }
}

fn atom() -> impl Strategy<Value = Node> {
    prop_oneof![
        4 => prop::sample::select(vec!['a', 'b', 'c', 'A', 'é', ' ']).prop_map(Node::Literal),
        1 => Just(Node::Dot),
        1 => (any::<bool>(), prop::sample::select(vec!["ab", "a-c", "b", "]a", "A-Za"]))
            .prop_map(|(negated, m)| Node::Class { negated, members: m.to_owned() }),
    ]
}

fn pattern() -> impl Strategy<Value = Node> {
    let leaf = atom();
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            2 => prop::collection::vec(inner.clone(), 1..4).prop_map(Node::Concat),
            1 => prop::collection::vec(inner.clone(), 2..3).prop_map(Node::Alternation),
            1 => inner.clone().prop_map(|n| Node::Group(Box::new(n))),
            1 => inner.clone().prop_map(|n| Node::Star(Box::new(Node::Group(Box::new(n))))),
            1 => atom().prop_map(|n| Node::Star(Box::new(n))),
            1 => atom().prop_map(|n| Node::Plus(Box::new(n))),
            1 => inner.clone().prop_map(|n| Node::Optional(Box::new(Node::Group(Box::new(n))))),
            1 => (atom(), 0u8..3, prop::option::of(3u8..5))
                .prop_map(|(n, low, high)| Node::Interval(Box::new(n), low, high)),
        ]
    })
    .prop_flat_map(|body| {
        (any::<bool>(), any::<bool>(), Just(body)).prop_map(|(start, end, body)| {
            let mut nodes = Vec::new();
            if start {
                nodes.push(Node::Start);
            }
            nodes.push(Node::Group(Box::new(body)));
            if end {
                nodes.push(Node::End);
            }
            Node::Concat(nodes)
        })
    })
}

/// A replacement referring only to groups the pattern has.
fn replacement(groups: usize) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("x".to_owned()),
        Just("&".to_owned()),
        Just("\\n".to_owned()),
        Just("<".to_owned()),
        (1..=groups.clamp(1, 9)).prop_map(|n| format!("\\{n}")),
    ];
    prop::collection::vec(piece, 0..4).prop_map(|pieces| pieces.concat())
}

fn flags() -> impl Strategy<Value = String> {
    (any::<bool>(), any::<bool>(), prop::option::of(1u8..4)).prop_map(|(g, i, n)| {
        let mut flags = n.map(|n| n.to_string()).unwrap_or_default();
        if g {
            flags.push('g');
        }
        if i {
            flags.push('I');
        }
        flags
    })
}

fn file() -> impl Strategy<Value = String> {
    let line = prop::collection::vec(
        prop::sample::select(vec!["a", "b", "c", "A", "é", " ", "\r", "ab"]),
        0..8,
    )
    .prop_map(|parts| parts.concat());
    (prop::collection::vec(line, 0..5), any::<bool>()).prop_map(|(lines, trailing)| {
        let mut text = lines.join("\n");
        if trailing && !lines.is_empty() {
            text.push('\n');
        }
        text
    })
}

fn case() -> impl Strategy<Value = (String, Syntax, String)> {
    (pattern(), any::<bool>())
        .prop_flat_map(|(node, extended)| {
            let syntax = if extended {
                Syntax::Extended
            } else {
                Syntax::Basic
            };
            let mut rendered = String::new();
            node.render(syntax, &mut rendered);
            (
                Just(rendered),
                Just(syntax),
                replacement(node.groups()),
                flags(),
                file(),
            )
                .prop_map(|(p, syntax, r, f, input)| (format!("s/{p}/{r}/{f}"), syntax, input))
                .prop_map(|(script, syntax, input)| (script, syntax, input))
        })
        .prop_map(|(script, syntax, input)| (script, syntax, input))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn generated_scripts_agree_with_gnu_sed((script, syntax, input) in case()) {
        require_gnu_sed();
        let dir = tempfile::tempdir().unwrap();
        if let Err(message) = compare(dir.path(), &script, syntax, &input) {
            prop_assert!(false, "{}", message);
        }
    }
}
