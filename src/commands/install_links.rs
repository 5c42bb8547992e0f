//! `bai-slurm install-links [--links-only] DIR`: makes the Slurm command names point at
//! this binary in DIR, and puts the man pages and shell completions where `man` and each
//! shell look for them when DIR is on PATH.
//!
//! - man pages: `DIR/../share/man/man1` (man-db maps each PATH entry `X/bin` to
//!   `X/share/man`);
//! - when `DIR/..` is a system prefix (its `share` is in `XDG_DATA_DIRS`, by default
//!   /usr/local/share and /usr/share): `share/bash-completion/completions`,
//!   `share/zsh/site-functions` and `share/fish/vendor_completions.d` under it;
//! - otherwise the user's own places: bash-completion's user directory
//!   (`$BASH_COMPLETION_USER_DIR/completions`, else
//!   `${XDG_DATA_HOME:-~/.local/share}/bash-completion/completions`), fish's
//!   (`${XDG_CONFIG_HOME:-~/.config}/fish/completions`), and for zsh, which has no user
//!   directory, `DIR/../share/zsh/site-functions` with the one line to add to ~/.zshrc.

use super::COMMANDS;
use crate::cli::Invocation;
use std::path::{Path, PathBuf};

pub fn run(inv: &mut Invocation<'_>) -> i32 {
    let (links_only, dir) = match inv.args.as_slice() {
        [dir] => (false, dir.clone()),
        [flag, dir] if flag == "--links-only" => (true, dir.clone()),
        _ => {
            let _ = writeln!(inv.err, "Usage: bai-slurm install-links [--links-only] DIR");
            return 2;
        }
    };
    let dir = inv.cwd.join(dir);
    let exe = match crate::sys::own_executable().and_then(|p| p.canonicalize()) {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(inv.err, "bai-slurm: cannot find this program's path: {e}");
            return 1;
        }
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        let _ = writeln!(inv.err, "bai-slurm: cannot create {}: {e}", dir.display());
        return 1;
    }
    for (name, _) in COMMANDS {
        let link = dir.join(name);
        if let Err(e) = replace_link(&exe, &link) {
            let _ = writeln!(inv.err, "bai-slurm: cannot link {}: {e}", link.display());
            return 1;
        }
        let _ = writeln!(inv.out, "{} -> {}", link.display(), exe.display());
    }
    if links_only {
        return 0;
    }
    let places = Places::for_dir(&dir, |k| inv.var_nonempty(k).map(str::to_string));
    let mut written = [0usize; 4];
    for (rel, bytes) in crate::generate::files() {
        let Some((kind, target)) = places.target(&rel) else {
            continue;
        };
        if let Err(e) = write_file(&target, &bytes) {
            let _ = writeln!(inv.err, "bai-slurm: cannot write {}: {e}", target.display());
            return 1;
        }
        written[kind as usize] += 1;
    }
    let out = &mut *inv.out;
    let _ = writeln!(out, "man pages ({}): {}", written[0], places.man.display());
    let _ = writeln!(
        out,
        "bash completions ({}): {}",
        written[1],
        places.bash.display()
    );
    let _ = writeln!(
        out,
        "zsh completions ({}): {}",
        written[2],
        places.zsh.display()
    );
    let _ = writeln!(
        out,
        "fish completions ({}): {}",
        written[3],
        places.fish.display()
    );
    if !places.zsh_found {
        let _ = writeln!(
            out,
            "zsh: add this line to ~/.zshrc, before compinit: fpath=({} $fpath)",
            places.zsh.display()
        );
    }
    0
}

#[derive(Clone, Copy)]
enum Kind {
    Man,
    Bash,
    Zsh,
    Fish,
}

/// Where each kind of file goes for links in one directory.
struct Places {
    man: PathBuf,
    bash: PathBuf,
    zsh: PathBuf,
    fish: PathBuf,
    /// Whether zsh finds `zsh` without a line in ~/.zshrc.
    zsh_found: bool,
}

impl Places {
    fn for_dir(dir: &Path, var: impl Fn(&str) -> Option<String>) -> Places {
        let prefix = dir.parent().unwrap_or(dir).to_path_buf();
        let share = prefix.join("share");
        let data_dirs =
            var("XDG_DATA_DIRS").unwrap_or_else(|| "/usr/local/share:/usr/share".into());
        let system = data_dirs
            .split(':')
            .any(|d| Path::new(d) == share.as_path());
        let home = var("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| prefix.clone());
        let zsh = share.join("zsh/site-functions");
        if system {
            return Places {
                man: share.join("man/man1"),
                bash: share.join("bash-completion/completions"),
                zsh_found: true,
                zsh,
                fish: share.join("fish/vendor_completions.d"),
            };
        }
        let bash_user = var("BASH_COMPLETION_USER_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                var("XDG_DATA_HOME")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| home.join(".local/share"))
                    .join("bash-completion")
            });
        let config = var("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".config"));
        Places {
            man: share.join("man/man1"),
            bash: bash_user.join("completions"),
            zsh_found: false,
            zsh,
            fish: config.join("fish/completions"),
        }
    }

    /// Where a generated file (`man/man1/x.1`, `completions/bash/x`, ...) goes.
    fn target(&self, rel: &str) -> Option<(Kind, PathBuf)> {
        let (kind, base) = if let Some(f) = rel.strip_prefix("man/man1/") {
            (Kind::Man, self.man.join(f))
        } else if let Some(f) = rel.strip_prefix("completions/bash/") {
            (Kind::Bash, self.bash.join(f))
        } else if let Some(f) = rel.strip_prefix("completions/zsh/") {
            (Kind::Zsh, self.zsh.join(f))
        } else if let Some(f) = rel.strip_prefix("completions/fish/") {
            (Kind::Fish, self.fish.join(f))
        } else {
            return None;
        };
        Some((kind, base))
    }
}

fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, bytes)
}

/// Points `link` at `target`, replacing an older link (never a regular file: that could be
/// a real Slurm installed there).
fn replace_link(target: &Path, link: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(link) {
        Ok(m) if m.file_type().is_symlink() => std::fs::remove_file(link)?,
        Ok(_) => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "a file that is not a link is in the way",
            ));
        }
        Err(_) => {}
    }
    std::os::unix::fs::symlink(target, link)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(dir: &str, vars: &[(&str, &str)]) -> Places {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Places::for_dir(Path::new(dir), |k| {
            vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn a_users_cargo_bin_gets_the_users_own_places() {
        let p = places("/home/a/.cargo/bin", &[("HOME", "/home/a")]);
        assert_eq!(p.man, Path::new("/home/a/.cargo/share/man/man1"));
        assert_eq!(
            p.bash,
            Path::new("/home/a/.local/share/bash-completion/completions")
        );
        assert_eq!(p.fish, Path::new("/home/a/.config/fish/completions"));
        assert_eq!(p.zsh, Path::new("/home/a/.cargo/share/zsh/site-functions"));
        assert!(!p.zsh_found);
        let x = places(
            "/opt/x/bin",
            &[
                ("HOME", "/h"),
                ("XDG_DATA_HOME", "/d"),
                ("XDG_CONFIG_HOME", "/c"),
            ],
        );
        assert_eq!(x.bash, Path::new("/d/bash-completion/completions"));
        assert_eq!(x.fish, Path::new("/c/fish/completions"));
    }

    #[test]
    fn a_system_prefix_gets_the_vendor_places() {
        let p = places("/usr/local/bin", &[("HOME", "/root")]);
        assert_eq!(p.man, Path::new("/usr/local/share/man/man1"));
        assert_eq!(
            p.bash,
            Path::new("/usr/local/share/bash-completion/completions")
        );
        assert_eq!(
            p.fish,
            Path::new("/usr/local/share/fish/vendor_completions.d")
        );
        assert!(p.zsh_found);
        assert_eq!(
            p.target("completions/zsh/_sbatch").unwrap().1,
            Path::new("/usr/local/share/zsh/site-functions/_sbatch")
        );
    }
}
