/* tests/unit/test_pca_rebalance.c - what a distributed pca's rebalancing after the first pass
 * rests on: gsvd_pca_split_kept against a brute-force search for the nearest cut, and
 * gsvd_geno_move (keep the cached blocks still owned, read and cache the rest) against a fresh
 * handle opened on the new range: the same kept rows (index, centre, scale, dosage codes), the
 * same per-variant information and counts, on the scan after the move and on the replay after
 * that, with the cache in memory, spilled to a file, or off. */
#include "gsvd_config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/backend_internal.h"
#include "analysis/scan/gblock_std.h"
#include "analysis/scan/genotype.h"
#include "analysis/pca/pca.h"
#include "analysis/simulate.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "gsvd_test.h"
#include "zarr/meta.h"
#include "zarr/store.h"
#include "zarr/tree.h"

/* the program's registry lives in cli/; pca.c's backend calls need one to link */
const struct gsvd_backend_ops *const gsvd_backend_registry[] = {&gsvd_backend_cpu_ops, NULL};

/* ---- gsvd_pca_split_kept ----------------------------------------------------------------------
 */

static uint64_t prefix(const uint64_t *kept, size_t c)
{
    uint64_t p = 0;
    for (size_t j = 0; j < c; j++)
        p += kept[j];
    return p;
}

static uint64_t dist(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

/* Every cut's kept prefix is as near to r / size of the total as any cut's (times size). */
static void check_cuts(const uint64_t *kept, size_t n, int size)
{
    size_t cuts[9];
    uint64_t total = prefix(kept, n), R = (uint64_t)size;
    gsvd_pca_split_kept(kept, n, size, cuts);
    GSVD_CHECK(cuts[0] == 0 && cuts[size] == n);
    for (int r = 1; r < size; r++) {
        uint64_t want = total * (uint64_t)r, best = UINT64_MAX;
        GSVD_CHECK(cuts[r] >= cuts[r - 1] && cuts[r] <= n);
        for (size_t c = 0; c <= n; c++)
            if (dist(prefix(kept, c) * R, want) < best)
                best = dist(prefix(kept, c) * R, want);
        if (total)
            GSVD_CHECK(dist(prefix(kept, cuts[r]) * R, want) == best);
        else
            GSVD_CHECK(cuts[r] == n * (size_t)r / (size_t)size);
    }
}

static void test_split_kept(void)
{
    /* most variants of the first half dropped (the test of tests/mpi): 1/20 kept there */
    static const uint64_t uneven[10] = {410, 410, 410, 410, 2000, 8192, 8192, 8192, 8192, 7232};
    static const uint64_t none[5] = {0};
    size_t cuts[5];
    uint64_t rnd[40], state = 12345;

    gsvd_pca_split_kept(uneven, 10, 2, cuts);
    GSVD_CHECK(cuts[1] == 7); /* 20024 of 43640 before the cut: the nearest to half */
    for (int size = 1; size <= 8; size++) {
        check_cuts(uneven, 10, size);
        check_cuts(none, 5, size);
        for (int trial = 0; trial < 50; trial++) {
            for (size_t j = 0; j < 40; j++) {
                state = state * 6364136223846793005u + 1442695040888963407u;
                rnd[j] = (state >> 33) % 7 == 0 ? 0 : (state >> 40) % 9000;
            }
            check_cuts(rnd, 40, size);
            check_cuts(rnd, 3, size); /* more ranks than groups: empty runs */
        }
    }
    gsvd_pca_split_kept(uneven, 10, 1, cuts);
    GSVD_CHECK(cuts[0] == 0 && cuts[1] == 10);
}

/* ---- gsvd_geno_move ----------------------------------------------------------------------------
 */

#define MAX_V 6000

/* What a scan saw, per variant of the array. */
struct seen {
    uint8_t have[MAX_V], kept[MAX_V];
    double mean[MAX_V], scale[MAX_V];
    float center[MAX_V], zscale[MAX_V];
    uint64_t row_hash[MAX_V];
    uint64_t base; /* the handle's range start: info.first counts from it */
    int bad;       /* a block whose index or rows were not as expected */
};

/* FNV-1a of a row's dosage codes (0, 1, 2, 3 = missing), from 2-bit or int8 rows alike */
static uint64_t row_hash(const struct gsvd_gblock *blk, size_t row)
{
    uint64_t h = 1469598103934665603u;
    size_t n = blk->n_cols, rb = gsvd_std_p2_row_bytes(n);
    for (size_t i = 0; i < n; i++) {
        unsigned code = blk->p2 ? (blk->p2[row * rb + i / 4] >> (2 * (i % 4))) & 3u
                                : (unsigned)(blk->i8[row * n + i] < 0 ? 3 : blk->i8[row * n + i]);
        h = (h ^ code) * 1099511628211u;
    }
    return h;
}

static int record(void *ctx, const struct gsvd_gblock *blk, const struct gsvd_geno_info *info)
{
    struct seen *s = ctx;
    size_t row = 0;
    if (blk->n_rows && !blk->p2 && !blk->i8)
        s->bad = 1;
    for (size_t j = 0; j < info->n_variants; j++) {
        uint64_t v = s->base + info->first + j;
        if (v >= MAX_V || s->have[v]) {
            s->bad = 1;
            continue;
        }
        s->have[v] = 1;
        s->kept[v] = info->kept[j];
        s->mean[v] = info->mean[j];
        s->scale[v] = info->scale[j];
        if (!info->kept[j])
            continue;
        if (row >= blk->n_rows || blk->index[row] != v) {
            s->bad = 1;
            continue;
        }
        s->center[v] = blk->center[row];
        s->zscale[v] = blk->scale[row];
        s->row_hash[v] = row_hash(blk, row);
        row++;
    }
    if (row != blk->n_rows)
        s->bad = 1;
    return GSVD_OK;
}

static int scan(gsvd_geno *g, struct seen *s)
{
    uint64_t a, b;
    memset(s, 0, sizeof *s);
    gsvd_geno_range(g, &a, &b);
    s->base = a;
    return gsvd_geno_scan(g, record, s);
}

static int same(const struct seen *x, const struct seen *y)
{
    return !x->bad && !y->bad && memcmp(x->have, y->have, sizeof x->have) == 0 &&
           memcmp(x->kept, y->kept, sizeof x->kept) == 0 &&
           memcmp(x->mean, y->mean, sizeof x->mean) == 0 &&
           memcmp(x->scale, y->scale, sizeof x->scale) == 0 &&
           memcmp(x->center, y->center, sizeof x->center) == 0 &&
           memcmp(x->zscale, y->zscale, sizeof x->zscale) == 0 &&
           memcmp(x->row_hash, y->row_hash, sizeof x->row_hash) == 0;
}

static struct seen s_ref, s_moved;

/* Open [a, b) with the given cache, scan it, move to [c, d), scan twice; each scan must equal
 * a fresh cached handle's first scan of [c, d). */
static void check_move(gsvd_tree *t, uint64_t cache, const char *spill, uint64_t a, uint64_t b,
                       uint64_t c, uint64_t d)
{
    struct gsvd_geno_params p = GSVD_GENO_PARAMS_DEFAULT;
    gsvd_geno *g = NULL, *ref = NULL;
    struct gsvd_geno_counts want;

    p.cache_bytes = 1 << 30;
    p.n_threads = 2;
    p.maf = 0.1; /* some variants dropped */
    p.var_start = c;
    p.var_stop = d;
    memset(&s_ref, 0, sizeof s_ref);
    memset(&want, 0, sizeof want);
    if (c < d) { /* (an empty range cannot be opened, only moved to) */
        GSVD_CHECK_RC(gsvd_geno_open(t, "", &p, &ref), GSVD_OK);
        GSVD_CHECK_RC(scan(ref, &s_ref), GSVD_OK);
        want = *gsvd_geno_counts(ref);
    }
    p.var_start = 0;
    p.var_stop = 0;
    p.cache_bytes = cache;
    p.cache_dir = spill;
    GSVD_CHECK_RC(gsvd_geno_open(t, "", &p, &g), GSVD_OK);
    GSVD_CHECK_RC(gsvd_geno_restrict(g, a, b), GSVD_OK);
    GSVD_CHECK_RC(scan(g, &s_moved), GSVD_OK);
    GSVD_CHECK_RC(gsvd_geno_move(g, c, d), GSVD_OK);
    GSVD_CHECK_RC(gsvd_geno_move(g, c, d), cache ? GSVD_EINTERNAL : GSVD_OK); /* not scanned */
    for (int pass = 0; pass < 2; pass++) {
        GSVD_CHECK_RC(scan(g, &s_moved), GSVD_OK);
        GSVD_CHECK(same(&s_ref, &s_moved));
        GSVD_CHECK(gsvd_geno_counts(g)->n_range == want.n_range &&
                   gsvd_geno_counts(g)->n_kept == want.n_kept &&
                   gsvd_geno_counts(g)->n_maf == want.n_maf);
        GSVD_CHECK(gsvd_geno_cached(g) == (cache > 0));
    }
    gsvd_geno_close(g);
    gsvd_geno_close(ref);
}

static void test_move(const char *dir, const char *spill)
{
    struct gsvd_sim_params sp = GSVD_SIM_PARAMS_DEFAULT;
    gsvd_store *st = NULL;
    gsvd_tree *t = NULL;
    gsvd_geno *g = NULL;
    struct gsvd_geno_params p = GSVD_GENO_PARAMS_DEFAULT;

    sp.n_variants = MAX_V;
    sp.n_samples = 37;
    sp.missing = 0.05;
    sp.chunk_variants = 700; /* cuts fall inside chunk rows */
    sp.chunk_samples = 37;
    GSVD_CHECK_RC(gsvd_simulate(&sp, dir), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_open(dir, GSVD_STORE_READ, &st), GSVD_OK);
    GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
    if (!t)
        goto out;
    /* grow on both sides, shrink, shift left and right, jump to a disjoint range, empty */
    static const uint64_t moves[][4] = {{1000, 3000, 200, 5100},  {0, 6000, 1500, 2600},
                                        {2048, 4096, 1024, 3072}, {2048, 4096, 3072, 6000},
                                        {0, 1400, 4000, 6000},    {0, 2800, 2800, 2800},
                                        {1400, 2800, 700, 2800}};
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++) {
        check_move(t, 1 << 30, NULL, moves[i][0], moves[i][1], moves[i][2], moves[i][3]);
        check_move(t, 3000, spill, moves[i][0], moves[i][1], moves[i][2], moves[i][3]);
        check_move(t, 0, NULL, moves[i][0], moves[i][1], moves[i][2], moves[i][3]);
    }
    /* outside the range at open */
    p.var_start = 100;
    p.var_stop = 900;
    GSVD_CHECK_RC(gsvd_geno_open(t, "", &p, &g), GSVD_OK);
    GSVD_CHECK_RC(gsvd_geno_move(g, 50, 800), GSVD_EINTERNAL);
    GSVD_CHECK_RC(gsvd_geno_move(g, 200, 901), GSVD_EINTERNAL);
    GSVD_CHECK_RC(gsvd_geno_move(g, 300, 200), GSVD_EINTERNAL);
    GSVD_CHECK_RC(gsvd_geno_move(g, 100, 900), GSVD_OK);
    gsvd_geno_close(g);
out:
    gsvd_tree_close(t);
    gsvd_store_close(st);
}

int main(void)
{
    const char *tmpdir = getenv("TMPDIR");
    char *base, *dir;

    gsvd_meta_global_init();
    gsvd_log_set_level(GSVD_LOG_OFF);
    test_split_kept();
    base = gsvd_asprintf("%s/gsvd_test_rebalance_XXXXXX", tmpdir ? tmpdir : "/tmp");
    GSVD_CHECK(base && mkdtemp(base));
    dir = gsvd_asprintf("%s/sim.vcz", base);
    if (base && dir)
        test_move(dir, base);
    if (dir) {
        char *cmd = gsvd_asprintf("rm -rf '%s'", base);
        if (cmd && system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", base);
        gsvd_free(cmd);
    }
    gsvd_free(dir);
    gsvd_free(base);
    return gsvd_test_report("test_pca_rebalance");
}
