//! Multi-node steps on one machine: the local backend with simulated nodes (`[local] nodes
//! = 2`), each node's step server on its own loopback address (127.0.0.2, 127.0.0.3), and
//! srun spreading steps over them. Compared with a real two-node Slurm 22.05
//! (tests/golden/multinode/, recorded by its up-two-node-slurm.sh and capture.sh).

mod harness;

use harness::{Cluster, secs};
use std::collections::BTreeMap;

const SH: &str = "#!/bin/bash\n";

fn two_nodes() -> Cluster {
    // Two CPUs and 2 GB per node: 1024 MB per CPU, as on the reference cluster.
    Cluster::with_config(2, 2048, 2, "nodes = 2\n")
}

fn golden(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/golden/multinode/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// Variables naming a slurm.conf, a controller or accounting we do not have (the reference
/// cluster ran without accounting, so it has no SLURM_JOB_QOS while we always name one).
const NOT_OURS: [&str; 4] = [
    "SLURM_CONF",
    "SLURM_WORKING_CLUSTER",
    "SLURM_JOB_ACCOUNT",
    "SLURM_JOB_QOS",
];

/// `rank -> {KEY: value}` from `N: KEY=value` lines (or one rank, from plain lines).
fn env_by_rank(text: &str, labelled: bool) -> BTreeMap<u32, BTreeMap<String, String>> {
    let mut out: BTreeMap<u32, BTreeMap<String, String>> = BTreeMap::new();
    for line in text.lines() {
        let (rank, kv) = if labelled {
            match line.split_once(": ") {
                Some((r, kv)) => match r.trim().parse() {
                    Ok(r) => (r, kv),
                    Err(_) => continue,
                },
                None => continue,
            }
        } else {
            (0, line)
        };
        if let Some((k, v)) = kv.split_once('=')
            && k.starts_with("SLURM")
            && !NOT_OURS.contains(&k)
        {
            out.entry(rank).or_default().insert(k.into(), v.into());
        }
    }
    out
}

/// Values that name this run (ids, pids, ports, paths, the cluster, the submitter's nice
/// value) rather than the layout.
const RUN_SPECIFIC: [&str; 13] = [
    "SLURM_PRIO_PROCESS",
    "SLURM_JOBID",
    "SLURM_JOB_ID",
    "SLURM_TASK_PID",
    "SLURM_SRUN_COMM_PORT",
    "SLURM_STEP_LAUNCHER_PORT",
    "SLURM_SUBMIT_DIR",
    "SLURM_SUBMIT_HOST",
    "SLURM_CLUSTER_NAME",
    "SLURM_JOB_UID",
    "SLURM_JOB_GID",
    "SLURM_JOB_USER",
    "SLURM_JOB_PARTITION",
];

fn layout_only(
    env: &BTreeMap<u32, BTreeMap<String, String>>,
) -> BTreeMap<u32, BTreeMap<String, String>> {
    env.iter()
        .map(|(r, vars)| {
            let vars = vars
                .iter()
                .filter(|(k, _)| {
                    !RUN_SPECIFIC.contains(&k.as_str())
                        && !matches!(
                            k.as_str(),
                            "SLURM_LAUNCH_NODE_IPADDR" | "SLURM_SRUN_COMM_HOST" | "SLURM_JOB_NAME"
                        )
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            (*r, vars)
        })
        .collect()
}

#[test]
fn a_two_node_job_runs_srun_n4_n2_like_slurm() {
    let c = two_nodes();
    c.write_script("mn.sh", &golden("sbatch_N2_steps.sh"));
    let id = c.submit(&["mn.sh"]);
    let rows = c.wait_done(&id.to_string(), secs(90));
    let steps = c.read("mn_stepenv.txt");
    // Every task's variables, and every layout value, as the real two-node Slurm gave them.
    let ours = env_by_rank(&steps, true);
    let theirs = env_by_rank(&golden("sbatch_N2_stepenv.txt"), true);
    assert_eq!(ours.len(), 4, "{steps}");
    for rank in 0..4 {
        let keys = |m: &BTreeMap<u32, BTreeMap<String, String>>| -> Vec<String> {
            m[&rank].keys().cloned().collect()
        };
        assert_eq!(keys(&ours), keys(&theirs), "rank {rank}");
    }
    assert_eq!(layout_only(&ours), layout_only(&theirs));
    assert_eq!(ours[&3]["SLURM_JOB_ID"], id.to_string());
    // The batch step's own environment (it runs on the first node).
    let batch = env_by_rank(&c.read("mn_batchenv.txt"), false);
    let want = env_by_rank(&golden("sbatch_N2_batchenv.txt"), false);
    assert_eq!(
        batch[&0].keys().collect::<Vec<_>>(),
        want[&0].keys().collect::<Vec<_>>()
    );
    assert_eq!(layout_only(&batch), layout_only(&want));
    // The script's other steps: -w, -x, defaults, --ntasks-per-node against -n, failures,
    // cyclic. Output order across nodes is not fixed, so compare sorted sections.
    let out = c.read("mn_env.out");
    let sections = |text: &str| -> Vec<(String, Vec<String>)> {
        let mut v: Vec<(String, Vec<String>)> = Vec::new();
        for line in text.lines() {
            if let Some(h) = line.strip_prefix("== ") {
                v.push((h.to_string(), Vec::new()));
            } else if let Some(last) = v.last_mut() {
                last.1.push(line.to_string());
            }
        }
        for s in &mut v {
            s.1.sort();
        }
        v
    };
    // The recording's job was 10; its sacct line is not ours (accounting was off there).
    let theirs = golden("sbatch_N2_steps.out")
        .replace("job 10:", &format!("job {id}:"))
        .replace("Slurm accounting storage is disabled\n", "");
    let mut ours_sections = sections(&out);
    if let Some(last) = ours_sections.last_mut() {
        last.1.retain(|l| !l.contains('|'));
    }
    assert_eq!(ours_sections, sections(&theirs), "{out}");
    // Steps are accounted: the batch step and the six that started (the refused ones got
    // no id, as in Slurm: its -w step printed SLURM_STEP_ID=1 too).
    let ids: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert!(ids.contains(&format!("{id}.batch").as_str()), "{rows:?}");
    assert!(ids.contains(&format!("{id}.0").as_str()), "{rows:?}");
    let failed = rows
        .iter()
        .find(|r| r.0 == format!("{id}.4"))
        .expect("the failing step");
    assert_eq!((failed.1.as_str(), failed.2.as_str()), ("FAILED", "7:0"));
}

#[test]
fn srun_outside_a_job_takes_two_nodes() {
    let c = two_nodes();
    let r = c
        .run(
            "srun",
            &["-N2", "-n4", "-l", "bash", "-c", "env | grep ^SLURM | sort"],
        )
        .ok();
    let ours = env_by_rank(&r.stdout, true);
    let theirs = env_by_rank(&golden("srun_N2_n4_l_env.stdout"), true);
    for rank in 0..4 {
        assert_eq!(
            ours[&rank].keys().collect::<Vec<_>>(),
            theirs[&rank].keys().collect::<Vec<_>>(),
            "rank {rank}"
        );
    }
    assert_eq!(layout_only(&ours), layout_only(&theirs));
    // Block and cyclic layouts, one line per task.
    for (case, args) in [
        ("srun_N2_n4_block", vec!["-N2", "-n4", "-l"]),
        (
            "srun_N2_n4_cyclic",
            vec!["-N2", "-n4", "-l", "-m", "cyclic"],
        ),
    ] {
        let mut a = args.clone();
        a.extend([
            "bash",
            "-c",
            "echo $SLURMD_NODENAME $SLURM_NODEID $SLURM_LOCALID $SLURM_GTIDS",
        ]);
        let r = c.run("srun", &a).ok();
        let mut got: Vec<&str> = r.stdout.lines().collect();
        got.sort();
        let want = golden(&format!("{case}.stdout"));
        let mut want: Vec<&str> = want.lines().collect();
        want.sort();
        assert_eq!(got, want, "{case}");
    }
    // sinfo and squeue see two nodes.
    let r = c.run("sinfo", &["-h", "-o", "%D %N"]).ok();
    assert_eq!(r.stdout, "2 node[01-02]\n");
}

/// srun's stderr lines as a sorted list, with the job id and times made neutral.
fn neutral(text: &str, job: &str) -> Vec<String> {
    let mut v: Vec<String> = text
        .lines()
        .map(|l| {
            let l = l.replace(&format!("StepId={job}."), "StepId=J.");
            let l = l.replace(&format!("STEP {job}."), "STEP J.");
            match l.find(" CANCELLED AT ") {
                Some(at) => format!("{} CANCELLED AT T ***", &l[..at]),
                None => l,
            }
        })
        .collect();
    v.sort();
    v
}

#[test]
fn failures_on_every_node_are_reported_like_slurm() {
    let c = two_nodes();
    // Task 1 exits 7 on node01, task 2 is killed by a signal and task 3 exits 7 on node02.
    let r = c.run(
        "srun",
        &[
            "-N2",
            "-n4",
            "-l",
            "bash",
            "-c",
            "case $SLURM_PROCID in 1) exit 7;; 2) kill -9 $$;; 3) exit 7;; esac",
        ],
    );
    assert_eq!(r.code, 137, "{r:?}");
    assert_eq!(
        neutral(&r.stderr, "1"),
        neutral(&golden("srun_N2_exits.stderr"), "5")
    );
    // --kill-on-bad-exit: task 3's failure on node02 cancels the step on both nodes.
    let started = std::time::Instant::now();
    let r = c.run(
        "srun",
        &[
            "-N2",
            "-n4",
            "-K",
            "bash",
            "-c",
            "if [ $SLURM_PROCID = 3 ]; then exit 5; fi; sleep 20",
        ],
    );
    assert!(started.elapsed() < secs(15), "the others were not killed");
    assert_eq!(r.code, 143, "{r:?}");
    let mut ours = neutral(&r.stderr, "2");
    let mut theirs = neutral(&golden("srun_N2_K.stderr"), "6");
    // The reference printed slurmstepd's cancel notice of one node; we print each node's.
    ours.retain(|l| !l.starts_with("slurmstepd-"));
    theirs.retain(|l| !l.starts_with("slurmstepd-"));
    assert_eq!(ours, theirs, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("slurmstepd-node01: error: *** STEP 2.0 ON node01 CANCELLED AT "),
        "{}",
        r.stderr
    );
    let rows = c.acct("2");
    assert_eq!(rows[1], ("2.0".into(), "FAILED".into(), "0:15".into()));
}

/// One frame of the step protocol: type byte, big-endian length, body.
fn frame(kind: u8, body: &[u8]) -> Vec<u8> {
    let mut f = vec![kind];
    f.extend_from_slice(&(body.len() as u32).to_be_bytes());
    f.extend_from_slice(body);
    f
}

fn read_frame(s: &mut std::net::TcpStream) -> String {
    use std::io::Read;
    let mut head = [0u8; 5];
    s.read_exact(&mut head).unwrap();
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).unwrap();
    String::from_utf8_lossy(&body).into_owned()
}

#[test]
fn callers_without_the_job_secret_are_refused_on_every_node() {
    let c = two_nodes();
    c.write_script(
        "probe.sh",
        &format!(
            "{SH}#SBATCH -N 2
             BAI_SLURM_JOB_SECRET=wrong srun -N 2 true
echo rc=$?
             srun -N 2 -l hostname >/dev/null && echo fine
             for f in /proc/$PPID/fd/*; do case \"$(readlink $f)\" in /memfd:bai-slurm-job*) cat $f;; esac; done | sed -E 's/.*\"nodes\":\\[\\[(.*)\\]\\],\"secret\".*/\\1/; s/\\],\\[/,/g; s/\"([^\"]*)\",\"([^\"]*)\"/\\1=\\2/g' > stepd.txt
             while [ ! -e done ]; do sleep 0.1; done
"
        ),
    );
    let id = c.submit(&["probe.sh"]);
    let start = std::time::Instant::now();
    while !c.path("stepd.txt").exists() {
        assert!(start.elapsed() < secs(60), "{}", c.runner_log());
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    // Each node's server has its own loopback address.
    let stepd = c.read("stepd.txt");
    assert!(
        stepd.starts_with("node01=127.0.0.2:") && stepd.contains(",node02=127.0.0.3:"),
        "{stepd}"
    );
    // Straight to node02's server (a process of its own) with a made-up answer: refused.
    let node02 = stepd
        .trim()
        .split(',')
        .find_map(|e| e.strip_prefix("node02="))
        .unwrap()
        .to_string();
    let mut s = std::net::TcpStream::connect(&node02).unwrap();
    let hello = read_frame(&mut s);
    assert!(hello.contains("\"node\":\"node02\""), "{hello}");
    use std::io::Write;
    let auth = format!(
        "{{\"Auth\":{{\"mac\":\"{}\",\"nonce\":\"{}\"}}}}",
        "00".repeat(32),
        "ab".repeat(16)
    );
    s.write_all(&frame(0, auth.as_bytes())).unwrap();
    assert!(read_frame(&mut s).contains("Refused"));
    std::fs::write(c.path("done"), "").unwrap();
    c.wait_done(&id.to_string(), secs(60));
    let out = c.read(&format!("slurm-{id}.out"));
    assert_eq!(
        out,
        format!(
            "srun: error: Unable to create step for job {id}: Unable to contact slurm controller (connect failure)\nrc=1\nfine\n"
        )
    );
    let log = c.runner_log();
    for node in ["node01", "node02"] {
        assert!(
            log.contains(&format!("step server {node}: connection from 127.0.0."))
                && log.contains("refused: it does not know the job's secret"),
            "{log}"
        );
    }
}

#[test]
fn ranks_meet_across_nodes_with_only_srun_s_environment() {
    let c = two_nodes();
    // Rank 0 listens at MASTER_ADDR:MASTER_PORT; every other rank connects and says who it
    // is; rank 0 answers each with the world size. What torch.distributed's env:// does.
    c.write_script(
        "rendezvous.py",
        r#"import os, socket, sys, time
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
addr, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
node = os.environ["SLURMD_NODENAME"]
if rank == 0:
    s = socket.create_server((addr, port))
    seen = []
    for _ in range(world - 1):
        conn, _ = s.accept()
        seen.append(conn.recv(100).decode())
        conn.sendall(f"world={world}".encode())
        conn.close()
    print(f"rank 0 on {node} met " + ", ".join(sorted(seen)))
else:
    for _ in range(100):
        try:
            conn = socket.create_connection((addr, port))
            break
        except OSError:
            time.sleep(0.1)
    conn.sendall(f"rank {rank} on {node}".encode())
    print(f"rank {rank} on {node} got {conn.recv(100).decode()}")
"#,
    );
    c.write_script(
        "job.sh",
        &format!(
            "{SH}#SBATCH -N 2 -n 2\nsrun -l python3 rendezvous.py\n\
             env | grep -E '^(MASTER_|WORLD_SIZE|RANK|LOCAL_RANK)' || echo batch: none\n"
        ),
    );
    let id = c.submit(&["job.sh"]);
    let rows = c.wait_done(&id.to_string(), secs(60));
    let out = c.read(&format!("slurm-{id}.out"));
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "0: rank 0 on node01 met rank 1 on node02",
            "1: rank 1 on node02 got world=2",
            "batch: none",
        ],
        "{rows:?}"
    );
}

/// MPICH inside a two-node job, both ways: `mpiexec` (Hydra reads the allocation from the
/// job's environment and starts its proxies with our srun, one per node) and `srun` alone
/// (the ranks get PMI-1 from the step servers). The ranks on both nodes then talk to each
/// other. Needs MPICH (`mpich` and `libmpich-dev`, which .ci/run installs).
#[test]
fn mpich_ranks_run_on_both_nodes_by_mpiexec_and_by_srun() {
    let have = |p: &str| {
        std::process::Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    assert!(
        have("mpicc") && have("mpiexec"),
        "MPICH is needed: apt-get install mpich libmpich-dev (scripts/test.sh does)"
    );
    let c = two_nodes();
    let hello = c.path("hello");
    let built = std::process::Command::new("mpicc")
        .arg("-o")
        .arg(&hello)
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mpi/hello.c"))
        .output()
        .unwrap();
    assert!(built.status.success(), "{built:?}");
    // Once through Hydra (its proxies started by srun), once started by srun directly
    // (the ranks find each other through the step servers' PMI-1).
    c.write_script(
        "mpi.sh",
        &format!(
            "{SH}#SBATCH -N 2 -n 4\nmpiexec -n 4 ./hello\necho rc=$?\nsrun ./hello | sed 's/^/srun /'\n"
        ),
    );
    let id = c.submit(&["mpi.sh"]);
    let rows = c.wait_done(&id.to_string(), secs(90));
    let out = c.read(&format!("slurm-{id}.out"));
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "rank 0 of 4 on node01: sum 10",
            "rank 1 of 4 on node01: sum 10",
            "rank 2 of 4 on node02: sum 10",
            "rank 3 of 4 on node02: sum 10",
            "rc=0",
            "srun rank 0 of 4 on node01: sum 10",
            "srun rank 1 of 4 on node01: sum 10",
            "srun rank 2 of 4 on node02: sum 10",
            "srun rank 3 of 4 on node02: sum 10",
        ],
        "{rows:?}"
    );
    // The proxies were one srun step over both nodes.
    assert!(
        rows.contains(&(format!("{id}.0"), "COMPLETED".into(), "0:0".into())),
        "{rows:?}"
    );
}

#[test]
fn srun_refusals_and_signals_inside_a_two_node_job_read_like_slurm() {
    let c = two_nodes();
    c.write_script("errs.sh", &golden("sbatch_N2_errors.sh"));
    let id = c.submit(&["errs.sh"]);
    c.wait_done(&id.to_string(), secs(90));
    // `hostname` printed this machine's name; the reference machine was `vm`.
    let host = nix::unistd::gethostname().unwrap().into_string().unwrap();
    let ours: String = c
        .read("mn_errs.out")
        .lines()
        .map(|l| {
            if l == host {
                "vm\n".to_string()
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    // Up to the I/O patterns (their %N is the host's name there, the node's here).
    let cut = |t: &str| -> Vec<String> {
        let head = t.split("== io patterns").next().unwrap_or_default();
        let mut v: Vec<String> = head
            .lines()
            .map(|l| {
                l.replace("job 11:", "job J:")
                    .replace("StepId=11.", "StepId=J.")
                    .replace(&format!("job {id}:"), "job J:")
                    .replace(&format!("StepId={id}."), "StepId=J.")
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(cut(&ours), cut(&golden("sbatch_N2_errors.out")), "{ours}");
    let mut files: Vec<String> = std::fs::read_dir(&c.work)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("io-"))
        .collect();
    files.sort();
    assert_eq!(
        files,
        [0, 1, 2, 3].map(|t| format!("io-{id}-2-{t}-{}-node0{}.txt", t / 2, t / 2 + 1))
    );
}

/// `--nodelist` and `--exclude` place jobs as slurmctld does (issue 11): the named node is
/// used, an excluded one is not, and what cannot be met is refused with its words.
#[test]
fn nodelist_and_exclude_choose_the_nodes() {
    let c = two_nodes();
    let nodes = c.run("sinfo", &["-h", "-N", "-o", "%N"]).ok().stdout;
    let nodes: Vec<&str> = nodes.lines().collect();
    assert_eq!(nodes.len(), 2, "{nodes:?}");
    let (first, second) = (nodes[0], nodes[1]);
    let on = |args: &[&str]| {
        let mut all = vec!["--parsable"];
        all.extend_from_slice(args);
        all.extend(["--wrap", "true"]);
        let id = c.run("sbatch", &all).ok().stdout.trim().to_string();
        c.wait_done(&id, secs(60));
        let show = c.run("scontrol", &["show", "job", &id]).ok().stdout;
        let node = show
            .split_whitespace()
            .find_map(|w| w.strip_prefix("NodeList="))
            .unwrap_or_default()
            .to_string();
        (node, show)
    };
    let (node, show) = on(&["-w", second]);
    assert_eq!(node, second, "{show}");
    assert!(show.contains(&format!("ReqNodeList={second} ")), "{show}");
    let (node, show) = on(&["-x", first]);
    assert_eq!(node, second, "{show}");
    assert!(show.contains(&format!("ExcNodeList={first}\n")), "{show}");
    // A list longer than -N raises the node count, as slurmctld does.
    let (node, show) = on(&["-w", &format!("{first},{second}")]);
    assert!(show.contains("NumNodes=2 "), "{show}");
    assert!(!node.is_empty(), "{show}");
    for (args, want) in [
        (vec!["-w", "nosuch"], "Invalid node name specified"),
        (vec!["-x", "nosuch"], "Invalid node name specified"),
        (
            vec!["-w", first, "-x", first],
            "Invalid node name specified",
        ),
        (
            vec!["-N", "2", "-x", first],
            "Requested node configuration is not available",
        ),
        (vec!["-C", "fast"], "Invalid feature specification"),
        (vec!["--reservation=r"], "Requested reservation is invalid"),
        (vec!["-L", "lic:1"], "Invalid license specification"),
    ] {
        let mut all = args.clone();
        all.extend(["--wrap", "true"]);
        let r = c.run("sbatch", &all);
        assert_eq!(
            (r.code, r.stderr.as_str()),
            (
                1,
                format!("sbatch: error: Batch job submission failed: {want}\n").as_str()
            ),
            "{args:?}"
        );
    }
    // Nothing was stored for the refused ones.
    let all = c
        .run("sacct", &["-X", "-n", "-a", "-o", "jobid"])
        .ok()
        .stdout;
    assert_eq!(all.lines().count(), 3, "{all}");
}

/// A node whose step server goes away mid-step (killed): srun says it lost contact with
/// it, the other node's task still ends and is reported, and srun's exit says tasks were
/// lost; the job's own allocation is given back (nothing is left running).
#[test]
fn a_node_lost_mid_step_is_said_and_the_step_ends() {
    let c = two_nodes();
    let r = c.run(
        "srun",
        &[
            "-N2",
            "-n2",
            "-l",
            "bash",
            "-c",
            "if [ $SLURM_NODEID = 1 ]; then kill -KILL $PPID; sleep 3; else sleep 2; echo done; fi",
        ],
    );
    assert_eq!(r.code, 1, "{r:?}");
    assert_eq!(r.stdout, "0: done\n", "{r:?}");
    assert!(
        r.stderr
            .contains("srun: error: node02: lost contact with the step server: "),
        "{r:?}"
    );
    let q = c.run("squeue", &["-h"]).ok();
    assert_eq!(q.stdout, "", "{q:?}");
}
