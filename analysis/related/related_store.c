/* analysis/related/related_store.c - the output group of `gensvd related` (related.h). */
#include "gsvd_config.h"
#include "analysis/related/related.h"

#include <stdio.h>

#include "common/buf.h"
#include "common/err.h"
#include "zarr/meta.h"

int gsvd_related_store_build(const char *command, double cutoff,
                             const struct gsvd_related_result *r, const struct gsvd_strlist *ids,
                             gsvd_result **out)
{
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    gsvd_result *res = NULL;
    uint64_t n = r->n;
    const uint8_t fill = 0;
    char extra[128];
    int rc = GSVD_OK;

    *out = NULL;
    GSVD_TRY(
        gsvd_buf_printf(&attrs, "{\n    \"version\": \"%s\",\n    \"command\": ", GSVD_VERSION));
    GSVD_TRY(gsvd_json_quote(&attrs, command ? command : ""));
    GSVD_TRY(gsvd_buf_printf(&attrs,
                             ",\n    \"metric\": \"king\",\n    \"king_cutoff\": %.17g,\n    "
                             "\"N\": %zu,\n    \"M\": %llu,\n    \"n_missing\": %llu,\n    "
                             "\"n_unrelated\": %zu,\n    \"n_removed\": %zu,\n    "
                             "\"n_related_pairs\": %llu,\n    \"n_related_samples\": %zu\n}",
                             cutoff, r->n, (unsigned long long)r->n_variants,
                             (unsigned long long)r->n_missing, r->n_unrelated,
                             r->n - r->n_unrelated, (unsigned long long)r->n_pairs, r->n_related));
    GSVD_TRY(gsvd_result_new(&res));
    /* the attributes come after the arrays (as the first writer of this schema put them) */
    GSVD_TRY(gsvd_result_set_attrs(res, attrs.data, GSVD_RESULT_ATTRS_LAST));
    {
        struct gsvd_array_spec sid = {.path = "sample_id",
                                      .ndim = 1,
                                      .shape = {n},
                                      .chunks = {n ? n : 1},
                                      .dtype = {'O', '|', sizeof(char *)},
                                      .dims = {"samples"}};
        GSVD_TRY(gsvd_result_add(res, &sid, ids->items));
    }
    snprintf(extra, sizeof extra, "{\"king_cutoff\": %.17g}", cutoff);
    {
        struct gsvd_array_spec sm = {.path = "sample_unrelated",
                                     .ndim = 1,
                                     .shape = {n},
                                     .chunks = {n ? n : 1},
                                     .dtype = {'b', '|', 1},
                                     .dims = {"samples"},
                                     .fill = &fill,
                                     .attrs_json = extra};
        GSVD_TRY(gsvd_result_add(res, &sm, r->unrelated));
    }
    *out = res;
    res = NULL;
out:
    gsvd_result_free(res);
    gsvd_buf_free(&attrs);
    return rc;
}
