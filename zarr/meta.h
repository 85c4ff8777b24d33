/* zarr/meta.h - Zarr v2 metadata documents: .zarray, .zgroup, .zattrs, .zmetadata.
 * Parsers treat their input as hostile: every size is range- and overflow-checked, and every
 * error is logged once naming the document (`where`, e.g. "cohort.vcz/call_genotype/.zarray")
 * and the offending member.  Thread safety: calls share no state. */
#ifndef GSVD_ZARR_META_H
#define GSVD_ZARR_META_H
#include <stddef.h>
#include <stdint.h>
#include "common/buf.h"
#include "zarr/codec.h"
#include "zarr/dtype.h"
GSVD_EXTERN_C_BEGIN

#define GSVD_MAX_DIMS 32
#define GSVD_MAX_CHUNK_BYTES ((size_t)1 << 31) /* Blosc1's limit, and a sane cap on one chunk */

struct gsvd_zarray {
    size_t ndim;                    /* 0..GSVD_MAX_DIMS */
    uint64_t shape[GSVD_MAX_DIMS];  /* elements per axis */
    uint64_t chunks[GSVD_MAX_DIMS]; /* chunk extent per axis, each >= 1 */
    uint64_t grid[GSVD_MAX_DIMS];   /* chunks per axis: ceil(shape / chunks) */
    struct gsvd_dtype dtype;        /* as stored (byte order included) */
    char order;                     /* 'C' or 'F', or 'P' (v3 transpose, see perm): layout
                                       inside each chunk */
    char sep;                       /* chunk key separator: '.' or '/' */
    size_t chunk_items;             /* elements per chunk (edge chunks are stored full size) */
    size_t chunk_bytes;             /* chunk_items * dtype.size, < GSVD_MAX_CHUNK_BYTES */
    int has_fill;                   /* 0: fill_value null (missing chunks read as zeros) */
    unsigned char *fill;            /* owned; dtype.size bytes, native byte order; zeros if
                                       !has_fill; unused for 'O' */
    char *fill_str;                 /* owned; 'O' arrays only: the fill string ("" default) */
    gsvd_codec_chain *codecs;       /* owned; filters + compressor (v3: bytes -> bytes codecs) */
    /* Zarr v3 (zarr/meta_v3.h); a v2 array leaves these zero */
    int zarr_format;                   /* 3 for zarr.json arrays; 0 or 2 for .zarray */
    int key_c_prefix;                  /* v3 "default" chunk keys: "c" SEP i SEP j ("c" when 0-d) */
    unsigned char perm[GSVD_MAX_DIMS]; /* order 'P': v3 transpose order; stored axis i is
                                          chunk axis perm[i] ('F' is the reversal) */
    int sharded;                       /* sharding_indexed: `chunks` are the inner chunks, which
                                          the reader reads; shards are what the store holds */
    uint64_t shard[GSVD_MAX_DIMS];     /* shard extent per axis, a multiple of chunks */
    uint64_t per_shard[GSVD_MAX_DIMS]; /* inner chunks per shard per axis: shard / chunks */
    uint64_t shard_grid[GSVD_MAX_DIMS]; /* shards per axis: ceil(shape / shard) */
    size_t n_inner;                     /* inner chunks per shard (product of per_shard) */
    int index_at_start;                 /* index_location "start" (default "end") */
    int index_crc;                      /* index_codecs end with crc32c (4 bytes after the index) */
    int index_big_endian;               /* index_codecs' bytes codec says "big" */
};

/* Once, from main() before threads start: route cJSON's allocations through gsvd_malloc, so
 * allocation failures are logged and can be injected (GENSVD_FAIL_ALLOC_AT). */
void gsvd_meta_global_init(void);

/* Parse .zarray text (n bytes, need not be NUL-terminated) into *out, which the caller clears
 * with gsvd_zarray_clear.  Returns GSVD_OK, or (logged, naming `where` and the member)
 *   GSVD_EFORMAT       invalid JSON, missing/ill-typed members, zero or negative sizes,
 *                      overflowing products, chunk over GSVD_MAX_CHUNK_BYTES, bad fill_value,
 *   GSVD_EUNSUPPORTED  zarr_format other than 2, dtype or codec gensvd does not handle,
 *   GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_zarray_parse(const char *json, size_t n, const char *where,
                                     struct gsvd_zarray *out);

/* Fill in grid, chunk_items and chunk_bytes from shape/chunks/dtype (used by the parser and by
 * writers building metadata by hand).  GSVD_EFORMAT (logged with `where`) on overflow. */
GSVD_NODISCARD int gsvd_zarray_derive(struct gsvd_zarray *z, const char *where);

void gsvd_zarray_clear(struct gsvd_zarray *z); /* frees owned members; leaves it zeroed */

/* Emit .zarray text as zarr-python writes it (sorted keys, 4-space indent), with
 * dimension_separator written out.  Appends to dst. */
GSVD_NODISCARD int gsvd_zarray_emit(const struct gsvd_zarray *z, struct gsvd_buf *dst);

/* Check that text is a JSON object (for .zattrs, .zgroup).  GSVD_EFORMAT (logged) if not. */
GSVD_NODISCARD int gsvd_meta_check_object(const char *json, size_t n, const char *where);

/* Validate .zgroup: an object with "zarr_format": 2.  GSVD_EFORMAT / GSVD_EUNSUPPORTED. */
GSVD_NODISCARD int gsvd_zgroup_parse(const char *json, size_t n, const char *where);

/* Consolidated metadata: parse .zmetadata into a list of (key, JSON text) pairs: keys[i] and
 * docs[i] (both appended to the caller's lists, same length).  Keys are validated
 * (gsvd_key_check) and must end in .zarray, .zgroup or .zattrs.  GSVD_EFORMAT (logged). */
GSVD_NODISCARD int gsvd_zmetadata_parse(const char *json, size_t n, const char *where,
                                        struct gsvd_strlist *keys, struct gsvd_strlist *docs);

/* Emit .zmetadata from parallel lists of keys and JSON documents (each must be valid JSON). */
GSVD_NODISCARD int gsvd_zmetadata_emit(const struct gsvd_strlist *keys,
                                       const struct gsvd_strlist *docs, struct gsvd_buf *dst);

/* Value of string member `name` in the JSON object text, as a new string (caller owns), or
 * GSVD_ENOTFOUND (not logged) when absent or not a string; GSVD_EFORMAT (logged) for bad JSON.
 * Used to read attributes such as "vcf_zarr_version". */
GSVD_NODISCARD int gsvd_meta_get_string(const char *json, size_t n, const char *name,
                                        const char *where, char **out);

/* Value of number member `name` in the JSON object text, or GSVD_ENOTFOUND (not logged) when
 * absent or not a number; GSVD_EFORMAT (logged) for bad JSON. */
GSVD_NODISCARD int gsvd_meta_get_number(const char *json, size_t n, const char *name,
                                        const char *where, double *out);

/* Members of a JSON array of strings, e.g. .zattrs "_ARRAY_DIMENSIONS". */
GSVD_NODISCARD int gsvd_meta_get_string_list(const char *json, size_t n, const char *name,
                                             const char *where, struct gsvd_strlist *out);

/* Append `s` to dst as a JSON string literal (quotes and escapes added). */
GSVD_NODISCARD int gsvd_json_quote(struct gsvd_buf *dst, const char *s);

GSVD_EXTERN_C_END
#endif /* GSVD_ZARR_META_H */
