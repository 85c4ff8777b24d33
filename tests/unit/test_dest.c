/* tests/unit/test_dest.c - zarr/dest.h against its contract: every documented verdict of
 * gsvd_dest_check and gsvd_dest_check_file on local paths and URL kinds, an existing output
 * left as it was (also when it may be replaced), nothing left behind by any check, and a
 * directory that refuses writes even to root (/sys, where present; a directory without write
 * bits when not root).  The remote verdicts (missing bucket, refused credentials) are checked
 * against the emulators in tests/net.  Works in a fresh directory under $TMPDIR. */
#include "gsvd_config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "tests/gsvd_test.h"
#include "tests/gsvd_test_fs.h"
#include "zarr/dest.h"
#include "zarr/writer.h"

static char tmp[4096];

static char *at(const char *rel)
{
    char *p = gsvd_asprintf("%s/%s", tmp, rel);
    if (!p) {
        fprintf(stderr, "test_dest: out of memory\n");
        exit(1);
    }
    return p;
}

/* Entries of the scratch directory and of its subdirectory "d": a check must not change it. */
static size_t n_entries(void)
{
    size_t n = 0;
    const char *dirs[] = {tmp, "d"};
    for (size_t i = 0; i < 2; i++) {
        char *p = i ? at(dirs[i]) : gsvd_strdup(tmp);
        DIR *d = p ? opendir(p) : NULL;
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL)
            n++;
        if (d)
            closedir(d);
        gsvd_free(p);
    }
    return n;
}

static void write_text(const char *rel, const char *text)
{
    char *p = at(rel);
    FILE *fp = fopen(p, "w");
    GSVD_CHECK(fp != NULL && fputs(text, fp) >= 0 && fclose(fp) == 0);
    gsvd_free(p);
}

static int has_text(const char *rel, const char *text)
{
    char *p = at(rel), buf[64] = "";
    FILE *fp = fopen(p, "r");
    size_t n = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
    if (fp)
        fclose(fp);
    gsvd_free(p);
    buf[n] = '\0';
    return strcmp(buf, text) == 0;
}

/* gsvd_dest_check on `rel` under the scratch directory. */
static int check_at(const char *rel, int overwrite)
{
    char *p = at(rel);
    int rc = gsvd_dest_check(p, overwrite);
    gsvd_free(p);
    return rc;
}

static int check_file_at(const char *rel, int overwrite)
{
    char *p = at(rel);
    int rc = gsvd_dest_check_file(p, overwrite);
    gsvd_free(p);
    return rc;
}

static void test_zarr(void)
{
    size_t n0 = n_entries();
    gsvd_writer *w = NULL;
    char *p;

    GSVD_CHECK_RC(check_at("new.zarr", 0), GSVD_OK);
    GSVD_CHECK_RC(check_at("d/new.zarr", 1), GSVD_OK);
    GSVD_CHECK(n_entries() == n0); /* no staging directory, no owner file */
    /* an existing output: refused, or accepted with overwrite, and left as it was */
    GSVD_CHECK_RC(check_at("d/old.zarr", 0), GSVD_EIO);
    GSVD_CHECK_RC(check_at("d/old.zarr", 1), GSVD_OK);
    GSVD_CHECK(has_text("d/old.zarr/marker", "kept"));
    GSVD_CHECK_RC(check_at("d/file.txt", 0), GSVD_EIO); /* any existing target */
    /* the parent: missing, a regular file, or refusing writes */
    GSVD_CHECK_RC(check_at("missing/new.zarr", 0), GSVD_EIO);
    GSVD_CHECK_RC(check_at("missing/deeper/new.zarr", 1), GSVD_EIO);
    GSVD_CHECK_RC(check_at("d/file.txt/new.zarr", 0), GSVD_EIO);
    if (access("/sys", F_OK) == 0)
        GSVD_CHECK_RC(gsvd_dest_check("/sys/gensvd-test.zarr", 1), GSVD_EIO);
    if (geteuid() != 0)
        GSVD_CHECK_RC(check_at("ro/new.zarr", 0), GSVD_EIO);
    GSVD_CHECK(n_entries() == n0);
    /* paths and URLs no writer takes */
    GSVD_CHECK_RC(gsvd_dest_check("", 0), GSVD_EINVAL);
    GSVD_CHECK_RC(check_at("..", 1), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_dest_check("nosuch://bucket/x.zarr", 0), GSVD_EINVAL);
    GSVD_CHECK_RC(check_at("out.zip", 0), GSVD_EUNSUPPORTED);
#if GSVD_HAVE_CURL
    GSVD_CHECK_RC(gsvd_dest_check("http://127.0.0.1:1/x.zarr", 0), GSVD_EINVAL);
#else
    GSVD_CHECK_RC(gsvd_dest_check("s3://bucket/x.zarr", 0), GSVD_ENOTBUILT);
#endif
    GSVD_CHECK_RC(gsvd_dest_check("mem:dest-test", 0), GSVD_OK);
    GSVD_CHECK(n_entries() == n0);
    /* a check is no reservation: the writer opens the same target afterwards */
    p = at("new.zarr");
    GSVD_CHECK_RC(gsvd_writer_open(p, 0, &w), GSVD_OK);
    GSVD_CHECK_RC(gsvd_writer_commit(w), GSVD_OK);
    gsvd_writer_close(w);
    GSVD_CHECK_RC(gsvd_dest_check(p, 0), GSVD_EIO);
    gsvd_test_remove_tree(p);
    gsvd_free(p);
}

static void test_file(void)
{
    size_t n0 = n_entries();

    GSVD_CHECK_RC(check_file_at("fig.svg", 0), GSVD_OK);
    GSVD_CHECK_RC(check_file_at("d/p.eigenvec", 1), GSVD_OK);
    GSVD_CHECK_RC(check_file_at("d/file.txt", 0), GSVD_EIO);
    GSVD_CHECK_RC(check_file_at("d/file.txt", 1), GSVD_OK);
    GSVD_CHECK(has_text("d/file.txt", "kept"));
    GSVD_CHECK_RC(check_file_at("d/old.zarr", 1), GSVD_EIO); /* a directory */
    GSVD_CHECK_RC(check_file_at("missing/fig.svg", 1), GSVD_EIO);
    GSVD_CHECK_RC(check_file_at("d/file.txt/fig.svg", 1), GSVD_EIO);
    if (access("/sys", F_OK) == 0)
        GSVD_CHECK_RC(gsvd_dest_check_file("/sys/gensvd-test.svg", 1), GSVD_EIO);
    if (geteuid() != 0)
        GSVD_CHECK_RC(check_file_at("ro/fig.svg", 1), GSVD_EIO);
    GSVD_CHECK_RC(gsvd_dest_check_file("", 1), GSVD_EINVAL);
    GSVD_CHECK(n_entries() == n0);
}

int main(int argc, char **argv)
{
    const char *base = getenv("TMPDIR");
    char *p;

    if (gsvd_test_args(argc, argv, "test_dest") != 0)
        return 2;
    snprintf(tmp, sizeof tmp, "%s/test_dest.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "test_dest: cannot create %s\n", tmp);
        return 1;
    }
    p = at("d");
    GSVD_CHECK(mkdir(p, 0777) == 0);
    gsvd_free(p);
    p = at("d/old.zarr");
    GSVD_CHECK(mkdir(p, 0777) == 0);
    gsvd_free(p);
    p = at("ro");
    GSVD_CHECK(mkdir(p, 0555) == 0);
    gsvd_free(p);
    write_text("d/old.zarr/marker", "kept");
    write_text("d/file.txt", "kept");
    test_zarr();
    test_file();
    gsvd_test_remove_tree(tmp);
    return gsvd_test_report("test_dest");
}
