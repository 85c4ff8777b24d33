/* zarr/store_http_internal.h - for zarr/store_http*.c only: the request and store structs of
 * the http(s), gs and s3 stores, and the request engine (zarr/store_http_engine.c) that
 * zarr/store_http.c drives.  The engine thread alone calls libcurl; callers hand it requests
 * under h->mu and wait on h->cv. */
#ifndef GSVD_ZARR_STORE_HTTP_INTERNAL_H
#define GSVD_ZARR_STORE_HTTP_INTERNAL_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

#include "common/buf.h"
#include "common/scope.h"
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
    char *bucket;                /* owned or NULL: the bucket's name, for messages */
    char *probe_url;             /* owned or NULL: a write store's first request (config) */
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
    const struct gsvd_scope *scope; /* the opener's scope (common/scope.h): the engine logs to it */
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

/* Monotonic seconds. */
double gsvd_http_now_s(void);
/* A request for key (URL built from h->base_url), or NULL (out of memory); free with
 * gsvd_http_req_free (accepts NULL). */
struct req *gsvd_http_req_new(struct store_http *h, const char *key, enum method m);
void gsvd_http_req_free(struct req *r);
/* Queue r before the read-ahead plan.  h->mu held. */
void gsvd_http_push_urgent(struct store_http *h, struct req *r);
/* 1 if r's last attempt failed in a way worth retrying (408, 429, 5xx but 501, transport). */
int gsvd_http_retryable(const struct req *r);
/* The engine thread's body (pthread_create argument: the store). */
void *gsvd_http_engine(void *arg);

#endif /* GSVD_ZARR_STORE_HTTP_INTERNAL_H */
