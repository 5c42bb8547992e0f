//! `bai-slurm install-links DIR`: makes the Slurm command names point at this binary.

use super::COMMANDS;
use crate::cli::Invocation;
use std::path::Path;

pub fn run(inv: &mut Invocation<'_>) -> i32 {
    let [dir] = inv.args.as_slice() else {
        let _ = writeln!(inv.err, "Usage: bai-slurm install-links DIR");
        return 2;
    };
    let dir = inv.cwd.join(dir);
    let exe = match std::env::current_exe().and_then(|p| p.canonicalize()) {
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
    0
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
