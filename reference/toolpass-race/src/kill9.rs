//! kill -9 debris: the server is killed (SIGKILL, so nothing of its own
//! cleanup runs) while it carries out a large `write_file`, and what it
//! leaves is counted: temporary files in the workspace, `toolpass-spill-*`
//! directories and anything else in its TMPDIR, and torn targets (a target
//! with the wrong size, which the atomic commit promises never happens).
//!
//! The kill moments are spread evenly over the time one such call takes
//! (measured first, on a call left to finish), so they fall in parsing,
//! writing, syncing and renaming alike, whatever the server's temporary
//! file is called or whether it has a name at all.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use serde_json::json;

use crate::arena::Arena;
use crate::count::{is_spill_dir, is_temp_name};
use crate::escape::capped;
use crate::server::{Call, Server, file_args};
use crate::table::Row;

/// What the kill -9 attack needs.
pub(crate) struct Settings<'a> {
    pub(crate) server: &'a Path,
    pub(crate) parent: &'a Path,
    pub(crate) kills: usize,
    /// Bytes of each write.
    pub(crate) size: usize,
    pub(crate) seconds: f64,
    pub(crate) gate_debris: bool,
}

/// Counts over the trials.
#[derive(Debug, Default)]
struct Trials {
    kills: usize,
    /// Kills made while a temporary file of the target was there.
    mid_write: usize,
    complete: usize,
    torn: usize,
}

/// Runs the trials and counts the debris.
pub(crate) fn attack(settings: &Settings<'_>) -> Result<Row> {
    let arena = Arena::new(settings.parent, "kill9")?;
    let content = "k".repeat(settings.size);
    let write = |name: &str| -> Call {
        let target = arena.root.join(name);
        (
            "write_file",
            file_args(&target, json!({"content": content})),
        )
    };
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(settings.seconds);
    let span = time_one_write(settings, &arena, &write("calibration.bin"))?;

    let mut trials = Trials::default();
    while trials.kills < settings.kills && Instant::now() < deadline {
        let i = trials.kills;
        let name = format!("big-{i}.bin");
        let mut server = Server::start(settings.server, &arena.tmp, &arena.root)?;
        server.send(&write(&name))?;
        std::thread::sleep(span.mul_f64((2 * i + 1) as f64 / (2 * settings.kills) as f64));
        let temp_prefix = format!(".{name}.");
        if names(&arena.root)?.any(|n| n.starts_with(&temp_prefix) && is_temp_name(&n)) {
            trials.mid_write += 1;
        }
        server.kill()?;
        trials.kills += 1;
        let target = arena.root.join(&name);
        match fs::metadata(&target) {
            // Judged, then removed: only debris may pile up (on a tmpfs
            // TMPDIR every complete target would be 50 MB of memory).
            Ok(meta) if meta.len() == settings.size as u64 => {
                trials.complete += 1;
                fs::remove_file(&target)?;
            }
            Ok(_) => trials.torn += 1,
            Err(_) => {}
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let temp_files = names(&arena.root)?.filter(|n| is_temp_name(n)).count();
    let (spill_dirs, other): (Vec<String>, Vec<String>) =
        names(&arena.tmp)?.partition(|n| is_spill_dir(n));
    let mut notes = vec![
        format!(
            "{} kills spread over {} ms (one write's time), {} while a named temp file existed; \
             targets after the kill: {} complete, {} torn, the rest absent",
            trials.kills,
            span.as_millis(),
            trials.mid_write,
            trials.complete,
            trials.torn
        ),
        format!(
            "left behind: {temp_files} temp files in the workspace, {} spill dirs and {} other \
             entries in the server's TMPDIR",
            spill_dirs.len(),
            other.len()
        ),
    ];
    if trials.kills < settings.kills {
        notes.push(capped(trials.kills, settings.kills));
    }
    if trials.torn > 0 {
        notes.push(format!(
            "{} torn files: the atomic write is broken",
            trials.torn
        ));
    }
    Ok(Row {
        attack: "kill -9".to_owned(),
        iterations: trials.kills,
        seconds,
        debris: Some((temp_files + spill_dirs.len() + other.len() + trials.torn) as u64),
        gate_debris: settings.gate_debris,
        notes,
        ..Row::default()
    })
}

/// How long the server takes from having read `call` to answering it,
/// on a server then ended cleanly (so it leaves nothing behind).
fn time_one_write(settings: &Settings<'_>, arena: &Arena, call: &Call) -> Result<Duration> {
    let mut server = Server::start(settings.server, &arena.tmp, &arena.root)?;
    let id = server.send(call)?;
    let sent = Instant::now();
    let reply = server.answer(&id)?;
    let span = sent.elapsed();
    server.finish()?;
    if !reply.ok() {
        bail!("the timed write failed: {}", reply.text);
    }
    let (_, args) = call;
    if let Some(target) = args["file_path"].as_str() {
        fs::remove_file(target)?;
    }
    Ok(span)
}

/// The names in `dir`.
fn names(dir: &Path) -> Result<impl Iterator<Item = String>> {
    let entries = fs::read_dir(dir)?;
    Ok(entries.filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned())))
}
