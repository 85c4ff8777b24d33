/* tests/fuzz/fuzz_ind.c - libFuzzer target: the EIGENSTRAT .ind reader of `pca --eigensoft-ind`
 * (cli/pca_text.c, gsvd_cli_ind_read).  The input is written to an unlinked scratch file read as
 * /proc/self/fd/N; the `stderr` stream points at memory during the call.  Checks: an accepted
 * file printed nothing and has rows sorted by strictly increasing ID, every ID and label
 * non-empty without blanks; a refused one printed exactly one line, "gensvd: error: PATH: ...".
 * Built with standalone.c when libFuzzer is not available. */
#define _GNU_SOURCE /* open_memstream */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "cli/pca_out.h"
#include "include/gensvd.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fd = -1;   /* the unlinked scratch file every input is written to */
static char path[64]; /* "/proc/self/fd/N" */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char tmpl[] = "/tmp/gsvd_fuzz_ind_XXXXXX";
    (void)argc;
    (void)argv;
    fd = mkstemp(tmpl);
    if (fd < 0)
        __builtin_trap();
    unlink(tmpl);
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return 0;
}

static int blank_free(const char *s)
{
    return s && *s && !strpbrk(s, " \t");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gsvd_cli_ind ind;
    char *err = NULL, want[96];
    size_t err_len = 0;
    FILE *saved = stderr, *merr;
    int rc;

    if (fd < 0 && LLVMFuzzerInitialize(NULL, NULL) != 0)
        return 0;
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size ||
        !(merr = open_memstream(&err, &err_len)))
        __builtin_trap(); /* the harness, not the code under test */
    stderr = merr;
    rc = gsvd_cli_ind_read(path, &ind);
    stderr = saved;
    fclose(merr);
    snprintf(want, sizeof want, "gensvd: error: %s: ", path);
    if (rc != GENSVD_OK &&
        (strncmp(err, want, strlen(want)) != 0 || strchr(err, '\n') != err + err_len - 1))
        __builtin_trap(); /* one line naming the file */
    if (rc == GENSVD_OK) {
        if (err_len != 0 || ind.n == 0 || !ind.rows)
            __builtin_trap();
        for (size_t i = 0; i < ind.n; i++) {
            if (!blank_free(ind.rows[i].id) || !blank_free(ind.rows[i].label))
                __builtin_trap();
            if (i > 0 && strcmp(ind.rows[i - 1].id, ind.rows[i].id) >= 0)
                __builtin_trap();
        }
    }
    gsvd_cli_ind_free(&ind);
    free(err);
    return 0;
}
