/* tests/unit/test_meta_fill.c - the "fill_value" of zarr/meta.h's .zarray against the
 * contract: every dtype's values parsed exactly (integers beyond 2^53 from the text, NaN and
 * infinities, base64 bytes, UCS-4 strings), written back as zarr-python writes them, and
 * refused with GSVD_EFORMAT for the wrong type or range. */
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

static void test_fill_values(void)
{
    static const struct {
        const char *ts, *fill;
        int has;
        uint64_t bits; /* expected native value, zero-extended (f2: IEEE half bits) */
    } cases[] = {
        {"|b1", "true", 1, 1},
        {"|b1", "false", 1, 0},
        {"|b1", "1", 1, 1},
        {"|b1", "0", 1, 0},
        {"|i1", "-128", 1, 0x80},
        {"|i1", "127", 1, 0x7f},
        {"<i2", "-2", 1, 0xfffe},
        {">i4", "-5", 1, 0xfffffffb},
        {"<i4", "true", 1, 1},
        {"<i8", "-1", 1, UINT64_MAX},
        {"<i8", "-9223372036854775808", 1, 0x8000000000000000ull},
        {"<i8", "9223372036854775807", 1, 0x7fffffffffffffffull},
        {"<i8", "-9007199254740993", 1, (uint64_t)-9007199254740993ll}, /* not a double */
        {">i8", "9007199254740993", 1, 9007199254740993ull},
        {"|u1", "255", 1, 255},
        {"<u2", "65535", 1, 65535},
        {">u4", "4294967295", 1, 4294967295u},
        {"<u8", "18446744073709551615", 1, UINT64_MAX},
        {"<u8", "18446744073709551614", 1, UINT64_MAX - 1},
        {"<u8", "9007199254740993", 1, 9007199254740993ull},
        {"<u8", "0", 1, 0},
        {"<f2", "1.5", 1, 0x3e00},
        {"<f2", "65504", 1, 0x7bff},
        {"<f2", "-0.25", 1, 0xb400},
        {"<f2", "\"Infinity\"", 1, 0x7c00},
        {"<f2", "\"-Infinity\"", 1, 0xfc00},
        {"<i4", "null", 0, 0},
        {"<f8", "null", 0, 0},
        {"|S2", "null", 0, 0},
        {"<U1", "null", 0, 0},
    };

    for (size_t i = 0; i < GSVD_ARRAY_LEN(cases); i++) {
        struct gsvd_zarray z;
        uint64_t got = 0;
        int rc = parse(zdoc("[3]", "[2]", cases[i].ts, cases[i].fill, "C", NULL), &z);

        GSVD_CHECK_RC(rc, GSVD_OK);
        if (rc != GSVD_OK) {
            fprintf(stderr, "  dtype %s fill %s\n", cases[i].ts, cases[i].fill);
            continue;
        }
        GSVD_CHECK(z.has_fill == cases[i].has);
        memcpy(&got, z.fill, z.dtype.size < 8 ? z.dtype.size : 8); /* little-endian host */
        if (got != cases[i].bits)
            fprintf(stderr, "dtype %s fill %s: got 0x%llx, want 0x%llx\n", cases[i].ts,
                    cases[i].fill, (unsigned long long)got, (unsigned long long)cases[i].bits);
        GSVD_CHECK(got == cases[i].bits);
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
    }

    /* floats: numbers and the three strings */
    {
        struct gsvd_zarray z;
        float f;
        double d;

        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<f4", "0.1", "C", NULL), &z), GSVD_OK);
        memcpy(&f, z.fill, 4);
        GSVD_CHECK(z.has_fill && f == 0.1f);
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<f4", "\"NaN\"", "C", NULL), &z), GSVD_OK);
        memcpy(&f, z.fill, 4);
        GSVD_CHECK(z.has_fill && isnan(f));
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", ">f8", "\"Infinity\"", "C", NULL), &z), GSVD_OK);
        memcpy(&d, z.fill, 8);
        GSVD_CHECK(z.has_fill && isinf(d) && d > 0);
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<f8", "\"-Infinity\"", "C", NULL), &z), GSVD_OK);
        memcpy(&d, z.fill, 8);
        GSVD_CHECK(z.has_fill && isinf(d) && d < 0);
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<f8", "-2.5e-300", "C", NULL), &z), GSVD_OK);
        memcpy(&d, z.fill, 8);
        GSVD_CHECK(d == -2.5e-300);
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<f8", "\"NaN\"", "C", NULL), &z), GSVD_OK);
        memcpy(&d, z.fill, 8);
        GSVD_CHECK(isnan(d));
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<f2", "\"NaN\"", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill && (z.fill[1] & 0x7c) == 0x7c && (z.fill[0] | (z.fill[1] & 3)));
        gsvd_zarray_clear(&z);
    }

    /* missing fill_value: accepted as null */
    {
        struct gsvd_zarray z;
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<i4", NULL, "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill == 0 && z.fill && z.fill[0] == 0);
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
    }

    /* S: base64 of the raw bytes; 0 means empty */
    {
        struct gsvd_zarray z;
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "|S4", "\"YWJj\"", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill && memcmp(z.fill, "abc\0", 4) == 0);
        GSVD_CHECK(roundtrip_ok(&z)); /* emit must keep the fill */
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "|S4", "\"AAEC/w==\"", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill && memcmp(z.fill, "\x00\x01\x02\xff", 4) == 0);
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "|S2", "0", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill && z.fill[0] == 0 && z.fill[1] == 0);
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "|S2", "\"\"", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill && z.fill[0] == 0 && z.fill[1] == 0);
        gsvd_zarray_clear(&z);
    }

    /* U: text as UCS-4, native order, zero-padded */
    {
        struct gsvd_zarray z;
        static const unsigned char want[12] = {'a', 0, 0, 0, 0xe9, 0, 0, 0, 0, 0, 0, 0};
        static const unsigned char want_big[8] = {0x00, 0xf6, 0x01, 0, 'z', 0, 0, 0};

        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<U3", "\"a\\u00e9\"", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill && memcmp(z.fill, want, 12) == 0);
        GSVD_CHECK(roundtrip_ok(&z)); /* emit must keep the fill */
        gsvd_zarray_clear(&z);
        /* big-endian dtype: the fill is still native; U+1F600 via a surrogate pair */
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", ">U2", "\"\\ud83d\\ude00z\"", "C", NULL), &z),
                      GSVD_OK);
        GSVD_CHECK(z.has_fill && memcmp(z.fill, want_big, 8) == 0);
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<U2", "0", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill && memcmp(z.fill, "\0\0\0\0\0\0\0\0", 8) == 0);
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<U2", "\"\"", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill && memcmp(z.fill, "\0\0\0\0\0\0\0\0", 8) == 0);
        gsvd_zarray_clear(&z);
    }

    /* O: the fill string; 0 (zarr-python 2) and null mean "" */
    {
        struct gsvd_zarray z;
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "|O", "0", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.fill_str && strcmp(z.fill_str, "") == 0);
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "|O", "\"\"", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.fill_str && strcmp(z.fill_str, "") == 0);
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "|O", "\"n/a\"", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.fill_str && strcmp(z.fill_str, "n/a") == 0);
        GSVD_CHECK(roundtrip_ok(&z)); /* emit must keep the fill string */
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "|O", NULL, "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.fill_str && strcmp(z.fill_str, "") == 0);
        gsvd_zarray_clear(&z);
    }

    /* the exact 64-bit re-read must take the top-level fill_value, not a nested member */
    {
        struct gsvd_zarray z;
        uint64_t got = 0;
        snprintf(doc, sizeof doc,
                 "{\"zarr_format\": 2, \"attrs\": {\"fill_value\": 7}, \"shape\": [3], "
                 "\"chunks\": [2], \"dtype\": \"<u8\", \"compressor\": null, \"fill_value\": "
                 "18446744073709551615, \"order\": \"C\", \"filters\": null}");
        GSVD_CHECK_RC(parse(doc, &z), GSVD_OK);
        if (z.fill)
            memcpy(&got, z.fill, 8);
        GSVD_CHECK(got == UINT64_MAX);
        gsvd_zarray_clear(&z);
        /* and one written with spaces around the colon */
        snprintf(doc, sizeof doc,
                 "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], \"dtype\": \"<i8\", "
                 "\"compressor\": null, \"fill_value\"  :\n -9223372036854775807, \"order\": "
                 "\"C\", \"filters\": null}");
        GSVD_CHECK_RC(parse(doc, &z), GSVD_OK);
        if (z.fill)
            memcpy(&got, z.fill, 8);
        GSVD_CHECK(got == (uint64_t)(-9223372036854775807ll));
        gsvd_zarray_clear(&z);
    }
}

/* ---- errors ---------------------------------------------------------------------------- */

static void test_bad_fill(void)
{
    static const struct {
        const char *ts, *fill;
    } bad[] = {
        {"|i1", "128"},
        {"|i1", "-129"},
        {"|u1", "256"},
        {"|u1", "-1"},
        {"<u2", "65536"},
        {"<i2", "32768"},
        {"<i4", "2147483648"},
        {"<i4", "3000000000"},
        {"<i4", "1e20"},
        {"<i4", "1.5"},
        {"<i4", "\"1\""},
        {"<i4", "[0]"},
        {"<i8", "9223372036854775808"},
        {"<i8", "-9223372036854775809"},
        {"<i8", "1e300"},
        {"<u8", "18446744073709551616"},
        {"<u8", "-1"},
        {"<u8", "-9223372036854775808"},
        {"<u4", "1e19"},
        {"|b1", "2"},
        {"|b1", "\"true\""},
        {"<f4", "\"nan\""},
        {"<f4", "\"inf\""},
        {"<f8", "true"},
        {"<f8", "{}"},
        {"|S4", "true"},
        {"|S4", "1"},
        {"<U2", "\"abc\""},
        {"<U2", "5"},
        {"<U2", "[\"a\"]"},
    };

    for (size_t i = 0; i < GSVD_ARRAY_LEN(bad); i++) {
        int rc = parse_rc(zdoc("[3]", "[2]", bad[i].ts, bad[i].fill, "C", NULL));
        if (rc != GSVD_EFORMAT)
            fprintf(stderr, "dtype %s fill %s accepted (rc %d)\n", bad[i].ts, bad[i].fill, rc);
        GSVD_CHECK_RC(rc, GSVD_EFORMAT);
    }
}

int main(int argc, char **argv)
{
    gsvd_meta_global_init(); /* cJSON allocates through gsvd_malloc */
    if (gsvd_test_args(argc, argv, "test_meta_fill") != 0)
        return 2;
    test_fill_values();
    test_bad_fill();
    return gsvd_test_report("test_meta_fill");
}
