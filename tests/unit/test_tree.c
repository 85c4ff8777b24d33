/* tests/unit/test_tree.c - zarr/tree.h and zarr/array.h on stores written by hand: children,
 * consolidated metadata that disagrees with the store, the documented open errors, corrupt
 * chunks and a chunk key that is a directory. */
#include "gsvd_config.h"

#include "tests/gsvd_test.h"
#include "tests/unit/array_util.h"

/* ---- trees: children, consolidated metadata, open errors ------------------------------------ */

static const char za_i4[] = "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": "
                            "\"<i4\", \"order\": \"C\", \"compressor\": null, \"filters\": null, "
                            "\"fill_value\": 5}";

static int children_are(gsvd_tree *t, const char *path, const char *const *want, size_t n)
{
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    int rc = gsvd_tree_children(t, path, &l), ok = rc == GSVD_OK && l.n == n;

    for (size_t i = 0; ok && i < n; i++)
        ok = strcmp(l.items[i], want[i]) == 0;
    if (!ok) {
        fprintf(stderr, "children of '%s' (rc %d):", path, rc);
        for (size_t i = 0; i < l.n; i++)
            fprintf(stderr, " '%s'", l.items[i]);
        fprintf(stderr, "\n");
    }
    gsvd_strlist_free(&l);
    return ok;
}

static void test_trees(void)
{
    static const char *const top[] = {"alpha", "zeta"};
    static const char *const in_alpha[] = {"inner"};
    gsvd_store *st = mem_store();
    gsvd_tree *t = NULL;
    gsvd_array *a = NULL;
    struct gsvd_buf b = GSVD_BUF_INIT;
    struct gsvd_strlist l = GSVD_STRLIST_INIT;

    if (!st)
        return;
    /* listing: groups and arrays only, sorted; metadata files, hidden entries and plain keys
     * are no children */
    GSVD_CHECK_RC(put_text(st, ".zgroup", "{\"zarr_format\": 2}"), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, ".zattrs", "{\"a\": 1}"), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "zeta/.zarray", za_i4), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "zeta/0", "\1\0\0\0\2\0\0\0", 8), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "alpha/.zgroup", "{\"zarr_format\": 2}"), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "alpha/inner/.zarray", za_i4), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "alpha/inner/.zattrs", "{\"_ARRAY_DIMENSIONS\": [\"x\"]}"), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "plain/data", "x"), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, ".hidden/.zgroup", "{\"zarr_format\": 2}"), GSVD_OK);
    GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
    if (!t)
        goto out;
    GSVD_CHECK(gsvd_tree_is_consolidated(t) == 0);
    GSVD_CHECK(children_are(t, "", top, 2));
    GSVD_CHECK(children_are(t, "alpha", in_alpha, 1));
    GSVD_CHECK(children_are(t, "alpha/inner", NULL, 0));
    GSVD_CHECK(children_are(t, "nope", NULL, 0));
    GSVD_CHECK(gsvd_tree_node_kind(t, "alpha") == GSVD_NODE_GROUP);
    GSVD_CHECK(gsvd_tree_node_kind(t, "alpha/inner") == GSVD_NODE_ARRAY);
    GSVD_CHECK(gsvd_tree_node_kind(t, "plain") == GSVD_NODE_NONE);
    GSVD_CHECK_RC(gsvd_tree_get_meta(t, "zeta/.zarray", &b), GSVD_OK);
    GSVD_CHECK(b.len == strlen(za_i4));
    GSVD_CHECK_RC(gsvd_tree_get_meta(t, "nope/.zarray", &b), GSVD_ENOTFOUND);
    /* gsvd_array_open: no array there */
    GSVD_CHECK_RC(gsvd_array_open(t, "alpha", &a), GSVD_ENOTFOUND);
    GSVD_CHECK(a == NULL);
    GSVD_CHECK_RC(gsvd_array_open(t, "nope", &a), GSVD_ENOTFOUND);
    GSVD_CHECK_RC(gsvd_array_open(t, "../zeta", &a), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_array_open(t, "zeta/", &a), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_array_open(t, "alpha/inner", &a), GSVD_OK);
    if (a) {
        GSVD_CHECK_RC(gsvd_array_dim_names(a, &l), GSVD_OK);
        GSVD_CHECK(l.n == 1 && strcmp(l.items[0], "x") == 0);
        GSVD_CHECK(strcmp(gsvd_array_name(a), "mem:test/alpha/inner") == 0);
        gsvd_strlist_free(&l);
    }
    gsvd_array_close(a);
    a = NULL;
    GSVD_CHECK_RC(gsvd_array_open(t, "zeta", &a), GSVD_OK);
    if (a) {
        int32_t v[4];
        gsvd_reader *r = NULL;
        GSVD_CHECK_RC(gsvd_array_dim_names(a, &l), GSVD_OK); /* no .zattrs: nothing */
        GSVD_CHECK(l.n == 0);
        GSVD_CHECK_RC(gsvd_reader_new(a, &r), GSVD_OK);
        if (r)
            GSVD_CHECK_RC(gsvd_reader_read_rows(r, 0, 4, v), GSVD_OK);
        GSVD_CHECK(v[0] == 1 && v[1] == 2 && v[2] == 5 && v[3] == 5); /* chunk 1: fill */
        GSVD_CHECK_RC(gsvd_reader_read_strings(r, 0, 1, &l), GSVD_EINCONSIST);
        gsvd_reader_free(r);
    }
    gsvd_array_close(a);
    a = NULL;
    gsvd_tree_close(t);
    t = NULL;
    gsvd_store_close(st);

    /* consolidated: .zmetadata is authoritative for metadata and children */
    st = mem_store();
    if (!st)
        goto out;
    GSVD_CHECK_RC(put_text(st, ".zgroup", "{\"zarr_format\": 2}"), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "a/.zarray", za_i4), GSVD_OK); /* shape [4]; .zmetadata says 6 */
    GSVD_CHECK_RC(put_text(st, "c/.zarray", za_i4), GSVD_OK); /* not in .zmetadata */
    GSVD_CHECK_RC(
        put_text(
            st, ".zmetadata",
            "{\"metadata\": {\".zgroup\": {\"zarr_format\": 2}, \"a/.zarray\": {\"zarr_format\": "
            "2, \"shape\": [6], \"chunks\": [2], \"dtype\": \"<i4\", \"order\": \"C\", "
            "\"compressor\": null, \"filters\": null, \"fill_value\": 5}, \"g/.zgroup\": "
            "{\"zarr_format\": 2}, \"g/b/.zarray\": {}, \"g/b/.zattrs\": {}, \"g/.zattrs\": "
            "{}}, \"zarr_consolidated_format\": 1}"),
        GSVD_OK);
    GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
    if (!t)
        goto out;
    {
        static const char *const want_top[] = {"a", "g"};
        static const char *const want_g[] = {"b"};
        GSVD_CHECK(gsvd_tree_is_consolidated(t) == 1);
        GSVD_CHECK(children_are(t, "", want_top, 2));
        GSVD_CHECK(children_are(t, "g", want_g, 1));
        GSVD_CHECK(children_are(t, "g/b", NULL, 0));
        GSVD_CHECK(gsvd_tree_node_kind(t, "c") == GSVD_NODE_NONE);
        GSVD_CHECK(gsvd_tree_node_kind(t, "g/b") == GSVD_NODE_ARRAY);
        GSVD_CHECK_RC(gsvd_tree_get_meta(t, "c/.zarray", &b), GSVD_ENOTFOUND);
        GSVD_CHECK_RC(gsvd_tree_get_meta(t, "g/.zattrs", &b), GSVD_OK);
        GSVD_CHECK(b.len == 2 && memcmp(b.data, "{}", 2) == 0);
        GSVD_CHECK_RC(gsvd_array_open(t, "c", &a), GSVD_ENOTFOUND);
        GSVD_CHECK_RC(gsvd_array_open(t, "g/b", &a), GSVD_EFORMAT); /* {} is no .zarray */
        GSVD_CHECK_RC(gsvd_array_open(t, "a", &a), GSVD_OK);
        if (a) {
            int32_t v[6];
            gsvd_reader *r = NULL;
            GSVD_CHECK(gsvd_array_meta(a)->shape[0] == 6);
            GSVD_CHECK_RC(gsvd_reader_new(a, &r), GSVD_OK);
            if (r)
                GSVD_CHECK_RC(gsvd_reader_read_rows(r, 0, 6, v), GSVD_OK); /* all missing */
            GSVD_CHECK(v[0] == 5 && v[5] == 5);
            gsvd_reader_free(r);
        }
    }
out:
    gsvd_strlist_free(&l);
    gsvd_buf_free(&b);
    gsvd_array_close(a);
    gsvd_tree_close(t);
    gsvd_store_close(st);
}

/* gsvd_tree_open / gsvd_array_open on broken hierarchies. */
static void test_open_errors(void)
{
    static const struct {
        const char *key, *text;
        int tree_rc;
        const char *array_path; /* NULL: no array open */
        int array_rc;
    } cases[] = {
        {NULL, NULL, GSVD_EFORMAT, NULL, 0},
        {"zarr.json", "{\"zarr_format\": 3, \"node_type\": \"group\"}", GSVD_OK, NULL, 0},
        {"zarr.json", "{\"zarr_format\": 4, \"node_type\": \"group\"}", GSVD_EUNSUPPORTED, NULL, 0},
        {"zarr.json", "{\"zarr_format\": 3, \"node_type\": \"folder\"}", GSVD_EFORMAT, NULL, 0},
        {"zarr.json", "{\"zarr_format\": 3, \"node_type\": \"group\", \"x\": {}}",
         GSVD_EUNSUPPORTED, NULL, 0},
        {"zarr.json",
         "{\"zarr_format\": 3, \"node_type\": \"group\", \"x\": {\"must_understand\": false}}",
         GSVD_OK, NULL, 0},
        {".zmetadata", "{\"metadata\": ", GSVD_EFORMAT, NULL, 0},
        {".zmetadata", "{\"metadata\": {\"../.zgroup\": {}}, \"zarr_consolidated_format\": 1}",
         GSVD_EFORMAT, NULL, 0},
        {".zmetadata", "{\"metadata\": {}, \"zarr_consolidated_format\": 1}", GSVD_EFORMAT, NULL,
         0},
        {".zarray", "{\"zarr_format\": 2", GSVD_OK, "", GSVD_EFORMAT},
        {".zarray", "{\"zarr_format\": 3, \"shape\": [1]}", GSVD_OK, "", GSVD_EUNSUPPORTED},
        {".zarray",
         "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": \"<c8\", "
         "\"order\": \"C\", \"compressor\": null, \"filters\": null, "
         "\"fill_value\": 0}",
         GSVD_OK, "", GSVD_EUNSUPPORTED},
        {".zattrs", "[1]", GSVD_OK, "", GSVD_EFORMAT}, /* with a good .zarray */
        {".zattrs", "{\"_ARRAY_DIMENSIONS\": [1]}", GSVD_OK, "", GSVD_OK},
    };

    for (size_t i = 0; i < GSVD_ARRAY_LEN(cases); i++) {
        gsvd_store *st = mem_store();
        gsvd_tree *t = (gsvd_tree *)&t;
        gsvd_array *a = NULL;
        struct gsvd_strlist l = GSVD_STRLIST_INIT;

        if (!st)
            return;
        if (cases[i].key && strcmp(cases[i].key, ".zmetadata") == 0)
            GSVD_CHECK_RC(put_text(st, ".zgroup", "{\"zarr_format\": 2}"), GSVD_OK);
        if (cases[i].key && strcmp(cases[i].key, ".zattrs") == 0)
            GSVD_CHECK_RC(put_text(st, ".zarray", za_i4), GSVD_OK);
        if (cases[i].key)
            GSVD_CHECK_RC(put_text(st, cases[i].key, cases[i].text), GSVD_OK);
        GSVD_CHECK_RC(gsvd_tree_open(st, &t), cases[i].tree_rc);
        if (cases[i].tree_rc != GSVD_OK)
            GSVD_CHECK(t == NULL);
        if (t && cases[i].array_path) {
            GSVD_CHECK_RC(gsvd_array_open(t, cases[i].array_path, &a), cases[i].array_rc);
            if (a) /* the last case: _ARRAY_DIMENSIONS of the wrong type */
                GSVD_CHECK_RC(gsvd_array_dim_names(a, &l), GSVD_EFORMAT);
        }
        gsvd_strlist_free(&l);
        gsvd_array_close(a);
        gsvd_tree_close(t);
        gsvd_store_close(st);
    }
}

/* Corrupt and wrong-size chunks: ECODEC naming the chunk; a failed chunk does not poison the
 * reader's cache. */
static void test_corrupt_chunks(void)
{
    gsvd_store *st = mem_store();
    gsvd_tree *t = NULL;
    gsvd_array *a = NULL, *o = NULL;
    gsvd_reader *r = NULL, *ro = NULL;
    struct gsvd_strlist l = GSVD_STRLIST_INIT;

    if (!st)
        return;
    GSVD_CHECK_RC(put_text(st, ".zgroup", "{\"zarr_format\": 2}"), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "z/.zarray",
                           "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": "
                           "\"<i4\", \"order\": \"C\", \"compressor\": {\"id\": \"zlib\", "
                           "\"level\": 1}, \"filters\": null, \"fill_value\": 0}"),
                  GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "z/0", "this is not zlib data"), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "n/.zarray", za_i4), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "n/0", "\1\0\0\0\2\0\0", 7), GSVD_OK); /* 7 of 8 bytes */
    GSVD_CHECK_RC(gsvd_store_put(st, "n/1", "\3\0\0\0\4\0\0\0", 8), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "o/.zarray",
                           "{\"zarr_format\": 2, \"shape\": [2], \"chunks\": [2], \"dtype\": "
                           "\"|O\", \"order\": \"C\", \"compressor\": null, \"filters\": "
                           "[{\"id\": \"vlen-utf8\"}], \"fill_value\": 0}"),
                  GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "o/0", "\2\0\0\0\1\0\0\0a\11\0\0\0b", 14), GSVD_OK);
    GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
    if (!t)
        goto out;
    GSVD_CHECK_RC(gsvd_array_open(t, "z", &a), GSVD_OK);
    if (a && gsvd_reader_new(a, &r) == GSVD_OK) {
        int32_t v[4];
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, 0, 4, v), GSVD_ECODEC);
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, 2, 2, v), GSVD_OK); /* chunk 1 missing: fill */
        GSVD_CHECK(v[0] == 0 && v[1] == 0);
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, 0, 1, v), GSVD_ECODEC); /* again, not cached */
    }
    gsvd_reader_free(r);
    r = NULL;
    gsvd_array_close(a);
    a = NULL;
    GSVD_CHECK_RC(gsvd_array_open(t, "n", &a), GSVD_OK);
    if (a && gsvd_reader_new(a, &r) == GSVD_OK) {
        int32_t v[4];
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, 2, 2, v), GSVD_OK);
        GSVD_CHECK(v[0] == 3 && v[1] == 4);
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, 0, 2, v), GSVD_ECODEC); /* short chunk */
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, 3, 1, v), GSVD_OK);
        GSVD_CHECK(v[0] == 4);
    }
    GSVD_CHECK_RC(gsvd_array_open(t, "o", &o), GSVD_OK);
    if (o && gsvd_reader_new(o, &ro) == GSVD_OK) {
        uint64_t start = 0, count = 2;
        GSVD_CHECK_RC(gsvd_reader_read_objects(ro, &start, &count, &l), GSVD_ECODEC);
    }
out:
    gsvd_strlist_free(&l);
    gsvd_reader_free(r);
    gsvd_reader_free(ro);
    gsvd_array_close(a);
    gsvd_array_close(o);
    gsvd_tree_close(t);
    gsvd_store_close(st);
}

/* A file store whose chunk key is a directory: EFORMAT through the reader. */
static void test_chunk_is_dir(void)
{
    char *url = gsvd_asprintf("%s/dir_chunk.zarr", tmp), *chunk = NULL;
    gsvd_writer *w = NULL;
    gsvd_warray *wa = NULL;
    gsvd_codec_ws *ws = NULL;
    gsvd_store *st = NULL;
    gsvd_tree *t = NULL;
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    struct gsvd_array_spec spec = {0};
    int32_t v[4] = {1, 2, 3, 4};

    spec.path = "x";
    spec.ndim = 1;
    spec.shape[0] = 4;
    spec.chunks[0] = 2;
    spec.dtype = dtype_of("<i4");
    GSVD_CHECK_RC(gsvd_codec_ws_new(&ws), GSVD_OK);
    GSVD_CHECK_RC(gsvd_writer_open(url, 1, &w), GSVD_OK);
    if (!w || !ws)
        goto out;
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wa), GSVD_OK);
    if (wa) {
        GSVD_CHECK_RC(gsvd_warray_write_rows(wa, ws, 0, 2, v), GSVD_OK);
        GSVD_CHECK_RC(gsvd_warray_write_rows(wa, ws, 2, 2, v + 2), GSVD_OK);
    }
    GSVD_CHECK_RC(gsvd_writer_commit(w), GSVD_OK);
    chunk = gsvd_asprintf("%s/x/1", url);
    GSVD_CHECK(chunk && unlink(chunk) == 0 && mkdir(chunk, 0777) == 0);
    GSVD_CHECK_RC(gsvd_store_open(url, GSVD_STORE_READ, &st), GSVD_OK);
    if (st)
        GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
    if (t)
        GSVD_CHECK_RC(gsvd_array_open(t, "x", &a), GSVD_OK);
    if (a && gsvd_reader_new(a, &r) == GSVD_OK) {
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, 0, 2, v), GSVD_OK);
        GSVD_CHECK(v[0] == 1 && v[1] == 2);
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, 2, 2, v), GSVD_EFORMAT);
    }
out:
    gsvd_reader_free(r);
    gsvd_array_close(a);
    gsvd_tree_close(t);
    gsvd_store_close(st);
    gsvd_writer_close(w);
    gsvd_codec_ws_free(ws);
    if (url)
        gsvd_test_remove_tree(url);
    gsvd_free(url);
    gsvd_free(chunk);
}

int main(int argc, char **argv)
{
    int rc;

    gsvd_meta_global_init(); /* cJSON allocates through gsvd_malloc */
    if ((rc = array_test_begin("test_tree", argc, argv)) != 0)
        return rc;
    test_trees();
    test_open_errors();
    test_corrupt_chunks();
    test_chunk_is_dir();
    gsvd_test_remove_tree(tmp);
    return gsvd_test_report("test_tree");
}
