/* analysis/pdist/pdist_internal.h - the pdist engine's kernel vtable (analysis/pdist/pdist*.c
 * only).
 *
 * The engine (pdist.c) plans bands of rows, drives passes over the data and turns every pair's
 * sums into a distance; a kernel (pdist_bitplane.c, pdist_gram.c, pdist_generic.c) owns the
 * per-pair accumulators of the current band and adds stripes of features to them.
 *
 * A stripe is a slice of features for all n items: value (item i, feature f) sits at
 * i * item_stride + f * feat_stride of either i8 (genotype dosages, < 0 missing) or f64 (NaN
 * missing).  Genotype blocks are variant-major (feat_stride = n, item_stride = 1); in-memory
 * matrices are item-major. */
#ifndef GSVD_ANALYSIS_PDIST_PDIST_INTERNAL_H
#define GSVD_ANALYSIS_PDIST_PDIST_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/backend.h"
#include "analysis/pdist/pdist.h"
#include "analysis/pdist/pdist_device.h"
#include "analysis/pdist/pdist_metric.h"

struct pd_stripe {
    size_t n_feat;
    const int8_t *i8;
    const double *f64;
    size_t item_stride, feat_stride;
    /* not NULL (first pass, kernels with counts_called): the kernel adds each item's called
     * values in the stripe to called[item] */
    uint64_t *called;
};

/* Value (i, f) of a stripe as a double, NaN when missing. */
static inline double pd_value(const struct pd_stripe *s, size_t i, size_t f)
{
    size_t k = i * s->item_stride + f * s->feat_stride;
    if (s->i8)
        return s->i8[k] < 0 ? NAN : (double)s->i8[k];
    return s->f64[k];
}

/* Returned by kernel `add` when the data does not suit the kernel; the engine moves on to the
 * next kernel and restarts the pass. */
#define PD_HANDOVER 1

/* What a kernel sees of the engine. */
struct pd_env {
    const struct gsvd_pdist_params *p;
    size_t n;   /* items */
    uint64_t m; /* features per pass */
    size_t n_threads;
    uint64_t stripe_bytes; /* soft cap on a kernel's stripe buffer */
    uint64_t cache_bytes;  /* the bit-plane kernel may keep this much for later bands (0: no) */
    gsvd_backend *dev; /* accumulate on this backend's device (kernels with `device`), or NULL */
};

struct pd_kernel_ops {
    const char *name;
    /* Bytes of accumulator per pair of a band, and fixed bytes (stripe buffers). */
    size_t pair_bytes;
    uint64_t (*fixed_bytes)(const struct pd_env *env);
    /* 1: the kernel hands its accumulation to env.dev when set (the device then holds
     * pair_bytes per pair of a band and two staging copies of the stripe buffers) */
    int device;
    /* 1: `add` counts each item's called values when the stripe asks (pd_stripe.called) */
    int counts_called;
    /* Create the kernel's state (caller owns; destroy). */
    int (*create)(const struct pd_env *env, void **st);
    void (*destroy)(void *st);
    /* Zero the accumulators of rows [row0, row0 + n_rows) x columns [row0, n). */
    int (*band_begin)(void *st, size_t row0, size_t n_rows);
    /* Add a stripe: GSVD_OK, PD_HANDOVER, or an error. */
    int (*add)(void *st, const struct pd_stripe *s);
    /* Finish the band's pass (flush buffered features). */
    int (*band_end)(void *st);
    /* Replay the band from features kept in memory during the first pass; 1 if it did, 0 if
     * the kernel keeps nothing (the engine then scans again).  May be NULL. */
    int (*replay)(void *st, size_t row0, size_t n_rows);
    /* With replay: the bytes the kept features of n items x m features take (the engine plans
     * them into the memory budget, pd_env.cache_bytes).  May be NULL: nothing is kept. */
    uint64_t (*replay_bytes)(size_t n, uint64_t m, uint64_t stripe_bytes);
    /* Sums of band pair (r, c) (band-relative, c > r). */
    void (*pair_sums)(void *st, size_t r, size_t c, struct gsvd_pd_sums *out);
    /* Add the kernel's own figures to the run's summary.  May be NULL. */
    void (*report)(void *st, struct gsvd_pdist_summary *sum);
};

/* Helpers for the kernels (pdist_band.c). */

/* Zeroed accumulators of a band: n_rows x n_cols pairs x per_pair elements of `elem` bytes in
 * *buf, grown (contents dropped) when *cap elements are too few.  GSVD_ENOMEM on overflow or
 * allocation failure (*buf is then NULL and *cap 0). */
int gsvd_pd_band_acc(void **buf, size_t *cap, size_t n_rows, size_t n_cols, size_t per_pair,
                     size_t elem);

/* The stripe's values as float64 (NaN missing) in *buf, grown when *cap values are too few:
 * item-major (n x n_feat) when item_major, else feature-major (n_feat x n).  GSVD_ENOMEM. */
int gsvd_pd_stripe_f64(const struct pd_stripe *s, size_t n, int item_major, double **buf,
                       size_t *cap);

/* A block of haplotype columns (rows variants x n * haps columns, item i's haplotype h at
 * column i haps + h) as haps * rows feature rows of n items: row h rows + v holds haplotype h
 * of variant v, in *buf, grown when *cap bytes are too few.  GSVD_ENOMEM. */
int gsvd_pd_haplotype_rows(const int8_t *blk, size_t rows, size_t n, size_t haps, int8_t **buf,
                           size_t *cap);

extern const struct pd_kernel_ops gsvd_pd_bitplane_ops;
extern const struct pd_kernel_ops gsvd_pd_bitplane_wide_ops; /* the same, wide counts */
extern const struct pd_kernel_ops gsvd_pd_bitplane_king_ops; /* the same, KING counts */
/* Words per plane of a bit-plane segment, and the bytes all segments of m features take. */
size_t gsvd_pd_bitplane_words(size_t n, uint64_t m, uint64_t stripe_bytes);
uint64_t gsvd_pd_bitplane_cache_bytes(size_t n, uint64_t m, uint64_t stripe_bytes);
/* 1: KING on the host counts missing calls apart (its rows take at most a quarter of
 * --memory; pdist_bitplane_apart.c); needs env's p, n, m, stripe_bytes and dev. */
int gsvd_pd_bitplane_apart(const struct pd_env *env);
extern const struct pd_kernel_ops gsvd_pd_gram_ops;
extern const struct pd_kernel_ops gsvd_pd_generic_ops;

#endif /* GSVD_ANALYSIS_PDIST_PDIST_INTERNAL_H */
