/* zarr/tree.h - a Zarr v2 or v3 hierarchy on a store: nodes (groups and arrays), their metadata
 * documents and children.  When the root holds consolidated metadata (v2 .zmetadata, or v3
 * "consolidated_metadata" in the root zarr.json), it is read once at open and is authoritative
 * for every metadata key, as with zarr.open_consolidated; otherwise metadata is read from the
 * store key by key and children come from listing.  In a v3 tree the metadata keys are
 * "PATH/zarr.json", and "PATH/.zattrs" reads as the node's attributes (with dimension_names
 * as _ARRAY_DIMENSIONS), so attribute readers need not know the format.
 * Thread safety: after open, all calls may run concurrently (the tree is read-only). */
#ifndef GSVD_ZARR_TREE_H
#define GSVD_ZARR_TREE_H
#include "common/buf.h"
#include "zarr/store.h"
GSVD_EXTERN_C_BEGIN

typedef struct gsvd_tree gsvd_tree;

enum gsvd_node_kind {
    GSVD_NODE_NONE = 0,
    GSVD_NODE_GROUP = 1,
    GSVD_NODE_ARRAY = 2,
};

/* Open the hierarchy rooted at the store (borrowed; must outlive the tree).  The root must be
 * a Zarr v2 group or array (.zgroup, .zarray or .zmetadata), else a v3 one (zarr.json).
 * Returns GSVD_OK and a new tree (caller owns; close with gsvd_tree_close), or (logged)
 * GSVD_EFORMAT (no .zgroup/.zarray/zarr.json, bad .zmetadata or zarr.json),
 * GSVD_EUNSUPPORTED (a zarr.json gensvd cannot read), or a store error. */
GSVD_NODISCARD int gsvd_tree_open(gsvd_store *st, gsvd_tree **out);
void gsvd_tree_close(gsvd_tree *t); /* accepts NULL */

gsvd_store *gsvd_tree_store(const gsvd_tree *t); /* borrowed */
int gsvd_tree_is_consolidated(const gsvd_tree *t);
int gsvd_tree_format(const gsvd_tree *t); /* 2 or 3 */

/* Read metadata document `key` (e.g. "call_genotype/.zarray") into dst.  GSVD_ENOTFOUND (not
 * logged) when absent. */
GSVD_NODISCARD int gsvd_tree_get_meta(gsvd_tree *t, const char *key, struct gsvd_buf *dst);

/* Kind of the node at `path` ("" = root); GSVD_NODE_NONE when neither .zarray nor .zgroup
 * (v3: no zarr.json) exists.  A negative return is a store error or (v3) a zarr.json that is
 * not a group or array (logged). */
GSVD_NODISCARD int gsvd_tree_node_kind(gsvd_tree *t, const char *path);

/* Append the names (not paths) of the direct children of group `path` that are groups or
 * arrays, sorted.  GSVD_EUNSUPPORTED (logged) when the store cannot list and there is no
 * consolidated metadata. */
GSVD_NODISCARD int gsvd_tree_children(gsvd_tree *t, const char *path, struct gsvd_strlist *out);

/* Split a user's input into the store holding the whole hierarchy and the node inside it, so
 * "cohort.vcz/call_genotype" opens cohort.vcz (and its .zmetadata) and names node
 * "call_genotype".  Local paths walk up while the parent directory is a Zarr group; a path
 * through a zip archive ("x.vcz.zip/call_genotype", "zip://x.zip/call_genotype": the first
 * component ending in ".zip" that is a regular file) splits after the archive, as does a remote
 * URL through one ("https://h/x.vcz.zip/call_genotype", also after "zip://": the first path
 * component after the host or bucket ending in ".zip"); other URLs and "mem:" are taken as the
 * root.  Caller owns *root and *node.  GSVD_ENOMEM only. */
GSVD_NODISCARD int gsvd_tree_locate(const char *input, char **root, char **node);

GSVD_EXTERN_C_END
#endif /* GSVD_ZARR_TREE_H */
