/* plot/png.h - PNG files: an 8-bit RGB encoder (zlib only, always built) and the rasteriser of
 * `gensvd plot --format png`, which draws the finished SVG document with librsvg onto a cairo
 * image surface (built with GENSVD_PNG), so the PNG and the SVG are one picture from one
 * drawing code path.
 * Thread safety: calls share no state. */
#ifndef GSVD_PLOT_PNG_H
#define GSVD_PLOT_PNG_H
#include <stddef.h>
#include <stdint.h>
#include "common/buf.h"
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* The SVG's user unit is the CSS pixel: --dpi 96 renders one PNG pixel per SVG pixel. */
#define GSVD_PLOT_SVG_DPI 96.0
/* Largest PNG side (cairo's image surface limit) and pixel count (~1 GB of surface). */
#define GSVD_PLOT_PNG_MAX_SIDE 32767
#define GSVD_PLOT_PNG_MAX_PIXELS ((size_t)1 << 28)

/* A w x h RGB image (rows top to bottom, 3 bytes a pixel) as a PNG file appended to png:
 * IHDR (8-bit RGB), pHYs when dpi > 0 (the resolution, as matplotlib writes it), IDAT (filter
 * 0, zlib level 6), IEND.  GSVD_ENOMEM; GSVD_EINTERNAL for w or h of 0 or over 2^31 - 1 or a
 * zlib failure (logged). */
GSVD_NODISCARD int gsvd_png_encode_rgb(struct gsvd_buf *png, const uint8_t *rgb, size_t w, size_t h,
                                       double dpi);

/* 1 when this build can rasterise (GENSVD_PNG found librsvg and cairo), else 0. */
int gsvd_plot_png_available(void);
/* The plot formats of this build for --version, e.g. "svg, png (librsvg 2.54.7, cairo 1.16.0)",
 * written to buf (n bytes, NUL-terminated, truncated to fit).  Cannot fail. */
void gsvd_plot_formats(char *buf, size_t n);

/* Rasterise the SVG document svg (borrowed, as gsvd_plot_pca / gsvd_plot_heatmap write it) at
 * dpi (GSVD_PLOT_SVG_DPI = its own pixel size; the PNG is round(w * dpi / 96) x
 * round(h * dpi / 96) pixels on white) and append the PNG file to png.  Returns GSVD_OK, or
 * (logged) GSVD_ENOTBUILT (built without librsvg: the message names GENSVD_PNG),
 * GSVD_EINVAL (dpi not positive, or the image would exceed GSVD_PLOT_PNG_MAX_SIDE or
 * GSVD_PLOT_PNG_MAX_PIXELS), GSVD_EINTERNAL (librsvg or cairo refused the document or
 * failed), GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_plot_png_render(const struct gsvd_buf *svg, double dpi,
                                        struct gsvd_buf *png);

GSVD_EXTERN_C_END
#endif /* GSVD_PLOT_PNG_H */
