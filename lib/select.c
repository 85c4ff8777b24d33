/* lib/select.c - a source's selection as the genotype scan's parameters for one run: the array,
 * orientation, ploidy, variant range and filters, the sample list, and the masks (read from the
 * stores their specs name, STORE[/ARRAY] as on the command line, or taken from memory), plus
 * the VCF FILTER column ("var-filter"), the contigs ("chr"), the files of variant IDs and
 * ranges ("extract", "exclude" and their -bed and -range forms), and KING's autosome mask for
 * pdist's king and ibs0 and for related. */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <string.h>

#include "analysis/scan/chr_select.h"
#include "analysis/scan/mask.h"
#include "analysis/scan/var_filter.h"
#include "analysis/scan/var_list.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"

/* What lib_sel owns besides the parameters. */
struct sel_owned {
    struct gsvd_mask vm, sm;
    struct gsvd_autosomes au;
    struct gsvd_var_filter vf;
    struct gsvd_autosomes chr;                  /* "chr"'s mask */
    struct gsvd_strlist except;                 /* "var-filter-except" split at its commas */
    struct gsvd_autosomes lists[LIB_VAR_LISTS]; /* the variant lists' masks */
};

/* The comma-separated names of s (empty items skipped) appended to *out. */
static int split_names(const char *s, struct gsvd_strlist *out)
{
    int rc = GSVD_OK;
    while (s && *s) {
        size_t len = strcspn(s, ",");
        if (len && (rc = gsvd_strlist_pushn(out, s, len)) < 0)
            return rc;
        s += len + (s[len] == ',');
    }
    return rc;
}

/* The mask `spec` (STORE[/ARRAY]; default_array when it names a group) into *m. */
static int read_mask(const char *spec, const char *default_array, int want_ids, struct gsvd_mask *m)
{
    struct lib_store in;
    int rc = lib_store_open(spec, &in);
    if (rc == GSVD_OK)
        rc = gsvd_mask_read(in.t, in.node, spec, default_array, want_ids, m);
    lib_store_close(&in);
    return rc;
}

int lib_sel_make(gensvd_source *src, int king, struct lib_sel *sel)
{
    struct gsvd_geno_params geno = GSVD_GENO_PARAMS_DEFAULT;
    struct sel_owned *own;
    int rc = GSVD_OK;

    memset(sel, 0, sizeof *sel);
    if (!(own = gsvd_calloc(1, sizeof *own)))
        return GSVD_ENOMEM;
    sel->autosomes = own;
    GSVD_TRY(lib_source_ready(src));
    geno.array = src->array;
    geno.transpose = src->transpose;
    geno.ploidy = src->ploidy;
    geno.var_start = src->var_start;
    geno.var_stop = src->var_stop;
    geno.maf = src->maf;
    geno.max_missing = src->max_missing;
    geno.n_threads = lib_threads(src->ctx);
    if (src->samples_set && (src->sample_mask_spec || src->sample_mask)) {
        rc = lib_fail(GSVD_EINVAL, "a sample list and a sample mask cannot be combined");
        goto out;
    }
    if (src->samples_set)
        geno.samples = &src->samples;
    geno.keep_ids = src->keep_ids;
    geno.remove_ids = src->remove_ids;
    geno.keep_file = src->keep_file;
    geno.remove_file = src->remove_file;
    if (src->variant_mask_spec && src->variant_mask) {
        rc = lib_fail(GSVD_EINVAL, "two variant masks: one from a store and one in memory");
        goto out;
    }
    if (src->sample_mask_spec && src->sample_mask) {
        rc = lib_fail(GSVD_EINVAL, "two sample masks: one from a store and one in memory");
        goto out;
    }
    if (src->variant_mask_spec)
        GSVD_TRY(read_mask(src->variant_mask_spec, "variant_ld_keep", 0, &own->vm));
    if (src->sample_mask_spec)
        GSVD_TRY(read_mask(src->sample_mask_spec, "sample_unrelated", 1, &own->sm));
    GSVD_TRY(gsvd_mask_apply(src->variant_mask_spec ? &own->vm : NULL,
                             src->sample_mask_spec ? &own->sm : NULL, &sel->ids, &geno));
    if (src->variant_mask) {
        geno.variant_mask = src->variant_mask;
        geno.variant_mask_len = src->variant_mask_n;
    }
    if (src->sample_mask) {
        geno.sample_mask = src->sample_mask;
        geno.sample_mask_len = src->sample_mask_n;
    }
    if (src->var_filter) {
        GSVD_TRY(split_names(src->var_filter_except, &own->except));
        GSVD_TRY(gsvd_var_filter_apply(src->tree, src->node, &own->except, &own->vf, &geno));
    }
    if (src->chr)
        GSVD_TRY(gsvd_chr_apply(src->tree, src->node, src->chr, &own->chr, &geno));
    for (size_t k = 0; k < LIB_VAR_LISTS; k++)
        if (src->var_list[k])
            GSVD_TRY(
                gsvd_var_list_apply(src->tree, src->node, src->var_list[k], &own->lists[k], &geno));
    if (king)
        GSVD_TRY(gsvd_autosomes_apply(src->tree, src->node, src->all_contigs, &own->au, &geno));
    sel->geno = geno;
out:
    if (rc < 0)
        lib_sel_free(sel);
    return rc;
}

void lib_sel_free(struct lib_sel *sel)
{
    struct sel_owned *own = sel->autosomes;
    if (own) {
        gsvd_mask_free(&own->vm);
        gsvd_mask_free(&own->sm);
        gsvd_autosomes_free(&own->au);
        gsvd_var_filter_free(&own->vf);
        gsvd_autosomes_free(&own->chr);
        gsvd_strlist_free(&own->except);
        for (size_t k = 0; k < LIB_VAR_LISTS; k++)
            gsvd_autosomes_free(&own->lists[k]);
        gsvd_free(own);
    }
    gsvd_strlist_free(&sel->ids);
    memset(sel, 0, sizeof *sel);
}
