/* cli/cmd_ldprune.c - `gensvd ldprune`: LD pruning (plink2 --indep-pairwise semantics) into a
 * boolean variant_ld_keep array, or a TSV on stdout; also the pruning step of
 * `pca --ld-prune` (gsvd_cli_ldprune_mask) and the --window / --ld-prune parsers. */
#include "gsvd_config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/genotype.h"
#include "analysis/ldprune.h"
#include "cli/cli.h"
#include "cli/cli_mask.h"
#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/codec.h"
#include "zarr/meta.h"
#include "zarr/reader.h"
#include "zarr/writer.h"

enum {
    OPT_WINDOW = GSVD_OPT_FIRST_COMMAND_OPTION,
    OPT_STEP,
    OPT_R2,
    OPT_FORMAT,
    OPT_VARIANTS,
    OPT_SAMPLES,
    OPT_MAF,
    OPT_MAX_MISSING,
    OPT_TRANSPOSE,
    OPT_PLOIDY,
};

static void usage(FILE *fp)
{
    fputs("Usage: gensvd ldprune [options] INPUT\n"
          "Variants in approximate linkage equilibrium (plink2 --indep-pairwise): in a window\n"
          "sliding along each contig, every pair with r^2 above --r2 loses the variant with the\n"
          "lower minor allele frequency (the later one on a tie); r^2 of dosages over the\n"
          "samples called in both; monomorphic variants are removed.\n"
          "Output (default: TSV on stdout):\n"
          "  -o, --output PATH      Zarr group with variant_ld_keep (bool, variants), for\n"
          "                         pca/pdist --variant-mask PATH\n"
          "  -f, --force            replace the output if it exists\n"
          "      --format tsv       variant, contig, position, keep on "
          "stdout\n" GSVD_CLI_ZARR_OUT_HELP "Pruning:\n"
          "  -w, --window SIZE      window: INT variants, or INTkb / INTbp along\n"
          "                         variant_position within each variant_contig [required]\n"
          "      --step INT         variants the window moves by [1]\n"
          "      --r2 X             r^2 threshold, 0 <= X < 1 [0.2]\n"
          "Input:\n"
          "  -a, --array PATH       genotype array inside INPUT\n"
          "      --transpose        the 2-D array is samples x variants\n"
          "      --ploidy INT       dosage scale of a 2-D array (1 or 2) [2]\n"
          "      --variants A:B     only variants A (inclusive) to B (exclusive)\n"
          "      --samples FILE     only these sample IDs (one per line)\n"
          "      --maf X            consider only variants with minor allele frequency >= X\n"
          "      --max-missing X    consider only variants with a missing fraction <= X\n"
          "  -t, --threads INT      threads for each window step's r^2 [all cores]\n"
          "  -v, --verbose          counts on stderr\n"
          "  -q, --quiet            errors only\n"
          "  -h, --help             print this help and exit\n" GSVD_CLI_REMOTE_HELP
          "Exit status: 0 success, 1 failure, 2 usage error.\n",
          fp);
}

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
    int force;
    struct gsvd_geno_params geno;
    struct gsvd_ldprune_params lp;
    struct gsvd_cli_zarr_out zout;
    char *command;
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

    if (o->samples_file) {
        GSVD_TRY(gsvd_cli_read_ids(o->samples_file, &samples));
        o->geno.samples = &samples;
    }
    GSVD_TRY(gsvd_cli_open_input(o->input, NULL, &in));
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
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'f'},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"window", required_argument, NULL, 'w'},
        {"step", required_argument, NULL, OPT_STEP},
        {"r2", required_argument, NULL, OPT_R2},
        {"array", required_argument, NULL, 'a'},
        {"transpose", no_argument, NULL, OPT_TRANSPOSE},
        {"ploidy", required_argument, NULL, OPT_PLOIDY},
        {"variants", required_argument, NULL, OPT_VARIANTS},
        {"samples", required_argument, NULL, OPT_SAMPLES},
        {"maf", required_argument, NULL, OPT_MAF},
        {"max-missing", required_argument, NULL, OPT_MAX_MISSING},
        {"threads", required_argument, NULL, 't'},
        GSVD_CLI_ZARR_OUT_LONGOPTS,
        GSVD_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    struct gsvd_cli_common common = GSVD_CLI_COMMON_DEFAULT;
    struct ld_opts o = {.geno = GSVD_GENO_PARAMS_DEFAULT, .lp = GSVD_LDPRUNE_PARAMS_DEFAULT};
    uint64_t v;
    int c, rc, have_window = 0;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:fw:a:t:vqh", longopts, NULL)) != -1) {
        int r = gsvd_cli_common_option("ldprune", c, optarg, &common);
        if (r == 0)
            r = gsvd_cli_zarr_out_option("ldprune", c, optarg, &o.zout);
        if (r == GSVD_EXIT_USAGE)
            return r;
        if (r == 1)
            continue;
        switch (c) {
        case 'o':
            o.output = optarg;
            break;
        case 'f':
            o.force = 1;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "tsv") != 0)
                return gsvd_cli_usage_error("ldprune", "invalid --format '%s' (tsv)", optarg);
            o.format = optarg;
            break;
        case 'w':
            if (gsvd_cli_parse_window(optarg, &o.lp.window, &o.lp.window_bp) < 0)
                return gsvd_cli_usage_error(
                    "ldprune", "invalid --window '%s' (INT >= 2 variants, or INTkb, INTbp)",
                    optarg);
            have_window = 1;
            break;
        case OPT_STEP:
            if (gsvd_cli_parse_uint(optarg, 1, (uint64_t)1 << 40, 0, &o.lp.step) < 0)
                return gsvd_cli_usage_error("ldprune", "invalid --step '%s' (>= 1)", optarg);
            break;
        case OPT_R2:
            if (gsvd_cli_parse_double(optarg, 0, 1, &o.lp.r2) < 0 || !(o.lp.r2 < 1))
                return gsvd_cli_usage_error("ldprune", "invalid --r2 '%s' (0 <= X < 1)", optarg);
            break;
        case 'a':
            o.geno.array = optarg;
            break;
        case OPT_TRANSPOSE:
            o.geno.transpose = 1;
            break;
        case OPT_PLOIDY:
            if (gsvd_cli_parse_uint(optarg, 1, 2, 0, &v) < 0)
                return gsvd_cli_usage_error("ldprune", "invalid --ploidy '%s' (1 or 2)", optarg);
            o.geno.ploidy = (size_t)v;
            break;
        case OPT_VARIANTS:
            if (gsvd_cli_parse_range(optarg, &o.geno.var_start, &o.geno.var_stop) < 0)
                return gsvd_cli_usage_error("ldprune", "invalid --variants '%s' (START:STOP)",
                                            optarg);
            break;
        case OPT_SAMPLES:
            o.samples_file = optarg;
            break;
        case OPT_MAF:
            if (gsvd_cli_parse_double(optarg, 0, 0.5, &o.geno.maf) < 0)
                return gsvd_cli_usage_error("ldprune", "invalid --maf '%s' (0..0.5)", optarg);
            break;
        case OPT_MAX_MISSING:
            if (gsvd_cli_parse_double(optarg, 0, 1, &o.geno.max_missing) < 0)
                return gsvd_cli_usage_error("ldprune", "invalid --max-missing '%s' (0..1)", optarg);
            break;
        case 'h':
            usage(stdout);
            return GSVD_EXIT_OK;
        default:
            return gsvd_cli_usage_error("ldprune", "invalid option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return gsvd_cli_usage_error("ldprune",
                                    optind >= argc ? "missing INPUT" : "too many arguments");
    if (!have_window)
        return gsvd_cli_usage_error("ldprune", "--window is required (e.g. 1000 or 500kb)");
    if (gsvd_cli_zarr_out_check("ldprune", &o.zout) != 0)
        return GSVD_EXIT_USAGE;
    o.input = argv[optind];
    gsvd_cli_common_apply(&common);
    o.command = gsvd_cli_command_line(argc, argv);
    rc = run(&o, &common);
    gsvd_free(o.command);
    return gsvd_cli_exit_code(rc);
}
