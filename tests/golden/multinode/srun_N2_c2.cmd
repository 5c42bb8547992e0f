srun -N2 -n2 -c 2 -l bash -c env\ \|\ grep\ \^SLURM\ \|\ sort (alice)
