//! What a Backend.AI session carries about its Slurm job, and what its launcher reports:
//! the contract between the Backend.AI backend (which writes the session) and the
//! launcher in the container (`container.rs`, which reads it and prints the results).
//!
//! The session's startup command is `<launcher> __bai-launch`; its environ holds the job's
//! metadata in `BAI_SLURM_META` (the JobSpec without script and environment, its id, array
//! task and owner, as URL-safe base64 of JSON) and the script in `BAI_SLURM_SCRIPT`.
//! Backend.AI's session listing returns neither environ nor the startup command (23.09
//! stores the command on kernels only), so the login side keeps each job's metadata in its
//! cache: sbatch writes it; otherwise it is read once from the first line the launcher
//! prints into the log of a finished job. Until then the session's tag gives squeue the
//! owner, time limit and name (`backend::backendai::tag`).

use crate::model::JobSpec;
use crate::model::job::StepRecord;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

/// The hidden command the startup command runs.
pub const LAUNCH_COMMAND: &str = "__bai-launch";
/// Environ key holding the batch script (base64).
pub const SCRIPT_ENV: &str = "BAI_SLURM_SCRIPT";
/// Environ key holding the encoded [`JobMeta`].
pub const META_ENV: &str = "BAI_SLURM_META";
/// The line the launcher prints first: `__BAI_SLURM_META__ <meta>`.
pub const META_MARKER: &str = "__BAI_SLURM_META__";
/// Environ key holding the job's PATH (the container's entrypoint needs the image's own).
pub const PATH_ENV: &str = "BAI_SLURM_PATH";
/// The names of the job's variables whose value is empty, one per line (Backend.AI refuses
/// a blank environ value; the launcher sets them again).
pub const BLANK_ENV: &str = "BAI_SLURM_BLANK";
/// An allocation made from the login node: the port of node 0's step server and the secret
/// the login node derived for the job (`container::Reached`; the launcher takes them out of
/// the environment at once: the secret must not reach a task).
pub const STEP_PORT_ENV: &str = "BAI_SLURM_STEP_PORT";
pub const STEP_SECRET_ENV: &str = "BAI_SLURM_STEP_SECRET";
/// The line the launcher prints last: `__BAI_SLURM_RESULT__ <kind> <rc>:<sig>`.
pub const RESULT_MARKER: &str = "__BAI_SLURM_RESULT__";
/// The line node 0's launcher prints when a step starts and when it ends:
/// `__BAI_SLURM_STEP__ <step record>` (sacct's `N.0` rows: the session's log is what
/// Backend.AI keeps of a job, so the steps are kept there too).
pub const STEP_MARKER: &str = "__BAI_SLURM_STEP__";

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
    pub spec: JobSpec,
    /// The Slurm release the site replaces: the job's environment follows it.
    pub slurm_version: crate::model::profile::SlurmVersion,
    /// The site's job directory (`[backendai] job_dir`): the launcher leaves the job's
    /// result there and ends its session with success (`gate.rs`).
    pub job_dir: Option<String>,
    /// What the launcher checks before running the script (jobs with a dependency, on a
    /// site with a job directory).
    pub gate: Option<super::gate::Gate>,
    /// Times the job was requeued (`scontrol requeue`): SLURM_RESTART_COUNT, Restarts=.
    pub restarts: u32,
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

    /// The metadata in the launcher's first log line.
    pub fn from_log(log: &str) -> Option<JobMeta> {
        log.lines().find_map(|line| {
            let rest = line.trim_end_matches('\r').split(META_MARKER).nth(1)?;
            JobMeta::decode(rest.split_whitespace().next()?)
        })
    }
}

/// The startup command of a job's session.
pub fn startup_command(launcher: &str) -> String {
    format!("{launcher} {LAUNCH_COMMAND}")
}

/// The launcher's first log line.
pub fn meta_line(encoded: &str) -> String {
    format!("{META_MARKER} {encoded}")
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
    /// When the job ended (seconds since the epoch), as the launcher saw it: sacct's End.
    /// The session ends seconds later (container teardown), or never (see
    /// `records::Session::batch_ended`).
    pub end: Option<i64>,
}

impl LaunchResult {
    /// `exited 3:0 1764520000`: kind, `rc:signal`, end time (older launchers omit it).
    pub fn words(&self) -> String {
        match self.end {
            Some(t) => format!("{} {} {t}", self.kind.word(), self.exit),
            None => format!("{} {}", self.kind.word(), self.exit),
        }
    }

    pub fn from_words(text: &str) -> Option<LaunchResult> {
        let mut words = text.split_whitespace();
        let kind = match words.next()? {
            "exited" => ResultKind::Exited,
            "timeout" => ResultKind::TimedOut,
            "cancelled" => ResultKind::Cancelled,
            "launch-failed" => ResultKind::LaunchFailed,
            "dependency-never-satisfied" => ResultKind::DependencyNeverSatisfied,
            _ => return None,
        };
        let (rc, sig) = words.next()?.split_once(':')?;
        Some(LaunchResult {
            kind,
            exit: crate::model::ExitStatus {
                code: rc.parse().ok()?,
                signal: sig.parse().ok()?,
            },
            end: words.next().and_then(|t| t.parse().ok()),
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultKind {
    Exited,
    TimedOut,
    Cancelled,
    LaunchFailed,
    /// The dependency gate (`gate.rs`) found the job's dependency can never be satisfied:
    /// the script did not run.
    DependencyNeverSatisfied,
}

impl ResultKind {
    pub fn word(self) -> &'static str {
        match self {
            ResultKind::Exited => "exited",
            ResultKind::TimedOut => "timeout",
            ResultKind::Cancelled => "cancelled",
            ResultKind::LaunchFailed => "launch-failed",
            ResultKind::DependencyNeverSatisfied => "dependency-never-satisfied",
        }
    }
}

pub fn result_line(r: &LaunchResult) -> String {
    format!("{RESULT_MARKER} {}", r.words())
}

/// Finds the launcher's result in a session's log (the container's console has CRLF line
/// ends and start-up noise; the last marker wins).
pub fn parse_result(log: &str) -> Option<LaunchResult> {
    log.lines().rev().find_map(|line| {
        LaunchResult::from_words(line.trim_end_matches('\r').split(RESULT_MARKER).nth(1)?)
    })
}

/// A step's line in the log: its record as URL-safe base64 of JSON.
pub fn step_line(step: &StepRecord) -> String {
    let json = serde_json::to_vec(step).unwrap_or_default();
    format!("{STEP_MARKER} {}", URL_SAFE_NO_PAD.encode(json))
}

/// The steps in a session's log, by step id: a step's last line says what is known of it
/// (its end, or only its start when the job ended under it).
pub fn parse_steps(log: &str) -> Vec<StepRecord> {
    let mut steps = std::collections::BTreeMap::new();
    for line in log.lines() {
        let Some(rest) = line.trim_end_matches('\r').split(STEP_MARKER).nth(1) else {
            continue;
        };
        let decoded = URL_SAFE_NO_PAD
            .decode(rest.trim())
            .ok()
            .and_then(|b| serde_json::from_slice::<StepRecord>(&b).ok());
        if let Some(step) = decoded {
            steps.insert(step.step_id, step);
        }
    }
    steps.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_survive_the_log_and_the_last_line_wins() {
        use crate::model::{JobState, StepId};
        let started = StepRecord {
            step_id: StepId::Numbered(1),
            name: "hostname".into(),
            state: JobState::Running,
            start_time: Some(1_764_520_000),
            num_tasks: 2,
            num_nodes: 2,
            nodes: "main1,sub1".into(),
            ..Default::default()
        };
        let ended = StepRecord {
            state: JobState::Failed,
            exit_code: crate::model::ExitStatus::code(3),
            end_time: Some(1_764_520_009),
            ..started.clone()
        };
        let first = StepRecord {
            step_id: StepId::Numbered(0),
            ..ended.clone()
        };
        let log = format!(
            "{}\r\nnoise {}\r\n{}\r\n{STEP_MARKER} garbage\r\n",
            step_line(&started),
            step_line(&first),
            step_line(&ended)
        );
        assert_eq!(parse_steps(&log), vec![first, ended]);
        assert_eq!(parse_steps("no steps here"), vec![]);
    }

    #[test]
    fn metadata_survives_the_log() {
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
        assert_eq!(
            startup_command("/opt/bai-slurm/bai-slurm"),
            "/opt/bai-slurm/bai-slurm __bai-launch"
        );
        let encoded = meta.encode();
        let log = format!("Kernel started\r\n{}\r\nhello\r\n", meta_line(&encoded));
        let back = JobMeta::from_log(&log).unwrap();
        assert_eq!(back.job_id, 62_000_001);
        assert_eq!(back.spec.name, "train");
        assert!(
            back.spec.script.is_empty(),
            "the script travels in the environ"
        );
        assert_eq!(JobMeta::from_log("python3 app.py"), None);
    }

    #[test]
    fn metadata_of_older_versions_still_reads() {
        // Written before `enforce_time_limit` was dropped (the launcher always enforces
        // the limit): unknown fields are ignored, missing ones take their defaults.
        let old = r#"{"v":1,"job_id":7,"user":"alice","uid":1001,"kill_wait":30,
            "enforce_time_limit":true,"spec":{"name":"train"}}"#;
        let meta = JobMeta::decode(&URL_SAFE_NO_PAD.encode(old)).unwrap();
        assert_eq!((meta.job_id, meta.uid, meta.kill_wait), (7, 1001, 30));
        assert_eq!(meta.spec.name, "train");
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
        assert_eq!(r.end, None, "older launchers wrote no end time");
        assert_eq!(parse_result("no marker"), None);
        let timed_out = LaunchResult {
            kind: ResultKind::TimedOut,
            exit: crate::model::ExitStatus::signal(15),
            end: Some(1_764_520_000),
        };
        let line = result_line(&timed_out);
        assert_eq!(line, "__BAI_SLURM_RESULT__ timeout 0:15 1764520000");
        assert_eq!(parse_result(&line), Some(timed_out));
    }
}
