/* cli/cmd_pdist.c - `gensvd pdist`: pairwise distances between samples, as a Zarr group or a
 * square TSV matrix. */
#include "gsvd_config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/genotype.h"
#include "analysis/pdist/pdist.h"
#include "cli/cli.h"
#include "cli/cli_mask.h"
#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "common/textmatrix.h"
#include "cli/pdist_out.h"
#include "cli/pdist_parts.h"
#include "cli/king_pairs.h"
#include "zarr/codec.h"
#include "zarr/meta.h"
#include "zarr/writer.h"

enum {
    OPT_METRIC = GSVD_OPT_FIRST_COMMAND_OPTION,
    OPT_MISSING,
    OPT_FORMAT,
    OPT_VARIANTS,
    OPT_SAMPLES,
    OPT_TRANSPOSE,
    OPT_PLOIDY,
    OPT_COUNTS,
    OPT_AXIS,
    OPT_LAYOUT,
    OPT_DTYPE,
    OPT_MEMORY,
    OPT_KERNEL,
    OPT_PART,
    OPT_FINALIZE,
    OPT_VARIANT_MASK,
    OPT_SAMPLE_MASK,
    OPT_MIN_KINSHIP,
};

/* --min-kinship without --memory: the bands' working set */
#define PDIST_PAIRS_DEFAULT_MEMORY ((uint64_t)1 << 30)

struct pdist_opts {
    const char *input, *output, *format, *samples_file, *device, *finalize;
    char *part_output; /* --part: OUT.gensvd-parts/part-I-of-N.zarr (owned) */
    int rank_parts;    /* under MPI with a square Zarr output on a local or shared path: each
                          rank writes its own part and rank 0 finalizes (cli/pdist_parts.h) */
    int force, counts, axis_variants, condensed, f4;
    int min_kinship_set; /* --min-kinship: a pair list (cli/king_pairs.h) */
    double min_kinship;
    struct gsvd_pdist_params pd;
    struct gsvd_geno_params geno;
    char *command;
    struct gsvd_cli_zarr_out zout;          /* --zarr-format, --shard */
    int input_format;                       /* 3 for a v3 input store: the default output format */
    const char *variant_mask, *sample_mask; /* STORE[/ARRAY] */
};

static void usage(FILE *fp)
{
    fputs("Usage: gensvd pdist [options] INPUT\n"
          "Pairwise distances between the samples (or variants) of the genotype matrix in INPUT (a "
          "VCF-Zarr\n"
          "store, a scikit-allel layout, or a 2-D dosage array named with --array), with\n"
          "scipy's definitions; on data without missing calls the values equal\n"
          "scipy.spatial.distance.pdist on the dosage matrix (samples x variants).\n"
          "INPUT may also be a TSV/CSV numeric matrix (a file, or '-' / no INPUT for standard\n"
          "input): one row per item, optional header line and ID column, empty / nan / NA\n"
          "missing; e.g. gensvd pca X --format tsv | gensvd pdist\n"
          "  -m, --metric NAME      euclidean, sqeuclidean, cityblock, minkowski, chebyshev,\n"
          "                         cosine, correlation, hamming, jaccard, braycurtis, canberra,\n"
          "                         ibs (PLINK 1.9 1-ibs: sum |g_i - g_j| / (ploidy n_ij)),\n"
          "                         king (KING-robust kinship, plink2 --make-king: a similarity,\n"
          "                         0.5 on the diagonal; diploid calls only) or ibs0 (fraction\n"
          "                         of jointly called sites with opposite homozygotes)\n"
          "                         [euclidean]\n"
          "      --min-kinship X    with -m king: only the pairs with kinship >= X (-1..0.5), as\n"
          "                         a table like plink2's .kin0 (#ID1 ID2 NSNP HETHET IBS0\n"
          "                         KINSHIP; --counts: counts and HET1_HOM2 HET2_HOM1) or, with\n"
          "                         -o, Zarr arrays along \"pairs\" (pair_i, pair_j, kinship,\n"
          "                         n_sites, hethet, ibs0, het1_hom2, het2_hom1); bands of\n"
          "                         --memory [1G], never the N x N matrix\n"
          "  -p, --p X              minkowski order (> 0) [2]\n"
          "      --missing MODE     pairwise: only sites called in both samples (NaN when none);\n"
          "                         scale: also multiply additive metrics by M / n_ij (PLINK\n"
          "                         flat-missing); error: fail on a missing call [pairwise]\n"
          "      --axis AXIS        samples: distances between samples; variants: between\n"
          "                         variants (features are then the samples) [samples]\n"
          "  -o, --output PATH      Zarr group: distance (N x N f8), n_sites (uint32, when there\n"
          "                         are missing calls or with --counts), sample_id\n"
          "                         (variant_index with --axis variants)\n"
          "  -f, --force            replace the output if it exists\n" GSVD_CLI_ZARR_OUT_HELP
          "      --counts           always write n_sites\n"
          "      --layout L         square (N x N) or condensed (scipy's 1-D upper triangle;\n"
          "                         with --format tsv: one line per pair) [square]\n"
          "      --dtype T          f8 or f4 for the distance array [f8]\n"
          "      --format tsv       the matrix on stdout (default without -o)\n"
          "      --memory SIZE      cap the working set (e.g. 2G): pairs are computed in bands\n"
          "                         of rows, one pass over the input per band, and written as\n"
          "                         they finish [no cap]\n"
          "      --kernel K         auto, bitplane, gram or generic (for tests) "
          "[auto]\n" GSVD_CLI_DEVICE_HELP
          "                         (gpu: bit-plane counts and float64 sums on the device,\n"
          "                         identical results; the gram kernel stays on the CPU)\n",
          fp);
    fputs("      --part I/N         compute only part I of N of the pairs (a job array without\n"
          "                         MPI) into OUT.gensvd-parts/ (needs -o OUT, a local or shared\n"
          "                         path, and the square layout); start every part with the\n"
          "                         same input and options\n"
          "      --finalize OUT     gather the N parts into OUT once all are done (no INPUT)\n"
          "  -a, --array PATH       genotype array inside INPUT\n"
          "      --transpose        the 2-D array is samples x variants\n"
          "      --ploidy INT       dosage scale of a 2-D array [2]\n"
          "      --variants A:B     only variants A (inclusive) to B (exclusive)\n"
          "      --samples FILE     only these sample IDs (one per line), in this order\n"
          "      --variant-mask STORE[/ARRAY]  only variants whose entry is nonzero in this 1-D\n"
          "                         bool/int8/uint8 array [ARRAY: variant_ld_keep]\n"
          "      --sample-mask STORE[/ARRAY]  only samples whose entry is nonzero, matched by\n"
          "                         the sample_id beside it, else by position\n"
          "                         [ARRAY: sample_unrelated]\n"
          "  -t, --threads INT      threads [all cores]\n"
          "  -v, --verbose          more messages on stderr (repeatable)\n"
          "  -q, --quiet            errors only\n"
          "  -h, --help             print this help and exit\n"
          "Exit status: 0 success, 1 failure, 2 usage error, 3 device or feature "
          "unavailable.\n" GSVD_CLI_REMOTE_HELP,
          fp);
}

/* Root attributes of the Zarr output. */
static int make_attrs(const struct pdist_opts *o, const struct gsvd_pdist_summary *sum,
                      struct gsvd_buf *attrs)
{
    int rc = GSVD_OK;
    GSVD_TRY(
        gsvd_buf_printf(attrs, "{\n    \"version\": \"%s\",\n    \"command\": ", GSVD_VERSION));
    GSVD_TRY(gsvd_json_quote(attrs, o->command ? o->command : ""));
    GSVD_TRY(gsvd_buf_printf(
        attrs,
        ",\n    \"metric\": \"%s\",\n    \"p\": %.17g,\n    \"missing\": \"%s\",\n    \"axis\": "
        "\"%s\",\n    \"layout\": \"%s\",\n    \"M\": %llu,\n    \"N\": %llu,\n    "
        "\"n_missing\": %llu,\n    \"kernel\": \"%s\",\n    \"device\": \"%s\"\n}",
        gsvd_pdist_metric_name(o->pd.metric), o->pd.p, gsvd_pdist_missing_name(o->pd.missing),
        o->axis_variants ? "variants" : "samples", o->condensed ? "condensed" : "square",
        (unsigned long long)sum->m, (unsigned long long)sum->n, (unsigned long long)sum->n_missing,
        sum->kernel ? sum->kernel : "none", sum->device ? sum->device : "cpu"));
out:
    return rc;
}

/* Output set-up, the run (through `fn`), and the finish, common to every input kind. */
struct pdist_job {
    gsvd_geno *g;     /* genotype input, or */
    const double *x;  /* a matrix (n x m), or */
    const int8_t *x8; /* an int8 matrix (n x m) */
    size_t n, m;
    const struct gsvd_strlist *ids;
};

/* --min-kinship: the engine's bands to the pair list.  Under mpirun every rank computes its
 * bands and rank 0 alone opens, fills and commits the list (as run_job does for rank 0's
 * output): a failure on rank 0 ends the run, any other is agreed on. */
static int run_pairs(struct pdist_opts *o, const struct gsvd_cli_common *common,
                     struct pdist_job *job)
{
    struct king_pairs_cfg cfg = {.output = o->output,
                                 .force = o->force,
                                 .counts = o->counts,
                                 .min_kinship = o->min_kinship,
                                 .ids = job->ids,
                                 .n = job->n,
                                 .wp = gsvd_cli_zarr_out_params(&o->zout, o->input_format)};
    struct king_pairs *kp = NULL;
    struct gsvd_pdist_summary sum = {0};
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    struct gsvd_cli_bar bar;
    gsvd_comm *world = gsvd_cli_world();
    int rc = GSVD_OK, me = gsvd_comm_rank(world), many = gsvd_comm_size(world) > 1;

    if (me == 0)
        rc = king_pairs_open(&cfg, &kp);
    if (many)
        rc = gsvd_comm_agree(world, rc, NULL);
    if (rc < 0)
        goto out;
    o->pd.n_threads = common->threads;
    o->pd.progress = gsvd_cli_progress(&bar, "pdist", common->progress);
    o->pd.comm = world;
    if (!o->pd.memory)
        o->pd.memory = PDIST_PAIRS_DEFAULT_MEMORY;
    rc = gsvd_pdist_run(job->g, &o->pd, me == 0 ? king_pairs_band : NULL, kp, &sum);
    if (many) {
        if (rc < 0 && me == 0) { /* the others may wait in a send: end them all */
            king_pairs_close(kp);
            kp = NULL;
            gsvd_comm_abort(world, GSVD_EXIT_FAIL);
        }
        rc = gsvd_comm_agree(world, rc, NULL);
        if (rc < 0 || me != 0) {
            if (rc == GSVD_OK) /* rank 0's commit */
                rc = gsvd_comm_agree(world, GSVD_OK, NULL);
            goto out;
        }
    }
    if (rc < 0)
        goto out;
    if (gsvd_log_get_level() >= GSVD_LOG_WARN)
        fprintf(stderr, "[pdist] %zu samples, %llu variants, king: %llu pairs with kinship >= %g\n",
                sum.n, (unsigned long long)sum.m, (unsigned long long)king_pairs_count(kp),
                o->min_kinship);
    /* from here on the others wait for rank 0's verdict: no early exit */
    rc = make_attrs(o, &sum, &attrs);
    /* the pair list's own members: the threshold and the count, before the closing brace */
    if (rc == GSVD_OK && attrs.len > 2) {
        attrs.len -= 2;
        attrs.data[attrs.len] = '\0';
        rc = gsvd_buf_printf(&attrs, ",\n    \"min_kinship\": %.17g,\n    \"n_pairs\": %llu\n}",
                             o->min_kinship, (unsigned long long)king_pairs_count(kp));
    }
    if (rc == GSVD_OK)
        rc = king_pairs_finish(kp, attrs.data);
    if (many) /* the others learn how the commit went */
        rc = gsvd_comm_agree(world, rc, NULL);
out:
    gsvd_buf_free(&attrs);
    king_pairs_close(kp);
    return rc;
}

static int run_job(struct pdist_opts *o, const struct gsvd_cli_common *common,
                   struct pdist_job *job)
{
    struct pdist_out_cfg cfg = {.output = o->part_output ? o->part_output : o->output,
                                .force = o->force || o->part_output,
                                .part = o->part_output != NULL,
                                .tsv = o->format || !o->output,
                                .condensed = o->condensed,
                                .f4 = o->f4,
                                .counts = o->counts,
                                .axis = o->axis_variants ? "variants" : "samples",
                                .ids = job->ids,
                                .n = job->n,
                                .threads = common->threads,
                                .memory = o->pd.memory,
                                .wp = gsvd_cli_zarr_out_params(&o->zout, o->input_format)};
    struct pdist_out *out = NULL;
    struct gsvd_pdist_summary sum = {0};
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    struct gsvd_cli_bar bar;
    gsvd_comm *world = gsvd_cli_world();
    int rc = GSVD_OK, me = gsvd_comm_rank(world);
    gsvd_pdist_sink_fn sink;

    /* parts are Zarr v2 groups (cli/pdist_parts.c reads their .zarray documents) */
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
        if (me == 0 && pdist_parts_discard(o->output) < 0)
            gsvd_log_warn("%s.gensvd-parts is left behind", o->output);
    }
    sink = me == 0 || o->rank_parts ? pdist_out_band : NULL;

    /* a distributed run: each rank writes its part (rank_parts), or rank 0 writes everything
     * and the others need only the sizes that shape the bands */
    cfg.plan_only = me != 0 && !o->rank_parts;
    rc = pdist_out_open(&cfg, &out);
    if (world)
        rc = gsvd_comm_agree(world, rc, NULL);
    if (rc < 0)
        goto out;
    o->pd.row_align = pdist_out_row_align(out);
    o->pd.sink_bytes = pdist_out_bytes(out);
    o->pd.n_threads = common->threads;
    o->pd.progress = gsvd_cli_progress(&bar, "pdist", common->progress);
    o->pd.comm = o->rank_parts ? NULL : world;
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
            rc = pdist_out_finish(out, attrs.data, sum.n_missing);
        rc = gsvd_comm_agree(world, rc, NULL); /* the same verdict on every rank */
        if (rc < 0) {
            if (me == 0 && pdist_parts_discard(o->output) < 0)
                gsvd_log_warn("%s.gensvd-parts is left behind", o->output);
            goto out;
        }
        if (me == 0) {
            rc = pdist_parts_finalize(o->output, o->force);
            if (rc < 0 && pdist_parts_discard(o->output) < 0)
                gsvd_log_warn("%s.gensvd-parts is left behind", o->output);
        }
        rc = gsvd_comm_agree(world, rc, NULL); /* how the finalize went */
        goto out;
    }
    if (world && gsvd_comm_size(world) > 1) {
        if (rc < 0 && me == 0) {
            /* the other ranks may wait in a send: discard the output, then end them all */
            pdist_out_close(out);
            out = NULL;
            gsvd_comm_abort(world, GSVD_EXIT_FAIL);
        }
        /* every rank finished its bands (or failed and told rank 0, which then ends the run) */
        rc = gsvd_comm_agree(world, rc, NULL);
        if (rc < 0 || me != 0) {
            if (rc == GSVD_OK) /* rank 0's commit */
                rc = gsvd_comm_agree(world, GSVD_OK, NULL);
            goto out;
        }
    } else if (rc < 0) {
        goto out;
    }
    if (gsvd_log_get_level() >= GSVD_LOG_WARN)
        fprintf(stderr, "[pdist] %zu %s, %llu features, %s, %llu missing values\n", sum.n,
                o->axis_variants ? "variants" : "items", (unsigned long long)sum.m,
                gsvd_pdist_metric_name(o->pd.metric), (unsigned long long)sum.n_missing);
    gsvd_log_info("pdist: %s kernel on %s, %zu band(s), %zu pass(es) over the input, planned "
                  "working set %.1f MB",
                  sum.kernel ? sum.kernel : "none", sum.device ? sum.device : "cpu", sum.n_bands,
                  sum.n_scans, (double)sum.peak_bytes / 1e6);
    if (sum.n_segments)
        gsvd_log_info("pdist: %llu of %llu bit-plane segments without missing calls",
                      (unsigned long long)sum.n_segments_complete,
                      (unsigned long long)sum.n_segments);
    rc = make_attrs(o, &sum, &attrs);
    if (rc == GSVD_OK)
        rc = pdist_out_finish(out, attrs.data, sum.n_missing);
    if (world && gsvd_comm_size(world) > 1)
        rc = gsvd_comm_agree(world, rc, NULL); /* the others learn how the commit went */
out:
    gsvd_buf_free(&attrs);
    pdist_out_close(out);
    return rc;
}

/* A numeric matrix from TSV/CSV text: rows are the items. */
static int run_text(struct pdist_opts *o, const struct gsvd_cli_common *common)
{
    struct gsvd_buf text = GSVD_BUF_INIT;
    struct gsvd_textmatrix m = {0};
    const char *where = strcmp(o->input, "-") == 0 ? "standard input" : o->input;
    int rc = GSVD_OK;

    if (o->pd.metric == GSVD_PDIST_KING || o->pd.metric == GSVD_PDIST_IBS0) {
        gsvd_log_error("%s: --metric %s needs genotype calls from a Zarr store, not a numeric "
                       "matrix",
                       where, gsvd_pdist_metric_name(o->pd.metric));
        return GSVD_EUNSUPPORTED;
    }
    if (o->samples_file || o->geno.var_start || o->geno.var_stop || o->geno.array ||
        o->geno.transpose || o->axis_variants || o->variant_mask || o->sample_mask) {
        gsvd_log_error("%s: --samples, --variants, --array, --transpose, --axis and the masks "
                       "apply to Zarr input",
                       where);
        return GSVD_EINVAL;
    }
    GSVD_TRY(gsvd_cli_read_file(o->input, &text));
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

    GSVD_TRY(gsvd_pdist_collect_variants(g, o->pd.memory, &x, &x8, &rows, &idx));
    for (size_t i = 0; i < rows; i++) {
        char num[32];
        snprintf(num, sizeof num, "%llu", (unsigned long long)(o->geno.var_start + idx[i]));
        GSVD_TRY(gsvd_strlist_push(&ids, num));
    }
    o->pd.ploidy = gsvd_geno_ploidy(g);
    if (o->pd.memory) { /* the matrix itself is part of the working set */
        uint64_t held = (uint64_t)rows * gsvd_geno_n_samples(g) * (x8 ? 1 : sizeof(double));
        o->pd.memory = held < o->pd.memory ? o->pd.memory - held : 1;
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
    struct gsvd_cli_mask vmask = {0}, smask = {0};
    gsvd_geno *g = NULL;
    int rc = GSVD_OK;

    if (o->samples_file) {
        GSVD_TRY(gsvd_cli_read_ids(o->samples_file, &samples));
        o->geno.samples = &samples;
    }
    GSVD_TRY(gsvd_cli_open_input(o->input, NULL, &in));
    o->input_format = gsvd_tree_format(in.tree);
    o->geno.n_threads = common->threads;
    o->geno.scaler = GSVD_SCALER_NONE; /* raw dosages: centre 0, scale 1 */
    o->geno.missing_error = o->pd.missing == GSVD_PDIST_ERROR;
    GSVD_TRY(
        gsvd_cli_masks_apply(o->variant_mask, o->sample_mask, &vmask, &smask, &samples, &o->geno));
    GSVD_TRY(gsvd_geno_open(in.tree, in.node, &o->geno, &g));
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
        struct pdist_job job = {
            .g = g, .n = gsvd_geno_n_samples(g), .ids = gsvd_geno_sample_ids(g)};
        GSVD_TRY(run_job(o, common, &job));
    }
out:
    gsvd_geno_close(g);
    gsvd_cli_close_input(&in);
    gsvd_strlist_free(&samples);
    gsvd_cli_mask_free(&vmask);
    gsvd_cli_mask_free(&smask);
    return rc;
}

int gsvd_cmd_pdist(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"metric", required_argument, NULL, 'm'},
        {"p", required_argument, NULL, 'p'},
        {"missing", required_argument, NULL, OPT_MISSING},
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'f'},
        {"counts", no_argument, NULL, OPT_COUNTS},
        {"axis", required_argument, NULL, OPT_AXIS},
        {"layout", required_argument, NULL, OPT_LAYOUT},
        {"dtype", required_argument, NULL, OPT_DTYPE},
        {"memory", required_argument, NULL, OPT_MEMORY},
        {"kernel", required_argument, NULL, OPT_KERNEL},
        {"part", required_argument, NULL, OPT_PART},
        {"finalize", required_argument, NULL, OPT_FINALIZE},
        {"min-kinship", required_argument, NULL, OPT_MIN_KINSHIP},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"array", required_argument, NULL, 'a'},
        {"transpose", no_argument, NULL, OPT_TRANSPOSE},
        {"ploidy", required_argument, NULL, OPT_PLOIDY},
        {"variants", required_argument, NULL, OPT_VARIANTS},
        {"samples", required_argument, NULL, OPT_SAMPLES},
        {"variant-mask", required_argument, NULL, OPT_VARIANT_MASK},
        {"sample-mask", required_argument, NULL, OPT_SAMPLE_MASK},
        {"threads", required_argument, NULL, 't'},
        {"device", required_argument, NULL, 'd'},
        GSVD_CLI_ZARR_OUT_LONGOPTS,
        GSVD_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    struct gsvd_cli_common common = GSVD_CLI_COMMON_DEFAULT;
    struct pdist_opts o = {
        .device = "auto", .pd = GSVD_PDIST_PARAMS_DEFAULT, .geno = GSVD_GENO_PARAMS_DEFAULT};
    uint64_t v;
    int c, rc;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "m:p:o:fa:t:d:vqh", longopts, NULL)) != -1) {
        int r = gsvd_cli_common_option("pdist", c, optarg, &common);
        if (r == 0)
            r = gsvd_cli_zarr_out_option("pdist", c, optarg, &o.zout);
        if (r == GSVD_EXIT_USAGE)
            return r;
        if (r == 1)
            continue;
        switch (c) {
        case 'm':
            if (gsvd_pdist_metric_parse(optarg, &o.pd.metric) < 0)
                return gsvd_cli_usage_error("pdist", "invalid --metric '%s' (%s)", optarg,
                                            gsvd_pdist_metric_list());
            break;
        case 'p':
            if (gsvd_cli_parse_double(optarg, 1e-300, 1e300, &o.pd.p) < 0)
                return gsvd_cli_usage_error("pdist", "invalid -p '%s' (a number > 0)", optarg);
            break;
        case OPT_MISSING: {
            static const char *const names[] = {"pairwise", "scale", "error", NULL};
            int k = gsvd_cli_parse_choice(optarg, names);
            if (k < 0)
                return gsvd_cli_usage_error(
                    "pdist", "invalid --missing '%s' (pairwise, scale, error)", optarg);
            o.pd.missing = (enum gsvd_pdist_missing)k;
            break;
        }
        case 'o':
            o.output = optarg;
            break;
        case 'f':
            o.force = 1;
            break;
        case OPT_COUNTS:
            o.counts = 1;
            break;
        case OPT_AXIS: {
            static const char *const names[] = {"samples", "variants", NULL};
            if ((o.axis_variants = gsvd_cli_parse_choice(optarg, names)) < 0)
                return gsvd_cli_usage_error("pdist", "invalid --axis '%s' (samples, variants)",
                                            optarg);
            break;
        }
        case OPT_LAYOUT: {
            static const char *const names[] = {"square", "condensed", NULL};
            if ((o.condensed = gsvd_cli_parse_choice(optarg, names)) < 0)
                return gsvd_cli_usage_error("pdist", "invalid --layout '%s' (square, condensed)",
                                            optarg);
            break;
        }
        case OPT_DTYPE: {
            static const char *const names[] = {"f8", "f4", "float64", "float32", NULL};
            int k = gsvd_cli_parse_choice(optarg, names);
            if (k < 0)
                return gsvd_cli_usage_error("pdist", "invalid --dtype '%s' (f8, f4)", optarg);
            o.f4 = k % 2;
            break;
        }
        case OPT_MEMORY:
            if (gsvd_cli_parse_size(optarg, &o.pd.memory) < 0 || o.pd.memory == 0)
                return gsvd_cli_usage_error("pdist", "invalid --memory '%s' (e.g. 2G)", optarg);
            break;
        case OPT_KERNEL: {
            static const char *const names[] = {"auto", "bitplane", "gram", "generic", NULL};
            int k = gsvd_cli_parse_choice(optarg, names);
            if (k < 0)
                return gsvd_cli_usage_error(
                    "pdist", "invalid --kernel '%s' (auto, bitplane, gram, generic)", optarg);
            o.pd.kernel = (enum gsvd_pdist_kernel)k;
            break;
        }
        case OPT_PART: {
            size_t i = 0, n = 0;
            int end = 0;
            if (sscanf(optarg, "%zu/%zu%n", &i, &n, &end) != 2 || optarg[end] != '\0' || i < 1 ||
                n < 1 || i > n || n > 100000)
                return gsvd_cli_usage_error("pdist", "invalid --part '%s' (I/N, 1 <= I <= N)",
                                            optarg);
            o.pd.part = i;
            o.pd.n_parts = n;
            break;
        }
        case OPT_FINALIZE:
            o.finalize = optarg;
            break;
        case OPT_MIN_KINSHIP:
            if (gsvd_cli_parse_double(optarg, -1, 0.5, &o.min_kinship) < 0)
                return gsvd_cli_usage_error(
                    "pdist", "invalid --min-kinship '%s' (a kinship in [-1, 0.5])", optarg);
            o.min_kinship_set = 1;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "tsv") != 0)
                return gsvd_cli_usage_error("pdist", "invalid --format '%s' (tsv)", optarg);
            o.format = optarg;
            break;
        case 'a':
            o.geno.array = optarg;
            break;
        case OPT_TRANSPOSE:
            o.geno.transpose = 1;
            break;
        case OPT_PLOIDY:
            if (gsvd_cli_parse_uint(optarg, 1, 100, 0, &v) < 0)
                return gsvd_cli_usage_error("pdist", "invalid --ploidy '%s'", optarg);
            o.geno.ploidy = (size_t)v;
            break;
        case OPT_VARIANTS:
            if (gsvd_cli_parse_range(optarg, &o.geno.var_start, &o.geno.var_stop) < 0)
                return gsvd_cli_usage_error("pdist", "invalid --variants '%s' (START:STOP)",
                                            optarg);
            break;
        case OPT_SAMPLES:
            o.samples_file = optarg;
            break;
        case OPT_VARIANT_MASK:
            o.variant_mask = optarg;
            break;
        case OPT_SAMPLE_MASK:
            o.sample_mask = optarg;
            break;
        case 'd':
            if (gsvd_cli_parse_device(optarg, &o.device) < 0)
                return gsvd_cli_usage_error("pdist", "invalid --device '%s' (auto, cpu, gpu)",
                                            optarg);
            break;
        case 'h':
            usage(stdout);
            return GSVD_EXIT_OK;
        default:
            return gsvd_cli_usage_error("pdist", "invalid option '%s'", argv[optind - 1]);
        }
    }
    if (o.finalize) {
        if (optind < argc)
            return gsvd_cli_usage_error("pdist", "--finalize OUT takes no INPUT");
        gsvd_cli_common_apply(&common);
        return gsvd_cli_exit_code(pdist_parts_finalize(o.finalize, o.force));
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
    if (optind < argc - 1)
        return gsvd_cli_usage_error("pdist", "too many arguments");
    if (o.pd.metric == GSVD_PDIST_KING || o.pd.metric == GSVD_PDIST_IBS0) {
        if (o.axis_variants || o.pd.missing == GSVD_PDIST_SCALE)
            return gsvd_cli_usage_error("pdist",
                                        "--metric %s is between samples over their "
                                        "jointly called sites (no --axis variants, no "
                                        "--missing scale)",
                                        gsvd_pdist_metric_name(o.pd.metric));
    }
    if (o.min_kinship_set) {
        if (o.pd.metric != GSVD_PDIST_KING)
            return gsvd_cli_usage_error("pdist", "--min-kinship needs --metric king");
        if (o.pd.n_parts || o.condensed || o.f4 || o.format)
            return gsvd_cli_usage_error("pdist", "--min-kinship writes its own pair list (TSV, "
                                                 "or Zarr with -o): no --part, --layout, "
                                                 "--dtype or --format");
    }
    if (gsvd_cli_zarr_out_check("pdist", &o.zout) != 0)
        return GSVD_EXIT_USAGE;
    if (optind == argc && isatty(STDIN_FILENO))
        return gsvd_cli_usage_error("pdist", "missing INPUT (a Zarr store, a TSV/CSV file, or -)");
    o.input = optind < argc ? argv[optind] : "-";
    if (strcmp(o.input, "-") == 0 && gsvd_comm_size(gsvd_cli_world()) > 1)
        return gsvd_cli_usage_error("pdist", "under mpirun every rank reads INPUT: give a file or "
                                             "a store, not standard input");
    gsvd_cli_common_apply(&common);
    {
        const char *simd = getenv("GENSVD_PDIST_SIMD");
        if (simd && strcmp(simd, "scalar") == 0)
            o.pd.simd = GSVD_PDIST_SIMD_SCALAR;
    }
    o.command = gsvd_cli_command_line(argc, argv);
    {
        gsvd_comm *w = gsvd_cli_world();
        if (gsvd_comm_size(w) > 1 && o.output && !strstr(o.output, "://") && !o.format &&
            !o.condensed && !o.min_kinship_set) {
            /* ranks write their own chunks: a fresh parts directory first (rank 0), then all */
            o.rank_parts = 1;
            o.pd.part = (size_t)gsvd_comm_rank(w) + 1;
            o.pd.n_parts = (size_t)gsvd_comm_size(w);
            rc = gsvd_comm_rank(w) == 0 ? pdist_parts_discard(o.output) : GSVD_OK;
            rc = gsvd_comm_agree(w, rc, NULL);
            if (rc < 0) {
                gsvd_free(o.command);
                return gsvd_cli_exit_code(rc);
            }
        }
    }
    if (o.pd.n_parts) {
        o.part_output = pdist_parts_path(o.output, o.pd.part, o.pd.n_parts);
        rc = o.part_output ? pdist_parts_prepare(o.output) : GSVD_ENOMEM;
        if (rc < 0) {
            gsvd_free(o.part_output);
            gsvd_free(o.command);
            return gsvd_cli_exit_code(rc);
        }
    }
    {
        struct gsvd_backend_params bp = {.n_threads = common.threads,
                                         .local_rank =
                                             (size_t)gsvd_comm_local_rank(gsvd_cli_world())};
        struct stat sb;
        int text = strcmp(o.input, "-") == 0 || (stat(o.input, &sb) == 0 && S_ISREG(sb.st_mode));
        /* first, so that an unavailable device fails before any data is read */
        rc = gsvd_backend_open(o.device, &bp, &o.pd.device);
        if (rc == GSVD_OK)
            rc = text ? run_text(&o, &common) : run(&o, &common);
    }
    gsvd_backend_destroy(o.pd.device);
    gsvd_free(o.command);
    if (rc == GSVD_OK && o.part_output && !o.rank_parts)
        gsvd_log_info("part %zu of %zu done; `gensvd pdist --finalize %s` once every part is",
                      o.pd.part, o.pd.n_parts, o.output);
    gsvd_free(o.part_output);
    return gsvd_cli_exit_code(rc);
}
