/* analysis/scan/var_list.c - variants chosen by a file of IDs or ranges (var_list.h). */
#include "gsvd_config.h"
#include "analysis/scan/var_list.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/scan/chr_select.h"
#include "analysis/scan/mask.h"
#include "analysis/scan/variant_ids.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/store.h"

/* The largest START or END taken: far above any contig, far below int64's overflow. */
#define MAX_POS (INT64_C(1) << 62)

void gsvd_var_list_free(struct gsvd_var_list *l)
{
    if (!l)
        return;
    gsvd_free(l->file);
    gsvd_strlist_free(&l->ids);
    gsvd_strlist_free(&l->contigs);
    gsvd_free(l->range);
    memset(l, 0, sizeof *l);
}

static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every word of text as an ID, sorted, each once. */
static int parse_ids(const char *text, size_t len, struct gsvd_strlist *ids)
{
    size_t i = 0, kept = 0;
    while (i < len) {
        size_t j;
        while (i < len && blank(text[i]))
            i++;
        for (j = i; j < len && !blank(text[j]); j++)
            ;
        if (j > i && gsvd_strlist_pushn(ids, text + i, j - i) < 0)
            return GSVD_ENOMEM;
        i = j;
    }
    gsvd_strlist_sort(ids);
    for (size_t k = 0; k < ids->n; k++) {
        if (kept && strcmp(ids->items[kept - 1], ids->items[k]) == 0) {
            gsvd_free(ids->items[k]);
            continue;
        }
        ids->items[kept++] = ids->items[k];
    }
    ids->n = kept;
    return GSVD_OK;
}

/* The whole number w[0 .. n) into *v; -1 if it is not digits or is above MAX_POS. */
static int whole(const char *w, size_t n, int64_t *v)
{
    int64_t x = 0;
    if (n == 0 || n > 19)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (w[i] < '0' || w[i] > '9')
            return -1;
        if (x > (MAX_POS - (w[i] - '0')) / 10)
            return -1;
        x = x * 10 + (w[i] - '0');
    }
    *v = x;
    return 0;
}

/* The index of contig w[0 .. n) in l->contigs, added if new. */
static int contig_of(struct gsvd_var_list *l, const char *w, size_t n, size_t *at)
{
    for (size_t k = l->contigs.n; k-- > 0;) { /* the last first: a file lists a contig together */
        if (strlen(l->contigs.items[k]) == n && memcmp(l->contigs.items[k], w, n) == 0) {
            *at = k;
            return GSVD_OK;
        }
    }
    *at = l->contigs.n;
    return gsvd_strlist_pushn(&l->contigs, w, n) < 0 ? GSVD_ENOMEM : GSVD_OK;
}

/* One line of a range file, line[0 .. n), numbered `no`. */
static int parse_range_line(struct gsvd_var_list *l, const char *line, size_t n, size_t no)
{
    const char *w[3];
    size_t wn[3], k = 0, i = 0;
    int64_t start = 0, end = 0;

    while (k < 3) {
        size_t j;
        while (i < n && blank(line[i]))
            i++;
        for (j = i; j < n && !blank(line[j]); j++)
            ;
        if (j == i)
            break;
        w[k] = line + i;
        wn[k++] = j - i;
        i = j;
    }
    if (k == 0 || w[0][0] == '#' || (wn[0] == 5 && memcmp(w[0], "track", 5) == 0) ||
        (wn[0] == 7 && memcmp(w[0], "browser", 7) == 0))
        return GSVD_OK;
    if (k < 3) {
        gsvd_log_error("%s: line %zu: expected CONTIG START END, found %zu column%s", l->file, no,
                       k, k == 1 ? "" : "s");
        return GSVD_EFORMAT;
    }
    for (int e = 1; e <= 2; e++) {
        if (whole(w[e], wn[e], e == 1 ? &start : &end) < 0) {
            gsvd_log_error("%s: line %zu: %s '%.*s' is not a whole number from 0 to 2^62", l->file,
                           no, e == 1 ? "START" : "END", (int)(wn[e] > 40 ? 40 : wn[e]), w[e]);
            return GSVD_EFORMAT;
        }
    }
    if (l->kind == GSVD_VAR_LIST_BED0 ? end <= start : end < start) {
        gsvd_log_error("%s: line %zu: END %lld is %s START %lld (%s)", l->file, no, (long long)end,
                       l->kind == GSVD_VAR_LIST_BED0 ? "not after" : "before", (long long)start,
                       l->kind == GSVD_VAR_LIST_BED0 ? "BED ranges are 0-based and half-open"
                                                     : "ranges are 1-based and closed");
        return GSVD_EFORMAT;
    }
    if (gsvd_grow(&l->range, &l->cap_range, l->n_range + 1, sizeof *l->range, 64) < 0)
        return GSVD_ENOMEM;
    struct gsvd_var_range *r = &l->range[l->n_range];
    int rc = contig_of(l, w[0], wn[0], &r->contig);
    if (rc < 0)
        return rc;
    r->lo = l->kind == GSVD_VAR_LIST_BED0 ? start + 1 : start;
    r->hi = end;
    l->n_range++;
    return GSVD_OK;
}

int gsvd_var_list_parse(const char *text, size_t len, enum gsvd_var_list_kind kind, int exclude,
                        const char *file, struct gsvd_var_list *out)
{
    const char *nul = memchr(text, '\0', len);
    int rc = GSVD_OK;

    memset(out, 0, sizeof *out);
    out->kind = kind;
    out->exclude = exclude;
    if (!(out->file = gsvd_strdup(file)))
        return GSVD_ENOMEM;
    if (nul) {
        gsvd_log_error("%s: a NUL byte at offset %zu: not a text file", file, (size_t)(nul - text));
        rc = GSVD_EFORMAT;
        goto out;
    }
    if (kind == GSVD_VAR_LIST_IDS) {
        rc = parse_ids(text, len, &out->ids);
        goto out;
    }
    for (size_t i = 0, no = 1; i < len && rc == GSVD_OK; no++) {
        const char *eol = memchr(text + i, '\n', len - i);
        size_t n = eol ? (size_t)(eol - (text + i)) : len - i;
        rc = parse_range_line(out, text + i, n, no);
        i += n + 1;
    }
out:
    if (rc < 0)
        gsvd_var_list_free(out);
    return rc;
}

int gsvd_var_list_read(const char *path, enum gsvd_var_list_kind kind, int exclude,
                       struct gsvd_var_list *out)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    int rc;

    memset(out, 0, sizeof *out);
    rc = gsvd_buf_read_file(&b, path);
    if (rc == GSVD_OK)
        rc = gsvd_var_list_parse(b.data ? (const char *)b.data : "", b.len, kind, exclude,
                                 strcmp(path, "-") ? path : "standard input", out);
    gsvd_buf_free(&b);
    return rc;
}

/* ---- IDs ----------------------------------------------------------------------------------- */

/* variant_id of group `node` as strings (every variant). */
static int read_ids(gsvd_tree *t, const char *node, const char *file, struct gsvd_strlist *names)
{
    char *path = NULL;
    int rc = GSVD_OK, kind;

    GSVD_TRY(gsvd_key_join(node, "variant_id", &path));
    if ((kind = gsvd_tree_node_kind(t, path)) < 0) {
        rc = kind;
        goto out;
    }
    if (kind != GSVD_NODE_ARRAY) {
        gsvd_log_error("%s: no array '%s': %s lists variant IDs, which VCF-Zarr keeps there",
                       gsvd_store_url(gsvd_tree_store(t)), path, file);
        rc = GSVD_ENOTFOUND;
        goto out;
    }
    rc = gsvd_variant_ids_read_strings(t, path, "the variants' IDs", names);
out:
    gsvd_free(path);
    return rc;
}

/* keep[v] = whether variant v's ID is listed; *n_used the listed IDs that name a variant. */
static int mark_ids(gsvd_tree *t, const char *node, const struct gsvd_var_list *l,
                    struct gsvd_autosomes *out, size_t *n_used)
{
    struct gsvd_strlist names = GSVD_STRLIST_INIT;
    uint8_t *used = NULL;
    int rc = GSVD_OK;

    *n_used = 0;
    GSVD_TRY(read_ids(t, node, l->file, &names));
    if (!(out->keep = gsvd_malloc(names.n ? names.n : 1)) ||
        !(used = gsvd_calloc(l->ids.n ? l->ids.n : 1, 1))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    out->len = names.n;
    for (size_t v = 0; v < names.n; v++) {
        char *const *hit = l->ids.n ? bsearch(&names.items[v], l->ids.items, l->ids.n,
                                              sizeof *l->ids.items, cmp_str)
                                    : NULL;
        out->keep[v] = hit != NULL;
        if (hit && !used[hit - l->ids.items]) {
            used[hit - l->ids.items] = 1;
            (*n_used)++;
        }
    }
out:
    gsvd_strlist_free(&names);
    gsvd_free(used);
    return rc;
}

/* ---- ranges -------------------------------------------------------------------------------- */

struct span {
    int64_t lo, hi;
};

static int cmp_span(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The ranges on each contig of the store, sorted and merged: contig c's are span[at[c] ..
 * at[c + 1]). */
static int spans_by_contig(const struct gsvd_var_list *l, const struct gsvd_strlist *names,
                           struct span **span, size_t **at)
{
    uint8_t *same = NULL; /* [list contig][store contig] */
    size_t *fill = NULL, total = 0, nc = names->n;
    int rc = GSVD_OK;

    *span = NULL;
    if (!(*at = gsvd_calloc(nc + 1, sizeof **at)) || !(fill = gsvd_calloc(nc + 1, sizeof *fill)) ||
        !(same = gsvd_calloc(l->contigs.n * nc + 1, 1))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t j = 0; j < l->contigs.n; j++)
        for (size_t c = 0; c < nc; c++)
            same[j * nc + c] = (uint8_t)gsvd_chr_same(l->contigs.items[j], names->items[c]);
    for (size_t r = 0; r < l->n_range; r++)
        for (size_t c = 0; c < nc; c++)
            if (same[l->range[r].contig * nc + c]) {
                (*at)[c + 1]++;
                total++;
            }
    for (size_t c = 0; c < nc; c++)
        (*at)[c + 1] += (*at)[c];
    if (!(*span = gsvd_malloc((total ? total : 1) * sizeof **span))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t r = 0; r < l->n_range; r++)
        for (size_t c = 0; c < nc; c++)
            if (same[l->range[r].contig * nc + c])
                (*span)[(*at)[c] + fill[c]++] = (struct span){l->range[r].lo, l->range[r].hi};
    for (size_t c = 0, to = 0; c < nc; c++) { /* sort and merge, packed to the front */
        size_t from = (*at)[c], stop = (*at)[c + 1];
        qsort(*span + from, stop - from, sizeof **span, cmp_span);
        (*at)[c] = to; /* from >= to: the merged spans never overtake the unmerged ones */
        for (size_t i = from; i < stop; i++) {
            struct span x = (*span)[i], *last = to > (*at)[c] ? &(*span)[to - 1] : NULL;
            if (last && x.lo <= last->hi + 1)
                last->hi = x.hi > last->hi ? x.hi : last->hi;
            else
                (*span)[to++] = x;
        }
        fill[c] = to;
    }
    for (size_t c = 0; c < nc; c++) /* each contig's end */
        (*at)[c + 1] = fill[c];
out:
    if (rc < 0) {
        gsvd_free(*span);
        gsvd_free(*at);
        *span = NULL;
        *at = NULL;
    }
    gsvd_free(same);
    gsvd_free(fill);
    return rc;
}

/* 1 if pos lies in one of the sorted, disjoint spans s[0 .. n). */
static int in_spans(const struct span *s, size_t n, int64_t pos)
{
    size_t lo = 0, hi = n; /* the first span with lo > pos */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].lo <= pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && pos <= s[lo - 1].hi;
}

/* keep[v] = whether variant v lies in a range of the list. */
static int mark_ranges(gsvd_tree *t, const char *node, const struct gsvd_var_list *l,
                       struct gsvd_autosomes *out)
{
    const char *url = gsvd_store_url(gsvd_tree_store(t));
    struct gsvd_strlist names = GSVD_STRLIST_INIT;
    struct span *span = NULL;
    size_t *at = NULL;
    int64_t *idx = NULL, *pos = NULL;
    char *path = NULL;
    uint64_t n = 0;
    int rc, kind;

    rc = gsvd_contig_index_read(t, node, &names, &idx, &n);
    if (rc == GSVD_OK && (rc = gsvd_key_join(node, "variant_position", &path)) == GSVD_OK &&
        (kind = gsvd_tree_node_kind(t, path)) != GSVD_NODE_ARRAY)
        rc = kind < 0 ? kind : GSVD_ENOTFOUND;
    if (rc == GSVD_ENOTFOUND)
        gsvd_log_error("%s: the ranges of %s need the variants' contigs and positions "
                       "(variant_contig, contig_id and variant_position, as VCF-Zarr stores them)",
                       url, l->file);
    if (rc < 0)
        goto out;
    if (!(pos = gsvd_malloc((n ? n : 1) * sizeof *pos)) || !(out->keep = gsvd_malloc(n ? n : 1))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_variant_ids_read_i64(t, path, 0, n, pos));
    GSVD_TRY(spans_by_contig(l, &names, &span, &at));
    out->len = n;
    for (uint64_t v = 0; v < n; v++) {
        size_t c = (size_t)idx[v];
        out->keep[v] = (uint8_t)in_spans(span + at[c], at[c + 1] - at[c], pos[v]);
    }
out:
    gsvd_strlist_free(&names);
    gsvd_free(idx);
    gsvd_free(pos);
    gsvd_free(path);
    gsvd_free(span);
    gsvd_free(at);
    return rc;
}

/* ---- onto the scan ------------------------------------------------------------------------- */

int gsvd_var_list_apply(gsvd_tree *t, const char *node, const struct gsvd_var_list *l,
                        struct gsvd_autosomes *out, struct gsvd_geno_params *geno)
{
    const char *url = gsvd_store_url(gsvd_tree_store(t));
    const char *how = l->kind == GSVD_VAR_LIST_IDS ? "has an ID listed in" : "lies in a range of";
    uint64_t n_range, n_left, n_chosen = 0;
    size_t n_used = 0;
    int rc;

    memset(out, 0, sizeof *out);
    rc = l->kind == GSVD_VAR_LIST_IDS ? mark_ids(t, node, l, out, &n_used)
                                      : mark_ranges(t, node, l, out);
    if (rc < 0)
        goto out;
    for (uint64_t v = 0; v < out->len; v++) {
        n_chosen += out->keep[v];
        out->keep[v] = (uint8_t)(out->keep[v] ^ (l->exclude != 0));
    }
    out->n_excluded = l->exclude ? n_chosen : out->len - n_chosen;
    if (l->kind == GSVD_VAR_LIST_IDS && l->ids.n && n_used == 0)
        gsvd_log_warn("%s: none of the %zu IDs in %s names a variant (variant_id)", url, l->ids.n,
                      l->file);
    else if (l->kind == GSVD_VAR_LIST_IDS)
        gsvd_log_info("%s: %zu of the %zu IDs in %s name variants", url, n_used, l->ids.n, l->file);
    if (l->exclude && n_chosen == 0 && !(l->kind == GSVD_VAR_LIST_IDS && l->ids.n && !n_used))
        gsvd_log_warn("%s: no variant %s %s: nothing is excluded", url, how, l->file);
    GSVD_TRY(gsvd_mask_narrow(geno, out->keep, out->len, url,
                              l->kind == GSVD_VAR_LIST_IDS ? "variant_id" : "variant_contig",
                              &n_range, &n_left));
    if (n_left == 0 && n_range > 0) {
        gsvd_log_error("%s: %s variant of the %llu used %s %s", url, l->exclude ? "every" : "no",
                       (unsigned long long)n_range, how, l->file);
        rc = GSVD_EDEGENERATE;
        goto out;
    }
    gsvd_log_info("%s: %llu of %llu variants kept by %s", url,
                  (unsigned long long)(out->len - out->n_excluded), (unsigned long long)out->len,
                  l->file);
out:
    if (rc < 0)
        gsvd_autosomes_free(out);
    return rc;
}
