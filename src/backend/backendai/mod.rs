//! The Backend.AI backend: jobs run as Backend.AI batch sessions.
//!
//! - `auth`: HMAC-SHA256 request signing (pure functions).
//! - `client`: a blocking REST + GraphQL client with version negotiation, retries for
//!   reads, and typed errors.

pub mod auth;
pub mod client;
