/* analysis/scan/chr_select.h - the variants on chosen contigs (`--chr`, plink2's `--chr`) or on
 * all others (`--not-chr`) onto a scan's selection, as plink2 2.00a3.5 reads `--chr LIST
 * --allow-extra-chr`.  The list is
 * comma-separated items.  A contig's code is its number without a leading "chr" (any case),
 * or 23, 24, 25, 26 for X, Y, XY, MT (and M), any case; an item with a code takes the contigs
 * of that code ("X" takes "chrX" and "23"), a range A-B of codes the contigs whose code lies in
 * it (1-22: 1 .. 22 and chr1 .. chr22), and any other item the contig of exactly that name,
 * case included ("2L", "HLA-A": plink2's nonstandard names).  Contigs come from variant_contig
 * (indices) and contig_id (names), as VCF-Zarr stores them.
 * Thread safety: calls share no state. */
#ifndef GSVD_ANALYSIS_SCAN_CHR_SELECT_H
#define GSVD_ANALYSIS_SCAN_CHR_SELECT_H
#include "analysis/scan/autosomes.h"
#include "analysis/scan/genotype.h"
#include "common/gsvd_defs.h"
#include "zarr/tree.h"
GSVD_EXTERN_C_BEGIN

/* 1 if contig `name` is one that `list` chooses (see above), 0 if not, -1 if list has an empty
 * item or a range whose ends are out of order. */
int gsvd_chr_chooses(const char *list, const char *name);

/* 1 if contig names a and b name the same contig by the same rules: the same code ("chr1", "1"
 * and "CHR1"; "X", "chrX" and "23"), or, neither having one, the same name exactly. */
int gsvd_chr_same(const char *a, const char *b);

/* 1 if `list` names one contig at most: a single item that is not a range of two different
 * codes ("6", "chr6", "2L"; not "1-2" or "1,2"), as plink2 requires of --chr with
 * --from-bp/--to-bp; else 0. */
int gsvd_chr_one(const char *list);

/* The variants of group `node` of t on the contigs `list` chooses (exclude 0: `--chr`), or on
 * every other contig (exclude 1: plink2's `--not-chr`), become geno->variant_mask, ANDed with
 * a mask already there (same length); *out holds it and must outlive geno's use (free with
 * gsvd_autosomes_free).  `what` names the rule in messages ("--chr", "--autosome").  An item
 * that chooses no contig of the store is warned about.  Returns GSVD_OK, or (logged, naming
 * the store) GSVD_EINVAL (a malformed list), GSVD_ENOTFOUND (no variant_contig or contig_id),
 * GSVD_EINCONSIST (a mask of another length), GSVD_EDEGENERATE (no variant of geno's range
 * left), or the errors of gsvd_contigs_read. */
GSVD_NODISCARD int gsvd_chr_apply(gsvd_tree *t, const char *node, const char *list, int exclude,
                                  const char *what, struct gsvd_autosomes *out,
                                  struct gsvd_geno_params *geno);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_SCAN_CHR_SELECT_H */
