/* plot/heatmap.h - `gensvd plot pdist`: a distance matrix as a heatmap in SVG.
 *
 * The matrix is read block by block, from the square (N x N) or the condensed (scipy's upper
 * triangle, N(N-1)/2) layout, and averaged into m x m cells, m = min(N, max_cells): the sample
 * at display position p (0-based, after ordering) falls in cell p * m / N, a cell's value is
 * the mean of its finite distances between different samples, so memory is O(m^2), not N^2,
 * except for --order cluster, which holds the N x N matrix as float32 (N <= 5000).
 * Geometry (for tests): the cells are an <image class="heatmap"> of m x m pixels stretched to
 * its x, y, width, height (cell c spans width / m pixels from x + c * width / m; rows likewise
 * from y); colours are viridis over [lo, hi], the minimum and maximum cell means (a diagonal
 * cell of one sample is drawn as lo, a cell without finite values grey); the colour bar
 * <image class="colorbar"> shows hi at its top row and lo at its bottom, linearly.
 * The dendrogram (<path class="dendrogram">) draws merge t at height
 *     y = bottom - 4 - (120 - 4) * (h_t - h_min) / (h_max - h_min),
 * bottom the y of its leaves, above the middle of each leaf's column.
 * Bands of label colours (gsvd_plot_label_colour of plot/svg.h, grey for unlabelled; the label
 * of a cell's first sample) run along the top and left edges; the dendrogram of --order cluster is
 * drawn above. Thread safety: calls share no state. */
#ifndef GSVD_PLOT_HEATMAP_H
#define GSVD_PLOT_HEATMAP_H
#include <stddef.h>
#include "common/buf.h"
#include "common/gsvd_defs.h"
#include "common/progress.h"
#include "plot/data.h"
#include "zarr/tree.h"
GSVD_EXTERN_C_BEGIN

enum gsvd_plot_order {
    GSVD_PLOT_ORDER_INPUT = 0,   /* the matrix's own order */
    GSVD_PLOT_ORDER_LABEL = 1,   /* by label (sorted), unlabelled last, then input order */
    GSVD_PLOT_ORDER_PC1 = 2,     /* by increasing pc1 (NaN last) */
    GSVD_PLOT_ORDER_CLUSTER = 3, /* leaf order of average-linkage clustering */
};
#define GSVD_PLOT_CLUSTER_MAX 5000
#define GSVD_PLOT_MAX_CELLS 1000

struct gsvd_plot_heat_params {
    enum gsvd_plot_order order;
    const struct gsvd_plot_labels *labels; /* borrowed; NULL: no bands (not with ORDER_LABEL) */
    const double *pc1;                     /* borrowed; N values for ORDER_PC1, else NULL */
    size_t max_cells;                      /* cells per axis at most; 0 = GSVD_PLOT_MAX_CELLS */
    const char *title;                     /* borrowed; NULL: none */
    struct gsvd_progress progress; /* "reading": distances read of the stored layout (N x N, or
                                      N(N-1)/2 condensed); no reports when its fn is NULL */
};

/* Draw the heatmap of the `distance` array of group `node` in t (N = ids->n samples, the
 * sample_id array the caller read) into svg (appended).  Returns GSVD_OK, or (logged)
 * GSVD_ENOTFOUND (no distance array), GSVD_EINCONSIST (its shape does not fit N, or N is
 * over GSVD_PLOT_CLUSTER_MAX for ORDER_CLUSTER, or labels/pc1 missing for their order),
 * GSVD_EFORMAT, GSVD_ENOMEM, or store and codec errors. */
GSVD_NODISCARD int gsvd_plot_heatmap(gsvd_tree *t, const char *node, const struct gsvd_strlist *ids,
                                     const struct gsvd_plot_heat_params *p, struct gsvd_buf *svg);

/* Average-linkage clustering of n items from a symmetric n x n matrix d (float32, row-major;
 * destroyed).  Writes the leaf order to order (n entries) and the n - 1 merges to merge_a,
 * merge_b (node ids: leaves 0..n-1, merge t creates node n + t) and height.  O(n^2) time (the
 * nearest-neighbour chain).  GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_plot_cluster(float *d, size_t n, size_t *order, size_t *merge_a,
                                     size_t *merge_b, double *height);

GSVD_EXTERN_C_END
#endif /* GSVD_PLOT_HEATMAP_H */
