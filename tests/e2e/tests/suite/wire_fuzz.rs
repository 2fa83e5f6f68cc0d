//! The short raw-socket fuzz of the test command: 100,000 mutated frames over
//! four connections; the host stays up, a bystander is always answered, a
//! newcomer is served afterwards (`hangar_e2e::wire_fuzz`; the million-frame
//! run is `target/release/fuzz-wire`).

use std::time::Duration;

use hangar_e2e::wire_fuzz::{run, Options};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_thousand_mutated_frames_break_nothing() {
    let options = Options { frames: 100_000, max_time: Duration::from_secs(120), connections: 4, seed: 11 };
    let report = run(&options).await;
    println!("{}", report.figures());
    assert!(report.host_alive, "{}", report.figures());
    assert_eq!(report.failed_pings, 0, "{}", report.figures());
    assert_eq!(report.stalls, 0, "{}", report.figures());
    assert!(report.pings > 0, "{}", report.figures());
    assert!(report.frames >= 100_000 || report.elapsed >= options.max_time, "{}", report.figures());
    assert!(report.answers > 1000, "the host answered the frames it could read: {}", report.figures());
}
