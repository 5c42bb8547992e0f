srun -N2 -n4 -l bash -c env\ \|\ grep\ \^SLURM\ \|\ sort (alice)
