"""Parsl on bai-slurm: a HighThroughputExecutor whose one block is a Slurm job
(SlurmProvider with a SingleNodeLauncher: no srun inside the job) runs two apps, the second
consuming the first's result; cleanup cancels the block. Prints one JSON line with what
happened; tests/engines.rs checks it against sacct. Usage: python parsl_sum.py WORKDIR"""

import json
import os
import sys
import time

import parsl
from parsl import python_app
from parsl.config import Config
from parsl.executors import HighThroughputExecutor
from parsl.launchers import SingleNodeLauncher
from parsl.providers import SlurmProvider


@python_app
def total(n):
    import os

    return sum(range(n)), os.environ.get("SLURM_JOB_ID")


@python_app
def double(pair):
    import os

    value, _ = pair
    return 2 * value, os.environ.get("SLURM_JOB_ID")


def main():
    workdir = sys.argv[1]
    started = time.time()
    bindir = os.path.dirname(sys.executable)
    config = Config(
        executors=[
            HighThroughputExecutor(
                label="slurm_htex",
                address="127.0.0.1",
                max_workers_per_node=1,
                provider=SlurmProvider(
                    nodes_per_block=1,
                    init_blocks=1,
                    min_blocks=0,
                    max_blocks=1,
                    walltime="00:10:00",
                    exclusive=False,
                    launcher=SingleNodeLauncher(),
                    worker_init=f"export PATH={bindir}:$PATH",
                    cmd_timeout=60,
                ),
            )
        ],
        run_dir=os.path.join(workdir, "runinfo"),
        strategy="none",
    )
    dfk = parsl.load(config)
    first = total(1001)
    value, job_a = double(first).result(timeout=180)
    _, job_b = first.result()
    executor = dfk.executors["slurm_htex"]
    blocks = dict(executor.blocks_to_job_id)
    dfk.cleanup()
    print(
        json.dumps(
            {
                "job_ids": sorted(set(blocks.values())),
                "result": value,
                "app_slurm_job_ids": [job_b, job_a],
                "seconds": round(time.time() - started, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
