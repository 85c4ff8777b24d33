/* lib/plot.c - gensvd_plot: `gensvd plot pca|pdist` over plot/ (the PC scatter plot, the
 * distance heatmap), with the command's options, written through a temporary name: the one
 * copy of the command's logic (the picture's directory checked before any input is read, the
 * PCs asked for before the labels, the warnings about the labels). */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parse.h"
#include "plot/data.h"
#include "plot/heatmap.h"
#include "plot/pca_plot.h"
#include "plot/png.h"
#include "plot/svg.h"
#include "zarr/dest.h"

/* The finished SVG to path, rasterised first for PNG. */
static int write_output(const char *path, int png, double dpi, const struct gsvd_buf *svg)
{
    struct gsvd_buf img = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    if (!png)
        return gsvd_plot_write_file(path, svg);
    GSVD_TRY(gsvd_plot_png_render(svg, dpi, &img));
    GSVD_TRY(gsvd_plot_write_file(path, &img));
out:
    gsvd_buf_free(&img);
    return rc;
}

/* "A,B": two different components, 1-based. */
static int parse_pcs(const char *s, size_t *a, size_t *b)
{
    const char *comma = strchr(s, ',');
    char left[32];
    uint64_t x, y;
    if (!comma || (size_t)(comma - s) >= sizeof left)
        return GSVD_EINVAL;
    memcpy(left, s, (size_t)(comma - s));
    left[comma - s] = '\0';
    if (gsvd_parse_uint(left, 1, 1000000, 0, &x) < 0 ||
        gsvd_parse_uint(comma + 1, 1, 1000000, 0, &y) < 0 || x == y)
        return GSVD_EINVAL;
    *a = (size_t)x;
    *b = (size_t)y;
    return GSVD_OK;
}

/* What the labels will look like, when that is not what the user may expect: none at all, or
 * more than the palette's colours (plot/svg.h); `heatmap` for plot pdist's label bands. */
static void warn_labels(const char *color_by, int heatmap, const struct gsvd_plot_labels *l)
{
    size_t n = l->names.n, shapes = (size_t)GSVD_PLOT_N_COLOURS * GSVD_PLOT_N_SHAPES;
    if (l->n_unlabelled == l->n)
        gsvd_log_warn("%s: no sample has a label", color_by);
    if (n <= GSVD_PLOT_N_COLOURS)
        return;
    if (heatmap)
        gsvd_log_warn("%s: %zu labels, but the label bands have %d colours: labels %d to %zu "
                      "repeat them (the legend lists each label's colour)",
                      color_by, n, GSVD_PLOT_N_COLOURS, GSVD_PLOT_N_COLOURS + 1, n);
    else if (n <= shapes)
        gsvd_log_warn("%s: %zu labels: the palette has %d colours, so labels %d to %zu repeat "
                      "them with other marker shapes (see the legend)",
                      color_by, n, GSVD_PLOT_N_COLOURS, GSVD_PLOT_N_COLOURS + 1, n);
    else
        gsvd_log_warn("%s: %zu labels: %d colours and %d marker shapes tell only %zu apart; "
                      "labels %zu to %zu look like earlier ones",
                      color_by, n, GSVD_PLOT_N_COLOURS, GSVD_PLOT_N_SHAPES, shapes, shapes + 1, n);
}

static int plot_pca(const gensvd_ctx *ctx, const struct lib_plot_opts *o, struct lib_store *in,
                    const char *output, int png)
{
    struct gsvd_plot_pcs pcs = {0};
    struct gsvd_plot_labels labels = GSVD_PLOT_LABELS_INIT;
    struct gsvd_plot_pca_params p = {.pc_x = 1, .pc_y = 2, .grid = o->grid, .title = o->title};
    struct gsvd_buf svg = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    if (o->order || o->max_cells)
        return lib_fail(GSVD_EINVAL, "plot pca: \"order\" and \"max-cells\" are for plot pdist");
    if (o->grid == 1)
        return lib_fail(GSVD_EINVAL, "plot pca: \"grid\" is 2 to 64");
    if (o->pcs && parse_pcs(o->pcs, &p.pc_x, &p.pc_y) < 0)
        return lib_fail(GSVD_EINVAL,
                        "plot pca: invalid \"pcs\" '%s' (two different components, e.g. 1,2)",
                        o->pcs);
    p.progress = lib_progress(ctx);
    GSVD_TRY(gsvd_plot_pcs_read(in->t, in->node, &pcs));
    GSVD_TRY(gsvd_plot_pca_check(&pcs, &p)); /* the PCs asked for, before the labels are read */
    if (o->color_by) {
        GSVD_TRY(gsvd_plot_labels_load(o->color_by, o->label_column, in->t, &pcs.ids, &labels));
        p.labels = &labels;
        warn_labels(o->color_by, 0, &labels);
    }
    GSVD_TRY(gsvd_plot_pca(&pcs, &p, &svg));
    GSVD_TRY(write_output(output, png, o->dpi, &svg));
out:
    gsvd_buf_free(&svg);
    gsvd_plot_labels_free(&labels);
    gsvd_plot_pcs_free(&pcs);
    return rc;
}

/* PC1 of the pca output at `url`, matched to ids (NaN for samples it lacks). */
static int read_pc1(const char *url, const struct gsvd_strlist *ids, double **out)
{
    struct lib_store in;
    struct gsvd_plot_pcs pcs = {0};
    size_t *order = NULL, found = 0;
    double *pc1 = NULL;
    int rc = GSVD_OK;

    GSVD_TRY(lib_store_open(url, &in));
    GSVD_TRY(gsvd_plot_pcs_read(in.t, in.node, &pcs));
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
        rc = lib_fail(GSVD_EINCONSIST,
                      "%s: none of the %zu samples of the distance matrix is in it", url, ids->n);
        goto out;
    }
    *out = pc1;
    pc1 = NULL;
out:
    gsvd_free(pc1);
    gsvd_free(order);
    gsvd_plot_pcs_free(&pcs);
    lib_store_close(&in);
    return rc;
}

static int plot_pdist(const gensvd_ctx *ctx, const struct lib_plot_opts *o, struct lib_store *in,
                      const char *output, int png)
{
    struct gsvd_strlist ids = GSVD_STRLIST_INIT;
    struct gsvd_plot_labels labels = GSVD_PLOT_LABELS_INIT;
    struct gsvd_plot_heat_params p = {.max_cells = o->max_cells, .title = o->title};
    struct gsvd_buf svg = GSVD_BUF_INIT;
    double *pc1 = NULL;
    int rc = GSVD_OK;

    if (o->grid)
        return lib_fail(GSVD_EINVAL, "plot pdist: \"grid\" is for plot pca");
    if (o->max_cells == 1)
        return lib_fail(GSVD_EINVAL, "plot pdist: \"max-cells\" is 2 to 4096");
    p.order = o->order      ? (enum gsvd_plot_order)(o->order - 1)
              : o->color_by ? GSVD_PLOT_ORDER_LABEL
                            : GSVD_PLOT_ORDER_INPUT;
    if (p.order == GSVD_PLOT_ORDER_PC1 && !o->pcs)
        return lib_fail(GSVD_EINVAL, "plot pdist: order pc1 needs \"pcs\" (a pca output)");
    if (p.order == GSVD_PLOT_ORDER_LABEL && !o->color_by)
        return lib_fail(GSVD_EINVAL, "plot pdist: order label needs \"color-by\"");
    p.progress = lib_progress(ctx);
    GSVD_TRY(gsvd_plot_read_ids(in->t, in->node, &ids));
    if (o->color_by) {
        GSVD_TRY(gsvd_plot_labels_load(o->color_by, o->label_column, in->t, &ids, &labels));
        p.labels = &labels;
        warn_labels(o->color_by, 1, &labels);
    }
    if (p.order == GSVD_PLOT_ORDER_PC1) {
        GSVD_TRY(read_pc1(o->pcs, &ids, &pc1));
        p.pc1 = pc1;
    }
    GSVD_TRY(gsvd_plot_heatmap(in->t, in->node, &ids, &p, &svg));
    GSVD_TRY(write_output(output, png, o->dpi, &svg));
out:
    gsvd_free(pc1);
    gsvd_buf_free(&svg);
    gsvd_plot_labels_free(&labels);
    gsvd_strlist_free(&ids);
    return rc;
}

int gensvd_plot(gensvd_ctx *ctx, const gensvd_options *opt, const char *input_url,
                const char *output_path)
{
    const struct gsvd_scope *prev;
    struct lib_store in = {0};
    const struct lib_plot_opts *o;
    size_t n;
    int png, rc = GSVD_OK;

    if (!ctx)
        return GENSVD_EINVAL;
    prev = lib_begin(ctx);
    if (!opt || opt->ctx != ctx ||
        (opt->analysis != GENSVD_PLOT_PCA && opt->analysis != GENSVD_PLOT_PDIST)) {
        rc = lib_fail(GSVD_EINVAL, "gensvd_plot: the options are not GENSVD_PLOT_PCA's or "
                                   "GENSVD_PLOT_PDIST's");
        goto out;
    }
    if (!input_url || !output_path || !*output_path) {
        rc = lib_fail(GSVD_EINVAL, "gensvd_plot: no input or no output");
        goto out;
    }
    o = &opt->u.plot;
    n = strlen(output_path);
    png = o->format == 2 ||
          (o->format == 0 && n >= 4 && strcasecmp(output_path + n - 4, ".png") == 0);
    if (png && !gsvd_plot_png_available()) {
        rc = lib_fail(GSVD_ENOTBUILT,
                      "%s: PNG output is not built into this gensvd (rebuild with librsvg: "
                      "apt-get install librsvg2-dev; cmake -DGENSVD_PNG=ON), or write SVG",
                      output_path);
        goto out;
    }
    /* the picture's directory before any input is read; an existing picture is replaced */
    GSVD_TRY(gsvd_dest_check_file(output_path, 1));
    GSVD_TRY(lib_store_open(input_url, &in));
    rc = opt->analysis == GENSVD_PLOT_PCA ? plot_pca(ctx, o, &in, output_path, png)
                                          : plot_pdist(ctx, o, &in, output_path, png);
out:
    lib_store_close(&in);
    return lib_end(ctx, prev, rc, "gensvd_plot");
}
