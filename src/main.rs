fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // Slurm's commands are C programs: a closed pipe (`squeue | head`) ends them quietly.
    // bai-slurm's own long-lived processes (launchers, step servers, the queue runner) write
    // to sockets and pipes whose other end may go away (an srun killed mid-step, a step
    // server that could not start): for them that is an error to handle, not a death. The
    // programs they start get the default back (the standard library resets it on spawn).
    let daemon = args.get(1).and_then(|a| a.to_str()).is_some_and(|a| {
        matches!(
            a,
            "__launch" | "__bai-launch" | "__stepd" | "__local-runner"
        )
    });
    // SAFETY: setting the disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(
            libc::SIGPIPE,
            if daemon { libc::SIG_IGN } else { libc::SIG_DFL },
        );
    }
    std::process::exit(bai_slurm::commands::main_with(args));
}
