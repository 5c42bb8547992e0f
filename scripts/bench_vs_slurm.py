#!/usr/bin/env python3
"""Helper of scripts/bench-vs-slurm.sh: drives one Slurm implementation through a fixed
scenario and records command latencies and job throughput, then compares two such records.

  bench_vs_slurm.py run --bin DIR --work DIR --out FILE.json [--runs N] [--queue Q] [--jobs J]
  bench_vs_slurm.py report SLURM.json BAI.json --md FILE.md

`run` executes DIR/sbatch, DIR/squeue, ... with its own environment (the caller sets
SLURM_CONF or BAI_SLURM_*), so the same code measures real Slurm and bai-slurm. Each
latency is the wall time of one command from spawn to exit, as a user or a workflow
engine sees it. Python's spawn overhead is in both sides' numbers alike.
"""

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

WARMUP = 3  # runs before the measured ones: page cache, first connections


class Cluster:
    def __init__(self, bindir: Path, work: Path):
        self.bin = bindir
        self.work = work

    def run(self, cmd, *args, check=True):
        """Runs one command; returns (seconds, stdout)."""
        argv = [str(self.bin / cmd), *args]
        t0 = time.perf_counter()
        r = subprocess.run(argv, cwd=self.work, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        dt = time.perf_counter() - t0
        if check and r.returncode != 0:
            sys.exit(f"bench: {' '.join(argv)} failed (rc {r.returncode}): {r.stderr.strip()}")
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
                sys.exit(f"bench: timed out after {timeout} s waiting for {what}")
            time.sleep(interval)

    def wait_empty(self, timeout=300):
        self.wait("an empty queue", lambda: not self.queue_ids(), timeout)

    def acct_states(self, ids):
        out = self.run("sacct", "-X", "-n", "-P", "-o", "jobid,state", "-j", ",".join(ids))[1]
        return dict(line.split("|", 1) for line in out.splitlines() if "|" in line)


def stats(samples):
    s = sorted(samples)
    return {
        "samples": samples,
        "median": statistics.median(s),
        # nearest-rank p90
        "p90": s[max(0, math.ceil(0.9 * len(s)) - 1)],
    }


def latency(c, results, label, cmd, args_for, runs):
    """Runs `cmd args_for(i)` WARMUP + runs times; records the measured runs."""
    samples, rows = [], 0
    for i in range(WARMUP + runs):
        dt, out = c.run(cmd, *args_for(i))
        if i >= WARMUP:
            samples.append(dt)
            rows = len(out.splitlines())
    results[label] = {"unit": "ms", "rows": rows, **stats([x * 1000 for x in samples])}
    r = results[label]
    print(f"  {label:<44} median {r['median']:8.1f} ms  p90 {r['p90']:8.1f} ms  ({rows} lines)",
          flush=True)


def scenario(c, runs, queue, jobs, repeats):
    res = {}
    c.wait_empty(10)

    # --- an empty queue (and an empty accounting history)
    q0 = "Q=0"
    latency(c, res, f"squeue ({q0})", "squeue", lambda i: [], runs)
    latency(c, res, f"sinfo ({q0})", "sinfo", lambda i: [], runs)
    latency(c, res, f"sacct ({q0})", "sacct", lambda i: [], runs)
    latency(c, res, f"sacct -X -P -o jobid,state ({q0})", "sacct",
            lambda i: ["-X", "-P", "-o", "jobid,state"], runs)

    # --- submission latency: these jobs run (and finish) at once
    latency(c, res, "sbatch --wrap true", "sbatch", lambda i: ["--wrap", "true"], runs)
    c.wait_empty()

    # --- throughput: from the first submission until sacct shows all J jobs COMPLETED
    # (what a workflow engine waits for). sacct is polled 0.05 s after its previous answer,
    # so the figure is late by up to 0.05 s plus one sacct run (~0.1 s on Slurm).
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        ids = [c.submit("--wrap", "true")[1] for _ in range(jobs)]

        def all_done():
            st = c.acct_states(ids)
            bad = [s for s in st.values() if s not in ("PENDING", "RUNNING", "COMPLETED",
                                                        "COMPLETING")]
            if bad:
                sys.exit(f"bench: throughput jobs ended {bad[:3]}, not COMPLETED")
            return len(st) == jobs and all(s == "COMPLETED" for s in st.values())

        c.wait(f"{jobs} jobs COMPLETED in sacct", all_done, 600, interval=0.05)
        samples.append(time.perf_counter() - t0)
        print(f"  {jobs} x sbatch --wrap true -> all COMPLETED: {samples[-1]:.2f} s", flush=True)
        c.wait_empty()
    res[f"{jobs} jobs: submit -> all COMPLETED"] = {"unit": "s", "rows": jobs, **stats(samples)}

    # --- a queue of Q pending jobs. A job taking both CPUs runs (sleeping) so that the Q
    # jobs stay PENDING (Resources/Priority) yet are eligible: sacct shows them, unlike
    # held (--hold) or --begin jobs, which both Slurm and bai-slurm hide from sacct's
    # default view, so sacct would have nothing of the queue to render.
    _, blocker = c.submit("-c", "2", "-J", "blocker", "--wrap", "sleep 3600")
    c.wait("the blocking job to run",
           lambda: c.run("squeue", "-h", "-j", blocker, "-o", "%T")[1].strip() == "RUNNING", 60)
    t0 = time.perf_counter()
    pending = [c.submit("--wrap", "true")[1] for _ in range(queue)]
    total = time.perf_counter() - t0
    res[f"{queue} x sbatch, sequential (total)"] = {"unit": "s", "rows": queue,
                                                   **stats([total])}
    print(f"  {queue} sequential submissions: {total:.2f} s", flush=True)
    # Slurm's accounting lags its controller: slurmctld sends new jobs to slurmdbd in the
    # background, so sacct may not list the queue yet. Wait until it does (bai-slurm: at
    # once), so the sacct rows below render the same jobs on both sides.
    t0 = time.perf_counter()
    c.wait(f"sacct to list the {queue} pending jobs",
           lambda: list(c.acct_states(pending).values()).count("PENDING") == queue, 300)
    lag = time.perf_counter() - t0
    res["_notes"] = [f"sacct listed all {queue} pending jobs {lag:.2f} s after the last "
                     "submission"]
    print(f"  {res['_notes'][0]}", flush=True)
    qn = f"Q={queue}"
    latency(c, res, f"squeue ({qn})", "squeue", lambda i: [], runs)
    latency(c, res, f"sinfo ({qn})", "sinfo", lambda i: [], runs)
    latency(c, res, f"sacct ({qn})", "sacct", lambda i: [], runs)
    latency(c, res, f"sacct -X -P -o jobid,state ({qn})", "sacct",
            lambda i: ["-X", "-P", "-o", "jobid,state"], runs)
    mid = pending[len(pending) // 2]
    latency(c, res, f"scontrol show job ID ({qn})", "scontrol", lambda i: ["show", "job", mid],
            runs)
    # a different pending job each time, from the end of the queue
    victims = pending[::-1]
    latency(c, res, f"scancel PENDING_ID ({qn})", "scancel", lambda i: [victims[i]], runs)

    # --- clean up: cancel the rest, wait for the queue to drain
    c.run("scancel", blocker, *pending[: queue - (WARMUP + runs)])
    c.wait_empty()
    return res


def cmd_run(a):
    if a.queue < WARMUP + a.runs:
        sys.exit(f"bench: --queue must be at least {WARMUP + a.runs} (scancel cancels that many)")
    c = Cluster(Path(a.bin), Path(a.work))
    version = c.run("sbatch", "--version")[1].strip()
    print(f"== {a.name}: {version} ({a.bin})", flush=True)
    t0 = time.perf_counter()
    res = scenario(c, a.runs, a.queue, a.jobs, a.repeats)
    Path(a.out).write_text(json.dumps({
        "name": a.name, "version": version, "runs": a.runs, "queue": a.queue,
        "jobs": a.jobs, "repeats": a.repeats, "seconds": time.perf_counter() - t0,
        "results": res,
    }, indent=1))


def fmt(v, unit):
    return f"{v:.1f} ms" if unit == "ms" else f"{v:.2f} s"


def p90(r):
    """p90 of a latency; a dash for a single sample (the 200-submission total)."""
    return fmt(r["p90"], r["unit"]) if len(r["samples"]) > 1 else "-"


def cmd_report(a):
    s = json.loads(Path(a.slurm).read_text())
    b = json.loads(Path(a.bai).read_text())
    head = ("command", "Slurm median", "Slurm p90", "bai-slurm median", "bai-slurm p90",
            "ratio", "lines (Slurm/bai)")
    rows = []
    for label, r in s["results"].items():
        o = b["results"].get(label)
        if o is None or label.startswith("_"):
            continue
        rows.append((label, fmt(r["median"], r["unit"]), p90(r), fmt(o["median"], o["unit"]), p90(o),
                     f"{o['median'] / r['median']:.2f}", f"{r['rows']}/{o['rows']}"))
    widths = [max(len(x[i]) for x in [head, *rows]) for i in range(len(head))]

    def line(x):
        return "  ".join(v.ljust(w) if i == 0 else v.rjust(w)
                         for i, (v, w) in enumerate(zip(x, widths)))

    print(line(head))
    for r in rows:
        print(line(r))
    md = [
        "# bai-slurm (local backend) vs real Slurm, same machine",
        "",
        a.header.strip() if a.header else "",
        "",
        f"Latencies: median and p90 of {s['runs']} runs after {WARMUP} warm-up runs, wall time "
        "of the command from spawn to exit. Ratio = bai-slurm median / Slurm median "
        "(< 1: bai-slurm is faster). Throughput rows are seconds for the whole batch "
        f"(the {s['jobs']}-job row: median of {s['repeats']}).",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|",
    ]
    md += ["| " + " | ".join([f"`{r[0]}`", *r[1:]]) + " |" for r in rows]
    notes = [f"{x['name']}: {n}" for x in (s, b) for n in x["results"].get("_notes", [])]
    if notes:
        print()
        print("\n".join(notes))
        md += ["", *[f"- {n}" for n in notes]]
    Path(a.md).write_text("\n".join(md) + "\n")
    print(f"\nwritten: {a.md}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--name", required=True)
    r.add_argument("--bin", required=True, help="directory holding sbatch, squeue, ...")
    r.add_argument("--work", required=True, help="working directory (job output files)")
    r.add_argument("--out", required=True)
    r.add_argument("--runs", type=int, default=30)
    r.add_argument("--queue", type=int, default=200)
    r.add_argument("--jobs", type=int, default=50)
    r.add_argument("--repeats", type=int, default=3)
    r.set_defaults(func=cmd_run)
    q = sub.add_parser("report")
    q.add_argument("slurm")
    q.add_argument("bai")
    q.add_argument("--md", required=True)
    q.add_argument("--header", default="")
    q.set_defaults(func=cmd_report)
    a = p.parse_args()
    a.func(a)


if __name__ == "__main__":
    main()
