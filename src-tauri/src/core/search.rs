//! The `search` command: one query sent to every host at once
//! (`x-hangar/search`, each with a timeout), the answers merged
//! ([`crate::search_merge`]), and each host's part in words — answered,
//! not connected (and why), timed out, or its error.

use std::time::{Duration, Instant};

use ahp::hosts::{HostError, HostHandle};
use futures_util::future::join_all;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use super::Core;
use crate::error::CoreError;
use crate::search_merge::{merge, HostAnswer, WireAnswer};
use hangar_desktop_protocol::host::HostConnection;
use hangar_desktop_protocol::search::{HostSearchState, HostSearchStatus, SearchArgs, SearchResults, SearchTiming};

/// How long a host has to answer before the results go out without it.
pub const SEARCH_TIMEOUT: Duration = Duration::from_secs(5);

/// The JSON-RPC code for a method the host does not have.
const METHOD_NOT_FOUND: i32 = -32601;
/// The JSON-RPC code for bad params.
const INVALID_PARAMS: i32 = -32602;

/// One host's outcome before the merge (of a search, of `usage.get`).
pub(super) enum Outcome<T> {
    Answered(T),
    NotConnected(String),
    TimedOut,
    Failed { message: String, invalid_params: bool },
}

impl Core {
    /// Run `search` on every host (or, for a next page, on the hosts whose
    /// cursor `args.cursors` holds), in parallel, each within
    /// [`SEARCH_TIMEOUT`].
    pub async fn search(&self, args: SearchArgs) -> Result<SearchResults, CoreError> {
        let bad = |m: &str| CoreError::BadArgs { command: "search".to_owned(), message: m.to_owned() };
        if args.query.trim().is_empty() {
            return Err(bad("the query is empty"));
        }
        if args.limit.is_some_and(|l| !(1..=200).contains(&l)) {
            return Err(bad("limit must be between 1 and 200"));
        }
        let hosts: Vec<HostHandle> = self
            .handles()
            .await
            .into_iter()
            .filter(|h| args.cursors.as_ref().is_none_or(|c| c.contains_key(h.id.as_str())))
            .collect();
        let started = Instant::now();
        let asks = hosts.iter().map(|h| {
            let mut params = json!({ "query": args.query, "limit": args.limit.unwrap_or(20) });
            if let Some(archived) = args.archived {
                params["archived"] = json!(archived);
            }
            if let Some(cursor) = args.cursors.as_ref().and_then(|c| c.get(h.id.as_str())) {
                params["cursor"] = json!(cursor);
            }
            self.ask_host::<WireAnswer>(h, "x-hangar/search", params, "search")
        });
        let outcomes = join_all(asks).await;
        let slowest = started.elapsed();
        let merging = Instant::now();
        let mut answers = Vec::new();
        let mut statuses = Vec::new();
        let mut refusals = Vec::new();
        for (h, outcome) in hosts.iter().zip(outcomes) {
            let status = |state, detail: Option<String>, count: usize| HostSearchStatus {
                host: h.id.as_str().to_owned(),
                label: h.label.clone(),
                state,
                detail,
                count: u32::try_from(count).unwrap_or(u32::MAX),
            };
            statuses.push(match outcome {
                Outcome::Answered(answer) => {
                    let count = answer.items.len();
                    answers.push(HostAnswer { host: h.id.as_str().to_owned(), label: h.label.clone(), answer });
                    status(HostSearchState::Answered, None, count)
                }
                Outcome::NotConnected(why) => status(HostSearchState::NotConnected, Some(why), 0),
                Outcome::TimedOut => status(
                    HostSearchState::TimedOut,
                    Some(format!("did not answer within {} s", SEARCH_TIMEOUT.as_secs())),
                    0,
                ),
                Outcome::Failed { message, invalid_params } => {
                    if invalid_params {
                        refusals.push(message.clone());
                    }
                    status(HostSearchState::Failed, Some(message), 0)
                }
            });
        }
        // Every host that answered refused the query itself (no letter or
        // digit, say): that is the person's input, said once.
        if answers.is_empty()
            && !refusals.is_empty()
            && refusals.len() == statuses.iter().filter(|s| s.state == HostSearchState::Failed).count()
        {
            return Err(bad(&refusals[0]));
        }
        let merged = merge(answers);
        let timing = SearchTiming {
            slowest_ms: slowest.as_secs_f64() * 1000.0,
            merge_ms: merging.elapsed().as_secs_f64() * 1000.0,
        };
        Ok(SearchResults { items: merged.items, hosts: statuses, cursors: merged.cursors, timing })
    }

    /// Ask one host `method` within [`SEARCH_TIMEOUT`], or say why not
    /// (`what` it cannot do when it has no such method).
    pub(super) async fn ask_host<T: DeserializeOwned>(
        &self,
        h: &HostHandle,
        method: &str,
        params: Value,
        what: &str,
    ) -> Outcome<T> {
        let Some(client) = self.multi.client(&h.id).await else {
            return Outcome::NotConnected(not_connected(&self.view(h).connection));
        };
        match tokio::time::timeout(SEARCH_TIMEOUT, client.request::<_, T>(method, params)).await {
            Err(_) => Outcome::TimedOut,
            Ok(Ok(answer)) => Outcome::Answered(answer),
            Ok(Err(HostError::Client(ahp::ClientError::Rpc(e)))) if e.code == METHOD_NOT_FOUND => Outcome::Failed {
                message: format!("this host cannot {what} (an older Hangar, or not a Hangar host)"),
                invalid_params: false,
            },
            Ok(Err(HostError::Client(ahp::ClientError::Rpc(e)))) => {
                Outcome::Failed { invalid_params: e.code == INVALID_PARAMS, message: e.message }
            }
            Ok(Err(e)) => Outcome::Failed { message: e.to_string(), invalid_params: false },
        }
    }
}

/// Why a host that is not connected did not answer, in words.
pub(super) fn not_connected(connection: &HostConnection) -> String {
    match connection {
        HostConnection::Connecting => "still connecting".to_owned(),
        HostConnection::Connected => "not connected".to_owned(),
        HostConnection::Reconnecting { reason: Some(r), .. } => format!("reconnecting: {r}"),
        HostConnection::Reconnecting { reason: None, .. } => "reconnecting".to_owned(),
        HostConnection::Unreachable { reason, .. } => format!("not reachable: {reason}"),
        HostConnection::TokenRefused { .. } => "the host refused this app's token".to_owned(),
        HostConnection::CertificateChanged { .. } => "its certificate changed".to_owned(),
        HostConnection::ProtocolUnsupported { .. } => "it speaks no protocol version this app does".to_owned(),
        HostConnection::Failed { reason } => reason.clone(),
    }
}
