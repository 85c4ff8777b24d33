/* tests/unit/test_numeric.c - numeric results of the genotype scan, PCA and pdist without Python:
 * small fixtures (testdata/expected/fixture_{a,b,c}.txt) are written into a mem: store as a
 * VCF-Zarr call_genotype (chunks of 7 variants, so blocks have a partial last one) with sample_id,
 * and read through the real reader; the expected values (testdata/expected/expected.txt) were
 * computed with numpy from the documented rules by testdata/expected/make_expected.py.
 *  - the dosage rule (-1, -2 in one or every entry, allele values > 1, ploidy 2 and 4), the
 *    means, scales and kept flags of every scaler, the filters and their counters, a sample
 *    subset in a given order with a variant range;
 *  - the 2-bit cache: the cached scan hands the same standardised values as the first one;
 *  - PCA: exact singular values, vectors (sign rule) and trace; 1e-12 where the standardised
 *    values are exact in float32 (fixture b, `center`), float32 rounding otherwise; randomized
 *    = exact on a well separated case;
 *  - pdist: euclidean and ibs equal the pairwise-complete oracle through the bit-plane kernel,
 *    the generic kernel and (complete data) the Gram kernel; the bands of a job array's two
 *    parts = one band, bytes equal.
 * `test_numeric DIR` runs everything (DIR = testdata/expected); `test_numeric DIR
 * --one-roundtrip` runs one cached scan, one PCA and one part of a pdist for the allocation-failure
 * sweep (exit 0, or 3 when an allocation failed cleanly). */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/backend.h"
#include "analysis/cpu/kernels/gram_amx.h"
#include "analysis/scan/gblock_std.h"
#include "analysis/scan/genotype.h"
#include "analysis/pca/pca.h"
#include "analysis/pdist/pdist.h"
#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/store.h"
#include "zarr/tree.h"
#include "gsvd_test.h"

/* backend.c's registry is defined by cli/ in the program; a test names its own */
const struct gsvd_backend_ops *const gsvd_backend_registry[] = {&gsvd_backend_cpu_ops, NULL};

enum { CHUNK = 7, MAX_VALUES = 4096 };

static const char *dir;

/* ---- fixtures and expected values ------------------------------------------------------------ */

struct fixture {
    size_t m, n, ploidy;
    int8_t *calls; /* m x n x ploidy */
};

static int read_text(const char *name, struct gsvd_buf *b)
{
    char path[1024];
    FILE *f;
    char tmp[4096];
    size_t got;
    int rc = GSVD_OK;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return GSVD_EIO;
    }
    while (rc == GSVD_OK && (got = fread(tmp, 1, sizeof tmp, f)) > 0)
        rc = gsvd_buf_append(b, tmp, got);
    if (rc == GSVD_OK)
        rc = gsvd_buf_append(b, "", 1); /* NUL */
    fclose(f);
    return rc;
}

/* Skip '#' comment lines; parse "m n ploidy" then the values. */
static int load_fixture(char name, struct fixture *fx)
{
    char file[32];
    struct gsvd_buf b = GSVD_BUF_INIT;
    char *p, *end;
    int rc;

    snprintf(file, sizeof file, "fixture_%c.txt", name);
    rc = read_text(file, &b);
    if (rc != GSVD_OK)
        goto out;
    p = (char *)b.data;
    while (*p == '#')
        p = strchr(p, '\n') + 1;
    fx->m = strtoul(p, &end, 10);
    fx->n = strtoul(end, &end, 10);
    fx->ploidy = strtoul(end, &end, 10);
    fx->calls = gsvd_malloc(fx->m * fx->n * fx->ploidy);
    if (!fx->calls) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < fx->m * fx->n * fx->ploidy; i++) {
        p = end;
        fx->calls[i] = (int8_t)strtol(p, &end, 10);
        if (end == p) {
            fprintf(stderr, "%s: short\n", file);
            rc = GSVD_EFORMAT;
            goto out;
        }
    }
out:
    gsvd_buf_free(&b);
    return rc;
}

static struct gsvd_buf expected = GSVD_BUF_INIT;

/* The numbers after `key` in expected.txt (NaN for "nan"); returns the count (0: no such key). */
static size_t want(const char *key, double *v, size_t cap)
{
    size_t klen = strlen(key), n = 0;
    const char *p = (const char *)expected.data;

    while (p && *p) {
        if (strncmp(p, key, klen) == 0 && p[klen] == ' ') {
            char *end;
            p += klen;
            while (*p == ' ' && n < cap) {
                v[n++] = strtod(p, &end);
                p = end;
            }
            return n;
        }
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    fprintf(stderr, "FAIL expected.txt has no %s\n", key);
    gsvd_test_fail++;
    return 0;
}

static int close_rel(double a, double b, double tol)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return fabs(a - b) <= tol * (fabs(b) > 1 ? fabs(b) : 1);
}

/* Every entry of got within tol of the expected values of key (relative above 1). */
static void check_vec(const char *key, const double *got, size_t n, double tol)
{
    double w[MAX_VALUES];
    size_t nw = want(key, w, MAX_VALUES), bad = 0;

    if (nw != n) {
        fprintf(stderr, "FAIL %s: %zu values, want %zu\n", key, n, nw);
        gsvd_test_fail++;
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (!close_rel(got[i], w[i], tol)) {
            if (bad++ < 3)
                fprintf(stderr, "  %s[%zu] = %.17g, want %.17g\n", key, i, got[i], w[i]);
        }
    if (bad)
        fprintf(stderr, "FAIL %s: %zu of %zu values off (tol %g)\n", key, bad, n, tol);
    bad ? gsvd_test_fail++ : gsvd_test_pass++;
}

/* ---- the store ---------------------------------------------------------------------------------
 */

/* A mem: VCF-Zarr store of the fixture: call_genotype (CHUNK variants per chunk, raw int8) and
 * sample_id ("|S3": s00, s01, ...). */
static int make_store(const struct fixture *fx, gsvd_store **out)
{
    gsvd_store *st = NULL;
    char text[512], key[64];
    size_t row = fx->n * fx->ploidy, n_chunks = (fx->m + CHUNK - 1) / CHUNK;
    int8_t *chunk = gsvd_calloc(CHUNK, row);
    char *ids = gsvd_malloc(3 * fx->n);
    int rc = chunk && ids ? gsvd_store_open("mem:numeric", GSVD_STORE_WRITE, &st) : GSVD_ENOMEM;

    if (rc == GSVD_OK)
        rc = gsvd_store_put(st, ".zgroup", "{\"zarr_format\": 2}", 18);
    snprintf(text, sizeof text,
             "{\"zarr_format\": 2, \"shape\": [%zu, %zu, %zu], \"chunks\": [%d, %zu, %zu], "
             "\"dtype\": \"|i1\", \"compressor\": null, \"fill_value\": -1, \"order\": \"C\", "
             "\"filters\": null}",
             fx->m, fx->n, fx->ploidy, CHUNK, fx->n, fx->ploidy);
    if (rc == GSVD_OK)
        rc = gsvd_store_put(st, "call_genotype/.zarray", text, strlen(text));
    for (size_t c = 0; rc == GSVD_OK && c < n_chunks; c++) {
        size_t rows = fx->m - c * CHUNK < CHUNK ? fx->m - c * CHUNK : CHUNK;
        memset(chunk, 0x7f, CHUNK * row); /* the edge beyond the array: never read as calls */
        memcpy(chunk, fx->calls + c * CHUNK * row, rows * row);
        snprintf(key, sizeof key, "call_genotype/%zu.0.0", c);
        rc = gsvd_store_put(st, key, chunk, CHUNK * row);
    }
    snprintf(text, sizeof text,
             "{\"zarr_format\": 2, \"shape\": [%zu], \"chunks\": [%zu], \"dtype\": \"|S3\", "
             "\"compressor\": null, \"fill_value\": \"\", \"order\": \"C\", \"filters\": null}",
             fx->n, fx->n);
    if (rc == GSVD_OK)
        rc = gsvd_store_put(st, "sample_id/.zarray", text, strlen(text));
    for (size_t i = 0; rc == GSVD_OK && i < fx->n; i++) {
        char id[32];
        snprintf(id, sizeof id, "s%02zu", i);
        memcpy(ids + 3 * i, id, 3);
    }
    if (rc == GSVD_OK)
        rc = gsvd_store_put(st, "sample_id/0", ids, 3 * fx->n);
    gsvd_free(chunk);
    gsvd_free(ids);
    if (rc != GSVD_OK) {
        gsvd_store_close(st);
        st = NULL;
    }
    *out = st;
    return rc;
}

/* ---- the scan ----------------------------------------------------------------------------------
 */

struct scan_out {
    size_t m, n;
    double kept[MAX_VALUES], mean[MAX_VALUES], scale[MAX_VALUES];
    float *z; /* m x n standardised values of kept rows (0 for dropped) */
};

static int collect(void *ctx, const struct gsvd_gblock *blk, const struct gsvd_geno_info *info)
{
    struct scan_out *o = ctx;
    size_t r = 0;

    for (size_t j = 0; j < info->n_variants; j++) {
        uint64_t v = info->first + j;
        if (v >= MAX_VALUES)
            return GSVD_EINTERNAL;
        o->kept[v] = info->kept[j];
        o->mean[v] = info->mean[j];
        o->scale[v] = info->scale[j];
        if (!info->kept[j] || !o->z)
            continue;
        for (size_t i = 0; i < blk->n_cols; i++) {
            float miss = blk->missing ? blk->missing[r] : 0.0f, c = blk->center[r],
                  s = blk->scale[r], z;
            if (blk->p2)
                z = gsvd_std_p2(
                    gsvd_std_p2_code(blk->p2 + r * gsvd_std_p2_row_bytes(blk->n_cols), i), c, s,
                    miss);
            else if (blk->i8)
                z = gsvd_std_i8(blk->i8[r * blk->n_cols + i], c, s, miss);
            else
                z = gsvd_std_f64(blk->f64[r * blk->n_cols + i], c, s, miss);
            o->z[v * o->n + i] = z;
        }
        r++;
    }
    o->m = info->first + info->n_variants;
    return GSVD_OK;
}

static gsvd_tree *tree;

static int open_geno(const struct gsvd_geno_params *p, gsvd_geno **g)
{
    return gsvd_geno_open(tree, "", p, g);
}

static void check_counts(const char *key, const struct gsvd_geno_counts *c)
{
    double got[7] = {(double)c->n_range,        (double)c->n_kept, (double)c->n_no_calls,
                     (double)c->n_zero_var,     (double)c->n_maf,  (double)c->n_missing,
                     (double)c->n_missing_calls};
    check_vec(key, got, 7, 0);
}

/* One scan with params p; compares kept/mean/scale/counts with <fx>.<name>.*. */
static void check_scan(char fx, const char *name, const struct gsvd_geno_params *p)
{
    gsvd_geno *g = NULL;
    struct scan_out *o = gsvd_calloc(1, sizeof *o);
    char key[64];

    GSVD_CHECK(o != NULL);
    if (!o)
        return;
    GSVD_CHECK_RC(open_geno(p, &g), GSVD_OK);
    if (g)
        GSVD_CHECK_RC(gsvd_geno_scan(g, collect, o), GSVD_OK);
    if (g) {
        snprintf(key, sizeof key, "%c.%s.kept", fx, name);
        check_vec(key, o->kept, o->m, 0);
        snprintf(key, sizeof key, "%c.%s.mean", fx, name);
        check_vec(key, o->mean, o->m, 1e-15);
        snprintf(key, sizeof key, "%c.%s.scale", fx, name);
        check_vec(key, o->scale, o->m, 1e-14);
        snprintf(key, sizeof key, "%c.%s.counts", fx, name);
        check_counts(key, gsvd_geno_counts(g));
    }
    gsvd_geno_close(g);
    gsvd_free(o);
}

static void check_scans(char fx)
{
    static const struct {
        const char *name;
        enum gsvd_scaler scaler;
        double maf, max_missing;
    } cases[] = {
        {"default", GSVD_SCALER_PATTERSON, 0, 1},   {"hwe", GSVD_SCALER_HWE, 0, 1},
        {"standard", GSVD_SCALER_STANDARD, 0, 1},   {"center", GSVD_SCALER_CENTER, 0, 1},
        {"filt", GSVD_SCALER_PATTERSON, 0.2, 0.05},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t threads = 1; threads <= 3; threads += 2) {
            struct gsvd_geno_params p = GSVD_GENO_PARAMS_DEFAULT;
            p.scaler = cases[c].scaler;
            p.maf = cases[c].maf;
            p.max_missing = cases[c].max_missing;
            p.n_threads = threads;
            check_scan(fx, cases[c].name, &p);
        }
}

/* Samples 9 3 0 14 5 7 11 2 (in that order) of variants 4:44. */
static void check_subset(char fx)
{
    static const char *const ids[] = {"s09", "s03", "s00", "s14", "s05", "s07", "s11", "s02"};
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    struct gsvd_geno_params p = GSVD_GENO_PARAMS_DEFAULT;
    int ok = 1;

    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        ok &= gsvd_strlist_push(&l, ids[i]) == GSVD_OK;
    GSVD_CHECK(ok);
    p.samples = &l;
    p.var_start = 4;
    p.var_stop = 44;
    if (ok)
        check_scan(fx, "sub", &p);
    gsvd_strlist_free(&l);
}

/* A scan with the cache on hands the same standardised values twice (the second time from the
 * 2-bit cache). */
static void check_cache(const struct fixture *fx)
{
    struct gsvd_geno_params p = GSVD_GENO_PARAMS_DEFAULT;
    gsvd_geno *g = NULL;
    struct scan_out *o[2] = {gsvd_calloc(1, sizeof **o), gsvd_calloc(1, sizeof **o)};
    int ok = o[0] && o[1];

    for (int k = 0; ok && k < 2; k++) {
        o[k]->n = fx->n;
        o[k]->z = gsvd_calloc(fx->m * fx->n, sizeof(float));
        ok = o[k]->z != NULL;
    }
    GSVD_CHECK(ok);
    p.cache_bytes = (uint64_t)1 << 20;
    if (ok)
        GSVD_CHECK_RC(open_geno(&p, &g), GSVD_OK);
    if (g) {
        GSVD_CHECK_RC(gsvd_geno_scan(g, collect, o[0]), GSVD_OK);
        GSVD_CHECK(gsvd_geno_cached(g));
        GSVD_CHECK_RC(gsvd_geno_scan(g, collect, o[1]), GSVD_OK);
        GSVD_CHECK(memcmp(o[0]->z, o[1]->z, fx->m * fx->n * sizeof(float)) == 0);
        GSVD_CHECK(memcmp(o[0]->kept, o[1]->kept, sizeof o[0]->kept) == 0);
    }
    gsvd_geno_close(g);
    for (int k = 0; k < 2; k++) {
        if (o[k])
            gsvd_free(o[k]->z);
        gsvd_free(o[k]);
    }
}

/* ---- PCA ----------------------------------------------------------------------------------- */

static int run_pca_kernel(enum gsvd_scaler scaler, enum gsvd_pca_method method, size_t k,
                          int pass_kernel, struct gsvd_pca_result **r)
{
    struct gsvd_geno_params gp = GSVD_GENO_PARAMS_DEFAULT;
    struct gsvd_pca_params pp = GSVD_PCA_PARAMS_DEFAULT;
    struct gsvd_backend_params bp = {.n_threads = 2, .pass_kernel = pass_kernel};
    gsvd_backend *be = NULL;
    gsvd_geno *g = NULL;
    int rc;

    gp.scaler = scaler;
    pp.n_components = k;
    pp.method = method;
    pp.tol = 1e-12;
    pp.max_iter = 40;
    pp.oversampling = 4;
    *r = NULL;
    rc = open_geno(&gp, &g);
    if (rc == GSVD_OK)
        rc = gsvd_backend_create(&gsvd_backend_cpu_ops, &bp, &be);
    if (rc == GSVD_OK)
        rc = gsvd_pca_run(g, be, &pp, r);
    gsvd_backend_destroy(be);
    gsvd_geno_close(g);
    return rc;
}

static int run_pca(enum gsvd_scaler scaler, enum gsvd_pca_method method, size_t k,
                   struct gsvd_pca_result **r)
{
    return run_pca_kernel(scaler, method, k, GSVD_PASS_AUTO, r);
}

static void check_pca(char fx, const char *scaler_name, enum gsvd_scaler scaler, double tol_s,
                      double tol_u)
{
    struct gsvd_pca_result *r = NULL;
    char key[64];

    GSVD_CHECK_RC(run_pca(scaler, GSVD_PCA_EXACT, 3, &r), GSVD_OK);
    if (!r)
        return;
    snprintf(key, sizeof key, "%c.pca.%s.s", fx, scaler_name);
    check_vec(key, r->s, r->k, tol_s);
    snprintf(key, sizeof key, "%c.pca.%s.u", fx, scaler_name);
    check_vec(key, r->u, r->n * r->k, tol_u);
    snprintf(key, sizeof key, "%c.pca.%s.trace", fx, scaler_name);
    check_vec(key, &r->trace, 1, tol_s);
    /* the sign rule, on gensvd's own vectors */
    for (size_t c = 0; c < r->k; c++) {
        size_t best = 0;
        for (size_t i = 1; i < r->n; i++)
            if (fabs(r->u[i * r->k + c]) > fabs(r->u[best * r->k + c]))
                best = i;
        GSVD_CHECK(r->u[best * r->k + c] > 0);
    }
    gsvd_pca_result_free(r);
}

/* Randomized (and its block Krylov sibling) = exact where the spectrum is well separated:
 * singular values within 1e-7 with float32 pass products (the Gram's sums are float64), 1e-6
 * with the int8 tiles' (X and W rounded to 2^-20, analysis/cpu/kernels/pass_i8.h), where they
 * run. */
static void check_randomized_kernel(int kernel, double tol)
{
    struct gsvd_pca_result *ex = NULL, *rn = NULL;

    GSVD_CHECK_RC(run_pca(GSVD_SCALER_CENTER, GSVD_PCA_EXACT, 2, &ex), GSVD_OK);
    GSVD_CHECK_RC(run_pca_kernel(GSVD_SCALER_CENTER, GSVD_PCA_RANDOMIZED, 2, kernel, &rn), GSVD_OK);
    if (ex && rn) {
        for (size_t c = 0; c < 2; c++) {
            double dot = 0;
            GSVD_CHECK_NEAR(rn->s[c] / ex->s[c], 1.0, tol);
            for (size_t i = 0; i < ex->n; i++)
                dot += ex->u[i * 2 + c] * rn->u[i * 2 + c];
            GSVD_CHECK_NEAR(dot, 1.0, 1e-9); /* same sign rule, so +1 */
        }
    }
    gsvd_pca_result_free(ex);
    gsvd_pca_result_free(rn);
}

static void check_randomized(void)
{
    check_randomized_kernel(GSVD_PASS_F32, 1e-7);
    if (gsvd_amx_int8_usable(NULL, 0))
        check_randomized_kernel(GSVD_PASS_I8, 1e-6);
}

/* ---- pdist --------------------------------------------------------------------------------- */

struct pd_out {
    size_t n;
    double *cond;  /* condensed */
    double *sites; /* condensed n_sites */
};

static int pd_sink(void *ctx, const struct gsvd_pdist_band *b)
{
    struct pd_out *o = ctx;
    for (size_t r = 0; r < b->n_rows; r++) {
        size_t i = b->row0 + r;
        for (size_t j = i + 1; j < b->n; j++) {
            uint64_t at = gsvd_pdist_condensed_index(b->n, i, j);
            o->cond[at] = b->dist[r * b->ld + (j - b->row0)];
            o->sites[at] = b->n_sites ? b->n_sites[r * b->ld + (j - b->row0)] : NAN;
        }
    }
    return GSVD_OK;
}

/* With n_parts > 1: part `part` of the bands shared out as between ranks (several bands). */
static int run_pdist(enum gsvd_pdist_metric metric, enum gsvd_pdist_kernel kernel, size_t part,
                     size_t n_parts, struct pd_out *o, struct gsvd_pdist_summary *sum)
{
    struct gsvd_geno_params gp = GSVD_GENO_PARAMS_DEFAULT;
    struct gsvd_pdist_params pp = GSVD_PDIST_PARAMS_DEFAULT;
    gsvd_geno *g = NULL;
    int rc;

    pp.metric = metric;
    pp.kernel = kernel;
    pp.part = part;
    pp.n_parts = n_parts;
    pp.n_threads = 2;
    gp.scaler = GSVD_SCALER_NONE;
    rc = open_geno(&gp, &g);
    if (rc == GSVD_OK)
        rc = gsvd_pdist_run(g, &pp, pd_sink, o, sum);
    gsvd_geno_close(g);
    return rc;
}

static void check_pdist(char fx, size_t n, int complete)
{
    static const struct {
        enum gsvd_pdist_metric metric;
        const char *name;
    } metrics[] = {{GSVD_PDIST_EUCLIDEAN, "euclidean"}, {GSVD_PDIST_IBS, "ibs"}};
    static const enum gsvd_pdist_kernel kernels[] = {
        GSVD_PDIST_KERNEL_AUTO, GSVD_PDIST_KERNEL_BITPLANE, GSVD_PDIST_KERNEL_GENERIC,
        GSVD_PDIST_KERNEL_GRAM};
    size_t np = n * (n - 1) / 2;
    struct pd_out o = {n, gsvd_calloc(np, sizeof(double)), gsvd_calloc(np, sizeof(double))};
    struct pd_out one = {n, gsvd_calloc(np, sizeof(double)), gsvd_calloc(np, sizeof(double))};
    char key[64];

    GSVD_CHECK(o.cond && o.sites && one.cond && one.sites);
    for (size_t mi = 0; o.cond && o.sites && one.cond && one.sites && mi < 2; mi++) {
        for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
            struct gsvd_pdist_summary sum;
            int gram = kernels[ki] == GSVD_PDIST_KERNEL_GRAM;
            if (gram && (!complete || metrics[mi].metric != GSVD_PDIST_EUCLIDEAN))
                continue;
            GSVD_CHECK_RC(run_pdist(metrics[mi].metric, kernels[ki], 0, 0, &one, &sum), GSVD_OK);
            snprintf(key, sizeof key, "%c.pdist.%s", fx, metrics[mi].name);
            check_vec(key, one.cond, np, gram ? 1e-12 : 1e-15);
            if (!complete || !gram) {
                snprintf(key, sizeof key, "%c.pdist.nsites", fx);
                check_vec(key, one.sites, np, 0);
            }
            /* many bands (two parts of a job array, each several bands) = one band, bytes
             * equal */
            memset(o.cond, 0, np * sizeof(double));
            for (size_t part = 1; part <= 2; part++) {
                GSVD_CHECK_RC(run_pdist(metrics[mi].metric, kernels[ki], part, 2, &o, &sum),
                              GSVD_OK);
                GSVD_CHECK(sum.n_bands > 1);
            }
            GSVD_CHECK(memcmp(o.cond, one.cond, np * sizeof(double)) == 0);
        }
    }
    gsvd_free(o.cond);
    gsvd_free(o.sites);
    gsvd_free(one.cond);
    gsvd_free(one.sites);
}

/* ---- driver ------------------------------------------------------------------------------------
 */

static int with_fixture(char name, struct fixture *fx, gsvd_store **st)
{
    int rc = load_fixture(name, fx);
    if (rc == GSVD_OK)
        rc = make_store(fx, st);
    if (rc == GSVD_OK)
        rc = gsvd_tree_open(*st, &tree);
    return rc;
}

static void done_fixture(struct fixture *fx, gsvd_store *st)
{
    gsvd_tree_close(tree);
    tree = NULL;
    gsvd_store_close(st);
    gsvd_free(fx->calls);
    fx->calls = NULL;
}

/* The allocation-failure sweep's run: a cached scan, an exact PCA and a banded pdist on fixture
 * a; exit 0, or 3 when an allocation failed and surfaced as GSVD_ENOMEM. */
static int one_roundtrip(void)
{
    struct fixture fx = {0};
    gsvd_store *st = NULL;
    struct gsvd_pca_result *r = NULL;
    struct gsvd_geno_params p = GSVD_GENO_PARAMS_DEFAULT;
    gsvd_geno *g = NULL;
    struct scan_out *o = NULL;
    size_t np = 0;
    struct pd_out pd = {0};
    struct gsvd_pdist_summary sum;
    int rc = with_fixture('a', &fx, &st);

    if (rc == GSVD_OK) {
        o = gsvd_calloc(1, sizeof *o);
        rc = o ? GSVD_OK : GSVD_ENOMEM;
    }
    p.cache_bytes = (uint64_t)1 << 20;
    if (rc == GSVD_OK)
        rc = open_geno(&p, &g);
    for (int k = 0; rc == GSVD_OK && k < 2; k++)
        rc = gsvd_geno_scan(g, collect, o);
    gsvd_geno_close(g);
    if (rc == GSVD_OK)
        rc = run_pca(GSVD_SCALER_PATTERSON, GSVD_PCA_EXACT, 3, &r);
    gsvd_pca_result_free(r);
    if (rc == GSVD_OK) {
        np = fx.n * (fx.n - 1) / 2;
        pd.n = fx.n;
        pd.cond = gsvd_calloc(np, sizeof(double));
        pd.sites = gsvd_calloc(np, sizeof(double));
        rc = pd.cond && pd.sites ? GSVD_OK : GSVD_ENOMEM;
    }
    if (rc == GSVD_OK)
        rc = run_pdist(GSVD_PDIST_IBS, GSVD_PDIST_KERNEL_AUTO, 1, 2, &pd, &sum);
    gsvd_free(pd.cond);
    gsvd_free(pd.sites);
    gsvd_free(o);
    done_fixture(&fx, st);
    if (rc == GSVD_ENOMEM)
        return 3;
    if (rc != GSVD_OK)
        fprintf(stderr, "one_roundtrip: %s\n", gsvd_strerror(rc));
    return rc == GSVD_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    static const char names[] = {'a', 'b', 'c'};

    if (argc < 2) {
        fprintf(stderr, "usage: test_numeric DIR [--one-roundtrip]\n");
        return 2;
    }
    dir = argv[1];
    gsvd_log_set_level(GSVD_LOG_ERROR);
    if (argc > 2 && strcmp(argv[2], "--one-roundtrip") == 0)
        return one_roundtrip();
    GSVD_CHECK_RC(read_text("expected.txt", &expected), GSVD_OK);
    for (size_t f = 0; expected.data && f < sizeof names; f++) {
        struct fixture fx = {0};
        gsvd_store *st = NULL;
        int rc = with_fixture(names[f], &fx, &st);
        GSVD_CHECK_RC(rc, GSVD_OK);
        if (rc == GSVD_OK) {
            check_scans(names[f]);
            if (names[f] == 'a')
                check_subset('a');
            if (fx.ploidy == 2) /* 2-bit rows hold 0..2 */
                check_cache(&fx);
            check_pca(names[f], "patterson", GSVD_SCALER_PATTERSON, 2e-6, 2e-5);
            /* fixture b without missing calls: every standardised value is exact in float32 */
            check_pca(names[f], "center", GSVD_SCALER_CENTER, names[f] == 'b' ? 1e-12 : 2e-6,
                      names[f] == 'b' ? 1e-9 : 2e-5);
            if (names[f] == 'b')
                check_randomized();
            check_pdist(names[f], fx.n, names[f] == 'b');
        }
        done_fixture(&fx, st);
    }
    gsvd_buf_free(&expected);
    return gsvd_test_report("test_numeric");
}
