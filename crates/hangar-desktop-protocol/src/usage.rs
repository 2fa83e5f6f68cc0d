//! The Usage page: tokens and cost per day split by agent, and the
//! costliest sessions, from each host's `x-hangar/usage` (docs/host.md
//! "Usage"), for one host or all of them merged; each host's part in words.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::chat::CostView;

/// `usage.get`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct UsageArgs {
    /// One host; none: every host.
    #[serde(default)]
    pub host: Option<String>,
    /// The first day (`YYYY-MM-DD`).
    #[serde(default)]
    pub from: Option<String>,
    /// The last day.
    #[serde(default)]
    pub to: Option<String>,
}

/// One agent's use on one day (summed over the hosts asked).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UsageDayView {
    /// `YYYY-MM-DD` (UTC).
    pub day: String,
    /// The agent.
    pub agent: String,
    /// Input tokens.
    pub input_tokens: i64,
    /// Output tokens.
    pub output_tokens: i64,
    /// Cost, when reported (in one currency).
    #[serde(default)]
    pub cost: Option<CostView>,
}

/// One session's use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UsageSessionView {
    /// The host it is on.
    #[serde(default)]
    pub host: String,
    /// That host's name.
    #[serde(default)]
    pub host_label: String,
    /// Session URI.
    pub session: String,
    /// Title.
    pub title: String,
    /// Agent.
    pub agent: String,
    /// Input plus output tokens.
    pub tokens: i64,
    /// Cost, when reported.
    #[serde(default)]
    pub cost: Option<CostView>,
}

/// A host's part in the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UsageHostStatus {
    /// Host id.
    pub host: String,
    /// Its name.
    pub label: String,
    /// Whether it answered.
    pub answered: bool,
    /// Why not, in words.
    pub detail: Option<String>,
}

/// `usage.get`'s answer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UsageReport {
    /// Per day and agent, by day then agent.
    pub days: Vec<UsageDayView>,
    /// Costliest first, at most 20.
    pub sessions: Vec<UsageSessionView>,
    /// Every host asked, answered or not.
    pub hosts: Vec<UsageHostStatus>,
}
