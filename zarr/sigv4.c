/* zarr/sigv4.c - SigV4 as AWS documents it: canonical request, string to sign, the derived
 * signing key (date, region, service, "aws4_request"), and the final HMAC. */
#include "gsvd_config.h"
#include "zarr/sigv4.h"

#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "common/buf.h"
#include "common/err.h"

static void to_hex(const unsigned char *d, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[2 * n] = '\0';
}

void gsvd_sha256_hex(const void *p, size_t n, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(p, n, md, &len, EVP_sha256(), NULL);
    to_hex(md, 32, out);
}

/* out = HMAC-SHA256(key, msg); 32 bytes. */
static void hmac(const unsigned char *key, size_t klen, const char *msg, size_t mlen,
                 unsigned char out[32])
{
    unsigned int len = 32;
    HMAC(EVP_sha256(), key, (int)klen, (const unsigned char *)msg, mlen, out, &len);
}

int gsvd_sigv4_signature(const struct gsvd_sigv4_request *rq, const char *secret, char sig[65],
                         char *signed_headers, size_t cap)
{
    struct gsvd_buf creq = GSVD_BUF_INIT, names = GSVD_BUF_INIT, sts = GSVD_BUF_INIT;
    struct gsvd_buf k0 = GSVD_BUF_INIT;
    unsigned char k[32], k2[32];
    char date[9], creq_hash[65];
    int rc = GSVD_OK;

    sig[0] = '\0';
    if (strlen(rq->amz_date) < 8)
        return GSVD_EINVAL;
    memcpy(date, rq->amz_date, 8);
    date[8] = '\0';
    GSVD_TRY(gsvd_buf_printf(&creq, "%s\n%s\n%s\n", rq->method, rq->canonical_uri,
                             rq->canonical_query ? rq->canonical_query : ""));
    for (size_t i = 0; i < rq->n_headers; i++) {
        const char *colon = strchr(rq->headers[i], ':');
        if (!colon) {
            rc = GSVD_EINVAL;
            goto out;
        }
        GSVD_TRY(gsvd_buf_printf(&creq, "%s\n", rq->headers[i]));
        GSVD_TRY(gsvd_buf_printf(&names, "%s%.*s", i ? ";" : "", (int)(colon - rq->headers[i]),
                                 rq->headers[i]));
    }
    GSVD_TRY(gsvd_buf_printf(&creq, "\n%s\n%s", names.data ? names.data : "", rq->payload_hash));
    gsvd_sha256_hex(creq.data, creq.len, creq_hash);
    GSVD_TRY(gsvd_buf_printf(&sts, "AWS4-HMAC-SHA256\n%s\n%s/%s/%s/aws4_request\n%s", rq->amz_date,
                             date, rq->region, rq->service, creq_hash));
    GSVD_TRY(gsvd_buf_printf(&k0, "AWS4%s", secret));
    hmac((const unsigned char *)k0.data, k0.len, date, 8, k);
    hmac(k, 32, rq->region, strlen(rq->region), k2);
    hmac(k2, 32, rq->service, strlen(rq->service), k);
    hmac(k, 32, "aws4_request", 12, k2);
    hmac(k2, 32, sts.data, sts.len, k);
    to_hex(k, 32, sig);
    if (signed_headers) {
        size_t n = names.data ? names.len : 0;
        if (n + 1 > cap) {
            rc = GSVD_EINVAL;
            goto out;
        }
        memcpy(signed_headers, names.data ? names.data : "", n + 1);
    }
out:
    if (k0.data)
        memset(k0.data, 0, k0.len); /* it holds the secret */
    memset(k, 0, sizeof k);
    memset(k2, 0, sizeof k2);
    gsvd_buf_free(&k0);
    gsvd_buf_free(&creq);
    gsvd_buf_free(&names);
    gsvd_buf_free(&sts);
    return rc;
}
