/* cli/cmd_ldprune.c - `gensvd ldprune`: LD pruning (plink2 --indep-pairwise semantics), run by
 * the library (include/gensvd.h, GENSVD_LDPRUNE), into a boolean variant_ld_keep array, or a
 * TSV on stdout from the variant table the result holds.  (`pca --ld-prune` shares the
 * --window parser, gsvd_cli_parse_window.) */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_base.h"
#include "cli/opts_source.h"
#include "include/gensvd.h"

struct ld_opts {
    const char *output, *format, *samples_file;
    const char *window; /* --window as given (checked while parsing) */
    int force;
    uint64_t step;
    double r2;
    struct gsvd_cli_geno geno;
    struct gsvd_cli_zarr_out zout;
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
     .lib = "window",
     .arg = "SIZE",
     .parse = parse_window,
     .help = "window: INT variants, or INTkb / INTbp along\nvariant_position within each "
             "variant_contig [required]"},
    {.name = "step",
     .type = GSVD_OPT_UINT,
     LD(step),
     .lib = "step",
     .arg = "INT",
     .lo = 1,
     .hi = (uint64_t)1 << 40,
     .range = ">= 1",
     .help = "variants the window moves by [1]"},
    {.name = "r2",
     .type = GSVD_OPT_DOUBLE,
     LD(r2),
     .lib = "r2",
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
    GSVD_OPT_IN_KEEP_REMOVE(struct ld_opts),
    GSVD_OPT_IN_MIND(struct ld_opts),
    GSVD_OPT_IN_MAF(struct ld_opts),
    GSVD_OPT_IN_MAX_MISSING(struct ld_opts),
    GSVD_OPT_IN_HWE(struct ld_opts),
    GSVD_OPT_IN_CHR(struct ld_opts),
    GSVD_OPT_IN_VAR_LISTS(struct ld_opts),
    GSVD_OPT_IN_VAR_FILTER(struct ld_opts),
    GSVD_OPT_IN_VAR_FILTER_EXCEPT(struct ld_opts),
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
    .n_groups = GSVD_CLI_LEN(ld_groups),
    .opts_size = sizeof(struct ld_opts),
    .footer = "Exit status: 0 success, 1 failure, 2 usage error.\n",
};

/* Decimal digits of v at p; returns the end. */
static char *put_u64(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static char *put_i64(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return put_u64(p, 0 - (uint64_t)v);
    }
    return put_u64(p, (uint64_t)v);
}

/* The variant table on stdout: variant, contig (its contig_id name, else the index), position
 * ("." without variant_position), keep, from the arrays the result holds; a line at a time
 * through a buffer (printf's parsing was a tenth of a million-variant run). */
static int write_tsv(const gensvd_result *res)
{
    struct gensvd_array_view index, contig, pos, names, keep;
    int has_pos, rc = gensvd_result_array(res, "variant_index", &index);
    char line[96];

    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "variant_contig", &contig);
    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "variant_ld_keep", &keep);
    if (rc != GENSVD_OK)
        return rc;
    has_pos = gensvd_result_array(res, "variant_position", &pos) == GENSVD_OK;
    if (gensvd_result_array(res, "contig_id", &names) != GENSVD_OK)
        names.shape[0] = 0;
    fputs("variant\tcontig\tposition\tkeep\n", stdout);
    for (uint64_t k = 0; k < index.shape[0]; k++) {
        uint64_t v = ((const uint64_t *)index.data)[k];
        int64_t c = ((const int64_t *)contig.data)[k];
        char *p = put_u64(line, v);
        *p++ = '\t';
        if (c >= 0 && (uint64_t)c < names.shape[0]) {
            fwrite(line, 1, (size_t)(p - line), stdout);
            fputs(((const char *const *)names.data)[c], stdout);
            p = line;
        } else {
            p = put_i64(p, c);
        }
        *p++ = '\t';
        if (has_pos)
            p = put_i64(p, ((const int64_t *)pos.data)[k]);
        else
            *p++ = '.';
        *p++ = '\t';
        *p++ = ((const uint8_t *)keep.data)[v] ? '1' : '0';
        *p++ = '\n';
        fwrite(line, 1, (size_t)(p - line), stdout);
    }
    return gsvd_cli_stdout_done();
}

/* The run without its destination, then the summary, the output and the table, in the order
 * the command always printed them (a write error comes after the summary); a distributed run
 * writes in the run (rank 0), before the summary. */
static int run(const struct ld_opts *o, const char *input, int tsv, const char *command)
{
    struct gsvd_cli_run r = {.cmd = "ldprune",
                             .analysis = GENSVD_LDPRUNE,
                             .spec = &gsvd_cmd_ldprune_spec,
                             .target = o,
                             .command = command,
                             .common = &o->common,
                             .output = o->output,
                             .force = o->force,
                             .zout = &o->zout,
                             .input = input,
                             .geno = &o->geno,
                             .samples_file = o->samples_file};
    struct gensvd_array_view index = {0};
    int dist = gensvd_mpi_size() > 1, rc = gsvd_cli_run_open(&r);

    /* distributed: rank 0 writes in the run, and every rank learns how that went */
    if (rc == GENSVD_OK)
        rc = gensvd_run(r.ctx, r.opt, r.src, dist ? r.dest : NULL, &r.res);
    if (rc == GENSVD_OK)
        rc = gensvd_result_array(r.res, "variant_index", &index);
    if (rc == GENSVD_OK)
        gsvd_cli_note("%.0f of %llu variants kept (%.0f considered: %.0f pruned by LD, %.0f "
                      "monomorphic)",
                      gsvd_cli_attr(r.res, "n_kept"), (unsigned long long)index.shape[0],
                      gsvd_cli_attr(r.res, "n_considered"), gsvd_cli_attr(r.res, "n_pruned"),
                      gsvd_cli_attr(r.res, "n_monomorphic"));
    if (rc == GENSVD_OK && r.dest && !dist)
        rc = gensvd_result_write(r.ctx, r.res, r.dest);
    /* every process of a distributed run holds the result; the first prints it */
    if (rc == GENSVD_OK && tsv && gensvd_mpi_rank() == 0)
        rc = write_tsv(r.res);
    if (rc == GENSVD_OK)
        gsvd_cli_done_to(o->output, tsv ? "the variant table" : NULL);
    gsvd_cli_run_close(&r);
    return rc;
}

int gsvd_cmd_ldprune(int argc, char **argv)
{
    struct ld_opts o = {
        .step = 1, .r2 = 0.2, .geno = GSVD_CLI_GENO_DEFAULT, .common = GSVD_CLI_COMMON_DEFAULT};
    char *command;
    uint64_t w, bp;
    int tsv, first, rc = gsvd_opts_parse(&gsvd_cmd_ldprune_spec, argc, argv, &o, &first);

    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    if (first != argc - 1)
        return gsvd_cli_usage_error("ldprune",
                                    first >= argc ? "missing INPUT" : "too many arguments");
    if (!o.window)
        return gsvd_cli_usage_error("ldprune", "--window is required (e.g. 1000 or 500kb)");
    if (gsvd_cli_parse_window(o.window, &w, &bp) < 0)
        return GSVD_EXIT_INTERNAL; /* checked while parsing */
    if (!(o.r2 < 1))
        return gsvd_cli_usage_error("ldprune", "invalid --r2 '%g' (0 <= X < 1)", o.r2);
    if (gsvd_cli_zarr_out_check("ldprune", &o.zout, o.output) != 0)
        return GSVD_EXIT_USAGE;
    tsv = o.format != NULL || !o.output;
    gsvd_cli_common_apply(&o.common);
    command = gsvd_cli_command_line(argc, argv);
    rc = run(&o, argv[first], tsv, command);
    gsvd_cli_free(command);
    return gsvd_cli_exit_code(rc);
}
