/* tests/unit/test_simulate.c - analysis/simulate.h: parameter checks, determinism across
 * threads and chunking, and the model's frequency moments. */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/simulate.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "gsvd_test.h"
#include "zarr/array.h"
#include "zarr/meta.h"
#include "zarr/reader.h"
#include "zarr/tree.h"

/* Read a whole int8 call_genotype array; caller frees. */
static int8_t *read_gt(const char *dir, size_t *n)
{
    gsvd_store *st = NULL;
    gsvd_tree *t = NULL;
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    int8_t *data = NULL;

    if (gsvd_store_open(dir, GSVD_STORE_READ, &st) < 0 || gsvd_tree_open(st, &t) < 0 ||
        gsvd_array_open(t, "call_genotype", &a) < 0 || gsvd_reader_new(a, &r) < 0)
        goto out;
    const struct gsvd_zarray *z = gsvd_array_meta(a);
    *n = (size_t)(z->shape[0] * z->shape[1] * z->shape[2]);
    data = gsvd_malloc(*n);
    if (data && gsvd_reader_read_rows(r, 0, z->shape[0], data) < 0) {
        gsvd_free(data);
        data = NULL;
    }
out:
    gsvd_reader_free(r);
    gsvd_array_close(a);
    gsvd_tree_close(t);
    gsvd_store_close(st);
    return data;
}

int main(void)
{
    char tmpl[] = "/tmp/gsvd_test_simulate_XXXXXX";
    const char *tmpdir = getenv("TMPDIR");
    char *base, *a_dir, *b_dir;
    struct gsvd_sim_params p = GSVD_SIM_PARAMS_DEFAULT;
    size_t na = 0, nb = 0;

    gsvd_meta_global_init();
    gsvd_log_set_level(GSVD_LOG_OFF);
    base = tmpdir ? gsvd_asprintf("%s/gsvd_test_simulate_XXXXXX", tmpdir) : gsvd_strdup(tmpl);
    GSVD_CHECK(base && mkdtemp(base));
    a_dir = gsvd_asprintf("%s/a.vcz", base);
    b_dir = gsvd_asprintf("%s/b.vcz", base);

    /* parameter checks */
    struct gsvd_sim_params bad = p;
    bad.fst = 0;
    GSVD_CHECK_RC(gsvd_simulate(&bad, a_dir), GSVD_EINVAL);
    bad = p;
    bad.n_pops = p.n_samples + 1;
    GSVD_CHECK_RC(gsvd_simulate(&bad, a_dir), GSVD_EINVAL);
    bad = p;
    bad.missing = 1.0;
    GSVD_CHECK_RC(gsvd_simulate(&bad, a_dir), GSVD_EINVAL);
    bad = p;
    bad.ploidy = 9;
    GSVD_CHECK_RC(gsvd_simulate(&bad, a_dir), GSVD_EINVAL);
    GSVD_CHECK(access(a_dir, F_OK) != 0); /* nothing written on failure */

    /* identical data for different threads and chunking; ploidy 4 uses two hashes per call */
    p.n_variants = 777;
    p.n_samples = 41;
    p.n_pops = 2;
    p.missing = 0.1;
    p.ploidy = 4;
    p.n_threads = 1;
    p.chunk_variants = 50;
    p.chunk_samples = 7;
    GSVD_CHECK_RC(gsvd_simulate(&p, a_dir), GSVD_OK);
    p.n_threads = 3;
    p.chunk_variants = 1000;
    p.chunk_samples = 41;
    GSVD_CHECK_RC(gsvd_simulate(&p, b_dir), GSVD_OK);
    int8_t *ga = read_gt(a_dir, &na), *gb = read_gt(b_dir, &nb);
    GSVD_CHECK(ga && gb && na == nb && na == 777u * 41 * 4 && memcmp(ga, gb, na) == 0);
    /* a missing call has every allele -1; others are 0/1 */
    size_t n_miss = 0, bad_vals = 0;
    for (size_t i = 0; ga && i < na; i += 4) {
        int m = ga[i] < 0;
        n_miss += (size_t)m;
        for (size_t k = 0; k < 4; k++)
            bad_vals += m ? ga[i + k] != -1 : (ga[i + k] != 0 && ga[i + k] != 1);
    }
    GSVD_CHECK(bad_vals == 0);
    GSVD_CHECK_NEAR((double)n_miss / (777.0 * 41), 0.1, 0.02);
    gsvd_free(ga);
    gsvd_free(gb);

    /* population frequencies: in (0, 1), mean near the ancestral, variance F p (1 - p) */
    p.n_pops = 4;
    p.fst = 0.2;
    double dev = 0, dev2 = 0, norm = 0;
    for (uint64_t j = 0; j < 2000; j++) {
        double sum = 0;
        for (size_t k = 0; k < 4; k++) {
            double f = gsvd_simulate_pop_freq(&p, j, k);
            GSVD_CHECK(f >= 0 && f <= 1);
            sum += f;
        }
        double anc = 0;
        /* the ancestral frequency is the mean of many populations' draws */
        for (size_t k = 0; k < 200; k++)
            anc += gsvd_simulate_pop_freq(&p, j, k) / 200;
        for (size_t k = 0; k < 4; k++) {
            double f = gsvd_simulate_pop_freq(&p, j, k);
            dev += f - anc;
            dev2 += (f - anc) * (f - anc);
        }
        norm += 4 * anc * (1 - anc);
        (void)sum;
    }
    GSVD_CHECK_NEAR(dev / 8000, 0, 0.01);
    GSVD_CHECK_NEAR(dev2 / norm, 0.2, 0.03);
    GSVD_CHECK(gsvd_simulate_pop_freq(&p, 5, 1) == gsvd_simulate_pop_freq(&p, 5, 1));

    char *cmd = gsvd_asprintf("rm -rf '%s'", base);
    GSVD_CHECK(cmd && system(cmd) == 0);
    gsvd_free(cmd);
    gsvd_free(a_dir);
    gsvd_free(b_dir);
    gsvd_free(base);
    return gsvd_test_report("test_simulate");
}
