/* zarr/sigv4.h - SHA-256 and the AWS Signature Version 4 computation (libcrypto).
 * The s3 store signs requests through libcurl's CURLOPT_AWS_SIGV4 and uses this module for the
 * payload hash (x-amz-content-sha256) that libcurl 7.88 does not compute; the signature
 * function states the algorithm independently of libcurl, so a unit test can check it against
 * AWS's published example, and a test server can check requests against it.
 * Thread safety: pure functions. */
#ifndef GSVD_ZARR_SIGV4_H
#define GSVD_ZARR_SIGV4_H
#include <stddef.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* Hex SHA-256 of the empty string: the payload hash of a request without a body. */
#define GSVD_SHA256_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* Lower-case hex SHA-256 of p[0..n) into out (65 bytes with the NUL). */
void gsvd_sha256_hex(const void *p, size_t n, char out[65]);

struct gsvd_sigv4_request {
    const char *method;          /* "GET", "PUT", ... */
    const char *canonical_uri;   /* the percent-encoded path, e.g. "/test.txt" */
    const char *canonical_query; /* sorted, encoded "a=1&b=2", or "" */
    const char *const *headers;  /* "name:value": lower-case names, trimmed values, sorted by
                                    name; every one of them is signed */
    size_t n_headers;
    const char *payload_hash; /* hex SHA-256 of the body, or "UNSIGNED-PAYLOAD" */
    const char *amz_date;     /* "YYYYMMDDTHHMMSSZ" (the x-amz-date header's value) */
    const char *region;       /* "us-east-1" */
    const char *service;      /* "s3" */
};

/* The request's signature as 64 lower-case hex digits in sig (65 bytes with the NUL), and,
 * when signed_headers is not NULL, its SignedHeaders list ("host;range;...", at most cap
 * bytes).  `secret` is the secret access key (borrowed; never stored or logged).  Returns
 * GSVD_OK, GSVD_EINVAL (a header without ':', a short date, signed_headers too small) or
 * GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_sigv4_signature(const struct gsvd_sigv4_request *rq, const char *secret,
                                        char sig[65], char *signed_headers, size_t cap);

GSVD_EXTERN_C_END
#endif /* GSVD_ZARR_SIGV4_H */
