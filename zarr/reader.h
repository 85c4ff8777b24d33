/* zarr/reader.h - one thread's reader of one array: decoded regions into caller memory.
 * A reader owns a codec workspace and the buffers for a raw and a decoded chunk, and keeps the
 * last decoded chunk, so reading a chunk row in several pieces decodes each chunk once.  Data
 * comes out in C order and native byte order with fill_value applied (see zarr/array.h).
 * Thread safety: a reader belongs to one thread; several readers may share one array. */
#ifndef GSVD_ZARR_READER_H
#define GSVD_ZARR_READER_H
#include <stdint.h>
#include "common/buf.h"
#include "zarr/array.h"
GSVD_EXTERN_C_BEGIN

typedef struct gsvd_reader gsvd_reader;

/* New reader of `a` (borrowed; must outlive the reader).  Caller owns *out; free with
 * gsvd_reader_free.  GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_reader_new(gsvd_array *a, gsvd_reader **out);
void gsvd_reader_free(gsvd_reader *r); /* accepts NULL */

gsvd_array *gsvd_reader_array(const gsvd_reader *r); /* borrowed */

/* Read-ahead of a reader's regions: on (the default of gsvd_reader_new), a region of more than
 * one chunk is first hinted to the store (gsvd_array_prefetch), so a remote read of a whole
 * array keeps many requests in flight.  Each hint replaces the store's plan, so readers whose
 * reads interleave with other readers' (a scan's workers, columns read side by side) turn it
 * off; the readers of gsvd_reader_pool_new are off. */
void gsvd_reader_set_read_ahead(gsvd_reader *r, int on);

/* n readers of `a`, one per worker thread.  Caller owns *out (an array of n handles); free
 * with gsvd_reader_pool_free.  GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_reader_pool_new(gsvd_array *a, size_t n, gsvd_reader ***out);
void gsvd_reader_pool_free(gsvd_reader **pool, size_t n); /* accepts NULL */

/* Read the hyper-rectangle start[d] .. start[d]+count[d] into dst: C order, product(count) *
 * dtype.size bytes.  Returns GSVD_OK, or GSVD_EINVAL (logged) if the region leaves the array or
 * the array holds objects, or (logged) fetch/decode errors naming the chunk key. */
GSVD_NODISCARD int gsvd_reader_read(gsvd_reader *r, const uint64_t *start, const uint64_t *count,
                                    void *dst);

/* One decoded chunk's part of a region, handed to a gsvd_reader_visit callback.  Valid only
 * during the call.  Element (i0, i1, ...) of the part is at chunk + sum_d (corg[d] + i_d) *
 * stride_d in elements, the strides of C order over `chunk_shape`; it is element (dorg[d] +
 * i_d) of the region. */
struct gsvd_reader_piece {
    const unsigned char *chunk;  /* the whole decoded chunk, C order */
    const uint64_t *chunk_shape; /* the array's chunk shape */
    const uint64_t *corg;        /* first element of the part inside the chunk */
    const uint64_t *dorg;        /* ... and inside the region */
    const uint64_t *ext;         /* extent of the part */
};
typedef int (*gsvd_reader_visit_fn)(void *ctx, const struct gsvd_reader_piece *p);

/* The region's chunks in C order of their indices, each decoded once and handed to fn
 * (pieces tile the region exactly); a negative return from fn stops the visit and is
 * returned.  What gsvd_reader_read copies, without the copy.  Same errors. */
GSVD_NODISCARD int gsvd_reader_visit(gsvd_reader *r, const uint64_t *start, const uint64_t *count,
                                     gsvd_reader_visit_fn fn, void *ctx);

/* Rows [row, row + n_rows) along axis 0, every other axis whole. */
GSVD_NODISCARD int gsvd_reader_read_rows(gsvd_reader *r, uint64_t row, uint64_t n_rows, void *dst);

/* Elements [start, start+count) of a 1-D array of strings ('O', 'S' or 'U') as UTF-8 strings
 * appended to out ('S' bytes as they are, up to the first NUL; 'U' trailing NULs cut).
 * GSVD_EINCONSIST (logged) for other arrays. */
GSVD_NODISCARD int gsvd_reader_read_strings(gsvd_reader *r, uint64_t start, uint64_t count,
                                            struct gsvd_strlist *out);

/* Object ('O', vlen-utf8) arrays of any rank: the region's strings in C order, appended to
 * out.  Missing chunks read as the fill string.  GSVD_EINCONSIST (logged) for other dtypes. */
GSVD_NODISCARD int gsvd_reader_read_objects(gsvd_reader *r, const uint64_t *start,
                                            const uint64_t *count, struct gsvd_strlist *out);

GSVD_EXTERN_C_END
#endif /* GSVD_ZARR_READER_H */
