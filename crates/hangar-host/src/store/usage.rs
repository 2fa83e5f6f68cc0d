//! `x-hangar/usage`'s reader: tokens and cost per day and agent, and the
//! costliest sessions, aggregated from what the store already keeps (each
//! completed turn's `usage` in `turns`, its session through the chat's
//! checkpoint, the session's agent and title in `sessions`). No table of
//! its own: nothing to migrate, nothing kept twice.
//!
//! A turn's day is the UTC day it started. Its tokens are the input and
//! output tokens the agent answered the prompt with. Its cost is what the
//! session's cost (ACP `usage_update.cost`, the session's total so far)
//! grew by since the chat's previous turn that reported one. Turns and
//! sessions whose agent reported nothing add nothing.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Mutex;

use rusqlite::Connection;
use serde::Serialize;

use super::search::open_reader;
use super::StoreError;

/// The costliest sessions listed at most.
pub const MAX_SESSIONS: usize = 20;

/// What to aggregate: days from `from` through `to` (`YYYY-MM-DD`, both
/// included, either open).
#[derive(Debug, Clone, Default)]
pub struct UsageRequest {
    /// The first day.
    pub from: Option<String>,
    /// The last day.
    pub to: Option<String>,
}

/// An amount of money.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cost {
    /// How much.
    pub amount: f64,
    /// ISO 4217 code, as the agent sent it.
    pub currency: String,
}

/// One agent's use on one day.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DayUsage {
    /// `YYYY-MM-DD` (UTC).
    pub day: String,
    /// The agent (the session's provider).
    pub agent: String,
    /// Input tokens.
    pub input_tokens: i64,
    /// Output tokens.
    pub output_tokens: i64,
    /// Cost, when reported (and all in one currency).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

/// One session's use.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionUsage {
    /// The session URI.
    pub session: String,
    /// Its title.
    pub title: String,
    /// Its agent.
    pub agent: String,
    /// Input plus output tokens.
    pub tokens: i64,
    /// Cost, when reported (and all in one currency).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

/// The answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct UsageReport {
    /// Per day and agent, by day then agent.
    pub days: Vec<DayUsage>,
    /// Costliest first (then most tokens), at most [`MAX_SESSIONS`].
    pub sessions: Vec<SessionUsage>,
}

/// A read connection for usage.
pub struct UsageReader {
    conn: Mutex<Connection>,
}

impl UsageReader {
    /// Open a reader on the database file.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Ok(Self { conn: Mutex::new(open_reader(path)?) })
    }

    /// Aggregate.
    pub fn usage(&self, request: &UsageRequest) -> Result<UsageReport, StoreError> {
        let conn = crate::locks::lock(&self.conn);
        usage(&conn, request)
    }
}

/// One turn's row.
struct TurnRow {
    chat: String,
    session: String,
    agent: String,
    title: String,
    day: String,
    input: Option<i64>,
    output: Option<i64>,
    cost: Option<Cost>,
}

/// Sums of one group, the cost per currency.
#[derive(Default)]
struct Sums {
    input: i64,
    output: i64,
    costs: BTreeMap<String, f64>,
    reported: bool,
}

impl Sums {
    fn add(&mut self, input: Option<i64>, output: Option<i64>, cost: Option<&Cost>) {
        self.input += input.unwrap_or(0);
        self.output += output.unwrap_or(0);
        if let Some(c) = cost {
            *self.costs.entry(c.currency.clone()).or_default() += c.amount;
        }
        self.reported |= input.is_some() || output.is_some() || cost.is_some();
    }

    /// The cost when all of it is in one currency.
    fn cost(&self) -> Option<Cost> {
        let mut costs = self.costs.iter();
        let (currency, amount) = costs.next()?;
        costs.next().is_none().then(|| Cost { amount: *amount, currency: currency.clone() })
    }
}

/// Aggregate on `conn`.
pub fn usage(conn: &Connection, request: &UsageRequest) -> Result<UsageReport, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT t.chat, c.parent, COALESCE(json_extract(s.summary, '$.provider'), ''),
                COALESCE(json_extract(s.summary, '$.title'), ''),
                substr(COALESCE(json_extract(t.turn, '$.startedAt'), s.modified_at), 1, 10),
                json_extract(t.turn, '$.usage.inputTokens'), json_extract(t.turn, '$.usage.outputTokens'),
                json_extract(t.turn, '$.usage._meta.\"hangar/usage\".cost.amount'),
                json_extract(t.turn, '$.usage._meta.\"hangar/usage\".cost.currency')
         FROM turns t
         JOIN checkpoints c ON c.channel = t.chat
         JOIN sessions s ON s.uri = c.parent
         WHERE json_extract(t.turn, '$.usage') IS NOT NULL
         ORDER BY t.chat, t.ord",
    )?;
    let rows = stmt.query_map([], |r| {
        let amount: Option<f64> = r.get(7)?;
        let currency: Option<String> = r.get(8)?;
        Ok(TurnRow {
            chat: r.get(0)?,
            session: r.get(1)?,
            agent: r.get(2)?,
            title: r.get(3)?,
            day: r.get(4)?,
            input: r.get(5)?,
            output: r.get(6)?,
            cost: amount.zip(currency).map(|(amount, currency)| Cost { amount, currency }),
        })
    })?;
    let mut days: BTreeMap<(String, String), Sums> = BTreeMap::new();
    let mut sessions: HashMap<String, (String, String, Sums)> = HashMap::new();
    // The session's cost so far, per chat, as of its previous turn.
    let mut so_far: HashMap<String, Cost> = HashMap::new();
    for row in rows {
        let row = row?;
        let spent = row.cost.as_ref().map(|now| {
            let before = so_far
                .get(&row.chat)
                .filter(|b| b.currency == now.currency && b.amount <= now.amount)
                .map_or(0.0, |b| b.amount);
            Cost { amount: now.amount - before, currency: now.currency.clone() }
        });
        if let Some(now) = row.cost {
            so_far.insert(row.chat.clone(), now);
        }
        let in_range = request.from.as_deref().is_none_or(|f| row.day.as_str() >= f)
            && request.to.as_deref().is_none_or(|t| row.day.as_str() <= t);
        if !in_range {
            continue;
        }
        days.entry((row.day, row.agent.clone())).or_default().add(row.input, row.output, spent.as_ref());
        sessions.entry(row.session).or_insert_with(|| (row.title, row.agent, Sums::default())).2.add(
            row.input,
            row.output,
            spent.as_ref(),
        );
    }
    let days = days
        .into_iter()
        .filter(|(_, s)| s.reported)
        .map(|((day, agent), s)| DayUsage {
            day,
            agent,
            input_tokens: s.input,
            output_tokens: s.output,
            cost: s.cost(),
        })
        .collect();
    let mut sessions: Vec<SessionUsage> = sessions
        .into_iter()
        .filter(|(_, (_, _, s))| s.reported)
        .map(|(session, (title, agent, s))| SessionUsage {
            session,
            title,
            agent,
            tokens: s.input + s.output,
            cost: s.cost(),
        })
        .collect();
    sessions.sort_by(|a, b| {
        let amount = |s: &SessionUsage| s.cost.as_ref().map_or(0.0, |c| c.amount);
        amount(b).total_cmp(&amount(a)).then(b.tokens.cmp(&a.tokens)).then(a.session.cmp(&b.session))
    });
    sessions.truncate(MAX_SESSIONS);
    Ok(UsageReport { days, sessions })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use rusqlite::params;
    use serde_json::json;

    use super::*;

    fn store() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        super::super::schema::prepare(&conn).unwrap();
        conn
    }

    fn session(conn: &Connection, uri: &str, chat: &str, agent: &str, title: &str) {
        let summary = json!({ "provider": agent, "title": title }).to_string();
        conn.execute("INSERT INTO sessions VALUES (?1, '2026-01-01', '2026-01-01', ?2)", params![uri, summary])
            .unwrap();
        conn.execute("INSERT INTO checkpoints VALUES (?1, 'chat', ?2, 1, '{}')", params![chat, uri]).unwrap();
    }

    fn turn(conn: &Connection, chat: &str, ord: i64, day: &str, usage: serde_json::Value) {
        let turn = json!({ "id": format!("t{ord}"), "startedAt": format!("{day}T10:00:00Z"), "usage": usage });
        conn.execute(
            "INSERT INTO turns VALUES (?1, ?2, ?3, ?4)",
            params![chat, ord, format!("t{ord}"), turn.to_string()],
        )
        .unwrap();
    }

    fn usage_of(input: i64, output: i64, cost: Option<f64>) -> serde_json::Value {
        let mut report = json!({ "inputTokens": input, "outputTokens": output });
        if let Some(amount) = cost {
            report["cost"] = json!({ "amount": amount, "currency": "USD" });
        }
        json!({ "inputTokens": input, "outputTokens": output, "_meta": { "hangar/usage": report } })
    }

    #[test]
    fn days_split_by_agent_sessions_costliest_first_costs_are_increases() {
        let conn = store();
        session(&conn, "s:/a", "c:/a", "claude", "Alpha");
        session(&conn, "s:/b", "c:/b", "codex", "Beta");
        session(&conn, "s:/n", "c:/n", "gemini", "Nothing reported");
        // Claude's cost is the session's total so far: 0.25, then 0.75.
        turn(&conn, "c:/a", 1, "2026-03-01", usage_of(100, 10, Some(0.25)));
        turn(&conn, "c:/a", 2, "2026-03-02", usage_of(200, 20, Some(0.75)));
        turn(&conn, "c:/b", 1, "2026-03-02", usage_of(1000, 100, None));
        conn.execute(
            "INSERT INTO turns VALUES ('c:/n', 1, 't1', '{\"id\":\"t1\",\"startedAt\":\"2026-03-02T00:00:00Z\"}')",
            [],
        )
        .unwrap();

        let all = usage(&conn, &UsageRequest::default()).unwrap();
        assert_eq!(
            serde_json::to_value(&all).unwrap(),
            json!({
                "days": [
                    { "day": "2026-03-01", "agent": "claude", "inputTokens": 100, "outputTokens": 10,
                      "cost": { "amount": 0.25, "currency": "USD" } },
                    { "day": "2026-03-02", "agent": "claude", "inputTokens": 200, "outputTokens": 20,
                      "cost": { "amount": 0.5, "currency": "USD" } },
                    { "day": "2026-03-02", "agent": "codex", "inputTokens": 1000, "outputTokens": 100 },
                ],
                "sessions": [
                    { "session": "s:/a", "title": "Alpha", "agent": "claude", "tokens": 330,
                      "cost": { "amount": 0.75, "currency": "USD" } },
                    { "session": "s:/b", "title": "Beta", "agent": "codex", "tokens": 1100 },
                ],
            })
        );

        let second_day =
            usage(&conn, &UsageRequest { from: Some("2026-03-02".into()), to: Some("2026-03-02".into()) }).unwrap();
        assert_eq!(second_day.days.len(), 2);
        assert_eq!(second_day.sessions[0].cost, Some(Cost { amount: 0.5, currency: "USD".into() }));
        let none = usage(&conn, &UsageRequest { from: Some("2026-04-01".into()), to: None }).unwrap();
        assert_eq!(none, UsageReport::default());
    }
}
