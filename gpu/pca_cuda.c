/* gpu/pca_cuda.c - the CUDA backend's PCA device table (struct gsvd_pca_device_ops,
 * analysis/pca/pca_device.h): randomized passes Y = Z^T Z X, projection, the exact Gram, and exact
 * sums under a bound; the backend's core is gpu/backend_cuda.c.
 *
 * Data path of a block: the scan owns the block only during the call, so its rows (and their
 * centre/scale/missing values) are copied into the next of two pinned staging slots, uploaded
 * on the copy stream, and standardised into the current group of rows on the compute stream,
 * which waits for that upload only.  The call then returns and the host decodes the next block
 * while the device copies and computes; a slot is refilled only after its previous upload has
 * finished (host waits on `uploaded`) and its device copy is overwritten only after the kernels
 * have read it (copy stream waits on `consumed`).  Everything on the compute stream runs in
 * order, so one group buffer is enough.
 *
 * Rows are grouped into fixed-size groups counted from the first row of the pass (size from the
 * sample count only), as the CPU backend does, so the result does not depend on block sizes. */
#include "gsvd_config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "analysis/scan/gblock_std.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/xsum.h"
#include "gpu/backend_cuda_internal.h"
#include "gpu/cuda_check.h"
#include "gpu/kernels.h"
#include "gpu/staging.h"

#define GRAM_F32_MAX_N 16384            /* above this the Gram is accumulated with Dsyrk */
#define GROUP_BYTES ((size_t)256 << 20) /* float32 bytes of one group of standardised rows */
#define GROUP_MIN 256
#define GROUP_MAX 8192 /* <= GSVD_KB_GRID_Y_MAX: a group is one standardise launch at most */

/* ---- buffers ------------------------------------------------------------------------------- */

/* Device buffer of at least `bytes`; the old contents are not kept. */
static int dev_reserve(void **p, size_t *cap, size_t bytes)
{
    int rc = GSVD_OK;
    if (bytes <= *cap && *p)
        return GSVD_OK;
    cudaFree(*p);
    *p = NULL;
    *cap = 0;
    GSVD_CUDA_TRY(cudaMalloc(p, bytes ? bytes : 1));
    *cap = bytes;
out:
    return rc;
}

/* Host buffers a copy on the compute stream reads are freed only after this: every copy the
 * backend makes goes on the compute stream (cudaMemcpyAsync), never on the legacy default
 * stream, which the compute stream (cudaStreamNonBlocking) would not wait for, and a copy
 * from pageable memory may still be reading it when the call returns. */
static void host_done(struct backend_cuda *b)
{
    if (b->compute)
        (void)gsvd_cuda_tolerate(cudaStreamSynchronize(b->compute));
}

/* Rows per group: about GROUP_BYTES of float32; depends on the sample count only. */
static size_t group_rows(size_t n)
{
    size_t g = GROUP_BYTES / (4 * (n ? n : 1));
    return g < GROUP_MIN ? GROUP_MIN : g > GROUP_MAX ? GROUP_MAX : g;
}

/* Group buffers for n samples (kept while n does not change). */
static int ensure_group(struct backend_cuda *b, size_t n)
{
    int rc = GSVD_OK;
    size_t group = group_rows(n), cells;

    if (n > 0x7fffffff) {
        gsvd_log_error("%zu samples: cuBLAS takes at most 2^31 - 1", n);
        return GSVD_EINVAL;
    }
    b->filled = 0;
    if (b->z && b->n == n)
        return GSVD_OK;
    if (gsvd_mul_size(group, n, &cells) < 0)
        return GSVD_EINVAL;
    cudaFree(b->z);
    cudaFree(b->hist);
    cudaFree(b->rs);
    b->z = NULL;
    b->hist = NULL;
    b->rs = NULL;
    GSVD_CUDA_TRY(cudaMalloc((void **)&b->z, cells * sizeof *b->z));
    GSVD_CUDA_TRY(cudaMalloc((void **)&b->hist, group * GSVD_STD_BINS * sizeof *b->hist));
    GSVD_CUDA_TRY(cudaMalloc((void **)&b->rs, group * sizeof *b->rs));
    gsvd_cuda_timer_memory(&b->timer);
    b->n = n;
    b->group = group;
out:
    if (rc < 0)
        b->n = 0;
    return rc;
}

/* ---- upload and standardise ---------------------------------------------------------------- */

static size_t row_bytes(const struct gsvd_gblock *g)
{
    return g->i8 ? g->n_cols : g->p2 ? gsvd_std_p2_row_bytes(g->n_cols) : g->n_cols * 8;
}

/* Stage rows [r0, r0 + rows) of g and their per-row values in the next slot, upload them on the
 * copy stream and make the compute stream wait for the copy.  Fills the input fields of *a
 * (device addresses) and returns the slot in *used; the caller records used->consumed after
 * the last kernel that reads the slot. */
static int upload_rows(struct backend_cuda *b, const struct gsvd_gblock *g, size_t r0, size_t rows,
                       struct gsvd_kb_std_args *a, struct gsvd_cuda_slot **used)
{
    int rc = GSVD_OK;
    struct gsvd_cuda_slot *s = &b->slot[b->next];
    size_t rb = row_bytes(g), data = rows * rb, bytes;
    const unsigned char *src = g->i8   ? (const unsigned char *)g->i8
                               : g->p2 ? g->p2
                                       : (const unsigned char *)g->f64;
    float *prm;

    b->next ^= 1;
    data = (data + 15) & ~(size_t)15;
    bytes = data + 3 * rows * sizeof(float);
    GSVD_TRY(gsvd_cuda_slot_acquire(s, bytes, &b->xfer));
    memcpy(s->host, src + r0 * rb, rows * rb);
    prm = (float *)(void *)(s->host + data);
    memcpy(prm, g->center + r0, rows * sizeof *prm);
    memcpy(prm + rows, g->scale + r0, rows * sizeof *prm);
    if (g->missing)
        memcpy(prm + 2 * rows, g->missing + r0, rows * sizeof *prm);
    else
        memset(prm + 2 * rows, 0, rows * sizeof *prm);
    GSVD_TRY(gsvd_cuda_slot_upload(s, bytes, b->copy, b->compute, &b->xfer));
    memset(a, 0, sizeof *a);
    if (g->i8)
        a->i8 = (const int8_t *)s->dev;
    else if (g->p2)
        a->p2 = s->dev;
    else
        a->f64 = (const double *)(void *)s->dev;
    a->center = (const float *)(void *)(s->dev + data);
    a->scale = a->center + rows;
    a->missing = a->center + 2 * rows;
    a->n = g->n_cols;
    a->rows = rows;
    *used = s;
out:
    return rc;
}

/* Standardise rows [r0, r0 + rows) of g into the open group (rows <= group - filled); with
 * `sums`, add their sums of squares, in row order, to the device accumulator. */
static int standardise(struct backend_cuda *b, const struct gsvd_gblock *g, size_t r0, size_t rows,
                       int sums)
{
    int rc = GSVD_OK;
    struct gsvd_kb_std_args a;
    struct gsvd_kb_rowsq_args q;
    struct gsvd_cuda_slot *s = NULL;

    GSVD_TRY(upload_rows(b, g, r0, rows, &a, &s));
    gsvd_cuda_timer_start(&b->timer, b->compute); /* after the wait for the upload */
    a.z = b->z + b->filled * b->n;
    if (sums && !g->f64) {
        a.hist = b->hist + b->filled * GSVD_STD_BINS;
        GSVD_CUDA_TRY(
            cudaMemsetAsync(a.hist, 0, rows * GSVD_STD_BINS * sizeof *a.hist, b->compute));
    }
    GSVD_TRY(gsvd_cuda_standardise(b->compute, &a));
    if (sums) {
        q.hist = a.hist;
        q.z = a.z;
        q.center = a.center;
        q.scale = a.scale;
        q.missing = a.missing;
        q.n = b->n;
        q.rows = rows;
        q.rs = b->rs + b->filled;
        GSVD_TRY(gsvd_cuda_rowsq(b->compute, &q));
        if (b->exact)
            GSVD_TRY(gsvd_cuda_sum_xsum(b->compute, q.rs, rows, b->acc, b->trgrid, b->over));
        else
            GSVD_TRY(gsvd_cuda_sum_ordered(b->compute, q.rs, rows, b->acc));
    }
    gsvd_cuda_timer_stop(&b->timer, b->compute, GSVD_CUDA_KERNELS, 0);
    GSVD_TRY(gsvd_cuda_slot_consumed(s, b->compute));
    b->filled += rows;
out:
    return rc;
}

/* Row r's exact group: its variant index (or running number) / xgroup. */
static uint64_t row_gid(const struct backend_cuda *b, const struct gsvd_gblock *g, size_t r)
{
    return (g->index ? g->index[r] : b->next_index + r) / b->xgroup;
}

/* Feed a block's rows into groups; `flush` runs on every full group (with exact sums: on
 * every change of group number, so that groups are fixed by the variant index). */
static int feed(struct backend_cuda *b, const struct gsvd_gblock *g, double *sumsq,
                int (*flush)(struct backend_cuda *b))
{
    int rc = GSVD_OK;
    size_t r = 0;

    if (!b->busy || g->n_cols != b->n) {
        gsvd_log_error("internal error: a block of %zu samples in a pass of %zu", g->n_cols, b->n);
        return GSVD_EINTERNAL;
    }
    if (sumsq)
        b->sumsq_out = sumsq;
    while (r < g->n_rows) {
        size_t take = g->n_rows - r, room = b->group - b->filled;
        if (b->exact) {
            uint64_t gid = row_gid(b, g, r);
            if (b->filled && gid != b->gid)
                GSVD_TRY(flush(b));
            b->gid = gid;
            room = b->xgroup - b->filled;
            take = 1;
            while (r + take < g->n_rows && take < room && row_gid(b, g, r + take) == gid)
                take++;
        }
        if (take > room)
            take = room;
        GSVD_TRY(standardise(b, g, r, take, sumsq != NULL));
        r += take;
        if (b->filled == (b->exact ? b->xgroup : b->group))
            GSVD_TRY(flush(b));
    }
    b->next_index += g->n_rows;
out:
    return rc;
}

/* Exact sums for a pass of c columns (c 0: the Gram), from the bound: the grids of Y's columns
 * (Cauchy-Schwarz on T = Z X, then Z^T T, as the CPU backend bounds them) or the Gram's, and
 * the trace's; uploaded with the zeroed low parts. */
static int open_exact(struct backend_cuda *b, size_t c, const float *xf)
{
    int rc = GSVD_OK;
    size_t ng = c ? c : 1, G = gsvd_backend_gram_group_rows(b->n);
    struct gsvd_kb_grid *h = gsvd_malloc(ng * sizeof *h);
    const struct gsvd_zbound *z = &b->zb;
    double rows = (double)z->rows, per_row = z->max_abs * sqrt(z->row_sumsq);

    if (!h)
        return GSVD_ENOMEM;
    b->xgroup = 1;
    while (b->xgroup * 2 <= b->group && b->xgroup * 2 <= G)
        b->xgroup *= 2;
    for (size_t j = 0; j < ng; j++) {
        double bound;
        if (c) {
            double xx = 0;
            for (size_t i = 0; i < b->n; i++)
                xx += (double)xf[i * c + j] * (double)xf[i * c + j];
            bound = 2.0 * rows * per_row * sqrt(xx) * (1 + 1e-6);
        } else {
            bound = 2.0 * rows * z->max_abs * z->max_abs;
        }
        struct gsvd_xgrid x = gsvd_xsum_grid(bound);
        h[j] = (struct gsvd_kb_grid){.c_hi = x.c_hi, .c_lo = x.c_lo, .bound = x.bound};
    }
    {
        struct gsvd_xgrid t = gsvd_xsum_grid(2.0 * rows * z->row_sumsq);
        b->trgrid = (struct gsvd_kb_grid){.c_hi = t.c_hi, .c_lo = t.c_lo, .bound = t.bound};
    }
    GSVD_TRY(dev_reserve((void **)&b->grids, &b->grids_cap, ng * sizeof *b->grids));
    GSVD_CUDA_TRY(cudaMemcpyAsync(b->grids, h, ng * sizeof *h, cudaMemcpyHostToDevice, b->compute));
    GSVD_CUDA_TRY(cudaMemsetAsync(b->over, 0, sizeof *b->over, b->compute));
    b->next_index = 0;
    b->gid = 0;
out:
    host_done(b);
    gsvd_free(h);
    return rc;
}

/* GSVD_EINTERNAL (logged) if a value exceeded its bound during the pass. */
static int check_over(struct backend_cuda *b)
{
    int rc = GSVD_OK;
    uint32_t over = 0;
    GSVD_CUDA_TRY(cudaMemcpyAsync(&over, b->over, sizeof over, cudaMemcpyDeviceToHost, b->compute));
    GSVD_CUDA_TRY(cudaStreamSynchronize(b->compute));
    if (over) {
        gsvd_log_error("%u products exceed the bound of the standardised values (internal "
                       "error: the scaler's bound does not hold for these data)",
                       (unsigned)over);
        rc = GSVD_EINTERNAL;
    }
out:
    return rc;
}

/* Wait for both streams, count the copies, and add the pass's sum of squares. */
static int finish_sums(struct backend_cuda *b)
{
    int rc = GSVD_OK;
    double acc[2] = {0, 0};

    GSVD_CUDA_TRY(cudaStreamSynchronize(b->copy));
    GSVD_CUDA_TRY(cudaMemcpyAsync(acc, b->acc, sizeof acc, cudaMemcpyDeviceToHost, b->compute));
    GSVD_CUDA_TRY(cudaStreamSynchronize(b->compute));
    gsvd_cuda_slot_count(&b->slot[0], &b->xfer);
    gsvd_cuda_slot_count(&b->slot[1], &b->xfer);
    b->tr[0] = acc[0];
    b->tr[1] = acc[1];
    if (b->sumsq_out)
        *b->sumsq_out += b->exact ? gsvd_xsum_value(acc[0], acc[1]) : acc[0];
out:
    b->sumsq_out = NULL;
    b->busy = 0;
    return rc;
}

/* Start a pass or Gram over n samples. */
static int open_pass(struct backend_cuda *b, size_t n)
{
    int rc = GSVD_OK;
    GSVD_CUDA_TRY(cudaStreamSynchronize(b->compute));
    GSVD_TRY(ensure_group(b, n));
    GSVD_CUDA_TRY(cudaMemsetAsync(b->acc, 0, 2 * sizeof *b->acc, b->compute));
    b->sumsq_out = NULL;
    b->busy = 1;
out:
    return rc;
}

/* ---- pass: Y = Z^T Z X ---------------------------------------------------------------------- */

static int cuda_pass_begin(gsvd_backend *be, size_t n, size_t c, const double *x)
{
    struct backend_cuda *b = (struct backend_cuda *)be;
    int rc = GSVD_OK;
    size_t nc;
    float *xf = NULL;

    if (gsvd_mul_size(n, c, &nc) < 0 || c > 0x7fffffff)
        return GSVD_EINVAL;
    GSVD_TRY(open_pass(b, n));
    b->c = c;
    GSVD_TRY(dev_reserve((void **)&b->x, &b->x_cap, nc * sizeof *b->x));
    GSVD_TRY(dev_reserve((void **)&b->yblk, &b->yblk_cap, nc * sizeof *b->yblk));
    GSVD_TRY(dev_reserve((void **)&b->y, &b->y_cap, nc * sizeof *b->y));
    GSVD_TRY(dev_reserve((void **)&b->t, &b->t_cap, b->group * c * sizeof *b->t));
    gsvd_cuda_timer_memory(&b->timer);
    xf = gsvd_malloc((nc ? nc : 1) * sizeof *xf);
    if (!xf) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < nc; i++)
        xf[i] = (float)x[i];
    GSVD_CUDA_TRY(cudaMemcpyAsync(b->x, xf, nc * sizeof *xf, cudaMemcpyHostToDevice, b->compute));
    GSVD_CUDA_TRY(cudaMemsetAsync(b->y, 0, nc * sizeof *b->y, b->compute));
    b->exact = b->bounded;
    if (b->exact) {
        GSVD_TRY(open_exact(b, c, xf));
        GSVD_TRY(dev_reserve((void **)&b->ylo, &b->ylo_cap, nc * sizeof *b->ylo));
        GSVD_CUDA_TRY(cudaMemsetAsync(b->ylo, 0, nc * sizeof *b->ylo, b->compute));
    }
out:
    if (rc < 0)
        b->busy = 0;
    host_done(b);
    gsvd_free(xf);
    return rc;
}

/* T = Z X (rows x c), Yblk = Z^T T (n x c), Y += Yblk in float64.  Row-major matrices are the
 * transposes of cuBLAS's column-major ones: T^T = X^T Z^T and Yblk^T = T^T Z. */
static int flush_pass(struct backend_cuda *b)
{
    int rc = GSVD_OK;
    const float one = 1.0f, zero = 0.0f;
    int rows = (int)b->filled, n = (int)b->n, c = (int)b->c;

    if (rows == 0 || c == 0)
        goto out;
    gsvd_cuda_timer_start(&b->timer, b->compute);
    GSVD_CUBLAS_TRY(cublasSgemm(b->blas, CUBLAS_OP_N, CUBLAS_OP_N, c, rows, n, &one, b->x, c, b->z,
                                n, &zero, b->t, c));
    GSVD_CUBLAS_TRY(cublasSgemm(b->blas, CUBLAS_OP_N, CUBLAS_OP_T, c, n, rows, &one, b->t, c, b->z,
                                n, &zero, b->yblk, c));
    gsvd_cuda_timer_stop(&b->timer, b->compute, GSVD_CUDA_PRODUCTS, 4.0 * rows * n * c);
    gsvd_cuda_timer_start(&b->timer, b->compute);
    if (b->exact)
        GSVD_TRY(gsvd_cuda_acc_xsum(b->compute, b->y, b->ylo, b->yblk, b->n * b->c, b->c, b->grids,
                                    b->over));
    else
        GSVD_TRY(gsvd_cuda_acc_f32(b->compute, b->y, b->yblk, b->n * b->c));
    gsvd_cuda_timer_stop(&b->timer, b->compute, GSVD_CUDA_KERNELS, 0);
out:
    b->filled = 0;
    return rc;
}

static int cuda_pass_block(gsvd_backend *be, const struct gsvd_gblock *g, double *sumsq)
{
    return feed((struct backend_cuda *)be, g, sumsq, flush_pass);
}

/* The exact low parts of count values from the device, added into v (host). */
static int add_low(struct backend_cuda *b, const double *dev_lo, double *v, size_t count)
{
    int rc = GSVD_OK;
    double *lo = gsvd_malloc((count ? count : 1) * sizeof *lo);
    if (!lo)
        return GSVD_ENOMEM;
    GSVD_CUDA_TRY(
        cudaMemcpyAsync(lo, dev_lo, count * sizeof *lo, cudaMemcpyDeviceToHost, b->compute));
    GSVD_CUDA_TRY(cudaStreamSynchronize(b->compute));
    for (size_t i = 0; i < count; i++)
        v[i] = gsvd_xsum_value(v[i], lo[i]);
out:
    gsvd_free(lo);
    return rc;
}

static int cuda_pass_end(gsvd_backend *be, double *y)
{
    struct backend_cuda *b = (struct backend_cuda *)be;
    int rc = GSVD_OK;

    GSVD_TRY(flush_pass(b));
    if (b->n > 0 && b->c > 0)
        GSVD_CUDA_TRY(
            cudaMemcpyAsync(y, b->y, b->n * b->c * sizeof *y, cudaMemcpyDeviceToHost, b->compute));
    rc = finish_sums(b);
    if (rc == GSVD_OK && b->exact && b->n > 0 && b->c > 0)
        rc = add_low(b, b->ylo, y, b->n * b->c);
    if (rc == GSVD_OK && b->exact)
        rc = check_over(b);
out:
    b->busy = 0;
    return rc;
}

/* The open pass's or Gram's exact parts (count values each, from dhi / dlo on the device) and
 * the trace's parts into the host arrays, then the end of its sums and the bound check. */
static int copy_parts(struct backend_cuda *b, const double *dhi, const double *dlo, size_t count,
                      double *hi, double *lo, double *tr)
{
    int rc = GSVD_OK;
    if (count) {
        GSVD_CUDA_TRY(
            cudaMemcpyAsync(hi, dhi, count * sizeof *hi, cudaMemcpyDeviceToHost, b->compute));
        GSVD_CUDA_TRY(
            cudaMemcpyAsync(lo, dlo, count * sizeof *lo, cudaMemcpyDeviceToHost, b->compute));
    }
    b->sumsq_out = NULL; /* the caller sums the trace's parts */
    GSVD_TRY(finish_sums(b));
    GSVD_TRY(check_over(b));
    if (tr) {
        tr[0] = b->tr[0];
        tr[1] = b->tr[1];
    }
out:
    return rc;
}

static int cuda_pass_end_parts(gsvd_backend *be, double *y_hi, double *y_lo, double *tr)
{
    struct backend_cuda *b = (struct backend_cuda *)be;
    int rc = GSVD_OK;

    if (!b->exact) {
        b->busy = 0;
        return GSVD_EUNSUPPORTED;
    }
    GSVD_TRY(flush_pass(b));
    GSVD_TRY(copy_parts(b, b->y, b->ylo, b->n * b->c, y_hi, y_lo, tr));
out:
    b->busy = 0;
    return rc;
}

static int cuda_set_bound(gsvd_backend *be, const struct gsvd_zbound *z)
{
    struct backend_cuda *b = (struct backend_cuda *)be;
    b->bounded = z != NULL;
    if (z)
        b->zb = *z;
    return GSVD_OK;
}

/* ---- project: out = Z U ------------------------------------------------------------------- */

static int cuda_project(gsvd_backend *be, const struct gsvd_gblock *g, size_t c, const double *u,
                        double *out)
{
    struct backend_cuda *b = (struct backend_cuda *)be;
    const double one = 1.0, zero = 0.0;
    size_t n = g->n_cols, nc;
    int rc = GSVD_OK;

    if (g->n_rows == 0)
        return GSVD_OK;
    if (gsvd_mul_size(n, c, &nc) < 0 || c > 0x7fffffff)
        return GSVD_EINVAL;
    GSVD_TRY(open_pass(b, n));
    GSVD_TRY(dev_reserve((void **)&b->u, &b->u_cap, nc * sizeof *b->u));
    GSVD_TRY(dev_reserve((void **)&b->zd, &b->zd_cap, b->group * n * sizeof *b->zd));
    GSVD_TRY(dev_reserve((void **)&b->out, &b->out_cap, b->group * c * sizeof *b->out));
    gsvd_cuda_timer_memory(&b->timer);
    GSVD_CUDA_TRY(cudaMemcpyAsync(b->u, u, nc * sizeof *u, cudaMemcpyHostToDevice, b->compute));
    for (size_t r = 0; r < g->n_rows;) {
        size_t take = g->n_rows - r < b->group ? g->n_rows - r : b->group;
        b->filled = 0;
        GSVD_TRY(standardise(b, g, r, take, 0));
        gsvd_cuda_timer_start(&b->timer, b->compute);
        GSVD_TRY(gsvd_cuda_widen(b->compute, b->zd, b->z, take * n));
        gsvd_cuda_timer_stop(&b->timer, b->compute, GSVD_CUDA_KERNELS, 0);
        /* out^T (c x take) = U^T (c x n) Z^T (n x take), all column-major views */
        gsvd_cuda_timer_start(&b->timer, b->compute);
        GSVD_CUBLAS_TRY(cublasDgemm(b->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)c, (int)take, (int)n,
                                    &one, b->u, (int)c, b->zd, (int)n, &zero, b->out, (int)c));
        gsvd_cuda_timer_stop(&b->timer, b->compute, GSVD_CUDA_PRODUCTS, 2.0 * c * take * n);
        GSVD_CUDA_TRY(cudaMemcpyAsync(out + r * c, b->out, take * c * sizeof *out,
                                      cudaMemcpyDeviceToHost, b->compute));
        GSVD_CUDA_TRY(cudaStreamSynchronize(b->compute));
        r += take;
    }
    GSVD_TRY(finish_sums(b));
out:
    b->busy = 0;
    b->filled = 0;
    return rc;
}

/* ---- exact Gram: G = Z^T Z ----------------------------------------------------------------- */

static int cuda_gram_begin(gsvd_backend *be, size_t n)
{
    struct backend_cuda *b = (struct backend_cuda *)be;
    int rc = GSVD_OK;
    size_t nn, need, free_b = 0, total_b = 0;
    /* exact sums on the float32 path only (above GRAM_F32_MAX_N Dsyrk adds into G itself; such
     * a Gram is summed over processes only by the CPU backend) */
    int exact = b->bounded && n <= GRAM_F32_MAX_N;
    size_t per_cell =
        sizeof *b->g + (n <= GRAM_F32_MAX_N ? sizeof *b->gblk : 0) + (exact ? sizeof *b->glo : 0);

    if (gsvd_mul_size(n, n, &nn) < 0 || gsvd_mul_size(nn, per_cell, &need) < 0) {
        gsvd_log_error("the Gram of %zu samples does not fit in memory", n);
        return GSVD_ENOMEM;
    }
    GSVD_TRY(open_pass(b, n));
    cudaFree(b->gblk);
    cudaFree(b->g);
    cudaFree(b->glo);
    b->gblk = NULL;
    b->g = NULL;
    b->glo = NULL;
    b->exact = exact;
    if (gsvd_cuda_tolerate(cudaMemGetInfo(&free_b, &total_b)) == cudaSuccess && need > free_b) {
        gsvd_log_error("the Gram of %zu samples needs %.1f GiB of device memory; %.1f GiB free", n,
                       (double)need / 1073741824.0, (double)free_b / 1073741824.0);
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_CUDA_TRY(cudaMalloc((void **)&b->g, nn * sizeof *b->g));
    GSVD_CUDA_TRY(cudaMemsetAsync(b->g, 0, nn * sizeof *b->g, b->compute));
    if (b->exact) {
        GSVD_TRY(open_exact(b, 0, NULL));
        GSVD_CUDA_TRY(cudaMalloc((void **)&b->glo, nn * sizeof *b->glo));
        GSVD_CUDA_TRY(cudaMemsetAsync(b->glo, 0, nn * sizeof *b->glo, b->compute));
    }
    if (n <= GRAM_F32_MAX_N) {
        /* syrk writes the lower triangle only; the zeroed upper one adds nothing */
        GSVD_CUDA_TRY(cudaMalloc((void **)&b->gblk, nn * sizeof *b->gblk));
        GSVD_CUDA_TRY(cudaMemsetAsync(b->gblk, 0, nn * sizeof *b->gblk, b->compute));
    } else {
        GSVD_TRY(dev_reserve((void **)&b->zd, &b->zd_cap, b->group * n * sizeof *b->zd));
    }
    gsvd_cuda_timer_memory(&b->timer);
out:
    if (rc < 0)
        b->busy = 0;
    return rc;
}

/* G += Z^T Z for the group: Ssyrk into the float32 block Gram, added into float64 (or Dsyrk
 * straight into G for large n).  Z^T Z row-major is Zc Zc^T for cuBLAS's Zc = Z^T (n x rows). */
static int flush_gram(struct backend_cuda *b)
{
    int rc = GSVD_OK;
    int rows = (int)b->filled, n = (int)b->n;

    if (rows == 0)
        goto out;
    if (b->gblk) {
        const float one = 1.0f, zero = 0.0f;
        gsvd_cuda_timer_start(&b->timer, b->compute);
        GSVD_CUBLAS_TRY(cublasSsyrk(b->blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, rows, &one,
                                    b->z, n, &zero, b->gblk, n));
        gsvd_cuda_timer_stop(&b->timer, b->compute, GSVD_CUDA_PRODUCTS,
                             (double)rows * n * (n + 1.0));
        gsvd_cuda_timer_start(&b->timer, b->compute);
        if (b->exact)
            GSVD_TRY(gsvd_cuda_acc_xsum(b->compute, b->g, b->glo, b->gblk, b->n * b->n, 1, b->grids,
                                        b->over));
        else
            GSVD_TRY(gsvd_cuda_acc_f32(b->compute, b->g, b->gblk, b->n * b->n));
        gsvd_cuda_timer_stop(&b->timer, b->compute, GSVD_CUDA_KERNELS, 0);
    } else {
        const double one = 1.0;
        gsvd_cuda_timer_start(&b->timer, b->compute);
        GSVD_TRY(gsvd_cuda_widen(b->compute, b->zd, b->z, b->filled * b->n));
        gsvd_cuda_timer_stop(&b->timer, b->compute, GSVD_CUDA_KERNELS, 0);
        gsvd_cuda_timer_start(&b->timer, b->compute);
        GSVD_CUBLAS_TRY(cublasDsyrk(b->blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, rows, &one,
                                    b->zd, n, &one, b->g, n));
        gsvd_cuda_timer_stop(&b->timer, b->compute, GSVD_CUDA_PRODUCTS,
                             (double)rows * n * (n + 1.0));
    }
out:
    b->filled = 0;
    return rc;
}

static int cuda_gram_block(gsvd_backend *be, const struct gsvd_gblock *g, double *sumsq)
{
    return feed((struct backend_cuda *)be, g, sumsq, flush_gram);
}

/* Free the Gram's device buffers (the eigensolver that follows needs the memory). */
static void gram_free(struct backend_cuda *b)
{
    b->busy = 0;
    cudaStreamSynchronize(b->compute);
    cudaFree(b->gblk);
    cudaFree(b->g);
    cudaFree(b->glo);
    b->gblk = NULL;
    b->g = NULL;
    b->glo = NULL;
}

static int cuda_gram_end(gsvd_backend *be, double *gout)
{
    struct backend_cuda *b = (struct backend_cuda *)be;
    int rc = GSVD_OK;

    GSVD_TRY(flush_gram(b));
    gsvd_cuda_timer_start(&b->timer, b->compute);
    GSVD_TRY(gsvd_cuda_symmetrise(b->compute, b->g, b->n));
    if (b->exact)
        GSVD_TRY(gsvd_cuda_symmetrise(b->compute, b->glo, b->n));
    gsvd_cuda_timer_stop(&b->timer, b->compute, GSVD_CUDA_KERNELS, 0);
    GSVD_CUDA_TRY(cudaMemcpyAsync(gout, b->g, b->n * b->n * sizeof *gout, cudaMemcpyDeviceToHost,
                                  b->compute));
    GSVD_TRY(finish_sums(b));
    if (b->exact) {
        GSVD_TRY(add_low(b, b->glo, gout, b->n * b->n));
        GSVD_TRY(check_over(b));
    }
out:
    gram_free(b);
    return rc;
}

/* The parts of the upper triangle (row-major; the device's column-major lower), 0 below. */
static int cuda_gram_end_parts(gsvd_backend *be, double *g_hi, double *g_lo, double *tr)
{
    struct backend_cuda *b = (struct backend_cuda *)be;
    int rc = GSVD_OK;

    if (!b->exact) {
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    GSVD_TRY(flush_gram(b));
    GSVD_TRY(copy_parts(b, b->g, b->glo, b->n * b->n, g_hi, g_lo, tr));
out:
    gram_free(b);
    return rc;
}

const struct gsvd_pca_device_ops gsvd_cuda_pca_ops = {
    .version = GSVD_PCA_DEVICE_VERSION,
    .pass_begin = cuda_pass_begin,
    .pass_block = cuda_pass_block,
    .pass_end = cuda_pass_end,
    .project = cuda_project,
    .gram_begin = cuda_gram_begin,
    .gram_block = cuda_gram_block,
    .gram_end = cuda_gram_end,
    .set_bound = cuda_set_bound,
    .pass_end_parts = cuda_pass_end_parts,
    .gram_end_parts = cuda_gram_end_parts,
};
