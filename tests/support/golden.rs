//! Golden cases: the captures listed in `tests/golden/INDEX.md`, run in-process against
//! the recorded cluster of their phase and compared byte for byte.

use super::recorded::{Recorded, golden_dir, uid_of};
use bai_slurm::cli::{Invocation, StaticUsers};
use bai_slurm::model::profile::{Profile, SlurmVersion};
use bai_slurm::sys::UserInfo;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Once;

/// A golden set: the captures of one real Slurm release and the profile that presents it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Set {
    pub version: SlurmVersion,
    /// A second capture of the same scenario (`tests/golden/<series>-b`), which also keeps
    /// the cluster's records after the node's resume.
    pub second: bool,
}

impl Set {
    pub const V22_05: Set = Set {
        version: SlurmVersion::V22_05,
        second: false,
    };
    pub const V24_11: Set = Set {
        version: SlurmVersion::V24_11,
        second: false,
    };
    pub const V24_11_B: Set = Set {
        version: SlurmVersion::V24_11,
        second: true,
    };

    /// `tests/golden` (22.05), `tests/golden/24.11`, `tests/golden/24.11-b`.
    pub fn root(self) -> PathBuf {
        match (self.version, self.second) {
            (SlurmVersion::V22_05, _) => golden_dir(),
            (v, false) => golden_dir().join(v.series()),
            (v, true) => golden_dir().join(format!("{}-b", v.series())),
        }
    }

    pub fn profile(self) -> &'static Profile {
        self.version.profile()
    }

    /// How the report names the set: `golden squeue` (22.05), `golden 24.11 squeue`.
    fn label(self) -> String {
        match (self.version, self.second) {
            (SlurmVersion::V22_05, _) => "golden".into(),
            (v, false) => format!("golden {}", v.series()),
            (v, true) => format!("golden {} (second capture)", v.series()),
        }
    }
}

/// One capture: what was run, as whom, when, and what real Slurm printed.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub user: String,
    pub cwd: String,
    pub argv: Vec<String>,
    pub now: i64,
    /// The `_records` directory holding the cluster state of that moment.
    pub phase: String,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub rc: i32,
    pub set: Set,
}

/// What our command printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub rc: i32,
}

/// Timestamps are local time; the captures were taken with TZ=UTC.
pub fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: runs once, before any test of this binary formats a time; every test
        // calls `setup` first, so no other thread reads the environment meanwhile.
        unsafe { std::env::set_var("TZ", "UTC") };
    });
}

/// The `_records` phase an INDEX row's state column refers to in the set at `root`. The
/// `errors` and `meta` rows were captured after P3 and before the drain; P3's records
/// describe that cluster.
fn phase_of(state: &str, root: &std::path::Path) -> &'static str {
    if state.starts_with("P1") {
        "P1"
    } else if state.starts_with("P2") {
        "P2"
    } else if state.starts_with("extra") && root.join("_records/resume").is_dir() {
        "resume"
    } else if state.starts_with("drain") || state.starts_with("extra") {
        // 24.11's extra captures were taken after the node's resume; the first capture
        // kept no records of that moment, the drain's are the nearest.
        "drain"
    } else {
        "P3"
    }
}

/// Every INDEX row of the 22.05 set whose command is `prog`.
pub fn cases(prog: &str) -> Vec<Case> {
    cases_in(Set::V22_05, prog)
}

/// Every INDEX row of `set` whose command is `prog`.
pub fn cases_in(set: Set, prog: &str) -> Vec<Case> {
    let dir = set.root();
    let index = std::fs::read_to_string(dir.join("INDEX.md")).expect("INDEX.md");
    let mut out = Vec::new();
    for line in index.lines() {
        let cols: Vec<&str> = line.split(" | ").collect();
        if cols.len() < 4 || !line.starts_with("| ") {
            continue;
        }
        let name = cols[0].trim_start_matches("| ").trim();
        let cmd_file = dir.join(format!("{name}.cmd"));
        let Ok(cmd) = std::fs::read_to_string(&cmd_file) else {
            continue;
        };
        let mut lines = cmd.lines();
        let user = lines
            .next()
            .unwrap_or("")
            .trim_start_matches("user=")
            .to_string();
        let cwd = lines
            .next()
            .unwrap_or("")
            .trim_start_matches("cwd=")
            .to_string();
        let argv = shell_words(lines.next().unwrap_or(""));
        if argv.first().map(String::as_str) != Some(prog) {
            continue;
        }
        let read = |ext: &str| std::fs::read(dir.join(format!("{name}.{ext}"))).unwrap_or_default();
        let text = |ext: &str| String::from_utf8_lossy(&read(ext)).trim().to_string();
        out.push(Case {
            name: name.to_string(),
            user,
            cwd,
            argv,
            now: text("now").parse().expect("now"),
            phase: phase_of(cols[2].trim(), &dir).to_string(),
            stdout: read("stdout"),
            stderr: read("stderr"),
            rc: text("rc").parse().expect("rc"),
            set,
        });
    }
    out
}

/// Splits a command line written with bash's `printf %q` quoting.
pub fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (Some(_), c) => cur.push(c),
            (None, '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                in_word = true;
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, ' ' | '\t') => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

fn user(name: &str) -> UserInfo {
    let uid = uid_of(name);
    UserInfo {
        uid,
        name: name.to_string(),
        gid: uid,
        group: name.to_string(),
        home: if name == "root" {
            "/root".into()
        } else {
            format!("/home/{name}")
        },
        shell: "/bin/bash".into(),
    }
}

/// Runs a command line (`argv[0]` is the command) as `user` against a recorded phase.
pub fn run_line(argv: &[&str], user: &str, phase: &str, now: i64, env: &[(&str, &str)]) -> Outcome {
    let case = Case {
        name: String::new(),
        user: user.to_string(),
        cwd: "/srv/refwork".to_string(),
        argv: argv.iter().map(|a| a.to_string()).collect(),
        now,
        phase: phase.to_string(),
        stdout: Vec::new(),
        stderr: Vec::new(),
        rc: 0,
        set: Set::V22_05,
    };
    let env: BTreeMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    run_with_env(&case, &mut BTreeMap::new(), env)
}

/// Runs one case in-process and returns what our command printed.
pub fn run(case: &Case, clusters: &mut BTreeMap<String, Recorded>) -> Outcome {
    run_with_env(case, clusters, BTreeMap::new())
}

fn run_with_env(
    case: &Case,
    clusters: &mut BTreeMap<String, Recorded>,
    env: BTreeMap<String, String>,
) -> Outcome {
    setup();
    let root = case.set.root();
    let cluster = clusters
        .entry(format!("{}/{}", root.display(), case.phase))
        .or_insert_with(|| Recorded::load_in(&root, &case.phase));
    let users = StaticUsers(vec![user("root"), user("alice"), user("bob")]);
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let prog: &'static str = match case.argv[0].as_str() {
        "squeue" => "squeue",
        "sacct" => "sacct",
        "sinfo" => "sinfo",
        _ => "scontrol",
    };
    let rc = {
        let mut inv = Invocation {
            prog,
            args: case.argv[1..].to_vec(),
            env,
            now: case.now,
            user: user(&case.user),
            cwd: case.cwd.clone().into(),
            stdin: &mut std::io::empty(),
            out: &mut stdout,
            err: &mut stderr,
            users: &users,
            profile: case.set.profile(),
        };
        dispatch(prog, &mut inv, cluster)
    };
    Outcome { stdout, stderr, rc }
}

fn dispatch(prog: &str, inv: &mut Invocation, cluster: &Recorded) -> i32 {
    use bai_slurm::commands;
    match prog {
        "squeue" => commands::squeue::run(inv, cluster),
        "sacct" => commands::sacct::run(inv, cluster),
        "sinfo" => commands::sinfo::run(inv, cluster),
        _ => commands::scontrol::run(inv, cluster),
    }
}

/// A short line diff of expected vs actual, for the report.
pub fn diff(expected: &[u8], actual: &[u8]) -> String {
    let e = String::from_utf8_lossy(expected);
    let a = String::from_utf8_lossy(actual);
    let el: Vec<&str> = e.split_inclusive('\n').collect();
    let al: Vec<&str> = a.split_inclusive('\n').collect();
    let mut out = String::new();
    let mut shown = 0;
    for i in 0..el.len().max(al.len()) {
        let (x, y) = (el.get(i), al.get(i));
        if x != y {
            out.push_str(&format!("      line {}:\n", i + 1));
            out.push_str(&format!("        - {:?}\n", x.copied().unwrap_or("<none>")));
            out.push_str(&format!("        + {:?}\n", y.copied().unwrap_or("<none>")));
            shown += 1;
            // BAI_GOLDEN_DIFF_LINES shows more of a difference (default 4 lines).
            let most = std::env::var("BAI_GOLDEN_DIFF_LINES")
                .ok()
                .and_then(|n| n.parse().ok())
                .unwrap_or(4);
            if shown == most {
                out.push_str("        ...\n");
                break;
            }
        }
    }
    out
}

/// Runs every case of `prog`, prints `N/M identical` with a diff of each difference, and
/// returns the names of the cases that differ.
pub fn report(prog: &str) -> (Vec<String>, usize) {
    report_in(Set::V22_05, prog)
}

/// [`report`] for the captures of `set`.
pub fn report_in(set: Set, prog: &str) -> (Vec<String>, usize) {
    let mut clusters = BTreeMap::new();
    let cases = cases_in(set, prog);
    let mut differ = Vec::new();
    let mut next_second = Vec::new();
    let mut text = String::new();
    for case in &cases {
        let mut got = run(case, &mut clusters);
        let wanted =
            |o: &Outcome| o.rc == case.rc && o.stdout == case.stdout && o.stderr == case.stderr;
        if !wanted(&got) {
            // The capture stamped `.now` (`date +%s`) before it started the command, whose
            // own clock could read the next second: the command is run at that second too.
            let later = Case {
                now: case.now + 1,
                ..case.clone()
            };
            let again = run(&later, &mut clusters);
            if wanted(&again) {
                got = again;
                next_second.push(case.name.clone());
            }
        }
        // BAI_GOLDEN_DUMP=DIR keeps what we printed, for a diff by hand.
        if let Ok(dir) = std::env::var("BAI_GOLDEN_DUMP") {
            let _ = std::fs::write(format!("{dir}/{}.stdout", case.name), &got.stdout);
        }
        let want = Outcome {
            stdout: case.stdout.clone(),
            stderr: case.stderr.clone(),
            rc: case.rc,
        };
        if got != want {
            differ.push(case.name.clone());
            text.push_str(&format!("  {} ({}):\n", case.name, case.argv.join(" ")));
            if got.rc != want.rc {
                text.push_str(&format!("    exit code: want {} got {}\n", want.rc, got.rc));
            }
            if got.stdout != want.stdout {
                text.push_str("    stdout:\n");
                text.push_str(&diff(&want.stdout, &got.stdout));
            }
            if got.stderr != want.stderr {
                text.push_str("    stderr:\n");
                text.push_str(&diff(&want.stderr, &got.stderr));
            }
        }
    }
    println!(
        "{} {prog}: {}/{} identical",
        set.label(),
        cases.len() - differ.len(),
        cases.len()
    );
    if !next_second.is_empty() {
        println!(
            "  identical at the second after the capture's stamp: {}",
            next_second.join(", ")
        );
    }
    print!("{text}");
    (differ, cases.len())
}
