/* cli/cmd_pdist.c - `gensvd pdist`: pairwise distances between samples, as a Zarr group or a
 * square TSV matrix. */
#include "gsvd_config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/genotype.h"
#include "analysis/pdist.h"
#include "cli/cli.h"
#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "common/textmatrix.h"
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
};

struct pdist_opts {
    const char *input, *output, *format, *samples_file;
    int force, counts;
    struct gsvd_pdist_params pd;
    struct gsvd_geno_params geno;
    char *command;
};

static void usage(FILE *fp)
{
    fputs("Usage: gensvd pdist [options] INPUT\n"
          "Pairwise distances between the samples of the genotype matrix in INPUT (a VCF-Zarr\n"
          "store, a scikit-allel layout, or a 2-D dosage array named with --array), with\n"
          "scipy's definitions; on data without missing calls the values equal\n"
          "scipy.spatial.distance.pdist on the dosage matrix (samples x variants).\n"
          "INPUT may also be a TSV/CSV numeric matrix (a file, or '-' / no INPUT for standard\n"
          "input): one row per item, optional header line and ID column, empty / nan / NA\n"
          "missing; e.g. gensvd pca X --format tsv | gensvd pdist\n"
          "  -m, --metric NAME      euclidean, sqeuclidean, cityblock, minkowski, chebyshev,\n"
          "                         cosine, correlation, hamming, jaccard, braycurtis, canberra,\n"
          "                         or ibs (PLINK 1.9 1-ibs: sum |g_i - g_j| / (ploidy n_ij))\n"
          "                         [euclidean]\n"
          "  -p, --p X              minkowski order (> 0) [2]\n"
          "      --missing MODE     pairwise: only sites called in both samples (NaN when none);\n"
          "                         scale: also multiply additive metrics by M / n_ij (PLINK\n"
          "                         flat-missing); error: fail on a missing call [pairwise]\n"
          "  -o, --output PATH      Zarr group: distance (N x N f8), n_sites (uint32, when there\n"
          "                         are missing calls or with --counts), sample_id\n"
          "  -f, --force            replace the output if it exists\n"
          "      --counts           always write n_sites\n"
          "      --format tsv       the square matrix on stdout (default without -o)\n"
          "  -a, --array PATH       genotype array inside INPUT\n"
          "      --transpose        the 2-D array is samples x variants\n"
          "      --ploidy INT       dosage scale of a 2-D array [2]\n"
          "      --variants A:B     only variants A (inclusive) to B (exclusive)\n"
          "      --samples FILE     only these sample IDs (one per line), in this order\n"
          "  -t, --threads INT      threads [all cores]\n"
          "  -v, --verbose          more messages on stderr (repeatable)\n"
          "  -q, --quiet            errors only\n"
          "  -h, --help             print this help and exit\n"
          "Exit status: 0 success, 1 failure, 2 usage error.\n",
          fp);
}

static int write_tsv(const struct gsvd_pdist_result *r, const struct gsvd_strlist *ids)
{
    size_t n = r->n;
    fputs("sample_id", stdout);
    for (size_t i = 0; i < n; i++)
        printf("\t%s", ids->items[i]);
    putchar('\n');
    for (size_t i = 0; i < n; i++) {
        fputs(ids->items[i], stdout);
        for (size_t j = 0; j < n; j++) {
            double d = r->dist[i * n + j];
            if (isnan(d))
                fputs("\tnan", stdout);
            else
                printf("\t%.17g", d);
        }
        putchar('\n');
    }
    return ferror(stdout) ? GSVD_EIO : GSVD_OK;
}

static int write_zarr(const struct pdist_opts *o, const struct gsvd_pdist_result *r,
                      const struct gsvd_strlist *ids)
{
    gsvd_writer *w = NULL;
    gsvd_codec_ws *ws = NULL;
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    gsvd_warray *a;
    uint64_t n = r->n, chunk = n < 1000 ? (n ? n : 1) : 1000;
    double nan = NAN;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_codec_ws_new(&ws));
    GSVD_TRY(gsvd_writer_open(o->output, o->force, &w));
    GSVD_TRY(
        gsvd_buf_printf(&attrs, "{\n    \"version\": \"%s\",\n    \"command\": ", GSVD_VERSION));
    GSVD_TRY(gsvd_json_quote(&attrs, o->command ? o->command : ""));
    GSVD_TRY(gsvd_buf_printf(&attrs,
                             ",\n    \"metric\": \"%s\",\n    \"p\": %.17g,\n    \"missing\": "
                             "\"%s\",\n    \"M\": %llu,\n    \"N\": %llu\n}",
                             gsvd_pdist_metric_name(o->pd.metric), o->pd.p,
                             o->pd.missing == GSVD_PDIST_SCALE   ? "scale"
                             : o->pd.missing == GSVD_PDIST_ERROR ? "error"
                                                                 : "pairwise",
                             (unsigned long long)r->m, (unsigned long long)n));
    GSVD_TRY(gsvd_writer_group(w, "", attrs.data));
    struct gsvd_array_spec sid = {.path = "sample_id",
                                  .ndim = 1,
                                  .shape = {n},
                                  .chunks = {n ? n : 1},
                                  .dtype = {'O', '|', sizeof(char *)},
                                  .dims = {"samples"}};
    GSVD_TRY(gsvd_writer_array(w, &sid, &a));
    GSVD_TRY(gsvd_warray_write_strings(a, ws, (const char *const *)ids->items, (size_t)n));
    struct gsvd_array_spec sd = {.path = "distance",
                                 .ndim = 2,
                                 .shape = {n, n},
                                 .chunks = {chunk, chunk},
                                 .dtype = {'f', '<', 8},
                                 .dims = {"samples", "samples_2"},
                                 .fill = &nan};
    GSVD_TRY(gsvd_writer_array(w, &sd, &a));
    for (uint64_t r0 = 0; r0 < n; r0 += chunk)
        GSVD_TRY(
            gsvd_warray_write_rows(a, ws, r0, n - r0 < chunk ? n - r0 : chunk, r->dist + r0 * n));
    if (r->n_missing || o->counts) {
        struct gsvd_array_spec sn = {.path = "n_sites",
                                     .ndim = 2,
                                     .shape = {n, n},
                                     .chunks = {chunk, chunk},
                                     .dtype = {'u', '<', 4},
                                     .dims = {"samples", "samples_2"}};
        GSVD_TRY(gsvd_writer_array(w, &sn, &a));
        for (uint64_t r0 = 0; r0 < n; r0 += chunk)
            GSVD_TRY(gsvd_warray_write_rows(a, ws, r0, n - r0 < chunk ? n - r0 : chunk,
                                            r->n_sites + r0 * n));
    }
    GSVD_TRY(gsvd_writer_commit(w));
out:
    gsvd_buf_free(&attrs);
    gsvd_writer_close(w);
    gsvd_codec_ws_free(ws);
    return rc;
}

/* Read a whole stream or file into b. */
static int slurp(const char *path, struct gsvd_buf *b)
{
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    char chunk[65536];
    size_t n;
    int rc = GSVD_OK;

    if (!fp) {
        gsvd_log_error("%s: %s", path, strerror(errno));
        return GSVD_EIO;
    }
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
        if ((rc = gsvd_buf_append(b, chunk, n)) < 0)
            break;
    if (rc == GSVD_OK && ferror(fp)) {
        gsvd_log_error("%s: read error", strcmp(path, "-") == 0 ? "standard input" : path);
        rc = GSVD_EIO;
    }
    if (fp != stdin)
        fclose(fp);
    return rc;
}

/* A numeric matrix from TSV/CSV text: rows are the items. */
static int run_text(struct pdist_opts *o, const struct gsvd_cli_common *common)
{
    struct gsvd_buf text = GSVD_BUF_INIT;
    struct gsvd_textmatrix m = {0};
    struct gsvd_pdist_result *r = NULL;
    const char *where = strcmp(o->input, "-") == 0 ? "standard input" : o->input;
    int rc = GSVD_OK;

    if (o->samples_file || o->geno.var_start || o->geno.var_stop || o->geno.array ||
        o->geno.transpose) {
        gsvd_log_error("%s: --samples, --variants, --array and --transpose apply to Zarr input",
                       where);
        return GSVD_EINVAL;
    }
    GSVD_TRY(slurp(o->input, &text));
    GSVD_TRY(gsvd_textmatrix_parse(text.data ? text.data : "", text.len, where, &m));
    if (o->pd.missing == GSVD_PDIST_ERROR)
        for (size_t i = 0; i < m.n_rows * m.n_cols; i++)
            if (isnan(m.values[i])) {
                gsvd_log_error("%s: row %zu has a missing value (--missing error)", where,
                               i / m.n_cols + 1);
                rc = GSVD_EFORMAT;
                goto out;
            }
    o->pd.n_threads = common->threads;
    GSVD_TRY(gsvd_pdist_run_matrix(m.values, m.n_rows, m.n_cols,
                                   o->geno.ploidy ? o->geno.ploidy : 2, &o->pd, &r));
    if (o->output)
        GSVD_TRY(write_zarr(o, r, &m.ids));
    if (o->format || !o->output)
        GSVD_TRY(write_tsv(r, &m.ids));
out:
    gsvd_pdist_result_free(r);
    gsvd_textmatrix_clear(&m);
    gsvd_buf_free(&text);
    return rc;
}

static int run(struct pdist_opts *o, const struct gsvd_cli_common *common)
{
    struct gsvd_cli_input in = {0};
    struct gsvd_strlist samples = GSVD_STRLIST_INIT;
    gsvd_geno *g = NULL;
    struct gsvd_pdist_result *r = NULL;
    int rc = GSVD_OK;

    if (o->samples_file) {
        GSVD_TRY(gsvd_cli_read_ids(o->samples_file, &samples));
        o->geno.samples = &samples;
    }
    GSVD_TRY(gsvd_cli_open_input(o->input, NULL, &in));
    o->geno.n_threads = common->threads;
    o->geno.scaler = GSVD_SCALER_NONE; /* raw dosages: centre 0, scale 1 */
    o->geno.missing_error = o->pd.missing == GSVD_PDIST_ERROR;
    GSVD_TRY(gsvd_geno_open(in.tree, in.node, &o->geno, &g));
    o->pd.n_threads = common->threads;
    o->pd.progress = common->progress;
    GSVD_TRY(gsvd_pdist_run(g, &o->pd, &r));
    if (gsvd_log_get_level() >= GSVD_LOG_WARN)
        fprintf(stderr, "[pdist] %zu samples, %llu variants, %s, %llu missing calls\n", r->n,
                (unsigned long long)r->m, gsvd_pdist_metric_name(o->pd.metric),
                (unsigned long long)r->n_missing);
    if (o->output)
        GSVD_TRY(write_zarr(o, r, gsvd_geno_sample_ids(g)));
    if (o->format || !o->output)
        GSVD_TRY(write_tsv(r, gsvd_geno_sample_ids(g)));
out:
    gsvd_pdist_result_free(r);
    gsvd_geno_close(g);
    gsvd_cli_close_input(&in);
    gsvd_strlist_free(&samples);
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
        {"format", required_argument, NULL, OPT_FORMAT},
        {"array", required_argument, NULL, 'a'},
        {"transpose", no_argument, NULL, OPT_TRANSPOSE},
        {"ploidy", required_argument, NULL, OPT_PLOIDY},
        {"variants", required_argument, NULL, OPT_VARIANTS},
        {"samples", required_argument, NULL, OPT_SAMPLES},
        {"threads", required_argument, NULL, 't'},
        {"progress", no_argument, NULL, GSVD_OPT_PROGRESS},
        {"no-progress", no_argument, NULL, GSVD_OPT_NO_PROGRESS},
        {"verbose", no_argument, NULL, 'v'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct gsvd_cli_common common = GSVD_CLI_COMMON_DEFAULT;
    struct pdist_opts o = {.pd = GSVD_PDIST_PARAMS_DEFAULT, .geno = GSVD_GENO_PARAMS_DEFAULT};
    uint64_t v;
    int c, rc;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "m:p:o:fa:t:vqh", longopts, NULL)) != -1) {
        int r = gsvd_cli_common_option("pdist", c, optarg, &common);
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
        case OPT_MISSING:
            if (strcmp(optarg, "pairwise") == 0)
                o.pd.missing = GSVD_PDIST_PAIRWISE;
            else if (strcmp(optarg, "scale") == 0)
                o.pd.missing = GSVD_PDIST_SCALE;
            else if (strcmp(optarg, "error") == 0)
                o.pd.missing = GSVD_PDIST_ERROR;
            else
                return gsvd_cli_usage_error(
                    "pdist", "invalid --missing '%s' (pairwise, scale, error)", optarg);
            break;
        case 'o':
            o.output = optarg;
            break;
        case 'f':
            o.force = 1;
            break;
        case OPT_COUNTS:
            o.counts = 1;
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
        case 'h':
            usage(stdout);
            return GSVD_EXIT_OK;
        default:
            return gsvd_cli_usage_error("pdist", "invalid option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc - 1)
        return gsvd_cli_usage_error("pdist", "too many arguments");
    if (optind == argc && isatty(STDIN_FILENO))
        return gsvd_cli_usage_error("pdist", "missing INPUT (a Zarr store, a TSV/CSV file, or -)");
    o.input = optind < argc ? argv[optind] : "-";
    gsvd_cli_common_apply(&common);
    o.command = gsvd_cli_command_line(argc, argv);
    {
        struct stat sb;
        int text = strcmp(o.input, "-") == 0 || (stat(o.input, &sb) == 0 && S_ISREG(sb.st_mode));
        rc = text ? run_text(&o, &common) : run(&o, &common);
    }
    gsvd_free(o.command);
    return gsvd_cli_exit_code(rc);
}
