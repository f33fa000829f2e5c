//! TLS for a `wss://` server: whom to trust (the system's roots, or the
//! private authority given with `--ca`) and what a failed handshake means
//! for the player.

use crate::{ClientError, Target};
use rustls::pki_types::ServerName;
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;
use std::path::Path;
use std::sync::Arc;

/// A connector trusting the certificates in the PEM file `ca` if one is
/// given (a private authority, or a server's own self-signed certificate),
/// else the system's roots.
pub(crate) fn connector(ca: Option<&Path>) -> Result<tokio_rustls::TlsConnector, ClientError> {
    let mut roots = rustls::RootCertStore::empty();
    match ca {
        Some(path) => {
            let bad = |reason: String| ClientError::Authority {
                path: path.to_path_buf(),
                reason,
            };
            let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                .map_err(|e| bad(e.to_string()))?
                .collect::<Result<_, _>>()
                .map_err(|e| bad(e.to_string()))?;
            if certs.is_empty() {
                return Err(bad("no PEM certificate in it".into()));
            }
            for cert in certs {
                roots.add(cert).map_err(|e| bad(e.to_string()))?;
            }
        }
        None => {
            // Certificates the system cannot parse are skipped: the others
            // still serve.
            let found = rustls_native_certs::load_native_certs();
            roots.add_parsable_certificates(found.certs);
        }
    }
    // The ring provider, named rather than taken from the process's
    // default, which depends on the features every crate enabled.
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| ClientError::Tls {
            target: String::new(),
            reason: e.to_string(),
        })?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
}

/// The name the server's certificate must carry: its host name or IP
/// address.
pub(crate) fn server_name(host: &str) -> Result<ServerName<'static>, String> {
    ServerName::try_from(host.trim_end_matches('.').to_string())
        .map_err(|e| format!("{host:?} cannot be checked against a certificate: {e}"))
}

/// The error of a failed handshake: a certificate that is not trusted,
/// said as such, or another TLS failure.
pub(crate) fn handshake_error(target: &Target, error: std::io::Error) -> ClientError {
    let rustls_error = error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>());
    match rustls_error {
        Some(rustls::Error::InvalidCertificate(why)) => ClientError::Certificate {
            target: target.to_string(),
            reason: format!("its certificate {}", certificate_problem(why)),
        },
        Some(other) => ClientError::Tls {
            target: target.to_string(),
            reason: other.to_string(),
        },
        None => ClientError::Tls {
            target: target.to_string(),
            reason: error.to_string(),
        },
    }
}

/// A certificate's problem in words.
fn certificate_problem(why: &rustls::CertificateError) -> String {
    use rustls::CertificateError as E;
    match why {
        E::UnknownIssuer => "is not signed by an authority this client trusts".into(),
        E::NotValidForName | E::NotValidForNameContext { .. } => {
            "is for another name than the address's host".into()
        }
        E::Expired | E::ExpiredContext { .. } => "has expired".into(),
        E::NotValidYet | E::NotValidYetContext { .. } => "is not valid yet".into(),
        E::Revoked => "is revoked".into(),
        E::BadSignature => "has a bad signature".into(),
        other => format!("is refused ({other:?})"),
    }
}
