/* tests/unit/test_strlist.c - common/buf.h's string lists: the index by value
 * (gsvd_str_order, gsvd_str_find) against a linear search of the same list, on sample IDs as
 * stores hold them (shared prefixes, digits that sort as text, an empty ID, a repeated one) and
 * on an empty list. */
#include "gsvd_config.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "gsvd_test.h"

static ptrdiff_t linear(const struct gsvd_strlist *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->items[i], s) == 0)
            return (ptrdiff_t)i;
    return -1;
}

static void check_index(void)
{
    static const char *const ids[] = {"NA12878",   "NA12891", "HG00096", "NA1289",  "",
                                      "HG00096_2", "10",      "9",       "NA12892", "a"};
    static const char *const absent[] = {"NA1287", "NA128920", "HG", "1", "b", "NA12893"};
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    size_t *order = NULL, n = sizeof ids / sizeof *ids;

    for (size_t i = 0; i < n; i++)
        GSVD_CHECK_RC(gsvd_strlist_push(&l, ids[i]), GSVD_OK);
    order = gsvd_str_order(l.items, l.n);
    GSVD_CHECK(order != NULL);
    for (size_t i = 1; order && i < n; i++) { /* strcmp order; equal items by position */
        int c = strcmp(l.items[order[i - 1]], l.items[order[i]]);
        GSVD_CHECK(c < 0 || (c == 0 && order[i - 1] < order[i]));
    }
    for (size_t i = 0; order && i < n; i++) {
        ptrdiff_t at = gsvd_str_find(l.items, order, l.n, ids[i]);
        GSVD_CHECK(at >= 0 && strcmp(l.items[at], ids[i]) == 0 &&
                   (at == linear(&l, ids[i]) || strcmp(ids[i], "NA12891") == 0));
    }
    for (size_t i = 0; order && i < sizeof absent / sizeof *absent; i++)
        GSVD_CHECK(gsvd_str_find(l.items, order, l.n, absent[i]) == -1);
    gsvd_free(order);
    gsvd_strlist_free(&l);

    order = gsvd_str_order(l.items, l.n); /* empty: a valid order of nothing */
    GSVD_CHECK(order != NULL && gsvd_str_find(l.items, order, l.n, "x") == -1);
    gsvd_free(order);
}

int main(int argc, char **argv)
{
    int rc = gsvd_test_args(argc, argv, "test_strlist");
    if (rc)
        return rc;
    check_index();
    return gsvd_test_report("test_strlist");
}
