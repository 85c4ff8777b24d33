/* analysis/cpu/backend_cpu_internal.h - what the CPU backend's two files share: the backend's
 * state, the buffer and row helpers, and the Gram entry points (backend_cpu_gram.c) that the
 * operation table in backend_cpu.c names.  Internal to analysis/cpu/backend_cpu*.c. */
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

/* One pass group's scratch, used by one thread at a time. */
struct pass_slot {
    float *z;      /* sub x n standardised rows */
    float *t;      /* sub x c, Z_sub X */
    float *yg;     /* n x c, the group's Z^T Z X */
    gsvd_i8w *i8w; /* the i8 pass kernel's scratch, or NULL */
    uint8_t *p2;   /* i8 kernel on int8 rows: the group packed to 2 bits */
    size_t p2_cap; /* bytes allocated in p2 (gsvd_reserve_large) */
};

struct backend_cpu {
    struct gsvd_backend base;
    int saved_threads; /* BLAS threads before create */
    size_t n, c;       /* current pass: samples, columns of X */
    float *x;          /* n x c, X in float32 */
    double *y;         /* n x c accumulator */
    double *ylo;       /* n x c low parts of the exact sums (when `bounded`) */
    /* exact sums (common/xsum.h): on when the analysis gave a bound (cpu_set_bound) */
    int bounded;
    int gram_f64;       /* gsvd_backend_params.gram_f64 */
    int gram_kernel;    /* gsvd_backend_params.gram_kernel as asked (enum gsvd_gram_kernel) */
    int pass_i8;        /* 2-bit pass groups on the int8 tiles (pass_kernel i8, or auto here) */
    gsvd_i8x *i8x;      /* X's digits for this pass (pass_i8), or NULL */
    int pass_said;      /* -v named the pass kernel */
    char pass_why[160]; /* why not i8 */
    struct gsvd_zbound zb;
    struct gsvd_xgrid *ygrid; /* c: grid of Y's column j */
    struct gsvd_xgrid trgrid; /* grid of the trace */
    double tr_hi, tr_lo;      /* the trace of this pass or Gram */
    int tr_over;              /* a Gram row's sum of squares exceeded the bound */
    uint64_t next_index;      /* rows without an index: the next row's number */
    /* pass staging (see "passes" below) */
    size_t group, sub;       /* rows per group and per sub-tile (depend on n only) */
    size_t par;              /* groups per batch (threads) */
    struct pass_slot *slots; /* par */
    int fmt;                 /* staged format: 1 p2, 2 i8, 3 f64, 0 none yet */
    uint8_t *stage;          /* par x group compact rows */
    size_t st_row_bytes, st_rows, st_cap_bytes;
    float *st_center, *st_scale, *st_miss; /* per staged row */
    double *st_rs;                         /* per staged row: sum of squares */
    size_t *st_gstart;                     /* par + 1: first staged row of each group */
    size_t st_groups;                      /* groups staged (the last one may still grow) */
    uint64_t st_gid;                       /* group number of the last staged group */
    double *pass_sumsq;                    /* where the trace goes (from pass_block), or NULL */
    /* Gram and project */
    float *z;     /* standardised block, rows x n */
    size_t z_cap; /* bytes allocated in z (gsvd_reserve_large) */
    double *zd;   /* float64 block for dsyrk / project */
    size_t zd_cap;
    float *gblk;        /* n x n float32 Gram of one block (n <= GRAM_F32_MAX_N) */
    gsvd_amx_pack *amx; /* the group in bf16 for the AMX tiles, or NULL (f32 / f64) */
    float *ctile;       /* AMX: a GRAM_TILE^2 float32 scratch per thread */
    gsvd_i8_pack *i8;   /* the group for the int8 tiles, or NULL */
    /* i8: two group buffers, one filled while a job thread multiplies the other (with more
     * than one thread); ib[ib_fill] is filled */
    struct i8_buf {
        uint8_t *codes;         /* group x n call codes (0..2 dosage, 3 missing) */
        float *cen, *scl, *mis; /* each group row's centre, scale and missing value */
    } ib[2];
    int ib_fill, job_buf;      /* the buffer filled; the one the pack reads */
    struct gsvd_thread job_th; /* the job's thread, while job_on */
    int job_on, job_rc;        /* a job runs; its result */
    size_t job_rows;           /* rows of its group (in ib[1 - ib_fill]) */
    int32_t *i8acc;            /* i8: 2 GRAM_TILE^2 int32 per thread */
    double *dtile;             /* i8: a GRAM_TILE^2 float64 tile per thread */
    int gram_fast;             /* gram_fast(1) said yes: auto takes the i8 kernel */
    double gram_err;           /* the last Gram's eigenvalue error bound (0: exact kernel) */
    double *g;                 /* n x n float64 Gram accumulator (upper triangle filled) */
    double *glo;               /* n x n low parts of the exact Gram sums (when `bounded`) */
    double *gtile;             /* float64 Gram: a GRAM_TILE^2 scratch per thread (when `bounded`) */
    struct gsvd_xgrid ggrid;   /* grid of the Gram entries */
    uint64_t gram_gid;         /* group number of the rows in z */
    size_t filled;             /* rows of the current group standardised into z */
    size_t n_threads;          /* threads for the pass groups and the Gram tiles */
};

/* A row's sum of squares rs into *sumsq, or exactly into the backend's trace when it has a
 * bound (b may be NULL: no bound). */
static inline void add_row_sumsq(struct backend_cpu *b, double rs, double *sumsq)
{
    if (b && b->bounded) {
        b->tr_over |= !(rs <= b->trgrid.bound);
        gsvd_xsum_add(&b->tr_hi, &b->tr_lo, rs, &b->trgrid);
    } else {
        *sumsq += rs;
    }
}

/* Standardise rows [r0, r0 + rows) of the block into z (rows x n float32); each row's sum of
 * squares is added to *sumsq in row order, or exactly to the backend's trace when it has a
 * bound.  Values and sums come from analysis/scan/gblock_std.h, the definitions the CUDA kernels
 * run too. */
static inline void standardise_rows(struct backend_cpu *b, const struct gsvd_gblock *g, size_t r0,
                                    size_t rows, float *zout, double *sumsq)
{
    size_t n = g->n_cols;
    for (size_t r = r0; r < r0 + rows; r++) {
        double rs = 0;
        gsvd_cpu_expand_row(g, r, zout + (r - r0) * n, sumsq ? &rs : NULL);
        if (sumsq)
            add_row_sumsq(b, rs, sumsq);
    }
}

/* Whether the rows are integer dosages 0..2 (the bound says so): what the int8 kernels take. */
static inline int cpu_dosages_0_2(const struct backend_cpu *b)
{
    return b->bounded && b->zb.max_dosage >= 1 && b->zb.max_dosage <= 2;
}

/* Row r's group number: its variant index (or running row number) / group rows. */
static inline uint64_t row_gid(struct backend_cpu *b, const struct gsvd_gblock *g, size_t r,
                               size_t group)
{
    return (g->index ? g->index[r] : b->next_index + r) / group;
}

/* The run of rows from r that share row r's group (*gid): how many. */
static inline size_t group_run(struct backend_cpu *b, const struct gsvd_gblock *g, size_t r,
                               size_t group, uint64_t *gid)
{
    size_t take = 1;
    *gid = row_gid(b, g, r, group);
    while (r + take < g->n_rows && row_gid(b, g, r + take, group) == *gid)
        take++;
    return take;
}

/* Rows whose variant indices are not ascending and distinct (a caller's bug). */
static inline int bad_index(void)
{
    gsvd_log_error("block rows' variant indices are not ascending");
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

/* The Gram operations of the CPU backend (struct gsvd_pca_device_ops of
 * analysis/pca/pca_device.h). */
int gsvd_cpu_gram_begin(gsvd_backend *be, size_t n);
int gsvd_cpu_gram_block(gsvd_backend *be, const struct gsvd_gblock *g, double *sumsq);
int gsvd_cpu_gram_end(gsvd_backend *be, double *gout);
int gsvd_cpu_gram_end_parts(gsvd_backend *be, double *g_hi, double *g_lo, double *tr);
double gsvd_cpu_gram_fast(gsvd_backend *be, int on);
double gsvd_cpu_gram_error(gsvd_backend *be);
void gsvd_cpu_gram_free(struct backend_cpu *b); /* the Gram's buffers (destroy, gram_begin) */

#endif /* GSVD_ANALYSIS_CPU_BACKEND_CPU_INTERNAL_H */
