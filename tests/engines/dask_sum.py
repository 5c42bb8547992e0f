"""dask-jobqueue on bai-slurm: a SLURMCluster with one worker job computes a sum; closing
the cluster cancels the job. Prints one JSON line with what happened; tests/engines.rs
checks it against sacct. Usage: python dask_sum.py WORKDIR"""

import json
import os
import sys
import time

from dask.distributed import Client
from dask_jobqueue import SLURMCluster


def where():
    return os.environ.get("SLURM_JOB_ID"), os.getpid()


def main():
    workdir = sys.argv[1]
    started = time.time()
    cluster = SLURMCluster(
        cores=1,
        processes=1,
        memory="1GB",
        walltime="00:10:00",
        job_name="dask-worker",
        log_directory=os.path.join(workdir, "dask-logs"),
        python=sys.executable,
        scheduler_options={"host": "127.0.0.1"},
        death_timeout=60,
    )
    script = cluster.job_script()
    cluster.scale(jobs=1)
    client = Client(cluster)
    client.wait_for_workers(1, timeout=120)
    job_ids = [job.job_id for job in cluster.workers.values()]
    total = client.submit(sum, range(1001)).result(timeout=60)
    worker_job, worker_pid = client.submit(where, pure=False).result(timeout=60)
    client.close()
    cluster.close()
    print(
        json.dumps(
            {
                "job_ids": job_ids,
                "sum": total,
                "worker_slurm_job_id": worker_job,
                "worker_pid": worker_pid,
                "driver_pid": os.getpid(),
                "seconds": round(time.time() - started, 1),
                "script": script,
            }
        )
    )


if __name__ == "__main__":
    main()
