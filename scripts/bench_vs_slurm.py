#!/usr/bin/env python3
"""Helper of scripts/bench-vs-slurm.sh: drives real Slurm and bai-slurm through the same
scenario, side by side, and writes the comparison.

  bench_vs_slurm.py --slurm BIN WORK ENVFILE --bai BIN WORK ENVFILE --md FILE.md
                    [--header TEXT] [--runs N] [--queue Q[,Q...]] [--jobs J] [--repeats R]

Each side runs BIN/sbatch, BIN/squeue, ... in WORK with exactly the environment in ENVFILE
(KEY=VALUE lines), so the same code measures both. A latency is the wall time of one
command from spawn to exit, as a user or a workflow engine sees it (Python's spawn overhead
is in both sides' numbers alike). Latency runs alternate between the two sides (Slurm,
bai-slurm, Slurm, ...), so that load from other processes on the machine hits both alike
instead of skewing the ratio; the long job-throughput runs take turns as a whole.
"""

import argparse
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

WARMUP = 3  # runs before the measured ones: page cache, first connections


class Cluster:
    def __init__(self, name, bindir, work, envfile):
        self.name = name
        self.bin = Path(bindir)
        self.work = Path(work)
        self.env = dict(line.split("=", 1) for line in Path(envfile).read_text().splitlines()
                        if "=" in line)
        self.res = {}  # label -> {"unit", "rows", "samples", "median", "p90"}
        self.notes = []

    def run(self, cmd, *args, check=True):
        """Runs one command; returns (seconds, stdout)."""
        argv = [str(self.bin / cmd), *args]
        t0 = time.perf_counter()
        r = subprocess.run(argv, cwd=self.work, env=self.env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        dt = time.perf_counter() - t0
        if check and r.returncode != 0:
            sys.exit(f"bench: {self.name}: {' '.join(argv)} failed (rc {r.returncode}): "
                     f"{r.stderr.strip()}")
        return dt, r.stdout

    def submit(self, *args):
        dt, out = self.run("sbatch", "--parsable", *args)
        return dt, out.strip().split(";")[0]

    def queue_ids(self):
        return self.run("squeue", "-h", "-o", "%i")[1].split()

    def wait(self, what, cond, timeout, interval=0.2):
        end = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > end:
                sys.exit(f"bench: {self.name}: timed out after {timeout} s waiting for {what}")
            time.sleep(interval)

    def wait_empty(self, timeout=300):
        self.wait("an empty queue", lambda: not self.queue_ids(), timeout)

    def acct_states(self, ids):
        out = self.run("sacct", "-X", "-n", "-P", "-o", "jobid,state", "-j", ",".join(ids))[1]
        return dict(line.split("|", 1) for line in out.splitlines() if "|" in line)

    def record(self, label, unit, rows, samples):
        s = sorted(samples)
        self.res[label] = {
            "unit": unit, "rows": rows, "samples": samples,
            "median": statistics.median(s),
            "p90": s[max(0, math.ceil(0.9 * len(s)) - 1)],  # nearest rank
        }


def latency(cs, label, cmd, args_for, runs):
    """Runs `cmd args_for(i)` WARMUP + runs times on each side, alternating sides."""
    samples = {c.name: [] for c in cs}
    rows = {}
    for i in range(WARMUP + runs):
        for c in cs:
            dt, out = c.run(cmd, *args_for(c, i))
            if i >= WARMUP:
                samples[c.name].append(dt * 1000)
                rows[c.name] = len(out.splitlines())
    line = f"  {label:<38}"
    for c in cs:
        c.record(label, "ms", rows[c.name], samples[c.name])
        line += f" {c.name} {c.res[label]['median']:7.1f} ms"
    print(line, flush=True)


def throughput(c, jobs, repeats):
    """From the first of J submissions until sacct shows all J COMPLETED (what a workflow
    engine waits for). sacct is polled 0.05 s after its previous answer, so the figure is
    late by up to 0.05 s plus one sacct run (~0.1 s on Slurm)."""
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        ids = [c.submit("--wrap", "true")[1] for _ in range(jobs)]

        def all_done():
            st = c.acct_states(ids)
            bad = [s for s in st.values()
                   if s not in ("PENDING", "RUNNING", "COMPLETING", "COMPLETED")]
            if bad:
                sys.exit(f"bench: {c.name}: throughput jobs ended {bad[:3]}, not COMPLETED")
            return len(st) == jobs and all(s == "COMPLETED" for s in st.values())

        c.wait(f"{jobs} jobs COMPLETED in sacct", all_done, 900, interval=0.05)
        samples.append(time.perf_counter() - t0)
        print(f"  {c.name}: {jobs} x sbatch --wrap true -> all COMPLETED in "
              f"{samples[-1]:.2f} s", flush=True)
        c.wait_empty()
    c.record(f"{jobs} jobs: submit -> all COMPLETED", "s", jobs, samples)


def scenario(cs, runs, queues, jobs, repeats):
    for c in cs:
        c.wait_empty(10)

    # --- an empty queue (and an empty accounting history)
    q0 = "Q=0"
    latency(cs, f"squeue ({q0})", "squeue", lambda c, i: [], runs)
    latency(cs, f"sinfo ({q0})", "sinfo", lambda c, i: [], runs)
    latency(cs, f"sacct ({q0})", "sacct", lambda c, i: [], runs)
    latency(cs, f"sacct -X -P -o jobid,state ({q0})", "sacct",
            lambda c, i: ["-X", "-P", "-o", "jobid,state"], runs)

    # --- submission latency: these jobs run (and finish) at once
    latency(cs, "sbatch --wrap true", "sbatch", lambda c, i: ["--wrap", "true"], runs)
    for c in cs:
        c.wait_empty()

    # --- job throughput, one side at a time (each side's run takes the machine alone)
    for c in cs:
        throughput(c, jobs, repeats)

    # --- queues of Q pending jobs, growing stage by stage (--queue 2000,10000). A job
    # taking both CPUs runs (sleeping) so that the Q jobs stay PENDING (Resources/Priority)
    # yet are eligible: sacct shows them, unlike held (--hold) or --begin jobs, which both
    # Slurm and bai-slurm hide from sacct's default view, so sacct would have nothing of
    # the queue to render.
    blocker, pending = {}, {c.name: [] for c in cs}
    for c in cs:
        blocker[c.name] = c.submit("-c", "2", "-J", "blocker", "--wrap", "sleep 36000")[1]
        c.wait("the blocking job to run", lambda: c.run(
            "squeue", "-h", "-j", blocker[c.name], "-o", "%T")[1].strip() == "RUNNING", 60)
    for queue in queues:
        before = len(pending[cs[0].name])
        total = {c.name: 0.0 for c in cs}
        # sequential submissions up to Q on each side, alternating (the total per side)
        for _ in range(queue - before):
            for c in cs:
                dt, jid = c.submit("--wrap", "true")
                pending[c.name].append(jid)
                total[c.name] += dt
        label = (f"{queue} x sbatch, sequential (total)" if before == 0
                 else f"{queue - before} x sbatch, Q={before} to {queue} (total)")
        for c in cs:
            c.record(label, "s", queue - before, [total[c.name]])
        print(f"  {label}: " + ", ".join(f"{c.name} {total[c.name]:.2f} s" for c in cs),
              flush=True)
        # Slurm's accounting lags its controller: slurmctld sends new jobs to slurmdbd in
        # the background, so sacct may not list the queue yet. Wait until it does
        # (bai-slurm: at once), so that the sacct rows below render the same jobs on both
        # sides.
        for c in cs:
            t0 = time.perf_counter()
            c.wait(f"sacct to list the {queue} pending jobs",
                   lambda: list(c.acct_states(pending[c.name]).values()).count("PENDING")
                   == queue, 900)
            c.notes.append(f"sacct listed all {queue} pending jobs "
                           f"{time.perf_counter() - t0:.2f} s after the last submission")
            print(f"  {c.name}: {c.notes[-1]}", flush=True)

        qn = f"Q={queue}"
        latency(cs, f"squeue ({qn})", "squeue", lambda c, i: [], runs)
        latency(cs, f"sinfo ({qn})", "sinfo", lambda c, i: [], runs)
        latency(cs, f"sacct ({qn})", "sacct", lambda c, i: [], runs)
        latency(cs, f"sacct -X -P -o jobid,state ({qn})", "sacct",
                lambda c, i: ["-X", "-P", "-o", "jobid,state"], runs)
        mid = {c.name: pending[c.name][queue // 2] for c in cs}
        latency(cs, f"scontrol show job ID ({qn})", "scontrol",
                lambda c, i: ["show", "job", mid[c.name]], runs)
        latency(cs, f"squeue -j ID ({qn})", "squeue", lambda c, i: ["-j", mid[c.name]], runs)
        latency(cs, f"sacct -j ID ({qn})", "sacct", lambda c, i: ["-j", mid[c.name]], runs)
        latency(cs, f"sbatch --hold ({qn})", "sbatch",
                lambda c, i: ["--hold", "-J", "benchheld", "--wrap", "true"], runs)
        for c in cs:
            c.run("scancel", "-n", "benchheld")
        # a different pending job each time, from the end of the queue; the queue is
        # topped up again by the next stage
        latency(cs, f"scancel PENDING_ID ({qn})", "scancel",
                lambda c, i: [pending[c.name][-1 - i]], runs)
        for c in cs:
            del pending[c.name][-(WARMUP + runs):]

    # --- clean up: cancel everything, wait for the queues to drain
    for c in cs:
        c.run("scancel", "-u", c.env.get("USER", "root"))
    for c in cs:
        c.wait_empty(900)


def fmt(v, unit):
    return f"{v:.1f} ms" if unit == "ms" else f"{v:.2f} s"


def p90(r):
    """p90 of a latency; a dash for a single sample (the Q-submission total)."""
    return fmt(r["p90"], r["unit"]) if len(r["samples"]) > 1 else "-"


def ratio(x):
    return f"{x:.2f}" if x >= 0.1 else f"{x:.3f}"  # 0.004, not 0.00


def report(a, slurm, bai):
    head = ("command", "Slurm median", "Slurm p90", "bai-slurm median", "bai-slurm p90",
            "ratio", "lines (Slurm/bai)")
    rows = []
    for label, r in slurm.res.items():
        o = bai.res[label]
        rows.append((label, fmt(r["median"], r["unit"]), p90(r), fmt(o["median"], o["unit"]),
                     p90(o), ratio(o["median"] / r["median"]), f"{r['rows']}/{o['rows']}"))
    widths = [max(len(x[i]) for x in [head, *rows]) for i in range(len(head))]

    def line(x):
        return "  ".join(v.ljust(w) if i == 0 else v.rjust(w)
                         for i, (v, w) in enumerate(zip(x, widths)))

    notes = [f"{c.name}: {n}" for c in (slurm, bai) for n in c.notes]
    print()
    print("\n".join([line(head), *map(line, rows), "", *notes]))
    md = [
        "# bai-slurm (local backend) vs real Slurm, same machine",
        "",
        a.header.strip(),
        "",
        f"Latencies: median and p90 of {a.runs} runs after {WARMUP} warm-up runs, wall time "
        "of the command from spawn to exit, runs alternating between the two. Ratio = "
        "bai-slurm median / Slurm median (< 1: bai-slurm is faster). Throughput rows are "
        f"seconds for the whole batch (the {a.jobs}-job row: median of {a.repeats}). Lines: "
        "what the command printed (Slurm has two partitions, bai-slurm's local backend one).",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|",
        *("| " + " | ".join([f"`{r[0]}`", *r[1:]]) + " |" for r in rows),
        "",
        *(f"- {n}" for n in notes),
    ]
    Path(a.md).write_text("\n".join(md) + "\n")
    print(f"\nwritten: {a.md}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--slurm", nargs=3, required=True, metavar=("BIN", "WORK", "ENVFILE"))
    p.add_argument("--bai", nargs=3, required=True, metavar=("BIN", "WORK", "ENVFILE"))
    p.add_argument("--md", required=True, help="markdown file to write the table to")
    p.add_argument("--header", default="", help="paragraph above the table")
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--queue", default="200",
                   help="queue sizes to measure at, ascending, comma-separated (2000,10000)")
    p.add_argument("--jobs", type=int, default=50)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    queues = [int(q) for q in a.queue.split(",")]
    if queues != sorted(queues) or queues[0] < WARMUP + a.runs:
        sys.exit(f"bench: --queue: ascending sizes, the first at least {WARMUP + a.runs} "
                 "(scancel cancels that many)")
    slurm = Cluster("Slurm", *a.slurm)
    bai = Cluster("bai-slurm", *a.bai)
    for c in (slurm, bai):
        print(f"{c.name}: {c.run('sbatch', '--version')[1].strip()} ({c.bin})", flush=True)
    t0 = time.perf_counter()
    scenario([slurm, bai], a.runs, queues, a.jobs, a.repeats)
    print(f"scenario took {time.perf_counter() - t0:.0f} s")
    report(a, slurm, bai)


if __name__ == "__main__":
    main()
