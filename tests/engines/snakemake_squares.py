"""Snakemake on bai-slurm: snakemake-executor-plugin-slurm runs the two rules of
snakemake_squares.smk as two batch jobs (sbatch --wrap, each rule under srun in its job by
the slurm-jobstep executor), the second consuming the first's output; the plugin follows
them with sacct. Prints one JSON line with what happened; tests/engines.rs checks it
against sacct. Usage: python snakemake_squares.py WORKDIR"""

import json
import os
import re
import shutil
import subprocess
import sys
import time


def read_rows(path):
    with open(path) as f:
        return [line.split() for line in f.read().splitlines()]


def main():
    workdir = os.path.join(sys.argv[1], "snakemake")
    os.makedirs(workdir, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    snakefile = os.path.join(workdir, "Snakefile")
    shutil.copy(os.path.join(here, "snakemake_squares.smk"), snakefile)
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        snakefile,
        "--directory",
        workdir,
        "--executor",
        "slurm",
        "--jobs",
        "2",
        "--default-resources",
        "runtime=5",
        "mem_mb=100",
        "--slurm-status-command",
        "sacct",
        # Poll soon and often: the plugin's defaults (40 s, then 10 s more after each
        # check that found nothing finished) are made for a busy cluster.
        "--slurm-init-seconds-before-status-checks",
        "1",
        "--seconds-between-status-checks",
        "1",
        "--slurm-keep-successful-logs",
        "--verbose",
        "--nocolor",
    ]
    started = time.time()
    run = subprocess.run(
        command, cwd=workdir, stdin=subprocess.DEVNULL, capture_output=True, text=True
    )
    seconds = round(time.time() - started, 1)
    log = run.stdout + run.stderr
    # What snakemake said goes to stderr: tests/engines.rs shows it when a check fails.
    sys.stderr.write(log)
    if run.returncode != 0:
        sys.exit(f"snakemake failed ({run.returncode})")
    run_uuid = re.search(r"SLURM run ID: (\S+)", log).group(1)
    sbatch_calls = re.findall(r"^sbatch call: (.*)$", log, re.M)
    submitted = re.findall(r"has been submitted with SLURM jobid (\d+)", log)
    # One line per status check (with --verbose): the command and its failed attempts.
    status_checks = [
        {"command": command, "failed_attempts": int(failed)}
        for command, failed in re.findall(
            r"Status query timing \(cycle\): command=(\w+), attempts=\d+, "
            r"failed_attempts=(\d+)",
            log,
        )
    ]
    squares = read_rows(os.path.join(workdir, "squares.txt"))
    total = dict(
        (row[0], row[1:]) for row in read_rows(os.path.join(workdir, "total.txt"))
    )
    print(
        json.dumps(
            {
                "run_uuid": run_uuid,
                "submitted_job_ids": submitted,
                "sbatch_calls": sbatch_calls,
                "status_checks": status_checks,
                "squares_job": squares[0][1],
                "squares_step": squares[0][2],
                "squares": [int(row[0]) for row in squares[1:]],
                "total_job": total["job"][0],
                "total_step": total["job"][1],
                "total_from_job": total["from_job"][0],
                "total_count": int(total["count"][0]),
                "total_sum": int(total["sum"][0]),
                "workdir": workdir,
                "seconds": seconds,
            }
        )
    )


if __name__ == "__main__":
    main()
