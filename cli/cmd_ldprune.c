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

int gsvd_cli_parse_window(const char *s, uint64_t *variants, uint64_t *bp)
{
    size_t n = strlen(s);
    uint64_t v;
    char num[32];
    *variants = 0;
    *bp = 0;
    if (n >= 3 && n < sizeof num &&
        (strcmp(s + n - 2, "kb") == 0 || strcmp(s + n - 2, "bp") == 0)) {
        memcpy(num, s, n - 2);
        num[n - 2] = '\0';
        if (gsvd_cli_parse_uint(num, 1, (uint64_t)1 << 40, 0, &v) < 0)
            return -1;
        *bp = s[n - 2] == 'k' ? v * 1000 : v;
        return 0;
    }
    if (gsvd_cli_parse_uint(s, 2, (uint64_t)1 << 40, 0, &v) < 0)
        return -1;
    *variants = v;
    return 0;
}

int gsvd_cli_parse_ld_prune(const char *s, struct gsvd_ldprune_params *p)
{
    char buf[128], *c1, *c2;
    size_t len = strlen(s);
    if (len >= sizeof buf)
        return -1;
    memcpy(buf, s, len + 1);
    c1 = strchr(buf, ',');
    if (!c1)
        return -1;
    *c1++ = '\0';
    c2 = strchr(c1, ',');
    if (c2)
        *c2++ = '\0';
    if (gsvd_cli_parse_double(buf, 0, 1, &p->r2) < 0 || !(p->r2 < 1))
        return -1;
    if (gsvd_cli_parse_window(c1, &p->window, &p->window_bp) < 0)
        return -1;
    p->step = 1;
    if (c2 && gsvd_cli_parse_uint(c2, 1, (uint64_t)1 << 40, 0, &p->step) < 0)
        return -1;
    return 0;
}

int gsvd_cli_ldprune_mask(struct gsvd_cli_input *in, const struct gsvd_geno_params *geno,
                          const struct gsvd_ldprune_params *lp, struct gsvd_ldprune_result *out)
{
    struct gsvd_geno_params gp = *geno;
    gsvd_geno *g = NULL;
    int rc = GSVD_OK;

    gp.scaler = GSVD_SCALER_CENTER; /* keeps monomorphic variants: they count in windows */
    gp.missing_error = 0;
    gp.cache_bytes = 0;
    GSVD_TRY(gsvd_geno_open(in->tree, in->node, &gp, &g));
    GSVD_TRY(gsvd_ldprune_run(g, in->tree, lp, out));
    gsvd_log_info("ldprune: %llu variants considered, %llu kept, %llu pruned by LD, %llu "
                  "monomorphic; %llu r^2 values",
                  (unsigned long long)out->n_considered, (unsigned long long)out->n_kept,
                  (unsigned long long)out->n_pruned, (unsigned long long)out->n_monomorphic,
                  (unsigned long long)out->n_pairs);
out:
    gsvd_geno_close(g);
    return rc;
}

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
    gsvd_writer *w = NULL;
    gsvd_codec_ws *ws = NULL;
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    uint64_t n = r->n_array, chunk = n < 1000000 ? (n ? n : 1) : 1000000;
    uint8_t fill = 0;
    gsvd_warray *a;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_codec_ws_new(&ws));
    struct gsvd_writer_params wp = gsvd_cli_zarr_out_params(&o->zout, input_format);
    GSVD_TRY(gsvd_writer_open_params(o->output, o->force, &wp, &w));
    GSVD_TRY(
        gsvd_buf_printf(&attrs, "{\n    \"version\": \"%s\",\n    \"command\": ", GSVD_VERSION));
    GSVD_TRY(gsvd_json_quote(&attrs, o->command ? o->command : ""));
    GSVD_TRY(gsvd_buf_puts(&attrs, ",\n    \"source\": "));
    GSVD_TRY(gsvd_json_quote(&attrs, o->input));
    GSVD_TRY(gsvd_buf_printf(
        &attrs,
        ",\n    \"method\": \"indep-pairwise\",\n    \"r2\": %.17g,\n    \"window_variants\": "
        "%llu,\n    \"window_bp\": %llu,\n    \"step\": %llu,\n    \"variant_range\": [%llu, "
        "%llu],\n    \"maf\": %.17g,\n    \"max_missing\": %.17g,\n    \"n_samples\": %s,\n"
        "    \"n_variants\": %llu,\n    \"n_considered\": %llu,\n    \"n_kept\": %llu,\n"
        "    \"n_removed\": %llu,\n    \"n_pruned\": %llu,\n    \"n_monomorphic\": %llu\n}",
        o->lp.r2, (unsigned long long)o->lp.window, (unsigned long long)o->lp.window_bp,
        (unsigned long long)o->lp.step, (unsigned long long)r->range_start,
        (unsigned long long)r->range_stop, o->geno.maf, o->geno.max_missing,
        o->samples_file ? "\"subset\"" : "\"all\"", (unsigned long long)r->n_array,
        (unsigned long long)r->n_considered, (unsigned long long)r->n_kept,
        (unsigned long long)(r->n_considered - r->n_kept), (unsigned long long)r->n_pruned,
        (unsigned long long)r->n_monomorphic));
    GSVD_TRY(gsvd_writer_group(w, "", attrs.data));
    struct gsvd_array_spec s = {.path = "variant_ld_keep",
                                .ndim = 1,
                                .shape = {n},
                                .chunks = {chunk},
                                .dtype = {'b', '|', 1},
                                .dims = {"variants"},
                                .fill = &fill};
    GSVD_TRY(gsvd_writer_array(w, &s, &a));
    for (uint64_t r0 = 0; r0 < n; r0 += chunk)
        GSVD_TRY(gsvd_warray_write_rows(a, ws, r0, n - r0 < chunk ? n - r0 : chunk, r->keep + r0));
    GSVD_TRY(gsvd_writer_commit(w));
out:
    gsvd_writer_close(w);
    gsvd_codec_ws_free(ws);
    gsvd_buf_free(&attrs);
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
    if (common->verbosity >= 0 && o->output)
        fprintf(stderr,
                "[ldprune] %llu of %llu variants kept (%llu considered: %llu pruned by LD, "
                "%llu monomorphic)\n",
                (unsigned long long)r.n_kept, (unsigned long long)(r.range_stop - r.range_start),
                (unsigned long long)r.n_considered, (unsigned long long)r.n_pruned,
                (unsigned long long)r.n_monomorphic);
    if (o->output)
        GSVD_TRY(write_zarr(o, &r, gsvd_tree_format(in.tree)));
    if (o->format || !o->output)
        GSVD_TRY(write_tsv(&in, &r));
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
