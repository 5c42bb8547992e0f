//! A job's step server under a flood from a local user who does not know the job's secret:
//! a thousand idle connections and a burst of connections announcing a 16 MiB frame and
//! sending garbage. The job's own srun must not be slowed by more than a second, and the
//! launcher's memory, descriptors, threads and log must stay bounded.
//!
//! Run with `--nocapture` to see the measured numbers.

mod harness;

use harness::{Cluster, secs};
use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const SRUNS: usize = 10;
const IDLE: usize = 1000;

/// The script times `SRUNS` sruns in each phase, each phase started by a file the test makes.
fn script() -> String {
    format!(
        "#!/bin/bash\n\
         for f in /proc/$PPID/fd/*; do case \"$(readlink $f)\" in /memfd:bai-slurm-job*) cat $f;; esac; done | sed -E 's/.*\"nodes\":\\[\\[(.*)\\]\\],\"secret\".*/\\1/; s/\\],\\[/,/g; s/\"([^\"]*)\",\"([^\"]*)\"/\\1=\\2/g' > stepd.tmp; mv stepd.tmp stepd.txt\n\
         for phase in calm flood; do\n\
         \x20 while [ ! -e go-$phase ]; do sleep 0.05; done\n\
         \x20 for i in $(seq {SRUNS}); do\n\
         \x20   s=$(date +%s%N); srun -n 1 true; rc=$?; e=$(date +%s%N)\n\
         \x20   echo \"$phase $(( (e - s) / 1000000 )) $rc\" >> times.txt\n\
         \x20 done\n\
         \x20 touch done-$phase\n\
         done\n"
    )
}

/// Whether `p` appeared within `timeout`.
fn appeared(p: &Path, timeout: Duration) -> bool {
    let t0 = Instant::now();
    while !p.exists() {
        if t0.elapsed() > timeout {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// The job's launcher: `bai-slurm __launch STATE_DIR JOB_ID ...`.
fn launcher_pid(state: &Path, job: u32) -> i32 {
    for p in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = p.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        if args.len() > 3
            && args[1] == b"__launch"
            && args[2] == state.as_os_str().as_encoded_bytes()
            && args[3] == job.to_string().as_bytes()
        {
            return pid;
        }
    }
    panic!("no launcher for job {job}");
}

/// (VmRSS in kB, threads, open descriptors) of a process.
fn usage(pid: i32) -> (u64, u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count() as u64);
    (field("VmRSS:"), field("Threads:"), fds)
}

fn log_size(c: &Cluster) -> u64 {
    std::fs::metadata(c.state.join("runner.log")).map_or(0, |m| m.len())
}

/// The launcher gets the usual soft limit of 1024 descriptors, whatever this process has:
/// the one a stranger's idle connections exhausted before.
fn limit_fds_of(pid: i32) {
    let mut l = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: prlimit(2) reading then lowering the soft limit of a process this test started.
    unsafe {
        assert_eq!(
            libc::prlimit(pid, libc::RLIMIT_NOFILE, std::ptr::null(), &mut l),
            0
        );
        l.rlim_cur = l.rlim_cur.min(1024);
        assert_eq!(
            libc::prlimit(pid, libc::RLIMIT_NOFILE, &l, std::ptr::null_mut()),
            0
        );
    }
}

/// Enough descriptors for the flood on this side.
fn raise_fd_limit() {
    let mut l = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit(2) on this process's own limit, with a valid struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) == 0 && l.rlim_cur < 8192 {
            l.rlim_cur = l.rlim_max.min(8192);
            libc::setrlimit(libc::RLIMIT_NOFILE, &l);
        }
    }
}

/// The (milliseconds, exit status) of each srun of a phase.
fn times(c: &Cluster, phase: &str) -> Vec<(u64, i32)> {
    std::fs::read_to_string(c.path("times.txt"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 3 && f[0] == phase).then(|| (f[1].parse().unwrap(), f[2].parse().unwrap()))
        })
        .collect()
}

fn median(v: &[u64]) -> u64 {
    let mut v = v.to_vec();
    v.sort_unstable();
    v[v.len() / 2]
}

#[test]
fn a_flood_of_strangers_does_not_slow_the_jobs_own_srun() {
    raise_fd_limit();
    let c = Cluster::new(2, 4096, 2);
    c.write_script("flood.sh", &script());
    let id = c.submit(&["flood.sh"]);
    assert!(
        appeared(&c.path("stepd.txt"), secs(60)),
        "the job never ran"
    );
    let stepd = c.read("stepd.txt");
    let addr: SocketAddr = stepd
        .trim()
        .split(',')
        .next()
        .and_then(|e| e.split_once('='))
        .map(|(_, a)| a.parse().unwrap())
        .unwrap_or_else(|| panic!("no step server in {stepd:?}"));
    let pid = launcher_pid(&c.state, id);
    limit_fds_of(pid);

    // Without the flood.
    std::fs::write(c.path("go-calm"), "").unwrap();
    assert!(appeared(&c.path("done-calm"), secs(60)), "srun never ran");
    let calm = times(&c, "calm");
    let (rss_calm, threads_calm, fds_calm) = usage(pid);
    let log_before = log_size(&c);

    // The flood: the launcher's use of memory, threads and descriptors sampled throughout.
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut peak = (0, 0, 0);
            while !stop.load(Ordering::Relaxed) {
                let (r, t, f) = usage(pid);
                peak = (peak.0.max(r), peak.1.max(t), peak.2.max(f));
                std::thread::sleep(Duration::from_millis(20));
            }
            peak
        })
    };
    let t_flood = Instant::now();
    let mut idle = Vec::new();
    // (A server that stops accepting would take a connect timeout for each: bounded too.)
    while idle.len() < IDLE && t_flood.elapsed() < secs(10) {
        if let Ok(s) = TcpStream::connect_timeout(&addr, Duration::from_secs(1)) {
            idle.push(s);
        }
    }
    let opened_idle = idle.len();
    let sent = Arc::new(AtomicU64::new(0));
    let burst = {
        let (stop, sent) = (Arc::clone(&stop), Arc::clone(&sent));
        std::thread::spawn(move || {
            // A control frame of 16 MiB announced, then garbage, as fast as it goes.
            let mut frame = vec![0u8, 1, 0, 0, 0];
            frame.extend(std::iter::repeat_n(b'x', 64 << 10));
            while !stop.load(Ordering::Relaxed) {
                if let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_secs(1)) {
                    let _ = s.write_all(&frame);
                    sent.fetch_add(1, Ordering::Relaxed);
                }
            }
        })
    };
    // The sruns start once the burst is in full swing.
    let t0 = Instant::now();
    while sent.load(Ordering::Relaxed) < 1000 && t0.elapsed() < secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }
    std::fs::write(c.path("go-flood"), "").unwrap();
    let flood_done = appeared(&c.path("done-flood"), secs(60));
    stop.store(true, Ordering::Relaxed);
    burst.join().unwrap();
    let flood_secs = t_flood.elapsed().as_secs_f64();
    drop(idle);
    // Let the last handshakes end and their lines reach the log.
    std::thread::sleep(Duration::from_millis(500));
    let (rss_peak, threads_peak, fds_peak) = sampler.join().unwrap();
    let log_growth = log_size(&c) - log_before;
    let flood = times(&c, "flood");
    let ms = |v: &[(u64, i32)]| v.iter().map(|t| t.0).collect::<Vec<_>>();
    let (calm_ms, flood_ms) = (ms(&calm), ms(&flood));
    let worst = flood_ms.iter().copied().max().unwrap_or(u64::MAX);
    let worst_text = flood_ms
        .iter()
        .max()
        .map_or("none finished".to_string(), |w| format!("max {w} ms"));

    eprintln!(
        "srun without the flood: {calm_ms:?} ms (median {} ms)",
        median(&calm_ms)
    );
    eprintln!("srun during the flood:  {flood_ms:?} ms ({worst_text})");
    eprintln!(
        "flood: {opened_idle} idle connections held, {} connections with a 16 MiB header and 64 KiB of garbage, over {flood_secs:.1} s",
        sent.load(Ordering::Relaxed)
    );
    eprintln!(
        "launcher {pid}: VmRSS {rss_calm} kB before, peak {rss_peak} kB; threads {threads_calm} -> peak {threads_peak}; descriptors {fds_calm} -> peak {fds_peak}"
    );
    eprintln!("runner.log grew by {log_growth} bytes during the flood:");
    let log = c.runner_log();
    let grown = log
        .get(log.len().saturating_sub(log_growth as usize)..)
        .unwrap_or("");
    eprintln!("{}", grown.get(..grown.len().min(2000)).unwrap_or(grown));

    assert!(
        flood_done,
        "the sruns in the flood did not finish within a minute"
    );
    assert!(
        calm.iter().chain(&flood).all(|t| t.1 == 0),
        "an srun failed: {calm:?} {flood:?}"
    );
    assert_eq!((calm.len(), flood.len()), (SRUNS, SRUNS));
    assert!(
        worst <= median(&calm_ms) + 1000,
        "srun took {worst} ms in the flood, {} ms without",
        median(&calm_ms)
    );
    assert!(opened_idle >= IDLE * 9 / 10, "only {opened_idle} connected");
    // Without the limits it reached 1.55 GB; now the waiting peers are a few hundred bytes
    // each, and none has a thread.
    assert!(
        rss_peak < rss_calm + 32 * 1024,
        "RSS {rss_calm} kB -> {rss_peak} kB"
    );
    // At most 256 waiting (admission::Limits), plus the job's own.
    assert!(threads_peak < 50, "{threads_peak} threads");
    assert!(fds_peak < 400, "{fds_peak} descriptors");
    assert!(log_growth < 4096, "runner.log grew by {log_growth} bytes");
    c.wait_done(&id.to_string(), secs(60));
    assert_eq!(
        c.job_row(&id.to_string()).map(|r| r.1),
        Some("COMPLETED".to_string())
    );
}
