/* zarr/codec_chain_internal.h - for codec.c, codec_v3.c and codec_chain.c only: the codec
 * chain's layout and the registry helpers its parsers share.  codec.c owns the registry and the
 * v2 configuration, codec_v3.c the v3 codec lists, codec_chain.c running a chain over chunks;
 * none of them calls into codec_v3.c or codec_chain.c (no object-file cycles).
 * Thread safety: as zarr/codec.h. */
#ifndef GSVD_ZARR_CODEC_CHAIN_INTERNAL_H
#define GSVD_ZARR_CODEC_CHAIN_INTERNAL_H
#include <stddef.h>
#include <cjson/cJSON.h>
#include "zarr/codec.h"
#include "zarr/codec_internal.h"
#include "zarr/dtype.h"

struct gsvd_codec_stage {
    const struct gsvd_codec_ops *ops; /* NULL: empty slot */
    void *cfg;                        /* owned; freed with ops->free_cfg */
};

struct gsvd_codec_chain {
    struct gsvd_codec_stage *filters; /* n_filters stages in .zarray order; owned */
    size_t n_filters;
    struct gsvd_codec_stage comp; /* compressor; comp.ops NULL for "compressor": null */
    struct gsvd_dtype dt;         /* array dtype */
    int is_vlen;  /* v2: filters[0] is vlen-utf8; v3: the array -> bytes codec was */
    int ordered;  /* v3: filters[] holds every bytes -> bytes codec in zarr.json order, each free
                     to change the size; comp is unused */
    char *prefix; /* owned, or NULL: description of the v3 codecs before filters[] */
};

/* (codec.c) The table entry with numcodecs id `id`, or NULL (not logged) when none has it.
 * The result is borrowed: a static table. */
const struct gsvd_codec_ops *gsvd_codec_find(const char *id);

/* (codec.c) Parse one JSON text; a NULL text gives *out NULL, "null" a cJSON null.  Returns
 * GSVD_OK with *out (caller deletes with cJSON_Delete), a logged GSVD_EFORMAT naming `where` and
 * `what`, or GSVD_ENOMEM (logged by the allocator). */
int gsvd_codec_parse_text(const char *text, const char *where, const char *what, cJSON **out);

#endif /* GSVD_ZARR_CODEC_CHAIN_INTERNAL_H */
