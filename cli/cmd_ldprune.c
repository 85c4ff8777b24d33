/* cli/cmd_ldprune.c - `gensvd ldprune`: LD pruning (plink2 --indep-pairwise semantics) into a
 * boolean variant_ld_keep array, or a TSV on stdout; also the pruning step of
 * `pca --ld-prune` (gsvd_cli_ldprune_mask) and the --window / --ld-prune parsers. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/scan/genotype.h"
#include "analysis/ldprune/ldprune.h"
#include "cli/cli.h"
#include "cli/cli_mask.h"
#include "cli/opts_input.h"
#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/codec.h"
#include "zarr/meta.h"
#include "zarr/reader.h"
#include "zarr/writer.h"

struct ld_opts {
    const char *input, *output, *format, *samples_file;
    const char *window; /* --window as given (checked while parsing) */
    int force;
    struct gsvd_geno_params geno;
    struct gsvd_ldprune_params lp;
    struct gsvd_cli_zarr_out zout;
    char *command;
    struct gsvd_cli_common common;
};

static int parse_window(const char *cmd, const char *arg, void *field)
{
    uint64_t w, bp;
    if (gsvd_cli_parse_window(arg, &w, &bp) < 0)
        return gsvd_cli_usage_error(
            cmd, "invalid --window '%s' (INT >= 2 variants, or INTkb, INTbp)", arg);
    memcpy(field, &arg, sizeof arg);
    return 0;
}

#define LD(field) GSVD_OPT_FIELD(struct ld_opts, field)
static const struct gsvd_opt out_options[] = {
    GSVD_OPT_OUTPUT(struct ld_opts, "Zarr group with variant_ld_keep (bool, variants), for\n"
                                    "pca/pdist --variant-mask PATH"),
    GSVD_OPT_FORCE(struct ld_opts),
    GSVD_OPT_FORMAT_TSV(struct ld_opts, "variant, contig, position, keep on stdout"),
};
static const struct gsvd_opt prune_options[] = {
    {.name = "window",
     .key = 'w',
     .type = GSVD_OPT_CALL,
     LD(window),
     .arg = "SIZE",
     .parse = parse_window,
     .help = "window: INT variants, or INTkb / INTbp along\nvariant_position within each "
             "variant_contig [required]"},
    {.name = "step",
     .type = GSVD_OPT_UINT,
     LD(lp.step),
     .arg = "INT",
     .lo = 1,
     .hi = (uint64_t)1 << 40,
     .range = ">= 1",
     .help = "variants the window moves by [1]"},
    {.name = "r2",
     .type = GSVD_OPT_DOUBLE,
     LD(lp.r2),
     .arg = "X",
     .dlo = 0,
     .dhi = 1,
     .range = "0 <= X < 1",
     .help = "r^2 threshold, 0 <= X < 1 [0.2]"},
};
static const struct gsvd_opt input_options[] = {
    GSVD_OPT_IN_ARRAY(struct ld_opts),
    GSVD_OPT_IN_TRANSPOSE(struct ld_opts),
    {.name = "ploidy",
     .type = GSVD_OPT_UINT,
     LD(geno.ploidy),
     .arg = "INT",
     .lo = 1,
     .hi = 2,
     .range = "1 or 2",
     .help = "dosage scale of a 2-D array (1 or 2) [2]"},
    GSVD_OPT_IN_VARIANTS(struct ld_opts),
    GSVD_OPT_IN_SAMPLES(struct ld_opts),
    GSVD_OPT_IN_MAF(struct ld_opts),
    GSVD_OPT_IN_MAX_MISSING(struct ld_opts),
};
static const struct gsvd_opt_group out_group =
    GSVD_OPT_GROUP("Output (default: TSV on stdout):", out_options);
static const struct gsvd_opt_group prune_group = GSVD_OPT_GROUP("Pruning:", prune_options);
static const struct gsvd_opt_group input_group = GSVD_OPT_GROUP("Input:", input_options);
static const struct gsvd_opt_bind ld_groups[] = {
    {&out_group, 0},
    {&gsvd_opts_zarr_out, offsetof(struct ld_opts, zout)},
    {&prune_group, 0},
    {&input_group, 0},
    GSVD_OPTS_BIND_COMMON(struct ld_opts),
};
const struct gsvd_cmd_spec gsvd_cmd_ldprune_spec = {
    .name = "ldprune",
    .intro = "Usage: gensvd ldprune [options] INPUT\n"
             "Variants in approximate linkage equilibrium (plink2 --indep-pairwise): in a window\n"
             "sliding along each contig, pairs with r^2 above --r2 lose the variant with the\n"
             "lower minor allele frequency (the later one on a tie), in plink2's greedy order\n"
             "(man gensvd-ldprune); r^2 of dosages over the samples called in both; monomorphic\n"
             "variants are removed.\n",
    .groups = ld_groups,
    .n_groups = GSVD_ARRAY_LEN(ld_groups),
    .opts_size = sizeof(struct ld_opts),
    .footer = "Exit status: 0 success, 1 failure, 2 usage error.\n",
};

static int write_zarr(const struct ld_opts *o, const struct gsvd_ldprune_result *r,
                      int input_format)
{
    struct gsvd_writer_params wp = gsvd_cli_zarr_out_params(&o->zout, input_format);
    struct gsvd_ldprune_store_info info = {.command = o->command,
                                           .source = o->input,
                                           .lp = &o->lp,
                                           .geno = &o->geno,
                                           .samples_subset = o->samples_file != NULL};
    gsvd_result *res = NULL;
    int rc = gsvd_ldprune_store_build(&info, r, &res);
    if (rc == GSVD_OK)
        rc = gsvd_result_write(res, o->output, o->force, &wp, 1);
    gsvd_result_free(res);
    return rc;
}

/* contig_id names beside the genotype array's group root, when present. */
static void contig_names(struct gsvd_cli_input *in, struct gsvd_strlist *names)
{
    char *path = NULL;
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    if (gsvd_key_join(in->node, "contig_id", &path) == GSVD_OK &&
        gsvd_tree_node_kind(in->tree, path) == GSVD_NODE_ARRAY &&
        gsvd_array_open(in->tree, path, &a) == GSVD_OK && gsvd_array_meta(a)->ndim == 1 &&
        gsvd_reader_new(a, &r) == GSVD_OK &&
        gsvd_reader_read_strings(r, 0, gsvd_array_meta(a)->shape[0], names) < 0)
        gsvd_strlist_free(names);
    gsvd_reader_free(r);
    gsvd_array_close(a);
    gsvd_free(path);
}

static int write_tsv(struct gsvd_cli_input *in, const struct gsvd_ldprune_result *r)
{
    struct gsvd_strlist names = GSVD_STRLIST_INIT;
    contig_names(in, &names);
    printf("variant\tcontig\tposition\tkeep\n");
    for (uint64_t v = r->range_start; v < r->range_stop; v++) {
        uint64_t k = v - r->range_start;
        int64_t c = r->contig[k];
        printf("%llu\t", (unsigned long long)v);
        if (c >= 0 && (uint64_t)c < names.n)
            fputs(names.items[c], stdout);
        else
            printf("%lld", (long long)c);
        if (r->position)
            printf("\t%lld\t%d\n", (long long)r->position[k], r->keep[v]);
        else
            printf("\t.\t%d\n", r->keep[v]);
    }
    gsvd_strlist_free(&names);
    return ferror(stdout) ? GSVD_EIO : GSVD_OK;
}

static int run(struct ld_opts *o, const struct gsvd_cli_common *common)
{
    struct gsvd_cli_input in = {0};
    struct gsvd_strlist samples = GSVD_STRLIST_INIT;
    struct gsvd_ldprune_result r = {0};
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_cli_check_outputs(o->output, o->force, NULL, 0)); /* before any input */
    if (o->samples_file) {
        GSVD_TRY(gsvd_cli_read_ids(o->samples_file, &samples));
        o->geno.samples = &samples;
    }
    GSVD_TRY(gsvd_cli_open_input(o->input, NULL, &in));
    if (o->output)
        GSVD_TRY(gsvd_cli_zarr_out_check_input("ldprune", &o->zout, gsvd_tree_format(in.tree)));
    o->geno.n_threads = common->threads;
    o->lp.n_threads = common->threads;
    GSVD_TRY(gsvd_cli_ldprune_mask(&in, &o->geno, &o->lp, &r));
    gsvd_cli_note("%llu of %llu variants kept (%llu considered: %llu pruned by LD, %llu "
                  "monomorphic)",
                  (unsigned long long)r.n_kept, (unsigned long long)(r.range_stop - r.range_start),
                  (unsigned long long)r.n_considered, (unsigned long long)r.n_pruned,
                  (unsigned long long)r.n_monomorphic);
    if (o->output)
        GSVD_TRY(write_zarr(o, &r, gsvd_tree_format(in.tree)));
    if (o->format || !o->output)
        GSVD_TRY(write_tsv(&in, &r));
    {
        char where[1024];
        snprintf(where, sizeof where, "%s%s%s", o->output ? o->output : "",
                 o->output && o->format ? " and " : "",
                 o->format || !o->output ? "the variant table to standard output" : "");
        gsvd_cli_done(where);
    }
out:
    gsvd_ldprune_result_free(&r);
    gsvd_cli_close_input(&in);
    gsvd_strlist_free(&samples);
    return rc;
}

int gsvd_cmd_ldprune(int argc, char **argv)
{
    struct ld_opts o = {.geno = GSVD_GENO_PARAMS_DEFAULT,
                        .lp = GSVD_LDPRUNE_PARAMS_DEFAULT,
                        .common = GSVD_CLI_COMMON_DEFAULT};
    int first, rc = gsvd_opts_parse(&gsvd_cmd_ldprune_spec, argc, argv, &o, &first);

    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    if (first != argc - 1)
        return gsvd_cli_usage_error("ldprune",
                                    first >= argc ? "missing INPUT" : "too many arguments");
    if (!o.window)
        return gsvd_cli_usage_error("ldprune", "--window is required (e.g. 1000 or 500kb)");
    if (gsvd_cli_parse_window(o.window, &o.lp.window, &o.lp.window_bp) < 0)
        return GSVD_EXIT_INTERNAL; /* checked while parsing */
    if (!(o.lp.r2 < 1))
        return gsvd_cli_usage_error("ldprune", "invalid --r2 '%g' (0 <= X < 1)", o.lp.r2);
    if (gsvd_cli_zarr_out_check("ldprune", &o.zout) != 0)
        return GSVD_EXIT_USAGE;
    o.input = argv[first];
    gsvd_cli_common_apply(&o.common);
    o.command = gsvd_cli_command_line(argc, argv);
    rc = run(&o, &o.common);
    gsvd_free(o.command);
    return gsvd_cli_exit_code(rc);
}
