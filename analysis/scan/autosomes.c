/* analysis/scan/autosomes.c - plink2's autosome rule for KING (autosomes.h). */
#include "gsvd_config.h"
#include "analysis/scan/autosomes.h"

#include <string.h>
#include <strings.h>

#include "analysis/scan/variant_ids.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/array.h"
#include "zarr/store.h"

int gsvd_contig_is_autosomal(const char *name)
{
    static const char *const left_out[] = {"x", "23", "y", "24", "mt", "m", "26"};
    if (strncasecmp(name, "chr", 3) == 0)
        name += 3;
    for (size_t i = 0; i < GSVD_ARRAY_LEN(left_out); i++)
        if (strcasecmp(name, left_out[i]) == 0)
            return 0;
    return 1;
}

void gsvd_autosomes_free(struct gsvd_autosomes *a)
{
    if (!a)
        return;
    gsvd_free(a->keep);
    gsvd_strlist_free(&a->excluded);
    memset(a, 0, sizeof *a);
}

uint64_t gsvd_autosomes_count(const struct gsvd_autosomes *a, uint64_t start, uint64_t stop)
{
    uint64_t n = 0;
    for (uint64_t v = start; v < stop && v < a->len; v++)
        n += a->keep[v] != 0;
    return n;
}

/* 1 if group `node` of t has an array `name` (its path in *path), 0 if not. */
static int has_array(gsvd_tree *t, const char *node, const char *name, char **path)
{
    int rc = gsvd_key_join(node, name, path);
    if (rc < 0)
        return rc;
    rc = gsvd_tree_node_kind(t, *path);
    return rc < 0 ? rc : rc == GSVD_NODE_ARRAY;
}

/* The length of the 1-D array at path (any dtype; read_i64 checks it). */
static int array_len(gsvd_tree *t, const char *path, uint64_t *len)
{
    gsvd_array *a = NULL;
    int rc = gsvd_array_open(t, path, &a);
    if (rc == GSVD_OK) {
        const struct gsvd_zarray *z = gsvd_array_meta(a);
        if (z->ndim != 1) {
            gsvd_log_error("%s: expected a 1-D array of contig indices", gsvd_array_name(a));
            rc = GSVD_EFORMAT;
        } else {
            *len = z->shape[0];
        }
    }
    gsvd_array_close(a);
    return rc;
}

int gsvd_contig_index_read(gsvd_tree *t, const char *node, struct gsvd_strlist *names,
                           int64_t **idx, uint64_t *n)
{
    char *vc = NULL, *ci = NULL;
    int rc = GSVD_OK, k1, k2;

    *idx = NULL;
    *n = 0;
    k1 = has_array(t, node, "variant_contig", &vc);
    k2 = has_array(t, node, "contig_id", &ci);
    if (k1 < 0 || k2 < 0) {
        rc = k1 < 0 ? k1 : k2;
        goto out;
    }
    if (!k1 || !k2) {
        rc = GSVD_ENOTFOUND;
        goto out;
    }
    GSVD_TRY(gsvd_variant_ids_read_strings(t, ci, "contig names", names));
    GSVD_TRY(array_len(t, vc, n));
    if (!(*idx = gsvd_malloc((*n ? *n : 1) * sizeof **idx))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_variant_ids_read_i64(t, vc, 0, *n, *idx));
    for (uint64_t v = 0; v < *n; v++) {
        if ((*idx)[v] < 0 || (uint64_t)(*idx)[v] >= names->n) {
            gsvd_log_error("%s/%s: variant %llu has contig index %lld, outside contig_id (%zu "
                           "names)",
                           gsvd_store_url(gsvd_tree_store(t)), vc, (unsigned long long)v,
                           (long long)(*idx)[v], names->n);
            rc = GSVD_EFORMAT;
            goto out;
        }
    }
out:
    if (rc < 0) {
        gsvd_strlist_free(names);
        gsvd_free(*idx);
        *idx = NULL;
        *n = 0;
    }
    gsvd_free(vc);
    gsvd_free(ci);
    return rc;
}

int gsvd_contigs_read(gsvd_tree *t, const char *node, int (*keep)(const char *name, void *ctx),
                      void *ctx, struct gsvd_autosomes *out)
{
    struct gsvd_strlist names = GSVD_STRLIST_INIT;
    int64_t *idx = NULL;
    uint8_t *used = NULL;
    uint64_t n = 0;
    int rc = GSVD_OK;

    memset(out, 0, sizeof *out);
    GSVD_TRY(gsvd_contig_index_read(t, node, &names, &idx, &n));
    if (!(out->keep = gsvd_malloc(n ? n : 1)) || !(used = gsvd_calloc(names.n + 1, 1))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    out->len = n;
    for (uint64_t v = 0; v < n; v++) {
        out->keep[v] = (uint8_t)(keep(names.items[idx[v]], ctx) != 0);
        if (!out->keep[v]) {
            out->n_excluded++;
            used[idx[v]] = 1;
        }
    }
    for (size_t c = 0; c < names.n; c++)
        if (used[c])
            GSVD_TRY(gsvd_strlist_push(&out->excluded, names.items[c]));
out:
    if (rc < 0)
        gsvd_autosomes_free(out);
    gsvd_strlist_free(&names);
    gsvd_free(idx);
    gsvd_free(used);
    return rc;
}

static int autosomal(const char *name, void *ctx)
{
    (void)ctx;
    return gsvd_contig_is_autosomal(name);
}

int gsvd_autosomes_read(gsvd_tree *t, const char *node, struct gsvd_autosomes *out)
{
    return gsvd_contigs_read(t, node, autosomal, NULL, out);
}
