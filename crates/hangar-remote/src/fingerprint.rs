//! A certificate's SHA-256 fingerprint: what `hangar serve --tls-*` prints,
//! what `remote add` pins, and what each later connection must present.
//! Written as `openssl x509 -fingerprint -sha256` does (`AB:CD:…`, 32
//! uppercase hex pairs); read leniently (any case, colons optional, an
//! optional `SHA256:` / `sha256=` prefix).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};

/// SHA-256 of a DER certificate.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint([u8; 32]);

/// Text that is not a SHA-256 fingerprint.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not a SHA-256 fingerprint (64 hex digits, colons allowed)")]
pub struct BadFingerprint(pub String);

impl Fingerprint {
    /// The fingerprint of a DER-encoded certificate.
    pub fn of_der(der: &[u8]) -> Self {
        Self(Sha256::digest(der).into())
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pairs: Vec<String> = self.0.iter().map(|b| format!("{b:02X}")).collect();
        f.write_str(&pairs.join(":"))
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}

impl FromStr for Fingerprint {
    type Err = BadFingerprint;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || BadFingerprint(text.to_owned());
        let trimmed = text.trim();
        let lower = trimmed.to_ascii_lowercase();
        let body =
            ["sha256:", "sha256=", "sha-256:"].iter().find_map(|prefix| lower.strip_prefix(prefix)).unwrap_or(&lower);
        let digits: String = body.chars().filter(|c| *c != ':').collect();
        let bytes = hex::decode(digits).map_err(|_| bad())?;
        Ok(Self(bytes.try_into().map_err(|_| bad())?))
    }
}

impl Serialize for Fingerprint {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Fingerprint {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_openssl_and_reads_leniently() {
        let fp = Fingerprint::of_der(b"certificate");
        let text = fp.to_string();
        assert_eq!(text.len(), 32 * 3 - 1);
        assert_eq!(text, text.to_uppercase());
        for variant in [text.clone(), text.to_lowercase(), text.replace(':', ""), format!("SHA256:{text}")] {
            assert_eq!(variant.parse::<Fingerprint>().unwrap(), fp, "{variant}");
        }
        assert!("AB:CD".parse::<Fingerprint>().is_err());
        assert!("zz".repeat(32).parse::<Fingerprint>().is_err());
        let json = serde_json::to_string(&fp).unwrap();
        assert_eq!(serde_json::from_str::<Fingerprint>(&json).unwrap(), fp);
    }
}
