//! Each host's software and version, for the About box: the `serverInfo`
//! of its `initialize` answer (AHP `Implementation`: `hangar serve` and the
//! embedded host say `Hangar 0.1.0`). `ahp`'s multi-host client keeps the
//! negotiated protocol version but not this, so the connection's transport
//! tap ([`crate::event_feed::TappedTransport`]) notes it on the way in.

use std::collections::HashMap;
use std::sync::Mutex;

use hangar_host::locks::lock;

use ahp::hosts::HostId;
use serde_json::Value;

/// The software each host reported, by host.
#[derive(Default)]
pub struct HostSoftware {
    by_host: Mutex<HashMap<HostId, String>>,
}

/// `serverInfo` of an answer that carries one, in words: its title (else
/// its name) and its version.
fn describe(result: &Value) -> Option<String> {
    let info = result.get("serverInfo")?;
    let name = info.get("title").or_else(|| info.get("name")).and_then(Value::as_str)?;
    Some(match info.get("version").and_then(Value::as_str) {
        Some(v) => format!("{name} {v}"),
        None => name.to_owned(),
    })
}

impl HostSoftware {
    /// Note a response's result from `host`: an `initialize` answer's
    /// `serverInfo` is kept, anything else ignored.
    pub fn note(&self, host: &HostId, result: &Value) {
        if result.get("protocolVersion").is_none() {
            return;
        }
        if let Some(software) = describe(result) {
            lock(&self.by_host).insert(host.clone(), software);
        }
    }

    /// What `host` said it runs, once it has answered `initialize`.
    pub fn of(&self, host: &HostId) -> Option<String> {
        lock(&self.by_host).get(host).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_initialize_answers_server_info_is_kept() {
        let sw = HostSoftware::default();
        let h = HostId::new("local");
        sw.note(&h, &json!({"serverInfo": {"name": "x"}}));
        assert_eq!(sw.of(&h), None, "not an initialize answer");
        sw.note(&h, &json!({"protocolVersion": "1.0.0", "serverSeq": 0, "snapshots": []}));
        assert_eq!(sw.of(&h), None, "no serverInfo");
        sw.note(&h, &json!({"protocolVersion": "1.0.0", "serverInfo": {"name": "hangar", "title": "Hangar", "version": "0.1.0"}}));
        assert_eq!(sw.of(&h).as_deref(), Some("Hangar 0.1.0"));
        sw.note(&HostId::new("b"), &json!({"protocolVersion": "1.0.0", "serverInfo": {"name": "other"}}));
        assert_eq!(sw.of(&HostId::new("b")).as_deref(), Some("other"));
    }
}
