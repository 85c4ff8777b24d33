/* analysis/scan/hwe.c - the Hardy-Weinberg exact test (hwe.h).
 *
 * With n genotypes and r copies of the rarer allele, the heterozygote count h has the same
 * parity as r, and P(h) / P(h - 2) = 4 R C / (h (h - 1)) with R = (r - h) / 2 + 1 and
 * C = n - h - (r - h) / 2 + 1 the homozygote counts at h - 2 (Wigginton et al.'s recurrence).
 * Every probability is taken relative to the one at the distribution's mode (near the expected
 * count r (2n - r) / 2n), so nothing overflows; far tails underflow to 0, where the p-value is
 * far below any threshold anyway.  The distribution is unimodal, so each tail's terms fall
 * away from the mode and, once the ratio of two terms is below 1/2, what remains of a tail is
 * smaller than its last term: a tail stops when that is negligible next to the sums. */
#include "gsvd_config.h"
#include "analysis/scan/hwe.h"

/* Relative size below which a tail's remainder is dropped, and the relative tolerance of ties. */
#define NEGLIGIBLE 1e-18
#define TIE 1e-12

/* Ratio P(h + 2) / P(h) at heterozygote count h (rare copies r, genotypes n). */
static double up(double h, double r, double n)
{
    double homr = (r - h) / 2, homc = n - h - homr;
    return 4 * homr * homc / ((h + 2) * (h + 1));
}

/* One tail from the mode m (P = 1) in steps of `step` (+2 or -2) up to `end` (inclusive):
 * every term is added to *all, and the terms no more likely than `obs` to *tail. */
static void sweep(double m, double end, int step, double r, double n, double obs, double *all,
                  double *tail)
{
    double p = 1, h = m;
    while (step > 0 ? h + 2 <= end : h - 2 >= end) {
        double ratio = step > 0 ? up(h, r, n) : 1 / up(h - 2, r, n);
        p *= ratio;
        h += step;
        *all += p;
        if (p <= obs * (1 + TIE)) {
            *tail += p;
            if (p == 0 || (ratio < 0.5 && p < NEGLIGIBLE * *tail && p < NEGLIGIBLE * *all))
                break;
        }
    }
}

double gsvd_hwe_p(uint64_t het, uint64_t hom_a, uint64_t hom_b, int midp)
{
    double n = (double)het + (double)hom_a + (double)hom_b;
    double homr = (double)(hom_a < hom_b ? hom_a : hom_b);
    double r = 2 * homr + (double)het, h = (double)het, m, obs = 1, all = 1, tail = 0;

    if (n == 0 || r == 0)
        return 1;
    m = (double)(uint64_t)(r * (2 * n - r) / (2 * n));
    if (((uint64_t)m ^ (uint64_t)r) & 1) /* the mode has r's parity */
        m += 1;
    if (m > r)
        m -= 2;
    /* the observed count's probability, walking from the mode */
    for (double x = m; x < h; x += 2)
        obs *= up(x, r, n);
    for (double x = m; x > h; x -= 2)
        obs /= up(x - 2, r, n);
    if (obs * (1 + TIE) >= 1) /* the mode itself is no more likely than the observed count */
        tail = 1;
    sweep(m, r, 2, r, n, obs, &all, &tail);
    sweep(m, r - 2 * (double)(uint64_t)(r / 2), -2, r, n, obs, &all, &tail);
    if (midp)
        tail -= obs / 2;
    tail /= all;
    return tail > 1 ? 1 : tail < 0 ? 0 : tail;
}
