/* zarr/store_internal.h - for store*.c only: the store vtable and the base struct.
 * A store implementation embeds struct gsvd_store first and is reached through store.c's
 * wrappers, which read a field added in version N only when ops->version >= N. */
#ifndef GSVD_ZARR_STORE_INTERNAL_H
#define GSVD_ZARR_STORE_INTERNAL_H
#include <stdint.h>
#include "gsvd_config.h"
#include "zarr/store.h"

#define GSVD_STORE_OPS_VERSION 4

struct gsvd_store_ops {
    int version;      /* GSVD_STORE_OPS_VERSION; fields are appended, never reordered */
    const char *name; /* "file", "zip", "mem", "memory" (views), "http", "gcs", "s3" */
    /* `url` is what follows the scheme prefix for file, zip and mem; the whole URL otherwise. */
    int (*open)(const char *url, unsigned flags, gsvd_store **out);
    void (*close)(gsvd_store *st);                                        /* accepts NULL */
    int (*get)(gsvd_store *st, const char *key, struct gsvd_buf *dst);    /* absent: ENOTFOUND */
    int (*put)(gsvd_store *st, const char *key, const void *p, size_t n); /* NULL: read-only */
    int (*list)(gsvd_store *st, const char *prefix, struct gsvd_strlist *names); /* optional */
    int (*commit)(gsvd_store *st); /* optional: NULL means writes are final when put */
    int (*size)(gsvd_store *st, const char *key, uint64_t *size); /* optional; absent: ENOTFOUND */
    /* version 2 */
    int (*prefetch)(gsvd_store *st, const char *const *keys, size_t n); /* optional hint */
    /* version 3, optional (NULL: store.c gets the whole value and cuts it): bytes [offset,
     * offset + length) of key, or its last `length` bytes when `suffix`; a range past the end
     * comes back short.  *size receives the value's total size, UINT64_MAX when unknown. */
    int (*get_range)(gsvd_store *st, const char *key, uint64_t offset, uint64_t length, int suffix,
                     struct gsvd_buf *dst, uint64_t *size);
    /* version 4, optional: like prefetch, for byte ranges; a later get_range of exactly one of
     * these ranges (same key, offset and length) takes the fetched data.  Replaces the plan. */
    int (*prefetch_ranges)(gsvd_store *st, const struct gsvd_store_range *r, size_t n);
};

struct gsvd_store {
    const struct gsvd_store_ops *ops;
    char *url;      /* owned; as given to gsvd_store_open */
    unsigned flags; /* GSVD_STORE_* */
};

extern const struct gsvd_store_ops gsvd_store_file_ops;
extern const struct gsvd_store_ops gsvd_store_mem_ops;
extern const struct gsvd_store_ops gsvd_store_zip_ops;  /* store_zip.c: read-only zip archives */
extern const struct gsvd_store_ops gsvd_store_view_ops; /* store_view.c: the caller's arrays */

/* (store_zip.c) Open the zip archive stored as `key` in the remote store `parent` (ownership
 * of parent moves to the new store, which closes it, also on failure); `display` is the
 * archive's URL for messages (copied).  Every read of the archive is a ranged get on parent:
 * one suffix request for the end records (and the central directory when it fits), then one
 * request per member.  Returns as the zip store's open, GSVD_ENOTFOUND (logged) when the
 * archive does not exist, or the parent's errors. */
GSVD_NODISCARD int gsvd_store_zip_open_on(gsvd_store *parent, const char *key, const char *display,
                                          gsvd_store **out);

#if GSVD_HAVE_CURL
extern const struct gsvd_store_ops gsvd_store_http_ops;
extern const struct gsvd_store_ops gsvd_store_gcs_ops;
extern const struct gsvd_store_ops gsvd_store_s3_ops;

/* How store_gcs.c and store_s3.c put a bucket onto the HTTP engine of store_http.c. */
enum gsvd_http_auth {
    GSVD_HTTP_AUTH_NONE = 0,
    GSVD_HTTP_AUTH_BEARER, /* Authorization: Bearer <secret> */
    GSVD_HTTP_AUTH_SIGV4,  /* CURLOPT_AWS_SIGV4 with user:secret, optional session token */
};
struct gsvd_http_config {
    const char *scheme;               /* "http", "gcs" or "s3" */
    const struct gsvd_store_ops *ops; /* the flavour's vtable (GSVD_HTTP_OPS in its own file),
                                         or NULL: plain http */
    const char *display;              /* the URL as the user gave it: the only URL in messages */
    const char *base;                 /* URL that "/" + percent-encoded key is appended to */
    const char *delete_base;          /* DELETE URL prefix taking "/" + encoded(object_prefix + key)
                                         as one segment (GCS JSON API), or NULL: DELETE base/key */
    const char *object_prefix;        /* object-name prefix ("" or "dir/"): for delete_base and
                                         for listings */
    const char *list_base;            /* URL a flavour's list op builds its queries on (S3: the
                                         bucket URL; GCS: the JSON API objects URL), or NULL */
    enum gsvd_http_auth auth;
    const char *secret;        /* bearer token, or SigV4 "ACCESS_KEY:SECRET"; copied, wiped */
    const char *session_token; /* SigV4 x-amz-security-token, or NULL */
    const char *sigv4;         /* CURLOPT_AWS_SIGV4, "aws:amz:REGION:s3" */
    int can_write;             /* 1: PUT base/key uploads */
    const char *why_read_only; /* reason shown when a read-only store is opened for writing */
    const char *bucket;        /* the bucket's name, for messages, or NULL */
    const char *probe_url;     /* write stores: a GET that needs the bucket and the credentials
                                  (a listing of at most one object under the prefix), sent
                                  before anything else: HTTP 404 means no such bucket; or NULL */
};

/* Open the HTTP engine on cfg (strings copied).  `flags` as for gsvd_store_open; a write store
 * first sends cfg->probe_url (the bucket exists and the credentials are good), then checks
 * that the output does not exist yet (unless OVERWRITE, which deletes the old .zmetadata first
 * so a half-rewritten output never looks complete; not with PROBE).  Caller owns *out. */
GSVD_NODISCARD int gsvd_http_open(const struct gsvd_http_config *cfg, unsigned flags,
                                  gsvd_store **out);

/* The engine's store operations (store_http.c), for the flavours' vtables: a flavour defines
 * its table in its own file with GSVD_HTTP_OPS(var, name, open, list functions), so the engine
 * never names a flavour and no two files depend on each other. */
void gsvd_http_close(gsvd_store *st);
GSVD_NODISCARD int gsvd_http_get(gsvd_store *st, const char *key, struct gsvd_buf *dst);
GSVD_NODISCARD int gsvd_http_get_range(gsvd_store *st, const char *key, uint64_t offset,
                                       uint64_t length, int suffix, struct gsvd_buf *dst,
                                       uint64_t *size);
GSVD_NODISCARD int gsvd_http_size(gsvd_store *st, const char *key, uint64_t *size);
GSVD_NODISCARD int gsvd_http_put(gsvd_store *st, const char *key, const void *p, size_t n);
GSVD_NODISCARD int gsvd_http_prefetch(gsvd_store *st, const char *const *keys, size_t n);
GSVD_NODISCARD int gsvd_http_prefetch_ranges(gsvd_store *st, const struct gsvd_store_range *rs,
                                             size_t n);
GSVD_NODISCARD int gsvd_http_commit(gsvd_store *st);

/* For a flavour's list op: GET the absolute URL `url` (built on gsvd_http_list_base()) with the
 * store's credentials, retries and status mapping; `label` stands for the key in messages.
 * The body moves into dst (caller owns).  Returns as gsvd_store_get(). */
GSVD_NODISCARD int gsvd_http_get_url(gsvd_store *st, const char *url, const char *label,
                                     struct gsvd_buf *dst);
/* The config's display URL, list_base ("" when none) and object_prefix; borrowed, valid until
 * close.  (Flavours use these rather than store.c's accessors: store.c names the flavours.) */
const char *gsvd_http_display(const gsvd_store *st);
const char *gsvd_http_list_base(const gsvd_store *st);
const char *gsvd_http_object_prefix(const gsvd_store *st);

/* A flavour's vtable: `listfn` is its list op, or NULL where the server cannot list. */
#define GSVD_HTTP_OPS(var, nm, openfn, listfn)                                                     \
    const struct gsvd_store_ops var = {                                                            \
        .version = GSVD_STORE_OPS_VERSION,                                                         \
        .name = nm,                                                                                \
        .open = openfn,                                                                            \
        .close = gsvd_http_close,                                                                  \
        .get = gsvd_http_get,                                                                      \
        .put = gsvd_http_put,                                                                      \
        .list = listfn,                                                                            \
        .commit = gsvd_http_commit,                                                                \
        .size = gsvd_http_size,                                                                    \
        .prefetch = gsvd_http_prefetch,                                                            \
        .get_range = gsvd_http_get_range,                                                          \
        .prefetch_ranges = gsvd_http_prefetch_ranges,                                              \
    }

/* (store_list.c) List `path` of a listing flavour page by page: make_url writes the URL of a
 * page (prefix = object prefix + path + "/", token NULL for the first page, page size 0 for the
 * server's default), parse reads a page's names and next token (zarr/list_parse.h).  Names
 * sorted and unique in *names.  GSVD_OK, GSVD_EIO (a 404: no such bucket), GSVD_EFORMAT (a
 * bad page, a repeated token, a runaway listing), or the engine's errors; all logged. */
typedef int (*gsvd_http_list_url_fn)(gsvd_store *st, const char *prefix, const char *token,
                                     unsigned page, struct gsvd_buf *url);
typedef int (*gsvd_http_list_parse_fn)(const char *text, size_t len, const char *prefix,
                                       const char *what, struct gsvd_strlist *names,
                                       char **next_token);
GSVD_NODISCARD int gsvd_http_list_pages(gsvd_store *st, const char *path,
                                        gsvd_http_list_url_fn make_url,
                                        gsvd_http_list_parse_fn parse, struct gsvd_strlist *names);

/* Open functions of store_gcs.c and store_s3.c (the whole URL). */
GSVD_NODISCARD int gsvd_store_gcs_open(const char *url, unsigned flags, gsvd_store **out);
GSVD_NODISCARD int gsvd_store_s3_open(const char *url, unsigned flags, gsvd_store **out);

/* (store_http.c) Split "SCHEME://BUCKET[/PREFIX]" (slen = length of "SCHEME://") into bucket and
 * prefix (caller owns both; prefix "" when absent, without leading or trailing '/').  GSVD_EINVAL
 * (logged) for a missing or invalid bucket name or prefix; GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_split_bucket_url(const char *url, size_t slen, char **bucket,
                                         char **prefix);

/* Percent-encode `s` (RFC 3986 unreserved kept, and '/' when keep_slash) onto b. */
GSVD_NODISCARD int gsvd_http_encode(struct gsvd_buf *b, const char *s, int keep_slash);
#endif

#endif /* GSVD_ZARR_STORE_INTERNAL_H */
