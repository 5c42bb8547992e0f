srun -N2 -n4 -l bash -c echo\ \$SLURMD_NODENAME\ \$SLURM_NODEID\ \$SLURM_LOCALID\ \$SLURM_GTIDS (alice)
