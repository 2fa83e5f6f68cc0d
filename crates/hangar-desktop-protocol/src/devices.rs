//! Settings → *Open from other devices*: the desktop app serving its own UI
//! to paired browsers (a phone), backed by the app's core, so every host
//! the app knows is there. The setting kept in `settings.json`
//! ([`DeviceAccess`]), what Settings shows while it is on ([`DevicesView`]),
//! a pairing link with its QR code ([`PairingLink`]) and the arguments of
//! `devices.pair` and `devices.revoke`.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The setting: off by default; on loopback unless `on_network`, which
/// binds every address and then always serves over TLS (self-signed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct DeviceAccess {
    /// Serve the UI to other devices.
    pub enabled: bool,
    /// Beyond this computer (every address, TLS required).
    pub on_network: bool,
    /// The port, chosen once (a free one) and kept so a paired device's
    /// link stays the same across restarts. `None` until first served.
    pub port: Option<u16>,
}

/// One paired device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PairedDevice {
    /// Its name (as `hangar token list` shows it).
    pub name: String,
    /// When it was paired (RFC 3339).
    pub created: String,
}

/// What Settings shows under *Open from other devices*.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DevicesView {
    /// The address a browser opens, while it is served.
    pub url: Option<String>,
    /// The SHA-256 fingerprint of the self-signed certificate, when served
    /// over TLS (to compare with the one the browser shows).
    pub fingerprint: Option<String>,
    /// Why the certificate was made again when the listener last started
    /// (this computer's addresses changed), so its fingerprint is new:
    /// devices that trusted the old one need to be told.
    pub certificate_renewed: Option<String>,
    /// Why it could not be served (a port taken, TLS), while that lasts.
    pub problem: Option<String>,
    /// The paired devices, oldest first.
    pub devices: Vec<PairedDevice>,
}

/// A pairing link: `URL#pair=CODE`, valid 10 minutes and once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PairingLink {
    /// The device's name once paired.
    pub device: String,
    /// The link to open on the device.
    pub url: String,
    /// The link as a QR code, an SVG document.
    pub qr_svg: String,
    /// When the code stops working (Unix seconds).
    pub expires_at: i64,
}

/// `devices.pair`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DevicePairArgs {
    /// The name the device will have (1 to 64 printable characters, not
    /// one already paired).
    pub name: String,
}

/// `devices.revoke`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DeviceRevokeArgs {
    /// The device to sign out.
    pub name: String,
}
