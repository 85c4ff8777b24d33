/* analysis/backend_internal.h - for analysis/backend*.c, the CPU backend (analysis/cpu/), gpu/
 * and lib/backend_registry.c only: the core vtable of a compute backend.  A backend embeds
 * struct gsvd_backend first.  What an analysis needs beyond the core is a separate table owned
 * by that analysis (analysis/pca/pca_device.h, analysis/pdist/pdist_device.h), which the
 * `analysis` op returns.  Fields are appended, never reordered; backend.c reads a field added
 * in version N only when ops->version >= N. */
#ifndef GSVD_ANALYSIS_BACKEND_INTERNAL_H
#define GSVD_ANALYSIS_BACKEND_INTERNAL_H
#include <stdarg.h>
#include <stddef.h>
#include "analysis/backend.h"
#include "common/log.h" /* enum gsvd_log_level */

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

/* ---- a backend in a module loaded at run time (gpu/, loaded by lib/backend_registry.c) ----------
 * The module links no copy of common/ and analysis/ state: what it takes from the program, it
 * takes from this table, passed to its init entry point (htslib's hfile_plugin_init model), so
 * one log level and one set of allocation counters (failures, GENSVD_FAIL_ALLOC_AT) serve the
 * program and the module, and the module needs no symbol of the executable (it works under
 * -fvisibility=hidden, -Bsymbolic and LTO).  Fields are appended, never reordered; a module
 * refuses a table whose version is older than the one it was built with. */
#define GSVD_BACKEND_HOST_VERSION 1

struct gsvd_backend_host {
    int version; /* GSVD_BACKEND_HOST_VERSION */
    size_t size; /* sizeof (struct gsvd_backend_host) in the program */
    /* common/log.h: the program's logger and level */
    void (*log_vmsg)(enum gsvd_log_level level, const char *func, const char *fmt, va_list ap);
    enum gsvd_log_level (*log_get_level)(void);
    /* common/alloc.h: the program's allocator, its counters and fault injection */
    void *(*malloc)(size_t n);
    void *(*calloc)(size_t count, size_t size);
    void *(*realloc)(void *p, size_t n);
    void (*free)(void *p);
    /* the program's CPU backend (eigenproblems too small for a device) */
    const struct gsvd_backend_ops *cpu;
};

/* The program's table (static storage; analysis/backend_host.c). */
const struct gsvd_backend_host *gsvd_backend_host_table(void);

#endif /* GSVD_ANALYSIS_BACKEND_INTERNAL_H */
