# The workflow of tests/engines/snakemake_squares.py: `total` consumes what `squares`
# wrote. Each rule records the Slurm job and step it ran in (SLURM_JOB_ID, SLURM_STEP_ID:
# the slurm-jobstep executor runs the rule under srun inside the batch job).
import os


def where():
    return f"{os.environ.get('SLURM_JOB_ID')} {os.environ.get('SLURM_STEP_ID')}"


rule all:
    input:
        "total.txt",


rule squares:
    output:
        "squares.txt",
    run:
        with open(output[0], "w") as f:
            print("job", where(), file=f)
            for i in range(1, 11):
                print(i * i, file=f)


rule total:
    input:
        "squares.txt",
    output:
        "total.txt",
    run:
        lines = open(input[0]).read().splitlines()
        first_job = lines[0].split()[1]
        numbers = [int(x) for x in lines[1:]]
        with open(output[0], "w") as f:
            print("job", where(), file=f)
            print("from_job", first_job, file=f)
            print("count", len(numbers), file=f)
            print("sum", sum(numbers), file=f)
