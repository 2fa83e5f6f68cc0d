//! The Tauri shell: two IPC commands over the one command table
//! ([`crate::commands::call_wire`]) — `core_call` for request/answer and
//! `core_stream` for commands that push events through a
//! `tauri::ipc::Channel`, a list of events a frame (`stream_batch.rs`) — plus desktop notifications (a session needs
//! input, finished or failed) while the window is not focused.

use std::sync::Arc;

use serde_json::Value;
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager};
use tauri_plugin_notification::NotificationExt;

use crate::commands;
use crate::core::{Core, Notifier, Sink};
use crate::error::CoreError;
use crate::options::AppOptions;
use crate::stream_batch::FrameBatcher;
use hangar_desktop_protocol::{Reply, StreamEvent};

struct AppCore(Arc<Core>);

#[tauri::command]
async fn core_call(state: tauri::State<'_, AppCore>, cmd: String, args: Value) -> Result<Reply, CoreError> {
    commands::call_wire(&state.0, &cmd, args, None).await
}

#[tauri::command]
async fn core_stream(
    state: tauri::State<'_, AppCore>,
    cmd: String,
    args: Value,
    on_event: Channel<Vec<StreamEvent>>,
) -> Result<Reply, CoreError> {
    // One message per frame, not per event (a `webview.eval` each).
    let batcher = FrameBatcher::new(move |events: Vec<StreamEvent>| on_event.send(events).is_ok());
    let sink: Sink = Arc::new(move |event: StreamEvent| batcher.push(event));
    commands::call_wire(&state.0, &cmd, args, Some(sink)).await
}

struct WindowNotifier(AppHandle);

impl Notifier for WindowNotifier {
    fn window_focused(&self) -> bool {
        self.0.get_webview_window("main").and_then(|w| w.is_focused().ok()).unwrap_or(false)
    }

    fn notify(&self, _kind: crate::notifications::Kind, title: &str, body: &str) {
        let shown = self.0.notification().builder().title(title).body(body).show();
        if let Err(e) = shown {
            tracing::warn!("notification: {e}");
        }
    }
}

/// Run the app (blocks until the window closes).
pub fn run(options: &AppOptions) -> Result<(), CoreError> {
    let context = tauri::generate_context!();
    let compositing = crate::webkit_settings::compositing_wanted(options.webkit_compositing);
    if options.blank {
        return run_blank(context, compositing);
    }
    let started = tauri::async_runtime::block_on(crate::startup::start(options))?;
    let core = started.core.clone();
    let result = tauri::Builder::default()
        .plugin(crate::webkit_settings::plugin(compositing))
        .plugin(tauri_plugin_notification::init())
        .manage(AppCore(core.clone()))
        .setup(move |app| {
            core.set_notifier(Arc::new(WindowNotifier(app.handle().clone())));
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![core_call, core_stream])
        .run(context);
    drop(started);
    result.map_err(|e| CoreError::Unexpected(format!("the window: {e}")))
}

/// `--blank`: the same window (size, shell, plugin) on `about:blank`, with no
/// host, core or UI, and the same WebKit settings; a baseline for memory
/// figures.
fn run_blank(mut context: tauri::Context, compositing: bool) -> Result<(), CoreError> {
    let blank: tauri::Url = "about:blank".parse().map_err(|e| CoreError::Unexpected(format!("about:blank: {e}")))?;
    for window in &mut context.config_mut().app.windows {
        window.url = tauri::WebviewUrl::External(blank.clone());
    }
    tauri::Builder::default()
        .plugin(crate::webkit_settings::plugin(compositing))
        .plugin(tauri_plugin_notification::init())
        .run(context)
        .map_err(|e| CoreError::Unexpected(format!("the window: {e}")))
}
