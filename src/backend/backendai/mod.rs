//! The Backend.AI backend: every job is a Backend.AI batch session.
//!
//! - `auth`: HMAC-SHA256 request signing (pure functions).
//! - `client`: a blocking REST + GraphQL client with version negotiation, retries for
//!   reads, and typed errors.
//! - `jobid`, `tag`, `submit`, `records`: Slurm ids, the session tag, the creation payload
//!   (with the job's metadata, `launcher::meta`, the launcher's side of the contract),
//!   and session -> Slurm record mapping.

pub mod allocation;
pub mod auth;
pub mod cache;
pub mod client;
pub mod cluster;
pub mod depends;
pub mod handling;
pub mod jobid;
pub mod marks;
pub mod partitions;
pub mod placement;
pub mod records;
pub mod settings;
pub mod stash;
pub mod submission;
pub mod submit;
pub mod tag;
pub mod tunnel;
pub mod views;
