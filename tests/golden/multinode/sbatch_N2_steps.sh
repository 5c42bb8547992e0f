#!/bin/bash
#SBATCH -N 2 -n 4
#SBATCH --job-name=mn_env
#SBATCH -o mn_env.out
env | grep ^SLURM | sort > mn_batchenv.txt
srun -l -n 4 -N 2 bash -c 'env | grep ^SLURM | sort' > mn_stepenv.txt
echo "== -w node02"
srun -l -n 1 -w node02 bash -c 'echo $SLURMD_NODENAME $SLURM_STEP_NODELIST $SLURM_NODEID $SLURM_STEP_ID'
echo "== -x node01"
srun -l -n 2 -x node01 bash -c 'echo $SLURMD_NODENAME $SLURM_STEP_NODELIST $SLURM_NODEID $SLURM_STEP_TASKS_PER_NODE'
echo "== -N1"
srun -l -N 1 bash -c 'echo $SLURMD_NODENAME $SLURM_STEP_NODELIST $SLURM_NTASKS'
echo "== default"
srun -l bash -c 'echo $SLURMD_NODENAME $SLURM_STEP_NODELIST $SLURM_NTASKS $SLURM_STEP_TASKS_PER_NODE'
echo "== tpn1"
srun -l --ntasks-per-node=1 bash -c 'echo $SLURMD_NODENAME $SLURM_NTASKS $SLURM_STEP_TASKS_PER_NODE'
echo "== exits"
srun -l -n 4 bash -c 'case $SLURM_PROCID in 0) exit 3;; 3) exit 7;; esac'
echo rc=$?
echo "== cyclic"
srun -l -n 4 -m cyclic bash -c 'echo $SLURMD_NODENAME $SLURM_DISTRIBUTION'
sacct -j $SLURM_JOB_ID -P -o JobID,State,ExitCode,NNodes,NTasks,NodeList 2>&1
