//! JSON-RPC errors as the host answers them: one type for every handler.
//!
//! Codes come from `ahp_types::errors`; this file only adds constructors so a
//! handler says *what* went wrong (`RpcError::invalid_params("cursor", ..)`) and
//! the code follows.

use ahp_types::commands::ResourceRequestParams;
use ahp_types::errors::{ahp_error_codes as ahp, json_rpc_error_codes as jsonrpc};
use ahp_types::messages::JsonRpcError;
use serde_json::{json, Value};

/// An error answered to a JSON-RPC request.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message} ({code})")]
pub struct RpcError {
    /// JSON-RPC or AHP error code.
    pub code: i32,
    /// Human-readable message. Never contains tokens or file contents.
    pub message: String,
    /// Structured data, when the protocol defines some for `code`.
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with a code and a message, no data.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), data: None }
    }

    /// Attach structured `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700`: the frame was not JSON.
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(jsonrpc::PARSE_ERROR, message)
    }

    /// `-32600`: JSON, but not a JSON-RPC 2.0 message.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(jsonrpc::INVALID_REQUEST, message)
    }

    /// `-32601`: no such method (or not before `initialize`).
    pub fn method_not_found(method: &str) -> Self {
        Self::new(jsonrpc::METHOD_NOT_FOUND, format!("method not found: {method}"))
    }

    /// `-32602`: a parameter is missing or malformed; `field` names it.
    pub fn invalid_params(field: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        Self::new(jsonrpc::INVALID_PARAMS, format!("invalid params: {field}: {message}"))
            .with_data(json!({ "field": field }))
    }

    /// `-32603`: the host failed; the message says where, never what data.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(jsonrpc::INTERNAL_ERROR, message)
    }

    /// `-32001`.
    pub fn session_not_found(uri: &str) -> Self {
        Self::new(ahp::SESSION_NOT_FOUND, format!("session not found: {uri}"))
    }

    /// `-32002`.
    pub fn provider_not_found(provider: &str) -> Self {
        Self::new(ahp::PROVIDER_NOT_FOUND, format!("provider not found: {provider}"))
    }

    /// `-32003`.
    pub fn session_already_exists(uri: &str) -> Self {
        Self::new(ahp::SESSION_ALREADY_EXISTS, format!("session already exists: {uri}"))
    }

    /// `-32004`.
    pub fn turn_in_progress(message: impl Into<String>) -> Self {
        Self::new(ahp::TURN_IN_PROGRESS, message)
    }

    /// `-32005` with the required `data.supportedVersions`.
    pub fn unsupported_protocol_version(supported: &[&str]) -> Self {
        Self::new(ahp::UNSUPPORTED_PROTOCOL_VERSION, "no offered protocol version is supported")
            .with_data(json!({ "supportedVersions": supported }))
    }

    /// `-32008`.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ahp::NOT_FOUND, message)
    }

    /// `-32009`, with the grant that would allow the operation when known.
    pub fn permission_denied(message: impl Into<String>, request: Option<ResourceRequestParams>) -> Self {
        let err = Self::new(ahp::PERMISSION_DENIED, message);
        match request {
            Some(request) => err.with_data(json!({ "request": request })),
            None => err.with_data(json!({})),
        }
    }

    /// `-32010`.
    pub fn already_exists(message: impl Into<String>) -> Self {
        Self::new(ahp::ALREADY_EXISTS, message)
    }

    /// `-32011`.
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ahp::CONFLICT, message)
    }

    /// The wire form.
    pub fn to_wire(&self) -> JsonRpcError {
        JsonRpcError { code: self.code, message: self.message.clone(), data: self.data.clone() }
    }
}
