/* zarr/store.c - scheme table, key validation and the wrappers over the store vtable. */
#include "gsvd_config.h"
#include "zarr/store.h"

#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#if GSVD_HAVE_CURL
#include <curl/curl.h>
#endif

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/store_internal.h"

/* One row per scheme.  `ops` NULL: known scheme, not built into this binary. */
static const struct scheme {
    const char *prefix;
    int strip; /* 1: pass what follows the prefix to open(), 0: the whole URL */
    const struct gsvd_store_ops *ops;
} schemes[] = {
    {"file://", 1, &gsvd_store_file_ops}, {"mem:", 1, &gsvd_store_mem_ops},
    {"zip://", 1, &gsvd_store_zip_ops},
#if GSVD_HAVE_CURL
    {"http://", 0, &gsvd_store_http_ops}, {"https://", 0, &gsvd_store_http_ops},
    {"gs://", 0, &gsvd_store_gcs_ops},    {"s3://", 0, &gsvd_store_s3_ops},
#else
    {"http://", 0, NULL},
    {"https://", 0, NULL},
    {"gs://", 0, NULL},
    {"s3://", 0, NULL},
#endif
};

int gsvd_store_global_init(void)
{
#if GSVD_HAVE_CURL
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        gsvd_log_error("libcurl initialisation failed");
        return GSVD_EINTERNAL;
    }
#endif
    return GSVD_OK;
}

void gsvd_store_global_cleanup(void)
{
#if GSVD_HAVE_CURL
    curl_global_cleanup();
#endif
}

const char *gsvd_store_supported(void)
{
#if GSVD_HAVE_CURL
    return "file, zip, mem, http, https, gs, s3";
#else
    return "file, zip, mem";
#endif
}

/* Length of "scheme:" if `url` starts with an RFC 3986 scheme followed by "://", else 0. */
static size_t scheme_len(const char *url)
{
    size_t i = 0;
    if (!((url[0] >= 'a' && url[0] <= 'z') || (url[0] >= 'A' && url[0] <= 'Z')))
        return 0;
    while (url[i] &&
           (url[i] == '+' || url[i] == '-' || url[i] == '.' || (url[i] >= 'a' && url[i] <= 'z') ||
            (url[i] >= 'A' && url[i] <= 'Z') || (url[i] >= '0' && url[i] <= '9')))
        i++;
    return strncmp(url + i, "://", 3) == 0 ? i : 0;
}

/* A local path names a zipped store when it ends in ".zip" (any case) and is not a directory;
 * writing to such a path goes to the zip store too, which refuses it. */
static int is_zip_path(const char *path)
{
    size_t n = strlen(path);
    struct stat sb;
    if (n < 4 || strcasecmp(path + n - 4, ".zip") != 0)
        return 0;
    return !(stat(path, &sb) == 0 && S_ISDIR(sb.st_mode));
}

static int open_url(const char *url, unsigned flags, int zip_ok, gsvd_store **out);

/* A remote URL "SCHEME://HOST-OR-BUCKET/.../NAME.zip" names a zipped store: the zip store reads
 * the archive NAME.zip by ranged gets on the store of its directory.  0 for other URLs. */
static int is_remote_zip(const char *url)
{
    static const char *const remote[] = {"http://", "https://", "gs://", "s3://"};
    size_t n = strlen(url), slen = 0;
    const char *slash = strrchr(url, '/');

    for (size_t i = 0; i < GSVD_ARRAY_LEN(remote); i++)
        if (strncmp(url, remote[i], strlen(remote[i])) == 0)
            slen = strlen(remote[i]);
    return slen > 0 && n >= 4 && strcasecmp(url + n - 4, ".zip") == 0 && slash > url + slen;
}

static int open_remote_zip(const char *url, unsigned flags, gsvd_store **out)
{
    int rc = GSVD_OK;
    const char *slash = strrchr(url, '/');
    char *dir = NULL;
    gsvd_store *parent = NULL;

    *out = NULL;
    if (flags & GSVD_STORE_WRITE) {
        gsvd_log_error("%s: writing zip archives is not supported (zip stores are read-only; "
                       "write a store and zip it)",
                       url);
        return GSVD_EUNSUPPORTED;
    }
    dir = gsvd_strndup(url, (size_t)(slash - url));
    if (!dir)
        return GSVD_ENOMEM;
    GSVD_TRY(open_url(dir, GSVD_STORE_READ, 0, &parent));
    rc = gsvd_store_zip_open_on(parent, slash + 1, url, out); /* takes parent */
out:
    gsvd_free(dir);
    return rc;
}

int gsvd_store_open(const char *url, unsigned flags, gsvd_store **out)
{
    return open_url(url, flags, 1, out);
}

/* gsvd_store_open; zip_ok 0 opens a remote ".zip" URL as a plain remote store (the directory of
 * an archive). */
static int open_url(const char *url, unsigned flags, int zip_ok, gsvd_store **out)
{
    int rc = GSVD_OK;
    gsvd_store *st = NULL;
    const struct gsvd_store_ops *ops;
    size_t slen;

    *out = NULL;
    if (zip_ok && strncmp(url, "zip://", 6) == 0 && scheme_len(url + 6) > 0) {
        if (!is_remote_zip(url + 6)) {
            gsvd_log_error("%s: a zip:// URL names a local path or a remote .zip archive", url);
            return GSVD_EINVAL;
        }
        GSVD_TRY(open_remote_zip(url + 6, flags, &st));
        goto found;
    }
    if (zip_ok && is_remote_zip(url)) {
        GSVD_TRY(open_remote_zip(url, flags, &st));
        goto found;
    }
    for (size_t i = 0; i < GSVD_ARRAY_LEN(schemes); i++) {
        const struct scheme *s = &schemes[i];
        size_t plen = strlen(s->prefix);
        if (strncmp(url, s->prefix, plen) != 0)
            continue;
        if (!s->ops) {
            gsvd_log_error("%s: the %.*s store is not built into this gensvd (built-in: %s)", url,
                           (int)(plen - (s->prefix[plen - 1] == '/' ? 3 : 1)), s->prefix,
                           gsvd_store_supported());
            return GSVD_ENOTBUILT;
        }
        ops = s->ops;
        if (ops == &gsvd_store_file_ops && is_zip_path(url + plen))
            ops = &gsvd_store_zip_ops; /* "file://x.zip": the zip store, as for a plain path */
        GSVD_TRY(ops->open(s->strip ? url + plen : url, flags, &st));
        goto found;
    }
    slen = scheme_len(url);
    if (slen > 0) {
        gsvd_log_error("%s: unknown URL scheme '%.*s' (supported: %s)", url, (int)slen, url,
                       gsvd_store_supported());
        return GSVD_EINVAL;
    }
    GSVD_TRY(
        (is_zip_path(url) ? &gsvd_store_zip_ops : &gsvd_store_file_ops)->open(url, flags, &st));
found:
    st->url = gsvd_strdup(url);
    if (!st->url) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    st->flags = flags;
    *out = st;
    st = NULL;
out:
    gsvd_store_close(st);
    return rc;
}

void gsvd_store_close(gsvd_store *st)
{
    char *url;
    if (!st)
        return;
    url = st->url;
    st->ops->close(st);
    gsvd_free(url);
}

/* Checks the key and logs a bad one with the store's URL. */
static int check_key(const gsvd_store *st, const char *key)
{
    if (gsvd_key_check(key) < 0) {
        gsvd_log_error("%s: invalid key '%s' (empty, absolute, '.', '..' or control characters)",
                       st->url ? st->url : "store", key ? key : "(null)");
        return GSVD_EFORMAT;
    }
    return GSVD_OK;
}

int gsvd_store_get(gsvd_store *st, const char *key, struct gsvd_buf *dst)
{
    int rc = check_key(st, key);
    if (rc < 0)
        return rc;
    gsvd_buf_clear(dst);
    return st->ops->get(st, key, dst);
}

int gsvd_store_get_range(gsvd_store *st, const char *key, uint64_t offset, uint64_t length,
                         int suffix, struct gsvd_buf *dst, uint64_t *size)
{
    uint64_t total = 0, start;
    int rc = check_key(st, key);

    if (rc < 0)
        return rc;
    if (length > SIZE_MAX / 2) {
        gsvd_log_error("%s: range of %llu bytes of '%s' is too large", st->url,
                       (unsigned long long)length, key);
        return GSVD_EINVAL;
    }
    gsvd_buf_clear(dst);
    if (st->ops->version >= 3 && st->ops->get_range)
        return st->ops->get_range(st, key, offset, length, suffix, dst, size ? size : &total);
    /* no ranged reads: the whole value, then keep the range */
    rc = st->ops->get(st, key, dst);
    if (rc < 0)
        return rc;
    total = dst->len;
    if (suffix)
        start = length < total ? total - length : 0;
    else
        start = offset < total ? offset : total;
    if (length > total - start)
        length = total - start;
    if (start > 0 && length > 0)
        memmove(dst->data, dst->data + start, (size_t)length);
    dst->len = (size_t)length;
    if (size)
        *size = total;
    return GSVD_OK;
}

int gsvd_store_put(gsvd_store *st, const char *key, const void *p, size_t n)
{
    int rc = check_key(st, key);
    if (rc < 0)
        return rc;
    if (!st->ops->put || !(st->flags & GSVD_STORE_WRITE)) {
        gsvd_log_error("%s: store is read-only; cannot write '%s'", st->url, key);
        return GSVD_EINVAL;
    }
    return st->ops->put(st, key, p, n);
}

int gsvd_store_list(gsvd_store *st, const char *prefix, struct gsvd_strlist *names)
{
    int rc;
    if (!st->ops->list)
        return GSVD_EUNSUPPORTED;
    rc = st->ops->list(st, prefix ? prefix : "", names);
    if (rc >= 0)
        gsvd_strlist_sort(names);
    return rc;
}

int gsvd_store_size(gsvd_store *st, const char *key, uint64_t *size)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    int rc = check_key(st, key);
    if (rc < 0)
        return rc;
    if (st->ops->size)
        return st->ops->size(st, key, size);
    rc = st->ops->get(st, key, &b);
    if (rc == GSVD_OK)
        *size = b.len;
    gsvd_buf_free(&b);
    return rc;
}

int gsvd_store_prefetch(gsvd_store *st, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int rc = check_key(st, keys[i]);
        if (rc < 0)
            return rc;
    }
    if (st->ops->version < 2 || !st->ops->prefetch || n == 0)
        return GSVD_OK;
    return st->ops->prefetch(st, keys, n);
}

int gsvd_store_can_prefetch(const gsvd_store *st)
{
    return st->ops->version >= 2 && st->ops->prefetch != NULL;
}

int gsvd_store_can_prefetch_ranges(const gsvd_store *st)
{
    return st->ops->version >= 4 && st->ops->prefetch_ranges != NULL;
}

int gsvd_store_prefetch_ranges(gsvd_store *st, const struct gsvd_store_range *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int rc = check_key(st, r[i].key);
        if (rc < 0)
            return rc;
    }
    if (!gsvd_store_can_prefetch_ranges(st) || n == 0)
        return GSVD_OK;
    return st->ops->prefetch_ranges(st, r, n);
}

int gsvd_store_commit(gsvd_store *st)
{
    if (!(st->flags & GSVD_STORE_WRITE)) {
        gsvd_log_error("internal error: %s: commit on a read-only store", st->url);
        return GSVD_EINVAL;
    }
    return st->ops->commit ? st->ops->commit(st) : GSVD_OK;
}

const char *gsvd_store_url(const gsvd_store *st)
{
    return st->url;
}

const char *gsvd_store_scheme(const gsvd_store *st)
{
    return st->ops->name;
}
