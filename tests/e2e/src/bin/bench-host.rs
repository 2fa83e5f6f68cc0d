//! `bench-host`: how fast the host moves actions, measured against a bare
//! WebSocket broadcast of the same bytes in the same run, and how fast it is
//! ready after a restart with a large store.
//!
//! Run (release builds of both binaries):
//!   cargo build --release -p hangar-cli -p hangar-e2e && target/release/bench-host
//! Options: `--actions N` (default 100000), `--subscribers 1,10,50`,
//! `--sessions N` / `--per-session N` for the restart figure (1000 / 100).
//!
//! Prints one block per subscriber count: actions/s delivered to each
//! subscriber, p50/p99 dispatch-to-receive latency, and the same for the
//! baseline; then the restart figures. The publisher keeps at most
//! `--window` actions (default 2000) ahead of the slowest subscriber, as a
//! real client with flow control would; an unbounded flood only measures
//! how fast queues fill (and the host cuts off subscribers that fall 65,536
//! frames behind).

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "a benchmark run: a step that fails ends the run with its message"
)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use hangar_e2e::{Launch, TestHost};
use serde_json::json;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Mutex};
use tokio_tungstenite::tungstenite::Message;

struct Args {
    actions: usize,
    window: usize,
    subscribers: Vec<usize>,
    sessions: usize,
    per_session: usize,
}

fn args() -> Args {
    let mut a = Args { actions: 100_000, window: 2000, subscribers: vec![1, 10, 50], sessions: 1000, per_session: 100 };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_default();
        match flag.as_str() {
            "--actions" => a.actions = value.parse().unwrap(),
            "--window" => a.window = value.parse().unwrap(),
            "--subscribers" => a.subscribers = value.split(',').map(|v| v.parse().unwrap()).collect(),
            "--sessions" => a.sessions = value.parse().unwrap(),
            "--per-session" => a.per_session = value.parse().unwrap(),
            other => panic!("unknown option {other}"),
        }
    }
    a
}

struct Figures {
    per_second: f64,
    p50: Duration,
    p99: Duration,
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// Drive `actions` title changes from one publisher to `subs` subscribers;
/// `url_pub`/`url_sub` and the frame builders adapt it to host or baseline.
async fn drive(
    actions: usize,
    window: usize,
    subs: usize,
    connect_sub: impl Fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = WsStream> + Send>>,
    mut publisher: WsStream,
    frame_for: impl Fn(usize) -> String,
) -> Figures {
    let sent_at: Arc<Vec<std::sync::Mutex<Option<Instant>>>> =
        Arc::new((0..actions).map(|_| std::sync::Mutex::new(None)).collect());
    let progress: Arc<Vec<AtomicUsize>> = Arc::new((0..subs).map(|_| AtomicUsize::new(0)).collect());
    let mut tasks = Vec::new();
    let (ready_tx, mut ready_rx) = mpsc::channel(subs);
    for s in 0..subs {
        let mut ws = connect_sub().await;
        let sent_at = sent_at.clone();
        let progress = progress.clone();
        let ready = ready_tx.clone();
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(if s == 0 { actions } else { 0 });
            let mut got = 0usize;
            ready.send(()).await.unwrap();
            while got < actions {
                let Some(Ok(Message::Text(t))) = ws.next().await else {
                    panic!("subscriber {s} lost its connection after {got}")
                };
                // The title carries the action's index: "b<index>".
                let Some(pos) = t.find("\"b") else { continue };
                let idx: usize = t[pos + 2..].split('"').next().unwrap().parse().unwrap();
                got += 1;
                progress[s].store(got, Ordering::Relaxed);
                if s == 0 {
                    if let Some(at) = *sent_at[idx].lock().unwrap() {
                        latencies.push(at.elapsed());
                    }
                }
            }
            (Instant::now(), latencies)
        }));
    }
    for _ in 0..subs {
        ready_rx.recv().await.unwrap();
    }
    let start = Instant::now();
    for i in 0..actions {
        *sent_at[i].lock().unwrap() = Some(Instant::now());
        publisher.feed(Message::text(frame_for(i))).await.unwrap();
        if i % 64 == 63 {
            publisher.flush().await.unwrap();
            while i.saturating_sub(window) > progress.iter().map(|p| p.load(Ordering::Relaxed)).min().unwrap_or(0) {
                tokio::time::sleep(Duration::from_micros(200)).await;
            }
        }
    }
    publisher.flush().await.unwrap();
    let mut end = start;
    let mut latencies = Vec::new();
    for t in tasks {
        let (done, lat) = t.await.unwrap();
        end = end.max(done);
        if !lat.is_empty() {
            latencies = lat;
        }
    }
    latencies.sort_unstable();
    Figures {
        per_second: actions as f64 / (end - start).as_secs_f64(),
        p50: percentile(&latencies, 0.5),
        p99: percentile(&latencies, 0.99),
    }
}

type WsStream = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn ws(url: &str) -> WsStream {
    tokio_tungstenite::connect_async(url).await.unwrap().0
}

async fn request(ws: &mut WsStream, id: u64, method: &str, params: serde_json::Value) -> serde_json::Value {
    ws.send(Message::text(json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string())).await.unwrap();
    loop {
        let Some(Ok(Message::Text(t))) = ws.next().await else { panic!("closed") };
        let v: serde_json::Value = serde_json::from_str(&t).unwrap();
        if v["id"] == id {
            return v;
        }
    }
}

async fn init(ws: &mut WsStream, client: &str) {
    let r =
        request(ws, 0, "initialize", json!({"channel":"ahp-root://","protocolVersions":["1.0.0"],"clientId":client}))
            .await;
    assert!(r.get("result").is_some(), "{r}");
}

fn title_dispatch(session: &str, i: usize) -> String {
    json!({"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":session,"clientSeq":i,"action":{"type":"session/titleChanged","title":format!("b{i}")}}}).to_string()
}

/// The host: one session, `subs` subscribers, a publisher dispatching.
async fn bench_host(actions: usize, window: usize, subs: usize) -> Figures {
    let host = TestHost::start(Launch::Process(&[]), &[]);
    let url = host.authed_url();
    let session = "ahp-session:/bench";
    let mut publisher = ws(&url).await;
    init(&mut publisher, "publisher").await;
    let r = request(&mut publisher, 1, "createSession", json!({"channel": session})).await;
    assert!(r.get("result").is_some(), "{r}");
    let counter = Arc::new(Mutex::new(0u32));
    let connect = move || {
        let url = url.clone();
        let counter = counter.clone();
        Box::pin(async move {
            let mut s = ws(&url).await;
            let n = {
                let mut c = counter.lock().await;
                *c += 1;
                *c
            };
            init(&mut s, &format!("sub-{n}")).await;
            let r = request(&mut s, 1, "subscribe", json!({"channel": session})).await;
            assert!(r.get("result").is_some());
            s
        }) as std::pin::Pin<Box<dyn std::future::Future<Output = WsStream> + Send>>
    };
    let figures = drive(actions, window, subs, connect, publisher, |i| title_dispatch(session, i)).await;
    drop(host);
    figures
}

/// The baseline: a bare tokio-tungstenite server that broadcasts every frame
/// it gets from the publisher, as an envelope of the same size the host sends.
async fn bench_baseline(actions: usize, window: usize, subs: usize) -> Figures {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let subscribers: Arc<Mutex<Vec<mpsc::UnboundedSender<Message>>>> = Arc::new(Mutex::new(Vec::new()));
    let subs_for_server = subscribers.clone();
    let server = tokio::spawn(async move {
        loop {
            let (tcp, _) = listener.accept().await.unwrap();
            let _ = tcp.set_nodelay(true);
            let subs = subs_for_server.clone();
            tokio::spawn(async move {
                let mut path = String::new();
                #[allow(clippy::result_large_err)] // the callback signature tungstenite requires
                let ws = tokio_tungstenite::accept_hdr_async(
                    tcp,
                    |req: &tokio_tungstenite::tungstenite::handshake::server::Request, resp| {
                        path = req.uri().path().to_owned();
                        Ok(resp)
                    },
                )
                .await
                .unwrap();
                let (mut sink, mut source) = ws.split();
                if path == "/sub" {
                    let (tx, mut rx) = mpsc::unbounded_channel();
                    subs.lock().await.push(tx);
                    // Bursts with one flush each, as the host writes.
                    'conn: while let Some(m) = rx.recv().await {
                        if sink.feed(m).await.is_err() {
                            break;
                        }
                        while let Ok(m) = rx.try_recv() {
                            if sink.feed(m).await.is_err() {
                                break 'conn;
                            }
                        }
                        if sink.flush().await.is_err() {
                            break;
                        }
                    }
                } else {
                    let seq = std::sync::atomic::AtomicU64::new(0);
                    while let Some(Ok(Message::Text(t))) = source.next().await {
                        // Same shape and size as the host's action envelope.
                        let v: serde_json::Value = serde_json::from_str(&t).unwrap();
                        let n = seq.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                        let frame: tokio_tungstenite::tungstenite::Utf8Bytes =
                            json!({"jsonrpc":"2.0","method":"action","params":{
                            "channel": v["params"]["channel"], "action": v["params"]["action"], "serverSeq": n,
                            "origin": {"clientId": "publisher", "clientSeq": v["params"]["clientSeq"]}}})
                            .to_string()
                            .into();
                        for tx in subs.lock().await.iter() {
                            let _ = tx.send(Message::Text(frame.clone()));
                        }
                    }
                }
            });
        }
    });
    let connect = move || {
        Box::pin(async move { ws(&format!("ws://{addr}/sub")).await })
            as std::pin::Pin<Box<dyn std::future::Future<Output = WsStream> + Send>>
    };
    let publisher = ws(&format!("ws://{addr}/pub")).await;
    let figures = drive(actions, window, subs, connect, publisher, |i| title_dispatch("ahp-session:/bench", i)).await;
    server.abort();
    figures
}

/// Restart with `sessions` × `per_session` persisted actions: time to the
/// ready line and from it to the first `listSessions` reply.
async fn bench_restart(sessions: usize, per_session: usize) {
    let dir = tempfile::tempdir().unwrap();
    {
        let host = TestHost::start_in(Launch::Process(&[]), dir.path(), &[]);
        let mut c = ws(&host.authed_url()).await;
        init(&mut c, "filler").await;
        for s in 0..sessions {
            let uri = format!("ahp-session:/restart-{s}");
            request(&mut c, 1, "createSession", json!({"channel": uri})).await;
            for i in 0..per_session {
                c.feed(Message::text(title_dispatch(&uri, i))).await.unwrap();
            }
            c.flush().await.unwrap();
        }
        // Wait until everything is applied: the last title is visible.
        let last = format!("ahp-session:/restart-{}", sessions - 1);
        loop {
            let r = request(&mut c, 2, "subscribe", json!({"channel": last})).await;
            if r["result"]["snapshot"]["state"]["title"] == format!("b{}", per_session - 1) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut host = host;
        host.kill9();
    }
    let spawned = Instant::now();
    let host = TestHost::start_in(Launch::Process(&[]), dir.path(), &[]);
    let ready = Instant::now();
    let mut c = ws(&host.authed_url()).await;
    init(&mut c, "reader").await;
    let r = request(&mut c, 1, "listSessions", json!({"channel": "ahp-root://", "limit": 50})).await;
    let listed = Instant::now();
    assert_eq!(r["result"]["items"].as_array().unwrap().len(), sessions.min(50));
    println!("restart with {sessions} sessions / {} persisted actions (after kill -9):", sessions * per_session);
    println!("  spawn -> ready line:               {:>8.1} ms", (ready - spawned).as_secs_f64() * 1e3);
    println!(
        "  ready line -> first listSessions:  {:>8.1} ms   (aim: < 1000 ms)",
        (listed - ready).as_secs_f64() * 1e3
    );
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let a = args();
    println!(
        "hangar bench-host: {} small session actions (session/titleChanged), persistence on, window {}",
        a.actions, a.window
    );
    for &subs in &a.subscribers {
        let host = bench_host(a.actions, a.window, subs).await;
        let base = bench_baseline(a.actions, a.window, subs).await;
        println!("{subs:>3} subscriber(s):");
        println!(
            "  hangar:   {:>10.0} actions/s delivered   p50 {:>8.2} ms   p99 {:>8.2} ms",
            host.per_second,
            host.p50.as_secs_f64() * 1e3,
            host.p99.as_secs_f64() * 1e3
        );
        println!(
            "  baseline: {:>10.0} actions/s delivered   p50 {:>8.2} ms   p99 {:>8.2} ms   (bare tokio-tungstenite broadcast)",
            base.per_second,
            base.p50.as_secs_f64() * 1e3,
            base.p99.as_secs_f64() * 1e3
        );
        println!("  ratio hangar/baseline throughput: {:.2}", host.per_second / base.per_second);
    }
    bench_restart(a.sessions, a.per_session).await;
}
