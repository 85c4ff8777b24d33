/* analysis/backend_internal.h - for backend*.c, gpu/ and cli/backend_registry.c only: the core
 * vtable of a compute backend.  A backend embeds struct gsvd_backend first.  What an analysis
 * needs beyond the core is a separate table owned by that analysis (analysis/pca_device.h,
 * analysis/pdist/pdist_device.h), which the `analysis` op returns.  Fields are appended, never
 * reordered; backend.c reads a field added in version N only when ops->version >= N. */
#ifndef GSVD_ANALYSIS_BACKEND_INTERNAL_H
#define GSVD_ANALYSIS_BACKEND_INTERNAL_H
#include "analysis/backend.h"

#define GSVD_BACKEND_OPS_VERSION 4

struct gsvd_backend_ops {
    int version;                 /* GSVD_BACKEND_OPS_VERSION */
    const char *name;            /* "cpu", "cuda" */
    enum gsvd_backend_kind kind; /* "gpu" selects the GSVD_BACKEND_DEVICE ones */
    /* > 0 usable (higher wins), 0 unusable with a reason in why; never aborts.  NULL in a
     * registry entry: a backend gensvd knows that this build does not contain (GSVD_ENOTBUILT
     * when asked for by name, skipped by "auto"). */
    int (*probe)(char *why, size_t why_len);
    int (*create)(const struct gsvd_backend_params *p, gsvd_backend **out);
    void (*destroy)(gsvd_backend *be); /* accepts NULL */
    int (*eigh)(gsvd_backend *be, size_t n, double *a, double *w);
    /* The device table of analysis `an` (static storage), or NULL when not offered. */
    const void *(*analysis)(const gsvd_backend *be, enum gsvd_analysis_id an);
};

struct gsvd_backend {
    const struct gsvd_backend_ops *ops;
};

#endif /* GSVD_ANALYSIS_BACKEND_INTERNAL_H */
