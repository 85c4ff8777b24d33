/* analysis/scan/sample_list.h - sample-ID files as plink2 2.00a3.5 reads `--keep` and
 * `--remove` (its .id, .fam-like and `--king-cutoff` outputs): one sample per line, the IID
 * column taken.  A first line whose first word is "#FID" or "#IID" is a header naming the
 * columns (the IID column is the word "IID", or the first when it is "#IID"); without one a
 * line of one word is the IID and a line of two or more is FID IID (the IID the second).  The
 * FID is not compared: VCF-Zarr has one sample ID, which the IID names.  Other lines starting
 * with '#' and blank lines are skipped.
 * Thread safety: calls share no state. */
#ifndef GSVD_ANALYSIS_SCAN_SAMPLE_LIST_H
#define GSVD_ANALYSIS_SCAN_SAMPLE_LIST_H
#include <stddef.h>
#include "common/buf.h"
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* Parse text[0 .. len) into *ids: the IIDs, sorted, each once (empty first; free with
 * gsvd_strlist_free, also on failure).  `file` names it in messages.  Returns GSVD_OK, or
 * (logged, "FILE: line N: ...") GSVD_EFORMAT for a NUL byte, a header without an IID column,
 * or a line without the header's IID column; GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_sample_list_parse(const char *text, size_t len, const char *file,
                                          struct gsvd_strlist *ids);
/* The same for the file at `path`.  GSVD_EIO (logged) when unreadable. */
GSVD_NODISCARD int gsvd_sample_list_read(const char *path, struct gsvd_strlist *ids);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_SCAN_SAMPLE_LIST_H */
