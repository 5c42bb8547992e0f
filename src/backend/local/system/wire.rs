//! What the commands and the system service say to each other: one request per
//! connection, one answer, each a JSON document after its length (4 bytes, big-endian).

use crate::backend::local::ledger::LedgerCall;
use crate::backend::{AccountingQuery, BackendError, HoldKind, SignalRequest, SubmitError};
use crate::model::{ExitStatus, JobSelector, JobSpec, JobUpdate, NodeUpdate, RequeueRequest};
use std::io::{Read, Write};

/// The largest message either side accepts: a job spec holds the script (at most
/// max_script_size, 4 MiB by default) and its environment; squeue's answer holds the queue.
pub const MAX_MESSAGE: u32 = 256 << 20;

/// A request: one `Cluster` method with its arguments. Who asks is never part of it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum Call {
    ClusterName,
    Jobs,
    JobsWithIds(Vec<u32>),
    JobsToActOn(Vec<u32>),
    Accounting(AccountingQuery),
    Partitions,
    QueuePartitions,
    Nodes,
    Accepts(Box<JobSpec>),
    Submit(Box<JobSpec>),
    Translate(Box<JobSpec>),
    WillRun(Box<JobSpec>),
    Signal(JobSelector, SignalRequest),
    Hold(JobSelector, Option<HoldKind>),
    Update(JobSelector, Box<JobUpdate>),
    Requeue(JobSelector, RequeueRequest),
    Notify(u32, String),
    BatchScript(u32),
    UpdateNodes(Box<NodeUpdate>),
    Suspend(JobSelector, bool),
    Top(Vec<JobSelector>),
    MaxArraySize,
    Allocation(u32),
    Release(u32, ExitStatus),
    Config,
    /// A job's launcher's records.
    Ledger(LedgerCall),
}

/// Why a request failed, as the method's own error type.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum Failure {
    Backend(BackendError),
    Submit(SubmitError),
}

impl From<BackendError> for Failure {
    fn from(e: BackendError) -> Self {
        Failure::Backend(e)
    }
}

impl From<SubmitError> for Failure {
    fn from(e: SubmitError) -> Self {
        Failure::Submit(e)
    }
}

impl From<Failure> for BackendError {
    fn from(f: Failure) -> Self {
        match f {
            Failure::Backend(e) => e,
            Failure::Submit(e) => match (e.errno, e.failure) {
                (Some(errno), _) => BackendError::Slurm(errno),
                (None, Some(f)) => f,
                (None, None) => BackendError::Other("Unspecified error".into()),
            },
        }
    }
}

impl From<Failure> for SubmitError {
    fn from(f: Failure) -> Self {
        match f {
            Failure::Backend(e) => e.into(),
            Failure::Submit(e) => e,
        }
    }
}

/// The answer: the method's result, and what the backend had to say on the way
/// (`Cluster::warnings`, `Cluster::notes`). The result stays raw JSON until the caller
/// reads it as the method's type: a queue of thousands of records is parsed once, not
/// first into a tree of values.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Reply {
    pub result: Result<Box<serde_json::value::RawValue>, Failure>,
    #[serde(default)]
    pub warnings: Vec<String>,
    #[serde(default)]
    pub notes: Vec<String>,
}

pub fn write_message<T: serde::Serialize>(w: &mut impl Write, msg: &T) -> std::io::Result<()> {
    let body = serde_json::to_vec(msg).map_err(std::io::Error::other)?;
    let len = u32::try_from(body.len())
        .ok()
        .filter(|&l| l <= MAX_MESSAGE)
        .ok_or_else(|| std::io::Error::other("message too large"))?;
    w.write_all(&len.to_be_bytes())?;
    w.write_all(&body)?;
    w.flush()
}

/// Reads one message; a malformed or oversized one is an `InvalidData` error.
pub fn read_message<T: serde::de::DeserializeOwned>(r: &mut impl Read) -> std::io::Result<T> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let len = u32::from_be_bytes(len);
    if len > MAX_MESSAGE {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("message of {len} bytes is over the limit"),
        ));
    }
    let mut body = Vec::new();
    r.take(u64::from(len)).read_to_end(&mut body)?;
    if body.len() != len as usize {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    serde_json::from_slice(&body)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_goes_through_and_garbage_does_not() {
        let mut buf = Vec::new();
        write_message(&mut buf, &Call::JobsWithIds(vec![3, 4])).unwrap();
        let back: Call = read_message(&mut buf.as_slice()).unwrap();
        assert!(matches!(back, Call::JobsWithIds(ids) if ids == [3, 4]));
        let mut garbage = 5u32.to_be_bytes().to_vec();
        garbage.extend_from_slice(b"{{{{{");
        let e = read_message::<Call>(&mut garbage.as_slice()).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        let huge = (MAX_MESSAGE + 1).to_be_bytes();
        let e = read_message::<Call>(&mut huge.as_slice()).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        let short = [0u8, 0, 0, 9, b'{'];
        assert!(read_message::<Call>(&mut short.as_slice()).is_err());
    }
}
