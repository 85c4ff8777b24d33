/* tests/unit/test_pdist_body.c - the CUDA pdist kernels' per-thread bodies (gpu/pdist_body.h)
 * run by a serial launcher on the CPU:
 *  - bit-plane counts of every pair, for bands with partial tiles, an offset first row, fewer
 *    words than the plane holds, split launches (tile_row0) and both counting forms (l1 or
 *    not), equal counts taken feature by feature from the genotypes (an independent count);
 *    the order blocks and threads run in does not change them; nothing is written below the
 *    diagonal or outside the band;
 *  - float64 sums of every metric equal the naive per-feature formulas, and bit for bit the
 *    host's gsvd_pd_sums_add loop, and do not depend on how the features are split;
 *  - the engine's device path (analysis/pdist/pdist.c with params.device) through a backend whose
 *    pd_* ops run these bodies serially ("the serial device"): distances and site counts are
 *    byte-identical to the host kernels' for the bit-plane and the generic kernel, with the
 *    device's memory forcing several bands, with the kept bit planes replayed, and under
 *    --memory; the device never holds more than it reported free.
 * No GPU is needed: the device test (tests/gpu) runs the same bodies on a real one. */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/backend.h"
#include "analysis/backend_internal.h"
#include "analysis/pdist/pdist.h"
#include "analysis/pdist/pdist_device.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/rng.h"
#include "gpu/pdist_body.h"
#include "gsvd_test.h"
#include "pdist_serial.h"

const struct gsvd_backend_ops *const gsvd_backend_registry[] = {&gsvd_backend_cpu_ops, NULL};

static uint32_t rnd(uint64_t a, uint64_t b)
{
    return gsvd_rng_words(11, 3, a, b).v[0];
}

/* Genotype of item i, feature f: 0, 1, 2, or -1 (missing, about `miss` percent). */
static int geno(size_t i, size_t f, unsigned miss)
{
    uint32_t u = rnd(i, f) % 100;
    if (u < miss)
        return -1;
    return (int)(rnd(f, i + 7777) % 3);
}

/* Planes in pdist_bitplane.c's layout: item i at i * 3W, planes C, A, B of W words (king:
 * C, A, P = [g == 1]). */
static uint64_t *make_planes(size_t n, size_t m, size_t W, unsigned miss, int king)
{
    uint64_t *p = gsvd_calloc(n * 3 * W, sizeof *p);
    for (size_t i = 0; p && i < n; i++)
        for (size_t f = 0; f < m; f++) {
            int g = geno(i, f, miss);
            uint64_t bit = 1ull << (f % 64);
            if (g < 0)
                continue;
            p[i * 3 * W + f / 64] |= bit;
            if (g >= 1)
                p[i * 3 * W + W + f / 64] |= bit;
            if (king ? g == 1 : g >= 2)
                p[i * 3 * W + 2 * W + f / 64] |= bit;
        }
    return p;
}

/* Counts of items (i, j) over features [0, m) from the genotypes themselves. */
static void brute_counts(size_t i, size_t j, size_t m, unsigned miss, int l1, int king,
                         uint32_t out[GSVD_PD_N_KING])
{
    uint32_t n = 0, one = 0, two = 0, hh = 0, hx = 0, hy = 0;
    for (size_t f = 0; f < m; f++) {
        int u = geno(i, f, miss), v = geno(j, f, miss), d;
        if (u < 0 || v < 0)
            continue;
        n++;
        d = abs(u - v);
        one += d == 1;
        two += d == 2;
        hh += u == 1 && v == 1;
        hx += u == 1;
        hy += v == 1;
    }
    out[0] = n;
    out[1] = king ? hh : l1 ? one + 2 * two : one;
    out[2] = king ? two : l1 ? 0 : two;
    out[3] = king ? hx : 0;
    out[4] = king ? hy : 0;
}

/* One band of n items, rows from row0: counts over the first m features (nw words). */
static void check_counts(size_t n, size_t m, size_t W, size_t row0, size_t nb, int l1,
                         unsigned miss, int split, int reverse, int king)
{
    uint64_t *planes = make_planes(n, m, W, miss, king);
    size_t nc = n - row0, nw = (m + 63) / 64, bad = 0, per = gsvd_pdk_counts_per_pair(king);
    uint32_t *cnt = gsvd_calloc(nb * nc * per + per, sizeof *cnt); /* + a guard pair */
    struct gsvd_pdk_counts_args a;

    GSVD_CHECK(planes && cnt);
    if (!planes || !cnt)
        goto out;
    nw = (nw + GSVD_PDK_CH - 1) / GSVD_PDK_CH * GSVD_PDK_CH;
    for (size_t q = 0; q < per; q++)
        cnt[nb * nc * per + q] = 0xdeadbeef;
    a = (struct gsvd_pdk_counts_args){.planes = planes + row0 * 3 * W,
                                      .W = W,
                                      .nw = nw,
                                      .nb = nb,
                                      .nc = nc,
                                      .l1 = l1,
                                      .king = king,
                                      .cnt = cnt};
    if (split) { /* two launches, as the launcher splits grids taller than 65535 tiles */
        size_t gy = gsvd_pdk_tiles(nb), first = gy / 2;
        gsvd_serial_pd_counts(&a, first, reverse);
        a.tile_row0 = first;
        gsvd_serial_pd_counts(&a, gy - first, reverse);
    } else {
        gsvd_serial_pd_counts(&a, gsvd_pdk_tiles(nb), reverse);
    }
    for (size_t r = 0; r < nb; r++)
        for (size_t c = 0; c < nc; c++) {
            uint32_t want[GSVD_PD_N_KING] = {0, 0, 0, 0, 0};
            const uint32_t *got = cnt + (r * nc + c) * per;
            if (c > r)
                brute_counts(row0 + r, row0 + c, m, miss, l1, king, want);
            for (size_t q = 0; q < per; q++)
                bad += got[q] != want[q];
        }
    GSVD_CHECK(bad == 0);
    if (bad)
        fprintf(stderr,
                "  counts: n %zu m %zu W %zu row0 %zu nb %zu l1 %d king %d: %zu counts differ\n", n,
                m, W, row0, nb, l1, king, bad);
    for (size_t q = 0; q < per; q++)
        GSVD_CHECK(cnt[nb * nc * per + q] == 0xdeadbeef);
out:
    gsvd_free(planes);
    gsvd_free(cnt);
}

/* ---- float64 sums ------------------------------------------------------------------------- */

/* Value of item i, feature f in the float fixture (NaN about 10%, some zeros). */
static double fval(size_t i, size_t f)
{
    uint32_t u = rnd(i + 500, f) % 100;
    if (u < 10)
        return NAN;
    if (u < 20)
        return 0;
    return ((double)(rnd(f, i + 900) % 20001) - 10000.0) / 997.0;
}

/* Naive sums of pair (i, j) over features [f0, f1) for metric m (the definitions of
 * analysis/pdist/pdist_metric.h written out again). */
static void naive_sums(enum gsvd_pdist_metric m, double p, size_t i, size_t j, size_t f1,
                       double s[GSVD_PD_N_SUMS])
{
    memset(s, 0, GSVD_PD_N_SUMS * sizeof *s);
    for (size_t f = 0; f < f1; f++) {
        double u = fval(i, f), v = fval(j, f), d;
        if (isnan(u) || isnan(v))
            continue;
        s[0] += 1;
        d = fabs(u - v);
        switch (m) {
        case GSVD_PDIST_EUCLIDEAN:
        case GSVD_PDIST_SQEUCLIDEAN:
            s[1] += d * d;
            break;
        case GSVD_PDIST_MINKOWSKI:
            s[1] += pow(d, p);
            break;
        case GSVD_PDIST_CHEBYSHEV:
            s[1] = d > s[1] ? d : s[1];
            break;
        case GSVD_PDIST_HAMMING:
        case GSVD_PDIST_P_DISTANCE:
            s[1] += u != v;
            break;
        case GSVD_PDIST_JACCARD:
            s[1] += (u != 0) != (v != 0);
            s[2] += u != 0 || v != 0;
            break;
        case GSVD_PDIST_BRAYCURTIS:
            s[1] += d;
            s[2] += fabs(u + v);
            break;
        case GSVD_PDIST_CANBERRA:
            s[1] += fabs(u) + fabs(v) > 0 ? d / (fabs(u) + fabs(v)) : 0;
            break;
        case GSVD_PDIST_KING:
        case GSVD_PDIST_IBS0:
            s[1] += u == 1 && v == 1;
            s[2] += d == 2;
            s[3] += u == 1;
            s[4] += v == 1;
            break;
        case GSVD_PDIST_COSINE:
        case GSVD_PDIST_CORRELATION:
            s[1] += u;
            s[2] += v;
            s[3] += u * v;
            s[4] += u * u;
            s[5] += v * v;
            break;
        default: /* cityblock, ibs */
            s[1] += d;
            break;
        }
    }
}

static void check_sums(enum gsvd_pdist_metric m, size_t n, size_t nf, size_t row0, size_t nb)
{
    size_t nc = n - row0, bad_bits = 0, bad_naive = 0;
    double *x = gsvd_malloc(nf * nc * sizeof *x);
    double *sums = gsvd_calloc(nb * nc * GSVD_PD_N_SUMS + 1, sizeof *sums);
    double *again = gsvd_calloc(nb * nc * GSVD_PD_N_SUMS, sizeof *again);
    struct gsvd_pdk_sums_args a;

    GSVD_CHECK(x && sums && again);
    if (!x || !sums || !again)
        goto out;
    for (size_t f = 0; f < nf; f++)
        for (size_t i = 0; i < nc; i++)
            x[f * nc + i] = fval(row0 + i, f);
    sums[nb * nc * GSVD_PD_N_SUMS] = 4242;
    a = (struct gsvd_pdk_sums_args){
        .x = x, .nf = nf, .nb = nb, .nc = nc, .metric = (int)m, .p = 1.5, .sums = sums};
    gsvd_serial_pd_sums(&a, 0);
    /* the same features in two launches, threads in reverse: the same bits */
    a.sums = again;
    a.nf = nf / 3;
    gsvd_serial_pd_sums(&a, 1);
    a.x = x + a.nf * nc;
    a.nf = nf - a.nf;
    gsvd_serial_pd_sums(&a, 1);
    GSVD_CHECK(memcmp(sums, again, nb * nc * GSVD_PD_N_SUMS * sizeof *sums) == 0);
    for (size_t r = 0; r < nb; r++)
        for (size_t c = 0; c < nc; c++) {
            const double *got = sums + (r * nc + c) * GSVD_PD_N_SUMS;
            double want[GSVD_PD_N_SUMS] = {0, 0, 0, 0, 0, 0}, host[GSVD_PD_N_SUMS] = {0};
            if (c > r) {
                struct gsvd_pd_sums s = {0, 0, 0, 0, 0, 0};
                naive_sums(m, 1.5, row0 + r, row0 + c, nf, want);
                for (size_t f = 0; f < nf; f++)
                    gsvd_pd_sums_add(m, 1.5, fval(row0 + r, f), fval(row0 + c, f), &s);
                gsvd_pd_sums_store(&s, host);
            }
            bad_bits += memcmp(got, host, sizeof host) != 0;
            for (int q = 0; q < GSVD_PD_N_SUMS; q++)
                bad_naive += fabs(got[q] - want[q]) > 1e-12 * (1 + fabs(want[q]));
        }
    GSVD_CHECK(bad_bits == 0);
    GSVD_CHECK(bad_naive == 0);
    if (bad_bits || bad_naive)
        fprintf(stderr,
                "  sums: %s n %zu nf %zu row0 %zu: %zu differ from the host, %zu from the "
                "formulas\n",
                gsvd_pdist_metric_name(m), n, nf, row0, bad_bits, bad_naive);
    GSVD_CHECK(sums[nb * nc * GSVD_PD_N_SUMS] == 4242);
out:
    gsvd_free(x);
    gsvd_free(sums);
    gsvd_free(again);
}

/* ---- the engine on the serial device ------------------------------------------------------ */

struct serial_dev {
    struct gsvd_backend base;
    struct gsvd_pd_dev_band band;
    void *acc;
    size_t acc_bytes;
    uint64_t mem;  /* what pd_memory reports */
    uint64_t peak; /* largest device footprint of a band (accumulators + one piece) */
    size_t n_bands, n_pieces;
    int open;
};

static int sd_memory(gsvd_backend *be, uint64_t *bytes)
{
    *bytes = ((struct serial_dev *)be)->mem;
    return GSVD_OK;
}

static int sd_begin(gsvd_backend *be, const struct gsvd_pd_dev_band *band)
{
    struct serial_dev *d = (struct serial_dev *)be;
    size_t per = band->kind == GSVD_PD_DEV_COUNTS
                     ? gsvd_pdk_counts_per_pair(band->king) * sizeof(uint32_t)
                     : GSVD_PD_N_SUMS * sizeof(double);
    gsvd_free(d->acc);
    d->acc_bytes = band->nb * band->nc * per;
    d->acc = gsvd_calloc(d->acc_bytes ? d->acc_bytes : 1, 1);
    d->band = *band;
    d->open = 1;
    if (d->acc_bytes > d->peak)
        d->peak = d->acc_bytes;
    return d->acc ? GSVD_OK : GSVD_ENOMEM;
}

static int sd_planes(gsvd_backend *be, const uint64_t *planes, size_t nw)
{
    struct serial_dev *d = (struct serial_dev *)be;
    struct gsvd_pdk_counts_args a = {.planes = planes,
                                     .W = d->band.W,
                                     .nw = nw,
                                     .nb = d->band.nb,
                                     .nc = d->band.nc,
                                     .l1 = d->band.l1,
                                     .king = d->band.king,
                                     .cnt = d->acc};
    if (!d->open || d->band.kind != GSVD_PD_DEV_COUNTS || nw % GSVD_PDK_CH || nw > d->band.W)
        return GSVD_EINTERNAL;
    gsvd_serial_pd_counts(&a, gsvd_pdk_tiles(d->band.nb), (int)(d->n_pieces++ % 2));
    return GSVD_OK;
}

static int sd_rows(gsvd_backend *be, const double *x, size_t nf)
{
    struct serial_dev *d = (struct serial_dev *)be;
    struct gsvd_pdk_sums_args a = {.x = x,
                                   .nf = nf,
                                   .nb = d->band.nb,
                                   .nc = d->band.nc,
                                   .metric = d->band.metric,
                                   .p = d->band.p,
                                   .sums = d->acc};
    if (!d->open || d->band.kind != GSVD_PD_DEV_SUMS)
        return GSVD_EINTERNAL;
    if (d->acc_bytes + nf * d->band.nc * 8 > d->peak)
        d->peak = d->acc_bytes + nf * d->band.nc * 8;
    gsvd_serial_pd_sums(&a, (int)(d->n_pieces++ % 2));
    return GSVD_OK;
}

static int sd_end(gsvd_backend *be, void *acc)
{
    struct serial_dev *d = (struct serial_dev *)be;
    if (!d->open)
        return GSVD_EINTERNAL;
    memcpy(acc, d->acc, d->acc_bytes);
    d->open = 0;
    d->n_bands++;
    return GSVD_OK;
}

static void sd_destroy(gsvd_backend *be)
{
    (void)be;
}

static const struct gsvd_pdist_device_ops serial_pdist_ops = {
    .version = GSVD_PDIST_DEVICE_VERSION,
    .pd_memory = sd_memory,
    .pd_begin = sd_begin,
    .pd_planes = sd_planes,
    .pd_rows = sd_rows,
    .pd_end = sd_end,
};

static const void *sd_analysis(const gsvd_backend *be, enum gsvd_analysis_id an)
{
    (void)be;
    return an == GSVD_AN_PDIST ? &serial_pdist_ops : NULL;
}

static const struct gsvd_backend_ops serial_dev_ops = {
    .version = GSVD_BACKEND_OPS_VERSION,
    .name = "serial",
    .kind = GSVD_BACKEND_DEVICE,
    .destroy = sd_destroy,
    .analysis = sd_analysis,
};

struct collect {
    size_t n;
    double *dist;
    uint32_t *sites;
    size_t bands;
};

static int collect_band(void *ctx, const struct gsvd_pdist_band *b)
{
    struct collect *c = ctx;
    for (size_t r = 0; r < b->n_rows; r++)
        for (size_t k = 0; k < b->ld; k++) {
            size_t i = b->row0 + r, j = b->row0 + k;
            c->dist[i * c->n + j] = c->dist[j * c->n + i] = b->dist[r * b->ld + k];
            c->sites[i * c->n + j] = c->sites[j * c->n + i] = b->n_sites[r * b->ld + k];
        }
    c->bands++;
    return 0;
}

static int run(const double *x, size_t n, size_t m, struct gsvd_pdist_params *p, struct collect *c,
               struct gsvd_pdist_summary *sum)
{
    c->n = n;
    c->bands = 0;
    memset(c->dist, 0, n * n * sizeof *c->dist);
    memset(c->sites, 0, n * n * sizeof *c->sites);
    return gsvd_pdist_run_matrix(x, n, m, p, collect_band, c, sum);
}

/* The same run on the host and on the serial device: identical bytes.  The device reports
 * room for about `rows` rows of pairs beside its two staging copies (0: plenty). */
static void check_engine(const double *x, size_t n, size_t m, enum gsvd_pdist_metric metric,
                         enum gsvd_pdist_kernel kernel, size_t rows, uint64_t memory,
                         const char *want_kernel, size_t min_bands)
{
    int generic = strcmp(want_kernel, "generic") == 0;
    uint64_t stripe = memory ? memory / 8 : (uint64_t)256 << 20;
    uint64_t pair = generic                       ? GSVD_PD_N_SUMS * 8
                    : gsvd_pd_king_metric(metric) ? 4 * GSVD_PD_N_KING
                                                  : 12,
             kfixed = generic ? (uint64_t)32 << 20 : 0;
    if (stripe > (uint64_t)256 << 20)
        stripe = (uint64_t)256 << 20;
    if (stripe < (uint64_t)1 << 20)
        stripe = (uint64_t)1 << 20;
    uint64_t mem = rows ? 2 * (stripe + kfixed) + rows * n * pair : (uint64_t)1 << 34;
    struct serial_dev dev = {.base = {.ops = &serial_dev_ops}, .mem = mem};
    struct gsvd_pdist_params p = GSVD_PDIST_PARAMS_DEFAULT;
    struct gsvd_pdist_summary hs, ds;
    struct collect h = {.dist = gsvd_malloc(n * n * 8), .sites = gsvd_malloc(n * n * 4)};
    struct collect d = {.dist = gsvd_malloc(n * n * 8), .sites = gsvd_malloc(n * n * 4)};

    GSVD_CHECK(h.dist && h.sites && d.dist && d.sites);
    if (!h.dist || !h.sites || !d.dist || !d.sites)
        goto out;
    p.metric = metric;
    p.p = 1.5;
    p.kernel = kernel;
    p.n_threads = 2;
    p.memory = memory;
    GSVD_CHECK_RC(run(x, n, m, &p, &h, &hs), GSVD_OK);
    p.device = &dev.base;
    GSVD_CHECK_RC(run(x, n, m, &p, &d, &ds), GSVD_OK);
    GSVD_CHECK(strcmp(ds.kernel, want_kernel) == 0);
    GSVD_CHECK(strcmp(ds.device, "serial") == 0);
    GSVD_CHECK(strcmp(hs.device, "cpu") == 0);
    GSVD_CHECK(memcmp(h.dist, d.dist, n * n * 8) == 0);
    GSVD_CHECK(memcmp(h.sites, d.sites, n * n * 4) == 0);
    GSVD_CHECK(d.bands >= min_bands);
    GSVD_CHECK(dev.n_bands == d.bands);
    GSVD_CHECK(dev.peak <= mem);
    if (memcmp(h.dist, d.dist, n * n * 8) != 0 || d.bands < min_bands || dev.peak > mem)
        fprintf(stderr, "  engine: %s kernel %s mem %llu: %zu bands (want >= %zu), peak %llu\n",
                gsvd_pdist_metric_name(metric), ds.kernel, (unsigned long long)mem, d.bands,
                min_bands, (unsigned long long)dev.peak);
out:
    gsvd_free(dev.acc);
    gsvd_free(h.dist);
    gsvd_free(h.sites);
    gsvd_free(d.dist);
    gsvd_free(d.sites);
}

int main(void)
{
    /* counts: partial tiles, offset rows, partial words, split launches, both forms, orders */
    check_counts(75, 1000, 24, 0, 75, 0, 5, 0, 0, 0);
    check_counts(75, 1000, 24, 0, 75, 1, 5, 0, 1, 0);
    check_counts(100, 700, 16, 37, 20, 0, 30, 0, 1, 0);
    check_counts(100, 700, 16, 37, 63, 1, 0, 1, 0, 0);
    check_counts(130, 64 * 8, 8, 3, 127, 0, 50, 1, 1, 0);
    check_counts(33, 1, 8, 0, 33, 0, 0, 0, 0, 0);
    check_counts(2, 300, 8, 0, 1, 1, 10, 0, 0, 0);
    /* KING's five counts from planes C, A, P */
    check_counts(75, 1000, 24, 0, 75, 0, 5, 0, 0, 1);
    check_counts(100, 700, 16, 37, 63, 0, 30, 1, 1, 1);
    check_counts(130, 64 * 8, 8, 3, 127, 0, 0, 0, 1, 1);
    check_counts(2, 300, 8, 0, 1, 0, 10, 0, 0, 1);

    /* sums: every metric, partial blocks, offset rows */
    for (int m = 0; m < GSVD_PDIST_N_METRICS; m++) {
        check_sums((enum gsvd_pdist_metric)m, 300, 37, 0, 300);
        check_sums((enum gsvd_pdist_metric)m, 300, 5, 290, 7);
    }

    /* the engine on the serial device */
    {
        size_t n = 150, m = 900;
        double *g = gsvd_malloc(n * m * sizeof *g), *f = gsvd_malloc(n * m * sizeof *f);
        GSVD_CHECK(g && f);
        if (g && f) {
            for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < m; k++) {
                    int v = geno(i, k, 3);
                    g[i * m + k] = v < 0 ? NAN : v;
                    f[i * m + k] = fval(i, k);
                }
            const enum gsvd_pdist_metric bp[] = {GSVD_PDIST_CITYBLOCK, GSVD_PDIST_IBS,
                                                 GSVD_PDIST_EUCLIDEAN, GSVD_PDIST_HAMMING,
                                                 GSVD_PDIST_P_DISTANCE};
            for (size_t q = 0; q < GSVD_ARRAY_LEN(bp); q++) {
                /* one band; device-limited bands (replayed planes); and under --memory too */
                check_engine(g, n, m, bp[q], GSVD_PDIST_KERNEL_AUTO, 0, 0, "bitplane", 1);
                check_engine(g, n, m, bp[q], GSVD_PDIST_KERNEL_AUTO, 40, 0, "bitplane", 3);
                check_engine(g, n, m, bp[q], GSVD_PDIST_KERNEL_AUTO, 40, (uint64_t)64 << 20,
                             "bitplane", 3);
            }
            for (int q = 0; q < GSVD_PDIST_N_METRICS; q++) {
                check_engine(f, n, m, (enum gsvd_pdist_metric)q, GSVD_PDIST_KERNEL_GENERIC, 0, 0,
                             "generic", 1);
                check_engine(f, n, m, (enum gsvd_pdist_metric)q, GSVD_PDIST_KERNEL_GENERIC, 50, 0,
                             "generic", 3);
            }
            /* KING: the host's bit-plane counts and the device's (both from planes C, A, P),
             * in one band, in device-limited bands (replayed planes) and under --memory; and
             * the device's float64 sums (generic kernel) give the same bits */
            const enum gsvd_pdist_metric km[] = {GSVD_PDIST_KING, GSVD_PDIST_IBS0};
            for (size_t q = 0; q < GSVD_ARRAY_LEN(km); q++) {
                check_engine(g, n, m, km[q], GSVD_PDIST_KERNEL_AUTO, 0, 0, "bitplane", 1);
                check_engine(g, n, m, km[q], GSVD_PDIST_KERNEL_AUTO, 40, 0, "bitplane", 3);
                check_engine(g, n, m, km[q], GSVD_PDIST_KERNEL_AUTO, 40, (uint64_t)64 << 20,
                             "bitplane", 3);
                check_engine(g, n, m, km[q], GSVD_PDIST_KERNEL_GENERIC, 50, 0, "generic", 3);
            }
            /* genotypes on the generic kernel (a metric the bit planes do not carry) */
            check_engine(g, n, m, GSVD_PDIST_BRAYCURTIS, GSVD_PDIST_KERNEL_AUTO, 0, 0, "generic",
                         1);
        }
        gsvd_free(g);
        gsvd_free(f);
    }
    /* the bit planes' segments of an odd number of 4-word steps (1,200 features: 19 words, 5
     * steps; AVX2's L1 kernel takes its steps two at a time) */
    {
        size_t n = 60, m = 1200;
        double *g = gsvd_malloc(n * m * sizeof *g);
        GSVD_CHECK(g != NULL);
        if (g) {
            for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < m; k++) {
                    int v = geno(i, k, 3);
                    g[i * m + k] = v < 0 ? NAN : v;
                }
            const enum gsvd_pdist_metric odd[] = {GSVD_PDIST_CITYBLOCK, GSVD_PDIST_IBS,
                                                  GSVD_PDIST_KING};
            for (size_t q = 0; q < GSVD_ARRAY_LEN(odd); q++)
                check_engine(g, n, m, odd[q], GSVD_PDIST_KERNEL_AUTO, 0, 0, "bitplane", 1);
        }
        gsvd_free(g);
    }
    return gsvd_test_report("test_pdist_body");
}
