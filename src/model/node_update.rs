//! A change to nodes, as `scontrol update NodeName=...` sends it to the controller
//! (Slurm's `update_node_msg_t` with only the changed fields set). scontrol has checked
//! the words' form; the controller checks the names, the requester and what each node's
//! state allows (`update_node` in node_mgr.c).

/// The state an operator asks for (`State=`), as scontrol reads the word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum NodeStateChange {
    /// `DRAIN`: no new jobs; running ones go on (DRAINING, then DRAINED).
    Drain,
    /// `FAIL`: as drain, for a node expected to fail (FAILING, then FAIL).
    Fail,
    /// `DOWN`: the node's running jobs are killed (requeued where they may be).
    Down,
    /// `RESUME`: a drained, failed or down node takes jobs again.
    Resume,
    /// `UNDRAIN`: clears the drain flag only.
    Undrain,
    /// `IDLE`: clears drain, fail and down, of a node that runs nothing or is down.
    Idle,
    /// `ALLOC`: accepted for a node that runs jobs (it changes nothing here).
    Allocated,
    /// A node state name slurmctld does not accept as a request (`MIXED`, `UNKNOWN`, ...),
    /// or one of the power-saving and cloud requests: refused as slurmctld refuses them
    /// on a cluster without power saving (`Invalid node state specified`).
    Invalid,
    /// `NoResp`, `FUTURE`, `CANCEL_REBOOT`: accepted by slurmctld, not modelled by the
    /// backends here (refused as not supported).
    Unmodelled,
}

/// What one `scontrol update NodeName=...` asks.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NodeUpdate {
    /// The nodes, as a host list expression (`node[01-02]`, `node01,node03`, or `ALL`).
    pub names: String,
    pub state: Option<NodeStateChange>,
    /// `Reason=`, the quotes scontrol strips already gone.
    pub reason: Option<String>,
    /// Fields scontrol accepts that no backend here changes (their words as typed, e.g.
    /// `Weight=5`); a backend refuses an update that carries any.
    pub unmodelled: Vec<String>,
}
