/* plot/heatmap.c - distance heatmaps: ordering, block averaging while streaming the matrix,
 * the image as an embedded PNG, label bands, colour bar and dendrogram.
 * Cells are one PNG pixel each: an SVG rect per cell would be 40 MB at 1,000 x 1,000. */
#include "gsvd_config.h"

#include "plot/heatmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pdist/pdist_store.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "plot/svg.h"
#include "zarr/reader.h"

#define SIDE 720.0            /* heatmap width and height, pixels */
#define STREAM_VALUES 4194304 /* values read at once (32 MB of float64) */

/* Where one pass over the matrix puts its values. */
struct sink {
    size_t n, m;
    const size_t *cell;                   /* sample -> cell index (display order) */
    double *sum;                          /* m x m */
    double *cnt;                          /* m x m */
    float *full;                          /* n x n (cluster order), or NULL */
    const struct gsvd_progress *progress; /* "reading": distances read of the layout's total */
};

static void tick(const struct sink *s, uint64_t done, uint64_t total)
{
    gsvd_progress_report(s->progress, "reading", done, total);
}

static void put(struct sink *s, size_t i, size_t j, double v)
{
    size_t k;
    if (s->full)
        s->full[i * s->n + j] = (float)v;
    if (!s->sum || isnan(v) || i == j) /* self-distances are not data: left out of means */
        return;
    k = s->cell[i] * s->m + s->cell[j];
    s->sum[k] += v;
    s->cnt[k] += 1;
}

/* The square layout tile by tile in the array's chunk shape (at most STREAM_VALUES values), so
 * each chunk is decoded once and memory is one tile, whatever N. */
static int stream_square(gsvd_reader *r, size_t n, double *v, struct gsvd_buf *raw, struct sink *s)
{
    const struct gsvd_zarray *z = gsvd_array_meta(gsvd_reader_array(r));
    size_t tr = z->chunks[0] < n ? (size_t)z->chunks[0] : n;
    size_t tc = z->chunks[1] < n ? (size_t)z->chunks[1] : n;
    int rc = GSVD_OK;

    while (tr * tc > STREAM_VALUES && tc > 1)
        tc = (tc + 1) / 2;
    while (tr * tc > STREAM_VALUES && tr > 1)
        tr = (tr + 1) / 2;
    for (size_t i0 = 0; i0 < n; i0 += tr)
        for (size_t j0 = 0; j0 < n; j0 += tc) {
            uint64_t start[2] = {i0, j0};
            uint64_t count[2] = {i0 + tr > n ? n - i0 : tr, j0 + tc > n ? n - j0 : tc};
            GSVD_TRY(gsvd_plot_read_f64(r, start, count, v, raw));
            for (size_t i = 0; i < count[0]; i++)
                for (size_t j = 0; j < count[1]; j++)
                    put(s, i0 + i, j0 + j, i0 + i == j0 + j ? 0 : v[i * count[1] + j]);
            tick(s, (uint64_t)i0 * n + (uint64_t)count[0] * (j0 + count[1]), (uint64_t)n * n);
        }
out:
    return rc;
}

/* The condensed layout (pairs i < j in row order) in pieces of STREAM_VALUES values. */
static int stream_condensed(gsvd_reader *r, size_t n, double *v, struct gsvd_buf *raw,
                            struct sink *s)
{
    uint64_t total = (uint64_t)n * (n - 1) / 2, at = 0;
    size_t i = 0, j = 1;
    int rc = GSVD_OK;

    for (size_t d = 0; d < n; d++)
        put(s, d, d, 0);
    while (at < total) {
        uint64_t start[1] = {at},
                 count[1] = {total - at < STREAM_VALUES ? total - at : STREAM_VALUES};
        GSVD_TRY(gsvd_plot_read_f64(r, start, count, v, raw));
        for (size_t q = 0; q < count[0]; q++) {
            put(s, i, j, v[q]);
            put(s, j, i, v[q]);
            if (++j == n) {
                i++;
                j = i + 1;
            }
        }
        at += count[0];
        tick(s, at, total);
    }
out:
    return rc;
}

/* Stream the distance array into s: every (i, j) pair once in each direction, the diagonal
 * as 0. */
static int stream(gsvd_array *a, size_t n, int condensed, struct sink *s)
{
    gsvd_reader *r = NULL;
    struct gsvd_buf raw = GSVD_BUF_INIT;
    double *v = gsvd_malloc(STREAM_VALUES * sizeof *v);
    int rc = GSVD_OK;

    if (!v) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_reader_new(a, &r));
    if (condensed)
        GSVD_TRY(stream_condensed(r, n, v, &raw, s));
    else
        GSVD_TRY(stream_square(r, n, v, &raw, s));
out:
    gsvd_free(v);
    gsvd_buf_free(&raw);
    gsvd_reader_free(r);
    return rc;
}

/* Sort keys of the display order. */
struct okey {
    double k1;
    size_t i;
};

static int okey_cmp(const void *a, const void *b)
{
    const struct okey *x = a, *y = b;
    if (x->k1 != y->k1)
        return x->k1 < y->k1 ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Display order (order[p] = sample at position p) for the label, pc1 or input orders. */
static int simple_order(const struct gsvd_plot_heat_params *p, size_t n, size_t *order)
{
    struct okey *k;

    if (p->order == GSVD_PLOT_ORDER_INPUT) {
        for (size_t i = 0; i < n; i++)
            order[i] = i;
        return GSVD_OK;
    }
    if (!(k = gsvd_calloc(n, sizeof *k)))
        return GSVD_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        double key;
        if (p->order == GSVD_PLOT_ORDER_LABEL)
            key = p->labels->code[i] < 0 ? INFINITY : p->labels->code[i];
        else
            key = isnan(p->pc1[i]) ? INFINITY : p->pc1[i];
        k[i] = (struct okey){key, i};
    }
    qsort(k, n, sizeof *k, okey_cmp);
    for (size_t i = 0; i < n; i++)
        order[i] = k[i].i;
    gsvd_free(k);
    return GSVD_OK;
}

static const char *label_colour(const struct gsvd_plot_labels *l, size_t sample)
{
    return gsvd_plot_label_colour(l->code[sample]);
}

/* Bands along the top (y0) and left (x0) edges: runs of cells with the same first label. */
static int draw_bands(struct gsvd_buf *b, const struct gsvd_plot_labels *l, const size_t *order,
                      size_t n, size_t m, double x0, double y0)
{
    double cw = SIDE / (double)m;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_buf_puts(b, "<g class=\"bands\">\n"));
    for (size_t c = 0; c < m;) {
        size_t e = c + 1;
        const char *col = label_colour(l, order[c * n / m]);
        while (e < m && strcmp(label_colour(l, order[e * n / m]), col) == 0 &&
               l->code[order[e * n / m]] == l->code[order[c * n / m]])
            e++;
        GSVD_TRY(gsvd_buf_printf(b,
                                 "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"10\" "
                                 "fill=\"%s\"/><rect x=\"%.1f\" y=\"%.2f\" width=\"10\" "
                                 "height=\"%.2f\" fill=\"%s\"/>\n",
                                 x0 + 14 + cw * (double)c, y0, cw * (double)(e - c), col, x0,
                                 y0 + 14 + cw * (double)c, cw * (double)(e - c), col));
        c = e;
    }
    GSVD_TRY(gsvd_buf_puts(b, "</g>\n"));
out:
    return rc;
}

/* Dendrogram above the heatmap (x0 its left edge, y1 its bottom, height hh). */
static int draw_dendrogram(struct gsvd_buf *b, size_t n, const size_t *order, const size_t *ma,
                           const size_t *mb, const double *height, double x0, double y1, double hh)
{
    double *nx = gsvd_calloc(2 * n, sizeof *nx), *ny = gsvd_calloc(2 * n, sizeof *ny);
    double top = -INFINITY, bottom = INFINITY;
    int rc = GSVD_OK;

    if (!nx || !ny) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t t = 0; t + 1 < n; t++)
        if (isfinite(height[t])) {
            top = height[t] > top ? height[t] : top;
            bottom = height[t] < bottom ? height[t] : bottom;
        }
    for (size_t p = 0; p < n; p++) {
        nx[order[p]] = x0 + SIDE * ((double)p + 0.5) / (double)n;
        ny[order[p]] = y1;
    }
    GSVD_TRY(gsvd_buf_puts(b, "<path class=\"dendrogram\" fill=\"none\" stroke=\"#333333\" "
                              "stroke-width=\"0.6\" d=\""));
    for (size_t t = 0; t + 1 < n; t++) {
        size_t a = ma[t], c = mb[t];
        double h = top > bottom && isfinite(height[t]) ? (height[t] - bottom) / (top - bottom) : 1;
        double y = y1 - 4 - (hh - 4) * h;
        nx[n + t] = (nx[a] + nx[c]) / 2;
        ny[n + t] = y;
        GSVD_TRY(gsvd_buf_printf(b, "M%.2f %.1fV%.1fH%.2fV%.1f", nx[a], ny[a], y, nx[c], ny[c]));
    }
    GSVD_TRY(gsvd_buf_puts(b, "\"/>\n"));
out:
    gsvd_free(nx);
    gsvd_free(ny);
    return rc;
}

/* Colour bar (top = hi) with five ticks, at x, y, height hh. */
static int draw_colorbar(struct gsvd_buf *b, double x, double y, double hh, double lo, double hi)
{
    uint8_t rgb[256 * 3];
    double t[16];
    size_t n_t;
    char s[48];
    int rc = GSVD_OK;

    for (size_t i = 0; i < 256; i++)
        gsvd_plot_viridis(1 - (double)i / 255, rgb + 3 * i);
    GSVD_TRY(gsvd_buf_printf(b,
                             "<image class=\"colorbar\" x=\"%.1f\" y=\"%.1f\" width=\"18\" "
                             "height=\"%.1f\" preserveAspectRatio=\"none\" "
                             "style=\"image-rendering:pixelated\" href=\"",
                             x, y, hh));
    GSVD_TRY(gsvd_svg_png_uri(b, rgb, 1, 256));
    GSVD_TRY(gsvd_buf_puts(b, "\"/>\n"));
    n_t = gsvd_plot_ticks(lo, hi, 6, t);
    for (size_t i = 0; i < n_t && hi > lo; i++) {
        double ty = y + hh * (1 - (t[i] - lo) / (hi - lo));
        snprintf(s, sizeof s, "%g", t[i]);
        GSVD_TRY(gsvd_buf_printf(b, "<path d=\"M%.1f %.1fh4\" stroke=\"#444444\"/>", x + 18, ty));
        GSVD_TRY(gsvd_svg_text(b, x + 25, ty + 4, 11, "start", 0, s));
    }
    GSVD_TRY(gsvd_svg_text(b, x, y - 10, 12, "start", 0, "distance"));
out:
    return rc;
}

/* Legend of the label bands, from (x, y) down. */
static int draw_label_legend(struct gsvd_buf *b, const struct gsvd_plot_labels *l, double x,
                             double y)
{
    int rc = GSVD_OK;
    for (size_t gi = 0; gi <= l->names.n; gi++) {
        int g = gi < l->names.n ? (int)gi : -1;
        size_t count = g >= 0 ? l->count[g] : l->n_unlabelled;
        if (count == 0)
            continue;
        GSVD_TRY(gsvd_buf_printf(b,
                                 "<g class=\"legend-item\"><rect x=\"%.1f\" y=\"%.1f\" "
                                 "width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.1f\" "
                                 "y=\"%.1f\" font-size=\"12\">",
                                 x, y - 6, gsvd_plot_label_colour(g), x + 18, y + 4));
        GSVD_TRY(gsvd_svg_escaped(b, g >= 0 ? l->names.items[g] : "unlabelled"));
        GSVD_TRY(gsvd_buf_printf(b, " (%zu)</text></g>\n", count));
        y += 18;
    }
out:
    return rc;
}

/* The cluster order: the whole matrix as float32, NaN as the largest distance. */
static int cluster_order(gsvd_array *a, size_t n, int condensed,
                         const struct gsvd_progress *progress, float **full, size_t *order,
                         size_t *ma, size_t *mb, double *height)
{
    struct sink s = {.n = n, .progress = progress};
    float *copy = NULL, top = 0;
    size_t nn;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_mul_size(n, n, &nn));
    if (!(s.full = gsvd_malloc(nn * sizeof *s.full)) || !(copy = gsvd_malloc(nn * sizeof *copy))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(stream(a, n, condensed, &s));
    for (size_t i = 0; i < nn; i++)
        if (isfinite(s.full[i]) && s.full[i] > top)
            top = s.full[i];
    for (size_t i = 0; i < nn; i++)
        copy[i] = isfinite(s.full[i]) ? s.full[i] : top;
    GSVD_TRY(gsvd_plot_cluster(copy, n, order, ma, mb, height));
    *full = s.full;
    s.full = NULL;
out:
    gsvd_free(s.full);
    gsvd_free(copy);
    return rc;
}

int gsvd_plot_heatmap(gsvd_tree *t, const char *node, const struct gsvd_strlist *ids,
                      const struct gsvd_plot_heat_params *p, struct gsvd_buf *svg)
{
    size_t n = ids->n, m, mm, max = p->max_cells ? p->max_cells : GSVD_PLOT_MAX_CELLS;
    size_t *order = NULL, *cell = NULL, *ma = NULL, *mb = NULL;
    double *height = NULL, lo = INFINITY, hi = -INFINITY;
    float *full = NULL;
    uint8_t *rgb = NULL;
    gsvd_array *a = NULL;
    struct sink s = {0};
    int condensed, rc = GSVD_OK, cluster = p->order == GSVD_PLOT_ORDER_CLUSTER;
    const struct gsvd_plot_labels *l = p->labels;
    double left = 60, top = 60 + (cluster ? 130 : 0), hm_x, hm_y, w, h;
    char s_axis[96];

    if ((p->order == GSVD_PLOT_ORDER_LABEL && !l) || (p->order == GSVD_PLOT_ORDER_PC1 && !p->pc1) ||
        (l && l->n != n) || n == 0) {
        gsvd_log_error("heatmap: the order's labels or PC1 values are missing, or the samples "
                       "(%zu) do not match",
                       n);
        return GSVD_EINCONSIST;
    }
    if (cluster && n > GSVD_PLOT_CLUSTER_MAX) {
        gsvd_log_error("--order cluster handles at most %d samples; this matrix has %zu (use "
                       "--order label or pc1)",
                       GSVD_PLOT_CLUSTER_MAX, n);
        return GSVD_EINCONSIST;
    }
    GSVD_TRY(gsvd_pdist_store_open_distance(t, node, n, &a, &condensed));
    m = n < max ? n : max;
    mm = m * m;
    order = gsvd_calloc(n, sizeof *order);
    cell = gsvd_calloc(n, sizeof *cell);
    s.sum = gsvd_calloc(mm, sizeof *s.sum);
    s.cnt = gsvd_calloc(mm, sizeof *s.cnt);
    rgb = gsvd_calloc(mm, 3);
    if (cluster) {
        ma = gsvd_calloc(n, sizeof *ma);
        mb = gsvd_calloc(n, sizeof *mb);
        height = gsvd_calloc(n, sizeof *height);
    }
    if (!order || !cell || !s.sum || !s.cnt || !rgb || (cluster && (!ma || !mb || !height))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (cluster)
        GSVD_TRY(cluster_order(a, n, condensed, &p->progress, &full, order, ma, mb, height));
    else
        GSVD_TRY(simple_order(p, n, order));
    for (size_t q = 0; q < n; q++)
        cell[order[q]] = q * m / n;
    s.n = n;
    s.m = m;
    s.cell = cell;
    s.progress = &p->progress;
    if (full) { /* already in memory */
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                put(&s, i, j, full[i * n + j]);
    } else {
        GSVD_TRY(stream(a, n, condensed, &s));
    }
    for (size_t k = 0; k < mm; k++) {
        s.sum[k] = s.cnt[k] > 0 ? s.sum[k] / s.cnt[k] : NAN;
        if (s.sum[k] < lo)
            lo = s.sum[k];
        if (s.sum[k] > hi)
            hi = s.sum[k];
    }
    if (!(lo <= hi))
        lo = hi = 0;
    for (size_t k = 0; k < mm; k++) { /* an empty diagonal cell (one sample) is distance 0 */
        double v = isnan(s.sum[k]) && k / m == k % m ? lo : s.sum[k];
        gsvd_plot_viridis(hi > lo ? (v - lo) / (hi - lo) : 0, rgb + 3 * k);
    }
    hm_x = left + (l ? 14 : 0);
    hm_y = top + (l ? 14 : 0);
    w = hm_x + SIDE + 260;
    h = hm_y + SIDE + 50;
    if (l && h < 120 + 18.0 * (double)(l->names.n + 1) + SIDE / 2 + 80)
        h = 120 + 18.0 * (double)(l->names.n + 1) + SIDE / 2 + 80;
    GSVD_TRY(gsvd_svg_begin(svg, w, h));
    if (p->title)
        GSVD_TRY(gsvd_svg_text(svg, left, 28, 16, "start", 0, p->title));
    GSVD_TRY(gsvd_buf_printf(svg,
                             "<image class=\"heatmap\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                             "height=\"%.1f\" preserveAspectRatio=\"none\" "
                             "style=\"image-rendering:pixelated\" data-cells=\"%zu\" href=\"",
                             hm_x, hm_y, SIDE, SIDE, m));
    GSVD_TRY(gsvd_svg_png_uri(svg, rgb, m, m));
    GSVD_TRY(gsvd_buf_puts(svg, "\"/>\n"));
    if (l)
        GSVD_TRY(draw_bands(svg, l, order, n, m, left, top));
    if (cluster)
        GSVD_TRY(draw_dendrogram(svg, n, order, ma, mb, height, hm_x, top - 4, 120));
    snprintf(s_axis, sizeof s_axis, "%zu samples, %s order%s", n,
             p->order == GSVD_PLOT_ORDER_INPUT   ? "input"
             : p->order == GSVD_PLOT_ORDER_LABEL ? "label"
             : p->order == GSVD_PLOT_ORDER_PC1   ? "PC1"
                                                 : "average-linkage",
             m < n ? ", cells are block means" : "");
    GSVD_TRY(gsvd_svg_text(svg, hm_x + SIDE / 2, hm_y + SIDE + 22, 12, "middle", 0, s_axis));
    GSVD_TRY(gsvd_svg_text(svg, left - 16, hm_y + SIDE / 2, 12, "middle", -90, s_axis));
    GSVD_TRY(draw_colorbar(svg, hm_x + SIDE + 30, hm_y + 20, SIDE / 2, lo, hi));
    if (l)
        GSVD_TRY(draw_label_legend(svg, l, hm_x + SIDE + 30, hm_y + SIDE / 2 + 70));
    GSVD_TRY(gsvd_svg_end(svg));
out:
    gsvd_array_close(a);
    gsvd_free(order);
    gsvd_free(cell);
    gsvd_free(s.sum);
    gsvd_free(s.cnt);
    gsvd_free(rgb);
    gsvd_free(full);
    gsvd_free(ma);
    gsvd_free(mb);
    gsvd_free(height);
    return rc;
}
