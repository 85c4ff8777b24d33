/* analysis/scan/geno_samples.c - the sample side of opening a genotype array (genotype_internal.h):
 * where its sample IDs come from, and requested IDs mapped onto its columns by a sorted index
 * (binary search; duplicates in the array or the request are errors, never a silent pick). */
#include "gsvd_config.h"
#include "analysis/scan/genotype_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/reader.h"
#include "zarr/store.h"

/* Sample IDs: a 1-D "sample_id" (VCF-Zarr) or "samples" (scikit-allel) array of length n in the
 * genotype array's group or any ancestor; otherwise generated names. */
int gsvd_geno_load_sample_ids(gsvd_geno *g, struct gsvd_strlist *all)
{
    static const char *const names[] = {"sample_id", "samples"};
    int rc = GSVD_OK;
    char *dir = gsvd_strdup(g->arr_path), *cand = NULL;
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;

    if (!dir)
        return GSVD_ENOMEM;
    for (;;) {
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            dir[0] = '\0';
        for (size_t i = 0; i < GSVD_ARRAY_LEN(names); i++) {
            gsvd_free(cand);
            cand = NULL;
            GSVD_TRY(gsvd_key_join(dir, names[i], &cand));
            int kind = gsvd_tree_node_kind(g->tree, cand);
            if (kind < 0) {
                rc = kind;
                goto out;
            }
            if (kind != GSVD_NODE_ARRAY)
                continue;
            GSVD_TRY(gsvd_array_open(g->tree, cand, &a));
            const struct gsvd_zarray *z = gsvd_array_meta(a);
            if (z->ndim == 1 && z->shape[0] == g->n_all_samples &&
                (z->dtype.kind == 'O' || z->dtype.kind == 'S' || z->dtype.kind == 'U')) {
                GSVD_TRY(gsvd_reader_new(a, &r));
                GSVD_TRY(gsvd_reader_read_strings(r, 0, z->shape[0], all));
                goto out;
            }
            gsvd_log_warn("%s: not a list of %llu sample IDs; ignored", gsvd_array_name(a),
                          (unsigned long long)g->n_all_samples);
            gsvd_array_close(a);
            a = NULL;
        }
        if (!dir[0])
            break;
    }
    gsvd_log_info("%s: no sample_id or samples array; naming samples sample_0...",
                  gsvd_array_name(g->arr));
    for (uint64_t i = 0; i < g->n_all_samples; i++) {
        char name[32];
        snprintf(name, sizeof name, "sample_%llu", (unsigned long long)i);
        GSVD_TRY(gsvd_strlist_push(all, name));
    }
out:
    gsvd_reader_free(r);
    gsvd_array_close(a);
    gsvd_free(cand);
    gsvd_free(dir);
    return rc;
}

/* g->sample_pick: the analysed samples in column order (for readers that visit the columns
 * chunk by chunk), and g->col_bits when that is their output order too.  Left NULL above 2^32
 * samples (the readers then gather from whole rows). */
static int order_by_column(gsvd_geno *g, size_t n_all)
{
    uint32_t *at;
    size_t k = 0;
    if (n_all > UINT32_MAX || g->n_samples > UINT32_MAX)
        return GSVD_OK;
    at = gsvd_malloc((n_all ? n_all : 1) * sizeof *at);
    g->sample_pick = gsvd_malloc((g->n_samples ? g->n_samples : 1) * sizeof *g->sample_pick);
    if (!at || !g->sample_pick) {
        gsvd_free(at);
        return GSVD_ENOMEM;
    }
    for (size_t c = 0; c < n_all; c++)
        at[c] = UINT32_MAX;
    for (size_t i = 0; i < g->n_samples; i++)
        at[g->sample_idx[i]] = (uint32_t)i;
    for (size_t c = 0; c < n_all; c++)
        if (at[c] != UINT32_MAX)
            g->sample_pick[k++] = (struct gsvd_geno_pick){(uint32_t)c, at[c], 1};
    for (size_t i = k; i-- > 1;) { /* the stretches, from the end */
        struct gsvd_geno_pick *a = &g->sample_pick[i - 1], *b = &g->sample_pick[i];
        if (b->col == a->col + 1 && b->out == a->out + 1)
            a->run = b->run + 1;
    }
    gsvd_free(at);
    for (size_t i = 0; i < k; i++)
        if (g->sample_pick[i].out != i)
            return GSVD_OK; /* another order: the readers copy stretches */
    if (!(g->col_bits = gsvd_calloc(n_all / 64 + 2, sizeof *g->col_bits)))
        return GSVD_ENOMEM;
    for (size_t i = 0; i < k; i++)
        g->col_bits[g->sample_pick[i].col / 64] |= (uint64_t)1 << (g->sample_pick[i].col % 64);
    return GSVD_OK;
}

/* Map the requested IDs onto array columns; unknown or repeated IDs are errors. */
int gsvd_geno_select_samples(gsvd_geno *g, const struct gsvd_strlist *all,
                             const struct gsvd_strlist *want)
{
    int rc = GSVD_OK;
    size_t *order = gsvd_str_order(all->items, all->n); /* all's positions in ID order */
    uint8_t *used = gsvd_calloc(all->n ? all->n : 1, 1);

    g->sample_idx = gsvd_malloc((want->n ? want->n : 1) * sizeof *g->sample_idx);
    if (!order || !used || !g->sample_idx) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 1; i < all->n; i++)
        if (strcmp(all->items[order[i - 1]], all->items[order[i]]) == 0) {
            gsvd_log_error("%s: sample ID '%s' appears more than once; cannot select by ID",
                           gsvd_array_name(g->arr), all->items[order[i]]);
            rc = GSVD_EINCONSIST;
            goto out;
        }
    for (size_t i = 0; i < want->n; i++) {
        const char *id = want->items[i];
        ptrdiff_t at = gsvd_str_find(all->items, order, all->n, id);
        if (at < 0) {
            gsvd_log_error("sample '%s' is not in %s", id, gsvd_array_name(g->arr));
            rc = GSVD_EINCONSIST;
            goto out;
        }
        if (used[at]++) {
            gsvd_log_error("sample '%s' is listed twice", id);
            rc = GSVD_EINCONSIST;
            goto out;
        }
        g->sample_idx[i] = (uint64_t)at;
        GSVD_TRY(gsvd_strlist_push(&g->ids, id));
    }
    g->n_samples = want->n;
    GSVD_TRY(order_by_column(g, all->n));
out:
    gsvd_free(order);
    gsvd_free(used);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int listed(const struct gsvd_strlist *l, const char *id)
{
    return bsearch(&id, l->items, l->n, sizeof *l->items, cmp_str) != NULL;
}

/* A warning when list l (from `file`) names no sample of all. */
static void check_list(const gsvd_geno *g, const struct gsvd_strlist *l, const char *file,
                       const struct gsvd_strlist *all)
{
    size_t hit = 0;
    for (size_t i = 0; l && i < all->n && hit == 0; i++)
        hit += listed(l, all->items[i]);
    if (l && l->n && hit == 0)
        gsvd_log_warn("%s: none of the %zu sample IDs in %s names a sample",
                      gsvd_array_name(g->arr), l->n, file ? file : "the list");
}

int gsvd_geno_pick_samples(gsvd_geno *g, const struct gsvd_geno_params *p, struct gsvd_strlist *all)
{
    struct gsvd_strlist masked = GSVD_STRLIST_INIT, want = GSVD_STRLIST_INIT;
    const struct gsvd_strlist *from = p->samples;
    int rc = GSVD_OK;

    if (p->sample_mask && !p->samples) {
        if (p->sample_mask_len != g->n_all_samples) {
            gsvd_log_error("sample mask has %llu entries, %s has %llu samples",
                           (unsigned long long)p->sample_mask_len, gsvd_array_name(g->arr),
                           (unsigned long long)g->n_all_samples);
            return GSVD_EINCONSIST;
        }
        for (size_t i = 0; rc == GSVD_OK && i < all->n; i++)
            if (p->sample_mask[i])
                rc = gsvd_strlist_push(&masked, all->items[i]);
        if (rc == GSVD_OK && masked.n == 0) {
            gsvd_log_error("the sample mask keeps no sample of %s", gsvd_array_name(g->arr));
            rc = GSVD_EINCONSIST;
        }
        if (rc < 0)
            goto out;
        from = &masked;
    }
    if (!from && !p->keep_ids && !p->remove_ids) {
        g->n_samples = all->n;
        g->ids = *all;
        *all = (struct gsvd_strlist)GSVD_STRLIST_INIT;
        return GSVD_OK;
    }
    if (!from)
        from = all;
    if (p->keep_ids || p->remove_ids) {
        check_list(g, p->keep_ids, p->keep_file, all);
        check_list(g, p->remove_ids, p->remove_file, all);
        for (size_t i = 0; i < from->n; i++) {
            const char *id = from->items[i];
            if ((p->keep_ids && !listed(p->keep_ids, id)) ||
                (p->remove_ids && listed(p->remove_ids, id)))
                continue;
            GSVD_TRY(gsvd_strlist_push(&want, id));
        }
        if (want.n == 0) {
            gsvd_log_error(
                "%s: no sample of the %zu asked for is left by %s%s%s", gsvd_array_name(g->arr),
                from->n, p->keep_ids ? (p->keep_file ? p->keep_file : "the keep list") : "",
                p->keep_ids && p->remove_ids ? " and " : "",
                p->remove_ids ? (p->remove_file ? p->remove_file : "the remove list") : "");
            rc = GSVD_EINCONSIST;
            goto out;
        }
        from = &want;
    }
    rc = gsvd_geno_select_samples(g, all, from);
out:
    gsvd_strlist_free(&masked);
    gsvd_strlist_free(&want);
    return rc;
}
