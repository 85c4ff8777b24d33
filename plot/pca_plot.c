/* plot/pca_plot.c - PC scatter plots: panels, markers per label, legend and scree inset.
 * Samples are bucketed by label once (a counting sort), so every label's markers are written
 * in one pass whatever the number of labels. */
#include "gsvd_config.h"

#include "plot/pca_plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "plot/svg.h"
#include "zarr/reader.h"

#define PANEL_PAD 0.04 /* data range padding on each side, as a fraction of the range */
#define LEGEND_ROW 18.0

void gsvd_plot_pcs_free(struct gsvd_plot_pcs *p)
{
    gsvd_free(p->proj);
    gsvd_free(p->evr);
    gsvd_strlist_free(&p->ids);
    gsvd_free(p->source);
    memset(p, 0, sizeof *p);
}

/* Read a whole numeric array `name` (rank ndim) into a new float64 buffer. */
static int read_all(gsvd_tree *t, const char *node, const char *name, size_t ndim, double **dst,
                    uint64_t *shape)
{
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    struct gsvd_buf raw = GSVD_BUF_INIT;
    uint64_t start[2] = {0, 0};
    size_t n = 1;
    int rc = GSVD_OK;

    *dst = NULL;
    GSVD_TRY(gsvd_array_open_numeric(t, node, name, ndim, "gensvd pca", &a));
    for (size_t d = 0; d < ndim; d++) {
        shape[d] = gsvd_array_meta(a)->shape[d];
        GSVD_TRY(gsvd_mul_size(n, (size_t)shape[d], &n));
    }
    if (!(*dst = gsvd_malloc((n ? n : 1) * sizeof **dst))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_reader_new(a, &r));
    if (n)
        GSVD_TRY(gsvd_plot_read_f64(r, start, shape, *dst, &raw));
out:
    if (rc < 0) {
        gsvd_free(*dst);
        *dst = NULL;
    }
    gsvd_buf_free(&raw);
    gsvd_reader_free(r);
    gsvd_array_close(a);
    return rc;
}

int gsvd_plot_pcs_read(gsvd_tree *t, const char *node, struct gsvd_plot_pcs *out)
{
    uint64_t ps[2], es[1];
    int rc = GSVD_OK;

    memset(out, 0, sizeof *out);
    GSVD_TRY(read_all(t, node, "sample_pca_projection", 2, &out->proj, ps));
    GSVD_TRY(read_all(t, node, "sample_pca_explained_variance_ratio", 1, &out->evr, es));
    GSVD_TRY(gsvd_plot_read_ids(t, node, &out->ids));
    if (ps[1] != es[0] || ps[0] != out->ids.n || ps[0] == 0 || ps[1] == 0) {
        gsvd_log_error("%s: sample_pca_projection is %llu x %llu, but there are %llu explained "
                       "variance ratios and %zu sample IDs",
                       gsvd_store_url(gsvd_tree_store(t)), (unsigned long long)ps[0],
                       (unsigned long long)ps[1], (unsigned long long)es[0], out->ids.n);
        rc = GSVD_EINCONSIST;
        goto out;
    }
    if (!(out->source = gsvd_strdup(gsvd_store_url(gsvd_tree_store(t))))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    out->n = (size_t)ps[0];
    out->k = (size_t)ps[1];
out:
    if (rc < 0)
        gsvd_plot_pcs_free(out);
    return rc;
}

/* One panel's data-to-pixel map (pca_plot.h). */
struct frame {
    double x, y, w, h;         /* pixels */
    double xlo, xhi, ylo, yhi; /* data */
};

static void range(const struct gsvd_plot_pcs *p, size_t q, double *lo, double *hi)
{
    double a = INFINITY, b = -INFINITY, r;
    for (size_t i = 0; i < p->n; i++) {
        double v = p->proj[i * p->k + q];
        if (v < a)
            a = v;
        if (v > b)
            b = v;
    }
    if (!(a <= b)) { /* all NaN */
        a = 0;
        b = 0;
    }
    r = b - a;
    if (r > 0) {
        *lo = a - PANEL_PAD * r;
        *hi = b + PANEL_PAD * r;
    } else {
        *lo = a - 1;
        *hi = b + 1;
    }
}

static double px(const struct frame *f, double u)
{
    return f->x + f->w * (u - f->xlo) / (f->xhi - f->xlo);
}

static double py(const struct frame *f, double v)
{
    return f->y + f->h * (1 - (v - f->ylo) / (f->yhi - f->ylo));
}

static int axis_title(char *s, size_t len, const struct gsvd_plot_pcs *p, size_t q)
{
    double pct = 100 * p->evr[q];
    return snprintf(s, len, "PC%zu (%.*f%%)", q + 1, pct < 0.1 ? 2 : 1, pct);
}

/* Frame, grid, ticks and axis titles of a panel. */
static int draw_axes(struct gsvd_buf *b, const struct frame *f, const struct gsvd_plot_pcs *p,
                     size_t qx, size_t qy, double font)
{
    double t[16];
    size_t n;
    char s[64];
    int rc = GSVD_OK;

    n = gsvd_plot_ticks(f->xlo, f->xhi, 6, t);
    GSVD_TRY(gsvd_buf_puts(b, "<g stroke=\"#e8e8e8\" stroke-width=\"1\">"));
    for (size_t i = 0; i < n; i++)
        GSVD_TRY(gsvd_buf_printf(b, "<path d=\"M%.1f %.1fv%.1f\"/>", px(f, t[i]), f->y, f->h));
    GSVD_TRY(gsvd_buf_puts(b, "</g>\n"));
    for (size_t i = 0; i < n; i++) {
        snprintf(s, sizeof s, "%g", t[i]);
        GSVD_TRY(gsvd_svg_text(b, px(f, t[i]), f->y + f->h + font + 4, font, "middle", 0, s));
    }
    n = gsvd_plot_ticks(f->ylo, f->yhi, 6, t);
    GSVD_TRY(gsvd_buf_puts(b, "<g stroke=\"#e8e8e8\" stroke-width=\"1\">"));
    for (size_t i = 0; i < n; i++)
        GSVD_TRY(gsvd_buf_printf(b, "<path d=\"M%.1f %.1fh%.1f\"/>", f->x, py(f, t[i]), f->w));
    GSVD_TRY(gsvd_buf_puts(b, "</g>\n"));
    for (size_t i = 0; i < n; i++) {
        snprintf(s, sizeof s, "%g", t[i]);
        GSVD_TRY(gsvd_svg_text(b, f->x - 5, py(f, t[i]) + font / 3, font, "end", 0, s));
    }
    GSVD_TRY(gsvd_buf_printf(b,
                             "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                             "height=\"%.1f\" fill=\"none\" stroke=\"#444444\" "
                             "data-pcs=\"%zu,%zu\"/>\n",
                             f->x, f->y, f->w, f->h, qx + 1, qy + 1));
    axis_title(s, sizeof s, p, qx);
    GSVD_TRY(
        gsvd_svg_text(b, f->x + f->w / 2, f->y + f->h + 2 * font + 12, font + 1, "middle", 0, s));
    axis_title(s, sizeof s, p, qy);
    GSVD_TRY(gsvd_svg_text(b, f->x - 3.2 * font - 8, f->y + f->h / 2, font + 1, "middle", -90, s));
out:
    return rc;
}

static const char *group_colour(int g, int labelled)
{
    return g < 0 && !labelled ? gsvd_plot_palette[4] : gsvd_plot_label_colour(g);
}

/* Points drawn of all panels, reported every TICK_POINTS points as "drawing". */
#define TICK_POINTS 8192
struct ticker {
    const struct gsvd_progress *progress;
    uint64_t done, total;
};

/* The markers of one panel: per group (unlabelled first), one element per point with a
 * tooltip up to GSVD_PLOT_POINT_ELEMENTS samples, else one path per group. */
static int draw_points(struct gsvd_buf *b, const struct frame *f, const struct gsvd_plot_pcs *p,
                       const struct gsvd_plot_labels *l, const size_t *by_group,
                       const size_t *first, size_t qx, size_t qy, double r, struct ticker *t)
{
    size_t n_groups = l ? l->names.n : 0;
    int each = p->n <= GSVD_PLOT_POINT_ELEMENTS, rc = GSVD_OK;

    GSVD_TRY(gsvd_buf_printf(b, "<g class=\"points\">\n"));
    for (size_t gi = 0; gi <= n_groups; gi++) {
        int g = (int)gi - 1;
        const char *name = g < 0 ? (l ? "unlabelled" : "samples") : l->names.items[g];
        if (first[gi] == first[gi + 1])
            continue;
        GSVD_TRY(gsvd_buf_printf(b, each ? "<g class=\"label\"" : "<path class=\"label\""));
        GSVD_TRY(gsvd_svg_marker_style(b, gsvd_plot_label_shape(g), group_colour(g, l != NULL), r));
        GSVD_TRY(gsvd_buf_puts(b, each ? ">\n" : " d=\""));
        for (size_t j = first[gi]; j < first[gi + 1]; j++) {
            size_t i = by_group[j];
            double u = p->proj[i * p->k + qx], v = p->proj[i * p->k + qy];
            if (++t->done % TICK_POINTS == 0 && t->done < t->total)
                gsvd_progress_report(t->progress, "drawing", t->done, t->total);
            if (!isfinite(u) || !isfinite(v))
                continue;
            if (each)
                GSVD_TRY(gsvd_buf_puts(b, "<path d=\""));
            GSVD_TRY(
                gsvd_svg_marker(b, gsvd_plot_label_shape(g), px(f, u), py(f, v), r, each ? 2 : 1));
            if (each) {
                GSVD_TRY(gsvd_buf_puts(b, "\"><title>"));
                GSVD_TRY(gsvd_svg_escaped(b, p->ids.items[i]));
                GSVD_TRY(gsvd_buf_puts(b, " ("));
                GSVD_TRY(gsvd_svg_escaped(b, name));
                GSVD_TRY(gsvd_buf_puts(b, ")</title></path>\n"));
            }
        }
        GSVD_TRY(gsvd_buf_puts(b, each ? "</g>\n" : "\"/>\n"));
    }
    GSVD_TRY(gsvd_buf_puts(b, "</g>\n"));
out:
    return rc;
}

/* Legend at (x, y): a marker and "name (count)" per label, unlabelled last. */
static int draw_legend(struct gsvd_buf *b, double x, double y, const struct gsvd_plot_pcs *p,
                       const struct gsvd_plot_labels *l)
{
    size_t n_groups = l ? l->names.n : 0;
    char s[32];
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_buf_puts(b, "<g class=\"legend\">\n"));
    for (size_t gi = 0; gi <= n_groups; gi++) {
        int g = gi < n_groups ? (int)gi : -1; /* unlabelled last */
        size_t count = g >= 0 ? l->count[g] : l ? l->n_unlabelled : p->n;
        const char *name = g >= 0 ? l->names.items[g] : l ? "unlabelled" : "samples";
        if (count == 0)
            continue;
        GSVD_TRY(gsvd_buf_puts(b, "<g class=\"legend-item\" data-label=\""));
        GSVD_TRY(gsvd_svg_escaped(b, g >= 0 ? name : ""));
        GSVD_TRY(gsvd_buf_puts(b, "\"><path"));
        GSVD_TRY(gsvd_svg_marker_style(b, gsvd_plot_label_shape(g), group_colour(g, l != NULL), 5));
        GSVD_TRY(gsvd_buf_puts(b, " d=\""));
        GSVD_TRY(gsvd_svg_marker(b, gsvd_plot_label_shape(g), x + 6, y, 5, 1));
        GSVD_TRY(gsvd_buf_puts(b, "\"/>"));
        snprintf(s, sizeof s, " (%zu)", count);
        GSVD_TRY(
            gsvd_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">", x + 18, y + 4));
        GSVD_TRY(gsvd_svg_escaped(b, name));
        GSVD_TRY(gsvd_buf_printf(b, "%s</text></g>\n", s));
        y += LEGEND_ROW;
    }
    GSVD_TRY(gsvd_buf_puts(b, "</g>\n"));
out:
    return rc;
}

/* Scree inset: one bar per component, heights relative to the largest ratio. */
static int draw_scree(struct gsvd_buf *b, double x, double y, double w, double h,
                      const struct gsvd_plot_pcs *p)
{
    double top = 0, bw = w / (double)p->k;
    char s[48];
    int rc = GSVD_OK;

    for (size_t q = 0; q < p->k; q++)
        if (p->evr[q] > top)
            top = p->evr[q];
    if (!(top > 0))
        top = 1;
    GSVD_TRY(gsvd_svg_text(b, x, y - 8, 11, "start", 0, "explained variance ratio"));
    GSVD_TRY(gsvd_buf_printf(b, "<g class=\"scree\" fill=\"#777777\">"));
    for (size_t q = 0; q < p->k; q++) {
        double v = isfinite(p->evr[q]) && p->evr[q] > 0 ? p->evr[q] : 0, bh = h * v / top;
        GSVD_TRY(gsvd_buf_printf(b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\">",
                                 x + bw * (double)q + bw * 0.1, y + h - bh, bw * 0.8, bh));
        GSVD_TRY(gsvd_buf_printf(b, "<title>PC%zu: %.2f%%</title></rect>", q + 1, 100 * v));
    }
    GSVD_TRY(gsvd_buf_puts(b, "</g>\n"));
    GSVD_TRY(gsvd_buf_printf(b,
                             "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                             "fill=\"none\" stroke=\"#444444\"/>\n",
                             x, y, w, h));
    snprintf(s, sizeof s, "%.1f%%", 100 * top);
    GSVD_TRY(gsvd_svg_text(b, x - 4, y + 9, 10, "end", 0, s));
    GSVD_TRY(gsvd_svg_text(b, x - 4, y + h, 10, "end", 0, "0"));
    GSVD_TRY(gsvd_svg_text(b, x + bw / 2, y + h + 12, 10, "middle", 0, "1"));
    snprintf(s, sizeof s, "%zu", p->k);
    GSVD_TRY(gsvd_svg_text(b, x + w - bw / 2, y + h + 12, 10, "middle", 0, s));
out:
    return rc;
}

/* Samples bucketed by label: by_group[first[g+1] .. first[g+2]) are label g's, unlabelled
 * first (g = -1), each bucket in sample order. */
static int bucket(const struct gsvd_plot_pcs *p, const struct gsvd_plot_labels *l,
                  size_t **by_group, size_t **first)
{
    size_t n_groups = l ? l->names.n : 0;
    size_t *at = gsvd_calloc(n_groups + 2, sizeof *at), *bg = gsvd_calloc(p->n, sizeof *bg);

    if (!at || !bg) {
        gsvd_free(at);
        gsvd_free(bg);
        return GSVD_ENOMEM;
    }
    for (size_t i = 0; i < p->n; i++)
        at[(l ? l->code[i] + 1 : 0) + 1]++;
    for (size_t g = 1; g <= n_groups + 1; g++)
        at[g] += at[g - 1];
    for (size_t i = 0; i < p->n; i++)
        bg[at[l ? l->code[i] + 1 : 0]++] = i;
    memmove(at + 1, at, (n_groups + 1) * sizeof *at); /* back to the bucket starts */
    at[0] = 0;
    *by_group = bg;
    *first = at;
    return GSVD_OK;
}

int gsvd_plot_pca_check(const struct gsvd_plot_pcs *pcs, const struct gsvd_plot_pca_params *p)
{
    size_t g = p->grid;
    if (g ? g > pcs->k : (p->pc_x > pcs->k || p->pc_y > pcs->k)) {
        gsvd_log_error("%s: PC%zu requested, but it holds %zu components", pcs->source,
                       g ? g : (p->pc_x > p->pc_y ? p->pc_x : p->pc_y), pcs->k);
        return GSVD_EINCONSIST;
    }
    if (p->labels && p->labels->n != pcs->n) {
        gsvd_log_error("%s: %zu labels for %zu samples", pcs->source, p->labels->n, pcs->n);
        return GSVD_EINCONSIST;
    }
    return GSVD_OK;
}

int gsvd_plot_pca(const struct gsvd_plot_pcs *pcs, const struct gsvd_plot_pca_params *p,
                  struct gsvd_buf *svg)
{
    const struct gsvd_plot_labels *l = p->labels;
    size_t *by_group = NULL, *first = NULL, g = p->grid, cells = g ? g - 1 : 1;
    size_t legend_rows = (l ? l->names.n + 1 : 1);
    double panel = g ? 230 : 520, step = g ? 280 : 520, left = 80, top = 50;
    double right = left + step * (double)(cells - 1) + panel + 40;
    double r = pcs->n <= 1000 ? 3 : pcs->n <= 10000 ? 2.2 : pcs->n <= 100000 ? 1.5 : 1;
    double w = right + 240, h, legend_h = LEGEND_ROW * (double)legend_rows;
    struct ticker t = {&p->progress, 0, (uint64_t)pcs->n * (g ? g * (g - 1) / 2 : 1)};
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_plot_pca_check(pcs, p));
    h = top + step * (double)(cells - 1) + panel + 70;
    if (h < top + legend_h + 220)
        h = top + legend_h + 220;
    GSVD_TRY(bucket(pcs, l, &by_group, &first));
    GSVD_TRY(gsvd_svg_begin(svg, w, h));
    if (p->title)
        GSVD_TRY(gsvd_svg_text(svg, left, 28, 16, "start", 0, p->title));
    for (size_t row = 0; row < cells; row++)
        for (size_t col = 0; col <= (g ? row : 0); col++) {
            size_t qx = g ? col : p->pc_x - 1, qy = g ? row + 1 : p->pc_y - 1;
            struct frame f = {.x = left + step * (double)col,
                              .y = top + step * (double)row,
                              .w = panel,
                              .h = panel};
            range(pcs, qx, &f.xlo, &f.xhi);
            range(pcs, qy, &f.ylo, &f.yhi);
            GSVD_TRY(draw_axes(svg, &f, pcs, qx, qy, g ? 10 : 12));
            GSVD_TRY(draw_points(svg, &f, pcs, l, by_group, first, qx, qy, g ? r * 0.8 : r, &t));
        }
    gsvd_progress_report(&p->progress, "drawing", t.total, t.total);
    GSVD_TRY(draw_legend(svg, right + 10, top + 8, pcs, l));
    GSVD_TRY(draw_scree(svg, right + 40, top + legend_h + 60, 170, 110, pcs));
    GSVD_TRY(gsvd_svg_end(svg));
out:
    gsvd_free(by_group);
    gsvd_free(first);
    return rc;
}
