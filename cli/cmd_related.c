/* cli/cmd_related.c - `gensvd related`: a maximal unrelated sample set from KING kinship (plink2
 * --king-cutoff semantics, analysis/related/related.h), as a Zarr sample mask or a list of kept
 * IDs. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "analysis/backend.h"
#include "analysis/scan/genotype.h"
#include "analysis/related/related.h"
#include "cli/cli.h"
#include "cli/cli_mask.h"
#include "cli/opts_input.h"
#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/meta.h"
#include "zarr/writer.h"

/* Without --memory the kinship bands are held to this working set. */
#define RELATED_DEFAULT_MEMORY ((uint64_t)1 << 30)

struct related_opts {
    const char *input, *output, *samples_file, *device;
    const char *format;    /* --format tsv */
    gsvd_backend *backend; /* --device: where the kinship pairs are counted (owned) */
    int force, tsv;
    int all_contigs; /* --all-contigs: X, Y and MT too (analysis/scan/autosomes.h) */
    double cutoff;
    uint64_t memory;
    struct gsvd_geno_params geno;
    struct gsvd_cli_zarr_out zout;
    char *command;
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
     REL(all_contigs),
     .value = 1,
     .help = "count every contig; by default, as plink2's --king-cutoff,\nvariants on X, Y and "
             "MT (by contig_id: X, 23, Y, 24, MT, M,\n26, with or without chr) are left out"},
    GSVD_OPT_IN_SAMPLES(struct related_opts),
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
    .n_groups = GSVD_ARRAY_LEN(related_groups),
    .opts_size = sizeof(struct related_opts),
    .footer = "Exit status: 0 success, 1 failure, 2 usage error.\n",
};

/* The Zarr group: sample_id, sample_unrelated, attributes; staged and committed. */
static int write_zarr(const struct related_opts *o, const struct gsvd_related_result *r,
                      const struct gsvd_strlist *ids, int input_format)
{
    struct gsvd_writer_params wp = gsvd_cli_zarr_out_params(&o->zout, input_format);
    gsvd_result *res = NULL;
    int rc = gsvd_related_store_build(o->command, o->cutoff, r, ids, &res);
    if (rc == GSVD_OK)
        rc = gsvd_result_write(res, o->output, o->force, &wp, 1);
    gsvd_result_free(res);
    return rc;
}

static int run(struct related_opts *o, const struct gsvd_cli_common *common)
{
    struct gsvd_cli_input in = {0};
    struct gsvd_strlist samples = GSVD_STRLIST_INIT;
    struct gsvd_related_result res = {0};
    struct gsvd_related_params rp = {.cutoff = o->cutoff, .pd = GSVD_PDIST_PARAMS_DEFAULT};
    struct gsvd_cli_bar bar;
    struct gsvd_autosomes au = {0};
    const struct gsvd_strlist *ids;
    gsvd_geno *g = NULL;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_cli_check_outputs(o->output, o->force, NULL, 0)); /* before any input */
    if (o->samples_file) {
        GSVD_TRY(gsvd_cli_read_ids(o->samples_file, &samples));
        o->geno.samples = &samples;
    }
    GSVD_TRY(gsvd_cli_open_input(o->input, NULL, &in));
    if (o->output)
        GSVD_TRY(gsvd_cli_zarr_out_check_input("related", &o->zout, gsvd_tree_format(in.tree)));
    o->geno.n_threads = common->threads;
    o->geno.scaler = GSVD_SCALER_NONE; /* raw dosages */
    GSVD_TRY(gsvd_autosomes_apply(in.tree, in.node, o->all_contigs, &au, &o->geno));
    GSVD_TRY(gsvd_geno_open(in.tree, in.node, &o->geno, &g));
    rp.pd.n_threads = common->threads;
    rp.pd.memory = o->memory;
    rp.pd.device = o->backend;
    rp.pd.progress = gsvd_cli_progress(&bar, "variants", common->progress);
    GSVD_TRY(gsvd_related_run(g, &rp, &res));
    ids = gsvd_geno_sample_ids(g);
    gsvd_cli_note("%zu samples, %llu variants, %llu pairs with kinship > %g among %zu "
                  "samples: %zu removed, %zu kept",
                  res.n, (unsigned long long)res.n_variants, (unsigned long long)res.n_pairs,
                  o->cutoff, res.n_related, res.n - res.n_unrelated, res.n_unrelated);
    if (o->output)
        GSVD_TRY(write_zarr(o, &res, ids, gsvd_tree_format(in.tree)));
    if (o->tsv) {
        puts("#IID");
        for (size_t i = 0; i < res.n; i++)
            if (res.unrelated[i])
                puts(ids->items[i]);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            gsvd_log_error("standard output: write failed");
            rc = GSVD_EIO;
        }
    }
    if (rc == GSVD_OK) {
        char where[1024];
        snprintf(where, sizeof where, "%s%s%s", o->output ? o->output : "",
                 o->output && o->tsv ? " and " : "",
                 o->tsv ? "the unrelated samples to standard output" : "");
        gsvd_cli_done(where);
    }
out:
    gsvd_related_result_clear(&res);
    gsvd_geno_close(g);
    gsvd_cli_close_input(&in);
    gsvd_strlist_free(&samples);
    gsvd_autosomes_free(&au);
    return rc;
}

int gsvd_cmd_related(int argc, char **argv)
{
    struct related_opts o = {.device = "auto",
                             .cutoff = 0.0884,
                             .memory = RELATED_DEFAULT_MEMORY,
                             .geno = GSVD_GENO_PARAMS_DEFAULT,
                             .common = GSVD_CLI_COMMON_DEFAULT};
    int first, rc = gsvd_opts_parse(&gsvd_cmd_related_spec, argc, argv, &o, &first);

    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    if (first >= argc)
        return gsvd_cli_usage_error("related", "missing INPUT");
    if (first < argc - 1)
        return gsvd_cli_usage_error("related", "too many arguments");
    o.tsv = o.format != NULL;
    if (gsvd_cli_zarr_out_check("related", &o.zout) != 0)
        return GSVD_EXIT_USAGE;
    o.input = argv[first];
    if (!o.output)
        o.tsv = 1;
    gsvd_cli_common_apply(&o.common);
    o.command = gsvd_cli_command_line(argc, argv);
    {
        struct gsvd_backend_params bp = {.n_threads = o.common.threads};
        /* first, so that an unavailable device fails before any data is read */
        rc = gsvd_backend_open(o.device, &bp, &o.backend);
    }
    if (rc == GSVD_OK)
        rc = run(&o, &o.common);
    gsvd_backend_destroy(o.backend);
    gsvd_free(o.command);
    return gsvd_cli_exit_code(rc);
}
