//! A scenario directory held in memory (the runner's embedded built-in
//! suite) loads exactly as the same directory on disk, and names its files
//! by the path it was given, so a report points at a file a user knows.

use std::path::{Path, PathBuf};

use toolpass_scenario::{Scenario, StepKind, Vars, load_dir, load_files};

const GOOD: &str =
    "title: t\nspec: s\nsteps:\n  - call: read_file\n    expect: {llm: {snapshot: listing}}\n";

/// Writes `files` under a temp dir and returns it with the same files as
/// (path, bytes) for [`load_files`].
fn both(files: &[(&str, &str)]) -> (tempfile::TempDir, Vec<(PathBuf, Vec<u8>)>) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let memory = files
        .iter()
        .map(|(path, text)| (PathBuf::from(path), text.as_bytes().to_vec()))
        .collect();
    (dir, memory)
}

fn from_memory(
    label: &str,
    files: &[(PathBuf, Vec<u8>)],
) -> Result<Vec<Scenario>, toolpass_scenario::LoadErrors> {
    load_files(
        Path::new(label),
        files.iter().map(|(p, b)| (p.as_path(), b.as_slice())),
    )
}

#[test]
fn a_directory_in_memory_loads_as_it_does_on_disk() {
    let (dir, memory) = both(&[
        ("read/one.yaml", GOOD),
        ("read/one.listing.snap", "{root}/a.txt\n"),
        (
            "edit/two.yaml",
            "title: two\nspec: s\nsteps: [{call: edit}]\n",
        ),
        ("README.md", "not a scenario\n"),
        (".hidden/skipped.yaml", "not: [yaml"),
    ]);
    let disk = load_dir(dir.path()).unwrap();
    let embedded = from_memory("scenarios", &memory).unwrap();
    let ids = |s: &[Scenario]| s.iter().map(|s| s.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&embedded), ["edit/two", "read/one"]);
    assert_eq!(ids(&disk), ids(&embedded));
    for (d, e) in disk.iter().zip(&embedded) {
        assert_eq!(format!("{:?}", d.title), format!("{:?}", e.title));
        assert_eq!(d.steps.len(), e.steps.len());
    }
    assert_eq!(
        embedded[1].path.as_deref(),
        Some(Path::new("scenarios/read/one.yaml"))
    );

    // The snapshot came from memory, tied to the file a user would edit.
    let StepKind::Call(call) = &embedded[1].steps[0].kind else {
        panic!("a call step")
    };
    let llm = call.expect.clone().unwrap().llm.unwrap();
    let llm = llm.substitute(&Vars::new("/sandbox")).unwrap();
    assert!(llm.check("/sandbox/a.txt\n").is_ok());
    let mismatch = llm.check("/sandbox/b.txt\n").unwrap_err();
    assert_eq!(
        mismatch.message(),
        "differs from the snapshot scenarios/read/one.listing.snap"
    );
}

#[test]
fn problems_in_memory_name_the_file_by_its_given_path() {
    let (_dir, memory) = both(&[
        (
            "edit/bad.yaml",
            "title: t\nspec: s\nsteps:\n  - call: x\n    arg: {a: 1}\n",
        ),
        ("edit/stale.old.snap", "left behind\n"),
        ("edit/typo.yml", GOOD),
    ]);
    let errors = from_memory("scenarios", &memory).unwrap_err().to_string();
    let expected = [
        "scenarios/edit/bad.yaml:4:5: unknown key `arg`",
        "scenarios/edit/stale.old.snap: no scenario uses this snapshot",
        "scenarios/edit/typo.yml: scenario files end in .yaml",
    ];
    assert_eq!(errors.lines().count(), expected.len(), "{errors}");
    for (line, start) in errors.lines().zip(expected) {
        assert!(line.starts_with(start), "{errors}");
    }
}
