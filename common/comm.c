/* common/comm.c - the communicator's public calls: NULL is one process, anything else goes
 * through its vtable (mpi/comm_mpi.c). */
#include "gsvd_config.h"

#include "common/comm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/log.h"

int gsvd_comm_rank(const gsvd_comm *c)
{
    return c ? c->rank : 0;
}

int gsvd_comm_size(const gsvd_comm *c)
{
    return c ? c->size : 1;
}

int gsvd_comm_local_rank(const gsvd_comm *c)
{
    return c ? c->local_rank : 0;
}

int gsvd_comm_local_size(const gsvd_comm *c)
{
    return c ? c->local_size : 1;
}

/* A launcher variable as a number from 0 to 2^20; -1 when unset or not such a number. */
static int env_small(const char *name)
{
    const char *s = getenv(name);
    char *end = NULL;
    long v;
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    return errno || *end || v > (1L << 20) ? -1 : (int)v;
}

int gsvd_comm_env_local(int *local_rank, int *local_size)
{
    static const char *const vars[][2] = {
        {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
        {"SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"},
        {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
        {"PMIX_LOCAL_RANK", "PMIX_LOCAL_SIZE"},
    };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        int r = env_small(vars[i][0]), n = env_small(vars[i][1]);
        if (r < 0)
            continue;
        *local_rank = r;
        *local_size = n > r ? n : r + 1;
        return 1;
    }
    return 0;
}

int gsvd_comm_sum_f64(gsvd_comm *c, double *buf, size_t n)
{
    return c && n ? c->ops->sum_f64(c, buf, n) : GSVD_OK;
}

int gsvd_comm_sum_u64(gsvd_comm *c, uint64_t *buf, size_t n)
{
    return c && n ? c->ops->sum_u64(c, buf, n) : GSVD_OK;
}

int gsvd_comm_max_f64(gsvd_comm *c, double *buf, size_t n)
{
    return c && n ? c->ops->max_f64(c, buf, n) : GSVD_OK;
}

int gsvd_comm_bcast(gsvd_comm *c, void *buf, size_t bytes, int root)
{
    return c && bytes ? c->ops->bcast(c, buf, bytes, root) : GSVD_OK;
}

int gsvd_comm_gather(gsvd_comm *c, const void *send, size_t bytes, void *recv, size_t root_cap,
                     int root)
{
    if (c)
        return c->ops->gather(c, send, bytes, recv, root_cap, root);
    if (bytes > root_cap)
        return GSVD_EINVAL;
    if (bytes)
        memcpy(recv, send, bytes);
    return GSVD_OK;
}

int gsvd_comm_barrier(gsvd_comm *c)
{
    return c ? c->ops->barrier(c) : GSVD_OK;
}

int gsvd_comm_send(gsvd_comm *c, const void *buf, size_t bytes, int peer)
{
    return c ? c->ops->send(c, buf, bytes, peer) : GSVD_EINVAL;
}

int gsvd_comm_recv(gsvd_comm *c, void *buf, size_t bytes, int peer)
{
    return c ? c->ops->recv(c, buf, bytes, peer) : GSVD_EINVAL;
}

void gsvd_comm_abort(gsvd_comm *c, int code)
{
    if (c)
        c->ops->abort(c, code);
}

int gsvd_comm_agree(gsvd_comm *c, int rc, int *failed_rank)
{
    int who = rc < 0 ? 0 : -1, code = rc < 0 ? rc : GSVD_OK, e;
    if (c) {
        e = c->ops->agree(c, rc < 0 ? rc : GSVD_OK, &who, &code);
        if (e < 0)
            return e;
    }
    if (failed_rank)
        *failed_rank = who;
    if (who < 0)
        return rc > 0 ? rc : GSVD_OK;
    if (c)
        c->failure_agreed = 1;
    if (who == gsvd_comm_rank(c))
        return rc < 0 ? rc : code;
    if (rc == GSVD_EPEER) /* it said so at the agreement that failed */
        return GSVD_EPEER;
    gsvd_log_error("rank %d of %d failed (%s); stopping rank %d", who, gsvd_comm_size(c),
                   gsvd_strerror(code), gsvd_comm_rank(c));
    return GSVD_EPEER;
}

void gsvd_comm_destroy(gsvd_comm *c)
{
    if (c)
        c->ops->destroy(c);
}
