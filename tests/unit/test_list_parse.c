/* tests/unit/test_list_parse.c - zarr/list_parse.h: S3 ListObjectsV2 pages (the shape of AWS's
 * documented example, with namespaces, entities, continuation) and GCS objects.list pages, each
 * against the names a reader of the page by hand expects; and every refusal: broken XML, a wrong
 * root, DOCTYPE/CDATA, unknown entities, a truncated page without a token, names outside the
 * prefix, overlong values, wrong JSON types. */
#include "gsvd_config.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "gsvd_test.h"
#include "zarr/list_parse.h"

/* Parse `page` with parser `s3` (1) or GCS (0); the names joined by ',' must equal `want` and
 * the token `want_token` (NULL: none). */
static void expect_names(int s3, const char *page, const char *prefix, const char *want,
                         const char *want_token)
{
    struct gsvd_strlist names = GSVD_STRLIST_INIT;
    struct gsvd_buf got = GSVD_BUF_INIT;
    char *token = NULL;
    int rc = s3 ? gsvd_list_parse_s3(page, strlen(page), prefix, "test", &names, &token)
                : gsvd_list_parse_gcs(page, strlen(page), prefix, "test", &names, &token);
    GSVD_CHECK(rc == GSVD_OK);
    gsvd_list_unique(&names);
    for (size_t i = 0; i < names.n; i++)
        GSVD_CHECK(gsvd_buf_printf(&got, "%s%s", i ? "," : "", names.items[i]) == GSVD_OK);
    GSVD_CHECK(strcmp(got.data ? got.data : "", want) == 0);
    if (strcmp(got.data ? got.data : "", want) != 0)
        fprintf(stderr, "  got '%s', want '%s'\n", got.data ? got.data : "", want);
    if (want_token)
        GSVD_CHECK(token && strcmp(token, want_token) == 0);
    else
        GSVD_CHECK(token == NULL);
    gsvd_free(token);
    gsvd_buf_free(&got);
    gsvd_strlist_free(&names);
}

static void expect_rc(int s3, const char *page, size_t len, const char *prefix, int want)
{
    struct gsvd_strlist names = GSVD_STRLIST_INIT;
    char *token = NULL;
    int rc = s3 ? gsvd_list_parse_s3(page, len, prefix, "test", &names, &token)
                : gsvd_list_parse_gcs(page, len, prefix, "test", &names, &token);
    GSVD_CHECK(rc == want);
    if (rc != want)
        fprintf(stderr, "  rc %d, want %d for: %.80s\n", rc, want, page);
    GSVD_CHECK(token == NULL);
    gsvd_strlist_free(&names);
}

#define HEAD "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
#define ROOT "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"

static void test_s3_pages(void)
{
    /* AWS's documented shape: a Contents entry with metadata, CommonPrefixes, no truncation */
    expect_names(1,
                 HEAD ROOT "<Name>bucket</Name><Prefix>st.zarr/</Prefix><KeyCount>4</KeyCount>"
                           "<MaxKeys>1000</MaxKeys><Delimiter>/</Delimiter>"
                           "<IsTruncated>false</IsTruncated>"
                           "<Contents><Key>st.zarr/.zgroup</Key>"
                           "<LastModified>2026-01-01T00:00:00.000Z</LastModified>"
                           "<ETag>&quot;abc&quot;</ETag><Size>24</Size>"
                           "<StorageClass>STANDARD</StorageClass></Contents>"
                           "<Contents><Key>st.zarr/.zattrs</Key><Size>2</Size></Contents>"
                           "<CommonPrefixes><Prefix>st.zarr/call_genotype/</Prefix>"
                           "</CommonPrefixes>"
                           "<CommonPrefixes><Prefix>st.zarr/a&amp;b &#x263A;&#65;/</Prefix>"
                           "</CommonPrefixes></ListBucketResult>\n",
                 "st.zarr/",
                 ".zattrs,.zgroup,a&b \xe2\x98\xba"
                 "A,call_genotype",
                 NULL);
    /* continuation; a namespace prefix on every element; whitespace and comments between */
    expect_names(1,
                 HEAD "<s3:ListBucketResult xmlns:s3=\"x\">\n  <!-- page 1 -->\n"
                      "  <s3:IsTruncated>true</s3:IsTruncated>\n"
                      "  <s3:CommonPrefixes><s3:Prefix>p/x/</s3:Prefix></s3:CommonPrefixes>\n"
                      "  <s3:NextContinuationToken>1ueGcx&lt;=</s3:NextContinuationToken>\n"
                      "</s3:ListBucketResult>",
                 "p/", "x", "1ueGcx<=");
    /* root listing (prefix ""), the prefix's own marker object and an empty page */
    expect_names(1,
                 ROOT "<Contents><Key>a</Key></Contents><Contents><Key>d/</Key></Contents>"
                      "<CommonPrefixes><Prefix>d/</Prefix></CommonPrefixes>"
                      "<IsTruncated>false</IsTruncated></ListBucketResult>",
                 "", "a,d", NULL);
    expect_names(1, ROOT "<Contents><Key>p/</Key></Contents><KeyCount/></ListBucketResult>", "p/",
                 "", NULL);
    expect_names(1, ROOT "</ListBucketResult>", "p/", "", NULL);
    /* a Key outside Contents, or a Prefix outside CommonPrefixes, is not a name */
    expect_names(1, ROOT "<Prefix>zzz</Prefix><Key>q</Key></ListBucketResult>", "p/", "", NULL);
}

static void test_s3_bad(void)
{
    static const char *const bad[] = {
        "",                                                                   /* no root */
        "   ",                                                                /* no root */
        "<Error><Code>AccessDenied</Code></Error>",                           /* wrong root */
        ROOT,                                                                 /* unterminated */
        ROOT "<Contents><Key>p/a</Key></Contents>",                           /* unterminated */
        ROOT "<Contents><Key>p/a</Contents></Key></ListBucketResult>",        /* crossed tags */
        ROOT "</Contents></ListBucketResult>",                                /* stray end tag */
        ROOT "<Contents><Key>p/a<b/></Key></Contents></ListBucketResult>",    /* element in text */
        ROOT "<Contents><Key>p/&bogus;</Key></Contents></ListBucketResult>",  /* entity */
        ROOT "<Contents><Key>p/&amp</Key></Contents></ListBucketResult>",     /* no ';' */
        ROOT "<Contents><Key>p/&#0;</Key></Contents></ListBucketResult>",     /* NUL */
        ROOT "<Contents><Key>p/&#xD800;</Key></Contents></ListBucketResult>", /* surrogate */
        ROOT "<Contents><Key>p/&#x110000;</Key></Contents></ListBucketResult>", /* range */
        ROOT "<Contents><Key>p/&#xZ;</Key></Contents></ListBucketResult>",
        "<!DOCTYPE x [<!ENTITY a \"b\">]>" ROOT "</ListBucketResult>", /* DTD */
        ROOT "<Contents><Key><![CDATA[p/a]]></Key></Contents></ListBucketResult>",
        ROOT "<Contents><Key>q/a</Key></Contents></ListBucketResult>", /* outside prefix */
        ROOT "<IsTruncated>true</IsTruncated></ListBucketResult>",     /* no token */
        ROOT "<IsTruncated>true</IsTruncated><NextContinuationToken/></ListBucketResult>",
        ROOT "</ListBucketResult>" ROOT "</ListBucketResult>", /* two roots */
        ROOT "</ListBucketResult>trailing",
        ROOT "<Contents a=\"unterminated></Contents></ListBucketResult>",
        ROOT "<Contents a=\"1\" <Key>p/a</Key></Contents></ListBucketResult>",
        ROOT "<?pi unterminated </ListBucketResult>",
        ROOT "<!-- unterminated </ListBucketResult>",
        ROOT "<></ListBucketResult>",
        ROOT "< Key></ListBucketResult>",
    };
    for (size_t i = 0; i < GSVD_ARRAY_LEN(bad); i++)
        expect_rc(1, bad[i], strlen(bad[i]), "p/", GSVD_EFORMAT);

    /* bounds: a 5,000-byte key, elements 20 deep, a NUL inside a name */
    struct gsvd_buf b = GSVD_BUF_INIT;
    GSVD_CHECK(gsvd_buf_puts(&b, ROOT "<Contents><Key>p/") == GSVD_OK);
    for (int i = 0; i < 5000; i++)
        GSVD_CHECK(gsvd_buf_puts(&b, "k") == GSVD_OK);
    GSVD_CHECK(gsvd_buf_puts(&b, "</Key></Contents></ListBucketResult>") == GSVD_OK);
    expect_rc(1, b.data, b.len, "p/", GSVD_EFORMAT);
    gsvd_buf_clear(&b);
    GSVD_CHECK(gsvd_buf_puts(&b, ROOT) == GSVD_OK);
    for (int i = 0; i < 20; i++)
        GSVD_CHECK(gsvd_buf_puts(&b, "<a>") == GSVD_OK);
    expect_rc(1, b.data, b.len, "p/", GSVD_EFORMAT);
    gsvd_buf_free(&b);
    static const char nul[] = ROOT "<Contents><Key>p/a\0b</Key></Contents></ListBucketResult>";
    expect_rc(1, nul, sizeof nul - 1, "p/", GSVD_EFORMAT);
    /* a page cut short anywhere is refused or parsed, never read past its end */
    static const char full[] = ROOT "<Contents><Key>p/a&amp;b</Key></Contents>"
                                    "<CommonPrefixes><Prefix>p/c/</Prefix></CommonPrefixes>"
                                    "</ListBucketResult>";
    for (size_t n = 0; n + 1 < sizeof full - 1; n++)
        expect_rc(1, full, n, "p/", GSVD_EFORMAT);
    expect_rc(1, full, sizeof full - 1, "p/", GSVD_OK);
}

static void test_gcs(void)
{
    expect_names(
        0,
        "{\"kind\":\"storage#objects\",\"prefixes\":[\"st.zarr/call_genotype/\","
        "\"st.zarr/sample_id/\"],\"items\":[{\"name\":\"st.zarr/.zgroup\",\"size\":\"24\"},"
        "{\"name\":\"st.zarr/\"}],\"nextPageToken\":\"CgV0b2tlbg==\"}",
        "st.zarr/", ".zgroup,call_genotype,sample_id", "CgV0b2tlbg==");
    expect_names(0, "{\"kind\":\"storage#objects\"}", "p/", "", NULL);
    expect_names(0, "{\"items\":[],\"prefixes\":[],\"nextPageToken\":\"\"}", "p/", "", NULL);
    expect_names(0, "{\"items\":[{\"name\":\"x/\\u00e9\"}],\"nextPageToken\":null}", "", "x", NULL);
    static const char *const bad[] = {
        "",
        "not json",
        "[]",
        "{\"items\":{}}",
        "{\"prefixes\":\"p/a/\"}",
        "{\"prefixes\":[1]}",
        "{\"items\":[\"p/a\"]}",
        "{\"items\":[{\"name\":7}]}",
        "{\"items\":[{}]}",
        "{\"items\":[{\"name\":\"q/a\"}]}",
        "{\"nextPageToken\":5}",
        "{\"items\":[{\"name\":\"p/a\"}]",
    };
    for (size_t i = 0; i < GSVD_ARRAY_LEN(bad); i++)
        expect_rc(0, bad[i], strlen(bad[i]), "p/", GSVD_EFORMAT);
}

int main(void)
{
    gsvd_log_set_level(GSVD_LOG_OFF);
    test_s3_pages();
    test_s3_bad();
    test_gcs();
    return gsvd_test_report("test_list_parse");
}
