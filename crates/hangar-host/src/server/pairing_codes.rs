//! One-time pairing codes: `hangar token create NAME --pair` mints one, a
//! browser opening the pairing URL trades it once, within [`CODE_TTL`], for a
//! device token named NAME (`POST /pair` of `hangar serve --web`).
//!
//! `DATA_DIR/devices/pairing.json` holds each pending code's device name, the
//! SHA-256 of the code and when it expires, never the code itself, so a
//! running host (another process) sees codes the CLI mints. Codes are
//! [`CODE_LEN`] characters from [`ALPHABET`] (no 0/O, 1/I/L): about 49 bits,
//! read aloud or typed without confusion. Redeeming removes the entry
//! before the token is made: a code works once even when two requests race.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::device_tokens::{check_name, token_hash, DeviceTokenError, DeviceTokenStore, DEVICES_DIR};
use super::json_file::{self, JsonFileError};

/// How long a pairing code is valid.
pub const CODE_TTL: Duration = Duration::from_secs(10 * 60);
/// Characters in a code.
pub const CODE_LEN: usize = 10;
/// The characters a code is made of: no 0/O, 1/I/L.
pub const ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
const CODES_FILE: &str = "pairing.json";
const LOCK_FILE: &str = "pairing.lock";

/// Why minting or redeeming a code failed.
#[derive(Debug, thiserror::Error)]
pub enum PairingError {
    /// Reading, writing or locking the file failed.
    #[error(transparent)]
    File(#[from] JsonFileError),
    /// The code is unknown, expired or already used (one answer for all three).
    #[error("pairing code not valid")]
    Refused,
    /// Making the device token failed (a name taken meanwhile, the store unreadable).
    #[error(transparent)]
    Device(#[from] DeviceTokenError),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct PendingCode {
    name: String,
    sha256: String,
    /// Unix seconds.
    expires: i64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CodesFile {
    version: u32,
    codes: Vec<PendingCode>,
}

/// A device paired by a code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paired {
    /// The device's name (as `hangar token list` shows it).
    pub device: String,
    /// Its new device token (only its hash is kept).
    pub token: String,
}

/// The pending pairing codes of one data directory.
#[derive(Debug, Clone)]
pub struct PairingCodes {
    dir: PathBuf,
    devices: DeviceTokenStore,
}

impl PairingCodes {
    /// The codes of `data_dir`.
    pub fn in_data_dir(data_dir: &Path) -> Self {
        Self { dir: data_dir.join(DEVICES_DIR), devices: DeviceTokenStore::in_data_dir(data_dir) }
    }

    /// Mint a code for a device to be called `name`, valid from `now` (Unix
    /// seconds) for [`CODE_TTL`]. The name must be free now.
    pub fn mint(&self, name: &str, now: i64) -> Result<String, PairingError> {
        check_name(name)?;
        if self.devices.list()?.iter().any(|d| d.name == name) {
            return Err(DeviceTokenError::Exists(name.to_owned()).into());
        }
        let mut rng = rand::thread_rng();
        let code: String = (0..CODE_LEN).map(|_| char::from(ALPHABET[rng.gen_range(0..ALPHABET.len())])).collect();
        let _lock = self.lock()?;
        let mut file = self.read()?;
        file.codes.retain(|c| c.expires > now && c.name != name);
        file.codes.push(PendingCode { name: name.to_owned(), sha256: token_hash(&code), expires: now + ttl_secs() });
        self.write(&file)?;
        Ok(code)
    }

    /// Trade `code` at `now` (Unix seconds) for a device token; the code is
    /// gone afterwards whatever happens next. Letters are taken in either
    /// case.
    pub fn redeem(&self, code: &str, now: i64) -> Result<Paired, PairingError> {
        let hash = token_hash(&code.trim().to_ascii_uppercase());
        let name = {
            let _lock = self.lock()?;
            let mut file = self.read()?;
            file.codes.retain(|c| c.expires > now);
            let Some(i) = file.codes.iter().position(|c| constant_eq(&c.sha256, &hash)) else {
                self.write(&file)?;
                return Err(PairingError::Refused);
            };
            let pending = file.codes.remove(i);
            self.write(&file)?;
            pending.name
        };
        let token = self.devices.create(&name)?;
        Ok(Paired { device: name, token })
    }

    fn path(&self) -> PathBuf {
        self.dir.join(CODES_FILE)
    }

    fn read(&self) -> Result<CodesFile, PairingError> {
        Ok(json_file::read(&self.path())?)
    }

    fn write(&self, file: &CodesFile) -> Result<(), PairingError> {
        Ok(json_file::replace(&self.path(), &CodesFile { version: 1, codes: file.codes.clone() })?)
    }

    fn lock(&self) -> Result<File, PairingError> {
        Ok(json_file::lock(&self.dir, LOCK_FILE)?)
    }
}

fn ttl_secs() -> i64 {
    i64::try_from(CODE_TTL.as_secs()).unwrap_or(i64::MAX)
}

fn constant_eq(a: &str, b: &str) -> bool {
    constant_time_eq::constant_time_eq(a.as_bytes(), b.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_800_000_000;

    #[test]
    fn a_code_pairs_once_within_its_ten_minutes() {
        let dir = tempfile::tempdir().unwrap();
        let codes = PairingCodes::in_data_dir(dir.path());
        let code = codes.mint("phone", NOW).unwrap();
        assert_eq!(code.len(), CODE_LEN);
        assert!(code.bytes().all(|b| ALPHABET.contains(&b)), "{code}");
        let paired = codes.redeem(&code.to_ascii_lowercase(), NOW + 599).unwrap();
        assert_eq!(paired.device, "phone");
        let devices = DeviceTokenStore::in_data_dir(dir.path()).list().unwrap();
        assert_eq!(devices.len(), 1);
        assert_eq!(devices[0].sha256, token_hash(&paired.token));
        assert!(matches!(codes.redeem(&code, NOW + 600), Err(PairingError::Refused)), "used once");
    }

    #[test]
    fn expired_and_wrong_codes_get_the_same_refusal() {
        let dir = tempfile::tempdir().unwrap();
        let codes = PairingCodes::in_data_dir(dir.path());
        let code = codes.mint("tablet", NOW).unwrap();
        assert!(matches!(codes.redeem("WRONGCODE2", NOW), Err(PairingError::Refused)));
        assert!(matches!(codes.redeem(&code, NOW + 600), Err(PairingError::Refused)), "expired at 10 minutes");
        assert!(matches!(codes.redeem(&code, NOW), Err(PairingError::Refused)), "an expired code is dropped");
        assert!(DeviceTokenStore::in_data_dir(dir.path()).list().unwrap().is_empty());
    }

    #[test]
    fn only_the_hash_is_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let codes = PairingCodes::in_data_dir(dir.path());
        let code = codes.mint("phone", NOW).unwrap();
        let on_disk = std::fs::read_to_string(dir.path().join(DEVICES_DIR).join(CODES_FILE)).unwrap();
        assert!(!on_disk.contains(&code), "the code itself is never stored");
        assert!(on_disk.contains(&token_hash(&code)));
    }

    #[test]
    fn a_name_already_paired_cannot_get_a_code() {
        let dir = tempfile::tempdir().unwrap();
        DeviceTokenStore::in_data_dir(dir.path()).create("phone").unwrap();
        let codes = PairingCodes::in_data_dir(dir.path());
        assert!(matches!(codes.mint("phone", NOW), Err(PairingError::Device(DeviceTokenError::Exists(_)))));
        assert!(matches!(codes.mint(" bad", NOW), Err(PairingError::Device(DeviceTokenError::BadName(_)))));
    }
}
