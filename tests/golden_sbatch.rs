//! sbatch, srun and salloc against the outputs of a real Slurm 22.05.8
//! (tests/golden/{sbatch,srun,salloc}_*): each case runs the recorded command line through
//! the installed link on a local cluster shaped like the reference one (node `node01`,
//! partition `debug`, 2 CPUs, 16000 MB) whose job id sequence starts where the reference
//! cluster's was, and compares stdout, stderr and exit code.
//!
//! The same cases recorded from a real Slurm 24.11.5 (tests/golden/24.11) run under
//! `slurm_version = "24.11"` (`golden 24.11 sbatch: N/M identical`).

mod harness;

use harness::Cluster;
use std::path::Path;

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");

/// Cases that cannot be reproduced here, and why.
const NOT_REPRODUCIBLE: &[(&str, &str)] = &[
    (
        "sbatch_gpu",
        "needs GPUs: the local node has none (on Backend.AI, GPUs map to cuda.device/cuda.shares)",
    ),
    (
        "sbatch_gpu_pending",
        "needs the reference cluster's `gpu` partition with GPUs",
    ),
    (
        "sbatch_bob",
        "was run as another user (bob) from a script under /srv/refwork",
    ),
    (
        "srun_gpu_env",
        "needs the reference cluster's `gpu` partition with GPUs",
    ),
    (
        "srun_l_n2_env",
        "prints alice's uid/account, the reference slurm.conf path, ports and pids; the \
         same variables are checked by name and value shape in tests/local_steps.rs",
    ),
    (
        "salloc_n1_env",
        "prints alice's account and the reference slurm.conf path; salloc's environment is \
         checked in tests/local_steps.rs",
    ),
];

/// Cases of the 24.11 set that cannot be reproduced here, and why (besides the above).
const NOT_REPRODUCIBLE_24_11: &[(&str, &str)] = &[
    (
        "sbatch_dep",
        "depends on job 12 of the reference's scenario, which this fresh cluster does not \
         have, and 24.11 refuses a dependency on a job that does not exist \
         (sbatch_bad_dependency shows the refusal)",
    ),
    (
        "sbatch_dep_never",
        "depends on job 2 of the reference's scenario, which this fresh cluster does not have",
    ),
];

/// What a case's output depends on that differs from the reference machine, made equal
/// before comparing: srun_n2_hostname prints the host's name (`vm` there).
fn normalise(name: &str, stdout: &str) -> String {
    match name {
        "srun_n2_hostname" => stdout.replace(&hostname(), "vm"),
        _ => stdout.to_string(),
    }
}

fn hostname() -> String {
    let out = std::process::Command::new("hostname").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

struct Case {
    name: String,
    argv: Vec<String>,
    stdout: String,
    stderr: String,
    rc: i32,
}

/// Where a release's captures are, and what its config says.
fn golden_dir(version: Option<&str>) -> std::path::PathBuf {
    match version {
        None => Path::new(GOLDEN).to_path_buf(),
        Some(v) => Path::new(GOLDEN).join(v),
    }
}

fn load(dir: &Path, name: &str) -> Case {
    let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}"))).unwrap();
    let cmd = read("cmd");
    let line = cmd.lines().nth(2).unwrap();
    Case {
        name: name.to_string(),
        argv: shell_words(line).into_iter().skip(1).collect(),
        stdout: read("stdout"),
        stderr: read("stderr"),
        rc: read("rc").trim().parse().unwrap(),
    }
}

/// The .cmd line is printed as bash's `printf %q` does: words split at unescaped spaces,
/// `\x` standing for `x`.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => word.extend(chars.next()),
            ' ' => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The scripts the reference capture used (their exact bodies do not show in any output).
fn write_scripts(c: &Cluster) {
    let sh = "#!/bin/bash\n";
    c.write_script("ok.sh", &format!("{sh}#SBATCH --job-name=ok_job\ntrue\n"));
    c.write_script(
        "fail.sh",
        &format!("{sh}#SBATCH --job-name=fail_job\nexit 3\n"),
    );
    c.write_script(
        "env.sh",
        &format!("{sh}#SBATCH --job-name=env_job\n#SBATCH -n 2\nenv | grep ^SLURM | sort\n"),
    );
    c.write_script("sleep.sh", &format!("{sh}sleep \"${{1:-10}}\"\n"));
    c.write_script("noshebang.sh", "echo no interpreter line\n");
}

#[test]
fn golden_sbatch() {
    run_cases("sbatch", None);
}

#[test]
fn golden_srun_salloc() {
    run_cases("srun", None);
    run_cases("salloc", None);
}

#[test]
fn golden_24_11_sbatch() {
    run_cases("sbatch", Some("24.11"));
}

#[test]
fn golden_24_11_srun_salloc() {
    run_cases("srun", Some("24.11"));
    run_cases("salloc", Some("24.11"));
}

/// The same commands of the second 24.11 capture (tests/golden/24.11-b/CAPTURE.md).
#[test]
fn golden_24_11_second_capture_sbatch_srun_salloc() {
    run_cases("sbatch", Some("24.11-b"));
    run_cases("srun", Some("24.11-b"));
    run_cases("salloc", Some("24.11-b"));
}

/// Runs every recorded case of `command` (of the 22.05 set, or of `version`'s), prints the
/// score and every difference.
fn run_cases(command: &str, version: Option<&str>) {
    let dir = golden_dir(version);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".cmd"))
                .map(str::to_string)
        })
        .filter(|n| n.starts_with(&format!("{command}_")))
        .collect();
    names.sort();
    let mut identical = 0;
    let mut differences = Vec::new();
    let mut skipped = Vec::new();
    for name in &names {
        let extra: &[(&str, &str)] = if version.is_some() {
            NOT_REPRODUCIBLE_24_11
        } else {
            &[]
        };
        if let Some((_, why)) = NOT_REPRODUCIBLE
            .iter()
            .chain(extra)
            .find(|(n, _)| n == name)
        {
            skipped.push(format!("{name}: {why}"));
            continue;
        }
        let case = load(&dir, name);
        let first_id = case
            .stdout
            .trim()
            .rsplit(' ')
            .next()
            .and_then(|id| id.parse::<u32>().ok())
            .unwrap_or(1);
        let c = Cluster::with_config(
            2,
            16000,
            2,
            &format!(
                "first_job_id = {first_id}\n[[partitions]]\nname = \"debug\"\ndefault = true\n"
            ),
        );
        let mut c = c;
        if let Some(v) = version {
            // `24.11-b`: the second capture of that release.
            let series = v.split('-').next().unwrap_or(v);
            c.env
                .insert("BAI_SLURM_SLURM_VERSION".to_string(), series.to_string());
        }
        write_scripts(&c);
        let args: Vec<&str> = case.argv.iter().map(String::as_str).collect();
        let r = c.run(command, &args);
        let stdout = normalise(name, &r.stdout);
        if (stdout.as_str(), r.stderr.as_str(), r.code)
            == (case.stdout.as_str(), case.stderr.as_str(), case.rc)
        {
            identical += 1;
        } else {
            differences.push(format!(
                "{}: {command} {}\n  want rc={} stdout={:?} stderr={:?}\n  got  rc={} stdout={:?} stderr={:?}",
                case.name,
                args.join(" "),
                case.rc,
                case.stdout,
                case.stderr,
                r.code,
                stdout,
                r.stderr
            ));
        }
    }
    let total = names.len() - skipped.len();
    let label = version.map_or_else(|| "golden".to_string(), |v| format!("golden {v}"));
    println!("{label} {command}: {identical}/{total} identical");
    for s in &skipped {
        println!("  not reproducible here: {s}");
    }
    for d in &differences {
        println!("  DIFFERS {d}");
    }
    assert!(
        differences.is_empty(),
        "{} {command} golden cases differ",
        differences.len()
    );
}
