//! A two-container job on a REAL Backend.AI stack (23.09: `ci/backendai/up.sh`, or 26.9:
//! `ci/backendai26/up.sh`; endpoint and keys from its `env.sh`): the session is made directly with the client and the
//! create request sbatch sends (`submit::create_body`), with this build of bai-slurm in a
//! vfolder mounted in every container. The startup command runs only in main1; its launcher
//! must start a step server in sub1 over the session's SSH so that `srun -N 2 hostname`
//! prints both hosts. Without the stack this test FAILS, saying how to start it.

mod stack;

use bai_slurm::backend::backendai::client::{Client, ClientError, Method, Settings};
use bai_slurm::backend::backendai::submit::{self, SessionSettings};
use bai_slurm::launcher::meta::{self, JobMeta, ResultKind};
use bai_slurm::model::JobSpec;
use serde_json::{Value, json};
use stack::{HOW, strip_ansi, vfolder};
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

fn user() -> Client {
    let s = Settings::from_env(|k| std::env::var(k).ok())
        .unwrap_or_else(|| panic!("BACKEND_ENDPOINT is not set; {HOW}"));
    let c = Client::new(s).expect("valid settings");
    if let Err(e @ ClientError::Unreachable { .. }) = c.server_info() {
        panic!("no Backend.AI manager answers ({e}); {HOW}");
    }
    c
}

fn session(c: &Client, name: &str) -> Value {
    let q = "query($f: String) { compute_session_list(limit: 5, offset: 0, filter: $f) {
               total_count items { id name status status_info result } } }";
    let d = c
        .graphql(q, json!({ "f": format!("name == \"{name}\"") }))
        .unwrap_or_else(|e| panic!("compute_session_list for {name}: {e}"));
    d["compute_session_list"]["items"][0].clone()
}

#[test]
fn srun_n2_in_a_two_container_job_prints_both_hosts() {
    let c = user();
    // This build of the launcher, in a vfolder of its own mounted in both containers
    // (the image is the host's Debian 12, so the glibc build runs there).
    let tools = vfolder(&c, "bai-slurm-mn-tools");
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_bai-slurm"));
    let tmp = tools.join(format!(".bai-slurm.{}", std::process::id()));
    std::fs::copy(&exe, &tmp).expect("copy the launcher into the vfolder");
    std::fs::rename(&tmp, tools.join("bai-slurm")).expect("install the launcher");
    // `srun` in the job's PATH, as installed by `bai-slurm install-links`.
    let _ = std::fs::remove_file(tools.join("srun"));
    std::os::unix::fs::symlink("bai-slurm", tools.join("srun")).expect("the srun link");
    // A task prolog every container reads from the shared folder.
    let prolog = tools.join("tpro.sh");
    std::fs::write(
        &prolog,
        "#!/bin/sh\necho \"print prolog $SLURMD_NODENAME\"\necho \"export FROM_PROLOG=from-$SLURMD_NODENAME\"\n",
    )
    .expect("the task prolog");
    std::fs::write(
        tools.join("mp.conf"),
        // (quoted text is taken as written: %t outside the quotes)
        "0 echo mp %t %o\n1 bash -c 'echo other $0 $SLURMD_NODENAME' %t\n",
    )
    .expect("the multi-prog file");
    std::fs::set_permissions(&prolog, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("an executable task prolog");

    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let job_id = 61_000_000 + (t % 1_000_000) as u32;
    let script = "#!/bin/bash\necho \"path: $PATH\"\n\
                  srun -N 2 hostname | sort | sed 's/^/host: /'\n\
                  srun -N 2 -l bash -c 'echo $SLURMD_NODENAME $SLURM_NODEID $SLURM_STEP_NODELIST'\n\
                  srun -N 2 -n 2 -l bash -c 'exit $SLURM_NODEID'\necho rc=$?\n\
                  srun -N 2 -n 2 -l --multi-prog /opt/bai-slurm-mn/mp.conf\n\
                  srun -N 2 -n 2 -l --task-prolog=/opt/bai-slurm-mn/tpro.sh bash -c 'echo task $FROM_PROLOG'\n";
    let spec = JobSpec {
        name: "mn".into(),
        script: script.as_bytes().to_vec(),
        nodes_min: Some(2),
        // Not mounted in the containers: output goes to the session log.
        work_dir: "/nonexistent/submit/dir".into(),
        // The submitter's PATH, as sbatch exports it: the script must get it, and the
        // containers' entrypoint must not (it needs /usr/sbin to make the job's user).
        environment: [(
            "PATH".to_string(),
            "/home/alice/bin:/opt/bai-slurm-mn:/usr/bin:/bin".to_string(),
        )]
        .into(),
        ..Default::default()
    };
    let job = JobMeta {
        v: 1,
        job_id,
        user: "alice".into(),
        uid: 1000,
        gid: 1000,
        cluster: "bai".into(),
        kill_wait: 2,
        spec: spec.clone(),
        ..Default::default()
    };
    let settings = SessionSettings {
        launcher: "/opt/bai-slurm-mn/bai-slurm".into(),
        group: c.settings().group.clone(),
        domain: c.settings().domain.clone(),
        image: Some(
            std::env::var("BAI_IMAGE").unwrap_or_else(|_| "local/bai-batch:bookworm".into()),
        ),
        resource_group: std::env::var("BAI_SCALING_GROUP").unwrap_or_else(|_| "default".into()),
        def_mem_per_cpu: 512,
        cluster_mode: "single-node".into(),
        mounts: vec![("bai-slurm-mn-tools".into(), "/opt/bai-slurm-mn".into())],
        batch_timeout: false,
        ..Default::default()
    };
    let body = submit::create_body(&job, &spec, &settings, &[]).expect("a session request");
    assert_eq!(body["clusterSize"], 2);
    let name = body["name"].as_str().unwrap().to_string();
    let (status, v) = c
        .request(Method::Post, "/session", Some(&body))
        .unwrap_or_else(|e| panic!("create {name}: {e}"));
    assert_eq!(status, 201, "{v}");
    // by id: 26.9 forgets an ended session's name (GET /session/{name}/logs is a 404)
    let id = v["sessionId"].as_str().expect("sessionId").to_string();

    let t0 = Instant::now();
    let s = loop {
        let s = session(&c, &name);
        if ["TERMINATED", "CANCELLED", "ERROR"].contains(&s["status"].as_str().unwrap_or("")) {
            break s;
        }
        if t0.elapsed() > Duration::from_secs(300) {
            let _ = c.request(Method::Delete, &format!("/session/{id}?forced=true"), None);
            panic!("{name} did not end in 300 s (a job that never lets go of its console?): {s}");
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    // The logs of a session that just ended can take a moment to be served.
    let mut tries = 0;
    let v = loop {
        match c.request(Method::Get, &format!("/session/{id}/logs"), None) {
            Ok((_, v)) => break v,
            Err(e) if tries < 10 => {
                tries += 1;
                eprintln!("logs of {name} ({s}): {e}; again");
                std::thread::sleep(Duration::from_secs(1));
            }
            Err(e) => panic!("logs of {name} ({s}): {e}"),
        }
    };
    let logs = strip_ansi(v["result"]["logs"].as_str().unwrap_or_default());
    let r = meta::parse_result(&logs).unwrap_or_else(|| panic!("no result in {logs}"));
    assert_eq!(
        (r.kind, r.exit.code, r.exit.signal),
        (ResultKind::Exited, 0, 0),
        "{s}\n{logs}"
    );
    // the submitter's PATH, then the launcher's directory of the Slurm commands
    assert!(
        logs.lines().any(|l| l
            == "path: /home/alice/bin:/opt/bai-slurm-mn:/usr/bin:/bin:/tmp/bai-slurm-commands"),
        "{logs}"
    );
    let mine: Vec<&str> = logs
        .lines()
        .filter(|l| {
            l.starts_with("host: ")
                || l.starts_with("0: ")
                || l.starts_with("1: ")
                || l.starts_with("rc=")
                || l.starts_with("srun: ")
        })
        .collect();
    assert_eq!(
        mine.iter()
            .filter(|l| l.starts_with("host: "))
            .copied()
            .collect::<Vec<_>>(),
        ["host: main1", "host: sub1"],
        "{logs}"
    );
    let mut rest: Vec<&str> = mine
        .into_iter()
        .filter(|l| !l.starts_with("host: "))
        .collect();
    rest.sort();
    assert_eq!(
        rest,
        [
            // --multi-prog: each rank its own line of the file, across both containers.
            "0: main1 0 main1,sub1",
            "0: mp 0 0",
            // --task-prolog: run in each container before its task.
            "0: prolog main1",
            "0: task from-main1",
            "1: other 1 sub1",
            "1: prolog sub1",
            "1: sub1 1 main1,sub1",
            "1: task from-sub1",
            "rc=1",
            "srun: error: sub1: task 1: Exited with exit code 1",
        ],
        "{logs}"
    );
    assert_eq!(s["result"], "SUCCESS", "{s}");
    // Node 0's launcher logged every step, start and end, for sacct (`N.0` ... `N.4`).
    let steps: Vec<String> = meta::parse_steps(&logs)
        .iter()
        .map(|st| {
            format!(
                "{}|{}|{}|{}|{}|{}|{}",
                st.step_id.suffix(),
                st.name,
                st.state.long(),
                st.exit_code,
                st.num_tasks,
                st.num_nodes,
                st.nodes
            )
        })
        .collect();
    assert_eq!(
        steps,
        [
            "0|hostname|COMPLETED|0:0|2|2|main1,sub1",
            "1|bash|COMPLETED|0:0|2|2|main1,sub1",
            "2|bash|FAILED|1:0|2|2|main1,sub1",
            "3|mp.conf|COMPLETED|0:0|2|2|main1,sub1",
            "4|bash|COMPLETED|0:0|2|2|main1,sub1",
        ],
        "{logs}"
    );
}
