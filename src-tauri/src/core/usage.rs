//! The `usage.get` command: `x-hangar/usage` asked of one host or of every
//! host at once (each within the search timeout), the answers merged
//! ([`crate::usage_merge`]), and each host's part in words: a host that
//! is not connected, times out or fails is named with why, never left out
//! silently.

use ahp::hosts::HostHandle;
use futures_util::future::join_all;
use serde_json::json;

use super::search::Outcome;
use super::Core;
use crate::error::CoreError;
use crate::usage_merge::{merge, HostUsage, WireUsage};
use hangar_desktop_protocol::usage::{UsageArgs, UsageHostStatus, UsageReport};

impl Core {
    /// `usage.get`.
    pub async fn usage(&self, args: UsageArgs) -> Result<UsageReport, CoreError> {
        let hosts: Vec<HostHandle> = self
            .handles()
            .await
            .into_iter()
            .filter(|h| args.host.as_deref().is_none_or(|id| h.id.as_str() == id))
            .collect();
        if let (Some(id), true) = (&args.host, hosts.is_empty()) {
            return Err(CoreError::NotFound(format!("no host {id}")));
        }
        let mut params = json!({ "groupBy": "day" });
        if let Some(from) = &args.from {
            params["from"] = json!(from);
        }
        if let Some(to) = &args.to {
            params["to"] = json!(to);
        }
        let asks =
            hosts.iter().map(|h| self.ask_host::<WireUsage>(h, "x-hangar/usage", params.clone(), "report usage"));
        let outcomes = join_all(asks).await;
        let mut answers = Vec::new();
        let mut statuses = Vec::new();
        for (h, outcome) in hosts.iter().zip(outcomes) {
            let detail = match outcome {
                Outcome::Answered(answer) => {
                    answers.push(HostUsage { host: h.id.as_str().to_owned(), label: h.label.clone(), answer });
                    None
                }
                Outcome::NotConnected(why) => Some(format!("not connected: {why}")),
                Outcome::TimedOut => Some(format!("did not answer within {} s", super::SEARCH_TIMEOUT.as_secs())),
                Outcome::Failed { message, .. } => Some(message),
            };
            statuses.push(UsageHostStatus {
                host: h.id.as_str().to_owned(),
                label: h.label.clone(),
                answered: detail.is_none(),
                detail,
            });
        }
        let (days, sessions) = merge(answers);
        Ok(UsageReport { days, sessions, hosts: statuses })
    }
}
