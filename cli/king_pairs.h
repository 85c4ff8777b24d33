/* cli/king_pairs.h - `gensvd pdist --metric king --min-kinship X`: only the pairs whose kinship
 * is >= X, as a table like plink2's .kin0 on stdout (streamed band by band) or as Zarr arrays
 * along a "pairs" axis.  Memory does not grow with N^2: the TSV is written as bands finish, and
 * the Zarr arrays are spooled to an unlinked temporary file (36 bytes a kept pair) until the
 * pair count, which sizes the arrays, is known.
 * Thread safety: one band at a time. */
#ifndef GSVD_CLI_KING_PAIRS_H
#define GSVD_CLI_KING_PAIRS_H
#include <stdint.h>
#include "analysis/pdist/pdist.h"
#include "common/buf.h"
#include "zarr/writer.h"

struct king_pairs_cfg {
    const char *output; /* Zarr group path, or NULL for TSV on stdout */
    int force;          /* replace an existing output */
    int counts;         /* TSV: counts (and HET1_HOM2, HET2_HOM1) instead of proportions */
    double min_kinship; /* keep pairs with kinship >= this */
    const struct gsvd_strlist *ids; /* sample IDs (borrowed) */
    size_t n;
    struct gsvd_writer_params wp;
};

struct king_pairs;

/* Start the output (TSV header, or the spool file).  Caller owns *out (king_pairs_close).
 * GSVD_ENOMEM, GSVD_EIO (logged). */
GSVD_NODISCARD int king_pairs_open(const struct king_pairs_cfg *cfg, struct king_pairs **out);
/* The engine's sink (ctx = the king_pairs); bands must carry the KING counts. */
int king_pairs_band(void *ctx, const struct gsvd_pdist_band *b);
/* Pairs kept so far. */
uint64_t king_pairs_count(const struct king_pairs *kp);
/* Write the Zarr arrays and attributes (a JSON object text) and commit, or flush the TSV. */
GSVD_NODISCARD int king_pairs_finish(struct king_pairs *kp, const char *attrs_json);
void king_pairs_close(struct king_pairs *kp); /* discards an uncommitted output; accepts NULL */

#endif /* GSVD_CLI_KING_PAIRS_H */
