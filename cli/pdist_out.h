/* cli/pdist_out.h - where `gensvd pdist` puts finished bands of distances: a Zarr group (square
 * N x N chunks written as each band finishes, mirrored chunks included, or scipy's condensed
 * vector streamed in order) and/or TSV on stdout (the square matrix, held until the end, or a
 * streamed pair list for the condensed layout).
 * Thread safety: one band at a time (the band callback writes chunks on several threads). */
#ifndef GSVD_CLI_PDIST_OUT_H
#define GSVD_CLI_PDIST_OUT_H
#include <stdint.h>
#include "analysis/pdist/pdist.h"
#include "common/buf.h"
#include "zarr/writer.h"

struct pdist_out_cfg {
    const char *output; /* Zarr group path, or NULL */
    int force;          /* replace an existing output */
    int tsv;            /* TSV on stdout */
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
    int part;      /* a job-array part (cli/pdist_parts.h): commit without the chunks of the
                      other parts and without .zmetadata (Zarr v2 only) */
};

struct pdist_out;

/* Start the output (creates the Zarr writer and the ID array).  Caller owns *out. */
int pdist_out_open(const struct pdist_out_cfg *cfg, struct pdist_out **out);
/* Chunk rows the bands must be multiples of, and the bytes the output holds. */
size_t pdist_out_row_align(const struct pdist_out *o);
uint64_t pdist_out_bytes(const struct pdist_out *o);
/* The engine's sink (ctx = the pdist_out). */
int pdist_out_band(void *ctx, const struct gsvd_pdist_band *b);
/* Flush, write the attributes (a JSON object text), commit the Zarr output, print the TSV.
 * n_missing: the run's missing values (decides n_sites when no band reached the sink). */
int pdist_out_finish(struct pdist_out *o, const char *attrs_json, uint64_t n_missing);
void pdist_out_close(struct pdist_out *o); /* discards an uncommitted output; accepts NULL */

#endif /* GSVD_CLI_PDIST_OUT_H */
