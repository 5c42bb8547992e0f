//! `srun --pty`: task 0 runs on a pseudo-terminal of its node's own, as slurmstepd gives
//! it one, while srun puts its own terminal in raw mode and passes every byte through (so
//! Ctrl-C, Ctrl-D and line editing mean what they mean to the task) and the window size
//! follows srun's terminal.

use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

/// A terminal's size in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowSize {
    pub rows: u16,
    pub cols: u16,
}

impl WindowSize {
    fn winsize(self) -> libc::winsize {
        libc::winsize {
            ws_row: self.rows,
            ws_col: self.cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        }
    }
}

/// The size of the terminal on `fd`; an error when `fd` is no terminal (srun's
/// `ioctl(TIOCGWINSZ): Inappropriate ioctl for device`).
pub fn window_size(fd: RawFd) -> io::Result<WindowSize> {
    let mut ws = WindowSize { rows: 0, cols: 0 }.winsize();
    // SAFETY: TIOCGWINSZ writes one winsize into the struct we own.
    if unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(WindowSize {
        rows: ws.ws_row,
        cols: ws.ws_col,
    })
}

fn set_window_size(fd: RawFd, size: WindowSize) -> io::Result<()> {
    let ws = size.winsize();
    // SAFETY: TIOCSWINSZ reads one winsize from the struct we own.
    if unsafe { libc::ioctl(fd, libc::TIOCSWINSZ, &ws) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn close_on_exec(fd: &OwnedFd) -> io::Result<()> {
    // SAFETY: fcntl(2) on a descriptor we own.
    if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The pseudo-terminal of one task: the step server keeps the master side.
pub struct TaskPty {
    master: OwnedFd,
    slave: Option<OwnedFd>,
}

impl TaskPty {
    pub fn open(size: WindowSize) -> io::Result<TaskPty> {
        let ws = size.winsize();
        let pair = nix::pty::openpty(Some(&ws), None).map_err(io::Error::from)?;
        // Neither side leaks into the other tasks this server starts meanwhile.
        close_on_exec(&pair.master)?;
        close_on_exec(&pair.slave)?;
        Ok(TaskPty {
            master: pair.master,
            slave: Some(pair.slave),
        })
    }

    /// Makes `cmd` run on the terminal: its stdin, stdout and stderr, in a session of its
    /// own whose controlling terminal it is (so Ctrl-C reaches its foreground job). The
    /// task is its session's and process group's leader, so the server still signals it
    /// with killpg(pid).
    pub fn attach(&self, cmd: &mut Command) -> io::Result<()> {
        let slave = self
            .slave
            .as_ref()
            .ok_or_else(|| io::Error::other("the terminal's task has started already"))?;
        let side = || -> io::Result<Stdio> { Ok(Stdio::from(File::from(slave.try_clone()?))) };
        cmd.stdin(side()?).stdout(side()?).stderr(side()?);
        // SAFETY: setsid(2) and ioctl(2) only, between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        Ok(())
    }

    /// Once the task runs: our copy of its side goes, so that reading the master ends when
    /// the task (and whatever it left holding the terminal) has gone. (The `Command` keeps
    /// the copies `attach` gave it until it is dropped.)
    pub fn started(&mut self) {
        self.slave = None;
    }

    /// The master side, to read the task's output from and write its input to.
    pub fn master(&self) -> io::Result<File> {
        Ok(File::from(self.master.try_clone()?))
    }

    pub fn resize(&self, size: WindowSize) -> io::Result<()> {
        set_window_size(self.master.as_fd().as_raw_fd(), size)
    }
}

/// Reads the task's output from the master side until the terminal hangs up (Linux
/// answers EIO once no process holds the other side).
pub fn read_output(mut master: File, mut each: impl FnMut(&[u8]) -> bool) {
    use std::io::Read;
    let mut buf = [0u8; 8192];
    loop {
        match master.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if !each(&buf[..n]) {
                    break;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
}

/// srun's own terminal in raw mode for as long as this lives; the settings it had come
/// back when it is dropped (also when the step fails).
pub struct RawMode {
    fd: RawFd,
    saved: nix::sys::termios::Termios,
}

impl RawMode {
    pub fn enter(fd: RawFd) -> io::Result<RawMode> {
        use nix::sys::termios::{SetArg, cfmakeraw, tcgetattr, tcsetattr};
        // SAFETY: srun's stdin stays open for as long as srun runs.
        let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
        let saved = tcgetattr(borrowed).map_err(io::Error::from)?;
        let mut raw = saved.clone();
        cfmakeraw(&mut raw);
        tcsetattr(borrowed, SetArg::TCSANOW, &raw).map_err(io::Error::from)?;
        Ok(RawMode { fd, saved })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        use nix::sys::termios::{SetArg, tcsetattr};
        // SAFETY: as in `enter`.
        let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(self.fd) };
        let _ = tcsetattr(borrowed, SetArg::TCSADRAIN, &self.saved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn a_task_on_a_terminal_sees_it_and_its_size() {
        let mut pty = TaskPty::open(WindowSize { rows: 31, cols: 97 }).unwrap();
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", "test -t 0 && test -t 1 && stty size; exit 3"]);
        pty.attach(&mut cmd).unwrap();
        let mut child = cmd.spawn().unwrap();
        // The command holds its copies of the terminal's side until it goes.
        drop(cmd);
        pty.started();
        let mut out = Vec::new();
        read_output(pty.master().unwrap(), |b| {
            out.extend_from_slice(b);
            true
        });
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(3));
        assert_eq!(String::from_utf8_lossy(&out), "31 97\r\n");
    }

    #[test]
    fn input_and_a_new_size_reach_the_task() {
        let mut pty = TaskPty::open(WindowSize { rows: 10, cols: 20 }).unwrap();
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", "read line; stty size; echo got $line"]);
        pty.attach(&mut cmd).unwrap();
        let mut child = cmd.spawn().unwrap();
        // The command holds its copies of the terminal's side until it goes.
        drop(cmd);
        pty.started();
        pty.resize(WindowSize {
            rows: 50,
            cols: 132,
        })
        .unwrap();
        use std::io::Write;
        pty.master().unwrap().write_all(b"hello\n").unwrap();
        let mut master = pty.master().unwrap();
        let mut all = String::new();
        let mut buf = [0u8; 256];
        while !all.contains("got hello") {
            match master.read(&mut buf) {
                Ok(n) if n > 0 => all.push_str(&String::from_utf8_lossy(&buf[..n])),
                _ => break,
            }
        }
        child.wait().unwrap();
        assert!(all.contains("50 132\r\n"), "{all:?}");
        assert!(all.contains("got hello"), "{all:?}");
    }

    #[test]
    fn no_terminal_no_size() {
        let f = File::open("/dev/null").unwrap();
        assert!(window_size(f.as_raw_fd()).is_err());
    }
}
