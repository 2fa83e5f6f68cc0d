//! The commands of Settings → *Open from other devices*: `devices.get`
//! (the address, the certificate's fingerprint, the paired devices),
//! `devices.pair` (a 10-minute, single-use pairing link and its QR code as
//! SVG, drawn with the `qrcode` crate the CLI's `--pair` uses too) and
//! `devices.revoke`; and applying the setting at launch and on every save
//! (`device_access.rs` serves it).

use hangar_desktop_protocol::devices::{DevicesView, PairedDevice, PairingLink};
use hangar_host::server::device_tokens::DeviceTokenStore;
use hangar_host::server::pairing_codes::{PairingCodes, CODE_TTL};
use qrcode::render::svg;
use qrcode::QrCode;

use crate::core::Core;
use crate::device_access::DeviceListener;
use crate::error::CoreError;

fn listener(core: &Core) -> Result<std::sync::Arc<DeviceListener>, CoreError> {
    core.device_listener().ok_or_else(|| CoreError::NotFound("this app has no embedded host to serve".into()))
}

/// Serve (or stop serving) as the settings say; a port chosen now is kept
/// in the settings.
pub async fn apply_setting(core: &Core) -> Result<(), CoreError> {
    let Some(listener) = core.device_listener() else { return Ok(()) };
    let file = core.settings().0;
    let mut settings = file.get();
    let port = listener.apply(settings.open_from_devices).await;
    if port.is_some() && port != settings.open_from_devices.port {
        settings.open_from_devices.port = port;
        file.save(settings)?;
    }
    Ok(())
}

/// What *Open from other devices* shows now.
pub async fn view(core: &Core) -> Result<DevicesView, CoreError> {
    let listener = listener(core)?;
    let status = listener.status().await;
    let devices = DeviceTokenStore::in_data_dir(&listener.data_dir())
        .list()
        .map_err(|e| CoreError::Refused(e.to_string()))?
        .into_iter()
        .map(|d| PairedDevice { name: d.name, created: d.created })
        .collect();
    Ok(DevicesView {
        url: status.url,
        fingerprint: status.fingerprint,
        certificate_renewed: status.renewed,
        problem: status.problem,
        devices,
    })
}

/// A pairing link for a device to be called `name`, while served.
pub async fn pair(core: &Core, name: &str) -> Result<PairingLink, CoreError> {
    let listener = listener(core)?;
    let url = listener
        .status()
        .await
        .url
        .ok_or_else(|| CoreError::Refused("turn on \"Open from other devices\" first".into()))?;
    let now = jiff::Timestamp::now().as_second();
    let code = PairingCodes::in_data_dir(&listener.data_dir())
        .mint(name.trim(), now)
        .map_err(|e| CoreError::Refused(e.to_string()))?;
    let link = format!("{url}#pair={code}");
    let qr = QrCode::new(link.as_bytes()).map_err(|e| CoreError::Refused(format!("drawing the QR code: {e}")))?;
    let qr_svg = qr.render::<svg::Color<'_>>().min_dimensions(220, 220).quiet_zone(true).build();
    let ttl = i64::try_from(CODE_TTL.as_secs()).unwrap_or(i64::MAX);
    Ok(PairingLink { device: name.trim().to_owned(), url: link, qr_svg, expires_at: now + ttl })
}

/// Sign `name` out: its token is gone, its open pages closed at once.
pub async fn revoke(core: &Core, name: &str) -> Result<DevicesView, CoreError> {
    let listener = listener(core)?;
    DeviceTokenStore::in_data_dir(&listener.data_dir()).revoke(name).map_err(|e| CoreError::Refused(e.to_string()))?;
    view(core).await
}
