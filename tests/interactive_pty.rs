//! `srun --pty` on the local backend, driven from a real terminal: srun runs as the leader
//! of a session whose controlling terminal is a pseudo-terminal this test holds the other
//! side of, as a user's shell would. Task 0 gets a terminal of its own with srun's window
//! size; keys (Ctrl-C included) reach it raw; a new window size follows; srun's terminal
//! comes back as it was; without a terminal srun says what Slurm's says.

mod harness;

use harness::Cluster;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// srun on the slave side of a new terminal of `rows` x `cols`; the master side's output
/// arrives on the channel.
struct OnTerminal {
    child: Child,
    master: std::fs::File,
    slave: OwnedFd,
    output: mpsc::Receiver<Vec<u8>>,
    seen: String,
}

fn winsize(rows: u16, cols: u16) -> libc::winsize {
    libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    }
}

impl OnTerminal {
    fn start(c: &Cluster, args: &[&str], rows: u16, cols: u16) -> OnTerminal {
        let pair = nix::pty::openpty(Some(&winsize(rows, cols)), None).unwrap();
        let side = || Stdio::from(std::fs::File::from(pair.slave.try_clone().unwrap()));
        let mut cmd = c.cmd("srun");
        cmd.args(args).stdin(side()).stdout(side()).stderr(side());
        // SAFETY: setsid(2) and ioctl(2) only, between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("srun");
        let master = std::fs::File::from(pair.master);
        let mut reader = master.try_clone().unwrap();
        let (tx, output) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        OnTerminal {
            child,
            master,
            slave: pair.slave,
            output,
            seen: String::new(),
        }
    }

    /// Waits until the terminal has shown `text`.
    fn expect(&mut self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self.seen.contains(text) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(left) {
                Ok(b) => self.seen.push_str(&String::from_utf8_lossy(&b)),
                Err(_) => panic!("never saw {text:?}; the terminal showed {:?}", self.seen),
            }
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.master.write_all(bytes).unwrap();
    }

    fn resize(&self, rows: u16, cols: u16) {
        let ws = winsize(rows, cols);
        // SAFETY: TIOCSWINSZ on the master side we own; the kernel signals SIGWINCH to the
        // terminal's foreground process group (srun).
        assert_eq!(
            unsafe { libc::ioctl(self.master.as_raw_fd(), libc::TIOCSWINSZ, &ws) },
            0
        );
    }

    /// srun's exit code, once it has ended (and everything it showed).
    fn finish(mut self) -> (i32, String, OwnedFd) {
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            assert!(
                Instant::now() < deadline,
                "srun never ended: {:?}",
                self.seen
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        while let Ok(b) = self.output.recv_timeout(Duration::from_millis(300)) {
            self.seen.push_str(&String::from_utf8_lossy(&b));
        }
        (status.code().unwrap_or(-1), self.seen, self.slave)
    }
}

fn cooked(fd: &OwnedFd) -> bool {
    let t = nix::sys::termios::tcgetattr(fd).unwrap();
    use nix::sys::termios::LocalFlags;
    t.local_flags
        .contains(LocalFlags::ICANON | LocalFlags::ECHO | LocalFlags::ISIG)
}

#[test]
fn the_task_gets_a_terminal_of_srun_s_size_and_its_exit_code_comes_back() {
    let c = Cluster::new(2, 4096, 2);
    let t = OnTerminal::start(
        &c,
        &[
            "--pty",
            "sh",
            "-c",
            "tty; stty size; test -t 0 && echo interactive; exit 3",
        ],
        33,
        101,
    );
    let (code, shown, slave) = t.finish();
    assert_eq!(code, 3, "{shown:?}");
    assert!(shown.contains("/dev/pts/"), "{shown:?}");
    assert!(shown.contains("33 101\r\n"), "{shown:?}");
    assert!(shown.contains("interactive\r\n"), "{shown:?}");
    assert!(
        shown.contains("srun: error: node01: task 0: Exited with exit code 3"),
        "{shown:?}"
    );
    // The user's terminal is as it was.
    assert!(cooked(&slave), "srun left its terminal in raw mode");
    // The step is in sacct like any other.
    let r = c.run("sacct", &["-n", "-P", "-o", "jobname,state,exitcode"]);
    assert!(r.stdout.contains("sh|FAILED|3:0"), "{r:?}");
}

#[test]
fn keys_reach_the_task_raw_and_the_window_size_follows() {
    let c = Cluster::new(2, 4096, 2);
    let mut t = OnTerminal::start(
        &c,
        &[
            "--pty",
            "sh",
            "-c",
            "trap 'stty size' WINCH; trap 'echo caught-INT; exit 5' INT; \
             read line; echo \"line=$line\"; echo ready; \
             while :; do sleep 0.1; done",
        ],
        24,
        80,
    );
    t.send(b"abc\r");
    t.expect("line=abc");
    t.expect("ready");
    t.resize(40, 132);
    t.expect("40 132");
    // Ctrl-C is a key for the task's terminal, not a signal to srun.
    t.send(b"\x03");
    let (code, shown, _) = t.finish();
    assert!(shown.contains("caught-INT"), "{shown:?}");
    assert_eq!(code, 5, "{shown:?}");
}

#[test]
fn ctrl_d_ends_a_shell_on_the_terminal() {
    let c = Cluster::new(2, 4096, 2);
    let mut t = OnTerminal::start(&c, &["--pty", "bash", "--norc", "-i"], 24, 80);
    t.send(b"echo in-$((6*7))\r");
    t.expect("in-42");
    t.send(b"\x04");
    let (code, shown, slave) = t.finish();
    assert_eq!(code, 0, "{shown:?}");
    assert!(cooked(&slave));
}

#[test]
fn without_a_terminal_srun_says_so_and_runs_without_one() {
    let c = Cluster::new(2, 4096, 2);
    let r = c.run("srun", &["--pty", "tty"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert_eq!(r.stdout, "not a tty\n");
    assert_eq!(
        r.stderr,
        "srun: error: ioctl(TIOCGWINSZ): Inappropriate ioctl for device\n\
         srun: error: Not using a pseudo-terminal, disregarding --pty option\n\
         srun: error: node01: task 0: Exited with exit code 1\n"
    );
}
