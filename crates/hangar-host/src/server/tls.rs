//! TLS for the listener (`wss://`): a certificate chain and key read from PEM
//! files, or a self-signed pair made once with `rcgen` and kept in
//! `DATA_DIR/tls/` (the key with mode 0600), turned into a rustls server
//! configuration on the ring provider (the one the AHP client crates use).
//! [`self_signed_current`] also makes the pair again when the names it was
//! made for are no longer the ones wanted (`tls_names.rs` decides).

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::{self, ServerConfig};

use crate::config::TlsIdentity;
use crate::server::tls_names;

/// Where `--tls-self-signed` keeps its pair, under the data directory.
pub const SELF_SIGNED_DIR: &str = "tls";
const CERT_FILE: &str = "cert.pem";
const KEY_FILE: &str = "key.pem";

/// Why TLS could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A file is not the PEM expected.
    #[error("{path}: {what}")]
    Pem {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        what: String,
    },
    /// Only one of the self-signed pair's files exists.
    #[error("{0} has a certificate or a key but not both: remove the folder to make a new pair")]
    IncompletePair(PathBuf),
    /// rustls refused the certificate or key.
    #[error("TLS setup: {0}")]
    Rustls(#[from] rustls::Error),
    /// `rcgen` could not make a certificate.
    #[error("making a self-signed certificate: {0}")]
    Generate(#[from] rcgen::Error),
}

/// The chain in `cert` (PEM, leaf first) and the private key in `key` (PEM).
pub fn from_pem_files(cert: &Path, key: &Path) -> Result<TlsIdentity, TlsError> {
    let pem = |path: &Path| {
        let path = path.to_owned();
        move |e: rustls::pki_types::pem::Error| TlsError::Pem { path, what: e.to_string() }
    };
    let chain =
        CertificateDer::pem_file_iter(cert).map_err(pem(cert))?.collect::<Result<Vec<_>, _>>().map_err(pem(cert))?;
    let key = PrivateKeyDer::from_pem_file(key).map_err(pem(key))?;
    identity(chain, key, cert)
}

/// The pair kept in `DATA_DIR/tls/`, made on first use for `names` (host
/// names and IP addresses it is valid for). Returns whether it was just made.
pub fn self_signed(data_dir: &Path, names: &[String]) -> Result<(TlsIdentity, bool), TlsError> {
    let dir = data_dir.join(SELF_SIGNED_DIR);
    let (cert, key) = (dir.join(CERT_FILE), dir.join(KEY_FILE));
    let made = match (cert.exists(), key.exists()) {
        (true, true) => false,
        (false, false) => {
            let io = |source| TlsError::Io { path: dir.clone(), source };
            std::fs::create_dir_all(&dir).map_err(io)?;
            let pair = rcgen::generate_simple_self_signed(names.to_vec())?;
            write_new(&key, pair.signing_key.serialize_pem().as_bytes())?;
            write_new(&cert, pair.cert.pem().as_bytes())?;
            true
        }
        _ => return Err(TlsError::IncompletePair(dir)),
    };
    Ok((from_pem_files(&cert, &key)?, made))
}

/// The pair kept in `DATA_DIR/tls/` as [`self_signed`] gives it, but made
/// again for `names` when the kept certificate names anything else (this
/// computer has a new address, or one it names is gone): the old pair is
/// replaced. Returns why it was made again, when it was.
pub fn self_signed_current(data_dir: &Path, names: &[String]) -> Result<(TlsIdentity, Option<String>), TlsError> {
    let (identity, made) = self_signed(data_dir, names)?;
    if made {
        return Ok((identity, None));
    }
    let dir = data_dir.join(SELF_SIGNED_DIR);
    let certified = tls_names::names_of(&identity.certificate)
        .map_err(|e| TlsError::Pem { path: dir.join(CERT_FILE), what: e.to_string() })?;
    let Some(reason) = tls_names::reissue_reason(&certified, names) else { return Ok((identity, None)) };
    replace_pair(&dir, names)?;
    let (identity, _) = self_signed(data_dir, names)?;
    Ok((identity, Some(reason)))
}

/// Make a new pair for `names` beside `dir` and swap it in: a crash part
/// way leaves either the old pair, or no pair (made afresh next time),
/// never a key that does not match its certificate.
fn replace_pair(dir: &Path, names: &[String]) -> Result<(), TlsError> {
    let (fresh, old) = (dir.with_extension("new"), dir.with_extension("old"));
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| TlsError::Io { path, source }
    };
    for stale in [&fresh, &old] {
        if stale.exists() {
            std::fs::remove_dir_all(stale).map_err(io(stale))?;
        }
    }
    std::fs::create_dir_all(&fresh).map_err(io(&fresh))?;
    let pair = rcgen::generate_simple_self_signed(names.to_vec())?;
    write_new(&fresh.join(KEY_FILE), pair.signing_key.serialize_pem().as_bytes())?;
    write_new(&fresh.join(CERT_FILE), pair.cert.pem().as_bytes())?;
    std::fs::rename(dir, &old).map_err(io(dir))?;
    std::fs::rename(&fresh, dir).map_err(io(dir))?;
    std::fs::remove_dir_all(&old).map_err(io(&old))
}

fn identity(
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    path: &Path,
) -> Result<TlsIdentity, TlsError> {
    let certificate =
        chain.first().cloned().ok_or_else(|| TlsError::Pem { path: path.to_owned(), what: "no certificate".into() })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    Ok(TlsIdentity { server_config: Arc::new(config), certificate })
}

/// Create `path` (mode 0600, never over an existing file) with `bytes`.
fn write_new(path: &Path, bytes: &[u8]) -> Result<(), TlsError> {
    let io = |source| TlsError::Io { path: path.to_owned(), source };
    let mut file = OpenOptions::new().write(true).create_new(true).mode(0o600).open(path).map_err(io)?;
    file.write_all(bytes).and_then(|()| file.sync_all()).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn self_signed_is_made_once_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let names = vec!["localhost".to_owned(), "127.0.0.1".to_owned()];
        let (first, made) = self_signed(dir.path(), &names).unwrap();
        assert!(made);
        let key = dir.path().join(SELF_SIGNED_DIR).join(KEY_FILE);
        assert_eq!(std::fs::metadata(&key).unwrap().permissions().mode() & 0o777, 0o600);
        let (again, made) = self_signed(dir.path(), &names).unwrap();
        assert!(!made);
        assert_eq!(first.certificate, again.certificate);
        std::fs::remove_file(&key).unwrap();
        assert!(matches!(self_signed(dir.path(), &names), Err(TlsError::IncompletePair(_))));
    }

    #[test]
    fn the_kept_pair_is_made_again_when_the_addresses_change_and_only_then() {
        let dir = tempfile::tempdir().unwrap();
        let home = vec!["localhost".to_owned(), "192.168.1.5".to_owned()];
        let (first, reason) = self_signed_current(dir.path(), &home).unwrap();
        assert_eq!(reason, None, "made the first time, not made again");
        let (kept, reason) = self_signed_current(dir.path(), &home).unwrap();
        assert_eq!((kept.certificate == first.certificate, reason), (true, None));
        let moved = vec!["localhost".to_owned(), "10.0.0.7".to_owned()];
        let (again, reason) = self_signed_current(dir.path(), &moved).unwrap();
        assert_eq!(reason.as_deref(), Some("new address 10.0.0.7 (192.168.1.5 gone)"));
        assert_ne!(again.certificate, first.certificate);
        assert_eq!(tls_names::names_of(&again.certificate).unwrap(), moved);
        let key = dir.path().join(SELF_SIGNED_DIR).join(KEY_FILE);
        assert_eq!(std::fs::metadata(&key).unwrap().permissions().mode() & 0o777, 0o600);
        let (after, reason) = self_signed_current(dir.path(), &moved).unwrap();
        assert_eq!((after.certificate == again.certificate, reason), (true, None), "then kept");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, [SELF_SIGNED_DIR], "no new/old folder left beside it");
    }

    #[test]
    fn a_file_without_a_certificate_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "").unwrap();
        assert!(matches!(from_pem_files(&empty, &empty), Err(TlsError::Pem { .. })));
    }
}
