/* mpi/comm_mpi.h - the MPI communicator (common/comm.h) over MPI_COMM_WORLD, for lib/.
 * Built only with GENSVD_MPI (Open MPI from Debian: libopenmpi-dev, openmpi-bin).
 * Thread safety: open and destroy from the main thread; collectives from one thread at a
 * time (MPI_THREAD_FUNNELED). */
#ifndef GSVD_MPI_COMM_MPI_H
#define GSVD_MPI_COMM_MPI_H
#include "common/comm.h"
GSVD_EXTERN_C_BEGIN

/* 1 when this process was started by an MPI launcher (mpirun, mpiexec, srun with PMI/PMIx):
 * the environment names a rank.  A plain `gensvd ...` stays a single process and never
 * initialises MPI. */
int gsvd_comm_mpi_launched(void);

/* MPI_Init_thread (funneled) and a communicator over MPI_COMM_WORLD with errors returned, not
 * fatal.  Returns GSVD_OK and *out (free with gsvd_comm_destroy, which finalizes MPI), or
 * GSVD_EIO (logged) when MPI cannot start, or GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_comm_mpi_open(int *argc, char ***argv, gsvd_comm **out);

/* The MPI library's version line, for `gensvd --version` (static storage). */
const char *gsvd_comm_mpi_version(void);

GSVD_EXTERN_C_END
#endif /* GSVD_MPI_COMM_MPI_H */
