/* An MPI program for tests/multinode_steps.rs: every rank says on which node it runs and
 * the sum of all ranks + 1 (an Allreduce, so the ranks really talk to each other). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = rank + 1;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* Under mpiexec, Hydra's proxy names its node; under srun, the step server does. */
    const char *node = getenv("MPIR_CVAR_CH3_INTERFACE_HOSTNAME");
    if (!node)
        node = getenv("SLURMD_NODENAME");
    printf("rank %d of %d on %s: sum %d\n", rank, size, node ? node : "?", sum);
    MPI_Finalize();
    return 0;
}
