//! Whether the self-signed certificate kept in `DATA_DIR/tls/` still names
//! this machine: the names (DNS names and IP addresses) a certificate was
//! made for, read back from its subject alternative names with
//! `x509-parser` (rcgen writes them but cannot read them), and the decision
//! to make it again when the addresses it should name have changed (a new
//! network address, or one it names that is gone); and the names it should
//! carry: loopback and this machine's network addresses
//! ([`certificate_names`], [`interface_addresses`]), the same for
//! `hangar serve --tls-self-signed` and the desktop's device listener.

use std::collections::BTreeSet;
use std::net::IpAddr;

use tokio_rustls::rustls::pki_types::CertificateDer;
use x509_parser::extensions::GeneralName;

/// Why a certificate's names could not be read.
#[derive(Debug, thiserror::Error)]
pub enum NamesError {
    /// The certificate is not DER X.509.
    #[error("reading the certificate: {0}")]
    Parse(String),
}

/// The DNS names and IP addresses `certificate` is valid for, as text
/// (addresses in their usual form, `192.168.1.5`, `::1`).
pub fn names_of(certificate: &CertificateDer<'_>) -> Result<Vec<String>, NamesError> {
    let (_, cert) =
        x509_parser::parse_x509_certificate(certificate.as_ref()).map_err(|e| NamesError::Parse(e.to_string()))?;
    let san = cert.subject_alternative_name().map_err(|e| NamesError::Parse(e.to_string()))?;
    let Some(san) = san else { return Ok(Vec::new()) };
    Ok(san
        .value
        .general_names
        .iter()
        .filter_map(|name| match name {
            GeneralName::DNSName(dns) => Some((*dns).to_owned()),
            GeneralName::IPAddress(bytes) => ip_of(bytes).map(|ip| ip.to_string()),
            _ => None,
        })
        .collect())
}

fn ip_of(bytes: &[u8]) -> Option<IpAddr> {
    match bytes.len() {
        4 => <[u8; 4]>::try_from(bytes).ok().map(IpAddr::from),
        16 => <[u8; 16]>::try_from(bytes).ok().map(IpAddr::from),
        _ => None,
    }
}

/// This machine's addresses, from its network interfaces (none when they
/// cannot be read).
pub fn interface_addresses() -> Vec<IpAddr> {
    if_addrs::get_if_addrs().unwrap_or_default().into_iter().map(|i| i.ip()).collect()
}

/// The names the self-signed certificate is made for: loopback and the
/// network addresses `lan` (IPv4 first, as a link shows the first; loopback
/// ones and repeats left out).
pub fn certificate_names(mut lan: Vec<IpAddr>) -> Vec<String> {
    let mut names = vec!["localhost".to_owned(), "127.0.0.1".to_owned(), "::1".to_owned()];
    let mut seen = std::collections::HashSet::new();
    lan.retain(|ip| !ip.is_loopback() && seen.insert(*ip));
    lan.sort_by_key(|ip| !ip.is_ipv4());
    names.extend(lan.into_iter().map(|ip| ip.to_string()));
    names
}

/// A name as compared: an address in its canonical form, a DNS name in
/// lower case.
fn canonical(name: &str) -> String {
    name.parse::<IpAddr>().map_or_else(|_| name.to_ascii_lowercase(), |ip| ip.to_string())
}

/// Why a certificate made for `certified` must be made again for `wanted`
/// (the names it should carry now), or `None` when it names exactly them.
/// Order and case do not matter.
pub fn reissue_reason(certified: &[String], wanted: &[String]) -> Option<String> {
    let had: BTreeSet<String> = certified.iter().map(|n| canonical(n)).collect();
    let want: BTreeSet<String> = wanted.iter().map(|n| canonical(n)).collect();
    let new: Vec<&str> = want.difference(&had).map(String::as_str).collect();
    let gone: Vec<&str> = had.difference(&want).map(String::as_str).collect();
    match (new.is_empty(), gone.is_empty()) {
        (true, true) => None,
        (false, true) => Some(format!("new address {}", new.join(", "))),
        (true, false) => Some(format!("{} no longer this computer's", gone.join(", "))),
        (false, false) => Some(format!("new address {} ({} gone)", new.join(", "), gone.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn the_certificate_names_loopback_then_the_addresses_ipv4_first_once_each() {
        let lan: Vec<IpAddr> = ["fe80::1", "192.168.1.5", "127.0.0.1", "10.0.0.7", "192.168.1.5", "::1"]
            .iter()
            .map(|a| a.parse().unwrap())
            .collect();
        assert_eq!(certificate_names(lan), ["localhost", "127.0.0.1", "::1", "192.168.1.5", "10.0.0.7", "fe80::1"]);
        assert_eq!(certificate_names(Vec::new()), ["localhost", "127.0.0.1", "::1"]);
    }

    #[test]
    fn the_same_names_in_any_order_and_case_keep_the_certificate() {
        let had = v(&["localhost", "127.0.0.1", "::1", "192.168.1.5"]);
        assert_eq!(reissue_reason(&had, &v(&["192.168.1.5", "::1", "LocalHost", "127.0.0.1"])), None);
        // An address written longhand is the same address.
        assert_eq!(reissue_reason(&v(&["::1"]), &v(&["0:0:0:0:0:0:0:1"])), None);
    }

    #[test]
    fn a_new_address_or_one_gone_makes_it_again_and_says_which() {
        let had = v(&["localhost", "127.0.0.1", "192.168.1.5"]);
        let moved = reissue_reason(&had, &v(&["localhost", "127.0.0.1", "10.0.0.7"])).unwrap();
        assert_eq!(moved, "new address 10.0.0.7 (192.168.1.5 gone)");
        let added = reissue_reason(&had, &v(&["localhost", "127.0.0.1", "192.168.1.5", "10.0.0.7"])).unwrap();
        assert_eq!(added, "new address 10.0.0.7");
        let gone = reissue_reason(&had, &v(&["localhost", "127.0.0.1"])).unwrap();
        assert_eq!(gone, "192.168.1.5 no longer this computer's");
    }

    #[test]
    fn the_names_are_read_back_from_a_certificate_rcgen_made() {
        let names = v(&["localhost", "127.0.0.1", "::1", "192.168.1.5"]);
        let pair = rcgen::generate_simple_self_signed(names.clone()).unwrap();
        let read = names_of(pair.cert.der()).unwrap();
        assert_eq!(read, names);
        assert_eq!(reissue_reason(&read, &names), None);
        assert!(names_of(&CertificateDer::from(vec![1, 2, 3])).is_err());
    }
}
