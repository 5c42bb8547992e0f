srun -N2 -n4 -K bash -c if\ \[\ \$SLURM_PROCID\ =\ 3\ \]\;\ then\ exit\ 5\;\ fi\;\ sleep\ 20 (alice)
