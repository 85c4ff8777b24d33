/* lib/mpi.c - the distributed run's communicator (gensvd_mpi_init and its companions of
 * include/gensvd.h), which the runs and the destination checks read through lib_world. */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <stdlib.h>

#include "common/comm.h"
#include "common/err.h"
#if GSVD_HAVE_MPI
#include "mpi/comm_mpi.h"
#endif

/* Set once by gensvd_mpi_init (from the main thread, before any run: MPI is process-wide). */
static gsvd_comm *world;

struct gsvd_comm *lib_world(void)
{
    return world;
}

int gensvd_mpi_init(int *argc, char ***argv)
{
#if GSVD_HAVE_MPI
    if (world || !gsvd_comm_mpi_launched())
        return GENSVD_OK;
    if (lib_global_init() < 0)
        return GENSVD_EINTERNAL;
    return gsvd_comm_mpi_open(argc, argv, &world);
#else
    (void)argc;
    (void)argv;
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK")
               ? GENSVD_ENOTBUILT
               : GENSVD_OK;
#endif
}

int gensvd_mpi_rank(void)
{
    return world ? gsvd_comm_rank(world) : 0;
}

int gensvd_mpi_size(void)
{
    return world ? gsvd_comm_size(world) : 1;
}

int gensvd_mpi_local_size(void)
{
    return gsvd_comm_local_size(world); /* 1 without a communicator */
}

void gensvd_mpi_fail(int status)
{
    if (world && status != 0 && !world->failure_agreed)
        gsvd_comm_abort(world, status);
}

void gensvd_mpi_finalize(void)
{
    gsvd_comm_destroy(world);
    world = NULL;
}
