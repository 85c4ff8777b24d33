/* analysis/scan/hwe.h - the Hardy-Weinberg exact test of one biallelic diploid variant
 * (Wigginton, Cutler and Abecasis 2005, Am. J. Hum. Genet. 76:887-893), the test of plink2's
 * `--hwe` and `--hardy`: given the allele counts, the probability of a heterozygote count no
 * more likely than the one observed.  Probabilities within a relative 1e-12 of the observed
 * one count as ties (so a symmetric distribution's mirror image is not lost to rounding).
 * Thread safety: pure functions. */
#ifndef GSVD_ANALYSIS_SCAN_HWE_H
#define GSVD_ANALYSIS_SCAN_HWE_H
#include <stdint.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* The exact test's p-value of `het` heterozygotes and `hom_a`, `hom_b` homozygotes of either
 * allele, in [0, 1]; midp 1: the mid-p value (less half the observed count's probability,
 * plink2's `midp` modifier).  1 for no genotypes or a monomorphic variant. */
double gsvd_hwe_p(uint64_t het, uint64_t hom_a, uint64_t hom_b, int midp);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_SCAN_HWE_H */
