/* zarr/writer.h - write a Zarr v2 hierarchy (groups, arrays, attributes) to a staged store.
 * The output is built in a staging location (see gsvd_store_open) and appears only at
 * gsvd_writer_commit(), which first checks that every chunk of every array was written, then
 * writes .zmetadata (consolidated metadata) last and moves the store into place.  Closing
 * without a commit discards everything.  Arrays are C order, "." separator, with
 * _ARRAY_DIMENSIONS in .zattrs; chunks are encoded with the array's codec chain (default:
 * blosc zstd with shuffle, see gsvd_codec_chain_default).
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

/* Start writing a new hierarchy at `url` (a local path, file:// or mem:) with a root group.
 * `overwrite` 1 lets the commit replace an existing output.  Caller owns *out; finish with
 * gsvd_writer_commit and/or gsvd_writer_close.  Errors: those of gsvd_store_open. */
GSVD_NODISCARD int gsvd_writer_open(const char *url, int overwrite, gsvd_writer **out);
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
 * until close).  GSVD_EINVAL (logged) for a bad spec; codec errors from the JSON configs. */
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

/* Write every array's metadata into .zmetadata, check that every chunk was written
 * (GSVD_EINTERNAL, logged, if not), and move the output into place (GSVD_EIO on failure,
 * after which nothing is left behind). */
GSVD_NODISCARD int gsvd_writer_commit(gsvd_writer *w);

/* Move a part of an output into place: some chunks may be missing (other processes write
 * them) and no .zmetadata is written, so the part is never taken for a whole output; a
 * finalizer gathers the parts (cli/pdist_parts.c).  Errors as gsvd_writer_commit. */
GSVD_NODISCARD int gsvd_writer_commit_part(gsvd_writer *w);

GSVD_EXTERN_C_END
#endif /* GSVD_ZARR_WRITER_H */
