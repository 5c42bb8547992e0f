//! For the commands' unit tests: a scheduler that holds a fixed list of jobs and records
//! what it is asked to do, and a runner that gives a command its arguments as bytes (as
//! `main_with` does) and returns exactly the bytes it printed.

use super::{sacct, scancel, scontrol, squeue};
use crate::backend::{AccountingQuery, BackendError, Cluster, HoldKind, SignalRequest, SlurmErrno};
use crate::cli::{Invocation, RawBytes, StaticUsers, arg_string};
use crate::model::{ArrayPart, JobRecord, JobSelector, JobState, NodeRecord, PartitionRecord};
use crate::sys::UserInfo;
use std::cell::RefCell;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

/// 2025-03-15T10:30:20Z.
pub const NOW: i64 = 1_742_034_620;

#[derive(Default)]
pub struct Fake {
    pub jobs: Vec<JobRecord>,
    pub held: RefCell<Vec<(JobSelector, Option<HoldKind>)>>,
    pub signalled: RefCell<Vec<JobSelector>>,
}

impl Fake {
    pub fn with_jobs(jobs: Vec<JobRecord>) -> Fake {
        Fake {
            jobs,
            ..Fake::default()
        }
    }
}

/// A pending job of root's.
pub fn pending(id: u32, name: &str) -> JobRecord {
    JobRecord {
        job_id: id,
        name: name.into(),
        state: JobState::Pending,
        partition: "debug".into(),
        submit_time: NOW - 60,
        ..JobRecord::default()
    }
}

/// Task `task` of array `array`, pending.
pub fn task(id: u32, array: u32, task: u32) -> JobRecord {
    JobRecord {
        array: Some(ArrayPart::Task {
            array_job_id: array,
            task_id: task,
        }),
        ..pending(id, "arr")
    }
}

impl Cluster for Fake {
    fn cluster_name(&self) -> String {
        "test".into()
    }
    fn jobs(&self) -> Result<Vec<JobRecord>, BackendError> {
        Ok(self.jobs.clone())
    }
    fn accounting(&self, _query: &AccountingQuery) -> Result<Vec<JobRecord>, BackendError> {
        Ok(self.jobs.clone())
    }
    fn partitions(&self) -> Result<Vec<PartitionRecord>, BackendError> {
        Ok(Vec::new())
    }
    fn nodes(&self) -> Result<Vec<NodeRecord>, BackendError> {
        Ok(Vec::new())
    }
    fn signal(&self, target: &JobSelector, _req: &SignalRequest) -> Result<(), BackendError> {
        self.signalled.borrow_mut().push(target.clone());
        if self.jobs.iter().any(|j| target.matches(j)) {
            Ok(())
        } else {
            Err(BackendError::Slurm(SlurmErrno::InvalidJobId))
        }
    }
    fn hold(
        &self,
        target: &JobSelector,
        kind: Option<HoldKind>,
        _requester: u32,
    ) -> Result<(), BackendError> {
        self.held.borrow_mut().push((target.clone(), kind));
        let chosen: Vec<&JobRecord> = self.jobs.iter().filter(|j| target.matches(j)).collect();
        if chosen.is_empty() {
            Err(BackendError::Slurm(SlurmErrno::InvalidJobId))
        } else if chosen.iter().all(|j| j.state != JobState::Pending) {
            Err(BackendError::Slurm(SlurmErrno::JobNotPending))
        } else {
            Ok(())
        }
    }
}

/// What a command printed, and its exit status.
#[derive(Debug, PartialEq, Eq)]
pub struct Printed {
    pub out: Vec<u8>,
    pub err: Vec<u8>,
    pub rc: i32,
}

impl Printed {
    /// Standard error as text (for messages that are UTF-8).
    pub fn err(&self) -> String {
        String::from_utf8_lossy(&self.err).into_owned()
    }
}

/// Runs `argv` (`argv[0]` the command; each word as raw bytes) as root against `cluster`.
pub fn run(cluster: &Fake, argv: &[&[u8]]) -> Printed {
    run_with_stdin(cluster, argv, b"")
}

/// [`run`] with `stdin` on standard input.
pub fn run_with_stdin(cluster: &Fake, argv: &[&[u8]], stdin: &[u8]) -> Printed {
    let args: Vec<String> = argv[1..]
        .iter()
        .map(|a| arg_string(OsString::from_vec(a.to_vec())))
        .collect();
    let root = UserInfo {
        uid: 0,
        name: "root".into(),
        gid: 0,
        group: "root".into(),
        home: "/root".into(),
        shell: "/bin/sh".into(),
    };
    let users = StaticUsers(vec![root.clone()]);
    let (mut out, mut err) = (RawBytes::new(Vec::new()), RawBytes::new(Vec::new()));
    let prog: &'static str = match argv[0] {
        b"scontrol" => "scontrol",
        b"scancel" => "scancel",
        b"squeue" => "squeue",
        b"sacct" => "sacct",
        other => panic!("no runner for {}", String::from_utf8_lossy(other)),
    };
    let rc = {
        let mut inv = Invocation {
            prog,
            args,
            env: Default::default(),
            now: NOW,
            user: root,
            cwd: "/".into(),
            stdin: &mut { stdin },
            out: &mut out,
            err: &mut err,
            users: &users,
            profile: crate::model::profile::Profile::default_profile(),
        };
        match prog {
            "scontrol" => scontrol::run(&mut inv, cluster),
            "scancel" => scancel::run(&mut inv, cluster),
            "squeue" => squeue::run(&mut inv, cluster),
            _ => sacct::run(&mut inv, cluster),
        }
    };
    Printed {
        out: out.into_inner(),
        err: err.into_inner(),
        rc,
    }
}

/// Runs a command line of UTF-8 words.
pub fn run_words(cluster: &Fake, words: &[&str]) -> Printed {
    let argv: Vec<&[u8]> = words.iter().map(|w| w.as_bytes()).collect();
    run(cluster, &argv)
}
