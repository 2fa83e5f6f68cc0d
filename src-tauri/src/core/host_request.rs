//! One request to one named host on behalf of a page (Rules, the New
//! session dialog's earlier sessions), its refusals in words: a host that
//! is not connected says why; bad params (`-32602`) come back as the
//! host's reason alone; a host without the method (an older Hangar, or not
//! a Hangar host) says it has no such thing.

use ahp::hosts::{HostError, HostId};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::search::not_connected;
use super::Core;
use crate::error::CoreError;

/// The JSON-RPC code for a method the host does not have.
const METHOD_NOT_FOUND: i32 = -32601;
/// The JSON-RPC code for bad params.
const INVALID_PARAMS: i32 = -32602;

impl Core {
    /// Send `method` to `host`; `what` names what it asks for, in words
    /// ("approval rules"), for a host that does not have the method.
    pub(super) async fn ask_named_host<R: DeserializeOwned>(
        &self,
        host: &str,
        method: &str,
        params: Value,
        what: &str,
    ) -> Result<R, CoreError> {
        let id = HostId::new(host);
        let handle = self.multi.host(&id).await.ok_or_else(|| CoreError::NotFound(format!("no host {host}")))?;
        let Some(client) = self.multi.client(&id).await else {
            let why = not_connected(&self.view(&handle).connection);
            return Err(CoreError::Refused(format!("{} is not connected: {why}", handle.label)));
        };
        client.request::<_, R>(method, params).await.map_err(|e| match e {
            HostError::Client(ahp::ClientError::Rpc(e)) if e.code == INVALID_PARAMS => {
                CoreError::Refused(e.message.strip_prefix("invalid params: ").unwrap_or(&e.message).to_owned())
            }
            HostError::Client(ahp::ClientError::Rpc(e)) if e.code == METHOD_NOT_FOUND => {
                CoreError::Refused(format!("{} has no {what} (an older Hangar, or not a Hangar host)", handle.label))
            }
            other => CoreError::Host(other),
        })
    }
}
