//! `srun --pty` on the local backend, driven from a real terminal: srun runs as the leader
//! of a session whose controlling terminal is a pseudo-terminal this test holds the other
//! side of, as a user's shell would. Task 0 gets a terminal of its own with srun's window
//! size; keys (Ctrl-C included) reach it raw; a new window size follows; srun's terminal
//! comes back as it was; without a terminal srun says what Slurm's says.

mod harness;
mod support;

use harness::Cluster;
use support::terminal::{OnTerminal, cooked};

/// srun with `args` on a new terminal of `rows` x `cols`.
fn on_terminal(c: &Cluster, args: &[&str], rows: u16, cols: u16) -> OnTerminal {
    let mut cmd = c.cmd("srun");
    cmd.args(args);
    OnTerminal::start(cmd, rows, cols)
}

#[test]
fn the_task_gets_a_terminal_of_srun_s_size_and_its_exit_code_comes_back() {
    let c = Cluster::new(2, 4096, 2);
    let t = on_terminal(
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
    let mut t = on_terminal(
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
    let mut t = on_terminal(&c, &["--pty", "bash", "--norc", "-i"], 24, 80);
    t.send(b"echo in-$((6*7))\r");
    t.expect("in-42");
    t.send(b"\x04");
    let (code, shown, slave) = t.finish();
    assert_eq!(code, 0, "{shown:?}");
    assert!(cooked(&slave));
}

#[test]
fn a_prompt_shows_before_its_line_ends() {
    // --pty is unbuffered (srun's opt.c): a shell's prompt has no newline.
    let c = Cluster::new(2, 4096, 2);
    let mut t = on_terminal(&c, &["--pty", "bash", "--norc", "-i"], 24, 80);
    // (quoted apart: the terminal's echo of this line is not the prompt)
    t.send(b"PS1='pro''mpt> '\r");
    t.expect("prompt> ");
    t.send(b"exit 4\r");
    let (code, shown, _) = t.finish();
    assert_eq!(code, 4, "{shown:?}");
}

#[test]
fn output_options_are_refused_with_a_terminal() {
    let c = Cluster::new(2, 4096, 2);
    for opt in ["--output=x", "--error=y", "--input=none"] {
        let r = c.run("srun", &["--pty", opt, "true"]);
        assert_eq!(
            (r.code, r.stdout.as_str(), r.stderr.as_str()),
            (
                1,
                "",
                "srun: error: --error/--input/--output are incompatible with --pty\n"
            ),
            "{opt}"
        );
    }
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
