/* analysis/pdist/king_pairs.h - `gensvd pdist --metric king --min-kinship X`: only the pairs
 * whose kinship is >= X, as a table like plink2's .kin0 on a stream (streamed band by band) or as
 * Zarr arrays along a "pairs" axis.  Memory does not grow with N^2: the TSV is written as bands
 * finish, and the Zarr arrays are spooled to an unlinked temporary file (36 bytes a kept pair)
 * until the pair count, which sizes the arrays, is known.  A part of a job array (cfg.part,
 * `pdist --part I/N --min-kinship X -o OUT`) writes its own pairs the same way, plus the table
 * of its bands, into OUT.gensvd-parts/part-I-of-N.zarr; gsvd_king_parts_finalize
 * (king_parts.h) joins the parts into the one-process output.  Thread safety: one band at a
 * time. */
#ifndef GSVD_ANALYSIS_PDIST_KING_PAIRS_H
#define GSVD_ANALYSIS_PDIST_KING_PAIRS_H
#include <stdint.h>
#include <stdio.h>
#include "analysis/pdist/pdist.h"
#include "common/buf.h"
#include "zarr/result.h"
#include "zarr/writer.h"
GSVD_EXTERN_C_BEGIN

/* One kept pair (i < j) and its counts over the sites called in both. */
struct gsvd_king_pair {
    uint32_t i, j, n, hethet, ibs0, het1_hom2, het2_hom1;
    double kinship;
};

struct gsvd_king_pairs_cfg {
    const char *output; /* Zarr group path, or NULL for TSV on `tsv` */
    FILE *tsv;          /* without output: where the TSV goes (borrowed; the CLI: stdout); NULL too:
                           the pairs are held in memory for gsvd_king_pairs_build (the library's run
                           without a destination) */
    int force;          /* replace an existing output */
    int counts;         /* TSV: counts (and HET1_HOM2, HET2_HOM1) instead of proportions */
    double min_kinship; /* keep pairs with kinship >= this */
    const struct gsvd_strlist *ids; /* sample IDs (borrowed) */
    size_t n;
    struct gsvd_writer_params wp;
    int part; /* a job-array part: also write part_bands (int64, bands x 4: first row, rows,
                 first pair, pairs) and commit with gsvd_writer_commit */
    /* without output and tsv: each band's kept pairs (in row order; n may be 0) handed to emit
       once the band is scanned, then dropped, instead of held for gsvd_king_pairs_build;
       emit returns GSVD_OK or an error code (logged by emit), which stops the run */
    int (*emit)(void *emit_ctx, const struct gsvd_king_pair *pairs, size_t n);
    void *emit_ctx;
};

typedef struct gsvd_king_pairs gsvd_king_pairs;

/* Start the output (TSV header, or the spool file).  Caller owns *out (gsvd_king_pairs_close),
 * set even on failure.  GSVD_ENOMEM, GSVD_EIO (logged). */
GSVD_NODISCARD int gsvd_king_pairs_open(const struct gsvd_king_pairs_cfg *cfg,
                                        gsvd_king_pairs **out);
/* The engine's sink (ctx = the gsvd_king_pairs); bands must carry the KING counts.  GSVD_OK,
 * GSVD_EIO (logged). */
int gsvd_king_pairs_band(void *ctx, const struct gsvd_pdist_band *b);
/* Append one pair to a Zarr output or the pairs in memory (the finalizer's path; pairs in row
 * order).  GSVD_OK, GSVD_EIO (logged), GSVD_ENOMEM, GSVD_EINVAL (a TSV output). */
GSVD_NODISCARD int gsvd_king_pairs_put(gsvd_king_pairs *kp, const struct gsvd_king_pair *p);
/* Pairs kept so far. */
uint64_t gsvd_king_pairs_count(const gsvd_king_pairs *kp);
/* Write the Zarr arrays and the root attributes, and commit, or flush the TSV.  attrs_json: a
 * JSON object text ending in "\n}"; "n_pairs" (the count) is added as its last member.
 * GSVD_EINVAL for pairs held in memory. */
GSVD_NODISCARD int gsvd_king_pairs_finish(gsvd_king_pairs *kp, const char *attrs_json);
/* The pairs held in memory as the output group a Zarr output holds (the same arrays, chunks
 * and attributes: gsvd_result_write writes its bytes) into *out (caller frees); with cfg.emit,
 * the group's attributes alone.  GSVD_OK, GSVD_ENOMEM, GSVD_EINVAL (not held in memory: a
 * Zarr or TSV output). */
GSVD_NODISCARD int gsvd_king_pairs_build(gsvd_king_pairs *kp, const char *attrs_json,
                                         gsvd_result **out);
/* The pair list's root attributes, appended to b: attrs_json (ending in "\n}") with "n_pairs"
 * as the last member.  GSVD_OK, GSVD_ENOMEM, GSVD_EINTERNAL (attrs_json malformed). */
GSVD_NODISCARD int gsvd_king_pairs_attrs(const char *attrs_json, uint64_t n_pairs,
                                         struct gsvd_buf *b);
void gsvd_king_pairs_close(gsvd_king_pairs *kp); /* discards an uncommitted output; accepts NULL */

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_PDIST_KING_PAIRS_H */
