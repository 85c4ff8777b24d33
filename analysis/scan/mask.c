/* analysis/scan/mask.c - mask arrays onto a scan's selection (see mask.h). */
#include "gsvd_config.h"
#include "analysis/scan/mask.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/array.h"
#include "zarr/reader.h"
#include "zarr/store.h"
#include "zarr/tree.h"

void gsvd_mask_free(struct gsvd_mask *m)
{
    if (!m)
        return;
    gsvd_free(m->keep);
    gsvd_free(m->name);
    gsvd_strlist_free(&m->ids);
    memset(m, 0, sizeof *m);
}

/* sample_id beside the mask array, when there is one of the mask's length. */
static int read_ids(gsvd_tree *t, const char *arr_path, struct gsvd_mask *m)
{
    int rc = GSVD_OK, kind;
    char *dir = gsvd_strdup(arr_path), *path = NULL, *slash;
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;

    if (!dir)
        return GSVD_ENOMEM;
    slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
    GSVD_TRY(gsvd_key_join(dir, "sample_id", &path));
    kind = gsvd_tree_node_kind(t, path);
    if (kind < 0) {
        rc = kind;
        goto out;
    }
    if (kind != GSVD_NODE_ARRAY)
        goto out; /* match by position */
    GSVD_TRY(gsvd_array_open(t, path, &a));
    const struct gsvd_zarray *z = gsvd_array_meta(a);
    if (z->ndim != 1 || z->shape[0] != m->len) {
        gsvd_log_error("%s: sample_id beside the mask must be 1-D with %llu entries", m->name,
                       (unsigned long long)m->len);
        rc = GSVD_EFORMAT;
        goto out;
    }
    GSVD_TRY(gsvd_reader_new(a, &r));
    GSVD_TRY(gsvd_reader_read_strings(r, 0, m->len, &m->ids));
out:
    gsvd_reader_free(r);
    gsvd_array_close(a);
    gsvd_free(dir);
    gsvd_free(path);
    return rc;
}

int gsvd_mask_read(gsvd_tree *t, const char *node, const char *spec, const char *default_array,
                   int want_ids, struct gsvd_mask *out)
{
    char *path = NULL;
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    int rc = GSVD_OK, kind;

    memset(out, 0, sizeof *out);
    kind = gsvd_tree_node_kind(t, node);
    if (kind < 0) {
        rc = kind;
        goto out;
    }
    if (kind == GSVD_NODE_ARRAY)
        path = gsvd_strdup(node);
    else
        GSVD_TRY(gsvd_key_join(node, default_array, &path));
    out->name = gsvd_asprintf("%s%s%s", spec, kind == GSVD_NODE_ARRAY ? "" : "/",
                              kind == GSVD_NODE_ARRAY ? "" : default_array);
    if (!path || !out->name) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    kind = gsvd_tree_node_kind(t, path);
    if (kind < 0) {
        rc = kind;
        goto out;
    }
    if (kind != GSVD_NODE_ARRAY) {
        gsvd_log_error("%s: no mask array %s there (name one as STORE/ARRAY)", spec,
                       kind == GSVD_NODE_GROUP ? "(a group)" : default_array);
        rc = GSVD_ENOTFOUND;
        goto out;
    }
    GSVD_TRY(gsvd_array_open(t, path, &a));
    const struct gsvd_zarray *z = gsvd_array_meta(a);
    if (z->ndim != 1 || z->dtype.size != 1 ||
        (z->dtype.kind != 'b' && z->dtype.kind != 'i' && z->dtype.kind != 'u')) {
        gsvd_log_error("%s: a mask must be a 1-D bool, int8 or uint8 array", out->name);
        rc = GSVD_EFORMAT;
        goto out;
    }
    out->len = z->shape[0];
    out->keep = gsvd_malloc(out->len ? (size_t)out->len : 1);
    if (!out->keep) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_reader_new(a, &r));
    if (out->len) {
        uint64_t start = 0, count = out->len;
        GSVD_TRY(gsvd_reader_read(r, &start, &count, out->keep));
    }
    for (uint64_t i = 0; i < out->len; i++) {
        out->keep[i] = out->keep[i] != 0;
        out->n_keep += out->keep[i];
    }
    if (out->n_keep == 0) {
        gsvd_log_error("%s: the mask keeps nothing (all %llu entries are 0)", out->name,
                       (unsigned long long)out->len);
        rc = GSVD_EINCONSIST;
        goto out;
    }
    if (want_ids)
        GSVD_TRY(read_ids(t, path, out));
out:
    if (rc < 0)
        gsvd_mask_free(out);
    gsvd_reader_free(r);
    gsvd_array_close(a);
    gsvd_free(path);
    return rc;
}

int gsvd_mask_apply(const struct gsvd_mask *vm, const struct gsvd_mask *sm,
                    struct gsvd_strlist *ids, struct gsvd_geno_params *geno)
{
    int rc = GSVD_OK;
    if (vm) {
        geno->variant_mask = vm->keep;
        geno->variant_mask_len = vm->len;
    }
    if (sm) {
        if (sm->ids.n) {
            for (uint64_t i = 0; i < sm->len; i++)
                if (sm->keep[i])
                    GSVD_TRY(gsvd_strlist_push(ids, sm->ids.items[i]));
            geno->samples = ids;
        } else {
            geno->sample_mask = sm->keep;
            geno->sample_mask_len = sm->len;
        }
    }
out:
    return rc;
}

int gsvd_mask_narrow(struct gsvd_geno_params *geno, uint8_t *keep, uint64_t len, const char *url,
                     const char *array, uint64_t *n_range, uint64_t *n_left)
{
    uint64_t stop = geno->var_stop && geno->var_stop < len ? geno->var_stop : len;
    if (geno->variant_mask) {
        if (geno->variant_mask_len != len) {
            gsvd_log_error("%s: the variant mask has %llu entries, %s %llu", url,
                           (unsigned long long)geno->variant_mask_len, array,
                           (unsigned long long)len);
            return GSVD_EINCONSIST;
        }
        for (uint64_t v = 0; v < len; v++)
            keep[v] = keep[v] && geno->variant_mask[v];
    }
    *n_range = stop > geno->var_start ? stop - geno->var_start : 0;
    *n_left = 0;
    for (uint64_t v = geno->var_start; v < stop; v++)
        *n_left += keep[v] != 0;
    geno->variant_mask = keep;
    geno->variant_mask_len = len;
    return GSVD_OK;
}

/* "X, Y" from the left-out contigs, for messages (at most 8 named). */
static void contig_list(const struct gsvd_autosomes *au, char *dst, size_t cap)
{
    size_t at = 0;
    dst[0] = '\0';
    for (size_t i = 0; i < au->excluded.n && at + 1 < cap; i++)
        at += (size_t)snprintf(dst + at, cap - at, "%s%s", i ? ", " : "",
                               i < 8 ? au->excluded.items[i] : "...");
}

int gsvd_autosomes_apply(gsvd_tree *t, const char *node, int all_contigs, struct gsvd_autosomes *au,
                         struct gsvd_geno_params *geno)
{
    const char *url = gsvd_store_url(gsvd_tree_store(t));
    uint64_t n_range, n_left;
    char names[256];
    int rc;

    if (all_contigs)
        return GSVD_OK;
    rc = gsvd_autosomes_read(t, node, au);
    if (rc == GSVD_ENOTFOUND) {
        gsvd_log_info("%s: no variant_contig and contig_id: every variant counts for KING", url);
        return GSVD_OK;
    }
    if (rc < 0)
        return rc;
    GSVD_TRY(gsvd_mask_narrow(geno, au->keep, au->len, url, "variant_contig", &n_range, &n_left));
    contig_list(au, names, sizeof names);
    if (n_left == 0 && n_range > 0) {
        gsvd_log_error("%s: no autosomal variant among the %llu used (plink2's KING counts every "
                       "contig but X, Y and MT%s%s); --all-contigs uses them all",
                       url, (unsigned long long)n_range, au->excluded.n ? "; here: " : "", names);
        rc = GSVD_EDEGENERATE;
        goto out;
    }
    if (au->n_excluded)
        gsvd_log_info("%s: %llu variants on %s left out of KING (plink2's autosomes; "
                      "--all-contigs keeps them)",
                      url, (unsigned long long)au->n_excluded, names);
out:
    return rc;
}
