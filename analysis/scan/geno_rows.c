/* analysis/scan/geno_rows.c - the per-block work of a genotype scan's workers
 * (genotype_internal.h): a decoded chunk row of any integer or float dtype to dosage rows over
 * the analysed samples, then each row's statistics, filters and scale, and the 2-bit packing
 * of kept rows for the cache.  Runs on the pipeline's worker threads, one slot each. */
#include "gsvd_config.h"
#include "analysis/scan/genotype_internal.h"

#include <math.h>
#include <string.h>

#include "analysis/scan/dosage.h"
#include "analysis/scan/gblock_std.h"
#include "analysis/scan/hwe.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/textnum.h"

/* Integer element i of a decoded buffer of the given dtype, as int64 (bool as 0/1). */
static int64_t load_int(const struct gsvd_dtype *dt, const unsigned char *base, size_t i)
{
    const unsigned char *p = base + i * dt->size;
    if (dt->kind == 'b' || (dt->kind == 'u' && dt->size == 1))
        return *p;
    if (dt->kind == 'i' && dt->size == 1)
        return (int8_t)*p;
    if (dt->size == 2) {
        if (dt->kind == 'i') {
            int16_t v;
            memcpy(&v, p, 2);
            return v;
        }
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    if (dt->size == 4) {
        if (dt->kind == 'i') {
            int32_t v;
            memcpy(&v, p, 4);
            return v;
        }
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, p, 8);
    if (dt->kind == 'u' && v < 0)
        return INT64_MAX;
    return v;
}

static double load_float(const struct gsvd_dtype *dt, const unsigned char *base, size_t i)
{
    const unsigned char *p = base + i * dt->size;
    if (dt->size == 4) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    if (dt->size == 8) {
        double d;
        memcpy(&d, p, 8);
        return d;
    }
    uint16_t h;
    memcpy(&h, p, 2);
    return gsvd_half_to_double(h);
}

/* The dosage of a diploid call (a, b) by dosage.h's rule: -1 when missing. */
static inline int8_t diploid_call(int a, int b)
{
    int miss = (a < 0 && a != -2) | (b < 0 && b != -2) | (a == -2 && b == -2);
    return (int8_t)(miss ? -1 : (a > 0) + (b > 0));
}

struct diploid_ctx {
    int8_t *dos;                       /* nv x N dosages */
    int64_t *rsums;                    /* nv x 3, zeroed before the visit (all samples) */
    size_t n;                          /* N */
    const struct gsvd_geno_pick *pick; /* a subset's samples by column (else NULL) */
    const uint64_t *bits;              /* ... and its columns as bits, when in column order */
    int8_t *scratch;                   /* a subset: one chunk row's dosages */
};

/* One decoded chunk's calls (pairs adjacent: the chunk holds the whole ploidy axis) straight
 * to dosages; a row's sums add up over its chunks (integers: any order gives the same). */
static int diploid_piece(void *ctx, const struct gsvd_reader_piece *p)
{
    const struct diploid_ctx *c = ctx;
    size_t stride = (size_t)p->chunk_shape[1] * 2;
    const int8_t *calls = (const int8_t *)p->chunk + p->corg[0] * stride + p->corg[1] * 2;
    for (size_t j = 0; j < p->ext[0]; j++) {
        size_t row = p->dorg[0] + j;
        int64_t sums[3], *t = c->rsums + 3 * row;
        gsvd_diploid_dosages(calls + j * stride, p->ext[1], c->dos + row * c->n + p->dorg[1], sums,
                             1);
        t[0] += sums[0];
        t[1] += sums[1];
        t[2] += sums[2];
    }
    return GSVD_OK;
}

/* The same for a sample subset: each row of the piece converted whole into the scratch row
 * (vectorised; cheaper than the rule per picked call), then the subset's samples whose
 * columns fall in the piece picked from it: compacted by the column bits when the subset keeps
 * the array's order (--keep, --remove, --mind, a sample mask), else copied stretch by
 * stretch. */
static int diploid_subset_piece(void *ctx, const struct gsvd_reader_piece *p)
{
    const struct diploid_ctx *c = ctx;
    const struct gsvd_geno_pick *pick = c->pick;
    size_t stride = (size_t)p->chunk_shape[1] * 2, lo = 0, hi = c->n, n = c->n;
    uint64_t col0 = p->dorg[1], col1 = col0 + p->ext[1]; /* the region starts at column 0 */
    const int8_t *calls = (const int8_t *)p->chunk + p->corg[0] * stride + p->corg[1] * 2;
    int8_t *tmp = c->scratch;

    while (lo < hi) { /* the first picked sample at or after col0 */
        size_t mid = lo + (hi - lo) / 2;
        if (pick[mid].col < col0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (hi = lo; hi < n && pick[hi].col < col1; hi++)
        ;
    if (hi == lo)
        return GSVD_OK;
    for (size_t j = 0; j < p->ext[0]; j++) {
        int64_t unused[3];
        int8_t *d = c->dos + (p->dorg[0] + j) * n;
        gsvd_diploid_dosages(calls + j * stride, p->ext[1], tmp, unused, 1);
        if (c->bits) { /* pick[k].out == k */
            size_t kept = gsvd_dosage_compact(tmp, p->ext[1], c->bits, col0);
            memcpy(d + lo, tmp, kept < hi - lo ? kept : hi - lo);
            continue;
        }
        for (size_t k = lo; k < hi;) { /* stretches of consecutive columns and outputs */
            size_t len = pick[k].run < hi - k ? pick[k].run : hi - k;
            if (len == 1)
                d[pick[k].out] = tmp[pick[k].col - col0];
            else
                memcpy(d + pick[k].out, tmp + (pick[k].col - col0), len);
            k += len;
        }
    }
    return GSVD_OK;
}

/* Dosage rows for variants [v0, v0 + nv) into s->dos (int8, -1 missing) or s->fdos; the
 * diploid int8 path also fills s->rsums (called, sum, sum of squares per row).  Diploid int8
 * calls chunked with the whole ploidy axis (the VCF-Zarr layout) convert from each decoded
 * chunk (a sample subset: its samples in column order); everything else is read into s->raw
 * first. */
int gsvd_geno_make_dosages(gsvd_geno *g, gsvd_reader *r, uint64_t v0, size_t nv,
                           struct scan_slot *s)
{
    const struct gsvd_zarray *z = gsvd_array_meta(g->arr);
    const struct gsvd_dtype *dt = &z->dtype;
    size_t N = g->n_samples, NA = (size_t)g->n_all_samples, P = g->ploidy, cells, bytes;
    uint64_t start[3] = {0}, count[3];
    int rc = GSVD_OK;

    if (g->rank == 3 && dt->kind == 'i' && dt->size == 1 && P == 2 && z->chunks[2] == 2 &&
        (!g->sample_idx || g->sample_pick)) {
        struct diploid_ctx c = {NULL, s->rsums, N, g->sample_pick, g->col_bits, NULL};
        uint64_t dstart[3] = {v0, 0, 0}, dcount[3] = {nv, NA, 2};
        GSVD_TRY(gsvd_reserve_large(&s->dos, &s->dos_cap, nv, N)); /* (checks nv x N) */
        c.dos = s->dos;
        if (g->sample_idx) {
            GSVD_TRY(gsvd_reserve_large(&s->raw, &s->raw_cap, z->chunks[1], 1));
            c.scratch = s->raw;
        }
        memset(s->rsums, 0, 3 * nv * sizeof *s->rsums);
        s->have_sums = 0;
        GSVD_TRY(gsvd_reader_visit(r, dstart, dcount,
                                   g->sample_idx ? diploid_subset_piece : diploid_piece, &c));
        if (g->sample_idx)
            for (size_t j = 0; j < nv; j++)
                gsvd_dosage_sums(s->dos + j * N, N, s->rsums + 3 * j);
        s->have_sums = 1;
        return GSVD_OK;
    }
    if (gsvd_mul_size(nv, NA, &cells) < 0 ||
        (g->rank == 3 && gsvd_mul_size(cells, P, &cells) < 0) ||
        gsvd_mul_size(cells, dt->size, &bytes) < 0)
        return GSVD_EFORMAT;
    GSVD_TRY(gsvd_reserve_large(&s->raw, &s->raw_cap, bytes, 1));
    if (g->rank == 3) {
        start[0] = v0;
        count[0] = nv;
        count[1] = NA;
        count[2] = P;
    } else if (g->p.transpose) {
        start[1] = v0;
        count[0] = NA;
        count[1] = nv;
    } else {
        start[0] = v0;
        count[0] = nv;
        count[1] = NA;
    }
    GSVD_TRY(gsvd_reader_read(r, start, count, s->raw));
    s->have_sums = 0;
    if (g->is_float) {
        GSVD_TRY(gsvd_reserve_large(&s->fdos, &s->dos_cap, nv * N, sizeof(double)));
        for (size_t j = 0; j < nv; j++)
            for (size_t i = 0; i < N; i++) {
                size_t col = g->sample_idx ? (size_t)g->sample_idx[i] : i;
                size_t at = g->p.transpose ? col * nv + j : j * NA + col;
                s->fdos[j * N + i] = load_float(dt, s->raw, at);
            }
        return GSVD_OK;
    }
    GSVD_TRY(gsvd_reserve_large(&s->dos, &s->dos_cap, nv * N, 1));
    if (g->rank == 3 && dt->kind == 'i' && dt->size == 1 && P == 2) {
        /* the most common case, diploid int8 calls, written to vectorise */
        const int8_t *raw = s->raw;
        for (size_t j = 0; j < nv; j++) {
            int8_t *d = s->dos + j * N;
            const int8_t *row = raw + j * NA * 2;
            if (!g->sample_idx) {
                gsvd_diploid_dosages(row, N, d, s->rsums + 3 * j, 1);
            } else {
                for (size_t i = 0; i < N; i++) {
                    const int8_t *call = row + 2 * g->sample_idx[i];
                    d[i] = diploid_call(call[0], call[1]);
                }
                gsvd_dosage_sums(d, N, s->rsums + 3 * j);
            }
        }
        s->have_sums = 1;
        return GSVD_OK;
    }
    if (g->rank == 3 && dt->kind == 'i' && dt->size == 1) {
        /* int8 calls: count alleles > 0, missing if any allele is -1 */
        const int8_t *raw = s->raw;
        for (size_t j = 0; j < nv; j++) {
            int8_t *d = s->dos + j * N;
            for (size_t i = 0; i < N; i++) {
                size_t col = g->sample_idx ? (size_t)g->sample_idx[i] : i;
                const int8_t *call = raw + (j * NA + col) * P;
                int alt = 0, miss = 0, present = 0;
                for (size_t a = 0; a < P; a++) {
                    int v = call[a];
                    alt += v > 0;
                    miss |= v == -1 || v < -2;
                    present += v != -2;
                }
                d[i] = (int8_t)(miss || !present ? -1 : alt);
            }
        }
        return GSVD_OK;
    }
    for (size_t j = 0; j < nv; j++) {
        int8_t *d = s->dos + j * N;
        for (size_t i = 0; i < N; i++) {
            size_t col = g->sample_idx ? (size_t)g->sample_idx[i] : i;
            if (g->rank == 3) {
                int alt = 0, miss = 0, present = 0;
                for (size_t a = 0; a < P; a++) {
                    int64_t v = load_int(dt, s->raw, (j * NA + col) * P + a);
                    alt += v > 0;
                    miss |= v == -1 || v < -2;
                    present += v != -2;
                }
                d[i] = (int8_t)(miss || !present ? -1 : alt);
            } else {
                size_t at = g->p.transpose ? col * nv + j : j * NA + col;
                int64_t v = load_int(dt, s->raw, at);
                if (v > 127 || (v >= 0 && (size_t)v > P)) {
                    gsvd_log_error("%s: dosage %lld of variant %llu exceeds ploidy %zu (use "
                                   "--ploidy, or a float array)",
                                   gsvd_array_name(g->arr), (long long)v,
                                   (unsigned long long)(v0 + j), P);
                    return GSVD_EFORMAT;
                }
                d[i] = (int8_t)(v < 0 ? -1 : v);
            }
        }
    }
out:
    return rc;
}

/* Haplotype columns (genotype_internal.h): the region of the calls, and of the phase array
 * when it is checked, read whole; every analysed sample's alleles to 0/1 (-1 where < 0). */
int gsvd_geno_make_haplotypes(gsvd_geno *g, gsvd_reader *r, gsvd_reader *pr, uint64_t v0, size_t nv,
                              struct scan_slot *s)
{
    const struct gsvd_zarray *z = gsvd_array_meta(g->arr);
    const struct gsvd_dtype *dt = &z->dtype, *pdt = NULL;
    size_t P = g->haps, NA = (size_t)g->n_all_samples, N = g->n_samples, ns = N / P, cells, bytes;
    uint64_t start[3] = {v0, 0, 0}, count[3] = {nv, NA, P};
    int rc = GSVD_OK;

    if (gsvd_mul_size(nv, NA, &cells) < 0 || gsvd_mul_size(cells, P, &bytes) < 0 ||
        gsvd_mul_size(bytes, dt->size, &bytes) < 0)
        return GSVD_EFORMAT;
    GSVD_TRY(gsvd_reserve_large(&s->raw, &s->raw_cap, bytes, 1));
    GSVD_TRY(gsvd_reader_read(r, start, count, s->raw));
    if (pr) {
        pdt = &gsvd_array_meta(g->phased)->dtype;
        GSVD_TRY(gsvd_reserve_large(&s->praw, &s->praw_cap, cells, pdt->size));
        GSVD_TRY(gsvd_reader_read(pr, start, count, s->praw));
    }
    GSVD_TRY(gsvd_reserve_large(&s->dos, &s->dos_cap, nv, N));
    s->have_sums = 0;
    for (size_t j = 0; j < nv; j++)
        for (size_t i = 0; i < ns; i++) {
            size_t col = g->sample_idx ? (size_t)g->sample_idx[i] : i, call = j * NA + col;
            int het = 0;
            int64_t first = -1;
            int8_t *d = s->dos + j * N + i * P;
            for (size_t h = 0; h < P; h++) {
                int64_t v = dt->kind == 'i' && dt->size == 1
                                ? ((const int8_t *)s->raw)[call * P + h]
                                : load_int(dt, s->raw, call * P + h);
                d[h] = (int8_t)(v < 0 ? -1 : v > 0);
                if (v >= 0) {
                    het |= first >= 0 && v != first;
                    if (first < 0)
                        first = v;
                }
            }
            if (het && pr && load_int(pdt, s->praw, call) == 0) {
                if (atomic_exchange(&g->unphased_said, 1)) /* another block said it */
                    return GSVD_EINCONSIST;
                gsvd_log_error("%s: variant %llu, sample %s: an unphased heterozygous call; "
                               "haplotypes need phased calls (call_genotype_phased), or "
                               "--ignore-phase to take the alleles in their stored order",
                               gsvd_array_name(g->arr), (unsigned long long)(v0 + j),
                               g->call_ids.items[i]);
                return GSVD_EINCONSIST;
            }
        }
out:
    return rc;
}

/* Statistics, filters and scale of row j; returns 1 if kept. */
int gsvd_geno_judge_row(gsvd_geno *g, struct scan_slot *s, size_t j, uint64_t variant)
{
    size_t N = g->n_samples;
    double n = 0, sum = 0, sum2 = 0, mean, p, sd, var;
    int exact_var_zero = 0;

    if (g->p.variant_mask && !g->p.variant_mask[variant]) { /* not selected: no statistics */
        s->mean[j] = NAN;
        s->inv_sd[j] = 0;
        s->counts.n_mask++;
        return 0;
    }
    if (s->fdos) {
        const double *row = s->fdos + j * N;
        for (size_t i = 0; i < N; i++)
            if (!isnan(row[i])) {
                n++;
                sum += row[i];
                sum2 += (double)row[i] * row[i];
            }
    } else {
        int64_t local[3], ni, si, s2;
        const int64_t *sums = local;
        if (s->have_sums)
            sums = s->rsums + 3 * j;
        else
            gsvd_dosage_sums(s->dos + j * N, N, local);
        ni = sums[0];
        si = sums[1];
        s2 = sums[2];
        n = (double)ni;
        sum = (double)si;
        sum2 = (double)s2;
        exact_var_zero = ni > 0 && ni * s2 == si * si; /* all called dosages equal */
    }
    s->mean[j] = n > 0 ? sum / n : NAN;
    s->inv_sd[j] = 0;
    if (n == 0) {
        s->counts.n_no_calls++;
        return 0;
    }
    if (g->p.missing_error && n < (double)N) {
        gsvd_log_error("%s: variant %llu has %.0f missing calls (--missing error)",
                       gsvd_array_name(g->arr), (unsigned long long)variant, (double)N - n);
        return -1;
    }
    mean = sum / n;
    p = mean / (double)g->ploidy;
    if (g->p.max_missing < 1 && 1.0 - n / (double)N > g->p.max_missing) {
        s->counts.n_missing++;
        return 0;
    }
    if (g->p.maf > 0 && (p < 1 - p ? p : 1 - p) < g->p.maf) {
        s->counts.n_maf++;
        return 0;
    }
    if (g->p.hwe > 0 && !s->fdos && (!g->p.hwe_test || g->p.hwe_test[variant])) {
        /* diploid integer dosages 0..2: sum = n1 + 2 n2, sum of squares = n1 + 4 n2 */
        uint64_t n2 = (uint64_t)(sum2 - sum) / 2, n1 = (uint64_t)sum - 2 * n2;
        if (gsvd_hwe_p(n1, (uint64_t)n - n1 - n2, n2, g->p.hwe_midp) < g->p.hwe) {
            s->counts.n_hwe++;
            return 0;
        }
    }
    var = sum2 / n - mean * mean;
    switch (g->p.scaler) {
    case GSVD_SCALER_PATTERSON:
        sd = sqrt(p * (1 - p));
        break;
    case GSVD_SCALER_HWE:
        sd = sqrt((double)g->ploidy * p * (1 - p));
        break;
    case GSVD_SCALER_STANDARD:
        sd = exact_var_zero || var <= 1e-12 * (mean * mean + 1) ? 0 : sqrt(var);
        break;
    default:
        sd = 1;
        break;
    }
    if (!(sd > 0) || !isfinite(sd)) {
        s->counts.n_zero_var++;
        return 0;
    }
    s->inv_sd[j] = 1.0 / sd;
    s->counts.n_missing_calls += (uint64_t)((double)N - n);
    return 1;
}

/* The slot's first `rows` dosage rows packed to 2 bits (code 3 = missing) into s->p2, for the
 * cache; done here on the worker so that the consuming thread only copies. */
int gsvd_geno_pack_rows(struct scan_slot *s, size_t rows, size_t n)
{
    size_t rb = gsvd_std_p2_row_bytes(n);
    int rc = gsvd_reserve_large(&s->p2, &s->p2_cap, rows, rb);
    if (rc < 0)
        return rc;
    for (size_t r = 0; r < rows; r++)
        gsvd_dosage_pack_p2(s->dos + r * n, n, s->p2 + r * rb);
    return GSVD_OK;
}
