//! The `rules.*` commands: a host's approval rules (`x-hangar/rules`,
//! `x-hangar/ruleSave`, `x-hangar/ruleDelete`; docs/host.md "Approval
//! rules"). Each host has its own rules, so each command asks the one host
//! it names. A host that is not connected says why in words; a rule the
//! host refuses (`-32602`) comes back as the host's reason alone.

use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use super::Core;
use crate::error::CoreError;
use hangar_desktop_protocol::rules::{RuleDeleteArgs, RuleSaveArgs, RuleSaved, RulesListArgs, RulesView};

/// Who makes a rule from this app, for the Rules page's "by": the person's
/// login name here (the host would say the app's client id).
fn creator() -> String {
    match std::env::var("USER").or_else(|_| std::env::var("USERNAME")) {
        Ok(user) if !user.is_empty() => format!("{user} (Hangar app)"),
        _ => "Hangar app".to_owned(),
    }
}

impl Core {
    /// `rules.list`: the host's rules and its agents' own (with `folder`,
    /// that folder's project rules too).
    pub async fn rules_list(&self, args: RulesListArgs) -> Result<RulesView, CoreError> {
        let params = match args.folder {
            Some(folder) => json!({ "folder": folder }),
            None => json!({}),
        };
        self.ask_rules(&args.host, "x-hangar/rules", params).await
    }

    /// `rules.save`: add (no `id`) or change a rule on the host, made by
    /// [`creator`].
    pub async fn rules_save(&self, args: RuleSaveArgs) -> Result<RuleSaved, CoreError> {
        let mut rule = serde_json::to_value(&args.rule).map_err(|e| CoreError::Unexpected(e.to_string()))?;
        rule["createdBy"] = json!(creator());
        self.ask_rules(&args.host, "x-hangar/ruleSave", rule).await
    }

    /// `rules.delete`: delete a rule on the host.
    pub async fn rules_delete(&self, args: RuleDeleteArgs) -> Result<(), CoreError> {
        let _: Value = self.ask_rules(&args.host, "x-hangar/ruleDelete", json!({ "id": args.id })).await?;
        Ok(())
    }

    /// Send one rules request to `host`, its refusals in words.
    async fn ask_rules<R: DeserializeOwned>(&self, host: &str, method: &str, params: Value) -> Result<R, CoreError> {
        self.ask_named_host(host, method, params, "approval rules").await
    }
}
