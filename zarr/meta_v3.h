/* zarr/meta_v3.h - Zarr v3 metadata (zarr.json of groups and arrays) read into the model the v2
 * parser fills (struct gsvd_zarray and a codec chain), so readers and analyses do not know the
 * format.  The writer's v3 metadata is zarr/writer_meta.c.
 *
 * Supported: data_type bool, int8..int64, uint8..uint64, float16/32/64, string (vlen-utf8),
 * fixed_length_utf32 and null_terminated_bytes; chunk_grid "regular"; chunk_key_encoding
 * "default" and "v2" with separator "/" or "."; fill_value as numbers, true/false, "NaN",
 * "Infinity", "-Infinity" and hex bit patterns ("0x7fc00000"); dimension_names (exposed as
 * _ARRAY_DIMENSIONS); attributes; codecs transpose (any order), bytes, vlen-utf8, then blosc,
 * zstd, gzip, crc32c, or sharding_indexed with those inside and an index of bytes (+ crc32c) at
 * the start or end.  A member, codec or data type gensvd does not know is refused
 * (GSVD_EUNSUPPORTED, naming it) unless it says "must_understand": false.
 *
 * Parsers treat their input as hostile, as meta.h's do: sizes are range- and overflow-checked,
 * and each error is logged once naming the document (`where`, e.g.
 * "store/call_genotype/zarr.json") and the member.  Thread safety: calls share no state. */
#ifndef GSVD_ZARR_META_V3_H
#define GSVD_ZARR_META_V3_H
#include <stddef.h>
#include "common/buf.h"
#include "zarr/meta.h"
GSVD_EXTERN_C_BEGIN

/* The node_type of a zarr.json document: 1 for a group, 2 for an array (the values of
 * GSVD_NODE_GROUP and GSVD_NODE_ARRAY in zarr/tree.h), or (logged) GSVD_EFORMAT (invalid JSON,
 * not an object, node_type missing or neither "group" nor "array"), GSVD_EUNSUPPORTED
 * (zarr_format other than 3), GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_v3_node_type(const char *json, size_t n, const char *where);

/* The node's attributes as .zattrs text (a JSON object), with the array's dimension_names added
 * as "_ARRAY_DIMENSIONS" when they are all strings and the attributes lack that member.
 * Replaces attrs' contents (left empty when the node has neither).  Returns GSVD_OK,
 * GSVD_EFORMAT (logged: invalid JSON, attributes not an object), GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_v3_attrs(const char *json, size_t n, const char *where,
                                 struct gsvd_buf *attrs);

/* Parse an array's zarr.json text (n bytes, need not be NUL-terminated) into *out, which the
 * caller clears with gsvd_zarray_clear.  Sharded arrays describe their inner chunks in
 * chunks/grid/chunk_bytes (what a reader decodes) and their shards in shard/per_shard/
 * shard_grid/n_inner.  Returns GSVD_OK, or (logged, naming `where` and the member)
 *   GSVD_EFORMAT       invalid JSON, missing or ill-typed members, zero sizes, overflowing
 *                      products, chunks over GSVD_MAX_CHUNK_BYTES, a fill_value that does not
 *                      fit the data type, a shard shape that is no multiple of the inner one,
 *   GSVD_EUNSUPPORTED  zarr_format other than 3, node_type group, a data type, grid, key
 *                      encoding, codec or member gensvd does not handle,
 *   GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_zarray_parse_v3(const char *json, size_t n, const char *where,
                                        struct gsvd_zarray *out);

/* Consolidated metadata inside a root zarr.json ("consolidated_metadata": {"kind": "inline",
 * "metadata": {PATH: DOC, ...}} as zarr-python 3 writes it): appends the key "zarr.json" with
 * the root document itself and "PATH/zarr.json" with each DOC's text to keys and docs (same
 * length).  Returns GSVD_OK, GSVD_ENOTFOUND (not logged) when the root has no consolidated
 * metadata (absent or null), GSVD_EFORMAT (logged: bad JSON, a kind other than "inline", a
 * path that is no valid key, a DOC that is not an object), GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_v3_consolidated_parse(const char *json, size_t n, const char *where,
                                              struct gsvd_strlist *keys, struct gsvd_strlist *docs);

GSVD_EXTERN_C_END
#endif /* GSVD_ZARR_META_V3_H */
