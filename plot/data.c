/* plot/data.c - numeric arrays as float64, sample IDs, and the sort and search of IDs (the
 * labels matched to them are plot/labels.c). */
#include "gsvd_config.h"

#include "plot/data.h"

#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/dtype.h"
#include "zarr/store.h"

int gsvd_plot_read_f64(gsvd_reader *r, const uint64_t *start, const uint64_t *count, double *dst,
                       struct gsvd_buf *raw)
{
    const struct gsvd_zarray *z = gsvd_array_meta(gsvd_reader_array(r));
    size_t n = 1, bytes;
    int rc = GSVD_OK;

    for (size_t d = 0; d < z->ndim; d++)
        GSVD_TRY(gsvd_mul_size(n, (size_t)count[d], &n));
    GSVD_TRY(gsvd_mul_size(n, z->dtype.size, &bytes));
    if (z->dtype.kind == 'f' && z->dtype.size == 8) /* no conversion: read in place */
        return gsvd_reader_read(r, start, count, dst);
    gsvd_buf_clear(raw);
    GSVD_TRY(gsvd_buf_reserve(raw, bytes));
    GSVD_TRY(gsvd_reader_read(r, start, count, raw->data));
    for (size_t i = 0; i < n; i++)
        dst[i] =
            gsvd_dtype_elem_f64(&z->dtype, (const unsigned char *)raw->data + i * z->dtype.size);
out:
    return rc;
}

/* Read the whole 1-D string array at `path` into out. */
static int read_strings(gsvd_tree *t, const char *path, struct gsvd_strlist *out)
{
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    const struct gsvd_zarray *z;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_array_open(t, path, &a));
    z = gsvd_array_meta(a);
    if (z->ndim != 1 || !strchr("OSU", z->dtype.kind)) {
        gsvd_log_error("%s: expected a 1-D array of strings", gsvd_array_name(a));
        rc = GSVD_EFORMAT;
        goto out;
    }
    GSVD_TRY(gsvd_reader_new(a, &r));
    GSVD_TRY(gsvd_reader_read_strings(r, 0, z->shape[0], out));
out:
    gsvd_reader_free(r);
    gsvd_array_close(a);
    return rc;
}

int gsvd_plot_read_ids(gsvd_tree *t, const char *node, struct gsvd_strlist *ids)
{
    char *path = NULL;
    int rc = GSVD_OK, kind;

    GSVD_TRY(gsvd_key_join(node, "sample_id", &path));
    kind = gsvd_tree_node_kind(t, path);
    if (kind < 0) {
        rc = kind;
        goto out;
    }
    if (kind != GSVD_NODE_ARRAY) {
        gsvd_log_error("%s: no array '%s'", gsvd_store_url(gsvd_tree_store(t)), path);
        rc = GSVD_ENOTFOUND;
        goto out;
    }
    GSVD_TRY(read_strings(t, path, ids));
out:
    gsvd_free(path);
    return rc;
}
