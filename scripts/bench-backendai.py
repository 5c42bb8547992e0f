#!/usr/bin/env python3
"""Large arrays on a real Backend.AI: bai-slurm's rate against the manager's own.

  (. ci/backendai/env.sh && scripts/bench-backendai.py --bin target/release --tasks 1000)
  (. ci/backendai26/env.sh && scripts/bench-backendai.py --bin target/release --tasks 1000)

Reads the stack's endpoint and the normal user's keypair from BACKEND_* (the env.sh files
of ci/backendai and ci/backendai26 set them) and measures, on that manager:

1. the manager's own create rate: --raw sessions created by this script directly (HMAC-signed
   POST /session, the very body `bai-slurm translate` shows for the job, each with its own
   name), 4 at a time as bai-slurm sends array tasks, then deleted;
2. `sbatch --array` of the same job with as many tasks, from the same empty queue: its rate
   against (1); cancelled again;
3. `sbatch --array=0-(T-1)`: wall time, sessions per second, the requests it sent
   (BAI_SLURM_REQUEST_LOG); then (1) again with those T sessions pending, since the manager
   slows down as its queue grows: the array's rate lies between the two manager-alone rates
   (at an empty queue and at T pending);
4. `squeue` over those T pending jobs (requests: one GraphQL page per 1,000 sessions);
5. `scancel` of the whole array;
6. `sacct -j` of the cancelled array twice: the second answers finished jobs from the cache.

Every job is submitted with --begin a day ahead, so nothing starts: a two-CPU test machine
measures the manager's bookkeeping, not a thousand containers. Prints a markdown table.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ci" / "backendai26"))
import bai_req  # noqa: E402  (the stacks' signing helper; either release's copy signs alike)

CONCURRENCY = 4  # bai-slurm's ARRAY_CONCURRENCY (src/backend/backendai/submission.rs)


class Bench:
    def __init__(self, bindir):
        self.bin = Path(bindir).resolve()
        self.work = Path(tempfile.mkdtemp(prefix="bench-bai-"))
        self.log = self.work / "requests.log"
        self.env = dict(os.environ)
        self.env.update({
            "XDG_STATE_HOME": str(self.work / "state"),
            "XDG_CONFIG_HOME": str(self.work / "config"),
            "BAI_SLURM_REQUEST_LOG": str(self.log),
        })
        self.endpoint = os.environ["BACKEND_ENDPOINT"]
        self.ak = os.environ["BACKEND_ACCESS_KEY"]
        self.sk = os.environ["BACKEND_SECRET_KEY"]
        self.rows = []

    def run(self, cmd, *args):
        """Runs one command; returns (seconds, stdout, requests it sent)."""
        self.log.write_text("")
        t0 = time.perf_counter()
        r = subprocess.run([str(self.bin / "bai-slurm"), cmd, *args], cwd=self.work,
                           env=self.env, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True)
        dt = time.perf_counter() - t0
        if r.returncode != 0:
            sys.exit(f"bench-backendai: {cmd} {' '.join(args)} failed (rc {r.returncode}): "
                     f"{r.stderr.strip()}")
        return dt, r.stdout, self.log.read_text().splitlines()

    def row(self, what, seconds, requests, note=""):
        self.rows.append((what, seconds, requests, note))
        print(f"  {what}: {seconds:.2f} s, {requests} requests {note}", flush=True)

    def job_args(self, name):
        return ["--begin=now+1days", "-J", name, "-o", "/dev/null",
                f"--container-image={os.environ['BAI_IMAGE']}"]

    def raw_rate(self, n, queue):
        """Creates n sessions directly, CONCURRENCY at a time; returns sessions/s."""
        _, out, _ = self.run("translate", *self.job_args("rawbench"), "--wrap", "true")
        req = json.loads(out)["requests"][0]
        version = self.version()
        names = [f"rawbench-{os.getpid()}-{i}" for i in range(n)]
        todo = list(names)
        lock = threading.Lock()
        failures = []

        def worker():
            while True:
                with lock:
                    if not todo:
                        return
                    name = todo.pop()
                body = dict(req["body"])
                body["name" if "name" in body else "clientSessionToken"] = name
                st, txt = bai_req.call(self.endpoint, self.ak, self.sk, req["method"],
                                       req["path"], body, version)
                if st >= 300:
                    with lock:
                        failures.append(f"{st} {txt[:200]}")

        t0 = time.perf_counter()
        threads = [threading.Thread(target=worker) for _ in range(CONCURRENCY)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        dt = time.perf_counter() - t0
        if failures:
            sys.exit(f"bench-backendai: raw creates failed: {failures[:3]}")
        self.row(f"manager alone: {n} creates, {CONCURRENCY} at a time, {queue}", dt, n,
                 f"({n / dt:.1f} sessions/s)")
        for name in names:
            bai_req.call(self.endpoint, self.ak, self.sk, "DELETE",
                         f"/session/{name}?forced=true", None, version)
        return n / dt

    def version(self):
        st, txt = bai_req.call(self.endpoint, self.ak, self.sk, "GET", "/", None, "v4.20181215")
        return json.loads(txt)["version"]

    def array(self, tasks):
        """Submits a T-task array; returns (job id, seconds, requests sent)."""
        dt, out, reqs = self.run("sbatch", "--parsable", f"--array=0-{tasks - 1}",
                                 *self.job_args("arraybench"), "--wrap", "true")
        if len(reqs) > tasks + 2:
            sys.exit(f"bench-backendai: sbatch sent {len(reqs)} requests for {tasks} tasks")
        return out.strip().split(";")[0], dt, len(reqs)

    def cancel(self, job, tasks):
        dt, _, reqs = self.run("scancel", job)
        self.row(f"scancel {job} ({tasks} tasks)", dt, len(reqs))
        deadline = time.monotonic() + 600
        while True:
            _, out, _ = self.run("squeue", "-h", "-j", job, "-t", "PD,R,CG", "-o", "%i")
            if not out.strip():
                return
            if time.monotonic() > deadline:
                sys.exit("bench-backendai: the array was still queued 10 min after scancel")
            time.sleep(2)

    def scenario(self, tasks, raw):
        empty = self.raw_rate(raw, "an empty queue")
        job, dt, n = self.array(raw)
        self.row(f"sbatch --array=0-{raw - 1}", dt, n,
                 f"({raw / dt:.1f} sessions/s, {raw / dt / empty:.2f} of the manager's rate)")
        self.cancel(job, raw)
        job, dt, n = self.array(tasks)
        rate = tasks / dt
        self.row(f"sbatch --array=0-{tasks - 1}", dt, n, f"({rate:.1f} sessions/s)")
        loaded = self.raw_rate(raw, f"{tasks} pending")
        self.row("the array against the manager alone over the same queue", dt, n,
                 f"({rate:.1f} sessions/s; the manager alone: {empty:.1f} at an empty queue, "
                 f"{loaded:.1f} with {tasks} pending)")
        dt, out, reqs = self.run("squeue", "-h", "-r", "-j", job, "-o", "%i %T")
        pending = sum(1 for line in out.splitlines() if line.endswith("PENDING"))
        if pending != tasks:
            sys.exit(f"bench-backendai: squeue shows {pending} of {tasks} tasks pending")
        self.row(f"squeue -r -j {job} ({tasks} rows)", dt, len(reqs))
        dt, out, reqs = self.run("squeue", "-h")
        self.row("squeue (the whole queue, folded)", dt, len(reqs))
        self.cancel(job, tasks)
        for n in (1, 2):
            dt, out, reqs = self.run("sacct", "-n", "-X", "-j", job, "-o", "JobID,State")
            cancelled = sum(1 for line in out.splitlines() if "CANCELLED" in line)
            self.row(f"sacct -j {job} ({'first' if n == 1 else 'again'}; {cancelled} "
                     "CANCELLED rows)", dt, len(reqs))

    def table(self, title):
        lines = [f"### {title}", "", "| step | wall time | requests | |", "|---|---|---|---|"]
        for what, s, r, note in self.rows:
            lines.append(f"| {what} | {s:.2f} s | {r} | {note} |")
        return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default="target/release", help="where bai-slurm is")
    p.add_argument("--tasks", type=int, default=1000)
    p.add_argument("--raw", type=int, default=100, help="sessions the manager-alone run makes")
    p.add_argument("--title", default=os.environ.get("BACKEND_ENDPOINT", ""))
    a = p.parse_args()
    b = Bench(a.bin)
    b.scenario(a.tasks, a.raw)
    print()
    print(b.table(a.title))


if __name__ == "__main__":
    main()
