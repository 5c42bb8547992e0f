//! A PMI-1 server ("simple" PMI wire protocol, what MPICH's libmpi speaks by default), so
//! that `srun ./mpi_program` starts the ranks of one MPI job: every task gets `PMI_FD` (a
//! socket to its node's step server), `PMI_RANK` and `PMI_SIZE`. Puts are kept per node;
//! a barrier is a fence over all nodes: when every local rank entered it, the node sends
//! its new puts to srun, which answers every node with all of them once all nodes came in.
//!
//! Text commands, one per line: `cmd=init pmi_version=1 pmi_subversion=1`, `get_maxes`,
//! `get_appnum`, `get_my_kvsname`, `get_universe_size`, `put`, `get`, `barrier_in`,
//! `finalize`, `abort`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Condvar, Mutex};

/// What every node of a step knows about its MPI job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PmiJob {
    pub kvsname: String,
    pub size: u32,
    /// Pre-set keys (`PMI_process_mapping`).
    pub preset: Vec<(String, String)>,
}

/// MPICH's `PMI_process_mapping` for a block layout: runs of nodes with the same number of
/// tasks, `(vector,(first node,node count,tasks per node),...)`. None for other layouts.
pub fn process_mapping(tasks: &[Vec<u32>]) -> Option<String> {
    let mut next = 0;
    for t in tasks {
        for &r in t {
            if r != next {
                return None;
            }
            next += 1;
        }
    }
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    for (i, t) in tasks.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if run.2 == t.len() => run.1 += 1,
            _ => runs.push((i, 1, t.len())),
        }
    }
    let body: Vec<String> = runs
        .iter()
        .map(|(a, b, c)| format!("({a},{b},{c})"))
        .collect();
    Some(format!("(vector,{})", body.join(",")))
}

/// Key-value pairs of the PMI key space.
pub type Kvs = Vec<(String, String)>;
/// How a node hands its new puts to srun.
pub type FenceFn = Box<dyn Fn(Kvs) + Send + Sync>;

struct State {
    kvs: BTreeMap<String, String>,
    new_puts: Vec<(String, String)>,
    in_barrier: usize,
    epoch: u64,
}

/// One node's share of a step's PMI: its tasks' connections, its copy of the key space.
pub struct NodePmi {
    job: PmiJob,
    local_ranks: usize,
    state: Mutex<State>,
    done: Condvar,
    /// Sends this node's new puts to srun when all local ranks are in a barrier.
    fence: FenceFn,
}

impl NodePmi {
    pub fn new(job: PmiJob, local_ranks: usize, fence: FenceFn) -> Arc<NodePmi> {
        let kvs = job.preset.iter().cloned().collect();
        Arc::new(NodePmi {
            job,
            local_ranks,
            state: Mutex::new(State {
                kvs,
                new_puts: Vec::new(),
                in_barrier: 0,
                epoch: 0,
            }),
            done: Condvar::new(),
            fence,
        })
    }

    /// The number of ranks in the job.
    pub fn size(&self) -> u32 {
        self.job.size
    }

    /// srun's answer to a fence: every node's puts. Releases the local ranks.
    pub fn fence_done(&self, kvs: Vec<(String, String)>) {
        let Ok(mut s) = self.state.lock() else { return };
        s.kvs.extend(kvs);
        s.in_barrier = 0;
        s.epoch += 1;
        self.done.notify_all();
    }

    /// Serves one task's PMI connection until it closes.
    pub fn serve(self: &Arc<Self>, conn: UnixStream) {
        let Ok(mut out) = conn.try_clone() else {
            return;
        };
        let mut lines = BufReader::new(conn);
        let mut line = String::new();
        loop {
            line.clear();
            match lines.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let args: BTreeMap<&str, &str> = line
                .split_whitespace()
                .filter_map(|w| w.split_once('='))
                .collect();
            let reply = match args.get("cmd").copied().unwrap_or("") {
                "init" => "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0".to_string(),
                "get_maxes" => "cmd=maxes kvsname_max=256 keylen_max=256 vallen_max=1024".into(),
                "get_appnum" => "cmd=appnum appnum=0".into(),
                "get_my_kvsname" => format!("cmd=my_kvsname kvsname={}", self.job.kvsname),
                "get_universe_size" => format!("cmd=universe_size size={}", self.job.size),
                "put" => {
                    if let (Some(k), Some(v), Ok(mut s)) =
                        (args.get("key"), args.get("value"), self.state.lock())
                    {
                        s.kvs.insert(k.to_string(), v.to_string());
                        s.new_puts.push((k.to_string(), v.to_string()));
                    }
                    "cmd=put_result rc=0".into()
                }
                "get" => {
                    let key = args.get("key").copied().unwrap_or("");
                    match self.state.lock().ok().and_then(|s| s.kvs.get(key).cloned()) {
                        Some(v) => format!("cmd=get_result rc=0 value={v}"),
                        None => {
                            format!("cmd=get_result rc=-1 value=unknown msg=key_{key}_not_found")
                        }
                    }
                }
                "barrier_in" => {
                    self.barrier();
                    "cmd=barrier_out".into()
                }
                "finalize" => "cmd=finalize_ack".into(),
                // abort: the task exits on its own; srun reports it.
                _ => continue,
            };
            if writeln!(out, "{reply}").is_err() {
                return;
            }
        }
    }

    fn barrier(&self) {
        let Ok(mut s) = self.state.lock() else { return };
        let epoch = s.epoch;
        s.in_barrier += 1;
        if s.in_barrier == self.local_ranks {
            let puts = std::mem::take(&mut s.new_puts);
            (self.fence)(puts);
        }
        while s.epoch == epoch {
            s = match self.done.wait(s) {
                Ok(s) => s,
                Err(_) => return,
            };
        }
    }
}

/// srun's side of the fences: collects every node's puts, answers all nodes together.
#[derive(Default)]
pub struct FenceCollector {
    arrived: usize,
    kvs: Vec<(String, String)>,
}

impl FenceCollector {
    /// Adds one node's puts; returns everything once all `nodes` came in.
    pub fn arrive(
        &mut self,
        puts: Vec<(String, String)>,
        nodes: usize,
    ) -> Option<Vec<(String, String)>> {
        self.kvs.extend(puts);
        self.arrived += 1;
        if self.arrived < nodes {
            return None;
        }
        self.arrived = 0;
        Some(std::mem::take(&mut self.kvs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_layouts_map_and_others_do_not() {
        assert_eq!(
            process_mapping(&[vec![0, 1], vec![2, 3]]).as_deref(),
            Some("(vector,(0,2,2))")
        );
        assert_eq!(
            process_mapping(&[vec![0, 1], vec![2]]).as_deref(),
            Some("(vector,(0,1,2),(1,1,1))")
        );
        assert_eq!(process_mapping(&[vec![0, 2], vec![1, 3]]), None);
    }

    #[test]
    fn two_nodes_exchange_puts_through_a_fence() {
        let job = PmiJob {
            kvsname: "kvs_1_0".into(),
            size: 2,
            preset: vec![("PMI_process_mapping".into(), "(vector,(0,2,1))".into())],
        };
        // Two nodes of one rank each; the "srun" here is a collector over a channel.
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Vec<(String, String)>)>();
        let nodes: Vec<Arc<NodePmi>> = (0..2)
            .map(|i| {
                let tx = tx.clone();
                NodePmi::new(job.clone(), 1, Box::new(move |p| tx.send((i, p)).unwrap()))
            })
            .collect();
        let n2 = nodes.clone();
        std::thread::spawn(move || {
            let mut c = FenceCollector::default();
            while let Ok((_, puts)) = rx.recv() {
                if let Some(all) = c.arrive(puts, 2) {
                    for n in &n2 {
                        n.fence_done(all.clone());
                    }
                }
            }
        });
        let ranks: Vec<_> = (0..2)
            .map(|r| {
                let (a, b) = UnixStream::pair().unwrap();
                let node = Arc::clone(&nodes[r]);
                std::thread::spawn(move || node.serve(b));
                std::thread::spawn(move || {
                    let mut w = a.try_clone().unwrap();
                    let mut rd = BufReader::new(a);
                    let mut ask = |cmd: &str| {
                        writeln!(w, "{cmd}").unwrap();
                        let mut l = String::new();
                        rd.read_line(&mut l).unwrap();
                        l.trim().to_string()
                    };
                    assert!(ask("cmd=init pmi_version=1 pmi_subversion=1").ends_with("rc=0"));
                    assert_eq!(ask("cmd=get_my_kvsname"), "cmd=my_kvsname kvsname=kvs_1_0");
                    ask(&format!(
                        "cmd=put kvsname=kvs_1_0 key=card{r} value=addr{r}"
                    ));
                    assert_eq!(ask("cmd=barrier_in"), "cmd=barrier_out");
                    let other = 1 - r;
                    let got = ask(&format!("cmd=get kvsname=kvs_1_0 key=card{other}"));
                    assert_eq!(got, format!("cmd=get_result rc=0 value=addr{other}"));
                    let map = ask("cmd=get kvsname=kvs_1_0 key=PMI_process_mapping");
                    assert!(map.ends_with("value=(vector,(0,2,1))"), "{map}");
                    assert!(ask("cmd=get kvsname=kvs_1_0 key=nope").contains("rc=-1"));
                    assert_eq!(ask("cmd=finalize"), "cmd=finalize_ack");
                })
            })
            .collect();
        for r in ranks {
            r.join().unwrap();
        }
    }
}
