/* tests/fuzz/fuzz_list.c - libFuzzer target for the object-store listing parsers
 * (zarr/list_parse.h).  The input is one listing page, fed whole to gsvd_list_parse_s3 (XML)
 * and gsvd_list_parse_gcs (JSON) under the prefixes "" and "p/".  Any return code is fine; a
 * crash, leak or sanitizer report is not.  A successful parse must give names that are
 * non-empty, hold no '/', and at most GSVD_LIST_MAX_VALUE bytes, and a token only when one is
 * non-empty.  Built with standalone.c when libFuzzer is not available. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/list_parse.h"
#include "zarr/meta.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gsvd_meta_global_init();          /* cJSON through gsvd_malloc, as in main() */
    gsvd_log_set_level(GSVD_LOG_OFF); /* every rejected input would log */
    return 0;
}

static void check(int rc, struct gsvd_strlist *names, char *token)
{
    if (rc == GSVD_OK) {
        gsvd_list_unique(names);
        for (size_t i = 0; i < names->n; i++) {
            size_t n = strlen(names->items[i]);
            if (n == 0 || n > GSVD_LIST_MAX_VALUE || strchr(names->items[i], '/') ||
                (i > 0 && strcmp(names->items[i - 1], names->items[i]) >= 0))
                __builtin_trap();
        }
        if (token && !*token)
            __builtin_trap();
    } else if (token) {
        __builtin_trap(); /* a failed parse leaves no token */
    }
    gsvd_free(token);
    gsvd_strlist_free(names);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const prefixes[] = {"", "p/"};
    const char *text = (const char *)data;

    for (size_t i = 0; i < GSVD_ARRAY_LEN(prefixes); i++) {
        struct gsvd_strlist names = GSVD_STRLIST_INIT;
        char *token = NULL;
        int rc = gsvd_list_parse_s3(text, size, prefixes[i], "fuzz", &names, &token);
        check(rc, &names, token);
        token = NULL;
        rc = gsvd_list_parse_gcs(text, size, prefixes[i], "fuzz", &names, &token);
        check(rc, &names, token);
    }
    return 0;
}
