/* lib/run_pdist.c - GENSVD_PDIST: `gensvd pdist`'s run with its options.  With a destination
 * the bands stream into it through pdist's own sink (analysis/pdist/pdist_store.h: the bytes
 * of `pdist -o`), as do --min-kinship's pair list and --part's parts; without one the bands
 * are gathered into the N x N matrix of the result (built by the same schema, so that
 * gensvd_result_write writes those bytes too), or handed to the caller's rows callback;
 * "min-kinship"'s pairs are then held and built into the group its pair list would be, or
 * handed to the caller's pairs callback.  The matrix callback gets the square matrix's complete
 * rows at the end (the run mirrors the bands into it), and a text source (a numeric matrix)
 * runs through the engine's matrix path.
 * p-distance and "haplotypes" open the calls one column per haplotype (the samples' items are
 * their haplotypes, grouped by the engine for p-distance).
 * "finalize" gathers a job array's parts (no source). */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* A callback of the caller stopped the run: cancelled, or GSVD_EIO in the callback's name. */
static int callback_stopped(const char *which)
{
    return gsvd_scope_cancelled()
               ? GSVD_ECANCELED
               : lib_fail(GSVD_EIO, "pdist: the %s callback stopped the run", which);
}

/* The sink of a run: the destination's (first), then the bands handed to the rows callback,
 * mirrored into the matrix callback's distances, or mirrored into the in-memory result. */
struct mem_sink {
    size_t n;
    gsvd_pdist_store *st; /* the destination, or NULL */
    double *dist;         /* n x n (owned until the result takes it), or NULL */
    uint32_t *nsites;     /* n x n */
    double *full;         /* the matrix callback's n x n distances, or NULL */
    gensvd_rows_fn fn;
    void *user;
};

/* Band b into the n x n matrix m (both triangles). */
static void mirror(double *m, size_t n, const struct gsvd_pdist_band *b)
{
    for (size_t r = 0; r < b->n_rows; r++)
        for (size_t c = r; c < b->ld; c++) {
            size_t i = b->row0 + r, j = b->row0 + c;
            m[i * n + j] = m[j * n + i] = b->dist[r * b->ld + c];
        }
}

static int mem_band(void *ctx, const struct gsvd_pdist_band *b)
{
    struct mem_sink *s = ctx;
    size_t n = s->n;
    int rc = GSVD_OK;

    if (s->st)
        GSVD_TRY(gsvd_pdist_store_band(s->st, b));
    if (gsvd_scope_cancelled())
        return GSVD_ECANCELED;
    if (s->full)
        mirror(s->full, n, b);
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
            return callback_stopped("rows");
    }
    if (s->dist)
        for (size_t r = 0; r < b->n_rows; r++)
            for (size_t c = 0; c < b->ld; c++) {
                size_t i = b->row0 + r, j = b->row0 + c;
                s->dist[i * n + j] = s->dist[j * n + i] = b->dist[r * b->ld + c];
                s->nsites[i * n + j] = s->nsites[j * n + i] = b->n_sites[r * b->ld + c];
            }
out:
    return rc;
}

/* The matrix callback: the complete rows of the mirrored matrix, in order. */
static int matrix_rows(const struct lib_run *run, const struct mem_sink *s)
{
    for (size_t i = 0; i < s->n; i++) {
        struct gensvd_array_view d = {.data = s->full + i * s->n,
                                      .dtype = GENSVD_DTYPE_FLOAT64,
                                      .ndim = 2,
                                      .shape = {1, s->n},
                                      .dims = {"samples_0", "samples_1"}};
        if (run->opt->matrix_fn(run->opt->matrix_user, i, 1, &d, NULL) != 0)
            return callback_stopped("matrix");
    }
    return GSVD_OK;
}

/* "min-kinship"'s kept pairs of a band to the pairs callback (analysis/pdist/king_pairs.h's
 * emit). */
static int emit_pairs(void *ctx, const struct gsvd_king_pair *p, size_t n)
{
    const struct lib_run *run = ctx;
    struct gensvd_king_pair buf[256];
    size_t k = 0;

    do { /* in slices of buf; once with n 0 */
        size_t m = n - k < GSVD_ARRAY_LEN(buf) ? n - k : GSVD_ARRAY_LEN(buf);
        for (size_t q = 0; q < m; q++)
            buf[q] = (struct gensvd_king_pair){.i = p[k + q].i,
                                               .j = p[k + q].j,
                                               .kinship = p[k + q].kinship,
                                               .n_sites = p[k + q].n,
                                               .hethet = p[k + q].hethet,
                                               .ibs0 = p[k + q].ibs0,
                                               .het1_hom2 = p[k + q].het1_hom2,
                                               .het2_hom1 = p[k + q].het2_hom1};
        if (run->opt->pairs_fn(run->opt->pairs_user, buf, m) != 0)
            return callback_stopped("pairs");
        k += m;
    } while (k < n);
    return GSVD_OK;
}

/* The input of a run: a genotype handle, or the variants collected as a matrix, or a text
 * source's matrix; and what it owns (freed by job_free). */
struct job {
    gsvd_geno *g;
    const double *x;
    const int8_t *x8;
    size_t n, m;
    const struct gsvd_strlist *ids;
    int input_format;
    struct lib_sel sel;
    struct gsvd_strlist own_ids; /* the variants' indices as text */
    uint64_t *idx;
    double *own_x;
    int8_t *own_x8;
};

static void job_free(struct job *j)
{
    gsvd_geno_close(j->g);
    lib_sel_free(&j->sel);
    gsvd_strlist_free(&j->own_ids);
    gsvd_free(j->idx);
    gsvd_free(j->own_x);
    gsvd_free(j->own_x8);
}

static int engine(const struct job *j, struct gsvd_pdist_params *pd, gsvd_pdist_sink_fn sink,
                  void *ctx, struct gsvd_pdist_summary *sum)
{
    if (j->g)
        return gsvd_pdist_run(j->g, pd, sink, ctx, sum);
    if (j->x8)
        return gsvd_pdist_run_matrix_i8(j->x8, j->n, j->m, pd, sink, ctx, sum);
    return gsvd_pdist_run_matrix(j->x, j->n, j->m, pd, sink, ctx, sum);
}

/* Under mpirun a failure on rank 0 ends the run (the others may wait in a send), its staged
 * output (*staged, when given) removed first; otherwise
 * every rank learns the joint verdict, and the others wait for rank 0's verdict on what it
 * does next (its closing gsvd_comm_agree).  1: go on (this process writes), 0: done with
 * *rc. */
static int bands_done(gsvd_comm *world, int *rc, gsvd_pdist_store **staged)
{
    if (gsvd_comm_size(world) > 1) {
        if (*rc < 0 && gsvd_comm_rank(world) == 0) {
            if (staged) { /* nothing is left behind: the abort ends the process */
                gsvd_pdist_store_close(*staged);
                *staged = NULL;
            }
            gsvd_comm_abort(world, 1);
        }
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
                     const char *output, int part, struct gsvd_pdist_summary *sum, gsvd_result **gr)
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
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    gsvd_king_pairs *kp = NULL;
    gsvd_comm *world = lib_world();
    int rc = GSVD_OK;

    if (part && cfg.wp.zarr_format == 3)
        return lib_fail(GSVD_EINVAL, "pdist: parts are Zarr v2 (\"zarr-format\" 2)");
    if (!output && run->opt->pairs_fn) {
        cfg.emit = emit_pairs;
        cfg.emit_ctx = run;
    }
    if (gsvd_comm_rank(world) == 0)
        rc = gsvd_king_pairs_open(&cfg, &kp);
    if (rc == GSVD_OK && cfg.emit && gsvd_comm_rank(world) == 0)
        rc = emit_pairs(run, NULL, 0); /* the list starts */
    if (gsvd_comm_size(world) > 1)
        rc = gsvd_comm_agree(world, rc, NULL);
    if (rc < 0)
        goto out;
    if (!pd->memory)
        pd->memory = PAIRS_DEFAULT_MEMORY;
    rc = engine(j, pd, gsvd_comm_rank(world) == 0 ? gsvd_king_pairs_band : NULL, kp, sum);
    if (!bands_done(world, &rc, NULL))
        goto out;
    rc = attrs_of(run, pd, sum, &attrs);
    if (rc == GSVD_OK && attrs.len > 2) { /* the threshold before the closing brace */
        attrs.len -= 2;
        attrs.data[attrs.len] = '\0';
        rc = gsvd_buf_printf(&attrs, ",\n    \"min_kinship\": %.17g\n}", o->min_kinship);
    }
    if (rc == GSVD_OK && output) {
        struct gsvd_buf with_count = GSVD_BUF_INIT;
        rc = gsvd_king_pairs_finish(kp, attrs.data);
        /* written: the result holds the attributes (the summary's numbers) */
        if (rc == GSVD_OK)
            rc = gsvd_king_pairs_attrs(attrs.data, gsvd_king_pairs_count(kp), &with_count);
        if (rc == GSVD_OK)
            rc = gsvd_result_new(gr);
        if (rc == GSVD_OK)
            rc = gsvd_result_set_attrs(*gr, with_count.data, GSVD_RESULT_ATTRS_LAST);
        gsvd_buf_free(&with_count);
    } else if (rc == GSVD_OK) {
        rc = gsvd_king_pairs_build(kp, attrs.data, gr);
    }
    if (gsvd_comm_size(world) > 1)
        rc = gsvd_comm_agree(world, rc, NULL);
out:
    gsvd_buf_free(&attrs);
    gsvd_king_pairs_close(kp);
    return rc;
}

/* The store settings every output of the run shares: what the distances are and where they
 * come from (the caller sets where they go). */
static struct gsvd_pdist_store_cfg
store_cfg(const struct lib_run *run, const struct gsvd_pdist_params *pd, const struct job *j)
{
    const struct lib_pdist_opts *o = &run->opt->u.pdist;
    struct gsvd_pdist_store_cfg cfg = {.f4 = o->f4,
                                       .counts = o->counts,
                                       .axis = o->axis_variants ? "variants" : "samples",
                                       .ids = j->ids,
                                       .n = j->n,
                                       .threads = pd->n_threads,
                                       .memory = pd->memory};
    return cfg;
}

/* The distances: streamed to the destination, or gathered in memory. */
static int run_job(struct lib_run *run, struct gsvd_pdist_params *pd, const struct job *j,
                   const char *output, int part, struct gsvd_pdist_summary *sum, gsvd_result **gr)
{
    const struct lib_pdist_opts *o = &run->opt->u.pdist;
    struct gsvd_pdist_store_cfg cfg = store_cfg(run, pd, j);
    struct mem_sink ms = {.n = j->n, .fn = run->opt->rows_fn, .user = run->opt->rows_user};
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    gsvd_pdist_store *st = NULL;
    gsvd_comm *world = lib_world();
    int rc = GSVD_OK, me = gsvd_comm_rank(world);
    uint64_t nn = (uint64_t)j->n * j->n;

    cfg.output = output;
    cfg.force = (run->dest && run->dest->force) || part;
    cfg.part = part;
    cfg.condensed = o->condensed;

    if ((run->opt->matrix_fn || (!output && !ms.fn)) && nn > SIZE_MAX / sizeof(double)) {
        rc = lib_fail(GSVD_ENOMEM, "pdist: %zu x %zu distances do not fit in memory", j->n, j->n);
        goto out;
    }
    if (run->opt->matrix_fn) { /* the mirror of the square matrix, counted as the sink's */
        pd->sink_bytes += nn * sizeof(double);
        if (me == 0 && !(ms.full = gsvd_malloc((size_t)(nn ? nn : 1) * sizeof *ms.full))) {
            rc = GSVD_ENOMEM;
            goto out;
        }
    }
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
        pd->sink_bytes += gsvd_pdist_store_bytes(st);
        ms.st = st;
        rc = engine(j, pd, me == 0 ? mem_band : NULL, &ms, sum);
    } else {
        if (!ms.fn && !ms.full) {
            ms.dist = gsvd_malloc((size_t)(nn ? nn : 1) * sizeof *ms.dist);
            ms.nsites = gsvd_malloc((size_t)(nn ? nn : 1) * sizeof *ms.nsites);
            if (!ms.dist || !ms.nsites) {
                rc = GSVD_ENOMEM;
                goto out;
            }
        }
        rc = engine(j, pd, me == 0 ? mem_band : NULL, &ms, sum);
    }
    if (!bands_done(world, &rc, &st))
        goto out;
    gsvd_log_debug("pdist: %zu items, %llu features, %s kernel on %s, %llu missing values", sum->n,
                   (unsigned long long)sum->m, sum->kernel ? sum->kernel : "none",
                   sum->device ? sum->device : "cpu", (unsigned long long)sum->n_missing);
    /* from here on the others wait for rank 0's verdict: no early exit */
    rc = attrs_of(run, pd, sum, &attrs);
    if (rc == GSVD_OK && output) {
        rc = gsvd_pdist_store_finish(st, attrs.data, sum->n_missing);
        if (rc == GSVD_OK)
            rc = gsvd_result_new(gr);
        if (rc == GSVD_OK)
            rc = gsvd_result_set_attrs(*gr, attrs.data, GSVD_RESULT_ATTRS_LAST);
    } else if (rc == GSVD_OK && !ms.dist) { /* the callbacks had the distances */
        rc = gsvd_result_new(gr);
        if (rc == GSVD_OK)
            rc = gsvd_result_set_attrs(*gr, attrs.data, GSVD_RESULT_ATTRS_LAST);
    } else if (rc == GSVD_OK) {
        rc = gsvd_pdist_store_build(&cfg, attrs.data, sum->n_missing, ms.dist, ms.nsites, gr);
        ms.dist = NULL;
        ms.nsites = NULL;
    }
    if (rc == GSVD_OK && ms.full)
        rc = matrix_rows(run, &ms);
    if (gsvd_comm_size(world) > 1) /* the others learn how it went */
        rc = gsvd_comm_agree(world, rc, NULL);
out:
    gsvd_free(ms.dist);
    gsvd_free(ms.nsites);
    gsvd_free(ms.full);
    gsvd_buf_free(&attrs);
    gsvd_pdist_store_close(st);
    return rc;
}

/* Under MPI, a local square destination of Zarr format 2 without callbacks is written in
 * parts: every process writes its own pairs (the bands are never sent) into
 * OUT.gensvd-parts/part-R-of-N.zarr and rank 0 gathers the parts into OUT. */
static int rank_parts_wanted(const struct lib_run *run, const struct job *j)
{
    const struct lib_pdist_opts *o = &run->opt->u.pdist;
    return gsvd_comm_size(lib_world()) > 1 && run->dest && !strstr(run->dest->url, "://") &&
           !o->condensed && isnan(o->min_kinship) && !o->pd.n_parts && !run->opt->rows_fn &&
           !run->opt->matrix_fn && lib_dest_params(run->dest, j->input_format).zarr_format != 3;
}

/* The distributed run in parts (rank_parts_wanted).  The processes agree on every step; a
 * failure removes the parts (rank 0). */
static int run_rank_parts(struct lib_run *run, struct gsvd_pdist_params *pd, const struct job *j,
                          struct gsvd_pdist_summary *sum)
{
    const char *output = run->dest->url;
    gsvd_comm *world = lib_world();
    int me = gsvd_comm_rank(world), size = gsvd_comm_size(world), force = run->dest->force;
    struct gsvd_pdist_store_cfg cfg = store_cfg(run, pd, j);
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    gsvd_pdist_store *st = NULL;
    char *part = NULL;
    int rc = me == 0 ? gsvd_pdist_parts_discard(output) : GSVD_OK; /* a fresh directory */

    cfg.force = 1;
    cfg.part = 1;
    cfg.wp = lib_dest_params(run->dest, j->input_format);
    rc = gsvd_comm_agree(world, rc, NULL);
    if (rc < 0)
        return rc;
    pd->part = (size_t)me + 1;
    pd->n_parts = (size_t)size;
    pd->comm = NULL; /* each process computes its part alone */
    if (!(part = gsvd_pdist_parts_path(output, pd->part, pd->n_parts)))
        rc = GSVD_ENOMEM;
    cfg.output = part;
    if (rc == GSVD_OK)
        rc = gsvd_pdist_parts_prepare(output);
    if (rc == GSVD_OK)
        rc = gsvd_pdist_store_open(&cfg, &st);
    rc = gsvd_comm_agree(world, rc, NULL);
    if (rc == GSVD_OK) {
        pd->row_align = gsvd_pdist_store_row_align(st);
        pd->sink_bytes += gsvd_pdist_store_bytes(st);
        rc = engine(j, pd, gsvd_pdist_store_band, st, sum);
    }
    if (rc == GSVD_OK)
        rc = attrs_of(run, pd, sum, &attrs);
    if (rc == GSVD_OK)
        rc = gsvd_pdist_store_finish(st, attrs.data, sum->n_missing);
    rc = gsvd_comm_agree(world, rc, NULL); /* every part committed, or none kept */
    if (rc == GSVD_OK) {
        if (me == 0)
            rc = gsvd_pdist_parts_finalize(output, force);
        if (rc < 0 && me == 0 && gsvd_pdist_parts_discard(output) < 0)
            gsvd_log_warn("%s.gensvd-parts is left behind", output);
        rc = gsvd_comm_agree(world, rc, NULL); /* how the gathering went */
    } else if (me == 0 && gsvd_pdist_parts_discard(output) < 0) {
        gsvd_log_warn("%s.gensvd-parts is left behind", output);
    }
    gsvd_buf_free(&attrs);
    gsvd_pdist_store_close(st);
    gsvd_free(part);
    return rc;
}

/* pdist --finalize OUT: the job array's parts gathered into OUT. */
static int run_finalize(struct lib_run *run)
{
    const char *out = run->opt->u.pdist.finalize;
    int force = run->dest ? run->dest->force : 0;
    int rc = gsvd_pdist_parts_have_array(out, "pair_i"); /* pair-list parts, or square ones */
    gsvd_result *gr = NULL;

    /* the parts are Zarr v2 groups, gathered by renaming their chunks: no other format */
    if (run->dest && (run->dest->zarr_format == 3 || run->dest->shard[0]))
        return lib_fail(GSVD_EINVAL, "pdist: \"finalize\" gathers the parts as they are, in Zarr "
                                     "format 2 (no zarr-format 3, no shard)");
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
    if ((run->src->variant_mask_spec || lib_source_chooses_variants(run->src)) && o->axis_variants)
        return lib_fail(GSVD_EINVAL, "pdist: a variant mask (or \"var-filter\", \"chr\", a "
                                     "variant list) applies to axis samples");
    if (run->opt->matrix_fn && (o->condensed || !isnan(o->min_kinship)))
        return lib_fail(GSVD_EINVAL, "pdist: the matrix callback takes the square layout's "
                                     "distances (no layout condensed, no \"min-kinship\")");
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

/* A text source's matrix as the job: its rows the items (the engine's matrix path). */
static int text_job(const struct lib_run *run, struct gsvd_pdist_params *pd, struct job *j)
{
    const struct lib_pdist_opts *o = &run->opt->u.pdist;
    const gensvd_source *src = run->src;
    const struct gsvd_textmatrix *m = src->text;
    const char *where = lib_source_name(src);

    if (pd->metric == GSVD_PDIST_KING || pd->metric == GSVD_PDIST_IBS0 ||
        pd->metric == GSVD_PDIST_P_DISTANCE || o->haplotypes)
        return lib_fail(GSVD_EUNSUPPORTED,
                        "%s: %s needs genotype calls from a Zarr store, not "
                        "a numeric matrix",
                        where, o->haplotypes ? "\"haplotypes\"" : "this metric");
    if (src->array || src->transpose || src->var_start || src->var_stop || o->axis_variants ||
        src->variant_mask_spec || src->sample_mask_spec || src->variant_mask_n ||
        src->sample_mask_n || src->samples_set || src->keep_ids || src->remove_ids ||
        lib_source_chooses_variants(src))
        return lib_fail(GSVD_EINVAL,
                        "%s: a selection (samples, variants, array, transpose, "
                        "axis, masks) applies to genotype input",
                        where);
    if (pd->missing == GSVD_PDIST_ERROR)
        for (size_t i = 0; i < m->n_rows * m->n_cols; i++)
            if (isnan(m->values[i]))
                return lib_fail(GSVD_EFORMAT, "%s: row %zu has a missing value (--missing error)",
                                where, i / m->n_cols + 1);
    pd->ploidy = src->ploidy ? src->ploidy : 2;
    j->x = m->values;
    j->n = m->n_rows;
    j->m = m->n_cols;
    j->ids = &m->ids;
    return GSVD_OK;
}

/* The run's plan beside the result, found by name only (include/gensvd.h): n_bands, n_scans,
 * peak_bytes, n_segments, n_segments_complete, n_segments_apart (uint64 each, one element). */
static int plan_held(const struct gsvd_pdist_summary *sum, gsvd_result **out)
{
    const char *const names[] = {
        "n_bands",         "n_scans", "peak_bytes", "n_segments", "n_segments_complete",
        "n_segments_apart"};
    const uint64_t v[] = {sum->n_bands,
                          sum->n_scans,
                          sum->peak_bytes,
                          sum->n_segments,
                          sum->n_segments_complete,
                          sum->n_segments_apart};
    gsvd_result *r = NULL;
    int rc = gsvd_result_new(&r);

    for (size_t k = 0; rc == GSVD_OK && k < GSVD_ARRAY_LEN(names); k++) {
        struct gsvd_array_spec a = {.path = names[k],
                                    .ndim = 1,
                                    .shape = {1},
                                    .chunks = {1},
                                    .dtype = {'u', '<', 8},
                                    .dims = {"plan"}};
        rc = gsvd_result_add(r, &a, &v[k]);
    }
    if (rc != GSVD_OK) {
        gsvd_result_free(r);
        r = NULL;
    }
    *out = r;
    return rc;
}

/* A genotype source as the job: the samples (or their haplotypes) as the items, or with
 * "axis" "variants" the variants collected as a matrix. */
static int geno_job(const struct lib_run *run, struct gsvd_pdist_params *pd, struct job *j)
{
    const struct lib_pdist_opts *o = &run->opt->u.pdist;
    int king = pd->metric == GSVD_PDIST_KING || pd->metric == GSVD_PDIST_IBS0;
    struct gsvd_geno_params *geno = &j->sel.geno;
    int rc = GSVD_OK;

    GSVD_TRY(lib_sel_make(run->src, king, &j->sel));
    geno->scaler = GSVD_SCALER_NONE; /* raw dosages: centre 0, scale 1 */
    geno->missing_error = pd->missing == GSVD_PDIST_ERROR;
    /* p-distance and "haplotypes": one column per haplotype, the phase checked */
    geno->haplotypes = o->haplotypes || pd->metric == GSVD_PDIST_P_DISTANCE;
    geno->ignore_phase = o->ignore_phase;
    GSVD_TRY(gsvd_geno_open(run->src->tree, run->src->node, geno, &j->g));
    if (pd->metric == GSVD_PDIST_P_DISTANCE && !o->haplotypes)
        pd->hap_group = gsvd_geno_haplotypes(j->g); /* the samples are the items */
    if (king && (gsvd_geno_is_float(j->g) || gsvd_geno_ploidy(j->g) != 2))
        return lib_fail(GSVD_EUNSUPPORTED,
                        "%s: --metric %s needs diploid genotype calls (found %s, ploidy %zu)",
                        gsvd_geno_array_name(j->g), gsvd_pdist_metric_name(pd->metric),
                        gsvd_geno_is_float(j->g) ? "float dosages" : "integer calls",
                        gsvd_geno_ploidy(j->g));
    j->input_format = run->src->input_format;
    if (o->axis_variants) { /* distances between variants: the matrix path */
        size_t rows = 0;
        GSVD_TRY(gsvd_pdist_collect_variants(j->g, pd, &j->own_x, &j->own_x8, &rows, &j->idx));
        for (size_t i = 0; i < rows; i++) {
            char num[32];
            snprintf(num, sizeof num, "%llu", (unsigned long long)(geno->var_start + j->idx[i]));
            GSVD_TRY(gsvd_strlist_push(&j->own_ids, num));
        }
        j->x = j->own_x;
        j->x8 = j->own_x8;
        j->n = rows;
        j->m = gsvd_geno_n_samples(j->g);
        j->ids = &j->own_ids;
        gsvd_geno_close(j->g); /* collected: the engine runs on the matrix */
        j->g = NULL;
    } else {
        size_t hg = pd->hap_group > 1 ? pd->hap_group : 1;
        j->n = gsvd_geno_n_samples(j->g) / hg;
        j->ids = hg > 1 ? gsvd_geno_call_ids(j->g) : gsvd_geno_sample_ids(j->g);
    }
out:
    return rc;
}

int lib_run_pdist(struct lib_run *run)
{
    const struct lib_pdist_opts *o = &run->opt->u.pdist;
    struct gsvd_pdist_params pd = o->pd;
    struct job j = {.own_ids = GSVD_STRLIST_INIT};
    char *part_output = NULL;
    const char *output = run->dest ? run->dest->url : NULL;
    struct gsvd_pdist_summary sum = {0};
    gsvd_result *gr = NULL, *held = NULL;
    int rc = GSVD_OK, joined = 0;

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
    {
        /* the tests' switch to the portable popcount (docs/dev/testing.md) */
        const char *simd = getenv("GENSVD_PDIST_SIMD");
        if (simd && strcmp(simd, "scalar") == 0)
            pd.simd = GSVD_PDIST_SIMD_SCALAR;
    }
    GSVD_TRY(lib_backend(run->ctx, NULL, &pd.device)); /* first: no device, no reading */
    pd.n_threads = lib_threads(run->ctx);
    pd.progress = lib_progress(run->ctx);
    pd.comm = lib_world();
    joined = 1; /* geno_job's lib_sel_make joins the ranks' --mind */
    GSVD_TRY(run->src->text ? text_job(run, &pd, &j) : geno_job(run, &pd, &j));
    if (run->opt->items_fn &&
        run->opt->items_fn(run->opt->items_user, j.n, (const char *const *)j.ids->items) != 0) {
        rc = callback_stopped("items");
        goto out;
    }
    if (rank_parts_wanted(run, &j)) /* the result holds the plan alone: see run_rank_parts */
        GSVD_TRY(run_rank_parts(run, &pd, &j, &sum));
    else if (!isnan(o->min_kinship))
        GSVD_TRY(run_pairs(run, &pd, &j, part_output ? part_output : output, part_output != NULL,
                           &sum, &gr));
    else
        GSVD_TRY(run_job(run, &pd, &j, part_output ? part_output : output, part_output != NULL,
                         &sum, &gr));
    if (!gr) /* a rank other than 0 of a distributed run: no result of its own */
        GSVD_TRY(gsvd_result_new(&gr));
    GSVD_TRY(plan_held(&sum, &held));
    rc = lib_result_new(run->ctx, GENSVD_PDIST, gr, j.input_format, &run->out);
    gr = NULL;
    if (rc == GSVD_OK) {
        run->out->held = held;
        held = NULL;
    }
out:
    if (!joined && !run->src->text) /* failed before: the others may be counting --mind */
        rc = lib_sel_join(run->src, rc);
    gsvd_result_free(held);
    gsvd_result_free(gr);
    gsvd_backend_destroy(pd.device);
    job_free(&j);
    gsvd_free(part_output);
    return rc;
}
