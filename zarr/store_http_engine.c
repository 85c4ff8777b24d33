/* zarr/store_http_engine.c - the HTTP request engine under the http(s), gs and s3 stores.
 *
 * One engine thread per store owns a libcurl multi handle and every easy handle, so libcurl is
 * only ever called from that thread.  Callers (the pipeline's workers, the writer) hand it
 * requests under the store mutex and sleep on a condition variable until their request is done;
 * the engine keeps up to `concurrency` transfers in flight, reuses connections (and HTTP/2
 * streams where the server offers h2), and retries 408, 429, 5xx (but 501) and transport errors
 * with full-jitter exponential backoff, honouring Retry-After up to the cap.
 *
 * Read-ahead: gsvd_store_prefetch() gives the engine the keys the workers will ask for, in
 * order.  The engine starts them whenever a slot is free and the fetched-but-unclaimed data is
 * under its budget; a get() of a prefetched key claims the request (moving it to the front if
 * it has not started) and waits for it.  So chunks arrive 32 at a time while the workers decode
 * the ones already here, and memory stays bounded. */
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

int gsvd_http_encode(struct gsvd_buf *b, const char *s, int keep_slash)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        int plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/');
        if (plain) {
            if (gsvd_buf_append(b, s, 1) < 0)
                return GSVD_ENOMEM;
        } else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            if (gsvd_buf_append(b, e, 3) < 0)
                return GSVD_ENOMEM;
        }
    }
    return GSVD_OK;
}

double gsvd_http_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- requests ----------------------------------------------------------------------------- */

void gsvd_http_req_free(struct req *r)
{
    if (!r)
        return;
    gsvd_free(r->key);
    gsvd_free(r->url);
    gsvd_buf_free(&r->data);
    gsvd_free(r);
}

/* A new request for `key` (URL built from the store's base).  NULL on ENOMEM. */
struct req *gsvd_http_req_new(struct store_http *h, const char *key, enum method m)
{
    struct gsvd_buf url = GSVD_BUF_INIT;
    struct req *r = gsvd_calloc(1, sizeof *r);

    if (!r)
        return NULL;
    r->method = m;
    r->key = gsvd_strdup(key);
    if (!r->key)
        goto fail;
    if (m == M_DELETE && h->delete_base) {
        /* GCS JSON API: the whole object name is one path segment */
        if (gsvd_buf_printf(&url, "%s/", h->delete_base) < 0 ||
            gsvd_http_encode(&url, h->object_prefix, 0) < 0 || gsvd_http_encode(&url, key, 0) < 0)
            goto fail;
    } else if (gsvd_buf_printf(&url, "%s/", h->base_url) < 0 ||
               gsvd_http_encode(&url, key, 1) < 0) {
        goto fail;
    }
    r->url = url.data;
    return r;
fail:
    gsvd_buf_free(&url);
    gsvd_http_req_free(r);
    return NULL;
}

void gsvd_http_push_urgent(struct store_http *h, struct req *r)
{
    r->next = NULL;
    r->queued_urgent = 1;
    if (h->urgent_tail)
        h->urgent_tail->next = r;
    else
        h->urgent_head = r;
    h->urgent_tail = r;
}

/* ---- engine thread ------------------------------------------------------------------------ */

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    struct req *r = ud;
    size_t len = size * n;
    uint64_t limit = MAX_OBJECT_BYTES;

    if (r->range_len) {
        /* a 206 holds at most the range asked for (a 200 is the whole object) */
        long status = 0;
        curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
        if (status == 206 && r->range_len < limit)
            limit = r->range_len;
    }
    if (r->data.len == 0 && r->data.cap == 0) {
        curl_off_t cl = -1;
        /* the server's Content-Length is a hint, not a promise: reserve at most
         * RESERVE_MAX_BYTES ahead (a hostile "Content-Length: 4000000000" and three bytes of
         * body made us allocate 4 GB); larger bodies grow the buffer as they arrive */
        if (curl_easy_getinfo(r->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK &&
            cl > 0 && (uint64_t)cl <= limit &&
            gsvd_buf_reserve(&r->data,
                             (uint64_t)cl < RESERVE_MAX_BYTES ? (size_t)cl : RESERVE_MAX_BYTES) < 0)
            return 0;
    }
    if (r->data.len + len > limit) {
        r->too_big = 1;
        return 0;
    }
    if (gsvd_buf_append(&r->data, p, len) < 0)
        return 0; /* CURLE_WRITE_ERROR; data.len tells it apart from too_big */
    return len;
}

/* Keeps the Content-Range header of ranged GETs. */
static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    struct req *r = ud;
    size_t len = size * n;
    static const char name[] = "content-range:";

    if (len > sizeof name - 1 && strncasecmp(p, name, sizeof name - 1) == 0) {
        size_t i = sizeof name - 1, o = 0;
        while (i < len && (p[i] == ' ' || p[i] == '\t'))
            i++;
        while (i < len && p[i] != '\r' && p[i] != '\n' && o + 1 < sizeof r->content_range)
            r->content_range[o++] = p[i++];
        r->content_range[o] = '\0';
    }
    return len;
}

static size_t on_upload(char *p, size_t size, size_t n, void *ud)
{
    struct req *r = ud;
    size_t want = size * n, left = r->body_len - r->body_off;
    if (want > left)
        want = left;
    memcpy(p, r->body + r->body_off, want);
    r->body_off += want;
    return want;
}

static void add_hdr(struct req *r, const char *line, int *oom)
{
    struct curl_slist *t = curl_slist_append(r->hdrs, line);
    if (t)
        r->hdrs = t;
    else
        *oom = 1;
}

/* Configure r->easy for one attempt of r.  Only the engine thread calls libcurl. */
static int setup_easy(struct store_http *h, struct req *r)
{
    CURL *e = r->easy;
    const struct gsvd_remote_params *p = &h->p;
    int oom = 0;

    curl_slist_free_all(r->hdrs);
    r->hdrs = NULL;
    gsvd_buf_clear(&r->data);
    r->body_off = 0;
    r->err[0] = '\0';
    r->too_big = 0;
    curl_easy_setopt(e, CURLOPT_URL, r->url);
    curl_easy_setopt(e, CURLOPT_PRIVATE, r);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->err);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(e, CURLOPT_BUFFERSIZE, 256L * 1024); /* fewer callbacks for MB chunks */
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    if (strncmp(r->url, "https:", 6) == 0)
        curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L); /* h2 is negotiated over TLS only */
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, (long)p->timeout_s);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, (long)p->connect_timeout_s);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "gensvd/" GSVD_VERSION);
    if (h->cainfo)
        curl_easy_setopt(e, CURLOPT_CAINFO, h->cainfo);
    if (h->capath)
        curl_easy_setopt(e, CURLOPT_CAPATH, h->capath);
    if (h->auth == GSVD_HTTP_AUTH_NONE) {
        curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L); /* static servers may redirect */
        curl_easy_setopt(e, CURLOPT_MAXREDIRS, 5L);
    }
    r->content_range[0] = '\0';
    switch (r->method) {
    case M_GET:
        if (r->range[0]) {
            curl_easy_setopt(e, CURLOPT_RANGE, r->range);
            curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
            curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
        }
        break;
    case M_HEAD:
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
        break;
    case M_DELETE:
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
        break;
    case M_PUT:
        curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(e, CURLOPT_READFUNCTION, on_upload);
        curl_easy_setopt(e, CURLOPT_READDATA, r);
        curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->body_len);
        add_hdr(r, "Content-Type: application/octet-stream", &oom);
        /* servers that never answer "Expect: 100-continue" cost a second per PUT: drop the
         * header, or where it would be signed (libcurl 7.88 signs every user header) wait
         * briefly for the 100 */
        if (h->auth == GSVD_HTTP_AUTH_SIGV4)
            curl_easy_setopt(e, CURLOPT_EXPECT_100_TIMEOUT_MS, 50L);
        else
            add_hdr(r, "Expect:", &oom);
        break;
    }
    if (h->auth == GSVD_HTTP_AUTH_BEARER) {
        add_hdr(r, h->auth_header, &oom);
    } else if (h->auth == GSVD_HTTP_AUTH_SIGV4) {
        char line[96];
        /* libcurl 7.88 neither sends nor signs a payload hash; S3 requires one */
        snprintf(line, sizeof line, "x-amz-content-sha256: %s",
                 r->method == M_PUT ? r->payload_hash : GSVD_SHA256_EMPTY);
        add_hdr(r, line, &oom);
        if (h->token_header)
            add_hdr(r, h->token_header, &oom);
        curl_easy_setopt(e, CURLOPT_AWS_SIGV4, h->sigv4);
        curl_easy_setopt(e, CURLOPT_USERPWD, h->secret);
    }
    if (r->hdrs)
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->hdrs);
    return oom ? GSVD_ENOMEM : GSVD_OK;
}

/* Start r on a free easy handle.  On failure r is finished with ENOMEM-like transport error. */
static void start(struct store_http *h, struct req *r)
{
    int reused = h->n_idle > 0;
    CURL *e = reused ? h->idle[--h->n_idle] : curl_easy_init();
    r->state = R_ACTIVE;
    r->attempt++;
    if (reused)
        curl_easy_reset(e); /* keeps the connection cache and TLS sessions of the handle */
    r->easy = e;
    if (!e || setup_easy(h, r) < 0 || curl_multi_add_handle(h->multi, e) != CURLM_OK) {
        if (e)
            curl_easy_cleanup(e);
        r->easy = NULL;
        r->cc = CURLE_OUT_OF_MEMORY;
        r->status = 0;
        r->attempt = h->p.retries + 1; /* not retried */
        r->state = R_DONE;
        return;
    }
    for (size_t i = 0; i < h->p.concurrency; i++)
        if (!h->active[i]) {
            h->active[i] = r;
            break;
        }
    h->n_active++;
}

int gsvd_http_retryable(const struct req *r)
{
    switch (r->cc) {
    case CURLE_OK:
        return r->status == 408 || r->status == 429 || (r->status >= 500 && r->status != 501);
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
        return 1;
    case CURLE_WRITE_ERROR:
        return 0;
    default:
        return 0;
    }
}

static uint64_t next_rand(struct store_http *h)
{
    /* splitmix64: only jitter, no quality needed beyond spreading retries */
    uint64_t z = (h->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Seconds to wait before attempt r->attempt + 1: full jitter, at least Retry-After. */
static double backoff_s(struct store_http *h, const struct req *r, long retry_after)
{
    double cap = h->p.retry_cap_ms / 1000.0, base = h->p.retry_base_ms / 1000.0;
    double lim = base * (double)(1ull << (r->attempt > 30 ? 30 : r->attempt - 1));
    double d = (lim < cap ? lim : cap) * ((double)(next_rand(h) >> 11) / 9007199254740992.0);
    if (retry_after > 0 && (double)retry_after > d)
        d = (double)retry_after < cap ? (double)retry_after : cap;
    return d;
}

/* Pull "<Code>X</Code>" out of an XML error body (S3, GCS XML API); the rest is not shown
 * because S3 echoes the string-to-sign and the access key id there. */
static void extract_code(struct req *r)
{
    const char *d = r->data.data, *a, *b;
    r->code[0] = '\0';
    if (!d || r->data.len == 0)
        return;
    a = strstr(d, "<Code>");
    if (!a)
        return;
    a += 6;
    b = strstr(a, "</Code>");
    if (!b || b - a <= 0 || (size_t)(b - a) >= sizeof r->code)
        return;
    for (const char *c = a; c < b; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9')))
            return;
    memcpy(r->code, a, (size_t)(b - a));
    r->code[b - a] = '\0';
}

/* Does url name this machine (localhost, 127.0.0.0/8, ::1)? */
static int loopback_url(const char *url)
{
    CURLU *u = curl_url();
    char *host = NULL;
    int yes = 0;

    if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK && host) {
        size_t n = strlen(host);
        yes = strcasecmp(host, "localhost") == 0 || strncmp(host, "127.", 4) == 0 ||
              strcmp(host, "[::1]") == 0 ||
              (n > 10 && strcasecmp(host + n - 10, ".localhost") == 0);
    }
    curl_free(host);
    curl_url_cleanup(u);
    return yes;
}

/* Retries r may still take.  A refused connection to this machine is not transient: nothing
 * listens at that port, and a backoff of a minute will not change that; one retry covers a
 * server that is just restarting. */
static unsigned retries_for(const struct store_http *h, const struct req *r)
{
    if (r->cc == CURLE_COULDNT_CONNECT && h->p.retries > 1 && loopback_url(r->url))
        return 1;
    return h->p.retries;
}

/* "HTTP 503 (SlowDown)" or the transport error, for the retry message. */
static void failure_text(const struct req *r, char *out, size_t n)
{
    if (r->cc != CURLE_OK)
        snprintf(out, n, "%s", curl_easy_strerror(r->cc));
    else
        snprintf(out, n, "HTTP %ld%s%s%s", r->status, r->code[0] ? " (" : "", r->code,
                 r->code[0] ? ")" : "");
}

/* A transfer ended: retry it, or mark it done and wake the waiters.  A retry is said at the
 * warning level from the second on (one transient failure in thousands of requests is normal;
 * two in a row are worth seeing), at most one line per retry.  Engine thread, mutex held. */
static void finished(struct store_http *h, struct req *r, CURLcode cc)
{
    long retry_after = 0;
    curl_off_t ra = 0;

    r->cc = cc;
    r->status = 0;
    curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &r->status);
    if (r->method == M_HEAD)
        curl_easy_getinfo(r->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &r->length);
    if (curl_easy_getinfo(r->easy, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
        retry_after = (long)ra;
    curl_multi_remove_handle(h->multi, r->easy);
    for (size_t i = 0; i < h->p.concurrency; i++)
        if (h->active[i] == r)
            h->active[i] = NULL;
    if (h->n_idle < h->p.concurrency + 4) {
        h->idle[h->n_idle++] = r->easy;
    } else {
        curl_easy_cleanup(r->easy);
    }
    r->easy = NULL;
    curl_slist_free_all(r->hdrs);
    r->hdrs = NULL;
    h->n_active--;
    if (r->cc == CURLE_OK && r->status >= 300)
        extract_code(r);
    if (!r->abandoned && gsvd_http_retryable(r) && r->attempt <= retries_for(h, r)) {
        double d = backoff_s(h, r, retry_after);
        char why[160];
        failure_text(r, why, sizeof why);
        gsvd_log_msg(r->attempt >= 2 ? GSVD_LOG_WARN : GSVD_LOG_INFO, __func__,
                     "retrying %s/%s (%u/%u) in %.1f s: %s", h->display, r->key, r->attempt,
                     retries_for(h, r), d, why);
        r->retry_at = gsvd_http_now_s() + d;
        r->state = R_BACKOFF;
        r->next = h->backoff;
        h->backoff = r;
        return;
    }
    r->state = R_DONE;
    if (r->abandoned) {
        gsvd_http_req_free(r);
        return;
    }
    if (r->prefetched && !r->claimed) {
        h->ready_count++;
        h->ready_bytes += r->data.len;
    }
    pthread_cond_broadcast(&h->cv);
}

/* Start what may start: urgent requests first, then the prefetch plan within its budget.
 * Mutex held. */
static void start_pending(struct store_http *h, double now)
{
    struct req **pp = &h->backoff;
    while (*pp) {
        struct req *r = *pp;
        if (r->abandoned) {
            *pp = r->next;
            gsvd_http_req_free(r);
        } else if (r->retry_at <= now && h->n_active < h->p.concurrency) {
            *pp = r->next;
            start(h, r);
            if (r->state == R_DONE)
                pthread_cond_broadcast(&h->cv);
        } else {
            pp = &r->next;
        }
    }
    while (h->urgent_head && h->n_active < h->p.concurrency) {
        struct req *r = h->urgent_head;
        h->urgent_head = r->next;
        if (!h->urgent_head)
            h->urgent_tail = NULL;
        r->queued_urgent = 0;
        if (r->state != R_QUEUED)
            continue;
        start(h, r);
        if (r->state == R_DONE)
            pthread_cond_broadcast(&h->cv);
    }
    while (h->ahead_next < h->n_ahead && h->n_active < h->p.concurrency &&
           h->ready_bytes < READY_BUDGET_BYTES && h->ready_count < 4 * (size_t)h->p.concurrency) {
        struct req *r = h->ahead[h->ahead_next++];
        if (!r || r->state != R_QUEUED)
            continue;
        start(h, r);
        if (r->state == R_DONE) {
            h->ready_count++;
            pthread_cond_broadcast(&h->cv);
        }
    }
}

void *gsvd_http_engine(void *arg)
{
    struct store_http *h = arg;

    gsvd_scope_enter(h->scope);
    pthread_mutex_lock(&h->mu);
    while (!h->stop) {
        double now = gsvd_http_now_s(), wait = 1.0;
        int running = 0;
        CURLMsg *m;
        int left;

        start_pending(h, now);
        pthread_mutex_unlock(&h->mu);
        curl_multi_perform(h->multi, &running);
        pthread_mutex_lock(&h->mu);
        while ((m = curl_multi_info_read(h->multi, &left)) != NULL) {
            char *pv = NULL;
            if (m->msg != CURLMSG_DONE)
                continue;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &pv);
            finished(h, (struct req *)(void *)pv, m->data.result);
        }
        if (h->stop)
            break;
        /* after finished(): a request that has just gone into backoff waits for its own retry
         * time, not for the one-second idle poll */
        now = gsvd_http_now_s();
        for (struct req *r = h->backoff; r; r = r->next)
            if (r->retry_at - now < wait)
                wait = r->retry_at - now;
        int ms = wait <= 0 ? 0 : (int)(wait * 1000) + 1;
        /* new work while we were performing: go round at once */
        if (h->urgent_head ||
            (h->ahead_next < h->n_ahead && h->n_active < h->p.concurrency &&
             h->ready_bytes < READY_BUDGET_BYTES && h->ready_count < 4 * (size_t)h->p.concurrency))
            ms = 0;
        pthread_mutex_unlock(&h->mu);
        if (ms > 0)
            curl_multi_poll(h->multi, NULL, 0, ms, NULL);
        pthread_mutex_lock(&h->mu);
    }
    pthread_mutex_unlock(&h->mu);
    return NULL;
}
