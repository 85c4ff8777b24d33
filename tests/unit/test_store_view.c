/* tests/unit/test_store_view.c - the view store (zarr/store_view.h) read through the tree and
 * the reader, against the arrays it serves, element by element: a C-order int8 genotype
 * array cut into chunk rows (edge chunk included), the same values in a Fortran-order buffer
 * (strided), a reversed axis (negative stride), strings (vlen-utf8), a chunk callback and a
 * failing one; and the bad descriptions it refuses. */
#include "gsvd_config.h"

#include <string.h>

#include "common/err.h"
#include "gsvd_test.h"
#include "zarr/array.h"
#include "zarr/reader.h"
#include "zarr/store_view.h"
#include "zarr/tree.h"

enum { V = 7, S = 5, P = 2 };

static int8_t value(size_t v, size_t s, size_t p)
{
    return (int8_t)((v * 31 + s * 7 + p * 3) % 5) - 1; /* -1 .. 3 */
}

/* Read the whole array `name` of t into dst (C order). */
static int read_all(gsvd_tree *t, const char *name, void *dst)
{
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    uint64_t start[3] = {0, 0, 0};
    int rc = gsvd_array_open(t, name, &a);
    if (rc == GSVD_OK)
        rc = gsvd_reader_new(a, &r);
    if (rc == GSVD_OK)
        rc = gsvd_reader_read(r, start, gsvd_array_meta(a)->shape, dst);
    gsvd_reader_free(r);
    gsvd_array_close(a);
    return rc;
}

static int chunk_fn(void *user, const uint64_t *idx, void *dst, size_t dst_bytes)
{
    int16_t *d = dst;
    (void)user;
    for (size_t i = 0; i < dst_bytes / sizeof *d; i++) /* chunks of 4 x 3 */
        d[i] = (int16_t)(1000 * idx[0] + 100 * idx[1] + (int16_t)i);
    return 0;
}

static int failing_fn(void *user, const uint64_t *idx, void *dst, size_t dst_bytes)
{
    (void)user;
    (void)idx;
    (void)dst;
    (void)dst_bytes;
    return 7;
}

int main(void)
{
    static int8_t c_order[V][S][P], f_order[P][S][V], got[V][S][P];
    const char *ids[S] = {"a", "bb", "", "dd\xc3\xa9", "e"};
    int16_t called[10][5];
    struct gsvd_strlist names = GSVD_STRLIST_INIT;
    gsvd_store *st = NULL;
    gsvd_tree *t = NULL;

    gsvd_log_set_level(GSVD_LOG_OFF);
    for (size_t v = 0; v < V; v++)
        for (size_t s = 0; s < S; s++)
            for (size_t p = 0; p < P; p++)
                c_order[v][s][p] = f_order[p][s][v] = value(v, s, p);
    {
        struct gsvd_view_array arrays[5] = {
            {.name = "call_genotype",
             .dtype = {'i', '|', 1},
             .ndim = 3,
             .shape = {V, S, P},
             .chunks = {3, S, P},
             .dims = {"variants", "samples", "ploidy"},
             .data = c_order,
             .strides = {S * P, P, 1}},
            {.name = "f/call_genotype", /* Fortran order: strides grow along the axes */
             .dtype = {'i', '|', 1},
             .ndim = 3,
             .shape = {V, S, P},
             .chunks = {2, 2, P},
             .data = f_order,
             .strides = {1, V, V * S}},
            {.name = "rev", /* the variants reversed: a negative stride */
             .dtype = {'i', '|', 1},
             .ndim = 3,
             .shape = {V, S, P},
             .chunks = {4, S, P},
             .data = &c_order[V - 1][0][0],
             .strides = {-(int64_t)(S * P), P, 1}},
            {.name = "sample_id",
             .dtype = {'O', '|', sizeof(char *)},
             .ndim = 1,
             .shape = {S},
             .chunks = {2},
             .data = ids,
             .strides = {sizeof(char *)}},
            {.name = "called",
             .dtype = {'i', '<', 2},
             .ndim = 2,
             .shape = {10, 5},
             .chunks = {4, 3},
             .fn = chunk_fn}};
        GSVD_CHECK_RC(gsvd_store_view_open(NULL, arrays, 5, &st), GSVD_OK);
    }
    GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
    GSVD_CHECK(gsvd_tree_is_consolidated(t));
    GSVD_CHECK(strcmp(gsvd_store_url(st), "memory") == 0);
    GSVD_CHECK_RC(gsvd_tree_node_kind(t, "f"), GSVD_NODE_GROUP);
    GSVD_CHECK_RC(gsvd_tree_node_kind(t, "call_genotype"), GSVD_NODE_ARRAY);

    memset(got, 0x55, sizeof got);
    GSVD_CHECK_RC(read_all(t, "call_genotype", got), GSVD_OK);
    GSVD_CHECK(memcmp(got, c_order, sizeof got) == 0);
    memset(got, 0x55, sizeof got);
    GSVD_CHECK_RC(read_all(t, "f/call_genotype", got), GSVD_OK);
    GSVD_CHECK(memcmp(got, c_order, sizeof got) == 0);
    memset(got, 0x55, sizeof got);
    GSVD_CHECK_RC(read_all(t, "rev", got), GSVD_OK);
    for (size_t v = 0; v < V; v++)
        GSVD_CHECK(memcmp(got[v], c_order[V - 1 - v], sizeof got[v]) == 0);

    {
        gsvd_array *a = NULL;
        gsvd_reader *r = NULL;
        GSVD_CHECK_RC(gsvd_array_open(t, "sample_id", &a), GSVD_OK);
        GSVD_CHECK_RC(gsvd_reader_new(a, &r), GSVD_OK);
        GSVD_CHECK_RC(gsvd_reader_read_strings(r, 0, S, &names), GSVD_OK);
        GSVD_CHECK(names.n == S);
        for (size_t i = 0; i < names.n && i < S; i++)
            GSVD_CHECK(strcmp(names.items[i], ids[i]) == 0);
        gsvd_reader_free(r);
        gsvd_array_close(a);
    }

    GSVD_CHECK_RC(read_all(t, "called", called), GSVD_OK);
    for (size_t i = 0; i < 10; i++)
        for (size_t j = 0; j < 5; j++) /* element (i % 4, j % 3) of chunk (i / 4, j / 3) */
            GSVD_CHECK(called[i][j] ==
                       (int16_t)(1000 * (i / 4) + 100 * (j / 3) + (int16_t)((i % 4) * 3 + j % 3)));
    gsvd_tree_close(t);
    gsvd_store_close(st);
    t = NULL;
    st = NULL;

    { /* a failing callback fails the read with GSVD_EIO */
        struct gsvd_view_array bad = {.name = "x",
                                      .dtype = {'f', '<', 8},
                                      .ndim = 1,
                                      .shape = {10},
                                      .chunks = {4},
                                      .fn = failing_fn};
        double buf[10];
        GSVD_CHECK_RC(gsvd_store_view_open("callbacks", &bad, 1, &st), GSVD_OK);
        GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
        GSVD_CHECK_RC(read_all(t, "x", buf), GSVD_EIO);
        gsvd_tree_close(t);
        gsvd_store_close(st);
        st = NULL;
    }
    { /* refused descriptions */
        int8_t one = 0;
        struct gsvd_view_array d = {.name = "x",
                                    .dtype = {'i', '|', 1},
                                    .ndim = 1,
                                    .shape = {1},
                                    .chunks = {1},
                                    .data = &one,
                                    .strides = {1}};
        struct gsvd_view_array two[2] = {d, d};
        GSVD_CHECK_RC(gsvd_store_view_open(NULL, two, 2, &st), GSVD_EINVAL); /* a name twice */
        d.name = "../x";
        GSVD_CHECK_RC(gsvd_store_view_open(NULL, &d, 1, &st), GSVD_EINVAL);
        d.name = "x";
        d.chunks[0] = 0;
        GSVD_CHECK_RC(gsvd_store_view_open(NULL, &d, 1, &st), GSVD_EINVAL);
        d.chunks[0] = 1;
        d.dtype.kind = 'c';
        GSVD_CHECK_RC(gsvd_store_view_open(NULL, &d, 1, &st), GSVD_EINVAL);
        d.dtype.kind = 'i';
        d.fn = chunk_fn; /* data and a callback */
        GSVD_CHECK_RC(gsvd_store_view_open(NULL, &d, 1, &st), GSVD_EINVAL);
        GSVD_CHECK(st == NULL);
    }
    gsvd_strlist_free(&names);
    return gsvd_test_report("test_store_view");
}
