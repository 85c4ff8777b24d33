/* zarr/result.h - an analysis result held in memory as the Zarr group it is written as: named
 * arrays, each with its full output description (struct gsvd_array_spec: dtype, shape, chunk
 * shape, dimension names, fill, compressor, attributes) and its data, plus the group's
 * attributes as a JSON object text.  Every analysis builds its output schema as one of these
 * (analysis/pca_store.h, ldprune.h, related.h, project.h, pdist/pdist_store.h), and one writer,
 * gsvd_result_write, writes any of them, so the command line's `-o` and the library's
 * gensvd_result_write give the same bytes by construction.
 * An array may be described without data ("streamed"): its producer writes it through the
 * Zarr writer as it computes it (pdist's bands); such arrays are left out by gsvd_result_write.
 * Ownership: the result owns copies of everything added (or the data it adopts); pointers it
 * returns are valid until it is freed.  Thread safety: build and write from one thread; a
 * finished result may be read from several threads at once. */
#ifndef GSVD_ZARR_RESULT_H
#define GSVD_ZARR_RESULT_H
#include <stddef.h>
#include <stdint.h>
#include "zarr/writer.h"
GSVD_EXTERN_C_BEGIN

typedef struct gsvd_result gsvd_result;

/* Where the root group's attributes go among the arrays' documents in the consolidated
 * metadata: before the first array (the default) or after the last.  Part of the bytes. */
#define GSVD_RESULT_ATTRS_FIRST 0
#define GSVD_RESULT_ATTRS_LAST 1

/* One array of a result (read-only; strings of spec owned by the result). */
struct gsvd_result_array {
    struct gsvd_array_spec spec;
    const void *data; /* C order, native byte order, spec.shape; strings ('O'): shape[0]
                         `const char *` items; NULL: a streamed array (not held) */
    int pad_zero;     /* edge chunks are padded with zero bytes rather than the fill value (as
                         the streaming writer of the same array pads them) */
};

GSVD_NODISCARD int gsvd_result_new(gsvd_result **out); /* GSVD_OK or GSVD_ENOMEM */
void gsvd_result_free(gsvd_result *r);                 /* accepts NULL */

/* Replace the group's attributes (a JSON object text, copied; NULL: none) and their place
 * (GSVD_RESULT_ATTRS_*).  GSVD_OK or GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_result_set_attrs(gsvd_result *r, const char *json, int where);

/* Append an array: spec (copied with its strings and fill) and data (copied: the product of
 * spec->shape elements of spec->dtype.size bytes; strings: shape[0] items, each copied; NULL:
 * a streamed array).  GSVD_OK, GSVD_ENOMEM, GSVD_EINVAL (a name already present, a size that
 * overflows).  String arrays of more than one axis are held, but not written
 * (GSVD_EUNSUPPORTED from gsvd_result_write). */
GSVD_NODISCARD int gsvd_result_add(gsvd_result *r, const struct gsvd_array_spec *spec,
                                   const void *data);
/* The same, taking ownership of `data` (from gsvd_malloc; numeric arrays only), freed with the
 * result, or at once on failure. */
GSVD_NODISCARD int gsvd_result_adopt(gsvd_result *r, const struct gsvd_array_spec *spec,
                                     void *data);
/* Mark the last array added as padded with zeros (struct gsvd_result_array.pad_zero). */
void gsvd_result_pad_zero(gsvd_result *r);

size_t gsvd_result_count(const gsvd_result *r);
/* The i-th array (i < count), or NULL. */
const struct gsvd_result_array *gsvd_result_at(const gsvd_result *r, size_t i);
/* The array named `path`, or NULL. */
const struct gsvd_result_array *gsvd_result_find(const gsvd_result *r, const char *path);
/* The attributes' JSON text, or NULL. */
const char *gsvd_result_attrs(const gsvd_result *r);
int gsvd_result_attrs_where(const gsvd_result *r);

/* Write the result as a Zarr group at url (through the staged writer: nothing appears before
 * the commit; `overwrite` replaces an existing output) with the writer parameters wp (NULL:
 * the defaults), encoding chunks on `threads` threads.  Every array must hold its data.
 * GSVD_OK, GSVD_EINVAL (a streamed array, logged), writer and store errors (logged),
 * GSVD_ECANCELED (the scope was cancelled between chunks; nothing is left), GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_result_write(const gsvd_result *r, const char *url, int overwrite,
                                     const struct gsvd_writer_params *wp, size_t threads);

/* Check the shard request of wp against every array of r as the writer will (a bad --shard
 * fails before a run's work).  GSVD_OK or GSVD_EINVAL (logged). */
GSVD_NODISCARD int gsvd_result_check_shards(const gsvd_result *r,
                                            const struct gsvd_writer_params *wp);

GSVD_EXTERN_C_END
#endif /* GSVD_ZARR_RESULT_H */
