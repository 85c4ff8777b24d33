/* analysis/pdist/pdist_king_miss.c - KING's missing calls counted apart: a segment with few
 * missing calls is counted as if it had none (pairs need only het-het and the unmasked IBS0,
 * two planes and two popcounts, pdist_bitplane.c), and the counts that involve a missing call
 * are added here, per missing call rather than per pair and variant:
 *
 *   n = |Cx & Cy| = bits - |Mx| - |My| + |Mx & My|       (M = not called)
 *   |Px & Cy| = |Px| - |Px & My|,  |Py & Cx| = |Py| - |Py & Mx|
 *   IBS0 = |(Ax ^ Ay) & ~(Px | Py)| - |Mx & By| - |My & Bx|   (B = A & ~P: homozygous alt)
 *
 * The per-item terms come from the segment's popcounts (pdist_bitplane.c); the three pairwise
 * ones are H_K(y, x) = |My & Kx| for K = P, B, M.  For each item y, the segment's variants
 * where y is missing (a list) select rows of the variant-major bitsets P, B, M over the items
 * (the planes transposed back, pdist_bitplane_pack.c), and the selected rows are summed into
 * bit-sliced counters, 256 items at a time: level l holds bit l of every item's count, a row
 * is added by a ripple of ANDs and XORs through the levels its count can reach.  Each
 * segment's counters are added into the band's bit-sliced totals (16 levels), which are read
 * into the pair counts when the band ends, or earlier when an item's total could pass 65,535.
 * The counts are the same integers as the masked kernel's, so the distances are the same
 * bytes.
 *
 * Totals kept: for a row y of the band, H_P, H_B, H_M against every item of the band's
 * columns; for a column y below the band's rows, H_P and H_B against the band's rows only. */
#include "gsvd_config.h"

#include <string.h>

#include "analysis/pdist/pdist_bitplane_internal.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/parallel.h"

enum {
    LEVELS = 16, /* bits of a total: drained before an item's total could pass 65,535 */
    CHUNK = 256, /* items a block of counters covers: 4 words */
    BLOCK = LEVELS * 4,
    ITEMS_PER_TASK = 8,
    PREFETCH = 16 /* rows ahead */
};

struct king_miss {
    size_t n, cap;             /* items; variants a segment holds */
    size_t row0, nb, nx;       /* the band: rows [row0, row0 + nb) x items [row0, n) */
    size_t cx, cb, xw, xw_max; /* 256-item chunks of the nx and the nb items; words a row */
    uint64_t *rows;            /* 3 x cap x xw: the segment's rows P, B, M (variant-major) */
    uint64_t *tot;             /* bit-sliced totals: BLOCK words a block (block_of) */
    size_t tot_cap;            /* words */
    uint32_t *since;           /* per band item: missing calls added since the last drain */
    uint16_t *lists;           /* per worker: cap variants */
    size_t n_workers;
    int dirty; /* totals hold something */
};

/* The block of totals of band item yr, kind k (0 P, 1 B, 2 M), 256-item chunk ch. */
static uint64_t *block_of(const struct king_miss *km, size_t yr, int k, size_t ch)
{
    size_t blk = yr < km->nb ? (yr * 3 + (size_t)k) * km->cx + ch
                             : km->nb * 3 * km->cx + ((yr - km->nb) * 2 + (size_t)k) * km->cb + ch;
    return km->tot + blk * BLOCK;
}

uint64_t gsvd_pd_km_rows_bytes(size_t n, size_t W)
{
    return (uint64_t)3 * 64 * W * ((n + CHUNK - 1) / CHUNK * 4) * sizeof(uint64_t);
}

int gsvd_pd_km_create(struct king_miss **out, size_t n, size_t W, size_t n_threads)
{
    struct king_miss *km = gsvd_calloc(1, sizeof *km);
    size_t words;

    *out = NULL;
    if (!km)
        return GSVD_ENOMEM;
    km->n = n;
    km->cap = 64 * W;
    km->xw_max = (n + CHUNK - 1) / CHUNK * 4;
    km->n_workers = gsvd_parallel_workers(n_threads);
    if (gsvd_mul_size(3 * km->cap, km->xw_max ? km->xw_max : 1, &words) < 0 ||
        words > SIZE_MAX / 8 || !(km->rows = gsvd_alloc_large(words * sizeof(uint64_t))) ||
        !(km->since = gsvd_calloc(n ? n : 1, sizeof *km->since)) ||
        !(km->lists = gsvd_malloc(km->n_workers * km->cap * sizeof *km->lists))) {
        gsvd_pd_km_destroy(km);
        return GSVD_ENOMEM;
    }
    *out = km;
    return GSVD_OK;
}

void gsvd_pd_km_destroy(struct king_miss *km)
{
    if (!km)
        return;
    gsvd_free(km->rows);
    gsvd_free(km->tot);
    gsvd_free(km->since);
    gsvd_free(km->lists);
    gsvd_free(km);
}

int gsvd_pd_km_band(struct king_miss *km, size_t row0, size_t nb)
{
    size_t blocks, words;

    km->row0 = row0;
    km->nb = nb;
    km->nx = km->n - row0;
    km->cx = (km->nx + CHUNK - 1) / CHUNK;
    km->cb = (nb + CHUNK - 1) / CHUNK;
    km->xw = 4 * km->cx;
    blocks = nb * 3 * km->cx + (km->nx - nb) * 2 * km->cb;
    if (gsvd_mul_size(blocks ? blocks : 1, BLOCK, &words) < 0 || words > SIZE_MAX / 8)
        return GSVD_ENOMEM;
    if (words > km->tot_cap) {
        gsvd_free(km->tot);
        km->tot_cap = 0;
        if (!(km->tot = gsvd_alloc_large(words * sizeof(uint64_t))))
            return GSVD_ENOMEM;
        km->tot_cap = words;
    }
    memset(km->tot, 0, words * sizeof(uint64_t));
    memset(km->since, 0, km->nx * sizeof *km->since);
    km->dirty = 0;
    return GSVD_OK;
}

/* ---- reading the totals into the pair counts ------------------------------------------------- */

/* Item x's total in a block (x below 256). */
static uint32_t total_at(const uint64_t *blk, size_t x)
{
    uint32_t v = 0;
    for (int l = 0; l < LEVELS; l++)
        v |= (uint32_t)((blk[4 * l + x / 64] >> (x % 64)) & 1) << l;
    return v;
}

static uint32_t total(const struct king_miss *km, size_t yr, int k, size_t xr)
{
    return total_at(block_of(km, yr, k, xr / CHUNK), xr % CHUNK);
}

struct drain_job {
    struct king_miss *km;
    struct bp *b;
};

/* Band row r: n += |Mr & Mc|, IBS0 -= |Mr & Bc| + |Mc & Br|, |Pr & Cc| -= |Mc & Pr|,
 * |Pc & Cr| -= |Mr & Pc| (the per-item terms were added with each segment). */
static int drain_row(void *ctx, size_t worker, size_t r)
{
    struct drain_job *d = ctx;
    const struct king_miss *km = d->km;
    size_t nc = d->b->nc;
    (void)worker;
    for (size_t c = r + 1; c < nc; c++) {
        uint32_t *cn = d->b->cnt + (r * nc + c) * NK;
        cn[0] += total(km, r, 2, c);
        cn[2] -= total(km, r, 1, c) + total(km, c, 1, r);
        cn[3] -= total(km, c, 0, r);
        cn[4] -= total(km, r, 0, c);
    }
    return GSVD_OK;
}

int gsvd_pd_km_drain(struct king_miss *km, struct bp *b)
{
    struct drain_job d = {.km = km, .b = b};
    int rc;
    if (!km->dirty)
        return GSVD_OK;
    if ((rc = gsvd_parallel_tasks(b->env.n_threads, km->nb, drain_row, &d)) < 0)
        return rc;
    return gsvd_pd_km_band(km, km->row0, km->nb);
}

/* ---- a segment's corrections ----------------------------------------------------------------- */

typedef uint64_t v4 __attribute__((vector_size(32)));

/* (Loads and stores through memcpy: rows and totals need not be 32-byte aligned.) */
#define LD4(v, p) memcpy(&(v), (p), sizeof(v4))
#define ST4(p, v) memcpy((p), &(v), sizeof(v4))

/* The rows list[0..k) of `rows` (xw words apart; 256 items each) summed into bit-sliced
 * counters of D levels (k < 2^D), then added into the block of totals tot. */
static inline __attribute__((always_inline)) void sum_rows_body(const uint16_t *list, size_t k,
                                                                const uint64_t *rows, size_t xw,
                                                                uint64_t *tot, const int D)
{
    v4 c[LEVELS];
    for (int l = 0; l < LEVELS; l++)
        c[l] = (v4){0, 0, 0, 0};
    for (size_t j = 0; j < k; j++) {
        v4 carry;
        /* the rows lie anywhere in the segment's (beyond L2): fetched ahead */
        if (j + PREFETCH < k)
            __builtin_prefetch(rows + (size_t)list[j + PREFETCH] * xw);
        LD4(carry, rows + (size_t)list[j] * xw);
        for (int l = 0; l < D; l++) {
            v4 t = c[l] & carry;
            c[l] ^= carry;
            carry = t;
        }
    }
    v4 carry = {0};
    for (int l = 0; l < LEVELS; l++) {
        v4 a, s;
        LD4(a, tot + 4 * l);
        s = a ^ c[l];
        v4 out = s ^ carry;
        ST4(tot + 4 * l, out);
        carry = (a & c[l]) | (carry & s);
    }
}

typedef void (*sum_rows_fn)(const uint16_t *list, size_t k, const uint64_t *rows, size_t xw,
                            uint64_t *tot);

/* sum_rows_body with a constant depth (the counters stay in registers): k < 2^4, 2^8, ... */
static inline __attribute__((always_inline)) void
sum_rows_any(const uint16_t *list, size_t k, const uint64_t *rows, size_t xw, uint64_t *tot)
{
    if (k < 1u << 4)
        sum_rows_body(list, k, rows, xw, tot, 4);
    else if (k < 1u << 8)
        sum_rows_body(list, k, rows, xw, tot, 8);
    else if (k < 1u << 12)
        sum_rows_body(list, k, rows, xw, tot, 12);
    else
        sum_rows_body(list, k, rows, xw, tot, LEVELS);
}

static void sum_rows(const uint16_t *list, size_t k, const uint64_t *rows, size_t xw, uint64_t *tot)
{
    sum_rows_any(list, k, rows, xw, tot);
}

#if PD_X86
__attribute__((target("avx2"))) static void
sum_rows_avx2(const uint16_t *list, size_t k, const uint64_t *rows, size_t xw, uint64_t *tot)
{
    sum_rows_any(list, k, rows, xw, tot);
}
#endif

struct seg_job {
    struct king_miss *km;
    const struct bp *b;
    const struct segment *seg;
    size_t nw;
    sum_rows_fn sum;
};

static int unpack_word(void *ctx, size_t worker, size_t w)
{
    struct seg_job *j = ctx;
    (void)worker;
    gsvd_pd_bp_unpack_rows(j->b, j->seg->planes, j->seg->bits, j->km->row0, w, j->km->rows,
                           j->km->xw, j->km->cap);
    return GSVD_OK;
}

/* Band item yr: its missing variants, and their rows summed into its totals. */
static void add_item(struct seg_job *j, size_t yr, uint16_t *list)
{
    struct king_miss *km = j->km;
    const uint64_t *cw = j->seg->planes + (km->row0 + yr) * 3 * j->b->W;
    size_t bits = j->seg->bits, k = 0;
    for (size_t w = 0; w < j->nw; w++) {
        uint64_t m = ~cw[w];
        if (w == j->nw - 1 && bits % 64)
            m &= (1ull << (bits % 64)) - 1;
        for (; m; m &= m - 1)
            list[k++] = (uint16_t)(64 * w + (size_t)__builtin_ctzll(m));
    }
    if (k == 0)
        return;
    int kinds = yr < km->nb ? 3 : 2;
    size_t chunks = yr < km->nb ? km->cx : km->cb;
    for (int kind = 0; kind < kinds; kind++)
        for (size_t ch = 0; ch < chunks; ch++)
            j->sum(list, k, km->rows + (size_t)kind * km->cap * km->xw + 4 * ch, km->xw,
                   block_of(km, yr, kind, ch));
}

static int add_items(void *ctx, size_t worker, size_t task)
{
    struct seg_job *j = ctx;
    size_t y0 = task * ITEMS_PER_TASK, y1 = y0 + ITEMS_PER_TASK;
    if (y1 > j->km->nx)
        y1 = j->km->nx;
    for (size_t yr = y0; yr < y1; yr++)
        add_item(j, yr, j->km->lists + worker * j->km->cap);
    return GSVD_OK;
}

int gsvd_pd_km_segment(struct king_miss *km, struct bp *b, const struct segment *seg,
                       const uint32_t *isum)
{
    struct seg_job j = {.km = km, .b = b, .seg = seg, .nw = (seg->bits + 63) / 64, .sum = sum_rows};
    uint32_t worst = 0;
    int rc;

#if PD_X86
    if (b->avx2 || b->avx512)
        j.sum = sum_rows_avx2;
#endif
    for (size_t yr = 0; yr < km->nx; yr++) {
        uint32_t s = km->since[yr] + isum[2 * (km->row0 + yr)];
        worst = s > worst ? s : worst;
    }
    if (worst >= 1u << LEVELS && (rc = gsvd_pd_km_drain(km, b)) < 0)
        return rc;
    if ((rc = gsvd_parallel_tasks(b->env.n_threads, j.nw, unpack_word, &j)) < 0 ||
        (rc = gsvd_parallel_tasks(b->env.n_threads, (km->nx + ITEMS_PER_TASK - 1) / ITEMS_PER_TASK,
                                  add_items, &j)) < 0)
        return rc;
    for (size_t yr = 0; yr < km->nx; yr++)
        km->since[yr] += isum[2 * (km->row0 + yr)];
    km->dirty = 1;
    return GSVD_OK;
}
