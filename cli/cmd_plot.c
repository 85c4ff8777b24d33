/* cli/cmd_plot.c - `gensvd plot pca|pdist`: pictures of results as self-contained SVG or PNG,
 * drawn by the library (include/gensvd.h, gensvd_plot).  This file parses the options, checks
 * what only the command line knows (usage errors: the output's name against --format, the
 * options of the other subcommand), and maps the exit status. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/cli_base.h"
#include "cli/opts_source.h"
#include "include/gensvd.h"

struct plot_opts {
    int kind; /* 0 pca, 1 pdist */
    const char *input, *output, *color_by, *label_column, *title;
    const char *pcs_arg; /* --pcs as given: A,B (pca) or PCS.zarr (pdist) */
    size_t pc_x, pc_y, grid, max_cells;
    int order;  /* index into plot_orders, -1 = default */
    int format; /* FORMAT_SVG, FORMAT_PNG, -1 = from the output's extension */
    double dpi; /* PNG resolution; 96 = the SVG's pixel size */
    struct gsvd_cli_common common;
};

/* plot/heatmap.h's orders, as the library names them ("order"); ORDER_* index it */
static const char *const plot_orders[] = {"input", "label", "pc1", "cluster", NULL};
enum { ORDER_LABEL = 1, ORDER_PC1 = 2 };

enum { FORMAT_SVG = 0, FORMAT_PNG = 1 };
static const char *const plot_formats[] = {"svg", "png", NULL}; /* FORMAT_* */

#define PLOT(field) GSVD_OPT_FIELD(struct plot_opts, field)
static const struct gsvd_opt plot_options[] = {
    {.name = "output",
     .key = 'o',
     .type = GSVD_OPT_STRING,
     PLOT(output),
     .arg = "FILE",
     .flags = GSVD_OPTF_FILE,
     .help = "the picture to write (replaced if it exists)"},
    {.name = "format",
     .type = GSVD_OPT_CHOICE,
     PLOT(format),
     .arg = "FMT",
     .choices = plot_formats,
     .help = "svg or png; an output named .svg or .png sets it (a --format\nthat disagrees, or "
             "another extension, is an error) [svg]"},
    {.name = "dpi",
     .type = GSVD_OPT_DOUBLE,
     PLOT(dpi),
     .arg = "N",
     .dlo = 1,
     .dhi = 2400,
     .help = "PNG resolution: 96 draws one pixel per SVG pixel, 192 twice\nas many each way "
             "[96]"},
    {.name = "color-by",
     .type = GSVD_OPT_STRING,
     PLOT(color_by),
     .arg = "SRC",
     .flags = GSVD_OPTF_FILE,
     .help = "labels: a TSV file with a header row (the ID column is found\nby its values; the "
             "label column is the last other one, or\n--label-column), or an array of strings "
             "or integers:\nSTORE/ARRAY (e.g. cohort.vcz/sample_population) or ARRAY\ninside the "
             "input; samples are matched by sample_id"},
    {.name = "colour-by",
     .type = GSVD_OPT_STRING,
     PLOT(color_by),
     .arg = "SRC",
     .flags = GSVD_OPTF_FILE,
     .help = "the same as --color-by"},
    {.name = "label-column",
     .type = GSVD_OPT_STRING,
     PLOT(label_column),
     .arg = "NAME",
     .help = "the TSV column holding the labels"},
    {.name = "title",
     .type = GSVD_OPT_STRING,
     PLOT(title),
     .arg = "TEXT",
     .help = "a title above the plot"},
    {.name = "pcs",
     .type = GSVD_OPT_STRING,
     PLOT(pcs_arg),
     .arg = "A,B|PCS.zarr",
     .flags = GSVD_OPTF_FILE,
     .help = "pca: components across and up [1,2]; pdist: a `gensvd pca`\noutput of the same "
             "samples, for --order pc1"},
};
static const struct gsvd_opt_group plot_group = {NULL, plot_options, GSVD_CLI_LEN(plot_options),
                                                 NULL};
static const struct gsvd_opt pca_options[] = {
    {.name = "grid",
     .type = GSVD_OPT_UINT,
     PLOT(grid),
     .arg = "G",
     .lo = 2,
     .hi = 64,
     .help = "every pair of PC1..PCG (G >= 2) instead of one panel"},
};
static const struct gsvd_opt_group pca_group = {"pca:", pca_options, GSVD_CLI_LEN(pca_options),
                                                NULL};
static const struct gsvd_opt pdist_options[] = {
    {.name = "order",
     .type = GSVD_OPT_CHOICE,
     PLOT(order),
     .arg = "O",
     .choices = plot_orders,
     .help = "input, label (needs --color-by), pc1 (needs --pcs) or\ncluster (average linkage "
             "with a dendrogram, N <= 5000)\n[label with --color-by, else input]"},
    {.name = "max-cells",
     .type = GSVD_OPT_UINT,
     PLOT(max_cells),
     .arg = "INT",
     .lo = 2,
     .hi = 4096,
     .help = "average blocks of samples down to at most INT x INT cells\n[1000]"},
};
static const struct gsvd_opt_group pdist_group = {
    "pdist:", pdist_options, GSVD_CLI_LEN(pdist_options),
    "Colours: 20 for labels (the first 8 Okabe-Ito, colour-blind safe), then marker\n"
    "shapes; grey for samples without a label; viridis for distances (dark = near).\n"};
static const struct gsvd_opt_bind plot_groups[] = {
    {&plot_group, 0},
    {&pca_group, 0},
    {&pdist_group, 0},
    {&gsvd_opts_progress, offsetof(struct plot_opts, common)},
    {&gsvd_opts_basic, offsetof(struct plot_opts, common)},
    {&gsvd_opts_remote, offsetof(struct plot_opts, common)},
};
static const char *const plot_kinds[] = {"pca", "pdist", NULL}; /* o.kind 0, 1 */
const struct gsvd_cmd_spec gsvd_cmd_plot_spec = {
    .name = "plot",
    .intro = "Usage: gensvd plot pca [options] PCS.zarr -o OUT.svg|OUT.png\n"
             "       gensvd plot pdist [options] DIST.zarr -o OUT.svg|OUT.png\n"
             "Draw the output of `gensvd pca` (PC scatter plot with legend and scree inset) or\n"
             "`gensvd pdist` (heatmap of the distance matrix) as a self-contained SVG, or as\n"
             "a PNG of the same picture.\n",
    .groups = plot_groups,
    .n_groups = GSVD_CLI_LEN(plot_groups),
    .opts_size = sizeof(struct plot_opts),
    .footer = "Exit status: 0 success, 1 failure, 2 usage error.\n",
    .words = plot_kinds,
};

/* --pcs A,B for plot pca. */
static int parse_pcs(const char *s, size_t *a, size_t *b)
{
    const char *comma = strchr(s, ',');
    char left[32];
    uint64_t x, y;

    if (!comma || (size_t)(comma - s) >= sizeof left)
        return GENSVD_EINVAL;
    memcpy(left, s, (size_t)(comma - s));
    left[comma - s] = '\0';
    if (gsvd_cli_parse_uint(left, 1, 1000000, 0, &x) < 0 ||
        gsvd_cli_parse_uint(comma + 1, 1, 1000000, 0, &y) < 0 || x == y)
        return GENSVD_EINVAL;
    *a = (size_t)x;
    *b = (size_t)y;
    return GENSVD_OK;
}

/* The extension of the output's file name: "" when its last component has no '.' after its
 * first character (".svg" alone is a hidden file, not an extension), else from the last '.'. */
static const char *extension(const char *path)
{
    const char *base = strrchr(path, '/'), *dot;
    base = base ? base + 1 : path;
    dot = strrchr(base, '.');
    return dot && dot > base ? dot : "";
}

/* -o and --format agree: a name ending in .svg or .png (any case) sets the format, and a
 * --format that says otherwise is refused; any other extension is refused (a .jpg of SVG bytes
 * would mislead every viewer); a name without one takes --format, else SVG.  0 or the usage
 * error's exit code. */
static int check_format(struct plot_opts *o)
{
    const char *ext = extension(o->output);
    int named = strcasecmp(ext, ".svg") == 0   ? FORMAT_SVG
                : strcasecmp(ext, ".png") == 0 ? FORMAT_PNG
                                               : -1;
    if (*ext && named < 0)
        return gsvd_cli_usage_error("plot",
                                    "-o '%s': plot writes SVG or PNG, not '%s'; name the output "
                                    ".svg or .png",
                                    o->output, ext);
    if (named >= 0 && o->format >= 0 && o->format != named)
        return gsvd_cli_usage_error("plot", "--format %s, but -o '%s' is named %s: make them agree",
                                    plot_formats[o->format], o->output, ext);
    if (o->format < 0)
        o->format = named >= 0 ? named : FORMAT_SVG;
    return 0;
}

/* Option values that depend on the subcommand; 0 or a usage error's exit code. */
static int check_opts(struct plot_opts *o, const char *pcs_arg)
{
    int rc;
    if (!o->output)
        return gsvd_cli_usage_error("plot", "missing -o OUT.svg or -o OUT.png");
    if ((rc = check_format(o)) != 0)
        return rc;
    if (o->kind == 0) {
        if (o->order >= 0 || o->max_cells)
            return gsvd_cli_usage_error("plot", "--order and --max-cells are for plot pdist");
        if (pcs_arg && parse_pcs(pcs_arg, &o->pc_x, &o->pc_y) < 0)
            return gsvd_cli_usage_error("plot",
                                        "invalid --pcs '%s' (two different components, "
                                        "e.g. 1,2)",
                                        pcs_arg);
        return 0;
    }
    if (o->grid)
        return gsvd_cli_usage_error("plot", "--grid is for plot pca");
    if (o->order == ORDER_PC1 && !pcs_arg)
        return gsvd_cli_usage_error("plot", "--order pc1 needs --pcs PCS.zarr");
    if (o->order == ORDER_LABEL && !o->color_by)
        return gsvd_cli_usage_error("plot", "--order label needs --color-by");
    return 0;
}

/* The options of the subcommand as the library names them (what was not given keeps the
 * library's default, which is the command's). */
static int plot_options_of(gensvd_ctx *ctx, const struct plot_opts *o, gensvd_options **out)
{
    gensvd_options *opt = NULL;
    int rc = gensvd_options_new(ctx, o->kind == 0 ? GENSVD_PLOT_PCA : GENSVD_PLOT_PDIST, &opt);

    if (rc == GENSVD_OK)
        rc = gensvd_options_set_string(opt, "format", plot_formats[o->format]);
    if (rc == GENSVD_OK)
        rc = gensvd_options_set_double(opt, "dpi", o->dpi);
    if (rc == GENSVD_OK && o->color_by)
        rc = gensvd_options_set_string(opt, "color-by", o->color_by);
    if (rc == GENSVD_OK && o->label_column)
        rc = gensvd_options_set_string(opt, "label-column", o->label_column);
    if (rc == GENSVD_OK && o->title)
        rc = gensvd_options_set_string(opt, "title", o->title);
    if (rc == GENSVD_OK && o->pcs_arg)
        rc = gensvd_options_set_string(opt, "pcs", o->pcs_arg);
    if (rc == GENSVD_OK && o->grid)
        rc = gensvd_options_set_int(opt, "grid", (int64_t)o->grid);
    if (rc == GENSVD_OK && o->order >= 0)
        rc = gensvd_options_set_string(opt, "order", plot_orders[o->order]);
    if (rc == GENSVD_OK && o->max_cells)
        rc = gensvd_options_set_int(opt, "max-cells", (int64_t)o->max_cells);
    if (rc != GENSVD_OK) {
        gensvd_options_free(opt);
        opt = NULL;
    }
    *out = opt;
    return rc;
}

static int run(const struct plot_opts *o)
{
    gensvd_ctx *ctx = NULL;
    gensvd_options *opt = NULL;
    struct gsvd_cli_bar bar;
    int rc = gsvd_cli_ctx(&o->common, NULL, &bar, o->kind == 0 ? "points" : "distances", &ctx);

    if (rc == GENSVD_OK && (!*o->input || (o->order == ORDER_PC1 && !*o->pcs_arg))) {
        /* the synopsis' words: the library says "no store URL" */
        gsvd_cli_msg_log(GENSVD_LOG_ERROR, *o->input ? "empty --pcs path" : "empty INPUT path");
        rc = GENSVD_ENOTFOUND;
    }
    if (rc == GENSVD_OK)
        rc = plot_options_of(ctx, o, &opt);
    if (rc == GENSVD_OK)
        rc = gensvd_plot(ctx, opt, o->input, o->output);
    gensvd_options_free(opt);
    gensvd_ctx_free(ctx);
    return rc;
}

int gsvd_cmd_plot(int argc, char **argv)
{
    struct plot_opts o = {.pc_x = 1,
                          .pc_y = 2,
                          .order = -1,
                          .format = -1,
                          .dpi = 96,
                          .common = GSVD_CLI_COMMON_DEFAULT};
    int first, rc = gsvd_opts_parse(&gsvd_cmd_plot_spec, argc, argv, &o, &first);

    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    gsvd_cli_common_apply(&o.common);
    if (first + 2 != argc)
        return gsvd_cli_usage_error("plot", "expected 'pca' or 'pdist' and one input");
    if ((o.kind = gsvd_cli_parse_choice(argv[first], plot_kinds)) < 0)
        return gsvd_cli_usage_error("plot", "unknown plot '%s' (pca, pdist)", argv[first]);
    o.input = argv[first + 1];
    if ((rc = check_opts(&o, o.pcs_arg)) != 0)
        return rc;
    rc = run(&o);
    if (rc == GENSVD_EINVAL) /* a value only the data could refute is not a usage error */
        rc = GENSVD_EINCONSIST;
    if (rc == GENSVD_OK)
        gsvd_cli_done(o.output);
    return gsvd_cli_exit_code(rc);
}
