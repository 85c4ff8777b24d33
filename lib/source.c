/* lib/source.c - sources (include/gensvd.h): a store opened by URL, or arrays the caller holds
 * in memory or delivers chunk by chunk, served to the analyses by a view store
 * (zarr/store_view.h) so that the genotype scan reads them as it reads any store; and the
 * selection (the command line's input options) turned into the scan's parameters. */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/scan/sample_list.h"
#include "analysis/scan/var_list.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parse.h"

/* Bytes an in-memory array's chunk holds at most along its chunked axis (the genotype scan's
 * block is a chunk row: this bounds the working set, whatever the array's size). */
#define VIEW_CHUNK_BYTES ((uint64_t)4 << 20)

static gensvd_source *source_alloc(gensvd_ctx *ctx)
{
    gensvd_source *src = gsvd_calloc(1, sizeof *src);
    if (!src)
        return NULL;
    src->ctx = ctx;
    src->maf = 0;
    src->max_missing = 1;
    src->mind = 1;
    return src;
}

/* Open the store of `url` into src (as the command line opens INPUT). */
static int open_url(gensvd_source *src, const char *url)
{
    struct lib_store in;
    int rc = lib_store_open(url, &in);
    if (rc < 0) {
        lib_store_close(&in);
        return rc;
    }
    src->st = in.st;
    src->tree = in.t;
    src->node = in.node;
    src->input_format = gsvd_tree_format(in.t);
    return GSVD_OK;
}

void lib_walk_free(struct lib_walk *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n; i++)
        gsvd_free(w->nodes[i].path);
    for (size_t i = 0; i < w->depth; i++)
        gsvd_strlist_free(&w->stack[i].children);
    gsvd_free(w->nodes);
    gsvd_free(w->stack);
    gsvd_free(w);
}

int gensvd_source_open(gensvd_ctx *ctx, const char *url, gensvd_source **out)
{
    const struct gsvd_scope *prev;
    gensvd_source *src = NULL;
    int rc = GSVD_OK;

    if (!out)
        return GENSVD_EINVAL;
    *out = NULL;
    if (!ctx)
        return GENSVD_EINVAL;
    prev = lib_begin(ctx);
    if (!url || !*url) {
        rc = lib_fail(GSVD_EINVAL, "empty source path");
        goto out;
    }
    if (!(src = source_alloc(ctx)) || !(src->url = gsvd_strdup(url))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(open_url(src, url));
    *out = src;
    src = NULL;
out:
    gensvd_source_free(src);
    return lib_end(ctx, prev, rc, "gensvd_source_open");
}

int gensvd_source_new(gensvd_ctx *ctx, gensvd_source **out)
{
    const struct gsvd_scope *prev;

    if (!out)
        return GENSVD_EINVAL;
    *out = NULL;
    if (!ctx)
        return GENSVD_EINVAL;
    prev = lib_begin(ctx);
    *out = source_alloc(ctx); /* NULL: the allocator logged it */
    return lib_end(ctx, prev, *out ? GSVD_OK : GSVD_ENOMEM, "gensvd_source_new");
}

const char *gensvd_convert_hint(const char *path, char *out, size_t cap)
{
    if (!out || !cap)
        return "";
    if (!path) {
        out[0] = '\0';
        return out;
    }
    return gsvd_store_convert_hint(path, out, cap);
}

int gensvd_source_open_text(gensvd_ctx *ctx, const char *path, gensvd_source **out)
{
    const struct gsvd_scope *prev;
    struct gsvd_buf text = GSVD_BUF_INIT;
    gensvd_source *src = NULL;
    int rc = GSVD_OK;

    if (!out)
        return GENSVD_EINVAL;
    *out = NULL;
    if (!ctx)
        return GENSVD_EINVAL;
    prev = lib_begin(ctx);
    if (!path || !*path) {
        rc = lib_fail(GSVD_EINVAL, "empty source path");
        goto out;
    }
    if (!(src = source_alloc(ctx)) ||
        !(src->name = gsvd_strdup(strcmp(path, "-") == 0 ? "standard input" : path)) ||
        !(src->text = gsvd_calloc(1, sizeof *src->text))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_buf_read_file(&text, path));
    GSVD_TRY(gsvd_textmatrix_parse(text.data ? text.data : "", text.len, src->name, src->text));
    *out = src;
    src = NULL;
out:
    gsvd_buf_free(&text);
    gensvd_source_free(src);
    return lib_end(ctx, prev, rc, "gensvd_source_open_text");
}

void gensvd_source_free(gensvd_source *src)
{
    if (!src)
        return;
    if (src->text)
        gsvd_textmatrix_clear(src->text);
    gsvd_free(src->text);
    gsvd_tree_close(src->tree);
    gsvd_store_close(src->st);
    gsvd_free(src->url);
    gsvd_free(src->name);
    gsvd_free(src->node);
    for (size_t i = 0; i < src->n_arrays; i++)
        gsvd_free(src->arrays[i].name);
    gsvd_free(src->arrays);
    gsvd_free(src->array);
    gsvd_free(src->variant_mask_spec);
    gsvd_free(src->var_filter_except);
    gsvd_free(src->chr);
    gsvd_free(src->not_chr);
    for (size_t k = 0; k < LIB_VAR_LISTS; k++) {
        gsvd_var_list_free(src->var_list[k]);
        gsvd_free(src->var_list[k]);
    }
    for (int k = 0; k < 2; k++) {
        struct gsvd_strlist **l = k ? &src->remove_ids : &src->keep_ids;
        if (*l)
            gsvd_strlist_free(*l);
        gsvd_free(*l);
    }
    gsvd_free(src->keep_file);
    gsvd_free(src->remove_file);
    gsvd_free(src->sample_mask_spec);
    gsvd_free(src->variant_mask);
    gsvd_free(src->sample_mask);
    gsvd_strlist_free(&src->samples);
    lib_walk_free(src->walk);
    gsvd_free(src);
}

int gensvd_source_zarr_format(const gensvd_source *src)
{
    return src && src->url ? src->input_format : 0;
}

const char *lib_source_name(const gensvd_source *src)
{
    return src->url ? src->url : src->name ? src->name : "memory";
}

/* ---- in-memory arrays --------------------------------------------------------------------- */

/* The store's dtype of a public one; kind 0 for an unknown one. */
static struct gsvd_dtype map_dtype(enum gensvd_dtype t)
{
    struct gsvd_dtype d = {0, '<', gensvd_dtype_size(t)};
    switch (t) {
    case GENSVD_DTYPE_BOOL:
        d.kind = 'b';
        break;
    case GENSVD_DTYPE_INT8:
    case GENSVD_DTYPE_INT16:
    case GENSVD_DTYPE_INT32:
    case GENSVD_DTYPE_INT64:
        d.kind = 'i';
        break;
    case GENSVD_DTYPE_UINT8:
    case GENSVD_DTYPE_UINT16:
    case GENSVD_DTYPE_UINT32:
    case GENSVD_DTYPE_UINT64:
        d.kind = 'u';
        break;
    case GENSVD_DTYPE_FLOAT32:
    case GENSVD_DTYPE_FLOAT64:
        d.kind = 'f';
        break;
    case GENSVD_DTYPE_STRING:
        d.kind = 'O';
        break;
    case GENSVD_DTYPE_FLOAT16: /* read from stores only */
    case GENSVD_DTYPE_BYTES:
    case GENSVD_DTYPE_UTF32:
        break;
    }
    if (d.size == 1 || d.kind == 'O')
        d.byteorder = '|';
    return d;
}

/* Append one array to src's list (its view store is remade at the next run). */
static int add_array(gensvd_source *src, const struct gsvd_view_array *v)
{
    struct lib_marray *a;
    uint64_t samples = 0, variants = 0;

    if (src->url)
        return lib_fail(GSVD_EINVAL, "%s: a store's source takes no in-memory arrays", src->url);
    if (!v->name || !*v->name || gsvd_key_check(v->name) < 0)
        return lib_fail(GSVD_EINVAL, "in-memory array: bad name '%s'", v->name ? v->name : "");
    if (!v->dtype.kind || v->ndim < 1 || v->ndim > GENSVD_MAX_DIMS)
        return lib_fail(GSVD_EINVAL, "in-memory array '%s': bad dtype or rank %zu", v->name,
                        v->ndim);
    for (size_t i = 0; i < src->n_arrays; i++) {
        const struct gsvd_view_array *o = &src->arrays[i].v;
        if (!strcmp(o->name, v->name))
            return lib_fail(GSVD_EINVAL, "in-memory array '%s' added twice", v->name);
        /* the genotypes and the variant arrays share the variant axis (axis 0) */
        if (!strcmp(o->name, "call_genotype"))
            variants = o->shape[0], samples = o->shape[1];
    }
    if (!strcmp(v->name, "call_genotype")) {
        if (v->ndim != 3)
            return lib_fail(GSVD_EINVAL,
                            "in-memory array 'call_genotype': %zu axes, not 3 (variants x "
                            "samples x ploidy)",
                            v->ndim);
    } else if (variants && strncmp(v->name, "variant_", 8) == 0 && v->shape[0] != variants) {
        return lib_fail(GSVD_EINCONSIST,
                        "in-memory array '%s': %llu variants, call_genotype has %llu", v->name,
                        (unsigned long long)v->shape[0], (unsigned long long)variants);
    } else if (samples && !strcmp(v->name, "sample_id") && v->shape[0] != samples) {
        return lib_fail(GSVD_EINCONSIST,
                        "in-memory array 'sample_id': %llu samples, call_genotype has %llu",
                        (unsigned long long)v->shape[0], (unsigned long long)samples);
    }
    if (gsvd_grow(&src->arrays, &src->cap_arrays, src->n_arrays + 1, sizeof *src->arrays, 8) < 0)
        return GSVD_ENOMEM;
    a = src->arrays + src->n_arrays;
    memset(a, 0, sizeof *a);
    a->v = *v;
    if (!(a->name = gsvd_strdup(v->name)))
        return GSVD_ENOMEM;
    a->v.name = a->name;
    src->n_arrays++;
    /* a new array: the view store is made again at the next run */
    gsvd_tree_close(src->tree);
    gsvd_store_close(src->st);
    src->tree = NULL;
    src->st = NULL;
    return GSVD_OK;
}

int gensvd_source_add_array(gensvd_source *src, const char *name, const void *data,
                            enum gensvd_dtype dtype, size_t ndim, const uint64_t *shape,
                            const int64_t *strides)
{
    struct gsvd_view_array v = {
        .name = name, .dtype = map_dtype(dtype), .ndim = ndim, .data = data};
    const struct gsvd_scope *prev;
    int rc = GSVD_OK;

    if (!src)
        return GENSVD_EINVAL;
    prev = lib_begin(src->ctx);
    if (!data || !shape || ndim < 1 || ndim > GENSVD_MAX_DIMS) {
        rc = lib_fail(GSVD_EINVAL, "in-memory array '%s': no data, no shape or a bad rank",
                      name ? name : "");
        goto out;
    }
    for (size_t d = ndim; d-- > 0;) { /* C order unless strides are given */
        v.shape[d] = shape[d];
        v.chunks[d] = shape[d] ? shape[d] : 1;
        v.strides[d] = strides        ? strides[d]
                       : d + 1 < ndim ? v.strides[d + 1] * (int64_t)shape[d + 1]
                                      : (int64_t)v.dtype.size;
    }
    rc = add_array(src, &v);
out:
    return lib_end(src->ctx, prev, rc, "gensvd_source_add_array");
}

int gensvd_source_add_chunked(gensvd_source *src, const char *name, enum gensvd_dtype dtype,
                              size_t ndim, const uint64_t *shape, const uint64_t *chunks,
                              gensvd_chunk_fn fn, void *user)
{
    struct gsvd_view_array v = {
        .name = name, .dtype = map_dtype(dtype), .ndim = ndim, .fn = fn, .user = user};
    const struct gsvd_scope *prev;
    int rc = GSVD_OK;

    if (!src)
        return GENSVD_EINVAL;
    prev = lib_begin(src->ctx);
    if (!fn || !shape || !chunks || ndim < 1 || ndim > GENSVD_MAX_DIMS ||
        dtype == GENSVD_DTYPE_STRING) {
        rc = lib_fail(GSVD_EINVAL,
                      "chunked array '%s': no callback, shape or chunks, a bad rank, or strings "
                      "(give strings with gensvd_source_add_array)",
                      name ? name : "");
        goto out;
    }
    for (size_t d = 0; d < ndim; d++) {
        if (chunks[d] == 0) {
            rc = lib_fail(GSVD_EINVAL, "chunked array '%s': chunk extent 0 on axis %zu", name, d);
            goto out;
        }
        v.shape[d] = shape[d];
        v.chunks[d] = chunks[d];
    }
    rc = add_array(src, &v);
out:
    return lib_end(src->ctx, prev, rc, "gensvd_source_add_chunked");
}

/* Chunk shape of an in-memory array for the view store: the variant axis (axis 0, or 1 for
 * the genotype array named with "array" and "transpose") cut into chunks of "chunk-variants"
 * rows, or of at most VIEW_CHUNK_BYTES, every other axis whole.  (The genotype scan's blocks
 * are these chunks; projection sums over blocks, so its last bits follow them.) */
static void view_chunks(const gensvd_source *src, struct gsvd_view_array *v)
{
    size_t axis = src->transpose && v->ndim == 2 && src->array && !strcmp(src->array, v->name);
    uint64_t row = v->dtype.size;

    if (v->fn)
        return; /* the caller's chunks */
    for (size_t d = 0; d < v->ndim; d++) {
        v->chunks[d] = v->shape[d] ? v->shape[d] : 1;
        if (d != axis)
            row *= v->chunks[d];
    }
    {
        uint64_t rows =
            src->chunk_variants ? src->chunk_variants : VIEW_CHUNK_BYTES / (row ? row : 1);
        if (rows < 1)
            rows = 1;
        if (rows < v->chunks[axis])
            v->chunks[axis] = rows;
    }
}

int lib_source_ready(gensvd_source *src)
{
    struct gsvd_view_array *v = NULL;
    int rc = GSVD_OK;

    if (src->tree)
        return GSVD_OK;
    if (src->url || src->n_arrays == 0)
        return lib_fail(GSVD_EINVAL, "the in-memory source holds no array");
    if (!(v = gsvd_calloc(src->n_arrays, sizeof *v)))
        return GSVD_ENOMEM;
    for (size_t i = 0; i < src->n_arrays; i++) {
        v[i] = src->arrays[i].v;
        view_chunks(src, &v[i]);
    }
    GSVD_TRY(gsvd_store_view_open(src->name, v, src->n_arrays, &src->st));
    GSVD_TRY(gsvd_tree_open(src->st, &src->tree));
    src->input_format = 2;
    if (!src->node && !(src->node = gsvd_strdup(""))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
out:
    if (rc < 0) {
        gsvd_tree_close(src->tree);
        gsvd_store_close(src->st);
        src->tree = NULL;
        src->st = NULL;
    }
    gsvd_free(v);
    return rc;
}

/* ---- the selection ------------------------------------------------------------------------ */

static int replace_str(char **dst, const char *value)
{
    char *copy = value && *value ? gsvd_strdup(value) : NULL;
    if (value && *value && !copy)
        return GSVD_ENOMEM;
    gsvd_free(*dst);
    *dst = copy;
    return GSVD_OK;
}

/* The source options naming a file of variants, in lib_internal.h's var_list[] order. */
static const struct {
    const char *name;
    enum gsvd_var_list_kind kind;
    int exclude;
} var_lists[LIB_VAR_LISTS] = {
    {"extract", GSVD_VAR_LIST_IDS, 0},        {"exclude", GSVD_VAR_LIST_IDS, 1},
    {"extract-bed", GSVD_VAR_LIST_BED0, 0},   {"exclude-bed", GSVD_VAR_LIST_BED0, 1},
    {"extract-range", GSVD_VAR_LIST_BED1, 0}, {"exclude-range", GSVD_VAR_LIST_BED1, 1},
};
_Static_assert(sizeof var_lists / sizeof *var_lists == LIB_VAR_LISTS, "one row per list");

int lib_source_chooses_variants(const gensvd_source *src)
{
    for (size_t k = 0; k < LIB_VAR_LISTS; k++)
        if (src->var_list[k])
            return 1;
    return src->var_filter || src->chr || src->not_chr || src->autosome || src->from_bp_set ||
           src->to_bp_set;
}

/* Read list k from `path` (empty or NULL: clear it), replacing what was there. */
static int set_var_list(gensvd_source *src, size_t k, const char *path)
{
    struct gsvd_var_list *l = NULL;
    if (path && *path) {
        int rc;
        if (!(l = gsvd_calloc(1, sizeof *l)))
            return GSVD_ENOMEM;
        rc = gsvd_var_list_read(path, var_lists[k].kind, var_lists[k].exclude, l);
        if (rc < 0) {
            gsvd_free(l);
            return rc;
        }
    }
    gsvd_var_list_free(src->var_list[k]);
    gsvd_free(src->var_list[k]);
    src->var_list[k] = l;
    return GSVD_OK;
}

/* "keep" or "remove": the sample IDs of the file at `path` (empty or NULL: clear it). */
static int set_sample_list(gensvd_source *src, int remove, const char *path)
{
    struct gsvd_strlist **dst = remove ? &src->remove_ids : &src->keep_ids, *l = NULL;
    char **file = remove ? &src->remove_file : &src->keep_file, *name = NULL;
    if (path && *path) {
        int rc;
        if (!(l = gsvd_calloc(1, sizeof *l)) || !(name = gsvd_strdup(path))) {
            gsvd_free(l);
            return GSVD_ENOMEM;
        }
        if ((rc = gsvd_sample_list_read(path, l)) < 0) {
            gsvd_free(l);
            gsvd_free(name);
            return rc;
        }
    }
    if (*dst)
        gsvd_strlist_free(*dst);
    gsvd_free(*dst);
    gsvd_free(*file);
    *dst = l;
    *file = name;
    return GSVD_OK;
}

/* The real-valued source options: name, largest value (the smallest is 0), field. */
static double *real_option(gensvd_source *src, const char *name, double *hi)
{
    const struct {
        const char *name;
        double hi;
        double *field;
    } opts[] = {{"maf", 0.5, &src->maf},
                {"max-missing", 1, &src->max_missing},
                {"mind", 1, &src->mind},
                {"hwe", 1, &src->hwe}};
    for (size_t k = 0; k < sizeof opts / sizeof *opts; k++)
        if (!strcmp(name, opts[k].name)) {
            *hi = opts[k].hi;
            return opts[k].field;
        }
    return NULL;
}

static int source_set_int(gensvd_source *src, const char *name, int64_t value)
{
    int flag = value == 0 || value == 1;

    if (!strcmp(name, "transpose") || !strcmp(name, "all-contigs") || !strcmp(name, "var-filter")) {
        if (!flag)
            return lib_fail(GSVD_EINVAL, "source option '%s': %lld is not 0 or 1", name,
                            (long long)value);
        if (name[0] == 'v') {
            src->var_filter = (int)value;
        } else if (name[0] == 't') {
            src->transpose = (int)value;
            if (!src->url) { /* the view's chunks follow the variant axis: made again */
                gsvd_tree_close(src->tree);
                gsvd_store_close(src->st);
                src->tree = NULL;
                src->st = NULL;
            }
        } else {
            src->all_contigs = (int)value;
        }
        return GSVD_OK;
    }
    if (!strcmp(name, "hwe-midp")) {
        if (!flag)
            return lib_fail(GSVD_EINVAL, "source option 'hwe-midp': %lld is not 0 or 1",
                            (long long)value);
        src->hwe_midp = (int)value;
        return GSVD_OK;
    }
    if (!strcmp(name, "autosome") || !strcmp(name, "autosome-par")) {
        if (!flag)
            return lib_fail(GSVD_EINVAL, "source option '%s': %lld is not 0 or 1", name,
                            (long long)value);
        src->autosome = value ? (name[8] ? 2 : 1) : 0;
        return GSVD_OK;
    }
    if (!strcmp(name, "from-bp") || !strcmp(name, "to-bp")) {
        if (value < 0 || value > ((int64_t)1 << 62))
            return lib_fail(GSVD_EINVAL, "source option '%s': %lld is not a position (0 to 2^62)",
                            name, (long long)value);
        if (name[0] == 'f') {
            src->from_bp = (uint64_t)value;
            src->from_bp_set = 1;
        } else {
            src->to_bp = (uint64_t)value;
            src->to_bp_set = 1;
        }
        return GSVD_OK;
    }
    if (!strcmp(name, "chunk-variants")) {
        if (value < 0 || value > ((int64_t)1 << 40))
            return lib_fail(GSVD_EINVAL,
                            "source option 'chunk-variants': %lld is out of range "
                            "(0: automatic, to 2^40)",
                            (long long)value);
        src->chunk_variants = (uint64_t)value;
        if (!src->url) { /* the view is made again */
            gsvd_tree_close(src->tree);
            gsvd_store_close(src->st);
            src->tree = NULL;
            src->st = NULL;
        }
        return GSVD_OK;
    }
    if (!strcmp(name, "ploidy")) {
        if (value < 1 || value > 100)
            return lib_fail(GSVD_EINVAL, "source option 'ploidy': %lld is out of range (1 to 100)",
                            (long long)value);
        src->ploidy = (size_t)value;
        return GSVD_OK;
    }
    if (!strcmp(name, "variant-start") || !strcmp(name, "variant-stop")) {
        if (value < 0)
            return lib_fail(GSVD_EINVAL, "source option '%s': %lld is negative", name,
                            (long long)value);
        *(!strcmp(name, "variant-start") ? &src->var_start : &src->var_stop) = (uint64_t)value;
        return GSVD_OK;
    }
    if (real_option(src, name, &(double){0}))
        return lib_fail(GSVD_EINVAL,
                        "source option '%s' is a real number "
                        "(gensvd_source_set_double)",
                        name);
    return lib_fail(GSVD_EINVAL, "unknown source option '%s'", name);
}

int gensvd_source_set_int(gensvd_source *src, const char *name, int64_t value)
{
    const struct gsvd_scope *prev;
    if (!src || !name)
        return GENSVD_EINVAL;
    prev = lib_begin(src->ctx);
    return lib_end(src->ctx, prev, source_set_int(src, name, value), "gensvd_source_set_int");
}

static int source_set_double(gensvd_source *src, const char *name, double value)
{
    double hi, *field = real_option(src, name, &hi);
    if (field) {
        if (!(value >= 0 && value <= hi))
            return lib_fail(GSVD_EINVAL, "source option '%s': %g is out of range (0 to %g)", name,
                            value, hi);
        *field = value;
        return GSVD_OK;
    }
    if (value == floor(value) && fabs(value) < 9e15)
        return source_set_int(src, name, (int64_t)value);
    return lib_fail(GSVD_EINVAL, "unknown or integer source option '%s'", name);
}

int gensvd_source_set_double(gensvd_source *src, const char *name, double value)
{
    const struct gsvd_scope *prev;
    if (!src || !name)
        return GENSVD_EINVAL;
    prev = lib_begin(src->ctx);
    return lib_end(src->ctx, prev, source_set_double(src, name, value), "gensvd_source_set_double");
}

static int source_set_string(gensvd_source *src, const char *name, const char *value)
{
    const char *v = value ? value : "";

    if (!strcmp(name, "array"))
        return replace_str(&src->array, value);
    if (!strcmp(name, "name")) {
        if (src->url)
            return lib_fail(GSVD_EINVAL, "source option 'name' names in-memory sources only");
        gsvd_tree_close(src->tree); /* the view store is named again */
        gsvd_store_close(src->st);
        src->tree = NULL;
        src->st = NULL;
        return replace_str(&src->name, value);
    }
    if (!strcmp(name, "variant-mask"))
        return replace_str(&src->variant_mask_spec, value);
    if (!strcmp(name, "chr"))
        return replace_str(&src->chr, value);
    if (!strcmp(name, "not-chr"))
        return replace_str(&src->not_chr, value);
    for (size_t k = 0; k < LIB_VAR_LISTS; k++)
        if (!strcmp(name, var_lists[k].name))
            return set_var_list(src, k, value);
    if (!strcmp(name, "keep") || !strcmp(name, "remove"))
        return set_sample_list(src, name[0] == 'r', value);
    if (!strcmp(name, "var-filter-except")) {
        int rc = replace_str(&src->var_filter_except, value);
        if (rc == GSVD_OK && value && *value)
            src->var_filter = 1;
        return rc;
    }
    if (!strcmp(name, "sample-mask"))
        return replace_str(&src->sample_mask_spec, value);
    if (!strcmp(name, "variants")) {
        uint64_t a, b;
        if (gsvd_parse_range(v, &a, &b) < 0)
            return lib_fail(GSVD_EINVAL, "source option 'variants': '%s' is not A:B (A < B)", v);
        src->var_start = a;
        src->var_stop = b;
        return GSVD_OK;
    }
    if (real_option(src, name, &(double){0})) {
        double d;
        if (gsvd_parse_double(v, 0, 1, &d) < 0)
            return lib_fail(GSVD_EINVAL, "source option '%s': '%s' is not a number", name, v);
        return source_set_double(src, name, d);
    }
    {
        uint64_t n;
        if (!strcmp(name, "transpose") || !strcmp(name, "all-contigs") ||
            !strcmp(name, "var-filter") || !strcmp(name, "ploidy") ||
            !strcmp(name, "variant-start") || !strcmp(name, "variant-stop") ||
            !strcmp(name, "chunk-variants") || !strcmp(name, "autosome") ||
            !strcmp(name, "hwe-midp") || !strcmp(name, "autosome-par") ||
            !strcmp(name, "from-bp") || !strcmp(name, "to-bp")) {
            if (gsvd_parse_uint(v, 0, UINT64_MAX / 2, 1, &n) < 0)
                return lib_fail(GSVD_EINVAL, "source option '%s': '%s' is not an integer", name, v);
            return source_set_int(src, name, (int64_t)n);
        }
    }
    return lib_fail(GSVD_EINVAL, "unknown source option '%s'", name);
}

int gensvd_source_set_string(gensvd_source *src, const char *name, const char *value)
{
    const struct gsvd_scope *prev;
    if (!src || !name)
        return GENSVD_EINVAL;
    prev = lib_begin(src->ctx);
    return lib_end(src->ctx, prev, source_set_string(src, name, value), "gensvd_source_set_string");
}

static int source_set_samples(gensvd_source *src, const char *const *ids, size_t n)
{
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    size_t *order = NULL;
    int rc = GSVD_OK;

    for (size_t i = 0; i < n; i++) {
        if (!ids || !ids[i] || !*ids[i]) {
            rc = lib_fail(GSVD_EINVAL, "sample list: ID %zu is empty", i);
            goto out;
        }
        GSVD_TRY(gsvd_strlist_push(&l, ids[i]));
    }
    /* duplicates in ID order (a biobank's list has 10^5..10^6 IDs) */
    if (n > 1) {
        if (!(order = gsvd_str_order(l.items, n))) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        for (size_t i = 1; i < n; i++)
            if (!strcmp(l.items[order[i]], l.items[order[i - 1]])) {
                rc = lib_fail(GSVD_EINVAL, "sample '%s' is listed twice", l.items[order[i]]);
                goto out;
            }
    }
    gsvd_strlist_free(&src->samples);
    src->samples = l;
    src->samples_set = n > 0;
    l = (struct gsvd_strlist)GSVD_STRLIST_INIT;
out:
    gsvd_free(order);
    gsvd_strlist_free(&l);
    return rc;
}

int gensvd_source_set_samples(gensvd_source *src, const char *const *ids, size_t n)
{
    const struct gsvd_scope *prev;
    if (!src)
        return GENSVD_EINVAL;
    prev = lib_begin(src->ctx);
    return lib_end(src->ctx, prev, source_set_samples(src, ids, n), "gensvd_source_set_samples");
}

static int source_set_mask(gensvd_source *src, const char *name, const uint8_t *mask, size_t n)
{
    int var = name && !strcmp(name, "variant-mask");
    uint8_t *copy = NULL;

    if (!var && !(name && !strcmp(name, "sample-mask")))
        return lib_fail(GSVD_EINVAL,
                        "gensvd_source_set_mask: '%s' is not variant-mask or "
                        "sample-mask",
                        name ? name : "");
    if (n && !mask)
        return lib_fail(GSVD_EINVAL, "gensvd_source_set_mask: no mask data");
    if (n) {
        if (!(copy = gsvd_malloc(n)))
            return GSVD_ENOMEM;
        for (size_t i = 0; i < n; i++)
            copy[i] = mask[i] != 0;
    }
    gsvd_free(var ? src->variant_mask : src->sample_mask);
    if (var) {
        src->variant_mask = copy;
        src->variant_mask_n = n;
    } else {
        src->sample_mask = copy;
        src->sample_mask_n = n;
    }
    return GSVD_OK;
}

int gensvd_source_set_mask(gensvd_source *src, const char *name, const uint8_t *mask, size_t n)
{
    const struct gsvd_scope *prev;
    if (!src)
        return GENSVD_EINVAL;
    prev = lib_begin(src->ctx);
    return lib_end(src->ctx, prev, source_set_mask(src, name, mask, n), "gensvd_source_set_mask");
}
