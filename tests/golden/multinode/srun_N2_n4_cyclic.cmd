srun -N2 -n4 -l -m cyclic bash -c echo\ \$SLURMD_NODENAME\ \$SLURM_NODEID\ \$SLURM_LOCALID\ \$SLURM_GTIDS (alice)
