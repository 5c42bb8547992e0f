//! The README's first command, as a new user with a rustup toolchain does it: the binary in
//! `~/.cargo/bin` (what `cargo install` leaves), `bai-slurm install-links ~/.cargo/bin`, then
//! `examples/try.sh`; after it, `man sbatch` and tab completion must work in a new shell.
//! A real non-root user with an empty home is made for it (`useradd`), so this needs root,
//! as the README's test command does.

use std::path::{Path, PathBuf};
use std::process::Command;

const EXE: &str = env!("CARGO_BIN_EXE_bai-slurm");
const USER: &str = "baitest-readme";

fn as_user(home: &Path, script: &str) -> (String, String, i32) {
    let out = Command::new("runuser")
        .args(["-u", USER, "--", "env", "-i"])
        .arg(format!("HOME={}", home.display()))
        .arg(format!("PATH={}/.cargo/bin:/usr/bin:/bin", home.display()))
        .args(["LANG=C", "TERM=dumb", "bash", "-c", script])
        .current_dir(home)
        .output()
        .expect("runuser");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn the_first_command_leaves_man_pages_and_completions_that_work() {
    assert!(
        nix::unistd::getuid().is_root(),
        "tests/readme_commands.rs makes a user with useradd and needs root (the README's test command runs as root)"
    );
    if nix::unistd::User::from_name(USER).unwrap().is_none() {
        let out = Command::new("useradd")
            .args(["-m", "-s", "/bin/bash", USER])
            .output()
            .unwrap();
        assert!(out.status.success(), "useradd: {out:?}");
    }
    let u = nix::unistd::User::from_name(USER).unwrap().unwrap();
    let home: PathBuf = u.dir.clone();
    // An empty home, as a new user has (with the skeleton's .bashrc, which loads
    // bash-completion).
    for entry in std::fs::read_dir(&home).unwrap().flatten() {
        let name = entry.file_name();
        if name != ".bashrc" && name != ".profile" && name != ".bash_logout" {
            let _ = std::fs::remove_dir_all(entry.path())
                .or_else(|_| std::fs::remove_file(entry.path()));
        }
    }
    let bin = home.join(".cargo/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(EXE, bin.join("bai-slurm")).unwrap();
    let chown = Command::new("chown")
        .args(["-R", &format!("{USER}:")])
        .arg(&home)
        .status()
        .unwrap();
    assert!(chown.success());
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/try.sh");
    let (out, err, code) = as_user(
        &home,
        &format!(
            "set -e; bai-slurm install-links ~/.cargo/bin && {}",
            examples.display()
        ),
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Hello from job 1 (hello)"), "{out}");
    assert!(out.contains("COMPLETED"), "{out}");
    println!("{out}");
    // try.sh leaves no temporary directory behind.
    let leftover = out
        .lines()
        .find_map(|l| l.strip_prefix("$ cat "))
        .map(|p| Path::new(p).parent().unwrap().to_path_buf())
        .unwrap();
    assert!(!leftover.exists(), "{} left behind", leftover.display());
    // man finds the pages through PATH.
    let (out, err, code) = as_user(&home, "man -w sbatch; man -w squeue; man -w bai-slurm");
    assert_eq!(code, 0, "{err}");
    let man = home.join(".cargo/share/man/man1");
    assert_eq!(
        out,
        format!(
            "{0}/sbatch.1\n{0}/squeue.1\n{0}/bai-slurm.1\n",
            man.display()
        )
    );
    // A new interactive bash loads the completion on demand, as at the first <TAB>.
    let (out, err, _) = as_user(
        &home,
        "bash -i -c '__load_completion sbatch; complete -p sbatch' 2>/dev/null",
    );
    assert!(
        out.contains("-F _bai_slurm_dyn_sbatch sbatch"),
        "bash completion not loaded: {out}\n{err}"
    );
    // fish finds its own; zsh is told the line to add.
    let (out, err, code) = as_user(&home, "fish -c 'complete -C \"sbatch --parsa\"'");
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("--parsable\t"), "fish: {out}");
    let (out, _, _) = as_user(&home, "bai-slurm install-links ~/.cargo/bin");
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("zsh: add this line to ~/.zshrc, before compinit: "))
        .expect("the zsh line")
        .to_string();
    let (out, err, code) = as_user(
        &home,
        &format!(
            "zsh -fc '{line}; autoload -U compinit; compinit -u -d /tmp/zcd.{USER}; print $_comps[sbatch]'"
        ),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), "_sbatch", "zsh: {out} {err}");
}
