//! glibc's `strsignal` texts (Linux, English), which sacct's JSON shows for a job or step
//! ended by a signal. A table rather than a libc call: the output must not depend on the
//! locale or the C library of the machine.

/// `strsignal(sig)` as glibc 2.36 on x86-64 Linux returns it.
pub fn strsignal(sig: i32) -> String {
    const NAMES: [&str; 32] = [
        "",
        "Hangup",
        "Interrupt",
        "Quit",
        "Illegal instruction",
        "Trace/breakpoint trap",
        "Aborted",
        "Bus error",
        "Floating point exception",
        "Killed",
        "User defined signal 1",
        "Segmentation fault",
        "User defined signal 2",
        "Broken pipe",
        "Alarm clock",
        "Terminated",
        "Stack fault",
        "Child exited",
        "Continued",
        "Stopped (signal)",
        "Stopped",
        "Stopped (tty input)",
        "Stopped (tty output)",
        "Urgent I/O condition",
        "CPU time limit exceeded",
        "File size limit exceeded",
        "Virtual timer expired",
        "Profiling timer expired",
        "Window changed",
        "I/O possible",
        "Power failure",
        "Bad system call",
    ];
    match sig {
        1..=31 => NAMES[sig as usize].to_string(),
        34..=64 => format!("Real-time signal {}", sig - 34),
        _ => format!("Unknown signal {sig}"),
    }
}

#[cfg(test)]
mod tests {
    use super::strsignal;

    #[test]
    fn glibc_texts() {
        assert_eq!(strsignal(15), "Terminated");
        assert_eq!(strsignal(9), "Killed");
        assert_eq!(strsignal(0), "Unknown signal 0");
        assert_eq!(strsignal(33), "Unknown signal 33");
        assert_eq!(strsignal(34), "Real-time signal 0");
        assert_eq!(strsignal(64), "Real-time signal 30");
        assert_eq!(strsignal(65), "Unknown signal 65");
    }
}
