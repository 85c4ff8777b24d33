/* tests/unit/test_dosage.c - diploid calls to dosages (analysis/scan/dosage.h): every pair of int8
 * allele values (all 65,536, fill -2 and other negatives included) through the vector path and
 * the portable path, for row lengths around the vector width (tails), against the rule written
 * out here; and the row sums (called, sum, sum of squares), also of rows of any int8 dosages
 * (gsvd_dosage_sums: tails, and rows long enough for its 32-bit partial sums to be flushed);
 * and a subset's bytes picked out of a row (gsvd_dosage_compact) against a byte-by-byte pick. */
#include "gsvd_config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analysis/scan/dosage.h"
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

/* gsvd_dosage_sums of row[0..n) against the sums written out here */
static void check_sums(const int8_t *row, size_t n, size_t *bad)
{
    int64_t got[3] = {-7, -7, -7}, want[3] = {0, 0, 0};
    gsvd_dosage_sums(row, n, got);
    for (size_t i = 0; i < n; i++)
        if (row[i] >= 0) {
            want[0]++;
            want[1] += row[i];
            want[2] += (int64_t)row[i] * row[i];
        }
    *bad += got[0] != want[0] || got[1] != want[1] || got[2] != want[2];
}

/* gsvd_dosage_compact against the bytes picked one by one: rows of 0..300 bytes from every
 * bit offset 0..130 of bitmaps of every density (none, all, sparse, dense, runs), in place,
 * with the bytes after the row untouched. */
static void check_compact(void)
{
    enum { W = 12, N = 300 };
    uint64_t bits[W];
    int8_t buf[N + 16], want[N];
    size_t bad = 0;
    for (int dens = 0; dens < 6; dens++) {
        for (size_t w = 0; w < W; w++) {
            uint64_t h = (w + 1) * 0x9E3779B97F4A7C15ull, r = h ^ h >> 29;
            bits[w] = dens == 0   ? 0
                      : dens == 1 ? ~0ull
                      : dens == 2 ? r & r >> 7 & r >> 13            /* ~1/8 kept */
                      : dens == 3 ? ~(r & r >> 11)                  /* ~3/4 kept */
                      : dens == 4 ? 0xFFFF0000FF00F0F0ull * (w & 1) /* runs */
                                  : r;
        }
        for (uint64_t bit0 = 0; bit0 <= 130; bit0++)
            for (size_t n = 0; n <= N && bit0 + n + 128 <= 64 * W; n += n < 80 ? 1 : 17) {
                size_t k = 0, got;
                for (size_t i = 0; i < N + 16; i++)
                    buf[i] = (int8_t)(i * 37 + bit0);
                for (size_t i = 0; i < n; i++)
                    if (bits[(bit0 + i) / 64] >> ((bit0 + i) % 64) & 1)
                        want[k++] = buf[i];
                got = gsvd_dosage_compact(buf, n, bits, bit0);
                bad += got != k || memcmp(buf, want, k) != 0;
                for (size_t i = n; i < N + 16; i++)
                    bad += buf[i] != (int8_t)(i * 37 + bit0);
            }
    }
    if (bad)
        fprintf(stderr, "  gsvd_dosage_compact: %zu bad rows\n", bad);
    GSVD_CHECK(bad == 0);
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
    /* called rows with a few missing or fill alleles, as most genotype rows are: the vector
     * engines' steps without a negative byte (no pair rule) beside steps with one, in every
     * order, alleles up to 3 */
    for (size_t k = 0; k < n_all; k++) {
        uint32_t h = (uint32_t)(k * 2654435761u) >> 7;
        row[k] = (int8_t)(h % 97 == 0 ? (h % 2 ? -1 : -2) : (int8_t)(h % 4 == 3 ? h % 4 : h % 2));
    }
    for (int simd = 0; simd < 2; simd++) {
        check_row(row, n_all / 2, simd, &bad[simd]);
        for (size_t n = 0; n <= 100; n++)
            check_row(row + 2 * (1000 + 7 * n), n, simd, &bad[simd]);
    }
    /* long rows of one value: every lane of a vector engine's counts gains each step (narrow
     * accumulators must be flushed in time) */
    static const int8_t pairs[4][2] = {{1, 1}, {0, 1}, {-1, -1}, {0, 0}};
    for (int v = 0; v < 4; v++) {
        for (size_t k = 0; k < n_all / 2; k++) {
            row[2 * k] = pairs[v][0];
            row[2 * k + 1] = pairs[v][1];
        }
        for (int simd = 0; simd < 2; simd++)
            check_row(row, n_all / 2, simd, &bad[simd]);
    }
    GSVD_CHECK(bad[0] == 0);
    GSVD_CHECK(bad[1] == 0);

    /* any int8 dosages (polyploid, other negatives as missing), 5 x 2^20 of them: the vector
     * path flushes its 32-bit squares every 2^20 bytes (unflushed, 127s would wrap them after
     * 4.2 MB) */
    size_t n_big = (size_t)5 << 20, bad_sums = 0;
    int8_t *big = gsvd_malloc(n_big);
    GSVD_CHECK(big != NULL);
    if (big) {
        for (size_t k = 0; k < n_big; k++)
            big[k] = (int8_t)(k * 2654435761u >> 11);
        check_sums(big, n_big, &bad_sums);
        for (size_t n = 0; n <= 200; n++)
            check_sums(big + 1000 + n, n, &bad_sums);
        memset(big, 127, n_big);
        check_sums(big, n_big, &bad_sums);
        gsvd_free(big);
    }
    GSVD_CHECK(bad_sums == 0);
    check_compact();
    if (bad[0] || bad[1])
        fprintf(stderr, "  portable: %zu bad, vector: %zu bad\n", bad[0], bad[1]);
    gsvd_free(row);
    return gsvd_test_report("test_dosage");
}
