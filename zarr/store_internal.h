/* zarr/store_internal.h - for store*.c only: the store vtable and the base struct.
 * A store implementation embeds struct gsvd_store first and is reached through store.c's
 * wrappers, which read a field added in version N only when ops->version >= N. */
#ifndef GSVD_ZARR_STORE_INTERNAL_H
#define GSVD_ZARR_STORE_INTERNAL_H
#include <stdint.h>
#include "zarr/store.h"

#define GSVD_STORE_OPS_VERSION 1

struct gsvd_store_ops {
    int version;      /* GSVD_STORE_OPS_VERSION; fields are appended, never reordered */
    const char *name; /* "file", "mem", "http", "gcs", "s3" */
    /* `url` is what follows the scheme prefix for file and mem; the whole URL otherwise. */
    int (*open)(const char *url, unsigned flags, gsvd_store **out);
    void (*close)(gsvd_store *st);                                        /* accepts NULL */
    int (*get)(gsvd_store *st, const char *key, struct gsvd_buf *dst);    /* absent: ENOTFOUND */
    int (*put)(gsvd_store *st, const char *key, const void *p, size_t n); /* NULL: read-only */
    int (*list)(gsvd_store *st, const char *prefix, struct gsvd_strlist *names); /* optional */
    int (*commit)(gsvd_store *st); /* optional: NULL means writes are final when put */
    int (*size)(gsvd_store *st, const char *key, uint64_t *size); /* optional; absent: ENOTFOUND */
};

struct gsvd_store {
    const struct gsvd_store_ops *ops;
    char *url;      /* owned; as given to gsvd_store_open */
    unsigned flags; /* GSVD_STORE_* */
};

extern const struct gsvd_store_ops gsvd_store_file_ops;
extern const struct gsvd_store_ops gsvd_store_mem_ops;

#endif /* GSVD_ZARR_STORE_INTERNAL_H */
