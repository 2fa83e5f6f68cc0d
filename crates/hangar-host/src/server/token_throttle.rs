//! Failed tokens, counted per address: after [`MAX_FAILURES`] wrong or
//! missing tokens from one address within [`WINDOW`], every upgrade from it
//! is refused (HTTP 429, `Retry-After`) until that window ends, whatever
//! token it presents, so guessing gains nothing. Only token failures count:
//! a request refused for its `Origin` or `Host` (a web page the user visits)
//! cannot lock the desktop app out of its own host.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failed tokens an address may present within one [`WINDOW`].
pub const MAX_FAILURES: u32 = 10;
/// How long failures are counted, from the first one.
pub const WINDOW: Duration = Duration::from_secs(60);
/// Addresses tracked at most; past this, expired windows are dropped first
/// and then the oldest, so a flood of addresses cannot grow memory.
const MAX_ADDRESSES: usize = 4096;

#[derive(Clone, Copy)]
struct Window {
    start: Instant,
    failures: u32,
}

/// The failures seen per address.
#[derive(Default)]
pub struct TokenThrottle {
    windows: Mutex<HashMap<IpAddr, Window>>,
}

impl TokenThrottle {
    /// How long `peer` must still wait, if it is locked out at `now`.
    pub fn locked_for(&self, peer: IpAddr, now: Instant) -> Option<Duration> {
        let windows = self.windows.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let w = windows.get(&peer)?;
        let ends = w.start + WINDOW;
        (w.failures >= MAX_FAILURES && ends > now).then(|| ends - now)
    }

    /// Count a failed token from `peer` at `now`.
    pub fn failed(&self, peer: IpAddr, now: Instant) {
        let mut windows = self.windows.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if windows.len() >= MAX_ADDRESSES && !windows.contains_key(&peer) {
            windows.retain(|_, w| w.start + WINDOW > now);
            if windows.len() >= MAX_ADDRESSES {
                if let Some(oldest) = windows.iter().min_by_key(|(_, w)| w.start).map(|(ip, _)| *ip) {
                    windows.remove(&oldest);
                }
            }
        }
        let w = windows.entry(peer).or_insert(Window { start: now, failures: 0 });
        if w.start + WINDOW <= now {
            *w = Window { start: now, failures: 0 };
        }
        w.failures += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_locked_after_too_many_failures_until_its_window_ends() {
        let t = TokenThrottle::default();
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let t0 = Instant::now();
        for _ in 0..MAX_FAILURES - 1 {
            t.failed(a, t0);
        }
        assert_eq!(t.locked_for(a, t0), None, "below the limit");
        t.failed(a, t0);
        assert_eq!(t.locked_for(a, t0 + Duration::from_secs(20)), Some(Duration::from_secs(40)));
        assert_eq!(t.locked_for(b, t0), None, "other addresses are not affected");
        assert_eq!(t.locked_for(a, t0 + WINDOW), None, "the window ended");
        t.failed(a, t0 + WINDOW);
        assert_eq!(t.locked_for(a, t0 + WINDOW), None, "a new window counts from zero");
    }

    #[test]
    fn a_flood_of_addresses_stays_bounded() {
        let t = TokenThrottle::default();
        let now = Instant::now();
        for i in 0..(MAX_ADDRESSES as u32 + 100) {
            t.failed(IpAddr::from(i.to_be_bytes()), now);
        }
        assert!(t.windows.lock().unwrap().len() <= MAX_ADDRESSES);
    }
}
