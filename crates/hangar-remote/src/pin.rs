//! Certificate pinning for `wss://` hosts (trust on first use, as SSH does):
//! a rustls verifier that accepts exactly the certificate whose SHA-256 was
//! pinned, whatever its issuer or names, and records what it saw so a
//! refusal can say "the certificate changed" rather than "TLS error". With
//! no pin it accepts any certificate: only for showing the fingerprint to a
//! person before pinning. The handshake signature is verified either way
//! (proof that the peer holds the certificate's key).

use std::sync::{Arc, Mutex, PoisonError};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, Error, SignatureScheme};

use crate::fingerprint::Fingerprint;

type Cert<'a> = CertificateDer<'a>;
type Dss = DigitallySignedStruct;
type SignatureChecked = Result<HandshakeSignatureValid, Error>;

/// What the verifier saw: the fingerprint of the last certificate presented.
#[derive(Debug, Clone, Default)]
pub struct SeenCertificate(Arc<Mutex<Option<Fingerprint>>>);

impl SeenCertificate {
    /// The fingerprint of the certificate the host presented, if it got that far.
    pub fn get(&self) -> Option<Fingerprint> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn set(&self, fingerprint: Fingerprint) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(fingerprint);
    }
}

/// The verifier: accepts the pinned certificate only (or, unpinned, any).
#[derive(Debug)]
pub struct PinnedVerifier {
    pin: Option<Fingerprint>,
    seen: SeenCertificate,
    provider: Arc<CryptoProvider>,
}

impl PinnedVerifier {
    /// A verifier for `pin` (`None`: accept any certificate, to show it).
    pub fn new(pin: Option<Fingerprint>) -> Self {
        Self { pin, seen: SeenCertificate::default(), provider: Arc::new(rustls::crypto::ring::default_provider()) }
    }

    /// Where it records the certificate it was shown.
    pub fn seen(&self) -> SeenCertificate {
        self.seen.clone()
    }
}

impl ServerCertVerifier for PinnedVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        let presented = Fingerprint::of_der(end_entity);
        self.seen.set(presented);
        match self.pin {
            Some(pin) if pin != presented => {
                Err(Error::InvalidCertificate(CertificateError::ApplicationVerificationFailure))
            }
            _ => Ok(ServerCertVerified::assertion()),
        }
    }

    /// TLS 1.2: the peer signed the key exchange with the certificate's key.
    fn verify_tls12_signature(&self, message: &[u8], cert: &Cert<'_>, dss: &Dss) -> SignatureChecked {
        verify_tls12_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    /// TLS 1.3: the peer signed the handshake transcript with the
    /// certificate's key (and the scheme must match the key's curve).
    fn verify_tls13_signature(&self, message: &[u8], cert: &Cert<'_>, dss: &Dss) -> SignatureChecked {
        verify_tls13_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

/// A rustls client configuration (ring provider) that trusts only `pin`
/// (`None`: anything), and where the verifier records what it saw.
pub fn client_config(pin: Option<Fingerprint>) -> Result<(Arc<ClientConfig>, SeenCertificate), Error> {
    let verifier = PinnedVerifier::new(pin);
    let seen = verifier.seen();
    let config = ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    Ok((Arc::new(config), seen))
}
