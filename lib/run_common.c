/* lib/run_common.c - what the runs of lib/run_*.c share: the backend the context names, the
 * write of a result to the run's destination, and the distributed run's communicator
 * (gensvd_mpi_init). */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <stdlib.h>

#include "common/comm.h"
#include "common/err.h"
#include "common/log.h"
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

void gensvd_mpi_finalize(void)
{
    gsvd_comm_destroy(world);
    world = NULL;
}

int lib_backend(const gensvd_ctx *ctx, const struct gsvd_backend_params *p, gsvd_backend **out)
{
    struct gsvd_backend_params bp = {0};
    if (p)
        bp = *p;
    bp.n_threads = lib_threads(ctx);
    bp.local_rank = world ? (size_t)gsvd_comm_local_rank(world) : 0;
    return gsvd_backend_open(lib_device(ctx), &bp, out);
}

int lib_run_write(struct lib_run *run, const gsvd_result *r, int input_format)
{
    struct gsvd_writer_params wp;
    int rc = GSVD_OK;

    if (!run->dest || gsvd_comm_rank(world) != 0)
        return GSVD_OK;
    wp = lib_dest_params(run->dest, input_format);
    GSVD_TRY(gsvd_result_check_shards(r, &wp));
    GSVD_TRY(gsvd_result_write(r, run->dest->url, run->dest->force, &wp, lib_threads(run->ctx)));
out:
    return rc;
}
