/* cli/cmd_project.c - `gensvd project`: samples of a store placed on principal components
 * saved by `gensvd pca --loadings` (analysis/pca/project.h). */
#include "gsvd_config.h"

#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/scan/genotype.h"
#include "analysis/pca/pca_store.h"
#include "analysis/pca/project.h"
#include "analysis/scan/variant_ids.h"
#include "cli/cli.h"
#include "cli/opts_input.h"
#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/meta.h"
#include "zarr/store.h"

struct project_opts {
    const char *input, *pcs, *output, *format, *samples_file;
    int force;
    size_t k; /* 0: all saved components */
    struct gsvd_geno_params geno;
    struct gsvd_project_params proj;
    char *command;
    struct gsvd_cli_zarr_out zout;
    struct gsvd_cli_common common;
};

static const char *const shrink_names[] = {"none", "ap", "oadp", NULL}; /* enum order */

#define PRJ(field) GSVD_OPT_FIELD(struct project_opts, field)
static const struct gsvd_opt out_options[] = {
    {.name = "pcs",
     .type = GSVD_OPT_STRING,
     PRJ(pcs),
     .arg = "PATH",
     .flags = GSVD_OPTF_NONEMPTY | GSVD_OPTF_FILE,
     .help = "the reference PCs (a pca output with loadings; required)"},
    GSVD_OPT_OUTPUT(struct project_opts,
                    "write a Zarr group (sample_id, sample_pca_projection, ...)"),
    GSVD_OPT_FORCE(struct project_opts),
    GSVD_OPT_FORMAT_TSV(struct project_opts, "scores to stdout: sample_id, PC1..PCk (%.17g)"),
};
static const struct gsvd_opt method_options[] = {
    {.name = "components",
     .key = 'k',
     .type = GSVD_OPT_UINT,
     PRJ(k),
     .arg = "INT",
     .lo = 1,
     .hi = 100000,
     .help = "the first INT of the saved components [all]"},
    {.name = "shrinkage-correction",
     .type = GSVD_OPT_CHOICE,
     PRJ(proj.shrinkage),
     .arg = "M",
     .choices = shrink_names,
     .help = "none, ap (adjusted projection: each PC divided by\nits asymptotic shrinkage "
             "factor) or oadp (online\naugmentation, decomposition and Procrustes) [none]"},
};
static const struct gsvd_opt input_options[] = {
    GSVD_OPT_IN_ARRAY(struct project_opts),   GSVD_OPT_IN_TRANSPOSE(struct project_opts),
    GSVD_OPT_IN_PLOIDY(struct project_opts),  GSVD_OPT_IN_VARIANTS(struct project_opts),
    GSVD_OPT_IN_SAMPLES(struct project_opts),
};
static const struct gsvd_opt_group out_group =
    GSVD_OPT_GROUP("Output (default: TSV of the scores on stdout):", out_options);
static const struct gsvd_opt_group method_group = GSVD_OPT_GROUP("Method:", method_options);
static const struct gsvd_opt_group input_group = GSVD_OPT_GROUP("Input:", input_options);
static const struct gsvd_opt_bind project_groups[] = {
    {&out_group, 0},
    {&gsvd_opts_zarr_out, offsetof(struct project_opts, zout)},
    {&method_group, 0},
    {&input_group, 0},
    GSVD_OPTS_BIND_COMMON(struct project_opts),
};
const struct gsvd_cmd_spec gsvd_cmd_project_spec = {
    .name = "project",
    .intro =
        "Usage: gensvd project [options] --pcs PCS INPUT\n"
        "Place the samples of INPUT (a VCF-Zarr store) on the principal components in PCS\n"
        "(the output of `gensvd pca --loadings -o PCS`): variants matched by contig, position\n"
        "and alleles (swapped alleles flip the dosage; strand-ambiguous swaps and other\n"
        "alleles are dropped), the reference's means and scales applied, missing calls set to\n"
        "the reference mean; scores on the reference's scale (U S, as pca writes them).\n",
    .groups = project_groups,
    .n_groups = GSVD_ARRAY_LEN(project_groups),
    .opts_size = sizeof(struct project_opts),
    .footer = "Exit status: 0 success, 1 failure, 2 usage error.\n",
};

static int write_tsv(const struct gsvd_project_result *r, const struct gsvd_strlist *ids)
{
    printf("sample_id");
    for (size_t q = 0; q < r->k; q++)
        printf("\tPC%zu", q + 1);
    putchar('\n');
    for (size_t i = 0; i < r->n; i++) {
        fputs(ids->items[i], stdout);
        for (size_t q = 0; q < r->k; q++)
            printf("\t%.17g", r->scores[i * r->k + q]);
        putchar('\n');
    }
    return ferror(stdout) ? GSVD_EIO : GSVD_OK;
}

static int write_zarr(const struct project_opts *o, const struct gsvd_pca_model *ref,
                      const struct gsvd_project_map *map, const struct gsvd_project_result *r,
                      const struct gsvd_strlist *ids, int input_format)
{
    struct gsvd_writer_params wp = gsvd_cli_zarr_out_params(&o->zout, input_format);
    struct gsvd_project_store_info info = {
        .command = o->command, .pcs = o->pcs, .shrinkage = o->proj.shrinkage};
    gsvd_result *res = NULL;
    int rc = gsvd_project_store_result(&info, ref, map, r, ids, &res);
    if (rc == GSVD_OK)
        rc = gsvd_result_write(res, o->output, o->force, &wp, 1);
    gsvd_result_free(res);
    return rc;
}

static void report(const struct gsvd_project_counts *c, const struct gsvd_project_result *r)
{
    if (r) { /* the summary, at the default level */
        gsvd_cli_note("%zu samples projected on %zu PCs over %llu of %llu reference variants; "
                      "%llu missing calls set to the reference mean",
                      r->n, r->k, (unsigned long long)c->matched, (unsigned long long)c->ref_used,
                      (unsigned long long)r->n_missing_calls);
        return;
    }
    gsvd_log_info("matched %llu of %llu reference variants (%llu with swapped alleles, "
                  "dosage flipped); input variants %llu: dropped %llu at positions the "
                  "reference lacks, %llu with other alleles, %llu strand-ambiguous swaps, %llu "
                  "duplicates",
                  (unsigned long long)c->matched, (unsigned long long)c->ref_used,
                  (unsigned long long)c->swapped, (unsigned long long)c->target,
                  (unsigned long long)c->not_found, (unsigned long long)c->allele_mismatch,
                  (unsigned long long)c->ambiguous, (unsigned long long)c->duplicate);
}

static int run(struct project_opts *o, const struct gsvd_cli_common *common)
{
    struct gsvd_cli_input pin = {0}, in = {0};
    struct gsvd_pca_model ref = {0};
    struct gsvd_strlist samples = GSVD_STRLIST_INIT;
    struct gsvd_project_map map = {0};
    struct gsvd_project_result *r = NULL;
    struct gsvd_cli_bar bar;
    gsvd_geno *g = NULL;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_cli_check_outputs(o->output, o->force, NULL, 0)); /* before any input */
    GSVD_TRY(gsvd_cli_open_input(o->pcs, NULL, &pin));
    GSVD_TRY(gsvd_pca_model_read(pin.tree, pin.node, 1, &ref));
    GSVD_TRY(gsvd_project_model_check(&ref, o->k, o->pcs));
    if (o->samples_file) {
        GSVD_TRY(gsvd_cli_read_ids(o->samples_file, &samples));
        o->geno.samples = &samples;
    }
    GSVD_TRY(gsvd_cli_open_input(o->input, NULL, &in));
    if (o->output)
        GSVD_TRY(gsvd_cli_zarr_out_check_input("project", &o->zout, gsvd_tree_format(in.tree)));
    o->geno.n_threads = common->threads;
    GSVD_TRY(gsvd_geno_open(in.tree, in.node, &o->geno, &g));
    GSVD_TRY(gsvd_project_target(in.tree, in.node, g, &ref, o->input, o->pcs, o->geno.array != NULL,
                                 &map));
    report(&map.counts, NULL);
    o->proj.n_threads = common->threads;
    o->proj.progress = gsvd_cli_progress(&bar, "variants", common->progress);
    GSVD_TRY(gsvd_project_run(g, &ref, &map, &o->proj, &r));
    report(&map.counts, r);
    if (o->output)
        GSVD_TRY(write_zarr(o, &ref, &map, r, gsvd_geno_sample_ids(g), gsvd_tree_format(in.tree)));
    if (o->format || !o->output)
        GSVD_TRY(write_tsv(r, gsvd_geno_sample_ids(g)));
    {
        char where[1024];
        snprintf(where, sizeof where, "%s%s%s", o->output ? o->output : "",
                 o->output && o->format ? " and " : "",
                 o->format || !o->output ? "the scores to standard output" : "");
        gsvd_cli_done(where);
    }
out:
    gsvd_project_result_free(r);
    gsvd_project_map_free(&map);
    gsvd_geno_close(g);
    gsvd_pca_model_free(&ref);
    gsvd_cli_close_input(&in);
    gsvd_cli_close_input(&pin);
    gsvd_strlist_free(&samples);
    return rc;
}

int gsvd_cmd_project(int argc, char **argv)
{
    struct project_opts o = {.geno = GSVD_GENO_PARAMS_DEFAULT, .common = GSVD_CLI_COMMON_DEFAULT};
    int first, rc = gsvd_opts_parse(&gsvd_cmd_project_spec, argc, argv, &o, &first);

    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    if (first != argc - 1)
        return gsvd_cli_usage_error("project",
                                    first >= argc ? "missing INPUT" : "too many arguments");
    if (!o.pcs)
        return gsvd_cli_usage_error("project", "missing --pcs (the output of pca --loadings)");
    if (gsvd_cli_zarr_out_check("project", &o.zout) != 0)
        return GSVD_EXIT_USAGE;
    o.input = argv[first];
    /* raw dosages: no centring, no filter, no cache (the reference's statistics apply) */
    o.geno.scaler = GSVD_SCALER_NONE;
    o.geno.cache_bytes = 0;
    gsvd_cli_common_apply(&o.common);
    o.command = gsvd_cli_command_line(argc, argv);
    rc = run(&o, &o.common);
    gsvd_free(o.command);
    return gsvd_cli_exit_code(rc);
}
