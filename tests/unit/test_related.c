/* tests/unit/test_related.c - the greedy selection of analysis/related/related.h against plink2
 * --king-cutoff: every case below is a kinship graph given to plink2 2.00a3.5 as a .king.bin
 * (related pairs at 0.3, the rest 0, cutoff 0.1) and the set plink2 kept (its
 * .king.cutoff.in.id), for paths, stars, a triangle with a tail and 4-cycles under several
 * labellings; plus the bad inputs. */
#include "gsvd_config.h"

#include <string.h>

#include "analysis/backend_internal.h"
#include "analysis/related/related.h"
#include "common/err.h"
#include "gsvd_test.h"

/* the library's one registry symbol (lib/backend_registry.c in the binary) */
const struct gsvd_backend_ops *const gsvd_backend_registry[] = {&gsvd_backend_cpu_ops, NULL};

struct graph {
    size_t n, n_pairs;
    uint32_t pairs[16];
    const char *kept; /* plink2's answer: '1' kept, '0' removed */
};

static const struct graph cases[] = {
    {2, 1, {0, 1}, "10"},                      /* a pair: the second goes */
    {3, 3, {0, 1, 0, 2, 1, 2}, "010"},         /* a triangle */
    {4, 2, {0, 3, 1, 2}, "1100"},              /* two pairs */
    {5, 0, {0}, "11111"},                      /* nobody related */
    {4, 3, {0, 1, 1, 2, 2, 3}, "1010"},        /* P4 */
    {4, 3, {0, 1, 1, 3, 2, 3}, "1010"},        /* P4 */
    {4, 3, {0, 2, 1, 2, 1, 3}, "1100"},        /* P4 */
    {4, 3, {0, 2, 1, 3, 2, 3}, "1100"},        /* P4 */
    {4, 3, {0, 3, 1, 2, 1, 3}, "1100"},        /* P4 */
    {4, 3, {0, 3, 1, 2, 2, 3}, "1100"},        /* P4 */
    {4, 3, {0, 1, 0, 2, 0, 3}, "0111"},        /* S4 */
    {4, 3, {0, 1, 1, 2, 1, 3}, "1011"},        /* S4 */
    {4, 3, {0, 2, 1, 2, 2, 3}, "1101"},        /* S4 */
    {4, 3, {0, 3, 1, 3, 2, 3}, "1110"},        /* S4 */
    {5, 4, {0, 1, 1, 2, 2, 3, 3, 4}, "10101"}, /* P5 */
    {5, 4, {0, 1, 1, 2, 2, 4, 3, 4}, "10110"}, /* P5 */
    {5, 4, {0, 1, 1, 3, 2, 3, 2, 4}, "10011"}, /* P5 */
    {5, 4, {0, 1, 1, 3, 2, 4, 3, 4}, "10110"}, /* P5 */
    {5, 4, {0, 1, 1, 4, 2, 3, 2, 4}, "10011"}, /* P5 */
    {5, 4, {0, 1, 1, 4, 2, 3, 3, 4}, "10101"}, /* P5 */
    {4, 4, {0, 1, 0, 2, 1, 2, 2, 3}, "1001"},  /* T+1 */
    {4, 4, {0, 1, 0, 3, 1, 3, 2, 3}, "1010"},  /* T+1 */
    {4, 4, {0, 1, 0, 2, 1, 2, 1, 3}, "1001"},  /* T+1 */
    {4, 4, {0, 2, 0, 3, 1, 3, 2, 3}, "1100"},  /* T+1 */
    {4, 4, {0, 1, 0, 3, 1, 2, 1, 3}, "1010"},  /* T+1 */
    {4, 4, {0, 2, 0, 3, 1, 2, 2, 3}, "1100"},  /* T+1 */
    {4, 4, {0, 1, 0, 3, 1, 2, 2, 3}, "0101"},  /* C4 */
    {4, 4, {0, 1, 0, 2, 1, 3, 2, 3}, "0110"},  /* C4 */
    {4, 4, {0, 2, 0, 3, 1, 2, 1, 3}, "0011"},  /* C4 */
    {3, 2, {0, 1, 1, 2}, "101"},               /* P3 */
    {3, 2, {0, 2, 1, 2}, "110"},               /* P3 */
    {3, 2, {0, 1, 0, 2}, "011"},               /* P3 */
};

int main(void)
{
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const struct graph *g = &cases[c];
        uint8_t keep[8];
        char got[9] = {0};
        int64_t removed = gsvd_related_select(g->n, g->pairs, g->n_pairs, keep);
        size_t want_removed = 0;
        for (size_t i = 0; i < g->n; i++) {
            got[i] = keep[i] ? '1' : '0';
            want_removed += g->kept[i] == '0';
        }
        GSVD_CHECK(removed == (int64_t)want_removed);
        GSVD_CHECK(strcmp(got, g->kept) == 0);
        if (strcmp(got, g->kept) != 0)
            fprintf(stderr, "  case %zu: kept %s, plink2 %s\n", c, got, g->kept);
    }
    {
        /* a long chain 0-1-2-...: every other sample from the first leaf's end */
        enum { N = 1001 };
        static uint32_t pairs[2 * (N - 1)];
        static uint8_t keep[N];
        for (uint32_t i = 0; i + 1 < N; i++) {
            pairs[2 * i] = i;
            pairs[2 * i + 1] = i + 1;
        }
        GSVD_CHECK(gsvd_related_select(N, pairs, N - 1, keep) == N / 2);
        for (size_t i = 0; i < N; i++)
            GSVD_CHECK(keep[i] == (i % 2 == 0));
    }
    {
        uint8_t keep[4];
        const uint32_t self[] = {1, 1}, far[] = {0, 4};
        GSVD_CHECK(gsvd_related_select(4, self, 1, keep) == GSVD_EINVAL);
        GSVD_CHECK(gsvd_related_select(4, far, 1, keep) == GSVD_EINVAL);
    }
    return gsvd_test_report("test_related");
}
