/* common/ndcopy.h - copy an N-dimensional box between two C-order arrays.
 * Trailing axes that are whole in both arrays are merged into one contiguous run, so copies of
 * full rows cost one memcpy each however many axes they span.  Thread safety: pure. */
#ifndef GSVD_COMMON_NDCOPY_H
#define GSVD_COMMON_NDCOPY_H
#include <stddef.h>
#include <stdint.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

#define GSVD_NDCOPY_MAX_DIMS 32

struct gsvd_ndbox {
    const uint64_t *shape;  /* array extent per axis */
    const uint64_t *origin; /* first element of the box per axis */
};

/* Copy the box of extent ext[0..nd-1] from src (shape/origin s) to dst (shape/origin d);
 * elements of esz bytes.  nd <= GSVD_NDCOPY_MAX_DIMS; the caller guarantees the box fits both. */
void gsvd_ndcopy(size_t nd, const uint64_t *ext, size_t esz, const void *src, struct gsvd_ndbox s,
                 void *dst, struct gsvd_ndbox d);

/* Step idx to the next index of the box [lo, hi) in C order (last axis fastest); returns 0,
 * with idx back at lo, after the last one. */
static inline int gsvd_nd_next(size_t nd, uint64_t *idx, const uint64_t *lo, const uint64_t *hi)
{
    size_t d = nd;
    while (d-- > 0) {
        if (++idx[d] < hi[d])
            return 1;
        idx[d] = lo[d];
    }
    return 0;
}

/* Fortran-order array src (shape c[0..nd-1], elements of esz bytes) to C order in dst. */
void gsvd_f_to_c(const void *src, void *dst, const uint64_t *c, size_t nd, size_t esz);

/* Fill n elements of esz bytes at dst with the value at `value` (memset when its bytes are
 * all equal). */
void gsvd_fill_elems(void *dst, size_t n, const void *value, size_t esz);

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_NDCOPY_H */
