/* cli/cmd_related.c - `gensvd related`: a maximal unrelated sample set from KING kinship (plink2
 * --king-cutoff semantics), run by the library (include/gensvd.h, GENSVD_RELATED), as a Zarr
 * sample mask or a list of kept IDs. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_base.h"
#include "cli/opts_source.h"
#include "include/gensvd.h"

/* Without --memory the kinship bands are held to this working set. */
#define RELATED_DEFAULT_MEMORY ((uint64_t)1 << 30)

struct related_opts {
    const char *output, *samples_file, *device;
    const char *format; /* --format tsv */
    int force;
    double cutoff;
    uint64_t memory;
    struct gsvd_cli_geno geno;
    struct gsvd_cli_zarr_out zout;
    struct gsvd_cli_common common;
};

static int parse_cutoff(const char *cmd, const char *arg, void *field)
{
    double x;
    if (gsvd_cli_parse_double(arg, -1, 0.5, &x) < 0 || !(x < 0.5))
        return gsvd_cli_usage_error(cmd, "invalid --king-cutoff '%s' (a kinship in [-1, 0.5))",
                                    arg);
    memcpy(field, &x, sizeof x);
    return 0;
}

#define REL(field) GSVD_OPT_FIELD(struct related_opts, field)
static const struct gsvd_opt related_options[] = {
    {.name = "king-cutoff",
     .key = 'c',
     .type = GSVD_OPT_CALL,
     REL(cutoff),
     .arg = "X",
     .parse = parse_cutoff,
     .help = "kinship threshold, -1 <= X < 0.5 [0.0884]: 0.354 duplicates\nand MZ twins, 0.177 "
             "also first degree, 0.0884 also second,\n0.0442 also third"},
    GSVD_OPT_OUTPUT(struct related_opts, "Zarr group: sample_unrelated (bool, samples), "
                                         "sample_id and\nthe counts as attributes; pca "
                                         "--sample-mask reads it"),
    GSVD_OPT_FORCE(struct related_opts),
    GSVD_OPT_FORMAT_TSV(struct related_opts, "the kept sample IDs on stdout, one per line after "
                                             "a #IID\nheader (plink2's .king.cutoff.in.id; "
                                             "default without -o)"),
};
static const struct gsvd_opt input_options[] = {
    {.name = "memory",
     .type = GSVD_OPT_BYTES,
     REL(memory),
     .lib = "memory",
     .arg = "SIZE",
     .lo = 1,
     .range = "e.g. 2G",
     .help = "working set of the kinship bands [1G]"},
    {.name = "device",
     .key = 'd',
     .type = GSVD_OPT_CALL,
     REL(device),
     .arg = "DEV",
     .parse = gsvd_opt_parse_device,
     .choices = gsvd_opt_device_names,
     .help = "auto, cpu or gpu [auto]\n(gpu: the bit-plane KING counts on the device, "
             "identical)"},
    GSVD_OPT_IN_ARRAY(struct related_opts),
    {.name = "variants",
     .type = GSVD_OPT_CALL,
     REL(geno.var_start),
     .arg = "A:B",
     .parse = gsvd_opt_parse_variants,
     .help = "only variants A (inclusive) to B (exclusive)"},
    {.name = "all-contigs",
     .type = GSVD_OPT_FLAG,
     REL(geno.all_contigs),
     .value = 1,
     .help = "count every contig; by default, as plink2's --king-cutoff,\nvariants on X, Y and "
             "MT (by contig_id: X, 23, Y, 24, MT, M,\n26, with or without chr) are left out"},
    GSVD_OPT_IN_SAMPLES(struct related_opts),
    GSVD_OPT_IN_KEEP_REMOVE(struct related_opts),
    GSVD_OPT_IN_MIND(struct related_opts),
    GSVD_OPT_IN_CHR(struct related_opts),
    GSVD_OPT_IN_VAR_LISTS(struct related_opts),
    GSVD_OPT_IN_VAR_FILTER(struct related_opts),
    GSVD_OPT_IN_VAR_FILTER_EXCEPT(struct related_opts),
};
static const struct gsvd_opt_group related_group = GSVD_OPT_GROUP(NULL, related_options);
static const struct gsvd_opt_group input_group = GSVD_OPT_GROUP(NULL, input_options);
static const struct gsvd_opt_bind related_groups[] = {
    {&related_group, 0},
    {&gsvd_opts_zarr_out, offsetof(struct related_opts, zout)},
    {&input_group, 0},
    GSVD_OPTS_BIND_COMMON(struct related_opts),
};
const struct gsvd_cmd_spec gsvd_cmd_related_spec = {
    .name = "related",
    .intro =
        "Usage: gensvd related [options] INPUT\n"
        "A maximal set of unrelated samples: every pair whose KING-robust kinship (gensvd\n"
        "pdist --metric king, plink2 --make-king) is greater than the cutoff is related, and\n"
        "samples are removed in plink2 --king-cutoff's greedy order (the relative of the first\n"
        "sample with exactly one relative left; else the first sample with the most) until no\n"
        "related pair is left.  INPUT holds diploid genotype calls (VCF-Zarr, scikit-allel, or\n"
        "an integer 2-D array named with --array).\n",
    .groups = related_groups,
    .n_groups = GSVD_CLI_LEN(related_groups),
    .opts_size = sizeof(struct related_opts),
    .footer = "Exit status: 0 success, 1 failure, 2 usage error.\n",
};

/* The kept sample IDs on stdout after a #IID header (plink2's .king.cutoff.in.id). */
static int write_tsv(const gensvd_result *res)
{
    struct gensvd_array_view ids, keep;
    int rc = gensvd_result_array(res, "sample_id", &ids);

    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "sample_unrelated", &keep);
    if (rc != GENSVD_OK)
        return rc;
    puts("#IID");
    for (uint64_t i = 0; i < ids.shape[0]; i++)
        if (((const uint8_t *)keep.data)[i])
            puts(((const char *const *)ids.data)[i]);
    return gsvd_cli_stdout_done();
}

static int run(const struct related_opts *o, const char *input, int tsv, const char *command)
{
    struct gsvd_cli_run r = {.cmd = "related",
                             .analysis = GENSVD_RELATED,
                             .spec = &gsvd_cmd_related_spec,
                             .target = o,
                             .command = command,
                             .common = &o->common,
                             .device = o->device,
                             .unit = "variants",
                             .output = o->output,
                             .force = o->force,
                             .zout = &o->zout,
                             .input = input,
                             .geno = &o->geno,
                             .samples_file = o->samples_file};
    int rc = gsvd_cli_run_open(&r);

    if (rc == GENSVD_OK)
        rc = gensvd_options_set_double(r.opt, "king-cutoff", o->cutoff);
    if (rc == GENSVD_OK)
        rc = gensvd_run(r.ctx, r.opt, r.src, r.dest, &r.res);
    if (rc == GENSVD_OK)
        gsvd_cli_note("%.0f samples, %.0f variants, %.0f pairs with kinship > %g among %.0f "
                      "samples: %.0f removed, %.0f kept",
                      gsvd_cli_attr(r.res, "N"), gsvd_cli_attr(r.res, "M"),
                      gsvd_cli_attr(r.res, "n_related_pairs"), o->cutoff,
                      gsvd_cli_attr(r.res, "n_related_samples"), gsvd_cli_attr(r.res, "n_removed"),
                      gsvd_cli_attr(r.res, "n_unrelated"));
    /* every process of a distributed run holds the result; the first writes it */
    if (rc == GENSVD_OK && tsv && gensvd_mpi_rank() == 0)
        rc = write_tsv(r.res);
    if (rc == GENSVD_OK)
        gsvd_cli_done_to(o->output, tsv ? "the unrelated samples" : NULL);
    gsvd_cli_run_close(&r);
    return rc;
}

int gsvd_cmd_related(int argc, char **argv)
{
    struct related_opts o = {.device = "auto",
                             .cutoff = 0.0884,
                             .memory = RELATED_DEFAULT_MEMORY,
                             .geno = GSVD_CLI_GENO_DEFAULT,
                             .common = GSVD_CLI_COMMON_DEFAULT};
    char *command;
    int tsv, first, rc = gsvd_opts_parse(&gsvd_cmd_related_spec, argc, argv, &o, &first);

    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    if (first >= argc)
        return gsvd_cli_usage_error("related", "missing INPUT");
    if (first < argc - 1)
        return gsvd_cli_usage_error("related", "too many arguments");
    tsv = o.format != NULL || !o.output;
    if (gsvd_cli_zarr_out_check("related", &o.zout, o.output) != 0)
        return GSVD_EXIT_USAGE;
    gsvd_cli_common_apply(&o.common);
    command = gsvd_cli_command_line(argc, argv);
    rc = run(&o, argv[first], tsv, command);
    gsvd_cli_free(command);
    return gsvd_cli_exit_code(rc);
}
