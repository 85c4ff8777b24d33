/* tests/unit/test_meta_json.c - the JSON layer of zarr/meta.h against the contract: single
 * members of attribute documents (gsvd_meta_get_*), JSON string quoting, and control bytes
 * (NUL above all) refused in every kind of document. */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "tests/gsvd_test.h"
#include "tests/unit/meta_util.h"
#include "zarr/codec.h"
#include "zarr/dtype.h"
#include "zarr/meta.h"

static void test_get_string(void)
{
    static const char attrs[] = "{\"vcf_zarr_version\": \"0.4\", \"n\": 5, \"esc\": "
                                "\"a\\\"b\\u00e9\", \"_ARRAY_DIMENSIONS\": [\"variants\", "
                                "\"samples\"], \"empty\": [], \"mixed\": [\"a\", 1]}";
    static const char with_nan[] = "{\"v\": \"1\", \"d\": [\"a\"], \"x\": NaN}";
    char *s = NULL;
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    size_t n = strlen(attrs);

    GSVD_CHECK_RC(gsvd_meta_get_string(attrs, n, "vcf_zarr_version", "t", &s), GSVD_OK);
    GSVD_CHECK(s && strcmp(s, "0.4") == 0);
    gsvd_free(s);
    GSVD_CHECK_RC(gsvd_meta_get_string(attrs, n, "esc", "t", &s), GSVD_OK);
    GSVD_CHECK(s && strcmp(s, "a\"b\xc3\xa9") == 0);
    gsvd_free(s);
    GSVD_CHECK_RC(gsvd_meta_get_string(attrs, n, "n", "t", &s), GSVD_ENOTFOUND);
    GSVD_CHECK(s == NULL);
    GSVD_CHECK_RC(gsvd_meta_get_string(attrs, n, "absent", "t", &s), GSVD_ENOTFOUND);
    GSVD_CHECK(s == NULL);
    GSVD_CHECK_RC(gsvd_meta_get_string("[\"a\"]", 5, "a", "t", &s), GSVD_ENOTFOUND);
    GSVD_CHECK_RC(gsvd_meta_get_string("{\"a\": ", 6, "a", "t", &s), GSVD_EFORMAT);
    GSVD_CHECK(s == NULL);

    GSVD_CHECK_RC(gsvd_meta_get_string_list(attrs, n, "_ARRAY_DIMENSIONS", "t", &l), GSVD_OK);
    GSVD_CHECK(l.n == 2 && strcmp(l.items[0], "variants") == 0 &&
               strcmp(l.items[1], "samples") == 0);
    gsvd_strlist_free(&l);
    GSVD_CHECK_RC(gsvd_meta_get_string_list(attrs, n, "empty", "t", &l), GSVD_OK);
    GSVD_CHECK(l.n == 0);
    GSVD_CHECK_RC(gsvd_meta_get_string_list(attrs, n, "mixed", "t", &l), GSVD_EFORMAT);
    gsvd_strlist_free(&l);
    GSVD_CHECK_RC(gsvd_meta_get_string_list(attrs, n, "absent", "t", &l), GSVD_ENOTFOUND);
    GSVD_CHECK_RC(gsvd_meta_get_string_list(attrs, n, "vcf_zarr_version", "t", &l), GSVD_ENOTFOUND);
    GSVD_CHECK_RC(gsvd_meta_get_string_list("{", 1, "a", "t", &l), GSVD_EFORMAT);
    GSVD_CHECK(l.n == 0);
    gsvd_strlist_free(&l);

    /* attributes with bare NaN (zarr-python writes them) */
    GSVD_CHECK_RC(gsvd_meta_get_string(with_nan, strlen(with_nan), "v", "t", &s), GSVD_OK);
    GSVD_CHECK(s && strcmp(s, "1") == 0);
    gsvd_free(s);
    GSVD_CHECK_RC(gsvd_meta_get_string_list(with_nan, strlen(with_nan), "d", "t", &l), GSVD_OK);
    GSVD_CHECK(l.n == 1);
    gsvd_strlist_free(&l);
}

static void test_json_quote(void)
{
    static const char *const strs[] = {
        "",        "plain", "a\"b", "back\\slash", "tab\there\nnl\r", "\x01\x1f\x7f", "caf\xc3\xa9",
        "/slash/",
    };
    struct gsvd_buf b = GSVD_BUF_INIT;

    GSVD_CHECK_RC(gsvd_json_quote(&b, "a\"b\\c\n\x01 \xc3\xa9"), GSVD_OK);
    GSVD_CHECK(b.data && strcmp(b.data, "\"a\\\"b\\\\c\\u000a\\u0001 \xc3\xa9\"") == 0);
    gsvd_buf_free(&b);
    GSVD_CHECK_RC(gsvd_json_quote(&b, ""), GSVD_OK);
    GSVD_CHECK(b.data && strcmp(b.data, "\"\"") == 0);
    /* appends */
    GSVD_CHECK_RC(gsvd_json_quote(&b, "x"), GSVD_OK);
    GSVD_CHECK(b.data && strcmp(b.data, "\"\"\"x\"") == 0);
    gsvd_buf_free(&b);

    /* every quoted string reads back as itself */
    for (size_t i = 0; i < GSVD_ARRAY_LEN(strs); i++) {
        char *s = NULL;
        GSVD_CHECK_RC(gsvd_buf_puts(&b, "{\"k\": "), GSVD_OK);
        GSVD_CHECK_RC(gsvd_json_quote(&b, strs[i]), GSVD_OK);
        GSVD_CHECK_RC(gsvd_buf_puts(&b, "}"), GSVD_OK);
        GSVD_CHECK_RC(gsvd_meta_get_string(b.data, b.len, "k", "t", &s), GSVD_OK);
        GSVD_CHECK(s && strcmp(s, strs[i]) == 0);
        gsvd_free(s);
        gsvd_buf_free(&b);
    }
}

static void test_control_bytes(void)
{
    static const char zm[] = "{\"metadata\": {\"a/.zarray\": {\"zarr_format\":\0002}, "
                             "\"a/.zattrs\": {}}, \"zarr_consolidated_format\": 1}";
#define DOC(lit)                                                                                   \
    {                                                                                              \
        lit, sizeof lit - 1                                                                        \
    }
    static const struct {
        const char *text;
        size_t n;
    } docs[] = {
        DOC("{\"zarr_format\":\0002}"),
        DOC("{\"zarr_format\": 2}\0"),
        DOC("\0{\"zarr_format\": 2}"),
        DOC("{\"zarr_format\":\0012}"),
        DOC("{\"zarr_format\": 2, \"s\": \"a\0b\"}"),
        DOC("{\"zarr_format\": 2, \"s\": \"a\037b\"}"),
        DOC("{\"zarr_format\": 2, \"s\": \"a\\u0000b\"}"),
        DOC("{\"zarr_format\": 2, \"a\\u0000b\": 1}"),
    };
#undef DOC
    struct gsvd_strlist k = GSVD_STRLIST_INIT, d = GSVD_STRLIST_INIT;
    struct gsvd_zarray z;
    char *s = NULL;

    GSVD_CHECK_RC(gsvd_zmetadata_parse(zm, sizeof zm - 1, "t/.zmetadata", &k, &d), GSVD_EFORMAT);
    GSVD_CHECK(k.n == 0 && d.n == 0);
    gsvd_strlist_free(&k);
    gsvd_strlist_free(&d);
    for (size_t i = 0; i < GSVD_ARRAY_LEN(docs); i++) {
        const char *t = docs[i].text;
        size_t n = docs[i].n;
        GSVD_CHECK_RC(gsvd_zgroup_parse(t, n, "t/.zgroup"), GSVD_EFORMAT);
        GSVD_CHECK_RC(gsvd_meta_check_object(t, n, "t/.zattrs"), GSVD_EFORMAT);
        GSVD_CHECK_RC(gsvd_meta_get_string(t, n, "s", "t/.zattrs", &s), GSVD_EFORMAT);
        GSVD_CHECK(s == NULL);
        GSVD_CHECK_RC(gsvd_meta_get_string_list(t, n, "s", "t/.zattrs", &k), GSVD_EFORMAT);
        GSVD_CHECK_RC(gsvd_zarray_parse(t, n, "t/.zarray", &z), GSVD_EFORMAT);
        gsvd_zarray_clear(&z);
        gsvd_strlist_free(&k);
    }
    /* tab, LF and CR stay whitespace; \u0001 is a string character, "\\u0000" plain text */
    GSVD_CHECK_RC(zgroup("\t{\r\n\"zarr_format\":\t2}\r\n"), GSVD_OK);
    GSVD_CHECK_RC(check_object("{\"s\": \"a\\u0001b\"}"), GSVD_OK);
    GSVD_CHECK_RC(check_object("{\"s\": \"a\\\\u0000b\"}"), GSVD_OK);
    GSVD_CHECK_RC(
        zmeta_rc("{\"metadata\": {\".zarray\\u0000x\": {}}, \"zarr_consolidated_format\": 1}"),
        GSVD_EFORMAT);
}

int main(int argc, char **argv)
{
    gsvd_meta_global_init(); /* cJSON allocates through gsvd_malloc */
    if (gsvd_test_args(argc, argv, "test_meta_json") != 0)
        return 2;
    test_get_string();
    test_json_quote();
    test_control_bytes();
    return gsvd_test_report("test_meta_json");
}
