//! Reaching a port inside a job's session from the login node, the way Backend.AI's own
//! `backend.ai app` does: the manager's `tcpproxy` websocket
//! (`GET /stream/session/{name}/tcpproxy?app={app}`, HMAC-signed like any request, raw
//! bytes in binary frames). The session is created with `config.preopen_ports`, each of
//! which the manager lists as an app named by its number.
//!
//! A [`Forwarder`] listens on 127.0.0.1 and carries each connection it takes through its own
//! websocket, so that `srun` speaks its step protocol to the launcher in the container as if
//! it were on the same network.

use super::auth;
use super::client::Client;
use chrono::Utc;
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tungstenite::client::IntoClientRequest;
use tungstenite::protocol::WebSocket;
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, http};

/// How long the websocket's connect and upgrade may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

/// Where a tunnel leads: the manager, the keypair that signs, and the session's app.
#[derive(Clone)]
pub struct Target {
    endpoint: String,
    host: String,
    access_key: String,
    secret_key: String,
    api_version: String,
    skip_tls_verify: bool,
    pub session: String,
    pub app: String,
}

impl std::fmt::Debug for Target {
    // The secret key stays out of every log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target")
            .field("endpoint", &self.endpoint)
            .field("session", &self.session)
            .field("app", &self.app)
            .finish_non_exhaustive()
    }
}

impl Target {
    pub fn new(client: &Client, session: &str, app: &str) -> Result<Target, String> {
        Ok(Target {
            endpoint: client.endpoint().to_string(),
            host: client.host().to_string(),
            access_key: client.settings().access_key.clone(),
            secret_key: client.settings().secret_key.clone(),
            api_version: client.api_version().map_err(|e| e.to_string())?.to_string(),
            skip_tls_verify: client.settings().skip_tls_verify,
            session: session.to_string(),
            app: app.to_string(),
        })
    }
}

type Ws = WebSocket<MaybeTlsStream<TcpStream>>;

/// Opens one websocket to the app.
pub fn open(target: &Target) -> Result<Ws, String> {
    let base = &target.endpoint;
    let url = reqwest::Url::parse(base).map_err(|e| e.to_string())?;
    let ws_scheme = match url.scheme() {
        "https" => "wss",
        "http" => "ws",
        _ => return Err(format!("endpoint {base} is neither http nor https")),
    };
    let ws_base = format!("{ws_scheme}{}", &base[url.scheme().len()..]);
    let path_and_query = format!(
        "/stream/session/{}/tcpproxy?app={}",
        target.session, target.app
    );
    let mut request = format!("{ws_base}{path_and_query}")
        .into_client_request()
        .map_err(|e| e.to_string())?;
    let signed = auth::sign(
        &target.access_key,
        &target.secret_key,
        &auth::RequestToSign {
            method: "GET",
            path_and_query: &path_and_query,
            host: &target.host,
            api_version: &target.api_version,
            now: Utc::now(),
        },
    );
    let headers = request.headers_mut();
    let value = |v: &str| http::HeaderValue::from_str(v).map_err(|e| e.to_string());
    headers.insert(http::header::HOST, value(&target.host)?);
    headers.insert(http::header::DATE, value(&signed.date)?);
    headers.insert(http::header::AUTHORIZATION, value(&signed.authorization)?);
    headers.insert(http::header::CONTENT_TYPE, value(auth::CONTENT_TYPE)?);
    headers.insert("X-BackendAI-Version", value(&target.api_version)?);
    let host = url.host_str().unwrap_or("127.0.0.1").to_string();
    let port = url.port_or_known_default().unwrap_or(80);
    let addr = std::net::ToSocketAddrs::to_socket_addrs(&(host.as_str(), port))
        .map_err(|e| format!("{host}:{port}: {e}"))?
        .next()
        .ok_or_else(|| format!("{host}:{port}: no address"))?;
    let tcp = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT)
        .map_err(|e| format!("{host}:{port}: {e}"))?;
    tcp.set_read_timeout(Some(CONNECT_TIMEOUT)).ok();
    tcp.set_nodelay(true).ok();
    let connector = if url.scheme() == "https" {
        Some(tungstenite::Connector::Rustls(tls_config(
            target.skip_tls_verify,
        )?))
    } else {
        None
    };
    let (ws, _) = tungstenite::client_tls_with_config(request, tcp, None, connector).map_err(
        |e| match e {
            tungstenite::HandshakeError::Failure(tungstenite::Error::Http(resp)) => {
                let body = resp
                    .body()
                    .as_ref()
                    .map(|b| String::from_utf8_lossy(b).into_owned())
                    .unwrap_or_default();
                format!("{} {}", resp.status(), body.trim())
            }
            other => other.to_string(),
        },
    )?;
    // Reads wait on poll(2) from now on, not on a timeout.
    let _ = raw(&ws).set_read_timeout(None);
    Ok(ws)
}

fn tls_config(skip_verify: bool) -> Result<Arc<rustls::ClientConfig>, String> {
    use rustls_platform_verifier::ConfigVerifierExt;
    if skip_verify {
        let provider = rustls::crypto::CryptoProvider::get_default()
            .cloned()
            .unwrap_or_else(|| Arc::new(rustls::crypto::aws_lc_rs::default_provider()));
        let config = rustls::ClientConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
            .with_no_client_auth();
        return Ok(Arc::new(config));
    }
    rustls::ClientConfig::with_platform_verifier()
        .map(Arc::new)
        .map_err(|e| e.to_string())
}

/// `BACKEND_SKIP_SSLCERT_VALIDATION`: the site asked for no certificate check (as the
/// HTTP client does for every other request).
#[derive(Debug)]
struct AnyCertificate(Arc<rustls::crypto::CryptoProvider>);

impl rustls::client::danger::ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _: &rustls::pki_types::CertificateDer<'_>,
        _: &[rustls::pki_types::CertificateDer<'_>],
        _: &rustls::pki_types::ServerName<'_>,
        _: &[u8],
        _: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }
    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// A local port whose connections lead to one app of a session, for as long as this value
/// lives.
pub struct Forwarder {
    pub addr: String,
    stop: Arc<AtomicBool>,
}

impl Forwarder {
    pub fn start(target: Target) -> std::io::Result<Forwarder> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?.to_string();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        std::thread::Builder::new()
            .name("bai-tunnel".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if stopped.load(Ordering::Relaxed) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let target = target.clone();
                    let _ = std::thread::Builder::new()
                        .name("bai-tunnel-conn".into())
                        .spawn(move || {
                            if let Some(ws) = open_patiently(&target) {
                                pump(conn, ws);
                            }
                        });
                }
            })?;
        Ok(Forwarder { addr, stop })
    }
}

/// How long a connection waits for its websocket: a busy manager answers an upgrade with an
/// error now and then (seen under load in CI: an srun whose step connection was closed at
/// once); the step's own handshake allows 30 s, so this ends well before it does, and srun
/// tries the whole connection again a few times.
const OPEN_PATIENCE: Duration = Duration::from_secs(8);

/// The websocket for one connection, tried again after a failure until [`OPEN_PATIENCE`]
/// is spent (None then: the local connection is closed, and its client says so).
fn open_patiently(target: &Target) -> Option<Ws> {
    let until = Instant::now() + OPEN_PATIENCE;
    let mut pause = Duration::from_millis(250);
    loop {
        match open(target) {
            Ok(ws) => return Some(ws),
            Err(e) => {
                if std::env::var_os(crate::envvars::BAI_SLURM_TUNNEL_DEBUG).is_some() {
                    eprintln!("bai-slurm: tunnel to {}: {e}", target.app);
                }
                if Instant::now() + pause >= until {
                    return None;
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_secs(2));
            }
        }
    }
}

impl Drop for Forwarder {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(&self.addr);
    }
}

/// The raw socket under the websocket (for poll(2)).
fn raw(ws: &Ws) -> &TcpStream {
    match ws.get_ref() {
        MaybeTlsStream::Plain(s) => s,
        MaybeTlsStream::Rustls(s) => s.get_ref(),
        _ => unreachable!("only plain and rustls streams are made"),
    }
}

/// Copies bytes both ways between a local connection and its websocket until either ends.
/// One thread: poll(2) on both sockets, the websocket read without blocking.
fn pump(mut local: TcpStream, mut ws: Ws) {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    let _ = local.set_nodelay(true);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let (local_ready, ws_ready) = {
            let mut fds = [
                PollFd::new(local.as_fd(), PollFlags::POLLIN),
                PollFd::new(raw(&ws).as_fd(), PollFlags::POLLIN),
            ];
            // A TLS stream may hold decrypted bytes already: look at it at least every 50 ms.
            match poll(&mut fds, PollTimeout::from(50u16)) {
                Ok(_) => {}
                Err(nix::errno::Errno::EINTR) => continue,
                Err(_) => break,
            }
            let ready = |f: &PollFd<'_>| {
                f.revents().is_some_and(|r| {
                    r.intersects(PollFlags::POLLIN | PollFlags::POLLHUP | PollFlags::POLLERR)
                })
            };
            (ready(&fds[0]), ready(&fds[1]))
        };
        if local_ready {
            match local.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if raw(&ws).set_nonblocking(false).is_err()
                        || ws.send(Message::binary(buf[..n].to_vec())).is_err()
                    {
                        break;
                    }
                }
            }
        }
        if ws_ready || matches!(ws.get_ref(), MaybeTlsStream::Rustls(_)) {
            if raw(&ws).set_nonblocking(true).is_err() {
                break;
            }
            let mut ended = false;
            loop {
                match ws.read() {
                    Ok(Message::Binary(data)) => {
                        if local.write_all(&data).is_err() {
                            ended = true;
                            break;
                        }
                    }
                    Ok(Message::Close(_)) => {
                        ended = true;
                        break;
                    }
                    Ok(_) => {}
                    Err(tungstenite::Error::Io(e)) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(_) => {
                        ended = true;
                        break;
                    }
                }
            }
            if ended {
                break;
            }
        }
    }
    let _ = raw(&ws).set_nonblocking(false);
    let _ = ws.close(None);
    let _ = ws.flush();
    let _ = local.shutdown(std::net::Shutdown::Both);
}
