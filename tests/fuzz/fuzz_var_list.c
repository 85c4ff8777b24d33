/* tests/fuzz/fuzz_var_list.c - libFuzzer target for the variant-list parser of `--extract`,
 * `--exclude` and their -bed and -range forms (analysis/scan/var_list.h).  The input is one
 * file's bytes, parsed as IDs, as 0-based BED ranges and as 1-based ranges.  Any return code
 * is fine; a crash, leak or sanitizer report is not.  An accepted file must give IDs that are
 * non-empty, blank-free and strictly increasing, and ranges with 0 <= lo <= hi on a contig the
 * list names (non-empty, blank-free); and the two range forms accept the same files, but for
 * BED's empty ranges (END = START), with the same ranges shifted by one.  Built with
 * standalone.c when libFuzzer is not available.  The same bytes also go through the sample-ID
 * parser of `--keep` and `--remove` (sample_list.h): accepted, its IDs are non-empty,
 * blank-free and strictly increasing. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analysis/scan/sample_list.h"
#include "analysis/scan/var_list.h"
#include "common/err.h"
#include "common/log.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gsvd_log_set_level(GSVD_LOG_OFF); /* every rejected input would log */
    return 0;
}

static int word(const char *s)
{
    return s && *s && !strpbrk(s, " \t\r\n\v\f");
}

static void check_ranges(const struct gsvd_var_list *l)
{
    for (size_t i = 0; i < l->contigs.n; i++)
        if (!word(l->contigs.items[i]) || l->contigs.items[i][0] == '#')
            __builtin_trap();
    for (size_t i = 0; i < l->n_range; i++)
        if (l->range[i].contig >= l->contigs.n || l->range[i].lo < 0 ||
            l->range[i].hi < l->range[i].lo)
            __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct gsvd_var_list ids, b0, b1;
    int rc, rc0, rc1;

    rc = gsvd_var_list_parse(text, size, GSVD_VAR_LIST_IDS, 0, "fuzz", &ids);
    if (rc == GSVD_OK)
        for (size_t i = 0; i < ids.ids.n; i++)
            if (!word(ids.ids.items[i]) ||
                (i > 0 && strcmp(ids.ids.items[i - 1], ids.ids.items[i]) >= 0))
                __builtin_trap();
    rc0 = gsvd_var_list_parse(text, size, GSVD_VAR_LIST_BED0, 1, "fuzz", &b0);
    rc1 = gsvd_var_list_parse(text, size, GSVD_VAR_LIST_BED1, 0, "fuzz", &b1);
    if (rc0 == GSVD_OK) {
        check_ranges(&b0);
        if (rc1 != GSVD_OK || b1.n_range != b0.n_range)
            __builtin_trap(); /* whatever BED accepts, the closed form accepts */
        for (size_t i = 0; i < b0.n_range; i++)
            if (b0.range[i].lo != b1.range[i].lo + 1 || b0.range[i].hi != b1.range[i].hi)
                __builtin_trap();
    }
    if (rc1 == GSVD_OK)
        check_ranges(&b1);
    {
        struct gsvd_strlist s = GSVD_STRLIST_INIT;
        if (gsvd_sample_list_parse(text, size, "fuzz", &s) == GSVD_OK)
            for (size_t i = 0; i < s.n; i++)
                if (!word(s.items[i]) || (i > 0 && strcmp(s.items[i - 1], s.items[i]) >= 0))
                    __builtin_trap();
        gsvd_strlist_free(&s);
    }
    gsvd_var_list_free(&ids);
    gsvd_var_list_free(&b0);
    gsvd_var_list_free(&b1);
    return 0;
}
