//! `search`: one query sent to every connected host at once (each host's
//! `x-hangar/search`), the answers merged into one list, and a word for
//! every host that did not answer.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// `search`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct SearchArgs {
    /// What to find (every word must match; the last one as a prefix).
    pub query: String,
    /// At most this many results from each host (1..=200; default 20).
    pub limit: Option<u32>,
    /// Only archived sessions (`true`), only the others (`false`), or both.
    pub archived: Option<bool>,
    /// The next page: each host's `nextCursor` from the previous answer
    /// (the answer's `cursors`). Only those hosts are asked.
    pub cursors: Option<BTreeMap<String, String>>,
}

/// One result, tagged with its host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    /// Host id.
    pub host: String,
    /// Host label.
    pub host_label: String,
    /// Session URI.
    pub session: String,
    /// Chat URI.
    pub chat: String,
    /// The turn that matched; `null` when the session's title matched.
    pub turn_id: Option<String>,
    /// The session's title.
    pub title: String,
    /// The match in context; each matched word between `«` and `»`
    /// (peer text: render as text, never as HTML).
    pub snippet: String,
    /// When the turn started (RFC 3339).
    pub at: String,
    /// The host's score: higher is better.
    pub score: f64,
}

/// How a host took part in a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum HostSearchState {
    /// It answered.
    Answered,
    /// It is not connected (not reachable, reconnecting, token refused, …).
    NotConnected,
    /// It did not answer in time.
    TimedOut,
    /// It answered with an error.
    Failed,
}

/// One host's part in a search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HostSearchStatus {
    /// Host id.
    pub host: String,
    /// Host label.
    pub label: String,
    /// Answered, not connected, timed out or failed.
    pub state: HostSearchState,
    /// Why, in words, when it did not answer ("not reachable: connection
    /// refused", "did not answer within 5 s", the host's error).
    pub detail: Option<String>,
    /// How many results it gave.
    pub count: u32,
}

/// `search`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchResults {
    /// Every host's results, best first (by score, then newest).
    pub items: Vec<SearchHit>,
    /// Every host asked (or not connected), in sidebar order.
    pub hosts: Vec<HostSearchStatus>,
    /// Per host with more results, its cursor for the next page.
    pub cursors: BTreeMap<String, String>,
    /// How long the slowest host took to answer, and the merge after it
    /// (milliseconds).
    pub timing: SearchTiming,
}

/// Where a search's time went.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchTiming {
    /// From sending to the slowest answer (or its timeout).
    pub slowest_ms: f64,
    /// From the slowest answer to the merged list.
    pub merge_ms: f64,
}
