//! Process groups, below both the agents and the terminals: signalling a
//! group ([`signal_group`]), the groups of a login session
//! ([`session_groups`]), and the [`Registry`] of running agents' groups.
//!
//! The process groups of running agents: kept by session in memory (ended
//! together at shutdown) and recorded in `DATA_DIR/agent-groups/`, one file
//! per group named by its id, so that a host killed with `kill -9` ends its
//! leftover agents (and their children) at the next start.
//!
//! A record holds the boot id and the group leader's start time (Linux
//! `/proc`). A leftover group is only signalled when the boot is the same
//! and the process now holding the leader's pid, if any, is still that
//! leader: a pid reused by an unrelated process is left alone.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Send `signal` to process group `pgid` (through kill(1): this crate has no
/// unsafe code, so no raw `killpg`).
pub fn signal_group(pgid: u32, signal: &str) {
    let _ = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg("--")
        .arg(format!("-{pgid}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Folder of the records under the data dir.
const DIR: &str = "agent-groups";

/// Process groups of running agents, by session.
#[derive(Clone, Default)]
pub struct Registry {
    groups: Arc<Mutex<HashMap<String, u32>>>,
    dir: Option<PathBuf>,
}

/// This boot's id (empty where the system does not say).
fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id").map(|s| s.trim().to_owned()).unwrap_or_default()
}

/// Field `index` (0-based) of process `pid`'s `/proc/PID/stat`, counted
/// after the command name (which may hold spaces and parens).
fn stat_field(pid: u32, index: usize) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(index).map(str::to_owned)
}

/// When process `pid` started (clock ticks after boot), from `/proc`: field
/// 22 overall, the 20th after `comm`.
fn start_time(pid: u32) -> Option<String> {
    stat_field(pid, 19)
}

/// Whether any process is in group `pgid`.
fn group_alive(pgid: u32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|e| {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            return false;
        };
        // The group id is field 5 overall, the 3rd after `comm`.
        stat_field(pid, 2).and_then(|g| g.parse::<u32>().ok()).is_some_and(|g| g == pgid && pid != std::process::id())
    })
}

/// The process groups of every process in session `sid` (a terminal's
/// shell and the jobs it started, each job a group of its own), the
/// session's own group first.
pub(crate) fn session_groups(sid: u32) -> Vec<u32> {
    let mut groups = vec![sid];
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return groups;
    };
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        // Field 6 overall (the session), the 4th after `comm`.
        if stat_field(pid, 3).and_then(|s| s.parse::<u32>().ok()) != Some(sid) {
            continue;
        }
        if let Some(pgid) = stat_field(pid, 2).and_then(|g| g.parse::<u32>().ok()) {
            if !groups.contains(&pgid) {
                groups.push(pgid);
            }
        }
    }
    groups
}

/// End `groups`: TERM, a moment to exit cleanly, then KILL.
fn end_groups(groups: &[u32]) {
    if groups.is_empty() {
        return;
    }
    for g in groups {
        signal_group(*g, "TERM");
    }
    std::thread::sleep(Duration::from_millis(300));
    for g in groups {
        signal_group(*g, "KILL");
    }
}

impl Registry {
    /// A registry recording under `data_dir`; leftovers recorded there by
    /// an earlier host are ended first (TERM, then KILL).
    pub fn open(data_dir: &Path) -> Self {
        let dir = data_dir.join(DIR);
        let leftovers = leftover_groups(&dir);
        for g in &leftovers {
            tracing::warn!("ending agent process group {g} left by an earlier host");
        }
        end_groups(&leftovers);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            tracing::warn!("cannot record agent process groups in {}: {e}", dir.display());
        }
        Self { groups: Arc::default(), dir: Some(dir) }
    }

    /// Agent `pgid` runs for `session`.
    pub fn insert(&self, session: &str, pgid: u32) {
        if let Ok(mut m) = self.groups.lock() {
            m.insert(session.to_owned(), pgid);
        }
        if let Some(dir) = &self.dir {
            let record = format!("{}\n{}\n", boot_id(), start_time(pgid).unwrap_or_default());
            if let Err(e) = std::fs::write(dir.join(pgid.to_string()), record) {
                tracing::warn!("cannot record agent process group {pgid}: {e}");
            }
        }
    }

    /// The agent of `session` has been ended.
    pub fn remove(&self, session: &str) {
        let pgid = self.groups.lock().ok().and_then(|mut m| m.remove(session));
        if let (Some(dir), Some(pgid)) = (&self.dir, pgid) {
            let _ = std::fs::remove_file(dir.join(pgid.to_string()));
        }
    }

    /// End `session`'s agent group at once (a start given up half-way:
    /// nothing of it is worth a clean exit).
    pub fn end(&self, session: &str) {
        let pgid = self.groups.lock().ok().and_then(|m| m.get(session).copied());
        if let Some(pgid) = pgid {
            signal_group(pgid, "KILL");
        }
        self.remove(session);
    }

    /// End every recorded group (host shutdown).
    pub fn end_all(&self) {
        let groups: Vec<u32> = self.groups.lock().map(|mut m| m.drain().map(|(_, g)| g).collect()).unwrap_or_default();
        end_groups(&groups);
        if let Some(dir) = &self.dir {
            for g in &groups {
                let _ = std::fs::remove_file(dir.join(g.to_string()));
            }
        }
    }
}

/// Groups recorded in `dir` that are still ours to end; every record is
/// removed.
fn leftover_groups(dir: &Path) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let boot = boot_id();
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let record = std::fs::read_to_string(&path).unwrap_or_default();
        let _ = std::fs::remove_file(&path);
        let Ok(pgid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let mut lines = record.lines();
        let (recorded_boot, started) = (lines.next().unwrap_or_default(), lines.next().unwrap_or_default());
        if pgid <= 1 || recorded_boot != boot {
            continue;
        }
        // The leader's pid now belongs to another process: not ours.
        if start_time(pgid).is_some_and(|now| now != started) {
            continue;
        }
        if group_alive(pgid) {
            out.push(pgid);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_its_own_start_time() {
        let me = std::process::id();
        assert!(start_time(me).is_some_and(|t| t.parse::<u64>().is_ok()));
        assert!(start_time(u32::MAX).is_none());
    }

    #[test]
    fn stale_or_foreign_records_are_dropped_without_signals() {
        use std::os::unix::process::CommandExt;

        // A group leader of our own (the test process leads no group).
        let mut child = std::process::Command::new("sleep").arg("30").process_group(0).spawn().unwrap();
        let pgid = child.id();
        let started = start_time(pgid).unwrap();
        let record = |start: &str| format!("{}\n{start}\n", boot_id());
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join(DIR);
        std::fs::create_dir_all(&dir).unwrap();

        // Another boot; the live leader's pid with another start time (the
        // pid was reused by someone else); junk.
        std::fs::write(dir.join("4242"), "some-other-boot\n1\n").unwrap();
        std::fs::write(dir.join(pgid.to_string()), record(&format!("{started}0"))).unwrap();
        std::fs::write(dir.join("not-a-pid"), "x").unwrap();
        let dropped = leftover_groups(&dir);
        let count = std::fs::read_dir(&dir).map(Iterator::count).unwrap_or(99);
        let untouched = child.try_wait().unwrap().is_none();

        // The leader that was recorded: its group is returned for ending.
        std::fs::write(dir.join(pgid.to_string()), record(&started)).unwrap();
        let ours = leftover_groups(&dir);
        let _ = child.kill();
        let _ = child.wait();

        assert!(dropped.is_empty(), "nothing stale or foreign to end: {dropped:?}");
        assert_eq!(count, 0, "records are consumed");
        assert!(untouched, "the foreign process was not signalled");
        assert_eq!(ours, vec![pgid]);
    }
}
