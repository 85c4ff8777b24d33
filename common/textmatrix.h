/* common/textmatrix.h - a numeric matrix from TSV or CSV text (what `gensvd pca --format tsv`
 * and spreadsheets write): one row per item, tab- or comma-separated (from the first line),
 * an optional header line (detected: a field that is not a number) and an optional ID column
 * (detected: a first field that is not a number).  Empty fields, "nan" and "NA" are missing
 * (NaN).  The text is hostile: every row must have the header's field count, every value must
 * parse completely, and errors name the line and column.  Thread safety: pure. */
#ifndef GSVD_COMMON_TEXTMATRIX_H
#define GSVD_COMMON_TEXTMATRIX_H
#include <stddef.h>
#include "common/buf.h"
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

struct gsvd_textmatrix {
    size_t n_rows;           /* items */
    size_t n_cols;           /* values per item */
    double *values;          /* owned; n_rows x n_cols, row-major */
    struct gsvd_strlist ids; /* item IDs: the ID column, or "row_0", ... */
};

/* Parse text[0, len) (`where` names it in messages).  Returns GSVD_OK, GSVD_EFORMAT (logged)
 * or GSVD_ENOMEM; on failure *out is empty.  Clear with gsvd_textmatrix_clear. */
GSVD_NODISCARD int gsvd_textmatrix_parse(const char *text, size_t len, const char *where,
                                         struct gsvd_textmatrix *out);
void gsvd_textmatrix_clear(struct gsvd_textmatrix *m); /* accepts an empty struct */

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_TEXTMATRIX_H */
