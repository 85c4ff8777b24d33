/* analysis/scan/var_filter.h - the VCF FILTER column onto a scan's selection, as plink2's
 * `--var-filter [EXCEPTION...]`: a variant is kept when FILTER is PASS or missing ('.'), or
 * when every filter it fails is one of the exceptions.  VCF-Zarr (bio2zarr, sgkit) stores the
 * column as `variant_filter` (variants x filters, bool: filter f applies) beside `filter_id`
 * (the filters' names; "PASS" among them, set for a PASS record; a '.' record sets none).
 * Thread safety: calls share no state. */
#ifndef GSVD_ANALYSIS_SCAN_VAR_FILTER_H
#define GSVD_ANALYSIS_SCAN_VAR_FILTER_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/scan/genotype.h"
#include "common/buf.h"
#include "common/gsvd_defs.h"
#include "zarr/tree.h"
GSVD_EXTERN_C_BEGIN

struct gsvd_var_filter {
    uint8_t *keep;     /* per variant of the array: 1 = kept (owned) */
    uint64_t len;      /* entries: variant_filter's length */
    uint64_t n_failed; /* entries that are 0 by the FILTER column (before any other mask) */
};

/* Read variant_filter and filter_id of group `node` of t and make geno->variant_mask the
 * variants that pass (FILTER PASS or missing, or failing only filters named in `except`, which
 * may be NULL), ANDed with a mask already there (same length); *vf holds it and must outlive
 * geno's use (free with gsvd_var_filter_free).  An exception that names no filter of the store
 * is warned about.  Returns GSVD_OK, or (logged, naming the store) GSVD_ENOTFOUND (no
 * variant_filter or filter_id), GSVD_EFORMAT (variant_filter not 2-D bool, filter_id not 1-D
 * strings of its width), GSVD_EINCONSIST (a mask of another length), GSVD_EDEGENERATE (no
 * variant of geno's range passes), GSVD_ENOMEM or a store error. */
GSVD_NODISCARD int gsvd_var_filter_apply(gsvd_tree *t, const char *node,
                                         const struct gsvd_strlist *except,
                                         struct gsvd_var_filter *vf, struct gsvd_geno_params *geno);
void gsvd_var_filter_free(struct gsvd_var_filter *vf); /* accepts a zeroed struct */

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_SCAN_VAR_FILTER_H */
