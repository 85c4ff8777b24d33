/* analysis/cpu/backend_cpu_internal.h - what the CPU backend's two files share: the backend's
 * common state (settings, the bound, the standardised-row scratch) with the passes' and the
 * Gram's sub-objects, each owned by its file, the row-group helpers, and the Gram entry points
 * (backend_cpu_gram.c) that the operation table in backend_cpu.c names.  Internal to
 * analysis/cpu/backend_cpu*.c. */
#ifndef GSVD_ANALYSIS_CPU_BACKEND_CPU_INTERNAL_H
#define GSVD_ANALYSIS_CPU_BACKEND_CPU_INTERNAL_H
#include "analysis/backend_internal.h"
#include "analysis/cpu/cpu_rows.h"
#include "analysis/cpu/kernels/gram_amx.h"
#include "analysis/cpu/kernels/gram_i8.h"
#include "analysis/cpu/kernels/pass_i8.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parallel.h"
#include "common/xsum.h"

#define GRAM_F32_MAX_N GSVD_GRAM_F32_MAX_N /* (analysis/backend.h) */
#define GRAM_TILE 256                      /* Gram tiles: GRAM_TILE x GRAM_TILE entries */
#define GRAM_TILE_F32 512                  /* float32 ssyrk/sgemm tiles (gram_tile_side) */
_Static_assert(GRAM_TILE == GSVD_AMX_TILE, "the AMX tiles are the Gram tiles");
_Static_assert(GRAM_TILE == GSVD_I8_TILE, "the int8 tiles are the Gram tiles");

struct cpu_pass; /* the passes Y = Z^T (Z X): their state, owned by backend_cpu.c */
struct cpu_gram; /* the exact method's Gram Z^T Z: its state, owned by backend_cpu_gram.c */

/* The backend: what create sets, what the passes, the projection and the Gram share, and the
 * two sub-objects, each allocated at create and used only by its own file. */
struct backend_cpu {
    struct gsvd_backend base;
    int saved_threads; /* BLAS threads before create */
    size_t n_threads;  /* threads for the pass groups and the Gram tiles */
    /* exact sums (common/xsum.h): on when the analysis gave a bound (cpu_set_bound) */
    int bounded;
    struct gsvd_zbound zb;
    /* standardised rows: the projection's block, the float Gram's group (never at once) */
    float *z;     /* rows x n */
    size_t z_cap; /* bytes allocated in z (gsvd_reserve_large) */
    double *zd;   /* float64 rows for dsyrk / project */
    size_t zd_cap;
    struct cpu_pass *pass; /* owned; backend_cpu.c */
    struct cpu_gram *gram; /* owned; backend_cpu_gram.c */
};

/* Whether the rows are integer dosages 0..2 (the bound says so): what the int8 kernels take. */
static inline int cpu_dosages_0_2(const struct backend_cpu *b)
{
    return b->bounded && b->zb.max_dosage >= 1 && b->zb.max_dosage <= 2;
}

/* Row r's group number: its variant index (or running row number, next_index being the
 * number of the block's first row) / group rows. */
static inline uint64_t row_gid(uint64_t next_index, const struct gsvd_gblock *g, size_t r,
                               size_t group)
{
    return (g->index ? g->index[r] : next_index + r) / group;
}

/* The run of rows from r that share row r's group (*gid): how many. */
static inline size_t group_run(uint64_t next_index, const struct gsvd_gblock *g, size_t r,
                               size_t group, uint64_t *gid)
{
    size_t take = 1;
    *gid = row_gid(next_index, g, r, group);
    while (r + take < g->n_rows && row_gid(next_index, g, r + take, group) == *gid)
        take++;
    return take;
}

/* Rows whose variant indices are not ascending and distinct (a caller's bug). */
static inline int bad_index(void)
{
    gsvd_log_error("internal error: the variant indices of a block are not ascending");
    return GSVD_EINTERNAL;
}

/* A product beyond the bound the analysis promised: an error, never a silently wrong sum. */
static inline int bound_exceeded(const char *what)
{
    gsvd_log_error("%s exceeds the bound of the standardised values (internal error: the "
                   "scaler's bound does not hold for these data)",
                   what);
    return GSVD_EINTERNAL;
}

/* The Gram's state for a backend created with kernel (enum gsvd_gram_kernel, usable: checked
 * by create) and f64 (gsvd_backend_params.gram_f64) into *out (free with gsvd_cpu_gram_free).
 * GSVD_OK or GSVD_ENOMEM. */
int gsvd_cpu_gram_new(int kernel, int f64, struct cpu_gram **out);
void gsvd_cpu_gram_free(struct cpu_gram *gr); /* accepts NULL */

/* The Gram operations of the CPU backend (struct gsvd_pca_device_ops of
 * analysis/pca/pca_device.h). */
int gsvd_cpu_gram_begin(gsvd_backend *be, size_t n);
int gsvd_cpu_gram_block(gsvd_backend *be, const struct gsvd_gblock *g, double *sumsq);
int gsvd_cpu_gram_end(gsvd_backend *be, double *gout);
int gsvd_cpu_gram_end_parts(gsvd_backend *be, double *g_hi, double *g_lo, double *tr);
double gsvd_cpu_gram_fast(gsvd_backend *be, int on);
double gsvd_cpu_gram_error(gsvd_backend *be);

#endif /* GSVD_ANALYSIS_CPU_BACKEND_CPU_INTERNAL_H */
