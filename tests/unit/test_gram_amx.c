/* tests/unit/test_gram_amx.c - the AMX bf16 Gram tiles (analysis/cpu/kernels/gram_amx.h) against a
 * float64 oracle written out again here: hi = z rounded to 8 significant bits (to nearest, ties to
 * even: nearbyint), lo = z - hi rounded the same way, and the tile sum_k hi_i hi_j + hi_i lo_j
 * + lo_i hi_j in float64.  Shapes cover a single row and sample, rows and samples below, at and
 * above the padding (32) and the tile (256).  Also: entries of the padding are 0, and the same
 * tile computed twice is the same bytes.  Exit 77 (skipped) where AMX cannot run. */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cpu/kernels/gram_amx.h"
#include "common/alloc.h"
#include "common/err.h"
#include "gsvd_test.h"

/* z rounded to 8 significant bits, ties to even (the default rounding of nearbyint). */
static double round8(double z)
{
    int e;
    double m = frexp(z, &e); /* z = m 2^e, 0.5 <= |m| < 1 */
    return z == 0 ? 0 : ldexp(nearbyint(ldexp(m, 8)), e - 8);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static double uniform(void)
{
    return gsvd_test_uniform(&rng_state);
}

/* One shape: every upper tile against the oracle. */
static void check_shape(size_t rows, size_t n)
{
    gsvd_amx_pack *p = NULL;
    float *z = gsvd_malloc(rows * n * sizeof *z), *c = gsvd_malloc(256 * 256 * sizeof *c);
    float *c2 = gsvd_malloc(256 * 256 * sizeof *c2);
    double *h = gsvd_malloc(rows * n * sizeof *h), *l = gsvd_malloc(rows * n * sizeof *l);
    double worst = 0;

    GSVD_CHECK(z && c && c2 && h && l);
    if (!z || !c || !c2 || !h || !l)
        goto out;
    for (size_t i = 0; i < rows * n; i++) { /* genotype-like values and a few wide ones */
        double v = (double)(int)(uniform() * 3) - 0.37 - 0.2 * uniform();
        z[i] = (float)(uniform() < 0.05 ? v * 37.5 : uniform() < 0.05 ? 0.0 : v / 0.61);
        h[i] = round8(z[i]);
        l[i] = round8((double)z[i] - h[i]);
    }
    GSVD_CHECK_RC(gsvd_amx_pack_new(&p), GSVD_OK);
    GSVD_CHECK_RC(gsvd_amx_pack_reserve(p, rows, n), GSVD_OK);
    GSVD_CHECK(gsvd_amx_pack_units(p) == (rows + 31) / 32);
    for (size_t u = 0; u < gsvd_amx_pack_units(p); u++)
        gsvd_amx_pack_rows(p, z, u);
    for (size_t i0 = 0; i0 < n; i0 += 256)
        for (size_t j0 = i0; j0 < n; j0 += 256) {
            size_t wi = n - i0 < 256 ? n - i0 : 256, wj = n - j0 < 256 ? n - j0 : 256;
            size_t pi = (wi + 31) / 32 * 32, pj = (wj + 31) / 32 * 32;
            gsvd_amx_gram_tile(p, i0, j0, wi, wj, c);
            gsvd_amx_gram_tile(p, i0, j0, wi, wj, c2);
            for (size_t a = 0; a < pi; a++)
                GSVD_CHECK(memcmp(c + a * 256, c2 + a * 256, pj * sizeof *c) == 0);
            for (size_t a = 0; a < pi; a++)
                for (size_t b = 0; b < pj; b++) {
                    double want = 0, scale = 0;
                    if (a >= wi || b >= wj) {
                        GSVD_CHECK(c[a * 256 + b] == 0.0f);
                        continue;
                    }
                    for (size_t k = 0; k < rows; k++) {
                        double hi = h[k * n + i0 + a], li = l[k * n + i0 + a];
                        double hj = h[k * n + j0 + b], lj = l[k * n + j0 + b];
                        want += hi * hj + hi * lj + li * hj;
                        scale += fabs(hi * hj);
                    }
                    /* float32 accumulation: rows x 2^-24 of the sum of |terms| at most */
                    double err = fabs(c[a * 256 + b] - want) / (scale > 0 ? scale : 1);
                    worst = err > worst ? err : worst;
                }
        }
    GSVD_CHECK(worst <= (double)rows * 0x1p-23);
    if (!(worst <= (double)rows * 0x1p-23))
        fprintf(stderr, "  rows %zu, n %zu: worst relative error %.3g\n", rows, n, worst);
out:
    gsvd_amx_pack_free(p);
    gsvd_free(z);
    gsvd_free(c);
    gsvd_free(c2);
    gsvd_free(h);
    gsvd_free(l);
}

int main(void)
{
    static const size_t shapes[][2] = {{1, 1},     {31, 17},   {32, 32}, {33, 40},
                                       {100, 300}, {513, 257}, {64, 512}};
    char why[128];

    if (!gsvd_amx_usable(why, sizeof why)) {
        printf("test_gram_amx: skipped: %s\n", why);
        return 77;
    }
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        check_shape(shapes[s][0], shapes[s][1]);
    return gsvd_test_report("test_gram_amx");
}
