/* zarr/array_find.c - open a named numeric array of a group (array.h), with the messages a
 * user needs when a result group is not what a command expects. */
#include "gsvd_config.h"
#include "zarr/array.h"

#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/store.h"

int gsvd_array_open_numeric(gsvd_tree *t, const char *node, const char *name, size_t ndim,
                            const char *what, gsvd_array **out)
{
    char *path = NULL;
    int rc = GSVD_OK, kind;
    const struct gsvd_zarray *z;

    *out = NULL;
    GSVD_TRY(gsvd_key_join(node, name, &path));
    kind = gsvd_tree_node_kind(t, path);
    if (kind < 0) {
        rc = kind;
        goto out;
    }
    if (kind != GSVD_NODE_ARRAY) {
        gsvd_log_error("%s: no array '%s' (is it the output of %s?)",
                       gsvd_store_url(gsvd_tree_store(t)), path, what);
        rc = GSVD_ENOTFOUND;
        goto out;
    }
    GSVD_TRY(gsvd_array_open(t, path, out));
    z = gsvd_array_meta(*out);
    if ((ndim ? z->ndim != ndim : z->ndim < 1 || z->ndim > 2) || !strchr("biuf", z->dtype.kind)) {
        gsvd_log_error("%s: expected a %s numeric array", gsvd_array_name(*out),
                       ndim == 1   ? "1-D"
                       : ndim == 2 ? "2-D"
                                   : "1-D or 2-D");
        rc = GSVD_EFORMAT;
    }
out:
    if (rc < 0) {
        gsvd_array_close(*out);
        *out = NULL;
    }
    gsvd_free(path);
    return rc;
}
