/* analysis/scan/gblock.h - a block of genotype rows as the genotype scan hands it to analyses and
 * backends (struct gsvd_gblock), what is known of its standardised values before reading
 * (struct gsvd_zbound), and the row groups every backend's products are made of.  Kept apart
 * from analysis/backend.h so that the scan (analysis/scan/genotype.h) does not depend on backends.
 * Thread safety: plain data and pure functions. */
#ifndef GSVD_ANALYSIS_SCAN_GBLOCK_H
#define GSVD_ANALYSIS_SCAN_GBLOCK_H
#include <stddef.h>
#include <stdint.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* A block of dosages for the variants of one read: rows = variants kept, cols = samples.
 * Exactly one of i8 / p2 / f64 is set.  Values: dosages, -1 (i8) or NaN (f64) for missing;
 * p2 packs four 2-bit codes per byte (code 0, 1, 2 = dosage, 3 = missing; sample i of a row is
 * bits 2(i%4) of byte i/4; rows are (n_cols + 3) / 4 bytes apart). */
struct gsvd_gblock {
    size_t n_rows;         /* variants in the block */
    size_t n_cols;         /* samples */
    const int8_t *i8;      /* row-major n_rows x n_cols, or NULL */
    const uint8_t *p2;     /* packed 2-bit rows, or NULL */
    const double *f64;     /* row-major n_rows x n_cols (float input), or NULL */
    const float *center;   /* per row: value subtracted (the mean, or 0) */
    const float *scale;    /* per row: multiplier (1 / sigma) */
    const float *missing;  /* per row: standardised value of a missing call; NULL = all 0 */
    const uint64_t *index; /* per row, ascending: the variant's index in the array, which fixes
                              the row groups of passes and Grams; NULL: rows are numbered from
                              0 at pass_begin / gram_begin */
};

/* Rows per product group of a pass.  Rows staged as floats or int8 (float64 dosages, dosages
 * above 2): the power of two nearest to 32 MiB of float32 rows of n samples, 64 .. 4096.  Rows
 * staged as 2-bit codes (`codes`: calls, or int8 dosages 0 .. 2) take at least
 * GSVD_PASS_CODE_ROWS: every group pays for its n x c partial product and its exact sum into
 * Y whatever its rows, and at 50,000 samples 128-row groups spent a quarter of each pass on
 * that (bench/README.md, "How the cost grows"); their staging is rows x n / 4 bytes.  A Gram
 * group is twice the float rule and never fewer rows than the codes rule.  Groups are rows
 * [j G, (j + 1) G) of the variant index, and every group size divides the Gram group's (powers
 * of two), so a split of the variants between processes at multiples of the Gram group keeps
 * every group whole (gsvd_pca_split). */
#define GSVD_PASS_CODE_ROWS ((size_t)1024)

static inline size_t gsvd_backend_pass_group_rows(size_t n, int codes)
{
    size_t want = ((size_t)32 << 20) / (4 * (n ? n : 1)), g = 64;
    /* the power of two nearest to `want` (on a log scale: 2g <= want * sqrt 2) */
    while (g < 4096 && 2 * g * 1000 <= want * 1414)
        g *= 2;
    return codes && g < GSVD_PASS_CODE_ROWS ? GSVD_PASS_CODE_ROWS : g;
}

static inline size_t gsvd_backend_gram_group_rows(size_t n)
{
    size_t g = 2 * gsvd_backend_pass_group_rows(n, 0);
    return g < GSVD_PASS_CODE_ROWS ? GSVD_PASS_CODE_ROWS : g;
}

/* What the analysis knows of the standardised values before it reads them (from the scaler,
 * the ploidy and the sample count; analysis/scan/genotype.h gsvd_geno_zbound), so that a backend
 * can add partial products exactly (common/xsum.h) and its results do not depend on how the rows
 * were split between threads or processes. */
struct gsvd_zbound {
    double max_abs;      /* |Z_ji| <= max_abs for every value */
    double row_sumsq;    /* sum_i Z_ji^2 <= row_sumsq for every row */
    uint64_t rows;       /* rows of one whole pass or Gram (over every process) <= rows */
    unsigned max_dosage; /* calls are integer dosages 0..max_dosage (the ploidy); 0 unknown */
};

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_SCAN_GBLOCK_H */
