srun --mpi=pmi2 -N2 -n2 -l bash -c env\ \|\ grep\ -E\ \"\^\(PMI\|SLURM_MPI\|OMPI\|PMIX\|MPI\)\"\ \|\ sort (alice)
