/* zarr/store_view.h - a read-only store over arrays the caller holds: in memory at a pointer
 * with strides (a numpy or R array, read in place), or delivered chunk by chunk by a callback
 * (a dask array, a file format of the caller's).  The store synthesises a Zarr v2 hierarchy: a
 * root group, consolidated metadata, and per array a .zarray with no compressor (dtype,
 * shape, the chunk shape given, "." separator, fill null) and a .zattrs with
 * _ARRAY_DIMENSIONS when dimension names are given; a chunk key is served by copying that
 * block out of the caller's memory (edge chunks padded with zeros) or by the callback, and
 * string arrays are encoded as vlen-utf8 (the filter the reader expects).  So everything that
 * reads a store (the tree, the genotype scan, the analyses) reads in-memory data unchanged,
 * one chunk at a time: nothing holds a copy of a whole array.
 * Ownership: the store copies the descriptions (names, shapes); the data and the callback's
 * user pointer stay the caller's and must outlive the store.
 * Thread safety: gets may run on several threads at once (the callback too, for distinct
 * chunks). */
#ifndef GSVD_ZARR_STORE_VIEW_H
#define GSVD_ZARR_STORE_VIEW_H
#include <stddef.h>
#include <stdint.h>
#include "zarr/meta.h"
#include "zarr/store.h"
GSVD_EXTERN_C_BEGIN

/* Fill chunk `idx` (grid position per axis) of an array into dst (C order, the full chunk
 * shape, dst_bytes long; edge chunks padded with anything).  Returns 0, or nonzero to fail the
 * read (GSVD_EIO, logged by the store naming the array and chunk). */
typedef int (*gsvd_view_chunk_fn)(void *user, const uint64_t *idx, void *dst, size_t dst_bytes);

struct gsvd_view_array {
    const char *name;        /* array path in the hierarchy, e.g. "call_genotype" */
    struct gsvd_dtype dtype; /* native order 'b', 'i', 'u', 'f' (1..8 bytes), or 'O': the
                                elements are `const char *` (NUL-terminated UTF-8) */
    size_t ndim;             /* 1..GSVD_MAX_DIMS */
    uint64_t shape[GSVD_MAX_DIMS];
    uint64_t chunks[GSVD_MAX_DIMS];  /* chunk shape served, each >= 1 */
    const char *dims[GSVD_MAX_DIMS]; /* dimension names, or all NULL */
    const void *data;                /* the element at index 0 (strides may be negative) */
    int64_t strides[GSVD_MAX_DIMS];  /* bytes between neighbours along each axis */
    gsvd_view_chunk_fn fn;           /* instead of data: the chunk callback, and its */
    void *user;                      /* user pointer */
};

/* A store serving arrays[0..n) (descriptions copied), named `name` (its URL in messages and in
 * the names of its arrays, gsvd_array_name; NULL: "memory").  Caller owns *out
 * (gsvd_store_close).
 * GSVD_OK, GSVD_EINVAL (logged: a bad name, dtype, shape or chunk, a name used twice, a chunk
 * over GSVD_MAX_CHUNK_BYTES), GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_store_view_open(const char *name, const struct gsvd_view_array *arrays,
                                        size_t n, gsvd_store **out);

GSVD_EXTERN_C_END
#endif /* GSVD_ZARR_STORE_VIEW_H */
