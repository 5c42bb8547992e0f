//! The local backend's durable state: one SQLite file in WAL mode, shared safely by every
//! command, the queue runner and the job launchers (each opens its own connection; writers
//! take the lock with BEGIN IMMEDIATE and wait on contention).

use super::plan::Plan;
use super::store_file::{self, FileProblem};
use crate::model::{
    ArrayPart, Dependency, ExitStatus, JobSpec, JobState, RequeueRequest, StateFlag, StepId,
};
use rusqlite::{
    Connection, OptionalExtension, Transaction, TransactionBehavior, named_params, params,
};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// 2: `jobs.restarts` and `jobs.requeue` (scontrol requeue), `jobs.gpus` (the GPU devices
/// a running job holds), `jobs.reason_prev`, `jobs.acct_reason` and `jobs.acct_tasks`
/// (what accounting last heard).
/// 3: jobs indexed by submission (a job's own copy of a shared submission is found by
/// index, not by a scan of every record).
/// 4: `steps.cancelled_by` (who cancelled a step).
///
/// A bai-slurm refuses a database of a higher version, so raising it stops the launchers
/// of running jobs that an upgrade left on the older binary. Changes that older code can
/// live with (a new nullable column it does not name) raise only `REVISION` (a `meta`
/// key) instead:
/// 5: `environments`: the job's environment apart from its request (and the request's
/// JSON without the fields left at their defaults), so that reading requests (every
/// record, every scheduling pass) neither reads nor parses an environment only the job's
/// launcher needs. Older code writes the environment inside the request (a submission
/// without a row there; still read) and reads a request without one as before.
/// 6: `plans`: the queue runner's expected starts, so that showing a waiting job does
/// not plan the whole queue.
/// 7: `nodes`: what operators set on the nodes (drain, fail, down and their reason).
/// 8: `suspensions`: the suspend times of jobs an operator suspended.
/// 9: `earlier_runs`: the runs of requeued jobs before their last (sacct -D).
/// 10: `jobs.cpus`: the CPU ids a started job holds on each of its nodes (scontrol -d's
/// `CPU_IDs=`); older code leaves it empty and its jobs show no CPU ids.
const SCHEMA_VERSION: i64 = 4;
const REVISION: i64 = 10;

const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
-- One row per sbatch call: the request and the script copied at submit time.
CREATE TABLE IF NOT EXISTS submissions (
    submission_id INTEGER PRIMARY KEY,
    spec          TEXT NOT NULL,
    script        BLOB NOT NULL
);
-- A submission's environment (JSON), which only its launcher reads; a submission with no
-- row here has it inside `spec` (revision 4 and before) or has been purged.
CREATE TABLE IF NOT EXISTS environments (
    submission_id INTEGER PRIMARY KEY,
    environment   TEXT NOT NULL
);
-- One row per job record, as slurmctld keeps them: an array's meta record holds its
-- not-yet-started tasks; each task gets its own record when it starts.
CREATE TABLE IF NOT EXISTS jobs (
    job_id         INTEGER PRIMARY KEY,
    submission_id  INTEGER NOT NULL REFERENCES submissions(submission_id),
    array_job_id   INTEGER,
    array_task_id  INTEGER,
    array_pending  TEXT,
    name           TEXT NOT NULL,
    uid            INTEGER NOT NULL,
    state          TEXT NOT NULL,
    flag           TEXT NOT NULL DEFAULT 'None',
    reason         TEXT NOT NULL DEFAULT 'None',
    priority       INTEGER NOT NULL,
    held           INTEGER NOT NULL DEFAULT 0,
    dependency     TEXT,
    submit_time    INTEGER NOT NULL,
    eligible_time  INTEGER,
    start_time     INTEGER,
    end_time       INTEGER,
    last_sched_eval INTEGER,
    exit_code      INTEGER NOT NULL DEFAULT 0,
    exit_signal    INTEGER NOT NULL DEFAULT 0,
    cancelled_by   INTEGER,
    alloc_cpus     INTEGER NOT NULL,
    alloc_mem_mb   INTEGER NOT NULL,
    node           TEXT,
    launcher_pid   INTEGER,
    launcher_start INTEGER,
    job_pgid       INTEGER,
    restarts       INTEGER NOT NULL DEFAULT 0,
    requeue        INTEGER,
    -- GPU devices the job holds on each of its nodes (`0,1;1`), see local/gres.rs.
    gpus           TEXT,
    -- CPU ids the job holds on each of its nodes, in the same form.
    cpus           TEXT,
    -- The last reason the scheduler saw the job pending for, other than None, Priority and
    -- Resources (slurmctld's state_reason_prev_db): sacct's Reason.
    reason_prev    TEXT NOT NULL DEFAULT 'None',
    -- What the accounting database last heard of the job (slurmctld sends a job's record
    -- when it first learns of it, at hold, release and start, not at the end): sacct's
    -- Reason, and the task set of an array's meta record (JSON). NULL: nothing yet.
    acct_reason    TEXT,
    acct_tasks     TEXT
);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs(state);
CREATE INDEX IF NOT EXISTS jobs_by_array ON jobs(array_job_id);
CREATE INDEX IF NOT EXISTS jobs_by_end ON jobs(end_time);
CREATE INDEX IF NOT EXISTS jobs_by_submission ON jobs(submission_id);
-- The expected starts of jobs waiting for resources, as the queue runner's last pass
-- planned them (local/plan.rs): backfill's view, which squeue and scontrol show.
CREATE TABLE IF NOT EXISTS plans (
    job_id     INTEGER PRIMARY KEY,
    start_time INTEGER NOT NULL,
    end_time   INTEGER,
    nodes      TEXT NOT NULL
);
-- What operators set on a node (`scontrol update NodeName=`): the DRAIN and FAIL flags
-- and DOWN (node_state.rs values), the reason, when and by whom. No row: a node in service.
CREATE TABLE IF NOT EXISTS nodes (
    name        TEXT PRIMARY KEY,
    flags       INTEGER NOT NULL DEFAULT 0,
    reason      TEXT,
    reason_time INTEGER,
    reason_uid  INTEGER
);
-- Jobs an operator suspended (`scontrol suspend`), as slurmctld counts their time:
-- suspend_time (the last suspend or resume), pre_sus_time (seconds run before the last
-- suspend) and total (seconds suspended, the current suspension not included).
CREATE TABLE IF NOT EXISTS suspensions (
    job_id       INTEGER PRIMARY KEY,
    suspend_time INTEGER NOT NULL,
    pre_sus_time INTEGER NOT NULL DEFAULT 0,
    total        INTEGER NOT NULL DEFAULT 0
);
-- The earlier runs of requeued jobs, as they ended: slurmdbd keeps a record per run, and
-- sacct -D shows them. The job's row (state REQUEUED) and its steps' rows, as JSON.
CREATE TABLE IF NOT EXISTS earlier_runs (
    job_id INTEGER NOT NULL,
    run    INTEGER NOT NULL,
    job    TEXT NOT NULL,
    steps  TEXT NOT NULL,
    PRIMARY KEY (job_id, run)
);
CREATE TABLE IF NOT EXISTS steps (
    job_id      INTEGER NOT NULL,
    step        TEXT NOT NULL,
    name        TEXT NOT NULL,
    state       TEXT NOT NULL,
    start_time  INTEGER,
    end_time    INTEGER,
    exit_code   INTEGER NOT NULL DEFAULT 0,
    exit_signal INTEGER NOT NULL DEFAULT 0,
    ncpus       INTEGER NOT NULL,
    ntasks      INTEGER NOT NULL,
    nnodes      INTEGER NOT NULL,
    nodes       TEXT NOT NULL,
    pgid        INTEGER,
    cancelled_by INTEGER,
    PRIMARY KEY (job_id, step)
);
"#;

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("local state database: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("local state database: corrupt record: {0}")]
    Corrupt(String),
    #[error("local state database is from a newer bai-slurm (schema {0})")]
    TooNew(i64),
    /// A problem with the file itself, told with its name and the remedy.
    #[error("{}", .problem.describe(.path))]
    File { path: PathBuf, problem: FileProblem },
    /// Any other SQLite failure, with the file it happened in.
    #[error("local state database {}: {message}", .path.display())]
    At { path: PathBuf, message: String },
}

impl DbError {
    /// Whether the disk was full (the write can succeed later).
    pub fn is_disk_full(&self) -> bool {
        matches!(
            self,
            DbError::File {
                problem: FileProblem::Full,
                ..
            }
        )
    }

    /// Names the file in errors that came from SQLite without it.
    fn in_file(self, path: &Path) -> DbError {
        match self {
            DbError::Sql(e) => match store_file::classify_at(&e, path) {
                Some(problem) => DbError::File {
                    path: path.to_path_buf(),
                    problem,
                },
                None => DbError::At {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                },
            },
            other => other,
        }
    }
}

pub type DbResult<T> = Result<T, DbError>;

/// The records slurmctld still holds: unfinished jobs, and those that ended at `:since` or
/// later (MinJobAge).
const CONTROLLER_HOLDS: &str = "state IN ('PENDING','RUNNING','SUSPENDED') OR end_time >= :since";

/// Job records this process has read from the store: the work a command does, counted
/// for the test that keeps single-job commands independent of the queue's size.
static JOB_ROWS_READ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn count_rows(n: u64) {
    JOB_ROWS_READ.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
}

pub struct Db {
    conn: Connection,
    path: PathBuf,
    /// Where the job id sequence starts (Slurm's FirstJobId).
    first_job_id: u32,
    /// Records that could not be read, each skipped alone ("job N: why").
    skipped: Rc<RefCell<Vec<String>>>,
}

impl Drop for Db {
    fn drop(&mut self) {
        Db::log_rows_read();
    }
}

/// One job record as stored.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JobRow {
    pub job_id: u32,
    pub submission_id: u32,
    pub array: Option<ArrayPart>,
    pub name: String,
    pub uid: u32,
    pub state: JobState,
    pub flag: StateFlag,
    pub reason: String,
    pub priority: u32,
    pub held: bool,
    pub dependency: Option<Dependency>,
    pub submit_time: i64,
    pub eligible_time: Option<i64>,
    pub start_time: Option<i64>,
    pub end_time: Option<i64>,
    pub last_sched_eval: Option<i64>,
    pub exit: ExitStatus,
    pub cancelled_by: Option<u32>,
    pub alloc_cpus: u32,
    pub alloc_mem_mb: u64,
    pub node: Option<String>,
    pub launcher_pid: Option<i32>,
    pub launcher_start: Option<u64>,
    pub job_pgid: Option<i32>,
    /// How many times the job was requeued (Slurm's restart_cnt).
    pub restarts: u32,
    /// A requeue asked for while the job ran: applied when its launcher records the end.
    pub requeue: Option<RequeueRequest>,
    /// sacct's Reason: see the `reason_prev` column.
    pub reason_prev: String,
    /// What accounting last recorded: see the `acct_reason` and `acct_tasks` columns.
    pub acct_reason: Option<String>,
    pub acct_tasks: Option<Vec<u32>>,
}

impl JobRow {
    /// Sends the job's record to accounting, as slurmctld does when it first learns of a
    /// job, at hold and release, and at start: the reason and the pending tasks as now.
    pub fn record_in_accounting(&mut self) {
        self.acct_reason = Some(self.reason_prev.clone());
        self.acct_tasks = match &self.array {
            Some(ArrayPart::Pending { tasks, .. }) => Some(tasks.clone()),
            _ => None,
        };
    }

    /// Whether accounting is to hear of the job (again): it never has, or it is a meta
    /// record whose task set changed since (tasks cancelled or started) with some left.
    /// slurmctld then sends the record on its accounting thread's next round (every few
    /// seconds, after the scheduler has looked at the job), unless the job ends first; the
    /// runner does it on its next pass over the job.
    pub fn accounting_is_stale(&self) -> bool {
        match &self.array {
            _ if self.acct_reason.is_none() => true,
            Some(ArrayPart::Pending { tasks, .. }) => {
                !tasks.is_empty() && self.acct_tasks.as_ref() != Some(tasks)
            }
            _ => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StepRow {
    pub job_id: u32,
    pub step: StepId,
    pub name: String,
    pub state: JobState,
    pub start_time: Option<i64>,
    pub end_time: Option<i64>,
    pub exit: ExitStatus,
    pub ncpus: u32,
    pub ntasks: u32,
    pub nnodes: u32,
    pub nodes: String,
    pub pgid: Option<i32>,
    /// Who cancelled the step (sacct's `CANCELLED by <uid>`).
    pub cancelled_by: Option<u32>,
}

fn state_from(s: &str) -> rusqlite::Result<JobState> {
    JobState::parse(s).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            0,
            rusqlite::types::Type::Text,
            format!("bad state {s}").into(),
        )
    })
}

fn flag_name(f: StateFlag) -> &'static str {
    match f {
        StateFlag::None => "None",
        StateFlag::Completing => "COMPLETING",
        StateFlag::Configuring => "CONFIGURING",
        StateFlag::SpecialExit => "SPECIAL_EXIT",
    }
}

fn flag_from(s: &str) -> StateFlag {
    match s {
        "COMPLETING" => StateFlag::Completing,
        "CONFIGURING" => StateFlag::Configuring,
        "SPECIAL_EXIT" => StateFlag::SpecialExit,
        _ => StateFlag::None,
    }
}

/// A submission as stored: the request's JSON without script and environment, and
/// without the fields that hold their default (every reader fills them in again), and the
/// environment's JSON.
fn stored_request(spec: &JobSpec) -> DbResult<(String, String)> {
    let corrupt = |e: serde_json::Error| DbError::Corrupt(e.to_string());
    let mut stored = spec.clone();
    stored.script = Vec::new();
    let environment = std::mem::take(&mut stored.environment);
    let mut request = serde_json::to_value(&stored).map_err(corrupt)?;
    if let (Some(fields), serde_json::Value::Object(defaults)) = (
        request.as_object_mut(),
        serde_json::to_value(JobSpec::default()).map_err(corrupt)?,
    ) {
        fields.retain(|k, v| defaults.get(k) != Some(v));
    }
    Ok((
        serde_json::to_string(&request).map_err(corrupt)?,
        serde_json::to_string(&environment).map_err(corrupt)?,
    ))
}

fn json_err(e: serde_json::Error) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
}

const JOB_COLUMNS: &str = "job_id, submission_id, array_job_id, array_task_id, array_pending, name, uid, \
     state, flag, reason, priority, held, dependency, submit_time, eligible_time, \
     start_time, end_time, last_sched_eval, exit_code, exit_signal, cancelled_by, alloc_cpus, \
     alloc_mem_mb, node, launcher_pid, launcher_start, job_pgid, restarts, requeue, reason_prev, \
     acct_reason, acct_tasks";

fn job_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<JobRow> {
    let array_job_id: Option<u32> = r.get(2)?;
    let array_task_id: Option<u32> = r.get(3)?;
    let array_pending: Option<String> = r.get(4)?;
    let array = match (array_job_id, array_task_id, array_pending) {
        (Some(a), Some(t), _) => Some(ArrayPart::Task {
            array_job_id: a,
            task_id: t,
        }),
        (Some(a), None, Some(p)) => {
            let (tasks, throttle): (Vec<u32>, Option<u32>) =
                serde_json::from_str(&p).map_err(json_err)?;
            Some(ArrayPart::Pending {
                array_job_id: a,
                tasks,
                throttle,
            })
        }
        _ => None,
    };
    let dependency: Option<String> = r.get(12)?;
    Ok(JobRow {
        job_id: r.get(0)?,
        submission_id: r.get(1)?,
        array,
        name: r.get(5)?,
        uid: r.get(6)?,
        state: state_from(&r.get::<_, String>(7)?)?,
        flag: flag_from(&r.get::<_, String>(8)?),
        reason: r.get(9)?,
        priority: r.get(10)?,
        held: r.get(11)?,
        dependency: dependency
            .map(|d| serde_json::from_str(&d))
            .transpose()
            .map_err(json_err)?,
        submit_time: r.get(13)?,
        eligible_time: r.get(14)?,
        start_time: r.get(15)?,
        end_time: r.get(16)?,
        last_sched_eval: r.get(17)?,
        exit: ExitStatus {
            code: r.get(18)?,
            signal: r.get(19)?,
        },
        cancelled_by: r.get(20)?,
        alloc_cpus: r.get(21)?,
        alloc_mem_mb: r.get::<_, i64>(22)?.max(0) as u64,
        node: r.get(23)?,
        launcher_pid: r.get(24)?,
        launcher_start: r.get::<_, Option<i64>>(25)?.map(|v| v.max(0) as u64),
        job_pgid: r.get(26)?,
        restarts: r.get(27)?,
        requeue: r.get::<_, Option<i64>>(28)?.map(requeue_from_bits),
        reason_prev: r.get(29)?,
        acct_reason: r.get(30)?,
        acct_tasks: r
            .get::<_, Option<String>>(31)?
            .map(|t| serde_json::from_str(&t))
            .transpose()
            .map_err(json_err)?,
    })
}

/// A pending requeue as stored: bit 0 set, bit 1 hold, bit 2 special exit, bit 3
/// incomplete.
fn requeue_bits(r: RequeueRequest) -> i64 {
    1 | (i64::from(r.hold) << 1) | (i64::from(r.special_exit) << 2) | (i64::from(r.incomplete) << 3)
}

fn requeue_from_bits(b: i64) -> RequeueRequest {
    RequeueRequest {
        hold: b & 2 != 0,
        special_exit: b & 4 != 0,
        incomplete: b & 8 != 0,
    }
}

fn step_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StepRow> {
    let step: String = r.get(1)?;
    Ok(StepRow {
        job_id: r.get(0)?,
        step: StepId::parse(&step).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                1,
                rusqlite::types::Type::Text,
                format!("bad step {step}").into(),
            )
        })?,
        name: r.get(2)?,
        state: state_from(&r.get::<_, String>(3)?)?,
        start_time: r.get(4)?,
        end_time: r.get(5)?,
        exit: ExitStatus {
            code: r.get(6)?,
            signal: r.get(7)?,
        },
        ncpus: r.get(8)?,
        ntasks: r.get(9)?,
        nnodes: r.get(10)?,
        nodes: r.get(11)?,
        pgid: r.get(12)?,
        cancelled_by: r.get(13)?,
    })
}

impl Db {
    pub fn open(path: &Path, first_job_id: u32) -> DbResult<Db> {
        Self::open_noting(path, first_job_id, Rc::default())
    }

    /// Opens the database; records that reads skip are noted in `skipped`.
    pub fn open_noting(
        path: &Path,
        first_job_id: u32,
        skipped: Rc<RefCell<Vec<String>>>,
    ) -> DbResult<Db> {
        let uid = nix::unistd::getuid().as_raw();
        let conn = store_file::open(path, uid, |c| {
            c.execute_batch(SCHEMA)?;
            c.pragma_update(None, "user_version", SCHEMA_VERSION)
        })
        .map_err(|problem| DbError::File {
            path: path.to_path_buf(),
            problem,
        })?;
        let mut db = Db {
            conn,
            path: path.to_path_buf(),
            first_job_id: first_job_id.max(1),
            skipped,
        };
        db.prepare().map_err(|e| e.in_file(path))?;
        Ok(db)
    }

    /// A debugging aid: with `BAI_SLURM_ROW_LOG` set, each closed database appends
    /// `PID ROWS` (the job records this process has read so far) to that file.
    fn log_rows_read() {
        let Some(path) = std::env::var_os(crate::envvars::BAI_SLURM_ROW_LOG) else {
            return;
        };
        let rows = JOB_ROWS_READ.load(std::sync::atomic::Ordering::Relaxed);
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            use std::io::Write;
            let _ = writeln!(f, "{} {rows}", std::process::id());
        }
    }

    fn prepare(&mut self) -> DbResult<()> {
        store_file::ensure_wal(&self.conn)?;
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        self.conn.pragma_update(None, "foreign_keys", "ON")?;
        // Most opens find the database up to date: a plain read tells, without waiting
        // for a writer (the queue runner's pass) to finish.
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Deferred)?;
        let current = schema_of(&tx)?;
        tx.commit()?;
        if current == (SCHEMA_VERSION, REVISION) {
            return Ok(());
        }
        // A database of an older schema is brought up to date once, by whoever gets here
        // first; the others wait for the lock and find it done.
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let (version, revision) = schema_of(&tx)?;
        if version < SCHEMA_VERSION || revision < REVISION {
            let environments_inside =
                has_table(&tx, "submissions")? && !has_table(&tx, "environments")?;
            migrate(&tx)?;
            tx.execute_batch(SCHEMA)?;
            if environments_inside {
                // Revision 5: environments move out of the requests (a request SQLite
                // cannot read as JSON keeps its own, where `submission` still finds it).
                tx.execute_batch(
                    "INSERT INTO environments (submission_id, environment)
                         SELECT submission_id, coalesce(json_extract(spec, '$.environment'), '{}')
                         FROM submissions WHERE json_valid(spec);
                     UPDATE submissions SET spec = json_remove(spec, '$.environment')
                         WHERE json_valid(spec);",
                )?;
            }
            tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
            tx.execute(
                "INSERT INTO meta(key, value) VALUES('revision', ?1)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                params![REVISION],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Runs `f` in a write transaction taken up front, so concurrent writers queue instead
    /// of failing half-way.
    pub fn write<T>(&mut self, f: impl FnOnce(&Tx<'_>) -> DbResult<T>) -> DbResult<T> {
        self.transaction(TransactionBehavior::Immediate, f)
    }

    /// Runs `f` in a read transaction: one consistent snapshot.
    pub fn read<T>(&mut self, f: impl FnOnce(&Tx<'_>) -> DbResult<T>) -> DbResult<T> {
        self.transaction(TransactionBehavior::Deferred, f)
    }

    fn transaction<T>(
        &mut self,
        behavior: TransactionBehavior,
        f: impl FnOnce(&Tx<'_>) -> DbResult<T>,
    ) -> DbResult<T> {
        let path = self.path.clone();
        let run = || -> DbResult<T> {
            let tx = self.conn.transaction_with_behavior(behavior)?;
            let out = f(&Tx {
                tx: &tx,
                first_job_id: self.first_job_id,
                skipped: &self.skipped,
            })?;
            tx.commit()?;
            Ok(out)
        };
        run().map_err(|e| e.in_file(&path))
    }
}

/// The database's schema version and revision; a version this code cannot read is an
/// error.
fn schema_of(tx: &Transaction<'_>) -> DbResult<(i64, i64)> {
    let version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version > SCHEMA_VERSION {
        return Err(DbError::TooNew(version));
    }
    let revision: i64 = tx
        .query_row("SELECT value FROM meta WHERE key = 'revision'", [], |r| {
            r.get(0)
        })
        .optional()?
        .unwrap_or(version);
    Ok((version, revision))
}

fn has_table(tx: &Transaction<'_>, name: &str) -> rusqlite::Result<bool> {
    tx.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
        params![name],
        |r| r.get::<_, i64>(0).map(|n| n > 0),
    )
}

/// Brings the tables of an older schema up to date (new columns, with their defaults).
fn migrate(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    if !has_table(tx, "jobs")? {
        return Ok(());
    }
    let mut stmt = tx.prepare("SELECT name FROM pragma_table_info('jobs')")?;
    let columns: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for (column, decl) in [
        ("restarts", "INTEGER NOT NULL DEFAULT 0"),
        ("requeue", "INTEGER"),
        ("gpus", "TEXT"),
        ("reason_prev", "TEXT NOT NULL DEFAULT 'None'"),
        ("acct_reason", "TEXT"),
        ("acct_tasks", "TEXT"),
        ("cpus", "TEXT"),
    ] {
        if !columns.iter().any(|c| c == column) {
            tx.execute_batch(&format!("ALTER TABLE jobs ADD COLUMN {column} {decl}"))?;
        }
    }
    let step_columns: Vec<String> = tx
        .prepare("SELECT name FROM pragma_table_info('steps')")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    if !step_columns.is_empty() && !step_columns.iter().any(|c| c == "cancelled_by") {
        tx.execute_batch("ALTER TABLE steps ADD COLUMN cancelled_by INTEGER")?;
    }
    Ok(())
}

/// What a started job holds on each of its nodes (`local/gres.rs` format): CPU ids and,
/// when it asked for them, GPU devices.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeldResources {
    pub cpus: String,
    pub gpus: Option<String>,
}

/// What operators set on one node: [`NodeMark::flags`] holds node_state.rs's `DRAIN`,
/// `FAIL` and `DOWN` values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeMark {
    pub name: String,
    pub flags: u32,
    pub reason: Option<String>,
    pub reason_time: Option<i64>,
    pub reason_uid: Option<u32>,
}

impl NodeMark {
    fn is_clear(&self) -> bool {
        self.flags == 0 && self.reason.is_none()
    }
}

/// A suspended (or once suspended) job's times, as slurmctld keeps them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Suspension {
    pub suspend_time: i64,
    pub pre_sus_time: i64,
    pub total: i64,
}

/// Queries and updates inside one transaction.
pub struct Tx<'a> {
    tx: &'a Transaction<'a>,
    first_job_id: u32,
    skipped: &'a RefCell<Vec<String>>,
}

impl Tx<'_> {
    /// Takes the next job id from the monotonic sequence (FirstJobId, then up by one).
    pub fn next_job_id(&self) -> DbResult<u32> {
        let current: Option<i64> = self
            .tx
            .query_row(
                "SELECT value FROM meta WHERE key = 'next_job_id'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        let id = current.unwrap_or(i64::from(self.first_job_id));
        if id >= i64::from(u32::MAX) - 2 {
            return Err(DbError::Corrupt("job id sequence exhausted".into()));
        }
        self.tx.execute(
            "INSERT INTO meta(key, value) VALUES('next_job_id', ?1)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            params![id + 1],
        )?;
        Ok(id as u32)
    }

    /// Records a backfill cycle at `now` when some job waits for resources or behind
    /// another's priority (what backfill tests; held, dependent and deferred jobs it
    /// does not): slurmctld's `bf_when_last_cycle`, set only by a cycle that had jobs to
    /// test.
    pub fn record_backfill_cycle(&self, now: i64) -> DbResult<()> {
        let waiting: i64 = self.tx.query_row(
            "SELECT COUNT(*) FROM jobs WHERE state = 'PENDING' AND reason IN ('Resources', 'Priority')",
            [],
            |r| r.get(0),
        )?;
        if waiting > 0 {
            self.tx.execute(
                "INSERT INTO meta(key, value) VALUES('last_backfill', ?1)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                params![now],
            )?;
        }
        Ok(())
    }

    /// When the last backfill cycle with jobs to test ran (0: none yet).
    pub fn last_backfill(&self) -> DbResult<i64> {
        Ok(self
            .tx
            .query_row(
                "SELECT value FROM meta WHERE key = 'last_backfill'",
                [],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(0))
    }

    /// priority/basic's next priority: one below the lowest given so far (slurmctld's
    /// `lowest_prio`), or `first` when none was given yet. Held jobs and explicit
    /// `--priority` values take none; a released job takes the next one.
    pub fn take_priority(&self, first: u32) -> DbResult<u32> {
        let lowest: Option<i64> = self
            .tx
            .query_row(
                "SELECT value FROM meta WHERE key = 'lowest_priority'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        let next = lowest.map_or(i64::from(first), |l| (l - 1).max(1));
        self.tx.execute(
            "INSERT INTO meta(key, value) VALUES('lowest_priority', ?1)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            params![next],
        )?;
        Ok(next as u32)
    }

    pub fn insert_submission(&self, id: u32, spec: &JobSpec) -> DbResult<()> {
        let (json, environment) = stored_request(spec)?;
        self.tx.execute(
            "INSERT INTO submissions(submission_id, spec, script) VALUES (?1, ?2, ?3)",
            params![id, json, spec.script],
        )?;
        self.tx.execute(
            "INSERT INTO environments(submission_id, environment) VALUES (?1, ?2)",
            params![id, environment],
        )?;
        Ok(())
    }

    /// A submission whole: its request, script and environment (what a launcher needs).
    pub fn submission(&self, id: u32) -> DbResult<JobSpec> {
        let (json, script, environment): (String, Vec<u8>, Option<String>) = self.tx.query_row(
            "SELECT spec, script,
                    (SELECT environment FROM environments e WHERE e.submission_id = s.submission_id)
             FROM submissions s WHERE submission_id = ?1",
            params![id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        let corrupt = |e: serde_json::Error| DbError::Corrupt(format!("submission {id}: {e}"));
        let mut spec: JobSpec = serde_json::from_str(&json).map_err(corrupt)?;
        if let Some(environment) = environment {
            spec.environment = serde_json::from_str(&environment).map_err(corrupt)?;
        }
        spec.script = script;
        Ok(spec)
    }

    /// Replaces a submission's request; its script and environment stay (nothing changes
    /// a job's environment after submission, and `spec` may have been read without it).
    pub fn replace_submission(&self, id: u32, spec: &JobSpec) -> DbResult<()> {
        let (json, environment) = stored_request(spec)?;
        self.tx.execute(
            "UPDATE submissions SET spec = ?2 WHERE submission_id = ?1",
            params![id, json],
        )?;
        // A request that held its own environment (revision 4) gives it up here.
        self.tx.execute(
            "INSERT OR IGNORE INTO environments(submission_id, environment) VALUES (?1, ?2)",
            params![id, environment],
        )?;
        Ok(())
    }

    /// A copy of submission `from` (script and environment included) under the id `to`.
    pub fn copy_submission(&self, from: u32, to: u32) -> DbResult<()> {
        self.tx.execute(
            "INSERT INTO submissions(submission_id, spec, script)
             SELECT ?2, spec, script FROM submissions WHERE submission_id = ?1",
            params![from, to],
        )?;
        self.tx.execute(
            "INSERT INTO environments(submission_id, environment)
             SELECT ?2, environment FROM environments WHERE submission_id = ?1",
            params![from, to],
        )?;
        Ok(())
    }

    /// Whether a submission with this id exists.
    pub fn has_submission(&self, id: u32) -> DbResult<bool> {
        Ok(self
            .tx
            .query_row(
                "SELECT 1 FROM submissions WHERE submission_id = ?1",
                params![id],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// Whether another job record shares submission `id` with job `job_id`.
    pub fn submission_is_shared(&self, id: u32, job_id: u32) -> DbResult<bool> {
        Ok(self
            .tx
            .query_row(
                "SELECT 1 FROM jobs WHERE submission_id = ?1 AND job_id != ?2 LIMIT 1",
                params![id, job_id],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// The other job records that share submission `id` with job `job_id`.
    pub fn sharing_submission(&self, id: u32, job_id: u32) -> DbResult<Vec<JobRow>> {
        self.job_rows(
            &format!(
                "SELECT {JOB_COLUMNS} FROM jobs WHERE submission_id = ?1 AND job_id != ?2 ORDER BY job_id"
            ),
            params![id, job_id],
        )
    }

    /// Forgets a job's steps (a requeued job starts again with none).
    pub fn delete_steps(&self, job_id: u32) -> DbResult<()> {
        self.tx
            .execute("DELETE FROM steps WHERE job_id = ?1", params![job_id])?;
        Ok(())
    }

    /// Submissions' requests, without script and environment (for building records and
    /// scheduling). A missing or unreadable one is left out and noted.
    pub fn submissions(&self, ids: &[u32]) -> DbResult<std::collections::HashMap<u32, JobSpec>> {
        Ok(self
            .raw_requests(ids)?
            .into_iter()
            .filter_map(|(id, json)| Some((id, self.parse_request(id, &json)?)))
            .collect())
    }

    /// The requests' JSON, unparsed: one lookup each for a few, one pass over the range
    /// of ids for many (a whole queue's). A missing one is left out and noted.
    pub fn raw_requests(&self, ids: &[u32]) -> DbResult<std::collections::HashMap<u32, String>> {
        let mut out = std::collections::HashMap::new();
        let wanted: std::collections::HashSet<u32> = ids.iter().copied().collect();
        if wanted.len() >= 64 {
            let (lo, hi) = (ids.iter().min(), ids.iter().max());
            let mut stmt = self.tx.prepare_cached(
                "SELECT submission_id, spec FROM submissions WHERE submission_id BETWEEN ?1 AND ?2",
            )?;
            let rows = stmt.query_map(params![lo, hi], |r| {
                Ok((r.get::<_, u32>(0)?, r.get::<_, String>(1)?))
            })?;
            for row in rows {
                let (id, json) = row?;
                if wanted.contains(&id) {
                    out.insert(id, json);
                }
            }
        } else {
            let mut stmt = self
                .tx
                .prepare_cached("SELECT spec FROM submissions WHERE submission_id = ?1")?;
            for &id in &wanted {
                if let Some(json) = stmt
                    .query_row(params![id], |r| r.get::<_, String>(0))
                    .optional()?
                {
                    out.insert(id, json);
                }
            }
        }
        for id in wanted.iter().filter(|id| !out.contains_key(id)) {
            self.skip(Some(i64::from(*id)), "its submission is missing");
        }
        Ok(out)
    }

    /// A request read by `raw_requests`; an unreadable one is noted.
    pub fn parse_request(&self, id: u32, json: &str) -> Option<JobSpec> {
        match serde_json::from_str::<JobSpec>(json) {
            Ok(spec) => Some(spec),
            Err(e) => {
                self.skip(Some(i64::from(id)), &format!("submission: {e}"));
                None
            }
        }
    }

    pub fn insert_job(&self, j: &JobRow) -> DbResult<()> {
        self.tx.execute(
            &format!("INSERT INTO jobs ({JOB_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32)"),
            job_params(j)?.as_slice().iter().map(|b| b.as_ref()).collect::<Vec<_>>().as_slice(),
        )?;
        Ok(())
    }

    pub fn update_job(&self, j: &JobRow) -> DbResult<()> {
        let sets: Vec<String> = JOB_COLUMNS
            .split(", ")
            .enumerate()
            .skip(1)
            .map(|(i, c)| format!("{c} = ?{}", i + 1))
            .collect();
        let n = self.tx.execute(
            &format!("UPDATE jobs SET {} WHERE job_id = ?1", sets.join(", ")),
            job_params(j)?
                .as_slice()
                .iter()
                .map(|b| b.as_ref())
                .collect::<Vec<_>>()
                .as_slice(),
        )?;
        if n != 1 {
            return Err(DbError::Corrupt(format!("job {} vanished", j.job_id)));
        }
        Ok(())
    }

    pub fn job(&self, job_id: u32) -> DbResult<Option<JobRow>> {
        count_rows(1);
        Ok(self
            .tx
            .query_row(
                &format!("SELECT {JOB_COLUMNS} FROM jobs WHERE job_id = ?1"),
                params![job_id],
                job_from_row,
            )
            .optional()?)
    }

    pub fn jobs(&self) -> DbResult<Vec<JobRow>> {
        self.job_rows(
            &format!("SELECT {JOB_COLUMNS} FROM jobs ORDER BY job_id"),
            [],
        )
    }

    /// Runs a query for job rows. A row that cannot be read is skipped and noted, so one
    /// bad record affects only its own job.
    fn job_rows(&self, sql: &str, params: impl rusqlite::Params) -> DbResult<Vec<JobRow>> {
        let mut stmt = self.tx.prepare_cached(sql)?;
        let rows = stmt.query_map(params, |r| Ok((r.get::<_, i64>(0).ok(), job_from_row(r))))?;
        let mut out = Vec::new();
        for row in rows {
            count_rows(1);
            match row? {
                (_, Ok(job)) => out.push(job),
                (id, Err(e)) => self.skip(id, &e.to_string()),
            }
        }
        Ok(out)
    }

    fn skip(&self, job_id: Option<i64>, why: &str) {
        let id = job_id.map_or_else(|| "?".to_string(), |i| i.to_string());
        self.skipped
            .borrow_mut()
            .push(format!("job {id}: unreadable record skipped ({why})"));
    }

    /// The expected starts the runner planned last, by job id: all of them, or those of
    /// `ids` (by index).
    pub fn plans(&self, ids: Option<&[u32]>) -> DbResult<std::collections::HashMap<u32, Plan>> {
        let row = |r: &rusqlite::Row<'_>| {
            Ok((
                r.get::<_, u32>(0)?,
                Plan {
                    start: r.get(1)?,
                    end: r.get(2)?,
                    nodes: r.get(3)?,
                },
            ))
        };
        let mut out = std::collections::HashMap::new();
        match ids {
            None => {
                let mut stmt = self
                    .tx
                    .prepare_cached("SELECT job_id, start_time, end_time, nodes FROM plans")?;
                for p in stmt.query_map([], row)? {
                    let (id, plan) = p?;
                    out.insert(id, plan);
                }
            }
            Some(ids) => {
                let mut stmt = self.tx.prepare_cached(
                    "SELECT job_id, start_time, end_time, nodes FROM plans WHERE job_id = ?1",
                )?;
                for &id in ids {
                    if let Some((id, plan)) = stmt.query_row(params![id], row).optional()? {
                        out.insert(id, plan);
                    }
                }
            }
        }
        Ok(out)
    }

    /// Replaces the runner's plan; writes nothing when it has not changed.
    pub fn store_plans(&self, plans: &std::collections::HashMap<u32, Plan>) -> DbResult<()> {
        if &self.plans(None)? == plans {
            return Ok(());
        }
        self.tx.execute("DELETE FROM plans", [])?;
        let mut stmt = self.tx.prepare_cached(
            "INSERT INTO plans (job_id, start_time, end_time, nodes) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for (id, p) in plans {
            stmt.execute(params![id, p.start, p.end, p.nodes])?;
        }
        Ok(())
    }

    /// What operators set on the nodes (only nodes with something set).
    pub fn node_marks(&self) -> DbResult<Vec<NodeMark>> {
        let mut stmt = self.tx.prepare_cached(
            "SELECT name, flags, reason, reason_time, reason_uid FROM nodes ORDER BY name",
        )?;
        let rows = stmt
            .query_map([], |r| {
                Ok(NodeMark {
                    name: r.get(0)?,
                    flags: r.get::<_, i64>(1)? as u32,
                    reason: r.get(2)?,
                    reason_time: r.get(3)?,
                    reason_uid: r.get(4)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Stores what is set on one node; a node with nothing set loses its row.
    pub fn set_node_mark(&self, mark: &NodeMark) -> DbResult<()> {
        if mark.is_clear() {
            self.tx
                .execute("DELETE FROM nodes WHERE name = ?1", params![mark.name])?;
            return Ok(());
        }
        self.tx.execute(
            "INSERT INTO nodes (name, flags, reason, reason_time, reason_uid)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT(name) DO UPDATE SET flags = excluded.flags, reason = excluded.reason,
                 reason_time = excluded.reason_time, reason_uid = excluded.reason_uid",
            params![
                mark.name,
                i64::from(mark.flags),
                mark.reason,
                mark.reason_time,
                mark.reason_uid
            ],
        )?;
        Ok(())
    }

    /// The suspend times of the jobs ever suspended, by job id.
    pub fn suspensions(&self) -> DbResult<std::collections::HashMap<u32, Suspension>> {
        let mut stmt = self
            .tx
            .prepare_cached("SELECT job_id, suspend_time, pre_sus_time, total FROM suspensions")?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    Suspension {
                        suspend_time: r.get(1)?,
                        pre_sus_time: r.get(2)?,
                        total: r.get(3)?,
                    },
                ))
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    pub fn suspension(&self, job_id: u32) -> DbResult<Option<Suspension>> {
        Ok(self
            .tx
            .query_row(
                "SELECT suspend_time, pre_sus_time, total FROM suspensions WHERE job_id = ?1",
                params![job_id],
                |r| {
                    Ok(Suspension {
                        suspend_time: r.get(0)?,
                        pre_sus_time: r.get(1)?,
                        total: r.get(2)?,
                    })
                },
            )
            .optional()?)
    }

    pub fn set_suspension(&self, job_id: u32, s: &Suspension) -> DbResult<()> {
        self.tx.execute(
            "INSERT INTO suspensions (job_id, suspend_time, pre_sus_time, total)
             VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(job_id) DO UPDATE SET suspend_time = excluded.suspend_time,
                 pre_sus_time = excluded.pre_sus_time, total = excluded.total",
            params![job_id, s.suspend_time, s.pre_sus_time, s.total],
        )?;
        Ok(())
    }

    /// Forgets a job's suspensions (it is requeued: a new run).
    pub fn clear_suspension(&self, job_id: u32) -> DbResult<()> {
        self.tx
            .execute("DELETE FROM suspensions WHERE job_id = ?1", params![job_id])?;
        Ok(())
    }

    /// The running jobs, suspended ones too (their launchers run).
    pub fn running_jobs(&self) -> DbResult<Vec<JobRow>> {
        self.job_rows(
            &format!(
                "SELECT {JOB_COLUMNS} FROM jobs WHERE state IN ('RUNNING', 'SUSPENDED') ORDER BY job_id"
            ),
            [],
        )
    }

    /// Jobs not yet finished (pending, running, suspended), plus anything in flux.
    pub fn active_jobs(&self) -> DbResult<Vec<JobRow>> {
        self.job_rows(&format!(
            "SELECT {JOB_COLUMNS} FROM jobs WHERE state IN ('PENDING','RUNNING','SUSPENDED') OR flag != 'None' ORDER BY job_id"
        ), [])
    }

    /// The record with this id and, when it is an array, every record of that array.
    pub fn jobs_of(&self, job_id: u32) -> DbResult<Vec<JobRow>> {
        self.job_rows(
            &format!(
                "SELECT {JOB_COLUMNS} FROM jobs WHERE job_id = ?1 OR array_job_id = ?1 ORDER BY job_id"
            ),
            params![job_id],
        )
    }

    /// What slurmctld still holds: unfinished jobs and those that ended after `since`.
    pub fn controller_jobs(&self, since: i64) -> DbResult<Vec<JobRow>> {
        self.job_rows(
            &format!("SELECT {JOB_COLUMNS} FROM jobs WHERE {CONTROLLER_HOLDS} ORDER BY job_id"),
            named_params! {":since": since},
        )
    }

    /// [`Tx::controller_jobs`] with one of these ids as job id or array id, by index.
    pub fn controller_jobs_of(&self, ids: &[u32], since: i64) -> DbResult<Vec<JobRow>> {
        let mut out = Vec::new();
        for &id in ids {
            out.extend(self.job_rows(
                &format!(
                    "SELECT {JOB_COLUMNS} FROM jobs WHERE (job_id = :id OR array_job_id = :id) AND ({CONTROLLER_HOLDS}) ORDER BY job_id"
                ),
                named_params! {":id": id, ":since": since},
            )?);
        }
        out.sort_by_key(|r| r.job_id);
        out.dedup_by_key(|r| r.job_id);
        Ok(out)
    }

    /// Accounting rows, narrowed by job ids (matching array ids too) and owners when given.
    pub fn accounting_jobs(&self, job_ids: &[u32], uids: &[u32]) -> DbResult<Vec<JobRow>> {
        let mut rows = if job_ids.is_empty() {
            self.jobs()?
        } else {
            // by index (job id, array job id): not the whole history
            self.jobs_related(job_ids)?
        };
        if !uids.is_empty() {
            rows.retain(|r| uids.contains(&r.uid));
        }
        Ok(rows)
    }

    /// The GPU devices a job holds (`local/gres.rs` format), None when it holds none.
    pub fn job_gpus(&self, job_id: u32) -> DbResult<Option<String>> {
        Ok(self
            .tx
            .query_row("SELECT gpus FROM jobs WHERE job_id = ?1", [job_id], |r| {
                r.get::<_, Option<String>>(0)
            })
            .optional()?
            .flatten())
    }

    pub fn set_job_gpus(&self, job_id: u32, gpus: Option<&str>) -> DbResult<()> {
        self.tx.execute(
            "UPDATE jobs SET gpus = ?2 WHERE job_id = ?1",
            params![job_id, gpus],
        )?;
        Ok(())
    }

    /// The CPU ids a started job holds on each of its nodes (`local/gres.rs` format).
    pub fn set_job_cpus(&self, job_id: u32, cpus: &str) -> DbResult<()> {
        self.tx.execute(
            "UPDATE jobs SET cpus = ?2 WHERE job_id = ?1",
            params![job_id, cpus],
        )?;
        Ok(())
    }

    /// (node list, devices) of every running job that holds GPUs.
    pub fn running_gpus(&self) -> DbResult<Vec<(String, String)>> {
        self.running_held(
            "SELECT node, gpus FROM jobs WHERE state = 'RUNNING' AND gpus IS NOT NULL AND node IS NOT NULL",
        )
    }

    /// (node list, CPU ids) of every running job (a suspended job has given its CPUs back).
    pub fn running_cpus(&self) -> DbResult<Vec<(String, String)>> {
        self.running_held(
            "SELECT node, cpus FROM jobs WHERE state = 'RUNNING' AND cpus IS NOT NULL AND node IS NOT NULL",
        )
    }

    fn running_held(&self, query: &str) -> DbResult<Vec<(String, String)>> {
        let mut stmt = self.tx.prepare_cached(query)?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The CPU ids and GPU devices of the jobs the controller still holds that were given
    /// CPU ids (running or suspended, or ended at or after `since`), by job id: of these
    /// jobs only when a few are asked for (by index, so that a command about one job reads
    /// the same whatever the queue holds), else of all.
    pub fn held_resources(
        &self,
        jobs: &[u32],
        since: i64,
    ) -> DbResult<std::collections::HashMap<u32, HeldResources>> {
        let held = |r: &rusqlite::Row<'_>| {
            Ok((
                r.get(0)?,
                HeldResources {
                    cpus: r.get(1)?,
                    gpus: r.get(2)?,
                },
            ))
        };
        let mut out = std::collections::HashMap::new();
        if jobs.len() < 256 {
            let mut stmt = self.tx.prepare_cached(
                "SELECT job_id, cpus, gpus FROM jobs WHERE job_id = ?1 AND cpus IS NOT NULL",
            )?;
            for &id in jobs {
                if let Some((id, h)) = stmt.query_row([id], held).optional()? {
                    out.insert(id, h);
                }
            }
            return Ok(out);
        }
        // By the state and end-time indexes: not the pending jobs.
        let mut live = self.tx.prepare_cached(
            "SELECT job_id, cpus, gpus FROM jobs
             WHERE state IN ('RUNNING', 'SUSPENDED') AND cpus IS NOT NULL",
        )?;
        out.extend(live.query_map([], held)?.collect::<Result<Vec<_>, _>>()?);
        let mut ended = self.tx.prepare_cached(
            "SELECT job_id, cpus, gpus FROM jobs WHERE end_time >= ?1 AND cpus IS NOT NULL",
        )?;
        out.extend(
            ended
                .query_map([since], held)?
                .collect::<Result<Vec<_>, _>>()?,
        );
        Ok(out)
    }

    /// The nodes of the suspended jobs (a job's node list, None: the first node).
    pub fn suspended_nodes(&self) -> DbResult<Vec<Option<String>>> {
        let mut stmt = self
            .tx
            .prepare_cached("SELECT node FROM jobs WHERE state = 'SUSPENDED'")?;
        let rows = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    pub fn running_allocations(&self) -> DbResult<Vec<(u32, u64, Option<String>)>> {
        let mut stmt = self.tx.prepare_cached(
            "SELECT alloc_cpus, alloc_mem_mb, node FROM jobs WHERE state = 'RUNNING'",
        )?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get(0)?, r.get::<_, i64>(1)?.max(0) as u64, r.get(2)?))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Records a dependency may point at: these ids, as jobs or as arrays.
    pub fn jobs_related(&self, ids: &[u32]) -> DbResult<Vec<JobRow>> {
        let mut out = Vec::new();
        for &id in ids {
            out.extend(self.jobs_of(id)?);
        }
        out.sort_by_key(|r| r.job_id);
        out.dedup_by_key(|r| r.job_id);
        Ok(out)
    }

    /// Jobs that ended before `cutoff` and were not purged yet; their submissions' scripts
    /// are dropped once no job of the submission is unfinished or recent. Marks them
    /// purged, so each pass reads only what ended since the last one.
    pub fn purge_ended_before(&self, cutoff: i64) -> DbResult<Vec<u32>> {
        let since: i64 = self
            .tx
            .query_row(
                "SELECT value FROM meta WHERE key = 'purged_until'",
                [],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(i64::MIN);
        if since >= cutoff {
            return Ok(Vec::new());
        }
        let mut stmt = self.tx.prepare_cached(
            "SELECT job_id, submission_id FROM jobs WHERE end_time >= ?1 AND end_time < ?2",
        )?;
        let ended: Vec<(u32, u32)> = stmt
            .query_map(params![since, cutoff], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut clear = self.tx.prepare_cached(
            "UPDATE submissions SET script = x'' WHERE submission_id = ?1 AND length(script) > 0
               AND NOT EXISTS (SELECT 1 FROM jobs WHERE submission_id = ?1
                               AND (end_time IS NULL OR end_time >= ?2))",
        )?;
        let mut clear_environment = self.tx.prepare_cached(
            "DELETE FROM environments WHERE submission_id = ?1
               AND NOT EXISTS (SELECT 1 FROM jobs WHERE submission_id = ?1
                               AND (end_time IS NULL OR end_time >= ?2))",
        )?;
        let mut subs: Vec<u32> = ended.iter().map(|&(_, s)| s).collect();
        subs.sort_unstable();
        subs.dedup();
        for sub in subs {
            clear.execute(params![sub, cutoff])?;
            clear_environment.execute(params![sub, cutoff])?;
        }
        self.tx.execute(
            "INSERT INTO meta(key, value) VALUES('purged_until', ?1)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            params![cutoff],
        )?;
        Ok(ended.into_iter().map(|(j, _)| j).collect())
    }

    pub fn upsert_step(&self, s: &StepRow) -> DbResult<()> {
        self.tx.execute(
            "INSERT INTO steps (job_id, step, name, state, start_time, end_time, exit_code, exit_signal, ncpus, ntasks, nnodes, nodes, pgid, cancelled_by)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
             ON CONFLICT(job_id, step) DO UPDATE SET name = excluded.name, state = excluded.state,
               start_time = excluded.start_time, end_time = excluded.end_time, exit_code = excluded.exit_code,
               exit_signal = excluded.exit_signal, ncpus = excluded.ncpus, ntasks = excluded.ntasks,
               nnodes = excluded.nnodes, nodes = excluded.nodes, pgid = excluded.pgid,
               cancelled_by = excluded.cancelled_by",
            params![
                s.job_id,
                s.step.suffix(),
                s.name,
                s.state.long(),
                s.start_time,
                s.end_time,
                s.exit.code,
                s.exit.signal,
                s.ncpus,
                s.ntasks,
                s.nnodes,
                s.nodes,
                s.pgid,
                s.cancelled_by
            ],
        )?;
        Ok(())
    }

    pub fn steps(&self) -> DbResult<Vec<StepRow>> {
        let mut stmt = self.tx.prepare_cached(
            "SELECT job_id, step, name, state, start_time, end_time, exit_code, exit_signal, ncpus, ntasks, nnodes, nodes, pgid, cancelled_by FROM steps",
        )?;
        let rows = stmt
            .query_map([], step_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Keeps a run of a requeued job as it ended (its row as accounting shows it, and its
    /// steps), before the job goes back to the queue.
    pub fn keep_earlier_run(&self, job: &JobRow, steps: &[StepRow]) -> DbResult<()> {
        let corrupt = |e: serde_json::Error| DbError::Corrupt(e.to_string());
        self.tx.execute(
            "INSERT OR REPLACE INTO earlier_runs (job_id, run, job, steps) VALUES (?1, ?2, ?3, ?4)",
            params![
                job.job_id,
                job.restarts,
                serde_json::to_string(job).map_err(corrupt)?,
                serde_json::to_string(steps).map_err(corrupt)?
            ],
        )?;
        Ok(())
    }

    /// The kept earlier runs of these jobs, oldest first; a run that cannot be read is
    /// skipped and noted, the others are shown.
    pub fn earlier_runs(&self, job_ids: &[u32]) -> DbResult<Vec<(JobRow, Vec<StepRow>)>> {
        let wanted: std::collections::HashSet<u32> = job_ids.iter().copied().collect();
        // The table holds only requeued jobs' runs: one read of it is cheap.
        let mut stmt = self
            .tx
            .prepare_cached("SELECT job_id, job, steps FROM earlier_runs ORDER BY job_id, run")?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, u32>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let mut out = Vec::new();
        for (id, job, steps) in rows.into_iter().filter(|(id, _, _)| wanted.contains(id)) {
            match (serde_json::from_str(&job), serde_json::from_str(&steps)) {
                (Ok(job), Ok(steps)) => out.push((job, steps)),
                (Err(e), _) | (_, Err(e)) => {
                    self.skip(Some(i64::from(id)), &format!("an earlier run: {e}"))
                }
            }
        }
        Ok(out)
    }

    pub fn steps_of(&self, job_id: u32) -> DbResult<Vec<StepRow>> {
        let mut stmt = self.tx.prepare_cached(
            "SELECT job_id, step, name, state, start_time, end_time, exit_code, exit_signal, ncpus, ntasks, nnodes, nodes, pgid, cancelled_by FROM steps WHERE job_id = ?1",
        )?;
        let rows = stmt
            .query_map(params![job_id], step_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }
}

type Param = Box<dyn rusqlite::ToSql>;

fn job_params(j: &JobRow) -> DbResult<Vec<Param>> {
    let (array_job_id, array_task_id, array_pending) = match &j.array {
        None => (None, None, None),
        Some(ArrayPart::Task {
            array_job_id,
            task_id,
        }) => (Some(*array_job_id), Some(*task_id), None),
        Some(ArrayPart::Pending {
            array_job_id,
            tasks,
            throttle,
        }) => (
            Some(*array_job_id),
            None,
            Some(
                serde_json::to_string(&(tasks, throttle))
                    .map_err(|e| DbError::Corrupt(e.to_string()))?,
            ),
        ),
    };
    let dependency = j
        .dependency
        .as_ref()
        .map(serde_json::to_string)
        .transpose()
        .map_err(|e| DbError::Corrupt(e.to_string()))?;
    Ok(vec![
        Box::new(j.job_id),
        Box::new(j.submission_id),
        Box::new(array_job_id),
        Box::new(array_task_id),
        Box::new(array_pending),
        Box::new(j.name.clone()),
        Box::new(j.uid),
        Box::new(j.state.long()),
        Box::new(flag_name(j.flag)),
        Box::new(j.reason.clone()),
        Box::new(j.priority),
        Box::new(j.held),
        Box::new(dependency),
        Box::new(j.submit_time),
        Box::new(j.eligible_time),
        Box::new(j.start_time),
        Box::new(j.end_time),
        Box::new(j.last_sched_eval),
        Box::new(j.exit.code),
        Box::new(j.exit.signal),
        Box::new(j.cancelled_by),
        Box::new(j.alloc_cpus),
        Box::new(j.alloc_mem_mb as i64),
        Box::new(j.node.clone()),
        Box::new(j.launcher_pid),
        Box::new(j.launcher_start.map(|v| v as i64)),
        Box::new(j.job_pgid),
        Box::new(j.restarts),
        Box::new(j.requeue.map(requeue_bits)),
        Box::new(j.reason_prev.clone()),
        Box::new(j.acct_reason.clone()),
        Box::new(
            j.acct_tasks
                .as_ref()
                .map(serde_json::to_string)
                .transpose()
                .map_err(|e| DbError::Corrupt(e.to_string()))?,
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schema_1_database_gains_the_new_columns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        drop(Db::open(&path, 1).unwrap());
        // Make it what bai-slurm before schema 2 left behind, with a job in it.
        {
            let c = Connection::open(&path).unwrap();
            c.execute_batch(
                "ALTER TABLE jobs DROP COLUMN acct_tasks;
                 ALTER TABLE jobs DROP COLUMN acct_reason;
                 ALTER TABLE jobs DROP COLUMN reason_prev;
                 ALTER TABLE jobs DROP COLUMN gpus;
                 ALTER TABLE jobs DROP COLUMN cpus;
                 ALTER TABLE jobs DROP COLUMN requeue;
                 ALTER TABLE jobs DROP COLUMN restarts;
                 ALTER TABLE steps DROP COLUMN cancelled_by;
                 DROP TABLE environments;
                 INSERT INTO submissions VALUES (5, '{\"name\":\"old\",\"environment\":{\"A\":\"1\"}}', x'');
                 INSERT INTO jobs (job_id, submission_id, name, uid, state, priority,
                                   submit_time, alloc_cpus, alloc_mem_mb)
                   VALUES (5, 5, 'old', 0, 'COMPLETED', 1, 0, 1, 100);
                 INSERT INTO steps (job_id, step, name, state, ncpus, ntasks, nnodes, nodes)
                   VALUES (5, '0', 'echo', 'CANCELLED', 1, 1, 1, 'node01');
                 PRAGMA user_version = 1;",
            )
            .unwrap();
        }
        let mut db = Db::open(&path, 1).unwrap();
        let rows = db.read(|tx| tx.jobs()).unwrap();
        assert_eq!(rows.len(), 1);
        // Revision 10's CPU ids: none held by a job that ran before them.
        assert!(db.read(|tx| tx.held_resources(&[5], 0)).unwrap().is_empty());
        assert_eq!(rows[0].reason_prev, "None");
        assert_eq!(rows[0].acct_reason, None);
        assert_eq!((rows[0].restarts, rows[0].requeue), (0, None));
        let steps = db.read(|tx| tx.steps_of(5)).unwrap();
        assert_eq!((steps.len(), steps[0].cancelled_by), (1, None));
        // the environment moved out of the request (schema 5), and reads back whole
        let spec = db.read(|tx| tx.submission(5)).unwrap();
        assert_eq!((spec.name.as_str(), spec.environment.len()), ("old", 1));
        let requests = db.read(|tx| tx.submissions(&[5])).unwrap();
        assert!(requests[&5].environment.is_empty());
    }

    #[test]
    fn an_additive_change_keeps_the_version_older_launchers_can_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        drop(Db::open(&path, 1).unwrap());
        {
            // what schema 4 (revision 4) left behind
            let c = Connection::open(&path).unwrap();
            c.execute_batch(
                "DROP TABLE environments;
                 DELETE FROM meta WHERE key = 'revision';",
            )
            .unwrap();
        }
        drop(Db::open(&path, 1).unwrap());
        let c = Connection::open(&path).unwrap();
        let version: i64 = c
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(
            version, 4,
            "a running job's older launcher refuses a higher one"
        );
        let has_environment: i64 = c
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'environments'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(has_environment, 1);
    }

    #[test]
    fn a_request_is_read_without_its_environment_and_an_update_keeps_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut db = Db::open(&dir.path().join("state.db"), 1).unwrap();
        let mut spec = JobSpec {
            name: "envjob".into(),
            script: b"#!/bin/sh\n".to_vec(),
            ..JobSpec::default()
        };
        spec.environment.insert("HOME".into(), "/home/a".into());
        spec.nodes_min = Some(2);
        spec.hold = true;
        db.write(|tx| tx.insert_submission(7, &spec)).unwrap();
        assert_eq!(db.read(|tx| tx.submission(7)).unwrap(), spec);
        let request = db
            .read(|tx| tx.submissions(&[7]))
            .unwrap()
            .remove(&7)
            .unwrap();
        assert!(request.environment.is_empty() && request.script.is_empty());
        assert_eq!(request.name, "envjob");
        // scontrol update writes back a request read without its environment
        let mut changed = request;
        changed.name = "renamed".into();
        db.write(|tx| tx.replace_submission(7, &changed)).unwrap();
        let whole = db.read(|tx| tx.submission(7)).unwrap();
        assert_eq!(whole.name, "renamed");
        assert_eq!(whole.environment, spec.environment);
        assert_eq!(whole.script, spec.script);
        db.write(|tx| tx.copy_submission(7, 8)).unwrap();
        assert_eq!(db.read(|tx| tx.submission(8)).unwrap(), whole);
    }

    /// A backfill cycle is kept only when some job waits for resources, as slurmctld's
    /// `bf_when_last_cycle`; the last one stays.
    #[test]
    fn a_backfill_cycle_is_kept_when_jobs_wait_for_resources() {
        let dir = tempfile::tempdir().unwrap();
        let mut db = Db::open(&dir.path().join("state.db"), 1).unwrap();
        db.write(|tx| tx.record_backfill_cycle(100)).unwrap();
        assert_eq!(db.read(|tx| tx.last_backfill()).unwrap(), 0);
        db.write(|tx| tx.insert_submission(7, &JobSpec::default()))
            .unwrap();
        let waiting = |db: &mut Db, reason: &str| {
            db.write(|tx| {
                tx.tx.execute("DELETE FROM jobs", [])?;
                tx.tx.execute(
                    "INSERT INTO jobs (job_id, submission_id, name, uid, state, reason, \
                     priority, submit_time, alloc_cpus, alloc_mem_mb) \
                     VALUES (7, 7, 'w', 1001, 'PENDING', ?1, 1, 90, 1, 100)",
                    params![reason],
                )?;
                Ok(())
            })
        };
        waiting(&mut db, "Resources").unwrap();
        db.write(|tx| tx.record_backfill_cycle(130)).unwrap();
        assert_eq!(db.read(|tx| tx.last_backfill()).unwrap(), 130);
        // A held job is not backfill's to test: the last cycle stays.
        waiting(&mut db, "JobHeldUser").unwrap();
        db.write(|tx| tx.record_backfill_cycle(160)).unwrap();
        assert_eq!(db.read(|tx| tx.last_backfill()).unwrap(), 130);
    }
}
