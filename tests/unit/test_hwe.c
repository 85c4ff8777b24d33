/* tests/unit/test_hwe.c - the Hardy-Weinberg exact test (analysis/scan/hwe.h) against the
 * distribution written out in closed form: given n genotypes and r copies of the rarer allele,
 *   P(h) = n! / (h! R! C!) * 2^h * r! (2n - r)! / (2n)!,  R = (r - h) / 2, C = n - h - R,
 * summed in long double from lgammal for every heterozygote count h of r's parity; the p-value
 * is the sum of the P(h) no larger than the observed one (ties within 1e-9), the mid-p value
 * that less half P(observed).  Every genotype table of n <= 40, then random tables of up to
 * 20,000 genotypes, and tables far out in the tails (p-values down to 1e-300). */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/scan/hwe.h"
#include "gsvd_test.h"

static long double log_p(long double h, long double r, long double n)
{
    long double R = (r - h) / 2, C = n - h - R;
    return lgammal(n + 1) - lgammal(h + 1) - lgammal(R + 1) - lgammal(C + 1) + h * logl(2) +
           lgammal(r + 1) + lgammal(2 * n - r + 1) - lgammal(2 * n + 1);
}

static double oracle(uint64_t het, uint64_t hom_a, uint64_t hom_b, int midp)
{
    long double n = (long double)(het + hom_a + hom_b);
    long double r = 2 * (long double)(hom_a < hom_b ? hom_a : hom_b) + (long double)het;
    long double obs, sum = 0;
    if (n == 0 || r == 0)
        return 1;
    obs = log_p((long double)het, r, n);
    for (long double h = fmodl(r, 2); h <= r; h += 2) {
        long double l = log_p(h, r, n);
        if (l <= obs + 1e-9L)
            sum += expl(l);
    }
    if (midp)
        sum -= expl(obs) / 2;
    return (double)(sum > 1 ? 1 : sum < 0 ? 0 : sum);
}

static int close_to(double got, double want)
{
    return fabs(got - want) <= 1e-9 * want || fabs(got - want) <= 1e-300;
}

static void check(uint64_t het, uint64_t a, uint64_t b, int midp)
{
    double got = gsvd_hwe_p(het, a, b, midp), want = oracle(het, a, b, midp);
    if (!close_to(got, want))
        fprintf(stderr, "het %llu hom %llu %llu midp %d: %.17g, want %.17g\n",
                (unsigned long long)het, (unsigned long long)a, (unsigned long long)b, midp, got,
                want);
    GSVD_CHECK(close_to(got, want));
}

int main(int argc, char **argv)
{
    uint64_t x = 88172645463325252ULL; /* xorshift64 */
    int rc = gsvd_test_args(argc, argv, "test_hwe");
    if (rc)
        return rc;
    for (uint64_t n = 0; n <= 40; n++) /* every table of up to 40 genotypes */
        for (uint64_t het = 0; het <= n; het++)
            for (uint64_t a = 0; a + het <= n; a++)
                for (int midp = 0; midp < 2; midp++)
                    check(het, a, n - het - a, midp);
    for (int i = 0; i < 3000; i++) { /* random tables of up to 20,000 genotypes */
        uint64_t n, het, a;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        n = 1 + x % 20000;
        het = (x >> 20) % (n + 1);
        a = (x >> 40) % (n - het + 1);
        check(het, a, n - het - a, i & 1);
    }
    /* deep tails: no heterozygotes at p = 0.5 (p ~ 1e-300 and below), all heterozygotes */
    check(0, 500, 500, 0);
    check(0, 1000, 1000, 0);
    check(1000, 0, 0, 0);
    check(998, 1, 1, 1);
    check(10, 5000, 4990, 0);
    /* a symmetric distribution's mirror image is a tie: r = n, the counts h and r - h */
    check(2, 9, 9, 0);
    GSVD_CHECK(gsvd_hwe_p(0, 0, 0, 0) == 1 && gsvd_hwe_p(0, 100, 0, 0) == 1);
    return gsvd_test_report("test_hwe");
}
