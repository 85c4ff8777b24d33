/* zarr/writer.h - write a Zarr v2 or v3 hierarchy (groups, arrays, attributes) to a staged
 * store.  The output is built in a staging location (see gsvd_store_open) and appears only at
 * gsvd_writer_commit(), which first checks that every chunk of every array was written, then
 * writes the consolidated metadata last (v2: .zmetadata; v3: the root zarr.json, which is
 * written only then) and moves the store into place.  Closing without a commit discards
 * everything on a staged (local) store; on a remote one the objects already written stay
 * (zarr/store.h).
 * v2 arrays are C order, "." separator, with _ARRAY_DIMENSIONS in .zattrs; chunks are encoded
 * with the array's codec chain (default: blosc zstd with shuffle, see gsvd_codec_chain_default).
 * v3 arrays (zarr.json as zarr-python 3 writes it) have the same chunks and compressor: codecs
 * bytes (little endian) then blosc or zstd (the v2 compressor's v3 form; strings: vlen-utf8
 * then it), chunk keys "c/i/j", dimension_names, the attributes inside zarr.json, and the
 * consolidated metadata inline in the root zarr.json.  With shards (v3 only), every numeric
 * array of rank >= 1 is written with sharding_indexed: the chunks stay the inner chunks, each
 * shard is stored once all of its inner chunks have arrived (index at the end: bytes + crc32c).
 * Thread safety: gsvd_warray_write_* may be called from several threads at once (each with its
 * own codec workspace); creating arrays and groups, commit and close are single-threaded. */
#ifndef GSVD_ZARR_WRITER_H
#define GSVD_ZARR_WRITER_H
#include <stdint.h>
#include "common/buf.h"
#include "zarr/codec.h"
#include "zarr/meta.h"
GSVD_EXTERN_C_BEGIN

typedef struct gsvd_writer gsvd_writer;
typedef struct gsvd_warray gsvd_warray;

struct gsvd_writer_params {
    int zarr_format;   /* 2 or 3 */
    uint64_t shard[2]; /* v3 only: shard extent in elements on axes 0 and 1 (0: unsharded;
                          shard[1] 0 with shard[0] set: the same as shard[0]); on an axis where
                          an array has more than one chunk it must be a multiple of the chunk
                          extent, elsewhere (and on axes >= 2) the shard is the chunk */
};
#define GSVD_WRITER_PARAMS_DEFAULT                                                                 \
    {                                                                                              \
        .zarr_format = 2, .shard = { 0, 0 }                                                        \
    }

/* Start writing a new hierarchy at `url` (any URL gsvd_store_open writes) with a root group.
 * `overwrite` 1 lets the commit replace an existing output.  Caller owns *out; finish with
 * gsvd_writer_commit and/or gsvd_writer_close.  Errors: those of gsvd_store_open. */
GSVD_NODISCARD int gsvd_writer_open(const char *url, int overwrite, gsvd_writer **out);

/* gsvd_writer_open with parameters (`p` NULL: GSVD_WRITER_PARAMS_DEFAULT).  GSVD_EINVAL
 * (logged) for a format other than 2 or 3, or shards with format 2. */
GSVD_NODISCARD int gsvd_writer_open_params(const char *url, int overwrite,
                                           const struct gsvd_writer_params *p, gsvd_writer **out);

/* Check a shard request against one array's shape and chunks as gsvd_writer_array will (see
 * struct gsvd_writer_params); shard extents go to shard_out[ndim] when it is not NULL.  Returns
 * GSVD_OK, or GSVD_EINVAL (logged, naming `what`) for an extent that is no multiple of the
 * chunk extent.  Lets a command refuse a bad --shard before it computes anything. */
GSVD_NODISCARD int gsvd_writer_shard_shape(const struct gsvd_writer_params *p, const char *what,
                                           size_t ndim, const uint64_t *shape,
                                           const uint64_t *chunks, uint64_t *shard_out);
void gsvd_writer_close(gsvd_writer *w); /* discards an uncommitted output; accepts NULL */

/* Create group `path` (and any missing ancestors).  attrs_json: a JSON object text for its
 * .zattrs, or NULL.  "" is the root group (created by open; this sets its attributes). */
GSVD_NODISCARD int gsvd_writer_group(gsvd_writer *w, const char *path, const char *attrs_json);

struct gsvd_array_spec {
    const char *path;                /* array path in the hierarchy, e.g. "sample_id" */
    size_t ndim;                     /* 0..GSVD_MAX_DIMS */
    uint64_t shape[GSVD_MAX_DIMS];   /* elements per axis */
    uint64_t chunks[GSVD_MAX_DIMS];  /* chunk extent per axis, >= 1 */
    struct gsvd_dtype dtype;         /* little-endian numeric, 'S', or 'O' (strings) */
    const char *dims[GSVD_MAX_DIMS]; /* _ARRAY_DIMENSIONS names (all NULL: "dim_0", ...) */
    const void *fill;                /* dtype.size bytes, native order; NULL: no fill (null)
                                        for floats NaN is common, for ints 0 */
    const char *compressor_json;     /* NULL: gensvd's default chain */
    const char *filters_json;        /* used only with compressor_json; NULL = none */
    const char *attrs_json;          /* extra .zattrs members as a JSON object text, or NULL */
};

/* Create an array (and missing ancestor groups).  *out is borrowed from the writer (valid
 * until close).  GSVD_EINVAL (logged) for a bad spec or shard shape; codec errors from the JSON
 * configs; v3: GSVD_EUNSUPPORTED (logged) for dtype 'S' or a codec without a v3 form. */
GSVD_NODISCARD int gsvd_writer_array(gsvd_writer *w, const struct gsvd_array_spec *spec,
                                     gsvd_warray **out);

/* Metadata of a created array (borrowed). */
const struct gsvd_zarray *gsvd_warray_meta(const gsvd_warray *a);

/* Encode and store one chunk; `data` holds chunk_bytes (full chunk shape, C order, native
 * byte order; edge chunks padded with anything, conventionally the fill).  ws: the calling
 * thread's workspace; `enc` its encode buffer. */
GSVD_NODISCARD int gsvd_warray_write_chunk(gsvd_warray *a, gsvd_codec_ws *ws, const uint64_t *idx,
                                           const void *data, struct gsvd_buf *enc);

/* Write rows [row, row + n_rows) along axis 0, every other axis whole, from data (C order).
 * `row` must be a multiple of chunks[0], and n_rows must be chunks[0] or reach the end of the
 * array, so each call writes whole chunk rows.  Edge chunks are padded with the fill value.
 * GSVD_EINVAL (logged) if misaligned. */
GSVD_NODISCARD int gsvd_warray_write_rows(gsvd_warray *a, gsvd_codec_ws *ws, uint64_t row,
                                          uint64_t n_rows, const void *data);

/* Write a whole 1-D array of strings ('O' with vlen-utf8, or 'S') from n = shape[0] items. */
GSVD_NODISCARD int gsvd_warray_write_strings(gsvd_warray *a, gsvd_codec_ws *ws,
                                             const char *const *items, size_t n);

/* Write every array's metadata into .zmetadata (v3: the root zarr.json), check that every chunk was
 * written (GSVD_EINTERNAL, logged, if not), and move the output into place (GSVD_EIO on failure,
 * after which nothing is left behind). */
GSVD_NODISCARD int gsvd_writer_commit(gsvd_writer *w);

/* Move a part of an output into place: some chunks may be missing (other processes write
 * them) and no .zmetadata is written, so the part is never taken for a whole output; a
 * finalizer gathers the parts (analysis/pdist/pdist_parts.c).  Errors as gsvd_writer_commit. */
GSVD_NODISCARD int gsvd_writer_commit_part(gsvd_writer *w);

GSVD_EXTERN_C_END
#endif /* GSVD_ZARR_WRITER_H */
