//! `hangar token create NAME --pair`: a one-time pairing code
//! (`hangar_host::server::pairing_codes`, valid 10 minutes, once) shown as
//! the URL a phone opens, `BASE#pair=CODE`, and as that URL in a QR code
//! drawn with Unicode half blocks in the terminal. The base is `--url`, else
//! the address a `--web` host of the data directory noted.

use std::io::Write;
use std::path::Path;

use hangar_host::server::pairing_codes::PairingCodes;
use qrcode::render::unicode::Dense1x2;
use qrcode::QrCode;

use crate::web_serve::noted_page_url;

/// Mint a code for `name` and print its URL, then the QR code, on `out`.
pub fn print_pairing(data_dir: &Path, name: &str, url: Option<String>, out: &mut impl Write) -> Result<(), String> {
    let base = url.or_else(|| noted_page_url(data_dir)).ok_or(
        "no `hangar serve --web` is running on this data directory: give the address the device can reach with \
         --url https://HOST:PORT/",
    )?;
    let base = base.split('#').next().unwrap_or_default().to_owned();
    let code = PairingCodes::in_data_dir(data_dir)
        .mint(name, jiff::Timestamp::now().as_second())
        .map_err(|e| e.to_string())?;
    let link = format!("{base}#pair={code}");
    let qr = QrCode::new(link.as_bytes()).map_err(|e| format!("drawing the QR code: {e}"))?;
    let drawing = qr.render::<Dense1x2>().quiet_zone(true).build();
    eprintln!("hangar: open this on {name:?} within 10 minutes (it works once):");
    writeln!(out, "{link}").and_then(|()| writeln!(out, "{drawing}")).map_err(|e| format!("writing to stdout: {e}"))
}
