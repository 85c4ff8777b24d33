/* analysis/scan/var_list.h - variants chosen by a file (`--extract`, `--exclude` and their
 * `-bed` and `-range` forms), as plink2 2.00a3.5 reads `--extract [bed0|bed1] FILE`:
 * - IDs: every whitespace-separated word of the file is a variant ID, matched exactly against
 *   variant_id (VCF's ID column; every variant with that ID, so duplicates and "." match all
 *   theirs);
 * - ranges: lines CONTIG START END [more columns], 0-based half-open (BED, plink2's bed0) or
 *   1-based closed (plink2's bed1, PLINK 1.9's range files), matched against variant_contig /
 *   contig_id (a contig named as `--chr` names it: "chr6", "6" and "CHR6" alike; chr_select.h)
 *   and variant_position (VCF's POS, 1-based).  Blank lines and lines starting with '#',
 *   "track" or "browser" (BED headers) are skipped; a range on a contig the store lacks chooses
 *   nothing.
 * A list extracts (keeps only the variants it chooses) or excludes (keeps the others).
 * Thread safety: calls share no state. */
#ifndef GSVD_ANALYSIS_SCAN_VAR_LIST_H
#define GSVD_ANALYSIS_SCAN_VAR_LIST_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/scan/autosomes.h"
#include "analysis/scan/genotype.h"
#include "common/buf.h"
#include "common/gsvd_defs.h"
#include "zarr/tree.h"
GSVD_EXTERN_C_BEGIN

enum gsvd_var_list_kind {
    GSVD_VAR_LIST_IDS,  /* variant IDs */
    GSVD_VAR_LIST_BED0, /* ranges, 0-based half-open */
    GSVD_VAR_LIST_BED1  /* ranges, 1-based closed */
};

struct gsvd_var_range {
    size_t contig; /* index into the list's contigs */
    int64_t lo;    /* first position, 1-based */
    int64_t hi;    /* last position, 1-based, >= lo */
};

struct gsvd_var_list {
    enum gsvd_var_list_kind kind;
    int exclude;                  /* 1: keep the variants it does not choose */
    char *file;                   /* the file's name for messages (owned) */
    struct gsvd_strlist ids;      /* IDs: the file's words, sorted, each once (owned) */
    struct gsvd_strlist contigs;  /* ranges: the contig names, each once, in file order */
    struct gsvd_var_range *range; /* ranges: n_range of them (owned) */
    size_t n_range, cap_range;
};

/* Parse text[0 .. len) (a file's bytes; NUL bytes are errors) as a list of `kind` into *out
 * (free with gsvd_var_list_free).  `file` names it in messages.  Returns GSVD_OK, or (logged,
 * "FILE: line N: ...") GSVD_EFORMAT for a range line with fewer than three columns, a START or
 * END that is not a whole number from 0 to 2^62, or an END before START (END <= START for
 * BED's half-open ranges); GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_var_list_parse(const char *text, size_t len, enum gsvd_var_list_kind kind,
                                       int exclude, const char *file, struct gsvd_var_list *out);
/* The same for the file at `path` ("-": standard input).  GSVD_EIO (logged) when unreadable. */
GSVD_NODISCARD int gsvd_var_list_read(const char *path, enum gsvd_var_list_kind kind, int exclude,
                                      struct gsvd_var_list *out);
void gsvd_var_list_free(struct gsvd_var_list *l); /* accepts a zeroed struct */

/* The variants of group `node` of t the list keeps become geno->variant_mask, ANDed with a mask
 * already there (same length); *out holds it and must outlive geno's use (free with
 * gsvd_autosomes_free).  An exclusion that chooses no variant, and an ID list none of whose IDs
 * names a variant, are warned about.  Returns GSVD_OK, or (logged, naming the store and the
 * file) GSVD_ENOTFOUND (no variant_id; for ranges no variant_contig, contig_id or
 * variant_position), GSVD_EFORMAT (those arrays of the wrong shape or dtype), GSVD_EINCONSIST
 * (a mask of another length), GSVD_EDEGENERATE (no variant of geno's range kept), GSVD_ENOMEM
 * or a store error. */
GSVD_NODISCARD int gsvd_var_list_apply(gsvd_tree *t, const char *node,
                                       const struct gsvd_var_list *l, struct gsvd_autosomes *out,
                                       struct gsvd_geno_params *geno);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_SCAN_VAR_LIST_H */
