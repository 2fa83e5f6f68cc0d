//! The one-minute soak of the test command: 50 clients, 20 sessions with
//! streaming fake agents, random drops and reconnects; nothing lost,
//! doubled or reordered, and every mirror equal to the host's state
//! (`hangar_e2e::soak`; the long run is `target/release/soak`).

use std::time::Duration;

use hangar_e2e::soak::{run, Options};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_clients_for_a_minute_lose_nothing_and_agree_with_the_host() {
    let options = Options { clients: 50, sessions: 20, duration: Duration::from_secs(60), seed: 7, follows: 3 };
    let report = run(&options).await;
    println!("{}", report.figures());
    assert!(report.totals.lost.is_empty(), "lost: {:#?}", &report.totals.lost[..report.totals.lost.len().min(20)]);
    assert!(
        report.totals.faults.is_empty(),
        "faults: {:#?}",
        &report.totals.faults[..report.totals.faults.len().min(20)]
    );
    // The run did what it claims (so the checks above had something to check).
    assert!(report.totals.applied > 1000, "{}", report.figures());
    assert!(report.turns >= 20, "{}", report.figures());
    assert!(report.totals.reconnects >= 50 && report.totals.replays > 0, "{}", report.figures());
    assert!(report.compared >= 50 * 3 * 2, "{}", report.figures());
}
