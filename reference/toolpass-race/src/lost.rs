//! Lost updates: edits a server reported as done whose bytes are gone.
//!
//! Each edit inserts a unique token line before the file's last line
//! (`END`), as an agent would: on `file_changed_since_read` it re-reads and
//! retries. Two reference processes edit one file at once; then one edits
//! while the harness appends lines, opening the file for each line as
//! `echo >> file` does. A writer that kept one descriptor for all its lines
//! would write to the replaced inode after the first commit, which no
//! rename-based commit can save; one open per line narrows that to the gap
//! between its open and its write, which is still a descriptor held across
//! a commit. So the appender's losses measure how often that gap is hit,
//! and can stay above 0 on a correct reference (hence their own gate).

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};
use serde_json::json;

use crate::arena::Arena;
use crate::count::missing;
use crate::escape::capped;
use crate::server::{Server, file_args, read_call};
use crate::swap::{pin, two_cpus};
use crate::table::{Row, first_few};

/// The line every edit inserts before.
const ANCHOR: &str = "END";

/// Errors after which an agent re-reads the file and tries again.
const STALE: [&str; 2] = ["file_changed_since_read", "edit_requires_prior_read"];

/// Retries of one edit before the agent gives up on it.
const MAX_RETRIES: usize = 200;

/// What the lost-update attacks need.
pub(crate) struct Settings<'a> {
    pub(crate) server: &'a Path,
    pub(crate) parent: &'a Path,
    /// Edits per editing process.
    pub(crate) edits: usize,
    pub(crate) seconds: f64,
    /// Pause between two appended lines.
    pub(crate) append_interval: Duration,
    pub(crate) gate_appender: bool,
    /// Whether to keep the two actors on two separate CPUs.
    pub(crate) pin: bool,
}

/// One editor's record.
#[derive(Debug, Default)]
struct Edits {
    /// Tokens of the edits reported successful.
    reported: Vec<String>,
    /// Tokens of edits that failed for good.
    failed: Vec<String>,
    retries: u64,
    /// Error code → how many times an edit got it.
    errors: BTreeMap<String, u64>,
}

impl Edits {
    fn describe(&self, side: &str) -> String {
        let errors: Vec<String> = self
            .errors
            .iter()
            .map(|(c, n)| format!("{c} {n}"))
            .collect();
        format!(
            "{side}: {} reported done, {} given up, {} retries; errors: {}",
            self.reported.len(),
            self.failed.len(),
            self.retries,
            if errors.is_empty() {
                "none".to_owned()
            } else {
                errors.join(", ")
            }
        )
    }
}

/// Makes up to `count` edits of `file` as `side`, until `deadline`.
fn edit_loop(
    server: &mut Server,
    file: &Path,
    side: &str,
    count: usize,
    deadline: Instant,
) -> Result<Edits> {
    let read = |server: &mut Server| {
        let (name, args) = read_call(file, 1);
        server.call(name, args)
    };
    let mut edits = Edits::default();
    read(server)?;
    for i in 0..count {
        if Instant::now() >= deadline {
            break;
        }
        let token = format!("{side}-{i:05}");
        let args = json!({"old_string": ANCHOR, "new_string": format!("{token}\n{ANCHOR}")});
        let mut done = false;
        for _ in 0..MAX_RETRIES {
            let reply = server.call("edit", file_args(file, args.clone()))?;
            if reply.ok() {
                done = true;
                break;
            }
            let code = reply.error_code().unwrap_or("unknown").to_owned();
            *edits.errors.entry(code.clone()).or_default() += 1;
            if !STALE.contains(&code.as_str()) {
                break;
            }
            edits.retries += 1;
            read(server)?;
        }
        if done {
            edits.reported.push(token);
        } else {
            edits.failed.push(token);
        }
    }
    Ok(edits)
}

/// The shared file of one attack, and what every editor of it needs.
struct Shared<'a> {
    settings: &'a Settings<'a>,
    arena: Arena,
    file: PathBuf,
    deadline: Instant,
    /// Two CPUs to spread the attack's two actors over.
    cpus: Option<(usize, usize)>,
}

impl<'a> Shared<'a> {
    /// A fresh arena with the shared file, and the attack's clock started.
    fn new(settings: &'a Settings<'a>, name: &str) -> Result<Shared<'a>> {
        let arena = Arena::new(settings.parent, name)?;
        let file = arena.root.join("shared.txt");
        fs::write(&file, format!("head\n{ANCHOR}\n"))?;
        let cpus = if settings.pin { two_cpus()? } else { None };
        let deadline = Instant::now() + Duration::from_secs_f64(settings.seconds);
        Ok(Shared {
            settings,
            arena,
            file,
            deadline,
            cpus,
        })
    }

    /// One more reference process editing the file as `side`, on its own
    /// thread, kept on `cpu` when given.
    fn spawn_editor<'s>(
        &'s self,
        scope: &'s std::thread::Scope<'s, '_>,
        side: &'s str,
        cpu: Option<usize>,
    ) -> std::thread::ScopedJoinHandle<'s, Result<Edits>> {
        scope.spawn(move || {
            let arena = &self.arena;
            let mut server = Server::start(self.settings.server, &arena.tmp, &arena.root)?;
            if let Some(cpu) = cpu {
                server.pin(cpu)?;
            }
            let edits = edit_loop(
                &mut server,
                &self.file,
                side,
                self.settings.edits,
                self.deadline,
            )?;
            server.finish()?;
            Ok(edits)
        })
    }
}

fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, Result<T>>) -> Result<T> {
    handle
        .join()
        .map_err(|_| anyhow!("a worker thread panicked"))?
}

/// Two reference processes, each making `edits` edits of one file.
pub(crate) fn two_servers(settings: &Settings<'_>) -> Result<Row> {
    let started = Instant::now();
    let shared = Shared::new(settings, "two-servers")?;
    let (a, b) = std::thread::scope(|scope| {
        let a = shared.spawn_editor(scope, "A", shared.cpus.map(|c| c.0));
        let b = shared.spawn_editor(scope, "B", shared.cpus.map(|c| c.1));
        (joined(a), joined(b))
    });
    let (a, b) = (a?, b?);
    let seconds = started.elapsed().as_secs_f64();
    let text = fs::read_to_string(&shared.file)?;
    let reported: Vec<String> = a.reported.iter().chain(&b.reported).cloned().collect();
    let lost = missing(&reported, &text);
    let given_up: Vec<String> = a.failed.iter().chain(&b.failed).cloned().collect();
    // A token present although its edit was reported failed: the other
    // direction of a wrong report, worth seeing though it loses nothing.
    let surprise = given_up.len() - missing(&given_up, &text).len();
    let mut notes = vec![a.describe("A"), b.describe("B")];
    let done = reported.len() + given_up.len();
    if done < 2 * settings.edits {
        notes.push(capped(done, 2 * settings.edits));
    }
    notes.push(format!(
        "{} of {} reported edits missing",
        lost.len(),
        reported.len()
    ));
    if surprise > 0 {
        notes.push(format!("{surprise} edits reported failed are in the file"));
    }
    notes.extend(first_few("missing", &lost));
    Ok(Row {
        attack: "two servers".to_owned(),
        iterations: reported.len() + given_up.len(),
        seconds,
        inside: Some(reported.len() as u64),
        lost: Some(lost.len() as u64),
        gate_lost: true,
        notes,
        ..Row::default()
    })
}

/// One reference process editing while the harness appends lines.
pub(crate) fn appender(settings: &Settings<'_>) -> Result<Row> {
    let started = Instant::now();
    let shared = Shared::new(settings, "appender")?;
    let stop = AtomicBool::new(false);
    let (edits, appended) = std::thread::scope(|scope| {
        let appending = scope.spawn(|| {
            if let Some((cpu, _)) = shared.cpus {
                pin(None, cpu)?;
            }
            append_until(&shared.file, &stop, settings.append_interval)
        });
        let editor = shared.spawn_editor(scope, "E", shared.cpus.map(|c| c.1));
        let edits = joined(editor);
        stop.store(true, Ordering::Relaxed);
        (edits, joined(appending))
    });
    let (edits, appended) = (edits?, appended?);
    let seconds = started.elapsed().as_secs_f64();
    let text = fs::read_to_string(&shared.file)?;
    let lost = missing(&appended, &text);
    let edits_lost = missing(&edits.reported, &text);
    let mut notes = vec![
        edits.describe("editor"),
        format!(
            "{} of {} appended lines missing",
            lost.len(),
            appended.len()
        ),
        format!(
            "{} of {} reported edits missing",
            edits_lost.len(),
            edits.reported.len()
        ),
    ];
    let done = edits.reported.len() + edits.failed.len();
    if done < settings.edits {
        notes.push(capped(done, settings.edits));
    }
    notes.extend(first_few("missing", &lost));
    Ok(Row {
        attack: "appender".to_owned(),
        iterations: edits.reported.len() + edits.failed.len(),
        seconds,
        inside: Some(edits.reported.len() as u64),
        lost: Some(lost.len() as u64),
        gate_lost: settings.gate_appender,
        notes,
        ..Row::default()
    })
}

/// Appends numbered lines, one open and one write each, until `stop`;
/// returns the lines whose write succeeded.
fn append_until(file: &Path, stop: &AtomicBool, interval: Duration) -> Result<Vec<String>> {
    let mut appended = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let line = format!("append-{:05}", appended.len());
        let mut handle = OpenOptions::new().append(true).open(file)?;
        // One write of one short line: O_APPEND makes it land whole at
        // the end of whatever file the name holds at that moment.
        handle.write_all(format!("{line}\n").as_bytes())?;
        appended.push(line);
        std::thread::sleep(interval);
    }
    Ok(appended)
}
