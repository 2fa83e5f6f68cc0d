//! Merging several hosts' `x-hangar/search` answers into the one list the
//! search palette shows: every item tagged with its host, best score first,
//! newest first among equals, and each host's `nextCursor` kept for the
//! next page. Pure (no I/O), so the merge is unit-tested and benchmarked
//! (`examples/bench-search-merge.rs`) on its own.
//!
//! Scores are comparable across hosts only roughly: each host's bm25 is
//! computed over its own index. A host's own order is kept among its items
//! (a stable sort), so the merge never reorders what one host ranked.

use std::collections::BTreeMap;

use serde::Deserialize;

use hangar_desktop_protocol::search::SearchHit;

/// One item of a host's `x-hangar/search` answer, as the host sends it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireItem {
    /// Session URI.
    pub session: String,
    /// Chat URI.
    pub chat: String,
    /// The turn that matched (`null` for a title).
    pub turn_id: Option<String>,
    /// The session's title.
    pub title: String,
    /// The match in context, marked with `«` and `»`.
    pub snippet: String,
    /// ISO-8601.
    pub at: String,
    /// Higher is better.
    pub score: f64,
}

/// A host's whole `x-hangar/search` answer.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireAnswer {
    /// Best first.
    pub items: Vec<WireItem>,
    /// Present when the host has more.
    pub next_cursor: Option<String>,
}

/// One host's answer with the host it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct HostAnswer {
    /// Host id.
    pub host: String,
    /// Host label.
    pub label: String,
    /// What it answered.
    pub answer: WireAnswer,
}

/// The merged list and the cursors of the hosts that have more.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    /// Best first.
    pub items: Vec<SearchHit>,
    /// Host id → its next cursor.
    pub cursors: BTreeMap<String, String>,
}

/// Merge `answers` (in host order): by score, highest first; then by time,
/// newest first (an `at` that does not parse counts as oldest); then host
/// order and each host's own order.
pub fn merge(answers: Vec<HostAnswer>) -> Merged {
    let mut cursors = BTreeMap::new();
    let mut keyed: Vec<(f64, i128, SearchHit)> = Vec::new();
    for HostAnswer { host, label, answer } in answers {
        if let Some(c) = answer.next_cursor {
            cursors.insert(host.clone(), c);
        }
        for item in answer.items {
            let at = item.at.parse::<jiff::Timestamp>().map(jiff::Timestamp::as_nanosecond).unwrap_or(i128::MIN);
            keyed.push((item.score, at, hit(&host, &label, item)));
        }
    }
    keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
    Merged { items: keyed.into_iter().map(|(_, _, h)| h).collect(), cursors }
}

fn hit(host: &str, label: &str, item: WireItem) -> SearchHit {
    SearchHit {
        host: host.to_owned(),
        host_label: label.to_owned(),
        session: item.session,
        chat: item.chat,
        turn_id: item.turn_id,
        title: item.title,
        snippet: item.snippet,
        at: item.at,
        score: item.score,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(session: &str, score: f64, at: &str) -> WireItem {
        WireItem {
            session: session.to_owned(),
            chat: format!("{session}/chat"),
            turn_id: Some("t".to_owned()),
            title: session.to_owned(),
            snippet: "a «quokka»".to_owned(),
            at: at.to_owned(),
            score,
        }
    }

    fn answer(host: &str, items: Vec<WireItem>, next: Option<&str>) -> HostAnswer {
        HostAnswer {
            host: host.to_owned(),
            label: host.to_uppercase(),
            answer: WireAnswer { items, next_cursor: next.map(str::to_owned) },
        }
    }

    fn order(m: &Merged) -> Vec<String> {
        m.items.iter().map(|h| format!("{}:{}", h.host, h.session)).collect()
    }

    #[test]
    fn best_score_first_across_hosts() {
        let m = merge(vec![
            answer("a", vec![item("a1", 9.0, "2026-01-01T00:00:00Z"), item("a2", 1.0, "2026-01-01T00:00:00Z")], None),
            answer("b", vec![item("b1", 5.0, "2026-01-01T00:00:00Z")], None),
        ]);
        assert_eq!(order(&m), ["a:a1", "b:b1", "a:a2"]);
        assert_eq!(m.items[1].host_label, "B", "each item carries its host's label");
    }

    #[test]
    fn newest_first_among_equal_scores_comparing_instants_not_strings() {
        // As strings "…00.5Z" sorts after "…00.123Z" but also "+02:00" would
        // mislead; compared as instants, b1 (10:00Z) is newer than a1
        // (11:00+02:00 = 09:00Z).
        let m = merge(vec![
            answer("a", vec![item("a1", 2.0, "2026-03-01T11:00:00+02:00")], None),
            answer("b", vec![item("b1", 2.0, "2026-03-01T10:00:00Z")], None),
            answer("c", vec![item("c1", 2.0, "not a time")], None),
        ]);
        assert_eq!(order(&m), ["b:b1", "a:a1", "c:c1"]);
    }

    #[test]
    fn a_hosts_own_order_is_kept_on_ties_and_cursors_are_per_host() {
        let at = "2026-01-01T00:00:00Z";
        let m = merge(vec![
            answer("a", vec![item("a1", 3.0, at), item("a2", 3.0, at)], Some("ca")),
            answer("b", vec![item("b1", 3.0, at)], None),
            answer("c", vec![], Some("cc")),
        ]);
        assert_eq!(order(&m), ["a:a1", "a:a2", "b:b1"]);
        assert_eq!(
            m.cursors.into_iter().collect::<Vec<_>>(),
            [("a".to_owned(), "ca".to_owned()), ("c".to_owned(), "cc".to_owned())]
        );
    }

    #[test]
    fn negative_scores_as_bm25_gives_them_sort_highest_first() {
        let at = "2026-01-01T00:00:00Z";
        let m = merge(vec![
            answer("a", vec![item("low", -7.5, at)], None),
            answer("b", vec![item("high", -0.2, at)], None),
        ]);
        assert_eq!(order(&m), ["b:high", "a:low"]);
    }
}
