/* analysis/pdist/pdist.h - pairwise distances between the items (samples, or variants) of a
 * genotype or numeric matrix. Metrics follow scipy.spatial.distance definitions; `ibs` is
 * PLINK 1.9's 1 - IBS.  Missing data: GSVD_PDIST_PAIRWISE uses, for each pair, the features called
 * in both (NaN when there are none); GSVD_PDIST_SCALE also rescales the additive metrics by M /
 * n_ij (PLINK flat-missing); GSVD_PDIST_ERROR fails on the first missing call.
 *
 * Kernels: genotypes (0..2, missing) go through bit planes and popcounts (exact integer counts);
 * euclidean / sqeuclidean / cosine / correlation on complete data through a Gram matrix (dgemm,
 * float64); everything else through a generic pair loop with float64 sums in feature order.
 * Results never depend on --threads or the chunking.  A kernel that meets data it cannot take
 * (a missing value for the Gram kernel, a value other than 0, 1, 2 for the bit planes) hands
 * over to the next one and the pass starts again.
 *
 * Out of core: the pairs are computed in bands of rows (the upper triangle only), each band in
 * one pass over the data, sized so the working set stays under params.memory.  Every finished
 * band goes to the caller's sink and is then dropped, so memory does not grow with N^2.
 * On a device (params.device): the bit-plane counts and the generic float64 sums are
 * accumulated there, band by band (bands also fit the device's free memory); the counts are
 * the host's integers, so distances are identical; the Gram kernel is not used in AUTO.
 * Thread safety: calls share no state (a device backend is used by one run at a time). */
#ifndef GSVD_ANALYSIS_PDIST_PDIST_H
#define GSVD_ANALYSIS_PDIST_PDIST_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/backend.h"
#include "analysis/scan/genotype.h"
#include "common/comm.h"
#include "common/progress.h"
GSVD_EXTERN_C_BEGIN

enum gsvd_pdist_metric {
    GSVD_PDIST_EUCLIDEAN = 0,
    GSVD_PDIST_SQEUCLIDEAN,
    GSVD_PDIST_CITYBLOCK,
    GSVD_PDIST_MINKOWSKI,
    GSVD_PDIST_CHEBYSHEV,
    GSVD_PDIST_COSINE,
    GSVD_PDIST_CORRELATION,
    GSVD_PDIST_HAMMING,
    GSVD_PDIST_JACCARD,
    GSVD_PDIST_BRAYCURTIS,
    GSVD_PDIST_CANBERRA,
    GSVD_PDIST_IBS,
    GSVD_PDIST_KING,       /* KING-robust kinship (plink2 --make-king): a similarity, self = 0.5 */
    GSVD_PDIST_IBS0,       /* fraction of jointly called sites with opposite homozygotes */
    GSVD_PDIST_P_DISTANCE, /* VCF2Dis's p-distance: the fraction of haplotype pairs (each
                              item's haplotype h against the other's h) that differ, over the
                              sites called in both; hamming on haplotype values */
    GSVD_PDIST_N_METRICS
};

enum gsvd_pdist_missing {
    GSVD_PDIST_PAIRWISE = 0,
    GSVD_PDIST_SCALE,
    GSVD_PDIST_ERROR,
};

enum gsvd_pdist_kernel {
    GSVD_PDIST_KERNEL_AUTO = 0,
    GSVD_PDIST_KERNEL_BITPLANE, /* genotypes 0..2 with missing: popcounts */
    GSVD_PDIST_KERNEL_GRAM,     /* complete data: dgemm */
    GSVD_PDIST_KERNEL_GENERIC,  /* anything: pair loop */
};

enum gsvd_pdist_simd {
    GSVD_PDIST_SIMD_AUTO = 0, /* best the CPU has */
    GSVD_PDIST_SIMD_SCALAR,   /* 64-bit popcounts only (tests compare the two) */
};

struct gsvd_pdist_params {
    enum gsvd_pdist_metric metric;
    double p; /* minkowski order, > 0 */
    enum gsvd_pdist_missing missing;
    size_t n_threads;              /* threads (>= 1) */
    struct gsvd_progress progress; /* per stripe: "pass b/n" (one per band), features done */
    uint64_t memory;               /* working-set cap in bytes; 0 = none (one band) */
    uint64_t sink_bytes;           /* memory the sink itself holds (counted against memory) */
    size_t row_align;              /* band heights are multiples of this (the sink's chunk
                                      rows), except the last; 0 or 1 = any */
    enum gsvd_pdist_kernel kernel; /* first kernel to try (AUTO: by metric and data) */
    enum gsvd_pdist_simd simd;
    size_t ploidy; /* `ibs` divides by ploidy n_ij: matrix input (0 = 2); genotypes use theirs */
    gsvd_backend *device; /* borrowed; when it accumulates pdist bands (gsvd_backend_has_pdist),
                             the bit-plane and generic kernels run their pair loops there; NULL
                             or any other backend: the host */
    gsvd_comm *comm;      /* distributed run (borrowed), or NULL: one process.  The bands are
                             shared out between the ranks (at least four per rank where the
                             row alignment allows, balanced by pairs); each rank reads the input
                             and computes its bands; rank 0 receives the others' finished bands
                             and hands every band to its sink in row order, so only rank 0
                             needs a sink (the others pass NULL).  A failure on another rank
                             reaches rank 0 as GSVD_EPEER (logged); rank 0's caller then ends
                             the run with gsvd_comm_abort, since the others may wait in a send */
    size_t part, n_parts; /* job arrays without MPI (n_parts > 1, comm NULL): compute only the
                             bands of part `part` (1..n_parts) of the same sharing as ranks, and
                             hand them to this process's sink; part 1 has band 0 */
    size_t hap_group;     /* p-distance on genotypes opened with haplotypes: the columns of one
                             item (the calls' ploidy, gsvd_geno_haplotypes), so the items are
                             the samples and their haplotypes, position by position, the
                             features (P per variant); 0 or 1: every column an item (each
                             haplotype its own, `pdist --haplotypes`).  Other metrics: 0 or 1 */
};
#define GSVD_PDIST_PARAMS_DEFAULT                                                                  \
    {                                                                                              \
        .metric = GSVD_PDIST_EUCLIDEAN, .p = 2, .missing = GSVD_PDIST_PAIRWISE, .n_threads = 1,    \
        .progress = {NULL, NULL}, .memory = 0, .sink_bytes = 0, .row_align = 1,                    \
        .kernel = GSVD_PDIST_KERNEL_AUTO, .simd = GSVD_PDIST_SIMD_AUTO, .ploidy = 0,               \
        .device = NULL, .comm = NULL, .part = 0, .n_parts = 0, .hap_group = 0                      \
    }

/* One finished band: rows [row0, row0 + n_rows) against columns [row0, n).  Entry (r, c) is
 * the pair (row0 + r, row0 + c); ld = n - row0.  Inside the band's own square (c < n_rows) both
 * triangles and the diagonal (0; 0.5 for king, gsvd_pd_self_value) are filled; nothing left of
 * row0 is given (it is the mirror of an earlier band).  n_sites: features called in both (the
 * diagonal: the item's own).  king: for king and ibs0 (else NULL), GSVD_PDIST_KING_COUNTS
 * integers per pair at ((r * ld + c) * GSVD_PDIST_KING_COUNTS): het-het sites, opposite
 * homozygotes (IBS0), x's hets and y's hets over the sites called in both (the diagonal's are
 * 0: not counted). */
#define GSVD_PDIST_KING_COUNTS 4
struct gsvd_pdist_band {
    size_t n; /* items */
    size_t row0, n_rows;
    size_t ld; /* n - row0 */
    const double *dist;
    const uint32_t *n_sites;
    const uint32_t *king; /* see above, or NULL */
    uint64_t n_missing;   /* missing values in the whole input (known from the first band on) */
};
/* Called once per band, in row order.  A negative return stops the run with that error. */
typedef int (*gsvd_pdist_sink_fn)(void *ctx, const struct gsvd_pdist_band *b);

struct gsvd_pdist_summary {
    size_t n;            /* items */
    uint64_t m;          /* features (variants in the range, or samples) */
    uint64_t n_missing;  /* missing values seen */
    size_t n_bands;      /* bands (passes over the data, unless the planes were cached) */
    size_t n_scans;      /* passes that read the input */
    const char *kernel;  /* the kernel that produced the result (static string) */
    const char *device;  /* where its pair loop ran: "cpu" or the backend's name (static) */
    uint64_t peak_bytes; /* the planned working set */
    /* bit-plane kernel: segments of features counted on the host, those of them without a
     * missing call (counted without the called mask), and (KING) those whose few missing
     * calls were counted apart */
    uint64_t n_segments, n_segments_complete, n_segments_apart;
};

/* Parse / name metrics ("euclidean", ..., "ibs").  Parse returns -1 for unknown names. */
int gsvd_pdist_metric_parse(const char *name, enum gsvd_pdist_metric *out);
const char *gsvd_pdist_metric_name(enum gsvd_pdist_metric m);
const char *gsvd_pdist_metric_list(void); /* "euclidean, sqeuclidean, ..." */
const char *gsvd_pdist_missing_name(enum gsvd_pdist_missing m);
/* The instructions the bit-plane kernel counts with on this CPU under common/cpu.h's cap, with
 * GSVD_PDIST_SIMD_AUTO: "AVX-512 VPOPCNTDQ", "AVX2", "POPCNT" or "portable code" (a static
 * string; for --version). */
const char *gsvd_pdist_popcount_engine(void);

/* Distances between the samples of g (borrowed; open it with the NONE scaler and no filters so
 * blocks carry raw dosages; for p-distance with haplotypes).  Finished bands go to
 * sink(ctx, band).  Returns GSVD_OK (and the summary in *sum when not NULL), GSVD_EINVAL (bad
 * p; p-distance on a handle without haplotypes; a hap_group that is not its ploidy or 1, or
 * with another metric; logged), GSVD_ENOMEM (logged when the
 * cap cannot hold one band of rows), the sink's errors, or read errors (missing calls with
 * GSVD_PDIST_ERROR come from the genotype reader). */
GSVD_NODISCARD int gsvd_pdist_run(gsvd_geno *g, const struct gsvd_pdist_params *p,
                                  gsvd_pdist_sink_fn sink, void *ctx,
                                  struct gsvd_pdist_summary *sum);

/* The same for an in-memory matrix: n items x m features, row-major float64, NaN = missing
 * (borrowed).  GSVD_PDIST_ERROR fails (logged, GSVD_EFORMAT) on a NaN. */
GSVD_NODISCARD int gsvd_pdist_run_matrix(const double *x, size_t n, size_t m,
                                         const struct gsvd_pdist_params *p, gsvd_pdist_sink_fn sink,
                                         void *ctx, struct gsvd_pdist_summary *sum);

/* The same for int8 dosages (0..ploidy, negative = missing), n items x m features row-major. */
GSVD_NODISCARD int gsvd_pdist_run_matrix_i8(const int8_t *x, size_t n, size_t m,
                                            const struct gsvd_pdist_params *p,
                                            gsvd_pdist_sink_fn sink, void *ctx,
                                            struct gsvd_pdist_summary *sum);

/* For distances between variants: read the kept variants of g into memory as an items x
 * features matrix (variants x samples): int8 dosages (-1 missing) in *x8 for genotype arrays,
 * float64 (NaN missing) in *x for float arrays; the other is NULL (caller owns both, freed
 * with gsvd_free), with each row's variant index within the range in *ids (caller owns).
 * Variants without any call are dropped by the reader.  GSVD_ENOMEM (logged) when the matrix
 * would exceed half of p->memory (0 = no cap).  On success p is made ready for the run on this
 * matrix: p->ploidy is the genotypes' ploidy, and a nonzero p->memory is reduced by the bytes
 * the matrix holds (it is part of the working set; at least 1 is left).  On failure p is
 * unchanged. */
GSVD_NODISCARD int gsvd_pdist_collect_variants(gsvd_geno *g, struct gsvd_pdist_params *p,
                                               double **x, int8_t **x8, size_t *rows,
                                               uint64_t **ids);

/* Position of pair (i, j), i < j < n, in scipy's condensed vector (64-bit for any n). */
static inline uint64_t gsvd_pdist_condensed_index(uint64_t n, uint64_t i, uint64_t j)
{
    return n * i - i * (i + 1) / 2 + (j - i - 1);
}

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_PDIST_PDIST_H */
