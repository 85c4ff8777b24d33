/* analysis/pdist/king_parts.c - see king_parts.h. */
#include "gsvd_config.h"
#include "analysis/pdist/king_parts.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/pdist/king_pairs.h"
#include "analysis/pdist/pdist_parts.h"
#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/array.h"
#include "zarr/reader.h"
#include "zarr/store.h"
#include "zarr/tree.h"

enum { NCOL = 8, PIECE = 1 << 16 };

/* The pair arrays in king_pairs.c's order, with their dtypes. */
static const char *const cols[NCOL] = {"pair_i", "pair_j", "kinship",   "n_sites",
                                       "hethet", "ibs0",   "het1_hom2", "het2_hom1"};
static const struct gsvd_dtype col_dtype[NCOL] = {{'i', '<', 8}, {'i', '<', 8}, {'f', '<', 8},
                                                  {'u', '<', 4}, {'u', '<', 4}, {'u', '<', 4},
                                                  {'u', '<', 4}, {'u', '<', 4}};

/* One band of one part. */
struct band {
    int64_t row0, rows, first, count;
    size_t part;
};

/* One open part. */
struct part {
    size_t k;  /* 1..N; 0: none open */
    char *url; /* its path */
    gsvd_store *st;
    gsvd_tree *t;
    gsvd_array *a[NCOL];
    gsvd_reader *r[NCOL];
    uint64_t n_pairs;
};

static void part_close(struct part *p)
{
    for (int q = 0; q < NCOL; q++) {
        gsvd_reader_free(p->r[q]);
        gsvd_array_close(p->a[q]);
    }
    gsvd_tree_close(p->t);
    gsvd_store_close(p->st);
    gsvd_free(p->url);
    memset(p, 0, sizeof *p);
}

/* Open part k of n and its pair arrays (1-D, the dtypes above, one length). */
static int part_open(const char *out, size_t k, size_t n, struct part *p)
{
    char *dir = gsvd_pdist_parts_dir(out);
    int rc = GSVD_OK;

    part_close(p);
    p->url = dir ? gsvd_asprintf("%s/part-%zu-of-%zu.zarr", dir, k, n) : NULL;
    gsvd_free(dir);
    if (!p->url)
        return GSVD_ENOMEM;
    p->k = k;
    GSVD_TRY(gsvd_store_open(p->url, 0, &p->st));
    GSVD_TRY(gsvd_tree_open(p->st, &p->t));
    for (int q = 0; q < NCOL; q++) {
        const struct gsvd_zarray *z;
        GSVD_TRY(gsvd_array_open_numeric(p->t, "", cols[q], 1, "a pair-list part", &p->a[q]));
        z = gsvd_array_meta(p->a[q]);
        if (z->dtype.kind != col_dtype[q].kind || z->dtype.size != col_dtype[q].size ||
            (q > 0 && z->shape[0] != p->n_pairs)) {
            gsvd_log_error("%s: %s is not a pair array of this part (dtype %c%zu, %llu pairs)",
                           p->url, cols[q], z->dtype.kind, z->dtype.size,
                           (unsigned long long)z->shape[0]);
            rc = GSVD_EFORMAT;
            goto out;
        }
        p->n_pairs = z->shape[0];
        GSVD_TRY(gsvd_reader_new(p->a[q], &p->r[q]));
        gsvd_reader_set_read_ahead(p->r[q], 0); /* the columns' reads interleave */
    }
out:
    return rc;
}

/* The part's root attributes without the count (the king_pairs.c tail ",\n    "n_pairs":
 * K\n}" becomes "\n}") into *base. */
static int part_attrs(struct part *p, struct gsvd_buf *base)
{
    static const char tail[] = ",\n    \"n_pairs\": ";
    char *at;
    int rc;

    base->len = 0;
    rc = gsvd_tree_get_meta(p->t, ".zattrs", base);
    if (rc == GSVD_OK)
        rc = gsvd_buf_append(base, "", 1); /* NUL-terminate */
    if (rc < 0) {
        if (rc == GSVD_ENOTFOUND)
            gsvd_log_error("%s: no attributes: not a part of `pdist --min-kinship`", p->url);
        return rc == GSVD_ENOTFOUND ? GSVD_EFORMAT : rc;
    }
    base->len--;
    at = strstr(base->data, tail);
    if (!at || strstr(at + 1, tail)) {
        gsvd_log_error("%s: its attributes have no pair count: not a part of `pdist "
                       "--min-kinship`",
                       p->url);
        return GSVD_EFORMAT;
    }
    memcpy(at, "\n}", 3);
    base->len = (size_t)(at - base->data) + 2;
    return GSVD_OK;
}

/* sample_id of the part. */
static int part_ids(struct part *p, struct gsvd_strlist *ids)
{
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    int rc = gsvd_array_open(p->t, "sample_id", &a);
    if (rc == GSVD_OK && gsvd_array_meta(a)->ndim != 1) {
        gsvd_log_error("%s: sample_id is not 1-D", p->url);
        rc = GSVD_EFORMAT;
    }
    if (rc == GSVD_OK)
        rc = gsvd_reader_new(a, &r);
    if (rc == GSVD_OK)
        rc = gsvd_reader_read_strings(r, 0, gsvd_array_meta(a)->shape[0], ids);
    gsvd_reader_free(r);
    gsvd_array_close(a);
    return rc;
}

/* Append the part's band table to *bands (grown), each band inside its pair arrays. */
static int part_bands(struct part *p, struct band **bands, size_t *nb, size_t *cap)
{
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    int64_t *t = NULL;
    uint64_t rows = 0, next = 0;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_array_open_numeric(p->t, "", "part_bands", 2, "a pair-list part", &a));
    {
        const struct gsvd_zarray *z = gsvd_array_meta(a);
        rows = z->shape[0];
        if (z->dtype.kind != 'i' || z->dtype.size != 8 || z->shape[1] != 4 || rows > (1u << 30)) {
            gsvd_log_error("%s: part_bands is not an int64 table of 4 columns", p->url);
            rc = GSVD_EFORMAT;
            goto out;
        }
    }
    if (!(t = gsvd_malloc((size_t)(rows ? rows : 1) * 4 * sizeof *t))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_reader_new(a, &r));
    if (rows)
        GSVD_TRY(gsvd_reader_read_rows(r, 0, rows, t));
    for (uint64_t b = 0; b < rows; b++) {
        const int64_t *e = t + 4 * b;
        if (e[0] < 0 || e[1] < 1 || e[2] != (int64_t)next || e[3] < 0 ||
            (uint64_t)e[3] > p->n_pairs - next) {
            gsvd_log_error("%s: part_bands row %llu (%lld %lld %lld %lld) does not follow the "
                           "part's pairs",
                           p->url, (unsigned long long)b, (long long)e[0], (long long)e[1],
                           (long long)e[2], (long long)e[3]);
            rc = GSVD_EFORMAT;
            goto out;
        }
        next += (uint64_t)e[3];
        GSVD_TRY(gsvd_grow(bands, cap, *nb + 1, sizeof **bands, 64));
        (*bands)[(*nb)++] = (struct band){e[0], e[1], e[2], e[3], p->k};
    }
    if (next != p->n_pairs) {
        gsvd_log_error("%s: its bands hold %llu pairs, its arrays %llu", p->url,
                       (unsigned long long)next, (unsigned long long)p->n_pairs);
        rc = GSVD_EFORMAT;
    }
out:
    gsvd_reader_free(r);
    gsvd_array_close(a);
    gsvd_free(t);
    return rc;
}

static int cmp_band(const void *x, const void *y)
{
    const struct band *a = x, *b = y;
    return a->row0 < b->row0 ? -1 : a->row0 > b->row0;
}

/* The bands, sorted, cover rows [0, n) once each. */
static int check_cover(const char *out, struct band *bands, size_t nb, size_t n)
{
    int64_t row = 0;
    qsort(bands, nb, sizeof *bands, cmp_band);
    for (size_t b = 0; b <= nb; b++) {
        int64_t at = b < nb ? bands[b].row0 : (int64_t)n;
        if (at > row) {
            gsvd_log_error("%s: rows %lld..%lld are in no part's bands (a part of another run, "
                           "or a damaged one)",
                           out, (long long)row, (long long)at - 1);
            return GSVD_EINCONSIST;
        }
        if (at < row || (b < nb && bands[b].rows > (int64_t)n - at)) {
            gsvd_log_error("%s: row %lld is in two parts' bands (part %zu and an earlier one)", out,
                           (long long)at, b < nb ? bands[b].part : (size_t)0);
            return GSVD_EINCONSIST;
        }
        if (b < nb)
            row = at + bands[b].rows;
    }
    return GSVD_OK;
}

/* Every part's attributes (command aside) and sample IDs equal part 1's; the bands of all. */
static int gather(const char *out, size_t n_parts, struct gsvd_buf *attrs, struct gsvd_strlist *ids,
                  struct band **bands, size_t *nb)
{
    struct part p = {0};
    struct gsvd_buf a = GSVD_BUF_INIT, first = GSVD_BUF_INIT;
    struct gsvd_strlist other = GSVD_STRLIST_INIT;
    size_t cap = 0;
    int rc = GSVD_OK;

    for (size_t k = 1; k <= n_parts; k++) {
        GSVD_TRY(part_open(out, k, n_parts, &p));
        GSVD_TRY(part_attrs(&p, k == 1 ? attrs : &a));
        GSVD_TRY(part_ids(&p, k == 1 ? ids : &other));
        GSVD_TRY(part_bands(&p, bands, nb, &cap));
        if (k == 1) {
            GSVD_TRY(gsvd_buf_append(&first, attrs->data, attrs->len + 1));
            first.len--;
            gsvd_pdist_parts_drop_command(&first);
            continue;
        }
        gsvd_pdist_parts_drop_command(&a);
        int same =
            a.len == first.len && memcmp(a.data, first.data, a.len) == 0 && other.n == ids->n;
        for (size_t i = 0; same && i < ids->n; i++)
            same = strcmp(other.items[i], ids->items[i]) == 0;
        if (!same) {
            gsvd_log_error("%s: part %zu's samples or attributes differ from part 1's (parts "
                           "must come from the same input and options)",
                           out, k);
            rc = GSVD_EINCONSIST;
            goto out;
        }
        gsvd_strlist_free(&other);
    }
out:
    part_close(&p);
    gsvd_buf_free(&a);
    gsvd_buf_free(&first);
    gsvd_strlist_free(&other);
    return rc;
}

/* Pairs [b->first, + b->count) of the open part into kp, checked against the band's rows. */
static int copy_band(struct part *p, const struct band *b, size_t n, gsvd_king_pairs *kp,
                     void *const col[NCOL])
{
    int64_t pi = -1, pj = -1;
    for (int64_t at = 0; at < b->count; at += PIECE) {
        uint64_t start = (uint64_t)(b->first + at),
                 cnt = (uint64_t)(b->count - at < PIECE ? b->count - at : PIECE);
        int rc;
        for (int q = 0; q < NCOL; q++)
            if ((rc = gsvd_reader_read(p->r[q], &start, &cnt, col[q])) < 0)
                return rc;
        for (uint64_t e = 0; e < cnt; e++) {
            const int64_t i = ((int64_t *)col[0])[e], j = ((int64_t *)col[1])[e];
            const uint32_t *u[5] = {col[3], col[4], col[5], col[6], col[7]};
            if (i < b->row0 || i >= b->row0 + b->rows || j <= i || j >= (int64_t)n || i < pi ||
                (i == pi && j <= pj)) {
                gsvd_log_error("%s: pair %llu (%lld, %lld) is outside its band (rows %lld..%lld) "
                               "or out of order",
                               p->url, (unsigned long long)(start + e), (long long)i, (long long)j,
                               (long long)b->row0, (long long)(b->row0 + b->rows - 1));
                return GSVD_EFORMAT;
            }
            pi = i;
            pj = j;
            struct gsvd_king_pair x = {.i = (uint32_t)i,
                                       .j = (uint32_t)j,
                                       .n = u[0][e],
                                       .hethet = u[1][e],
                                       .ibs0 = u[2][e],
                                       .het1_hom2 = u[3][e],
                                       .het2_hom1 = u[4][e],
                                       .kinship = ((double *)col[2])[e]};
            if ((rc = gsvd_king_pairs_put(kp, &x)) < 0)
                return rc;
        }
    }
    return GSVD_OK;
}

int gsvd_king_parts_finalize(const char *out, int force)
{
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    struct gsvd_strlist ids = GSVD_STRLIST_INIT;
    struct band *bands = NULL;
    struct part p = {0};
    gsvd_king_pairs *kp = NULL;
    void *col[NCOL] = {0};
    size_t n_parts = 0, nb = 0;
    struct stat sb;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_pdist_parts_find(out, &n_parts));
    if (lstat(out, &sb) == 0 && !force) {
        gsvd_log_error("%s: output exists (remove it, or overwrite it with --force)", out);
        rc = GSVD_EIO;
        goto out;
    }
    GSVD_TRY(gather(out, n_parts, &attrs, &ids, &bands, &nb));
    GSVD_TRY(check_cover(out, bands, nb, ids.n));
    for (int q = 0; q < NCOL; q++)
        if (!(col[q] = gsvd_malloc(PIECE * sizeof(double)))) {
            rc = GSVD_ENOMEM;
            goto out;
        }
    {
        struct gsvd_king_pairs_cfg cfg = {.output = out,
                                          .force = force,
                                          .ids = &ids,
                                          .n = ids.n,
                                          .wp = GSVD_WRITER_PARAMS_DEFAULT};
        GSVD_TRY(gsvd_king_pairs_open(&cfg, &kp));
    }
    for (size_t b = 0; b < nb; b++) {
        if (p.k != bands[b].part)
            GSVD_TRY(part_open(out, bands[b].part, n_parts, &p));
        GSVD_TRY(copy_band(&p, &bands[b], ids.n, kp, col));
    }
    part_close(&p);
    GSVD_TRY(gsvd_king_pairs_finish(kp, attrs.data));
    gsvd_log_info("%s: %zu parts finalized, %llu pairs", out, n_parts,
                  (unsigned long long)gsvd_king_pairs_count(kp));
    GSVD_TRY(gsvd_pdist_parts_discard(out));
out:
    part_close(&p);
    gsvd_king_pairs_close(kp);
    for (int q = 0; q < NCOL; q++)
        gsvd_free(col[q]);
    gsvd_free(bands);
    gsvd_strlist_free(&ids);
    gsvd_buf_free(&attrs);
    return rc;
}
