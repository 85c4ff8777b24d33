/* plot/svg.h - the drawing kit of gensvd's plots: an SVG document in a growable buffer, the
 * palettes, axis ticks, an embedded PNG image and the staged write of the finished file.
 * Every SVG is self-contained: no scripts, no external fonts, images or style sheets.
 * Thread safety: calls share no state. */
#ifndef GSVD_PLOT_SVG_H
#define GSVD_PLOT_SVG_H
#include <stddef.h>
#include <stdint.h>
#include "common/buf.h"
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* The label colours in order (plot/README.md says how they were chosen): 1-8 are Okabe-Ito,
 * colour-blind safe; 9-20 extend them so that every pair of the 20 (and each of them against the
 * white background and the grey of unlabelled samples) differs by a CIEDE2000 distance of at
 * least 20.  Label i (0-based) is drawn in colour i % 20 with marker shape
 * (i / 20) % GSVD_PLOT_N_SHAPES: up to 20 labels differ in colour alone. */
#define GSVD_PLOT_N_COLOURS 20
extern const char *const gsvd_plot_palette[GSVD_PLOT_N_COLOURS];
#define GSVD_PLOT_GREY "#bbbbbb"
#define GSVD_PLOT_N_SHAPES 5
/* The colour and shape of label i as above; i < 0 (no label) is grey, shape 0.  Cannot fail. */
const char *gsvd_plot_label_colour(int i);
int gsvd_plot_label_shape(int i);

/* Start a document of w x h pixels (white background, sans-serif text); end it. */
GSVD_NODISCARD int gsvd_svg_begin(struct gsvd_buf *b, double w, double h);
GSVD_NODISCARD int gsvd_svg_end(struct gsvd_buf *b);
/* s with XML escaping (&, <, >, "; control characters as ?) appended to b. */
GSVD_NODISCARD int gsvd_svg_escaped(struct gsvd_buf *b, const char *s);
/* Text with XML escaping; anchor "start", "middle" or "end"; rotate in degrees (0: none). */
GSVD_NODISCARD int gsvd_svg_text(struct gsvd_buf *b, double x, double y, double size,
                                 const char *anchor, double rotate, const char *text);
/* The path data of one marker of `shape` centred at (x, y), radius r (pixels), appended to b:
 * shape 0 is a zero-length line (drawn with a round cap of width 2r), the others are closed
 * polygons (filled).  `dec` is the number of decimals of the coordinates (1 or 2). */
GSVD_NODISCARD int gsvd_svg_marker(struct gsvd_buf *b, int shape, double x, double y, double r,
                                   int dec);
/* The style attributes that draw markers of `shape` in `colour` (for a <g> or <path>). */
GSVD_NODISCARD int gsvd_svg_marker_style(struct gsvd_buf *b, int shape, const char *colour,
                                         double r);

/* "Nice" ticks covering [lo, hi]: at most `max` values written to ticks, count returned (>= 2
 * when lo < hi).  Cannot fail. */
size_t gsvd_plot_ticks(double lo, double hi, size_t max, double *ticks);

/* Viridis at t in [0, 1] (clamped; NaN gives grey) as 8-bit RGB. */
void gsvd_plot_viridis(double t, uint8_t rgb[3]);

/* A w x h RGB image (rows top to bottom, 3 bytes a pixel) as a base64 PNG data URI appended
 * to b.  GSVD_ENOMEM, GSVD_EINTERNAL (zlib failure). */
GSVD_NODISCARD int gsvd_svg_png_uri(struct gsvd_buf *b, const uint8_t *rgb, size_t w, size_t h);

/* Write b to `path` through a temporary file in the same directory and a rename, so a reader
 * never sees a half-written file and a failed run leaves no file behind.  GSVD_EIO (logged,
 * naming the path) when the directory is not writable or a write fails. */
GSVD_NODISCARD int gsvd_plot_write_file(const char *path, const struct gsvd_buf *b);

GSVD_EXTERN_C_END
#endif /* GSVD_PLOT_SVG_H */
