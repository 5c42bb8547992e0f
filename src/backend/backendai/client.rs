//! A blocking client for the Backend.AI manager's REST and GraphQL API.
//!
//! - Every request is signed with the keypair ([`super::auth`]); the `Host` header is set
//!   explicitly to the value that was signed.
//! - The API version is negotiated once per client from `GET /` (unauthenticated): we send
//!   the lower of the server's and ours ([`CLIENT_API_VERSION`]), and refuse a server older
//!   than [`MIN_API_VERSION`], as the official SDK does.
//! - Reads (`GET`, and GraphQL queries through [`Client::graphql`]) are retried with
//!   exponential backoff on connection errors, timeouts and 5xx answers. Nothing else is
//!   retried: a session-creating `POST` that failed half-way must not create two sessions.
//! - Errors are typed ([`ClientError`]) so that the backend can give Slurm's own messages;
//!   the secret key never appears in an error, a `Debug` output or a log (this module logs
//!   nothing).

use super::auth;
use chrono::Utc;
use reqwest::blocking;
use serde_json::Value;
use std::fmt;
use std::sync::Mutex;
use std::time::Duration;

/// A Backend.AI API version, `v<major>.<yyyymmdd>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ApiVersion {
    pub major: u32,
    pub date: u32,
}

impl ApiVersion {
    pub const fn new(major: u32, date: u32) -> ApiVersion {
        ApiVersion { major, date }
    }

    /// Parse `v9.20250722` (the `v` is optional).
    pub fn parse(s: &str) -> Option<ApiVersion> {
        let s = s.trim();
        let s = s.strip_prefix('v').unwrap_or(s);
        let (major, date) = s.split_once('.')?;
        if date.len() != 8 {
            return None;
        }
        Some(ApiVersion {
            major: major.parse().ok()?,
            date: date.parse().ok()?,
        })
    }
}

impl fmt::Display for ApiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}.{}", self.major, self.date)
    }
}

/// The newest API version this client speaks (the SDK's `API_VERSION`, manager 25.x/26.x).
pub const CLIENT_API_VERSION: ApiVersion = ApiVersion::new(9, 20250722);
/// The oldest server API version we accept (manager 23.09).
pub const MIN_API_VERSION: ApiVersion = ApiVersion::new(7, 20230615);

/// Where and as whom to connect. `Debug` never shows the secret key.
#[derive(Clone, PartialEq, Eq)]
pub struct Settings {
    /// Manager URL, e.g. `https://api.example.com` or `http://127.0.0.1:8081`. A path
    /// prefix is kept. (The SDK's comma-separated failover list: the first entry is used.)
    pub endpoint: String,
    pub access_key: String,
    pub secret_key: String,
    /// Sent as `X-BackendAI-Domain`; the domain for create requests. SDK default `default`.
    pub domain: String,
    /// The project (group) name for create requests. SDK default `default`.
    pub group: String,
    /// Accept any TLS certificate (`BACKEND_SKIP_SSLCERT_VALIDATION`).
    pub skip_tls_verify: bool,
}

impl Settings {
    /// Settings from the official SDK's variables (`BACKEND_ENDPOINT`, `BACKEND_ACCESS_KEY`,
    /// `BACKEND_SECRET_KEY`, `BACKEND_DOMAIN`, `BACKEND_GROUP`,
    /// `BACKEND_SKIP_SSLCERT_VALIDATION`) looked up with `get`. `None` when no endpoint is set.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Option<Settings> {
        let get = |k: &str| get(k).filter(|v| !v.is_empty());
        Some(Settings {
            endpoint: get("BACKEND_ENDPOINT")?,
            access_key: get("BACKEND_ACCESS_KEY").unwrap_or_default(),
            secret_key: get("BACKEND_SECRET_KEY").unwrap_or_default(),
            domain: get("BACKEND_DOMAIN").unwrap_or_else(|| "default".into()),
            group: get("BACKEND_GROUP").unwrap_or_else(|| "default".into()),
            skip_tls_verify: get("BACKEND_SKIP_SSLCERT_VALIDATION").is_some_and(|v| {
                matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on")
            }),
        })
    }
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("endpoint", &self.endpoint)
            .field("access_key", &self.access_key)
            .field(
                "secret_key",
                &if self.secret_key.is_empty() {
                    "<empty>"
                } else {
                    "<redacted>"
                },
            )
            .field("domain", &self.domain)
            .field("group", &self.group)
            .field("skip_tls_verify", &self.skip_tls_verify)
            .finish()
    }
}

/// HTTP methods the manager's API uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }

    fn to_reqwest(self) -> reqwest::Method {
        match self {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Put => reqwest::Method::PUT,
            Method::Patch => reqwest::Method::PATCH,
            Method::Delete => reqwest::Method::DELETE,
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What went wrong. Each variant is something the caller reacts to differently.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientError {
    /// The settings cannot work (no endpoint, no keys, a malformed URL).
    InvalidSettings(String),
    /// No answer: connection refused, DNS failure, TLS failure, timeout. (Slurm: `Unable to
    /// contact slurm controller (connect failure)`.) Reads were retried before this.
    Unreachable { endpoint: String, detail: String },
    /// 401 or 403: the keypair or the signature was refused, or the action is not allowed.
    AuthRejected { status: u16, message: String },
    /// Any other 4xx, with the server's problem details (`title`, `msg`, `error_code`)
    /// and the whole JSON body (e.g. `existingSessionId` of a name clash).
    BadRequest {
        status: u16,
        title: String,
        message: String,
        error_code: Option<String>,
        body: Value,
    },
    /// 5xx (after retries, for reads).
    ServerError { status: u16, message: String },
    /// A 2xx answer that is not what the API promises (not JSON, missing fields).
    InvalidResponse(String),
    /// GraphQL answered HTTP 200 with `errors`.
    GraphQl { messages: Vec<String> },
    /// The server's API is older than [`MIN_API_VERSION`].
    UnsupportedVersion { server: String },
}

impl ClientError {
    /// The HTTP status, when the server answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            ClientError::AuthRejected { status, .. }
            | ClientError::BadRequest { status, .. }
            | ClientError::ServerError { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// A 404 (e.g. no such session).
    pub fn is_not_found(&self) -> bool {
        self.status() == Some(404)
    }

    /// The server could not be reached at all.
    pub fn is_unreachable(&self) -> bool {
        matches!(self, ClientError::Unreachable { .. })
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::InvalidSettings(m) => write!(f, "invalid Backend.AI settings: {m}"),
            ClientError::Unreachable { endpoint, detail } => {
                write!(
                    f,
                    "cannot reach the Backend.AI manager at {endpoint}: {detail}"
                )
            }
            ClientError::AuthRejected { status, message } => {
                write!(
                    f,
                    "Backend.AI refused the credentials ({status}): {message}"
                )
            }
            ClientError::BadRequest {
                status,
                title,
                message,
                ..
            } => {
                if message.is_empty() || message == title {
                    write!(f, "Backend.AI rejected the request ({status}): {title}")
                } else if title.is_empty() {
                    write!(f, "Backend.AI rejected the request ({status}): {message}")
                } else {
                    write!(
                        f,
                        "Backend.AI rejected the request ({status}): {title} ({message})"
                    )
                }
            }
            ClientError::ServerError { status, message } => {
                write!(f, "Backend.AI server error ({status}): {message}")
            }
            ClientError::InvalidResponse(m) => write!(f, "invalid answer from Backend.AI: {m}"),
            ClientError::GraphQl { messages } => {
                write!(f, "Backend.AI GraphQL error: {}", messages.join("; "))
            }
            ClientError::UnsupportedVersion { server } => write!(
                f,
                "the Backend.AI manager speaks API {server}; at least {MIN_API_VERSION} is needed"
            ),
        }
    }
}

impl std::error::Error for ClientError {}

/// What `GET /` said, and the version this client sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    /// The server's API version.
    pub server_version: ApiVersion,
    /// The manager's release, e.g. `23.09.10`.
    pub manager: String,
    /// What we send as `X-BackendAI-Version`: min(server, [`CLIENT_API_VERSION`]).
    pub api_version: ApiVersion,
}

/// Retries of reads: `attempts` tries in all, waiting `first_delay`, then twice as long each
/// time, at most `max_delay`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    pub attempts: u32,
    pub first_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 4,
            first_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(2),
        }
    }
}

impl RetryPolicy {
    /// No retries.
    pub fn none() -> Self {
        RetryPolicy {
            attempts: 1,
            ..RetryPolicy::default()
        }
    }

    fn delay(&self, failed_attempts: u32) -> Duration {
        let factor = 1u32 << failed_attempts.saturating_sub(1).min(16);
        self.first_delay.saturating_mul(factor).min(self.max_delay)
    }
}

/// Timeouts and retries. Defaults: connect 10 s (the SDK's), whole request 60 s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    pub retry: RetryPolicy,
    /// Appends `METHOD /path` per HTTP request sent (tests count requests per command).
    pub request_log: Option<std::path::PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            retry: RetryPolicy::default(),
            request_log: None,
        }
    }
}

/// The client. Cheap to share by reference; negotiates the API version on first use.
pub struct Client {
    settings: Settings,
    http: blocking::Client,
    /// Endpoint without a trailing slash (e.g. `http://127.0.0.1:8081`, `https://h/api`).
    base: String,
    /// The Host header we send and sign.
    host: String,
    retry: RetryPolicy,
    server: Mutex<Option<ServerInfo>>,
    request_log: Option<std::path::PathBuf>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("settings", &self.settings)
            .field("retry", &self.retry)
            .field(
                "server",
                &*self.server.lock().unwrap_or_else(|e| e.into_inner()),
            )
            .finish_non_exhaustive()
    }
}

/// One attempt's outcome before interpretation.
enum Attempt {
    Answer(u16, String),
    NoAnswer(String),
}

impl Client {
    /// A client with the default [`Options`]. Contacts nothing yet.
    pub fn new(settings: Settings) -> Result<Client, ClientError> {
        Client::with_options(settings, Options::default())
    }

    pub fn with_options(settings: Settings, options: Options) -> Result<Client, ClientError> {
        let endpoint = settings
            .endpoint
            .split(',')
            .map(str::trim)
            .find(|e| !e.is_empty())
            .ok_or_else(|| ClientError::InvalidSettings("no endpoint is set".into()))?;
        let url = reqwest::Url::parse(endpoint).map_err(|e| {
            ClientError::InvalidSettings(format!("endpoint {endpoint:?} is not a URL: {e}"))
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ClientError::InvalidSettings(format!(
                "endpoint {endpoint:?} must be an http:// or https:// URL"
            )));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(ClientError::InvalidSettings(
                "the endpoint must not contain user:password@; use the keypair settings".into(),
            ));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(ClientError::InvalidSettings(format!(
                "endpoint {endpoint:?} must not have a query or fragment"
            )));
        }
        let Some(host_name) = url.host_str() else {
            return Err(ClientError::InvalidSettings(format!(
                "endpoint {endpoint:?} has no host"
            )));
        };
        // What hyper would send as Host: the port only when it is not the scheme's default.
        let host = match url.port() {
            Some(p) => format!("{host_name}:{p}"),
            None => host_name.to_string(),
        };
        if settings.access_key.is_empty() || settings.secret_key.is_empty() {
            return Err(ClientError::InvalidSettings(
                "an access key and a secret key are needed (BACKEND_ACCESS_KEY, BACKEND_SECRET_KEY)"
                    .into(),
            ));
        }
        let base = url.as_str().trim_end_matches('/').to_string();
        let http = blocking::Client::builder()
            .connect_timeout(options.connect_timeout)
            .timeout(options.request_timeout)
            .danger_accept_invalid_certs(settings.skip_tls_verify)
            .user_agent(concat!("bai-slurm/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ClientError::InvalidSettings(format!("HTTP client: {e}")))?;
        Ok(Client {
            settings,
            http,
            base,
            host,
            retry: options.retry,
            server: Mutex::new(None),
            request_log: options.request_log,
        })
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The `Host` header every request is signed with.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The endpoint in use (no trailing slash).
    pub fn endpoint(&self) -> &str {
        &self.base
    }

    /// The server's version facts, from `GET /` on first use (retried like any read).
    pub fn server_info(&self) -> Result<ServerInfo, ClientError> {
        if let Some(info) = self
            .server
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
        {
            return Ok(info);
        }
        let info = self.negotiate()?;
        *self.server.lock().unwrap_or_else(|e| e.into_inner()) = Some(info.clone());
        Ok(info)
    }

    /// Uses server facts learnt earlier (a cache), sparing the `GET /` of a new client.
    pub fn set_server_info(&self, info: ServerInfo) {
        *self.server.lock().unwrap_or_else(|e| e.into_inner()) = Some(info);
    }

    /// Whether `GET /` has been asked (or its answer set) already.
    pub fn known_server_info(&self) -> Option<ServerInfo> {
        self.server
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn log_request(&self, req: &blocking::Request) {
        self.log_line(req.method().as_str(), req.url().path());
    }

    /// One line of the request log (tests count requests per command), when there is one.
    pub fn log_line(&self, method: &str, path: &str) {
        use std::io::Write as _;
        let Some(log) = &self.request_log else {
            return;
        };
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = f.write_all(format!("{method} {path}\n").as_bytes());
        }
    }

    /// The version we send as `X-BackendAI-Version`.
    pub fn api_version(&self) -> Result<ApiVersion, ClientError> {
        Ok(self.server_info()?.api_version)
    }

    fn negotiate(&self) -> Result<ServerInfo, ClientError> {
        let (status, text) = self.send_with_retry(true, || {
            self.http
                .get(format!("{}/", self.base))
                .header(reqwest::header::HOST, &self.host)
        })?;
        let body = interpret(status, &text)?;
        let version = body.get("version").and_then(Value::as_str).ok_or_else(|| {
            ClientError::InvalidResponse(format!("GET / has no API version: {}", excerpt(&text)))
        })?;
        let server_version = ApiVersion::parse(version).ok_or_else(|| {
            ClientError::InvalidResponse(format!("GET / gave an unknown API version {version:?}"))
        })?;
        if server_version < MIN_API_VERSION {
            return Err(ClientError::UnsupportedVersion {
                server: version.to_string(),
            });
        }
        Ok(ServerInfo {
            server_version,
            manager: body
                .get("manager")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            api_version: server_version.min(CLIENT_API_VERSION),
        })
    }

    /// One signed request. `path_and_query` starts with `/` (e.g. `/session/x/logs`) and is
    /// appended to the endpoint; `body` is sent as JSON. Returns the status and the JSON
    /// body (`Null` when empty) of a 2xx answer; anything else is an error. GET and DELETE
    /// are retried on connection errors and 5xx (a manager under load answers a delete with
    /// a 500 when its database transaction conflicts; deleting again is harmless, and a
    /// session already gone is a 404); POST is sent once.
    pub fn request(
        &self,
        method: Method,
        path_and_query: &str,
        body: Option<&Value>,
    ) -> Result<(u16, Value), ClientError> {
        let idempotent = matches!(method, Method::Get | Method::Delete);
        let (status, text) = self.signed(method, path_and_query, body, idempotent)?;
        Ok((status, interpret(status, &text)?))
    }

    /// A GraphQL query on `/admin/gql` (the legacy schema, which 23.09 to 26.x all serve).
    /// Returns `data`; an answer with `errors` is [`ClientError::GraphQl`]. Retried like a
    /// read, so use [`Client::graphql_once`] for mutations.
    pub fn graphql(&self, query: &str, variables: Value) -> Result<Value, ClientError> {
        self.graphql_inner(query, variables, true)
    }

    /// A GraphQL request sent once (for mutations).
    pub fn graphql_once(&self, query: &str, variables: Value) -> Result<Value, ClientError> {
        self.graphql_inner(query, variables, false)
    }

    fn graphql_inner(
        &self,
        query: &str,
        variables: Value,
        retry: bool,
    ) -> Result<Value, ClientError> {
        let attempts = if retry { self.retry.attempts.max(1) } else { 1 };
        let mut n = 0;
        loop {
            n += 1;
            match self.graphql_attempt(query, &variables, retry) {
                // PostgreSQL refused the manager's transaction (SQLSTATE 40001) under
                // concurrent writes; the same read succeeds when asked again.
                Err(ClientError::GraphQl { messages })
                    if n < attempts
                        && messages
                            .iter()
                            .any(|m| m.contains("could not serialize access")) =>
                {
                    std::thread::sleep(self.retry.delay(n));
                }
                other => return other,
            }
        }
    }

    fn graphql_attempt(
        &self,
        query: &str,
        variables: &Value,
        retry: bool,
    ) -> Result<Value, ClientError> {
        let body = serde_json::json!({ "query": query, "variables": variables });
        let (status, text) = self.signed(Method::Post, "/admin/gql", Some(&body), retry)?;
        let v = interpret(status, &text)?;
        if let Some(errors) = v.get("errors").filter(|e| !e.is_null()) {
            let messages: Vec<String> = match errors.as_array() {
                Some(a) if a.is_empty() => Vec::new(),
                Some(a) => a
                    .iter()
                    .map(|e| {
                        e.get("message")
                            .and_then(Value::as_str)
                            .map(str::to_string)
                            .unwrap_or_else(|| e.to_string())
                    })
                    .collect(),
                None => vec![errors.to_string()],
            };
            if !messages.is_empty() {
                return Err(ClientError::GraphQl { messages });
            }
        }
        match v.get("data") {
            Some(d) if !d.is_null() => Ok(d.clone()),
            _ => Err(ClientError::InvalidResponse(format!(
                "GraphQL answer without data: {}",
                excerpt(&text)
            ))),
        }
    }

    fn signed(
        &self,
        method: Method,
        path_and_query: &str,
        body: Option<&Value>,
        retry: bool,
    ) -> Result<(u16, String), ClientError> {
        if !path_and_query.starts_with('/') {
            return Err(ClientError::InvalidSettings(format!(
                "request path {path_and_query:?} must start with /"
            )));
        }
        let version = self.api_version()?.to_string();
        let url =
            reqwest::Url::parse(&format!("{}{}", self.base, path_and_query)).map_err(|e| {
                ClientError::InvalidSettings(format!("bad path {path_and_query:?}: {e}"))
            })?;
        // Sign exactly what goes on the request line (the URL parser may percent-encode).
        let mut signed_path = url.path().to_string();
        if let Some(q) = url.query() {
            signed_path.push('?');
            signed_path.push_str(q);
        }
        let payload = match body {
            Some(b) => serde_json::to_vec(b)
                .map_err(|e| ClientError::InvalidSettings(format!("request body: {e}")))?,
            None => Vec::new(),
        };
        self.send_with_retry(retry, || {
            let headers = auth::sign(
                &self.settings.access_key,
                &self.settings.secret_key,
                &auth::RequestToSign {
                    method: method.as_str(),
                    path_and_query: &signed_path,
                    host: &self.host,
                    api_version: &version,
                    now: Utc::now(),
                },
            );
            let mut rb = self
                .http
                .request(method.to_reqwest(), url.clone())
                .header(reqwest::header::HOST, &self.host)
                .header(reqwest::header::DATE, headers.date)
                .header(reqwest::header::CONTENT_TYPE, auth::CONTENT_TYPE)
                .header(reqwest::header::ACCEPT, "application/json")
                .header("X-BackendAI-Version", &version)
                .header("X-BackendAI-Domain", &self.settings.domain)
                .header(reqwest::header::AUTHORIZATION, headers.authorization);
            if body.is_some() {
                rb = rb.body(payload.clone());
            }
            rb
        })
    }

    /// Send (building the request afresh each time: the Date and signature change), retrying
    /// when `retry` on no answer and on 5xx.
    fn send_with_retry(
        &self,
        retry: bool,
        build: impl Fn() -> blocking::RequestBuilder,
    ) -> Result<(u16, String), ClientError> {
        let attempts = if retry { self.retry.attempts.max(1) } else { 1 };
        let mut n = 0;
        loop {
            n += 1;
            let sent = build().build().and_then(|req| {
                self.log_request(&req);
                self.http.execute(req)
            });
            let outcome = match sent {
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    match resp.text() {
                        Ok(t) => Attempt::Answer(status, t),
                        Err(e) if e.is_timeout() || e.is_body() || e.is_decode() => {
                            Attempt::NoAnswer(describe(&e))
                        }
                        Err(e) => {
                            return Err(ClientError::InvalidResponse(describe(&e)));
                        }
                    }
                }
                Err(e) if e.is_builder() => {
                    return Err(ClientError::InvalidSettings(describe(&e)));
                }
                Err(e) => Attempt::NoAnswer(describe(&e)),
            };
            let again = n < attempts
                && match &outcome {
                    Attempt::NoAnswer(_) => true,
                    Attempt::Answer(status, _) => *status >= 500,
                };
            if again {
                std::thread::sleep(self.retry.delay(n));
                continue;
            }
            return match outcome {
                Attempt::Answer(status, text) => Ok((status, text)),
                Attempt::NoAnswer(detail) => Err(ClientError::Unreachable {
                    endpoint: self.base.clone(),
                    detail,
                }),
            };
        }
    }
}

/// A reqwest error in one line, without the URL (we name the endpoint ourselves), with
/// its causes (e.g. `error sending request: client error (Connect): tcp connect error:
/// Connection refused (os error 111)`).
fn describe(e: &reqwest::Error) -> String {
    let mut s = String::new();
    let mut cur: Option<&dyn std::error::Error> = Some(e);
    while let Some(err) = cur {
        let part = err.to_string();
        let part = match err.downcast_ref::<reqwest::Error>() {
            // reqwest's Display appends " for url (...)"; drop it
            Some(_) => part.split(" for url (").next().unwrap_or(&part).to_string(),
            None => part,
        };
        if !part.is_empty() && !s.contains(&part) {
            if !s.is_empty() {
                s.push_str(": ");
            }
            s.push_str(&part);
        }
        cur = err.source();
    }
    if e.is_timeout() && !s.contains("timed out") {
        s.push_str(" (timed out)");
    }
    s
}

/// At most 300 characters of a body, for messages.
fn excerpt(text: &str) -> String {
    let t = text.trim();
    match t.char_indices().nth(300) {
        Some((i, _)) => format!("{}...", &t[..i]),
        None => t.to_string(),
    }
}

/// A status and body into the caller's result: 2xx → the JSON body; else the error.
fn interpret(status: u16, text: &str) -> Result<Value, ClientError> {
    let parsed: Option<Value> = if text.trim().is_empty() {
        Some(Value::Null)
    } else {
        serde_json::from_str(text).ok()
    };
    if (200..300).contains(&status) {
        return parsed.ok_or_else(|| {
            ClientError::InvalidResponse(format!(
                "HTTP {status} with a non-JSON body: {}",
                excerpt(text)
            ))
        });
    }
    let body = parsed.unwrap_or(Value::Null);
    let field = |k: &str| {
        body.get(k)
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_default()
    };
    let title = field("title");
    let msg = field("msg");
    let message = if !msg.is_empty() {
        msg
    } else if !title.is_empty() {
        title.clone()
    } else if body.is_object() {
        body.to_string()
    } else {
        excerpt(text)
    };
    Err(match status {
        401 | 403 => ClientError::AuthRejected {
            status,
            message: if title.is_empty() || title == message {
                message
            } else {
                format!("{title} ({message})")
            },
        },
        400..=499 => ClientError::BadRequest {
            status,
            error_code: body
                .get("error_code")
                .and_then(Value::as_str)
                .map(str::to_string),
            title,
            message,
            body,
        },
        500..=599 => ClientError::ServerError { status, message },
        _ => ClientError::InvalidResponse(format!("unexpected HTTP {status}: {message}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn settings(endpoint: &str) -> Settings {
        Settings {
            endpoint: endpoint.into(),
            access_key: "AKTEST".into(),
            secret_key: "very-secret-key".into(),
            domain: "default".into(),
            group: "default".into(),
            skip_tls_verify: false,
        }
    }

    #[test]
    fn versions_parse_compare_and_print() {
        let v7 = ApiVersion::parse("v7.20230615").unwrap();
        assert_eq!(v7, MIN_API_VERSION);
        assert_eq!(v7.to_string(), "v7.20230615");
        assert!(ApiVersion::parse("v8.20240315").unwrap() > v7);
        assert!(ApiVersion::parse("v7.20230101").unwrap() < v7);
        assert_eq!(ApiVersion::parse("9.20250722"), Some(CLIENT_API_VERSION));
        assert_eq!(ApiVersion::parse("v9"), None);
        assert_eq!(ApiVersion::parse("v9.2025"), None);
        assert_eq!(ApiVersion::parse("vx.20250722"), None);
    }

    #[test]
    fn settings_debug_never_shows_the_secret() {
        let s = settings("http://h:1");
        let d = format!("{s:?}");
        assert!(!d.contains("very-secret-key"), "{d}");
        assert!(d.contains("<redacted>") && d.contains("AKTEST"), "{d}");
        let c = Client::new(s).unwrap();
        let d = format!("{c:?}");
        assert!(!d.contains("very-secret-key"), "{d}");
    }

    #[test]
    fn settings_from_env_use_the_sdk_names_and_defaults() {
        let env = |k: &str| match k {
            "BACKEND_ENDPOINT" => Some("http://127.0.0.1:8081".to_string()),
            "BACKEND_ACCESS_KEY" => Some("AK".to_string()),
            "BACKEND_SECRET_KEY" => Some("SK".to_string()),
            "BACKEND_SKIP_SSLCERT_VALIDATION" => Some("yes".to_string()),
            "BACKEND_GROUP" => Some(String::new()),
            _ => None,
        };
        let s = Settings::from_env(env).unwrap();
        assert_eq!(s.endpoint, "http://127.0.0.1:8081");
        assert_eq!(
            (s.domain.as_str(), s.group.as_str()),
            ("default", "default")
        );
        assert!(s.skip_tls_verify);
        assert_eq!(Settings::from_env(|_| None), None);
    }

    #[test]
    fn bad_settings_are_refused_up_front() {
        for (ep, what) in [
            ("", "no endpoint"),
            ("ftp://h", "http"),
            ("http://u:p@h", "user:password"),
            ("not a url", "not a URL"),
        ] {
            let e = Client::new(settings(ep)).unwrap_err();
            assert!(
                matches!(&e, ClientError::InvalidSettings(m) if m.contains(what)),
                "{ep}: {e}"
            );
        }
        let mut s = settings("http://h");
        s.secret_key.clear();
        assert!(matches!(
            Client::new(s),
            Err(ClientError::InvalidSettings(_))
        ));
    }

    #[test]
    fn the_host_header_has_the_port_only_when_it_is_not_the_default() {
        assert_eq!(
            Client::new(settings("http://127.0.0.1:8081")).unwrap().host,
            "127.0.0.1:8081"
        );
        assert_eq!(
            Client::new(settings("https://api.example.com:443/"))
                .unwrap()
                .host,
            "api.example.com"
        );
        assert_eq!(
            Client::new(settings("http://[::1]:80")).unwrap().host,
            "[::1]"
        );
        let c = Client::new(settings("https://h.example/api/, https://other")).unwrap();
        assert_eq!(c.endpoint(), "https://h.example/api");
    }

    #[test]
    fn error_bodies_become_typed_errors() {
        let e = interpret(
            401,
            r#"{"type":"https://api.backend.ai/probs/auth-failed","title":"Credential/signature mismatch.","error_code":"user_auth_unauthorized","msg":"Access key not found in HMAC"}"#,
        )
        .unwrap_err();
        assert_eq!(
            e,
            ClientError::AuthRejected {
                status: 401,
                message: "Credential/signature mismatch. (Access key not found in HMAC)".into()
            }
        );
        let e = interpret(
            400,
            r#"{"type":"x","title":"Invalid API parameters.","msg":"batchTimeout is not allowed key"}"#,
        )
        .unwrap_err();
        assert!(
            matches!(&e, ClientError::BadRequest { status: 400, title, message, .. }
            if title == "Invalid API parameters." && message == "batchTimeout is not allowed key")
        );
        assert_eq!(
            e.to_string(),
            "Backend.AI rejected the request (400): Invalid API parameters. (batchTimeout is not allowed key)"
        );
        let e = interpret(404, r#"{"title":"No such session."}"#).unwrap_err();
        assert!(e.is_not_found());
        let e = interpret(502, "<html>bad gateway</html>").unwrap_err();
        assert_eq!(
            e,
            ClientError::ServerError {
                status: 502,
                message: "<html>bad gateway</html>".into()
            }
        );
        assert_eq!(interpret(204, "").unwrap(), Value::Null);
        assert!(matches!(
            interpret(200, "not json"),
            Err(ClientError::InvalidResponse(_))
        ));
    }

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let p = RetryPolicy::default();
        assert_eq!(p.delay(1), Duration::from_millis(250));
        assert_eq!(p.delay(2), Duration::from_millis(500));
        assert_eq!(p.delay(3), Duration::from_secs(1));
        assert_eq!(p.delay(4), Duration::from_secs(2));
        assert_eq!(p.delay(30), Duration::from_secs(2));
    }

    /// A tiny HTTP/1.1 server on 127.0.0.1 answering each connection with the next canned
    /// response (status, body) and recording the request heads.
    struct Fake {
        endpoint: String,
        hits: Arc<AtomicUsize>,
        heads: Arc<Mutex<Vec<String>>>,
    }

    fn fake(responses: Vec<(u16, &'static str)>) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let hits = Arc::new(AtomicUsize::new(0));
        let heads = Arc::new(Mutex::new(Vec::new()));
        let (h, hd) = (hits.clone(), heads.clone());
        std::thread::spawn(move || {
            for (status, body) in responses {
                let Ok((mut s, _)) = listener.accept() else {
                    return;
                };
                let mut r = BufReader::new(s.try_clone().unwrap());
                let mut head = String::new();
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                    head.push_str(&line);
                }
                let mut b = vec![0; len];
                let _ = r.read_exact(&mut b);
                hd.lock().unwrap().push(head);
                h.fetch_add(1, Ordering::SeqCst);
                let _ = write!(
                    s,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Fake {
            endpoint,
            hits,
            heads,
        }
    }

    fn quick() -> Options {
        Options {
            retry: RetryPolicy {
                attempts: 3,
                first_delay: Duration::from_millis(1),
                max_delay: Duration::from_millis(2),
            },
            ..Options::default()
        }
    }

    const ROOT_V7: &str = r#"{"version":"v7.20230615","manager":"23.09.10"}"#;

    #[test]
    fn negotiation_sends_the_lower_version_and_signs_each_request() {
        let f = fake(vec![(200, ROOT_V7), (200, r#"{"ok":true}"#)]);
        let c = Client::with_options(settings(&f.endpoint), quick()).unwrap();
        let (st, v) = c
            .request(Method::Get, "/session/a%20b/logs?x=1", None)
            .unwrap();
        assert_eq!((st, v), (200, json!({"ok": true})));
        let heads = f.heads.lock().unwrap().clone();
        assert!(heads[0].starts_with("GET / HTTP/1.1"), "{}", heads[0]);
        let h = heads[1].to_ascii_lowercase();
        assert!(h.starts_with("get /session/a%20b/logs?x=1 http/1.1"), "{h}");
        assert!(h.contains("x-backendai-version: v7.20230615"), "{h}");
        assert!(
            h.contains("authorization: backendai signmethod=hmac-sha256, credential=aktest:"),
            "{h}"
        );
        let host = f.endpoint.trim_start_matches("http://");
        assert!(h.contains(&format!("host: {host}\r\n")), "{h}");
        assert!(!h.contains("very-secret-key"));
        let info = c.server_info().unwrap();
        assert_eq!(info.manager, "23.09.10");
        assert_eq!(info.api_version, MIN_API_VERSION);
        assert_eq!(f.hits.load(Ordering::SeqCst), 2, "negotiated once");
    }

    #[test]
    fn a_newer_server_gets_our_version_and_an_older_one_is_refused() {
        let f = fake(vec![(
            200,
            r#"{"version":"v10.20270101","manager":"27.1"}"#,
        )]);
        let c = Client::with_options(settings(&f.endpoint), quick()).unwrap();
        assert_eq!(c.api_version().unwrap(), CLIENT_API_VERSION);
        let f = fake(vec![(
            200,
            r#"{"version":"v6.20230315","manager":"23.03"}"#,
        )]);
        let c = Client::with_options(settings(&f.endpoint), quick()).unwrap();
        assert_eq!(
            c.api_version().unwrap_err(),
            ClientError::UnsupportedVersion {
                server: "v6.20230315".into()
            }
        );
    }

    #[test]
    fn reads_are_retried_on_5xx_and_writes_are_not() {
        let f = fake(vec![
            (200, ROOT_V7),
            (503, r#"{"title":"busy"}"#),
            (502, "gateway"),
            (200, r#"{"data":{"x":1}}"#),
            (500, r#"{"title":"Internal server error","msg":"boom"}"#),
        ]);
        let c = Client::with_options(settings(&f.endpoint), quick()).unwrap();
        assert_eq!(c.graphql("{ x }", json!({})).unwrap(), json!({"x": 1}));
        assert_eq!(f.hits.load(Ordering::SeqCst), 4);
        let e = c
            .request(Method::Post, "/session", Some(&json!({"name": "x"})))
            .unwrap_err();
        assert_eq!(
            e,
            ClientError::ServerError {
                status: 500,
                message: "boom".into()
            }
        );
        assert_eq!(f.hits.load(Ordering::SeqCst), 5, "the POST was sent once");
    }

    #[test]
    fn a_delete_is_retried_when_the_manager_fails_it() {
        // 23.09 under load: a serialization conflict in its database answers 500.
        let f = fake(vec![
            (200, ROOT_V7),
            (500, r#"{"title":"Internal server error"}"#),
            (200, "{}"),
        ]);
        let c = Client::with_options(settings(&f.endpoint), quick()).unwrap();
        assert!(c.request(Method::Delete, "/session/x", None).is_ok());
        assert_eq!(f.hits.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn graphql_errors_in_a_200_are_errors() {
        let f = fake(vec![
            (200, ROOT_V7),
            (
                200,
                r#"{"data":null,"errors":[{"message":"Cannot query field \"nope\"","locations":[]}]}"#,
            ),
        ]);
        let c = Client::with_options(settings(&f.endpoint), quick()).unwrap();
        assert_eq!(
            c.graphql("{ nope }", json!({})).unwrap_err(),
            ClientError::GraphQl {
                messages: vec!["Cannot query field \"nope\"".into()]
            }
        );
    }

    #[test]
    fn a_closed_port_is_unreachable_after_retries() {
        let port = {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let c =
            Client::with_options(settings(&format!("http://127.0.0.1:{port}")), quick()).unwrap();
        let e = c.request(Method::Get, "/", None).unwrap_err();
        assert!(e.is_unreachable(), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains(&format!("127.0.0.1:{port}")), "{msg}");
        assert!(!msg.contains("very-secret-key"));
    }
}
