/* gpu/backend_cuda_internal.h - for gpu/backend_cuda.c and gpu/pca_cuda.c only: the CUDA
 * backend's state.  backend_cuda.c has the core ops (device selection, create and destroy, the
 * eigensolver, the analysis op) and pdist's table, which forwards to gpu/pdist_cuda.c;
 * pca_cuda.c has PCA's device table (passes, projection, exact Gram) and the buffers it uses.
 * pca_cuda.c calls nothing in backend_cuda.c (no object-file cycles).
 * Thread safety: one thread per backend. */
#ifndef GSVD_GPU_BACKEND_CUDA_INTERNAL_H
#define GSVD_GPU_BACKEND_CUDA_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>
#include "analysis/backend_internal.h"
#include "analysis/pca/pca_device.h"
#include "gpu/kernels.h"
#include "gpu/pdist_cuda.h"
#include "gpu/staging.h"
#include "gpu/timer.h"

struct backend_cuda {
    struct gsvd_backend base;
    gsvd_backend *host; /* CPU backend: eigenproblems below GSVD_CUDA_EIGH_DEVICE_MIN */
    int device;
    cudaStream_t copy, compute;
    cublasHandle_t blas;
    cusolverDnHandle_t solver;
    struct gsvd_cuda_slot slot[2]; /* staging: rows, then center, scale, missing (float each) */
    unsigned next;                 /* slot of the next upload */
    int busy;                      /* a pass or Gram is open */
    size_t n, c;                   /* samples; columns of X in a pass */
    size_t group, filled;          /* rows per group; rows of the open group on the device */
    float *z;                      /* group x n standardised rows */
    uint32_t *hist;                /* group x GSVD_STD_BINS byte counts */
    double *rs;                    /* group row sums of squares */
    double *acc;                   /* 2: sum of squares since the pass began (hi, lo when exact) */
    double *sumsq_out;             /* host: where the end call adds acc */
    float *x, *t, *yblk;           /* pass: n x c, group x c, n x c */
    double *y;                     /* pass: n x c accumulator */
    float *gblk;                   /* Gram: n x n float32 group Gram (n <= GRAM_F32_MAX_N) */
    double *zd;                    /* group x n float64 rows (project; Gram above GRAM_F32_MAX_N) */
    double *g;                     /* Gram: n x n float64 accumulator */
    double *u, *out;               /* project: n x c, group x c */
    size_t x_cap, t_cap, yblk_cap, y_cap, zd_cap, u_cap, out_cap; /* bytes */
    struct gsvd_cuda_xfer xfer;                                   /* uploads, for the -v report */
    struct gsvd_cuda_timer timer; /* device time and memory, for the -v report */
    gsvd_cuda_pd *pd;             /* pdist bands (first use) */
    /* exact sums (set_bound; analysis/backend.h): groups of xgroup rows by variant index,
     * every group's product added onto fixed grids (gpu/kernel_body.h gsvd_kb_acc_xsum) */
    int bounded, exact;         /* a bound is set; this pass or Gram adds exactly */
    struct gsvd_zbound zb;      /* the bound */
    size_t xgroup;              /* rows per exact group: a power of two dividing the Gram group */
    uint64_t next_index, gid;   /* rows without an index: the next number; the open group */
    double *ylo, *glo;          /* low parts: n x c (pass), n x n (Gram) */
    size_t ylo_cap;             /* bytes */
    struct gsvd_kb_grid *grids; /* device: the c column grids of Y, or the Gram's */
    size_t grids_cap;           /* bytes */
    struct gsvd_kb_grid trgrid; /* the trace's grid */
    uint32_t *over;             /* device: values beyond their bound */
    double tr[2];               /* host: the last pass's trace parts */
};

/* (pca_cuda.c) PCA's device table: struct gsvd_pca_device_ops of analysis/pca/pca_device.h. */
extern const struct gsvd_pca_device_ops gsvd_cuda_pca_ops;

#endif /* GSVD_GPU_BACKEND_CUDA_INTERNAL_H */
