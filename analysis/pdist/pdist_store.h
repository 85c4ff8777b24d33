/* analysis/pdist/pdist_store.h - the pdist output schema and its sink: where finished bands of
 * distances go.  A Zarr group (square N x N chunks written as each band finishes, mirrored
 * chunks included, or scipy's condensed vector streamed in order) and/or TSV on a stream (the
 * square matrix, held until the end, or a streamed pair list for the condensed layout).
 * The group (read back by `pdist --finalize`, analysis/pdist/pdist_parts.h, and `plot`):
 *   sample_id | variant_index   strings (N): the items (dimension samples_0 | variants_0)
 *   distance                    f8 or f4, N x N (square) or N(N-1)/2 (condensed, dimension
 *                               "pairs", scipy's order); NaN: no feature called in both
 *   n_sites                     u4, the same shape: features called in both (only when some
 *                               value was missing, or with counts)
 * Group attributes: the caller's JSON object (version, command, metric, p, missing, axis,
 * layout, M, N, n_missing, kernel, device).
 * Thread safety: one band at a time (the band callback writes chunks on several threads). */
#ifndef GSVD_ANALYSIS_PDIST_PDIST_STORE_H
#define GSVD_ANALYSIS_PDIST_PDIST_STORE_H
#include <stdint.h>
#include <stdio.h>
#include "analysis/pdist/pdist.h"
#include "common/buf.h"
#include "zarr/array.h"
#include "zarr/result.h"
#include "zarr/tree.h"
#include "zarr/writer.h"
GSVD_EXTERN_C_BEGIN

/* Array names of the schema. */
#define GSVD_PDIST_STORE_DISTANCE "distance"
#define GSVD_PDIST_STORE_N_SITES "n_sites"
#define GSVD_PDIST_STORE_SAMPLE_ID "sample_id"
#define GSVD_PDIST_STORE_VARIANT_INDEX "variant_index"

struct gsvd_pdist_store_cfg {
    const char *output; /* Zarr group path, or NULL */
    int force;          /* replace an existing output */
    FILE *tsv;          /* TSV goes here (borrowed; the CLI passes stdout), or NULL */
    int condensed;      /* scipy's condensed order instead of the square matrix */
    int f4;             /* distance as float32 */
    int counts;         /* always write n_sites */
    const char *axis;   /* "samples" or "variants": names of the dimensions and ID array */
    const struct gsvd_strlist *ids; /* item IDs (borrowed) */
    size_t n;
    size_t threads;
    uint64_t memory;              /* --memory (0 = none): sizes the square chunks */
    struct gsvd_writer_params wp; /* Zarr format and shards of the output */
    int plan_only; /* distributed runs, ranks other than 0: only the sizes (row alignment,
                      bytes) that shape the bands, nothing opened or allocated */
    int part;      /* a job-array part (pdist_parts.h): commit without the chunks of the
                      other parts and without .zmetadata (Zarr v2 only) */
};

typedef struct gsvd_pdist_store gsvd_pdist_store;

/* Start the output (creates the Zarr writer and the ID array).  *out is set even on failure
 * (NULL without memory); the caller closes it with gsvd_pdist_store_close.  GSVD_OK,
 * GSVD_ENOMEM, GSVD_EINVAL (a shard that does not fit), writer and store errors (logged). */
GSVD_NODISCARD int gsvd_pdist_store_open(const struct gsvd_pdist_store_cfg *cfg,
                                         gsvd_pdist_store **out);
/* Chunk rows the bands must be multiples of, and the bytes the output holds. */
size_t gsvd_pdist_store_row_align(const gsvd_pdist_store *o);
uint64_t gsvd_pdist_store_bytes(const gsvd_pdist_store *o);
/* The engine's sink (ctx = the gsvd_pdist_store).  GSVD_OK, writer errors, GSVD_EIO (the TSV
 * stream), GSVD_ENOMEM, GSVD_EINTERNAL (a band off the chunk grid). */
int gsvd_pdist_store_band(void *ctx, const struct gsvd_pdist_band *b);
/* Flush, write the attributes (a JSON object text), commit the Zarr output, print the TSV.
 * n_missing: the run's missing values (decides n_sites when no band reached the sink).
 * GSVD_OK, writer errors, GSVD_EIO (the TSV stream). */
GSVD_NODISCARD int gsvd_pdist_store_finish(gsvd_pdist_store *o, const char *attrs_json,
                                           uint64_t n_missing);
void gsvd_pdist_store_close(gsvd_pdist_store *o); /* discards an uncommitted output; accepts NULL */

/* The chunk extent of the distance array for cfg (square: rows and columns of a chunk;
 * condensed: elements), from the item count and the memory cap alone. */
uint64_t gsvd_pdist_store_chunk(const struct gsvd_pdist_store_cfg *cfg);

/* The group's attributes: version, command, metric, p, missing, axis, layout, M, N, n_missing,
 * kernel, device (a JSON object text appended to attrs). */
struct gsvd_pdist_attrs {
    const char *command;                  /* the command line, or NULL */
    const struct gsvd_pdist_params *pd;   /* metric, p, missing */
    int axis_variants, condensed;         /* --axis variants, --layout condensed */
    const struct gsvd_pdist_summary *sum; /* the run's */
};
GSVD_NODISCARD int gsvd_pdist_store_attrs(const struct gsvd_pdist_attrs *a, struct gsvd_buf *attrs);

/* The group held in memory (what the library returns without an output), with the arrays the
 * streaming sink writes for cfg, chunked and padded as it writes them, so that writing the
 * result gives the same bytes: the ID array, `distance` from the n x n matrix dist (converted
 * to float32 with cfg->f4, condensed in scipy's order with cfg->condensed) and, when n_missing
 * > 0 or cfg->counts, `n_sites` from the n x n counts; the attributes after the arrays.  dist
 * and n_sites (gsvd_malloc'd) are consumed, also on failure.  Caller frees *out.  GSVD_OK,
 * GSVD_ENOMEM, GSVD_EINTERNAL (counts needed and not given). */
GSVD_NODISCARD int gsvd_pdist_store_build(const struct gsvd_pdist_store_cfg *cfg,
                                          const char *attrs_json, uint64_t n_missing, double *dist,
                                          uint32_t *n_sites, gsvd_result **out);

/* The reader: open the distance array of the pdist group `node` in t and check its shape
 * against the n items of its ID array; *condensed is 1 for scipy's condensed vector, 0 for the
 * square matrix.  Caller owns *a (gsvd_array_close).  GSVD_OK, GSVD_ENOTFOUND (no distance
 * array), GSVD_EFORMAT (not a 1-D or 2-D numeric array), GSVD_EINCONSIST (another shape), each
 * logged; store errors. */
GSVD_NODISCARD int gsvd_pdist_store_open_distance(gsvd_tree *t, const char *node, size_t n,
                                                  gsvd_array **a, int *condensed);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_PDIST_PDIST_STORE_H */
