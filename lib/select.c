/* lib/select.c - a source's selection as the genotype scan's parameters for one run: the array,
 * orientation, ploidy, variant range and filters, the sample list, and the masks (read from the
 * stores their specs name, STORE[/ARRAY] as on the command line, or taken from memory), plus
 * the VCF FILTER column ("var-filter"), the contigs ("chr"), the files of variant IDs and
 * ranges ("extract", "exclude" and their -bed and -range forms), and KING's autosome mask for
 * pdist's king and ibs0 and for related. */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <stdio.h>
#include <string.h>

#include "analysis/pca/pca.h"
#include "analysis/scan/chr_select.h"
#include "analysis/scan/mask.h"
#include "analysis/scan/var_filter.h"
#include "analysis/scan/var_list.h"
#include "common/alloc.h"
#include "common/comm.h"
#include "common/err.h"
#include "common/log.h"

/* What lib_sel owns besides the parameters. */
struct sel_owned {
    struct gsvd_mask vm, sm;
    struct gsvd_autosomes au;
    struct gsvd_var_filter vf;
    struct gsvd_autosomes chr, not_chr, autosome; /* "chr"'s, "not-chr"'s, "autosome"'s masks */
    struct gsvd_var_list bp;                      /* "from-bp"/"to-bp" as a range on "chr" */
    struct gsvd_autosomes bp_mask;
    struct gsvd_autosomes hwe;                  /* the variants "hwe" tests: not on X, Y, MT */
    struct gsvd_strlist mind_keep;              /* the samples "mind" keeps, in order */
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

/* "from-bp"/"to-bp" as a 1-based closed range on the one contig "chr" names, into own->bp. */
static int bp_range(const gensvd_source *src, struct sel_owned *own)
{
    struct gsvd_var_list *l = &own->bp;
    char name[112];
    int rc = GSVD_OK;

    if (!src->chr || !gsvd_chr_one(src->chr))
        return lib_fail(GSVD_EINVAL, "--from-bp and --to-bp need --chr naming one contig "
                                     "(as plink2's do)");
    if (src->from_bp_set && src->to_bp_set && src->to_bp < src->from_bp)
        return lib_fail(GSVD_EINVAL, "--to-bp %llu is below --from-bp %llu",
                        (unsigned long long)src->to_bp, (unsigned long long)src->from_bp);
    if (src->from_bp_set && src->to_bp_set)
        snprintf(name, sizeof name, "--chr %.24s --from-bp %llu --to-bp %llu", src->chr,
                 (unsigned long long)src->from_bp, (unsigned long long)src->to_bp);
    else if (src->from_bp_set)
        snprintf(name, sizeof name, "--chr %.24s --from-bp %llu", src->chr,
                 (unsigned long long)src->from_bp);
    else
        snprintf(name, sizeof name, "--chr %.24s --to-bp %llu", src->chr,
                 (unsigned long long)src->to_bp);
    l->kind = GSVD_VAR_LIST_BED1;
    if (!(l->file = gsvd_strdup(name)) || !(l->range = gsvd_malloc(sizeof *l->range)))
        return GSVD_ENOMEM;
    GSVD_TRY(gsvd_strlist_push(&l->contigs, src->chr));
    l->range[0] = (struct gsvd_var_range){0, src->from_bp_set ? (int64_t)src->from_bp : 0,
                                          src->to_bp_set ? (int64_t)src->to_bp : INT64_MAX};
    l->n_range = l->cap_range = 1;
out:
    return rc;
}

/* The contig rules: "chr", "autosome" (plink2 refuses it with --chr), "not-chr" and the
 * positions "from-bp"/"to-bp" on the one contig of "chr". */
static int apply_contigs(gensvd_source *src, struct sel_owned *own, struct gsvd_geno_params *geno)
{
    int rc = GSVD_OK;

    if (src->autosome && src->chr)
        return lib_fail(GSVD_EINVAL, "%s cannot be combined with --chr (as in plink2)",
                        src->autosome == 2 ? "--autosome-par" : "--autosome");
    if (src->chr)
        GSVD_TRY(gsvd_chr_apply(src->tree, src->node, src->chr, 0, "--chr", &own->chr, geno));
    if (src->autosome)
        GSVD_TRY(gsvd_chr_apply(src->tree, src->node, src->autosome == 2 ? "1-22,XY" : "1-22", 0,
                                src->autosome == 2 ? "--autosome-par" : "--autosome",
                                &own->autosome, geno));
    if (src->not_chr)
        GSVD_TRY(gsvd_chr_apply(src->tree, src->node, src->not_chr, 1, "--not-chr", &own->not_chr,
                                geno));
    if (src->from_bp_set || src->to_bp_set) {
        GSVD_TRY(bp_range(src, own));
        GSVD_TRY(gsvd_var_list_apply(src->tree, src->node, &own->bp, &own->bp_mask, geno));
    }
out:
    return rc;
}

/* plink2's --mind: the samples whose missing call rate over the variants selected so far
 * (before maf, max-missing and hwe, as plink2 counts) is above src->mind leave the selection,
 * which becomes the list of the others, in order.  One pass over the store; in a distributed
 * run each rank counts its part (whole chunk rows) and the integer counts are summed, so every
 * rank gets the list one process gets.  Collectives: lib_sel_make's joining, then one agree
 * on the counting and the sum. */
static int apply_mind(gensvd_source *src, struct sel_owned *own, struct gsvd_geno_params *geno)
{
    struct gsvd_geno_params p = *geno;
    gsvd_comm *world = lib_world();
    const struct gsvd_strlist *ids = NULL;
    gsvd_geno *g = NULL;
    uint64_t *miss = NULL, n_var = 0;
    size_t n = 0, n_out = 0;
    int rc = GSVD_OK;

    p.cache_bytes = 0;
    rc = gsvd_geno_open(src->tree, src->node, &p, &g);
    if (rc == GSVD_OK) {
        n = gsvd_geno_n_samples(g);
        ids = gsvd_geno_sample_ids(g);
        if (!(miss = gsvd_malloc((n + 1) * sizeof *miss))) /* + the variant count */
            rc = GSVD_ENOMEM;
    }
    if (rc == GSVD_OK && world) {
        uint64_t a, b, vs, ve;
        gsvd_geno_range(g, &vs, &ve);
        gsvd_pca_split_runs(gsvd_geno_chunk_variants(g), vs, ve, gsvd_comm_rank(world),
                            gsvd_comm_size(world), &a, &b);
        rc = gsvd_geno_restrict(g, a, b);
    }
    if (rc == GSVD_OK)
        rc = gsvd_geno_count_missing(g, miss, &n_var);
    if (world) {
        rc = gsvd_comm_agree(world, rc, NULL);
        if (rc == GSVD_OK) {
            miss[n] = n_var;
            rc = gsvd_comm_sum_u64(world, miss, n + 1);
            n_var = miss[n];
        }
    }
    if (rc < 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        if (n_var > 0 && (double)miss[i] > src->mind * (double)n_var)
            n_out++;
        else
            GSVD_TRY(gsvd_strlist_push(&own->mind_keep, ids->items[i]));
    }
    if (n_out == n) {
        rc = lib_fail(GSVD_EDEGENERATE,
                      "%s: --mind %g removes every one of the %zu samples (each misses more "
                      "than that fraction of the %llu variants)",
                      lib_source_name(src), src->mind, n, (unsigned long long)n_var);
        goto out;
    }
    gsvd_log_info("%s: --mind %g: %zu of %zu samples removed (missing call rate above it over "
                  "%llu variants)",
                  lib_source_name(src), src->mind, n_out, n, (unsigned long long)n_var);
    geno->samples = &own->mind_keep;
    geno->sample_mask = NULL;
    geno->sample_mask_len = 0;
out:
    gsvd_free(miss);
    gsvd_geno_close(g);
    return rc;
}

int lib_sel_join(gensvd_source *src, int rc)
{
    gsvd_comm *world = lib_world();
    if (!world || !src || src->mind >= 1)
        return rc;
    return gsvd_comm_agree(world, rc, NULL);
}

int lib_sel_make(gensvd_source *src, int king, struct lib_sel *sel)
{
    struct gsvd_geno_params geno = GSVD_GENO_PARAMS_DEFAULT;
    struct sel_owned *own;
    int rc = GSVD_OK, joined = 0;

    memset(sel, 0, sizeof *sel);
    if (!(own = gsvd_calloc(1, sizeof *own)))
        return lib_sel_join(src, GSVD_ENOMEM);
    sel->autosomes = own;
    GSVD_TRY(lib_source_ready(src));
    geno.array = src->array;
    geno.transpose = src->transpose;
    geno.ploidy = src->ploidy;
    geno.var_start = src->var_start;
    geno.var_stop = src->var_stop;
    geno.maf = src->maf;
    geno.max_missing = src->max_missing;
    geno.hwe = src->hwe;
    geno.hwe_midp = src->hwe_midp;
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
    GSVD_TRY(apply_contigs(src, own, &geno));
    for (size_t k = 0; k < LIB_VAR_LISTS; k++)
        if (src->var_list[k])
            GSVD_TRY(
                gsvd_var_list_apply(src->tree, src->node, src->var_list[k], &own->lists[k], &geno));
    joined = 1;
    GSVD_TRY(lib_sel_join(src, GSVD_OK));
    if (src->mind < 1)
        GSVD_TRY(apply_mind(src, own, &geno));
    if (src->hwe > 0) { /* plink2 tests X on females only, Y and MT not at all */
        rc = gsvd_autosomes_read(src->tree, src->node, &own->hwe);
        if (rc == GSVD_ENOTFOUND) { /* no contigs: every variant is tested */
            rc = GSVD_OK;
        } else if (rc == GSVD_OK) {
            geno.hwe_test = own->hwe.keep;
            geno.hwe_test_len = own->hwe.len;
        }
        if (rc < 0)
            goto out;
    }
    if (king)
        GSVD_TRY(gsvd_autosomes_apply(src->tree, src->node, src->all_contigs, &own->au, &geno));
    sel->geno = geno;
out:
    if (!joined) /* failed before the ranks' joining: join with the failure */
        rc = lib_sel_join(src, rc);
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
        gsvd_autosomes_free(&own->not_chr);
        gsvd_autosomes_free(&own->autosome);
        gsvd_var_list_free(&own->bp);
        gsvd_autosomes_free(&own->bp_mask);
        gsvd_autosomes_free(&own->hwe);
        gsvd_strlist_free(&own->mind_keep);
        gsvd_strlist_free(&own->except);
        for (size_t k = 0; k < LIB_VAR_LISTS; k++)
            gsvd_autosomes_free(&own->lists[k]);
        gsvd_free(own);
    }
    gsvd_strlist_free(&sel->ids);
    memset(sel, 0, sizeof *sel);
}
