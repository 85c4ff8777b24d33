/* tests/unit/test_tracy_widom.c - the TW1 distribution and the Tracy-Widom statistics
 * (analysis/pca/tracy_widom.h).  Oracles: EIGENSOFT's own files when its Debian package is
 * installed (argument: its POPGEN directory, /usr/share/eigensoft/POPGEN): the 9-decimal TW1
 * table `twtable` (every one of its 161 rows, distribution and density, to 1.2e-9: its last
 * digit and its solver's error) and `twexample.eval` against twstats' `twexample.out`
 * (statistic, p-value, effective n to their printed digits).  Without the package only the
 * internal checks run: the table's two independent routes agree where they meet (the RK4
 * solution of Painleve II against 1/2 int Ai, its tail, at x = 6, 7, 8), the distribution falls
 * from 1 to 0 with a positive density, and the statistic on eigenvalues written out here against
 * the formulas of the header computed again below. */
#include "gsvd_config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pca/tracy_widom.h"
#include "gsvd_test.h"

/* Read the first `cols` numbers of each non-comment line of path into v (at most cap rows; "NA"
 * reads as NaN); the number of rows, or -1 when the file cannot be opened. */
static int read_rows(const char *path, double *v, int cols, int cap)
{
    char line[512];
    int n = 0;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return -1;
    while (n < cap && fgets(line, sizeof line, fp)) {
        char *p = line, *end;
        int c = 0;
        if (strchr(line, '#'))
            continue;
        for (; c < cols; c++, p = end) {
            p += strspn(p, " \t");
            if (strncmp(p, "NA", 2) == 0) {
                v[n * cols + c] = NAN;
                end = p + 2;
                continue;
            }
            v[n * cols + c] = strtod(p, &end);
            if (end == p)
                break;
        }
        if (c == cols)
            n++;
    }
    fclose(fp);
    return n;
}

static void check_twtable(const struct gsvd_tw1_table *t, const char *dir)
{
    char path[1024];
    double rows[200 * 3];
    snprintf(path, sizeof path, "%s/twtable", dir);
    int n = read_rows(path, rows, 3, 200);
    if (n < 0) {
        printf("no %s: the table is not compared with EIGENSOFT's\n", path);
        return;
    }
    GSVD_CHECK(n == GSVD_TW1_TABLE_N);
    for (int i = 0; i < n && i < GSVD_TW1_TABLE_N; i++) {
        GSVD_CHECK_NEAR(rows[3 * i], -8.0 + 0.1 * i, 1e-9);
        GSVD_CHECK_NEAR(t->sf[i], rows[3 * i + 1], 1.2e-9);
        GSVD_CHECK_NEAR(t->density[i], rows[3 * i + 2], 1.2e-9);
    }
}

/* twstats on its own example: 149 eigenvalues, rows "N eigenvalue difference twstat p-value
 * neff" (NA from row 141 on: fewer than 10 eigenvalues left). */
static void check_twexample(const struct gsvd_tw1_table *t, const char *dir)
{
    char path[1024];
    double ev[200], out[200 * 6], stat[200], pv[200], ne[200], sum = 0, sumsq = 0;
    snprintf(path, sizeof path, "%s/twexample.eval", dir);
    int m = read_rows(path, ev, 1, 200);
    snprintf(path, sizeof path, "%s/twexample.out", dir);
    int n_out = read_rows(path, out, 6, 200), rows = 0;
    if (m < 0 || n_out < 0) {
        printf("no twexample files in %s: twstats' example not compared\n", dir);
        return;
    }
    while (rows < n_out && !isnan(out[6 * rows + 3]))
        rows++;
    GSVD_CHECK(m == 149 && n_out == 149 && rows == 140);
    for (int i = 0; i < m; i++) {
        sum += ev[i];
        sumsq += ev[i] * ev[i];
    }
    gsvd_tw_stats(t, ev, (size_t)m, (size_t)m, sum, sumsq, 0, stat, pv, ne);
    for (int q = 0; q < rows; q++) {
        const double *o = out + 6 * q;
        GSVD_CHECK_NEAR(stat[q], o[3], 5.01e-4);
        GSVD_CHECK_NEAR(ne[q], o[5], 5.01e-4);
        if (stat[q] <= 8) /* printed to 6 digits; the tables differ by < 1e-9 */
            GSVD_CHECK_NEAR(pv[q], o[4], 5e-6 * o[4] + 2e-9);
    }
    for (int q = rows; q < m; q++) /* NA */
        GSVD_CHECK(isnan(stat[q]) && isnan(pv[q]) && isnan(ne[q]));
}

/* The header's formulas, computed again for one component. */
static double stat_again(const double *lam, size_t m, size_t q, double *neff)
{
    double s = 0, s2 = 0, mq = (double)(m - q);
    for (size_t i = q; i < m; i++) {
        s += lam[i];
        s2 += lam[i] * lam[i];
    }
    double ne = (mq + 2) * s * s / (mq * s2 - s * s);
    double big = fmax(ne, mq), small = fmin(ne, mq);
    double mu = pow(sqrt(big - 1) + sqrt(small), 2) / ne;
    double sd =
        (sqrt(big - 1) + sqrt(small)) / ne * pow(1 / sqrt(big - 1) + 1 / sqrt(small), 1.0 / 3);
    *neff = ne;
    return (mq * lam[q] / s - mu) / sd;
}

int main(int argc, char **argv)
{
    struct gsvd_tw1_table t;
    gsvd_log_set_level(GSVD_LOG_OFF);
    gsvd_tw1_table_init(&t);

    /* the distribution: 1 at -8, 0 at 8, falling, with a positive density */
    GSVD_CHECK(t.sf[0] > 1 - 1e-8 && t.sf[0] <= 1); /* F1(-8) ~ e^{-8^3 / 24} */
    GSVD_CHECK(t.sf[GSVD_TW1_TABLE_N - 1] > 0 && t.sf[GSVD_TW1_TABLE_N - 1] < 1e-8);
    for (int i = 1; i < GSVD_TW1_TABLE_N; i++)
        GSVD_CHECK(t.sf[i] < t.sf[i - 1] && t.density[i] > 0);
    GSVD_CHECK(gsvd_tw1_sf(&t, -8.5) == 1 && isnan(gsvd_tw1_sf(&t, NAN)));
    /* interpolation hits the table at the nodes */
    GSVD_CHECK_NEAR(gsvd_tw1_sf(&t, -1.0), t.sf[70], 1e-15);
    GSVD_CHECK_NEAR(gsvd_tw1_sf(&t, 2.0), t.sf[100], 1e-15);
    /* two routes to the tail: the RK4 table against 1/2 int_x^inf Ai just beyond 8, and the
     * tail's own values falling as e^{-2/3 x^{3/2}} */
    double at8 = gsvd_tw1_sf(&t, 8.0 + 1e-12);
    GSVD_CHECK(fabs(at8 / t.sf[GSVD_TW1_TABLE_N - 1] - 1) < 1e-6);
    double r = gsvd_tw1_sf(&t, 12.0) / gsvd_tw1_sf(&t, 10.0);
    GSVD_CHECK(r > exp(-2.0 / 3 * (pow(12, 1.5) - pow(10, 1.5))) * 0.7 &&
               r < exp(-2.0 / 3 * (pow(12, 1.5) - pow(10, 1.5))));
    GSVD_CHECK(gsvd_tw1_sf(&t, 200) == 0); /* below the smallest double */

    /* the statistic on 40 eigenvalues (a spike, a bulk), against the formulas again; the second
     * component has n' < m_q (the swapped centring) */
    double lam[40], stat[40], pv[40], ne[40], sum = 0, sumsq = 0, want, wne;
    uint64_t seed = 88172645463325252ULL;
    for (int i = 0; i < 40; i++)
        lam[i] = i == 0 ? 30 : i == 1 ? 12 : 1.5 - gsvd_test_uniform(&seed);
    for (int i = 2; i < 40; i++) /* descending bulk */
        for (int j = i + 1; j < 40; j++)
            if (lam[j] > lam[i]) {
                double x = lam[i];
                lam[i] = lam[j];
                lam[j] = x;
            }
    for (int i = 0; i < 40; i++) {
        sum += lam[i];
        sumsq += lam[i] * lam[i];
    }
    gsvd_tw_stats(&t, lam, 40, 40, sum, sumsq, 0, stat, pv, ne);
    for (size_t q = 0; q < 31; q++) {
        want = stat_again(lam, 40, q, &wne);
        GSVD_CHECK_NEAR(stat[q], want, 1e-9 * fmax(1, fabs(want)));
        GSVD_CHECK_NEAR(ne[q], wne, 1e-9 * wne);
        GSVD_CHECK_NEAR(pv[q], gsvd_tw1_sf(&t, want), 1e-9);
    }
    GSVD_CHECK(ne[1] < 39); /* the case with n' < m_q is covered */
    for (size_t q = 31; q < 40; q++)
        GSVD_CHECK(isnan(stat[q]));

    if (argc > 1) {
        check_twtable(&t, argv[1]);
        check_twexample(&t, argv[1]);
    }
    return gsvd_test_report("test_tracy_widom");
}
