/* zarr/store_http.c - the http(s), gs and s3 stores' operations on top of the request engine
 * (zarr/store_http_engine.c): get, ranged get, HEAD, PUT, read-ahead plans, claiming prefetched
 * requests, open and close, and the mapping of finished requests to errors.
 *
 * Status mapping (logged by the caller's thread, naming the key and the status, never a
 * header): 2xx OK; 404 GSVD_ENOTFOUND (not logged; the Zarr layer decides whether a missing
 * key is a fill-value chunk or an error); 401/403 GSVD_EAUTH; other 4xx and 501 GSVD_EIO;
 * retryable failures after the last attempt GSVD_ENET.  Nothing that carries a credential (the
 * Authorization header, the SigV4 user:secret, the session token) is ever formatted into a
 * message: log lines name the store URL (as the user gave it) and the key only. */
#include "gsvd_config.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "common/scope.h"
#include "zarr/sigv4.h"
#include "zarr/store_internal.h"

#include "zarr/store_http_internal.h"

/* Wipe and free a string holding a secret. */
static void free_secret(char *s)
{
    if (!s)
        return;
    volatile char *v = s;
    while (*v)
        *v++ = 0;
    gsvd_free(s);
}

/* Bucket of a prefetched request: key and range, so the ranges of one archive spread out. */
static unsigned hash_req(const char *k, const char *range)
{
    uint32_t h = 2166136261u;
    while (*k)
        h = (h ^ (unsigned char)*k++) * 16777619u;
    while (*range)
        h = (h ^ (unsigned char)*range++) * 16777619u;
    return h % N_BUCKETS;
}

int gsvd_split_bucket_url(const char *url, size_t slen, char **bucket, char **prefix)
{
    const char *b = url + slen, *slash = strchr(b, '/');
    size_t blen = slash ? (size_t)(slash - b) : strlen(b);
    const char *p = slash ? slash + 1 : "";
    size_t plen;

    *bucket = *prefix = NULL;
    if (blen == 0 || blen > 255) {
        gsvd_log_error("%s: no bucket name in the URL", url);
        return GSVD_EINVAL;
    }
    for (size_t i = 0; i < blen; i++) {
        char c = b[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '.' || c == '_')) {
            gsvd_log_error("%s: '%.*s' is not a valid bucket name", url, (int)blen, b);
            return GSVD_EINVAL;
        }
    }
    while (*p == '/')
        p++;
    plen = strlen(p);
    while (plen > 0 && p[plen - 1] == '/')
        plen--;
    *bucket = gsvd_strndup(b, blen);
    *prefix = gsvd_strndup(p, plen);
    if (!*bucket || !*prefix) {
        gsvd_free(*bucket);
        gsvd_free(*prefix);
        *bucket = *prefix = NULL;
        return GSVD_ENOMEM;
    }
    if (plen && gsvd_key_check(*prefix) < 0) {
        gsvd_log_error("%s: invalid object prefix '%s' (empty, '.' or '..' components)", url,
                       *prefix);
        gsvd_free(*bucket);
        gsvd_free(*prefix);
        *bucket = *prefix = NULL;
        return GSVD_EINVAL;
    }
    return GSVD_OK;
}

/* ---- caller side -------------------------------------------------------------------------- */

/* Log a failed request (caller's thread) and map it to a gsvd_err.  r is done. */
static int outcome(struct store_http *h, struct req *r)
{
    const char *what = r->method == M_PUT      ? "PUT"
                       : r->method == M_DELETE ? "DELETE"
                       : r->method == M_HEAD   ? "HEAD"
                                               : "GET";
    char code[64] = "";

    if (r->code[0])
        snprintf(code, sizeof code, " (%s)", r->code);
    if (r->cc == CURLE_OK && r->status >= 200 && r->status < 300)
        return GSVD_OK;
    if (r->cc == CURLE_OK && r->status == 404)
        return GSVD_ENOTFOUND;
    if (r->cc == CURLE_OK && (r->status == 401 || r->status == 403)) {
        gsvd_log_error("%s/%s: %s refused with HTTP %ld%s: missing or rejected credentials, "
                       "or no permission",
                       h->display, r->key, what, r->status, code);
        return GSVD_EAUTH;
    }
    if (r->too_big && r->range_len && r->status == 206) {
        gsvd_log_error("%s/%s: HTTP 206 body longer than the %llu bytes of Range bytes=%s; "
                       "refused",
                       h->display, r->key, (unsigned long long)r->range_len, r->range);
        return GSVD_EIO;
    }
    if (r->too_big) {
        gsvd_log_error("%s/%s: object larger than %zu bytes; refused", h->display, r->key,
                       (size_t)MAX_OBJECT_BYTES);
        return GSVD_EIO;
    }
    if (r->cc == CURLE_OUT_OF_MEMORY || (r->cc == CURLE_WRITE_ERROR && !r->too_big)) {
        gsvd_log_error("%s/%s: out of memory receiving the object", h->display, r->key);
        return GSVD_ENOMEM;
    }
    if (r->cc == CURLE_OK && r->status >= 300 && r->status < 400 &&
        h->auth != GSVD_HTTP_AUTH_NONE) {
        gsvd_log_error("%s/%s: %s answered with a redirect (HTTP %ld%s); refused: signed or "
                       "token requests are never sent on to another location (use the endpoint "
                       "or bucket region the server names)",
                       h->display, r->key, what, r->status, code);
        return GSVD_EIO;
    }
    if (r->cc == CURLE_PEER_FAILED_VERIFICATION || r->cc == CURLE_SSL_CACERT_BADFILE) {
        gsvd_log_error("%s/%s: %s: the server's TLS certificate is not trusted (%s%s%s); if it "
                       "is signed by a private CA, point CURL_CA_BUNDLE or SSL_CERT_FILE at that "
                       "CA's certificate",
                       h->display, r->key, what, curl_easy_strerror(r->cc), r->err[0] ? ": " : "",
                       r->err);
        return GSVD_ENET;
    }
    if (r->cc == CURLE_OK && !gsvd_http_retryable(r)) {
        gsvd_log_error("%s/%s: %s failed with HTTP %ld%s", h->display, r->key, what, r->status,
                       code);
        return GSVD_EIO;
    }
    if (r->cc == CURLE_OK)
        gsvd_log_error("%s/%s: %s failed with HTTP %ld%s after %u attempts", h->display, r->key,
                       what, r->status, code, r->attempt);
    else
        gsvd_log_error("%s/%s: %s failed after %u attempts: %s%s%s", h->display, r->key, what,
                       r->attempt, curl_easy_strerror(r->cc), r->err[0] ? ": " : "", r->err);
    return GSVD_ENET;
}

/* The CA certificates to trust, from the environment as the curl tool reads it (libcurl itself
 * does not): CURL_CA_BUNDLE, else SSL_CERT_FILE, as a bundle file; SSL_CERT_DIR as a hashed
 * directory.  Unset or empty: libcurl's built-in bundle.  GSVD_ENOMEM. */
static int trust_from_env(struct store_http *h)
{
    const char *f = getenv("CURL_CA_BUNDLE"), *d = getenv("SSL_CERT_DIR");

    if (!f || !*f)
        f = getenv("SSL_CERT_FILE");
    if (f && *f && !(h->cainfo = gsvd_strdup(f)))
        return GSVD_ENOMEM;
    if (d && *d && !(h->capath = gsvd_strdup(d)))
        return GSVD_ENOMEM;
    return GSVD_OK;
}

static void wake(struct store_http *h)
{
    curl_multi_wakeup(h->multi);
}

/* Submit r (caller owns it again once it is done) and wait for it.  Mutex not held. */
static void run_req(struct store_http *h, struct req *r)
{
    pthread_mutex_lock(&h->mu);
    gsvd_http_push_urgent(h, r);
    wake(h);
    while (r->state != R_DONE)
        pthread_cond_wait(&h->cv, &h->mu);
    pthread_mutex_unlock(&h->mu);
}

/* Remove and return the unclaimed prefetched request for key and range ("" for the whole
 * value), or NULL.  Mutex held. */
static struct req *claim(struct store_http *h, const char *key, const char *range)
{
    struct req **pp = &h->buckets[hash_req(key, range)];
    for (; *pp; pp = &(*pp)->hnext) {
        struct req *r = *pp;
        if (strcmp(r->key, key) != 0 || strcmp(r->range, range) != 0)
            continue;
        *pp = r->hnext;
        r->hnext = NULL;
        r->claimed = 1;
        /* the claimer frees r when done: the plan must not point at it any more */
        if (r->ahead_idx < h->n_ahead && h->ahead[r->ahead_idx] == r)
            h->ahead[r->ahead_idx] = NULL;
        if (r->state == R_DONE) {
            h->ready_count--;
            h->ready_bytes -= r->data.len;
        } else if (r->state == R_QUEUED && !r->queued_urgent) {
            gsvd_http_push_urgent(h, r);
            wake(h);
        }
        return r;
    }
    return NULL;
}

/* The prefetched request for key and range if there is one (waited for), else a new one run
 * now.  The caller frees the done request; NULL on ENOMEM. */
static struct req *claim_or_run(struct store_http *h, const char *key, const char *range,
                                uint64_t range_len)
{
    struct req *r;

    pthread_mutex_lock(&h->mu);
    r = claim(h, key, range);
    if (r) {
        while (r->state != R_DONE)
            pthread_cond_wait(&h->cv, &h->mu);
        pthread_mutex_unlock(&h->mu);
        return r;
    }
    pthread_mutex_unlock(&h->mu);
    r = gsvd_http_req_new(h, key, M_GET);
    if (!r)
        return NULL;
    snprintf(r->range, sizeof r->range, "%s", range);
    r->range_len = range_len;
    run_req(h, r);
    return r;
}

int gsvd_http_get(gsvd_store *st, const char *key, struct gsvd_buf *dst)
{
    struct store_http *h = (struct store_http *)st;
    struct req *r;
    int rc;

    r = claim_or_run(h, key, "", 0);
    if (!r)
        return GSVD_ENOMEM;
    rc = outcome(h, r);
    if (rc == GSVD_OK) {
        gsvd_buf_free(dst);
        *dst = r->data; /* ownership of the body moves to the caller */
        r->data = (struct gsvd_buf)GSVD_BUF_INIT;
        gsvd_log_debug("%s/%s: %zu bytes", st->url, key, dst->len);
    }
    gsvd_http_req_free(r);
    return rc;
}

/* "bytes A-B/T" or "bytes * /T" (T may be "*"): first, last, total (UINT64_MAX unknown).  Returns
 * 0, or -1 when the header is not of that form. */
static int parse_content_range(const char *s, uint64_t *first, uint64_t *last, uint64_t *total)
{
    unsigned long long a = 0, b = 0, t = 0;
    char *end;

    if (strncmp(s, "bytes ", 6) != 0)
        return -1;
    s += 6;
    if (*s == '*') {
        *first = 1; /* no range: first > last */
        *last = 0;
        s++;
    } else {
        errno = 0;
        a = strtoull(s, &end, 10);
        if (end == s || *end != '-' || errno)
            return -1;
        s = end + 1;
        b = strtoull(s, &end, 10);
        if (end == s || errno || b < a)
            return -1;
        s = end;
        *first = a;
        *last = b;
    }
    if (*s != '/')
        return -1;
    s++;
    if (*s == '*' && s[1] == '\0') {
        *total = UINT64_MAX;
        return 0;
    }
    errno = 0;
    t = strtoull(s, &end, 10);
    if (end == s || *end || errno || (*first <= *last && b >= t))
        return -1;
    *total = t;
    return 0;
}

/* A ranged GET (Range: bytes=a-b, or bytes=-n for a suffix).  A 206 must carry the range asked
 * for, whole; a server that ignores Range answers 200 with the object, which is cut here; 416
 * (range past the end) is an empty result. */
int gsvd_http_get_range(gsvd_store *st, const char *key, uint64_t offset, uint64_t length,
                        int suffix, struct gsvd_buf *dst, uint64_t *size)
{
    struct store_http *h = (struct store_http *)st;
    struct req *r;
    uint64_t first = 0, last = 0, total = UINT64_MAX, start, n;
    char range[48];
    int rc;

    *size = UINT64_MAX;
    if (length == 0 || (!suffix && offset > UINT64_MAX - length)) {
        gsvd_buf_clear(dst);
        return length == 0 ? GSVD_OK : GSVD_EINVAL;
    }
    if (suffix)
        snprintf(range, sizeof range, "-%llu", (unsigned long long)length);
    else
        snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)offset,
                 (unsigned long long)(offset + length - 1));
    r = claim_or_run(h, key, range, length);
    if (!r)
        return GSVD_ENOMEM;
    if (r->cc == CURLE_OK && r->status == 416) {
        if (parse_content_range(r->content_range, &first, &last, &total) == 0)
            *size = total;
        gsvd_buf_clear(dst);
        rc = GSVD_OK;
        goto out;
    }
    rc = outcome(h, r);
    if (rc < 0)
        goto out;
    if (r->status == 206) {
        if (parse_content_range(r->content_range, &first, &last, &total) < 0 || first > last) {
            gsvd_log_error("%s/%s: HTTP 206 without a valid Content-Range ('%s')", h->display, key,
                           r->content_range);
            rc = GSVD_EIO;
            goto out;
        }
        n = suffix ? length : length < UINT64_MAX - offset ? length : UINT64_MAX - offset;
        start = suffix ? (total != UINT64_MAX && n < total ? total - n : 0) : offset;
        if (first != start || (suffix && total == UINT64_MAX && first != 0) ||
            last - first + 1 != (uint64_t)r->data.len || (uint64_t)r->data.len > n) {
            gsvd_log_error("%s/%s: HTTP 206 answered bytes %llu-%llu (%zu received) for Range "
                           "bytes=%s; truncated or wrong range",
                           h->display, key, (unsigned long long)first, (unsigned long long)last,
                           r->data.len, r->range);
            rc = GSVD_EIO;
            goto out;
        }
        *size = total;
        gsvd_buf_free(dst);
        *dst = r->data;
        r->data = (struct gsvd_buf)GSVD_BUF_INIT;
        goto out;
    }
    /* 200: the whole object (Range ignored); keep the part asked for */
    total = r->data.len;
    start = suffix ? (length < total ? total - length : 0) : (offset < total ? offset : total);
    n = length < total - start ? length : total - start;
    gsvd_buf_clear(dst);
    rc = gsvd_buf_append(dst, n ? r->data.data + start : "", (size_t)n);
    *size = total;
    gsvd_log_debug("%s/%s: the server ignored Range; cut %llu of %llu bytes", h->display, key,
                   (unsigned long long)n, (unsigned long long)total);
    pthread_mutex_lock(&h->mu);
    if (!h->warned_norange && total > n)
        gsvd_log_warn("%s/%s: the server ignores Range requests: each partial read downloads the "
                      "whole %llu-byte object",
                      h->display, key, (unsigned long long)total);
    h->warned_norange |= total > n;
    pthread_mutex_unlock(&h->mu);
out:
    gsvd_http_req_free(r);
    return rc;
}

int gsvd_http_get_url(gsvd_store *st, const char *url, const char *label, struct gsvd_buf *dst)
{
    struct store_http *h = (struct store_http *)st;
    struct req *r = gsvd_calloc(1, sizeof *r);
    int rc;

    if (!r)
        return GSVD_ENOMEM;
    r->method = M_GET;
    r->key = gsvd_strdup(label);
    r->url = gsvd_strdup(url);
    if (!r->key || !r->url) {
        gsvd_http_req_free(r);
        return GSVD_ENOMEM;
    }
    run_req(h, r);
    rc = outcome(h, r);
    if (rc == GSVD_OK) {
        gsvd_buf_free(dst);
        *dst = r->data; /* ownership of the body moves to the caller */
        r->data = (struct gsvd_buf)GSVD_BUF_INIT;
    }
    gsvd_http_req_free(r);
    return rc;
}

const char *gsvd_http_display(const gsvd_store *st)
{
    return ((const struct store_http *)st)->display;
}

const char *gsvd_http_list_base(const gsvd_store *st)
{
    return ((const struct store_http *)st)->list_base;
}

const char *gsvd_http_object_prefix(const gsvd_store *st)
{
    return ((const struct store_http *)st)->object_prefix;
}

/* Size of `key` by HEAD, or by GET from servers without HEAD (405/501, e.g. emulators). */
static int head(struct store_http *h, const char *key, uint64_t *size)
{
    struct req *r = NULL;
    int rc;

    pthread_mutex_lock(&h->mu);
    int use_head = !h->no_head;
    pthread_mutex_unlock(&h->mu);
    if (use_head) {
        r = gsvd_http_req_new(h, key, M_HEAD);
        if (!r)
            return GSVD_ENOMEM;
        run_req(h, r);
        if (r->cc == CURLE_OK && (r->status == 405 || r->status == 501)) {
            gsvd_log_debug("%s: the server does not answer HEAD; using GET", h->display);
            pthread_mutex_lock(&h->mu);
            h->no_head = 1;
            pthread_mutex_unlock(&h->mu);
            gsvd_http_req_free(r);
            r = NULL;
        }
    }
    if (!r) {
        r = gsvd_http_req_new(h, key, M_GET);
        if (!r)
            return GSVD_ENOMEM;
        run_req(h, r);
        r->length = (curl_off_t)r->data.len;
    }
    rc = outcome(h, r);
    if (rc == GSVD_OK)
        *size = r->length > 0 ? (uint64_t)r->length : 0;
    gsvd_http_req_free(r);
    return rc;
}

int gsvd_http_size(gsvd_store *st, const char *key, uint64_t *size)
{
    return head((struct store_http *)st, key, size);
}

static int do_put(struct store_http *h, const char *key, const void *p, size_t n)
{
    struct req *r = gsvd_http_req_new(h, key, M_PUT);
    int rc;

    if (!r)
        return GSVD_ENOMEM;
    r->body = p;
    r->body_len = n;
    if (h->auth == GSVD_HTTP_AUTH_SIGV4)
        gsvd_sha256_hex(p, n, r->payload_hash);
    run_req(h, r);
    rc = outcome(h, r);
    if (rc == GSVD_ENOTFOUND) {
        gsvd_log_error("%s/%s: PUT failed with HTTP 404 (%s)", h->display, key,
                       r->code[0] ? r->code : "no such bucket?");
        rc = GSVD_EIO;
    }
    gsvd_http_req_free(r);
    return rc;
}

int gsvd_http_put(gsvd_store *st, const char *key, const void *p, size_t n)
{
    struct store_http *h = (struct store_http *)st;
    int rc = do_put(h, key, p, n);
    if (rc < 0)
        return rc;
    pthread_mutex_lock(&h->mu);
    rc = gsvd_strlist_push(&h->written, key);
    pthread_mutex_unlock(&h->mu);
    gsvd_log_debug("%s/%s: wrote %zu bytes", st->url, key, n);
    return rc;
}

/* Forget the previous prefetch plan: free what nobody claimed.  Mutex held. */
static void drop_plan(struct store_http *h)
{
    for (size_t b = 0; b < N_BUCKETS; b++) {
        struct req *r = h->buckets[b];
        while (r) {
            struct req *nx = r->hnext;
            r->hnext = NULL;
            if (r->state == R_DONE) {
                h->ready_count--;
                h->ready_bytes -= r->data.len;
                gsvd_http_req_free(r);
            } else if (r->state == R_QUEUED && !r->queued_urgent) {
                gsvd_http_req_free(r); /* only in the ahead array, which is cleared below */
            } else {
                r->abandoned = 1; /* active or backing off: the engine frees it */
            }
            r = nx;
        }
        h->buckets[b] = NULL;
    }
    gsvd_free(h->ahead);
    h->ahead = NULL;
    h->n_ahead = h->ahead_next = 0;
}

/* Replace the prefetch plan by n requests: keys[i] whole, or rs[i]'s range when rs is set. */
static int set_plan(struct store_http *h, const char *const *keys,
                    const struct gsvd_store_range *rs, size_t n)
{
    struct req **plan = n ? gsvd_calloc(n, sizeof *plan) : NULL;
    int rc = GSVD_OK;

    if (n && !plan)
        return GSVD_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        plan[i] = gsvd_http_req_new(h, rs ? rs[i].key : keys[i], M_GET);
        if (!plan[i]) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        plan[i]->prefetched = 1;
        plan[i]->ahead_idx = i;
        if (rs && rs[i].length > 0 && rs[i].suffix) { /* as gsvd_http_get_range asks for it */
            plan[i]->range_len = rs[i].length;
            snprintf(plan[i]->range, sizeof plan[i]->range, "-%llu",
                     (unsigned long long)rs[i].length);
        } else if (rs && rs[i].length > 0 && rs[i].offset <= UINT64_MAX - rs[i].length) {
            plan[i]->range_len = rs[i].length;
            snprintf(plan[i]->range, sizeof plan[i]->range, "%llu-%llu",
                     (unsigned long long)rs[i].offset,
                     (unsigned long long)(rs[i].offset + rs[i].length - 1));
        }
    }
    pthread_mutex_lock(&h->mu);
    drop_plan(h);
    for (size_t i = 0; i < n; i++) {
        unsigned b = hash_req(plan[i]->key, plan[i]->range);
        /* append so that the first of equal keys is claimed first */
        struct req **pp = &h->buckets[b];
        while (*pp)
            pp = &(*pp)->hnext;
        *pp = plan[i];
    }
    h->ahead = plan;
    h->n_ahead = n;
    plan = NULL;
    wake(h);
    pthread_mutex_unlock(&h->mu);
    gsvd_log_debug("%s: reading ahead %zu %s", h->display, n, rs ? "ranges" : "objects");
out:
    for (size_t i = 0; plan && i < n; i++)
        gsvd_http_req_free(plan[i]);
    gsvd_free(plan);
    return rc;
}

int gsvd_http_prefetch(gsvd_store *st, const char *const *keys, size_t n)
{
    return set_plan((struct store_http *)st, keys, NULL, n);
}

int gsvd_http_prefetch_ranges(gsvd_store *st, const struct gsvd_store_range *rs, size_t n)
{
    return set_plan((struct store_http *)st, NULL, rs, n);
}

int gsvd_http_commit(gsvd_store *st)
{
    struct store_http *h = (struct store_http *)st;
    h->committed = 1;
    gsvd_log_info("%s: %zu objects written", st->url, h->written.n);
    return GSVD_OK;
}

/* The report a failed run leaves: which objects exist now.  Engine stopped. */
static void report_leftovers(struct store_http *h)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    size_t n = h->written.n, show = n < 5 ? n : 5;

    if (!(h->base.flags & GSVD_STORE_WRITE) || h->committed || n == 0)
        return;
    for (size_t i = 0; i < show; i++)
        if (gsvd_buf_printf(&b, "%s%s", i ? ", " : "", h->written.items[i]) < 0)
            break;
    gsvd_log_error(
        "%s: the output is incomplete (no consolidated metadata was written); %zu object%s "
        "left behind under it (%s%s); delete them, or rerun with --force",
        h->display, n, n == 1 ? " was" : "s were", b.data ? b.data : "", n > show ? ", ..." : "");
    gsvd_buf_free(&b);
}

void gsvd_http_close(gsvd_store *st)
{
    struct store_http *h = (struct store_http *)st;
    if (!h)
        return;
    if (h->thread_started) {
        pthread_mutex_lock(&h->mu);
        h->stop = 1;
        wake(h);
        pthread_mutex_unlock(&h->mu);
        pthread_join(h->thread, NULL);
    }
    report_leftovers(h);
    pthread_mutex_lock(&h->mu);
    drop_plan(h); /* what is still active or backing off is now abandoned */
    for (size_t i = 0; h->active && i < h->p.concurrency; i++) {
        struct req *r = h->active[i];
        if (!r)
            continue;
        curl_multi_remove_handle(h->multi, r->easy);
        curl_easy_cleanup(r->easy);
        curl_slist_free_all(r->hdrs);
        gsvd_http_req_free(r);
    }
    while (h->backoff) {
        struct req *r = h->backoff;
        h->backoff = r->next;
        gsvd_http_req_free(r); /* abandoned: the engine is gone */
    }
    pthread_mutex_unlock(&h->mu);
    for (size_t i = 0; i < h->n_idle; i++)
        curl_easy_cleanup(h->idle[i]);
    gsvd_free(h->idle);
    gsvd_free(h->active);
    if (h->multi)
        curl_multi_cleanup(h->multi);
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    gsvd_strlist_free(&h->written);
    gsvd_free(h->base_url);
    gsvd_free(h->display);
    gsvd_free(h->delete_base);
    gsvd_free(h->object_prefix);
    gsvd_free(h->list_base);
    gsvd_free(h->bucket);
    gsvd_free(h->probe_url);
    gsvd_free(h->sigv4);
    free_secret(h->secret);
    free_secret(h->auth_header);
    free_secret(h->token_header);
    gsvd_free(h->cainfo);
    gsvd_free(h->capath);
    gsvd_free(h);
}

/* A write store's bucket must exist and take the credentials, checked by one listing of at
 * most one object before anything else: a HEAD of a key cannot tell a missing bucket from a
 * missing key, and a write into a missing bucket would otherwise fail only at its first put,
 * after the run.  401/403 are reported by outcome(); a 404 of a listing means no bucket. */
static int check_bucket(struct store_http *h)
{
    struct gsvd_buf body = GSVD_BUF_INIT;
    int rc;

    if (!h->probe_url)
        return GSVD_OK;
    rc = gsvd_http_get_url(&h->base, h->probe_url, "(listing)", &body);
    gsvd_buf_free(&body);
    if (rc == GSVD_ENOTFOUND) {
        gsvd_log_error("%s: cannot write the output: bucket '%s' does not exist (HTTP 404)",
                       h->display, h->bucket ? h->bucket : "?");
        rc = GSVD_EIO;
    }
    return rc;
}

/* A write store must not overwrite an existing output unless asked; when asked, the old
 * consolidated metadata (.zmetadata, or a v3 root zarr.json) goes first so a half-rewritten
 * output never looks complete (not by a PROBE open, which only checks). */
static int check_output(struct store_http *h, unsigned flags)
{
    static const char *const marks[] = {".zmetadata", ".zgroup", ".zarray", "zarr.json"};
    static const char *const complete[] = {".zmetadata", "zarr.json"};
    int rc = GSVD_OK;

    GSVD_TRY(check_bucket(h));
    for (size_t i = 0; i < GSVD_ARRAY_LEN(marks); i++) {
        struct req *r;
        uint64_t size;
        rc = head(h, marks[i], &size);
        if (rc == GSVD_ENOTFOUND) {
            rc = GSVD_OK;
            continue;
        }
        if (rc < 0)
            return rc;
        if (!(flags & GSVD_STORE_OVERWRITE)) {
            gsvd_log_error("%s: output exists (%s found; overwrite it with --force)", h->display,
                           marks[i]);
            return GSVD_EIO;
        }
        if (flags & GSVD_STORE_PROBE)
            return GSVD_OK;
        for (size_t j = 0; j < GSVD_ARRAY_LEN(complete); j++) {
            r = gsvd_http_req_new(h, complete[j], M_DELETE);
            if (!r)
                return GSVD_ENOMEM;
            run_req(h, r);
            rc = outcome(h, r);
            gsvd_http_req_free(r);
            if (rc == GSVD_ENOTFOUND)
                rc = GSVD_OK;
            if (rc < 0)
                return rc;
        }
        gsvd_log_info("%s: overwriting an existing output; objects it had that this run does "
                      "not write stay in place",
                      h->display);
        return GSVD_OK;
    }
out:
    return rc;
}

int gsvd_http_open(const struct gsvd_http_config *cfg, unsigned flags, gsvd_store **out)
{
    int rc = GSVD_OK;
    struct store_http *h = gsvd_calloc(1, sizeof *h);
    size_t blen;

    *out = NULL;
    if (!h)
        return GSVD_ENOMEM;
    h->base.ops = cfg->ops ? cfg->ops : &gsvd_store_http_ops;
    h->base.flags = flags;
    h->p = *gsvd_store_remote();
    h->auth = cfg->auth;
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    h->display = gsvd_strdup(cfg->display);
    h->base_url = gsvd_strdup(cfg->base);
    h->object_prefix = gsvd_strdup(cfg->object_prefix ? cfg->object_prefix : "");
    h->delete_base = cfg->delete_base ? gsvd_strdup(cfg->delete_base) : NULL;
    h->list_base = gsvd_strdup(cfg->list_base ? cfg->list_base : "");
    h->bucket = cfg->bucket ? gsvd_strdup(cfg->bucket) : NULL;
    h->probe_url = cfg->probe_url ? gsvd_strdup(cfg->probe_url) : NULL;
    h->idle = gsvd_calloc(h->p.concurrency + 4, sizeof *h->idle);
    h->active = gsvd_calloc(h->p.concurrency, sizeof *h->active);
    if (!h->display || !h->active || !h->base_url || !h->object_prefix || !h->list_base ||
        (cfg->delete_base && !h->delete_base) || !h->idle || (cfg->bucket && !h->bucket) ||
        (cfg->probe_url && !h->probe_url)) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    blen = strlen(h->base_url);
    while (blen > 0 && h->base_url[blen - 1] == '/')
        h->base_url[--blen] = '\0';
    if (cfg->auth == GSVD_HTTP_AUTH_BEARER) {
        h->auth_header = gsvd_asprintf("Authorization: Bearer %s", cfg->secret);
        if (!h->auth_header) {
            rc = GSVD_ENOMEM;
            goto out;
        }
    } else if (cfg->auth == GSVD_HTTP_AUTH_SIGV4) {
        h->secret = gsvd_strdup(cfg->secret);
        h->sigv4 = gsvd_strdup(cfg->sigv4);
        if (cfg->session_token && *cfg->session_token)
            h->token_header = gsvd_asprintf("x-amz-security-token: %s", cfg->session_token);
        if (!h->secret || !h->sigv4 ||
            (cfg->session_token && *cfg->session_token && !h->token_header)) {
            rc = GSVD_ENOMEM;
            goto out;
        }
    }
    GSVD_TRY(trust_from_env(h));
    h->rng = (uint64_t)gsvd_http_now_s() * 1000003u ^ (uint64_t)(uintptr_t)h;
    h->multi = curl_multi_init();
    if (!h->multi) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    curl_multi_setopt(h->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    curl_multi_setopt(h->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)h->p.concurrency);
    curl_multi_setopt(h->multi, CURLMOPT_MAXCONNECTS, (long)h->p.concurrency + 4);
    h->scope = gsvd_scope_entered();
    if (pthread_create(&h->thread, NULL, gsvd_http_engine, h) != 0) {
        gsvd_log_error("%s: cannot start the HTTP thread: %s", cfg->display, strerror(errno));
        rc = GSVD_EINTERNAL;
        goto out;
    }
    h->thread_started = 1;
    if (flags & GSVD_STORE_WRITE) {
        if (!cfg->can_write) {
            gsvd_log_error("%s: this store is read-only (%s)", cfg->display,
                           cfg->why_read_only ? cfg->why_read_only : "no upload method");
            rc = cfg->auth == GSVD_HTTP_AUTH_NONE && !strcmp(cfg->scheme, "http") ? GSVD_EINVAL
                                                                                  : GSVD_EAUTH;
            goto out;
        }
        rc = check_output(h, flags);
        if (rc < 0)
            goto out;
    }
    *out = &h->base;
    h = NULL;
out:
    gsvd_http_close(h ? &h->base : NULL);
    return rc;
}

/* "http://..." and "https://...": a static, read-only server. */
static int http_open(const char *url, unsigned flags, gsvd_store **out)
{
    struct gsvd_http_config cfg = {.scheme = "http",
                                   .display = url,
                                   .base = url,
                                   .auth = GSVD_HTTP_AUTH_NONE,
                                   .can_write = 0,
                                   .why_read_only = "plain HTTP(S) stores are read-only; write to "
                                                    "gs:// or s3://"};
    return gsvd_http_open(&cfg, flags, out);
}

GSVD_HTTP_OPS(gsvd_store_http_ops, "http", http_open, NULL);
