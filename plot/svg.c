/* plot/svg.c - SVG primitives, palettes, ticks, PNG data URIs and the staged file write.
 * Coordinates are written with one or two decimals: a plot is a few hundred pixels wide, so
 * that is finer than any screen, and it keeps 500,000 markers near 10 MB. */
#include "gsvd_config.h"

#include "plot/svg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/log.h"
#include "plot/png.h"

const char *const gsvd_plot_palette[GSVD_PLOT_N_COLOURS] = {
    "#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7",
    "#000000", "#690f96", "#5a5a00", "#782d2d", "#004b4b", "#4bf087", "#9687ff",
    "#00e1e1", "#e13c4b", "#785a78", "#a5a569", "#f0a596", "#2d3c5a",
};

const char *gsvd_plot_label_colour(int i)
{
    return i < 0 ? GSVD_PLOT_GREY : gsvd_plot_palette[i % GSVD_PLOT_N_COLOURS];
}

int gsvd_plot_label_shape(int i)
{
    return i < 0 ? 0 : (i / GSVD_PLOT_N_COLOURS) % GSVD_PLOT_N_SHAPES;
}

int gsvd_svg_begin(struct gsvd_buf *b, double w, double h)
{
    return gsvd_buf_printf(b,
                           "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                           "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                           "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                           "font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\">\n"
                           "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
                           w, h, w, h);
}

int gsvd_svg_end(struct gsvd_buf *b)
{
    return gsvd_buf_puts(b, "</svg>\n");
}

int gsvd_svg_escaped(struct gsvd_buf *b, const char *s)
{
    int rc = GSVD_OK;
    for (; *s && rc >= 0; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '<')
            rc = gsvd_buf_puts(b, "&lt;");
        else if (c == '>')
            rc = gsvd_buf_puts(b, "&gt;");
        else if (c == '&')
            rc = gsvd_buf_puts(b, "&amp;");
        else if (c == '"')
            rc = gsvd_buf_puts(b, "&quot;");
        else if (c < 0x20 || c == 0x7f) /* not allowed in XML 1.0 */
            rc = gsvd_buf_puts(b, "?");
        else
            rc = gsvd_buf_append(b, &c, 1);
    }
    return rc;
}

int gsvd_svg_text(struct gsvd_buf *b, double x, double y, double size, const char *anchor,
                  double rotate, const char *text)
{
    int rc = gsvd_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.1f\"", x, y, size);
    if (rc >= 0 && strcmp(anchor, "start") != 0)
        rc = gsvd_buf_printf(b, " text-anchor=\"%s\"", anchor);
    if (rc >= 0 && rotate != 0)
        rc = gsvd_buf_printf(b, " transform=\"rotate(%.0f %.1f %.1f)\"", rotate, x, y);
    if (rc >= 0)
        rc = gsvd_buf_puts(b, ">");
    if (rc >= 0)
        rc = gsvd_svg_escaped(b, text);
    if (rc >= 0)
        rc = gsvd_buf_puts(b, "</text>\n");
    return rc;
}

int gsvd_svg_marker(struct gsvd_buf *b, int shape, double x, double y, double r, int dec)
{
    double h = r * 1.15; /* polygons a little larger than the circle, for equal ink */
    int rc = gsvd_buf_printf(b, "M%.*f %.*f", dec, x, dec, y);
    if (rc < 0)
        return rc;
    switch (shape % GSVD_PLOT_N_SHAPES) {
    case 0: /* circle: a round cap on a zero-length line */
        return gsvd_buf_puts(b, "h0");
    case 1: /* square */
        return gsvd_buf_printf(b, "m%.1f %.1fh%.1fv%.1fh%.1fz", -h * 0.85, -h * 0.85, 1.7 * h,
                               1.7 * h, -1.7 * h);
    case 2: /* triangle up */
        return gsvd_buf_printf(b, "m0 %.1fl%.1f %.1fh%.1fz", -h, h, 1.7 * h, -2 * h);
    case 3: /* diamond */
        return gsvd_buf_printf(b, "m0 %.1fl%.1f %.1fl%.1f %.1fl%.1f %.1fz", -1.2 * h, h, 1.2 * h,
                               -h, 1.2 * h, -h, -1.2 * h);
    default: /* triangle down */
        return gsvd_buf_printf(b, "m0 %.1fl%.1f %.1fh%.1fz", h, h, -1.7 * h, -2 * h);
    }
}

int gsvd_svg_marker_style(struct gsvd_buf *b, int shape, const char *colour, double r)
{
    if (shape % GSVD_PLOT_N_SHAPES == 0)
        return gsvd_buf_printf(b,
                               " fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" "
                               "stroke-linecap=\"round\"",
                               colour, 2 * r);
    return gsvd_buf_printf(b, " fill=\"%s\" stroke=\"none\"", colour);
}

size_t gsvd_plot_ticks(double lo, double hi, size_t max, double *ticks)
{
    double span = hi - lo, step, mag, t0;
    size_t n = 0;

    if (!(span > 0) || !isfinite(span) || max < 2) {
        ticks[0] = lo;
        return 1;
    }
    mag = pow(10, floor(log10(span / (double)max)));
    step = mag;
    for (int i = 0; i < 4 && span / step > (double)max - 1; i++)
        step = mag * (i == 0 ? 2 : i == 1 ? 5 : i == 2 ? 10 : 20);
    t0 = ceil(lo / step - 1e-9) * step;
    for (double t = t0; t <= hi + step * 1e-9 && n < max; t = t0 + step * (double)n) {
        ticks[n++] = fabs(t) < step * 1e-9 ? 0 : t;
    }
    return n;
}

/* Viridis, 9 anchors from matplotlib's table, interpolated linearly. */
void gsvd_plot_viridis(double t, uint8_t rgb[3])
{
    static const uint8_t v[9][3] = {
        {68, 1, 84},    {71, 44, 122}, {59, 81, 139},  {44, 113, 142}, {33, 144, 141},
        {39, 173, 129}, {92, 200, 99}, {170, 220, 50}, {253, 231, 37},
    };
    double x;
    size_t i;

    if (isnan(t)) {
        rgb[0] = rgb[1] = rgb[2] = 0xbb;
        return;
    }
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    x = t * 8;
    i = x >= 8 ? 7 : (size_t)x;
    x -= (double)i;
    for (int c = 0; c < 3; c++)
        rgb[c] = (uint8_t)lround(v[i][c] + (v[i + 1][c] - v[i][c]) * x);
}

static int base64(struct gsvd_buf *b, const uint8_t *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    int rc = gsvd_buf_reserve(b, (n + 2) / 3 * 4 + 1);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        char q[4];
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        q[0] = tab[v >> 18];
        q[1] = tab[(v >> 12) & 63];
        q[2] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        q[3] = i + 2 < n ? tab[v & 63] : '=';
        GSVD_TRY(gsvd_buf_append(b, q, 4));
    }
out:
    return rc;
}

/* An 8-bit RGB PNG (plot/png.c) in base64. */
int gsvd_svg_png_uri(struct gsvd_buf *b, const uint8_t *rgb, size_t w, size_t h)
{
    struct gsvd_buf png = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    if (w == 0 || h == 0 || w > 100000 || h > 100000)
        return GSVD_EINTERNAL;
    GSVD_TRY(gsvd_png_encode_rgb(&png, rgb, w, h, 0));
    GSVD_TRY(gsvd_buf_puts(b, "data:image/png;base64,"));
    GSVD_TRY(base64(b, (const uint8_t *)png.data, png.len));
out:
    gsvd_buf_free(&png);
    return rc;
}

static void remove_tmp(void *arg)
{
    unlink((const char *)arg);
}

struct tmp_job {
    char *tmp; /* mkstemp's template, completed in place */
    int *fd;
};

static int make_tmp(void *arg)
{
    struct tmp_job *j = arg;
    *j->fd = mkstemp(j->tmp);
    return *j->fd < 0 ? GSVD_EIO : GSVD_OK;
}

int gsvd_plot_write_file(const char *path, const struct gsvd_buf *b)
{
    char *tmp = gsvd_asprintf("%s.tmp.XXXXXX", path);
    int fd = -1, rc = GSVD_OK, token = 0;
    size_t done = 0;

    if (!tmp)
        return GSVD_ENOMEM;
    /* created and registered under the cleanup registry's lock (an interrupt in between still
     * removes it) */
    token = gsvd_cleanup_add_made(make_tmp, &(struct tmp_job){tmp, &fd}, remove_tmp, tmp);
    if (token < 0) {
        rc = token;
        token = 0;
        if (fd < 0) {
            gsvd_log_error("%s: cannot create a file beside it: %s", path, strerror(errno));
            rc = GSVD_EIO;
            goto out;
        }
        goto out_unlink;
    }
    while (done < b->len) {
        ssize_t k = write(fd, b->data + done, b->len - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            gsvd_log_error("%s: write failed: %s", tmp, k < 0 ? strerror(errno) : "no progress");
            rc = GSVD_EIO;
            goto out_unlink;
        }
        done += (size_t)k;
    }
    if (fchmod(fd, 0644) != 0 || close(fd) != 0) {
        fd = -1;
        gsvd_log_error("%s: cannot finish: %s", tmp, strerror(errno));
        rc = GSVD_EIO;
        goto out_unlink;
    }
    fd = -1;
    if (rename(tmp, path) != 0) {
        gsvd_log_error("%s: cannot rename into place: %s", path, strerror(errno));
        rc = GSVD_EIO;
        goto out_unlink;
    }
    goto out;
out_unlink:
    unlink(tmp);
out:
    if (fd >= 0)
        close(fd);
    gsvd_cleanup_remove(token);
    gsvd_free(tmp);
    return rc;
}
