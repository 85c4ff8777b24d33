/* tests/unit/test_ldprune_split.c - the ranks' parts of a distributed ldprune
 * (gsvd_ldprune_split) against a brute-force search: every cut between two runs of equal
 * contig (or at the range's ends), each the one nearest to r / size of the variants (the lower
 * on a tie); nothing cut when a contig has two runs; parts may be empty; random contig layouts
 * and sizes 1 to 6, and the edge cases (no variant, one contig, one variant per contig). */
#include "gsvd_config.h"

#include <stdint.h>
#include <stdlib.h>

#include "analysis/ldprune/ldprune.h"
#include "common/err.h"
#include "common/log.h"
#include "gsvd_test.h"

/* 1: k (0 <= k <= n) may be cut at: an end, or the start of a run, with no contig on both
 * sides of it when no contig repeats; 0 for inner points when some contig has two runs. */
static int cut_ok(const int64_t *c, uint64_t n, uint64_t k, int repeats)
{
    if (k == 0 || k == n)
        return 1;
    return !repeats && c[k] != c[k - 1];
}

static int has_repeats(const int64_t *c, uint64_t n)
{
    for (uint64_t k = 1; k < n; k++) {
        if (c[k] == c[k - 1])
            continue;
        for (uint64_t j = 0; j < k; j++)
            if (c[j] == c[k])
                return 1;
    }
    return 0;
}

static void check_layout(const int64_t *c, uint64_t n, int size)
{
    uint64_t cuts[8], want;
    int repeats = has_repeats(c, n);

    GSVD_CHECK_RC(gsvd_ldprune_split(c, n, size, cuts), GSVD_OK);
    GSVD_CHECK(cuts[0] == 0 && cuts[size] == n);
    for (int r = 1; r < size; r++) {
        /* the brute force: the valid cut nearest to r * n / size, the lower on a tie; all on
         * rank 0 when a contig repeats */
        uint64_t best = 0;
        double target = (double)n * r / size, bd = 1e300;
        for (uint64_t k = 0; k <= n; k++) {
            double d = k > target ? k - target : target - k;
            if (cut_ok(c, n, k, repeats) && d < bd) {
                bd = d;
                best = k;
            }
        }
        want = repeats ? n : best;
        GSVD_CHECK(cuts[r] == want);
        GSVD_CHECK(cuts[r] >= cuts[r - 1]);
    }
}

int main(void)
{
    int64_t c[64];

    gsvd_log_set_level(GSVD_LOG_OFF);
    srand(7);
    for (int trial = 0; trial < 2000; trial++) {
        uint64_t n = (uint64_t)(rand() % 40);
        int mode = rand() % 3, contig = 0;
        for (uint64_t k = 0; k < n; k++) {
            if (k && rand() % (mode == 0 ? 2 : 8) == 0)
                contig = mode == 2 && rand() % 4 == 0 ? rand() % 3 : contig + 1; /* 2: repeats */
            c[k] = contig;
        }
        check_layout(c, n, 1 + rand() % 6);
    }
    /* the edge cases by hand: no variant, one contig, contigs 4 + 2 + 6 for 3 ranks (targets
     * 4 and 8: cuts at 4 and at 6 (2 from 8, against 12 at 4)), a tie (2 + 2 for 2 ranks at
     * target 2 -> 2; 1 + 2 + 1 for 2 ranks at 2 is 1 or 3: the lower) */
    {
        uint64_t cuts[4];
        int64_t one[5] = {3, 3, 3, 3, 3}, three[12] = {0, 0, 0, 0, 1, 1, 2, 2, 2, 2, 2, 2};
        int64_t tie[4] = {0, 1, 1, 2}, rep[4] = {0, 1, 0, 2};
        GSVD_CHECK_RC(gsvd_ldprune_split(one, 0, 3, cuts), GSVD_OK);
        GSVD_CHECK(cuts[0] == 0 && cuts[1] == 0 && cuts[2] == 0 && cuts[3] == 0);
        GSVD_CHECK_RC(gsvd_ldprune_split(one, 5, 3, cuts), GSVD_OK);
        GSVD_CHECK(cuts[1] == 0 && cuts[2] == 5 && cuts[3] == 5);
        GSVD_CHECK_RC(gsvd_ldprune_split(three, 12, 3, cuts), GSVD_OK);
        GSVD_CHECK(cuts[1] == 4 && cuts[2] == 6 && cuts[3] == 12);
        GSVD_CHECK_RC(gsvd_ldprune_split(tie, 4, 2, cuts), GSVD_OK);
        GSVD_CHECK(cuts[1] == 1 && cuts[2] == 4);
        GSVD_CHECK_RC(gsvd_ldprune_split(rep, 4, 3, cuts), GSVD_OK);
        GSVD_CHECK(cuts[1] == 4 && cuts[2] == 4 && cuts[3] == 4);
    }
    return gsvd_test_report("test_ldprune_split");
}
