/* tests/lib/test_lib_pdist.c - pdist's callbacks and text sources through include/gensvd.h (what
 * `gensvd pdist` formats its text outputs from): a numeric matrix from a TSV file
 * (gensvd_source_open_text) against the distances written out again here (euclidean and
 * cityblock over the values called in both); the items callback (IDs before any band), the
 * matrix callback (complete rows) and the rows callback (the upper triangle's bands, also with
 * a destination) against the same formulas; the pairs callback of "min-kinship" against the
 * pair list the result holds without it (the same pairs, counts and kinships), called first
 * with no pair; the run's plan held beside the result and never listed; the refusals (a text
 * source for pca, "missing" error on a missing value, the matrix callback with the condensed
 * layout, a callback that stops the run).
 * Usage: test_lib_pdist SCRATCH_DIR */
#include <gensvd.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib_check.h"

/* Three items over four values, one missing: the formulas over the values called in both. */
static const char text[] = "id\tv1\tv2\tv3\tv4\n"
                           "a\t0\t1\t2\t0.5\n"
                           "b\t1\t1\t0\t\n"
                           "c\t2\t0\t1\t1.5\n";
static const double vals[3][4] = {{0, 1, 2, 0.5}, {1, 1, 0, NAN}, {2, 0, 1, 1.5}};

static double formula(int metric_cityblock, size_t i, size_t j)
{
    double s = 0;
    for (size_t k = 0; k < 4; k++) {
        double d = vals[i][k] - vals[j][k];
        if (isnan(d))
            continue;
        s += metric_cityblock ? fabs(d) : d * d;
    }
    return metric_cityblock ? s : sqrt(s);
}

struct seen {
    gensvd_ctx *ctx;
    char ids[3][8];
    uint64_t n_items, items_calls;
    double rows[3][3];
    int rows_set[3][3];
    double matrix[3][3];
    uint64_t matrix_calls;
    int fail_items, fail_matrix;
};

static int on_items(void *user, uint64_t n, const char *const *ids)
{
    struct seen *s = user;
    s->n_items = n;
    s->items_calls++;
    for (uint64_t i = 0; i < n && i < 3; i++)
        snprintf(s->ids[i], sizeof s->ids[i], "%s", ids[i]);
    return s->fail_items;
}

static int on_rows(void *user, uint64_t row0, uint64_t n_rows, const struct gensvd_array_view *d,
                   const struct gensvd_array_view *c)
{
    struct seen *s = user;
    (void)c;
    for (uint64_t r = 0; r < n_rows; r++)
        for (uint64_t k = 0; k < d->shape[1]; k++) {
            s->rows[row0 + r][row0 + k] = ((const double *)d->data)[r * d->shape[1] + k];
            s->rows_set[row0 + r][row0 + k]++;
        }
    return 0;
}

static int on_matrix(void *user, uint64_t row0, uint64_t n_rows, const struct gensvd_array_view *d,
                     const struct gensvd_array_view *c)
{
    struct seen *s = user;
    if (n_rows != 1 || d->shape[0] != 1 || d->shape[1] != 3 || c != NULL || row0 != s->matrix_calls)
        return 1;
    memcpy(s->matrix[row0], d->data, 3 * sizeof(double));
    s->matrix_calls++;
    return s->fail_matrix;
}

static int write_file(const char *path, const char *content)
{
    FILE *f = fopen(path, "w");
    int rc = f && fputs(content, f) >= 0 ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    return rc;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * (1 + fabs(b));
}

static void text_matrix(gensvd_ctx *ctx, const char *scratch)
{
    gensvd_source *src = NULL;
    gensvd_options *opt = NULL;
    gensvd_result *res = NULL;
    gensvd_dest *dest = NULL;
    struct seen s = {.ctx = ctx};
    struct gensvd_array_view v;
    char out[4096];
    int rc, ok = 1, bands_ok = 1;

    snprintf(out, sizeof out, "%s/matrix.tsv", scratch);
    rc = write_file(out, text);
    if (rc == 0)
        rc = gensvd_source_open_text(ctx, out, &src);
    check(rc == 0, "source_open_text (%s)", gensvd_ctx_last_error(ctx));
    if (rc != 0)
        return;
    rc = gensvd_options_new(ctx, GENSVD_PDIST, &opt);
    if (rc == 0)
        rc = gensvd_options_set_items_callback(opt, on_items, &s);
    if (rc == 0)
        rc = gensvd_options_set_matrix_callback(opt, on_matrix, &s);
    if (rc == 0)
        rc = gensvd_options_set_rows_callback(opt, on_rows, &s);
    if (rc == 0)
        rc = gensvd_run(ctx, opt, src, NULL, &res);
    check(rc == 0, "pdist of a text matrix with the callbacks (%s)", gensvd_ctx_last_error(ctx));
    check(s.items_calls == 1 && s.n_items == 3 && !strcmp(s.ids[0], "a") && !strcmp(s.ids[2], "c"),
          "items callback: once, 3 items a..c");
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++) {
            ok &= near(s.matrix[i][j], formula(0, i, j));
            /* a band: its rows against the columns from its first row on */
            bands_ok &= s.rows_set[i][j] <= 1 && (j < i || s.rows_set[i][j] == 1) &&
                        (!s.rows_set[i][j] || near(s.rows[i][j], formula(0, i, j)));
        }
    check(rc == 0 && s.matrix_calls == 3 && ok,
          "matrix callback: 3 complete rows, euclidean over the values called in both");
    check(rc == 0 && bands_ok, "rows callback: each pair of the upper triangle once, in bands");
    check(rc == 0 && gensvd_result_array(res, "distance", &v) == GENSVD_ENOTFOUND,
          "with the callbacks the result holds no distance array");
    check(rc == 0 && gensvd_result_array(res, "n_bands", &v) == 0 &&
              v.dtype == GENSVD_DTYPE_UINT64 && ((const uint64_t *)v.data)[0] == 1 &&
              gensvd_result_array(res, "peak_bytes", &v) == 0 &&
              ((const uint64_t *)v.data)[0] >= 9 * sizeof(double),
          "the run's plan held beside the result: one band, the mirror in the working set");
    ok = 1;
    for (size_t i = 0; gensvd_result_array_name(res, i); i++)
        ok &= strcmp(gensvd_result_array_name(res, i), "n_bands") != 0;
    check(ok, "the plan is not listed among the arrays");
    gensvd_result_free(res);
    res = NULL;

    /* with a destination: the rows callback still hears every band, the matrix its rows */
    memset(s.rows_set, 0, sizeof s.rows_set);
    s.matrix_calls = 0;
    snprintf(out, sizeof out, "%s/text_pdist.zarr", scratch);
    rc = gensvd_options_set_string(opt, "metric", "cityblock");
    if (rc == 0)
        rc = gensvd_dest_new(ctx, out, &dest);
    if (rc == 0)
        rc = gensvd_dest_set_int(dest, "force", 1);
    if (rc == 0)
        rc = gensvd_run(ctx, opt, src, dest, &res);
    ok = 1;
    bands_ok = 1;
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++) {
            ok &= near(s.matrix[i][j], formula(1, i, j));
            bands_ok &= j < i || (s.rows_set[i][j] == 1 && near(s.rows[i][j], formula(1, i, j)));
        }
    check(rc == 0 && ok && bands_ok && s.matrix_calls == 3,
          "with a destination: rows and matrix callbacks, cityblock (%s)",
          gensvd_ctx_last_error(ctx));
    gensvd_result_free(res);
    res = NULL;
    gensvd_dest_free(dest);

    /* a callback that stops the run */
    s.fail_items = 1;
    rc = gensvd_run(ctx, opt, src, NULL, &res);
    check(rc == GENSVD_EIO && strstr(gensvd_ctx_last_error(ctx), "items callback") && !res,
          "an items callback returning nonzero: EIO naming it (%s)", gensvd_ctx_last_error(ctx));
    s.fail_items = 0;
    s.fail_matrix = 1;
    s.matrix_calls = 0;
    rc = gensvd_run(ctx, opt, src, NULL, &res);
    check(rc == GENSVD_EIO && strstr(gensvd_ctx_last_error(ctx), "matrix callback") && !res,
          "a matrix callback returning nonzero: EIO naming it (%s)", gensvd_ctx_last_error(ctx));
    s.fail_matrix = 0;

    /* the matrix callback takes the square layout only */
    rc = gensvd_options_set_string(opt, "layout", "condensed");
    if (rc == 0)
        rc = gensvd_run(ctx, opt, src, NULL, &res);
    check(rc == GENSVD_EINVAL && strstr(gensvd_ctx_last_error(ctx), "matrix callback"),
          "the matrix callback with the condensed layout: EINVAL (%s)", gensvd_ctx_last_error(ctx));
    gensvd_options_free(opt);
    opt = NULL;

    /* "missing" error on a missing value; a text source for pca */
    rc = gensvd_options_new(ctx, GENSVD_PDIST, &opt);
    if (rc == 0)
        rc = gensvd_options_set_string(opt, "missing", "error");
    if (rc == 0)
        rc = gensvd_run(ctx, opt, src, NULL, &res);
    check(rc == GENSVD_EFORMAT && strstr(gensvd_ctx_last_error(ctx), "matrix.tsv: row 2"),
          "missing error: EFORMAT naming the text and row 2 (%s)", gensvd_ctx_last_error(ctx));
    gensvd_options_free(opt);
    opt = NULL;
    rc = gensvd_options_new(ctx, GENSVD_PCA, &opt);
    if (rc == 0)
        rc = gensvd_run(ctx, opt, src, NULL, &res);
    check(rc == GENSVD_EUNSUPPORTED && strstr(gensvd_ctx_last_error(ctx), "matrix.tsv"),
          "pca of a text source: EUNSUPPORTED (%s)", gensvd_ctx_last_error(ctx));
    gensvd_options_free(opt);
    gensvd_source_free(src);
    snprintf(out, sizeof out, "%s/bad.tsv", scratch);
    rc = write_file(out, "a\t1\t2\nb\t3\n");
    if (rc == 0)
        rc = gensvd_source_open_text(ctx, out, &src);
    check(rc == GENSVD_EFORMAT && !src && strstr(gensvd_ctx_last_error(ctx), "bad.tsv"),
          "a ragged text: EFORMAT naming it (%s)", gensvd_ctx_last_error(ctx));
}

struct pairs_seen {
    struct gensvd_king_pair p[64];
    size_t n, calls, empty_first;
};

static int on_pairs(void *user, const struct gensvd_king_pair *p, size_t n)
{
    struct pairs_seen *s = user;
    if (s->calls++ == 0)
        s->empty_first = n == 0;
    for (size_t k = 0; k < n && s->n < 64; k++)
        s->p[s->n++] = p[k];
    return 0;
}

/* KING pairs of simulated calls: the callback's against the result's pair list. */
static void king_pairs(gensvd_ctx *ctx)
{
    enum { V = 300, S = 8 };
    static int8_t gt[V * S * 2];
    const uint64_t shape[3] = {V, S, 2};
    gensvd_source *src = NULL;
    gensvd_options *opt = NULL;
    gensvd_result *res = NULL, *res2 = NULL;
    struct pairs_seen s = {0};
    struct gensvd_array_view pi, pj, kin, ns, hh, i0;
    unsigned seed = 7;
    double attr = 0;
    int rc, ok = 1;

    for (size_t k = 0; k < V * S * 2; k++) {
        seed = seed * 1103515245u + 12345u;
        gt[k] = (int8_t)((seed >> 16) % 7 == 0 ? -1 : (int)((seed >> 20) % 2));
    }
    rc = gensvd_source_new(ctx, &src);
    if (rc == 0)
        rc = gensvd_source_add_array(src, "call_genotype", gt, GENSVD_DTYPE_INT8, 3, shape, NULL);
    if (rc == 0)
        rc = gensvd_options_new(ctx, GENSVD_PDIST, &opt);
    if (rc == 0)
        rc = gensvd_options_set_string(opt, "metric", "king");
    if (rc == 0)
        rc = gensvd_options_set_double(opt, "min-kinship", -1);
    if (rc == 0)
        rc = gensvd_run(ctx, opt, src, NULL, &res);
    if (rc == 0)
        rc = gensvd_options_set_pairs_callback(opt, on_pairs, &s);
    if (rc == 0)
        rc = gensvd_run(ctx, opt, src, NULL, &res2);
    check(rc == 0, "king pairs with and without the callback (%s)", gensvd_ctx_last_error(ctx));
    if (rc == 0)
        rc = gensvd_result_array(res, "pair_i", &pi) | gensvd_result_array(res, "pair_j", &pj) |
             gensvd_result_array(res, "kinship", &kin) | gensvd_result_array(res, "n_sites", &ns) |
             gensvd_result_array(res, "hethet", &hh) | gensvd_result_array(res, "ibs0", &i0);
    check(rc == 0 && s.empty_first && s.calls >= 2 && s.n == pi.shape[0] && s.n == S * (S - 1) / 2,
          "pairs callback: first with no pair, then all %d pairs (%zu)", S * (S - 1) / 2, s.n);
    for (size_t k = 0; rc == 0 && k < s.n; k++)
        ok &= (int64_t)s.p[k].i == ((const int64_t *)pi.data)[k] &&
              (int64_t)s.p[k].j == ((const int64_t *)pj.data)[k] &&
              s.p[k].kinship == ((const double *)kin.data)[k] &&
              s.p[k].n_sites == ((const uint32_t *)ns.data)[k] &&
              s.p[k].hethet == ((const uint32_t *)hh.data)[k] &&
              s.p[k].ibs0 == ((const uint32_t *)i0.data)[k];
    check(rc == 0 && ok, "the callback's pairs are the result's pair list, in its order");
    check(rc == 0 && gensvd_result_array(res2, "pair_i", &pi) == GENSVD_ENOTFOUND &&
              gensvd_result_attr_double(res2, "n_pairs", &attr) == 0 && attr == (double)s.n,
          "with the callback the result holds the attributes (n_pairs) and no pairs");
    gensvd_result_free(res);
    gensvd_result_free(res2);
    gensvd_options_free(opt);
    gensvd_source_free(src);
}

int main(int argc, char **argv)
{
    gensvd_ctx *ctx = gensvd_ctx_new();
    if (argc != 2 || !ctx) {
        fprintf(stderr, "usage: test_lib_pdist SCRATCH_DIR\n");
        return 2;
    }
    gensvd_ctx_set_int(ctx, "threads", 2);
    text_matrix(ctx, argv[1]);
    king_pairs(ctx);
    gensvd_ctx_free(ctx);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
