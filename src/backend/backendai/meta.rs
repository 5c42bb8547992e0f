//! What a Backend.AI session carries about its Slurm job.
//!
//! The session's startup command is `<launcher> __bai-launch <meta>`, where `<meta>` is the
//! job's request (its JobSpec without script and environment), its id, array task and owner,
//! as URL-safe base64 of JSON. GraphQL returns the startup command with every session, so
//! squeue and sacct get all they show from one query. The script and the job's environment
//! travel in the session's environ instead (they can be large; GraphQL does not return them).

use crate::model::JobSpec;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

/// The hidden command the startup command runs.
pub const LAUNCH_COMMAND: &str = "__bai-launch";
/// Environ key holding the batch script (base64).
pub const SCRIPT_ENV: &str = "BAI_SLURM_SCRIPT";
/// Environ key holding the job's PATH (the container's entrypoint needs the image's own).
pub const PATH_ENV: &str = "BAI_SLURM_PATH";
/// The line the launcher prints last: `__BAI_SLURM_RESULT__ <kind> <rc>:<sig>`.
pub const RESULT_MARKER: &str = "__BAI_SLURM_RESULT__";

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct JobMeta {
    /// Format version, for sessions made by older bai-slurm.
    pub v: u32,
    pub job_id: u32,
    pub array_task: Option<u32>,
    pub user: String,
    pub uid: u32,
    pub gid: u32,
    pub group: String,
    pub cluster: String,
    pub submit_time: i64,
    /// Seconds between SIGTERM and SIGKILL at the time limit.
    pub kill_wait: u32,
    /// Whether the launcher must enforce the time limit itself (servers before API v8).
    pub enforce_time_limit: bool,
    pub spec: JobSpec,
}

impl JobMeta {
    pub fn encode(&self) -> String {
        let mut slim = self.clone();
        slim.spec.script.clear();
        slim.spec.environment.clear();
        let json = serde_json::to_vec(&slim).unwrap_or_default();
        URL_SAFE_NO_PAD.encode(json)
    }

    pub fn decode(text: &str) -> Option<JobMeta> {
        let bytes = URL_SAFE_NO_PAD.decode(text.trim()).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Finds the metadata in a startup command made by [`startup_command`].
    pub fn from_startup_command(cmd: &str) -> Option<JobMeta> {
        let mut words = cmd.split_whitespace();
        words.find(|w| *w == LAUNCH_COMMAND)?;
        JobMeta::decode(words.next()?)
    }
}

/// The startup command of a job's session.
pub fn startup_command(launcher: &str, meta: &JobMeta) -> String {
    format!("{launcher} {LAUNCH_COMMAND} {}", meta.encode())
}

pub fn encode_script(script: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(script)
}

pub fn decode_script(text: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(text.trim()).ok()
}

/// How a job ended, as the launcher reports it in its last log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchResult {
    pub kind: ResultKind,
    pub exit: crate::model::ExitStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultKind {
    Exited,
    TimedOut,
    Cancelled,
    LaunchFailed,
}

impl ResultKind {
    pub fn word(self) -> &'static str {
        match self {
            ResultKind::Exited => "exited",
            ResultKind::TimedOut => "timeout",
            ResultKind::Cancelled => "cancelled",
            ResultKind::LaunchFailed => "launch-failed",
        }
    }
}

pub fn result_line(r: &LaunchResult) -> String {
    format!("{RESULT_MARKER} {} {}", r.kind.word(), r.exit)
}

/// Finds the launcher's result in a session's log (the container's console has CRLF line
/// ends and start-up noise; the last marker wins).
pub fn parse_result(log: &str) -> Option<LaunchResult> {
    log.lines().rev().find_map(|line| {
        let rest = line.trim_end_matches('\r').split(RESULT_MARKER).nth(1)?;
        let mut words = rest.split_whitespace();
        let kind = match words.next()? {
            "exited" => ResultKind::Exited,
            "timeout" => ResultKind::TimedOut,
            "cancelled" => ResultKind::Cancelled,
            "launch-failed" => ResultKind::LaunchFailed,
            _ => return None,
        };
        let (rc, sig) = words.next()?.split_once(':')?;
        Some(LaunchResult {
            kind,
            exit: crate::model::ExitStatus {
                code: rc.parse().ok()?,
                signal: sig.parse().ok()?,
            },
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_survives_the_startup_command() {
        let meta = JobMeta {
            v: 1,
            job_id: 62_000_001,
            array_task: Some(3),
            user: "alice".into(),
            uid: 1001,
            spec: JobSpec {
                name: "train".into(),
                script: b"#!/bin/sh\n".to_vec(),
                ..Default::default()
            },
            ..Default::default()
        };
        let cmd = startup_command("/opt/bai-slurm/bai-slurm", &meta);
        assert!(cmd.starts_with("/opt/bai-slurm/bai-slurm __bai-launch "));
        let back = JobMeta::from_startup_command(&cmd).unwrap();
        assert_eq!(back.job_id, 62_000_001);
        assert_eq!(back.spec.name, "train");
        assert!(
            back.spec.script.is_empty(),
            "the script travels in the environ"
        );
        assert_eq!(JobMeta::from_startup_command("python3 app.py"), None);
    }

    #[test]
    fn results_are_found_in_noisy_logs() {
        let log =
            "entrypoint noise\r\nhello\r\n__BAI_SLURM_RESULT__ exited 3:0\r\nkrunner exit\r\n";
        let r = parse_result(log).unwrap();
        assert_eq!(
            (r.kind, r.exit.code, r.exit.signal),
            (ResultKind::Exited, 3, 0)
        );
        assert_eq!(parse_result("no marker"), None);
        let line = result_line(&LaunchResult {
            kind: ResultKind::TimedOut,
            exit: crate::model::ExitStatus::signal(15),
        });
        assert_eq!(parse_result(&line).unwrap().kind, ResultKind::TimedOut);
    }
}
