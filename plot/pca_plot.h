/* plot/pca_plot.h - `gensvd plot pca`: a scatter plot of principal components as SVG.
 *
 * Geometry (the tests map data to pixels with it): each panel is a <rect class="frame"> with
 * x, y, width, height in SVG pixels; a panel of PCa (across) against PCb (up) spans the data
 * range [lo - 4% r, hi + 4% r] of each PC, lo and hi the PC's minimum and maximum over all
 * samples and r = hi - lo (r = 0 gives lo - 1 .. hi + 1), so a sample with values (u, v) is
 * drawn centred at
 *     px = x + width  * (u - xlo) / (xhi - xlo)
 *     py = y + height * (1 - (v - ylo) / (yhi - ylo)).
 * Unlabelled samples (grey) are drawn first, then the labels in their order (plot/data.h);
 * label i has the colour and shape gsvd_plot_label_colour/_shape(i) (plot/svg.h: 20 colours,
 * then shapes).  Up to GSVD_PLOT_POINT_ELEMENTS samples each point is its own element with a
 * <title> (tooltip); above, one <path> per label holds all its markers, about 15 bytes a
 * point.  The legend (<g class="legend">) lists the labels with counts; a scree inset shows
 * the explained variance ratio of every component.
 * Thread safety: calls share no state. */
#ifndef GSVD_PLOT_PCA_PLOT_H
#define GSVD_PLOT_PCA_PLOT_H
#include <stddef.h>
#include "common/buf.h"
#include "common/gsvd_defs.h"
#include "common/progress.h"
#include "plot/data.h"
#include "zarr/tree.h"
GSVD_EXTERN_C_BEGIN

#define GSVD_PLOT_POINT_ELEMENTS 20000

/* The arrays of a `gensvd pca` output that the plot reads. */
struct gsvd_plot_pcs {
    size_t n, k;             /* samples, components */
    double *proj;            /* n x k, sample_pca_projection; owned */
    double *evr;             /* k, sample_pca_explained_variance_ratio; owned */
    struct gsvd_strlist ids; /* n sample IDs; owned */
    char *source;            /* the store's URL, for messages; owned */
};

/* Read the PCs of the group `node` in t.  Caller owns *out (gsvd_plot_pcs_free).
 * GSVD_ENOTFOUND (logged, naming the store and array) when an array is missing,
 * GSVD_EINCONSIST (logged) when their shapes disagree, GSVD_EFORMAT, GSVD_ENOMEM, or store
 * and codec errors. */
GSVD_NODISCARD int gsvd_plot_pcs_read(gsvd_tree *t, const char *node, struct gsvd_plot_pcs *out);
void gsvd_plot_pcs_free(struct gsvd_plot_pcs *p); /* accepts a zeroed struct */

struct gsvd_plot_pca_params {
    size_t pc_x, pc_y;                     /* 1-based components of the single panel */
    size_t grid;                           /* 0: one panel; g >= 2: every pair of PC1..PCg */
    const struct gsvd_plot_labels *labels; /* borrowed; NULL: every sample unlabelled */
    const char *title;                     /* borrowed; NULL: none */
    struct gsvd_progress progress; /* "drawing": points drawn of n x panels; fn NULL: none */
};

/* Check p against pcs before anything is drawn: the components requested exist and the labels
 * (when given) are for pcs's samples.  GSVD_EINCONSIST (logged, naming the store). */
GSVD_NODISCARD int gsvd_plot_pca_check(const struct gsvd_plot_pcs *pcs,
                                       const struct gsvd_plot_pca_params *p);

/* Draw the plot of pcs into svg (appended), checked by gsvd_plot_pca_check first.
 * GSVD_EINCONSIST (logged) when a requested component exceeds k or the labels are for another
 * sample count; GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_plot_pca(const struct gsvd_plot_pcs *pcs,
                                 const struct gsvd_plot_pca_params *p, struct gsvd_buf *svg);

GSVD_EXTERN_C_END
#endif /* GSVD_PLOT_PCA_PLOT_H */
