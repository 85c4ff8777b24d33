/* plot/data.h - what the plots read: numeric arrays as float64, sample IDs, and per-sample
 * labels from a TSV file or an array of strings or integers, matched to the plotted samples by
 * ID.
 * Thread safety: calls share no state. */
#ifndef GSVD_PLOT_DATA_H
#define GSVD_PLOT_DATA_H
#include <stddef.h>
#include <stdint.h>
#include "common/buf.h"
#include "common/gsvd_defs.h"
#include "zarr/array.h"
#include "zarr/reader.h"
#include "zarr/tree.h"
GSVD_EXTERN_C_BEGIN

/* Read the region start..start+count of r's numeric array as float64 in C order into dst;
 * `raw` is the caller's scratch (kept between calls).  Reader errors, GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_plot_read_f64(gsvd_reader *r, const uint64_t *start, const uint64_t *count,
                                      double *dst, struct gsvd_buf *raw);

/* The 1-D string array `sample_id` of group `node`: its n IDs appended to ids.
 * GSVD_ENOTFOUND (logged) when absent, GSVD_EFORMAT (logged) when not 1-D strings. */
GSVD_NODISCARD int gsvd_plot_read_ids(gsvd_tree *t, const char *node, struct gsvd_strlist *ids);

/* Labels of the plotted samples: code[i] is the label index of sample i (into names), or -1
 * when the sample has no label.  names are in display order: by value when every label is a
 * decimal integer (2 before 10), else by strcmp. */
struct gsvd_plot_labels {
    size_t n;                  /* samples */
    int *code;                 /* n entries; owned */
    struct gsvd_strlist names; /* distinct labels in display order; owned */
    size_t *count;             /* names.n entries: samples per label; owned */
    size_t n_unlabelled;
};
#define GSVD_PLOT_LABELS_INIT                                                                      \
    {                                                                                              \
        0, NULL, {0}, NULL, 0                                                                      \
    }

/* Labels for the samples `ids` from `spec` (plot/labels.c):
 *  - a regular file is a TSV: the ID column is the column whose values match the most IDs (the
 *    first one on a tie, but a column named IID before one named FID); with columns named FID
 *    and IID (plink's layout, '#FID' too) FID '_' IID is tried as well (how plink 1.9 names
 *    samples in a VCF).  The first row is a header unless its value in the ID column is a
 *    sample ID (a file without a header, as plink's).  The label column is `column` (by
 *    header name), otherwise the last column that is neither the ID column nor FID/IID;
 *  - anything else is a 1-D array of strings or integers (written in decimal): "STORE/PATH"
 *    (e.g. cohort.vcz/sample_population), or a PATH inside `own` (the plotted store); its
 *    samples are matched by the sample_id array of its group when there is one, else by
 *    position (the lengths must agree).
 * Empty labels are unlabelled; samples missing from the source are unlabelled too, and logged
 * as a warning with the counts and the first few IDs; `column` is ignored (with a warning) for
 * arrays.  Caller owns *out (free with gsvd_plot_labels_free).  GSVD_ENOTFOUND (logged: no
 * such column, file or array), GSVD_EFORMAT (logged: no header, ragged rows, no ID matches, an
 * array of another type), GSVD_EINCONSIST (logged: lengths differ, or the array's sample_id
 * names none of the samples), GSVD_EIO (logged), GSVD_ENOMEM, or a store error. */
GSVD_NODISCARD int gsvd_plot_labels_load(const char *spec, const char *column, gsvd_tree *own,
                                         const struct gsvd_strlist *ids,
                                         struct gsvd_plot_labels *out);
void gsvd_plot_labels_free(struct gsvd_plot_labels *l); /* accepts a zeroed struct */

GSVD_EXTERN_C_END
#endif /* GSVD_PLOT_DATA_H */
