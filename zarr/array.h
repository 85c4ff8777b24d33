/* zarr/array.h - one Zarr v2 array: chunk grid, chunk keys, chunk decoding, region reads.
 * Decoded data is always C order and native (little-endian) byte order, whatever the array's
 * "order" and byte order; missing chunks read as fill_value (zeros when it is null).
 * Thread safety: after open, reads may run concurrently, each thread with its own codec
 * workspace and scratch buffer. */
#ifndef GSVD_ZARR_ARRAY_H
#define GSVD_ZARR_ARRAY_H
#include <stdint.h>
#include "common/buf.h"
#include "zarr/codec.h"
#include "zarr/meta.h"
#include "zarr/tree.h"
GSVD_EXTERN_C_BEGIN

typedef struct gsvd_array gsvd_array;

/* Open the array at `path` ("" when the tree's root is the array).  The tree is borrowed and
 * must outlive the array.  Returns GSVD_OK and a new array (caller owns; close with
 * gsvd_array_close), or (logged) GSVD_ENOTFOUND (no array there), GSVD_EFORMAT,
 * GSVD_EUNSUPPORTED, GSVD_ENOMEM, or a store error. */
GSVD_NODISCARD int gsvd_array_open(gsvd_tree *t, const char *path, gsvd_array **out);
void gsvd_array_close(gsvd_array *a); /* accepts NULL */

/* Open the array `name` of the group `node` in t and check its rank (ndim; 0 accepts 1 or 2)
 * and that it is numeric; `what` says which command's output it belongs to, for the message.
 * Caller owns *out (gsvd_array_close).  GSVD_ENOTFOUND (logged, naming the store and key) when
 * absent, GSVD_EFORMAT (logged) for another rank or a string dtype, or a store error. */
GSVD_NODISCARD int gsvd_array_open_numeric(gsvd_tree *t, const char *node, const char *name,
                                           size_t ndim, const char *what, gsvd_array **out);

const struct gsvd_zarray *gsvd_array_meta(const gsvd_array *a); /* borrowed */
const char *gsvd_array_path(const gsvd_array *a);               /* borrowed; "" for root */
/* Human name for messages: "URL/path".  Borrowed. */
const char *gsvd_array_name(const gsvd_array *a);
/* "_ARRAY_DIMENSIONS" from .zattrs, if present (appended to out; nothing when absent). */
GSVD_NODISCARD int gsvd_array_dim_names(const gsvd_array *a, struct gsvd_strlist *out);

/* Store key of chunk `idx` (ndim indices; 0-d arrays use "0").  Caller owns *out. */
GSVD_NODISCARD int gsvd_array_chunk_key(const gsvd_array *a, const uint64_t *idx, char **out);
/* The start of a message about chunk `idx`'s bytes, naming the store, the chunk's key and the
 * array: "URL: corrupt chunk 'a/0.0' of array 'a'" (a sharded array's chunk adds its place in
 * the shard: "'a/c/0/0' (inner chunk 3)").  Caller frees; NULL when out of memory (logged). */
char *gsvd_array_chunk_label(const gsvd_array *a, const uint64_t *idx);

/* Fetch the raw (encoded) bytes of chunk idx into raw.  Returns 1 when present, 0 when the
 * chunk is missing (raw emptied), or a negative store error (logged).  Sharded arrays read the
 * inner chunk's bytes only (after the shard's index, read once and cached); a bad index is
 * GSVD_EFORMAT (outside the shard, overlapping, shard shorter than its index) or GSVD_ECODEC
 * (crc32c mismatch), logged naming the shard's key. */
GSVD_NODISCARD int gsvd_array_fetch_chunk(gsvd_array *a, const uint64_t *idx, struct gsvd_buf *raw);

/* A reader's bytes of several inner chunks read at once (see gsvd_array_fetch_chunk_in).
 * Zero-initialise; free with gsvd_chunk_span_free.  One thread's. */
struct gsvd_chunk_span {
    int valid;      /* bytes holds [off, off + bytes.len) of shard `shard` */
    uint64_t shard; /* linear shard index */
    uint64_t off;   /* offset of bytes.data in the shard */
    struct gsvd_buf bytes;
};
void gsvd_chunk_span_free(struct gsvd_chunk_span *s); /* accepts an empty span */

/* gsvd_array_fetch_chunk for a scan over the chunk box [lo, hi) in C order, at chunk idx:
 * for a sharded array, idx and the chunks after it in the scan that lie in the same shard,
 * when together they fill a block of it with little in between (in whatever order the writer
 * put them), are fetched with one ranged read (at most 16 MiB) into `span` (caller's, kept
 * between calls), and later calls for them are served from it.  Other arrays: as
 * gsvd_array_fetch_chunk.  Same returns, and GSVD_EINVAL (logged) when idx is outside the
 * box or the box outside the grid. */
GSVD_NODISCARD int gsvd_array_fetch_chunk_in(gsvd_array *a, const uint64_t *idx, const uint64_t *lo,
                                             const uint64_t *hi, struct gsvd_chunk_span *span,
                                             struct gsvd_buf *raw);

/* Decode raw bytes of chunk idx (present = 1 from fetch) into dst, which holds chunk_bytes;
 * present = 0 fills dst with fill_value.  `scratch` holds the F-order / v3 transpose.
 * GSVD_ECODEC / GSVD_EFORMAT (logged, naming the key).  Not for 'O' arrays. */
GSVD_NODISCARD int gsvd_array_decode_chunk(gsvd_array *a, gsvd_codec_ws *ws, const uint64_t *idx,
                                           const struct gsvd_buf *raw, int present, void *dst,
                                           struct gsvd_buf *scratch);

/* Fetch + decode. */
GSVD_NODISCARD int gsvd_array_read_chunk(gsvd_array *a, gsvd_codec_ws *ws, const uint64_t *idx,
                                         void *dst, struct gsvd_buf *raw, struct gsvd_buf *scratch);

/* Reorder one decoded chunk of z (chunk_items elements of esz bytes, in the chunk's stored
 * order z->order: 'C', 'F' or 'P' with z->perm) into C order at dst.  src and dst must not
 * overlap.  Cannot fail. */
void gsvd_array_to_c_order(const struct gsvd_zarray *z, const void *src, void *dst, size_t esz);

/* Tell the store which chunks a scan of the region start..start+count will read (a read-ahead
 * hint for remote stores, see gsvd_store_prefetch): chunk rows along `axis` in increasing
 * order, each in C order over the other axes.  Replaces any earlier hint on the store.
 * skip: NULL, or one byte per chunk row along `axis` that the region touches, from its first
 * (start[axis] / chunks[axis]) on; a nonzero byte leaves that row's chunks out of the hint (rows
 * the scan will not read: a chunk hinted and never read holds the store's read-ahead budget).
 * Sharded arrays on local stores give no hint (their inner chunks are read on demand).
 * Returns GSVD_OK, GSVD_EINVAL (logged: region outside the array) or GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_array_prefetch(gsvd_array *a, size_t axis, const uint64_t *start,
                                       const uint64_t *count, const uint8_t *skip);

/* Sum of the stored sizes of all present chunks and their count (lists the store, or fetches
 * each chunk when it cannot list); for sharded arrays, of the shards.  For `gensvd info`.
 * GSVD_ECANCELED (not logged) when the scope is cancelled between chunks, store errors. */
GSVD_NODISCARD int gsvd_array_stored_bytes(gsvd_array *a, uint64_t *bytes, uint64_t *n_chunks);

GSVD_EXTERN_C_END
#endif /* GSVD_ZARR_ARRAY_H */
