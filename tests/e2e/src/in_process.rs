//! A host inside the test process: `hangar serve`'s own code
//! (`hangar_cli::serve`: the same arguments, configuration and listener)
//! on a Tokio runtime of its own, bound to `127.0.0.1:0`. Its own runtime
//! keeps it independent of the test's (current-thread or not) and lets
//! [`InProcess`] start and stop it from sync code, as a process would be.
//! Its log goes nowhere (the test process installs no subscriber): to read
//! a host's log, run the test with `Launch::Process` and `HANGAR_TEST_LOG=1`.

use std::sync::mpsc;
use std::time::Duration;

use hangar_cli::serve::{host_config, listen, ServeArgs};
use tokio::runtime::Runtime;
use tokio::sync::oneshot;

use crate::host::Ready;

/// A host serving on its own runtime until dropped.
pub(crate) struct InProcess {
    runtime: Option<Runtime>,
    stop: Option<oneshot::Sender<()>>,
    stopped: mpsc::Receiver<()>,
}

/// Start `hangar serve` with `args` (after `serve`); `Err` carries what the
/// binary would print on stderr.
pub(crate) fn start(args: &[String]) -> Result<(InProcess, Ready), String> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let config = ServeArgs::try_parse(&args).and_then(host_config).map_err(|e| e.to_string())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("in-process-host")
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let (ready_tx, ready_rx) = mpsc::channel();
    let (stop, stop_rx) = oneshot::channel::<()>();
    let (stopped_tx, stopped) = mpsc::channel();
    runtime.spawn(async move {
        match listen(config).await {
            Ok(listening) => {
                let ready = Ready { url: listening.url.clone(), ready_line: listening.ready_line.clone() };
                let _ = ready_tx.send(Ok(ready));
                listening
                    .serve(async {
                        let _ = stop_rx.await;
                    })
                    .await;
            }
            Err(e) => {
                let _ = ready_tx.send(Err(e.to_string()));
            }
        }
        let _ = stopped_tx.send(());
    });
    // Dropped on every way out below: stops the host and its runtime.
    let host = InProcess { runtime: Some(runtime), stop: Some(stop), stopped };
    let ready =
        ready_rx.recv_timeout(Duration::from_secs(60)).map_err(|_| "not listening within 60 s".to_owned())??;
    Ok((host, ready))
}

impl Drop for InProcess {
    /// Stop as SIGTERM stops `hangar serve` (agents ended, state flushed),
    /// then drop whatever tasks are left with the runtime, and wait (up to
    /// 30 s) until they are gone: tasks such as a connection still hold the
    /// host, and with it the data directory's lock and database, which a
    /// host started next on the same directory, or the removal of a
    /// temporary one, must find released.
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
            let _ = self.stopped.recv_timeout(Duration::from_secs(30));
        }
        if let Some(runtime) = self.runtime.take() {
            // On a thread of its own: shutting a runtime down blocks, which
            // a test's async context forbids.
            let _ = std::thread::spawn(move || runtime.shutdown_timeout(Duration::from_secs(30))).join();
        }
    }
}
