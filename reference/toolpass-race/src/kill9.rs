//! kill -9 debris: the server is killed (SIGKILL, so nothing of its own
//! cleanup runs) while it commits a large `write_file`; what it leaves is
//! counted: temporary files in the workspace and `toolpass-spill-*`
//! directories in its TMPDIR. A target that exists with the wrong size
//! would be a torn write, which the atomic commit promises never happens.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use serde_json::json;

use crate::arena::Arena;
use crate::count::{is_spill_dir, is_temp_name};
use crate::escape::capped;
use crate::server::{Server, file_args};
use crate::table::Row;

/// How long after the temporary file appears each trial kills, in turn:
/// from at once (mid-write) to late enough to reach the fsync and rename.
const DELAYS_MS: [u64; 6] = [0, 2, 5, 10, 20, 40];

/// How long one trial waits for the temporary file before killing anyway.
const TRIAL_TIMEOUT: Duration = Duration::from_secs(10);

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
    /// Kills made while the temporary file was there.
    mid_write: usize,
    complete: usize,
    torn: usize,
}

/// Runs the trials and counts the debris.
pub(crate) fn attack(settings: &Settings<'_>) -> Result<Row> {
    let arena = Arena::new(settings.parent, "kill9")?;
    let content = "k".repeat(settings.size);
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(settings.seconds);
    let mut trials = Trials::default();
    while trials.kills < settings.kills && Instant::now() < deadline {
        let i = trials.kills;
        let target = arena.root.join(format!("big-{i}.bin"));
        let mut server = Server::start(settings.server, &arena.tmp, &arena.root)?;
        server.send(&(
            "write_file",
            file_args(&target, json!({"content": content})),
        ))?;
        if wait_for_temp_file(&arena.root, &format!(".big-{i}.bin."), &mut server)? {
            trials.mid_write += 1;
        }
        std::thread::sleep(Duration::from_millis(DELAYS_MS[i % DELAYS_MS.len()]));
        server.kill()?;
        trials.kills += 1;
        match fs::metadata(&target) {
            Ok(meta) if meta.len() == settings.size as u64 => trials.complete += 1,
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
            "{} kills, {} while the temp file existed; targets after the kill: {} complete, {} torn, the rest absent",
            trials.kills, trials.mid_write, trials.complete, trials.torn
        ),
        format!(
            "left behind: {temp_files} temp files in the workspace, {} spill dirs and {} other entries in the server's TMPDIR",
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

/// Polls `root` until this trial's temporary file (named `prefix...tmp`;
/// earlier trials' leftovers do not count) shows up (true), or the server
/// exits or the trial times out (false).
fn wait_for_temp_file(root: &Path, prefix: &str, server: &mut Server) -> Result<bool> {
    let until = Instant::now() + TRIAL_TIMEOUT;
    while Instant::now() < until && !server.exited()? {
        if names(root)?.any(|n| n.starts_with(prefix) && is_temp_name(&n)) {
            return Ok(true);
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    Ok(false)
}

/// The names in `dir`.
fn names(dir: &Path) -> Result<impl Iterator<Item = String>> {
    let entries = fs::read_dir(dir)?;
    Ok(entries.filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned())))
}
