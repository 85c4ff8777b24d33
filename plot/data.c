/* plot/data.c - numeric arrays as float64, sample IDs, and labels matched to samples by ID. */
#include "gsvd_config.h"

#include "plot/data.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/dtype.h"
#include "zarr/store.h"

int gsvd_plot_read_f64(gsvd_reader *r, const uint64_t *start, const uint64_t *count, double *dst,
                       struct gsvd_buf *raw)
{
    const struct gsvd_zarray *z = gsvd_array_meta(gsvd_reader_array(r));
    size_t n = 1, bytes;
    int rc = GSVD_OK;

    for (size_t d = 0; d < z->ndim; d++)
        GSVD_TRY(gsvd_mul_size(n, (size_t)count[d], &n));
    GSVD_TRY(gsvd_mul_size(n, z->dtype.size, &bytes));
    if (z->dtype.kind == 'f' && z->dtype.size == 8) /* no conversion: read in place */
        return gsvd_reader_read(r, start, count, dst);
    gsvd_buf_clear(raw);
    GSVD_TRY(gsvd_buf_reserve(raw, bytes));
    GSVD_TRY(gsvd_reader_read(r, start, count, raw->data));
    for (size_t i = 0; i < n; i++)
        dst[i] =
            gsvd_dtype_elem_f64(&z->dtype, (const unsigned char *)raw->data + i * z->dtype.size);
out:
    return rc;
}

/* Read the whole 1-D string array at `path` into out. */
static int read_strings(gsvd_tree *t, const char *path, struct gsvd_strlist *out)
{
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    const struct gsvd_zarray *z;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_array_open(t, path, &a));
    z = gsvd_array_meta(a);
    if (z->ndim != 1 || !strchr("OSU", z->dtype.kind)) {
        gsvd_log_error("%s: expected a 1-D array of strings", gsvd_array_name(a));
        rc = GSVD_EFORMAT;
        goto out;
    }
    GSVD_TRY(gsvd_reader_new(a, &r));
    GSVD_TRY(gsvd_reader_read_strings(r, 0, z->shape[0], out));
out:
    gsvd_reader_free(r);
    gsvd_array_close(a);
    return rc;
}

int gsvd_plot_read_ids(gsvd_tree *t, const char *node, struct gsvd_strlist *ids)
{
    char *path = NULL;
    int rc = GSVD_OK, kind;

    GSVD_TRY(gsvd_key_join(node, "sample_id", &path));
    kind = gsvd_tree_node_kind(t, path);
    if (kind < 0) {
        rc = kind;
        goto out;
    }
    if (kind != GSVD_NODE_ARRAY) {
        gsvd_log_error("%s: no array '%s'", gsvd_store_url(gsvd_tree_store(t)), path);
        rc = GSVD_ENOTFOUND;
        goto out;
    }
    GSVD_TRY(read_strings(t, path, ids));
out:
    gsvd_free(path);
    return rc;
}

struct keyed {
    const char *s;
    size_t i;
};

static int keyed_cmp(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    int c = strcmp(x->s, y->s);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

size_t *gsvd_plot_sort_order(char *const *items, size_t n)
{
    struct keyed *k = gsvd_calloc(n ? n : 1, sizeof *k);
    size_t *order = gsvd_calloc(n ? n : 1, sizeof *order);

    if (!k || !order) {
        gsvd_free(k);
        gsvd_free(order);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        k[i] = (struct keyed){items[i], i};
    qsort(k, n, sizeof *k, keyed_cmp);
    for (size_t i = 0; i < n; i++)
        order[i] = k[i].i;
    gsvd_free(k);
    return order;
}

long gsvd_plot_find(char *const *items, const size_t *order, size_t n, const char *s)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(items[order[mid]], s);
        if (c == 0)
            return (long)order[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

void gsvd_plot_labels_free(struct gsvd_plot_labels *l)
{
    gsvd_free(l->code);
    gsvd_free(l->count);
    gsvd_strlist_free(&l->names);
    memset(l, 0, sizeof *l);
}

/* Turn per-sample label strings (NULL or "" = none) into codes, sorted names and counts. */
static int labels_from_strings(char *const *lab, size_t n, struct gsvd_plot_labels *out)
{
    struct gsvd_strlist all = GSVD_STRLIST_INIT;
    size_t *order = NULL;
    int rc = GSVD_OK;

    out->n = n;
    if (!(out->code = gsvd_calloc(n ? n : 1, sizeof *out->code))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (lab[i] && *lab[i])
            GSVD_TRY(gsvd_strlist_push(&all, lab[i]));
    gsvd_strlist_sort(&all);
    for (size_t i = 0; i < all.n; i++)
        if (i == 0 || strcmp(all.items[i], all.items[i - 1]) != 0)
            GSVD_TRY(gsvd_strlist_push(&out->names, all.items[i]));
    if (!(out->count = gsvd_calloc(out->names.n ? out->names.n : 1, sizeof *out->count)) ||
        !(order = gsvd_plot_sort_order(out->names.items, out->names.n))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        long c =
            lab[i] && *lab[i] ? gsvd_plot_find(out->names.items, order, out->names.n, lab[i]) : -1;
        out->code[i] = (int)c;
        if (c >= 0)
            out->count[c]++;
        else
            out->n_unlabelled++;
    }
out:
    gsvd_free(order);
    gsvd_strlist_free(&all);
    return rc;
}

/* Split a line (without its newline) at tabs into cells (pointers into the line, which is
 * modified).  Returns the cell count. */
static size_t split_tabs(char *line, char **cells, size_t max)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        char *tab = strchr(p, '\t');
        if (n < max)
            cells[n] = p;
        n++;
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    return n;
}

#define MAX_COLS 64

/* Labels from a TSV file with a header row (see data.h). */
static int labels_from_tsv(const char *path, const char *column, const struct gsvd_strlist *ids,
                           struct gsvd_plot_labels *out)
{
    struct gsvd_buf text = GSVD_BUF_INIT;
    struct gsvd_strlist lines = GSVD_STRLIST_INIT;
    char **lab = NULL, *cells[MAX_COLS], *header[MAX_COLS];
    size_t *order = NULL, n_cols, id_col = 0, lab_col, best = 0, hits[MAX_COLS] = {0};
    FILE *fp = fopen(path, "rb");
    char chunk[65536];
    size_t k;
    int rc = GSVD_OK;

    if (!fp) {
        gsvd_log_error("%s: %s", path, strerror(errno));
        return GSVD_EIO;
    }
    while ((k = fread(chunk, 1, sizeof chunk, fp)) > 0)
        GSVD_TRY(gsvd_buf_append(&text, chunk, k));
    if (ferror(fp)) {
        gsvd_log_error("%s: read error", path);
        rc = GSVD_EIO;
        goto out;
    }
    for (size_t i = 0; i < text.len;) { /* non-empty lines, '\r' cut */
        size_t e = i, len;
        while (e < text.len && text.data[e] != '\n')
            e++;
        len = e - i;
        while (len > 0 && text.data[i + len - 1] == '\r')
            len--;
        if (len > 0)
            GSVD_TRY(gsvd_strlist_pushn(&lines, text.data + i, len));
        i = e + 1;
    }
    if (lines.n < 2) {
        gsvd_log_error("%s: expected a header row and one row per sample", path);
        rc = GSVD_EFORMAT;
        goto out;
    }
    n_cols = split_tabs(lines.items[0], header, MAX_COLS);
    if (n_cols < 2 || n_cols > MAX_COLS) {
        gsvd_log_error("%s: expected 2 to %d tab-separated columns, found %zu", path, MAX_COLS,
                       n_cols);
        rc = GSVD_EFORMAT;
        goto out;
    }
    if (!(order = gsvd_plot_sort_order(ids->items, ids->n)) ||
        !(lab = gsvd_calloc(ids->n ? ids->n : 1, sizeof *lab))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t r = 1; r < lines.n; r++) {
        char *copy[MAX_COLS];
        if (split_tabs(lines.items[r], copy, MAX_COLS) != n_cols) {
            gsvd_log_error("%s: row %zu has not %zu columns", path, r + 1, n_cols);
            rc = GSVD_EFORMAT;
            goto out;
        }
        for (size_t c = 0; c < n_cols; c++) {
            hits[c] += gsvd_plot_find(ids->items, order, ids->n, copy[c]) >= 0;
            if (c) /* rejoin so the row can be split again below */
                copy[c][-1] = '\t';
        }
    }
    for (size_t c = 0; c < n_cols; c++)
        if (hits[c] > best) {
            best = hits[c];
            id_col = c;
        }
    if (best == 0) {
        gsvd_log_error("%s: no column holds any of the %zu sample IDs (first: %s)", path, ids->n,
                       ids->n ? ids->items[0] : "none");
        rc = GSVD_EFORMAT;
        goto out;
    }
    lab_col = id_col == n_cols - 1 ? n_cols - 2 : n_cols - 1;
    if (column) {
        size_t c = 0;
        while (c < n_cols && strcmp(header[c], column) != 0)
            c++;
        if (c == n_cols) {
            struct gsvd_buf names = GSVD_BUF_INIT;
            for (size_t i = 0; i < n_cols; i++)
                if (gsvd_buf_printf(&names, "%s%s", i ? ", " : "", header[i]) < 0)
                    break;
            gsvd_log_error("%s: no column '%s' (columns: %s)", path, column,
                           names.data ? names.data : "");
            gsvd_buf_free(&names);
            rc = GSVD_ENOTFOUND;
            goto out;
        }
        lab_col = c;
    }
    for (size_t r = 1; r < lines.n; r++) {
        split_tabs(lines.items[r], cells, MAX_COLS);
        long i = gsvd_plot_find(ids->items, order, ids->n, cells[id_col]);
        if (i >= 0)
            lab[i] = cells[lab_col];
    }
    GSVD_TRY(labels_from_strings(lab, ids->n, out));
out:
    if (fp)
        fclose(fp);
    gsvd_free(lab);
    gsvd_free(order);
    gsvd_strlist_free(&lines);
    gsvd_buf_free(&text);
    return rc;
}

/* Labels from a string array at `path` in t, matched by the sample_id beside it if any. */
static int labels_from_array(gsvd_tree *t, const char *path, const struct gsvd_strlist *ids,
                             struct gsvd_plot_labels *out)
{
    struct gsvd_strlist vals = GSVD_STRLIST_INIT, src_ids = GSVD_STRLIST_INIT;
    char **lab = NULL, *dir = gsvd_strdup(path), *slash, *id_path = NULL;
    size_t *order = NULL;
    int rc = GSVD_OK, kind;

    if (!dir)
        return GSVD_ENOMEM;
    GSVD_TRY(read_strings(t, path, &vals));
    slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
    GSVD_TRY(gsvd_key_join(dir, "sample_id", &id_path));
    if ((kind = gsvd_tree_node_kind(t, id_path)) < 0) {
        rc = kind;
        goto out;
    }
    if (!(lab = gsvd_calloc(ids->n ? ids->n : 1, sizeof *lab))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (kind == GSVD_NODE_ARRAY && strcmp(id_path, path) != 0) {
        GSVD_TRY(read_strings(t, id_path, &src_ids));
        if (src_ids.n != vals.n) {
            gsvd_log_error("%s: %zu labels but %zu sample IDs beside them", path, vals.n,
                           src_ids.n);
            rc = GSVD_EINCONSIST;
            goto out;
        }
        if (!(order = gsvd_plot_sort_order(src_ids.items, src_ids.n))) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        for (size_t i = 0; i < ids->n; i++) {
            long j = gsvd_plot_find(src_ids.items, order, src_ids.n, ids->items[i]);
            lab[i] = j >= 0 ? vals.items[j] : NULL;
        }
    } else if (vals.n != ids->n) {
        gsvd_log_error("%s: %zu labels for %zu samples, and no sample_id array to match them by",
                       path, vals.n, ids->n);
        rc = GSVD_EINCONSIST;
        goto out;
    } else {
        for (size_t i = 0; i < ids->n; i++)
            lab[i] = vals.items[i];
    }
    GSVD_TRY(labels_from_strings(lab, ids->n, out));
out:
    gsvd_free(lab);
    gsvd_free(order);
    gsvd_free(dir);
    gsvd_free(id_path);
    gsvd_strlist_free(&vals);
    gsvd_strlist_free(&src_ids);
    return rc;
}

int gsvd_plot_labels_load(const char *spec, const char *column, gsvd_tree *own,
                          const struct gsvd_strlist *ids, struct gsvd_plot_labels *out)
{
    struct stat sb;
    char *root = NULL, *node = NULL;
    gsvd_store *st = NULL;
    gsvd_tree *t = NULL;
    int rc = GSVD_OK, kind;

    memset(out, 0, sizeof *out);
    if (stat(spec, &sb) == 0 && S_ISREG(sb.st_mode)) {
        rc = labels_from_tsv(spec, column, ids, out);
        goto out;
    }
    if (column) /* a string array has one column */
        gsvd_log_warn("%s: a label column ('%s') applies to TSV files; ignored", spec, column);
    /* a path inside the plotted store first (e.g. "sample_population"), then STORE/PATH */
    if (own && gsvd_key_check(spec) == 0 && (kind = gsvd_tree_node_kind(own, spec)) != 0) {
        if (kind < 0) {
            rc = kind;
            goto out;
        }
        rc = labels_from_array(own, spec, ids, out);
        goto out;
    }
    GSVD_TRY(gsvd_tree_locate(spec, &root, &node));
    if (!*node) {
        gsvd_log_error("%s: neither a file nor an array (give STORE/ARRAY, e.g. "
                       "cohort.vcz/sample_population)",
                       spec);
        rc = GSVD_ENOTFOUND;
        goto out;
    }
    GSVD_TRY(gsvd_store_open(root, GSVD_STORE_READ, &st));
    GSVD_TRY(gsvd_tree_open(st, &t));
    if ((kind = gsvd_tree_node_kind(t, node)) != GSVD_NODE_ARRAY) {
        if (kind >= 0) {
            gsvd_log_error("%s: no array '%s'", root, node);
            rc = GSVD_ENOTFOUND;
        } else {
            rc = kind;
        }
        goto out;
    }
    rc = labels_from_array(t, node, ids, out);
out:
    if (rc < 0)
        gsvd_plot_labels_free(out);
    gsvd_tree_close(t);
    gsvd_store_close(st);
    gsvd_free(root);
    gsvd_free(node);
    return rc;
}
