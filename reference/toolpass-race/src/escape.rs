//! The swap attacks, one per tool: the swapper runs while pipelined calls
//! aim at `root/d`; replies are searched for the outside markers, and the
//! outside tree is compared with its snapshot afterwards, so a write that
//! escaped is found whatever the reply said.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use serde_json::json;

use crate::arena::{Arena, diff, snapshot};
use crate::count::{Markers, leak};
use crate::server::{Budget, Call, Server, file_args, read_call};
use crate::swap::{Swapper, two_cpus};
use crate::table::{Row, first_few};

/// The tools the swapper attacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tool {
    ReadFile,
    GrepSearch,
    Glob,
    ListDirectory,
    WriteFile,
    Edit,
}

impl Tool {
    #[cfg(test)]
    const ALL: [Tool; 6] = [
        Tool::ReadFile,
        Tool::GrepSearch,
        Tool::Glob,
        Tool::ListDirectory,
        Tool::WriteFile,
        Tool::Edit,
    ];

    /// The tool's name, which is also the attack's.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Tool::ReadFile => "read_file",
            Tool::GrepSearch => "grep_search",
            Tool::Glob => "glob",
            Tool::ListDirectory => "list_directory",
            Tool::WriteFile => "write_file",
            Tool::Edit => "edit",
        }
    }

    /// Iteration `i`'s calls. The searches alternate between `root/d`
    /// itself and the root above it, which a walk enters through `d`.
    fn calls(self, arena: &Arena, markers: &Markers, i: usize) -> Vec<Call> {
        let d = arena.swapped();
        let search_dir = if i.is_multiple_of(2) { &d } else { &arena.root };
        match self {
            Tool::ReadFile => vec![read_call(&d.join("x"), 100)],
            Tool::GrepSearch => vec![(
                "grep_search",
                json!({"pattern": markers.grep_pattern(), "path": search_dir}),
            )],
            Tool::Glob => vec![("glob", json!({"pattern": "**/*", "path": search_dir}))],
            Tool::ListDirectory => vec![("list_directory", json!({"path": d}))],
            Tool::WriteFile => {
                // Odd iterations need a new directory too: an escaped
                // write_file creates its parents outside.
                let target = if i.is_multiple_of(2) {
                    d.join(format!("new-{i}"))
                } else {
                    d.join(format!("sub-{i}/new"))
                };
                let content = format!("written by iteration {i}\n");
                vec![(
                    "write_file",
                    file_args(&target, json!({"content": content})),
                )]
            }
            Tool::Edit => {
                let f = d.join("f");
                // The read makes the edit legal (any read counts, partial
                // too); one line keeps it cheap as the file grows.
                let edit = json!({"old_string": "TARGET", "new_string": format!("TARGET e{i}")});
                vec![read_call(&f, 1), ("edit", file_args(&f, edit))]
            }
        }
    }

    /// Whether a marker in a reply proves that this call read outside.
    ///
    /// Not for `edit`: its display diff carries the whole file before and
    /// after, so once an escaped edit has read the outside file and
    /// committed inside (copying the secret into `root/d/f`), every later
    /// edit inside echoes the secret. Its escaped reads are counted by what
    /// they leave behind instead: outside content in the root
    /// ([`Arena::copied_inside`], counted for every tool) and outside files
    /// modified. Escaped reads as such are `read_file`'s row.
    fn replies_attribute_reads(self) -> bool {
        self != Tool::Edit
    }

    /// Whether `reply` to a call of `name` did this attack's job inside
    /// the root: the marked inside files for the reads and searches, a
    /// success for the writers' own calls.
    fn worked_inside(self, name: &str, ok: bool, inside_marker: bool) -> bool {
        match self {
            Tool::WriteFile | Tool::Edit => ok && name == self.name(),
            _ => inside_marker,
        }
    }
}

/// What the swap attack on one tool measures.
pub(crate) struct Settings<'a> {
    pub(crate) server: &'a Path,
    pub(crate) parent: &'a Path,
    pub(crate) markers: &'a Markers,
    pub(crate) budget: Budget,
    /// Whether to keep the swapper and the server on two separate CPUs.
    pub(crate) pin: bool,
}

/// Runs the swap attack on `tool` in a fresh arena.
pub(crate) fn attack(tool: Tool, settings: &Settings<'_>) -> Result<Row> {
    let markers = settings.markers;
    let arena = Arena::new(settings.parent, tool.name())?;
    arena.seed_swap(markers)?;
    let before = snapshot(&arena.outside)?;
    let mut server = Server::start(settings.server, &arena.tmp, &arena.root)?;
    let batch = server.prepare(settings.budget.iterations, |i| {
        tool.calls(&arena, markers, i)
    })?;

    let cpus = if settings.pin { two_cpus()? } else { None };
    if let Some((_, server_cpu)) = cpus {
        server.pin(server_cpu)?;
    }
    let started = Instant::now();
    let swapper = Swapper::start(
        &arena.swapped(),
        &arena.spare(),
        cpus.map(|(swapper, _)| swapper),
    );
    let answers = server.pipeline(&batch, settings.budget.deadline);
    // Stop the swapper before anything else, even when the calls failed,
    // so root/d is the real directory again.
    let swaps = swapper.stop()?;
    let seconds = started.elapsed().as_secs_f64();
    let answers = answers?;
    let sent = answers.sent;

    let mut tally = Tally::default();
    for (name, reply) in batch.replies(&answers)? {
        let found = leak(markers, &reply.text);
        tally.calls += 1;
        if tool.replies_attribute_reads() {
            tally.outside_reads += u64::from(found.content);
            tally.outside_names += u64::from(found.name);
        }
        tally.inside += u64::from(tool.worked_inside(name, reply.ok(), found.inside));
        let outcome = reply.error_code().unwrap_or("success");
        *tally
            .outcomes
            .entry(format!("{name} {outcome}"))
            .or_default() += 1;
    }

    let changes = diff(&before, &snapshot(&arena.outside)?);
    let strays = arena.strays()?;
    let copied = arena.copied_inside(markers)?;
    let mut notes = vec![
        format!("{} calls, {swaps} swaps", tally.calls),
        format!("outside after the run: {}", changes.describe()),
        format!("replies: {}", tally.describe_outcomes()),
    ];
    if sent < settings.budget.iterations {
        notes.push(capped(sent, settings.budget.iterations));
    }
    // Each is an escaped read whose result was written back inside.
    let copied_names: Vec<String> = copied.iter().map(|p| p.display().to_string()).collect();
    notes.extend(first_few(
        "files in the root holding outside content or names (each an escaped read)",
        &copied_names,
    ));
    if !strays.is_empty() {
        notes.push(format!("beside the root: {}", strays.join(", ")));
    }
    Ok(Row {
        attack: tool.name().to_owned(),
        iterations: sent,
        seconds,
        inside: Some(tally.inside),
        outside_reads: Some(tally.outside_reads + copied.len() as u64),
        outside_writes: Some((changes.total() + strays.len()) as u64),
        outside_names: Some(tally.outside_names),
        notes,
        ..Row::default()
    })
}

/// The note for an attack the time cap stopped early: its zeros cover
/// fewer iterations than asked.
pub(crate) fn capped(done: usize, asked: usize) -> String {
    format!("stopped by the time cap after {done} of {asked} iterations")
}

/// Counts over the replies of one attack.
#[derive(Debug, Default)]
struct Tally {
    calls: u64,
    inside: u64,
    outside_reads: u64,
    outside_names: u64,
    /// `"<tool> <success or error code>"` → how many.
    outcomes: BTreeMap<String, u64>,
}

impl Tally {
    fn describe_outcomes(&self) -> String {
        let parts: Vec<String> = self
            .outcomes
            .iter()
            .map(|(what, n)| format!("{what} {n}"))
            .collect();
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_request_carries_a_secret_or_an_outside_name() {
        // The exactness of the counts rests on this: a marker in a reply
        // can only have come from the outside files.
        let dir = tempfile::tempdir().unwrap();
        let arena = Arena::new(dir.path(), "a").unwrap();
        let markers = Markers::new(99);
        for tool in Tool::ALL {
            for i in 0..4 {
                for (_, args) in tool.calls(&arena, &markers, i) {
                    let text = args.to_string();
                    assert!(!text.contains(&markers.secret), "{text}");
                    assert!(!text.contains(&markers.name), "{text}");
                    assert!(!text.contains(&markers.inside), "{text}");
                }
            }
        }
    }

    #[test]
    fn writers_count_their_own_successes_and_readers_the_inside_marker() {
        assert!(Tool::WriteFile.worked_inside("write_file", true, false));
        assert!(!Tool::WriteFile.worked_inside("write_file", false, false));
        assert!(!Tool::Edit.worked_inside("read_file", true, true));
        assert!(Tool::Edit.worked_inside("edit", true, false));
        assert!(Tool::Glob.worked_inside("glob", true, true));
        assert!(!Tool::ReadFile.worked_inside("read_file", true, false));
    }
}
