/* zarr/store_s3.c - s3://BUCKET/PREFIX as a URL rewrite onto the HTTP engine, signed with
 * libcurl's CURLOPT_AWS_SIGV4 (the engine adds the x-amz-content-sha256 header).  Listing (for
 * stores without consolidated metadata) is ListObjectsV2 with delimiter "/" and continuation.
 *
 * Endpoint: --endpoint, else AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL, else AWS.  Addressing
 * ("auto"): path-style (ENDPOINT/BUCKET/KEY) for custom endpoints and dotted bucket names,
 * virtual-hosted (https://BUCKET.s3.REGION.amazonaws.com/KEY) otherwise.  Region: AWS_REGION,
 * AWS_DEFAULT_REGION, the profile's region in AWS_CONFIG_FILE (~/.aws/config), us-east-1.
 * Credentials (unless --no-sign-request): AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+
 * AWS_SESSION_TOKEN), else profile AWS_PROFILE (default "default") of
 * AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials).  No credential is ever logged. */
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

struct creds {
    char *key_id, *secret, *token; /* owned; wiped at free */
    const char *source;            /* for -v: "environment" or the profile file */
};

static void wipe_free(char *s)
{
    if (s)
        memset(s, 0, strlen(s));
    gsvd_free(s);
}

static char *trim(char *s)
{
    char *e;
    while (*s == ' ' || *s == '\t')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        *--e = '\0';
    return s;
}

/* Value of `key` in section `section` of the INI file `path` into *out (caller owns), or NULL
 * when absent.  Returns GSVD_OK, GSVD_ENOTFOUND when the file does not exist, GSVD_ENOMEM. */
static int ini_get(const char *path, const char *section, const char *key, char **out)
{
    char line[4096];
    int in = 0, rc = GSVD_OK;
    FILE *fp = fopen(path, "r");

    *out = NULL;
    if (!fp)
        return GSVD_ENOTFOUND;
    while (fgets(line, sizeof line, fp)) {
        char *l = trim(line), *eq;
        if (*l == '#' || *l == ';' || !*l)
            continue;
        if (*l == '[') {
            char *close = strchr(l, ']');
            if (close) {
                *close = '\0';
                in = strcmp(trim(l + 1), section) == 0;
            }
            continue;
        }
        eq = strchr(l, '=');
        if (!in || !eq)
            continue;
        *eq = '\0';
        if (strcmp(trim(l), key) == 0) {
            gsvd_free(*out);
            *out = gsvd_strdup(trim(eq + 1));
            if (!*out)
                rc = GSVD_ENOMEM;
        }
    }
    memset(line, 0, sizeof line);
    fclose(fp);
    return rc;
}

/* ~/.aws/NAME, or the file named by env. */
static char *aws_file(const char *env, const char *name)
{
    const char *v = getenv(env), *home = getenv("HOME");
    if (v && *v)
        return gsvd_strdup(v);
    return gsvd_asprintf("%s/.aws/%s", home && *home ? home : ".", name);
}

static const char *profile_name(void)
{
    const char *p = getenv("AWS_PROFILE");
    return p && *p ? p : "default";
}

static int find_region(char **out)
{
    const char *env = gsvd_store_remote()->aws_region;
    char *path = NULL, *section = NULL;
    int rc;

    *out = NULL;
    if (!env || !*env) /* the caller's region, else the environment's */
        env = getenv("AWS_REGION");
    if (!env || !*env)
        env = getenv("AWS_DEFAULT_REGION");
    if (env && *env) {
        *out = gsvd_strdup(env);
        return *out ? GSVD_OK : GSVD_ENOMEM;
    }
    path = aws_file("AWS_CONFIG_FILE", "config");
    section = strcmp(profile_name(), "default") == 0 ? gsvd_strdup("default")
                                                     : gsvd_asprintf("profile %s", profile_name());
    if (!path || !section) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    rc = ini_get(path, section, "region", out);
    if (rc == GSVD_ENOTFOUND)
        rc = GSVD_OK;
    if (rc == GSVD_OK && !*out)
        *out = gsvd_strdup("us-east-1");
    if (rc == GSVD_OK && !*out)
        rc = GSVD_ENOMEM;
out:
    gsvd_free(path);
    gsvd_free(section);
    return rc;
}

static void creds_clear(struct creds *c)
{
    wipe_free(c->key_id);
    wipe_free(c->secret);
    wipe_free(c->token);
    memset(c, 0, sizeof *c);
}

static int find_creds(const char *url, struct creds *c)
{
    const struct gsvd_remote_params *p = gsvd_store_remote();
    const char *id = getenv("AWS_ACCESS_KEY_ID"), *sec = getenv("AWS_SECRET_ACCESS_KEY");
    const char *tok = getenv("AWS_SESSION_TOKEN");
    char *path = NULL;
    int rc = GSVD_OK;

    memset(c, 0, sizeof *c);
    if (p->aws_access_key_id || p->aws_secret_access_key) { /* the caller's, never mixed */
        if (!p->aws_access_key_id || !*p->aws_access_key_id || !p->aws_secret_access_key ||
            !*p->aws_secret_access_key) {
            gsvd_log_error("%s: only one of the access key id and the secret access key is "
                           "set",
                           url);
            rc = GSVD_EAUTH;
            goto out;
        }
        c->key_id = gsvd_strdup(p->aws_access_key_id);
        c->secret = gsvd_strdup(p->aws_secret_access_key);
        tok = p->aws_session_token;
        c->token = tok && *tok ? gsvd_strdup(tok) : NULL;
        c->source = "the settings";
        if (!c->key_id || !c->secret || (tok && *tok && !c->token))
            rc = GSVD_ENOMEM;
        goto out;
    }
    if (id && *id && sec && *sec) {
        c->key_id = gsvd_strdup(id);
        c->secret = gsvd_strdup(sec);
        c->token = tok && *tok ? gsvd_strdup(tok) : NULL;
        c->source = "the environment";
        if (!c->key_id || !c->secret || (tok && *tok && !c->token))
            rc = GSVD_ENOMEM;
        goto out;
    }
    if ((id && *id) != (sec && *sec)) {
        gsvd_log_error("%s: only one of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY is set", url);
        rc = GSVD_EAUTH;
        goto out;
    }
    path = aws_file("AWS_SHARED_CREDENTIALS_FILE", "credentials");
    if (!path) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    rc = ini_get(path, profile_name(), "aws_access_key_id", &c->key_id);
    if (rc == GSVD_OK)
        rc = ini_get(path, profile_name(), "aws_secret_access_key", &c->secret);
    if (rc == GSVD_OK)
        rc = ini_get(path, profile_name(), "aws_session_token", &c->token);
    if (rc == GSVD_ENOMEM)
        goto out;
    if (rc == GSVD_OK && c->key_id && *c->key_id && c->secret && *c->secret) {
        c->source = "the shared credentials file";
        goto out;
    }
    gsvd_log_error("%s: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or "
                   "AWS_PROFILE (now '%s') with a profile in %s; for a public bucket use "
                   "--no-sign-request",
                   url, profile_name(), path);
    rc = GSVD_EAUTH;
out:
    if (rc < 0)
        creds_clear(c);
    gsvd_free(path);
    return rc;
}

/* Header-safe: printable ASCII without spaces. */
static int cred_ok(const char *s)
{
    for (; s && *s; s++)
        if ((unsigned char)*s < 0x21 || (unsigned char)*s > 0x7e)
            return 0;
    return 1;
}

static int build_base(const char *url, const char *bucket, const char *prefix, const char *region,
                      struct gsvd_buf *base)
{
    const struct gsvd_remote_params *p = gsvd_store_remote();
    const char *ep = p->endpoint, *mode = p->s3_addressing ? p->s3_addressing : "auto";
    int path_style, rc = GSVD_OK;

    if (!ep || !*ep)
        ep = getenv("AWS_ENDPOINT_URL_S3");
    if (!ep || !*ep)
        ep = getenv("AWS_ENDPOINT_URL");
    if (ep && !*ep)
        ep = NULL;
    if (ep && !strstr(ep, "://")) {
        gsvd_log_error("%s: endpoint '%s' is not a URL (http://HOST:PORT or https://HOST)", url,
                       ep);
        return GSVD_EINVAL;
    }
    if (!strcmp(mode, "path"))
        path_style = 1;
    else if (!strcmp(mode, "virtual"))
        path_style = 0;
    else
        path_style = ep != NULL || strchr(bucket, '.') != NULL;
    if (ep) {
        size_t n = strlen(ep);
        while (n > 0 && ep[n - 1] == '/')
            n--;
        if (path_style) {
            GSVD_TRY(gsvd_buf_printf(base, "%.*s/%s", (int)n, ep, bucket));
        } else {
            const char *host = strstr(ep, "://") + 3;
            GSVD_TRY(gsvd_buf_printf(base, "%.*s%s.%.*s", (int)(host - ep), ep, bucket,
                                     (int)(n - (size_t)(host - ep)), host));
        }
    } else if (path_style) {
        GSVD_TRY(gsvd_buf_printf(base, "https://s3.%s.amazonaws.com/%s", region, bucket));
    } else {
        GSVD_TRY(gsvd_buf_printf(base, "https://%s.s3.%s.amazonaws.com", bucket, region));
    }
    if (*prefix) {
        GSVD_TRY(gsvd_buf_puts(base, "/"));
        GSVD_TRY(gsvd_http_encode(base, prefix, 1));
    }
out:
    return rc;
}

/* ListObjectsV2 of object_prefix + path + "/" with delimiter "/", page by page.  Query
 * parameters go in sorted order and fully percent-encoded: the canonical form SigV4 signs.
 * The URL of one page: continuing at `token` (NULL: the first page), `page` entries (0: the
 * server's default); gsvd_http_list_pages (store_list.c) drives the pages. */
static int s3_list_url(gsvd_store *st, const char *prefix, const char *token, unsigned page,
                       struct gsvd_buf *url)
{
    int rc = GSVD_OK;
    GSVD_TRY(gsvd_buf_printf(url, "%s/?", gsvd_http_list_base(st)));
    if (token) {
        GSVD_TRY(gsvd_buf_puts(url, "continuation-token="));
        GSVD_TRY(gsvd_http_encode(url, token, 0));
        GSVD_TRY(gsvd_buf_puts(url, "&"));
    }
    GSVD_TRY(gsvd_buf_puts(url, "delimiter=%2F&list-type=2"));
    if (page)
        GSVD_TRY(gsvd_buf_printf(url, "&max-keys=%u", page));
    GSVD_TRY(gsvd_buf_puts(url, "&prefix="));
    GSVD_TRY(gsvd_http_encode(url, prefix, 0));
out:
    return rc;
}

static int s3_list(gsvd_store *st, const char *path, struct gsvd_strlist *names)
{
    return gsvd_http_list_pages(st, path, s3_list_url, gsvd_list_parse_s3, names);
}

int gsvd_store_s3_open(const char *url, unsigned flags, gsvd_store **out)
{
    const struct gsvd_remote_params *p = gsvd_store_remote();
    char *bucket = NULL, *prefix = NULL, *region = NULL, *userpwd = NULL, *sigv4 = NULL;
    char *objp = NULL;
    struct gsvd_buf base = GSVD_BUF_INIT, lbase = GSVD_BUF_INIT, probe = GSVD_BUF_INIT;
    struct creds c = {0};
    int rc = GSVD_OK;

    *out = NULL;
    GSVD_TRY(gsvd_split_bucket_url(url, 5, &bucket, &prefix));
    GSVD_TRY(find_region(&region));
    GSVD_TRY(build_base(url, bucket, prefix, region, &base));
    GSVD_TRY(build_base(url, bucket, "", region, &lbase));
    objp = *prefix ? gsvd_asprintf("%s/", prefix) : gsvd_strdup("");
    if (!objp) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (flags & GSVD_STORE_WRITE) { /* ListObjectsV2 of one key: the bucket and the signature */
        GSVD_TRY(gsvd_buf_printf(&probe, "%s/?list-type=2&max-keys=1&prefix=", lbase.data));
        GSVD_TRY(gsvd_http_encode(&probe, objp, 0));
    }
    if (!p->no_sign_request) {
        GSVD_TRY(find_creds(url, &c));
        if (!cred_ok(c.key_id) || !cred_ok(c.secret) || !cred_ok(c.token) ||
            strchr(c.key_id, ':')) {
            gsvd_log_error("%s: AWS credentials from %s hold spaces, ':' in the key id, or "
                           "control characters",
                           url, c.source);
            rc = GSVD_EAUTH;
            goto out;
        }
        userpwd = gsvd_asprintf("%s:%s", c.key_id, c.secret);
        sigv4 = gsvd_asprintf("aws:amz:%s:s3", region);
        if (!userpwd || !sigv4) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        gsvd_log_debug("%s: signing with credentials from %s, region %s", url, c.source, region);
    } else {
        gsvd_log_debug("%s: anonymous requests (--no-sign-request)", url);
    }
    gsvd_log_debug("%s: requests go to %s", url, base.data);
    struct gsvd_http_config cfg = {
        .scheme = "s3",
        .ops = &gsvd_store_s3_ops,
        .display = url,
        .base = base.data,
        .object_prefix = objp,
        .list_base = lbase.data,
        .auth = p->no_sign_request ? GSVD_HTTP_AUTH_NONE : GSVD_HTTP_AUTH_SIGV4,
        .secret = userpwd,
        .session_token = c.token,
        .sigv4 = sigv4,
        .can_write = !p->no_sign_request,
        .why_read_only = "--no-sign-request makes anonymous requests, which cannot write",
        .bucket = bucket,
        .probe_url = probe.data,
    };
    rc = gsvd_http_open(&cfg, flags, out);
out:
    creds_clear(&c);
    wipe_free(userpwd);
    gsvd_free(sigv4);
    gsvd_free(bucket);
    gsvd_free(prefix);
    gsvd_free(region);
    gsvd_free(objp);
    gsvd_buf_free(&base);
    gsvd_buf_free(&lbase);
    gsvd_buf_free(&probe);
    return rc;
}

GSVD_HTTP_OPS(gsvd_store_s3_ops, "s3", gsvd_store_s3_open, s3_list);
