/* analysis/ldprune/ldprune_store.c - what `ldprune` and `pca --ld-prune` share around the pruning
 * pass (ldprune.h): the window and R2,WINDOW[,STEP] parsers, the pass as a mask over a store's
 * genotypes, the output group (variant_ld_keep and the run's attributes), and the variant
 * table held beside it (ldprune's TSV). */
#include "gsvd_config.h"
#include "analysis/ldprune/ldprune.h"

#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parse.h"
#include "zarr/array.h"
#include "zarr/meta.h"
#include "zarr/reader.h"
#include "zarr/store.h"

/* The command line parses --window with its own copy (cli/cli_parse.c, gsvd_cli_parse_window:
 * cli/ uses the public API only); the two must agree (tests/fuzz/fuzz_cli_parse.c). */
int gsvd_ldprune_parse_window(const char *s, uint64_t *variants, uint64_t *bp)
{
    size_t n = strlen(s);
    uint64_t v;
    char num[32];
    *variants = 0;
    *bp = 0;
    if (n >= 3 && n < sizeof num &&
        (strcmp(s + n - 2, "kb") == 0 || strcmp(s + n - 2, "bp") == 0)) {
        memcpy(num, s, n - 2);
        num[n - 2] = '\0';
        if (gsvd_parse_uint(num, 1, (uint64_t)1 << 40, 0, &v) < 0)
            return GSVD_EINVAL;
        *bp = s[n - 2] == 'k' ? v * 1000 : v;
        return GSVD_OK;
    }
    if (gsvd_parse_uint(s, 2, (uint64_t)1 << 40, 0, &v) < 0)
        return GSVD_EINVAL;
    *variants = v;
    return GSVD_OK;
}

int gsvd_ldprune_parse_spec(const char *s, struct gsvd_ldprune_params *p)
{
    char buf[128], *c1, *c2;
    size_t len = strlen(s);
    if (len >= sizeof buf)
        return GSVD_EINVAL;
    memcpy(buf, s, len + 1);
    c1 = strchr(buf, ',');
    if (!c1)
        return GSVD_EINVAL;
    *c1++ = '\0';
    c2 = strchr(c1, ',');
    if (c2)
        *c2++ = '\0';
    if (gsvd_parse_double(buf, 0, 1, &p->r2) < 0 || !(p->r2 < 1))
        return GSVD_EINVAL;
    if (gsvd_ldprune_parse_window(c1, &p->window, &p->window_bp) < 0)
        return GSVD_EINVAL;
    p->step = 1;
    if (c2 && gsvd_parse_uint(c2, 1, (uint64_t)1 << 40, 0, &p->step) < 0)
        return GSVD_EINVAL;
    return GSVD_OK;
}

int gsvd_ldprune_mask(gsvd_tree *t, const char *node, const struct gsvd_geno_params *geno,
                      const struct gsvd_ldprune_params *lp, struct gsvd_ldprune_result *out)
{
    struct gsvd_geno_params gp = *geno;
    gsvd_geno *g = NULL;
    int rc = GSVD_OK;

    gp.scaler = GSVD_SCALER_CENTER; /* keeps monomorphic variants: they count in windows */
    gp.missing_error = 0;
    gp.cache_bytes = 0;
    rc = gsvd_geno_open(t, node, &gp, &g);
    if (rc < 0 && gsvd_comm_size(lp->comm) > 1) /* the others wait in the run's agreement */
        rc = gsvd_comm_agree(lp->comm, rc, NULL);
    if (rc < 0)
        goto out;
    GSVD_TRY(gsvd_ldprune_run(g, t, lp, out));
    gsvd_log_info("LD pruning: %llu variants considered, %llu kept, %llu pruned by LD, %llu "
                  "monomorphic; %llu r^2 values",
                  (unsigned long long)out->n_considered, (unsigned long long)out->n_kept,
                  (unsigned long long)out->n_pruned, (unsigned long long)out->n_monomorphic,
                  (unsigned long long)out->n_pairs);
out:
    gsvd_geno_close(g);
    return rc;
}

int gsvd_ldprune_store_build(const struct gsvd_ldprune_store_info *info,
                             const struct gsvd_ldprune_result *r, gsvd_result **out)
{
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    gsvd_result *res = NULL;
    uint64_t n = r->n_array, chunk = n < 1000000 ? (n ? n : 1) : 1000000;
    uint8_t fill = 0;
    int rc = GSVD_OK;

    *out = NULL;
    GSVD_TRY(
        gsvd_buf_printf(&attrs, "{\n    \"version\": \"%s\",\n    \"command\": ", GSVD_VERSION));
    GSVD_TRY(gsvd_json_quote(&attrs, info->command ? info->command : ""));
    GSVD_TRY(gsvd_buf_puts(&attrs, ",\n    \"source\": "));
    GSVD_TRY(gsvd_json_quote(&attrs, info->source ? info->source : ""));
    GSVD_TRY(gsvd_buf_printf(
        &attrs,
        ",\n    \"method\": \"indep-pairwise\",\n    \"r2\": %.17g,\n    \"window_variants\": "
        "%llu,\n    \"window_bp\": %llu,\n    \"step\": %llu,\n    \"variant_range\": [%llu, "
        "%llu],\n    \"maf\": %.17g,\n    \"max_missing\": %.17g,\n    \"n_samples\": %s,\n"
        "    \"n_variants\": %llu,\n    \"n_considered\": %llu,\n    \"n_kept\": %llu,\n"
        "    \"n_removed\": %llu,\n    \"n_pruned\": %llu,\n    \"n_monomorphic\": %llu\n}",
        info->lp->r2, (unsigned long long)info->lp->window, (unsigned long long)info->lp->window_bp,
        (unsigned long long)info->lp->step, (unsigned long long)r->range_start,
        (unsigned long long)r->range_stop, info->geno->maf, info->geno->max_missing,
        info->samples_subset ? "\"subset\"" : "\"all\"", (unsigned long long)r->n_array,
        (unsigned long long)r->n_considered, (unsigned long long)r->n_kept,
        (unsigned long long)(r->n_considered - r->n_kept), (unsigned long long)r->n_pruned,
        (unsigned long long)r->n_monomorphic));
    GSVD_TRY(gsvd_result_new(&res));
    GSVD_TRY(gsvd_result_set_attrs(res, attrs.data, GSVD_RESULT_ATTRS_FIRST));
    {
        struct gsvd_array_spec s = {.path = "variant_ld_keep",
                                    .ndim = 1,
                                    .shape = {n},
                                    .chunks = {chunk},
                                    .dtype = {'b', '|', 1},
                                    .dims = {"variants"},
                                    .fill = &fill};
        GSVD_TRY(gsvd_result_add(res, &s, r->keep));
    }
    *out = res;
    res = NULL;
out:
    gsvd_result_free(res);
    gsvd_buf_free(&attrs);
    return rc;
}

/* contig_id beside the group `node`, when it is a 1-D array of strings (else names stays
 * empty, and variant_contig's integers are the table's contigs; another kind of array there is
 * no error, it only names no contig). */
static void contig_names(gsvd_tree *t, const char *node, struct gsvd_strlist *names)
{
    char *path = NULL;
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    char kind;
    if (gsvd_key_join(node, "contig_id", &path) == GSVD_OK &&
        gsvd_tree_node_kind(t, path) == GSVD_NODE_ARRAY &&
        gsvd_array_open(t, path, &a) == GSVD_OK && gsvd_array_meta(a)->ndim == 1 &&
        ((kind = gsvd_array_meta(a)->dtype.kind) == 'O' || kind == 'S' || kind == 'U') &&
        gsvd_reader_new(a, &r) == GSVD_OK &&
        gsvd_reader_read_strings(r, 0, gsvd_array_meta(a)->shape[0], names) < 0)
        gsvd_strlist_free(names);
    gsvd_reader_free(r);
    gsvd_array_close(a);
    gsvd_free(path);
}

/* A 1-D array of n elements along `dim`, held (never written: chunks and fill are nominal). */
static int add_held(gsvd_result *res, const char *name, const char *dim, char kind, uint64_t n,
                    const void *data)
{
    struct gsvd_array_spec s = {
        .path = name,
        .ndim = 1,
        .shape = {n},
        .chunks = {n ? n : 1},
        .dtype = {kind, kind == 'O' ? '|' : '<', kind == 'O' ? sizeof(char *) : 8},
        .dims = {dim}};
    return gsvd_result_add(res, &s, data);
}

int gsvd_ldprune_table_build(gsvd_tree *t, const char *node, const struct gsvd_ldprune_result *r,
                             gsvd_result **out)
{
    struct gsvd_strlist names = GSVD_STRLIST_INIT;
    uint64_t n = r->range_stop - r->range_start, *index = NULL;
    gsvd_result *res = NULL;
    int rc = GSVD_OK;

    *out = NULL;
    if (!(index = gsvd_malloc((n ? n : 1) * sizeof *index)))
        return GSVD_ENOMEM;
    for (uint64_t k = 0; k < n; k++)
        index[k] = r->range_start + k;
    contig_names(t, node, &names);
    GSVD_TRY(gsvd_result_new(&res));
    GSVD_TRY(add_held(res, "variant_index", "variants", 'u', n, index));
    GSVD_TRY(add_held(res, "variant_contig", "variants", 'i', n, r->contig));
    if (r->position)
        GSVD_TRY(add_held(res, "variant_position", "variants", 'i', n, r->position));
    if (names.n)
        GSVD_TRY(add_held(res, "contig_id", "contigs", 'O', names.n, names.items));
    *out = res;
    res = NULL;
out:
    gsvd_result_free(res);
    gsvd_strlist_free(&names);
    gsvd_free(index);
    return rc;
}
