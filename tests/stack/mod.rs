//! Helpers of the tests that run against the real Backend.AI stack (ci/backendai/up.sh).
// Each test binary includes this module and uses a different part of it.
#![allow(dead_code)]

use bai_slurm::backend::backendai::client::{Client, Method};
use serde_json::json;
use std::path::{Path, PathBuf};

pub const HOW: &str = "a Backend.AI test stack is needed: run `ci/backendai/up.sh` (23.09) or \
                       `ci/backendai26/up.sh` (26.9) as root, then `. ci/backendai/env.sh` or \
                       `. ci/backendai26/env.sh` before `cargo test` (./scripts/test.sh does both, \
                       for each)";

/// A vfolder of the keypair (made when missing) and its directory on this host.
pub fn vfolder(client: &Client, name: &str) -> PathBuf {
    let (_, list) = client
        .request(Method::Get, "/folders", None)
        .expect("GET /folders");
    let existing = list
        .as_array()
        .and_then(|a| a.iter().find(|f| f["name"] == name))
        .and_then(|f| f["id"].as_str().map(str::to_string));
    let id = match existing {
        Some(id) => id,
        None => {
            let (_, made) = client
                .request(
                    Method::Post,
                    "/folders",
                    Some(&json!({ "name": name, "host": "local:volume1" })),
                )
                .unwrap_or_else(|e| panic!("creating vfolder {name}: {e}"));
            made["id"].as_str().expect("vfolder id").to_string()
        }
    };
    let id = id.replace('-', "");
    // storage-proxy's vfs layout: <volume>/<quota scope>/<id[0:2]>/<id[2:4]>/<id[4:]>
    let volume = Path::new(&std::env::var("BAI_STATE").unwrap_or_else(|_| "/tmp/bai-stack".into()))
        .join("vfroot/local/volume1");
    let scopes =
        std::fs::read_dir(&volume).unwrap_or_else(|e| panic!("{}: {e}; {HOW}", volume.display()));
    for scope in scopes.flatten() {
        let dir = scope.path().join(&id[0..2]).join(&id[2..4]).join(&id[4..]);
        if dir.is_dir() {
            return dir;
        }
    }
    panic!(
        "vfolder {name} ({id}) has no directory under {}",
        volume.display()
    );
}

/// The session log without the kernel runner's colour codes (`ESC [ ... <letter>`) and
/// the TTY's carriage returns.
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\u{1b}' && it.peek() == Some(&'[') {
            it.next();
            for d in it.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else if c != '\r' {
            out.push(c);
        }
    }
    out
}
