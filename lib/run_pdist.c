/* lib/run_pdist.c - GENSVD_PDIST: `gensvd pdist`'s run with its options.  With a destination
 * the bands stream into it through pdist's own sink (analysis/pdist/pdist_store.h: the bytes
 * of `pdist -o`), as do --min-kinship's pair list and --part's parts; without one the bands
 * are gathered into the N x N matrix of the result (built by the same schema, so that
 * gensvd_result_write writes those bytes too), or handed to the caller's rows callback;
 * "min-kinship"'s pairs are then held and built into the group its pair list would be.
 * p-distance and "haplotypes" open the calls one column per haplotype (the samples' items are
 * their haplotypes, grouped by the engine for p-distance).
 * "finalize" gathers a job array's parts (no source). */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/pdist/king_pairs.h"
#include "analysis/pdist/king_parts.h"
#include "analysis/pdist/pdist_parts.h"
#include "analysis/pdist/pdist_store.h"
#include "common/alloc.h"
#include "common/comm.h"
#include "common/err.h"
#include "common/log.h"

/* --min-kinship without --memory: the bands' working set */
#define PAIRS_DEFAULT_MEMORY ((uint64_t)1 << 30)

/* The in-memory sink: the bands mirrored into the full matrix, or handed to the caller. */
struct mem_sink {
    size_t n;
    double *dist;     /* n x n (owned until the result takes it) */
    uint32_t *nsites; /* n x n */
    gensvd_rows_fn fn;
    void *user;
};

static int mem_band(void *ctx, const struct gsvd_pdist_band *b)
{
    struct mem_sink *s = ctx;
    size_t n = s->n;

    if (gsvd_scope_cancelled())
        return GSVD_ECANCELED;
    if (s->fn) { /* rows [row0, row0 + n_rows) x columns [row0, n): the band as computed */
        struct gensvd_array_view d = {.data = b->dist,
                                      .dtype = GENSVD_DTYPE_FLOAT64,
                                      .ndim = 2,
                                      .shape = {b->n_rows, b->ld},
                                      .dims = {"samples_0", "samples_1"}};
        struct gensvd_array_view c = d;
        c.data = b->n_sites;
        c.dtype = GENSVD_DTYPE_UINT32;
        if (s->fn(s->user, b->row0, b->n_rows, &d, &c) != 0)
            return gsvd_scope_cancelled() ? GSVD_ECANCELED
                                          : lib_fail(GSVD_EIO, "pdist: the rows callback "
                                                               "stopped the run");
        return GSVD_OK;
    }
    for (size_t r = 0; r < b->n_rows; r++)
        for (size_t c = 0; c < b->ld; c++) {
            size_t i = b->row0 + r, j = b->row0 + c;
            s->dist[i * n + j] = s->dist[j * n + i] = b->dist[r * b->ld + c];
            s->nsites[i * n + j] = s->nsites[j * n + i] = b->n_sites[r * b->ld + c];
        }
    return GSVD_OK;
}

/* The input of a run: a genotype handle, or the variants collected as a matrix. */
struct job {
    gsvd_geno *g;
    const double *x;
    const int8_t *x8;
    size_t n, m;
    const struct gsvd_strlist *ids;
    int input_format;
};

static int engine(const struct job *j, struct gsvd_pdist_params *pd, gsvd_pdist_sink_fn sink,
                  void *ctx, struct gsvd_pdist_summary *sum)
{
    if (j->g)
        return gsvd_pdist_run(j->g, pd, sink, ctx, sum);
    if (j->x8)
        return gsvd_pdist_run_matrix_i8(j->x8, j->n, j->m, pd, sink, ctx, sum);
    return gsvd_pdist_run_matrix(j->x, j->n, j->m, pd, sink, ctx, sum);
}

/* Under mpirun a failure on rank 0 ends the run (the others may wait in a send); otherwise
 * every rank learns the joint verdict, and the others wait for rank 0's verdict on what it
 * does next (its closing gsvd_comm_agree).  1: go on (this process writes), 0: done with
 * *rc. */
static int bands_done(gsvd_comm *world, int *rc)
{
    if (gsvd_comm_size(world) > 1) {
        if (*rc < 0 && gsvd_comm_rank(world) == 0)
            gsvd_comm_abort(world, 1);
        *rc = gsvd_comm_agree(world, *rc, NULL);
        if (*rc < 0 || gsvd_comm_rank(world) != 0) {
            if (*rc == GSVD_OK)
                *rc = gsvd_comm_agree(world, GSVD_OK, NULL);
            return 0;
        }
    }
    return *rc == GSVD_OK;
}

static int attrs_of(const struct lib_run *run, const struct gsvd_pdist_params *pd,
                    const struct gsvd_pdist_summary *sum, struct gsvd_buf *attrs)
{
    const struct lib_pdist_opts *o = &run->opt->u.pdist;
    struct gsvd_pdist_attrs a = {.command = run->opt->command,
                                 .pd = pd,
                                 .axis_variants = o->axis_variants,
                                 .condensed = o->condensed,
                                 .sum = sum};
    return gsvd_pdist_store_attrs(&a, attrs);
}

/* --min-kinship: the pairs to the destination's pair list, or (output NULL) into *gr, the
 * group that pair list would be. */
static int run_pairs(struct lib_run *run, struct gsvd_pdist_params *pd, const struct job *j,
                     const char *output, int part, gsvd_result **gr)
{
    const struct lib_pdist_opts *o = &run->opt->u.pdist;
    struct gsvd_king_pairs_cfg cfg = {.output = output,
                                      .force = (run->dest && run->dest->force) || part,
                                      .part = part,
                                      .counts = o->counts,
                                      .min_kinship = o->min_kinship,
                                      .ids = j->ids,
                                      .n = j->n,
                                      .wp = output ? lib_dest_params(run->dest, j->input_format)
                                                   : (struct gsvd_writer_params){0}};
    struct gsvd_pdist_summary sum = {0};
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    gsvd_king_pairs *kp = NULL;
    gsvd_comm *world = lib_world();
    int rc = GSVD_OK;

    if (part && cfg.wp.zarr_format == 3)
        return lib_fail(GSVD_EINVAL, "pdist: parts are Zarr v2 (\"zarr-format\" 2)");
    if (gsvd_comm_rank(world) == 0)
        rc = gsvd_king_pairs_open(&cfg, &kp);
    if (gsvd_comm_size(world) > 1)
        rc = gsvd_comm_agree(world, rc, NULL);
    if (rc < 0)
        goto out;
    if (!pd->memory)
        pd->memory = PAIRS_DEFAULT_MEMORY;
    rc = engine(j, pd, gsvd_comm_rank(world) == 0 ? gsvd_king_pairs_band : NULL, kp, &sum);
    if (!bands_done(world, &rc))
        goto out;
    rc = attrs_of(run, pd, &sum, &attrs);
    if (rc == GSVD_OK && attrs.len > 2) { /* the threshold before the closing brace */
        attrs.len -= 2;
        attrs.data[attrs.len] = '\0';
        rc = gsvd_buf_printf(&attrs, ",\n    \"min_kinship\": %.17g\n}", o->min_kinship);
    }
    if (rc == GSVD_OK)
        rc = output ? gsvd_king_pairs_finish(kp, attrs.data)
                    : gsvd_king_pairs_build(kp, attrs.data, gr);
    if (gsvd_comm_size(world) > 1)
        rc = gsvd_comm_agree(world, rc, NULL);
out:
    gsvd_buf_free(&attrs);
    gsvd_king_pairs_close(kp);
    return rc;
}

/* The distances: streamed to the destination, or gathered in memory. */
static int run_job(struct lib_run *run, struct gsvd_pdist_params *pd, const struct job *j,
                   const char *output, int part, gsvd_result **gr)
{
    const struct lib_pdist_opts *o = &run->opt->u.pdist;
    struct gsvd_pdist_store_cfg cfg = {.output = output,
                                       .force = (run->dest && run->dest->force) || part,
                                       .part = part,
                                       .condensed = o->condensed,
                                       .f4 = o->f4,
                                       .counts = o->counts,
                                       .axis = o->axis_variants ? "variants" : "samples",
                                       .ids = j->ids,
                                       .n = j->n,
                                       .threads = pd->n_threads,
                                       .memory = pd->memory};
    struct mem_sink ms = {.n = j->n, .fn = run->opt->rows_fn, .user = run->opt->rows_user};
    struct gsvd_pdist_summary sum = {0};
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    gsvd_pdist_store *st = NULL;
    gsvd_comm *world = lib_world();
    int rc = GSVD_OK, me = gsvd_comm_rank(world);

    if (output) {
        cfg.wp = lib_dest_params(run->dest, j->input_format);
        if (part && cfg.wp.zarr_format == 3)
            return lib_fail(GSVD_EINVAL, "pdist: parts are Zarr v2 (\"zarr-format\" 2)");
        cfg.plan_only = me != 0; /* rank 0 writes; the others need the sizes only */
        rc = gsvd_pdist_store_open(&cfg, &st);
        if (gsvd_comm_size(world) > 1)
            rc = gsvd_comm_agree(world, rc, NULL);
        if (rc < 0)
            goto out;
        pd->row_align = gsvd_pdist_store_row_align(st);
        pd->sink_bytes = gsvd_pdist_store_bytes(st);
        rc = engine(j, pd, me == 0 ? gsvd_pdist_store_band : NULL, st, &sum);
    } else {
        if (!ms.fn) {
            uint64_t nn = (uint64_t)j->n * j->n;
            if (nn > SIZE_MAX / sizeof(double)) {
                rc = lib_fail(GSVD_ENOMEM, "pdist: %zu x %zu distances do not fit in memory", j->n,
                              j->n);
                goto out;
            }
            ms.dist = gsvd_malloc((size_t)(nn ? nn : 1) * sizeof *ms.dist);
            ms.nsites = gsvd_malloc((size_t)(nn ? nn : 1) * sizeof *ms.nsites);
            if (!ms.dist || !ms.nsites) {
                rc = GSVD_ENOMEM;
                goto out;
            }
        }
        rc = engine(j, pd, me == 0 ? mem_band : NULL, &ms, &sum);
    }
    if (!bands_done(world, &rc))
        goto out;
    gsvd_log_info("pdist: %zu items, %llu features, %s kernel on %s, %llu missing values", sum.n,
                  (unsigned long long)sum.m, sum.kernel ? sum.kernel : "none",
                  sum.device ? sum.device : "cpu", (unsigned long long)sum.n_missing);
    /* from here on the others wait for rank 0's verdict: no early exit */
    rc = attrs_of(run, pd, &sum, &attrs);
    if (rc == GSVD_OK && output) {
        rc = gsvd_pdist_store_finish(st, attrs.data, sum.n_missing);
        if (rc == GSVD_OK)
            rc = gsvd_result_new(gr);
        if (rc == GSVD_OK)
            rc = gsvd_result_set_attrs(*gr, attrs.data, GSVD_RESULT_ATTRS_LAST);
    } else if (rc == GSVD_OK && ms.fn) {
        rc = gsvd_result_new(gr);
        if (rc == GSVD_OK)
            rc = gsvd_result_set_attrs(*gr, attrs.data, GSVD_RESULT_ATTRS_LAST);
    } else if (rc == GSVD_OK) {
        rc = gsvd_pdist_store_build(&cfg, attrs.data, sum.n_missing, ms.dist, ms.nsites, gr);
        ms.dist = NULL;
        ms.nsites = NULL;
    }
    if (gsvd_comm_size(world) > 1) /* the others learn how it went */
        rc = gsvd_comm_agree(world, rc, NULL);
out:
    gsvd_free(ms.dist);
    gsvd_free(ms.nsites);
    gsvd_buf_free(&attrs);
    gsvd_pdist_store_close(st);
    return rc;
}

/* pdist --finalize OUT: the job array's parts gathered into OUT. */
static int run_finalize(struct lib_run *run)
{
    const char *out = run->opt->u.pdist.finalize;
    int force = run->dest ? run->dest->force : 0;
    int rc = gsvd_pdist_parts_have_array(out, "pair_i"); /* pair-list parts, or square ones */
    gsvd_result *gr = NULL;

    if (rc > 0)
        rc = gsvd_king_parts_finalize(out, force);
    else if (rc == 0)
        rc = gsvd_pdist_parts_finalize(out, force);
    if (rc == GSVD_OK)
        rc = gsvd_result_new(&gr);
    if (rc == GSVD_OK)
        rc = lib_result_new(run->ctx, GENSVD_PDIST, gr, 2, &run->out);
    return rc;
}

/* The options that go together, checked before any input is read. */
static int check(const struct lib_run *run)
{
    const struct lib_pdist_opts *o = &run->opt->u.pdist;
    int king = o->pd.metric == GSVD_PDIST_KING || o->pd.metric == GSVD_PDIST_IBS0;

    if (king && (o->axis_variants || o->pd.missing == GSVD_PDIST_SCALE))
        return lib_fail(GSVD_EINVAL,
                        "pdist: metric %s is between samples over their jointly "
                        "called sites (no axis variants, no missing scale)",
                        gsvd_pdist_metric_name(o->pd.metric));
    if (king && o->haplotypes)
        return lib_fail(GSVD_EINVAL, "pdist: metric %s compares diploid calls, not haplotypes",
                        gsvd_pdist_metric_name(o->pd.metric));
    if (o->pd.metric == GSVD_PDIST_P_DISTANCE && o->axis_variants)
        return lib_fail(GSVD_EINVAL, "pdist: metric p-distance is between samples (or "
                                     "haplotypes): no axis variants");
    if (o->ignore_phase && !o->haplotypes && o->pd.metric != GSVD_PDIST_P_DISTANCE)
        return lib_fail(GSVD_EINVAL, "pdist: \"ignore-phase\" applies to metric p-distance and "
                                     "\"haplotypes\"");
    if (run->src->variant_mask_spec && o->axis_variants)
        return lib_fail(GSVD_EINVAL, "pdist: a variant mask applies to axis samples");
    if (!isnan(o->min_kinship)) {
        if (o->pd.metric != GSVD_PDIST_KING)
            return lib_fail(GSVD_EINVAL, "pdist: \"min-kinship\" needs metric king");
        if (o->condensed || o->f4)
            return lib_fail(GSVD_EINVAL, "pdist: \"min-kinship\" writes its own pair list (no "
                                         "layout or dtype)");
    }
    if (o->pd.n_parts) {
        if (!run->dest || strstr(run->dest->url, "://") || o->condensed)
            return lib_fail(GSVD_EINVAL, "pdist: \"part\" needs a local destination and the "
                                         "square layout");
        if (gsvd_comm_size(lib_world()) > 1)
            return lib_fail(GSVD_EINVAL, "pdist: \"part\" is for job arrays; under mpirun the "
                                         "ranks share the work themselves");
    }
    return GSVD_OK;
}

int lib_run_pdist(struct lib_run *run)
{
    const struct lib_pdist_opts *o = &run->opt->u.pdist;
    struct gsvd_pdist_params pd = o->pd;
    int king = pd.metric == GSVD_PDIST_KING || pd.metric == GSVD_PDIST_IBS0;
    struct lib_sel sel = {0};
    struct job j = {0};
    struct gsvd_strlist ids = GSVD_STRLIST_INIT;
    uint64_t *idx = NULL;
    double *x = NULL;
    int8_t *x8 = NULL;
    char *part_output = NULL;
    const char *output = run->dest ? run->dest->url : NULL;
    gsvd_result *gr = NULL;
    gsvd_geno *g = NULL;
    int rc = GSVD_OK;

    if (o->finalize)
        return run_finalize(run);
    GSVD_TRY(check(run));
    if (pd.n_parts) {
        if (!(part_output = gsvd_pdist_parts_path(output, pd.part, pd.n_parts))) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        GSVD_TRY(gsvd_pdist_parts_prepare(output));
    }
    GSVD_TRY(lib_backend(run->ctx, NULL, &pd.device)); /* first: no device, no reading */
    GSVD_TRY(lib_sel_make(run->src, king, &sel));
    sel.geno.scaler = GSVD_SCALER_NONE; /* raw dosages: centre 0, scale 1 */
    sel.geno.missing_error = pd.missing == GSVD_PDIST_ERROR;
    /* p-distance and "haplotypes": one column per haplotype, the phase checked */
    sel.geno.haplotypes = o->haplotypes || pd.metric == GSVD_PDIST_P_DISTANCE;
    sel.geno.ignore_phase = o->ignore_phase;
    GSVD_TRY(gsvd_geno_open(run->src->tree, run->src->node, &sel.geno, &g));
    if (pd.metric == GSVD_PDIST_P_DISTANCE && !o->haplotypes)
        pd.hap_group = gsvd_geno_haplotypes(g); /* the samples are the items */
    if (king && (gsvd_geno_is_float(g) || gsvd_geno_ploidy(g) != 2)) {
        rc = lib_fail(
            GSVD_EUNSUPPORTED, "%s: metric %s needs diploid genotype calls (found %s, ploidy %zu)",
            gsvd_geno_array_name(g), gsvd_pdist_metric_name(pd.metric),
            gsvd_geno_is_float(g) ? "float dosages" : "integer calls", gsvd_geno_ploidy(g));
        goto out;
    }
    pd.n_threads = lib_threads(run->ctx);
    pd.progress = lib_progress(run->ctx);
    pd.comm = lib_world();
    j.input_format = run->src->input_format;
    if (o->axis_variants) { /* distances between variants: the matrix path */
        size_t rows = 0;
        GSVD_TRY(gsvd_pdist_collect_variants(g, &pd, &x, &x8, &rows, &idx));
        for (size_t i = 0; i < rows; i++) {
            char num[32];
            snprintf(num, sizeof num, "%llu", (unsigned long long)(sel.geno.var_start + idx[i]));
            GSVD_TRY(gsvd_strlist_push(&ids, num));
        }
        j.x = x;
        j.x8 = x8;
        j.n = rows;
        j.m = gsvd_geno_n_samples(g);
        j.ids = &ids;
    } else {
        size_t hg = pd.hap_group > 1 ? pd.hap_group : 1;
        j.g = g;
        j.n = gsvd_geno_n_samples(g) / hg;
        j.ids = hg > 1 ? gsvd_geno_call_ids(g) : gsvd_geno_sample_ids(g);
    }
    if (!isnan(o->min_kinship)) {
        GSVD_TRY(
            run_pairs(run, &pd, &j, part_output ? part_output : output, part_output != NULL, &gr));
        if (output) /* written: the result holds the attributes only */
            GSVD_TRY(gsvd_result_new(&gr));
    } else {
        GSVD_TRY(
            run_job(run, &pd, &j, part_output ? part_output : output, part_output != NULL, &gr));
    }
    if (!gr) /* a rank other than 0 of a distributed run: no result of its own */
        GSVD_TRY(gsvd_result_new(&gr));
    rc = lib_result_new(run->ctx, GENSVD_PDIST, gr, j.input_format, &run->out);
    gr = NULL;
out:
    gsvd_result_free(gr);
    gsvd_backend_destroy(pd.device);
    gsvd_geno_close(g);
    lib_sel_free(&sel);
    gsvd_strlist_free(&ids);
    gsvd_free(idx);
    gsvd_free(x);
    gsvd_free(x8);
    gsvd_free(part_output);
    return rc;
}
