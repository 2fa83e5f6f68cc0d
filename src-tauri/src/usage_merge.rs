//! Hosts' `x-hangar/usage` answers merged for the Usage page: a day's
//! figures for one agent summed over the hosts (costs only in one
//! currency: a sum across currencies would be a made-up figure, so such a
//! day shows no cost), every host's sessions in one list, costliest first,
//! at most [`MAX_SESSIONS`].

use std::collections::BTreeMap;

use hangar_desktop_protocol::chat::CostView;
use hangar_desktop_protocol::usage::{UsageDayView, UsageSessionView};
use serde::Deserialize;

/// The costliest sessions listed at most (as each host lists).
pub const MAX_SESSIONS: usize = 20;

/// One host's answer as it comes.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct WireUsage {
    /// Per day and agent.
    #[serde(default)]
    pub days: Vec<UsageDayView>,
    /// Costliest sessions (`host` and `hostLabel` not on the wire).
    #[serde(default)]
    pub sessions: Vec<UsageSessionView>,
}

/// A host's answer and who it is.
pub struct HostUsage {
    /// Host id.
    pub host: String,
    /// Its name.
    pub label: String,
    /// What it answered.
    pub answer: WireUsage,
}

/// The merged days and sessions.
pub fn merge(answers: Vec<HostUsage>) -> (Vec<UsageDayView>, Vec<UsageSessionView>) {
    let mut days: BTreeMap<(String, String), (UsageDayView, bool)> = BTreeMap::new();
    let mut sessions = Vec::new();
    for HostUsage { host, label, answer } in answers {
        for d in answer.days {
            match days.entry((d.day.clone(), d.agent.clone())) {
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert((d, false));
                }
                std::collections::btree_map::Entry::Occupied(mut o) => {
                    let (sum, mixed) = o.get_mut();
                    sum.input_tokens += d.input_tokens;
                    sum.output_tokens += d.output_tokens;
                    if !*mixed {
                        sum.cost = match (sum.cost.take(), d.cost) {
                            (Some(a), Some(b)) if a.currency == b.currency => {
                                Some(CostView { amount: a.amount + b.amount, currency: a.currency })
                            }
                            (Some(_), Some(_)) => {
                                *mixed = true;
                                None
                            }
                            (a, b) => a.or(b),
                        };
                    }
                }
            }
        }
        sessions.extend(answer.sessions.into_iter().map(|s| UsageSessionView {
            host: host.clone(),
            host_label: label.clone(),
            ..s
        }));
    }
    let amount = |s: &UsageSessionView| s.cost.as_ref().map_or(0.0, |c| c.amount);
    sessions.sort_by(|a, b| amount(b).total_cmp(&amount(a)).then(b.tokens.cmp(&a.tokens)));
    sessions.truncate(MAX_SESSIONS);
    (days.into_values().map(|(d, _)| d).collect(), sessions)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(day: &str, agent: &str, tokens: i64, cost: Option<(f64, &str)>) -> UsageDayView {
        UsageDayView {
            day: day.into(),
            agent: agent.into(),
            input_tokens: tokens,
            output_tokens: tokens / 10,
            cost: cost.map(|(amount, c)| CostView { amount, currency: c.into() }),
        }
    }

    fn session(uri: &str, tokens: i64, cost: Option<f64>) -> UsageSessionView {
        UsageSessionView {
            host: String::new(),
            host_label: String::new(),
            session: uri.into(),
            title: uri.into(),
            agent: "claude".into(),
            tokens,
            cost: cost.map(|amount| CostView { amount, currency: "USD".into() }),
        }
    }

    #[test]
    fn days_sum_per_agent_across_hosts_and_sessions_are_costliest_first() {
        let a = HostUsage {
            host: "a".into(),
            label: "Laptop".into(),
            answer: WireUsage {
                days: vec![day("2026-03-01", "claude", 100, Some((0.5, "USD"))), day("2026-03-01", "codex", 50, None)],
                sessions: vec![session("s:/cheap", 5000, Some(0.1))],
            },
        };
        let b = HostUsage {
            host: "b".into(),
            label: "Server".into(),
            answer: WireUsage {
                days: vec![day("2026-03-01", "claude", 200, Some((0.25, "USD"))), day("2026-03-02", "codex", 10, None)],
                sessions: vec![session("s:/dear", 10, Some(2.0)), session("s:/free", 90000, None)],
            },
        };
        let (days, sessions) = merge(vec![a, b]);
        assert_eq!(
            days,
            vec![
                day("2026-03-01", "claude", 300, Some((0.75, "USD"))),
                day("2026-03-01", "codex", 50, None),
                day("2026-03-02", "codex", 10, None),
            ]
        );
        let order: Vec<(&str, &str)> = sessions.iter().map(|s| (s.session.as_str(), s.host_label.as_str())).collect();
        assert_eq!(order, [("s:/dear", "Server"), ("s:/cheap", "Laptop"), ("s:/free", "Server")]);
    }

    #[test]
    fn costs_in_two_currencies_are_not_summed() {
        let host = |id: &str, currency: &str| HostUsage {
            host: id.into(),
            label: id.into(),
            answer: WireUsage { days: vec![day("2026-03-01", "claude", 1, Some((1.0, currency)))], sessions: vec![] },
        };
        let (days, _) = merge(vec![host("a", "USD"), host("b", "EUR"), host("c", "USD")]);
        assert_eq!(days[0].cost, None);
        assert_eq!(days[0].input_tokens, 3);
    }
}
