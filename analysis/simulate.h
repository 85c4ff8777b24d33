/* analysis/simulate.h - structured genotypes from the Balding-Nichols model, written as a
 * VCF-Zarr-style group.
 * Model: for each variant an ancestral frequency p ~ Uniform(0.05, 0.95); for each of K
 * populations a frequency p_k ~ Beta(p(1-F)/F, (1-p)(1-F)/F) (Fst = F); samples are split into
 * K contiguous, near-equal populations; each allele of a call is alternate with probability p_k;
 * a call is missing (all alleles -1) with probability `missing`.  Every random number comes from
 * the counter-based generator (common/rng.h), so the output does not depend on thread count or
 * chunking; nor on the CPU: the draws' log, exp and cos are common/detmath.h's, not libm's.
 * Output arrays: call_genotype (i1, variants x samples x ploidy, -1 missing; no fill value, as
 * bio2zarr writes it), call_genotype_mask (b1, the same shape and chunks, true where missing),
 * sample_id, sample_population (population names), variant_position (i4), variant_contig (i1),
 * contig_id, variant_allele (|S1 pairs "A"/"T"), and the true frequencies
 * variant_ancestral_frequency (f8) and variant_population_frequency (f8, variants x K).
 * Thread safety: calls share no state. */
#ifndef GSVD_ANALYSIS_SIMULATE_H
#define GSVD_ANALYSIS_SIMULATE_H
#include <stddef.h>
#include <stdint.h>
#include "common/gsvd_defs.h"
#include "common/progress.h"
#include "zarr/writer.h"
GSVD_EXTERN_C_BEGIN

struct gsvd_sim_params {
    uint64_t n_variants;              /* >= 1 */
    uint64_t n_samples;               /* >= 1 */
    size_t n_pops;                    /* 1 .. n_samples */
    double fst;                       /* (0, 1); with n_pops == 1 it is ignored */
    double missing;                   /* [0, 1) probability that a call is missing */
    uint64_t seed;                    /* generator key */
    size_t ploidy;                    /* 1..8 */
    uint64_t chunk_variants;          /* >= 1 */
    uint64_t chunk_samples;           /* >= 1 */
    size_t n_threads;                 /* >= 1 worker threads */
    const char *command;              /* command line recorded in the root attributes, or NULL */
    int overwrite;                    /* 1: replace an existing output */
    struct gsvd_progress progress;    /* per chunk row written: "writing", variants */
    struct gsvd_writer_params writer; /* Zarr format and shards (zarr_format 0: v2) */
};
#define GSVD_SIM_PARAMS_DEFAULT                                                                    \
    {                                                                                              \
        .n_variants = 10000, .n_samples = 100, .n_pops = 3, .fst = 0.05, .missing = 0.0,           \
        .seed = 42, .ploidy = 2, .chunk_variants = 1000, .chunk_samples = 10000, .n_threads = 1,   \
        .command = NULL, .overwrite = 0, .progress = {                                             \
            NULL,                                                                                  \
            NULL                                                                                   \
        }                                                                                          \
    }

/* Simulate and write to `out_url` (staged: nothing appears unless everything succeeded).
 * Returns GSVD_OK, GSVD_EINVAL (logged) for out-of-range parameters, or writer errors. */
GSVD_NODISCARD int gsvd_simulate(const struct gsvd_sim_params *p, const char *out_url);

/* The population frequency the model draws for (variant, population): exposed so tests can
 * check the written genotypes against it. */
double gsvd_simulate_pop_freq(const struct gsvd_sim_params *p, uint64_t variant, size_t pop);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_SIMULATE_H */
