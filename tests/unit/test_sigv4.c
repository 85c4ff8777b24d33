/* tests/unit/test_sigv4.c - zarr/sigv4.h: SHA-256 vectors and AWS's documented SigV4 example
 * ("GET Object" with a Range header, Signature Version 4 documentation), and the percent
 * encoding the remote stores use for keys. */
#include "gsvd_config.h"

#include <string.h>

#include "common/buf.h"
#include "common/err.h"
#include "gsvd_test.h"
#include "zarr/sigv4.h"

static void test_sha256(void)
{
    char hex[65];
    gsvd_sha256_hex("", 0, hex);
    GSVD_CHECK(strcmp(hex, GSVD_SHA256_EMPTY) == 0);
    gsvd_sha256_hex("abc", 3, hex);
    GSVD_CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") ==
               0);
}

static void test_aws_example(void)
{
    static const char *const headers[] = {
        "host:examplebucket.s3.amazonaws.com",
        "range:bytes=0-9",
        ("x-amz-content-sha256:" GSVD_SHA256_EMPTY),
        "x-amz-date:20130524T000000Z",
    };
    struct gsvd_sigv4_request rq = {
        .method = "GET",
        .canonical_uri = "/test.txt",
        .canonical_query = "",
        .headers = headers,
        .n_headers = 4,
        .payload_hash = GSVD_SHA256_EMPTY,
        .amz_date = "20130524T000000Z",
        .region = "us-east-1",
        .service = "s3",
    };
    char sig[65], names[128];
    GSVD_CHECK_RC(gsvd_sigv4_signature(&rq, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", sig, names,
                                       sizeof names),
                  GSVD_OK);
    GSVD_CHECK(strcmp(sig, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41") ==
               0);
    GSVD_CHECK(strcmp(names, "host;range;x-amz-content-sha256;x-amz-date") == 0);
    /* any change to the request or the secret changes the signature */
    GSVD_CHECK_RC(
        gsvd_sigv4_signature(&rq, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEZ", sig, NULL, 0),
        GSVD_OK);
    GSVD_CHECK(strcmp(sig, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41") !=
               0);
    GSVD_CHECK_RC(gsvd_sigv4_signature(&rq, "x", sig, names, 4), GSVD_EINVAL);
    static const char *const bad[] = {"host examplebucket"};
    rq.headers = bad;
    rq.n_headers = 1;
    GSVD_CHECK_RC(gsvd_sigv4_signature(&rq, "x", sig, NULL, 0), GSVD_EINVAL);
    rq.amz_date = "2013";
    GSVD_CHECK_RC(gsvd_sigv4_signature(&rq, "x", sig, NULL, 0), GSVD_EINVAL);
}

int main(void)
{
    test_sha256();
    test_aws_example();
    return gsvd_test_report("test_sigv4");
}
