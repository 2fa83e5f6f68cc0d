//! Signing a session's agent in, when its start was refused for want of it
//! (the host's `authRequired` creation error): the ways the agent offers,
//! and `agent.signIn`'s arguments and answer.

use ahp_types::state::ErrorInfo;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The creation error's `_meta` key the host lists the ways under.
const META_KEY: &str = "hangar.signIn";

/// The agent wants the person to sign in: the ways it offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SignInView {
    /// The agent's id on its host.
    pub provider: String,
    /// The ways, in the agent's order.
    pub methods: Vec<SignInMethodView>,
}

impl SignInView {
    /// The ways in a creation error, when it is `authRequired`.
    pub fn from_error(error: &ErrorInfo) -> Option<Self> {
        if error.error_type != "authRequired" {
            return None;
        }
        serde_json::from_value(error.meta.as_ref()?.get(META_KEY)?.clone()).ok()
    }
}

/// One way to sign in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SignInMethodView {
    /// The agent's method id (`agent.signIn`'s `method`).
    pub id: String,
    /// Its name, as the agent gives it.
    pub name: String,
    /// The agent's description.
    #[serde(default)]
    pub description: Option<String>,
    /// How it is carried out.
    pub kind: SignInKind,
    /// For a key: the environment variable the agent reads it from.
    #[serde(default)]
    pub var: Option<String>,
    /// For a terminal login: the command line run on the host.
    #[serde(default)]
    pub title: Option<String>,
}

/// How a way to sign in is carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum SignInKind {
    /// The person enters a key; the host keeps it in its OS keyring.
    ApiKey,
    /// The agent's login command runs in a terminal on the host.
    Terminal,
    /// The agent signs in itself (a browser login on the host, say).
    Agent,
}

/// `agent.signIn`: sign the session's agent in with one of its ways.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AgentSignInArgs {
    /// Host id.
    pub host: String,
    /// The session whose agent signs in.
    pub session: String,
    /// The method's id.
    pub method: String,
    /// The key, for an `apiKey` way.
    #[serde(default)]
    pub key: Option<String>,
}

/// `agent.signIn`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SignedIn {
    /// A key was kept as this variable.
    #[serde(default)]
    pub saved: Option<String>,
    /// The login runs in this terminal channel (exit 0: signed in).
    #[serde(default)]
    pub terminal: Option<String>,
    /// The agent accepted the sign-in.
    #[serde(default)]
    pub signed_in: bool,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_ways_are_read_from_an_auth_required_error_only() {
        let meta = json!({ META_KEY: { "provider": "codex", "methods": [
            { "id": "codex-api-key", "name": "Use CODEX_API_KEY", "kind": "apiKey", "var": "CODEX_API_KEY" },
            { "id": "login", "name": "Log in", "kind": "terminal", "title": "codex login" },
            { "id": "chatgpt", "name": "Login with ChatGPT", "description": "A paid plan", "kind": "agent" }
        ]}});
        let mut error = ErrorInfo {
            error_type: "authRequired".into(),
            message: "Codex needs you to sign in".into(),
            stack: None,
            meta: meta.as_object().cloned(),
        };
        let view = SignInView::from_error(&error).unwrap();
        assert_eq!(view.provider, "codex");
        assert_eq!(view.methods[0].kind, SignInKind::ApiKey);
        assert_eq!(view.methods[0].var.as_deref(), Some("CODEX_API_KEY"));
        assert_eq!(view.methods[1].title.as_deref(), Some("codex login"));
        assert_eq!(view.methods[2].description.as_deref(), Some("A paid plan"));
        error.error_type = "agentStartFailed".into();
        assert_eq!(SignInView::from_error(&error), None);
    }
}
