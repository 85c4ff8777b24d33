/* analysis/pdist/pdist_bitplane_apart.c - a segment's few missing calls counted apart, for
 * KING (and ibs0) and the L1 metrics (ibs, cityblock): the segment is counted as if it had no
 * missing call (the unmasked pair functions of pdist_bitplane.c: two planes and two popcounts
 * for KING, no called mask for L1), and the counts a missing call changes are added here, per
 * missing call rather than per pair and variant (M = not called):
 *
 *   n = |Cx & Cy| = bits - |Mx| - |My| + |Mx & My|
 *   KING: |Px & Cy| = |Px| - |Px & My|,  |Py & Cx| = |Py| - |Py & Mx|,
 *         IBS0 = |(Ax ^ Ay) & ~(Px | Py)| - |Mx & By| - |My & Bx|   (B = A & ~P: hom alt)
 *   L1:   sum |u - v| = |Ax ^ Ay| + |Bx ^ By| - |Mx & Ay| - |Mx & By| - |My & Ax| - |My & Bx|
 *         (B = [g >= 2]; where x is missing its planes are 0 and y's dosage was counted)
 *
 * The per-item terms come from the segment's popcounts (pdist_bitplane.c); the pairwise ones
 * are H_K(y, x) = |My & Kx| for three kinds K: P, B, M (KING) or A, B, M (L1).  For each item
 * y, the segment's variants where y is missing (a list) select rows of the variant-major
 * bitsets of the kinds over the items (the planes transposed back, pdist_bitplane_pack.c), and
 * the selected rows are summed into bit-sliced counters, 256 items at a time: level l holds
 * bit l of every item's count, a row is added by a ripple of ANDs and XORs through the levels
 * its count can reach.  Each segment's counters are added into the band's bit-sliced totals
 * (16 levels), which are read into the pair counts when the band ends, or earlier when an
 * item's total could pass 65,535.  The counts are the same integers as the masked kernel's,
 * so the distances are the same bytes.
 *
 * Totals kept: for a row y of the band, kinds 0, 1, 2 against every item of the band's
 * columns; for a column y below the band's rows, kinds 0 and 1 against the band's rows. */
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

struct apart {
    size_t n, cap;             /* items; variants a segment holds */
    size_t row0, nb, nx;       /* the band: rows [row0, row0 + nb) x items [row0, n) */
    size_t cx, cb, xw, xw_max; /* 256-item chunks of the nx and the nb items; words a row */
    uint64_t *rows;            /* 3 x cap x xw: the segment's rows of kinds 0, 1, 2 */
    uint64_t *tot;             /* bit-sliced totals: BLOCK words a block (block_of) */
    size_t tot_cap;            /* words */
    uint32_t *since;           /* per band item: missing calls added since the last drain */
    int l1;                    /* kinds A, B, M for the L1 counts (else P, B, M for KING) */
    uint16_t *lists;           /* per worker: cap variants */
    size_t n_workers;
    int dirty; /* totals hold something */
};

/* The block of totals of band item yr, kind k (0 P or A, 1 B, 2 M), 256-item chunk ch. */
static uint64_t *block_of(const struct apart *ap, size_t yr, int k, size_t ch)
{
    size_t blk = yr < ap->nb ? (yr * 3 + (size_t)k) * ap->cx + ch
                             : ap->nb * 3 * ap->cx + ((yr - ap->nb) * 2 + (size_t)k) * ap->cb + ch;
    return ap->tot + blk * BLOCK;
}

uint64_t gsvd_pd_apart_rows_bytes(size_t n, size_t W)
{
    return (uint64_t)3 * 64 * W * ((n + CHUNK - 1) / CHUNK * 4) * sizeof(uint64_t);
}

int gsvd_pd_apart_create(struct apart **out, size_t n, size_t W, size_t n_threads, int l1)
{
    struct apart *ap = gsvd_calloc(1, sizeof *ap);
    size_t words;

    *out = NULL;
    if (!ap)
        return GSVD_ENOMEM;
    ap->n = n;
    ap->l1 = l1;
    ap->cap = 64 * W;
    ap->xw_max = (n + CHUNK - 1) / CHUNK * 4;
    ap->n_workers = gsvd_parallel_workers(n_threads);
    if (gsvd_mul_size(3 * ap->cap, ap->xw_max ? ap->xw_max : 1, &words) < 0 ||
        words > SIZE_MAX / 8 || !(ap->rows = gsvd_alloc_large(words * sizeof(uint64_t))) ||
        !(ap->since = gsvd_calloc(n ? n : 1, sizeof *ap->since)) ||
        !(ap->lists = gsvd_malloc(ap->n_workers * ap->cap * sizeof *ap->lists))) {
        gsvd_pd_apart_destroy(ap);
        return GSVD_ENOMEM;
    }
    *out = ap;
    return GSVD_OK;
}

void gsvd_pd_apart_destroy(struct apart *ap)
{
    if (!ap)
        return;
    gsvd_free(ap->rows);
    gsvd_free(ap->tot);
    gsvd_free(ap->since);
    gsvd_free(ap->lists);
    gsvd_free(ap);
}

int gsvd_pd_apart_band(struct apart *ap, size_t row0, size_t nb)
{
    size_t blocks, words;

    ap->row0 = row0;
    ap->nb = nb;
    ap->nx = ap->n - row0;
    ap->cx = (ap->nx + CHUNK - 1) / CHUNK;
    ap->cb = (nb + CHUNK - 1) / CHUNK;
    ap->xw = 4 * ap->cx;
    blocks = nb * 3 * ap->cx + (ap->nx - nb) * 2 * ap->cb;
    if (gsvd_mul_size(blocks ? blocks : 1, BLOCK, &words) < 0 || words > SIZE_MAX / 8)
        return GSVD_ENOMEM;
    if (words > ap->tot_cap) {
        gsvd_free(ap->tot);
        ap->tot_cap = 0;
        if (!(ap->tot = gsvd_alloc_large(words * sizeof(uint64_t))))
            return GSVD_ENOMEM;
        ap->tot_cap = words;
    }
    memset(ap->tot, 0, words * sizeof(uint64_t));
    memset(ap->since, 0, ap->nx * sizeof *ap->since);
    ap->dirty = 0;
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

static uint32_t total(const struct apart *ap, size_t yr, int k, size_t xr)
{
    return total_at(block_of(ap, yr, k, xr / CHUNK), xr % CHUNK);
}

struct drain_job {
    struct apart *ap;
    struct bp *b;
};

/* Band row r: n += |Mr & Mc|; KING: IBS0 -= |Mr & Bc| + |Mc & Br|, |Pr & Cc| -= |Mc & Pr|,
 * |Pc & Cr| -= |Mr & Pc|; L1: the sum -= |Mr & Ac| + |Mr & Bc| + |Mc & Ar| + |Mc & Br| (the
 * per-item terms were added with each segment). */
static int drain_row(void *ctx, size_t worker, size_t r)
{
    struct drain_job *d = ctx;
    const struct apart *ap = d->ap;
    size_t nc = d->b->nc, nct = d->b->ncnt;
    (void)worker;
    for (size_t c = r + 1; c < nc; c++) {
        uint32_t *cn = d->b->cnt + (r * nc + c) * nct;
        cn[0] += total(ap, r, 2, c);
        if (ap->l1) {
            cn[1] -=
                total(ap, r, 0, c) + total(ap, r, 1, c) + total(ap, c, 0, r) + total(ap, c, 1, r);
            continue;
        }
        cn[2] -= total(ap, r, 1, c) + total(ap, c, 1, r);
        cn[3] -= total(ap, c, 0, r);
        cn[4] -= total(ap, r, 0, c);
    }
    return GSVD_OK;
}

int gsvd_pd_apart_drain(struct apart *ap, struct bp *b)
{
    struct drain_job d = {.ap = ap, .b = b};
    int rc;
    if (!ap->dirty)
        return GSVD_OK;
    if ((rc = gsvd_parallel_tasks(b->env.n_threads, ap->nb, drain_row, &d)) < 0)
        return rc;
    return gsvd_pd_apart_band(ap, ap->row0, ap->nb);
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
    struct apart *ap;
    const struct bp *b;
    const struct segment *seg;
    size_t nw;
    sum_rows_fn sum;
};

static int unpack_word(void *ctx, size_t worker, size_t w)
{
    struct seg_job *j = ctx;
    (void)worker;
    gsvd_pd_bp_unpack_rows(j->b, j->seg->planes, j->seg->bits, j->ap->row0, w, j->ap->rows,
                           j->ap->xw, j->ap->cap);
    return GSVD_OK;
}

/* Band item yr: its missing variants, and their rows summed into its totals. */
static void add_item(struct seg_job *j, size_t yr, uint16_t *list)
{
    struct apart *ap = j->ap;
    const uint64_t *cw = j->seg->planes + (ap->row0 + yr) * 3 * j->b->W;
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
    int kinds = yr < ap->nb ? 3 : 2;
    size_t chunks = yr < ap->nb ? ap->cx : ap->cb;
    for (int kind = 0; kind < kinds; kind++)
        for (size_t ch = 0; ch < chunks; ch++)
            j->sum(list, k, ap->rows + (size_t)kind * ap->cap * ap->xw + 4 * ch, ap->xw,
                   block_of(ap, yr, kind, ch));
}

static int add_items(void *ctx, size_t worker, size_t task)
{
    struct seg_job *j = ctx;
    size_t y0 = task * ITEMS_PER_TASK, y1 = y0 + ITEMS_PER_TASK;
    if (y1 > j->ap->nx)
        y1 = j->ap->nx;
    for (size_t yr = y0; yr < y1; yr++)
        add_item(j, yr, j->ap->lists + worker * j->ap->cap);
    return GSVD_OK;
}

int gsvd_pd_apart_segment(struct apart *ap, struct bp *b, const struct segment *seg,
                          const uint32_t *isum)
{
    struct seg_job j = {.ap = ap, .b = b, .seg = seg, .nw = (seg->bits + 63) / 64, .sum = sum_rows};
    uint32_t worst = 0;
    int rc;

#if PD_X86
    if (b->avx2 || b->avx512)
        j.sum = sum_rows_avx2;
#endif
    for (size_t yr = 0; yr < ap->nx; yr++) {
        uint32_t s = ap->since[yr] + isum[2 * (ap->row0 + yr)];
        worst = s > worst ? s : worst;
    }
    if (worst >= 1u << LEVELS && (rc = gsvd_pd_apart_drain(ap, b)) < 0)
        return rc;
    if ((rc = gsvd_parallel_tasks(b->env.n_threads, j.nw, unpack_word, &j)) < 0 ||
        (rc = gsvd_parallel_tasks(b->env.n_threads, (ap->nx + ITEMS_PER_TASK - 1) / ITEMS_PER_TASK,
                                  add_items, &j)) < 0)
        return rc;
    for (size_t yr = 0; yr < ap->nx; yr++)
        ap->since[yr] += isum[2 * (ap->row0 + yr)];
    ap->dirty = 1;
    return GSVD_OK;
}
