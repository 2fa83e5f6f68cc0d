//! Timestamps and identifiers.

use rand::RngCore;

/// Now, as the ISO 8601 / RFC 3339 string the protocol uses (milliseconds).
pub fn now() -> String {
    let ts = jiff::Timestamp::now();
    ts.round(jiff::Unit::Millisecond).unwrap_or(ts).to_string()
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
