//! The host's running pseudo-terminals by channel URI: a client's shell
//! (`createTerminal`) and agents' logins. The engine decides who may type
//! (the claim); what it let through is carried out here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::pty::PtyProcess;
use crate::engine::Size;
use crate::locks::lock;

struct Live {
    process: Arc<PtyProcess>,
    /// The session it ends with, if any.
    session: Option<String>,
}

/// Running pseudo-terminals, by channel URI.
#[derive(Default)]
pub struct LiveTerminals {
    map: Mutex<HashMap<String, Live>>,
}

impl LiveTerminals {
    /// `process` runs behind channel `uri`; it ends with `session`, when given.
    pub fn insert(&self, uri: &str, session: Option<&str>, process: Arc<PtyProcess>) {
        let old = lock(&self.map).insert(uri.to_owned(), Live { process, session: session.map(str::to_owned) });
        if let Some(old) = old {
            old.process.kill();
        }
    }

    /// Type `data` into terminal `uri`; `false` when none runs there.
    pub fn input(&self, uri: &str, data: &str) -> bool {
        let process = lock(&self.map).get(uri).map(|l| l.process.clone());
        process.is_some_and(|p| p.write(data))
    }

    /// Resize terminal `uri`.
    pub fn resize(&self, uri: &str, size: Size) {
        let process = lock(&self.map).get(uri).map(|l| l.process.clone());
        if let Some(Err(e)) = process.map(|p| p.resize(size)) {
            tracing::debug!("{uri}: {e}");
        }
    }

    /// The process behind `uri`.
    pub fn get(&self, uri: &str) -> Option<Arc<PtyProcess>> {
        lock(&self.map).get(uri).map(|l| l.process.clone())
    }

    /// End terminal `uri` and forget it; whether there was one.
    pub fn end(&self, uri: &str) -> bool {
        let live = lock(&self.map).remove(uri);
        live.map(|l| l.process.kill()).is_some()
    }

    /// End every terminal of `session` (disposed).
    pub fn end_session(&self, session: &str) {
        let ended: Vec<Live> = {
            let mut map = lock(&self.map);
            let uris: Vec<String> =
                map.iter().filter(|(_, l)| l.session.as_deref() == Some(session)).map(|(u, _)| u.clone()).collect();
            uris.iter().filter_map(|u| map.remove(u)).collect()
        };
        for live in ended {
            live.process.kill();
        }
    }

    /// End every terminal (host shutdown).
    pub fn end_all(&self) {
        let all: Vec<Live> = lock(&self.map).drain().map(|(_, l)| l).collect();
        for live in all {
            live.process.kill();
        }
    }
}
