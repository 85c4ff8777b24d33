/* tests/unit/test_store_zip.c - the zip store (zarr/store_zip.c) against zarr/store.h's
 * contract, on the fuzz seed corpus (tests/fuzz/corpus/zip, written by make_zip_corpus.py):
 * listing, whole and ranged reads of STORED, DEFLATE and ZIP64 archives (all equal), a
 * top-level directory stripped, the last duplicate winning, every documented refusal with its
 * code, read-only opening, and gsvd_tree_locate splitting "x.zip/node" (and remote URLs through
 * an archive).
 * usage: test_store_zip CORPUS_DIR [-v | --one-roundtrip (for alloc_sweep.sh)]; scratch files
 * under $TMPDIR. */
#include "gsvd_config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "tests/gsvd_test.h"
#include "tests/gsvd_test_fs.h"
#include "zarr/meta.h"
#include "zarr/store.h"
#include "zarr/tree.h"

static const char *corpus;
static char tmp[4096];

static gsvd_store *open_seed(const char *seed, int *rc)
{
    gsvd_store *st = NULL;
    char *url = gsvd_asprintf("zip://%s/%s", corpus, seed);
    *rc = url ? gsvd_store_open(url, GSVD_STORE_READ, &st) : GSVD_ENOMEM;
    gsvd_free(url);
    return st;
}

static int get_is(gsvd_store *st, const char *key, const void *want, size_t n)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    int ok = gsvd_store_get(st, key, &b) == GSVD_OK && b.len == n && memcmp(b.data, want, n) == 0;
    gsvd_buf_free(&b);
    return ok;
}

static int list_is(gsvd_store *st, const char *prefix, const char *joined)
{
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    struct gsvd_buf b = GSVD_BUF_INIT;
    int ok = gsvd_store_list(st, prefix, &l) == GSVD_OK;
    gsvd_strlist_sort(&l);
    for (size_t i = 0; ok && i < l.n; i++)
        ok = gsvd_buf_printf(&b, "%s%s", i ? "," : "", l.items[i]) == GSVD_OK;
    ok = ok && strcmp(b.data ? b.data : "", joined) == 0;
    if (!ok)
        fprintf(stderr, "list '%s': got '%s', want '%s'\n", prefix, b.data ? b.data : "", joined);
    gsvd_strlist_free(&l);
    gsvd_buf_free(&b);
    return ok;
}

/* The tiny group every good seed holds. */
static void check_group(const char *seed)
{
    static const unsigned char c0[] = {0, 1, 2, 1, 1, 0}, c1[] = {2, 2, 0, 255, 1, 1};
    struct gsvd_buf b = GSVD_BUF_INIT;
    uint64_t size = 0;
    int rc;
    gsvd_store *st = open_seed(seed, &rc);

    GSVD_CHECK(rc == GSVD_OK && st != NULL);
    if (!st)
        return;
    GSVD_CHECK(strcmp(gsvd_store_scheme(st), "zip") == 0);
    GSVD_CHECK(list_is(st, "", ".zgroup,g"));
    GSVD_CHECK(list_is(st, "g", ".zarray,.zattrs,0.0,1.0"));
    GSVD_CHECK(list_is(st, "g/", ".zarray,.zattrs,0.0,1.0"));
    GSVD_CHECK(list_is(st, "nope", ""));
    GSVD_CHECK(get_is(st, "g/0.0", c0, 6));
    GSVD_CHECK(get_is(st, "g/1.0", c1, 6));
    GSVD_CHECK_RC(gsvd_store_get(st, "g/2.0", &b), GSVD_ENOTFOUND);
    GSVD_CHECK_RC(gsvd_store_size(st, "g/1.0", &size), GSVD_OK);
    GSVD_CHECK(size == 6);
    GSVD_CHECK_RC(gsvd_store_size(st, "g", &size), GSVD_ENOTFOUND);
    size = 0;
    GSVD_CHECK_RC(gsvd_store_get_range(st, "g/1.0", 2, 3, 0, &b, &size), GSVD_OK);
    GSVD_CHECK(size == 6 && b.len == 3 && memcmp(b.data, c1 + 2, 3) == 0);
    gsvd_buf_clear(&b);
    GSVD_CHECK_RC(gsvd_store_get_range(st, "g/1.0", 0, 2, 1, &b, &size), GSVD_OK);
    GSVD_CHECK(b.len == 2 && memcmp(b.data, c1 + 4, 2) == 0);
    gsvd_buf_clear(&b);
    GSVD_CHECK_RC(gsvd_store_get_range(st, "g/1.0", 5, 100, 0, &b, &size), GSVD_OK);
    GSVD_CHECK(b.len == 1 && (unsigned char)b.data[0] == 1);
    gsvd_buf_clear(&b);
    GSVD_CHECK_RC(gsvd_store_get_range(st, "g/1.0", 9, 4, 0, &b, &size), GSVD_OK);
    GSVD_CHECK(b.len == 0);
    GSVD_CHECK_RC(gsvd_store_put(st, "x", "y", 1), GSVD_EINVAL);
    gsvd_buf_free(&b);
    gsvd_store_close(st);
}

static void test_good(void)
{
    static const char *seeds[] = {"01_stored", "02_deflated", "03_zip64", "04_zip64_deflated",
                                  "05_topdir"};
    int rc;
    gsvd_store *st;

    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++)
        check_group(seeds[i]);
    st = open_seed("06_duplicate", &rc);
    GSVD_CHECK(rc == GSVD_OK && get_is(st, ".zgroup", "{\"zarr_format\": 2} ", 19));
    gsvd_store_close(st);
}

static void test_bad(void)
{
    static const struct {
        const char *seed;
        int open_rc; /* expected from open */
    } cases[] = {{"07_dotdot", GSVD_EFORMAT},
                 {"08_truncated", GSVD_EFORMAT},
                 {"09_encrypted", GSVD_EUNSUPPORTED},
                 {"10_method12", GSVD_EUNSUPPORTED}};
    struct gsvd_buf b = GSVD_BUF_INIT;
    int rc;
    gsvd_store *st;

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        st = open_seed(cases[i].seed, &rc);
        GSVD_CHECK(rc == cases[i].open_rc && st == NULL);
        gsvd_store_close(st);
    }
    st = open_seed("11_badcrc", &rc); /* opens; the damaged entry fails its CRC */
    GSVD_CHECK(rc == GSVD_OK);
    if (st) {
        GSVD_CHECK_RC(gsvd_store_get(st, ".zgroup", &b), GSVD_EFORMAT);
        GSVD_CHECK(get_is(st, "g/0.0", "\0\1\2\1\1\0", 6));
    }
    gsvd_store_close(st);
    st = open_seed("no_such_seed", &rc);
    GSVD_CHECK(rc == GSVD_ENOTFOUND && st == NULL);
    gsvd_buf_free(&b);
}

/* 1 when gsvd_tree_locate splits `in` into root `want_root` and node `want_node`; a mismatch is
 * printed.  `in` NULL (a failed gsvd_asprintf) is 0. */
static int locate_is(const char *in, const char *want_root, const char *want_node)
{
    char *root = NULL, *node = NULL;
    int ok = in && want_root && gsvd_tree_locate(in, &root, &node) == GSVD_OK && root && node &&
             strcmp(root, want_root) == 0 && strcmp(node, want_node) == 0;

    if (!ok && root && node)
        fprintf(stderr, "%s: root '%s' node '%s'\n", in, root, node);
    gsvd_free(root);
    gsvd_free(node);
    return ok;
}

/* Copy the file src to dst; 1 when it worked. */
static int copy_file(const char *src, const char *dst)
{
    FILE *fi = src ? fopen(src, "rb") : NULL, *fo = dst ? fopen(dst, "wb") : NULL;
    char chunk[4096];
    size_t n;
    int ok = fi && fo;

    while (ok && (n = fread(chunk, 1, sizeof chunk, fi)) > 0)
        ok = fwrite(chunk, 1, n, fo) == n;
    if (fi)
        fclose(fi);
    if (fo && fclose(fo) != 0)
        ok = 0;
    return ok;
}

/* The store `url` opens with scheme `scheme` (NULL: the open is refused with `want_rc`). */
static int opens_as(const char *url, unsigned flags, const char *scheme, int want_rc)
{
    gsvd_store *st = NULL;
    int rc = url ? gsvd_store_open(url, flags, &st) : GSVD_ENOMEM;
    int ok = scheme ? rc == GSVD_OK && st && strcmp(gsvd_store_scheme(st), scheme) == 0
                    : rc == want_rc && st == NULL;

    gsvd_store_close(st);
    return ok;
}

/* ".zip" paths: a file opens the zip store, a directory the file store, writing is refused;
 * gsvd_tree_locate splits after the archive. */
static void test_paths(void)
{
    char *zip = gsvd_asprintf("%s/c.vcz.zip", tmp), *dir = gsvd_asprintf("%s/d.zip", tmp);
    char *src = gsvd_asprintf("%s/01_stored", corpus);
    char *out = gsvd_asprintf("%s/out.zip", tmp), *in = NULL, *want = NULL;
    gsvd_store *st = NULL;

    GSVD_CHECK(zip && dir && src && out && copy_file(src, zip));
    GSVD_CHECK_RC(zip ? gsvd_store_open(zip, GSVD_STORE_READ, &st) : GSVD_ENOMEM, GSVD_OK);
    GSVD_CHECK(st && strcmp(gsvd_store_scheme(st), "zip") == 0);
    GSVD_CHECK(st && get_is(st, ".zgroup", "{\"zarr_format\": 2}", 18));
    gsvd_store_close(st);
    GSVD_CHECK(dir && mkdir(dir, 0755) == 0);
    GSVD_CHECK(opens_as(dir, GSVD_STORE_READ, "file", GSVD_OK));
    GSVD_CHECK(opens_as(out, GSVD_STORE_WRITE, NULL, GSVD_EUNSUPPORTED));

    in = gsvd_asprintf("%s/g/", zip);
    GSVD_CHECK(locate_is(in, zip, "g"));
    gsvd_free(in);
    in = gsvd_asprintf("file://%s/g", zip); /* file:// through an archive: the zip store */
    want = gsvd_asprintf("file://%s", zip);
    GSVD_CHECK(locate_is(in, want, "g"));
    GSVD_CHECK(opens_as(want, GSVD_STORE_READ, "zip", GSVD_OK));
    gsvd_free(in);
    in = gsvd_asprintf("zip://%s", zip);
    GSVD_CHECK(locate_is(in, in, ""));
    gsvd_free(in);
    in = gsvd_asprintf("zip://%s/01_stored/g", corpus); /* no ".zip": the whole input */
    GSVD_CHECK(locate_is(in, in, ""));
    gsvd_free(in);
    gsvd_free(want);
    gsvd_free(out);
    gsvd_free(zip);
    gsvd_free(dir);
    gsvd_free(src);
}

/* Remote URLs through an archive split after its first ".zip" component (never the host or
 * bucket); other remote URLs are taken whole. */
static void test_remote_paths(void)
{
    static const char *const cases[][3] = {
        {"https://h/d/x.vcz.zip/call_genotype", "https://h/d/x.vcz.zip", "call_genotype"},
        {"s3://b/x.ZIP", "s3://b/x.ZIP", ""},
        {"gs://b/p/x.zip/g/a/", "gs://b/p/x.zip", "g/a"},
        {"zip://http://h:8/x.zip/g", "zip://http://h:8/x.zip", "g"},
        {"https://h.zip/x.zarr/g", "https://h.zip/x.zarr/g", ""},
        {"s3://b.zip", "s3://b.zip", ""},
        {"https://h/.zip/g", "https://h/.zip/g", ""},
        {"https://h/a.zipx/g", "https://h/a.zipx/g", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        GSVD_CHECK(locate_is(cases[i][0], cases[i][1], cases[i][2]));
}

/* --one-roundtrip (alloc_sweep.sh): open the ZIP64 DEFLATE seed, list it and read every key
 * whole and by range.  Exit 0 when all worked, 3 when an allocation failure came back as
 * GSVD_ENOMEM, 1 on any other error. */
static int one_roundtrip(void)
{
    static const char *keys[] = {".zgroup", "g/.zarray", "g/.zattrs", "g/0.0", "g/1.0"};
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    struct gsvd_buf b = GSVD_BUF_INIT;
    uint64_t size;
    int rc;
    gsvd_store *st = open_seed("04_zip64_deflated", &rc);

    if (rc == GSVD_OK)
        rc = gsvd_store_list(st, "g", &l);
    for (size_t i = 0; rc == GSVD_OK && i < sizeof keys / sizeof *keys; i++) {
        rc = gsvd_store_get(st, keys[i], &b);
        if (rc == GSVD_OK)
            rc = gsvd_store_get_range(st, keys[i], 1, 2, 0, &b, &size);
    }
    gsvd_strlist_free(&l);
    gsvd_buf_free(&b);
    gsvd_store_close(st);
    return rc == GSVD_OK ? 0 : rc == GSVD_ENOMEM ? 3 : 1;
}

int main(int argc, char **argv)
{
    const char *base = getenv("TMPDIR");

    if (argc < 2) {
        fprintf(stderr, "usage: test_store_zip CORPUS_DIR [-v | --one-roundtrip]\n");
        return 2;
    }
    corpus = argv[1];
    gsvd_meta_global_init();
    if (argc > 2 && strcmp(argv[2], "--one-roundtrip") == 0) {
        gsvd_log_set_level(GSVD_LOG_ERROR); /* alloc_sweep.sh looks for "out of memory" */
        return one_roundtrip();
    }
    gsvd_log_set_level(argc > 2 ? GSVD_LOG_DEBUG : GSVD_LOG_OFF); /* refusals log by design */
    snprintf(tmp, sizeof tmp, "%s/test_store_zip.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "test_store_zip: cannot create %s\n", tmp);
        return 1;
    }
    test_good();
    test_bad();
    test_paths();
    test_remote_paths();
    gsvd_test_remove_tree(tmp);
    return gsvd_test_report("test_store_zip");
}
