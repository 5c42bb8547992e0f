//! Every option of the option table, on every backend: the option must change what the
//! backend is asked for, or be refused with the documented error, or be warned about
//! (issue 11). A row that does none of these fails.
//!
//! For each option (with the sample values of `tests/option_spellings.rs`), the command
//! parses a submission with and without it. Options bai-slurm refuses or ignores for every
//! backend are settled by the parser (its error, its warning). The others either act in the
//! command itself (help, `--parsable`, `--wait`, srun's `-l`, ...: the parsed request
//! differs outside the job request) or change fields of the job request; for those, each
//! backend's declaration (`Cluster::handling`) says what it does with each field, and the
//! test holds the backend to it:
//! - honoured or recorded: the backend's request differs (local: the record the job would
//!   start as, from `translate`; Backend.AI: the `POST /session` bodies, without the copy of
//!   the job's description the launcher reads) or the value is refused with a Slurm error;
//! - emulated (by the launcher): the description the launcher reads carries it;
//! - warned: the warning is printed; refused: the submission fails with that error.
//!
//! The Backend.AI half runs against the real 23.09 stack (`ci/backendai/up.sh`), with the
//! superadmin's keypair (agent_list needs it). docs/COMPAT.md's per-backend cells are
//! checked against the declarations here too.

mod stack;
mod support;

use bai_slurm::backend::Cluster;
use bai_slurm::backend::backendai::client::{Client, Settings};
use bai_slurm::backend::backendai::cluster::BackendAiCluster;
use bai_slurm::backend::local::LocalCluster;
use bai_slurm::backend::support::{Handling, Refusal};
use bai_slurm::config::Loaded;
use bai_slurm::model::JobSpec;
use bai_slurm::model::jobspec::Field;
use bai_slurm::model::profile::Profile;
use bai_slurm::options::getopt::HasArg;
use bai_slurm::options::salloc::{self, SallocOutcome};
use bai_slurm::options::sbatch::{self, SbatchInput, SbatchOutcome};
use bai_slurm::options::srun::{self, SrunOutcome};
use bai_slurm::options::table::{self, OPTIONS, Opt, SALLOC, SBATCH, SRUN, Support};
use bai_slurm::sys::UserInfo;
use serde_json::Value;
use stack::{HOW, vfolder};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::option_samples::{companions, samples};

/// Options whose flag asks for what the backends do anyway (Slurm's defaults too).
const DEFAULT_VALUED: &[(&str, &str)] = &[(
    "requeue",
    "JobRequeue=1: jobs are requeueable unless --no-requeue",
)];

/// Options that need another option to be valid, given with and without them.
fn context_args(o: &Opt) -> Vec<String> {
    companions(o).iter().map(|a| a.to_string()).collect()
}

/// A script with a #PBS line, so that `--ignore-pbs` has something to act on.
const SCRIPT: &str = "#!/bin/sh\n#PBS -N pbsname\ntrue\n";

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bai-option-effects-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    nix::unistd::chown(&d, Some(nix::unistd::getuid()), None).unwrap();
    std::fs::set_permissions(&d, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    d
}

fn base_env(home: &Path) -> BTreeMap<String, String> {
    [
        ("PATH", "/usr/bin:/bin".to_string()),
        ("HOME", home.display().to_string()),
        ("USER", "tester".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// The values an option is tried with: the samples of `option_spellings` (a file the
/// option reads is made for it; a vfolder the stack has for mounts).
fn values_of(o: &Opt, work: &Path) -> Vec<String> {
    match o.long {
        "export-file" => {
            let f = work.join("envfile");
            std::fs::write(&f, "FOO=bar\0").unwrap();
            vec![f.display().to_string()]
        }
        "container-mounts" => vec!["bai-slurm-work:/mnt/work".into()],
        _ => samples(o).iter().map(|v| v.to_string()).collect(),
    }
}

/// The command lines to try the option with, one per value.
fn tries(o: &Opt, work: &Path) -> Vec<Vec<String>> {
    let context = context_args(o);
    let with = |arg: String| {
        let mut a = context.clone();
        a.push(arg);
        a
    };
    match o.arg {
        HasArg::No => vec![with(format!("--{}", o.long))],
        _ => values_of(o, work)
            .into_iter()
            .map(|v| with(format!("--{}={v}", o.long)))
            .collect(),
    }
}

/// What a command made of its command line: a job request (sbatch), or only a view of the
/// parsed options (srun and salloc, whose requests are built when they run), or its exit.
#[derive(Debug)]
enum Parsed {
    Request {
        spec: Box<JobSpec>,
        /// The rest of the request, outside the job request.
        command: String,
        messages: Vec<String>,
    },
    Options {
        view: String,
        /// Options the command will warn about when it runs.
        ignored: Vec<String>,
    },
    Exit {
        stdout: String,
        stderr: String,
    },
}

/// The profile whose option table has every option of `args`: 24.11's for the options
/// only 24.11 offers (`--oom-kill-step`), else the default.
fn profile_for(cmd: u8, args: &[String]) -> &'static Profile {
    use bai_slurm::model::profile::SlurmVersion;
    let newer = OPTIONS.iter().any(|o| {
        !table::offered(o, cmd, SlurmVersion::V22_05)
            && table::offered(o, cmd, SlurmVersion::V24_11)
            && args
                .iter()
                .any(|a| a == &format!("--{}", o.long) || a.starts_with(&format!("--{}=", o.long)))
    });
    if newer {
        SlurmVersion::V24_11.profile()
    } else {
        Profile::default_profile()
    }
}

fn parse(cmd: u8, args: &[String], work: &Path) -> Parsed {
    let env = base_env(work);
    let profile = profile_for(cmd, args);
    match cmd {
        SBATCH => {
            let mut all = args.to_vec();
            if !args.iter().any(|a| a.starts_with("--wrap")) {
                let script = work.join("job.sh");
                std::fs::write(&script, SCRIPT).unwrap();
                all.push(script.display().to_string());
            }
            let mut stdin = std::io::Cursor::new(Vec::new());
            match sbatch::parse(SbatchInput {
                args: &all,
                env: &env,
                cwd: work,
                stdin: &mut stdin,
                hostname: "host".into(),
                now: bai_slurm::sys::now(),
                umask: 0o022,
                max_array_size: 1001,
                profile,
            }) {
                SbatchOutcome::Submit(r) => Parsed::Request {
                    command: format!(
                        "parsable={} quiet={} wait={} verbose={} test_only={} clusters={:?}",
                        r.parsable, r.quiet, r.wait, r.verbose, r.test_only, r.clusters
                    ),
                    messages: r.messages.clone(),
                    spec: Box::new(r.spec),
                },
                SbatchOutcome::Exit { stdout, stderr, .. } => Parsed::Exit { stdout, stderr },
            }
        }
        SRUN => {
            let mut all = args.to_vec();
            all.push("true".into());
            match srun::parse_for(profile, &all, &env, bai_slurm::sys::now()) {
                SrunOutcome::Run(r) => Parsed::Options {
                    ignored: r.opts.ignored.iter().map(|s| s.to_string()).collect(),
                    view: format!("{:?} argv={:?} quiet={}", r.opts, r.argv, r.quiet),
                },
                SrunOutcome::Exit { stdout, stderr, .. } => Parsed::Exit { stdout, stderr },
            }
        }
        _ => match salloc::parse_for(profile, args, &env, bai_slurm::sys::now()) {
            SallocOutcome::Run(r) => Parsed::Options {
                ignored: r.opts.ignored.iter().map(|s| s.to_string()).collect(),
                view: format!("{:?} argv={:?}", r.opts, r.argv),
            },
            SallocOutcome::Exit { stdout, stderr, .. } => Parsed::Exit { stdout, stderr },
        },
    }
}

/// The option's command for this test: sbatch when it takes it (its job request is what
/// the backends receive), else srun or salloc.
fn command_of(o: &Opt) -> (u8, &'static str) {
    if o.cmds & SBATCH != 0 {
        (SBATCH, "sbatch")
    } else if o.cmds & SRUN != 0 {
        (SRUN, "srun")
    } else {
        (SALLOC, "salloc")
    }
}

struct Backend {
    name: &'static str,
    cluster: Box<dyn Cluster>,
    user: UserInfo,
}

/// The environment of a site whose only configuration is `config` and whose state is
/// under `home`, with `extra` variables.
fn site_env(home: &Path, config: &Path, extra: &[(String, String)]) -> BTreeMap<String, String> {
    let mut env = base_env(home);
    env.extend(extra.iter().cloned());
    env.insert("BAI_SLURM_CONFIG".into(), config.display().to_string());
    env.insert(
        "BAI_SLURM_SYSTEM_CONFIG".into(),
        home.join("none.toml").display().to_string(),
    );
    env.insert(
        "BAI_SLURM_STATE_DIR".into(),
        home.join("state").display().to_string(),
    );
    env
}

fn local_backend() -> Backend {
    let home = tmp("local");
    let config = home.join("config.toml");
    // Two simulated nodes, so that --nodelist and --exclude can be met.
    std::fs::write(&config, "[local]\nnodes = 2\ngpus = 2\n").unwrap();
    let env = site_env(&home, &config, &[]);
    let loaded = Loaded::load(&env).expect("config");
    let cluster = LocalCluster::open(&loaded, &env).expect("local backend");
    Backend {
        name: "local",
        cluster: Box::new(cluster),
        user: UserInfo::current(),
    }
}

fn backendai_backend() -> Backend {
    let var = |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("{k} is not set; {HOW}"));
    let settings = Settings {
        access_key: var("BAI_ADMIN_ACCESS_KEY"),
        secret_key: var("BAI_ADMIN_SECRET_KEY"),
        ..Settings::from_env(|k| std::env::var(k).ok()).unwrap_or_else(|| panic!("{HOW}"))
    };
    let client = Client::new(settings).expect("settings");
    let work = vfolder(&client, "bai-slurm-work");
    vfolder(&client, "bai-slurm-tools");
    // The site's job directory (holds, every dependency type) on storage of its own.
    let jobs = vfolder(&client, "bai-slurm-jobs");
    let home = tmp("backendai");
    let config = home.join("config.toml");
    std::fs::write(
        &config,
        format!(
            r#"cluster_name = "bai"
[backendai]
launcher_vfolder = "bai-slurm-tools"
launcher_dir = "/opt/bai-slurm"
job_dir = "{}/jobs"
[[backendai.storage]]
path = "{}"
vfolder = "bai-slurm-work"
[[backendai.storage]]
path = "{}"
vfolder = "bai-slurm-jobs"
[[partitions]]
name = "batch"
resource_group = "{}"
default_image = "{}"
default = true
"#,
            jobs.display(),
            work.display(),
            jobs.display(),
            std::env::var("BAI_SCALING_GROUP").unwrap_or_else(|_| "default".into()),
            var("BAI_IMAGE"),
        ),
    )
    .unwrap();
    let mut keys: Vec<(String, String)> = ["BACKEND_ENDPOINT", "BACKEND_DOMAIN", "BACKEND_GROUP"]
        .iter()
        .filter_map(|k| Some((k.to_string(), std::env::var(k).ok()?)))
        .collect();
    keys.push(("BACKEND_ACCESS_KEY".into(), var("BAI_ADMIN_ACCESS_KEY")));
    keys.push(("BACKEND_SECRET_KEY".into(), var("BAI_ADMIN_SECRET_KEY")));
    let env = site_env(&home, &config, &keys);
    let loaded = Loaded::load(&env).expect("config");
    let cluster = BackendAiCluster::open(&loaded, &env).expect("Backend.AI backend");
    Backend {
        name: "Backend.AI",
        cluster: Box::new(cluster),
        user: UserInfo::current(),
    }
}

/// A translation without what differs between two calls for the same request (the job id
/// and times) and, on Backend.AI, without the copy of the job's description the launcher
/// reads (kept apart in the second value).
fn normalised(requests: &[Value]) -> (Value, Vec<Value>) {
    let mut out = Vec::new();
    let mut described = Vec::new();
    for r in requests {
        let mut r = r.clone();
        if let Some(rec) = r.get_mut("record").and_then(Value::as_object_mut) {
            for k in ["submit_time", "last_sched_eval", "accrue_time"] {
                rec.remove(k);
            }
            // Whether the job is eligible now, not the second it was asked.
            let eligible = rec.get("eligible_time").is_some_and(|t| !t.is_null());
            rec.insert("eligible_time".into(), Value::Bool(eligible));
        }
        if let Some(body) = r.get_mut("body").and_then(Value::as_object_mut) {
            body.remove("name");
            let environ = body
                .get_mut("config")
                .and_then(|c| c.get_mut("environ"))
                .and_then(Value::as_object_mut);
            if let Some(environ) = environ
                && let Some(meta) = environ.remove("BAI_SLURM_META")
            {
                let meta =
                    bai_slurm::launcher::meta::JobMeta::decode(meta.as_str().unwrap_or_default())
                        .expect("the launcher's job description decodes");
                described.push(serde_json::to_value(&meta).unwrap());
                let mut rest = meta.clone();
                rest.spec = JobSpec::default();
                rest.job_id = 0;
                rest.submit_time = 0;
                environ.insert("BAI_SLURM_META".into(), serde_json::to_value(rest).unwrap());
            }
        }
        out.push(r);
    }
    (Value::Array(out), described)
}

#[derive(Default)]
struct Counts {
    by_class: BTreeMap<(&'static str, &'static str), usize>,
}

impl Counts {
    fn add(&mut self, backend: &'static str, class: &'static str) {
        *self.by_class.entry((backend, class)).or_default() += 1;
    }
}

/// The record Backend.AI's views build from a job's description (a fresh session).
fn view_record(meta: &Value) -> Value {
    use bai_slurm::backend::backendai::records;
    use bai_slurm::launcher::meta::JobMeta;
    let meta: JobMeta = serde_json::from_value(meta.clone()).unwrap();
    let rec = records::job_record(
        &records::Session::default(),
        Some(&meta),
        None,
        "bai",
        |_| String::new(),
    );
    let mut v = serde_json::to_value(rec).unwrap();
    if let Some(o) = v.as_object_mut() {
        o.remove("submit_time");
        o.remove("job_id");
    }
    v
}

/// What one backend does with one job request that differs from the baseline in `fields`:
/// the class its declarations give, or what is wrong.
fn check_backend(
    b: &Backend,
    base: &JobSpec,
    spec: &JobSpec,
    fields: &[Field],
) -> Result<&'static str, String> {
    let translate = |s: &JobSpec| b.cluster.translate(s, &b.user);
    let outcome = translate(spec);
    let base_t = match translate(base) {
        Ok(t) => t,
        // The option's context (`--gpus` for `--mem-per-gpu`) is refused here: so must the
        // option be, by its own declaration.
        Err(e) => {
            let refused = fields
                .iter()
                .any(|&f| matches!(b.cluster.handling(f), Handling::Refused(_)));
            return if refused && outcome.is_err() {
                Ok("rejected")
            } else {
                Err(format!(
                    "the baseline is refused ({e:?}); the option is not declared refused"
                ))
            };
        }
    };
    let (base_req, base_described) = normalised(&base_t.requests);
    let warnings = b.cluster.accepts(spec);
    // The most telling class of the fields: a refusal decides the submission.
    let mut class = "";
    for &f in fields {
        let h = b.cluster.handling(f);
        if class != "rejected" {
            class = h.class();
        }
        let slurm_refusal = |e: &bai_slurm::backend::SubmitError| e.errno.is_some();
        match h {
            Handling::Refused(r) => {
                let e = outcome
                    .as_ref()
                    .err()
                    .ok_or_else(|| format!("{f:?} is declared refused, but the request passes"))?;
                let text = format!("{e:?}");
                let want = match r {
                    Refusal::Errno(n) => format!("{n:?}"),
                    Refusal::Unsupported(why) => why.to_string(),
                };
                if !text.contains(&want) {
                    return Err(format!("{f:?}: refused with {text}, not {want}"));
                }
            }
            Handling::Warned(why) => {
                let ws = warnings
                    .as_ref()
                    .map_err(|e| format!("{f:?} is declared warned, but refused: {e:?}"))?;
                if !ws.iter().any(|w| w.contains(why)) {
                    return Err(format!("{f:?}: no warning containing {why:?} in {ws:?}"));
                }
            }
            Handling::Honoured(_) | Handling::Recorded(_) | Handling::Launcher(_) => {
                let t = match &outcome {
                    // A value the backend cannot meet is refused with Slurm's own error:
                    // the backend looked at it.
                    Err(e) if slurm_refusal(e) => continue,
                    Err(e) => {
                        return Err(format!("{f:?}: refused with a non-Slurm error: {e:?}"));
                    }
                    Ok(t) => t,
                };
                let (req, described) = normalised(&t.requests);
                // What squeue/sacct/scontrol show. Local: the record itself (in the
                // translation); Backend.AI: the record its views build from the job's
                // description.
                let shown = || {
                    described.iter().map(view_record).collect::<Vec<_>>()
                        != base_described.iter().map(view_record).collect::<Vec<_>>()
                };
                let differs = match h {
                    Handling::Honoured(_) => req != base_req || shown(),
                    Handling::Recorded(_) if described.is_empty() => req != base_req,
                    Handling::Recorded(_) => shown(),
                    // Done by the launcher from the job's description: the description
                    // must carry it (the local backend stores the request itself).
                    _ => described.iter().all(|d| {
                        let d: JobSpec = serde_json::from_value(d["spec"].clone()).unwrap();
                        d.field_value(f) == spec.field_value(f)
                    }),
                };
                if !differs {
                    return Err(format!(
                        "{f:?} is declared {}, but nothing shows it",
                        h.class()
                    ));
                }
            }
        }
    }
    Ok(class)
}

/// Options that act in the command itself, the same on every backend.
fn by_the_command(base: &Parsed, with: &Parsed) -> bool {
    match (base, with) {
        (_, Parsed::Exit { stdout, .. }) => !stdout.is_empty(),
        (
            Parsed::Request {
                command: a,
                messages: ma,
                ..
            },
            Parsed::Request {
                command: b,
                messages: mb,
                ..
            },
        ) => a != b || ma != mb,
        (Parsed::Options { view: a, .. }, Parsed::Options { view: b, .. }) => a != b,
        _ => false,
    }
}

fn messages(p: &Parsed) -> &[String] {
    match p {
        Parsed::Request { messages, .. } => messages,
        Parsed::Options { .. } | Parsed::Exit { .. } => &[],
    }
}

fn spec_of(p: &Parsed) -> Option<&JobSpec> {
    match p {
        Parsed::Request { spec, .. } => Some(spec),
        _ => None,
    }
}

/// One option row: its class on each backend (in `backends` order), or what is wrong.
fn check_row(o: &Opt, backends: &[Backend], work: &Path) -> Result<Vec<String>, String> {
    let (cmd, _) = command_of(o);
    let all = |class: &str| Ok(vec![class.to_string(); backends.len()]);
    let base = parse(cmd, &context_args(o), work);
    let tries = tries(o, work);
    let first = parse(cmd, &tries[0], work);
    match o.support {
        Support::Rejected(why) => {
            return match &first {
                Parsed::Exit { stderr, .. }
                    if stderr.contains("is not supported by bai-slurm") && stderr.contains(why) =>
                {
                    all("rejected")
                }
                other => Err(format!("declared rejected, but {other:?}")),
            };
        }
        Support::Ignored(why) => {
            let warned = messages(&first)
                .iter()
                .any(|m| m.contains(&format!("--{} {why} and is ignored", o.long)));
            // srun and salloc warn when they run; their parsers keep the option for it.
            let noted = matches!(&first, Parsed::Options { ignored, .. }
                if ignored.iter().any(|i| i == o.long));
            return if warned || noted {
                all("ignored (warning)")
            } else {
                Err(format!("declared ignored, but no warning: {first:?}"))
            };
        }
        Support::Default(_) => {
            // It must change nothing at all.
            let same = match (&base, &first) {
                (
                    Parsed::Request {
                        spec: a,
                        command: ca,
                        ..
                    },
                    Parsed::Request {
                        spec: b,
                        command: cb,
                        ..
                    },
                ) => Field::differing(a, b).is_empty() && ca == cb,
                _ => false,
            };
            return if same {
                all("honoured (default)")
            } else {
                Err(format!(
                    "declared the default, but it changes the request: {first:?}"
                ))
            };
        }
        Support::Honoured => {}
    }
    if let Some((_, why)) = DEFAULT_VALUED.iter().find(|(l, _)| *l == o.long) {
        // The flag asks for the default: the records must be those of the baseline.
        let (Some(a), Some(b)) = (spec_of(&base), spec_of(&first)) else {
            return Err("no request".into());
        };
        for be in backends {
            let t = |s: &JobSpec| {
                be.cluster
                    .translate(s, &be.user)
                    .map(|t| normalised(&t.requests).0)
                    .map_err(|e| format!("{e:?}"))
            };
            if t(a)? != t(b)? {
                return Err(format!(
                    "declared the default ({why}), but {} differs",
                    be.name
                ));
            }
        }
        return all("honoured (default)");
    }
    let mut last_err = String::new();
    for args in &tries {
        let with = parse(cmd, args, work);
        let fields = match (spec_of(&base), spec_of(&with)) {
            (Some(a), Some(b)) => Field::differing(a, b),
            _ => Vec::new(),
        };
        if fields.is_empty() {
            if by_the_command(&base, &with) {
                return all("by the command");
            }
            last_err = format!("{args:?} changes nothing: {with:?}");
            continue;
        }
        let (a, b) = (spec_of(&base).unwrap(), spec_of(&with).unwrap());
        let classes: Result<Vec<String>, String> = backends
            .iter()
            .map(|be| {
                check_backend(be, a, b, &fields)
                    .map(str::to_string)
                    .map_err(|e| format!("{args:?} on {}: {e}", be.name))
            })
            .collect();
        match classes {
            Ok(c) => return Ok(c),
            Err(e) => last_err = e,
        }
    }
    Err(last_err)
}

#[test]
fn every_option_changes_the_request_or_is_refused_or_warned_on_every_backend() {
    let backends = [local_backend(), backendai_backend()];
    let work = tmp("work");
    let mut counts = Counts::default();
    let mut failures = Vec::new();
    let mut cells: BTreeMap<(&str, &str), Vec<String>> = BTreeMap::new();
    for o in OPTIONS {
        let (_, prog) = command_of(o);
        match check_row(o, &backends, &work) {
            Ok(classes) => {
                for (b, c) in backends.iter().zip(&classes) {
                    counts.add(b.name, leak(c));
                }
                cells.insert((o.long, parse_class(o)), classes);
            }
            Err(e) => failures.push(format!("{prog} --{}: {e}", o.long)),
        }
    }
    for b in &backends {
        let line: Vec<String> = counts
            .by_class
            .iter()
            .filter(|((n, _), _)| *n == b.name)
            .map(|((_, c), k)| format!("{c} {k}"))
            .collect();
        println!("{}: {}", b.name, line.join(", "));
    }
    if std::env::var_os("BAI_PRINT_COMPAT_CELLS").is_some() {
        for ((o, class), c) in &cells {
            println!("CELL\t{o}\t{class}\t{}\t{}", c[0], c[1]);
        }
    }
    check_compat_cells(&cells, &mut failures);
    assert!(
        failures.is_empty(),
        "{} option(s) not held to their declaration:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

/// The option table's own class, as docs/COMPAT.md's bai-slurm column spells it.
fn parse_class(o: &Opt) -> &'static str {
    match o.support {
        Support::Honoured => "honoured",
        Support::Ignored(_) => "ignored (warning)",
        Support::Rejected(_) => "rejected",
        Support::Default(_) => "honoured (default)",
    }
}

/// docs/COMPAT.md's local and Backend.AI columns say what the declarations say (an option
/// with rows for several commands, as `--wait`, is told apart by its bai-slurm class).
fn check_compat_cells(cells: &BTreeMap<(&str, &str), Vec<String>>, failures: &mut Vec<String>) {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/COMPAT.md"))
        .unwrap();
    for ((o, class), c) in cells {
        let want = format!("| {class} | {} | {} |", c[0], c[1]);
        let found = doc
            .lines()
            .any(|l| l.starts_with(&format!("| `--{o}`")) && l.contains(&want));
        if !found {
            failures.push(format!(
                "docs/COMPAT.md: a row of --{o} must say `{want}` (bai-slurm, local, Backend.AI)"
            ));
        }
    }
}
