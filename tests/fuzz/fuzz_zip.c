/* tests/fuzz/fuzz_zip.c - libFuzzer target for the zip store (zarr/store_zip.c).
 * Input: a whole zip archive.  It is written to an unlinked temporary file, opened as
 * "zip:///proc/self/fd/N", and every key found by listing two levels deep is read whole, sized
 * and read by range (a prefix and a suffix); then the archive is opened as a Zarr tree and the
 * root's children listed.  Any return code is fine; a crash, leak or sanitizer report is not.
 * Seed corpus: tests/fuzz/corpus/zip/ (tests/fuzz/make_zip_corpus.py).  Built with
 * standalone.c when libFuzzer is not available. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/meta.h"
#include "zarr/store.h"
#include "zarr/tree.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fd = -1;  /* the unlinked scratch file every input is written to */
static char url[64]; /* "zip:///proc/self/fd/N" */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char tmpl[] = "/tmp/gsvd_fuzz_zip_XXXXXX";
    (void)argc;
    (void)argv;
    gsvd_meta_global_init();
    gsvd_log_set_level(GSVD_LOG_OFF); /* every rejected input would log */
    fd = mkstemp(tmpl);
    if (fd >= 0)
        unlink(tmpl);
    snprintf(url, sizeof url, "zip:///proc/self/fd/%d", fd);
    return 0;
}

/* Read one key every way; returns how many reads failed (any count is fine). */
static int read_key(gsvd_store *st, const char *key)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    uint64_t size = 0;
    int n_failed = gsvd_store_get(st, key, &b) < 0;
    gsvd_buf_clear(&b);
    n_failed += gsvd_store_size(st, key, &size) < 0;
    n_failed += gsvd_store_get_range(st, key, 1, 7, 0, &b, &size) < 0;
    gsvd_buf_clear(&b);
    n_failed += gsvd_store_get_range(st, key, 0, 5, 1, &b, &size) < 0;
    gsvd_buf_free(&b);
    return n_failed;
}

/* Read every key under prefix, descending `depth` more levels; returns the failed reads. */
static int walk(gsvd_store *st, const char *prefix, int depth)
{
    struct gsvd_strlist names = GSVD_STRLIST_INIT;
    int n_failed = 0;
    if (gsvd_store_list(st, prefix, &names) < 0)
        goto out;
    for (size_t i = 0; i < names.n; i++) {
        char *key = NULL;
        if (gsvd_key_join(prefix, names.items[i], &key) < 0)
            continue;
        n_failed += read_key(st, key);
        if (depth > 0)
            n_failed += walk(st, key, depth - 1);
        gsvd_free(key);
    }
out:
    gsvd_strlist_free(&names);
    return n_failed;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvd_store *st = NULL;
    gsvd_tree *t = NULL;
    struct gsvd_strlist kids = GSVD_STRLIST_INIT;

    if (fd < 0 || ftruncate(fd, 0) != 0)
        return 0;
    for (size_t done = 0; done < size;) {
        ssize_t w = pwrite(fd, data + done, size - done, (off_t)done);
        if (w <= 0)
            return 0;
        done += (size_t)w;
    }
    if (gsvd_store_open(url, GSVD_STORE_READ, &st) < 0)
        return 0;
    if (walk(st, "", 2) > 0)
        gsvd_log_debug("fuzz_zip: some reads failed"); /* expected for most inputs */
    if (gsvd_tree_open(st, &t) == GSVD_OK && gsvd_tree_children(t, "", &kids) == GSVD_OK)
        gsvd_strlist_sort(&kids);
    gsvd_strlist_free(&kids);
    gsvd_tree_close(t);
    gsvd_store_close(st);
    return 0;
}
