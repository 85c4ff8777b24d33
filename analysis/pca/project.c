/* analysis/pca/project.c - projection onto saved principal components (project.h): variant
 * matching, the scan that accumulates the scores, and the shrinkage corrections. */
#include "gsvd_config.h"
#include "analysis/pca/project.h"
#include "analysis/pca/project_internal.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "analysis/cpu/blas_room.h"
#include "analysis/scan/gblock_std.h"
#include "common/alloc.h"
#include "common/comm.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parallel.h"
#include "common/xsum.h"

const char *gsvd_shrinkage_name(enum gsvd_shrinkage s)
{
    return s == GSVD_SHRINK_AP ? "ap" : s == GSVD_SHRINK_OADP ? "oadp" : "none";
}

const char *gsvd_proj_missing_name(enum gsvd_proj_missing m)
{
    return m == GSVD_PROJ_MISSING_LSQ ? "lsq" : "mean";
}

void gsvd_project_map_free(struct gsvd_project_map *m)
{
    if (!m)
        return;
    gsvd_free(m->ref);
    gsvd_free(m->flip);
    memset(m, 0, sizeof *m);
}

static int map_alloc(uint64_t n, struct gsvd_project_map *out)
{
    memset(out, 0, sizeof *out);
    out->ref = gsvd_malloc((size_t)(n ? n : 1) * sizeof *out->ref);
    out->flip = gsvd_calloc((size_t)(n ? n : 1), 1);
    if (!out->ref || !out->flip) {
        gsvd_project_map_free(out);
        return GSVD_ENOMEM;
    }
    out->n = n;
    for (uint64_t i = 0; i < n; i++)
        out->ref[i] = -1;
    return GSVD_OK;
}

int gsvd_project_map_identity(uint64_t m, const uint8_t *included, struct gsvd_project_map *out)
{
    int rc = map_alloc(m, out);
    for (uint64_t j = 0; rc == GSVD_OK && j < m; j++)
        if (included[j]) {
            out->ref[j] = (int64_t)j;
            out->counts.ref_used++;
            out->counts.matched++;
        }
    if (rc == GSVD_OK)
        out->counts.target = m;
    return rc;
}

static uint64_t key_hash(const char *contig, int64_t pos)
{
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *c = (const unsigned char *)contig; *c; c++)
        h = (h ^ *c) * 1099511628211ull;
    h ^= (uint64_t)pos * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    return h * 0xbf58476d1ce4e5b9ull;
}

/* 1: the two single-base alleles of a biallelic list are complementary (A/T, C/G). */
static int ambiguous(const char *a, size_t la, const char *b, size_t lb)
{
    if (la != 1 || lb != 1)
        return 0;
    char x = a[0], y = b[0];
    return (x == 'A' && y == 'T') || (x == 'T' && y == 'A') || (x == 'C' && y == 'G') ||
           (x == 'G' && y == 'C');
}

/* Compare allele lists: 1 the same, 2 swapped (biallelic), 3 swapped but strand-ambiguous,
 * 0 other. */
static int compare_alleles(const char *r, const char *t)
{
    const char *rc = strchr(r, ','), *tc = strchr(t, ',');
    if (strcmp(r, t) == 0)
        return 1;
    if (!rc || !tc || strchr(rc + 1, ',') || strchr(tc + 1, ','))
        return 0;
    size_t r0 = (size_t)(rc - r), t0 = (size_t)(tc - t);
    const char *r1 = rc + 1, *t1 = tc + 1;
    if (strlen(r1) == t0 && strncmp(r1, t, t0) == 0 && strlen(t1) == r0 && strncmp(t1, r, r0) == 0)
        return ambiguous(r, r0, r1, strlen(r1)) ? 3 : 2;
    return 0;
}

int gsvd_project_match(const struct gsvd_variant_ids *ref, const uint8_t *ref_included,
                       const struct gsvd_variant_ids *target, struct gsvd_project_map *out)
{
    size_t cap = 16;
    int64_t *table = NULL;
    uint8_t *taken = NULL;
    int rc;

    GSVD_TRY(map_alloc(target->n, out));
    out->counts.target = target->n;
    while (cap < 2 * ref->n + 16)
        cap *= 2;
    table = gsvd_malloc(cap * sizeof *table);
    taken = gsvd_calloc((size_t)(ref->n ? ref->n : 1), 1);
    if (!table || !taken) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < cap; i++)
        table[i] = -1;
    for (uint64_t j = 0; j < ref->n; j++) {
        if (!ref_included[j])
            continue;
        out->counts.ref_used++;
        size_t h = (size_t)key_hash(ref->contig.items[j], ref->pos[j]) & (cap - 1);
        while (table[h] >= 0)
            h = (h + 1) & (cap - 1);
        table[h] = (int64_t)j;
    }
    for (uint64_t v = 0; v < target->n; v++) {
        const char *ctg = target->contig.items[v];
        int64_t pos = target->pos[v], best = -1, dup = 0;
        int kind = 0, seen = 0;
        size_t h = (size_t)key_hash(ctg, pos) & (cap - 1);
        for (; table[h] >= 0; h = (h + 1) & (cap - 1)) {
            int64_t j = table[h];
            if (ref->pos[j] != pos || strcmp(ref->contig.items[j], ctg) != 0)
                continue;
            seen = seen ? seen : 1;
            int c = compare_alleles(ref->alleles.items[j], target->alleles.items[v]);
            if (c == 3 && seen < 3)
                seen = 3;
            if (c != 1 && c != 2)
                continue;
            if (taken[j]) {
                dup = 1;
                continue;
            }
            if (best < 0 || (c == 1 && kind == 2)) {
                best = j;
                kind = c;
            }
        }
        if (best >= 0) {
            taken[best] = 1;
            out->ref[v] = best;
            out->flip[v] = kind == 2;
            out->counts.matched++;
            out->counts.swapped += kind == 2;
        } else if (dup) {
            out->counts.duplicate++;
        } else if (seen == 3) {
            out->counts.ambiguous++;
        } else if (seen) {
            out->counts.allele_mismatch++;
        } else {
            out->counts.not_found++;
        }
    }
    out->counts.ref_unmatched = out->counts.ref_used - out->counts.matched;
    rc = GSVD_OK;
out:
    if (rc < 0)
        gsvd_project_map_free(out);
    gsvd_free(table);
    gsvd_free(taken);
    return rc;
}

void gsvd_project_result_free(struct gsvd_project_result *r)
{
    if (!r)
        return;
    gsvd_free(r->scores);
    gsvd_free(r->factor);
    gsvd_free(r);
}

/* ---- the scan ------------------------------------------------------------------------- */

/* Samples per product group (a fixed split, so that the sums do not depend on the thread
 * count).  The rows of a product ("cell") are the matched rows of one block inside one aligned
 * run of GROUP_VARIANTS variants (variant indices of the array), so the cells do not depend on
 * how the variants are split between processes (cut at multiples of GROUP_VARIANTS:
 * gsvd_pca_split_runs) either. */
#define GROUP_SAMPLES 256
#define GROUP_VARIANTS GSVD_PROJECT_RUN
#define GROUP_ROWS GROUP_VARIANTS /* matched rows of a cell, at most */
/* Integer dosages go through a table: ploidy <= this (gsvd_project_run checks). */
#define GSVD_MAX_PLOIDY_LUT 127

/* One exact sum per value (common/xsum.h): hi holds the value's grid part, lo the rest. */
struct xsums {
    double *hi, *lo;
    struct gsvd_xgrid grid;
};

struct scan_ctx {
    const struct gsvd_pca_model *ref;
    const struct gsvd_project_map *map;
    size_t n, k, threads;
    double *scores, *sumsq; /* n x k, n */
    int need_sumsq;         /* the sums of squares are used (least squares, oadp) */
    float ploidy;
    int is_float;
    uint64_t base;       /* map index of the range's first variant */
    uint64_t vs;         /* the range's first variant (index in the array) */
    uint64_t *missing_t; /* per thread */
    double *zbuf;        /* per thread: GROUP_ROWS x GROUP_SAMPLES */
    /* least squares: per sample the packed upper triangle of V_O'V_O and |O| (kk1 values) */
    int lsq;
    size_t kk1;   /* k (k + 1) / 2 + 1 */
    double *gram; /* n x kk1 */
    double *obuf; /* per thread: GROUP_ROWS x GROUP_SAMPLES, 1 where a call, 0 where missing */
    /* integer input: every cell's products are added exactly (scores, sumsq and gram are
     * then the hi parts); float input (no bound): in place, in cell order */
    int exact;
    struct xsums xs, xq, xg; /* scores, sums of squares, Grams */
    double *tbuf;            /* per thread: GROUP_SAMPLES x max(k, kk1), a cell's products */
    /* the block at hand: its matched rows, cut into cells */
    const struct gsvd_gblock *blk;
    size_t n_rows, rows_cap;
    size_t *row;               /* row in the block */
    int64_t *rj;               /* reference row */
    uint8_t *flip;             /* dosage flips */
    double *vb;                /* n_rows x k: the reference loadings of those rows */
    double *pb;                /* least squares: n_rows x kk1, v v' packed and 1 */
    size_t *cell, n_cells;     /* cell c: matched rows cell[c] .. cell[c + 1] */
    uint64_t done, n_variants; /* progress: variants of the range scanned, of all */
    const struct gsvd_progress *progress;
};

/* Row r of the block (reference row rj) standardised into z[0 .. i1 - i0): calls i0 .. i1;
 * integer input through a table of the ploidy + 1 dosages (missing: 0, the reference mean).
 * o (least squares; else NULL): 1 where a call, 0 where missing. */
static void zrow(const struct scan_ctx *c, size_t r, int64_t rj, int flip, size_t i0, size_t i1,
                 double *z, double *o, uint64_t *miss)
{
    const struct gsvd_gblock *b = c->blk;
    float center = (float)c->ref->mean[rj], scale = (float)c->ref->scale[rj];
    size_t n = b->n_cols, gs = i1 - i0;
    uint64_t m = 0;

    if (b->f64) {
        const double *row = b->f64 + r * n;
        for (size_t i = 0; i < gs; i++) {
            double f = row[i0 + i];
            if (o)
                o[i] = isnan(f) ? 0.0 : 1.0;
            if (isnan(f)) {
                m++;
                z[i] = 0;
            } else {
                z[i] = (double)gsvd_std_f64(flip ? (double)c->ploidy - f : f, center, scale, 0.0f);
            }
        }
        *miss += m;
        return;
    }
    double lut[GSVD_MAX_PLOIDY_LUT + 1];
    size_t np = (size_t)c->ploidy;
    for (size_t d = 0; d <= np; d++) {
        float v = (float)d;
        lut[d] = (double)(((flip ? c->ploidy - v : v) - center) * scale);
    }
    if (b->p2) {
        const uint8_t *row = b->p2 + r * gsvd_std_p2_row_bytes(n);
        for (size_t i = 0; i < gs; i++) {
            unsigned code = gsvd_std_p2_code(row, i0 + i);
            m += code == 3;
            if (o)
                o[i] = code == 3 ? 0.0 : 1.0;
            z[i] = code == 3 ? 0.0 : lut[code];
        }
    } else {
        const int8_t *row = b->i8 + r * n;
        for (size_t i = 0; i < gs; i++) {
            int d = row[i0 + i];
            m += d < 0;
            if (o)
                o[i] = d < 0 ? 0.0 : 1.0;
            z[i] = d < 0 ? 0.0 : lut[d];
        }
    }
    *miss += m;
}

/* t[0 .. rows x cols) added exactly to the sums at rows x cols values from `at` on. */
static void xsums_add(const struct xsums *x, size_t at, const double *t, size_t len)
{
    for (size_t e = 0; e < len; e++)
        gsvd_xsum_add(&x->hi[at + e], &x->lo[at + e], t[e], &x->grid);
}

/* The products of one cell (rows a .. a + rb) for the samples i0 .. i0 + gs, z and o holding
 * their standardised values and call masks: added in place (float input) or as exact terms. */
static void cell_products(struct scan_ctx *c, size_t a, size_t rb, size_t i0, size_t gs,
                          const double *z, const double *o, double *t)
{
    size_t k = c->k, kk1 = c->kk1;
    if (c->need_sumsq) {
        double ss[GROUP_SAMPLES];
        for (size_t i = 0; i < gs; i++)
            ss[i] = c->exact ? 0.0 : c->sumsq[i0 + i];
        for (size_t r = 0; r < rb; r++) /* per sample in row order, the samples side by side */
            for (size_t i = 0; i < gs; i++)
                ss[i] += z[r * gs + i] * z[r * gs + i];
        for (size_t i = 0; i < gs; i++) {
            if (c->exact)
                gsvd_xsum_add(&c->xq.hi[i0 + i], &c->xq.lo[i0 + i], ss[i], &c->xq.grid);
            else
                c->sumsq[i0 + i] = ss[i];
        }
    }
    if (!c->exact) {
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)gs, (int)k, (int)rb, 1.0, z,
                    (int)gs, c->vb + a * k, (int)k, 1.0, c->scores + i0 * k, (int)k);
        if (o)
            cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)gs, (int)kk1, (int)rb, 1.0, o,
                        (int)gs, c->pb + a * kk1, (int)kk1, 1.0, c->gram + i0 * kk1, (int)kk1);
        return;
    }
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)gs, (int)k, (int)rb, 1.0, z, (int)gs,
                c->vb + a * k, (int)k, 0.0, t, (int)k);
    xsums_add(&c->xs, i0 * k, t, gs * k);
    if (o) {
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)gs, (int)kk1, (int)rb, 1.0, o,
                    (int)gs, c->pb + a * kk1, (int)kk1, 0.0, t, (int)kk1);
        xsums_add(&c->xg, i0 * kk1, t, gs * kk1);
    }
}

/* Thread t: sample groups t, t + threads, ...; each group's scores += Z_g' V_b by dgemm per
 * cell, in row order (least squares: its Grams += O_g' P_b too). */
static int scan_share(void *vctx, size_t t)
{
    struct scan_ctx *c = vctx;
    size_t groups = (c->n + GROUP_SAMPLES - 1) / GROUP_SAMPLES;
    size_t tcols = c->kk1 > c->k ? c->kk1 : c->k;
    double *z = c->zbuf + t * GROUP_ROWS * GROUP_SAMPLES;
    double *o = c->lsq ? c->obuf + t * GROUP_ROWS * GROUP_SAMPLES : NULL;
    double *tb = c->tbuf ? c->tbuf + t * GROUP_SAMPLES * tcols : NULL;
    uint64_t miss = 0;

    for (size_t gi = t; gi < groups; gi += c->threads) {
        size_t i0 = gi * GROUP_SAMPLES, i1 = i0 + GROUP_SAMPLES < c->n ? i0 + GROUP_SAMPLES : c->n,
               gs = i1 - i0;
        for (size_t ci = 0; ci < c->n_cells; ci++) {
            size_t a = c->cell[ci], rb = c->cell[ci + 1] - a;
            for (size_t r = 0; r < rb; r++)
                zrow(c, c->row[a + r], c->rj[a + r], c->flip[a + r], i0, i1, z + r * gs,
                     o ? o + r * gs : NULL, &miss);
            cell_products(c, a, rb, i0, gs, z, o, tb);
        }
    }
    c->missing_t[t] += miss;
    return GSVD_OK;
}

/* p = the upper triangle of v v' row by row (k (k + 1) / 2 values), then 1 (the call count). */
static void pack_outer(const double *v, size_t k, double *p)
{
    for (size_t a = 0; a < k; a++)
        for (size_t b = a; b < k; b++)
            *p++ = v[a] * v[b];
    *p = 1.0;
}

/* A block: its matched rows, their loadings and cells, then the products on the threads. */
static int scan_block(void *vctx, const struct gsvd_gblock *blk, const struct gsvd_geno_info *info)
{
    struct scan_ctx *c = vctx;
    size_t k = c->k, row = 0;
    uint64_t group = UINT64_MAX;
    int rc = GSVD_OK;

    if (blk->n_rows > c->rows_cap) {
        gsvd_free(c->row);
        gsvd_free(c->rj);
        gsvd_free(c->flip);
        gsvd_free(c->vb);
        gsvd_free(c->pb);
        gsvd_free(c->cell);
        c->pb = NULL;
        c->rows_cap = blk->n_rows;
        c->cell = gsvd_malloc((c->rows_cap + 1) * sizeof *c->cell);
        c->row = gsvd_malloc(c->rows_cap * sizeof *c->row);
        c->rj = gsvd_malloc(c->rows_cap * sizeof *c->rj);
        c->flip = gsvd_malloc(c->rows_cap);
        c->vb = gsvd_malloc(c->rows_cap * k * sizeof *c->vb);
        if (c->lsq)
            c->pb = gsvd_malloc(c->rows_cap * c->kk1 * sizeof *c->pb);
        if (!c->row || !c->rj || !c->flip || !c->vb || !c->cell || (c->lsq && !c->pb)) {
            c->rows_cap = 0;
            return GSVD_ENOMEM;
        }
    }
    c->n_rows = 0;
    c->n_cells = 0;
    for (size_t j = 0; j < info->n_variants; j++) {
        if (!info->kept[j])
            continue;
        size_t r = row++;
        uint64_t tv = c->base + info->first + j;
        int64_t rj = c->map->ref[tv];
        if (rj < 0)
            continue;
        if ((c->vs + info->first + j) / GROUP_VARIANTS != group) { /* a new cell */
            group = (c->vs + info->first + j) / GROUP_VARIANTS;
            c->cell[c->n_cells++] = c->n_rows;
        }
        c->row[c->n_rows] = r;
        c->rj[c->n_rows] = rj;
        c->flip[c->n_rows] = c->map->flip[tv];
        memcpy(c->vb + c->n_rows * k, c->ref->v + (size_t)rj * k, k * sizeof *c->vb);
        if (c->lsq)
            pack_outer(c->vb + c->n_rows * k, k, c->pb + c->n_rows * c->kk1);
        c->n_rows++;
    }
    if (c->n_rows > 0) {
        c->cell[c->n_cells] = c->n_rows;
        c->blk = blk;
        rc = gsvd_blas_parallel(c->threads, scan_share, c);
    }
    c->done += info->n_variants;
    gsvd_progress_report(c->progress, "projection", c->done, c->n_variants);
    return rc;
}

/* After the scan: the least-squares solve (c->lsq), then the shrinkage correction. */
static int finish(struct scan_ctx *c, enum gsvd_shrinkage shrinkage, struct gsvd_project_result *r)
{
    return gsvd_project_correct(c->ref, shrinkage, c->lsq ? c->gram : NULL, c->sumsq, r);
}

/* The grids of the exact sums, from a bound on every sum that any subset of the matched
 * variants gives (the same on every process: from the map and the reference alone): per
 * variant the largest |z| of its ploidy + 1 dosages and the largest |v| of its loadings;
 * |score| <= sum |z| |v|, sumsq <= sum z^2, the Gram's entries <= sum max(v^2, 1). */
static void exact_grids(struct scan_ctx *c, uint64_t n_map)
{
    double bs = 0, bq = 0, bg = 0;
    size_t np = (size_t)c->ploidy, k = c->k;
    for (uint64_t tv = 0; tv < n_map; tv++) {
        int64_t rj = c->map->ref[tv];
        double zmax = 0, vmax = 0;
        if (rj < 0)
            continue;
        float center = (float)c->ref->mean[rj], scale = (float)c->ref->scale[rj];
        for (size_t d = 0; d <= np; d++) {
            double z = fabs((double)(((float)d - center) * scale));
            zmax = z > zmax ? z : zmax;
        }
        for (size_t q = 0; q < k; q++) {
            double v = fabs(c->ref->v[(size_t)rj * k + q]);
            vmax = v > vmax ? v : vmax;
        }
        bs += zmax * vmax;
        bq += zmax * zmax;
        bg += vmax * vmax > 1 ? vmax * vmax : 1;
    }
    /* a margin for the rounding of the cells' products */
    c->xs.grid = gsvd_xsum_grid(bs * (1 + 0x1p-20));
    c->xq.grid = gsvd_xsum_grid(bq * (1 + 0x1p-20));
    c->xg.grid = gsvd_xsum_grid(bg * (1 + 0x1p-20));
}

/* The exact sums of every process added up (each value hi + lo after), the missing calls
 * too; with no communicator the local sums.  A failure on any process fails them all. */
static int exact_total(struct scan_ctx *c, gsvd_comm *comm, struct gsvd_project_result *r)
{
    struct xsums *xs[3] = {&c->xs, &c->xq, c->lsq ? &c->xg : NULL};
    size_t len[3] = {c->n * c->k, c->n, c->n * c->kk1};
    int rc = GSVD_OK;

    for (size_t t = 0; t < c->threads; t++)
        r->n_missing_calls += c->missing_t[t];
    GSVD_TRY(gsvd_comm_sum_u64(comm, &r->n_missing_calls, 1));
    for (size_t a = 0; a < 3; a++) {
        if (!xs[a] || !c->exact)
            continue;
        GSVD_TRY(gsvd_comm_sum_f64(comm, xs[a]->hi, len[a]));
        GSVD_TRY(gsvd_comm_sum_f64(comm, xs[a]->lo, len[a]));
        for (size_t i = 0; i < len[a]; i++)
            xs[a]->hi[i] = gsvd_xsum_value(xs[a]->hi[i], xs[a]->lo[i]);
    }
out:
    return rc;
}

/* The buffers of the scan (c's threads, k and least squares set); GSVD_ENOMEM. */
static int scan_alloc(struct scan_ctx *c, struct gsvd_project_result *r)
{
    size_t n = c->n ? c->n : 1, k = c->k, kk1 = c->kk1, tcols = kk1 > k ? kk1 : k;
    size_t cell = GROUP_ROWS * GROUP_SAMPLES;

    r->scores = gsvd_calloc(n * k, sizeof *r->scores);
    c->sumsq = gsvd_calloc(n, sizeof *c->sumsq);
    c->missing_t = gsvd_calloc(c->threads, sizeof *c->missing_t);
    c->zbuf = gsvd_malloc(c->threads * cell * sizeof *c->zbuf);
    if (c->lsq) {
        c->gram = gsvd_calloc(n * kk1, sizeof *c->gram);
        c->obuf = gsvd_malloc(c->threads * cell * sizeof *c->obuf);
    }
    if (c->exact) {
        c->xs.lo = gsvd_calloc(n * k, sizeof(double));
        c->xq.lo = gsvd_calloc(n, sizeof(double));
        c->xg.lo = c->lsq ? gsvd_calloc(n * kk1, sizeof(double)) : NULL;
        c->tbuf = gsvd_malloc(c->threads * GROUP_SAMPLES * tcols * sizeof *c->tbuf);
    }
    if (!r->scores || !c->sumsq || !c->missing_t || !c->zbuf ||
        (c->lsq && (!c->gram || !c->obuf)) ||
        (c->exact && (!c->xs.lo || !c->xq.lo || !c->tbuf || (c->lsq && !c->xg.lo))))
        return GSVD_ENOMEM;
    c->scores = r->scores;
    c->xs.hi = r->scores;
    c->xq.hi = c->sumsq;
    c->xg.hi = c->gram;
    return GSVD_OK;
}

int gsvd_project_run(gsvd_geno *g, const struct gsvd_pca_model *ref,
                     const struct gsvd_project_map *map, const struct gsvd_project_params *p,
                     struct gsvd_project_result **out)
{
    struct gsvd_project_result *r = NULL;
    struct scan_ctx c = {0};
    size_t n = gsvd_geno_n_samples(g), k = ref->k;
    uint64_t os, oe, vs, ve;
    int rc = GSVD_OK, saved_threads, distributed = gsvd_comm_size(p->comm) > 1;

    *out = NULL;
    gsvd_geno_open_range(g, &os, &oe);
    gsvd_geno_range(g, &vs, &ve);
    if (gsvd_geno_ploidy(g) != ref->ploidy) {
        gsvd_log_error("%s has ploidy %zu, the reference PCs ploidy %zu (set --ploidy for a "
                       "dosage array)",
                       gsvd_geno_array_name(g), gsvd_geno_ploidy(g), ref->ploidy);
        return GSVD_EINVAL;
    }
    if (ref->ploidy > GSVD_MAX_PLOIDY_LUT) {
        gsvd_log_error("projection: ploidy %zu above %d", ref->ploidy, GSVD_MAX_PLOIDY_LUT);
        return GSVD_EINVAL;
    }
    if (map->n != oe - os || !ref->v) {
        gsvd_log_error("internal error: a variant map of %llu variants for %llu variants",
                       (unsigned long long)map->n, (unsigned long long)(oe - os));
        return GSVD_EINVAL;
    }
    if (map->counts.matched == 0) {
        gsvd_log_error("projection: no variant of %s matches a variant of the reference",
                       gsvd_geno_array_name(g));
        return GSVD_EDEGENERATE;
    }
    if (distributed && gsvd_geno_is_float(g)) { /* as every process finds: one says it */
        if (gsvd_comm_rank(p->comm) == 0)
            gsvd_log_error("%s: float input has no bound for exact sums; a distributed "
                           "projection needs integer genotypes (run it as one process)",
                           gsvd_geno_array_name(g));
        return GSVD_EUNSUPPORTED;
    }
    /* from here a failure reaches the others at the agreement after the scan */
    if (!(r = gsvd_calloc(1, sizeof *r))) {
        rc = GSVD_ENOMEM;
        goto agree;
    }
    r->n = n;
    r->k = k;
    c.ref = ref;
    c.map = map;
    c.n = n;
    c.k = k;
    c.base = vs - os;
    c.vs = vs;
    c.threads = p->n_threads ? p->n_threads : 1;
    if (c.threads > (n + GROUP_SAMPLES - 1) / GROUP_SAMPLES) /* one group per thread at most */
        c.threads = n ? (n + GROUP_SAMPLES - 1) / GROUP_SAMPLES : 1;
    if (c.threads > GSVD_PARALLEL_MAX)
        c.threads = GSVD_PARALLEL_MAX;
    c.ploidy = (float)ref->ploidy;
    c.is_float = gsvd_geno_is_float(g);
    c.exact = !c.is_float;
    c.progress = &p->progress;
    c.lsq = p->missing == GSVD_PROJ_MISSING_LSQ;
    c.need_sumsq = c.lsq || p->shrinkage == GSVD_SHRINK_OADP;
    c.kk1 = k * (k + 1) / 2 + 1;
    c.n_variants = ve - vs;
    if (c.exact)
        exact_grids(&c, map->n);
    rc = scan_alloc(&c, r);
    if (rc == GSVD_OK) {
        /* single-threaded BLAS: the sample groups are the parallelism */
        saved_threads = gsvd_blas_get_threads();
        gsvd_blas_set_threads(1);
        rc = gsvd_geno_scan(g, scan_block, &c);
        gsvd_blas_set_threads(saved_threads);
    }
agree:
    if (p->comm) /* every process's part read, or none goes on */
        rc = gsvd_comm_agree(p->comm, rc, NULL);
    if (rc < 0)
        goto out;
    GSVD_TRY(exact_total(&c, p->comm, r));
    GSVD_TRY(finish(&c, p->shrinkage, r));
out:
    gsvd_free(c.sumsq);
    gsvd_free(c.gram);
    gsvd_free(c.obuf);
    gsvd_free(c.pb);
    gsvd_free(c.missing_t);
    gsvd_free(c.zbuf);
    gsvd_free(c.tbuf);
    gsvd_free(c.xs.lo);
    gsvd_free(c.xq.lo);
    gsvd_free(c.xg.lo);
    gsvd_free(c.cell);
    gsvd_free(c.row);
    gsvd_free(c.rj);
    gsvd_free(c.flip);
    gsvd_free(c.vb);
    if (rc < 0)
        gsvd_project_result_free(r);
    else
        *out = r;
    return rc;
}
