/* zarr/array_internal.h - for zarr/array*.c only: the array struct, and the sharded side of
 * reading (zarr/array_shard.c: shard indexes, inner chunk fetches, the read-ahead plan) that
 * zarr/array.c calls.  Thread safety: as zarr/array.h. */
#ifndef GSVD_ZARR_ARRAY_INTERNAL_H
#define GSVD_ZARR_ARRAY_INTERNAL_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "common/buf.h"
#include "zarr/array.h"
#include "zarr/meta.h"

#define SHARD_CACHE 8    /* shard indexes kept per array */
#define EMPTY UINT64_MAX /* offset and length of an absent inner chunk */

struct shard_slot {
    int used;
    uint64_t shard;    /* linear shard index (C order over shard_grid) */
    uint64_t tick;     /* last use, for replacement */
    int missing;       /* the shard does not exist: every inner chunk is fill */
    uint64_t *entries; /* owned; 2 * n_inner: offset, length of each inner chunk */
    int loading;       /* one reader is reading the index: the others wait on `loaded` */
    int rc;            /* < 0: the index is corrupt (logged once, by the reader that found it) */
};

struct gsvd_array {
    gsvd_tree *tree;         /* borrowed */
    char *path;              /* owned; "" for a root array */
    char *name;              /* owned; "URL/path" for messages */
    struct gsvd_zarray meta; /* owned members */
    struct gsvd_buf zattrs;  /* .zattrs text (v3: attributes + dimension_names), or empty */
    pthread_mutex_t lock;    /* guards the shard cache */
    pthread_cond_t loaded;   /* a slot's index has been read (or failed) */
    uint64_t tick;
    struct shard_slot slots[SHARD_CACHE];
    int ranges_planned; /* sharded: a read-ahead plan of exact inner-chunk ranges is set, so
                         * fetch_inner asks for exactly those (set before a scan starts) */
};

/* Store key of the object at grid position idx (a chunk, or for sharded arrays the shard
 * position).  Caller frees *out.  GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_array_object_key(const gsvd_array *a, const uint64_t *idx, char **out);
/* Shard of chunk idx (sidx) and the chunk's position in it (C order). */
uint64_t gsvd_array_shard_of(const struct gsvd_zarray *z, const uint64_t *idx, uint64_t *sidx);
/* Sharded fetch of inner chunk idx into raw: 1 present, 0 absent (fill), or an error; with a
 * scan box [lo, hi) and a span, neighbours of the scan in the same shard are read together
 * (unless a read-ahead plan is set). */
GSVD_NODISCARD int gsvd_array_fetch_inner(gsvd_array *a, const uint64_t *idx, const uint64_t *lo,
                                          const uint64_t *hi, struct gsvd_chunk_span *span,
                                          struct gsvd_buf *raw);
/* The read-ahead plan of a scan over chunks [lo, hi) in odometer `order` on a store that reads
 * ranges ahead (see zarr/array_shard.c), less the chunk rows along order[0] whose byte
 * skip[row - lo[order[0]]] is nonzero (skip may be NULL).  GSVD_OK (also when too big to plan),
 * store errors. */
GSVD_NODISCARD int gsvd_array_plan_sharded(gsvd_array *a, const size_t *order, const uint64_t *lo,
                                           const uint64_t *hi, const uint8_t *skip);

#endif /* GSVD_ZARR_ARRAY_INTERNAL_H */
