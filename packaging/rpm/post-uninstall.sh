# bai-slurm: on erase ($1 = 0; not on upgrade), remove the command links that point at it.
if [ "$1" = 0 ]; then
    for c in sbatch squeue scancel srun salloc sinfo sacct scontrol; do
        l=/usr/bin/$c
        if [ -L "$l" ] && [ "$(readlink "$l")" = bai-slurm ]; then
            rm -f "$l"
        fi
    done
fi
