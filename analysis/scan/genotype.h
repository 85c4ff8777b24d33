/* analysis/scan/genotype.h - genotype matrices read from Zarr as standardised variant blocks.
 * Finds the genotype array in a store (VCF-Zarr call_genotype, scikit-allel calldata/GT, or a
 * named 2-D dosage array), maps it to dosages (sgkit's rule: alleles > 0 among entries other
 * than -2; missing if any entry is -1), applies the variant range, sample subset and filters,
 * and computes each variant's centre and scale inside the same pass that delivers its block,
 * so no separate statistics pass is needed.  Blocks follow the chunk grid of the variant axis
 * and are decoded by worker threads; `scan` hands them to a callback in variant order.
 * Thread safety: one scan at a time per handle. */
#ifndef GSVD_ANALYSIS_SCAN_GENOTYPE_H
#define GSVD_ANALYSIS_SCAN_GENOTYPE_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/scan/gblock.h"
#include "common/buf.h"
#include "zarr/tree.h"
GSVD_EXTERN_C_BEGIN

typedef struct gsvd_geno gsvd_geno;

/* Largest sample axis gsvd_geno_open accepts: far above any cohort, far below what a hostile
 * .zarray shape could make it allocate (names, per-sample state, N x N results). */
#define GSVD_GENO_MAX_SAMPLES ((uint64_t)100000000)

enum gsvd_scaler {
    GSVD_SCALER_PATTERSON = 0, /* sigma = sqrt(p (1 - p)), p = mean / ploidy */
    GSVD_SCALER_HWE,           /* sigma = sqrt(ploidy p (1 - p)) */
    GSVD_SCALER_STANDARD,      /* sigma = standard deviation of called dosages (ddof 0) */
    GSVD_SCALER_CENTER,        /* sigma = 1 */
    GSVD_SCALER_NONE,          /* no centring, sigma = 1 */
};

struct gsvd_geno_params {
    const char *array;                  /* array path inside the node, or NULL to auto-detect */
    int transpose;                      /* 2-D arrays stored samples x variants */
    uint64_t var_start;                 /* first variant (0) */
    uint64_t var_stop;                  /* one past the last; 0 = all */
    const struct gsvd_strlist *samples; /* sample IDs to keep (in this order), or NULL = all */
    double maf;              /* keep variants with minor allele frequency >= maf (0 = all) */
    double max_missing;      /* keep variants with missing fraction <= this (1 = all) */
    double hwe;              /* drop the variants whose Hardy-Weinberg exact test p-value
                                (analysis/scan/hwe.h) is below this (0 = test none); needs diploid
                                integer calls */
    int hwe_midp;            /* test with the mid-p value */
    const uint8_t *hwe_test; /* borrowed, or NULL (every variant tested): per variant of the
                                array, 0 = not tested (plink2 leaves X, Y and MT out) */
    uint64_t hwe_test_len;   /* entries of hwe_test: the array's variant count */
    enum gsvd_scaler scaler;
    int missing_error;           /* 1: a missing call is an error */
    size_t ploidy;               /* for 2-D dosage arrays (3-D arrays have their own); 0 = 2 */
    size_t n_threads;            /* decode workers (>= 1) */
    uint64_t cache_bytes;        /* keep the standardised blocks in memory after the first scan, up
                                    to this many bytes (2 bits per call for ploidy <= 2); later scans
                                    then read no data.  0: never cache */
    const char *cache_dir;       /* blocks beyond cache_bytes go to an (unlinked) file here; NULL:
                                    no spilling, the cache is dropped when it does not fit */
    const uint8_t *variant_mask; /* borrowed, or NULL: per variant of the array, 0 = drop it
                                    (counted in n_mask); must outlive the handle */
    uint64_t variant_mask_len;   /* entries of variant_mask: the array's variant count */
    const uint8_t *sample_mask;  /* borrowed, or NULL: per sample of the array (by position),
                                    0 = leave it out; not with `samples` */
    uint64_t sample_mask_len;    /* entries of sample_mask: the array's sample count */
    const struct gsvd_strlist *keep_ids;   /* borrowed, or NULL: only the samples with these
                                              IDs (sorted by strcmp, each once), in addition
                                              to `samples` or sample_mask */
    const struct gsvd_strlist *remove_ids; /* borrowed, or NULL: not the samples with these IDs
                                              (sorted, each once) */
    const char *keep_file, *remove_file;   /* what messages call the two lists */
    int haplotypes;   /* 1: every allele of a 3-D call array is a column of its own
                         (a haplotype): sample i's allele h is column i P + h of P per
                         call, 1 where the allele is > 0, 0 where it is 0, missing
                         where it is < 0; the handle's ploidy is then 1 and its
                         sample IDs are ID_0 .. ID_{P-1} (gsvd_geno_call_ids: the
                         samples).  A heterozygous call must be phased
                         (call_genotype_phased beside the calls), unless
                         ignore_phase */
    int ignore_phase; /* with haplotypes: take the alleles in their stored order
                         whatever call_genotype_phased says (or without it) */
};
#define GSVD_GENO_PARAMS_DEFAULT                                                                   \
    {                                                                                              \
        .array = NULL, .transpose = 0, .var_start = 0, .var_stop = 0, .samples = NULL, .maf = 0,   \
        .max_missing = 1, .hwe = 0, .hwe_midp = 0, .hwe_test = NULL, .hwe_test_len = 0,            \
        .scaler = GSVD_SCALER_PATTERSON, .missing_error = 0, .ploidy = 0, .n_threads = 1,          \
        .cache_bytes = 0, .cache_dir = NULL, .variant_mask = NULL, .variant_mask_len = 0,          \
        .sample_mask = NULL, .sample_mask_len = 0, .haplotypes = 0, .ignore_phase = 0              \
    }

/* Per-block description handed to the scan callback with the block itself. */
struct gsvd_geno_info {
    uint64_t first;      /* index of the block's first variant within the range */
    size_t n_variants;   /* variants of the range in this block (kept or not) */
    const uint8_t *kept; /* per variant: 1 if kept (its row is in the block) */
    const double *mean;  /* per variant: mean called dosage (NaN if none) */
    const double *scale; /* per variant: 1 / sigma (0 when dropped) */
};

/* Called in variant order.  `blk` holds the kept variants' rows (possibly none). */
typedef int (*gsvd_geno_block_fn)(void *ctx, const struct gsvd_gblock *blk,
                                  const struct gsvd_geno_info *info);

struct gsvd_geno_counts {
    uint64_t n_range;         /* variants in the range */
    uint64_t n_kept;          /* used in the analysis */
    uint64_t n_no_calls;      /* dropped: no called genotype */
    uint64_t n_zero_var;      /* dropped: zero variance (e.g. monomorphic) */
    uint64_t n_maf;           /* dropped by --maf */
    uint64_t n_missing;       /* dropped by --max-missing */
    uint64_t n_missing_calls; /* missing calls among kept variants */
    uint64_t n_mask;          /* dropped by the variant mask */
    uint64_t n_hwe;           /* dropped by the Hardy-Weinberg test (hwe) */
};

/* Add the counts of `from` to `to` (inline: the scan and its cache both add, and neither
 * object may depend on the other). */
static inline void gsvd_geno_counts_add(struct gsvd_geno_counts *to,
                                        const struct gsvd_geno_counts *from)
{
    to->n_range += from->n_range;
    to->n_kept += from->n_kept;
    to->n_no_calls += from->n_no_calls;
    to->n_zero_var += from->n_zero_var;
    to->n_maf += from->n_maf;
    to->n_missing += from->n_missing;
    to->n_missing_calls += from->n_missing_calls;
    to->n_mask += from->n_mask;
    to->n_hwe += from->n_hwe;
}

/* Open the genotype matrix under node `path` of tree t (borrowed; must outlive the handle).
 * Returns GSVD_OK and a new handle (caller owns; free with gsvd_geno_close), or (logged)
 * GSVD_ENOTFOUND (no genotype array; with haplotypes no phase array, unless ignore_phase),
 * GSVD_EINCONSIST (unknown or duplicate sample IDs, shape disagreements), GSVD_EUNSUPPORTED (a
 * dtype that is not integer or float, a rank other than 2 or 3, more than
 * GSVD_GENO_MAX_SAMPLES samples; haplotypes of anything but 3-D integer calls; hwe of anything
 * but diploid integer calls), GSVD_EINVAL
 * (bad range), or store/format errors; GSVD_EINCONSIST also when variant_mask_len or
 * sample_mask_len differ from the array's variant or sample count, or the sample mask keeps no
 * sample.  A scan with haplotypes fails with GSVD_EINCONSIST (logged) on an unphased
 * heterozygous call. */
GSVD_NODISCARD int gsvd_geno_open(gsvd_tree *t, const char *path, const struct gsvd_geno_params *p,
                                  gsvd_geno **out);
void gsvd_geno_close(gsvd_geno *g); /* accepts NULL */

size_t gsvd_geno_n_samples(const gsvd_geno *g);          /* after subsetting */
uint64_t gsvd_geno_n_variants(const gsvd_geno *g);       /* in the range, before filters */
uint64_t gsvd_geno_n_array_variants(const gsvd_geno *g); /* of the whole array */
const char *gsvd_geno_array_path(const gsvd_geno *g);    /* borrowed; path inside the tree */
size_t gsvd_geno_ploidy(const gsvd_geno *g);
enum gsvd_scaler gsvd_geno_scaler(const gsvd_geno *g); /* the one it was opened with */
/* Opened with haplotypes: the alleles per call P (each sample is P columns); else 0. */
size_t gsvd_geno_haplotypes(const gsvd_geno *g);
/* The samples whose calls the columns hold: with haplotypes the n / P samples (borrowed),
 * otherwise gsvd_geno_sample_ids. */
const struct gsvd_strlist *gsvd_geno_call_ids(const gsvd_geno *g);
int gsvd_geno_is_float(const gsvd_geno *g); /* 1: float input (float64 blocks, NaN missing) */
const struct gsvd_strlist *gsvd_geno_sample_ids(const gsvd_geno *g); /* borrowed */
const char *gsvd_geno_array_name(const gsvd_geno *g); /* borrowed; for messages and attrs */
/* Counts from the last complete scan (all zero before one). */
const struct gsvd_geno_counts *gsvd_geno_counts(const gsvd_geno *g);

/* Blocks a scan hands to its callback (chunk rows of the variant range). */
uint64_t gsvd_geno_n_blocks(const gsvd_geno *g);
/* Variants in a chunk row of the array (blocks start at its multiples). */
uint64_t gsvd_geno_chunk_variants(const gsvd_geno *g);

/* Bytes a scan's decode pipeline holds at most (slot buffers of every worker). */
uint64_t gsvd_geno_scan_bytes(const gsvd_geno *g);

/* The variant range [*start, *stop) of the handle (indices in the array). */
void gsvd_geno_range(const gsvd_geno *g, uint64_t *start, uint64_t *stop);

/* Narrow the range to [start, stop) inside it (may be empty: scans then hand no block), before
 * the first scan; a distributed run gives each rank its part (gsvd_pca_split).  GSVD_OK, or
 * GSVD_EINTERNAL (logged) outside the range or after a scan. */
GSVD_NODISCARD int gsvd_geno_restrict(gsvd_geno *g, uint64_t start, uint64_t stop);

/* The variant range the handle was opened with (indices in the array): gsvd_geno_restrict
 * and gsvd_geno_move stay inside it. */
void gsvd_geno_open_range(const gsvd_geno *g, uint64_t *start, uint64_t *stop);

/* Move the range to [start, stop) (inside the range at open) after a scan: a distributed run
 * rebalancing its ranks' parts.  The next scan replays the cached blocks that lie wholly
 * inside the new range, reads the rest of it from the store and caches what it reads (within
 * the cache budget, minus what the kept blocks hold), so later scans read nothing; without a
 * cache every scan reads the new range; a second move drops the cache (distributed runs move
 * once).  Blocks keep their variant indices (gsvd_gblock.index); gsvd_geno_info.first counts
 * from start.  Returns GSVD_OK, or GSVD_EINTERNAL (logged) outside
 * the range at open, or twice without a scan in between. */
GSVD_NODISCARD int gsvd_geno_move(gsvd_geno *g, uint64_t start, uint64_t stop);

/* A bound on the standardised values of every kept row (for exact reductions, see
 * gsvd_backend_set_bound), from the scaler, the ploidy and the sample count alone, with `rows`
 * copied into out->rows.  GSVD_EUNSUPPORTED (not logged) for float input, whose values have
 * no such bound. */
GSVD_NODISCARD int gsvd_geno_zbound(const gsvd_geno *g, uint64_t rows, struct gsvd_zbound *out);

/* Change the cache budget before the first scan (0 turns caching off). */
void gsvd_geno_set_cache(gsvd_geno *g, uint64_t bytes);

/* 1 if the next scan will be served from the in-memory cache. */
int gsvd_geno_cached(const gsvd_geno *g);

/* One pass over the data: every block, in order, to fn.  Returns GSVD_OK, the callback's
 * error, or read/format errors (logged). */
GSVD_NODISCARD int gsvd_geno_scan(gsvd_geno *g, gsvd_geno_block_fn fn, void *ctx);

/* plink2's --mind counts: miss[i] (N entries, overwritten) the missing calls of sample i
 * (gsvd_geno_sample_ids' order) over every variant the range and the variant mask select,
 * whatever maf, max-missing, hwe and the no-call and zero-variance rules would drop, and
 * *n_variants those variants.  One pass over the store, which neither uses nor fills the
 * cache nor changes the counts of gsvd_geno_counts.  GSVD_EUNSUPPORTED (logged) with
 * haplotypes; else the errors of a scan. */
GSVD_NODISCARD int gsvd_geno_count_missing(gsvd_geno *g, uint64_t *miss, uint64_t *n_variants);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_SCAN_GENOTYPE_H */
