/* lib/tree.c - the tree under a source's node (include/gensvd.h, "reading stores"): the facts of
 * the source (format, consolidated metadata, the store and node), a node's kind, and the walk
 * `gensvd info` prints, read as far as the caller asks: a group's children are listed when the
 * walk enters it, so a large tree's first lines come before the rest has been read. */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"

int lib_node_path(const gensvd_source *src, const char *path, char **out)
{
    int rc = GSVD_OK;

    *out = NULL;
    while (path && *path == '/')
        path++;
    GSVD_TRY(gsvd_key_join(src->node, path ? path : "", out));
    if (**out && gsvd_key_check(*out) < 0) {
        rc = lib_fail(GSVD_EFORMAT, "%s: invalid node path '%s' (empty, '.' or '..' components)",
                      lib_source_name(src), *out);
        gsvd_free(*out);
        *out = NULL;
    }
out:
    return rc;
}

int gensvd_source_get_int(const gensvd_source *src, const char *name, int64_t *out)
{
    const struct gsvd_scope *prev;
    int rc = GSVD_OK;

    if (!src || !name || !out)
        return GENSVD_EINVAL;
    if (!strcmp(name, "zarr-format")) {
        *out = src->url ? src->input_format : 0;
    } else if (!strcmp(name, "consolidated")) {
        *out = src->url && gsvd_tree_is_consolidated(src->tree);
    } else {
        prev = lib_begin(src->ctx);
        rc = lib_fail(GSVD_EINVAL, "unknown source fact '%s' (zarr-format, consolidated)", name);
        return lib_end(src->ctx, prev, rc, "gensvd_source_get_int");
    }
    return rc;
}

const char *gensvd_source_get_string(const gensvd_source *src, const char *name)
{
    if (!src || !name || !src->url)
        return NULL;
    if (!strcmp(name, "store"))
        return gsvd_store_url(src->st);
    if (!strcmp(name, "node"))
        return src->node;
    return NULL;
}

/* The kind of the node at `full` (a store path), inside a call. */
static int kind_at(gensvd_source *src, const char *full)
{
    int kind = gsvd_tree_node_kind(src->tree, full);
    return kind < 0                  ? kind
           : kind == GSVD_NODE_ARRAY ? GENSVD_NODE_ARRAY
           : kind == GSVD_NODE_GROUP ? GENSVD_NODE_GROUP
                                     : 0;
}

int gensvd_source_node_kind(gensvd_source *src, const char *path)
{
    const struct gsvd_scope *prev;
    char *full = NULL;
    int rc = GSVD_OK;

    if (!src)
        return GENSVD_EINVAL;
    prev = lib_begin(src->ctx);
    GSVD_TRY(lib_source_ready(src));
    GSVD_TRY(lib_node_path(src, path, &full));
    rc = kind_at(src, full);
out:
    gsvd_free(full);
    return lib_end(src->ctx, prev, rc, "gensvd_source_node_kind");
}

/* Append the node at `rel` (below the source's node) to the walk, and enter it when it is a
 * group.  A node that is neither is an error, named as the store and its path. */
static int walk_add(gensvd_source *src, struct lib_walk *w, const char *rel, unsigned depth)
{
    char *full = NULL;
    struct lib_walk_node *n;
    int rc = GSVD_OK, kind;

    GSVD_TRY(lib_node_path(src, rel, &full));
    kind = kind_at(src, full);
    if (kind < 0) {
        rc = kind;
        goto out;
    }
    if (kind == 0) {
        rc = lib_fail(GSVD_ENOTFOUND, "%s/%s: no Zarr group or array here", gsvd_store_url(src->st),
                      full);
        goto out;
    }
    GSVD_TRY(gsvd_grow(&w->nodes, &w->cap, w->n + 1, sizeof *w->nodes, 16));
    if (kind == GENSVD_NODE_GROUP)
        GSVD_TRY(gsvd_grow(&w->stack, &w->cap_stack, w->depth + 1, sizeof *w->stack, 8));
    n = &w->nodes[w->n];
    if (!(n->path = gsvd_strdup(rel))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    n->depth = depth;
    n->kind = kind;
    if (kind == GENSVD_NODE_GROUP)
        w->stack[w->depth++] = (struct lib_walk_frame){.node = w->n};
    w->n++;
out:
    gsvd_free(full);
    return rc;
}

/* One more node: the next child of the innermost group that has one left. */
static int walk_step(gensvd_source *src, struct lib_walk *w, int *done)
{
    char *rel = NULL, *full = NULL;
    int rc = GSVD_OK;

    *done = 0;
    if (!w->started) {
        GSVD_TRY(walk_add(src, w, "", 0));
        w->started = 1;
        goto out;
    }
    while (w->depth > 0) {
        size_t top = w->depth - 1; /* walk_add may move the stack and the nodes */
        struct lib_walk_frame *f = &w->stack[top];
        const struct lib_walk_node *g = &w->nodes[f->node];
        if (!f->listed) {
            GSVD_TRY(lib_node_path(src, g->path, &full));
            GSVD_TRY(gsvd_tree_children(src->tree, full, &f->children));
            f->listed = 1;
        }
        if (f->next < f->children.n) {
            GSVD_TRY(gsvd_key_join(g->path, f->children.items[f->next], &rel));
            GSVD_TRY(walk_add(src, w, rel, g->depth + 1));
            w->stack[top].next++; /* once the node is in: a failed step is taken again */
            goto out;
        }
        gsvd_strlist_free(&f->children);
        w->depth--;
    }
    *done = 1;
out:
    gsvd_free(rel);
    gsvd_free(full);
    return rc;
}

int gensvd_source_node(gensvd_source *src, size_t i, const char **path, unsigned *depth,
                       enum gensvd_node_kind *kind)
{
    const struct gsvd_scope *prev;
    int rc = GSVD_OK, done = 0;

    if (path)
        *path = NULL;
    if (!src || !path)
        return GENSVD_EINVAL;
    prev = lib_begin(src->ctx);
    GSVD_TRY(lib_source_ready(src));
    if (!src->walk && !(src->walk = gsvd_calloc(1, sizeof *src->walk))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    while (i >= src->walk->n && !done)
        GSVD_TRY(walk_step(src, src->walk, &done));
    if (i < src->walk->n) {
        const struct lib_walk_node *n = &src->walk->nodes[i];
        *path = n->path;
        if (depth)
            *depth = n->depth;
        if (kind)
            *kind = n->kind;
    }
out:
    return lib_end(src->ctx, prev, rc, "gensvd_source_node");
}
