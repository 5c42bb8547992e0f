//! The local backend's system mode (`[local] mode = "system"`): one queue for every user
//! of the machine. `bai-slurm service` (root, server.rs) owns the state directory and
//! answers the commands of every user over a Unix socket, knowing each caller by the
//! kernel's word (SO_PEERCRED), never by what the caller says; the commands reach it
//! through [`client::SystemCluster`], the same `Cluster` the commands always use. Jobs'
//! launchers run as their users and record their jobs through the same socket
//! (ledger.rs).

pub mod client;
pub mod server;
pub mod wire;
