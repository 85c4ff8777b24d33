/* zarr/tree.c - hierarchy over a store, with consolidated metadata when present. */
#include "gsvd_config.h"
#include "zarr/tree.h"

#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/meta.h"
#include "zarr/meta_v3.h"

struct gsvd_tree {
    gsvd_store *st;           /* borrowed */
    int format;               /* 2 (.zgroup/.zarray) or 3 (zarr.json) */
    int consolidated;         /* 1 if .zmetadata (v3: the root's consolidated_metadata) was read */
    struct gsvd_strlist keys; /* consolidated: metadata keys */
    struct gsvd_strlist docs; /* consolidated: their JSON texts, same order */
};

gsvd_store *gsvd_tree_store(const gsvd_tree *t)
{
    return t->st;
}

int gsvd_tree_is_consolidated(const gsvd_tree *t)
{
    return t->consolidated;
}

int gsvd_tree_format(const gsvd_tree *t)
{
    return t->format;
}

void gsvd_tree_close(gsvd_tree *t)
{
    if (!t)
        return;
    gsvd_strlist_free(&t->keys);
    gsvd_strlist_free(&t->docs);
    gsvd_free(t);
}

static int get_doc(gsvd_tree *t, const char *key, struct gsvd_buf *dst);

/* v3: "PATH/.zattrs" is made from PATH/zarr.json (attributes and dimension_names). */
static int v3_zattrs(gsvd_tree *t, const char *key, struct gsvd_buf *dst)
{
    size_t len = strlen(key) - strlen(".zattrs");
    char *doc = gsvd_asprintf("%.*szarr.json", (int)len, key);
    char *where = doc ? gsvd_asprintf("%s/%s", gsvd_store_url(t->st), doc) : NULL;
    struct gsvd_buf json = GSVD_BUF_INIT;
    int rc = where ? get_doc(t, doc, &json) : GSVD_ENOMEM;

    if (rc == GSVD_OK)
        rc = gsvd_v3_attrs(json.data, json.len, where, dst);
    if (rc == GSVD_OK && dst->len == 0)
        rc = GSVD_ENOTFOUND;
    gsvd_buf_free(&json);
    gsvd_free(doc);
    gsvd_free(where);
    return rc;
}

static int is_base(const char *key, const char *name)
{
    size_t lk = strlen(key), ln = strlen(name);
    return lk >= ln && strcmp(key + lk - ln, name) == 0 && (lk == ln || key[lk - ln - 1] == '/');
}

int gsvd_tree_get_meta(gsvd_tree *t, const char *key, struct gsvd_buf *dst)
{
    if (t->format == 3 && is_base(key, ".zattrs"))
        return v3_zattrs(t, key, dst);
    return get_doc(t, key, dst);
}

static int get_doc(gsvd_tree *t, const char *key, struct gsvd_buf *dst)
{
    if (!t->consolidated)
        return gsvd_store_get(t->st, key, dst);
    for (size_t i = 0; i < t->keys.n; i++) {
        if (strcmp(t->keys.items[i], key) == 0) {
            gsvd_buf_clear(dst);
            return gsvd_buf_puts(dst, t->docs.items[i]);
        }
    }
    return GSVD_ENOTFOUND;
}

/* Does metadata document path/name exist?  1 yes, 0 no, <0 error. */
static int has_doc(gsvd_tree *t, const char *path, const char *name)
{
    char *key = NULL;
    struct gsvd_buf b = GSVD_BUF_INIT;
    int rc = gsvd_key_join(path, name, &key);

    if (rc == GSVD_OK) {
        rc = gsvd_tree_get_meta(t, key, &b);
        rc = rc == GSVD_OK ? 1 : rc == GSVD_ENOTFOUND ? 0 : rc;
    }
    gsvd_buf_free(&b);
    gsvd_free(key);
    return rc;
}

/* v3: the node_type in PATH/zarr.json; GSVD_NODE_NONE when there is none. */
static int v3_node_kind(gsvd_tree *t, const char *path)
{
    char *key = NULL, *where = NULL;
    struct gsvd_buf b = GSVD_BUF_INIT;
    int rc = gsvd_key_join(path, "zarr.json", &key);

    if (rc == GSVD_OK)
        rc = get_doc(t, key, &b);
    if (rc == GSVD_ENOTFOUND) {
        rc = GSVD_NODE_NONE;
    } else if (rc == GSVD_OK) {
        where = gsvd_asprintf("%s/%s", gsvd_store_url(t->st), key);
        rc = where ? gsvd_v3_node_type(b.data, b.len, where) : GSVD_ENOMEM;
    }
    gsvd_buf_free(&b);
    gsvd_free(key);
    gsvd_free(where);
    return rc;
}

int gsvd_tree_node_kind(gsvd_tree *t, const char *path)
{
    int rc;
    if (*path && gsvd_key_check(path) < 0) {
        gsvd_log_error("%s: invalid node path '%s'", gsvd_store_url(t->st), path);
        return GSVD_EINVAL;
    }
    if (t->format == 3)
        return v3_node_kind(t, path);
    rc = has_doc(t, path, ".zarray");
    if (rc != 0)
        return rc < 0 ? rc : GSVD_NODE_ARRAY;
    rc = has_doc(t, path, ".zgroup");
    if (rc != 0)
        return rc < 0 ? rc : GSVD_NODE_GROUP;
    return GSVD_NODE_NONE;
}

/* A Zarr v3 root: zarr.json, with its consolidated metadata when it has some.  GSVD_ENOTFOUND
 * (not logged) when there is no zarr.json. */
static int open_v3(gsvd_tree *t)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    char *where = gsvd_asprintf("%s/zarr.json", gsvd_store_url(t->st));
    int rc = where ? gsvd_store_get(t->st, "zarr.json", &b) : GSVD_ENOMEM;

    if (rc < 0)
        goto out;
    GSVD_TRY(gsvd_v3_node_type(b.data, b.len, where));
    rc = gsvd_v3_consolidated_parse(b.data, b.len, where, &t->keys, &t->docs);
    if (rc == GSVD_OK)
        t->consolidated = 1;
    else if (rc != GSVD_ENOTFOUND)
        goto out;
    rc = GSVD_OK;
    t->format = 3;
out:
    gsvd_buf_free(&b);
    gsvd_free(where);
    return rc;
}

int gsvd_tree_open(gsvd_store *st, gsvd_tree **out)
{
    int rc = GSVD_OK;
    gsvd_tree *t = gsvd_calloc(1, sizeof *t);
    struct gsvd_buf b = GSVD_BUF_INIT;
    char *where = NULL;
    int kind;

    *out = NULL;
    if (!t)
        return GSVD_ENOMEM;
    t->st = st;
    t->format = 2;
    rc = gsvd_store_get(st, ".zmetadata", &b);
    if (rc == GSVD_OK) {
        where = gsvd_asprintf("%s/.zmetadata", gsvd_store_url(st));
        if (!where) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        GSVD_TRY(gsvd_zmetadata_parse(b.data, b.len, where, &t->keys, &t->docs));
        t->consolidated = 1;
    } else if (rc != GSVD_ENOTFOUND) {
        goto out;
    }
    rc = GSVD_OK;
    kind = gsvd_tree_node_kind(t, "");
    if (kind < 0) {
        rc = kind;
        goto out;
    }
    if (kind == GSVD_NODE_NONE && !t->consolidated) {
        rc = open_v3(t);
        if (rc == GSVD_ENOTFOUND) {
            char hint[1024];
            gsvd_store_convert_hint(gsvd_store_url(st), hint, sizeof hint);
            gsvd_log_error("%s: not a Zarr v2 store (no .zgroup or .zarray) nor a v3 one (no "
                           "zarr.json)%s%s",
                           gsvd_store_url(st), *hint ? "; " : "", hint);
            rc = GSVD_EFORMAT;
        }
        if (rc < 0)
            goto out;
    } else if (kind == GSVD_NODE_NONE) {
        gsvd_log_error("%s: not a Zarr v2 store (no .zgroup or .zarray)", gsvd_store_url(st));
        rc = GSVD_EFORMAT;
        goto out;
    }
    *out = t;
    t = NULL;
out:
    gsvd_buf_free(&b);
    gsvd_free(where);
    gsvd_tree_close(t);
    return rc;
}

/* Add `name` to out unless already there (keys arrive in several documents per node). */
static int add_unique(struct gsvd_strlist *out, const char *name, size_t len)
{
    for (size_t i = 0; i < out->n; i++)
        if (strlen(out->items[i]) == len && memcmp(out->items[i], name, len) == 0)
            return GSVD_OK;
    return gsvd_strlist_pushn(out, name, len);
}

/* Consolidated keys path/NAME/.zarray|.zgroup (v3: path/NAME/zarr.json) give the children
 * NAME of `path`. */
static int children_from_keys(const struct gsvd_strlist *keys, const char *path,
                              struct gsvd_strlist *out)
{
    size_t plen = strlen(path);
    for (size_t i = 0; i < keys->n; i++) {
        const char *k = keys->items[i], *rest, *slash;
        if (plen) {
            if (strncmp(k, path, plen) != 0 || k[plen] != '/')
                continue;
            rest = k + plen + 1;
        } else {
            rest = k;
        }
        slash = strchr(rest, '/');
        if (!slash || (strcmp(slash + 1, ".zarray") != 0 && strcmp(slash + 1, ".zgroup") != 0 &&
                       strcmp(slash + 1, "zarr.json") != 0))
            continue;
        int rc = add_unique(out, rest, (size_t)(slash - rest));
        if (rc < 0)
            return rc;
    }
    return GSVD_OK;
}

int gsvd_tree_children(gsvd_tree *t, const char *path, struct gsvd_strlist *out)
{
    int rc = GSVD_OK;
    struct gsvd_strlist names = GSVD_STRLIST_INIT;
    struct gsvd_strlist found = GSVD_STRLIST_INIT;
    char *sub = NULL;

    if (t->consolidated) {
        GSVD_TRY(children_from_keys(&t->keys, path, &found));
    } else {
        rc = gsvd_store_list(t->st, path, &names);
        if (rc == GSVD_EUNSUPPORTED)
            gsvd_log_error("%s: this store cannot be listed (a static HTTP server cannot) and has "
                           "no consolidated metadata (.zmetadata, or consolidated_metadata in the "
                           "root zarr.json): consolidate it (zarr.consolidate_metadata), serve it "
                           "from s3:// or gs://, or name the array explicitly",
                           gsvd_store_url(t->st));
        if (rc < 0)
            goto out;
        for (size_t i = 0; i < names.n; i++) {
            const char *n = names.items[i];
            if (n[0] == '.' || gsvd_key_check(n) < 0)
                continue; /* metadata files, hidden entries, staging directories */
            gsvd_free(sub);
            GSVD_TRY(gsvd_key_join(path, n, &sub));
            rc = gsvd_tree_node_kind(t, sub);
            if (rc < 0)
                goto out;
            if (rc != GSVD_NODE_NONE)
                GSVD_TRY(gsvd_strlist_push(&found, n));
            rc = GSVD_OK;
        }
    }
    gsvd_strlist_sort(&found);
    for (size_t i = 0; i < found.n; i++)
        GSVD_TRY(gsvd_strlist_push(out, found.items[i]));
out:
    gsvd_free(sub);
    gsvd_strlist_free(&names);
    gsvd_strlist_free(&found);
    return rc;
}

/* 1 if dir/.zgroup (or a v3 dir/zarr.json: only groups have children) is a regular file. */
static int is_group_dir(const char *dir, size_t len)
{
    struct stat sb;
    char *p = gsvd_asprintf("%.*s/.zgroup", (int)len, dir);
    char *p3 = gsvd_asprintf("%.*s/zarr.json", (int)len, dir);
    int yes = (p && stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) ||
              (p3 && stat(p3, &sb) == 0 && S_ISREG(sb.st_mode));
    gsvd_free(p);
    gsvd_free(p3);
    return yes;
}

/* Length of the leading part of `p` (its first `len` bytes) that names a zip archive: the first
 * component ending in ".zip" (any case) whose path is a regular file; 0 when there is none.
 * With `force` (a "zip://" input) the whole input is the archive when no component matches. */
static size_t zip_root_len(const char *p, size_t len, int force)
{
    for (size_t end = 1; end <= len; end++) {
        struct stat sb;
        char *path;
        int yes;
        if (end < len && p[end] != '/')
            continue;
        if (end < 4 || strncasecmp(p + end - 4, ".zip", 4) != 0)
            continue;
        path = gsvd_strndup(p, end);
        yes = path && stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
        gsvd_free(path);
        if (yes)
            return end;
    }
    return force ? len : 0;
}

/* For a remote URL (http, https, gs, s3: "SCHEME://HOST/..."), the length of its leading part
 * up to the first path component ending in ".zip" (any case), the archive; 0 when none.  The
 * host or bucket itself never counts.  store.c opens such a URL as a remote zip store. */
static size_t remote_zip_len(const char *p, size_t len)
{
    static const char *const remote[] = {"http://", "https://", "gs://", "s3://"};
    size_t start = 0;

    for (size_t i = 0; i < GSVD_ARRAY_LEN(remote); i++)
        if (strncmp(p, remote[i], strlen(remote[i])) == 0)
            start = strlen(remote[i]);
    if (start == 0)
        return 0;
    while (start < len && p[start] != '/') /* the host or bucket */
        start++;
    for (size_t end = start + 1; end <= len; end++) {
        if (end < len && p[end] != '/')
            continue;
        if (end >= start + 5 && p[end - 5] != '/' && strncasecmp(p + end - 4, ".zip", 4) == 0)
            return end;
    }
    return 0;
}

int gsvd_tree_locate(const char *input, char **root, char **node)
{
    size_t len = strlen(input), root_len, skip = 0, zlen;

    *root = *node = NULL;
    if (strncmp(input, "zip://", 6) == 0) {
        skip = 6;
        zlen = remote_zip_len(input + skip, len - skip);
        if (zlen > 0) {
            zlen += skip;
            goto zip_found;
        }
        goto zip;
    }
    zlen = remote_zip_len(input, len);
    if (zlen > 0)
        goto zip_found;
    if (strncmp(input, "file://", 7) == 0)
        skip = 7;
    else if (strstr(input, "://") || strncmp(input, "mem:", 4) == 0)
        goto whole;
    zlen = zip_root_len(input + skip, len - skip, 0);
    if (zlen > 0) {
        zlen += skip;
        goto zip_found;
    }
    while (len > skip + 1 && input[len - 1] == '/')
        len--;
    root_len = len;
    for (;;) {
        size_t i = root_len;
        while (i > skip && input[i - 1] != '/')
            i--;
        if (i <= skip + 1) /* no parent directory in the input */
            break;
        size_t parent = i - 1;
        while (parent > skip + 1 && input[parent - 1] == '/')
            parent--;
        if (!is_group_dir(input + skip, parent - skip))
            break;
        root_len = parent;
    }
    goto split;
zip:
    zlen = skip + zip_root_len(input + skip, len - skip, 1);
zip_found:
    root_len = zlen; /* a zipped store: the archive is the root, the rest names the node */
    while (len > root_len && input[len - 1] == '/')
        len--;
split:
    *root = gsvd_strndup(input, root_len);
    if (root_len < len) {
        size_t start = root_len;
        while (start < len && input[start] == '/')
            start++;
        *node = gsvd_strndup(input + start, len - start);
    } else {
        *node = gsvd_strdup("");
    }
    goto done;
whole:
    *root = gsvd_strdup(input);
    *node = gsvd_strdup("");
done:
    if (!*root || !*node) {
        gsvd_free(*root);
        gsvd_free(*node);
        *root = *node = NULL;
        return GSVD_ENOMEM;
    }
    return GSVD_OK;
}
