/* tests/unit/test_dosage.c - diploid calls to dosages (analysis/dosage.h): every pair of int8
 * allele values (all 65,536, fill -2 and other negatives included) through the vector path and
 * the portable path, for row lengths around the vector width (tails), against the rule written
 * out here; and the row sums (called, sum, sum of squares). */
#include "gsvd_config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analysis/dosage.h"
#include "common/alloc.h"
#include "gsvd_test.h"

/* sgkit's rule: -2 is fill, other negatives are missing; missing if an allele is missing or
 * both are fill; dosage = alleles > 0. */
static int8_t rule(int a, int b)
{
    if ((a < 0 && a != -2) || (b < 0 && b != -2) || (a == -2 && b == -2))
        return -1;
    return (int8_t)((a > 0) + (b > 0));
}

static void check_row(const int8_t *row, size_t n, int simd, size_t *bad)
{
    int8_t *d = gsvd_malloc(n + 1);
    int64_t sums[3] = {-7, -7, -7}, want[3] = {0, 0, 0};

    if (!d) {
        (*bad)++;
        return;
    }
    d[n] = 99; /* guard */
    gsvd_diploid_dosages(row, n, d, sums, simd);
    for (size_t i = 0; i < n; i++) {
        int8_t w = rule(row[2 * i], row[2 * i + 1]);
        *bad += d[i] != w;
        if (w >= 0) {
            want[0]++;
            want[1] += w;
            want[2] += w * w;
        }
    }
    *bad += d[n] != 99;
    *bad += sums[0] != want[0] || sums[1] != want[1] || sums[2] != want[2];
    gsvd_free(d);
}

int main(void)
{
    size_t n_all = 65536, bad[2] = {0, 0};
    int8_t *row = gsvd_malloc(2 * n_all);

    GSVD_CHECK(row != NULL);
    if (!row)
        return gsvd_test_report("test_dosage");
    for (size_t k = 0; k < n_all; k++) {
        row[2 * k] = (int8_t)(k & 0xff);
        row[2 * k + 1] = (int8_t)(k >> 8);
    }
    for (int simd = 0; simd < 2; simd++) {
        check_row(row, n_all, simd, &bad[simd]); /* every pair once */
        for (size_t n = 0; n <= 100; n++)        /* tails around 32 calls per vector */
            for (size_t off = 0; off + n <= n_all; off += 6553)
                check_row(row + 2 * off, n, simd, &bad[simd]);
    }
    /* the usual values only, as most rows are */
    for (size_t k = 0; k < n_all; k++)
        row[k] = (int8_t)((k * 2654435761u >> 13) % 4) - 1; /* -1, 0, 1, 2 */
    for (int simd = 0; simd < 2; simd++)
        check_row(row, n_all / 2, simd, &bad[simd]);
    GSVD_CHECK(bad[0] == 0);
    GSVD_CHECK(bad[1] == 0);
    if (bad[0] || bad[1])
        fprintf(stderr, "  portable: %zu bad, vector: %zu bad\n", bad[0], bad[1]);
    gsvd_free(row);
    return gsvd_test_report("test_dosage");
}
