/* tests/unit/meta_util.h - helpers shared by the zarr/ metadata tests (test_meta,
 * test_meta_fill, test_meta_json): .zarray texts built from parts, parse and compare, emit +
 * re-parse round trips, and short forms of the .zgroup, .zattrs and .zmetadata calls.  Each
 * including program gets its own copy (static state: the `doc` buffer); include after
 * gsvd_test.h. */
#ifndef GSVD_TESTS_UNIT_META_UTIL_H
#define GSVD_TESTS_UNIT_META_UTIL_H
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "tests/gsvd_test.h"
#include "zarr/codec.h"
#include "zarr/dtype.h"
#include "zarr/meta.h"

#define WHERE "t/.zarray"

static char doc[16384];

/* A .zarray text.  fill NULL leaves "fill_value" out; extra is spliced in before the closing
 * brace (", \"dimension_separator\": \"/\"").  |O arrays get the vlen-utf8 filter. */
static inline const char *zdoc(const char *shape, const char *chunks, const char *dtype,
                               const char *fill, const char *order, const char *extra)
{
    char fillpart[256] = "";

    if (fill)
        snprintf(fillpart, sizeof fillpart, "\"fill_value\": %s, ", fill);
    snprintf(doc, sizeof doc,
             "{\"zarr_format\": 2, \"shape\": %s, \"chunks\": %s, \"dtype\": \"%s\", "
             "\"compressor\": null, %s\"order\": \"%s\", \"filters\": %s%s}",
             shape, chunks, dtype, fillpart, order,
             strcmp(dtype, "|O") == 0 ? "[{\"id\": \"vlen-utf8\"}]" : "null", extra ? extra : "");
    return doc;
}

/* "[1, 1, ..., 1]" with n ones. */
static inline void ones(char *buf, size_t len, int n)
{
    size_t o = (size_t)snprintf(buf, len, "[1");
    for (int i = 1; i < n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, ", 1");
    if (o < len)
        snprintf(buf + o, len - o, "]");
}

static inline int parse(const char *json, struct gsvd_zarray *z)
{
    return gsvd_zarray_parse(json, strlen(json), WHERE, z);
}

/* Parse and expect rc; clears the result either way. */
static inline int parse_rc(const char *json)
{
    struct gsvd_zarray z;
    int rc = parse(json, &z);

    gsvd_zarray_clear(&z);
    return rc;
}

static inline struct gsvd_dtype dt_of(const char *s)
{
    struct gsvd_dtype dt = {0, 0, 0};

    GSVD_CHECK_RC(gsvd_dtype_parse(s, &dt), GSVD_OK);
    return dt;
}

/* Compare every field of two parsed arrays; 1 when equal.  Logs the first difference. */
static inline int same_zarray(const struct gsvd_zarray *a, const struct gsvd_zarray *b)
{
    struct gsvd_buf ca = GSVD_BUF_INIT, fa = GSVD_BUF_INIT, cb = GSVD_BUF_INIT, fb = GSVD_BUF_INIT;
    const char *why = NULL;

    if (a->ndim != b->ndim)
        why = "ndim";
    else if (memcmp(a->shape, b->shape, a->ndim * sizeof *a->shape) != 0)
        why = "shape";
    else if (memcmp(a->chunks, b->chunks, a->ndim * sizeof *a->chunks) != 0)
        why = "chunks";
    else if (memcmp(a->grid, b->grid, a->ndim * sizeof *a->grid) != 0)
        why = "grid";
    else if (a->dtype.kind != b->dtype.kind || a->dtype.byteorder != b->dtype.byteorder ||
             a->dtype.size != b->dtype.size)
        why = "dtype";
    else if (a->order != b->order)
        why = "order";
    else if (a->sep != b->sep)
        why = "sep";
    else if (a->chunk_items != b->chunk_items || a->chunk_bytes != b->chunk_bytes)
        why = "chunk_items/chunk_bytes";
    else if (a->has_fill != b->has_fill)
        why = "has_fill";
    else if ((a->fill == NULL) != (b->fill == NULL) ||
             (a->fill && memcmp(a->fill, b->fill, a->dtype.size) != 0))
        why = "fill";
    else if ((a->fill_str == NULL) != (b->fill_str == NULL) ||
             (a->fill_str && strcmp(a->fill_str, b->fill_str) != 0))
        why = "fill_str";
    else if (!a->codecs || !b->codecs || gsvd_codec_chain_to_json(a->codecs, &ca, &fa) < 0 ||
             gsvd_codec_chain_to_json(b->codecs, &cb, &fb) < 0 || ca.len != cb.len ||
             fa.len != fb.len || (ca.len && memcmp(ca.data, cb.data, ca.len) != 0) ||
             (fa.len && memcmp(fa.data, fb.data, fa.len) != 0))
        why = "codecs";
    if (why) {
        char ts[32];
        gsvd_dtype_format(&a->dtype, ts, sizeof ts);
        fprintf(stderr, "round trip of a %s array differs in %s\n", ts, why);
    }
    gsvd_buf_free(&ca);
    gsvd_buf_free(&fa);
    gsvd_buf_free(&cb);
    gsvd_buf_free(&fb);
    return why == NULL;
}

/* Emit z, parse the text again, compare; 1 when equal. */
static inline int roundtrip_ok(const struct gsvd_zarray *z)
{
    struct gsvd_buf text = GSVD_BUF_INIT;
    struct gsvd_zarray back;
    int ok = 0;

    memset(&back, 0, sizeof back);
    if (gsvd_zarray_emit(z, &text) == GSVD_OK &&
        gsvd_zarray_parse(text.data, text.len, "emitted/.zarray", &back) == GSVD_OK)
        ok = same_zarray(z, &back);
    else
        fprintf(stderr, "emitted text does not parse:\n%s\n", text.data ? text.data : "");
    gsvd_zarray_clear(&back);
    gsvd_buf_free(&text);
    return ok;
}

static inline int check_object(const char *s)
{
    return gsvd_meta_check_object(s, strlen(s), "t/.zattrs");
}

static inline int zgroup(const char *s)
{
    return gsvd_zgroup_parse(s, strlen(s), "t/.zgroup");
}

static inline int zmeta(const char *s, struct gsvd_strlist *k, struct gsvd_strlist *d)
{
    return gsvd_zmetadata_parse(s, strlen(s), "t/.zmetadata", k, d);
}

static inline int zmeta_rc(const char *s)
{
    struct gsvd_strlist k = GSVD_STRLIST_INIT, d = GSVD_STRLIST_INIT;
    int rc = zmeta(s, &k, &d);

    gsvd_strlist_free(&k);
    gsvd_strlist_free(&d);
    return rc;
}

#endif /* GSVD_TESTS_UNIT_META_UTIL_H */
