srun -N2 -n4 -l bash -c case\ \$SLURM_PROCID\ in\ 1\)\ exit\ 7\;\;\ 2\)\ kill\ -9\ \$\$\;\;\ 3\)\ exit\ 7\;\;\ esac (alice)
