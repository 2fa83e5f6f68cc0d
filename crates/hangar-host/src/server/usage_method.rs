//! `x-hangar/usage` `{ from?, to?, groupBy? }`: tokens and cost per day and
//! agent, and the costliest sessions, from the store (`store/usage.rs`).
//! `from` and `to` are ISO dates (`2026-03-01`; a full timestamp counts as
//! its UTC day), both included; `groupBy` is `"day"`, the only grouping.
//! A date that does not parse, `from` after `to` or another `groupBy` is
//! `-32602` with the reason.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::frames::{error_frame, result_frame};
use crate::host::Host;
use crate::hub::ConnId;
use crate::store::usage::UsageRequest;
use crate::RpcError;

/// The request's params.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UsageParams {
    /// The first day.
    #[serde(default)]
    pub from: Option<String>,
    /// The last day.
    #[serde(default)]
    pub to: Option<String>,
    /// `"day"`.
    #[serde(default)]
    pub group_by: Option<String>,
}

/// Aggregate off the connection's read loop (it reads every turn with
/// usage), then answer `conn`.
pub fn answer(host: &Arc<Host>, conn: ConnId, id: Value, p: UsageParams) {
    let host = host.clone();
    tokio::task::spawn_blocking(move || {
        let frame = match request(&p)
            .and_then(|r| host.usage.usage(&r).map_err(|e| RpcError::internal(format!("reading usage: {e}"))))
        {
            Ok(report) => result_frame(&id, &report),
            Err(error) => error_frame(&id, &error),
        };
        host.hub.send(conn, frame.into());
    });
}

/// The checked request.
pub fn request(p: &UsageParams) -> Result<UsageRequest, RpcError> {
    if let Some(g) = p.group_by.as_deref().filter(|g| *g != "day") {
        return Err(RpcError::invalid_params("groupBy", format!("only \"day\" is supported, not {g:?}")));
    }
    let from = p.from.as_deref().map(|d| day("from", d)).transpose()?;
    let to = p.to.as_deref().map(|d| day("to", d)).transpose()?;
    if let (Some(f), Some(t)) = (&from, &to) {
        if f > t {
            return Err(RpcError::invalid_params("from", format!("{f} is after to ({t})")));
        }
    }
    Ok(UsageRequest { from, to })
}

/// An ISO date (or timestamp) as its `YYYY-MM-DD` (UTC) day.
fn day(field: &str, text: &str) -> Result<String, RpcError> {
    if let Ok(date) = text.parse::<jiff::civil::Date>() {
        if text.len() == 10 {
            return Ok(date.to_string());
        }
    }
    match text.parse::<jiff::Timestamp>() {
        Ok(ts) => Ok(ts.to_zoned(jiff::tz::TimeZone::UTC).date().to_string()),
        Err(_) => Err(RpcError::invalid_params(field, format!("{text:?} is not an ISO date (YYYY-MM-DD)"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(from: Option<&str>, to: Option<&str>, group_by: Option<&str>) -> UsageParams {
        UsageParams { from: from.map(Into::into), to: to.map(Into::into), group_by: group_by.map(Into::into) }
    }

    #[test]
    fn dates_are_days_and_bad_ones_are_refused_with_the_reason() {
        let ok = request(&params(Some("2026-03-01"), Some("2026-03-02T23:30:00Z"), Some("day"))).map_err(|e| e.message);
        let ok = ok.as_ref().map(|r| (r.from.as_deref(), r.to.as_deref()));
        assert_eq!(ok, Ok((Some("2026-03-01"), Some("2026-03-02"))));
        for (p, reason) in [
            (params(Some("yesterday"), None, None), "from"),
            (params(None, Some("2026-13-01"), None), "to"),
            (params(Some("2026-03-02"), Some("2026-03-01"), None), "after"),
            (params(None, None, Some("week")), "groupBy"),
        ] {
            let e = request(&p).err().map(|e| (e.code, e.message));
            assert!(e.as_ref().is_some_and(|(code, m)| *code == -32602 && m.contains(reason)), "{reason}: {e:?}");
        }
    }
}
