/* analysis/pdist/king_parts.h - `pdist --finalize OUT` for the parts of a pair list
 * (`pdist -m king --min-kinship X --part I/N -o OUT`, king_pairs.h).  Part I is the Zarr v2
 * group OUT.gensvd-parts/part-I-of-N.zarr (pdist_parts.h) holding the kept pairs of its bands
 * along "pairs" and their table, part_bands (int64, bands x 4: first row, rows, first pair,
 * pairs).  The finalizer checks that the N parts are all there and agree (sample_id, and the
 * root attributes but the command line and the count), that their bands cover every row
 * exactly once, then writes the pairs band by band in row order into OUT through the sink one
 * process uses (king_pairs.c), so OUT is byte for byte the one-process output but for the
 * recorded command line (part 1's), and removes the parts.
 * Thread safety: one caller at a time per OUT. */
#ifndef GSVD_ANALYSIS_PDIST_KING_PARTS_H
#define GSVD_ANALYSIS_PDIST_KING_PARTS_H
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* Join the parts of OUT.  GSVD_OK; GSVD_ENOTFOUND (no parts), GSVD_EINCONSIST (a part missing,
 * parts of different runs or options, a band missing or in two parts: named), GSVD_EFORMAT (a
 * part's arrays or attributes are not a pair list's: named), GSVD_EIO (OUT exists and
 * !force, or a write failed), GSVD_ENOMEM; each logged.  On failure the parts are left as they
 * were, so it can run again once the cause is fixed. */
GSVD_NODISCARD int gsvd_king_parts_finalize(const char *out, int force);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_PDIST_KING_PARTS_H */
