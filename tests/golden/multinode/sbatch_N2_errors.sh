#!/bin/bash
#SBATCH -N 2 -n 4
#SBATCH -o mn_errs.out
echo "== -N3"
srun -N 3 hostname
echo rc=$?
echo "== -w node03"
srun -w node03 hostname
echo rc=$?
echo "== -n 2 -N 2 -w node02"
srun -n 2 -N 2 -w node02 hostname
echo rc=$?
echo "== signal only"
srun -l -n 4 bash -c 'if [ $SLURM_PROCID = 2 ]; then kill -9 $$; fi; sleep 2'
echo rc=$?
echo "== io patterns"
srun -n 4 -o 'io-%j-%s-%t-%n-%N.txt' bash -c 'echo $SLURM_PROCID'
echo rc=$?
ls io-*
