//! A run that outgrows its in-memory limits spools the whole output, and
//! `Spooled::write_output` gives exactly the text a run with unbounded
//! limits returns: pipes decoded, joined stdout first, stripped, trimmed; a
//! pty's rendered lines.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use toolpass_shell::{Cancel, Options, OutputLimits, Prefer, Request, SpoolDir, run};

/// Over 2 MiB of coloured, numbered lines with blanks around, and a line on
/// stderr.
const COMMAND: &str = "printf '  \\n'; seq -f 'line %07g' 1 200000 | sed 's/$/ \\x1b[32mok\\x1b[0m/'; \
                       printf 'é \\033]0;title\\007end  \\n\\n'; echo oops >&2";

fn request(dir: &Path) -> Request {
    Request {
        command: COMMAND.to_owned(),
        directory: dir.to_owned(),
        context: Vec::new(),
    }
}

fn check(prefer: Prefer) {
    let dir = tempfile::tempdir().unwrap();
    let unbounded = Options {
        prefer,
        limits: OutputLimits {
            head: 1 << 26,
            tail: 1 << 26,
        },
        ..Options::default()
    };
    let whole = run(
        &request(dir.path()),
        &unbounded,
        &Cancel::new(),
        &mut |_| {},
    )
    .unwrap();
    assert!(
        whole.spooled.is_none(),
        "nothing to spool without a spool dir"
    );
    assert!(whole.output.contains("line 0100000 ok"), "{prefer:?}");

    let spool_dir = dir.path().join("spool");
    std::fs::create_dir(&spool_dir).unwrap();
    let make = || Ok::<PathBuf, std::io::Error>(spool_dir.clone());
    let spooling = Options {
        prefer,
        spool: Some(SpoolDir {
            dir: &make,
            cap: 1 << 30,
        }),
        ..Options::default()
    };
    let cut = run(&request(dir.path()), &spooling, &Cancel::new(), &mut |_| {}).unwrap();
    assert!(cut.spool_error.is_none(), "{:?}", cut.spool_error);
    assert!(cut.retained_bytes <= 4 << 20, "{}", cut.retained_bytes);
    assert!(
        !cut.output.contains("line 0100000 ok"),
        "the middle is not held"
    );
    assert!(
        std::fs::read_dir(&spool_dir).unwrap().next().is_none(),
        "the spool's files have no name"
    );

    let mut file = tempfile::tempfile_in(dir.path()).unwrap();
    let spooled = cut.spooled.expect("spooled");
    let written = spooled.write_output(&mut file).unwrap();
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).unwrap();
    file.read_to_string(&mut text).unwrap();
    assert_eq!(written, text.len() as u64);
    assert!(
        text == whole.output,
        "{prefer:?}: the spool differs from the whole output"
    );
}

#[test]
fn piped_output_is_spooled_whole_in_the_form_of_the_text() {
    check(Prefer::Pipes);
}

#[test]
fn pty_output_is_spooled_as_its_rendered_lines() {
    check(Prefer::Pty);
}

#[test]
fn a_spool_past_its_cap_is_let_go_and_the_run_keeps_its_head_and_tail() {
    let dir = tempfile::tempdir().unwrap();
    let make = || Ok::<PathBuf, std::io::Error>(dir.path().to_owned());
    let capped = Options {
        prefer: Prefer::Pipes,
        spool: Some(SpoolDir {
            dir: &make,
            cap: 1 << 20,
        }),
        ..Options::default()
    };
    let cut = run(&request(dir.path()), &capped, &Cancel::new(), &mut |_| {}).unwrap();
    assert!(cut.spooled.is_none(), "over 2 MiB passed a cap of 1 MiB");
    let error = cut.spool_error.expect("the cap is the reason").to_string();
    assert!(
        error.contains("passed the 1048576 bytes a run may hold on disk"),
        "{error}"
    );
    assert!(cut.output.contains("line 0000001 ok"), "the head is kept");
    assert!(cut.output.contains("oops"), "the tail is kept");
    assert!(cut.retained_bytes <= 4 << 20, "{}", cut.retained_bytes);
}
