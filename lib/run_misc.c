/* lib/run_misc.c - GENSVD_PROJECT, GENSVD_LDPRUNE, GENSVD_RELATED and GENSVD_SIMULATE: the
 * runs of `gensvd project`, `ldprune`, `related` and `simulate` with their options, each
 * ending in the output group its analysis builds (analysis/pca/project.h,
 * analysis/ldprune/ldprune.h, analysis/related/related.h) or, for simulate, in the
 * destination it writes. */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <math.h>
#include <string.h>

#include "analysis/pca/pca_store.h"
#include "analysis/related/related.h"
#include "common/alloc.h"
#include "common/comm.h"
#include "common/err.h"
#include "common/log.h"

/* ---- project ------------------------------------------------------------------------------ */

/* A deep copy of a reference (projection truncates its copy to "components"). */
static int model_dup(const struct gsvd_pca_model *m, struct gsvd_pca_model *out)
{
    size_t k = m->k, n = m->n, mm = (size_t)m->m;
    int rc = GSVD_OK;

    memset(out, 0, sizeof *out);
    *out = *m;
    out->s = out->scores = out->v = out->mean = out->scale = NULL;
    out->included = NULL;
    out->ids = (struct gsvd_strlist)GSVD_STRLIST_INIT;
    out->vids = (struct gsvd_variant_ids)GSVD_VARIANT_IDS_INIT;
    if (!(out->s = gsvd_malloc((k ? k : 1) * sizeof(double))) ||
        !(out->scores = gsvd_malloc((n * k + 1) * sizeof(double))) ||
        !(out->v = gsvd_malloc((mm * k + 1) * sizeof(double))) ||
        !(out->mean = gsvd_malloc((mm ? mm : 1) * sizeof(double))) ||
        !(out->scale = gsvd_malloc((mm ? mm : 1) * sizeof(double))) ||
        !(out->included = gsvd_malloc(mm ? mm : 1)) ||
        !(out->vids.pos = gsvd_malloc((mm ? mm : 1) * sizeof(int64_t)))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    memcpy(out->s, m->s, k * sizeof(double));
    memcpy(out->scores, m->scores, n * k * sizeof(double));
    memcpy(out->v, m->v, mm * k * sizeof(double));
    memcpy(out->mean, m->mean, mm * sizeof(double));
    memcpy(out->scale, m->scale, mm * sizeof(double));
    memcpy(out->included, m->included, mm);
    memcpy(out->vids.pos, m->vids.pos, m->vids.n * sizeof(int64_t));
    out->vids.n = m->vids.n;
    for (size_t i = 0; i < m->ids.n; i++)
        GSVD_TRY(gsvd_strlist_push(&out->ids, m->ids.items[i]));
    for (size_t j = 0; j < m->vids.n; j++) {
        GSVD_TRY(gsvd_strlist_push(&out->vids.contig, m->vids.contig.items[j]));
        GSVD_TRY(gsvd_strlist_push(&out->vids.alleles, m->vids.alleles.items[j]));
    }
out:
    if (rc < 0)
        gsvd_pca_model_free(out);
    return rc;
}

/* The reference: from the "pcs" store, or a copy of the GENSVD_PCA result given. */
static int reference(const gensvd_options *opt, struct gsvd_pca_model *ref)
{
    const struct lib_project_opts *o = &opt->u.project;
    struct lib_store in;
    int rc;

    memset(ref, 0, sizeof *ref);
    if (opt->pcs_result)
        return model_dup(opt->pcs_result->model, ref);
    if (!o->pcs)
        return lib_fail(GSVD_EINVAL, "project needs the reference PCs: option \"pcs\" (the "
                                     "output of pca with loadings) or gensvd_options_set_pcs");
    rc = lib_store_open(o->pcs, &in);
    if (rc == GSVD_OK)
        rc = gsvd_pca_model_read(in.t, in.node, 1, ref);
    lib_store_close(&in);
    return rc;
}

/* The reference, the input (raw dosages: no centring, no filter, no cache; the reference's
 * statistics apply) and the variant map; in a distributed run this rank's part of the
 * variants (gsvd_pca_split_runs), the plan of every rank at info level on rank 0. */
static int project_setup(struct lib_run *run, const char *pcs, struct gsvd_pca_model *ref,
                         struct lib_sel *sel, gsvd_geno **g, struct gsvd_project_map *map)
{
    const struct lib_project_opts *o = &run->opt->u.project;
    gsvd_comm *world = lib_world();
    int rc = GSVD_OK;

    rc = reference(run->opt, ref);
    if (rc == GSVD_OK)
        rc = gsvd_project_model_check(ref, o->k, pcs ? pcs : "");
    if (rc < 0) /* maybe this rank alone: the others may be counting --mind */
        return lib_sel_join(run->src, rc);
    GSVD_TRY(lib_sel_make(run->src, 0, sel));
    sel->geno.scaler = GSVD_SCALER_NONE;
    sel->geno.cache_bytes = 0;
    GSVD_TRY(gsvd_geno_open(run->src->tree, run->src->node, &sel->geno, g));
    GSVD_TRY(gsvd_project_target(run->src->tree, run->src->node, *g, ref, lib_source_name(run->src),
                                 pcs, run->src->array != NULL, map));
    GSVD_TRY(gsvd_project_restrict(*g, world, 1));
out:
    return rc;
}

int lib_run_project(struct lib_run *run)
{
    const struct lib_project_opts *o = &run->opt->u.project;
    const char *pcs = run->opt->pcs_result ? "memory" : o->pcs;
    struct gsvd_pca_model ref = {0};
    struct lib_sel sel = {0};
    struct gsvd_project_map map = {0};
    struct gsvd_project_result *r = NULL;
    struct gsvd_project_params pp = o->proj;
    gsvd_comm *world = lib_world();
    gsvd_result *gr = NULL;
    gsvd_geno *g = NULL;
    int rc = GSVD_OK;

    rc = project_setup(run, pcs, &ref, &sel, &g, &map);
    if (world) /* one rank's bad start stops every rank */
        rc = gsvd_comm_agree(world, rc, NULL);
    if (rc < 0)
        goto out;
    pp.n_threads = lib_threads(run->ctx);
    pp.progress = lib_progress(run->ctx);
    pp.comm = world;
    rc = gsvd_project_run(g, &ref, &map, &pp, &r);
    if (rc == GSVD_OK) {
        struct gsvd_project_store_info info = {.command = run->opt->command,
                                               .pcs = pcs,
                                               .shrinkage = o->proj.shrinkage,
                                               .missing = o->proj.missing};
        /* the summary is the result's attributes (the command line prints it from them) */
        gsvd_log_debug("project: %zu samples projected on %zu components; %llu of %llu "
                       "reference variants matched",
                       r->n, r->k, (unsigned long long)map.counts.matched,
                       (unsigned long long)map.counts.ref_used);
        rc = gsvd_project_store_result(&info, &ref, &map, r, gsvd_geno_sample_ids(g), &gr);
    }
    rc = lib_run_finish(run, rc, GENSVD_PROJECT, &gr);
out:
    gsvd_result_free(gr);
    gsvd_project_result_free(r);
    gsvd_project_map_free(&map);
    gsvd_geno_close(g);
    lib_sel_free(&sel);
    gsvd_pca_model_free(&ref);
    return rc;
}

/* ---- ldprune ------------------------------------------------------------------------------ */

int lib_run_ldprune(struct lib_run *run)
{
    struct gsvd_ldprune_params lp = run->opt->u.ldprune.lp;
    struct gsvd_ldprune_result r = {0};
    struct lib_sel sel = {0};
    gsvd_comm *world = lib_world();
    gsvd_result *gr = NULL, *table = NULL;
    int rc = GSVD_OK;

    if (!lp.window && !lp.window_bp)
        return lib_fail(GSVD_EINVAL, "ldprune: option \"window\" is required (e.g. 1000 or 500kb)");
    lp.n_threads = lib_threads(run->ctx);
    lp.comm = world; /* whole contigs per rank; every rank then holds the whole result */
    rc = lib_sel_make(run->src, 0, &sel);
    if (world) /* one rank's bad start stops every rank */
        rc = gsvd_comm_agree(world, rc, NULL);
    if (rc < 0)
        goto out;
    /* on failure every rank has failed (the pass agrees) */
    GSVD_TRY(gsvd_ldprune_mask(run->src->tree, run->src->node, &sel.geno, &lp, &r));
    {
        struct gsvd_ldprune_store_info info = {.command = run->opt->command,
                                               .source = lib_source_name(run->src),
                                               .lp = &lp,
                                               .geno = &sel.geno,
                                               .samples_subset = run->src->samples_set};
        rc = gsvd_ldprune_store_build(&info, &r, &gr);
    }
    /* the variant table (contigs, positions) is held beside the output group, not written */
    if (rc == GSVD_OK)
        rc = gsvd_ldprune_table_build(run->src->tree, run->src->node, &r, &table);
    rc = lib_run_finish(run, rc, GENSVD_LDPRUNE, &gr);
    if (rc < 0)
        goto out;
    run->out->held = table;
    table = NULL;
out:
    gsvd_result_free(gr);
    gsvd_result_free(table);
    gsvd_ldprune_result_free(&r);
    lib_sel_free(&sel);
    return rc;
}

/* ---- related ------------------------------------------------------------------------------ */

int lib_run_related(struct lib_run *run)
{
    const struct lib_related_opts *o = &run->opt->u.related;
    struct gsvd_related_params rp = {.cutoff = o->cutoff, .pd = GSVD_PDIST_PARAMS_DEFAULT};
    struct gsvd_related_result res = {0};
    struct lib_sel sel = {0};
    gsvd_backend *be = NULL;
    gsvd_result *gr = NULL;
    gsvd_geno *g = NULL;
    int rc = GSVD_OK;

    rc = lib_backend(run->ctx, NULL, &be); /* first: an unavailable device fails early */
    rc = rc == GSVD_OK ? lib_sel_make(run->src, 1, &sel) : lib_sel_join(run->src, rc);
    sel.geno.scaler = GSVD_SCALER_NONE; /* raw dosages */
    if (rc == GSVD_OK)
        rc = gsvd_geno_open(run->src->tree, run->src->node, &sel.geno, &g);
    if (lib_world()) /* one rank's bad start stops every rank */
        rc = gsvd_comm_agree(lib_world(), rc, NULL);
    if (rc < 0)
        goto out;
    rp.pd.n_threads = lib_threads(run->ctx);
    rp.pd.memory = o->memory;
    rp.pd.device = be;
    rp.pd.progress = lib_progress(run->ctx);
    rp.pd.comm = lib_world();
    GSVD_TRY(gsvd_related_run(g, &rp, &res));
    /* the summary is the result's attributes (the command line prints it from them) */
    gsvd_log_debug("related: %zu samples, %llu variants, %llu pairs with kinship > %g among %zu "
                   "samples: %zu removed, %zu kept",
                   res.n, (unsigned long long)res.n_variants, (unsigned long long)res.n_pairs,
                   o->cutoff, res.n_related, res.n - res.n_unrelated, res.n_unrelated);
    rc = gsvd_related_store_build(run->opt->command, o->cutoff, &res, gsvd_geno_sample_ids(g), &gr);
    rc = lib_run_finish(run, rc, GENSVD_RELATED, &gr);
out:
    gsvd_result_free(gr);
    gsvd_related_result_clear(&res);
    gsvd_geno_close(g);
    lib_sel_free(&sel);
    gsvd_backend_destroy(be);
    return rc;
}

/* ---- simulate ----------------------------------------------------------------------------- */

/* Simulated genotypes are written chunk by chunk and never held whole: simulate needs a
 * destination, and its result holds no array. */
int lib_run_simulate(struct lib_run *run)
{
    struct gsvd_sim_params p = run->opt->u.sim;
    gsvd_result *gr = NULL;
    int rc = GSVD_OK;

    if (!run->dest)
        return lib_fail(GSVD_EINVAL, "simulate writes its genotypes to a destination: pass one");
    if (p.n_pops > p.n_samples)
        return lib_fail(GSVD_EINVAL, "simulate: more populations (%zu) than samples (%llu)",
                        p.n_pops, (unsigned long long)p.n_samples);
    if (p.chunk_samples > p.n_samples)
        p.chunk_samples = p.n_samples;
    if (p.chunk_variants > p.n_variants)
        p.chunk_variants = p.n_variants;
    p.writer = lib_dest_params(run->dest, 2);
    {
        uint64_t shape[2] = {p.n_variants, p.n_samples};
        uint64_t chunks[2] = {p.chunk_variants, p.chunk_samples};
        GSVD_TRY(gsvd_writer_shard_shape(&p.writer, "call_genotype", 2, shape, chunks, NULL));
    }
    p.command = run->opt->command;
    p.overwrite = run->dest->force;
    p.n_threads = lib_threads(run->ctx);
    p.progress = lib_progress(run->ctx);
    GSVD_TRY(gsvd_simulate(&p, run->dest->url));
    GSVD_TRY(gsvd_result_new(&gr));
    rc = lib_result_new(run->ctx, GENSVD_SIMULATE, gr, 2, &run->out);
    gr = NULL; /* adopted, also on failure */
out:
    gsvd_result_free(gr);
    return rc;
}
