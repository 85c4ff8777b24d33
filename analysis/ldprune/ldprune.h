/* analysis/ldprune/ldprune.h - LD pruning with plink2 --indep-pairwise semantics.
 * The genotype scan hands the variants that pass its filters (range, --maf, --max-missing; the
 * handle must be opened with GSVD_SCALER_CENTER so that monomorphic variants are not dropped by
 * it); each is stored as three bit planes (dosage >= 1, dosage == 2, called) while a window
 * holds it (streamed: memory is O(window x samples), plus the result arrays).  Per contig
 * (runs of equal `variant_contig`), a window slides over them: `window` variants, or the
 * variants whose `variant_position` is within `window_bp` of the window's first one; it moves
 * by `step` variants.  Each window runs plink2 2.00a3's greedy pass ("PLINK 1.x" order):
 * sweeps over the remaining i ascending, each i comparing itself with the remaining j > i it
 * has not met yet and stopping at the first pair with r^2 > threshold, which removes i when its
 * minor allele frequency is lower, else j; sweeps repeat until one removes nothing; a pair is
 * compared at most once over all windows.  r^2 is the Pearson correlation of the dosages over
 * the samples called in both, tested as plink2 does (cov^2 > r2 (1 + 2^-44) var_i var_j from
 * exact integer sums, in double; never when either is constant there; the allele frequency
 * comparison with the same slack); a monomorphic variant is removed once a window holds it and
 * another variant (as plink2 does), before the pairs.
 * Threads: the r^2 of each window step's new pairs in parallel (the greedy pass is sequential
 * and reads them); contigs one after another, in scan order.
 * Ranks (a distributed run, `comm`): windows never cross contigs, so the contig runs of the
 * range are cut into `size` contiguous parts of whole contigs, balanced by variants (a part may
 * be empty; a store whose contig runs repeat a contig, or with one contig, is not cut: rank 0
 * prunes it all); each rank prunes its part as one process would, and the keep flags and the
 * counts are gathered onto every rank: the result is one process's, byte for byte.
 * Thread safety: one run per genotype handle. */
#ifndef GSVD_ANALYSIS_LDPRUNE_LDPRUNE_H
#define GSVD_ANALYSIS_LDPRUNE_LDPRUNE_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/scan/genotype.h"
#include "common/comm.h"
#include "zarr/result.h"
#include "zarr/tree.h"
GSVD_EXTERN_C_BEGIN

struct gsvd_ldprune_params {
    double r2;          /* a pair with r^2 > r2 loses a variant; 0 <= r2 < 1 */
    uint64_t window;    /* window in variants (used when window_bp is 0), >= 2 */
    uint64_t window_bp; /* > 0: window in base pairs of variant_position */
    uint64_t step;      /* variants the window moves by, >= 1 */
    size_t n_threads;   /* >= 1 */
    gsvd_comm *comm;    /* distributed run (borrowed), or NULL: one process.  Every rank calls
                           the run; every rank then holds the whole result */
};
#define GSVD_LDPRUNE_PARAMS_DEFAULT                                                                \
    {                                                                                              \
        .r2 = 0.2, .window = 0, .window_bp = 0, .step = 1, .n_threads = 1, .comm = NULL            \
    }

struct gsvd_ldprune_result {
    uint64_t n_array;     /* variants of the genotype array: the length of keep */
    uint8_t *keep;        /* owned; 1 = kept; 0 outside the range, filtered or pruned */
    uint64_t range_start; /* variant range of the scan [range_start, range_stop) */
    uint64_t range_stop;
    int64_t *contig;        /* owned; per variant of the range: contig index (0 without
                               variant_contig) */
    int64_t *position;      /* owned; per variant of the range, or NULL without variant_position */
    uint64_t n_considered;  /* variants that passed the scan's filters */
    uint64_t n_monomorphic; /* of those: removed as monomorphic */
    uint64_t n_pruned;      /* of those: removed by LD */
    uint64_t n_kept;        /* of those: kept */
    uint64_t n_pairs;       /* r^2 values computed */
};

/* Prune the variants of g (borrowed, opened with GSVD_SCALER_CENTER on an integer genotype
 * array of ploidy <= 2) found under node `node` of tree t (borrowed; variant_position and
 * variant_contig are looked up beside the genotype array).  Fills *out (caller owns; free
 * with gsvd_ldprune_result_free).  Returns GSVD_OK or (logged) GSVD_EINVAL (bad parameters),
 * GSVD_EUNSUPPORTED (float input, ploidy > 2), GSVD_ENOTFOUND (no variant_position for a bp
 * window), GSVD_EFORMAT (positions not sorted within a contig, arrays of the wrong shape or
 * dtype), GSVD_ENOMEM, or the scan's errors; with p->comm, GSVD_EPEER when another rank failed
 * (every rank returns an error then: gsvd_comm_agree) or GSVD_EIO (MPI). */
GSVD_NODISCARD int gsvd_ldprune_run(gsvd_geno *g, gsvd_tree *t, const struct gsvd_ldprune_params *p,
                                    struct gsvd_ldprune_result *out);
void gsvd_ldprune_result_free(struct gsvd_ldprune_result *r); /* accepts NULL or zeroed */

/* The ranks' parts of a range whose variants have the contig indices contig[0, n): cuts[r] to
 * cuts[r + 1] (offsets in the range; cuts has size + 1 entries, cuts[0] = 0, cuts[size] = n)
 * for rank r.  Cuts fall between runs of equal contig, each at the one nearest to r / size of
 * the variants (the lower one on a tie); a part may be empty.  When some contig has two runs
 * (the pass would join them if the variants between were filtered out) nothing is cut: rank 0
 * has the whole range.  GSVD_OK or GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_ldprune_split(const int64_t *contig, uint64_t n, int size, uint64_t *cuts);

/* Read elements [start, start + n) of the 1-D integer or bool array at `path` of t into dst
 * as int64.  GSVD_ENOTFOUND (not logged) when there is no array there; GSVD_EFORMAT (logged)
 * for a wrong rank, a length below start + n or a non-integer dtype. */
GSVD_NODISCARD int gsvd_ldprune_read_ints(gsvd_tree *t, const char *path, uint64_t start,
                                          uint64_t n, int64_t *dst);

/* The instructions the r^2 counts run on here under common/cpu.h's cap: "AVX-512 VPOPCNTDQ",
 * "AVX2", "POPCNT" or "portable code" (a static string; for --version). */
const char *gsvd_ldprune_popcount_engine(void);

/* ---- around the pass (analysis/ldprune/ldprune_store.c) ---- */

/* A window: "INT" (variants, >= 2), "INTkb" or "INTbp" into *variants or *bp (the other 0).
 * GSVD_OK or GSVD_EINVAL (nothing logged). */
GSVD_NODISCARD int gsvd_ldprune_parse_window(const char *s, uint64_t *variants, uint64_t *bp);
/* "R2,WINDOW[,STEP]" (`pca --ld-prune`) into p's r2, window and step.  GSVD_OK or GSVD_EINVAL. */
GSVD_NODISCARD int gsvd_ldprune_parse_spec(const char *s, struct gsvd_ldprune_params *p);

/* Prune the genotypes of node `node` of t under `geno` (its range, samples, filters and masks;
 * the scaler is replaced) into *out (caller frees with gsvd_ldprune_result_free).  Errors as
 * gsvd_geno_open and gsvd_ldprune_run (logged).  With lp->comm every rank calls it; on failure
 * every rank fails. */
GSVD_NODISCARD int gsvd_ldprune_mask(gsvd_tree *t, const char *node,
                                     const struct gsvd_geno_params *geno,
                                     const struct gsvd_ldprune_params *lp,
                                     struct gsvd_ldprune_result *out);

/* The output group (`gensvd ldprune -o`): variant_ld_keep (bool, the array's variants, chunks of
 * up to 1,000,000) and the attributes version, command, source, method, r2, window_variants,
 * window_bp, step, variant_range, maf, max_missing, n_samples ("all" or "subset"),
 * n_variants, n_considered, n_kept, n_removed, n_pruned, n_monomorphic. */
struct gsvd_ldprune_store_info {
    const char *command;                  /* the command line, or NULL */
    const char *source;                   /* the input as the caller named it */
    const struct gsvd_ldprune_params *lp; /* r2, window, step */
    const struct gsvd_geno_params *geno;  /* maf, max_missing */
    int samples_subset;                   /* a sample list was given */
};
/* Caller frees *out (gsvd_result_free).  GSVD_OK or GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_ldprune_store_build(const struct gsvd_ldprune_store_info *info,
                                            const struct gsvd_ldprune_result *r, gsvd_result **out);

/* The variants of the scanned range as arrays held beside the output group, never written
 * (`gensvd ldprune`'s table: variant, contig, position): variant_index (uint64, each variant's
 * index in the genotype array), variant_contig (int64, r->contig), variant_position (int64,
 * r->position; absent when r has none), each of r->range_stop - r->range_start elements, and
 * contig_id (strings: the 1-D string array of that name under node `node` of t, which
 * variant_contig indexes; absent when there is none or it cannot be read).  Caller frees *out
 * (gsvd_result_free).  GSVD_OK or GSVD_ENOMEM; contig_id's read errors are logged and
 * otherwise ignored. */
GSVD_NODISCARD int gsvd_ldprune_table_build(gsvd_tree *t, const char *node,
                                            const struct gsvd_ldprune_result *r, gsvd_result **out);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_LDPRUNE_LDPRUNE_H */
