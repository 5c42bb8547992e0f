//! The scripts a user's srun asks for around a step: `--prolog`/`--epilog`, which srun runs
//! itself before and after the step (`_run_srun_script`, src/srun/libsrun/srun_job.c), and
//! `--task-prolog`/`--task-epilog`, which the node runs for each task (slurmstepd's
//! `_run_script_and_set_env` in task.c, `_run_script_as_user` in mgr.c). What each one
//! gets, prints and how its failures read are Slurm's.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The internal command that runs a task's prolog inside the task's own process and then
/// becomes the task: `bai-slurm __task-prolog WORDING PROLOG PROGRAM ARGS...`.
pub const TASK_PROLOG_COMMAND: &str = "__task-prolog";

/// How long a task epilog may run before it is killed (slurmstepd's 5 seconds).
const TASK_EPILOG_WAIT: Duration = Duration::from_secs(5);

/// Runs srun's `--prolog` or `--epilog` (`context`: `prolog_srun`, `epilog_srun`) with the
/// step's command line as its arguments, on srun's own stdout and stderr. Returns its exit
/// code (0 when it cannot be run: srun says so and goes on), and the line srun prints.
pub fn run_srun_script(
    path: &str,
    context: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    cwd: &str,
) -> (i32, Option<String>) {
    if path.is_empty() || path.eq_ignore_ascii_case("none") {
        return (0, None);
    }
    // access(R_OK | X_OK) relative to srun's directory, as srun checks it.
    let full = Path::new(cwd).join(path);
    if let Err(e) = runnable(&full) {
        return (0, Some(format!("srun: Access denied for {path}: {e}")));
    }
    let status = Command::new(&full)
        .arg0(path)
        .args(args)
        .env_clear()
        .envs(env)
        .env("SLURM_SCRIPT_CONTEXT", context)
        .current_dir(cwd)
        .status();
    match status {
        Ok(s) => match s.code() {
            Some(code) => (code, None),
            None => (1, Some("srun: error: script did not exit normally".into())),
        },
        Err(e) => (
            127,
            Some(format!(
                "srun: error: Failed to execute srun prolog/epilog script: {}",
                super::batch::io_text(&e)
            )),
        ),
    }
}

/// Slurm's `access(path, R_OK | X_OK)` check of a script, failing with `%m`'s text.
fn runnable(path: &Path) -> Result<(), String> {
    nix::unistd::access(
        path,
        nix::unistd::AccessFlags::R_OK | nix::unistd::AccessFlags::X_OK,
    )
    .map_err(|e| crate::sys::strerror(e as i32))
}

/// Which of Slurm's two wordings of run_command's refusal of a relative path to use.
pub fn qualified_wording(a_fully_qualified: bool) -> &'static str {
    if a_fully_qualified { "24.11" } else { "22.05" }
}

/// `__task-prolog WORDING PROLOG PROGRAM ARGS...`: in the task's own process (its pid is
/// SLURM_TASK_PID), runs the prolog with the task's environment, applies what it printed
/// (`export NAME=value`, `unset NAME`, `print TEXT`), and becomes the task; a prolog that
/// fails ends the task with its status, as slurmstepd's does.
pub fn task_prolog_then_exec(args: &[String]) -> i32 {
    let [wording, prolog, program, task_args @ ..] = args else {
        return 2;
    };
    let node = std::env::var("SLURMD_NODENAME").unwrap_or_default();
    let say = |line: &str| {
        let _ = writeln!(std::io::stderr(), "slurmstepd-{node}: error: {line}");
    };
    let mut env: BTreeMap<String, String> = std::env::vars().collect();
    env.insert("SLURM_TASK_PID".into(), std::process::id().to_string());
    env.insert("SLURM_SCRIPT_CONTEXT".into(), "prolog_task".into());
    let name = "user task_prolog";
    let refusal = if !prolog.starts_with('/') {
        let a = if wording == "24.11" { "a " } else { "" };
        Some(format!(
            "run_command: {name} is not {a}fully qualified pathname ({prolog})"
        ))
    } else {
        runnable(Path::new(prolog))
            .err()
            .map(|e| format!("run_command: {name} can not be executed ({prolog}) {e}"))
    };
    let status = if let Some(refusal) = refusal {
        say(&refusal);
        say(&format!(
            "{name} did not exit normally. reason: Run command failed - configuration error"
        ));
        1
    } else {
        match capture(prolog, &env) {
            Ok((output, status)) if status.code().is_some() => {
                apply_prolog_output(&output, &mut env, &mut std::io::stdout());
                status.code().unwrap_or(1)
            }
            Ok((output, _)) => {
                say(&format!(
                    "{name} did not exit normally. reason: {}",
                    String::from_utf8_lossy(&output)
                ));
                1
            }
            Err(e) => {
                say(&format!(
                    "run_command: {name} can not be executed ({prolog}) {}",
                    super::batch::io_text(&e)
                ));
                1
            }
        }
    };
    if status != 0 {
        say(&format!("--task-prolog failed status={status}"));
        return status;
    }
    let _ = std::io::stdout().flush();
    let err = Command::new(program)
        .args(task_args)
        .env_clear()
        .envs(&env)
        .exec();
    say(&format!(
        "execve(): {program}: {}",
        super::batch::io_text(&err)
    ));
    2
}

/// Runs a script with no arguments, its stdout and stderr in one pipe (run_command).
fn capture(
    path: &str,
    env: &BTreeMap<String, String>,
) -> std::io::Result<(Vec<u8>, std::process::ExitStatus)> {
    let (mut r, w) = std::io::pipe()?;
    let mut child = Command::new(path)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .stdout(w.try_clone()?)
        .stderr(w)
        .spawn()?;
    let mut out = Vec::new();
    r.read_to_end(&mut out)?;
    Ok((out, child.wait()?))
}

/// What slurmstepd does with a task prolog's output (`_proc_stdout`): `export NAME=value`
/// sets a variable of the task (white space around the name dropped, the value kept as
/// written), `unset NAME` removes one, `print TEXT` writes TEXT to the task's stdout;
/// every other line is ignored.
pub fn apply_prolog_output(
    output: &[u8],
    env: &mut BTreeMap<String, String>,
    stdout: &mut dyn Write,
) {
    let buf = output.split(|&b| b == 0).next().unwrap_or_default();
    let mut at = 0;
    while at < buf.len() {
        let end = buf[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(buf.len(), |n| at + n);
        let line = &buf[at..end];
        let skip_space = |from: usize| {
            from + buf[from..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace() || **b == 0x0b)
                .count()
        };
        if line.starts_with(b"print ") {
            let from = skip_space(at + 6);
            if from <= end {
                // Slurm writes the line with its newline; a last line without one is
                // written with the string's terminating NUL.
                let mut text = buf[from..end].to_vec();
                text.push(if end < buf.len() { b'\n' } else { 0 });
                let _ = stdout.write_all(&text);
            }
        } else if line.starts_with(b"export ") {
            let name_from = skip_space(at + 7);
            if let Some(eq) = buf[name_from..end].iter().position(|&b| b == b'=') {
                let eq = name_from + eq;
                let name = buf[name_from..eq].trim_ascii_end();
                let value = &buf[eq + 1..end];
                if !name.is_empty() {
                    env.insert(
                        String::from_utf8_lossy(name).into_owned(),
                        String::from_utf8_lossy(value).into_owned(),
                    );
                }
            }
        } else if line.starts_with(b"unset ") {
            let name_from = skip_space(at + 6);
            if name_from < end {
                let name = buf[name_from..end].trim_ascii_end();
                env.remove(String::from_utf8_lossy(name).as_ref());
            }
        }
        at = end + 1;
    }
    let _ = stdout.flush();
}

/// Runs a task's `--task-epilog` once the task has ended, as slurmstepd does: the task's
/// environment with SLURM_SCRIPT_CONTEXT=epilog_task, in the step's directory, killed
/// after five seconds. Its stdout goes nowhere; returns the lines srun prints (its stderr,
/// then slurmstepd's complaint when it failed). 22.05 checks the script first and reports
/// a raw wait status; 24.11 (`messages_24`) just runs it and reports the exit code.
pub fn run_task_epilog(
    path: &str,
    env: &BTreeMap<String, String>,
    cwd: &str,
    node: &str,
    messages_24: bool,
) -> Vec<String> {
    let name = "user task_epilog";
    let executable = messages_24 || runnable(&Path::new(cwd).join(path)).is_ok();
    if !executable {
        return vec![
            format!("slurmstepd-{node}: error: Could not run {name} [{path}]: access denied"),
            format!("slurmstepd-{node}: error: TaskEpilog failed status=-1"),
        ];
    }
    let spawned = Command::new(Path::new(cwd).join(path))
        .arg0(path)
        .env_clear()
        .envs(env)
        .env("SLURM_SCRIPT_CONTEXT", "epilog_task")
        // slurmstepd stays where it is when the step's directory is gone.
        .current_dir(if Path::new(cwd).is_dir() { cwd } else { "/" })
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            let mut lines = vec![format!(
                "slurmstepd-{node}: error: execve({path}): {}",
                super::batch::io_text(&e)
            )];
            if e.raw_os_error() == Some(libc::EACCES) {
                lines.push(format!(
                    "slurmstepd-{node}: error: Could not run {name} [{path}]: access denied"
                ));
            }
            let status = if messages_24 { 127 } else { 127 << 8 };
            lines.push(format!(
                "slurmstepd-{node}: error: TaskEpilog failed status={status}"
            ));
            return lines;
        }
    };
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        if let Some(s) = stderr.as_mut() {
            let _ = s.read_to_end(&mut text);
        }
        text
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s.into_raw(),
            Ok(None) if started.elapsed() >= TASK_EPILOG_WAIT => {
                // SAFETY: killpg(2) on the epilog's own process group.
                unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
                break child.wait().map_or(libc::SIGKILL, |s| s.into_raw());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break 0,
        }
    };
    let status = match (messages_24, libc::WIFEXITED(status)) {
        (true, true) => libc::WEXITSTATUS(status),
        _ => status,
    };
    let text = reader.join().unwrap_or_default();
    let mut lines: Vec<String> = String::from_utf8_lossy(&text)
        .lines()
        .map(str::to_string)
        .collect();
    if status != 0 {
        lines.push(format!(
            "slurmstepd-{node}: error: TaskEpilog failed status={status}"
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of the scenario step_scripts' task prolog, as 22.05.8 applied them.
    #[test]
    fn prolog_output_shapes_the_task() {
        let mut env = BTreeMap::from([
            ("UNSET_ME".to_string(), "present".to_string()),
            ("KEEP".to_string(), "1".to_string()),
        ]);
        let mut out = Vec::new();
        apply_prolog_output(
            b"export FROM_PROLOG=task0\nexport  SPACED = a b \nprint   hello there\n\
              unset UNSET_ME  \nignored line\nstderr is dropped\nexport NOEQUALS\nprint last",
            &mut env,
            &mut out,
        );
        assert_eq!(env.get("FROM_PROLOG").map(String::as_str), Some("task0"));
        assert_eq!(env.get("SPACED").map(String::as_str), Some(" a b "));
        assert!(!env.contains_key("UNSET_ME"));
        assert!(env.contains_key("KEEP"));
        assert!(!env.contains_key("NOEQUALS"));
        assert_eq!(out, b"hello there\nlast\0");
    }

    #[test]
    fn a_task_epilog_reports_its_stderr_and_its_failure() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("tepi.sh");
        std::fs::write(
            &script,
            "#!/bin/sh\necho out\necho \"err $SLURM_SCRIPT_CONTEXT\" >&2\nexit 5\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let env = BTreeMap::from([("PATH".to_string(), "/usr/bin:/bin".to_string())]);
        let cwd = dir.path().to_str().unwrap();
        let script = script.to_str().unwrap();
        assert_eq!(
            run_task_epilog(script, &env, cwd, "node01", false),
            [
                "err epilog_task",
                "slurmstepd-node01: error: TaskEpilog failed status=1280"
            ]
        );
        assert_eq!(
            run_task_epilog("/nonexistent/tepi.sh", &env, cwd, "node01", false),
            [
                "slurmstepd-node01: error: Could not run user task_epilog [/nonexistent/tepi.sh]: access denied",
                "slurmstepd-node01: error: TaskEpilog failed status=-1"
            ]
        );
        // 24.11 reports the exit code, and runs a script it cannot run to find out.
        assert_eq!(
            run_task_epilog(script, &env, cwd, "node01", true)[1],
            "slurmstepd-node01: error: TaskEpilog failed status=5"
        );
        assert_eq!(
            run_task_epilog("/nonexistent/tepi.sh", &env, cwd, "node01", true),
            [
                "slurmstepd-node01: error: execve(/nonexistent/tepi.sh): No such file or directory",
                "slurmstepd-node01: error: TaskEpilog failed status=127"
            ]
        );
    }
}
