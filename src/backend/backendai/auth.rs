//! Backend.AI's HMAC-SHA256 request signing, exactly as the manager checks it
//! (`ai.backend.manager.api.auth`: `check_date`, `sign_request`; client side
//! `ai.backend.common.auth.utils.generate_signature`).
//!
//! For every request the client sends
//!
//! ```text
//! Date: 2026-11-30T13:50:00+00:00
//! Content-Type: application/json
//! X-BackendAI-Version: v7.20230615
//! Authorization: BackendAI signMethod=HMAC-SHA256, credential=<ACCESS_KEY>:<hex signature>
//! ```
//!
//! where the signature is `hex(HMAC(k2, string_to_sign))` with
//! `k1 = HMAC(secret_key, "YYYYMMDD" of the Date header)`, `k2 = HMAC(k1, host)` and `host`
//! the `Host` header as sent (with `:port` unless it is the scheme's default). The string to
//! sign joins, with `\n` and no trailing newline: the method, the raw path with its query
//! string, the Date header, `host:<host>`, `content-type:<mime type>`,
//! `x-backendai-version:<version>`, and the hex SHA-256 of the EMPTY body: since API
//! v4.20181215 the manager does not hash the real body (so the body is not signed).
//!
//! The manager rejects a Date more than 15 minutes away from its own clock.
//!
//! Everything here is a pure function; `client.rs` does the I/O.

use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

type HmacSha256 = Hmac<Sha256>;

/// The only signing method the manager knows.
pub const SIGN_METHOD: &str = "HMAC-SHA256";

/// The content type we always send, also on GET and DELETE, because it is signed.
pub const CONTENT_TYPE: &str = "application/json";

/// Hex SHA-256 of the empty string: the "body hash" of every request since API v4.20181215.
pub const EMPTY_BODY_SHA256: &str =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// The `Date` header as the official SDK writes it (`datetime.isoformat()` of an aware UTC
/// time without microseconds): `2026-11-30T13:50:00+00:00`.
pub fn date_header(now: DateTime<Utc>) -> String {
    now.format("%Y-%m-%dT%H:%M:%S+00:00").to_string()
}

fn hmac_sha256(key: &[u8], data: &[u8]) -> [u8; 32] {
    // HMAC takes keys of any length; new_from_slice cannot fail.
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC accepts any key length");
    mac.update(data);
    mac.finalize().into_bytes().into()
}

/// The per-day, per-host signing key: `HMAC(HMAC(secret_key, "YYYYMMDD"), host)`.
/// `date` is the UTC day of the Date header.
pub fn signing_key(secret_key: &str, date: DateTime<Utc>, host: &str) -> [u8; 32] {
    let k1 = hmac_sha256(
        secret_key.as_bytes(),
        date.format("%Y%m%d").to_string().as_bytes(),
    );
    hmac_sha256(&k1, host.as_bytes())
}

/// The string the signature covers. `path_and_query` is exactly what goes on the request
/// line (e.g. `/session/foo/logs?owner_access_key=X`), `date` the Date header as sent,
/// `host` the Host header as sent, `content_type` the MIME type without parameters.
pub fn string_to_sign(
    method: &str,
    path_and_query: &str,
    date: &str,
    host: &str,
    content_type: &str,
    api_version: &str,
) -> String {
    format!(
        "{method}\n{path_and_query}\n{date}\nhost:{host}\ncontent-type:{}\nx-backendai-version:{api_version}\n{EMPTY_BODY_SHA256}",
        content_type.to_ascii_lowercase()
    )
}

/// Hex HMAC-SHA256 of `string_to_sign` under `key` (from [`signing_key`]).
pub fn signature(key: &[u8; 32], string_to_sign: &str) -> String {
    hex::encode(hmac_sha256(key, string_to_sign.as_bytes()))
}

/// The `Authorization` header value.
pub fn authorization_header(access_key: &str, signature: &str) -> String {
    format!("BackendAI signMethod={SIGN_METHOD}, credential={access_key}:{signature}")
}

/// What one request needs signed.
#[derive(Debug, Clone, Copy)]
pub struct RequestToSign<'a> {
    pub method: &'a str,
    pub path_and_query: &'a str,
    pub host: &'a str,
    pub api_version: &'a str,
    pub now: DateTime<Utc>,
}

/// The headers that make a request authenticated (besides `Host`, which must be the
/// `host` that was signed, and `Content-Type`, which must be [`CONTENT_TYPE`]).
#[derive(Clone, PartialEq, Eq)]
pub struct SignedHeaders {
    pub date: String,
    pub authorization: String,
}

impl std::fmt::Debug for SignedHeaders {
    // The signature is only valid for one request, but keep it out of logs anyway.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignedHeaders")
            .field("date", &self.date)
            .field(
                "authorization",
                &"BackendAI signMethod=HMAC-SHA256, credential=<redacted>",
            )
            .finish()
    }
}

/// Sign one request with a keypair.
pub fn sign(access_key: &str, secret_key: &str, req: &RequestToSign<'_>) -> SignedHeaders {
    let date = date_header(req.now);
    let key = signing_key(secret_key, req.now, req.host);
    let sts = string_to_sign(
        req.method,
        req.path_and_query,
        &date,
        req.host,
        CONTENT_TYPE,
        req.api_version,
    );
    SignedHeaders {
        authorization: authorization_header(access_key, &signature(&key, &sts)),
        date,
    }
}

/// Hex SHA-256 of some bytes (exposed for tests and diagnostics).
pub fn sha256_hex(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    // Expected values computed with the reference signer (backendai-stack/bai_req.py, which
    // authenticated against real 23.09.10 and 26.9.6 managers) for the same inputs.

    const USER_SK: &str = "C8qnIo29EZvXkPK_MXcuAakYTy4NYrxwmCEyNPlf";
    const ADMIN_SK: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

    #[test]
    fn the_empty_body_hash_is_sha256_of_nothing() {
        assert_eq!(sha256_hex(b""), EMPTY_BODY_SHA256);
    }

    #[test]
    fn the_date_header_is_isoformat_with_an_explicit_utc_offset() {
        let t = Utc.with_ymd_and_hms(2026, 11, 30, 13, 50, 0).unwrap();
        assert_eq!(date_header(t), "2026-11-30T13:50:00+00:00");
        let t = Utc.timestamp_opt(1_767_398_399, 999_000_000).unwrap();
        assert_eq!(date_header(t), "2026-01-02T23:59:59+00:00");
    }

    #[test]
    fn vector_get_with_query_string_and_port() {
        let now = Utc.with_ymd_and_hms(2026, 11, 30, 13, 50, 0).unwrap();
        let path = "/session/j123-test/logs?owner_access_key=AKIANABBDUSEREXAMPLE";
        let key = signing_key(USER_SK, now, "127.0.0.1:8081");
        assert_eq!(
            hex::encode(key),
            "87c0dd3cf8caaf6a50891fcc9306b902ec2a09720cddf36525949bbad78477fd"
        );
        let sts = string_to_sign(
            "GET",
            path,
            &date_header(now),
            "127.0.0.1:8081",
            CONTENT_TYPE,
            "v7.20230615",
        );
        assert_eq!(
            sts,
            "GET\n/session/j123-test/logs?owner_access_key=AKIANABBDUSEREXAMPLE\n\
             2026-11-30T13:50:00+00:00\nhost:127.0.0.1:8081\ncontent-type:application/json\n\
             x-backendai-version:v7.20230615\n\
             e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            signature(&key, &sts),
            "843b4bf51bce78031905a410cf8c917360574fa47b64f32e74fc2d3578de6efd"
        );
        let h = sign(
            "AKIANABBDUSEREXAMPLE",
            USER_SK,
            &RequestToSign {
                method: "GET",
                path_and_query: path,
                host: "127.0.0.1:8081",
                api_version: "v7.20230615",
                now,
            },
        );
        assert_eq!(h.date, "2026-11-30T13:50:00+00:00");
        assert_eq!(
            h.authorization,
            "BackendAI signMethod=HMAC-SHA256, credential=AKIANABBDUSEREXAMPLE:\
             843b4bf51bce78031905a410cf8c917360574fa47b64f32e74fc2d3578de6efd"
        );
    }

    #[test]
    fn vector_post_on_a_default_port_host_at_the_end_of_a_day() {
        let now = Utc.with_ymd_and_hms(2026, 1, 2, 23, 59, 59).unwrap();
        let key = signing_key(ADMIN_SK, now, "api.example.com");
        assert_eq!(
            hex::encode(key),
            "12ce56974435d28c719efa47d5853184d8dee3dfb37aed196866c5d05d0c552b"
        );
        let h = sign(
            "AKIAIOSFODNN7EXAMPLE",
            ADMIN_SK,
            &RequestToSign {
                method: "POST",
                path_and_query: "/admin/gql",
                host: "api.example.com",
                api_version: "v9.20250722",
                now,
            },
        );
        assert_eq!(h.date, "2026-01-02T23:59:59+00:00");
        assert_eq!(
            h.authorization,
            "BackendAI signMethod=HMAC-SHA256, credential=AKIAIOSFODNN7EXAMPLE:\
             53b69d81f2c01e8aefba2437729652af4f150ba7f5ce5f6d0f06d3d5660eb450"
        );
    }

    #[test]
    fn the_content_type_is_signed_lower_case() {
        let a = string_to_sign("GET", "/", "d", "h", "Application/JSON", "v");
        let b = string_to_sign("GET", "/", "d", "h", "application/json", "v");
        assert_eq!(a, b);
    }

    #[test]
    fn the_day_and_host_change_the_key() {
        let d1 = Utc.with_ymd_and_hms(2026, 1, 2, 23, 59, 59).unwrap();
        let d2 = Utc.with_ymd_and_hms(2026, 1, 3, 0, 0, 0).unwrap();
        assert_ne!(signing_key("s", d1, "h"), signing_key("s", d2, "h"));
        assert_ne!(signing_key("s", d1, "h:1"), signing_key("s", d1, "h"));
        // same day, other second: same key
        let d3 = Utc.with_ymd_and_hms(2026, 1, 2, 0, 0, 0).unwrap();
        assert_eq!(signing_key("s", d1, "h"), signing_key("s", d3, "h"));
    }

    #[test]
    fn debug_output_hides_the_signature() {
        let h = SignedHeaders {
            date: "d".into(),
            authorization: "BackendAI signMethod=HMAC-SHA256, credential=AK:deadbeef".into(),
        };
        let s = format!("{h:?}");
        assert!(!s.contains("deadbeef") && !s.contains("AK:"), "{s}");
    }
}
