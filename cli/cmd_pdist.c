/* cli/cmd_pdist.c - `gensvd pdist`: pairwise distances between samples, as a Zarr group or a
 * square TSV matrix. */
#include "gsvd_config.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/scan/genotype.h"
#include "analysis/pdist/king_pairs.h"
#include "analysis/pdist/king_parts.h"
#include "analysis/pdist/pdist.h"
#include "analysis/pdist/pdist_parts.h"
#include "analysis/pdist/pdist_store.h"
#include "cli/cli.h"
#include "cli/cli_mask.h"
#include "cli/opts_input.h"
#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "common/textmatrix.h"
#include "zarr/codec.h"
#include "zarr/meta.h"
#include "zarr/writer.h"

/* --min-kinship without --memory: the bands' working set */
#define PDIST_PAIRS_DEFAULT_MEMORY ((uint64_t)1 << 30)

struct pdist_opts {
    const char *input, *output, *format, *samples_file, *device, *finalize;
    char *part_output; /* --part: OUT.gensvd-parts/part-I-of-N.zarr (owned) */
    int rank_parts;    /* under MPI with a square Zarr output on a local or shared path: each
                          rank writes its own part and rank 0 finalizes (pdist/pdist_parts.h) */
    int force, counts, axis_variants, condensed, f4;
    int all_contigs;     /* --all-contigs: KING on X, Y and MT too (analysis/scan/autosomes.h) */
    int haplotypes;      /* --haplotypes: each haplotype an item */
    int min_kinship_set; /* --min-kinship: a pair list (analysis/pdist/king_pairs.h) */
    double min_kinship;  /* NaN: not given */
    struct gsvd_pdist_params pd;
    struct gsvd_geno_params geno;
    char *command;
    struct gsvd_cli_zarr_out zout;          /* --zarr-format, --shard */
    int input_format;                       /* 3 for a v3 input store: the default output format */
    const char *variant_mask, *sample_mask; /* STORE[/ARRAY] */
    struct gsvd_cli_common common;
};

static const char *const missing_names[] = {"pairwise", "scale", "error", NULL};
static const char *const axis_names[] = {"samples", "variants", NULL};
static const char *const layout_names[] = {"square", "condensed", NULL};
static const char *const kernel_names[] = {"auto", "bitplane", "gram", "generic", NULL};

static int parse_metric(const char *cmd, const char *arg, void *field)
{
    enum gsvd_pdist_metric m;
    if (gsvd_pdist_metric_parse(arg, &m) < 0)
        return gsvd_cli_usage_error(cmd, "invalid --metric '%s' (%s)", arg,
                                    gsvd_pdist_metric_list());
    memcpy(field, &m, sizeof m);
    return 0;
}

/* The --metric names gsvd_pdist_metric_parse accepts (gsvd_pdist_metric_list), for completion;
 * tests/cli/test_install.sh checks them against that list. */
static const char *const metric_names[] = {"euclidean", "sqeuclidean", "cityblock",   "minkowski",
                                           "chebyshev", "cosine",      "correlation", "hamming",
                                           "jaccard",   "braycurtis",  "canberra",    "ibs",
                                           "king",      "ibs0",        "p-distance",  NULL};
static const char *const dtype_names[] = {"f8", "f4", NULL}; /* offered; aliases accepted too */

static int parse_dtype(const char *cmd, const char *arg, void *field)
{
    static const char *const names[] = {"f8", "f4", "float64", "float32", NULL};
    int k = gsvd_cli_parse_choice(arg, names);
    if (k < 0)
        return gsvd_cli_usage_error(cmd, "invalid --dtype '%s' (f8, f4)", arg);
    k %= 2;
    memcpy(field, &k, sizeof k);
    return 0;
}

/* --part I/N into pd.part and pd.n_parts (adjacent size_t fields). */
_Static_assert(offsetof(struct gsvd_pdist_params, n_parts) ==
                   offsetof(struct gsvd_pdist_params, part) + sizeof(size_t),
               "--part writes part and n_parts as one size_t[2]");
static int parse_part(const char *cmd, const char *arg, void *field)
{
    size_t v[2] = {0, 0};
    int end = 0;
    if (sscanf(arg, "%zu/%zu%n", &v[0], &v[1], &end) != 2 || arg[end] != '\0' || v[0] < 1 ||
        v[1] < 1 || v[0] > v[1] || v[1] > 100000)
        return gsvd_cli_usage_error(cmd, "invalid --part '%s' (I/N, 1 <= I <= N)", arg);
    memcpy(field, v, sizeof v);
    return 0;
}

#define PD(field) GSVD_OPT_FIELD(struct pdist_opts, field)
static const struct gsvd_opt pdist_options[] = {
    {.name = "metric",
     .key = 'm',
     .type = GSVD_OPT_CALL,
     PD(pd.metric),
     .arg = "NAME",
     .parse = parse_metric,
     .choices = metric_names,
     .help = "euclidean, sqeuclidean, cityblock, minkowski, chebyshev,\ncosine, correlation, "
             "hamming, jaccard, braycurtis, canberra,\nibs (PLINK 1.9 1-ibs: sum |g_i - g_j| / "
             "(ploidy n_ij)),\nking (KING-robust kinship, plink2 --make-king: a similarity,\n0.5 "
             "on the diagonal; diploid calls only) or ibs0 (fraction\nof jointly called sites "
             "with opposite homozygotes), p-distance (VCF2Dis's: the\nfraction of differing "
             "haplotypes, h against h, over the\nsites called in both; phased calls)\n"
             "[euclidean]"},
    {.name = "haplotypes",
     .type = GSVD_OPT_FLAG,
     PD(haplotypes),
     .value = 1,
     .help = "each haplotype of the phased calls is an item (ID_0, ID_1,\n...; values 1 "
             "for a non-reference allele, 0 for the\nreference), with any metric but king "
             "and ibs0"},
    {.name = "ignore-phase",
     .type = GSVD_OPT_FLAG,
     PD(geno.ignore_phase),
     .value = 1,
     .help = "with p-distance or --haplotypes: take each call's alleles\nin their stored order "
             "(else an unphased heterozygous call,\nor no call_genotype_phased, is an error)"},
    {.name = "min-kinship",
     .type = GSVD_OPT_DOUBLE,
     PD(min_kinship),
     .arg = "X",
     .dlo = -1,
     .dhi = 0.5,
     .range = "a kinship in [-1, 0.5]",
     .help = "with -m king: only the pairs with kinship >= X (-1..0.5), as\na table like "
             "plink2's .kin0 (#ID1 ID2 NSNP HETHET IBS0\nKINSHIP; --counts: counts and HET1_HOM2 "
             "HET2_HOM1) or, with\n-o, Zarr arrays along \"pairs\" (pair_i, pair_j, kinship,\n"
             "n_sites, hethet, ibs0, het1_hom2, het2_hom1); bands of\n--memory [1G], never the "
             "N x N matrix"},
    {.name = "all-contigs",
     .type = GSVD_OPT_FLAG,
     PD(all_contigs),
     .value = 1,
     .help = "with -m king or ibs0: count every contig; by default, as\nplink2's --make-king, "
             "variants on X, Y and MT (by contig_id:\nX, 23, Y, 24, MT, M, 26, with or without "
             "chr) are left out"},
    {.name = "p",
     .key = 'p',
     .type = GSVD_OPT_DOUBLE,
     PD(pd.p),
     .arg = "X",
     .dlo = 1e-300,
     .dhi = 1e300,
     .range = "a number > 0",
     .help = "minkowski order (> 0) [2]"},
    {.name = "missing",
     .type = GSVD_OPT_CHOICE,
     PD(pd.missing),
     .arg = "MODE",
     .choices = missing_names,
     .help = "pairwise: only sites called in both samples (NaN when none);\nscale: also "
             "multiply additive metrics by M / n_ij (PLINK\nflat-missing); error: fail on a "
             "missing call [pairwise]"},
    {.name = "axis",
     .type = GSVD_OPT_CHOICE,
     PD(axis_variants),
     .arg = "AXIS",
     .choices = axis_names,
     .help = "samples: distances between samples; variants: between\nvariants (features are "
             "then the samples) [samples]"},
    GSVD_OPT_OUTPUT(struct pdist_opts, "Zarr group: distance (N x N f8), n_sites (uint32, when "
                                       "there\nare missing calls or with --counts), sample_id\n"
                                       "(variant_index with --axis variants)"),
    GSVD_OPT_FORCE(struct pdist_opts),
};
static const struct gsvd_opt layout_options[] = {
    {.name = "counts",
     .type = GSVD_OPT_FLAG,
     PD(counts),
     .value = 1,
     .help = "always write n_sites"},
    {.name = "layout",
     .type = GSVD_OPT_CHOICE,
     PD(condensed),
     .arg = "L",
     .choices = layout_names,
     .help = "square (N x N) or condensed (scipy's 1-D upper triangle;\nwith --format tsv: one "
             "line per pair) [square]"},
    {.name = "dtype",
     .type = GSVD_OPT_CALL,
     PD(f4),
     .arg = "T",
     .parse = parse_dtype,
     .choices = dtype_names,
     .help = "f8 or f4 for the distance array [f8]"},
    GSVD_OPT_FORMAT_TSV(struct pdist_opts, "the matrix on stdout (default without -o)"),
    {.name = "memory",
     .type = GSVD_OPT_BYTES,
     PD(pd.memory),
     .arg = "SIZE",
     .lo = 1,
     .range = "e.g. 2G",
     .help = "cap the working set (e.g. 2G): pairs are computed in bands\nof rows, one pass "
             "over the input per band, and written as\nthey finish [no cap]"},
    {.name = "kernel",
     .type = GSVD_OPT_CHOICE,
     PD(pd.kernel),
     .arg = "K",
     .choices = kernel_names,
     .help = "auto, bitplane, gram or generic (for tests) [auto]"},
    {.name = "device",
     .key = 'd',
     .type = GSVD_OPT_CALL,
     PD(device),
     .arg = "DEV",
     .parse = gsvd_opt_parse_device,
     .choices = gsvd_opt_device_names,
     .help = "auto, cpu or gpu [auto]\n(gpu: bit-plane counts and float64 sums on the device,\n"
             "identical results; the gram kernel stays on the CPU)"},
    {.name = "part",
     .type = GSVD_OPT_CALL,
     PD(pd.part),
     .arg = "I/N",
     .parse = parse_part,
     .help = "compute only part I of N of the pairs (a job array without\nMPI) into "
             "OUT.gensvd-parts/ (needs -o OUT, a local or shared\npath, and the square layout "
             "or --min-kinship); start every\npart with the same input and options (an existing "
             "OUT:\n--force, here and at --finalize)"},
    {.name = "finalize",
     .type = GSVD_OPT_STRING,
     PD(finalize),
     .arg = "OUT",
     .flags = GSVD_OPTF_FILE,
     .help = "gather the N parts into OUT once all are done (no INPUT)"},
};
static const struct gsvd_opt input_options[] = {
    GSVD_OPT_IN_ARRAY(struct pdist_opts),       GSVD_OPT_IN_TRANSPOSE(struct pdist_opts),
    GSVD_OPT_IN_PLOIDY(struct pdist_opts),      GSVD_OPT_IN_VARIANTS(struct pdist_opts),
    GSVD_OPT_IN_SAMPLES(struct pdist_opts),     GSVD_OPT_IN_VARIANT_MASK(struct pdist_opts),
    GSVD_OPT_IN_SAMPLE_MASK(struct pdist_opts),
};
static const struct gsvd_opt_group pdist_group = GSVD_OPT_GROUP(NULL, pdist_options);
static const struct gsvd_opt_group layout_group = GSVD_OPT_GROUP(NULL, layout_options);
static const struct gsvd_opt_group input_group = GSVD_OPT_GROUP(NULL, input_options);
static const struct gsvd_opt_bind pdist_groups[] = {
    {&pdist_group, 0},
    {&gsvd_opts_zarr_out, offsetof(struct pdist_opts, zout)},
    {&layout_group, 0},
    {&input_group, 0},
    GSVD_OPTS_BIND_COMMON(struct pdist_opts),
};
const struct gsvd_cmd_spec gsvd_cmd_pdist_spec = {
    .name = "pdist",
    .intro = "Usage: gensvd pdist [options] INPUT\n"
             "Pairwise distances between the samples (or variants) of the genotype matrix in "
             "INPUT (a VCF-Zarr\nstore, a scikit-allel layout, or a 2-D dosage array named with "
             "--array), with\nscipy's definitions; on data without missing calls the values "
             "equal\nscipy.spatial.distance.pdist on the dosage matrix (samples x variants).\n"
             "INPUT may also be a TSV/CSV numeric matrix (a file, or '-' / no INPUT for standard"
             "\ninput): one row per item, optional header line and ID column, empty / nan / NA\n"
             "missing; e.g. gensvd pca X --format tsv | gensvd pdist\n",
    .groups = pdist_groups,
    .n_groups = GSVD_ARRAY_LEN(pdist_groups),
    .opts_size = sizeof(struct pdist_opts),
    .footer = "Exit status: 0 success, 1 failure, 2 usage error, 3 device or feature "
              "unavailable.\n",
};

/* Root attributes of the Zarr output. */
static int make_attrs(const struct pdist_opts *o, const struct gsvd_pdist_summary *sum,
                      struct gsvd_buf *attrs)
{
    struct gsvd_pdist_attrs a = {.command = o->command,
                                 .pd = &o->pd,
                                 .axis_variants = o->axis_variants,
                                 .condensed = o->condensed,
                                 .sum = sum};
    return gsvd_pdist_store_attrs(&a, attrs);
}

/* Output set-up, the run (through `fn`), and the finish, common to every input kind. */
struct pdist_job {
    gsvd_geno *g;     /* genotype input, or */
    const double *x;  /* a matrix (n x m), or */
    const int8_t *x8; /* an int8 matrix (n x m) */
    size_t n, m;
    const struct gsvd_strlist *ids;
};

/* The engine settings every output path shares: threads, the progress bar, the communicator. */
static void run_setup(struct pdist_opts *o, const struct gsvd_cli_common *common,
                      struct gsvd_cli_bar *bar, gsvd_comm *comm, const char *unit)
{
    o->pd.n_threads = common->threads;
    o->pd.progress = gsvd_cli_progress(bar, unit, common->progress);
    o->pd.comm = comm;
}

/* The summary's last line (rank 0): the output (Zarr, a part) and/or `what` on stdout. */
static void report_done(const char *output, const char *what)
{
    char where[1024];

    if (gsvd_comm_rank(gsvd_cli_world()) != 0)
        return;
    if (output && what)
        snprintf(where, sizeof where, "%s and %s to standard output", output, what);
    else if (output)
        snprintf(where, sizeof where, "%s", output);
    else
        snprintf(where, sizeof where, "%s to standard output", what ? what : "the output");
    gsvd_cli_done(where);
}

/* The bands are done and *rc is this rank's verdict.  Under mpirun a failure on rank 0 ends the
 * run, since the others may wait in a send, after discard(ctx) has dropped its output;
 * otherwise every rank learns the joint verdict, and the ranks other than 0 wait for rank 0's
 * commit.  Returns 1 when the caller goes on to write the output (*rc GSVD_OK: one process, or
 * rank 0), 0 when it is done with *rc. */
static int bands_done(gsvd_comm *world, int *rc, void (*discard)(void *ctx), void *ctx)
{
    int me = gsvd_comm_rank(world);

    if (gsvd_comm_size(world) > 1) {
        if (*rc < 0 && me == 0) {
            discard(ctx);
            gsvd_comm_abort(world, GSVD_EXIT_FAIL);
        }
        *rc = gsvd_comm_agree(world, *rc, NULL);
        if (*rc < 0 || me != 0) {
            if (*rc == GSVD_OK) /* rank 0's commit */
                *rc = gsvd_comm_agree(world, GSVD_OK, NULL);
            return 0;
        }
    }
    return *rc == GSVD_OK;
}

static void discard_pairs(void *ctx)
{
    gsvd_king_pairs **kp = ctx;
    gsvd_king_pairs_close(*kp);
    *kp = NULL;
}

static void discard_store(void *ctx)
{
    gsvd_pdist_store **out = ctx;
    gsvd_pdist_store_close(*out);
    *out = NULL;
}

/* --min-kinship: the engine's bands to the pair list.  Under mpirun every rank computes its
 * bands and rank 0 alone opens, fills and commits the list (as run_job does for rank 0's
 * output): a failure on rank 0 ends the run, any other is agreed on. */
static int run_pairs(struct pdist_opts *o, const struct gsvd_cli_common *common,
                     struct pdist_job *job)
{
    struct gsvd_king_pairs_cfg cfg = {.output = o->part_output ? o->part_output : o->output,
                                      .tsv = stdout,
                                      .force = o->force || o->part_output,
                                      .part = o->part_output != NULL,
                                      .counts = o->counts,
                                      .min_kinship = o->min_kinship,
                                      .ids = job->ids,
                                      .n = job->n,
                                      .wp = gsvd_cli_zarr_out_params(&o->zout, o->input_format)};
    gsvd_king_pairs *kp = NULL;
    struct gsvd_pdist_summary sum = {0};
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    struct gsvd_cli_bar bar;
    gsvd_comm *world = gsvd_cli_world();
    int rc = GSVD_OK, me = gsvd_comm_rank(world), many = gsvd_comm_size(world) > 1;

    /* parts are Zarr v2 groups (analysis/pdist/king_parts.c reads them back) */
    if (o->part_output && cfg.wp.zarr_format == 3) {
        gsvd_log_error("--part writes Zarr v2 parts; add --zarr-format 2");
        return GSVD_EINVAL;
    }
    if (me == 0)
        rc = gsvd_king_pairs_open(&cfg, &kp);
    if (many)
        rc = gsvd_comm_agree(world, rc, NULL);
    if (rc < 0)
        goto out;
    run_setup(o, common, &bar, world, "variants");
    if (!o->pd.memory)
        o->pd.memory = PDIST_PAIRS_DEFAULT_MEMORY;
    rc = gsvd_pdist_run(job->g, &o->pd, me == 0 ? gsvd_king_pairs_band : NULL, kp, &sum);
    if (!bands_done(world, &rc, discard_pairs, &kp))
        goto out;
    gsvd_cli_note("%zu samples, %llu variants, king: %llu pairs with kinship >= %g", sum.n,
                  (unsigned long long)sum.m, (unsigned long long)gsvd_king_pairs_count(kp),
                  o->min_kinship);
    /* from here on the others wait for rank 0's verdict: no early exit */
    rc = make_attrs(o, &sum, &attrs);
    /* the pair list's threshold before the closing brace (the sink adds the count) */
    if (rc == GSVD_OK && attrs.len > 2) {
        attrs.len -= 2;
        attrs.data[attrs.len] = '\0';
        rc = gsvd_buf_printf(&attrs, ",\n    \"min_kinship\": %.17g\n}", o->min_kinship);
    }
    if (rc == GSVD_OK)
        rc = gsvd_king_pairs_finish(kp, attrs.data);
    if (many) /* the others learn how the commit went */
        rc = gsvd_comm_agree(world, rc, NULL);
    if (rc == GSVD_OK)
        report_done(cfg.output, cfg.output ? NULL : "the pairs");
out:
    gsvd_buf_free(&attrs);
    gsvd_king_pairs_close(kp);
    return rc;
}

static int run_job(struct pdist_opts *o, const struct gsvd_cli_common *common,
                   struct pdist_job *job)
{
    struct gsvd_pdist_store_cfg cfg = {.output = o->part_output ? o->part_output : o->output,
                                       .force = o->force || o->part_output,
                                       .part = o->part_output != NULL,
                                       .tsv = o->format || !o->output ? stdout : NULL,
                                       .condensed = o->condensed,
                                       .f4 = o->f4,
                                       .counts = o->counts,
                                       .axis = o->axis_variants ? "variants" : "samples",
                                       .ids = job->ids,
                                       .n = job->n,
                                       .threads = common->threads,
                                       .memory = o->pd.memory,
                                       .wp = gsvd_cli_zarr_out_params(&o->zout, o->input_format)};
    gsvd_pdist_store *out = NULL;
    struct gsvd_pdist_summary sum = {0};
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    struct gsvd_cli_bar bar;
    gsvd_comm *world = gsvd_cli_world();
    int rc = GSVD_OK, me = gsvd_comm_rank(world);
    gsvd_pdist_sink_fn sink;

    /* parts are Zarr v2 groups (analysis/pdist/pdist_parts.c reads their .zarray documents) */
    if (o->part_output && cfg.wp.zarr_format == 3) {
        if (!o->rank_parts) {
            gsvd_log_error("--part writes Zarr v2 parts; add --zarr-format 2");
            return GSVD_EINVAL;
        }
        /* a distributed v3 output: rank 0 writes it all (same decision on every rank) */
        o->rank_parts = 0;
        o->pd.part = o->pd.n_parts = 0;
        cfg.output = o->output;
        cfg.force = o->force;
        cfg.part = 0;
        if (me == 0 && gsvd_pdist_parts_discard(o->output) < 0)
            gsvd_log_warn("%s.gensvd-parts is left behind", o->output);
    }
    sink = me == 0 || o->rank_parts ? gsvd_pdist_store_band : NULL;

    /* a distributed run: each rank writes its part (rank_parts), or rank 0 writes everything
     * and the others need only the sizes that shape the bands */
    cfg.plan_only = me != 0 && !o->rank_parts;
    rc = gsvd_pdist_store_open(&cfg, &out);
    if (world)
        rc = gsvd_comm_agree(world, rc, NULL);
    if (rc < 0)
        goto out;
    o->pd.row_align = gsvd_pdist_store_row_align(out);
    o->pd.sink_bytes = gsvd_pdist_store_bytes(out);
    /* what each row of the matrix is compared over */
    run_setup(o, common, &bar, o->rank_parts ? NULL : world,
              o->axis_variants ? "samples"
              : job->g         ? "variants"
                               : "columns");
    if (job->g)
        rc = gsvd_pdist_run(job->g, &o->pd, sink, out, &sum);
    else if (job->x8)
        rc = gsvd_pdist_run_matrix_i8(job->x8, job->n, job->m, &o->pd, sink, out, &sum);
    else
        rc = gsvd_pdist_run_matrix(job->x, job->n, job->m, &o->pd, sink, out, &sum);
    if (o->rank_parts) {
        /* every rank commits its part; once all succeeded, rank 0 gathers them into OUT */
        if (rc == GSVD_OK)
            rc = make_attrs(o, &sum, &attrs);
        if (rc == GSVD_OK)
            rc = gsvd_pdist_store_finish(out, attrs.data, sum.n_missing);
        rc = gsvd_comm_agree(world, rc, NULL); /* the same verdict on every rank */
        if (rc < 0) {
            if (me == 0 && gsvd_pdist_parts_discard(o->output) < 0)
                gsvd_log_warn("%s.gensvd-parts is left behind", o->output);
            goto out;
        }
        if (me == 0) {
            rc = gsvd_pdist_parts_finalize(o->output, o->force);
            if (rc < 0 && gsvd_pdist_parts_discard(o->output) < 0)
                gsvd_log_warn("%s.gensvd-parts is left behind", o->output);
        }
        rc = gsvd_comm_agree(world, rc, NULL); /* how the finalize went */
        if (rc == GSVD_OK)
            report_done(o->output, NULL);
        goto out;
    }
    /* every rank finished its bands (or failed and told rank 0, which then ends the run) */
    if (!bands_done(world, &rc, discard_store, &out))
        goto out;
    gsvd_cli_note("%zu %s, %llu %s, %s, %llu missing values", sum.n,
                  o->axis_variants ? "variants"
                  : job->g         ? "samples"
                                   : "rows",
                  (unsigned long long)sum.m,
                  o->axis_variants ? "samples"
                  : job->g         ? "variants"
                                   : "columns",
                  gsvd_pdist_metric_name(o->pd.metric), (unsigned long long)sum.n_missing);
    gsvd_log_info("%s kernel on %s, %zu band(s), %zu pass(es) over the input, planned working "
                  "set %.1f MB",
                  sum.kernel ? sum.kernel : "none", sum.device ? sum.device : "cpu", sum.n_bands,
                  sum.n_scans, (double)sum.peak_bytes / 1e6);
    if (sum.n_segments)
        gsvd_log_info("%llu of %llu bit-plane segments without missing calls",
                      (unsigned long long)sum.n_segments_complete,
                      (unsigned long long)sum.n_segments);
    rc = make_attrs(o, &sum, &attrs);
    if (rc == GSVD_OK)
        rc = gsvd_pdist_store_finish(out, attrs.data, sum.n_missing);
    if (world && gsvd_comm_size(world) > 1)
        rc = gsvd_comm_agree(world, rc, NULL); /* the others learn how the commit went */
    if (rc == GSVD_OK)
        report_done(cfg.output, cfg.tsv ? "the matrix" : NULL);
out:
    gsvd_buf_free(&attrs);
    gsvd_pdist_store_close(out);
    return rc;
}

/* A numeric matrix from TSV/CSV text: rows are the items. */
static int run_text(struct pdist_opts *o, const struct gsvd_cli_common *common)
{
    struct gsvd_buf text = GSVD_BUF_INIT;
    struct gsvd_textmatrix m = {0};
    const char *where = strcmp(o->input, "-") == 0 ? "standard input" : o->input;
    int rc = GSVD_OK;

    if (o->pd.metric == GSVD_PDIST_KING || o->pd.metric == GSVD_PDIST_IBS0 ||
        o->pd.metric == GSVD_PDIST_P_DISTANCE || o->haplotypes) {
        gsvd_log_error("%s: %s %s needs genotype calls from a Zarr store, not a numeric matrix",
                       where, o->haplotypes ? "--haplotypes" : "--metric",
                       o->haplotypes ? "" : gsvd_pdist_metric_name(o->pd.metric));
        return GSVD_EUNSUPPORTED;
    }
    if (o->samples_file || o->geno.var_start || o->geno.var_stop || o->geno.array ||
        o->geno.transpose || o->axis_variants || o->variant_mask || o->sample_mask) {
        gsvd_log_error("%s: --samples, --variants, --array, --transpose, --axis and the masks "
                       "apply to Zarr input",
                       where);
        return GSVD_EINVAL;
    }
    GSVD_TRY(gsvd_buf_read_file(&text, o->input));
    GSVD_TRY(gsvd_textmatrix_parse(text.data ? text.data : "", text.len, where, &m));
    if (o->pd.missing == GSVD_PDIST_ERROR)
        for (size_t i = 0; i < m.n_rows * m.n_cols; i++)
            if (isnan(m.values[i])) {
                gsvd_log_error("%s: row %zu has a missing value (--missing error)", where,
                               i / m.n_cols + 1);
                rc = GSVD_EFORMAT;
                goto out;
            }
    o->pd.ploidy = o->geno.ploidy ? o->geno.ploidy : 2;
    {
        struct pdist_job job = {.x = m.values, .n = m.n_rows, .m = m.n_cols, .ids = &m.ids};
        GSVD_TRY(run_job(o, common, &job));
    }
out:
    gsvd_textmatrix_clear(&m);
    gsvd_buf_free(&text);
    return rc;
}

/* Distances between variants: collect them, then the matrix path with their indices as IDs. */
static int run_variants(struct pdist_opts *o, const struct gsvd_cli_common *common, gsvd_geno *g)
{
    struct gsvd_strlist ids = GSVD_STRLIST_INIT;
    uint64_t *idx = NULL;
    double *x = NULL;
    int8_t *x8 = NULL;
    size_t rows = 0;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_pdist_collect_variants(g, &o->pd, &x, &x8, &rows, &idx));
    for (size_t i = 0; i < rows; i++) {
        char num[32];
        snprintf(num, sizeof num, "%llu", (unsigned long long)(o->geno.var_start + idx[i]));
        GSVD_TRY(gsvd_strlist_push(&ids, num));
    }
    {
        struct pdist_job job = {
            .x = x, .x8 = x8, .n = rows, .m = gsvd_geno_n_samples(g), .ids = &ids};
        GSVD_TRY(run_job(o, common, &job));
    }
out:
    gsvd_free(idx);
    gsvd_free(x);
    gsvd_free(x8);
    gsvd_strlist_free(&ids);
    return rc;
}

static int run(struct pdist_opts *o, const struct gsvd_cli_common *common)
{
    struct gsvd_cli_input in = {0};
    struct gsvd_strlist samples = GSVD_STRLIST_INIT;
    struct gsvd_mask vmask = {0}, smask = {0};
    struct gsvd_autosomes au = {0};
    gsvd_geno *g = NULL;
    int rc = GSVD_OK;

    if (o->samples_file) {
        GSVD_TRY(gsvd_cli_read_ids(o->samples_file, &samples));
        o->geno.samples = &samples;
    }
    GSVD_TRY(gsvd_cli_open_input(o->input, NULL, &in));
    o->input_format = gsvd_tree_format(in.tree);
    if (o->output)
        GSVD_TRY(gsvd_cli_zarr_out_check_input("pdist", &o->zout, o->input_format));
    o->geno.n_threads = common->threads;
    o->geno.scaler = GSVD_SCALER_NONE; /* raw dosages: centre 0, scale 1 */
    o->geno.missing_error = o->pd.missing == GSVD_PDIST_ERROR;
    GSVD_TRY(
        gsvd_cli_masks_apply(o->variant_mask, o->sample_mask, &vmask, &smask, &samples, &o->geno));
    if (o->pd.metric == GSVD_PDIST_KING || o->pd.metric == GSVD_PDIST_IBS0)
        GSVD_TRY(gsvd_autosomes_apply(in.tree, in.node, o->all_contigs, &au, &o->geno));
    o->geno.haplotypes = o->haplotypes || o->pd.metric == GSVD_PDIST_P_DISTANCE;
    GSVD_TRY(gsvd_geno_open(in.tree, in.node, &o->geno, &g));
    if (o->pd.metric == GSVD_PDIST_P_DISTANCE && !o->haplotypes)
        o->pd.hap_group = gsvd_geno_haplotypes(g); /* the samples are the items */
    if ((o->pd.metric == GSVD_PDIST_KING || o->pd.metric == GSVD_PDIST_IBS0) &&
        (gsvd_geno_is_float(g) || gsvd_geno_ploidy(g) != 2)) {
        gsvd_log_error("%s: --metric %s needs diploid genotype calls (found %s, ploidy %zu)",
                       gsvd_geno_array_name(g), gsvd_pdist_metric_name(o->pd.metric),
                       gsvd_geno_is_float(g) ? "float dosages" : "integer calls",
                       gsvd_geno_ploidy(g));
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    if (o->min_kinship_set) {
        struct pdist_job job = {
            .g = g, .n = gsvd_geno_n_samples(g), .ids = gsvd_geno_sample_ids(g)};
        GSVD_TRY(run_pairs(o, common, &job));
    } else if (o->axis_variants) {
        GSVD_TRY(run_variants(o, common, g));
    } else {
        size_t hg = o->pd.hap_group > 1 ? o->pd.hap_group : 1;
        struct pdist_job job = {.g = g,
                                .n = gsvd_geno_n_samples(g) / hg,
                                .ids = hg > 1 ? gsvd_geno_call_ids(g) : gsvd_geno_sample_ids(g)};
        GSVD_TRY(run_job(o, common, &job));
    }
out:
    gsvd_geno_close(g);
    gsvd_cli_close_input(&in);
    gsvd_strlist_free(&samples);
    gsvd_mask_free(&vmask);
    gsvd_mask_free(&smask);
    gsvd_autosomes_free(&au);
    return rc;
}

int gsvd_cmd_pdist(int argc, char **argv)
{
    struct pdist_opts o = {.device = "auto",
                           .min_kinship = NAN,
                           .pd = GSVD_PDIST_PARAMS_DEFAULT,
                           .geno = GSVD_GENO_PARAMS_DEFAULT,
                           .common = GSVD_CLI_COMMON_DEFAULT};
    int first, rc = gsvd_opts_parse(&gsvd_cmd_pdist_spec, argc, argv, &o, &first);

    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    o.min_kinship_set = !isnan(o.min_kinship);
    if (o.finalize) {
        if (first < argc)
            return gsvd_cli_usage_error("pdist", "--finalize OUT takes no INPUT");
        gsvd_cli_common_apply(&o.common);
        /* OUT before the parts are read: it may exist only with --force */
        if ((rc = gsvd_cli_check_outputs(o.finalize, o.force, NULL, 0)) < 0)
            return gsvd_cli_exit_code(rc);
        /* pair-list parts (--min-kinship) have pair_i; square parts have distance */
        rc = gsvd_pdist_parts_have_array(o.finalize, "pair_i");
        if (rc > 0)
            rc = gsvd_king_parts_finalize(o.finalize, o.force);
        else if (rc == 0)
            rc = gsvd_pdist_parts_finalize(o.finalize, o.force);
        if (rc == GSVD_OK)
            report_done(o.finalize, NULL);
        return gsvd_cli_exit_code(rc);
    }
    if (o.pd.n_parts) {
        if (!o.output || strstr(o.output, "://"))
            return gsvd_cli_usage_error("pdist", "--part needs -o OUT, a local or shared path");
        if (o.format || o.condensed)
            return gsvd_cli_usage_error("pdist", "--part writes the square Zarr layout (no "
                                                 "--format tsv, no --layout condensed)");
        if (gsvd_comm_size(gsvd_cli_world()) > 1)
            return gsvd_cli_usage_error("pdist", "--part is for job arrays; under mpirun the "
                                                 "ranks share the work themselves");
    }
    if (o.samples_file && o.sample_mask)
        return gsvd_cli_usage_error("pdist", "--samples and --sample-mask cannot be combined");
    if (o.variant_mask && o.axis_variants)
        return gsvd_cli_usage_error("pdist", "--variant-mask applies to --axis samples");
    if (first < argc - 1)
        return gsvd_cli_usage_error("pdist", "too many arguments");
    if (o.pd.metric == GSVD_PDIST_KING || o.pd.metric == GSVD_PDIST_IBS0) {
        if (o.axis_variants || o.pd.missing == GSVD_PDIST_SCALE)
            return gsvd_cli_usage_error("pdist",
                                        "--metric %s is between samples over their "
                                        "jointly called sites (no --axis variants, no "
                                        "--missing scale)",
                                        gsvd_pdist_metric_name(o.pd.metric));
        if (o.haplotypes)
            return gsvd_cli_usage_error("pdist",
                                        "--metric %s compares diploid calls, not "
                                        "haplotypes (no --haplotypes)",
                                        gsvd_pdist_metric_name(o.pd.metric));
    } else if (o.all_contigs) {
        return gsvd_cli_usage_error("pdist", "--all-contigs applies to --metric king and ibs0");
    }
    if (o.pd.metric == GSVD_PDIST_P_DISTANCE && o.axis_variants)
        return gsvd_cli_usage_error("pdist", "--metric p-distance is between samples (or "
                                             "haplotypes): no --axis variants");
    if (o.geno.ignore_phase && !o.haplotypes && o.pd.metric != GSVD_PDIST_P_DISTANCE)
        return gsvd_cli_usage_error("pdist",
                                    "--ignore-phase applies to p-distance and --haplotypes");
    if (o.min_kinship_set) {
        if (o.pd.metric != GSVD_PDIST_KING)
            return gsvd_cli_usage_error("pdist", "--min-kinship needs --metric king");
        if (o.condensed || o.f4 || o.format)
            return gsvd_cli_usage_error("pdist", "--min-kinship writes its own pair list (TSV, "
                                                 "or Zarr with -o): no --layout, --dtype or "
                                                 "--format");
    }
    if (gsvd_cli_zarr_out_check("pdist", &o.zout, o.output) != 0)
        return GSVD_EXIT_USAGE;
    if (first == argc && isatty(STDIN_FILENO))
        return gsvd_cli_usage_error("pdist", "missing INPUT (a Zarr store, a TSV/CSV file, or -)");
    o.input = first < argc ? argv[first] : "-";
    if (strcmp(o.input, "-") == 0 && gsvd_comm_size(gsvd_cli_world()) > 1)
        return gsvd_cli_usage_error("pdist", "under mpirun every rank reads INPUT: give a file or "
                                             "a store, not standard input");
    gsvd_cli_common_apply(&o.common);
    {
        const char *simd = getenv("GENSVD_PDIST_SIMD");
        if (simd && strcmp(simd, "scalar") == 0)
            o.pd.simd = GSVD_PDIST_SIMD_SCALAR;
    }
    /* -o before any input is read; with --part (and ranks writing parts) OUT is where the
     * parts end up, so an existing OUT needs --force already here, not only at --finalize */
    if ((rc = gsvd_cli_check_outputs(o.output, o.force, NULL, 0)) < 0)
        return gsvd_cli_exit_code(rc);
    o.command = gsvd_cli_command_line(argc, argv);
    {
        gsvd_comm *w = gsvd_cli_world();
        if (gsvd_comm_size(w) > 1 && o.output && !strstr(o.output, "://") && !o.format &&
            !o.condensed && !o.min_kinship_set) {
            /* ranks write their own chunks: a fresh parts directory first (rank 0), then all */
            o.rank_parts = 1;
            o.pd.part = (size_t)gsvd_comm_rank(w) + 1;
            o.pd.n_parts = (size_t)gsvd_comm_size(w);
            rc = gsvd_comm_rank(w) == 0 ? gsvd_pdist_parts_discard(o.output) : GSVD_OK;
            rc = gsvd_comm_agree(w, rc, NULL);
            if (rc < 0) {
                gsvd_free(o.command);
                return gsvd_cli_exit_code(rc);
            }
        }
    }
    if (o.pd.n_parts) {
        o.part_output = gsvd_pdist_parts_path(o.output, o.pd.part, o.pd.n_parts);
        rc = o.part_output ? gsvd_pdist_parts_prepare(o.output) : GSVD_ENOMEM;
        if (rc == GSVD_OK && !o.rank_parts) /* a job array's part (one process): the parts
                                                directory may be another's; a part is replaced */
            rc = gsvd_cli_check_outputs(o.part_output, 1, NULL, 0);
        if (rc < 0) {
            gsvd_free(o.part_output);
            gsvd_free(o.command);
            return gsvd_cli_exit_code(rc);
        }
    }
    {
        struct gsvd_backend_params bp = {.n_threads = o.common.threads,
                                         .local_rank =
                                             (size_t)gsvd_comm_local_rank(gsvd_cli_world())};
        struct stat sb;
        size_t ilen = strlen(o.input);
        char hint[1024];
        /* a regular file is a text matrix, save a zipped store (".zip", as zarr/store.c) and a
         * genotype file that is not Zarr (VCF, PLINK, BGEN: the store says how to convert it) */
        int text = strcmp(o.input, "-") == 0 ||
                   (stat(o.input, &sb) == 0 && S_ISREG(sb.st_mode) &&
                    !(ilen >= 4 && strcasecmp(o.input + ilen - 4, ".zip") == 0) &&
                    !*gsvd_store_convert_hint(o.input, hint, sizeof hint));
        /* first, so that an unavailable device fails before any data is read */
        rc = gsvd_backend_open(o.device, &bp, &o.pd.device);
        if (rc == GSVD_OK)
            rc = text ? run_text(&o, &o.common) : run(&o, &o.common);
    }
    gsvd_backend_destroy(o.pd.device);
    gsvd_free(o.command);
    if (rc == GSVD_OK && o.part_output && !o.rank_parts)
        gsvd_log_info("part %zu of %zu done; `gensvd pdist --finalize %s` once every part is",
                      o.pd.part, o.pd.n_parts, o.output);
    gsvd_free(o.part_output);
    return gsvd_cli_exit_code(rc);
}
