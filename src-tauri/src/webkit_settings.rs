//! WebKitGTK settings of the app's webviews, applied as each is created (a
//! Tauri plugin's `on_webview_ready`, before the page has painted):
//!
//! - [`plugin`] — the hardware-acceleration policy: **never** by default,
//!   so WebKit paints the page without accelerated compositing. On Xvfb and
//!   other software-rendered displays each composited layer (every scrolling
//!   panel of the UI) keeps its own backing store in the web process: about
//!   100 MiB PSS with 50 sessions listed (docs/performance.md, "Idle memory
//!   …, against MiniBrowser"). `--webkit-compositing` (or
//!   `HANGAR_WEBKIT_COMPOSITING=1`) keeps WebKit's own policy instead.
//!
//! Other platforms' webviews are left as they are.

use tauri::plugin::TauriPlugin;
use tauri::Runtime;

/// The plugin that applies the settings; `compositing` keeps WebKit's own
/// hardware-acceleration policy.
pub fn plugin<R: Runtime>(compositing: bool) -> TauriPlugin<R> {
    tauri::plugin::Builder::new("webkit-settings")
        .on_webview_ready(move |webview| {
            if compositing {
                return;
            }
            if let Err(e) = webview.with_webview(disable_compositing) {
                tracing::warn!("webkit settings: {e}");
            }
        })
        .build()
}

/// Whether the user asked for WebKit's compositing: the option, or
/// `HANGAR_WEBKIT_COMPOSITING=1`.
pub fn compositing_wanted(option: bool) -> bool {
    option || std::env::var_os("HANGAR_WEBKIT_COMPOSITING").is_some_and(|v| v == "1")
}

#[cfg(target_os = "linux")]
fn disable_compositing(webview: tauri::webview::PlatformWebview) {
    use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt, WebViewExt};
    if let Some(settings) = webview.inner().settings() {
        settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
    }
}

#[cfg(not(target_os = "linux"))]
fn disable_compositing(_webview: tauri::webview::PlatformWebview) {}
