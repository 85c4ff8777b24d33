/* tests/unit/test_backend_core.c - the backend core (analysis/backend.h): selection by name,
 * "gpu" by kind, a known backend the build lacks, unusable devices, and the per-analysis
 * lookup (PCA's table from the CPU backend, none for pdist; NULL-safe).  The registry below
 * stands in for lib/backend_registry.c with a fake device backend whose probe is switchable. */
#include "gsvd_config.h"

#include <stdio.h>
#include <string.h>

#include "analysis/backend.h"
#include "analysis/backend_internal.h"
#include "analysis/pca/pca_device.h"
#include "analysis/pdist/pdist_device.h"
#include "common/err.h"
#include "common/log.h"
#include "gsvd_test.h"

static int fake_score; /* the fake device's probe result */

static int fake_probe(char *why, size_t why_len)
{
    if (fake_score <= 0)
        snprintf(why, why_len, "switched off");
    return fake_score;
}

static const struct gsvd_backend_ops fake_dev_ops = {
    .version = GSVD_BACKEND_OPS_VERSION,
    .name = "fakedev",
    .kind = GSVD_BACKEND_DEVICE,
    .probe = fake_probe,
};

static const struct gsvd_backend_ops absent_ops = {
    .version = GSVD_BACKEND_OPS_VERSION,
    .name = "absent",
    .kind = GSVD_BACKEND_HOST,
};

const struct gsvd_backend_ops *const gsvd_backend_registry[] = {&fake_dev_ops, &absent_ops,
                                                                &gsvd_backend_cpu_ops, NULL};

static void test_open(void)
{
    gsvd_backend *be = NULL;

    fake_score = 0;
    GSVD_CHECK_RC(gsvd_backend_open("auto", NULL, &be), GSVD_OK);
    GSVD_CHECK(be && strcmp(gsvd_backend_name(be), "cpu") == 0);
    GSVD_CHECK(be && gsvd_backend_kind(be) == GSVD_BACKEND_HOST);
    gsvd_backend_destroy(be);
    be = NULL;
    GSVD_CHECK_RC(gsvd_backend_open("cpu", NULL, &be), GSVD_OK);
    gsvd_backend_destroy(be);
    be = NULL;
    /* "gpu" takes the device kind: unusable is GSVD_ENODEVICE, never a fallback to the CPU */
    GSVD_CHECK_RC(gsvd_backend_open("gpu", NULL, &be), GSVD_ENODEVICE);
    GSVD_CHECK(be == NULL);
    GSVD_CHECK_RC(gsvd_backend_open("fakedev", NULL, &be), GSVD_ENODEVICE);
    GSVD_CHECK_RC(gsvd_backend_open("absent", NULL, &be), GSVD_ENOTBUILT);
    GSVD_CHECK_RC(gsvd_backend_open("tpu", NULL, &be), GSVD_EINVAL);
    GSVD_CHECK(be == NULL);
}

static void test_analysis(void)
{
    gsvd_backend *be = NULL;
    const struct gsvd_pca_device_ops *pca;

    GSVD_CHECK(gsvd_backend_analysis(NULL, GSVD_AN_PCA) == NULL);
    GSVD_CHECK(!gsvd_backend_has_pdist(NULL));
    GSVD_CHECK_RC(gsvd_backend_create(&gsvd_backend_cpu_ops, NULL, &be), GSVD_OK);
    if (!be)
        return;
    pca = gsvd_backend_analysis(be, GSVD_AN_PCA);
    GSVD_CHECK(pca && pca->version >= 1 && pca->pass_begin && pca->set_bound);
    GSVD_CHECK(gsvd_backend_analysis(be, GSVD_AN_PDIST) == NULL);
    GSVD_CHECK(!gsvd_backend_has_pdist(be));
    {
        uint64_t bytes = 1;
        struct gsvd_pd_dev_band band = {.kind = GSVD_PD_DEV_COUNTS, .nb = 1, .nc = 1, .W = 8};
        GSVD_CHECK_RC(gsvd_backend_pd_memory(be, &bytes), GSVD_ENOTBUILT);
        GSVD_CHECK(bytes == 0);
        GSVD_CHECK_RC(gsvd_backend_pd_begin(be, &band), GSVD_ENOTBUILT);
    }
    gsvd_backend_destroy(be);
}

/* A backend of the previous core version (no `analysis` op) offers nothing: the wrappers
 * return GSVD_EUNSUPPORTED, not a crash. */
static void test_old_version(void)
{
    static const struct gsvd_backend_ops old_ops = {.version = 3, .name = "old"};
    struct gsvd_backend old = {.ops = &old_ops};
    double y = 0;

    GSVD_CHECK(gsvd_backend_analysis(&old, GSVD_AN_PCA) == NULL);
    GSVD_CHECK_RC(gsvd_backend_pass_end(&old, &y), GSVD_EUNSUPPORTED);
    GSVD_CHECK_RC(gsvd_backend_set_bound(&old, NULL), GSVD_EUNSUPPORTED);
}

/* ranks of a node spread over its devices: local rank mod the usable count */
static void test_device_pick(void)
{
    size_t hits[4] = {0};
    for (size_t r = 0; r < 8; r++)
        hits[gsvd_backend_device_pick(r, 4)]++;
    GSVD_CHECK(hits[0] == 2 && hits[1] == 2 && hits[2] == 2 && hits[3] == 2);
    GSVD_CHECK(gsvd_backend_device_pick(0, 4) == 0 && gsvd_backend_device_pick(5, 4) == 1);
    GSVD_CHECK(gsvd_backend_device_pick(3, 1) == 0); /* one visible device per task */
    GSVD_CHECK(gsvd_backend_device_pick(3, 0) == 0);
}

int main(void)
{
    gsvd_log_set_level(GSVD_LOG_OFF);
    test_device_pick();
    test_open();
    test_analysis();
    test_old_version();
    return gsvd_test_report("test_backend_core");
}
