fn main() {
    // Slurm's commands are C programs: a closed pipe (`squeue | head`) ends them quietly.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::exit(bai_slurm::commands::main_with(
        std::env::args_os().collect(),
    ));
}
