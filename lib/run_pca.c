/* lib/run_pca.c - GENSVD_PCA: `gensvd pca`'s run with its options (include/gensvd.h):
 * the backend first (an unavailable device fails before any data is read), the selection, an
 * optional LD prune and --fit-samples projection, the plan of --memory and --cache, the run
 * (shared by the processes of a distributed run; with "outlier-iter", smartpca's rounds of
 * outlier removal, analysis/pca/pca_outlier.h), and the output group built by
 * analysis/pca/pca_store.c.  The result also keeps the PCs as a reference for GENSVD_PROJECT
 * (gensvd_options_set_pcs) when they were computed with loadings. */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/pca/pca_fit.h"
#include "analysis/pca/pca_outlier.h"
#include "analysis/pca/pca_store.h"
#include "analysis/scan/variant_ids.h"
#include "common/alloc.h"
#include "common/comm.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parse.h"

/* Everything the run holds, released by run_free. */
struct pca_run {
    struct lib_run *run; /* borrowed, as are pca and bp */
    struct gsvd_pca_params *pca;
    struct gsvd_backend_params *bp;
    struct gsvd_geno_params openp; /* what the first handle was opened with (outlier rounds) */
    struct lib_sel sel;
    struct gsvd_strlist fit_ids; /* "fit-samples" read from a file */
    uint8_t *prune_keep;         /* "ld-prune": the kept variants */
    int prune_failed;            /* the distributed prune failed: every rank knows (agreed) */
    gsvd_backend *be;
    gsvd_geno *g;
    struct gsvd_pca_result *r;
    struct gsvd_pca_fit_join join;
    struct gsvd_pca_outliers ol; /* "outlier-iter": what removal did */
    double *sp_rows;             /* "smartpca-rows": rank 0's, sp_ids->n x k */
    const struct gsvd_strlist *sp_ids;
    struct gsvd_variant_ids vids;
    gsvd_result *gr;
};

static void run_free(struct pca_run *p)
{
    gsvd_result_free(p->gr);
    gsvd_free(p->sp_rows);
    gsvd_variant_ids_free(&p->vids);
    gsvd_pca_fit_join_free(&p->join);
    gsvd_pca_outliers_free(&p->ol);
    gsvd_pca_result_free(p->r);
    gsvd_geno_close(p->g);
    gsvd_backend_destroy(p->be);
    gsvd_free(p->prune_keep);
    gsvd_strlist_free(&p->fit_ids);
    lib_sel_free(&p->sel);
}

/* The genotype cache's budget and spill directory: "cache" (auto: a quarter of the memory, for
 * a store and for arrays the caller holds alike: a pass over the 2-bit codes is faster than
 * one that converts the calls again, and a chunked array's callback, dask's compute, is
 * asked for each chunk once instead of once a pass), and the context's "cache-dir", else
 * $TMPDIR, else /tmp. */
static void cache_plan(const gensvd_ctx *ctx, const struct lib_pca_opts *o,
                       struct gsvd_geno_params *geno)
{
    const char *tmp = getenv("TMPDIR");
    geno->cache_bytes = o->cache;
    if (o->cache == UINT64_MAX) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        geno->cache_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 4 : 0;
    }
    geno->cache_dir = ctx->str[CS_CACHE_DIR] ? ctx->str[CS_CACHE_DIR] : tmp && *tmp ? tmp : "/tmp";
}

/* A distributed run: this rank's part of the variants (gsvd_pca_split) and, on rank 0 at
 * info level, the plan of every rank (the command line's -v lines). */
static int split_variants(gsvd_comm *world, gsvd_geno *g, struct gsvd_pca_params *p, size_t threads)
{
    uint64_t vs, ve, a, b;
    int size = gsvd_comm_size(world);
    size_t n = gsvd_geno_n_samples(g);

    gsvd_geno_range(g, &vs, &ve);
    p->n_variants_all = ve - vs;
    gsvd_log_info("distributed: %d ranks (%d on rank 0's node, which is its local rank %d), "
                  "%zu threads each, variants %llu:%llu cut at multiples of %zu",
                  size, gsvd_comm_local_size(world), gsvd_comm_local_rank(world), threads,
                  (unsigned long long)vs, (unsigned long long)ve, gsvd_backend_gram_group_rows(n));
    gsvd_pca_log_split(gsvd_backend_gram_group_rows(n), vs, ve, size);
    gsvd_pca_split(n, vs, ve, gsvd_comm_rank(world), size, &a, &b);
    return gsvd_geno_restrict(g, a, b);
}

/* The run in brief, at debug level (a caller's summary comes from the result: `gensvd pca`'s
 * lines, cli/pca_summary.c, from its attributes and the arrays held beside them). */
static void report(const struct gsvd_pca_result *r, enum gsvd_pca_accuracy accuracy,
                   const struct gsvd_pca_outliers *ol)
{
    gsvd_log_debug("pca: %zu samples, %llu of %llu variants used; %s, %zu passes, accuracy %s, "
                   "converged %s, final 1-MEV %.3g",
                   r->n, (unsigned long long)r->counts.n_kept,
                   (unsigned long long)r->counts.n_range, gsvd_pca_method_name(r->method),
                   r->iterations, gsvd_pca_accuracy_name(accuracy),
                   r->converged < 0 ? "n/a (fixed pass count)"
                   : r->converged   ? "yes"
                                    : "NO (max-iter reached)",
                   r->convergence);
    if (ol)
        gsvd_log_debug("pca: outlier removal: %zu of %zu samples removed in %zu rounds",
                       ol->n_removed, ol->n, ol->n_rounds);
}

/* Copies of n doubles (NULL stays NULL); 0 or -1. */
static int dup_f8(const double *src, size_t n, double **dst)
{
    *dst = NULL;
    if (!src)
        return 0;
    if (!(*dst = gsvd_malloc((n ? n : 1) * sizeof **dst)))
        return -1;
    memcpy(*dst, src, n * sizeof **dst);
    return 0;
}

/* The PCs as a reference for projection (struct gsvd_pca_model), with copies of what it
 * needs.  Only with loadings and the variants' identity. */
static int keep_model(const struct gsvd_pca_result *r, const struct gsvd_strlist *ids,
                      const struct gsvd_variant_ids *vids, size_t ploidy, int scaler,
                      struct gsvd_pca_model **out)
{
    struct gsvd_pca_model *m = gsvd_calloc(1, sizeof *m);
    size_t k = r->k, n = r->n, mm = (size_t)r->m_range;
    int rc = GSVD_OK;

    *out = NULL;
    if (!m)
        return GSVD_ENOMEM;
    m->k = k;
    m->n = n;
    m->m = r->m_range;
    m->ploidy = ploidy;
    m->scaler = (enum gsvd_scaler)scaler;
    m->trace = r->trace;
    m->m_used = r->m_used;
    if (dup_f8(r->s, k, &m->s) < 0 || dup_f8(r->u, n * k, &m->scores) < 0 ||
        dup_f8(r->v, mm * k, &m->v) < 0 || dup_f8(r->var_mean, mm, &m->mean) < 0 ||
        dup_f8(r->var_scale, mm, &m->scale) < 0 || !(m->included = gsvd_malloc(mm ? mm : 1))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    memcpy(m->included, r->var_included, mm);
    for (size_t i = 0; i < n * k; i++)
        m->scores[i] *= r->s[i % k];
    for (size_t i = 0; i < ids->n; i++)
        GSVD_TRY(gsvd_strlist_push(&m->ids, ids->items[i]));
    for (size_t j = 0; j < vids->n; j++) {
        GSVD_TRY(gsvd_strlist_push(&m->vids.contig, vids->contig.items[j]));
        GSVD_TRY(gsvd_strlist_push(&m->vids.alleles, vids->alleles.items[j]));
    }
    if (vids->n && !(m->vids.pos = gsvd_malloc(vids->n * sizeof *m->vids.pos))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (vids->n)
        memcpy(m->vids.pos, vids->pos, vids->n * sizeof *m->vids.pos);
    m->vids.n = vids->n;
    *out = m;
    m = NULL;
out:
    if (m) {
        gsvd_pca_model_free(m);
        gsvd_free(m);
    }
    return rc;
}

/* What a genotype handle needs after gsvd_geno_open: this rank's part of the variants and the
 * plan of "memory" and "cache"; for the first handle and for each outlier round's. */
static int make_ready(struct pca_run *p, gsvd_geno *g)
{
    gsvd_comm *world = lib_world();
    uint64_t cache = p->sel.geno.cache_bytes;
    int rc = GSVD_OK;

    if (world)
        GSVD_TRY(split_variants(world, g, p->pca, lib_threads(p->run->ctx)));
    GSVD_TRY(gsvd_pca_plan(g, p->run->opt->u.pca.memory, p->bp, p->pca, &cache));
    gsvd_geno_set_cache(g, cache);
out:
    return rc;
}

/* An outlier round's handle: the kept samples of the starting set, by ID (gsvd_pca_open_fn). */
static int reopen(void *ctx, const struct gsvd_strlist *keep, gsvd_geno **out)
{
    struct pca_run *p = ctx;
    struct gsvd_geno_params gp = p->openp;
    gsvd_geno *g = NULL;
    int rc = GSVD_OK;

    *out = NULL;
    gp.samples = keep;
    gp.sample_mask = NULL;
    gp.sample_mask_len = 0;
    GSVD_TRY(gsvd_geno_open(p->run->src->tree, p->run->src->node, &gp, &g));
    GSVD_TRY(make_ready(p, g));
    *out = g;
    g = NULL;
out:
    gsvd_geno_close(g);
    return rc;
}

/* The options that go together (the command line's usage errors), before any input is read. */
static int check(const struct lib_pca_opts *o)
{
    if (o->gram_f64 && o->gram_kernel != GSVD_GRAM_AUTO)
        return lib_fail(GSVD_EINVAL, "pca: \"gram-f64\" and \"gram-kernel\" cannot be combined");
    if ((o->fit_file || o->fit_set) && o->fit_file && o->fit_set)
        return lib_fail(GSVD_EINVAL, "pca: \"fit-samples\" given both as a file and as a list");
    if (o->outlier_project && !o->pca.outlier_iter)
        return lib_fail(GSVD_EINVAL, "pca: \"outlier-project\" needs \"outlier-iter\" N (N > 0)");
    if (o->pca.tw && o->pca.method != GSVD_PCA_AUTO && o->pca.method != GSVD_PCA_EXACT)
        return lib_fail(GSVD_EINVAL,
                        "pca: \"tw\" needs every eigenvalue (the sum of their squares), which "
                        "only method exact gives; method %s cannot",
                        gsvd_pca_method_name(o->pca.method));
    if (o->pca.tw_effective_n > 0 && !o->pca.tw)
        return lib_fail(GSVD_EINVAL, "pca: \"tw-effective-n\" needs \"tw\"");
    if (o->pca.tw && (o->gram_kernel == GSVD_GRAM_AMX || o->gram_kernel == GSVD_GRAM_I8))
        return lib_fail(GSVD_EINVAL,
                        "pca: \"tw\" needs a Gram of exact products; gram-kernel %s rounds them",
                        o->gram_kernel == GSVD_GRAM_AMX ? "amx" : "i8");
    return GSVD_OK;
}

/* Checks, backend, selection, LD prune, genotype handle, this rank's part and the plan. */
static int setup(struct lib_run *run, struct pca_run *p, struct gsvd_pca_params *pca,
                 struct gsvd_backend_params *bp)
{
    const struct lib_pca_opts *o = &run->opt->u.pca;
    struct gsvd_geno_params *geno = &p->sel.geno;
    gensvd_source *src = run->src;
    int rc = GSVD_OK;

    GSVD_TRY(check(o)); /* the same on every rank: none reaches lib_sel_make */
    rc = lib_backend(run->ctx, bp, &p->be);
    if (rc < 0) /* maybe this rank alone: the others may be counting --mind */
        return lib_sel_join(src, rc);
    if (strcmp(gsvd_backend_name(p->be), "cpu") != 0) { /* the command line's words */
        if (o->gram_kernel != GSVD_GRAM_AUTO)
            gsvd_log_warn("--gram-kernel applies to the CPU backend only (%s runs its own Gram)",
                          gsvd_backend_name(p->be));
        if (o->pass_kernel != GSVD_PASS_AUTO)
            gsvd_log_warn("--pass-kernel applies to the CPU backend only (%s runs its own passes)",
                          gsvd_backend_name(p->be));
        if (o->gram_f64)
            gsvd_log_warn("--gram-f64 applies to the CPU backend only (%s runs its own Gram)",
                          gsvd_backend_name(p->be));
    }
    GSVD_TRY(lib_sel_make(src, 0, &p->sel));
    geno->scaler = (enum gsvd_scaler)o->scaler;
    geno->missing_error = o->missing_error;
    cache_plan(run->ctx, o, geno);
    if (o->fit_file)
        GSVD_TRY(gsvd_read_ids(o->fit_file, &p->fit_ids));
    if (o->ld_prune) { /* prune under the same filters and masks, then use the kept set */
        struct gsvd_ldprune_params lp = o->lp;
        struct gsvd_ldprune_result lr = {0};
        lp.n_threads = lib_threads(run->ctx);
        lp.comm = lib_world(); /* whole contigs per rank, the mask gathered onto every rank */
        rc = gsvd_ldprune_mask(src->tree, src->node, geno, &lp, &lr);
        p->prune_failed = rc < 0;
        if (rc < 0)
            goto out;
        p->prune_keep = lr.keep;
        lr.keep = NULL;
        geno->variant_mask = p->prune_keep;
        geno->variant_mask_len = lr.n_array;
        gsvd_ldprune_result_free(&lr);
    }
    p->openp = *geno;
    if (o->fit_file || o->fit_set) /* fitted on these; the universe is projected after */
        p->openp.samples = o->fit_set ? &o->fit_ids : &p->fit_ids;
    GSVD_TRY(gsvd_geno_open(src->tree, src->node, &p->openp, &p->g));
    if (pca->n_components >= gsvd_geno_n_samples(p->g))
        return lib_fail(GSVD_EINVAL, "-k %zu needs more than %zu samples", /* "components" */
                        pca->n_components, gsvd_geno_n_samples(p->g));
    if (run->dest) { /* a shard that does not fit the sample chunks fails before the run */
        uint64_t ns = gsvd_geno_n_samples(p->g), chunk = ns < 100000 ? ns : 100000;
        struct gsvd_writer_params wp = lib_dest_params(run->dest, src->input_format);
        GSVD_TRY(gsvd_writer_shard_shape(&wp, "sample_pca_projection", 1, &ns, &chunk, NULL));
    }
    GSVD_TRY(make_ready(p, p->g));
out:
    return rc;
}

int lib_run_pca(struct lib_run *run)
{
    const struct lib_pca_opts *o = &run->opt->u.pca;
    struct gsvd_pca_params pca = o->pca;
    /* "tw": float64 products where the kernel is the default (the effective n amplifies the
     * sum of squares' rounding), as the command line does */
    /* n_threads: the plan counts each thread's buffers (lib_backend sets it in its own copy) */
    struct gsvd_backend_params bp = {.gram_f64 = o->gram_f64 ||
                                                 (o->pca.tw && o->gram_kernel == GSVD_GRAM_AUTO),
                                     .gram_kernel = o->gram_kernel,
                                     .pass_kernel = o->pass_kernel,
                                     .n_threads = lib_threads(run->ctx)};
    struct pca_run p = {.run = run, .pca = &pca, .bp = &bp};
    gsvd_comm *world = lib_world();
    int fit = o->fit_file || o->fit_set;
    const struct gsvd_pca_result *res;
    struct gsvd_pca_result shown;
    const struct gsvd_strlist *ids;
    struct gsvd_pca_model *model = NULL;
    gsvd_result *table = NULL;
    int rc;

    /* power-iter fixes the pass count, max-iter caps the stop rule's passes: a cap given with a
     * fixed count would be ignored or cut it short (as the command line refuses the pair) */
    if (pca.power_iter && pca.max_iter)
        return lib_fail(GSVD_EINVAL, "pca: \"power-iter\" (exactly this many passes) and "
                                     "\"max-iter\" (a cap for the stop rule) cannot be combined");
    /* accuracy: bulk is the estimate stop rule with room to reach it (as `--accuracy bulk`) */
    if (pca.accuracy == GSVD_PCA_ACCURACY_BULK &&
        (pca.stop != GSVD_PCA_STOP_BOUND || pca.power_iter))
        return lib_fail(GSVD_EINVAL,
                        "pca: accuracy bulk sets the stop rule itself: it cannot be combined "
                        "with \"%s\"",
                        pca.power_iter ? "power-iter" : "stop");
    if (pca.accuracy == GSVD_PCA_ACCURACY_BULK)
        pca.stop = GSVD_PCA_STOP_ESTIMATE;
    if (!pca.max_iter)
        pca.max_iter =
            pca.accuracy == GSVD_PCA_ACCURACY_BULK ? GSVD_PCA_BULK_MAX_ITER : GSVD_PCA_MAX_ITER;
    rc = setup(run, &p, &pca, &bp);
    /* one rank's bad start stops every rank; a failed prune has agreed already: on every rank
     * that reached it (a rank that failed before it agrees here, with the prune's agreement) */
    if (world && !p.prune_failed)
        rc = gsvd_comm_agree(world, rc, NULL);
    if (rc < 0)
        goto out;
    /* projecting the others needs them, as do smartpca's least-squares rows */
    pca.loadings = o->pca.loadings || fit || o->outlier_project || o->smartpca_rows;
    pca.progress = lib_progress(run->ctx);
    pca.n_threads = lib_threads(run->ctx);
    pca.comm = world;
    if (pca.outlier_iter)
        GSVD_TRY(gsvd_pca_outliers_run(&p.g, reopen, &p, p.be, &pca, &p.r, &p.ol));
    else
        GSVD_TRY(gsvd_pca_run(p.g, p.be, &pca, &p.r));
    res = p.r;
    ids = gsvd_geno_sample_ids(p.g);
    /* the samples outside the fit or removed as outliers ("outlier-project") projected, or the
     * removed ones given NaN rows; smartpca's rows: under MPI every rank scans its part of the
     * variants for the projections, with rank 0's gathered loadings shared first */
    if (world && (fit || o->outlier_project || o->smartpca_rows))
        GSVD_TRY(gsvd_pca_share_loadings(world, p.r));
    if (fit || pca.outlier_iter) {
        if (fit) {
            GSVD_TRY(gsvd_pca_fit_join(run->src->tree, run->src->node, &p.sel.geno,
                                       p.sel.geno.samples, p.g, p.r, lib_threads(run->ctx), world,
                                       &p.join));
        } else if (o->outlier_project) { /* the starting set, by ID (no mask needed again) */
            struct gsvd_geno_params fitp = p.sel.geno;
            fitp.sample_mask = NULL;
            fitp.sample_mask_len = 0;
            GSVD_TRY(gsvd_pca_fit_join(run->src->tree, run->src->node, &fitp, &p.ol.ids, p.g, p.r,
                                       lib_threads(run->ctx), world, &p.join));
        } else {
            GSVD_TRY(gsvd_pca_outliers_join(&p.ol, p.r, &p.join));
        }
        if (!o->pca.loadings)
            p.join.all.v = NULL;
        res = &p.join.all;
        ids = &p.join.ids;
    }
    if (o->smartpca_rows) { /* the fit's samples, and the others */
        p.sp_ids = fit ? &p.join.ids : gsvd_geno_sample_ids(p.g);
        GSVD_TRY(gsvd_pca_smartpca_rows(run->src->tree, run->src->node, &p.sel.geno, p.sp_ids, p.g,
                                        p.r, lib_threads(run->ctx), world, &p.sp_rows));
    }
    if (res == p.r && !o->pca.loadings && p.r->v) { /* computed for the rows only: not output */
        shown = *p.r;
        shown.v = NULL;
        res = &shown;
    }
    if (gsvd_comm_rank(world) == 0)
        report(p.r, pca.accuracy, pca.outlier_iter ? &p.ol : NULL);
    if (res->v)
        GSVD_TRY(gsvd_variant_ids_read_present(run->src->tree, run->src->node, p.sel.geno.var_start,
                                               p.sel.geno.var_start + p.r->m_range, &p.vids));
    if (p.vids.n)
        GSVD_TRY(gsvd_variant_ids_read_names(run->src->tree, run->src->node, p.sel.geno.var_start,
                                             &p.vids));
    {
        struct gsvd_pca_store_info info = {.command = run->opt->command,
                                           .input = gsvd_geno_array_name(p.g),
                                           .pca = &pca,
                                           .geno = &p.sel.geno,
                                           .ploidy = gsvd_geno_ploidy(p.g),
                                           .var_start = p.sel.geno.var_start,
                                           .vids = p.vids.n ? &p.vids : NULL,
                                           .fitted = p.join.fitted,
                                           .n_fitted = p.join.n_fitted,
                                           .outliers = pca.outlier_iter ? &p.ol : NULL};
        GSVD_TRY(gsvd_pca_store_build(&info, res, ids, &p.gr));
    }
    if (res->v && !fit) /* the PCs' own samples (without the removed outliers) */
        GSVD_TRY(keep_model(p.r, gsvd_geno_sample_ids(p.g), &p.vids, gsvd_geno_ploidy(p.g),
                            o->scaler, &model));
    /* what the command line prints besides the group, held beside it (never written) */
    GSVD_TRY(gsvd_pca_table_build(p.r, gsvd_geno_sample_ids(p.g), pca.outlier_iter ? &p.ol : NULL,
                                  &table));
    if (p.sp_rows)
        GSVD_TRY(gsvd_pca_table_add_smartpca(table, p.sp_ids, p.r->k, p.sp_rows));
    rc = lib_run_finish(run, GSVD_OK, GENSVD_PCA, &p.gr);
    if (rc < 0)
        goto out;
    run->out->model = model;
    model = NULL;
    run->out->held = table;
    table = NULL;
out:
    if (model) {
        gsvd_pca_model_free(model);
        gsvd_free(model);
    }
    gsvd_result_free(table);
    run_free(&p);
    return rc;
}
