/* analysis/backend.h - compute backends behind one handle: the core every backend offers.
 * A backend has a name, a kind (host or device), a probe, create/destroy and the small dense
 * eigenproblem every analysis needs.  What an analysis hands it beyond that lives with the
 * analysis, in a device table the backend offers through gsvd_backend_analysis():
 *   analysis/pca/pca_device.h      PCA's passes, projections and Gram (GSVD_AN_PCA),
 *   analysis/pdist/pdist_device.h  pdist's band accumulators and plane layout (GSVD_AN_PDIST).
 * A new analysis adds its own table and id; the core stays as it is.  Which backends exist is
 * decided by lib/backend_registry.c; analyses receive a backend and never name one.
 * Thread safety: a backend handle is used by one thread at a time. */
#ifndef GSVD_ANALYSIS_BACKEND_H
#define GSVD_ANALYSIS_BACKEND_H
#include <stddef.h>
#include <stdint.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

typedef struct gsvd_backend gsvd_backend;
struct gsvd_backend_ops;

struct gsvd_backend_params {
    size_t n_threads;  /* BLAS threads for this backend; 0 = all cores */
    size_t local_rank; /* distributed runs: this process's rank among those of its node; a
                          device backend takes its (local_rank mod count)-th usable device,
                          so ranks on one node use different GPUs (0: the first) */
    int gram_f64;      /* CPU: the Gram (pca --method exact) from float64 products (dsyrk)
                          at every N, not float32 tiles below 24,576 samples: about twice
                          the time, eigenpairs to float64 rounding.  Device backends ignore it
                          (the caller warns) */
    int gram_kernel;   /* CPU, float32 Gram: enum gsvd_gram_kernel (0 = auto) */
    int pass_kernel;   /* CPU, products of a pass on 2-bit rows: enum gsvd_pass_kernel */
};

/* The CPU's product for the Gram tiles (gsvd_backend_params.gram_kernel; the names "auto",
 * "f32", "amx", "i8" in this order are pca's --gram-kernel).  f32: float32 ssyrk/sgemm tiles;
 * amx: bf16 hi/lo tiles on Intel AMX (analysis/cpu/kernels/gram_amx.h); i8: int8 products (AMX
 * tiles, or AVX-512 VNNI without AMX: the same bytes) on the genotype integers with two-digit
 * weights (analysis/cpu/kernels/gram_i8.h: eigenvalues within 2^-14 relative from the weights,
 * integer dosages 0..2 only).  create fails with GSVD_EUNSUPPORTED where amx or i8 cannot run.
 * auto: f32, or i8 where the caller allows it (gsvd_backend_gram_fast) and it can run. */
enum gsvd_gram_kernel {
    GSVD_GRAM_AUTO = 0,
    GSVD_GRAM_F32 = 1,
    GSVD_GRAM_AMX = 2,
    GSVD_GRAM_I8 = 3
};

/* The CPU's products of a randomized-PCA pass on cached 2-bit rows (gsvd_backend_params.
 * pass_kernel; "auto", "f32", "i8" in this order are pca's --pass-kernel).  f32: float32
 * products, on CPUs with AVX2 and FMA but no AVX-512 by the AVX2 engine straight from the
 * codes (analysis/cpu/kernels/pass_avx2.h), elsewhere the rows standardised to float32
 * sub-tiles and two sgemm; i8: Intel AMX int8 tiles on the codes
 * with X and W rounded to 20 bits (analysis/cpu/kernels/pass_i8.h: products within ~1e-6 relative).
 * create fails with GSVD_EUNSUPPORTED where i8 cannot run; auto takes i8 where it can. */
enum gsvd_pass_kernel { GSVD_PASS_AUTO = 0, GSVD_PASS_F32 = 1, GSVD_PASS_I8 = 2 };

/* Above this many samples (or with gram_f64) the CPU's f32 kernel accumulates with dsyrk
 * tiles and keeps no float32 N x N block. */
#define GSVD_GRAM_F32_MAX_N 24576

/* Which of the CPU backend's hand-written kernels (analysis/cpu/kernels/) run on this CPU, as one
 * line for --version into buf (NUL-terminated, truncated to len): "gram i8 on ENGINE" or
 * "gram i8: no", then "gram amx: yes|no", "pass i8: yes|no" and "pass f32 on AVX2|OpenBLAS"
 * (the float32 pass where i8 does not run), separated by ", ". */
void gsvd_backend_cpu_kernels(char *buf, size_t len);

/* The device a process of a distributed run takes among n_usable usable ones (n_usable >= 1):
 * the (local_rank mod n_usable)-th, so that the ranks of a node spread over its devices and a
 * rank that sees one device (CUDA_VISIBLE_DEVICES set per task by the scheduler) takes it. */
static inline size_t gsvd_backend_device_pick(size_t local_rank, size_t n_usable)
{
    return n_usable ? local_rank % n_usable : 0;
}

/* Where a backend computes: in host memory (cpu) or on a device with its own memory (a GPU,
 * which `--device gpu` selects whatever its name). */
enum gsvd_backend_kind { GSVD_BACKEND_HOST = 1, GSVD_BACKEND_DEVICE = 2 };

/* The analyses that may attach a device table to a backend (gsvd_backend_analysis). */
enum gsvd_analysis_id { GSVD_AN_PCA = 1, GSVD_AN_PDIST = 2 };

/* The CPU backend's vtable (opaque here; lib/backend_registry.c lists it). */
extern const struct gsvd_backend_ops gsvd_backend_cpu_ops;

/* Registry built by lib/backend_registry.c: NULL-terminated, best first. */
extern const struct gsvd_backend_ops *const gsvd_backend_registry[];

/* Whether gsvd_backend_open(name) would find a usable backend, without creating one: GSVD_OK,
 * or its errors, logged as it logs them (a device's probe only: cheap). */
GSVD_NODISCARD int gsvd_backend_check(const char *name);

/* Choose and create a backend: name "auto" (highest probe score), "gpu" (the backends of kind
 * GSVD_BACKEND_DEVICE) or a registry name ("cpu", "cuda").
 * Returns GSVD_OK, GSVD_EINVAL (unknown name), GSVD_ENOTBUILT (known, not compiled in),
 * GSVD_ENODEVICE (compiled in, no usable device; the reason is logged) or GSVD_ENOMEM.
 * Caller owns *out; free with gsvd_backend_destroy. */
GSVD_NODISCARD int gsvd_backend_open(const char *name, const struct gsvd_backend_params *p,
                                     gsvd_backend **out);
/* Create a specific backend (tests pass one explicitly). */
GSVD_NODISCARD int gsvd_backend_create(const struct gsvd_backend_ops *ops,
                                       const struct gsvd_backend_params *p, gsvd_backend **out);
void gsvd_backend_destroy(gsvd_backend *be); /* accepts NULL */
const char *gsvd_backend_name(const gsvd_backend *be);
enum gsvd_backend_kind gsvd_backend_kind(const gsvd_backend *be);

/* The backend's device table for analysis `an`, typed by that analysis' header (struct
 * gsvd_pca_device_ops, struct gsvd_pdist_device_ops), or NULL when the backend does not offer
 * it (be may be NULL: NULL).  Static storage, valid while the backend lives.  Analyses call
 * the wrappers their headers declare rather than the table. */
const void *gsvd_backend_analysis(const gsvd_backend *be, enum gsvd_analysis_id an);

/* ---- small dense float64 algebra (host memory, row-major) ----------------------------------- */
/* All eigenpairs of the symmetric n x n matrix a (overwritten): w ascending, eigenvectors in
 * the columns of a.  GSVD_EDEGENERATE (logged) if the solver fails to converge. */
GSVD_NODISCARD int gsvd_backend_eigh(gsvd_backend *be, size_t n, double *a, double *w);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_BACKEND_H */
