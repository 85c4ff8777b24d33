/* cli/pca_summary.c - `gensvd pca`'s summary on stderr (cli/pca_out.h): the variants used, how
 * the components were solved and which guarantee holds, the singular values and their errors,
 * the variance explained, the outlier rounds, the Tracy-Widom table and the closing line. */
#include "gsvd_config.h"
#include "cli/pca_out.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_base.h"
#include "include/gensvd.h"

/* A line being built (gsvd_cli_note prints at most 2047 characters of it). */
struct line {
    char text[2048];
    size_t len;
};

static void line_add(struct line *l, const char *fmt, ...) GSVD_CLI_PRINTF(2, 3);
static void line_add(struct line *l, const char *fmt, ...)
{
    va_list ap;
    int w;

    if (l->len >= sizeof l->text - 1)
        return;
    va_start(ap, fmt);
    w = vsnprintf(l->text + l->len, sizeof l->text - l->len, fmt, ap);
    va_end(ap);
    if (w > 0)
        l->len = l->len + (size_t)w < sizeof l->text ? l->len + (size_t)w : sizeof l->text - 1;
}

/* "PC1-2, PC5" into buf: the components q (1-based in the text) whose flag is set. */
static void pc_ranges(const int *on, size_t k, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t q = 0; q < k && at < len; q++) {
        if (!on[q] || (q > 0 && on[q - 1]))
            continue;
        size_t e = q;
        while (e + 1 < k && on[e + 1])
            e++;
        int w = e > q ? snprintf(buf + at, len - at, "%sPC%zu-%zu", at ? ", " : "", q + 1, e + 1)
                      : snprintf(buf + at, len - at, "%sPC%zu", at ? ", " : "", q + 1);
        at += w > 0 ? (size_t)w : 0;
    }
}

/* The iterative methods' summary line: which guarantee holds (--accuracy).  fast: the
 * components whose error bound reached --tol are converged (the separated ones: population
 * PCs); the others are estimates, with their largest estimated error and bound.  bulk: every
 * singular value within --tol by its estimate, or which are not. */
static void report_iterative(const struct gsvd_cli_pca_summary *r)
{
    char conv[256], rest[256], line[1024];
    int ok[1024], bad[1024], at;
    size_t k = r->k < 1024 ? r->k : 1024, n_ok = 0;
    double est = 0, bnd = 0;
    int bulk = r->bulk;

    for (size_t q = 0; q < k; q++) {
        ok[q] = (bulk ? r->error_estimate[q] : r->error_bound[q]) <= r->tol;
        bad[q] = !ok[q];
        n_ok += (size_t)ok[q];
        if (!ok[q]) {
            est = fmax(est, r->error_estimate[q]);
            bnd = fmax(bnd, r->error_bound[q]);
        }
    }
    pc_ranges(ok, k, conv, sizeof conv);
    pc_ranges(bad, k, rest, sizeof rest);
    at = snprintf(line, sizeof line, "%s",
                  r->converged < 0 ? "fixed pass count (--power-iter); " : "");
    if (n_ok == k && bulk)
        snprintf(line + at, sizeof line - (size_t)at,
                 "every singular value within %.3g (error estimates)", r->tol);
    else if (n_ok == k)
        snprintf(line + at, sizeof line - (size_t)at, "converged: every error bound within %.3g",
                 r->tol);
    else if (bulk)
        snprintf(line + at, sizeof line - (size_t)at,
                 "NOT every singular value within %.3g (--max-iter reached): %s within it, %s "
                 "estimated up to %.2g",
                 r->tol, n_ok ? conv : "none", rest, est);
    else
        snprintf(line + at, sizeof line - (size_t)at,
                 "%s%s%s NOT converged (%s %zu reached): their singular values are "
                 "estimates (errors estimated up to %.2g, bounds up to %.2g; --accuracy bulk "
                 "resolves them)",
                 n_ok ? conv : "", n_ok ? " converged (error bounds within --tol); " : "", rest,
                 r->converged < 0 ? "--power-iter" : "--max-iter", r->max_iter, est, bnd);
    gsvd_cli_note("%s: %zu passes, accuracy %s: %s; final 1-MEV %.3g", r->method, r->iterations,
                  r->accuracy, line, r->convergence);
}

/* Outlier removal: the samples each round removed, and what is left. */
static void report_outliers(const struct gsvd_cli_pca_summary *r)
{
    gsvd_cli_note("outlier removal: %zu of %zu samples removed in %zu rounds; the PCs are those "
                  "of the %zu left",
                  r->n_removed, r->n_start, r->n_rounds, r->n);
    for (size_t round = 1; round <= r->n_rounds; round++) {
        size_t c = 0;
        for (size_t i = 0; i < r->n_start; i++)
            c += r->round[i] == (int64_t)round;
        gsvd_cli_note("outlier round %zu: %zu removed", round, c);
    }
}

/* twstats' table (eigenvalues scaled as smartpca's: their m sum to m) and the count of leading
 * components significant at 0.05, one summary line each. */
static void report_tw(const struct gsvd_cli_pca_summary *r)
{
    size_t sig = 0;
    gsvd_cli_note("Tracy-Widom statistics over %zu eigenvalues, as twstats prints them:", r->tw_m);
    gsvd_cli_note("#N      eigenvalue  difference    twstat      p-value effect. n");
    for (size_t q = 0; q < r->k; q++) {
        double lam = r->s[q] * r->s[q] * (double)r->tw_m / r->trace;
        double prev = q ? r->s[q - 1] * r->s[q - 1] * (double)r->tw_m / r->trace : NAN;
        char diff[32], rest[64];
        if (q)
            snprintf(diff, sizeof diff, "%11.6f", lam - prev);
        else
            snprintf(diff, sizeof diff, "%11s", "NA");
        if (isnan(r->tw_stat[q]))
            snprintf(rest, sizeof rest, "%9s %12s %9s", "NA", "NA", "NA");
        else
            snprintf(rest, sizeof rest, "%9.3f %12g %9.3f", r->tw_stat[q], r->tw_pvalue[q],
                     r->tw_neff[q]);
        gsvd_cli_note("%-4zu %13.6f %s %s", q + 1, lam, diff, rest);
    }
    while (sig < r->k && r->tw_pvalue[sig] < 0.05)
        sig++;
    gsvd_cli_note("Tracy-Widom: %zu of the %zu components significant at p < 0.05%s", sig, r->k,
                  sig == r->k ? " (all computed: ask -k for more)" : "");
}

/* "LABEL: x y z" of k values to `digits` significant digits, one line through gsvd_cli_note. */
static void note_values(const char *label, const double *v, size_t k, int digits)
{
    struct line b = {.len = 0};
    line_add(&b, "%s", label);
    for (size_t q = 0; q < k; q++)
        line_add(&b, " %.*g", digits, v[q]);
    gsvd_cli_note("%s", b.text);
}

void gsvd_cli_pca_report(const struct gsvd_cli_pca_summary *r)
{
    if (gsvd_cli_log_level() < GENSVD_LOG_WARN)
        return;
    char hwe[48] = "";
    if (r->hwe || r->m_hwe)
        snprintf(hwe, sizeof hwe, ", %llu --hwe", (unsigned long long)r->m_hwe);
    gsvd_cli_note("%zu samples, %llu of %llu variants used (dropped: %llu without calls, %llu "
                  "zero variance, %llu --maf, %llu --max-missing%s, %llu not selected); %llu "
                  "missing calls set to the mean",
                  r->n, (unsigned long long)r->m_kept, (unsigned long long)r->m_range,
                  (unsigned long long)r->m_no_calls, (unsigned long long)r->m_zero_var,
                  (unsigned long long)r->m_maf, (unsigned long long)r->m_missing, hwe,
                  (unsigned long long)r->m_mask, (unsigned long long)r->missing_calls);
    if (r->exact && r->gram_error > 0)
        gsvd_cli_note("exact: Gram matrix Z'Z from int8 tiles (weights within %.2g) and "
                      "symmetric eigensolver, one pass",
                      r->gram_error);
    else if (r->exact)
        gsvd_cli_note("exact: Gram matrix Z'Z and symmetric eigensolver, one pass");
    else if (r->subspace_stop)
        gsvd_cli_note("%s: %zu passes, %s; final 1-MEV %.3g", r->method, r->iterations,
                      r->converged < 0 ? "fixed pass count (--power-iter)"
                      : !r->converged  ? "NOT converged: --max-iter reached before --tol"
                                       : "converged (1 - MEV within --tol)",
                      r->convergence);
    else
        report_iterative(r);
    note_values("singular values:", r->s, r->k, 6);
    if (!r->exact || r->gram_error > 0)
        note_values("singular value error bounds (relative):", r->error_bound, r->k, 2);
    if (!r->exact)
        note_values("singular value error estimates (extrapolated, not bounds):", r->error_estimate,
                    r->k, 2);
    if (isfinite(r->trace) && r->trace > 0) {
        struct line b = {.len = 0};
        double all = 0;
        line_add(&b, "variance explained:");
        for (size_t q = 0; q < r->k; q++) {
            double f = r->s[q] * r->s[q] / r->trace;
            all += f;
            line_add(&b, "%s PC%zu %.3g%%", q ? "," : "", q + 1, 100 * f);
        }
        line_add(&b, " (%.3g%% in all)", 100 * all);
        gsvd_cli_note("%s", b.text);
    }
    if (r->round)
        report_outliers(r);
    if (r->tw_stat)
        report_tw(r);
}

void gsvd_cli_pca_done(const char *output, const char *plink, int plink_alleles,
                       const char *eigensoft, unsigned eigensoft_more, const char *outlier_out,
                       int tsv)
{
    struct line b = {.len = 0};
    int eval = (eigensoft_more & GSVD_CLI_EIGENSOFT_EVAL) != 0,
        snpwt = (eigensoft_more & GSVD_CLI_EIGENSOFT_SNPWT) != 0;

    if (output)
        line_add(&b, "%s", output);
    if (plink)
        line_add(&b, "%s%s.eigenvec%s %s.eigenval%s%s%s", b.len ? ", " : "", plink,
                 plink_alleles ? "," : " and", plink, plink_alleles ? " and " : "",
                 plink_alleles ? plink : "", plink_alleles ? ".eigenvec.allele" : "");
    if (eigensoft) /* PREFIX.evec[, PREFIX.eval] [and PREFIX.snpwt] */
        line_add(&b, "%s%s.evec%s%s%s%s%s%s", b.len ? ", " : "", eigensoft,
                 eval ? (snpwt ? ", " : " and ") : "", eval ? eigensoft : "", eval ? ".eval" : "",
                 snpwt ? " and " : "", snpwt ? eigensoft : "", snpwt ? ".snpwt" : "");
    if (outlier_out)
        line_add(&b, "%s%s", b.len ? ", " : "", outlier_out);
    if (tsv)
        line_add(&b, "%sthe scores to standard output", b.len ? ", " : "");
    gsvd_cli_done(b.text);
}
