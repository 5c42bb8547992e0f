srun -N2 --ntasks-per-node=1 -l hostname (alice)
