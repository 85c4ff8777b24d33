/* tests/unit/test_png.c - plot/png.h: the PNG encoder against an independent reading (chunk
 * walk, CRCs recomputed, IDAT inflated with zlib and compared with the input rows), and the
 * librsvg rasteriser on tiny SVGs (size from dpi, colours, refusals), or its GSVD_ENOTBUILT
 * in a build without it. */
#include "gsvd_config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "gsvd_test.h"
#include "plot/png.h"

struct png_info {
    uint32_t w, h, ppm;
    int ctype, n_idat, crc_ok, ended;
    uint8_t *raw; /* inflated IDAT; gsvd_free */
    size_t n_raw;
};

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Walk the chunks of png; 0 when the structure is sound. */
static int parse(const struct gsvd_buf *png, struct png_info *in)
{
    const uint8_t *p = (const uint8_t *)png->data;
    struct gsvd_buf idat = GSVD_BUF_INIT;
    size_t pos = 8;
    uLongf n;
    int rc = -1;

    memset(in, 0, sizeof *in);
    in->crc_ok = 1;
    if (png->len < 8 || memcmp(p, "\x89PNG\r\n\x1a\n", 8) != 0)
        return -1;
    while (pos + 12 <= png->len && !in->ended) {
        uint32_t len = be32(p + pos);
        const uint8_t *type = p + pos + 4, *body = p + pos + 8;
        if (pos + 12 + len > png->len)
            goto out;
        if (crc32(crc32(0, type, 4), body, len) != be32(body + len))
            in->crc_ok = 0;
        if (memcmp(type, "IHDR", 4) == 0 && len == 13) {
            in->w = be32(body);
            in->h = be32(body + 4);
            in->ctype = body[9];
        } else if (memcmp(type, "pHYs", 4) == 0 && len == 9 && body[8] == 1) {
            in->ppm = be32(body);
        } else if (memcmp(type, "IDAT", 4) == 0) {
            in->n_idat++;
            if (gsvd_buf_append(&idat, body, len) < 0)
                goto out;
        } else if (memcmp(type, "IEND", 4) == 0) {
            in->ended = 1;
        }
        pos += 12 + (size_t)len;
    }
    in->n_raw = (size_t)in->h * (3 * (size_t)in->w + 1);
    n = (uLongf)in->n_raw;
    if (!in->ended || !(in->raw = gsvd_malloc(in->n_raw ? in->n_raw : 1)) ||
        uncompress(in->raw, &n, (const Bytef *)idat.data, (uLong)idat.len) != Z_OK ||
        n != in->n_raw)
        goto out;
    rc = 0;
out:
    gsvd_buf_free(&idat);
    return rc;
}

static void test_encoder(void)
{
    size_t w = 700, h = 700; /* noise: over 1 MiB compressed, so IDAT is split */
    uint8_t *rgb = gsvd_malloc(3 * w * h);
    struct gsvd_buf png = GSVD_BUF_INIT;
    struct png_info in;
    uint32_t x = 12345;
    int same = 1;

    GSVD_CHECK(rgb != NULL);
    if (!rgb)
        return;
    for (size_t i = 0; i < 3 * w * h; i++) {
        x = x * 1103515245u + 12345u;
        rgb[i] = (uint8_t)(x >> 16);
    }
    GSVD_CHECK_RC(gsvd_png_encode_rgb(&png, rgb, w, h, 300), GSVD_OK);
    GSVD_CHECK(parse(&png, &in) == 0);
    GSVD_CHECK(in.w == w && in.h == h && in.ctype == 2 && in.crc_ok);
    GSVD_CHECK(in.n_idat == 2);
    GSVD_CHECK(in.ppm == 11811); /* 300 / 0.0254, rounded */
    for (size_t y = 0; in.raw && y < h; y++)
        same &= in.raw[y * (3 * w + 1)] == 0 &&
                memcmp(in.raw + y * (3 * w + 1) + 1, rgb + 3 * w * y, 3 * w) == 0;
    GSVD_CHECK(in.raw && same);
    gsvd_free(in.raw);
    gsvd_buf_clear(&png);
    /* dpi 0: no pHYs; one pixel */
    GSVD_CHECK_RC(gsvd_png_encode_rgb(&png, rgb, 1, 1, 0), GSVD_OK);
    GSVD_CHECK(parse(&png, &in) == 0 && in.ppm == 0 && in.w == 1 && in.n_idat == 1);
    gsvd_free(in.raw);
    GSVD_CHECK_RC(gsvd_png_encode_rgb(&png, rgb, 0, 5, 96), GSVD_EINTERNAL);
    GSVD_CHECK_RC(gsvd_png_encode_rgb(&png, rgb, 5, (size_t)1 << 31, 96), GSVD_EINTERNAL);
    gsvd_buf_free(&png);
    gsvd_free(rgb);
}

static struct gsvd_buf svg_of(const char *s)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    if (gsvd_buf_puts(&b, s) < 0)
        gsvd_buf_free(&b);
    return b;
}

/* Pixel (x, y) of a parsed image. */
static const uint8_t *pixel(const struct png_info *in, size_t x, size_t y)
{
    return in->raw + y * (3 * (size_t)in->w + 1) + 1 + 3 * x;
}

static void test_render(void)
{
    struct gsvd_buf svg = svg_of("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40\" "
                                 "height=\"20\" viewBox=\"0 0 40 20\"><rect x=\"20\" width=\"20\" "
                                 "height=\"20\" fill=\"#0072b2\"/></svg>");
    struct gsvd_buf bad = svg_of("<svg xmlns=\"http://www.w3.org/2000/svg\"");
    struct gsvd_buf png = GSVD_BUF_INIT;
    struct png_info in;

    if (!gsvd_plot_png_available()) {
        GSVD_CHECK_RC(gsvd_plot_png_render(&svg, 96, &png), GSVD_ENOTBUILT);
        GSVD_CHECK(png.len == 0);
        goto out;
    }
    GSVD_CHECK_RC(gsvd_plot_png_render(&svg, 192, &png), GSVD_OK);
    GSVD_CHECK(parse(&png, &in) == 0 && in.w == 80 && in.h == 40 && in.ppm == 7559);
    if (in.raw) { /* left half white (the background), right half the rect's blue */
        const uint8_t *l = pixel(&in, 10, 20), *r = pixel(&in, 70, 20), *e = pixel(&in, 40, 0);
        GSVD_CHECK(l[0] == 255 && l[1] == 255 && l[2] == 255);
        GSVD_CHECK(r[0] == 0x00 && r[1] == 0x72 && r[2] == 0xb2);
        GSVD_CHECK(e[0] == 0x00 && e[1] == 0x72 && e[2] == 0xb2); /* x = 20 px * 2 exactly */
        GSVD_CHECK(pixel(&in, 39, 0)[0] == 255);
    }
    gsvd_free(in.raw);
    gsvd_buf_clear(&png);
    GSVD_CHECK_RC(gsvd_plot_png_render(&svg, 10, &png), GSVD_OK); /* 4.17 x 2.08 -> 4 x 2 */
    GSVD_CHECK(parse(&png, &in) == 0 && in.w == 4 && in.h == 2);
    gsvd_free(in.raw);
    gsvd_buf_clear(&png);
    GSVD_CHECK_RC(gsvd_plot_png_render(&svg, 0, &png), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_plot_png_render(&svg, 1e6, &png), GSVD_EINVAL); /* 416,667 px wide */
    GSVD_CHECK_RC(gsvd_plot_png_render(&bad, 96, &png), GSVD_EINTERNAL);
    GSVD_CHECK(png.len == 0);
out:
    gsvd_buf_free(&png);
    gsvd_buf_free(&svg);
    gsvd_buf_free(&bad);
}

int main(void)
{
    char formats[128];
    gsvd_plot_formats(formats, sizeof formats);
    GSVD_CHECK(strncmp(formats, gsvd_plot_png_available() ? "svg, png (librsvg" : "svg (", 5) == 0);
    test_encoder();
    test_render();
    return gsvd_test_report("test_png");
}
