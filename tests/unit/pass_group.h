/* tests/unit/pass_group.h - the random pass groups test_pass_i8.c and test_pass_avx2.c check the
 * pass engines on: 2-bit rows of binomial(2, f) calls (f uniform in 0.05..0.95), a fraction
 * `miss` of them missing, each row centred on its mean with Patterson's scale (every 17th row
 * scale 0) and, with miss_value, a random missing value in -0.5..0.5. */
#ifndef GSVD_TESTS_UNIT_PASS_GROUP_H
#define GSVD_TESTS_UNIT_PASS_GROUP_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "analysis/scan/gblock_std.h"
#include "gsvd_test.h"

struct grp {
    size_t rows, n;
    uint8_t *p2;
    float *center, *scale, *missing;
};

static void grp_free(struct grp *g)
{
    free(g->p2);
    free(g->center);
    free(g->scale);
    free(g->missing);
}

/* A group of rows x n from the generator state *rng. */
static void grp_make(struct grp *g, size_t rows, size_t n, double miss, int miss_value,
                     uint64_t *rng)
{
    size_t rb = gsvd_std_p2_row_bytes(n);
    g->rows = rows, g->n = n;
    g->p2 = calloc(rows * rb + 1, 1);
    g->center = malloc(rows * sizeof(float));
    g->scale = malloc(rows * sizeof(float));
    g->missing = malloc(rows * sizeof(float));
    for (size_t r = 0; r < rows; r++) {
        double f = 0.05 + 0.9 * gsvd_test_uniform(rng), sum = 0, cnt = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned q = 3;
            if (gsvd_test_uniform(rng) >= miss) {
                q = (gsvd_test_uniform(rng) < f) + (gsvd_test_uniform(rng) < f);
                sum += q, cnt++;
            }
            g->p2[r * rb + i / 4] |= (uint8_t)(q << (2 * (i % 4)));
        }
        double mu = cnt ? sum / cnt : 1;
        g->center[r] = (float)mu;
        g->scale[r] = r % 17 == 5 ? 0.0f : (float)(1 / sqrt(mu * (1 - mu / 2) + 0.01));
        g->missing[r] = miss_value ? (float)(gsvd_test_uniform(rng) - 0.5) : 0.0f;
    }
}

#endif /* GSVD_TESTS_UNIT_PASS_GROUP_H */
