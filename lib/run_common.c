/* lib/run_common.c - what the runs of lib/run_*.c share: the backend the context names and the
 * write of a result to the run's destination (the distributed run's communicator is
 * lib/mpi.c's). */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include "common/comm.h"
#include "common/err.h"
#include "common/log.h"

int lib_backend(const gensvd_ctx *ctx, const struct gsvd_backend_params *p, gsvd_backend **out)
{
    struct gsvd_backend_params bp = {0};
    if (p)
        bp = *p;
    bp.n_threads = lib_threads(ctx);
    bp.local_rank = lib_world() ? (size_t)gsvd_comm_local_rank(lib_world()) : 0;
    return gsvd_backend_open(lib_device(ctx), &bp, out);
}

int lib_run_write(struct lib_run *run, const gsvd_result *r, int input_format)
{
    struct gsvd_writer_params wp;
    int rc = GSVD_OK;

    if (!run->dest || gsvd_comm_rank(lib_world()) != 0)
        return GSVD_OK;
    wp = lib_dest_params(run->dest, input_format);
    GSVD_TRY(gsvd_result_check_shards(r, &wp));
    GSVD_TRY(gsvd_result_write(r, run->dest->url, run->dest->force, &wp, lib_threads(run->ctx)));
out:
    return rc;
}

int lib_run_finish(struct lib_run *run, int rc, enum gensvd_analysis an, gsvd_result **r)
{
    if (rc == GSVD_OK)
        rc = lib_run_write(run, *r, run->src->input_format);
    if (lib_world()) /* rank 0's write (and every rank's result): every rank learns how it went */
        rc = gsvd_comm_agree(lib_world(), rc, NULL);
    if (rc < 0)
        return rc;
    rc = lib_result_new(run->ctx, an, *r, run->src->input_format, &run->out);
    *r = NULL; /* adopted, also on failure */
    return rc;
}
