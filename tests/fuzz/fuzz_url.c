/* tests/fuzz/fuzz_url.c - libFuzzer target for store URLs and keys (zarr/store.c and the URL
 * rewrites of store_http.c, store_gcs.c and store_s3.c).
 * The input, cut at its first NUL, is checked as a key (gsvd_key_check, gsvd_key_join),
 * percent-encoded (gsvd_http_encode, with and without '/'), split as "s3://" + input
 * (gsvd_split_bucket_url) and opened read-only as "https://", "gs://" and "s3://" + input and
 * as the whole URL (read-only opens of remote stores send no request; s3 unsigned, so no
 * credential is looked up).  Checks: an accepted key joins to a key that is accepted too, the
 * encoding holds only unreserved characters and '%XX' (and '/' when kept) and decodes back, a
 * split bucket is non-empty and neither part has a leading or trailing '/'.  Any return code is
 * fine otherwise.  Built with standalone.c when libFuzzer is not available. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/store.h"
#if GSVD_HAVE_CURL
#include "zarr/store_internal.h" /* gsvd_http_encode, gsvd_split_bucket_url */
#endif

#define MAX_URL 4096

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    struct gsvd_remote_params p = GSVD_REMOTE_PARAMS_DEFAULT;

    (void)argc;
    (void)argv;
    gsvd_log_set_level(GSVD_LOG_OFF); /* every rejected URL would log */
    p.no_sign_request = 1;            /* s3: no credential lookup */
    p.concurrency = 1;
    gsvd_store_set_remote(&p);
    if (gsvd_store_global_init() != GSVD_OK)
        __builtin_trap();
    return 0;
}

#if GSVD_HAVE_CURL
static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* gsvd_http_encode's output must be unreserved characters, '/' if kept and %XX, decoding to s. */
static void check_encode(const char *s, int keep_slash)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    size_t i = 0, j = 0, n = strlen(s);

    if (gsvd_http_encode(&b, s, keep_slash) != GSVD_OK) {
        gsvd_buf_free(&b);
        return;
    }
    while (i < b.len) {
        char c = b.data[i];
        unsigned char want = j < n ? (unsigned char)s[j] : 0;
        if (c == '%') {
            int hi = i + 2 < b.len ? hexval(b.data[i + 1]) : -1;
            int lo = i + 2 < b.len ? hexval(b.data[i + 2]) : -1;
            if (hi < 0 || lo < 0 || (unsigned)(hi * 16 + lo) != want || j >= n)
                __builtin_trap();
            i += 3;
        } else {
            int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/');
            if (!ok || j >= n || (unsigned char)c != want)
                __builtin_trap();
            i++;
        }
        j++;
    }
    if (j != n)
        __builtin_trap();
    gsvd_buf_free(&b);
}

#endif

/* Opening a store parses its URL without I/O, except a remote ".zip" archive, whose open reads
 * the archive's tail over the network: those URLs are not opened here (the split of such URLs
 * is tested in tests/unit/test_store_zip.c, the archive parser by fuzz_zip). */
static int remote_zip(const char *url)
{
    size_t n = strlen(url);
    return n >= 4 && strcasecmp(url + n - 4, ".zip") == 0;
}

static void try_open(const char *scheme, const char *s)
{
    gsvd_store *st = NULL;
    char *url = gsvd_asprintf("%s%s", scheme, s);

    if (url && !remote_zip(url) && gsvd_store_open(url, GSVD_STORE_READ, &st) == GSVD_OK)
        gsvd_store_close(st);
    gsvd_free(url);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s, *joined = NULL;
    size_t n = size < MAX_URL ? size : MAX_URL;

    s = gsvd_malloc(n + 1);
    if (!s)
        return 0;
    memcpy(s, data, n);
    s[n] = '\0';

    if (gsvd_key_check(s) == GSVD_OK) {
        if (gsvd_key_join(s, ".zarray", &joined) == GSVD_OK && gsvd_key_check(joined) != GSVD_OK)
            __builtin_trap(); /* a valid key plus a valid name is a valid key */
        gsvd_free(joined);
        joined = NULL;
    }
    (void)!gsvd_key_join("", s, &joined);
    gsvd_free(joined);

#if GSVD_HAVE_CURL
    check_encode(s, 0);
    check_encode(s, 1);

    char *bucket = NULL, *prefix = NULL, *s3 = gsvd_asprintf("s3://%s", s);
    if (s3 && gsvd_split_bucket_url(s3, 5, &bucket, &prefix) == GSVD_OK) {
        size_t lp = strlen(prefix);
        if (!bucket[0] || strchr(bucket, '/') || prefix[0] == '/' || (lp && prefix[lp - 1] == '/'))
            __builtin_trap();
    }
    gsvd_free(bucket);
    gsvd_free(prefix);
    gsvd_free(s3);
#endif

    /* scheme-less and file:// inputs would be local paths: only remote schemes are opened */
    if (strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0 ||
        strncmp(s, "gs://", 5) == 0 || strncmp(s, "s3://", 5) == 0)
        try_open("", s);
    try_open("https://", s);
    try_open("gs://", s);
    try_open("s3://", s);
    gsvd_free(s);
    return 0;
}
