/* cli/cmd_project.c - `gensvd project`: samples of a store placed on principal components
 * saved by `gensvd pca --loadings`, run by the library (include/gensvd.h, GENSVD_PROJECT). */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_base.h"
#include "cli/opts_source.h"
#include "include/gensvd.h"

struct project_opts {
    const char *pcs, *output, *format, *samples_file;
    int force;
    size_t k; /* 0: all saved components */
    int shrinkage;
    int missing; /* 0 mean, 1 lsq */
    struct gsvd_cli_geno geno;
    struct gsvd_cli_zarr_out zout;
    struct gsvd_cli_common common;
};

static const char *const shrink_names[] = {"none", "ap", "oadp", NULL}; /* enum order */
static const char *const missing_names[] = {"mean", "lsq", NULL};       /* enum order */

#define PRJ(field) GSVD_OPT_FIELD(struct project_opts, field)
static const struct gsvd_opt out_options[] = {
    {.name = "pcs",
     .type = GSVD_OPT_STRING,
     PRJ(pcs),
     .lib = "pcs",
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
     .lib = "components",
     .arg = "INT",
     .lo = 1,
     .hi = 100000,
     .help = "the first INT of the saved components [all]"},
    {.name = "shrinkage-correction",
     .type = GSVD_OPT_CHOICE,
     PRJ(shrinkage),
     .lib = "shrinkage-correction",
     .arg = "M",
     .choices = shrink_names,
     .help = "none, ap (adjusted projection: each PC divided by\nits asymptotic shrinkage "
             "factor) or oadp (online\naugmentation, decomposition and Procrustes) [none]"},
    {.name = "missing",
     .type = GSVD_OPT_CHOICE,
     PRJ(missing),
     .lib = "missing",
     .arg = "M",
     .choices = missing_names,
     .help = "mean (a missing call counts as the reference mean)\nor lsq (least squares over "
             "each sample's called\nvariants, smartpca's lsqproject) [mean]"},
};
static const struct gsvd_opt input_options[] = {
    GSVD_OPT_IN_ARRAY(struct project_opts),
    GSVD_OPT_IN_TRANSPOSE(struct project_opts),
    GSVD_OPT_IN_PLOIDY(struct project_opts),
    GSVD_OPT_IN_VARIANTS(struct project_opts),
    GSVD_OPT_IN_SAMPLES(struct project_opts),
    GSVD_OPT_IN_KEEP_REMOVE(struct project_opts),
    GSVD_OPT_IN_MIND(struct project_opts),
    GSVD_OPT_IN_CHR(struct project_opts),
    GSVD_OPT_IN_VAR_LISTS(struct project_opts),
    GSVD_OPT_IN_VAR_FILTER(struct project_opts),
    GSVD_OPT_IN_VAR_FILTER_EXCEPT(struct project_opts),
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
        "the reference mean (or, with --missing lsq, least squares over the called variants);\n"
        "scores on the reference's scale (U S, as pca writes them).\n",
    .groups = project_groups,
    .n_groups = GSVD_CLI_LEN(project_groups),
    .opts_size = sizeof(struct project_opts),
    .footer = "Exit status: 0 success, 1 failure, 2 usage error.\n",
};

/* A number of the result's attributes (0 when absent: the library reported it). */
static unsigned long long attr(const gensvd_result *res, const char *name)
{
    double v = 0;
    return gensvd_result_attr_double(res, name, &v) == GENSVD_OK ? (unsigned long long)v : 0;
}

/* The scores on stdout: sample_id, PC1..PCk. */
static int write_tsv(const gensvd_result *res)
{
    struct gensvd_array_view ids, u;
    int rc = gensvd_result_array(res, "sample_id", &ids);

    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "sample_pca_projection", &u);
    if (rc != GENSVD_OK)
        return rc;
    printf("sample_id");
    for (uint64_t q = 0; q < u.shape[1]; q++)
        printf("\tPC%llu", (unsigned long long)q + 1);
    putchar('\n');
    for (uint64_t i = 0; i < u.shape[0]; i++) {
        fputs(((const char *const *)ids.data)[i], stdout);
        for (uint64_t q = 0; q < u.shape[1]; q++)
            printf("\t%.17g", ((const double *)u.data)[i * u.shape[1] + q]);
        putchar('\n');
    }
    return gsvd_cli_stdout_done();
}

/* The variant matching (-v) and the summary, from the result's attributes. */
static void report(const gensvd_result *res)
{
    if (gsvd_cli_log_level() >= GENSVD_LOG_INFO) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "matched %llu of %llu reference variants (%llu with swapped alleles, dosage "
                 "flipped); input variants %llu: dropped %llu at positions the reference lacks, "
                 "%llu with other alleles, %llu strand-ambiguous swaps, %llu duplicates",
                 attr(res, "variants_matched"), attr(res, "variants_reference"),
                 attr(res, "variants_swapped"), attr(res, "variants_input"),
                 attr(res, "variants_not_found"), attr(res, "variants_allele_mismatch"),
                 attr(res, "variants_ambiguous"), attr(res, "variants_duplicate"));
        gsvd_cli_msg_log(GENSVD_LOG_INFO, msg);
    }
    const char *lsq = gensvd_result_attr_string(res, "missing");
    gsvd_cli_note("%llu samples projected on %llu PCs over %llu of %llu reference variants; "
                  "%llu missing calls %s",
                  attr(res, "N"), attr(res, "k"), attr(res, "variants_matched"),
                  attr(res, "variants_reference"), attr(res, "missing_calls"),
                  lsq ? "left out (least squares)" : "set to the reference mean");
}

static int run(const struct project_opts *o, const char *input, int tsv, const char *command)
{
    struct gsvd_cli_run r = {.cmd = "project",
                             .analysis = GENSVD_PROJECT,
                             .spec = &gsvd_cmd_project_spec,
                             .target = o,
                             .command = command,
                             .common = &o->common,
                             .unit = "variants",
                             .output = o->output,
                             .force = o->force,
                             .zout = &o->zout,
                             .input = input,
                             .geno = &o->geno,
                             .samples_file = o->samples_file};
    int rc = gsvd_cli_run_open(&r);

    if (rc == GENSVD_OK)
        rc = gensvd_run(r.ctx, r.opt, r.src, r.dest, &r.res);
    if (rc == GENSVD_OK)
        report(r.res);
    /* every process of a distributed run holds the result; the first writes it */
    if (rc == GENSVD_OK && tsv && gensvd_mpi_rank() == 0)
        rc = write_tsv(r.res);
    if (rc == GENSVD_OK)
        gsvd_cli_done_to(o->output, tsv ? "the scores" : NULL);
    gsvd_cli_run_close(&r);
    return rc;
}

int gsvd_cmd_project(int argc, char **argv)
{
    struct project_opts o = {.geno = GSVD_CLI_GENO_DEFAULT, .common = GSVD_CLI_COMMON_DEFAULT};
    char *command;
    int first, rc = gsvd_opts_parse(&gsvd_cmd_project_spec, argc, argv, &o, &first);

    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    if (first != argc - 1)
        return gsvd_cli_usage_error("project",
                                    first >= argc ? "missing INPUT" : "too many arguments");
    if (!o.pcs)
        return gsvd_cli_usage_error("project", "missing --pcs (the output of pca --loadings)");
    if (gsvd_cli_zarr_out_check("project", &o.zout, o.output) != 0)
        return GSVD_EXIT_USAGE;
    gsvd_cli_common_apply(&o.common);
    command = gsvd_cli_command_line(argc, argv);
    rc = run(&o, argv[first], o.format != NULL || !o.output, command);
    gsvd_cli_free(command);
    return gsvd_cli_exit_code(rc);
}
