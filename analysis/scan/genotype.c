/* analysis/scan/genotype.c - a genotype handle (genotype.h): finding and opening the genotype
 * array, its samples and haplotypes, the variant range and the bound of its standardised
 * values, and the accessors.  The scan itself (worker threads turning chunk rows into
 * standardised dosage blocks, handed to the callback in order) is geno_scan.c. */
#include "gsvd_config.h"
#include "analysis/scan/genotype.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/scan/dosage.h"
#include "analysis/scan/gblock_std.h"
#include "analysis/scan/geno_cache.h"
#include "analysis/scan/genotype_internal.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/textnum.h"
#include "zarr/array.h"
#include "zarr/store.h"

void gsvd_geno_set_cache(gsvd_geno *g, uint64_t bytes)
{
    if (g->cache_state == 1 || g->cache)
        return; /* already filled */
    g->p.cache_bytes = bytes;
    g->cache_state = bytes ? 0 : -1;
}

int gsvd_geno_cached(const gsvd_geno *g)
{
    return g->cache_state == 1;
}

size_t gsvd_geno_n_samples(const gsvd_geno *g)
{
    return g->n_samples;
}

uint64_t gsvd_geno_n_variants(const gsvd_geno *g)
{
    return g->ve - g->vs;
}

uint64_t gsvd_geno_n_array_variants(const gsvd_geno *g)
{
    return g->n_all_variants;
}

const char *gsvd_geno_array_path(const gsvd_geno *g)
{
    return g->arr_path;
}

int gsvd_geno_is_float(const gsvd_geno *g)
{
    return g->is_float;
}

size_t gsvd_geno_ploidy(const gsvd_geno *g)
{
    return g->ploidy;
}

enum gsvd_scaler gsvd_geno_scaler(const gsvd_geno *g)
{
    return g->p.scaler;
}

size_t gsvd_geno_haplotypes(const gsvd_geno *g)
{
    return g->haps;
}

const struct gsvd_strlist *gsvd_geno_call_ids(const gsvd_geno *g)
{
    return g->haps ? &g->call_ids : &g->ids;
}

const struct gsvd_strlist *gsvd_geno_sample_ids(const gsvd_geno *g)
{
    return &g->ids;
}

const char *gsvd_geno_array_name(const gsvd_geno *g)
{
    return gsvd_array_name(g->arr);
}

const struct gsvd_geno_counts *gsvd_geno_counts(const gsvd_geno *g)
{
    return &g->counts;
}

void gsvd_geno_close(gsvd_geno *g)
{
    if (!g)
        return;
    gsvd_array_close(g->arr);
    gsvd_free(g->arr_path);
    gsvd_free(g->sample_idx);
    gsvd_free(g->sample_pick);
    gsvd_free(g->col_bits);
    gsvd_strlist_free(&g->ids);
    gsvd_gcache_free(g->cache);
    gsvd_gcache_free(g->pre);
    gsvd_gcache_free(g->post);
    gsvd_array_close(g->phased);
    gsvd_strlist_free(&g->call_ids);
    gsvd_free(g);
}

/* Haplotypes: check the calls can give them and open the phase array beside them
 * (call_genotype_phased, variants x samples), unless the phase is to be ignored. */
static int open_haplotypes(gsvd_geno *g)
{
    const struct gsvd_zarray *z = gsvd_array_meta(g->arr), *zp;
    char *dir = NULL, *path = NULL, *slash;
    int rc = GSVD_OK, kind;

    if (g->rank != 3 || g->is_float) {
        gsvd_log_error("%s: haplotypes need 3-D integer calls (variants x samples x ploidy, "
                       "VCF-Zarr's call_genotype); this array holds dosages",
                       gsvd_array_name(g->arr));
        return GSVD_EUNSUPPORTED;
    }
    g->haps = g->ploidy;
    g->ploidy = 1;
    if (g->p.ignore_phase)
        return GSVD_OK;
    GSVD_TRY(gsvd_key_join(g->arr_path, "", &dir));
    slash = strrchr(dir, '/');
    *(slash ? slash : dir) = '\0';
    GSVD_TRY(gsvd_key_join(dir, "call_genotype_phased", &path));
    kind = gsvd_tree_node_kind(g->tree, path);
    if (kind != GSVD_NODE_ARRAY) {
        gsvd_log_error("%s: no call_genotype_phased beside the calls, so their phase is unknown; "
                       "--ignore-phase takes each call's alleles in their stored order",
                       gsvd_array_name(g->arr));
        rc = kind < 0 && kind != GSVD_ENOTFOUND ? kind : GSVD_ENOTFOUND;
        goto out;
    }
    GSVD_TRY(gsvd_array_open(g->tree, path, &g->phased));
    zp = gsvd_array_meta(g->phased);
    if (zp->ndim != 2 || zp->shape[0] != z->shape[0] || zp->shape[1] != z->shape[1] ||
        (zp->dtype.kind != 'b' && zp->dtype.kind != 'i' && zp->dtype.kind != 'u')) {
        gsvd_log_error("%s: not a bool array of %llu variants x %llu samples beside the calls",
                       gsvd_array_name(g->phased), (unsigned long long)z->shape[0],
                       (unsigned long long)z->shape[1]);
        rc = GSVD_EINCONSIST;
        goto out;
    }
out:
    gsvd_free(dir);
    gsvd_free(path);
    return rc;
}

/* Haplotypes: each analysed sample becomes g->haps columns named ID_0, ID_1, ... */
static int split_samples(gsvd_geno *g)
{
    int rc = GSVD_OK;

    g->call_ids = g->ids;
    g->ids = (struct gsvd_strlist)GSVD_STRLIST_INIT;
    for (size_t i = 0; i < g->call_ids.n && rc == GSVD_OK; i++)
        for (size_t h = 0; h < g->haps && rc == GSVD_OK; h++) {
            char *id = gsvd_asprintf("%s_%zu", g->call_ids.items[i], h);
            rc = id ? gsvd_strlist_push(&g->ids, id) : GSVD_ENOMEM;
            gsvd_free(id);
        }
    g->n_samples = g->ids.n;
    return rc;
}

/* Path of the genotype array: explicit, the node itself, or auto-detected in a group. */
static int find_array(gsvd_tree *t, const char *node, const char *array, char **out)
{
    static const char *const candidates[] = {"call_genotype", "calldata/GT"};
    int rc = GSVD_OK, kind;
    char *path = NULL;

    *out = NULL;
    if (array)
        return gsvd_key_join(node, array, out);
    kind = gsvd_tree_node_kind(t, node);
    if (kind < 0)
        return kind;
    if (kind == GSVD_NODE_ARRAY)
        return gsvd_key_join(node, "", out);
    for (size_t i = 0; i < GSVD_ARRAY_LEN(candidates); i++) {
        gsvd_free(path);
        path = NULL;
        GSVD_TRY(gsvd_key_join(node, candidates[i], &path));
        kind = gsvd_tree_node_kind(t, path);
        if (kind < 0) {
            rc = kind;
            goto out;
        }
        if (kind == GSVD_NODE_ARRAY) {
            *out = path;
            path = NULL;
            goto out;
        }
    }
    gsvd_log_error("%s/%s: no genotype array (looked for call_genotype and calldata/GT); name "
                   "one with --array",
                   gsvd_store_url(gsvd_tree_store(t)), node);
    rc = GSVD_ENOTFOUND;
out:
    gsvd_free(path);
    return rc;
}

/* A bool array is never a genotype matrix (VCF Zarr's call_genotype_mask, for one, marks
 * missing calls): GSVD_EUNSUPPORTED, logged with the genotype array beside a "_mask" one when
 * the store has it. */
static int refuse_bool(gsvd_tree *t, const gsvd_geno *g)
{
    const char *path = g->arr_path;
    size_t n = strlen(path), tail = strlen("_mask");
    char *bare = NULL;

    if (n > tail && strcmp(path + n - tail, "_mask") == 0)
        bare = gsvd_strndup(path, n - tail);
    if (bare && gsvd_tree_node_kind(t, bare) == GSVD_NODE_ARRAY)
        gsvd_log_error("%s: a bool array (a mask), not genotypes; the genotypes are probably "
                       "%s (--array %s)",
                       gsvd_array_name(g->arr), bare,
                       strrchr(bare, '/') ? strrchr(bare, '/') + 1 : bare);
    else
        gsvd_log_error("%s: a bool array, not genotypes: give integer calls (variants x "
                       "samples x ploidy) or a numeric dosage matrix (0/1 values stored as "
                       "uint8 will do)",
                       gsvd_array_name(g->arr));
    gsvd_free(bare);
    return GSVD_EUNSUPPORTED;
}

int gsvd_geno_open(gsvd_tree *t, const char *path, const struct gsvd_geno_params *p,
                   gsvd_geno **out)
{
    int rc = GSVD_OK;
    gsvd_geno *g = gsvd_calloc(1, sizeof *g);
    struct gsvd_strlist all = GSVD_STRLIST_INIT;
    const struct gsvd_zarray *z;

    *out = NULL;
    if (!g)
        return GSVD_ENOMEM;
    g->tree = t;
    g->p = *p;
    g->p.samples = NULL;
    g->cache_state = p->cache_bytes ? 0 : -1;
    GSVD_TRY(find_array(t, path, p->array, &g->arr_path));
    GSVD_TRY(gsvd_array_open(t, g->arr_path, &g->arr));
    z = gsvd_array_meta(g->arr);
    if (z->dtype.kind == 'b') {
        rc = refuse_bool(t, g);
        goto out;
    }
    if (z->dtype.kind != 'i' && z->dtype.kind != 'u' && z->dtype.kind != 'f') {
        gsvd_log_error("%s: dtype is not numeric; genotypes must be integers or floats",
                       gsvd_array_name(g->arr));
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    g->is_float = z->dtype.kind == 'f';
    if (z->ndim == 3 && !g->is_float && !p->transpose) {
        g->rank = 3;
        g->ploidy = (size_t)z->shape[2];
        if (g->ploidy == 0 || g->ploidy > 100) {
            gsvd_log_error("%s: ploidy axis of length %zu", gsvd_array_name(g->arr), g->ploidy);
            rc = GSVD_EUNSUPPORTED;
            goto out;
        }
        g->n_all_variants = z->shape[0];
        g->n_all_samples = z->shape[1];
        g->cv = z->chunks[0];
    } else if (z->ndim == 2) {
        g->rank = 2;
        g->ploidy = p->ploidy ? p->ploidy : 2;
        g->n_all_variants = z->shape[p->transpose ? 1 : 0];
        g->n_all_samples = z->shape[p->transpose ? 0 : 1];
        g->cv = z->chunks[p->transpose ? 1 : 0];
    } else {
        gsvd_log_error("%s: a genotype array must be 3-D integer calls (variants x samples x "
                       "ploidy) or a 2-D dosage matrix; this one has %zu dimensions",
                       gsvd_array_name(g->arr), z->ndim);
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    if (p->hwe > 0 && (g->is_float || g->ploidy != 2 || p->haplotypes)) {
        gsvd_log_error("%s: the Hardy-Weinberg test (--hwe) needs diploid integer calls; this "
                       "array holds %s",
                       gsvd_array_name(g->arr),
                       g->is_float ? "real-valued dosages" : "calls of another ploidy");
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    if (p->hwe_test && p->hwe_test_len != g->n_all_variants) {
        gsvd_log_error("internal error: the Hardy-Weinberg test's contig mask has %llu entries "
                       "for %llu variants",
                       (unsigned long long)p->hwe_test_len, (unsigned long long)g->n_all_variants);
        rc = GSVD_EINTERNAL;
        goto out;
    }
    if (g->n_all_samples > GSVD_GENO_MAX_SAMPLES) {
        /* before anything is sized by it: sample names alone would take ~16 bytes each */
        gsvd_log_error("%s: %llu samples, more than gensvd accepts (%llu); a corrupt or hostile "
                       ".zarray shape?",
                       gsvd_array_name(g->arr), (unsigned long long)g->n_all_samples,
                       (unsigned long long)GSVD_GENO_MAX_SAMPLES);
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    if (p->haplotypes)
        GSVD_TRY(open_haplotypes(g));
    g->vs = p->var_start;
    g->ve = p->var_stop ? p->var_stop : g->n_all_variants;
    /* an array without variants is allowed (every scan is then empty); an empty range the
     * user asked for is not */
    if ((g->vs >= g->ve && !(g->n_all_variants == 0 && !p->var_stop)) ||
        g->ve > g->n_all_variants) {
        gsvd_log_error("%s: variant range %llu:%llu is empty or outside 0:%llu",
                       gsvd_array_name(g->arr), (unsigned long long)g->vs,
                       (unsigned long long)g->ve, (unsigned long long)g->n_all_variants);
        rc = GSVD_EINVAL;
        goto out;
    }
    g->open_vs = g->vs;
    g->open_ve = g->ve;
    if (p->variant_mask && p->variant_mask_len != g->n_all_variants) {
        gsvd_log_error("variant mask has %llu entries, %s has %llu variants",
                       (unsigned long long)p->variant_mask_len, gsvd_array_name(g->arr),
                       (unsigned long long)g->n_all_variants);
        rc = GSVD_EINCONSIST;
        goto out;
    }
    GSVD_TRY(gsvd_geno_load_sample_ids(g, &all));
    GSVD_TRY(gsvd_geno_pick_samples(g, p, &all));
    if (g->n_samples == 0) {
        gsvd_log_error("%s: no samples to analyse", gsvd_array_name(g->arr));
        rc = GSVD_EDEGENERATE;
        goto out;
    }
    if (g->haps)
        GSVD_TRY(split_samples(g));
    *out = g;
    g = NULL;
out:
    gsvd_strlist_free(&all);
    gsvd_geno_close(g);
    return rc;
}

/* ---- scanning ------------------------------------------------------------------------------ */

void gsvd_geno_range(const gsvd_geno *g, uint64_t *start, uint64_t *stop)
{
    *start = g->vs;
    *stop = g->ve;
}

int gsvd_geno_restrict(gsvd_geno *g, uint64_t start, uint64_t stop)
{
    if (g->cache_state == 1 || g->cache || start < g->vs || stop > g->ve || start > stop) {
        gsvd_log_error("internal error: variant range %llu:%llu is not inside %llu:%llu, or a scan "
                       "already ran",
                       (unsigned long long)start, (unsigned long long)stop,
                       (unsigned long long)g->vs, (unsigned long long)g->ve);
        return GSVD_EINTERNAL;
    }
    g->vs = start;
    g->ve = stop;
    return GSVD_OK;
}

int gsvd_geno_zbound(const gsvd_geno *g, uint64_t rows, struct gsvd_zbound *out)
{
    /* Integer dosages 0..D (D = ploidy) of n <= N called samples.  A kept row is not constant
     * (or, for Patterson and HWE, has 0 < p < 1 with p = S / (D n), S an integer), so
     * p (1 - p) >= 1 / (2 D N) and the variance of the called dosages is >= 1 / (2 N); it is at
     * most D^2 p (1 - p) (Bhatia-Davis).  Hence per scaler |z| <= D / sigma_min and
     * sum z^2 <= N var_max / sigma^2, and a missing call standardises to 0 (none: the mean). */
    double D = (double)g->ploidy, N = (double)g->n_samples, max_abs, row;

    if (g->is_float)
        return GSVD_EUNSUPPORTED;
    switch (g->p.scaler) {
    case GSVD_SCALER_PATTERSON:
        max_abs = D * sqrt(2.0 * D * N);
        row = N * D * D;
        break;
    case GSVD_SCALER_HWE:
        max_abs = D * sqrt(2.0 * N);
        row = N * D;
        break;
    case GSVD_SCALER_STANDARD:
        max_abs = D * sqrt(2.0 * N);
        row = N;
        break;
    default:
        max_abs = D;
        row = N * D * D;
        break;
    }
    /* float32 centre, scale and products: a relative margin far above their rounding */
    out->max_abs = max_abs * (1 + 1e-5);
    out->row_sumsq = row * (1 + 1e-5);
    out->rows = rows;
    out->max_dosage = (unsigned)g->ploidy;
    return GSVD_OK;
}
