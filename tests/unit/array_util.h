/* tests/unit/array_util.h - helpers shared by the zarr/ array tests (test_array, test_writer,
 * test_tree): a scratch directory, a small xorshift generator, reference copies of boxes, store
 * copies and the read-and-compare check.  Each including test program gets its own copy (static
 * state: `tmp`, the generator); include after gsvd_test.h. */
#ifndef GSVD_TESTS_UNIT_ARRAY_UTIL_H
#define GSVD_TESTS_UNIT_ARRAY_UTIL_H
#include "gsvd_config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "tests/gsvd_test.h"
#include "tests/gsvd_test_fs.h"
#include "zarr/array.h"
#include "zarr/codec.h"
#include "zarr/dtype.h"
#include "zarr/meta.h"
#include "zarr/reader.h"
#include "zarr/store.h"
#include "zarr/tree.h"
#include "zarr/writer.h"

static char tmp[4096]; /* scratch directory under $TMPDIR */

/* ---- helpers --------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static inline uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static inline uint64_t rnd_below(uint64_t n)
{
    return n ? rnd() % n : 0;
}

static inline size_t n_items(size_t nd, const uint64_t *shape)
{
    size_t n = 1;
    for (size_t d = 0; d < nd; d++)
        n *= (size_t)shape[d];
    return n;
}

/* Pseudo-random elements (bools 0/1). */
static inline void fill_random(unsigned char *p, size_t n, const struct gsvd_dtype *dt)
{
    for (size_t i = 0; i < n * dt->size; i++)
        p[i] = (unsigned char)(rnd() >> 24);
    if (dt->kind == 'b')
        for (size_t i = 0; i < n; i++)
            p[i] &= 1;
}

/* Copy box (start, count) of a C-order array (shape) into dst, the slow, obvious way. */
static inline void box_ref(const unsigned char *src, size_t nd, const uint64_t *shape, size_t esz,
                           const uint64_t *start, const uint64_t *count, unsigned char *dst)
{
    uint64_t idx[GSVD_MAX_DIMS] = {0};
    size_t total = n_items(nd, count);

    for (size_t i = 0; i < total; i++) {
        size_t off = 0;
        for (size_t d = 0; d < nd; d++)
            off = off * (size_t)shape[d] + (size_t)(start[d] + idx[d]);
        memcpy(dst + i * esz, src + off * esz, esz);
        for (size_t d = nd; d-- > 0;) {
            if (++idx[d] < count[d])
                break;
            idx[d] = 0;
        }
    }
}

static inline struct gsvd_dtype dtype_of(const char *s)
{
    struct gsvd_dtype dt = {0, 0, 0};

    GSVD_CHECK_RC(gsvd_dtype_parse(s, &dt), GSVD_OK);
    return dt;
}

/* Entries of tmp (not . and ..). */
static inline int count_tmp_entries(void)
{
    DIR *d = opendir(tmp);
    struct dirent *e;
    int n = 0;

    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    if (d)
        closedir(d);
    return n;
}

/* Copy every key under prefix of src into dst (file store -> mem store). */
static inline int copy_store(gsvd_store *src, gsvd_store *dst, const char *prefix)
{
    struct gsvd_strlist names = GSVD_STRLIST_INIT;
    struct gsvd_buf b = GSVD_BUF_INIT;
    char *key = NULL;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_store_list(src, prefix, &names));
    for (size_t i = 0; i < names.n; i++) {
        gsvd_free(key);
        GSVD_TRY(gsvd_key_join(prefix, names.items[i], &key));
        rc = gsvd_store_get(src, key, &b);
        if (rc == GSVD_EFORMAT) /* a directory */
            rc = copy_store(src, dst, key);
        else if (rc == GSVD_OK)
            rc = gsvd_store_put(dst, key, b.data, b.len);
        if (rc < 0)
            goto out;
    }
out:
    gsvd_free(key);
    gsvd_buf_free(&b);
    gsvd_strlist_free(&names);
    return rc;
}

static inline gsvd_store *mem_store(void)
{
    gsvd_store *st = NULL;

    GSVD_CHECK_RC(gsvd_store_open("mem:test", GSVD_STORE_WRITE, &st), GSVD_OK);
    return st;
}

static inline int put_text(gsvd_store *st, const char *key, const char *text)
{
    return gsvd_store_put(st, key, text, strlen(text));
}

/* ---- reading an array and comparing with its source ------------------------------------ */

/* gsvd_reader_visit's pieces placed element by element (not through ndcopy) into a region
 * buffer, counting how often each element is written: the pieces must tile the region. */
struct visit_check {
    unsigned char *dst;
    unsigned *hits;
    const uint64_t *count;
    size_t nd, esz, pieces, stop_after;
};

static inline int visit_place(void *ctx, const struct gsvd_reader_piece *p)
{
    struct visit_check *v = ctx;
    size_t n = n_items(v->nd, p->ext);
    if (v->stop_after && v->pieces == v->stop_after)
        return GSVD_EIO;
    v->pieces++;
    for (size_t e = 0; e < n; e++) {
        size_t rem = e, at_c = 0, at_d = 0;
        for (size_t d = v->nd; d-- > 0;) { /* e's coordinates, last axis fastest */
            size_t i = rem % p->ext[d];
            rem /= p->ext[d];
            size_t sc = 1, sd = 1;
            for (size_t q = d + 1; q < v->nd; q++) {
                sc *= p->chunk_shape[q];
                sd *= v->count[q];
            }
            at_c += (p->corg[d] + i) * sc;
            at_d += (p->dorg[d] + i) * sd;
        }
        memcpy(v->dst + at_d * v->esz, p->chunk + at_c * v->esz, v->esz);
        v->hits[at_d]++;
    }
    return GSVD_OK;
}

/* Visit the region and compare with want (n elements); then stop a visit at its second piece. */
static inline void check_visit(gsvd_reader *r, const uint64_t *start, const uint64_t *count,
                               const unsigned char *want, size_t n)
{
    const struct gsvd_zarray *z = gsvd_array_meta(gsvd_reader_array(r));
    struct visit_check v = {gsvd_malloc(n * z->dtype.size + 1),
                            gsvd_calloc(n + 1, sizeof(unsigned)),
                            count,
                            z->ndim,
                            z->dtype.size,
                            0,
                            0};
    int ok = 1;
    if (!v.dst || !v.hits)
        goto out;
    GSVD_CHECK_RC(gsvd_reader_visit(r, start, count, visit_place, &v), GSVD_OK);
    for (size_t e = 0; e < n; e++)
        ok &= v.hits[e] == 1;
    GSVD_CHECK(ok);
    GSVD_CHECK(n == 0 || memcmp(v.dst, want, n * v.esz) == 0);
    if (z->ndim > 0) { /* regions that leave the array: refused before any piece, as read's */
        uint64_t bs[GSVD_MAX_DIMS], bc[GSVD_MAX_DIMS];
        size_t before = v.pieces;
        memcpy(bs, start, z->ndim * sizeof *bs);
        memcpy(bc, count, z->ndim * sizeof *bc);
        bs[0] = z->shape[0];
        bc[0] = 1;
        GSVD_CHECK_RC(gsvd_reader_visit(r, bs, bc, visit_place, &v), GSVD_EINVAL);
        bs[0] = 1;
        bc[0] = UINT64_MAX; /* start + count wraps */
        GSVD_CHECK_RC(gsvd_reader_visit(r, bs, bc, visit_place, &v), GSVD_EINVAL);
        GSVD_CHECK(v.pieces == before);
    }
    if (v.pieces >= 2) { /* the callback's error ends the visit */
        v.stop_after = 1;
        v.pieces = 0;
        GSVD_CHECK_RC(gsvd_reader_visit(r, start, count, visit_place, &v), GSVD_EIO);
        GSVD_CHECK(v.pieces == 1);
    }
out:
    gsvd_free(v.dst);
    gsvd_free(v.hits);
}

/* Read all of `a` and random boxes and row ranges; compare with src (C order); visit the
 * boxes too. */
static inline void check_reads(gsvd_array *a, const unsigned char *src)
{
    const struct gsvd_zarray *z = gsvd_array_meta(a);
    size_t nd = z->ndim, esz = z->dtype.size, total = n_items(nd, z->shape);
    uint64_t start[GSVD_MAX_DIMS] = {0}, count[GSVD_MAX_DIMS];
    unsigned char *got = gsvd_malloc(total * esz + 1), *want = gsvd_malloc(total * esz + 1);
    gsvd_reader *r = NULL;

    GSVD_CHECK_RC(gsvd_reader_new(a, &r), GSVD_OK);
    if (!r || !got || !want)
        goto out;
    GSVD_CHECK(gsvd_reader_array(r) == a);
    memcpy(count, z->shape, nd * sizeof *count);
    GSVD_CHECK_RC(gsvd_reader_read(r, start, count, got), GSVD_OK);
    GSVD_CHECK(total == 0 || memcmp(got, src, total * esz) == 0);

    for (int k = 0; k < 25; k++) {
        size_t n;
        for (size_t d = 0; d < nd; d++) {
            start[d] = rnd_below(z->shape[d] + 1);
            count[d] = rnd_below(z->shape[d] - start[d] + 1);
        }
        n = n_items(nd, count);
        memset(got, 0xa5, n * esz);
        GSVD_CHECK_RC(gsvd_reader_read(r, start, count, got), GSVD_OK);
        box_ref(src, nd, z->shape, esz, start, count, want);
        if (n && memcmp(got, want, n * esz) != 0) {
            fprintf(stderr, "region read differs (%s, box %d)\n", gsvd_array_name(a), k);
            GSVD_CHECK(0);
        }
        if (z->dtype.kind != 'O')
            check_visit(r, start, count, want, n);
    }
    if (nd > 0) {
        size_t row_bytes = total && z->shape[0] ? total / (size_t)z->shape[0] * esz : 0;
        for (int k = 0; k < 6; k++) {
            uint64_t row = rnd_below(z->shape[0] + 1);
            uint64_t n_rows = rnd_below(z->shape[0] - row + 1);
            GSVD_CHECK_RC(gsvd_reader_read_rows(r, row, n_rows, got), GSVD_OK);
            GSVD_CHECK(n_rows == 0 ||
                       memcmp(got, src + row * row_bytes, (size_t)n_rows * row_bytes) == 0);
        }
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, z->shape[0], 1, got), GSVD_EINVAL);
        /* regions that leave the array */
        memcpy(count, z->shape, nd * sizeof *count);
        memset(start, 0, sizeof start);
        count[nd - 1]++;
        GSVD_CHECK_RC(gsvd_reader_read(r, start, count, got), GSVD_EINVAL);
        count[nd - 1]--;
        start[0] = z->shape[0] + 1;
        count[0] = 0;
        GSVD_CHECK_RC(gsvd_reader_read(r, start, count, got), GSVD_EINVAL);
        start[0] = UINT64_MAX;
        count[0] = 2;
        GSVD_CHECK_RC(gsvd_reader_read(r, start, count, got), GSVD_EINVAL);
    }
out:
    gsvd_reader_free(r);
    gsvd_free(got);
    gsvd_free(want);
}

/* Common start of the array tests' main: `-v` shows the logs of the error paths (quiet
 * otherwise); makes the scratch directory `tmp` under $TMPDIR.  0, or the exit status. */
static inline int array_test_begin(const char *name, int argc, char **argv)
{
    const char *base = getenv("TMPDIR");

    if (argc > 1 && strcmp(argv[1], "-v") != 0) {
        fprintf(stderr, "usage: %s [-v]\n", name);
        return 2;
    }
    gsvd_log_set_level(argc > 1 ? GSVD_LOG_DEBUG : GSVD_LOG_OFF);
    snprintf(tmp, sizeof tmp, "%s/%s.XXXXXX", base && *base ? base : "/tmp", name);
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "%s: cannot create %s: %s\n", name, tmp, strerror(errno));
        return 1;
    }
    return 0;
}

#endif /* GSVD_TESTS_UNIT_ARRAY_UTIL_H */
