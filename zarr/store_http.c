/* zarr/store_http.c - the HTTP request engine under the http(s), gs and s3 stores.
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
 * the ones already here, and memory stays bounded.
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
#include "zarr/sigv4.h"
#include "zarr/store_internal.h"

#define MAX_OBJECT_BYTES ((size_t)1 << 32)     /* larger bodies are refused (hostile servers) */
#define READY_BUDGET_BYTES ((size_t)256 << 20) /* fetched-but-unclaimed read-ahead */
#define RESERVE_MAX_BYTES ((size_t)16 << 20)   /* body bytes reserved from Content-Length */
#define N_BUCKETS 4096

enum method { M_GET, M_PUT, M_HEAD, M_DELETE };
enum state { R_QUEUED, R_ACTIVE, R_BACKOFF, R_DONE };

struct req {
    struct req *next;  /* urgent queue or backoff list */
    struct req *hnext; /* prefetch hash chain */
    char *key;         /* owned */
    char *url;         /* owned */
    enum method method;
    const unsigned char *body; /* PUT: borrowed from the waiting caller */
    size_t body_len, body_off;
    char payload_hash[65];   /* SigV4: hex SHA-256 of the body */
    struct gsvd_buf data;    /* response body (bounded for errors) */
    CURL *easy;              /* engine's; NULL unless active */
    struct curl_slist *hdrs; /* engine's; rebuilt per attempt */
    enum state state;
    int prefetched, claimed, abandoned, queued_urgent, too_big;
    size_t ahead_idx;       /* prefetched: index in the plan (store_http.ahead) */
    unsigned attempt;       /* attempts made */
    double retry_at;        /* R_BACKOFF: monotonic seconds */
    long status;            /* last HTTP status (0: none) */
    CURLcode cc;            /* last transport result */
    curl_off_t length;      /* HEAD: Content-Length */
    char range[48];         /* GET of a range: CURLOPT_RANGE ("a-b" or "-n"), or "" */
    uint64_t range_len;     /* bytes the range asks for: a longer 206 body is refused */
    char content_range[96]; /* the response's Content-Range value, or "" */
    char err[CURL_ERROR_SIZE];
    char code[48]; /* S3/GCS error code from an XML error body, if any */
};

struct store_http {
    struct gsvd_store base;
    struct gsvd_remote_params p; /* copy of the process-wide settings at open */
    char *display;               /* owned: the URL as the user gave it, for messages */
    char *base_url;              /* owned: keys are appended as "/" + percent-encoded key */
    char *delete_base;           /* owned or NULL: GCS JSON API object URL prefix */
    char *object_prefix;         /* owned: object-name prefix for delete_base and listings */
    char *list_base;             /* owned: URL the flavour's list op builds on ("" if none) */
    enum gsvd_http_auth auth;
    char *secret;       /* owned; bearer token or "KEY:SECRET"; wiped at close */
    char *auth_header;  /* owned; "Authorization: Bearer ..."; wiped at close */
    char *token_header; /* owned; "x-amz-security-token: ..."; wiped at close */
    char *sigv4;        /* owned */
    /* trust: CURL_CA_BUNDLE, else SSL_CERT_FILE (CURLOPT_CAINFO); SSL_CERT_DIR (CURLOPT_CAPATH);
     * NULL: libcurl's built-in bundle.  Owned. */
    char *cainfo, *capath;
    /* engine */
    pthread_t thread;
    int thread_started;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a request finished (broadcast) */
    CURLM *multi;
    int stop;
    struct req *urgent_head, *urgent_tail; /* callers' requests: started first */
    struct req **ahead;                    /* prefetch plan, in order */
    size_t n_ahead, ahead_next;
    struct req *backoff;            /* waiting for their retry time */
    struct req *buckets[N_BUCKETS]; /* unclaimed prefetched requests by key */
    size_t n_active, ready_count, ready_bytes;
    struct req **active; /* concurrency slots: requests on the multi handle */
    CURL **idle;         /* engine's reusable easy handles */
    size_t n_idle;
    uint64_t rng; /* engine's backoff jitter state */
    /* writes */
    struct gsvd_strlist written; /* keys put successfully (for the report on failure) */
    int committed;
    int no_head;        /* the server refused HEAD once: sizes come from GET */
    int warned_norange; /* the "Range ignored" warning was given (under mu) */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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

/* ---- requests ----------------------------------------------------------------------------- */

static void req_free(struct req *r)
{
    if (!r)
        return;
    gsvd_free(r->key);
    gsvd_free(r->url);
    gsvd_buf_free(&r->data);
    gsvd_free(r);
}

/* A new request for `key` (URL built from the store's base).  NULL on ENOMEM. */
static struct req *req_new(struct store_http *h, const char *key, enum method m)
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
    req_free(r);
    return NULL;
}

static void push_urgent(struct store_http *h, struct req *r)
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

static int retryable(const struct req *r)
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

/* A transfer ended: retry it, or mark it done and wake the waiters.  Engine thread, mutex
 * held. */
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
    if (!r->abandoned && retryable(r) && r->attempt <= h->p.retries) {
        double d = backoff_s(h, r, retry_after);
        if (r->cc != CURLE_OK)
            gsvd_log_info("%s/%s: %s; retry %u of %u in %.2f s", h->display, r->key,
                          curl_easy_strerror(r->cc), r->attempt, h->p.retries, d);
        else
            gsvd_log_info("%s/%s: HTTP %ld; retry %u of %u in %.2f s", h->display, r->key,
                          r->status, r->attempt, h->p.retries, d);
        r->retry_at = now_s() + d;
        r->state = R_BACKOFF;
        r->next = h->backoff;
        h->backoff = r;
        return;
    }
    r->state = R_DONE;
    if (r->abandoned) {
        req_free(r);
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
            req_free(r);
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

static void *engine(void *arg)
{
    struct store_http *h = arg;

    pthread_mutex_lock(&h->mu);
    while (!h->stop) {
        double now = now_s(), wait = 1.0;
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
        now = now_s();
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
    if (r->cc == CURLE_OK && !retryable(r)) {
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
    push_urgent(h, r);
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
            push_urgent(h, r);
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
    r = req_new(h, key, M_GET);
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
    req_free(r);
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
    req_free(r);
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
        req_free(r);
        return GSVD_ENOMEM;
    }
    run_req(h, r);
    rc = outcome(h, r);
    if (rc == GSVD_OK) {
        gsvd_buf_free(dst);
        *dst = r->data; /* ownership of the body moves to the caller */
        r->data = (struct gsvd_buf)GSVD_BUF_INIT;
    }
    req_free(r);
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
        r = req_new(h, key, M_HEAD);
        if (!r)
            return GSVD_ENOMEM;
        run_req(h, r);
        if (r->cc == CURLE_OK && (r->status == 405 || r->status == 501)) {
            gsvd_log_debug("%s: the server does not answer HEAD; using GET", h->display);
            pthread_mutex_lock(&h->mu);
            h->no_head = 1;
            pthread_mutex_unlock(&h->mu);
            req_free(r);
            r = NULL;
        }
    }
    if (!r) {
        r = req_new(h, key, M_GET);
        if (!r)
            return GSVD_ENOMEM;
        run_req(h, r);
        r->length = (curl_off_t)r->data.len;
    }
    rc = outcome(h, r);
    if (rc == GSVD_OK)
        *size = r->length > 0 ? (uint64_t)r->length : 0;
    req_free(r);
    return rc;
}

int gsvd_http_size(gsvd_store *st, const char *key, uint64_t *size)
{
    return head((struct store_http *)st, key, size);
}

static int do_put(struct store_http *h, const char *key, const void *p, size_t n)
{
    struct req *r = req_new(h, key, M_PUT);
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
    req_free(r);
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
                req_free(r);
            } else if (r->state == R_QUEUED && !r->queued_urgent) {
                req_free(r); /* only in the ahead array, which is cleared below */
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
        plan[i] = req_new(h, rs ? rs[i].key : keys[i], M_GET);
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
        req_free(plan[i]);
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
        req_free(r);
    }
    while (h->backoff) {
        struct req *r = h->backoff;
        h->backoff = r->next;
        req_free(r); /* abandoned: the engine is gone */
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
    gsvd_free(h->sigv4);
    free_secret(h->secret);
    free_secret(h->auth_header);
    free_secret(h->token_header);
    gsvd_free(h->cainfo);
    gsvd_free(h->capath);
    gsvd_free(h);
}

/* A write store must not overwrite an existing output unless asked; when asked, the old
 * consolidated metadata (.zmetadata, or a v3 root zarr.json) goes first so a half-rewritten
 * output never looks complete. */
static int check_output(struct store_http *h, unsigned flags)
{
    static const char *const marks[] = {".zmetadata", ".zgroup", ".zarray", "zarr.json"};
    static const char *const complete[] = {".zmetadata", "zarr.json"};
    int rc = GSVD_OK;

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
        for (size_t j = 0; j < GSVD_ARRAY_LEN(complete); j++) {
            r = req_new(h, complete[j], M_DELETE);
            if (!r)
                return GSVD_ENOMEM;
            run_req(h, r);
            rc = outcome(h, r);
            req_free(r);
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
    h->idle = gsvd_calloc(h->p.concurrency + 4, sizeof *h->idle);
    h->active = gsvd_calloc(h->p.concurrency, sizeof *h->active);
    if (!h->display || !h->active || !h->base_url || !h->object_prefix || !h->list_base ||
        (cfg->delete_base && !h->delete_base) || !h->idle) {
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
    h->rng = (uint64_t)now_s() * 1000003u ^ (uint64_t)(uintptr_t)h;
    h->multi = curl_multi_init();
    if (!h->multi) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    curl_multi_setopt(h->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    curl_multi_setopt(h->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)h->p.concurrency);
    curl_multi_setopt(h->multi, CURLMOPT_MAXCONNECTS, (long)h->p.concurrency + 4);
    if (pthread_create(&h->thread, NULL, engine, h) != 0) {
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
