//! IMPLEMENTING.md, the implementers' guide, against the types it describes:
//! its list of error codes is `ErrorCode`'s, one line each, and its feature
//! table names every feature, so the guide cannot drift from the protocol.

use std::fs;
use std::path::PathBuf;

use toolpass_protocol::{ErrorCode, Feature};

/// The list lives between these two lines.
const BEGIN: &str = "<!-- error-codes:";
const END: &str = "<!-- /error-codes -->";

fn guide_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../IMPLEMENTING.md")
}

/// One line per code, in `ErrorCode`'s order, its doc comment as the text.
fn code_list() -> String {
    ErrorCode::ALL
        .iter()
        .map(|code| format!("- `{code}`: {}\n", code.description()))
        .collect()
}

#[test]
fn the_guide_lists_every_error_code_as_error_code_defines_it() {
    let path = guide_path();
    let text = fs::read_to_string(&path).unwrap();
    let begin = text
        .find(BEGIN)
        .and_then(|at| text[at..].find('\n').map(|eol| at + eol + 1))
        .unwrap_or_else(|| panic!("{}: no `{BEGIN} ... -->` line", path.display()));
    let end = text[begin..]
        .find(END)
        .map(|at| begin + at)
        .unwrap_or_else(|| panic!("{}: no `{END}` line after `{BEGIN}`", path.display()));
    let expected = code_list();
    if std::env::var_os("BLESS").is_some_and(|v| !v.is_empty() && v != "0") {
        fs::write(
            &path,
            format!("{}{expected}{}", &text[..begin], &text[end..]),
        )
        .unwrap();
        return;
    }
    assert!(
        text[begin..end] == expected,
        "IMPLEMENTING.md's error codes differ from ErrorCode (conformance/toolpass-protocol/src/\
         error_code.rs); run `BLESS=1 cargo test -p toolpass-protocol --test protocol` to \
         rewrite the list.\nexpected:\n{expected}\nfound:\n{}",
        &text[begin..end]
    );
}

#[test]
fn the_guide_has_a_row_for_every_feature() {
    let text = fs::read_to_string(guide_path()).unwrap();
    for feature in Feature::KNOWN {
        let row = format!("\n| `{feature}` |");
        assert!(
            text.contains(&row),
            "IMPLEMENTING.md's feature table has no row for {feature}"
        );
    }
}
