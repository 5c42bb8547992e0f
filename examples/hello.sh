#!/bin/bash
#SBATCH --job-name=hello
#SBATCH --ntasks=1
#SBATCH --time=5
#SBATCH --output=hello-%j.out

echo "Hello from job $SLURM_JOB_ID ($SLURM_JOB_NAME) on $SLURMD_NODENAME"
echo "Working in $PWD, submitted from $SLURM_SUBMIT_DIR"
sleep 3
echo "Done."
