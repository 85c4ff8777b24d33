/* analysis/pca/project_store.c - `gensvd project` around the projection itself (project.h): the
 * reference's checks, the target's variant matching with a hint when nothing matches, and the
 * output group. */
#include "gsvd_config.h"
#include "analysis/pca/project.h"

#include <string.h>

#include "analysis/pca/pca_store.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/meta.h"

/* Keep the first k components of the model. */
static void truncate_model(struct gsvd_pca_model *m, size_t k)
{
    for (uint64_t j = 0; j < m->m; j++)
        memmove(m->v + j * k, m->v + j * m->k, k * sizeof *m->v);
    for (size_t i = 0; i < m->n; i++)
        memmove(m->scores + i * k, m->scores + i * m->k, k * sizeof *m->scores);
    m->k = k;
}

int gsvd_project_model_check(struct gsvd_pca_model *ref, size_t k, const char *pcs)
{
    if (ref->vids.n != ref->m) {
        gsvd_log_error("%s: no variant identity (variant_pca_contig, variant_pca_position, "
                       "variant_pca_alleles): the pca input had no variant_contig, "
                       "variant_position and variant_allele arrays, so its variants cannot be "
                       "matched",
                       pcs);
        return GSVD_ENOTFOUND;
    }
    if (k > ref->k) {
        gsvd_log_error("-k %zu: %s holds %zu components", k, pcs, ref->k);
        return GSVD_EINCONSIST;
    }
    if (k)
        truncate_model(ref, k);
    return GSVD_OK;
}

/* Why nothing matched: contig naming or allele order, from the two sides' identities. */
static void no_match_hint(const struct gsvd_variant_ids *ref, const struct gsvd_variant_ids *tgt,
                          const struct gsvd_project_counts *c)
{
    const char *rc = ref->n ? ref->contig.items[0] : "", *tc = tgt->n ? tgt->contig.items[0] : "";
    int rchr = strncmp(rc, "chr", 3) == 0, tchr = strncmp(tc, "chr", 3) == 0;

    gsvd_log_error("no variant of INPUT matches a variant of the reference PCs (%llu target "
                   "variants: %llu at positions the reference lacks, %llu with other alleles, "
                   "%llu strand-ambiguous swaps; %llu reference variants)",
                   (unsigned long long)c->target, (unsigned long long)c->not_found,
                   (unsigned long long)c->allele_mismatch, (unsigned long long)c->ambiguous,
                   (unsigned long long)c->ref_used);
    if (rchr != tchr)
        gsvd_log_error("hint: contigs are named differently: the reference has '%s', INPUT "
                       "'%s' (chr1 vs 1): rename the contigs of one side (contig_id)",
                       rc, tc);
    else if (c->not_found == c->target && c->target && ref->n)
        gsvd_log_error("hint: no position is shared: contig '%s' in the reference, '%s' in INPUT "
                       "(same genome build? same contig names?)",
                       rc, tc);
    else if (c->allele_mismatch || c->ambiguous)
        gsvd_log_error("hint: positions are shared but alleles differ: variant_allele must "
                       "hold REF,ALT on both sides (allele order, strand, multi-allelic "
                       "records split differently)");
}

int gsvd_project_target(gsvd_tree *t, const char *node, gsvd_geno *g,
                        const struct gsvd_pca_model *ref, const char *input, const char *pcs,
                        int array_given, struct gsvd_project_map *map)
{
    struct gsvd_variant_ids tv = GSVD_VARIANT_IDS_INIT;
    uint64_t vs, ve;
    int rc = GSVD_OK;

    memset(map, 0, sizeof *map);
    if (gsvd_geno_ploidy(g) != ref->ploidy) {
        gsvd_log_error("%s has ploidy %zu, but the reference PCs in %s were fitted on ploidy "
                       "%zu%s",
                       input, gsvd_geno_ploidy(g), pcs, ref->ploidy,
                       array_given ? " (--ploidy sets a 2-D dosage array's)" : "");
        return GSVD_EINCONSIST;
    }
    gsvd_geno_range(g, &vs, &ve);
    GSVD_TRY(gsvd_variant_ids_read(t, node, vs, ve, &tv));
    GSVD_TRY(gsvd_project_match(&ref->vids, ref->included, &tv, map));
    if (map->counts.matched == 0) {
        no_match_hint(&ref->vids, &tv, &map->counts);
        rc = GSVD_EDEGENERATE;
        goto out;
    }
out:
    if (rc < 0)
        gsvd_project_map_free(map);
    gsvd_variant_ids_free(&tv);
    return rc;
}

int gsvd_project_store_result(const struct gsvd_project_store_info *info,
                              const struct gsvd_pca_model *ref, const struct gsvd_project_map *map,
                              const struct gsvd_project_result *r, const struct gsvd_strlist *ids,
                              gsvd_result **out)
{
    const struct gsvd_project_counts *c = &map->counts;
    struct gsvd_buf a = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    *out = NULL;
    GSVD_TRY(gsvd_buf_printf(&a, "{\n    \"version\": \"%s\",\n    \"command\": ", GSVD_VERSION));
    GSVD_TRY(gsvd_json_quote(&a, info->command ? info->command : ""));
    GSVD_TRY(gsvd_buf_puts(&a, ",\n    \"pcs\": "));
    GSVD_TRY(gsvd_json_quote(&a, info->pcs ? info->pcs : ""));
    GSVD_TRY(gsvd_buf_printf(
        &a,
        ",\n    \"k\": %zu,\n    \"N\": %zu,\n    \"N_reference\": %zu,\n    \"scaler\": \"%s\",\n"
        "    \"ploidy\": %zu,\n    \"shrinkage_correction\": \"%s\",\n"
        "    \"variants_reference\": %llu,\n    \"variants_input\": %llu,\n"
        "    \"variants_matched\": %llu,\n    \"variants_swapped\": %llu,\n"
        "    \"variants_ambiguous\": %llu,\n    \"variants_allele_mismatch\": %llu,\n"
        "    \"variants_duplicate\": %llu,\n    \"variants_not_found\": %llu,\n"
        "    \"variants_reference_unmatched\": %llu,\n    \"missing_calls\": %llu",
        r->k, r->n, ref->n, gsvd_pca_scaler_name(ref->scaler), ref->ploidy,
        gsvd_shrinkage_name(info->shrinkage), (unsigned long long)c->ref_used,
        (unsigned long long)c->target, (unsigned long long)c->matched,
        (unsigned long long)c->swapped, (unsigned long long)c->ambiguous,
        (unsigned long long)c->allele_mismatch, (unsigned long long)c->duplicate,
        (unsigned long long)c->not_found, (unsigned long long)c->ref_unmatched,
        (unsigned long long)r->n_missing_calls));
    if (r->factor) {
        GSVD_TRY(gsvd_buf_puts(&a, ",\n    \"shrinkage_factor\": ["));
        for (size_t q = 0; q < r->k; q++)
            GSVD_TRY(gsvd_buf_printf(&a, "%s%.17g", q ? ", " : "", r->factor[q]));
        GSVD_TRY(gsvd_buf_puts(&a, "]"));
    }
    if (info->missing == GSVD_PROJ_MISSING_LSQ) /* absent with mean: its bytes as before */
        GSVD_TRY(gsvd_buf_printf(&a, ",\n    \"missing\": \"%s\",\n    \"samples_singular\": %zu",
                                 gsvd_proj_missing_name(info->missing), r->n_singular));
    GSVD_TRY(gsvd_buf_puts(&a, "\n}"));
    GSVD_TRY(gsvd_project_store_build(a.data, r->n, r->k, r->scores, ref->s, ref->trace, ids, out));
out:
    gsvd_buf_free(&a);
    return rc;
}
