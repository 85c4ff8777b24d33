/* analysis/scan/variant_ids.c - contig, position and alleles of a variant range (variant_ids.h). */
#include "gsvd_config.h"
#include "analysis/scan/variant_ids.h"

#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/array.h"
#include "zarr/dtype.h"
#include "zarr/reader.h"
#include "zarr/store.h"

void gsvd_variant_ids_free(struct gsvd_variant_ids *v)
{
    if (!v)
        return;
    gsvd_strlist_free(&v->contig);
    gsvd_strlist_free(&v->alleles);
    gsvd_strlist_free(&v->name);
    gsvd_free(v->pos);
    memset(v, 0, sizeof *v);
}

static const char *const names[] = {"variant_contig", "contig_id", "variant_position",
                                    "variant_allele"};

int gsvd_variant_ids_present(gsvd_tree *t, const char *node)
{
    for (size_t i = 0; i < GSVD_ARRAY_LEN(names); i++) {
        char *path = NULL;
        int rc = gsvd_key_join(node, names[i], &path), kind;
        if (rc < 0)
            return rc;
        kind = gsvd_tree_node_kind(t, path);
        gsvd_free(path);
        if (kind < 0)
            return kind;
        if (kind != GSVD_NODE_ARRAY)
            return 0;
    }
    return 1;
}

/* Open array `name` of group `node` with rank `ndim`, or log what is wrong. */
static int open_array(gsvd_tree *t, const char *node, const char *name, size_t ndim,
                      gsvd_array **out)
{
    char *path = NULL;
    int rc = GSVD_OK, kind;

    *out = NULL;
    GSVD_TRY(gsvd_key_join(node, name, &path));
    kind = gsvd_tree_node_kind(t, path);
    if (kind < 0) {
        rc = kind;
        goto out;
    }
    if (kind != GSVD_NODE_ARRAY) {
        gsvd_log_error("%s: no array '%s' (variants are matched by variant_contig, contig_id, "
                       "variant_position and variant_allele, as VCF-Zarr stores them)",
                       gsvd_store_url(gsvd_tree_store(t)), path);
        rc = GSVD_ENOTFOUND;
        goto out;
    }
    GSVD_TRY(gsvd_array_open(t, path, out));
    if (gsvd_array_meta(*out)->ndim != ndim) {
        gsvd_log_error("%s: expected a %zu-D array", gsvd_array_name(*out), ndim);
        rc = GSVD_EFORMAT;
    }
out:
    if (rc < 0) {
        gsvd_array_close(*out);
        *out = NULL;
    }
    gsvd_free(path);
    return rc;
}

static int read_i64(gsvd_array *a, uint64_t start, uint64_t stop, int64_t *dst)
{
    const struct gsvd_zarray *z = gsvd_array_meta(a);
    gsvd_reader *r = NULL;
    unsigned char *raw = NULL;
    uint64_t count = stop - start;
    int rc = GSVD_OK;

    if (z->ndim != 1 || !strchr("iu", z->dtype.kind) || z->shape[0] < stop) {
        gsvd_log_error("%s: expected a 1-D integer array of at least %llu elements",
                       gsvd_array_name(a), (unsigned long long)stop);
        return GSVD_EFORMAT;
    }
    if (count == 0)
        return GSVD_OK;
    if (!(raw = gsvd_malloc((size_t)count * z->dtype.size))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_reader_new(a, &r));
    GSVD_TRY(gsvd_reader_read(r, &start, &count, raw));
    for (uint64_t i = 0; i < count; i++)
        dst[i] = gsvd_dtype_elem_i64(&z->dtype, raw + i * z->dtype.size);
out:
    gsvd_reader_free(r);
    gsvd_free(raw);
    return rc;
}

int gsvd_variant_ids_read_strings(gsvd_tree *t, const char *path, const char *what,
                                  struct gsvd_strlist *out)
{
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    const struct gsvd_zarray *z;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_array_open(t, path, &a));
    z = gsvd_array_meta(a);
    if (z->ndim != 1 || !strchr("OSU", z->dtype.kind)) {
        gsvd_log_error("%s: expected a 1-D array of strings (%s)", gsvd_array_name(a), what);
        rc = GSVD_EFORMAT;
        goto out;
    }
    GSVD_TRY(gsvd_reader_new(a, &r));
    GSVD_TRY(gsvd_reader_read_strings(r, 0, z->shape[0], out));
out:
    gsvd_reader_free(r);
    gsvd_array_close(a);
    return rc;
}

int gsvd_variant_ids_read_i64(gsvd_tree *t, const char *path, uint64_t start, uint64_t stop,
                              int64_t *dst)
{
    gsvd_array *a = NULL;
    int rc = gsvd_array_open(t, path, &a);
    if (rc == GSVD_OK)
        rc = read_i64(a, start, stop, dst);
    gsvd_array_close(a);
    return rc;
}

/* Append the UTF-8 encoding of code point c. */
static int put_utf8(struct gsvd_buf *b, uint32_t c)
{
    char s[5] = {0};
    if (c < 0x80) {
        s[0] = (char)c;
    } else if (c < 0x800) {
        s[0] = (char)(0xc0 | c >> 6);
        s[1] = (char)(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        s[0] = (char)(0xe0 | c >> 12);
        s[1] = (char)(0x80 | (c >> 6 & 0x3f));
        s[2] = (char)(0x80 | (c & 0x3f));
    } else {
        s[0] = (char)(0xf0 | (c >> 18 & 0x07));
        s[1] = (char)(0x80 | (c >> 12 & 0x3f));
        s[2] = (char)(0x80 | (c >> 6 & 0x3f));
        s[3] = (char)(0x80 | (c & 0x3f));
    }
    return gsvd_buf_puts(b, s);
}

/* The alleles of rows [start, stop) of a 2-D string array ('O', 'S' or 'U'), comma-joined. */
static int read_alleles(gsvd_array *a, uint64_t start, uint64_t stop, struct gsvd_strlist *out)
{
    const struct gsvd_zarray *z = gsvd_array_meta(a);
    gsvd_reader *r = NULL;
    struct gsvd_strlist obj = GSVD_STRLIST_INIT;
    struct gsvd_buf join = GSVD_BUF_INIT;
    unsigned char *raw = NULL;
    uint64_t lo[2] = {start, 0}, cnt[2] = {stop - start, 0};
    size_t na, esz = z->dtype.size;
    int rc = GSVD_OK;

    if (!strchr("OSU", z->dtype.kind) || z->shape[0] < stop || z->shape[1] == 0 ||
        z->shape[1] > 1024) {
        gsvd_log_error("%s: expected a variants x alleles array of strings with at least %llu "
                       "rows",
                       gsvd_array_name(a), (unsigned long long)stop);
        return GSVD_EFORMAT;
    }
    na = (size_t)z->shape[1];
    cnt[1] = na;
    GSVD_TRY(gsvd_reader_new(a, &r));
    if (cnt[0] == 0)
        goto out;
    if (z->dtype.kind == 'O') {
        GSVD_TRY(gsvd_reader_read_objects(r, lo, cnt, &obj));
    } else {
        size_t bytes;
        GSVD_TRY(gsvd_mul_size((size_t)cnt[0] * na, esz, &bytes));
        if (!(raw = gsvd_malloc(bytes))) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        GSVD_TRY(gsvd_reader_read(r, lo, cnt, raw));
    }
    for (uint64_t v = 0; v < cnt[0]; v++) {
        size_t used = 0;
        gsvd_buf_clear(&join);
        GSVD_TRY(gsvd_buf_puts(&join, ""));
        for (size_t j = 0; j < na; j++) {
            size_t mark = join.len;
            if (used)
                GSVD_TRY(gsvd_buf_puts(&join, ","));
            if (z->dtype.kind == 'O') {
                GSVD_TRY(gsvd_buf_puts(&join, obj.items[v * na + j]));
            } else if (z->dtype.kind == 'S') {
                const unsigned char *e = raw + (v * na + j) * esz;
                size_t len = 0;
                while (len < esz && e[len])
                    len++;
                GSVD_TRY(gsvd_buf_append(&join, e, len));
            } else {
                const unsigned char *e = raw + (v * na + j) * esz;
                for (size_t c = 0; c + 4 <= esz; c += 4) {
                    uint32_t cp;
                    memcpy(&cp, e + c, 4);
                    if (!cp)
                        break;
                    GSVD_TRY(put_utf8(&join, cp));
                }
            }
            if (join.len == mark + (used ? 1 : 0)) /* empty slot: no allele */
                join.len = mark;
            else
                used++;
        }
        GSVD_TRY(gsvd_buf_append(&join, "", 1));
        GSVD_TRY(gsvd_strlist_push(out, join.data));
    }
out:
    gsvd_strlist_free(&obj);
    gsvd_buf_free(&join);
    gsvd_free(raw);
    gsvd_reader_free(r);
    return rc;
}

int gsvd_variant_ids_read(gsvd_tree *t, const char *node, uint64_t start, uint64_t stop,
                          struct gsvd_variant_ids *out)
{
    gsvd_array *a[4] = {NULL, NULL, NULL, NULL};
    gsvd_reader *r = NULL;
    struct gsvd_strlist cid = GSVD_STRLIST_INIT;
    int64_t *ci = NULL;
    uint64_t n = stop - start;
    int rc = GSVD_OK;

    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < 4; i++)
        GSVD_TRY(open_array(t, node, names[i], i == 3 ? 2 : 1, &a[i]));
    GSVD_TRY(gsvd_reader_new(a[1], &r));
    if (!strchr("OSU", gsvd_array_meta(a[1])->dtype.kind)) {
        gsvd_log_error("%s: expected an array of strings", gsvd_array_name(a[1]));
        rc = GSVD_EFORMAT;
        goto out;
    }
    GSVD_TRY(gsvd_reader_read_strings(r, 0, gsvd_array_meta(a[1])->shape[0], &cid));
    out->pos = gsvd_malloc((size_t)(n ? n : 1) * sizeof *out->pos);
    ci = gsvd_malloc((size_t)(n ? n : 1) * sizeof *ci);
    if (!out->pos || !ci) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(read_i64(a[0], start, stop, ci));
    GSVD_TRY(read_i64(a[2], start, stop, out->pos));
    for (uint64_t v = 0; v < n; v++) {
        if (ci[v] < 0 || (uint64_t)ci[v] >= cid.n) {
            gsvd_log_error("%s: variant %llu has contig index %lld, outside contig_id (%zu)",
                           gsvd_array_name(a[0]), (unsigned long long)(start + v), (long long)ci[v],
                           cid.n);
            rc = GSVD_EFORMAT;
            goto out;
        }
        GSVD_TRY(gsvd_strlist_push(&out->contig, cid.items[ci[v]]));
    }
    GSVD_TRY(read_alleles(a[3], start, stop, &out->alleles));
    out->n = n;
out:
    if (rc < 0)
        gsvd_variant_ids_free(out);
    gsvd_free(ci);
    gsvd_strlist_free(&cid);
    gsvd_reader_free(r);
    for (size_t i = 0; i < 4; i++)
        gsvd_array_close(a[i]);
    return rc;
}

int gsvd_variant_ids_read_present(gsvd_tree *t, const char *node, uint64_t start, uint64_t stop,
                                  struct gsvd_variant_ids *out)
{
    int rc = gsvd_variant_ids_present(t, node);
    memset(out, 0, sizeof *out);
    if (rc < 0)
        return rc;
    if (rc == 0) {
        gsvd_log_info("%s: no variant_contig, contig_id, variant_position and variant_allele "
                      "arrays: the variant identity is not saved",
                      gsvd_store_url(gsvd_tree_store(t)));
        return GSVD_OK;
    }
    return gsvd_variant_ids_read(t, node, start, stop, out);
}

int gsvd_variant_ids_read_names(gsvd_tree *t, const char *node, uint64_t start,
                                struct gsvd_variant_ids *out)
{
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    char *path = NULL;
    const struct gsvd_zarray *z;
    int rc = GSVD_OK, kind;

    GSVD_TRY(gsvd_key_join(node, "variant_id", &path));
    kind = gsvd_tree_node_kind(t, path);
    if (kind < 0 || kind != GSVD_NODE_ARRAY) {
        rc = kind < 0 ? kind : GSVD_OK;
        goto out;
    }
    GSVD_TRY(gsvd_array_open(t, path, &a));
    z = gsvd_array_meta(a);
    if (z->ndim != 1 || !strchr("OSU", z->dtype.kind) || z->shape[0] < start + out->n) {
        gsvd_log_error("%s: expected a 1-D array of strings with at least %llu names",
                       gsvd_array_name(a), (unsigned long long)(start + out->n));
        rc = GSVD_EFORMAT;
        goto out;
    }
    GSVD_TRY(gsvd_reader_new(a, &r));
    GSVD_TRY(gsvd_reader_read_strings(r, start, out->n, &out->name));
out:
    if (rc < 0)
        gsvd_strlist_free(&out->name);
    gsvd_reader_free(r);
    gsvd_array_close(a);
    gsvd_free(path);
    return rc;
}
