/* tests/unit/test_store.c - zarr/store.h and gsvd_tree_locate (zarr/tree.h) against their
 * contracts: the file store (reads, staged writes, commit, overwrite, discard), key validation,
 * the mem: store, URL schemes, gsvd_key_join and splitting user input into store and node.
 * Works in a fresh directory under $TMPDIR (ctest points it at the build tree), removed at the
 * end. */
#include "gsvd_config.h"

#include <errno.h>
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
#include "zarr/meta.h"
#include "zarr/store.h"
#include "zarr/tree.h"

static char tmp[4096]; /* the test's scratch directory */

/* ---- file helpers ---------------------------------------------------------------------- */

static char *path_of(const char *rel)
{
    return gsvd_asprintf("%s/%s", tmp, rel);
}

/* Write a file (parents must exist); 0 on success. */
static int write_file(const char *rel, const char *text)
{
    char *p = path_of(rel);
    FILE *fp = p ? fopen(p, "wb") : NULL;
    int rc = -1;

    if (fp) {
        rc = fwrite(text, 1, strlen(text), fp) == strlen(text) ? 0 : -1;
        rc |= fclose(fp);
    }
    gsvd_free(p);
    return rc;
}

static int make_dir(const char *rel)
{
    char *p = path_of(rel);
    int rc = p && (mkdir(p, 0777) == 0 || errno == EEXIST) ? 0 : -1;

    gsvd_free(p);
    return rc;
}

static int exists(const char *rel)
{
    struct stat sb;
    char *p = path_of(rel);
    int yes = p && lstat(p, &sb) == 0;

    gsvd_free(p);
    return yes;
}

/* 1 if file rel holds exactly `text`. */
static int file_is(const char *rel, const char *text)
{
    char *p = path_of(rel);
    FILE *fp = p ? fopen(p, "rb") : NULL;
    char buf[4096];
    size_t n = 0;
    int same = 0;

    if (fp) {
        n = fread(buf, 1, sizeof buf, fp);
        same = n == strlen(text) && memcmp(buf, text, n) == 0;
        fclose(fp);
    }
    gsvd_free(p);
    return same;
}

/* Number of entries of directory rel ("" for tmp) whose name starts with `prefix`, or that
 * contain `infix` when prefix is NULL. */
static int count_entries(const char *rel, const char *prefix, const char *infix)
{
    char *p = *rel ? path_of(rel) : gsvd_strdup(tmp);
    DIR *d = p ? opendir(p) : NULL;
    struct dirent *e;
    int n = 0;

    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (prefix ? strncmp(e->d_name, prefix, strlen(prefix)) == 0
                   : strstr(e->d_name, infix) != NULL)
            n++;
    }
    if (d)
        closedir(d);
    gsvd_free(p);
    return n;
}

static int list_is(gsvd_store *st, const char *prefix, const char *const *want, size_t n_want)
{
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    int rc = gsvd_store_list(st, prefix, &l), ok = rc == GSVD_OK && l.n == n_want;

    for (size_t i = 0; ok && i < n_want; i++)
        ok = strcmp(l.items[i], want[i]) == 0;
    if (!ok) {
        fprintf(stderr, "list '%s' (rc %d):", prefix, rc);
        for (size_t i = 0; i < l.n; i++)
            fprintf(stderr, " '%s'", l.items[i]);
        fprintf(stderr, "\n");
    }
    gsvd_strlist_free(&l);
    return ok;
}

/* 1 if key holds exactly text (n bytes). */
static int value_is(gsvd_store *st, const char *key, const void *text, size_t n)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    int ok;

    /* stale content must be replaced, not appended to */
    ok = gsvd_buf_puts(&b, "stale") == GSVD_OK && gsvd_store_get(st, key, &b) == GSVD_OK &&
         b.len == n && (n == 0 || memcmp(b.data, text, n) == 0);
    gsvd_buf_free(&b);
    return ok;
}

/* ---- key checks -------------------------------------------------------------------------- */

static void test_keys(void)
{
    static const char *const bad[] = {
        "",     "/a",  "a//b", "a/./b", "a/../b", "..",   ".",    "a/",    "a/b/", "../a",
        "a/..", "./a", "a\\b", "\\",    "a\x01",  "a\nb", "\x1f", "a/\tb", "//",
    };
    static const char *const good[] = {
        "a",   ".zarray",     "a/b/.zattrs", "a..b", "...", ".a/b.", "call_genotype/0.0.0",
        "x y", "caf\xc3\xa9", "a/0/1/2",
    };
    char *s = NULL;

    for (size_t i = 0; i < GSVD_ARRAY_LEN(bad); i++) {
        int rc = gsvd_key_check(bad[i]);
        if (rc != GSVD_EFORMAT)
            fprintf(stderr, "bad key %zu accepted\n", i);
        GSVD_CHECK_RC(rc, GSVD_EFORMAT);
    }
    GSVD_CHECK_RC(gsvd_key_check(NULL), GSVD_EFORMAT);
    for (size_t i = 0; i < GSVD_ARRAY_LEN(good); i++)
        GSVD_CHECK_RC(gsvd_key_check(good[i]), GSVD_OK);

    GSVD_CHECK_RC(gsvd_key_join("a/b", ".zarray", &s), GSVD_OK);
    GSVD_CHECK(s && strcmp(s, "a/b/.zarray") == 0);
    gsvd_free(s);
    GSVD_CHECK_RC(gsvd_key_join("", ".zarray", &s), GSVD_OK);
    GSVD_CHECK(s && strcmp(s, ".zarray") == 0);
    gsvd_free(s);
    GSVD_CHECK_RC(gsvd_key_join("a/", "b", &s), GSVD_OK);
    GSVD_CHECK(s && strcmp(s, "a/b") == 0);
    gsvd_free(s);
    GSVD_CHECK_RC(gsvd_key_join("/a//", "/b", &s), GSVD_OK);
    GSVD_CHECK(s && strcmp(s, "a/b") == 0);
    gsvd_free(s);
    GSVD_CHECK_RC(gsvd_key_join("a", "", &s), GSVD_OK);
    GSVD_CHECK(s && strcmp(s, "a") == 0);
    gsvd_free(s);
    GSVD_CHECK_RC(gsvd_key_join(NULL, "b/c", &s), GSVD_OK);
    GSVD_CHECK(s && strcmp(s, "b/c") == 0);
    gsvd_free(s);
    GSVD_CHECK_RC(gsvd_key_join("a", NULL, &s), GSVD_OK);
    GSVD_CHECK(s && strcmp(s, "a") == 0);
    gsvd_free(s);
    GSVD_CHECK_RC(gsvd_key_join("", "", &s), GSVD_OK);
    GSVD_CHECK(s && strcmp(s, "") == 0);
    gsvd_free(s);
}

/* ---- schemes ------------------------------------------------------------------------------- */

static void test_schemes(void)
{
    gsvd_store *st = (gsvd_store *)&st; /* must be reset to NULL on failure */

    GSVD_CHECK_RC(gsvd_store_open("foo://x", GSVD_STORE_READ, &st), GSVD_EINVAL);
    GSVD_CHECK(st == NULL);
#if GSVD_HAVE_CURL
    /* opening a remote store makes no request; bad URLs and read-only writes fail at once */
    GSVD_CHECK_RC(gsvd_store_open("gs://b/k", GSVD_STORE_READ, &st), GSVD_OK);
    GSVD_CHECK(st != NULL && strcmp(gsvd_store_scheme(st), "gcs") == 0);
    gsvd_store_close(st);
    GSVD_CHECK_RC(gsvd_store_open("http://127.0.0.1/x.zarr", GSVD_STORE_READ, &st), GSVD_OK);
    GSVD_CHECK(st != NULL && strcmp(gsvd_store_scheme(st), "http") == 0);
    gsvd_store_close(st);
    GSVD_CHECK_RC(gsvd_store_open("https://h/x.zarr", GSVD_STORE_WRITE, &st), GSVD_EINVAL);
    GSVD_CHECK(st == NULL);
    GSVD_CHECK_RC(gsvd_store_open("s3:///k", GSVD_STORE_READ, &st), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_store_open("gs://b/a/../k", GSVD_STORE_READ, &st), GSVD_EINVAL);
    GSVD_CHECK(strstr(gsvd_store_supported(), "s3") != NULL);
#else
    GSVD_CHECK_RC(gsvd_store_open("s3://b/k", GSVD_STORE_READ, &st), GSVD_ENOTBUILT);
    GSVD_CHECK(st == NULL);
    GSVD_CHECK_RC(gsvd_store_open("gs://b/k", GSVD_STORE_READ, &st), GSVD_ENOTBUILT);
    GSVD_CHECK_RC(gsvd_store_open("http://127.0.0.1/x.zarr", GSVD_STORE_READ, &st), GSVD_ENOTBUILT);
    GSVD_CHECK_RC(gsvd_store_open("https://h/x.zarr", GSVD_STORE_WRITE, &st), GSVD_ENOTBUILT);
#endif
    GSVD_CHECK(strstr(gsvd_store_supported(), "file") && strstr(gsvd_store_supported(), "mem"));
}

/* ---- file store: reads --------------------------------------------------------------------- */

static void test_file_read(void)
{
    gsvd_store *st = NULL;
    char *root = path_of("in.zarr"), *url = NULL, *missing = path_of("nope"),
         *file = path_of("in.zarr/.zgroup");
    uint64_t size = 0;
    struct gsvd_buf b = GSVD_BUF_INIT;

    GSVD_CHECK(make_dir("in.zarr") == 0 && make_dir("in.zarr/a") == 0 &&
               make_dir("in.zarr/a/0.1") == 0 && make_dir("in.zarr/a/sub") == 0);
    GSVD_CHECK(write_file("in.zarr/.zgroup", "{\"zarr_format\": 2}") == 0);
    GSVD_CHECK(write_file("in.zarr/a/.zarray", "{}") == 0);
    GSVD_CHECK(write_file("in.zarr/a/0.0", "chunk bytes") == 0);
    GSVD_CHECK(write_file("in.zarr/a/empty", "") == 0);
    GSVD_CHECK(write_file("in.zarr/a/sub/x", "x") == 0);

    st = (gsvd_store *)&st;
    GSVD_CHECK_RC(gsvd_store_open(missing, GSVD_STORE_READ, &st), GSVD_ENOTFOUND);
    GSVD_CHECK(st == NULL);
    GSVD_CHECK_RC(gsvd_store_open(file, GSVD_STORE_READ, &st), GSVD_EFORMAT);
    GSVD_CHECK(st == NULL);

    GSVD_CHECK_RC(gsvd_store_open(root, GSVD_STORE_READ, &st), GSVD_OK);
    if (!st)
        goto out;
    GSVD_CHECK(strcmp(gsvd_store_url(st), root) == 0);
    GSVD_CHECK(strcmp(gsvd_store_scheme(st), "file") == 0);
    GSVD_CHECK(value_is(st, ".zgroup", "{\"zarr_format\": 2}", 18));
    GSVD_CHECK(value_is(st, "a/0.0", "chunk bytes", 11));
    GSVD_CHECK(value_is(st, "a/empty", "", 0));
    GSVD_CHECK(value_is(st, "a/sub/x", "x", 1));
    GSVD_CHECK_RC(gsvd_store_get(st, "a/0.2", &b), GSVD_ENOTFOUND);
    GSVD_CHECK_RC(gsvd_store_get(st, "nope/0.0", &b), GSVD_ENOTFOUND);
    GSVD_CHECK_RC(gsvd_store_get(st, "a/0.0/x", &b), GSVD_ENOTFOUND); /* parent is a file */
    GSVD_CHECK_RC(gsvd_store_get(st, "a/0.1", &b), GSVD_EFORMAT);     /* a directory */
    GSVD_CHECK_RC(gsvd_store_get(st, "../in.zarr/.zgroup", &b), GSVD_EFORMAT);
    GSVD_CHECK_RC(gsvd_store_get(st, "a//0.0", &b), GSVD_EFORMAT);
    GSVD_CHECK_RC(gsvd_store_get(st, "/etc/passwd", &b), GSVD_EFORMAT);

    GSVD_CHECK_RC(gsvd_store_size(st, "a/0.0", &size), GSVD_OK);
    GSVD_CHECK(size == 11);
    GSVD_CHECK_RC(gsvd_store_size(st, "a/empty", &size), GSVD_OK);
    GSVD_CHECK(size == 0);
    GSVD_CHECK_RC(gsvd_store_size(st, "a/0.9", &size), GSVD_ENOTFOUND);
    GSVD_CHECK_RC(gsvd_store_size(st, "a/../x", &size), GSVD_EFORMAT);

    {
        static const char *const top[] = {".zgroup", "a"};
        static const char *const in_a[] = {".zarray", "0.0", "0.1", "empty", "sub"};
        static const char *const in_sub[] = {"x"};
        GSVD_CHECK(list_is(st, "", top, 2));
        GSVD_CHECK(list_is(st, NULL, top, 2));
        GSVD_CHECK(list_is(st, "a", in_a, 5));
        GSVD_CHECK(list_is(st, "a/sub", in_sub, 1));
        GSVD_CHECK(list_is(st, "none", NULL, 0));
    }
    /* read-only: no put, no commit */
    GSVD_CHECK_RC(gsvd_store_put(st, "new", "x", 1), GSVD_EINVAL);
    GSVD_CHECK(!exists("in.zarr/new"));
    GSVD_CHECK_RC(gsvd_store_commit(st), GSVD_EINVAL);
    gsvd_store_close(st);
    st = NULL;

    /* file:// prefix */
    url = gsvd_asprintf("file://%s", root);
    GSVD_CHECK_RC(gsvd_store_open(url, GSVD_STORE_READ, &st), GSVD_OK);
    if (st) {
        GSVD_CHECK(value_is(st, "a/0.0", "chunk bytes", 11));
        GSVD_CHECK(strcmp(gsvd_store_url(st), url) == 0);
        GSVD_CHECK(strcmp(gsvd_store_scheme(st), "file") == 0);
    }
out:
    gsvd_store_close(st);
    gsvd_store_close(NULL);
    gsvd_buf_free(&b);
    gsvd_free(root);
    gsvd_free(url);
    gsvd_free(missing);
    gsvd_free(file);
}

/* ---- file store: staged writes ------------------------------------------------------------- */

static void test_file_write(void)
{
    gsvd_store *st = NULL;
    char *target = path_of("out.zarr");
    struct gsvd_buf b = GSVD_BUF_INIT;

    /* WRITE: a hidden staging directory next to the target, nothing at the target */
    GSVD_CHECK_RC(gsvd_store_open(target, GSVD_STORE_WRITE, &st), GSVD_OK);
    if (!st)
        goto out;
    GSVD_CHECK(!exists("out.zarr"));
    /* the staging directory and its owner file (pid, boot id, start time: zarr/store_file.c) */
    GSVD_CHECK(count_entries("", ".out.zarr.gensvd-", NULL) == 2);
    GSVD_CHECK(count_entries("", NULL, ".owner") == 1);
    GSVD_CHECK_RC(gsvd_store_put(st, ".zgroup", "{}", 2), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "x/y/0.0", "abc", 3), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "x/y/0.0", "abcd", 4), GSVD_OK); /* replaced, truncated */
    GSVD_CHECK_RC(gsvd_store_put(st, "x/empty", "", 0), GSVD_OK);
    GSVD_CHECK(!exists("out.zarr"));
    GSVD_CHECK(value_is(st, "x/y/0.0", "abcd", 4)); /* reads see staged values */
    GSVD_CHECK(value_is(st, "x/empty", "", 0));
    /* bad keys cannot write outside the staging directory */
    GSVD_CHECK_RC(gsvd_store_put(st, "../escape", "x", 1), GSVD_EFORMAT);
    GSVD_CHECK_RC(gsvd_store_put(st, "/abs", "x", 1), GSVD_EFORMAT);
    GSVD_CHECK_RC(gsvd_store_put(st, "a/./b", "x", 1), GSVD_EFORMAT);
    GSVD_CHECK_RC(gsvd_store_put(st, "a\\b", "x", 1), GSVD_EFORMAT);
    GSVD_CHECK_RC(gsvd_store_put(st, "", "x", 1), GSVD_EFORMAT);
    GSVD_CHECK_RC(gsvd_store_put(st, "a/", "x", 1), GSVD_EFORMAT);
    GSVD_CHECK_RC(gsvd_store_get(st, "../escape", &b), GSVD_EFORMAT);
    GSVD_CHECK(!exists("escape"));
    /* a key whose parent is a file cannot be written */
    GSVD_CHECK_RC(gsvd_store_put(st, "x/y/0.0/z", "x", 1), GSVD_EIO);
    /* close without commit: the staging directory is gone, nothing at the target */
    gsvd_store_close(st);
    st = NULL;
    GSVD_CHECK(!exists("out.zarr"));
    GSVD_CHECK(count_entries("", ".out.zarr", NULL) == 0);

    /* commit moves it into place */
    GSVD_CHECK_RC(gsvd_store_open(target, GSVD_STORE_WRITE, &st), GSVD_OK);
    if (!st)
        goto out;
    GSVD_CHECK_RC(gsvd_store_put(st, ".zgroup", "{\"zarr_format\": 2}", 18), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "old/0", "old", 3), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_commit(st), GSVD_OK);
    GSVD_CHECK(file_is("out.zarr/.zgroup", "{\"zarr_format\": 2}"));
    GSVD_CHECK(file_is("out.zarr/old/0", "old"));
    GSVD_CHECK(count_entries("", ".out.zarr", NULL) == 0);
    GSVD_CHECK_RC(gsvd_store_commit(st), GSVD_OK); /* a second commit changes nothing */
    gsvd_store_close(st);                          /* close after commit keeps the output */
    st = NULL;
    GSVD_CHECK(file_is("out.zarr/old/0", "old"));

    /* WRITE on an existing target without OVERWRITE: EIO, target untouched */
    st = (gsvd_store *)&st;
    GSVD_CHECK_RC(gsvd_store_open(target, GSVD_STORE_WRITE, &st), GSVD_EIO);
    GSVD_CHECK(st == NULL);
    GSVD_CHECK(file_is("out.zarr/old/0", "old") &&
               file_is("out.zarr/.zgroup", "{\"zarr_format\": 2}"));
    GSVD_CHECK(count_entries("", ".out.zarr", NULL) == 0);

    /* OVERWRITE, closed without commit: the old output stays as it was */
    GSVD_CHECK_RC(gsvd_store_open(target, GSVD_STORE_WRITE | GSVD_STORE_OVERWRITE, &st), GSVD_OK);
    if (!st)
        goto out;
    GSVD_CHECK_RC(gsvd_store_put(st, "new/0", "new", 3), GSVD_OK);
    gsvd_store_close(st);
    st = NULL;
    GSVD_CHECK(file_is("out.zarr/old/0", "old") && !exists("out.zarr/new"));
    GSVD_CHECK(count_entries("", ".out.zarr", NULL) == 0);

    /* OVERWRITE + commit: the old content is replaced completely, no leftovers */
    GSVD_CHECK_RC(gsvd_store_open(target, GSVD_STORE_WRITE | GSVD_STORE_OVERWRITE, &st), GSVD_OK);
    if (!st)
        goto out;
    GSVD_CHECK_RC(gsvd_store_put(st, "new/0", "new", 3), GSVD_OK);
    GSVD_CHECK(file_is("out.zarr/old/0", "old")); /* still the old one until commit */
    GSVD_CHECK_RC(gsvd_store_commit(st), GSVD_OK);
    gsvd_store_close(st);
    st = NULL;
    GSVD_CHECK(file_is("out.zarr/new/0", "new"));
    GSVD_CHECK(!exists("out.zarr/old") && !exists("out.zarr/.zgroup"));
    GSVD_CHECK(count_entries("out.zarr", "", NULL) == 1);
    GSVD_CHECK(count_entries("", NULL, "gensvd-old") == 0);
    GSVD_CHECK(count_entries("", NULL, ".gensvd") == 0);
    GSVD_CHECK(count_entries("", ".out.zarr", NULL) == 0);

    /* a target that appears while a run writes (another run finished first) wins: without
     * OVERWRITE the commit fails and leaves it alone, and close removes the staging files */
    {
        char *t3 = path_of("race.zarr");
        GSVD_CHECK_RC(gsvd_store_open(t3, GSVD_STORE_WRITE, &st), GSVD_OK);
        if (st) {
            GSVD_CHECK_RC(gsvd_store_put(st, "mine/0", "mine", 4), GSVD_OK);
            GSVD_CHECK(make_dir("race.zarr") == 0 && make_dir("race.zarr/theirs") == 0);
            GSVD_CHECK(write_file("race.zarr/theirs/0", "theirs") == 0);
            GSVD_CHECK_RC(gsvd_store_commit(st), GSVD_EIO);
            gsvd_store_close(st);
            st = NULL;
        }
        GSVD_CHECK(file_is("race.zarr/theirs/0", "theirs") && !exists("race.zarr/mine"));
        GSVD_CHECK(count_entries("", ".race.zarr", NULL) == 0);
        gsvd_free(t3);
    }

    /* OVERWRITE of a target that does not exist is a plain write */
    {
        char *t2 = path_of("fresh.zarr");
        GSVD_CHECK_RC(gsvd_store_open(t2, GSVD_STORE_WRITE | GSVD_STORE_OVERWRITE, &st), GSVD_OK);
        if (st) {
            GSVD_CHECK_RC(gsvd_store_put(st, "k", "v", 1), GSVD_OK);
            GSVD_CHECK_RC(gsvd_store_commit(st), GSVD_OK);
        }
        gsvd_store_close(st);
        st = NULL;
        GSVD_CHECK(file_is("fresh.zarr/k", "v"));
        gsvd_free(t2);
    }

    /* the staging directory cannot be made: parent missing */
    {
        char *t3 = path_of("no/such/dir/out.zarr");
        GSVD_CHECK_RC(gsvd_store_open(t3, GSVD_STORE_WRITE, &st), GSVD_EIO);
        GSVD_CHECK(st == NULL);
        gsvd_free(t3);
    }
    GSVD_CHECK_RC(gsvd_store_open("", GSVD_STORE_WRITE, &st), GSVD_EINVAL);
    GSVD_CHECK(st == NULL);
out:
    gsvd_store_close(st);
    gsvd_buf_free(&b);
    gsvd_free(target);
}

/* ---- mem store ----------------------------------------------------------------------------- */

static void test_mem(void)
{
    gsvd_store *st = NULL;
    struct gsvd_buf b = GSVD_BUF_INIT;
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    uint64_t size = 0;

    GSVD_CHECK_RC(gsvd_store_open("mem:t", GSVD_STORE_WRITE, &st), GSVD_OK);
    if (!st)
        return;
    GSVD_CHECK(strcmp(gsvd_store_scheme(st), "mem") == 0);
    GSVD_CHECK(strcmp(gsvd_store_url(st), "mem:t") == 0);
    GSVD_CHECK_RC(gsvd_store_put(st, "f", "F", 1), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "a/b/d", "D", 1), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "a/b/c", "C", 1), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "a/e", "E", 1), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, ".zgroup", "{}", 2), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "ab/x", "X", 1), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "empty", "", 0), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "bin", "\0\1\0", 3), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "a/e", "E2", 2), GSVD_OK); /* replaces */
    GSVD_CHECK_RC(gsvd_store_put(st, "a/../x", "x", 1), GSVD_EFORMAT);
    GSVD_CHECK_RC(gsvd_store_put(st, "a//x", "x", 1), GSVD_EFORMAT);

    GSVD_CHECK(value_is(st, "a/e", "E2", 2));
    GSVD_CHECK(value_is(st, "a/b/c", "C", 1));
    GSVD_CHECK(value_is(st, "empty", "", 0));
    GSVD_CHECK(value_is(st, "bin", "\0\1\0", 3));
    GSVD_CHECK_RC(gsvd_store_get(st, "a", &b), GSVD_ENOTFOUND); /* a "directory" */
    GSVD_CHECK_RC(gsvd_store_get(st, "a/b/z", &b), GSVD_ENOTFOUND);
    GSVD_CHECK_RC(gsvd_store_get(st, "/a/e", &b), GSVD_EFORMAT);
    GSVD_CHECK_RC(gsvd_store_size(st, "a/e", &size), GSVD_OK);
    GSVD_CHECK(size == 2);
    GSVD_CHECK_RC(gsvd_store_size(st, "zz", &size), GSVD_ENOTFOUND);

    {
        static const char *const top[] = {".zgroup", "a", "ab", "bin", "empty", "f"};
        static const char *const in_a[] = {"b", "e"};
        static const char *const in_ab[] = {"c", "d"};
        static const char *const in_abx[] = {"x"};
        GSVD_CHECK(list_is(st, "", top, 6)); /* direct children only, unique, sorted */
        GSVD_CHECK(list_is(st, "a", in_a, 2));
        GSVD_CHECK(list_is(st, "a/b", in_ab, 2));
        GSVD_CHECK(list_is(st, "ab", in_abx, 1));
        GSVD_CHECK(list_is(st, "a/b/c", NULL, 0)); /* a key, not a prefix */
        GSVD_CHECK(list_is(st, "zz", NULL, 0));
    }
    /* list appends to what the caller has, and sorts the whole */
    GSVD_CHECK_RC(gsvd_strlist_push(&l, "zzz"), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_list(st, "a", &l), GSVD_OK);
    GSVD_CHECK(l.n == 3 && strcmp(l.items[0], "b") == 0 && strcmp(l.items[2], "zzz") == 0);
    gsvd_strlist_free(&l);

    GSVD_CHECK_RC(gsvd_store_commit(st), GSVD_OK); /* writes are final when put */
    GSVD_CHECK(value_is(st, "f", "F", 1));
    gsvd_store_close(st);
    st = NULL;

    /* opened read-only: no put */
    GSVD_CHECK_RC(gsvd_store_open("mem:ro", GSVD_STORE_READ, &st), GSVD_OK);
    if (st) {
        GSVD_CHECK_RC(gsvd_store_put(st, "k", "v", 1), GSVD_EINVAL);
        GSVD_CHECK_RC(gsvd_store_get(st, "k", &b), GSVD_ENOTFOUND);
        GSVD_CHECK(list_is(st, "", NULL, 0));
    }
    gsvd_store_close(st);
    gsvd_buf_free(&b);
}

/* ---- gsvd_tree_locate ---------------------------------------------------------------------- */

static int locate_is(const char *input, const char *want_root, const char *want_node)
{
    char *root = NULL, *node = NULL;
    int rc = gsvd_tree_locate(input, &root, &node);
    int ok = rc == GSVD_OK && root && node && strcmp(root, want_root) == 0 &&
             strcmp(node, want_node) == 0;

    if (!ok)
        fprintf(stderr, "locate '%s': rc %d, root '%s', node '%s'; want '%s', '%s'\n", input, rc,
                root ? root : "(null)", node ? node : "(null)", want_root, want_node);
    gsvd_free(root);
    gsvd_free(node);
    return ok;
}

static void test_locate(void)
{
    char *in = NULL, *root = path_of("dir.zarr"), *plain = path_of("plain"),
         *other = path_of("other.zarr/a/b"), *url = NULL;
    char cwd[4096];

    GSVD_CHECK(make_dir("dir.zarr") == 0 && make_dir("dir.zarr/a") == 0 &&
               make_dir("dir.zarr/a/b") == 0 && make_dir("plain") == 0 &&
               make_dir("plain/x") == 0 && make_dir("other.zarr") == 0 &&
               make_dir("other.zarr/a") == 0 && make_dir("other.zarr/a/b") == 0);
    GSVD_CHECK(write_file("dir.zarr/.zgroup", "{\"zarr_format\": 2}") == 0);
    GSVD_CHECK(write_file("dir.zarr/a/.zgroup", "{\"zarr_format\": 2}") == 0);
    GSVD_CHECK(write_file("dir.zarr/a/b/.zarray", "{}") == 0);
    GSVD_CHECK(write_file("other.zarr/.zgroup", "{\"zarr_format\": 2}") == 0);
    GSVD_CHECK(write_file("other.zarr/a/b/.zarray", "{}") == 0); /* a is no group */

    in = gsvd_asprintf("%s/a/b", root);
    GSVD_CHECK(locate_is(in, root, "a/b"));
    gsvd_free(in);
    in = gsvd_asprintf("%s/a/b/", root);
    GSVD_CHECK(locate_is(in, root, "a/b"));
    gsvd_free(in);
    in = gsvd_asprintf("%s/a//b//", root);
    GSVD_CHECK(locate_is(in, root, "a//b")); /* inner slashes are left to key checks */
    gsvd_free(in);
    in = gsvd_asprintf("%s/a", root);
    GSVD_CHECK(locate_is(in, root, "a"));
    gsvd_free(in);
    GSVD_CHECK(locate_is(root, root, ""));
    in = gsvd_asprintf("%s/", root);
    GSVD_CHECK(locate_is(in, root, ""));
    gsvd_free(in);
    /* a node that does not exist yet, inside a group */
    in = gsvd_asprintf("%s/a/new", root);
    GSVD_CHECK(locate_is(in, root, "a/new"));
    gsvd_free(in);
    /* file:// prefix: the root keeps it */
    in = gsvd_asprintf("file://%s/a/b", root);
    url = gsvd_asprintf("file://%s", root);
    GSVD_CHECK(locate_is(in, url, "a/b"));
    gsvd_free(in);
    gsvd_free(url);
    url = gsvd_asprintf("file://%s", root);
    GSVD_CHECK(locate_is(url, url, ""));
    gsvd_free(url);
    url = NULL;
    /* mem: and URLs are taken whole */
    GSVD_CHECK(locate_is("mem:x", "mem:x", ""));
    GSVD_CHECK(locate_is("mem:x/y/z", "mem:x/y/z", ""));
    GSVD_CHECK(locate_is("s3://bucket/x.zarr/a", "s3://bucket/x.zarr/a", ""));
    GSVD_CHECK(locate_is("https://h/x.zarr/a/", "https://h/x.zarr/a/", ""));
    /* parents that are not groups */
    in = gsvd_asprintf("%s/x", plain);
    GSVD_CHECK(locate_is(in, in, ""));
    gsvd_free(in);
    in = NULL;
    GSVD_CHECK(locate_is(other, other, ""));
    GSVD_CHECK(locate_is("/", "/", ""));
    GSVD_CHECK(locate_is("x.zarr", "x.zarr", ""));

    /* relative paths */
    if (getcwd(cwd, sizeof cwd) && chdir(tmp) == 0) {
        GSVD_CHECK(locate_is("dir.zarr/a/b", "dir.zarr", "a/b"));
        GSVD_CHECK(locate_is("dir.zarr/a/b/", "dir.zarr", "a/b"));
        GSVD_CHECK(locate_is("./dir.zarr/a", "./dir.zarr", "a"));
        GSVD_CHECK(locate_is("dir.zarr", "dir.zarr", ""));
        GSVD_CHECK(chdir(cwd) == 0);
    }

    /* the located root opens as a tree and holds the node */
    {
        char *r = NULL, *n = NULL;
        gsvd_store *st = NULL;
        gsvd_tree *t = NULL;
        in = gsvd_asprintf("%s/a/b", root);
        GSVD_CHECK_RC(gsvd_tree_locate(in, &r, &n), GSVD_OK);
        GSVD_CHECK_RC(gsvd_store_open(r, GSVD_STORE_READ, &st), GSVD_OK);
        if (st) {
            GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
            if (t) {
                GSVD_CHECK(gsvd_tree_node_kind(t, n) == GSVD_NODE_ARRAY);
                GSVD_CHECK(gsvd_tree_node_kind(t, "a") == GSVD_NODE_GROUP);
                GSVD_CHECK(gsvd_tree_node_kind(t, "a/zz") == GSVD_NODE_NONE);
                GSVD_CHECK(gsvd_tree_node_kind(t, "a/../a") == GSVD_EINVAL);
            }
        }
        gsvd_tree_close(t);
        gsvd_store_close(st);
        gsvd_free(r);
        gsvd_free(n);
        gsvd_free(in);
        in = NULL;
    }
    gsvd_free(in);
    gsvd_free(root);
    gsvd_free(plain);
    gsvd_free(other);
}

int main(int argc, char **argv)
{
    const char *base = getenv("TMPDIR");

    gsvd_meta_global_init();
    if (gsvd_test_args(argc, argv, "test_store") != 0)
        return 2;
    snprintf(tmp, sizeof tmp, "%s/test_store.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "test_store: cannot create %s\n", tmp);
        return 1;
    }
    test_keys();
    test_schemes();
    test_file_read();
    test_file_write();
    test_mem();
    test_locate();
    gsvd_test_remove_tree(tmp);
    return gsvd_test_report("test_store");
}
