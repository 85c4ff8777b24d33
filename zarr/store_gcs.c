/* zarr/store_gcs.c - gs://BUCKET/PREFIX as a URL rewrite onto the HTTP engine.
 * Objects are read and written through the XML API form https://storage.googleapis.com/BUCKET/
 * KEY (the emulator serves the same paths); deletes and listings (for stores without consolidated
 * metadata: objects.list with delimiter "/" and pageToken) use the JSON API objects URL.  Anonymous
 * unless a token is given: --gcs-token-file wins over GOOGLE_OAUTH_ACCESS_TOKEN.  With
 * STORAGE_EMULATOR_HOST ("host:port" or a URL) every request goes to the emulator. */
#include "gsvd_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/list_parse.h"
#include "zarr/store_internal.h"

#define MAX_TOKEN_BYTES 16384

/* Read the token file into *out (whitespace around it removed).  Errors are logged without
 * the file's contents. */
static int read_token_file(const char *path, char **out)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    char chunk[4096];
    size_t n, s = 0, e;
    int rc = GSVD_OK;
    FILE *fp = fopen(path, "rb");

    *out = NULL;
    if (!fp) {
        gsvd_log_error("%s: cannot read the GCS token file: %s", path, strerror(errno));
        return GSVD_EAUTH;
    }
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        if (b.len + n > MAX_TOKEN_BYTES) {
            gsvd_log_error("%s: GCS token file is larger than %d bytes", path, MAX_TOKEN_BYTES);
            rc = GSVD_EAUTH;
            goto out;
        }
        GSVD_TRY(gsvd_buf_append(&b, chunk, n));
    }
    e = b.len;
    while (s < e &&
           (b.data[s] == ' ' || b.data[s] == '\n' || b.data[s] == '\r' || b.data[s] == '\t'))
        s++;
    while (e > s && (b.data[e - 1] == ' ' || b.data[e - 1] == '\n' || b.data[e - 1] == '\r' ||
                     b.data[e - 1] == '\t'))
        e--;
    if (e == s) {
        gsvd_log_error("%s: GCS token file is empty", path);
        rc = GSVD_EAUTH;
        goto out;
    }
    *out = gsvd_strndup(b.data + s, e - s);
    if (!*out)
        rc = GSVD_ENOMEM;
out:
    if (b.data)
        memset(b.data, 0, b.len);
    gsvd_buf_free(&b);
    fclose(fp);
    return rc;
}

/* A token goes into a header line: printable ASCII only. */
static int token_ok(const char *t)
{
    for (; *t; t++)
        if ((unsigned char)*t < 0x21 || (unsigned char)*t > 0x7e)
            return 0;
    return 1;
}

/* JSON API objects.list of object_prefix + path + "/" with delimiter "/", page by page.
 * The URL of one page: continuing at `token` (NULL: the first page), `page` entries (0: the
 * server's default); gsvd_http_list_pages (store_list.c) drives the pages. */
static int gcs_list_url(gsvd_store *st, const char *prefix, const char *token, unsigned page,
                        struct gsvd_buf *url)
{
    int rc = GSVD_OK;
    GSVD_TRY(gsvd_buf_printf(url, "%s?delimiter=%%2F", gsvd_http_list_base(st)));
    if (page)
        GSVD_TRY(gsvd_buf_printf(url, "&maxResults=%u", page));
    if (token) {
        GSVD_TRY(gsvd_buf_puts(url, "&pageToken="));
        GSVD_TRY(gsvd_http_encode(url, token, 0));
    }
    GSVD_TRY(gsvd_buf_puts(url, "&prefix="));
    GSVD_TRY(gsvd_http_encode(url, prefix, 0));
out:
    return rc;
}

static int gcs_list(gsvd_store *st, const char *path, struct gsvd_strlist *names)
{
    return gsvd_http_list_pages(st, path, gcs_list_url, gsvd_list_parse_gcs, names);
}

int gsvd_store_gcs_open(const char *url, unsigned flags, gsvd_store **out)
{
    const struct gsvd_remote_params *p = gsvd_store_remote();
    const char *emu = getenv("STORAGE_EMULATOR_HOST");
    char *bucket = NULL, *prefix = NULL, *host = NULL, *token = NULL, *objp = NULL;
    struct gsvd_buf base = GSVD_BUF_INIT, del = GSVD_BUF_INIT, probe = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    *out = NULL;
    GSVD_TRY(gsvd_split_bucket_url(url, 5, &bucket, &prefix));
    if (emu && *emu) {
        size_t n = strlen(emu);
        while (n > 0 && emu[n - 1] == '/')
            n--;
        host =
            strstr(emu, "://") ? gsvd_strndup(emu, n) : gsvd_asprintf("http://%.*s", (int)n, emu);
    } else {
        host = gsvd_strdup("https://storage.googleapis.com");
    }
    if (!host) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (p->gcs_token && *p->gcs_token) {
        token = gsvd_strdup(p->gcs_token);
        if (!token) {
            rc = GSVD_ENOMEM;
            goto out;
        }
    } else if (p->gcs_token_file) {
        GSVD_TRY(read_token_file(p->gcs_token_file, &token));
    } else if (getenv("GOOGLE_OAUTH_ACCESS_TOKEN") && *getenv("GOOGLE_OAUTH_ACCESS_TOKEN")) {
        token = gsvd_strdup(getenv("GOOGLE_OAUTH_ACCESS_TOKEN"));
        if (!token) {
            rc = GSVD_ENOMEM;
            goto out;
        }
    }
    if (token && !token_ok(token)) {
        gsvd_log_error("%s: the GCS token holds spaces or control characters", url);
        rc = GSVD_EAUTH;
        goto out;
    }
    GSVD_TRY(gsvd_buf_printf(&base, "%s/", host));
    GSVD_TRY(gsvd_http_encode(&base, bucket, 0));
    if (*prefix) {
        GSVD_TRY(gsvd_buf_puts(&base, "/"));
        GSVD_TRY(gsvd_http_encode(&base, prefix, 1));
    }
    GSVD_TRY(gsvd_buf_printf(&del, "%s/storage/v1/b/", host));
    GSVD_TRY(gsvd_http_encode(&del, bucket, 0));
    GSVD_TRY(gsvd_buf_puts(&del, "/o"));
    objp = *prefix ? gsvd_asprintf("%s/", prefix) : gsvd_strdup("");
    if (!objp) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (flags & GSVD_STORE_WRITE) { /* objects.list of one object: the bucket and the token */
        GSVD_TRY(gsvd_buf_printf(&probe, "%s?maxResults=1&prefix=", del.data));
        GSVD_TRY(gsvd_http_encode(&probe, objp, 0));
    }
    struct gsvd_http_config cfg = {
        .scheme = "gcs",
        .ops = &gsvd_store_gcs_ops,
        .display = url,
        .base = base.data,
        .delete_base = del.data,
        .object_prefix = objp,
        .list_base = del.data,
        .auth = token ? GSVD_HTTP_AUTH_BEARER : GSVD_HTTP_AUTH_NONE,
        .secret = token,
        .can_write = token != NULL || (emu && *emu),
        .why_read_only = "writing to gs:// needs an OAuth2 access token: set "
                         "GOOGLE_OAUTH_ACCESS_TOKEN or use --gcs-token-file",
        .bucket = bucket,
        .probe_url = probe.data,
    };
    gsvd_log_debug("%s: GCS %s, %s", url, emu && *emu ? "emulator" : "storage.googleapis.com",
                   token ? "bearer token" : "anonymous");
    rc = gsvd_http_open(&cfg, flags, out);
out:
    if (token)
        memset(token, 0, strlen(token));
    gsvd_free(token);
    gsvd_free(bucket);
    gsvd_free(prefix);
    gsvd_free(host);
    gsvd_free(objp);
    gsvd_buf_free(&base);
    gsvd_buf_free(&del);
    gsvd_buf_free(&probe);
    return rc;
}

GSVD_HTTP_OPS(gsvd_store_gcs_ops, "gcs", gsvd_store_gcs_open, gcs_list);
