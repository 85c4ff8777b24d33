/* plot/labels.c - per-sample labels for the plots, matched to the plotted samples by ID: from
 * a TSV file (the ID column found by its values; plink's FID/IID layout and files without a
 * header row recognised) or from a 1-D array of strings or integers.  A source that names only
 * some of the samples is reported with the counts and the first IDs it lacks, so a wrong ID
 * column never turns half a plot silently grey; one that names none is an error. */
#include "gsvd_config.h"

#include "plot/data.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sys/stat.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/dtype.h"
#include "zarr/store.h"

#define MAX_COLS 64
#define SHOW_IDS 5 /* sample IDs a message lists */

void gsvd_plot_labels_free(struct gsvd_plot_labels *l)
{
    gsvd_free(l->code);
    gsvd_free(l->count);
    gsvd_strlist_free(&l->names);
    memset(l, 0, sizeof *l);
}

/* s as a decimal integer (optional sign, digits, nothing else) into *v; 0 when it is not one. */
static int as_integer(const char *s, long long *v)
{
    char *end;
    if (!(isdigit((unsigned char)s[0]) ||
          ((s[0] == '-' || s[0] == '+') && isdigit((unsigned char)s[1]))))
        return 0;
    errno = 0;
    *v = strtoll(s, &end, 10);
    return errno == 0 && *end == '\0';
}

struct valued {
    long long v;
    char *s;
};

static int valued_cmp(const void *a, const void *b)
{
    const struct valued *x = a, *y = b;
    return x->v != y->v ? (x->v > y->v) - (x->v < y->v) : strcmp(x->s, y->s);
}

/* Names (distinct, in strcmp order) into display order: by value when every one is a decimal
 * integer (cluster 2 before cluster 10), else as they are.  GSVD_ENOMEM. */
static int order_names(struct gsvd_strlist *names)
{
    struct valued *k;

    for (size_t i = 0; i < names->n; i++) {
        long long v;
        if (!as_integer(names->items[i], &v))
            return GSVD_OK;
    }
    if (!(k = gsvd_calloc(names->n ? names->n : 1, sizeof *k)))
        return GSVD_ENOMEM;
    for (size_t i = 0; i < names->n; i++) {
        k[i].s = names->items[i];
        (void)as_integer(k[i].s, &k[i].v);
    }
    qsort(k, names->n, sizeof *k, valued_cmp);
    for (size_t i = 0; i < names->n; i++)
        names->items[i] = k[i].s;
    gsvd_free(k);
    return GSVD_OK;
}

/* Turn per-sample label strings (NULL or "" = none) into codes, ordered names and counts. */
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
    GSVD_TRY(order_names(&out->names));
    if (!(out->count = gsvd_calloc(out->names.n ? out->names.n : 1, sizeof *out->count)) ||
        !(order = gsvd_str_order(out->names.items, out->names.n))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        long c =
            lab[i] && *lab[i] ? gsvd_str_find(out->names.items, order, out->names.n, lab[i]) : -1;
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

/* Report the samples the source `src` lacks (found[i] == 0): a warning with the counts and the
 * first IDs when it has some of them, GSVD_EINCONSIST (logged) when it has none.  `how` says
 * what the IDs were matched against; `hint` (may be NULL) is added to the message. */
static int report_matches(const char *src, const char *how, const struct gsvd_strlist *ids,
                          const unsigned char *found, const char *hint)
{
    struct gsvd_buf list = GSVD_BUF_INIT;
    size_t missing = 0;
    int rc = GSVD_OK;

    for (size_t i = 0; i < ids->n; i++)
        if (!found[i]) {
            if (missing < SHOW_IDS)
                GSVD_TRY(gsvd_buf_printf(&list, "%s%s", missing ? ", " : "", ids->items[i]));
            missing++;
        }
    if (missing == 0)
        goto out;
    if (missing > SHOW_IDS)
        GSVD_TRY(gsvd_buf_puts(&list, ", ..."));
    if (missing == ids->n) {
        gsvd_log_error("%s: none of the %zu plotted samples is in it (matched by %s; the "
                       "samples are %s)%s%s",
                       src, ids->n, how, list.data, hint ? "; " : "", hint ? hint : "");
        rc = GSVD_EINCONSIST;
        goto out;
    }
    gsvd_log_warn("%s: %zu of the %zu plotted samples are not in it (matched by %s): %s; they "
                  "are drawn as unlabelled (grey)%s%s",
                  src, missing, ids->n, how, list.data, hint ? "; " : "", hint ? hint : "");
out:
    gsvd_buf_free(&list);
    return rc;
}

/* Split a line (without its newline) at tabs into cells (pointers into the line, which is
 * modified).  Returns the cell count; at most max are stored. */
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

/* A TSV file split into rows x n_cols cells. */
struct tsv {
    const char *path;
    struct gsvd_strlist lines; /* the non-empty lines; the cells point into them */
    char **cell;               /* row r, column c: cell[r * n_cols + c]; owned array */
    size_t n_rows, n_cols;
    long fid, iid; /* columns named FID and IID in row 0 (plink 2 may write #FID), -1: none */
};

static void tsv_free(struct tsv *f) /* leaves it empty: a second call is harmless */
{
    gsvd_strlist_free(&f->lines);
    gsvd_free(f->cell);
    f->cell = NULL;
}

static int names_column(const char *header, const char *name)
{
    return strcasecmp(header[0] == '#' ? header + 1 : header, name) == 0;
}

/* Read and split `path`: at least two rows of 2..MAX_COLS tab-separated cells, all alike. */
static int tsv_read(const char *path, struct tsv *f)
{
    struct gsvd_buf text = GSVD_BUF_INIT;
    size_t n_cells;
    int rc = GSVD_OK;

    memset(f, 0, sizeof *f);
    f->path = path;
    f->fid = f->iid = -1;
    GSVD_TRY(gsvd_buf_read_file(&text, path));
    for (size_t i = 0; i < text.len;) { /* non-empty lines, '\r' cut */
        size_t e = i, len;
        while (e < text.len && text.data[e] != '\n')
            e++;
        len = e - i;
        while (len > 0 && text.data[i + len - 1] == '\r')
            len--;
        if (len > 0)
            GSVD_TRY(gsvd_strlist_pushn(&f->lines, text.data + i, len));
        i = e + 1;
    }
    if (f->lines.n < 2) {
        gsvd_log_error("%s: expected a header row and one row per sample", path);
        rc = GSVD_EFORMAT;
        goto out;
    }
    {
        char *first[MAX_COLS];
        f->n_cols = split_tabs(f->lines.items[0], first, MAX_COLS);
        if (f->n_cols < 2 || f->n_cols > MAX_COLS) {
            gsvd_log_error("%s: expected 2 to %d tab-separated columns, found %zu", path, MAX_COLS,
                           f->n_cols);
            rc = GSVD_EFORMAT;
            goto out;
        }
        f->n_rows = f->lines.n;
        GSVD_TRY(gsvd_mul_size(f->n_rows, f->n_cols, &n_cells));
        if (!(f->cell = gsvd_calloc(n_cells, sizeof *f->cell))) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        memcpy(f->cell, first, f->n_cols * sizeof *first);
    }
    for (size_t r = 1; r < f->n_rows; r++)
        if (split_tabs(f->lines.items[r], f->cell + r * f->n_cols, f->n_cols) != f->n_cols) {
            gsvd_log_error("%s: row %zu has not %zu columns", path, r + 1, f->n_cols);
            rc = GSVD_EFORMAT;
            goto out;
        }
    for (size_t c = 0; c < f->n_cols; c++) {
        if (names_column(f->cell[c], "FID") && f->fid < 0)
            f->fid = (long)c;
        if (names_column(f->cell[c], "IID") && f->iid < 0)
            f->iid = (long)c;
    }
    if (f->fid < 0 || f->iid < 0)
        f->fid = f->iid = -1; /* the layout needs both */
out:
    if (rc < 0)
        tsv_free(f);
    gsvd_buf_free(&text);
    return rc;
}

/* How the rows name samples: one column, or FID '_' IID (plink 1.9's VCF sample names). */
struct id_key {
    size_t col;
    int join;
    int headerless; /* row 0 is a sample, not a header */
};

/* The sample ID of row r under key k (join: built in scratch). */
static const char *row_id(const struct tsv *f, size_t r, const struct id_key *k,
                          struct gsvd_buf *scratch)
{
    char *const *row = f->cell + r * f->n_cols;
    if (!k->join)
        return row[k->col];
    gsvd_buf_clear(scratch);
    if (gsvd_buf_printf(scratch, "%s_%s", row[f->fid], row[f->iid]) < 0)
        return NULL;
    return scratch->data;
}

/* The ID key that matches the most samples: each column (on a tie the first, but IID before
 * FID), or FID_IID when the file has both and that matches more.  Row 0 counts as a sample
 * when it matches in the chosen column (a file without a header).  GSVD_EFORMAT (logged) when
 * nothing matches. */
static int tsv_pick_ids(const struct tsv *f, const struct gsvd_strlist *ids, const size_t *order,
                        struct id_key *k)
{
    struct gsvd_buf scratch = GSVD_BUF_INIT;
    size_t hits[MAX_COLS + 1] = {0}, best = 0;
    const size_t J = MAX_COLS; /* hits[J]: FID_IID joined */
    struct id_key join = {0, 1, 0};
    int rc = GSVD_OK;

    for (size_t r = 0; r < f->n_rows; r++) {
        for (size_t c = 0; c < f->n_cols; c++)
            hits[c] += gsvd_str_find(ids->items, order, ids->n, f->cell[r * f->n_cols + c]) >= 0;
        if (f->fid >= 0 && r > 0) {
            const char *id = row_id(f, r, &join, &scratch);
            if (!id) {
                rc = GSVD_ENOMEM;
                goto out;
            }
            hits[J] += gsvd_str_find(ids->items, order, ids->n, id) >= 0;
        }
    }
    *k = (struct id_key){0, 0, 0};
    for (size_t c = 0; c < f->n_cols; c++)
        if (hits[c] > best || (hits[c] == best && best > 0 && (long)c == f->iid)) {
            best = hits[c];
            k->col = c;
        }
    if (hits[J] > best) {
        best = hits[J];
        *k = join;
    }
    if (best == 0) {
        gsvd_log_error("%s: no column holds any of the %zu sample IDs (first: %s)", f->path, ids->n,
                       ids->n ? ids->items[0] : "none");
        rc = GSVD_EFORMAT;
        goto out;
    }
    k->headerless = !k->join && gsvd_str_find(ids->items, order, ids->n, f->cell[k->col]) >= 0;
out:
    gsvd_buf_free(&scratch);
    return rc;
}

/* The label column: `column` by its header name, else the last column that holds no IDs. */
static int tsv_pick_labels(const struct tsv *f, const struct id_key *k, const char *column,
                           size_t *out)
{
    struct gsvd_buf names = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    if (column && k->headerless) {
        gsvd_log_error("%s: --label-column '%s', but the file has no header row (its first row "
                       "names sample %s)",
                       f->path, column, f->cell[k->col]);
        return GSVD_EFORMAT;
    }
    if (column) {
        for (size_t c = 0; c < f->n_cols; c++)
            if (strcmp(f->cell[c], column) == 0) {
                *out = c;
                return GSVD_OK;
            }
        for (size_t c = 0; c < f->n_cols; c++)
            GSVD_TRY(gsvd_buf_printf(&names, "%s%s", c ? ", " : "", f->cell[c]));
        gsvd_log_error("%s: no column '%s' (columns: %s)", f->path, column, names.data);
        rc = GSVD_ENOTFOUND;
        goto out;
    }
    for (size_t c = f->n_cols; c-- > 0;) {
        int is_id = k->join ? (long)c == f->fid || (long)c == f->iid
                            : c == k->col || (long)c == f->fid || (long)c == f->iid;
        if (!is_id) {
            *out = c;
            return GSVD_OK;
        }
    }
    for (size_t c = f->n_cols; c-- > 0;) /* FID IID only: the other ID column, as before */
        if (!k->join && c != k->col) {
            *out = c;
            return GSVD_OK;
        }
    gsvd_log_error("%s: no column left for labels besides the FID and IID columns", f->path);
    rc = GSVD_EFORMAT;
out:
    gsvd_buf_free(&names);
    return rc;
}

/* Labels from a TSV file (see data.h). */
static int labels_from_tsv(const char *path, const char *column, const struct gsvd_strlist *ids,
                           struct gsvd_plot_labels *out)
{
    struct tsv f;
    struct id_key k;
    struct gsvd_buf scratch = GSVD_BUF_INIT, how = GSVD_BUF_INIT;
    char **lab = NULL;
    unsigned char *found = NULL;
    size_t *order = NULL, *row_of = NULL, lab_col, stray = 0, clash = 0, clash_i = 0;
    size_t clash_rows[2] = {0, 0};
    const char *hint = NULL;
    int rc = GSVD_OK;

    GSVD_TRY(tsv_read(path, &f));
    if (!(order = gsvd_str_order(ids->items, ids->n)) ||
        !(lab = gsvd_calloc(ids->n ? ids->n : 1, sizeof *lab)) ||
        !(row_of = gsvd_calloc(ids->n ? ids->n : 1, sizeof *row_of)) ||
        !(found = gsvd_calloc(ids->n ? ids->n : 1, 1))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(tsv_pick_ids(&f, ids, order, &k));
    GSVD_TRY(tsv_pick_labels(&f, &k, column, &lab_col));
    if (k.join)
        GSVD_TRY(gsvd_buf_puts(&how, "FID_IID, the FID and IID columns joined by '_'"));
    else if (k.headerless)
        GSVD_TRY(gsvd_buf_printf(&how, "column %zu", k.col + 1));
    else
        GSVD_TRY(gsvd_buf_printf(&how, "column '%s'", f.cell[k.col]));
    gsvd_log_info("%s: samples matched by %s%s", path, how.data,
                  f.fid >= 0 ? " (the file has FID and IID columns, plink's layout)" : "");
    if (k.headerless)
        gsvd_log_info("%s: no header row (its first row names sample %s): every row is a sample",
                      path, f.cell[k.col]);
    if (!k.join && f.fid >= 0 && (long)k.col == f.fid)
        hint = "that is the family ID column, not the sample IDs";
    else if (!k.join && f.iid < 0 && names_column(f.cell[k.col], "FID"))
        hint = "that column holds family IDs; give the file's IID (sample ID) column";
    for (size_t r = k.headerless ? 0 : 1; r < f.n_rows; r++) {
        const char *id = row_id(&f, r, &k, &scratch);
        long i;
        if (!id) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        if ((i = gsvd_str_find(ids->items, order, ids->n, id)) < 0) {
            stray++;
            continue;
        }
        if (found[i] && strcmp(lab[i], f.cell[r * f.n_cols + lab_col]) != 0 && !clash++) {
            clash_i = (size_t)i; /* the first sample given two labels, and its two rows */
            clash_rows[0] = row_of[i];
            clash_rows[1] = r + 1;
        }
        lab[i] = f.cell[r * f.n_cols + lab_col];
        row_of[i] = r + 1;
        found[i] = 1;
    }
    if (stray)
        gsvd_log_info("%s: %zu rows name samples that are not plotted", path, stray);
    if (clash)
        gsvd_log_warn("%s: a sample's label is given again, differently, on %zu row%s (the "
                      "first: %s, '%s' on row %zu and '%s' on row %zu); the last row's label is "
                      "drawn",
                      path, clash, clash == 1 ? "" : "s", ids->items[clash_i],
                      f.cell[(clash_rows[0] - 1) * f.n_cols + lab_col], clash_rows[0],
                      f.cell[(clash_rows[1] - 1) * f.n_cols + lab_col], clash_rows[1]);
    GSVD_TRY(report_matches(path, how.data, ids, found, hint));
    GSVD_TRY(labels_from_strings(lab, ids->n, out));
out:
    gsvd_free(lab);
    gsvd_free(found);
    gsvd_free(row_of);
    gsvd_free(order);
    gsvd_buf_free(&scratch);
    gsvd_buf_free(&how);
    tsv_free(&f);
    return rc;
}

/* The 1-D label array at `path` of t: strings, or integers written in decimal. */
static int read_label_values(gsvd_tree *t, const char *path, struct gsvd_strlist *out)
{
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    const struct gsvd_zarray *z;
    unsigned char *raw = NULL;
    char dt[24];
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_array_open(t, path, &a));
    z = gsvd_array_meta(a);
    if (z->ndim != 1 || !strchr("OSUiu", z->dtype.kind)) {
        gsvd_dtype_format(&z->dtype, dt, sizeof dt);
        gsvd_log_error("%s: labels must be a 1-D array of strings or integers; this one is %s "
                       "with %zu dimensions",
                       gsvd_array_name(a), dt, z->ndim);
        rc = GSVD_EFORMAT;
        goto out;
    }
    GSVD_TRY(gsvd_reader_new(a, &r));
    if (strchr("OSU", z->dtype.kind)) {
        GSVD_TRY(gsvd_reader_read_strings(r, 0, z->shape[0], out));
        goto out;
    }
    {
        uint64_t start = 0, count = z->shape[0];
        size_t bytes;
        GSVD_TRY(gsvd_mul_size((size_t)count, z->dtype.size, &bytes));
        if (!(raw = gsvd_malloc(bytes ? bytes : 1))) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        if (count)
            GSVD_TRY(gsvd_reader_read(r, &start, &count, raw));
        for (size_t i = 0; i < (size_t)count; i++) {
            int64_t v = gsvd_dtype_elem_i64(&z->dtype, raw + i * z->dtype.size);
            char s[24];
            if (z->dtype.kind == 'u')
                snprintf(s, sizeof s, "%llu", (unsigned long long)(uint64_t)v);
            else
                snprintf(s, sizeof s, "%lld", (long long)v);
            GSVD_TRY(gsvd_strlist_push(out, s));
        }
    }
out:
    gsvd_free(raw);
    gsvd_reader_free(r);
    gsvd_array_close(a);
    return rc;
}

/* Labels from the array at `path` in t (named `spec` by the user), matched by the sample_id
 * array beside it if there is one, else by position. */
static int labels_from_array(const char *spec, gsvd_tree *t, const char *path,
                             const struct gsvd_strlist *ids, struct gsvd_plot_labels *out)
{
    struct gsvd_strlist vals = GSVD_STRLIST_INIT, src_ids = GSVD_STRLIST_INIT;
    char **lab = NULL, *dir = gsvd_strdup(path), *slash, *id_path = NULL;
    unsigned char *found = NULL;
    size_t *order = NULL;
    int rc = GSVD_OK, kind;

    if (!dir)
        return GSVD_ENOMEM;
    GSVD_TRY(read_label_values(t, path, &vals));
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
    if (!(lab = gsvd_calloc(ids->n ? ids->n : 1, sizeof *lab)) ||
        !(found = gsvd_calloc(ids->n ? ids->n : 1, 1))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (kind == GSVD_NODE_ARRAY && strcmp(id_path, path) != 0) {
        GSVD_TRY(gsvd_plot_read_ids(t, dir, &src_ids));
        if (src_ids.n != vals.n) {
            gsvd_log_error("%s: %zu labels but %zu sample IDs beside them", spec, vals.n,
                           src_ids.n);
            rc = GSVD_EINCONSIST;
            goto out;
        }
        if (!(order = gsvd_str_order(src_ids.items, src_ids.n))) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        for (size_t i = 0; i < ids->n; i++) {
            long j = gsvd_str_find(src_ids.items, order, src_ids.n, ids->items[i]);
            lab[i] = j >= 0 ? vals.items[j] : NULL;
            found[i] = j >= 0;
        }
        GSVD_TRY(report_matches(spec, "the sample_id array beside it", ids, found, NULL));
    } else if (vals.n != ids->n) {
        gsvd_log_error("%s: %zu labels for %zu samples, and no sample_id array to match them by",
                       spec, vals.n, ids->n);
        rc = GSVD_EINCONSIST;
        goto out;
    } else {
        for (size_t i = 0; i < ids->n; i++)
            lab[i] = vals.items[i];
    }
    GSVD_TRY(labels_from_strings(lab, ids->n, out));
out:
    gsvd_free(lab);
    gsvd_free(found);
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
        rc = labels_from_array(spec, own, spec, ids, out);
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
    rc = labels_from_array(spec, t, node, ids, out);
out:
    if (rc < 0)
        gsvd_plot_labels_free(out);
    gsvd_tree_close(t);
    gsvd_store_close(st);
    gsvd_free(root);
    gsvd_free(node);
    return rc;
}
