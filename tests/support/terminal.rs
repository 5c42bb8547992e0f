//! A program on a real terminal: it runs as the leader of a session whose controlling
//! terminal is a pseudo-terminal the test holds the other side of, as a user's shell would
//! (srun --pty on either backend).

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// srun on the slave side of a new terminal of `rows` x `cols`; the master side's output
/// arrives on the channel.
pub struct OnTerminal {
    child: Child,
    master: std::fs::File,
    slave: OwnedFd,
    output: mpsc::Receiver<Vec<u8>>,
    seen: String,
    /// How much of `seen` earlier expectations have matched: each looks only after it.
    matched: usize,
    /// How long [`OnTerminal::expect`] and [`OnTerminal::finish`] wait.
    patience: Duration,
}

pub fn winsize(rows: u16, cols: u16) -> libc::winsize {
    libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    }
}

impl OnTerminal {
    pub fn start(mut cmd: Command, rows: u16, cols: u16) -> OnTerminal {
        let pair = nix::pty::openpty(Some(&winsize(rows, cols)), None).unwrap();
        let side = || Stdio::from(std::fs::File::from(pair.slave.try_clone().unwrap()));
        cmd.stdin(side()).stdout(side()).stderr(side());
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
            matched: 0,
            patience: Duration::from_secs(30),
        }
    }

    /// Waits longer than the default 30 s (a job that has to start first).
    pub fn with_patience(mut self, patience: Duration) -> OnTerminal {
        self.patience = patience;
        self
    }

    /// Waits until the terminal shows `text` after what earlier expectations matched.
    pub fn expect(&mut self, text: &str) {
        let deadline = Instant::now() + self.patience;
        loop {
            if let Some(at) = self.seen[self.matched..].find(text) {
                self.matched += at + text.len();
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(left) {
                Ok(b) => self.seen.push_str(&String::from_utf8_lossy(&b)),
                Err(_) => panic!(
                    "never saw {text:?} after {:?}; the terminal showed {:?}",
                    &self.seen[..self.matched],
                    self.seen
                ),
            }
        }
    }

    pub fn send(&mut self, bytes: &[u8]) {
        self.master.write_all(bytes).unwrap();
    }

    pub fn resize(&self, rows: u16, cols: u16) {
        let ws = winsize(rows, cols);
        // SAFETY: TIOCSWINSZ on the master side we own; the kernel signals SIGWINCH to the
        // terminal's foreground process group (srun).
        assert_eq!(
            unsafe { libc::ioctl(self.master.as_raw_fd(), libc::TIOCSWINSZ, &ws) },
            0
        );
    }

    /// srun's exit code, once it has ended (and everything it showed).
    pub fn finish(mut self) -> (i32, String, OwnedFd) {
        let deadline = Instant::now() + self.patience;
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

/// Whether the terminal is back in its cooked mode.
pub fn cooked(fd: &OwnedFd) -> bool {
    let t = nix::sys::termios::tcgetattr(fd).unwrap();
    use nix::sys::termios::LocalFlags;
    t.local_flags
        .contains(LocalFlags::ICANON | LocalFlags::ECHO | LocalFlags::ISIG)
}
