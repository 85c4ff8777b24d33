/* tests/fuzz/standalone.c - replays a corpus through a libFuzzer target without libFuzzer.
 * Usage: <target> PATH...  Each PATH is a file or a directory whose regular files (not
 * recursing, in name order) are fed to LLVMFuzzerTestOneInput one by one.  Prints
 * "N passed, M failed" (failed = unreadable input; a bug in the target crashes instead) and
 * exits 0 only when M is 0 and at least one input ran.  Shared by every fuzz target. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <sys/stat.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional in the target, as with libFuzzer. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* Run one file; 0 on success, -1 if it cannot be read. */
static int run_file(const char *path)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    char chunk[65536];
    FILE *fp = fopen(path, "rb");
    size_t n;
    int rc = 0;

    if (!fp) {
        fprintf(stderr, "standalone: cannot open %s\n", path);
        return -1;
    }
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        if (gsvd_buf_append(&b, chunk, n) != GSVD_OK) {
            rc = -1;
            break;
        }
    }
    if (ferror(fp)) {
        fprintf(stderr, "standalone: cannot read %s\n", path);
        rc = -1;
    }
    fclose(fp);
    if (rc == 0) {
        /* an exact-size heap copy, so that ASan sees reads past the end of the input */
        unsigned char *copy = gsvd_malloc(b.len);
        if (copy) {
            if (b.len)
                memcpy(copy, b.data, b.len);
            LLVMFuzzerTestOneInput(copy, b.len);
            gsvd_free(copy);
        } else {
            rc = -1;
        }
    }
    gsvd_buf_free(&b);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add the regular files of directory `dir` to `files`, sorted; -1 on failure. */
static int list_dir(const char *dir, struct gsvd_strlist *files)
{
    struct gsvd_strlist names = GSVD_STRLIST_INIT;
    DIR *d = opendir(dir);
    struct dirent *e;
    int rc = 0;

    if (!d) {
        fprintf(stderr, "standalone: cannot open directory %s\n", dir);
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        char *path;
        struct stat st;

        if (e->d_name[0] == '.')
            continue;
        path = gsvd_asprintf("%s/%s", dir, e->d_name);
        if (!path) {
            rc = -1;
            break;
        }
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
            gsvd_strlist_push(&names, path) != GSVD_OK)
            rc = -1;
        gsvd_free(path);
        if (rc < 0)
            break;
    }
    closedir(d);
    if (names.n > 1)
        qsort(names.items, names.n, sizeof *names.items, cmp_str);
    for (size_t i = 0; rc == 0 && i < names.n; i++)
        if (gsvd_strlist_push(files, names.items[i]) != GSVD_OK)
            rc = -1;
    gsvd_strlist_free(&names);
    return rc;
}

int main(int argc, char **argv)
{
    struct gsvd_strlist files = GSVD_STRLIST_INIT;
    size_t passed = 0, failed = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
        return 2;
    }
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        struct stat st;

        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "standalone: cannot stat %s\n", argv[i]);
            failed++;
        } else if (S_ISDIR(st.st_mode)) {
            if (list_dir(argv[i], &files) < 0)
                failed++;
        } else if (gsvd_strlist_push(&files, argv[i]) != GSVD_OK) {
            failed++;
        }
    }
    for (size_t i = 0; i < files.n; i++) {
        if (run_file(files.items[i]) == 0)
            passed++;
        else
            failed++;
    }
    gsvd_strlist_free(&files);
    printf("%zu passed, %zu failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
