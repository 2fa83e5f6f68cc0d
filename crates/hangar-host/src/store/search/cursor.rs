//! The opaque cursor of `x-hangar/search`: how many results the earlier
//! pages held, and a fingerprint of the search it belongs to (query,
//! sessions, archived), so a cursor handed to another search is refused.

const PREFIX: &str = "hangar-search-";

/// Where the next page starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchCursor {
    /// Results already returned.
    pub offset: u64,
    /// The search's fingerprint ([`SearchCursor::fingerprint`]).
    pub search: u64,
}

impl SearchCursor {
    /// FNV-1a over the parts that define a search.
    pub fn fingerprint(query: &str, sessions: Option<&[String]>, archived: Option<bool>) -> u64 {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for b in bytes.iter().chain(std::iter::once(&0xff)) {
                hash ^= u64::from(*b);
                hash = hash.wrapping_mul(0x0100_0000_01b3);
            }
        };
        eat(query.as_bytes());
        for s in sessions.into_iter().flatten() {
            eat(s.as_bytes());
        }
        eat(match archived {
            None => b"-",
            Some(true) => b"1",
            Some(false) => b"0",
        });
        hash
    }

    /// The wire form.
    pub fn encode(&self) -> String {
        format!("{PREFIX}{:x}-{:016x}", self.offset, self.search)
    }

    /// Parse the wire form; `None` for anything this host did not hand out.
    pub fn decode(raw: &str) -> Option<Self> {
        let (offset, search) = raw.strip_prefix(PREFIX)?.split_once('-')?;
        if search.len() != 16 {
            return None;
        }
        Some(Self { offset: u64::from_str_radix(offset, 16).ok()?, search: u64::from_str_radix(search, 16).ok()? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_strangers() {
        let c = SearchCursor { offset: 40, search: SearchCursor::fingerprint("quokka", None, Some(false)) };
        assert_eq!(SearchCursor::decode(&c.encode()), Some(c));
        for bad in
            ["", "40", "hangar-search-", "hangar-search-28", "hangar-search-zz-0000000000000000", "hangar-search-1-12"]
        {
            assert_eq!(SearchCursor::decode(bad), None, "{bad:?}");
        }
        assert_ne!(c.search, SearchCursor::fingerprint("quokka", None, None));
    }
}
