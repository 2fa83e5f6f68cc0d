//! Signing an agent in: the ways an ACP agent's `authMethods` offer, in the
//! three forms Hangar can carry out, and what a start that failed for want
//! of them tells clients.
//!
//! - [`SignInKind::ApiKey`]: the agent reads a key from its environment.
//!   Codex says so with `type: "env_var"` and `vars`; Gemini with
//!   `_meta["api-key"]`; Qwen only in words ("Requires setting the
//!   `OPENAI_API_KEY` environment variable"). The key is kept in the OS
//!   keyring (`agents/keys.rs`) and set in the agent's environment at start.
//! - [`SignInKind::Terminal`]: the agent's own login command, run on the
//!   host as a terminal channel the person watches: ACP `type: "terminal"`
//!   (the agent's command plus `args` and `env`), Qwen's older
//!   `_meta.type: "terminal"`, and Copilot's `_meta["terminal-auth"]`
//!   (`command`, `args`).
//! - [`SignInKind::Agent`]: the agent signs in itself when sent ACP
//!   `authenticate {methodId}` (a browser login on the host, say).
//!
//! Methods meant for programs, not people (`gateway`: a model gateway's
//! URL and headers), are left out. The commands run come only from the
//! agent's own answer, kept by the host ([`AuthMethods`]); a client names
//! a method by id and never sends a command.
//!
//! A start the agent refuses with ACP `auth_required` (`-32000`) fails
//! with `errorType` [`AUTH_REQUIRED_ERROR`] and, in the error's `_meta`
//! under [`META_KEY`], the agent's id and the methods as [`SignInMethod`]s.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::locks::lock;

/// ACP's `auth_required` error code.
pub const ACP_AUTH_REQUIRED: i64 = -32000;
/// The `errorType` of a start that needs the person to sign in.
pub const AUTH_REQUIRED_ERROR: &str = "authRequired";
/// Key in the creation error's `_meta`: `{ provider, methods }`.
pub const META_KEY: &str = "hangar.signIn";

/// One way to sign an agent in, as clients are shown it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SignInMethod {
    /// The agent's method id (what `x-hangar/agentSignIn` names).
    pub id: String,
    /// Its name, as the agent gives it.
    pub name: String,
    /// The agent's description, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// How Hangar carries it out.
    #[serde(flatten)]
    pub kind: SignInKind,
}

/// How a sign-in method is carried out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SignInKind {
    /// A key the person enters, set in the agent's environment as `var`.
    ApiKey {
        /// The environment variable.
        var: String,
    },
    /// A login command run in a terminal on the host.
    Terminal {
        /// Program and arguments.
        #[serde(skip)]
        command: Vec<String>,
        /// Variables set for it.
        #[serde(skip)]
        env: Vec<(String, String)>,
        /// The command line as shown.
        title: String,
    },
    /// ACP `authenticate {methodId}`: the agent signs in itself.
    Agent,
}

/// The methods an agent offers, from its `initialize` answer; `command` is
/// the agent's own command line (a terminal method runs it with more
/// arguments).
pub fn methods_from_initialize(info: &Value, command: &[String]) -> Vec<SignInMethod> {
    let Some(list) = info.get("authMethods").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter().filter_map(|m| method(m, command)).collect()
}

fn method(m: &Value, command: &[String]) -> Option<SignInMethod> {
    let id = m.get("id")?.as_str()?.to_owned();
    let name = m.get("name").and_then(Value::as_str).unwrap_or(&id).to_owned();
    let description = m.get("description").and_then(Value::as_str).map(str::to_owned);
    let meta = m.get("_meta").and_then(Value::as_object);
    if meta.is_some_and(|meta| meta.contains_key("gateway")) {
        return None;
    }
    let kind = match m.get("type").and_then(Value::as_str) {
        Some("env_var") => SignInKind::ApiKey { var: first_var(m)? },
        Some("terminal") => terminal(command, strings(m.get("args")), env_pairs(m.get("env"))),
        _ => match meta {
            Some(meta) if meta.get("type").and_then(Value::as_str) == Some("terminal") => {
                terminal(command, strings(meta.get("args")), Vec::new())
            }
            Some(meta) if meta.contains_key("terminal-auth") => {
                let auth = &meta["terminal-auth"];
                let program = auth.get("command").and_then(Value::as_str)?.to_owned();
                let mut line = vec![program];
                line.extend(strings(auth.get("args")));
                terminal(&line, Vec::new(), Vec::new())
            }
            Some(meta) if meta.contains_key("api-key") => SignInKind::ApiKey { var: api_key_var(meta)? },
            _ => match description.as_deref().and_then(var_in_words) {
                Some(var) => SignInKind::ApiKey { var },
                None => SignInKind::Agent,
            },
        },
    };
    Some(SignInMethod { id, name, description, kind })
}

fn terminal(command: &[String], args: Vec<String>, env: Vec<(String, String)>) -> SignInKind {
    let mut command = command.to_vec();
    command.extend(args);
    let title = command.join(" ");
    SignInKind::Terminal { command, env, title }
}

fn first_var(m: &Value) -> Option<String> {
    let var = m.get("vars")?.as_array()?.first()?.get("name")?.as_str()?;
    valid_var(var).then(|| var.to_owned())
}

/// Gemini's `_meta["api-key"] {provider}`: the variable its CLI reads
/// (the provider's row in [`crate::agents::known::KNOWN`]).
fn api_key_var(meta: &Map<String, Value>) -> Option<String> {
    crate::agents::known::api_key_var(meta.get("api-key")?.get("provider")?.as_str()?).map(str::to_owned)
}

/// "Requires setting the `OPENAI_API_KEY` environment variable" → the
/// variable, when it is a key's.
fn var_in_words(text: &str) -> Option<String> {
    if !text.contains("environment variable") {
        return None;
    }
    text.split('`').skip(1).step_by(2).find(|w| valid_var(w) && w.ends_with("_KEY")).map(str::to_owned)
}

/// An environment variable name a key may be set as: upper-case letters,
/// digits and `_`, not starting with a digit.
pub fn valid_var(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

fn env_pairs(v: Option<&Value>) -> Vec<(String, String)> {
    v.and_then(Value::as_object)
        .map(|o| o.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned()))).collect())
        .unwrap_or_default()
}

/// The creation error's `_meta` for a start that needs signing in.
pub fn error_meta(provider: &str, methods: &[SignInMethod]) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(META_KEY.to_owned(), json!({ "provider": provider, "methods": methods }));
    meta
}

/// What the host last heard each agent offer, by agent id: the only source
/// of the commands and variables a sign-in uses.
#[derive(Debug, Clone, Default)]
pub struct AuthMethods(Arc<Mutex<HashMap<String, Vec<SignInMethod>>>>);

impl AuthMethods {
    /// Keep `methods` as what `provider` offers now.
    pub fn offered(&self, provider: &str, methods: Vec<SignInMethod>) {
        lock(&self.0).insert(provider.to_owned(), methods);
    }

    /// Every method `provider` offers.
    pub fn offered_by(&self, provider: &str) -> Vec<SignInMethod> {
        lock(&self.0).get(provider).cloned().unwrap_or_default()
    }

    /// `provider`'s method `id`, if it offered one.
    pub fn get(&self, provider: &str, id: &str) -> Option<SignInMethod> {
        lock(&self.0).get(provider)?.iter().find(|m| m.id == id).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn methods(auth: Value) -> Vec<SignInMethod> {
        methods_from_initialize(&json!({ "authMethods": auth }), &["/bin/agent".to_owned(), "--acp".to_owned()])
    }

    #[test]
    fn codex_offers_two_keys_and_a_login_it_runs_itself() {
        // As codex-acp answers (fixtures/acp-transcripts/codex.cancel.jsonl).
        let m = methods(json!([
            {"id": "chatgpt", "name": "Login with ChatGPT", "description": "Use your ChatGPT login"},
            {"type": "env_var", "id": "codex-api-key", "name": "Use CODEX_API_KEY", "vars": [{"name": "CODEX_API_KEY"}]},
            {"type": "env_var", "id": "openai-api-key", "name": "Use OPENAI_API_KEY", "vars": [{"name": "OPENAI_API_KEY"}]}
        ]));
        assert_eq!(m[0].kind, SignInKind::Agent);
        assert_eq!(m[1].kind, SignInKind::ApiKey { var: "CODEX_API_KEY".into() });
        assert_eq!(m[2].kind, SignInKind::ApiKey { var: "OPENAI_API_KEY".into() });
    }

    #[test]
    fn terminal_logins_in_each_agents_form() {
        let m = methods(json!([
            {"type": "terminal", "id": "tui", "name": "Log in", "args": ["login"], "env": {"MODE": "tui"}},
            {"id": "openai", "name": "Use OpenAI API key", "_meta": {"type": "terminal", "args": ["--auth-type=openai"]}},
            {"id": "copilot-login", "name": "Log in with Copilot CLI",
             "_meta": {"terminal-auth": {"command": "/opt/copilot", "args": ["login"], "label": "Copilot Login"}}}
        ]));
        let SignInKind::Terminal { command, env, title } = &m[0].kind else { panic!("{m:?}") };
        assert_eq!(command, &["/bin/agent", "--acp", "login"]);
        assert_eq!(env, &[("MODE".to_owned(), "tui".to_owned())]);
        assert_eq!(title, "/bin/agent --acp login");
        let SignInKind::Terminal { command, .. } = &m[1].kind else { panic!("{m:?}") };
        assert_eq!(command, &["/bin/agent", "--acp", "--auth-type=openai"]);
        let SignInKind::Terminal { command, .. } = &m[2].kind else { panic!("{m:?}") };
        assert_eq!(command, &["/opt/copilot", "login"]);
    }

    #[test]
    fn gemini_key_and_words_naming_a_key_become_key_fields_and_gateways_are_left_out() {
        let m = methods(json!([
            {"id": "gemini-api-key", "name": "Gemini API key", "_meta": {"api-key": {"provider": "google"}}},
            {"id": "gateway", "name": "AI API Gateway", "_meta": {"gateway": {"protocol": "google"}}},
            {"id": "k", "name": "Key", "description": "Requires setting the `OPENAI_API_KEY` environment variable"},
            {"id": "opencode-login", "name": "Login with opencode", "description": "Run `opencode auth login` in the terminal"}
        ]));
        assert_eq!(m.len(), 3);
        assert_eq!(m[0].kind, SignInKind::ApiKey { var: "GEMINI_API_KEY".into() });
        assert_eq!(m[1].kind, SignInKind::ApiKey { var: "OPENAI_API_KEY".into() });
        assert_eq!(m[2].kind, SignInKind::Agent);
    }

    #[test]
    fn a_variable_that_is_not_a_plain_name_is_refused() {
        let m = methods(json!([{"type": "env_var", "id": "x", "name": "x", "vars": [{"name": "LD_PRELOAD=/tmp/x"}]}]));
        assert!(m.is_empty());
        assert!(valid_var("CODEX_API_KEY"));
        assert!(!valid_var("1KEY") && !valid_var("key") && !valid_var(""));
    }

    #[test]
    fn clients_see_the_kind_and_never_a_command() {
        let m = methods(json!([{"type": "terminal", "id": "tui", "name": "Log in", "args": ["login"]}]));
        let shown = serde_json::to_value(&m[0]).unwrap();
        assert_eq!(
            shown,
            json!({"id": "tui", "name": "Log in", "kind": "terminal", "title": "/bin/agent --acp login"})
        );
    }
}
