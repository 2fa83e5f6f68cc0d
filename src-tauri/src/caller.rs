//! Who sends a command over `/ipc`: the app itself (the development
//! bridge; the Tauri window does not come through here) or a browser paired
//! as a device (`hangar serve --web`, Settings → *Open from other
//! devices*). A paired device drives sessions as the app does, but it does
//! not pair or revoke devices and cannot change *Open from other devices*:
//! a phone paired on loopback could otherwise put the app on the network.

use serde_json::Value;

use crate::core::Core;
use crate::error::CoreError;

/// Who is on the other end of an `/ipc` socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// The app's own UI.
    App,
    /// A browser that presented a device token (or the host's).
    PairedDevice,
}

impl Caller {
    /// The arguments command `cmd` runs with for this caller, or why it
    /// is refused: a paired device's `devices.*` are refused, and its
    /// `settings.save` keeps *Open from other devices* as it is.
    pub fn admit(self, core: &Core, cmd: &str, mut args: Value) -> Result<Value, CoreError> {
        if self == Self::App {
            return Ok(args);
        }
        if cmd.starts_with("devices.") {
            return Err(CoreError::Refused("only the Hangar app itself pairs and signs out devices".into()));
        }
        if cmd == "settings.save" {
            if let Value::Object(map) = &mut args {
                let kept = serde_json::to_value(core.settings().0.get().open_from_devices)
                    .map_err(|e| CoreError::Unexpected(e.to_string()))?;
                map.insert("openFromDevices".into(), kept);
            }
        }
        Ok(args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn a_paired_device_neither_pairs_nor_changes_open_from_devices() {
        let core = Core::start();
        let device = Caller::PairedDevice;
        assert!(matches!(device.admit(&core, "devices.pair", json!({"name": "x"})), Err(CoreError::Refused(_))));
        assert!(device.admit(&core, "devices.revoke", json!({"name": "x"})).is_err());
        let on = json!({"theme": "dark", "openFromDevices": {"enabled": true, "onNetwork": true, "port": 1}});
        let admitted = device.admit(&core, "settings.save", on.clone()).unwrap();
        assert_eq!(admitted["theme"], "dark", "the rest of the settings are the device's to change");
        assert_eq!(admitted["openFromDevices"], json!({"enabled": false, "onNetwork": false, "port": null}));
        assert_eq!(Caller::App.admit(&core, "settings.save", on.clone()).unwrap(), on);
        assert!(Caller::App.admit(&core, "devices.get", json!({})).is_ok());
    }
}
