/* analysis/backend_internal.h - for backend*.c and gpu/ only: the compute backend vtable.
 * A backend embeds struct gsvd_backend first.  Fields are appended, never reordered;
 * backend.c reads a field added in version N only when ops->version >= N. */
#ifndef GSVD_ANALYSIS_BACKEND_INTERNAL_H
#define GSVD_ANALYSIS_BACKEND_INTERNAL_H
#include "analysis/backend.h"

#define GSVD_BACKEND_OPS_VERSION 3

struct gsvd_backend_ops {
    int version;      /* GSVD_BACKEND_OPS_VERSION */
    const char *name; /* "cpu", "cuda" */
    /* > 0 usable (higher wins), 0 unusable with a reason in why; never aborts. */
    int (*probe)(char *why, size_t why_len);
    int (*create)(const struct gsvd_backend_params *p, gsvd_backend **out);
    void (*destroy)(gsvd_backend *be); /* accepts NULL */
    int (*pass_begin)(gsvd_backend *be, size_t n, size_t c, const double *x);
    int (*pass_block)(gsvd_backend *be, const struct gsvd_gblock *b, double *sumsq);
    int (*pass_end)(gsvd_backend *be, double *y);
    int (*project)(gsvd_backend *be, const struct gsvd_gblock *b, size_t c, const double *u,
                   double *out);
    int (*gram_begin)(gsvd_backend *be, size_t n);
    int (*gram_block)(gsvd_backend *be, const struct gsvd_gblock *b, double *sumsq);
    int (*gram_end)(gsvd_backend *be, double *g);
    int (*eigh)(gsvd_backend *be, size_t n, double *a, double *w);
    /* version 2: pdist accumulators on the device (analysis/backend.h); all NULL or all set */
    int (*pd_memory)(gsvd_backend *be, uint64_t *bytes);
    int (*pd_begin)(gsvd_backend *be, const struct gsvd_pd_dev_band *band);
    int (*pd_planes)(gsvd_backend *be, const uint64_t *planes, size_t nw);
    int (*pd_rows)(gsvd_backend *be, const double *x, size_t nf);
    int (*pd_end)(gsvd_backend *be, void *acc);
    /* version 3: exact reductions (analysis/backend.h); all NULL or all set */
    int (*set_bound)(gsvd_backend *be, const struct gsvd_zbound *z);
    int (*pass_end_parts)(gsvd_backend *be, double *y_hi, double *y_lo, double *tr);
    int (*gram_end_parts)(gsvd_backend *be, double *g_hi, double *g_lo, double *tr);
};

struct gsvd_backend {
    const struct gsvd_backend_ops *ops;
};

#endif /* GSVD_ANALYSIS_BACKEND_INTERNAL_H */
