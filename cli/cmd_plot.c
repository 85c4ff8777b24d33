/* cli/cmd_plot.c - `gensvd plot pca|pdist`: pictures of results as self-contained SVG or PNG.
 * The drawing lives in plot/; this file parses options, opens the inputs, and maps errors. */
#include "gsvd_config.h"

#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "plot/data.h"
#include "plot/heatmap.h"
#include "plot/pca_plot.h"
#include "plot/png.h"
#include "plot/svg.h"

struct plot_opts {
    int kind; /* 0 pca, 1 pdist */
    const char *input, *output, *color_by, *label_column, *title, *pcs_store;
    const char *pcs_arg; /* --pcs as given: A,B (pca) or PCS.zarr (pdist) */
    size_t pc_x, pc_y, grid, max_cells;
    int order;  /* enum gsvd_plot_order, -1 = default */
    int format; /* FORMAT_SVG, FORMAT_PNG, -1 = from the output's extension */
    double dpi; /* PNG resolution; GSVD_PLOT_SVG_DPI = the SVG's pixel size */
    struct gsvd_cli_common common;
};

static const char *const plot_orders[] = {"input", "label", "pc1", "cluster", NULL};
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
static const struct gsvd_opt_group plot_group = {NULL, plot_options, GSVD_ARRAY_LEN(plot_options),
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
static const struct gsvd_opt_group pca_group = {"pca:", pca_options, GSVD_ARRAY_LEN(pca_options),
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
    "pdist:", pdist_options, GSVD_ARRAY_LEN(pdist_options),
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
    .n_groups = GSVD_ARRAY_LEN(plot_groups),
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
        return GSVD_EINVAL;
    memcpy(left, s, (size_t)(comma - s));
    left[comma - s] = '\0';
    if (gsvd_cli_parse_uint(left, 1, 1000000, 0, &x) < 0 ||
        gsvd_cli_parse_uint(comma + 1, 1, 1000000, 0, &y) < 0 || x == y)
        return GSVD_EINVAL;
    *a = (size_t)x;
    *b = (size_t)y;
    return GSVD_OK;
}

/* The finished SVG to o->output, rasterised first for --format png. */
static int write_output(const struct plot_opts *o, const struct gsvd_buf *svg)
{
    struct gsvd_buf png = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    if (o->format != FORMAT_PNG)
        return gsvd_plot_write_file(o->output, svg);
    GSVD_TRY(gsvd_plot_png_render(svg, o->dpi, &png));
    GSVD_TRY(gsvd_plot_write_file(o->output, &png));
out:
    gsvd_buf_free(&png);
    return rc;
}

/* What the labels will look like, when that is not what the user may expect: none at all, or
 * more than the palette's colours (plot/svg.h). */
static void warn_labels(const struct plot_opts *o, const struct gsvd_plot_labels *l)
{
    size_t n = l->names.n, shapes = (size_t)GSVD_PLOT_N_COLOURS * GSVD_PLOT_N_SHAPES;
    if (l->n_unlabelled == l->n)
        gsvd_log_warn("%s: no sample has a label", o->color_by);
    if (n <= GSVD_PLOT_N_COLOURS)
        return;
    if (o->kind == 1)
        gsvd_log_warn("%s: %zu labels, but the label bands have %d colours: labels %d to %zu "
                      "repeat them (the legend lists each label's colour)",
                      o->color_by, n, GSVD_PLOT_N_COLOURS, GSVD_PLOT_N_COLOURS + 1, n);
    else if (n <= shapes)
        gsvd_log_warn("%s: %zu labels: the palette has %d colours, so labels %d to %zu repeat "
                      "them with other marker shapes (see the legend)",
                      o->color_by, n, GSVD_PLOT_N_COLOURS, GSVD_PLOT_N_COLOURS + 1, n);
    else
        gsvd_log_warn("%s: %zu labels: %d colours and %d marker shapes tell only %zu apart; "
                      "labels %zu to %zu look like earlier ones",
                      o->color_by, n, GSVD_PLOT_N_COLOURS, GSVD_PLOT_N_SHAPES, shapes, shapes + 1,
                      n);
}

static int run_pca(const struct plot_opts *o, struct gsvd_cli_input *in)
{
    struct gsvd_plot_pcs pcs = {0};
    struct gsvd_plot_labels labels = GSVD_PLOT_LABELS_INIT;
    struct gsvd_plot_pca_params p = {
        .pc_x = o->pc_x, .pc_y = o->pc_y, .grid = o->grid, .title = o->title};
    struct gsvd_buf svg = GSVD_BUF_INIT;
    struct gsvd_cli_bar bar;
    int rc = GSVD_OK;

    p.progress = gsvd_cli_progress(&bar, "points", o->common.progress);

    GSVD_TRY(gsvd_plot_pcs_read(in->tree, in->node, &pcs));
    GSVD_TRY(gsvd_plot_pca_check(&pcs, &p)); /* the PCs asked for, before the labels are read */
    if (o->color_by) {
        GSVD_TRY(gsvd_plot_labels_load(o->color_by, o->label_column, in->tree, &pcs.ids, &labels));
        p.labels = &labels;
        warn_labels(o, &labels);
    }
    GSVD_TRY(gsvd_plot_pca(&pcs, &p, &svg));
    GSVD_TRY(write_output(o, &svg));
out:
    gsvd_buf_free(&svg);
    gsvd_plot_labels_free(&labels);
    gsvd_plot_pcs_free(&pcs);
    return rc;
}

/* PC1 of the `gensvd pca` output at `path`, matched to ids (NaN for samples it lacks). */
static int read_pc1(const char *path, const struct gsvd_strlist *ids, double **out)
{
    struct gsvd_cli_input in = {0};
    struct gsvd_plot_pcs pcs = {0};
    size_t *order = NULL;
    double *pc1 = NULL;
    size_t found = 0;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_cli_open_input(path, NULL, &in));
    GSVD_TRY(gsvd_plot_pcs_read(in.tree, in.node, &pcs));
    if (!(order = gsvd_str_order(pcs.ids.items, pcs.n)) ||
        !(pc1 = gsvd_calloc(ids->n ? ids->n : 1, sizeof *pc1))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < ids->n; i++) {
        long j = gsvd_str_find(pcs.ids.items, order, pcs.n, ids->items[i]);
        pc1[i] = j >= 0 ? pcs.proj[(size_t)j * pcs.k] : (double)NAN;
        found += j >= 0;
    }
    if (found == 0) {
        gsvd_log_error("%s: none of the %zu samples of the distance matrix is in it", path, ids->n);
        rc = GSVD_EINCONSIST;
        goto out;
    }
    *out = pc1;
    pc1 = NULL;
out:
    gsvd_free(pc1);
    gsvd_free(order);
    gsvd_plot_pcs_free(&pcs);
    gsvd_cli_close_input(&in);
    return rc;
}

static int run_pdist(const struct plot_opts *o, struct gsvd_cli_input *in)
{
    struct gsvd_strlist ids = GSVD_STRLIST_INIT;
    struct gsvd_plot_labels labels = GSVD_PLOT_LABELS_INIT;
    struct gsvd_plot_heat_params p = {.max_cells = o->max_cells, .title = o->title};
    struct gsvd_buf svg = GSVD_BUF_INIT;
    struct gsvd_cli_bar bar;
    double *pc1 = NULL;
    int rc = GSVD_OK;

    p.progress = gsvd_cli_progress(&bar, "distances", o->common.progress);

    GSVD_TRY(gsvd_plot_read_ids(in->tree, in->node, &ids));
    if (o->color_by) {
        GSVD_TRY(gsvd_plot_labels_load(o->color_by, o->label_column, in->tree, &ids, &labels));
        p.labels = &labels;
        warn_labels(o, &labels);
    }
    p.order = o->order >= 0 ? (enum gsvd_plot_order)o->order
              : o->color_by ? GSVD_PLOT_ORDER_LABEL
                            : GSVD_PLOT_ORDER_INPUT;
    if (p.order == GSVD_PLOT_ORDER_PC1) {
        GSVD_TRY(read_pc1(o->pcs_store, &ids, &pc1));
        p.pc1 = pc1;
    }
    GSVD_TRY(gsvd_plot_heatmap(in->tree, in->node, &ids, &p, &svg));
    GSVD_TRY(write_output(o, &svg));
out:
    gsvd_free(pc1);
    gsvd_buf_free(&svg);
    gsvd_plot_labels_free(&labels);
    gsvd_strlist_free(&ids);
    return rc;
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
    o->pcs_store = pcs_arg;
    if (o->order == GSVD_PLOT_ORDER_PC1 && !pcs_arg)
        return gsvd_cli_usage_error("plot", "--order pc1 needs --pcs PCS.zarr");
    if (o->order == GSVD_PLOT_ORDER_LABEL && !o->color_by)
        return gsvd_cli_usage_error("plot", "--order label needs --color-by");
    return 0;
}

int gsvd_cmd_plot(int argc, char **argv)
{
    struct plot_opts o = {.pc_x = 1,
                          .pc_y = 2,
                          .order = -1,
                          .format = -1,
                          .dpi = GSVD_PLOT_SVG_DPI,
                          .common = GSVD_CLI_COMMON_DEFAULT};
    struct gsvd_cli_input in = {0};
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
    if (o.format == FORMAT_PNG && !gsvd_plot_png_available()) {
        gsvd_log_error("%s: PNG output is not built into this gensvd (rebuild with librsvg: "
                       "apt-get install librsvg2-dev; cmake -DGENSVD_PNG=ON), or write SVG",
                       o.output);
        return gsvd_cli_exit_code(GSVD_ENOTBUILT);
    }
    {
        /* the picture's directory before any input is read; an existing picture is replaced */
        const char *files[] = {o.output, NULL};
        rc = gsvd_cli_check_outputs(NULL, 0, files, 1);
    }
    if (rc == GSVD_OK)
        rc = gsvd_cli_open_input(o.input, NULL, &in);
    if (rc == GSVD_OK)
        rc = o.kind == 0 ? run_pca(&o, &in) : run_pdist(&o, &in);
    gsvd_cli_close_input(&in);
    if (rc == GSVD_EINVAL) /* a value only the data could refute is not a usage error */
        rc = GSVD_EINCONSIST;
    if (rc == GSVD_OK)
        gsvd_cli_done(o.output);
    return gsvd_cli_exit_code(rc);
}
