/* mpi/comm_mpi.c - common/comm.h over MPI: the only file that includes mpi.h.  MPI counts are
 * int, so large buffers go in pieces of at most 2^27 elements (1 GiB of float64); the pieces
 * are the same on every rank, so the collectives match. */
#include "gsvd_config.h"

#include "mpi/comm_mpi.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"

#define PIECE ((size_t)1 << 27)
#define TAG_GATHER 7001

struct comm_mpi {
    struct gsvd_comm base;
    MPI_Comm node; /* the ranks of this node */
};

static int mpi_failed(const char *what, int code)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(code, msg, &len);
    gsvd_log_error("MPI %s failed: %s", what, msg);
    return GSVD_EIO;
}

static int reduce(double *dbuf, uint64_t *ubuf, size_t n, MPI_Op op)
{
    for (size_t at = 0; at < n; at += PIECE) {
        int cnt = (int)(n - at < PIECE ? n - at : PIECE), e;
        if (dbuf)
            e = MPI_Allreduce(MPI_IN_PLACE, dbuf + at, cnt, MPI_DOUBLE, op, MPI_COMM_WORLD);
        else
            e = MPI_Allreduce(MPI_IN_PLACE, ubuf + at, cnt, MPI_UINT64_T, op, MPI_COMM_WORLD);
        if (e != MPI_SUCCESS)
            return mpi_failed("allreduce", e);
    }
    return GSVD_OK;
}

static int mpi_sum_f64(gsvd_comm *c, double *buf, size_t n)
{
    (void)c;
    return reduce(buf, NULL, n, MPI_SUM);
}

static int mpi_sum_u64(gsvd_comm *c, uint64_t *buf, size_t n)
{
    (void)c;
    return reduce(NULL, buf, n, MPI_SUM);
}

static int mpi_max_f64(gsvd_comm *c, double *buf, size_t n)
{
    (void)c;
    return reduce(buf, NULL, n, MPI_MAX);
}

static int mpi_agree(gsvd_comm *c, int rc, int *failed_rank, int *failed_rc)
{
    /* the lowest rank that failed on its own; else (every failure a GSVD_EPEER of an
     * earlier agreement) the lowest that failed: ranks size.. stand for those */
    int who = rc >= 0 ? INT_MAX : rc == GSVD_EPEER ? c->size + c->rank : c->rank, code = rc, e;
    e = MPI_Allreduce(MPI_IN_PLACE, &who, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (e != MPI_SUCCESS)
        return mpi_failed("allreduce (status)", e);
    if (who == INT_MAX) {
        *failed_rank = -1;
        *failed_rc = GSVD_OK;
        return GSVD_OK;
    }
    if (who >= c->size)
        who -= c->size;
    e = MPI_Bcast(&code, 1, MPI_INT, who, MPI_COMM_WORLD);
    if (e != MPI_SUCCESS)
        return mpi_failed("broadcast (status)", e);
    *failed_rank = who;
    *failed_rc = code;
    return GSVD_OK;
}

static int mpi_bcast(gsvd_comm *c, void *buf, size_t bytes, int root)
{
    (void)c;
    for (size_t at = 0; at < bytes; at += PIECE) {
        int cnt = (int)(bytes - at < PIECE ? bytes - at : PIECE);
        int e = MPI_Bcast((char *)buf + at, cnt, MPI_BYTE, root, MPI_COMM_WORLD);
        if (e != MPI_SUCCESS)
            return mpi_failed("broadcast", e);
    }
    return GSVD_OK;
}

static int mpi_gather(gsvd_comm *c, const void *send, size_t bytes, void *recv, size_t root_cap,
                      int root)
{
    uint64_t mine = bytes, *all = NULL, total = 0, off = 0;
    int rc = GSVD_OK, e, fits = 1;

    if (c->rank == root) {
        all = gsvd_malloc((size_t)c->size * sizeof *all);
        fits = all != NULL;
    }
    e = MPI_Gather(&mine, 1, MPI_UINT64_T, fits ? all : &mine, 1, MPI_UINT64_T, root,
                   MPI_COMM_WORLD);
    if (e != MPI_SUCCESS) {
        rc = mpi_failed("gather (sizes)", e);
        goto out;
    }
    if (c->rank == root && all) {
        for (int r = 0; r < c->size; r++)
            total += all[r];
        fits = total <= root_cap;
        if (!fits)
            gsvd_log_error("MPI gather: %llu bytes for a buffer of %zu (internal error)",
                           (unsigned long long)total, root_cap);
    }
    /* everyone learns whether the root can take the data before anything is sent */
    e = MPI_Bcast(&fits, 1, MPI_INT, root, MPI_COMM_WORLD);
    if (e != MPI_SUCCESS) {
        rc = mpi_failed("broadcast", e);
        goto out;
    }
    if (!fits) {
        rc = c->rank == root && !all ? GSVD_ENOMEM : GSVD_EINTERNAL;
        goto out;
    }
    if (c->rank != root) {
        for (size_t at = 0; at < bytes; at += PIECE) {
            int cnt = (int)(bytes - at < PIECE ? bytes - at : PIECE);
            e = MPI_Send((const char *)send + at, cnt, MPI_BYTE, root, TAG_GATHER, MPI_COMM_WORLD);
            if (e != MPI_SUCCESS) {
                rc = mpi_failed("send", e);
                goto out;
            }
        }
        goto out;
    }
    for (int r = 0; r < c->size; r++) {
        for (uint64_t at = 0; at < all[r]; at += PIECE) {
            int cnt = (int)(all[r] - at < PIECE ? all[r] - at : PIECE);
            if (r == root) {
                memcpy((char *)recv + off + at, (const char *)send + at, (size_t)cnt);
                continue;
            }
            e = MPI_Recv((char *)recv + off + at, cnt, MPI_BYTE, r, TAG_GATHER, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            if (e != MPI_SUCCESS && rc == GSVD_OK)
                rc = mpi_failed("receive", e);
        }
        off += all[r];
    }
out:
    gsvd_free(all);
    return rc;
}

static int mpi_barrier(gsvd_comm *c)
{
    int e;
    (void)c;
    e = MPI_Barrier(MPI_COMM_WORLD);
    return e == MPI_SUCCESS ? GSVD_OK : mpi_failed("barrier", e);
}

#define TAG_P2P 7002

static int mpi_send(gsvd_comm *c, const void *buf, size_t bytes, int peer)
{
    (void)c;
    for (size_t at = 0; at < bytes || at == 0; at += PIECE) {
        int cnt = (int)(bytes - at < PIECE ? bytes - at : PIECE);
        int e = MPI_Send((const char *)buf + at, cnt, MPI_BYTE, peer, TAG_P2P, MPI_COMM_WORLD);
        if (e != MPI_SUCCESS)
            return mpi_failed("send", e);
        if (bytes == 0)
            break;
    }
    return GSVD_OK;
}

static int mpi_recv(gsvd_comm *c, void *buf, size_t bytes, int peer)
{
    (void)c;
    for (size_t at = 0; at < bytes || at == 0; at += PIECE) {
        int cnt = (int)(bytes - at < PIECE ? bytes - at : PIECE);
        int e = MPI_Recv((char *)buf + at, cnt, MPI_BYTE, peer, TAG_P2P, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        if (e != MPI_SUCCESS)
            return mpi_failed("receive", e);
        if (bytes == 0)
            break;
    }
    return GSVD_OK;
}

static void mpi_abort(gsvd_comm *c, int code)
{
    (void)c;
    MPI_Abort(MPI_COMM_WORLD, code);
}

static void mpi_destroy(gsvd_comm *c)
{
    struct comm_mpi *m = (struct comm_mpi *)c;
    if (m->node != MPI_COMM_NULL)
        MPI_Comm_free(&m->node);
    gsvd_free(m);
    MPI_Finalize();
}

static const struct gsvd_comm_ops comm_mpi_ops = {
    .name = "mpi",
    .sum_f64 = mpi_sum_f64,
    .sum_u64 = mpi_sum_u64,
    .max_f64 = mpi_max_f64,
    .agree = mpi_agree,
    .bcast = mpi_bcast,
    .gather = mpi_gather,
    .barrier = mpi_barrier,
    .destroy = mpi_destroy,
    .send = mpi_send,
    .recv = mpi_recv,
    .abort = mpi_abort,
};

int gsvd_comm_mpi_launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
                                       NULL};
    for (size_t i = 0; vars[i]; i++)
        if (getenv(vars[i]))
            return 1;
    return 0;
}

int gsvd_comm_mpi_open(int *argc, char ***argv, gsvd_comm **out)
{
    struct comm_mpi *m;
    int provided = 0, e;

    *out = NULL;
    e = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    if (e != MPI_SUCCESS) {
        gsvd_log_error("MPI_Init_thread failed (code %d)", e);
        return GSVD_EIO;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    m = gsvd_calloc(1, sizeof *m);
    if (!m) {
        MPI_Finalize();
        return GSVD_ENOMEM;
    }
    m->base.ops = &comm_mpi_ops;
    m->node = MPI_COMM_NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &m->base.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->base.size);
    m->base.local_rank = 0;
    m->base.local_size = 1;
    /* the node's processes from the library; where it cannot split them, from the launcher */
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m->base.rank, MPI_INFO_NULL,
                            &m->node) == MPI_SUCCESS) {
        MPI_Comm_rank(m->node, &m->base.local_rank);
        MPI_Comm_size(m->node, &m->base.local_size);
    } else {
        m->node = MPI_COMM_NULL;
        if (!gsvd_comm_env_local(&m->base.local_rank, &m->base.local_size))
            gsvd_log_warn("neither MPI nor the launcher says which processes share this node: "
                          "taking local rank 0 of 1 (threads, GPU)");
    }
    if (provided < MPI_THREAD_FUNNELED)
        gsvd_log_warn("the MPI library offers thread level %d, below MPI_THREAD_FUNNELED; "
                      "gensvd calls MPI from its main thread only",
                      provided);
    *out = &m->base;
    return GSVD_OK;
}

const char *gsvd_comm_mpi_version(void)
{
    static char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    for (int i = 0; i < len; i++)
        if (v[i] == '\n' || v[i] == ',') {
            v[i] = '\0';
            break;
        }
    return v;
}
