/* plot/png.c - the PNG encoder and the librsvg/cairo rasteriser of the plots.
 * Rows are deflated one at a time, so encoding needs no copy of the image besides its source
 * (the caller's RGB array or the cairo surface); IDAT is split into 1 MiB chunks.  Filter 0
 * everywhere: the plots are mostly flat colour that zlib compresses well without filters. */
#include "gsvd_config.h"

#include "plot/png.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <zlib.h>
#if GSVD_HAVE_PNG
#include <cairo.h>
#include <gio/gio.h>
#include <librsvg/rsvg.h>
#endif

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"

#define IDAT_MAX ((size_t)1 << 20)

/* Fills row y (3 * w bytes of RGB) of the image being encoded. */
typedef void (*png_row_fn)(const void *ctx, size_t y, size_t w, uint8_t *rgb);

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Append one PNG chunk (length, type, data, CRC over type and data); n <= IDAT_MAX or small. */
static int png_chunk(struct gsvd_buf *png, const char *type, const uint8_t *data, size_t n)
{
    uint8_t hdr[8], crc[4];
    uLong c = crc32(0L, (const Bytef *)type, 4);
    int rc;

    put_be32(hdr, (uint32_t)n);
    memcpy(hdr + 4, type, 4);
    if (n)
        c = crc32(c, data, (uInt)n);
    put_be32(crc, (uint32_t)c);
    if ((rc = gsvd_buf_append(png, hdr, 8)) < 0 || (n && (rc = gsvd_buf_append(png, data, n)) < 0))
        return rc;
    return gsvd_buf_append(png, crc, 4);
}

/* Deflate `in` (flush = Z_NO_FLUSH or Z_FINISH) into z, growing it. */
static int deflate_into(z_stream *zs, struct gsvd_buf *z, const uint8_t *in, size_t n, int flush)
{
    int rc = GSVD_OK, zrc;

    zs->next_in = (Bytef *)(uintptr_t)in; /* zlib's API is not const */
    zs->avail_in = (uInt)n;
    do {
        GSVD_TRY(gsvd_buf_reserve(z, 65536));
        zs->next_out = (Bytef *)z->data + z->len;
        zs->avail_out = (uInt)(z->cap - z->len - 1);
        zrc = deflate(zs, flush);
        if (zrc == Z_STREAM_ERROR) {
            gsvd_log_error("zlib failed to compress an image");
            return GSVD_EINTERNAL;
        }
        z->len = (size_t)((char *)zs->next_out - z->data);
    } while (zs->avail_out == 0 || (flush == Z_FINISH && zrc != Z_STREAM_END));
out:
    return rc;
}

static int png_encode(struct gsvd_buf *png, size_t w, size_t h, double dpi, png_row_fn row,
                      const void *ctx)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    struct gsvd_buf z = GSVD_BUF_INIT;
    uint8_t ihdr[13] = {0}, phys[9] = {0}, *line = NULL;
    z_stream zs;
    int rc = GSVD_OK, zinit = 0;

    if (w == 0 || h == 0 || w > 0x7fffffffu || h > 0x7fffffffu || w > (SIZE_MAX - 1) / 3)
        return GSVD_EINTERNAL;
    memset(&zs, 0, sizeof zs);
    if (!(line = gsvd_malloc(3 * w + 1)))
        return GSVD_ENOMEM;
    if (deflateInit(&zs, 6) != Z_OK) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    zinit = 1;
    line[0] = 0; /* filter type None */
    for (size_t y = 0; y < h; y++) {
        row(ctx, y, w, line + 1);
        GSVD_TRY(deflate_into(&zs, &z, line, 3 * w + 1, y + 1 == h ? Z_FINISH : Z_NO_FLUSH));
    }
    put_be32(ihdr, (uint32_t)w);
    put_be32(ihdr + 4, (uint32_t)h);
    ihdr[8] = 8; /* bit depth */
    ihdr[9] = 2; /* colour type RGB; compression, filter and interlace 0 */
    GSVD_TRY(gsvd_buf_append(png, sig, sizeof sig));
    GSVD_TRY(png_chunk(png, "IHDR", ihdr, sizeof ihdr));
    if (dpi > 0) { /* pixels per metre, unit 1 = metre */
        uint32_t ppm = (uint32_t)lround(dpi / 0.0254);
        put_be32(phys, ppm);
        put_be32(phys + 4, ppm);
        phys[8] = 1;
        GSVD_TRY(png_chunk(png, "pHYs", phys, sizeof phys));
    }
    for (size_t off = 0; off < z.len; off += IDAT_MAX) {
        size_t n = z.len - off < IDAT_MAX ? z.len - off : IDAT_MAX;
        GSVD_TRY(png_chunk(png, "IDAT", (const uint8_t *)z.data + off, n));
    }
    GSVD_TRY(png_chunk(png, "IEND", NULL, 0));
out:
    if (zinit)
        deflateEnd(&zs);
    gsvd_free(line);
    gsvd_buf_free(&z);
    return rc;
}

static void rgb_row(const void *ctx, size_t y, size_t w, uint8_t *out)
{
    memcpy(out, (const uint8_t *)ctx + y * 3 * w, 3 * w);
}

int gsvd_png_encode_rgb(struct gsvd_buf *png, const uint8_t *rgb, size_t w, size_t h, double dpi)
{
    return png_encode(png, w, h, dpi, rgb_row, rgb);
}

#if GSVD_HAVE_PNG
int gsvd_plot_png_available(void)
{
    return 1;
}

void gsvd_plot_formats(char *buf, size_t n)
{
    snprintf(buf, n, "svg, png (librsvg %u.%u.%u, cairo %s)", (unsigned)rsvg_major_version,
             (unsigned)rsvg_minor_version, (unsigned)rsvg_micro_version, cairo_version_string());
}

struct surface_rows {
    const uint8_t *data;
    size_t stride;
};

/* CAIRO_FORMAT_RGB24: one native-endian uint32 a pixel, 0x00RRGGBB. */
static void surface_row(const void *ctx, size_t y, size_t w, uint8_t *out)
{
    const struct surface_rows *s = ctx;
    const uint8_t *p = s->data + y * s->stride;
    for (size_t x = 0; x < w; x++) {
        uint32_t v;
        memcpy(&v, p + 4 * x, 4);
        out[3 * x] = (uint8_t)(v >> 16);
        out[3 * x + 1] = (uint8_t)(v >> 8);
        out[3 * x + 2] = (uint8_t)v;
    }
}

/* The handle of an SVG that gensvd wrote itself: no size limits (a 500,000-point path is one
 * attribute of several MB, over libxml2's default limit). */
static RsvgHandle *load_svg(const struct gsvd_buf *svg)
{
    GInputStream *in = g_memory_input_stream_new_from_data(svg->data, (gssize)svg->len, NULL);
    GError *err = NULL;
    RsvgHandle *h =
        rsvg_handle_new_from_stream_sync(in, NULL, RSVG_HANDLE_FLAG_UNLIMITED, NULL, &err);
    g_object_unref(in);
    if (!h) {
        gsvd_log_error("librsvg cannot read the plot's SVG: %s", err ? err->message : "?");
        g_clear_error(&err);
    }
    return h;
}

/* The output size for dpi; GSVD_EINVAL (logged) when it is out of range. */
static int png_size(RsvgHandle *h, double dpi, size_t *w, size_t *ht)
{
    gdouble sw = 0, sh = 0;
    double pw, ph;

    if (!rsvg_handle_get_intrinsic_size_in_pixels(h, &sw, &sh) || !(sw > 0) || !(sh > 0)) {
        gsvd_log_error("the plot's SVG has no size in pixels");
        return GSVD_EINTERNAL;
    }
    pw = round(sw * dpi / GSVD_PLOT_SVG_DPI);
    ph = round(sh * dpi / GSVD_PLOT_SVG_DPI);
    if (!(pw >= 1 && ph >= 1) || pw > GSVD_PLOT_PNG_MAX_SIDE || ph > GSVD_PLOT_PNG_MAX_SIDE ||
        pw * ph > (double)GSVD_PLOT_PNG_MAX_PIXELS) {
        gsvd_log_error("%g dpi makes a %.0f x %.0f pixel PNG of this %.0f x %.0f plot (at most "
                       "%d pixels a side and %zu in all)",
                       dpi, pw, ph, sw, sh, GSVD_PLOT_PNG_MAX_SIDE, GSVD_PLOT_PNG_MAX_PIXELS);
        return GSVD_EINVAL;
    }
    *w = (size_t)pw;
    *ht = (size_t)ph;
    return GSVD_OK;
}

/* Draw h onto a new white w x ht RGB24 surface; NULL (logged) on failure. */
static cairo_surface_t *draw(RsvgHandle *h, size_t w, size_t ht, int *rc)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)ht);
    RsvgRectangle vp = {0, 0, (double)w, (double)ht};
    GError *err = NULL;
    cairo_t *cr;
    int ok;

    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        *rc = cairo_surface_status(s) == CAIRO_STATUS_NO_MEMORY ? GSVD_ENOMEM : GSVD_EINTERNAL;
        gsvd_log_error("cairo cannot make a %zu x %zu image: %s", w, ht,
                       cairo_status_to_string(cairo_surface_status(s)));
        cairo_surface_destroy(s);
        return NULL;
    }
    cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    ok = rsvg_handle_render_document(h, cr, &vp, &err) && cairo_status(cr) == CAIRO_STATUS_SUCCESS;
    if (!ok) {
        gsvd_log_error("librsvg failed to draw the plot: %s",
                       err ? err->message : cairo_status_to_string(cairo_status(cr)));
        g_clear_error(&err);
        *rc = GSVD_EINTERNAL;
    }
    cairo_destroy(cr);
    if (!ok) {
        cairo_surface_destroy(s);
        return NULL;
    }
    cairo_surface_flush(s);
    return s;
}

int gsvd_plot_png_render(const struct gsvd_buf *svg, double dpi, struct gsvd_buf *png)
{
    RsvgHandle *h = NULL;
    cairo_surface_t *s = NULL;
    struct surface_rows rows;
    size_t w = 0, ht = 0;
    int rc = GSVD_OK;

    if (!(dpi > 0) || !isfinite(dpi)) {
        gsvd_log_error("the resolution must be a positive number of dpi");
        return GSVD_EINVAL;
    }
    if (!(h = load_svg(svg)))
        return GSVD_EINTERNAL;
    rsvg_handle_set_dpi(h, GSVD_PLOT_SVG_DPI);
    GSVD_TRY(png_size(h, dpi, &w, &ht));
    if (!(s = draw(h, w, ht, &rc)))
        goto out;
    rows.data = cairo_image_surface_get_data(s);
    rows.stride = (size_t)cairo_image_surface_get_stride(s);
    rc = png_encode(png, w, ht, dpi, surface_row, &rows);
out:
    if (s)
        cairo_surface_destroy(s);
    g_object_unref(h);
    return rc;
}
#else
int gsvd_plot_png_available(void)
{
    return 0;
}

void gsvd_plot_formats(char *buf, size_t n)
{
    snprintf(buf, n, "svg (png not built in: GENSVD_PNG)");
}

int gsvd_plot_png_render(const struct gsvd_buf *svg, double dpi, struct gsvd_buf *png)
{
    (void)svg;
    (void)dpi;
    (void)png;
    gsvd_log_error("PNG output is not built into this gensvd: rebuild with librsvg "
                   "(apt-get install librsvg2-dev; cmake -DGENSVD_PNG=ON), or write SVG");
    return GSVD_ENOTBUILT;
}
#endif
