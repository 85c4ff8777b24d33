/* zarr/writer_internal.h - for writer*.c only: the writer and array state, and the calls
 * between the writer's three files.  writer.c has the hierarchy (groups, arrays, metadata
 * documents kept for the consolidated metadata, commit); writer_meta.c builds one array's
 * metadata (v2 .zarray/.zattrs, v3 zarr.json with shards); writer_chunk.c encodes and stores
 * chunks and shards.  writer_meta.c and writer_chunk.c call nothing in writer.c (no object-file
 * cycles).  Thread safety: as zarr/writer.h. */
#ifndef GSVD_ZARR_WRITER_INTERNAL_H
#define GSVD_ZARR_WRITER_INTERNAL_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "common/buf.h"
#include "zarr/meta.h"
#include "zarr/store.h"
#include "zarr/writer.h"

/* The inner chunks of one shard received so far (v3 sharded arrays). */
struct shard_pending {
    struct gsvd_buf *parts; /* n_inner encoded inner chunks, C order within the shard */
    unsigned char *have;    /* n_inner flags */
    uint64_t n_have;
};

struct gsvd_warray {
    gsvd_writer *w;                 /* the writer that owns this array */
    char *path;                     /* owned */
    struct gsvd_zarray meta;        /* owned members */
    uint64_t n_chunks;              /* chunks in the grid */
    uint64_t n_written;             /* distinct chunks written so far (under lock) */
    uint8_t *written;               /* owned; one bit per chunk, C order of the grid */
    pthread_mutex_t lock;           /* guards n_written, written and pending */
    struct shard_pending **pending; /* v3 sharded: per shard (C order), NULL when none held */
    uint64_t n_shards;
};

struct gsvd_writer {
    gsvd_store *st;            /* owned; staged */
    struct gsvd_strlist keys;  /* metadata keys written, for .zmetadata */
    struct gsvd_strlist docs;  /* their texts, same order */
    struct gsvd_strlist kinds; /* v3: "group" or "array" for each key */
    gsvd_warray **arrays;      /* owned */
    size_t n_arrays;
    struct gsvd_writer_params p;
    char *root_attrs; /* v3: the root group's attributes (JSON object text), or NULL */
};

/* (writer_chunk.c) Free one pending shard of n_inner inner chunks; accepts NULL. */
void gsvd_writer_pending_free(struct shard_pending *sp, size_t n_inner);

/* (writer_meta.c) The v3 metadata of `s` into a->meta, read back from the zarr.json text it
 * also leaves in `text` (appended; caller frees), and the pending-shard table of a sharded
 * array (owned by a).  Returns GSVD_OK, a logged GSVD_EINVAL for a bad spec, the codec
 * parser's codes, or GSVD_ENOMEM. */
int gsvd_writer_array_meta_v3(gsvd_writer *w, const struct gsvd_array_spec *s, gsvd_warray *a,
                              struct gsvd_buf *text);

/* (writer_meta.c) The v2 metadata of `s` into a->meta (owned by a).  Returns GSVD_OK, a logged
 * GSVD_EINVAL / GSVD_EFORMAT for a bad spec, the codec parser's codes, or GSVD_ENOMEM. */
int gsvd_writer_array_meta_v2(const struct gsvd_array_spec *s, gsvd_warray *a);

/* (writer_meta.c) Append the v2 .zattrs text of `s` to b: {"_ARRAY_DIMENSIONS": [...]} merged
 * with the spec's extra members.  GSVD_EINVAL (logged) when those are not a JSON object. */
int gsvd_writer_array_attrs(const struct gsvd_array_spec *s, struct gsvd_buf *b);

#endif /* GSVD_ZARR_WRITER_INTERNAL_H */
