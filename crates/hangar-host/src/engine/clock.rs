//! Timestamps and identifiers.

use rand::RngCore;

/// Now, as the ISO 8601 / RFC 3339 string the protocol uses, always with
/// three fraction digits (`2026-11-22T04:10:00.000Z`).
pub fn now() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// An RFC 3339 timestamp as an instant, for ordering (strings with other
/// offsets or fraction lengths do not sort as text). Unparsable ones sort
/// first.
pub fn instant(timestamp: &str) -> jiff::Timestamp {
    timestamp.parse().unwrap_or(jiff::Timestamp::MIN)
}

/// Milliseconds from an RFC 3339 timestamp until now (0 if unparsable).
pub fn millis_since(started_at: &str) -> i64 {
    match started_at.parse::<jiff::Timestamp>() {
        Ok(start) => (jiff::Timestamp::now().as_millisecond() - start.as_millisecond()).max(0),
        Err(_) => 0,
    }
}

/// A random 128-bit identifier in hex.
pub fn new_id() -> String {
    let mut bytes = [0u8; 16];
    rand::thread_rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_have_a_fixed_width_and_order_as_instants() {
        let t = now();
        assert_eq!(t.len(), "2026-11-22T04:10:00.000Z".len(), "{t}");
        assert!(instant("2026-01-01T00:00:00Z") < instant("2026-01-01T00:00:00.005Z"));
        assert!(instant("2026-01-01T01:00:00+02:00") < instant("2026-01-01T00:00:00Z"));
        assert_eq!(instant("garbage"), jiff::Timestamp::MIN);
    }
}
