/* common/remote.h - the settings of the remote stores (http, gs, s3): transfer limits, retries,
 * the S3 endpoint and addressing, and credentials.  A thread's scope carries them
 * (common/scope.h: each library context its own); a thread under no scope uses the process
 * default (zarr/store.h, gsvd_store_set_remote).  NULL strings and unset fields fall back to
 * the environment (AWS_*, GOOGLE_OAUTH_ACCESS_TOKEN, ...; docs/remote.md) and the defaults.
 * Thread safety: plain data; whoever owns it keeps it unchanged while stores use it. */
#ifndef GSVD_COMMON_REMOTE_H
#define GSVD_COMMON_REMOTE_H
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* Strings are borrowed and must stay valid until the last remote store opened under these
 * settings is closed (argv and getenv strings do; a library context owns its copies). */
struct gsvd_remote_params {
    unsigned concurrency;   /* requests in flight per store, 1..1024 */
    unsigned retries;       /* retries after the first attempt of a request */
    unsigned retry_base_ms; /* full-jitter backoff: uniform in [0, min(cap, base * 2^n)) */
    unsigned retry_cap_ms;  /* upper bound of one backoff (and of an honoured Retry-After) */
    unsigned timeout_s;     /* a transfer slower than 1 byte/s for this long is retried */
    unsigned connect_timeout_s;
    const char *endpoint;       /* s3: endpoint URL (path-style), or NULL: environment / AWS */
    const char *s3_addressing;  /* "auto", "path" or "virtual"; NULL = "auto" */
    int no_sign_request;        /* s3: anonymous requests, no credentials looked up */
    const char *gcs_token_file; /* gs: file holding an OAuth2 access token, or NULL */
    /* credentials given by the caller; NULL: looked up as before (environment, files) */
    const char *aws_access_key_id, *aws_secret_access_key; /* both or neither */
    const char *aws_session_token;                         /* with the two above, or NULL */
    const char *aws_region;                                /* else AWS_REGION, ... */
    const char *gcs_token; /* an OAuth2 access token (before gcs_token_file and the env) */
};
#define GSVD_REMOTE_PARAMS_DEFAULT                                                                 \
    {                                                                                              \
        .concurrency = 32, .retries = 8, .retry_base_ms = 500, .retry_cap_ms = 32000,              \
        .timeout_s = 60, .connect_timeout_s = 20, .endpoint = NULL, .s3_addressing = NULL,         \
        .no_sign_request = 0, .gcs_token_file = NULL, .aws_access_key_id = NULL,                   \
        .aws_secret_access_key = NULL, .aws_session_token = NULL, .aws_region = NULL,              \
        .gcs_token = NULL                                                                          \
    }

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_REMOTE_H */
