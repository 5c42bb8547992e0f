/* An MPI program for tests/multinode_steps.rs: every rank says where its Hydra proxy put
 * it (the proxy sets MPIR_CVAR_CH3_INTERFACE_HOSTNAME to its node) and the sum of all
 * ranks + 1 (an Allreduce, so the ranks really talk to each other). */
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
    const char *node = getenv("MPIR_CVAR_CH3_INTERFACE_HOSTNAME");
    printf("rank %d of %d on %s: sum %d\n", rank, size, node ? node : "?", sum);
    MPI_Finalize();
    return 0;
}
