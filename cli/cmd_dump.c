/* cli/cmd_dump.c - `gensvd dump`: array values as TSV on stdout, or summary statistics.
 * Rows of the selection are cut into blocks along axis 0 that follow the chunk grid; worker
 * threads read and format blocks in parallel (each with its own reader) and the main thread
 * writes them in order, so output is identical for any thread count. */
#include "gsvd_config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/pipeline.h"
#include "cli/cli.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/textnum.h"
#include "zarr/array.h"
#include "zarr/reader.h"

struct dump_ctx {
    gsvd_array *arr;
    const struct gsvd_zarray *z;
    gsvd_reader **readers; /* one per worker */
    uint64_t start[GSVD_MAX_DIMS];
    uint64_t count[GSVD_MAX_DIMS];
    uint64_t block_rows; /* rows of axis 0 per block */
    uint64_t n_blocks;
    int stats;                     /* --stats instead of values */
    struct gsvd_progress progress; /* per block of chunk rows consumed */
    /* --stats accumulators, merged in block order by the consumer */
    uint64_t n_values, n_nan;
    double sum, min, max;
    int have_minmax;
};

struct dump_slot {
    struct gsvd_buf text; /* formatted TSV of the block */
    unsigned char *data;  /* decoded block */
    struct gsvd_strlist strs;
    /* --stats partials */
    uint64_t n_values, n_nan;
    double sum, min, max;
    int have_minmax;
};

struct dump_opts {
    const char *array, *slice;
    int stats;
    struct gsvd_cli_common common;
};

#define DUMP(field) GSVD_OPT_FIELD(struct dump_opts, field)
static const struct gsvd_opt dump_options[] = {
    {.name = "array",
     .key = 'a',
     .type = GSVD_OPT_STRING,
     DUMP(array),
     .arg = "PATH",
     .help = "array inside INPUT (instead of INPUT/ARRAY)"},
    {.name = "slice",
     .key = 's',
     .type = GSVD_OPT_STRING,
     DUMP(slice),
     .arg = "SPEC",
     .help = "per-axis ranges START:STOP separated by commas, e.g. 0:10,0:5;\nan empty range "
             "or ':' keeps the whole axis, one number I\nselects I:I+1; omitted trailing axes "
             "are whole"},
    {.name = "stats",
     .type = GSVD_OPT_FLAG,
     DUMP(stats),
     .value = 1,
     .help = "print count, NaN count, min, max and sum instead of values\n(reads and decodes "
             "every selected chunk)"},
};
static const struct gsvd_opt_group dump_group = {NULL, dump_options, GSVD_ARRAY_LEN(dump_options),
                                                 NULL};
static const struct gsvd_opt_group dump_notes = {
    NULL, NULL, 0,
    "Numbers: integers exact; f8 as %.17g, f4 as %.9g, f2 as %.5g; nan, inf, -inf.\n"
    "Strings: UTF-8 with \\t, \\n and \\\\ escaped; bytes outside printable ASCII as \\xHH.\n"};
static const struct gsvd_opt_bind dump_groups[] = {
    {&dump_group, 0},
    {&gsvd_opts_threads, offsetof(struct dump_opts, common)},
    {&gsvd_opts_progress, offsetof(struct dump_opts, common)},
    {&gsvd_opts_basic, offsetof(struct dump_opts, common)},
    {&dump_notes, 0},
    {&gsvd_opts_remote, offsetof(struct dump_opts, common)},
};
const struct gsvd_cmd_spec gsvd_cmd_dump_spec = {
    .name = "dump",
    .intro = "Usage: gensvd dump [options] INPUT/ARRAY\n"
             "Print the values of a Zarr array as TSV on stdout, without a header: one line per\n"
             "element (1-D) or row (2-D); for N-D arrays one line per index of the leading N-2\n"
             "axes, cells along axis N-2, values along the last axis joined by '/'.\n",
    .groups = dump_groups,
    .n_groups = GSVD_ARRAY_LEN(dump_groups),
    .opts_size = sizeof(struct dump_opts),
    .footer = "Exit status: 0 success, 1 failure, 2 usage error.\n",
};

/* Parse --slice against the array shape into start/count. */
static int parse_slice(const char *spec, const struct gsvd_zarray *z, uint64_t *start,
                       uint64_t *count)
{
    size_t d = 0;
    const char *p = spec;

    for (size_t i = 0; i < z->ndim; i++) {
        start[i] = 0;
        count[i] = z->shape[i];
    }
    while (spec && *p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char part[64], *colon;
        uint64_t a = 0, b;
        if (d >= z->ndim || len >= sizeof part)
            return GSVD_EINVAL;
        memcpy(part, p, len);
        part[len] = '\0';
        b = z->shape[d];
        colon = strchr(part, ':');
        if (colon) {
            *colon = '\0';
            if (*part && gsvd_cli_parse_uint(part, 0, z->shape[d], 0, &a) < 0)
                return GSVD_EINVAL;
            if (colon[1] && gsvd_cli_parse_uint(colon + 1, 0, z->shape[d], 0, &b) < 0)
                return GSVD_EINVAL;
        } else if (*part) {
            if (gsvd_cli_parse_uint(part, 0, z->shape[d] ? z->shape[d] - 1 : 0, 0, &a) < 0 ||
                z->shape[d] == 0)
                return GSVD_EINVAL;
            b = a + 1;
        }
        if (b < a)
            return GSVD_EINVAL;
        start[d] = a;
        count[d] = b - a;
        d++;
        if (!end)
            break;
        p = end + 1;
    }
    return GSVD_OK;
}

static uint16_t load_u16(const unsigned char *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* Element value as double (numeric kinds) for --stats. */
static double as_double(const struct gsvd_dtype *dt, const unsigned char *p)
{
    switch (dt->kind) {
    case 'b':
        return p[0] != 0;
    case 'i':
        switch (dt->size) {
        case 1:
            return (int8_t)p[0];
        case 2: {
            int16_t v;
            memcpy(&v, p, 2);
            return v;
        }
        case 4: {
            int32_t v;
            memcpy(&v, p, 4);
            return v;
        }
        default: {
            int64_t v;
            memcpy(&v, p, 8);
            return (double)v;
        }
        }
    case 'u':
        switch (dt->size) {
        case 1:
            return p[0];
        case 2:
            return load_u16(p);
        case 4: {
            uint32_t v;
            memcpy(&v, p, 4);
            return v;
        }
        default: {
            uint64_t v;
            memcpy(&v, p, 8);
            return (double)v;
        }
        }
    case 'f':
        if (dt->size == 2)
            return gsvd_half_to_double(load_u16(p));
        if (dt->size == 4) {
            float f;
            memcpy(&f, p, 4);
            return f;
        }
        {
            double v;
            memcpy(&v, p, 8);
            return v;
        }
    default:
        return NAN;
    }
}

static int put_escaped(struct gsvd_buf *b, const unsigned char *s, size_t n, int bytes)
{
    int rc = GSVD_OK;
    for (size_t i = 0; i < n && rc >= 0; i++) {
        unsigned char ch = s[i];
        if (ch == '\t')
            rc = gsvd_buf_append(b, "\\t", 2);
        else if (ch == '\n')
            rc = gsvd_buf_append(b, "\\n", 2);
        else if (ch == '\\')
            rc = gsvd_buf_append(b, "\\\\", 2);
        else if (ch < 0x20 || ch == 0x7f || (bytes && ch >= 0x80))
            rc = gsvd_buf_printf(b, "\\x%02x", ch);
        else
            rc = gsvd_buf_append(b, &ch, 1);
    }
    return rc;
}

/* Append one element's text. */
static int put_value(struct gsvd_buf *b, const struct gsvd_zarray *z, const unsigned char *p)
{
    const struct gsvd_dtype *dt = &z->dtype;
    double v;
    switch (dt->kind) {
    case 'b':
        return gsvd_buf_append(b, p[0] ? "1" : "0", 1);
    case 'i': {
        int64_t x;
        if (dt->size == 8) {
            memcpy(&x, p, 8);
        } else {
            x = (int64_t)as_double(dt, p);
        }
        return gsvd_buf_printf(b, "%" PRId64, x);
    }
    case 'u': {
        uint64_t x = 0;
        memcpy(&x, p, dt->size); /* little-endian host */
        return gsvd_buf_printf(b, "%" PRIu64, x);
    }
    case 'f':
        v = as_double(dt, p);
        if (isnan(v))
            return gsvd_buf_puts(b, "nan");
        if (isinf(v))
            return gsvd_buf_puts(b, v > 0 ? "inf" : "-inf");
        return gsvd_buf_printf(b, dt->size == 2 ? "%.5g" : dt->size == 4 ? "%.9g" : "%.17g", v);
    case 'S': {
        size_t n = dt->size;
        while (n > 0 && p[n - 1] == 0)
            n--; /* numpy strips trailing NULs only */
        return put_escaped(b, p, n, 1);
    }
    case 'U': {
        size_t n = dt->size / 4;
        int rc = GSVD_OK;
        while (n > 0 && load_u16(p + 4 * (n - 1)) == 0 && load_u16(p + 4 * (n - 1) + 2) == 0)
            n--;
        for (size_t i = 0; i < n && rc >= 0; i++) {
            uint32_t c;
            unsigned char u[4];
            size_t k;
            memcpy(&c, p + 4 * i, 4);
            k = gsvd_utf8_encode(c, u);
            if (k == 0) /* not a code point: show the raw value */
                rc = gsvd_buf_printf(b, "\\U%08x", c);
            else if (k == 1)
                rc = put_escaped(b, u, 1, 0);
            else
                rc = gsvd_buf_append(b, u, k);
        }
        return rc;
    }
    default:
        return GSVD_EINTERNAL;
    }
}

/* Separator after element i of a row-major selection with shape cnt[0..nd-1]. */
static const char *separator(const uint64_t *cnt, size_t nd, uint64_t i)
{
    if (nd <= 1)
        return "\n";
    uint64_t last = cnt[nd - 1];
    if (nd == 2)
        return (i + 1) % last == 0 ? "\n" : "\t";
    uint64_t cell = last * cnt[nd - 2];
    if ((i + 1) % cell == 0)
        return "\n";
    return (i + 1) % last == 0 ? "\t" : "/";
}

/* Typed loops: --stats is the full-scan benchmark, so no per-element dispatch.  Sums of types
 * up to 32 bits are exact: 8- and 16-bit values are summed in int32 over runs short enough not
 * to overflow, then in int64; wider integers and floats sum in double. */
#define INT_STATS(T, ACC, RUN)                                                                     \
    do {                                                                                           \
        const T *v = (const T *)data;                                                              \
        T mn = v[0], mx = v[0];                                                                    \
        double total = 0;                                                                          \
        int64_t exact = 0;                                                                         \
        for (size_t b0 = 0; b0 < n; b0 += (RUN)) {                                                 \
            size_t b1 = n - b0 < (RUN) ? n : b0 + (RUN);                                           \
            ACC sum = 0;                                                                           \
            for (size_t i = b0; i < b1; i++) {                                                     \
                sum += (ACC)v[i];                                                                  \
                mn = v[i] < mn ? v[i] : mn;                                                        \
                mx = v[i] > mx ? v[i] : mx;                                                        \
            }                                                                                      \
            if (sizeof(ACC) <= 4)                                                                  \
                exact += (int64_t)sum;                                                             \
            else                                                                                   \
                total += (double)sum;                                                              \
        }                                                                                          \
        s->sum = total + (double)exact;                                                            \
        s->min = (double)mn;                                                                       \
        s->max = (double)mx;                                                                       \
    } while (0)

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void
block_stats(const struct gsvd_dtype *dt, const unsigned char *data, size_t n, struct dump_slot *s)
{
    s->n_values = n;
    s->have_minmax = 0;
    if (n == 0 || dt->kind == 'S' || dt->kind == 'U')
        return;
    s->have_minmax = 1;
    if (dt->kind == 'b' || (dt->kind == 'u' && dt->size == 1))
        INT_STATS(uint8_t, int32_t, (size_t)1 << 20);
    else if (dt->kind == 'i' && dt->size == 1)
        INT_STATS(int8_t, int32_t, (size_t)1 << 20);
    else if (dt->kind == 'i' && dt->size == 2)
        INT_STATS(int16_t, int32_t, (size_t)1 << 12);
    else if (dt->kind == 'u' && dt->size == 2)
        INT_STATS(uint16_t, int32_t, (size_t)1 << 12);
    else if (dt->kind == 'i' && dt->size == 4)
        INT_STATS(int32_t, int64_t, (size_t)1 << 30);
    else if (dt->kind == 'u' && dt->size == 4)
        INT_STATS(uint32_t, int64_t, (size_t)1 << 30);
    else if (dt->kind == 'i')
        INT_STATS(int64_t, double, (size_t)1 << 30);
    else if (dt->kind == 'u')
        INT_STATS(uint64_t, double, (size_t)1 << 30);
    else {
        /* floats (f2 converted): NaNs are counted and skipped */
        s->have_minmax = 0;
        for (size_t i = 0; i < n; i++) {
            double v = as_double(dt, data + i * dt->size);
            if (isnan(v)) {
                s->n_nan++;
                continue;
            }
            s->sum += v;
            if (!s->have_minmax || v < s->min)
                s->min = v;
            if (!s->have_minmax || v > s->max)
                s->max = v;
            s->have_minmax = 1;
        }
    }
}

static int dump_produce(void *vctx, size_t worker, uint64_t block, void *vslot)
{
    struct dump_ctx *c = vctx;
    struct dump_slot *s = vslot;
    const struct gsvd_zarray *z = c->z;
    uint64_t start[GSVD_MAX_DIMS], count[GSVD_MAX_DIMS], items = 1;
    int rc = GSVD_OK;
    size_t nd = z->ndim;

    memcpy(start, c->start, sizeof start);
    memcpy(count, c->count, sizeof count);
    if (nd > 0) {
        /* blocks follow the chunk grid of axis 0 */
        uint64_t c0 = z->chunks[0], first = c->start[0];
        uint64_t lo = block == 0 ? first : (first / c0 + block) * c0;
        uint64_t hi = (first / c0 + block + 1) * c0;
        if (hi > c->start[0] + c->count[0])
            hi = c->start[0] + c->count[0];
        start[0] = lo;
        count[0] = hi - lo;
    }
    for (size_t d = 0; d < nd; d++)
        items *= count[d];
    gsvd_buf_clear(&s->text);
    s->n_values = s->n_nan = 0;
    s->sum = 0;
    s->have_minmax = 0;
    if (z->dtype.kind == 'O') {
        gsvd_strlist_free(&s->strs);
        GSVD_TRY(gsvd_reader_read_objects(c->readers[worker], start, count, &s->strs));
        if (c->stats) {
            s->n_values = s->strs.n;
            goto out;
        }
        for (size_t i = 0; i < s->strs.n; i++) {
            GSVD_TRY(put_escaped(&s->text, (const unsigned char *)s->strs.items[i],
                                 strlen(s->strs.items[i]), 0));
            GSVD_TRY(gsvd_buf_puts(&s->text, separator(count, nd, i)));
        }
        goto out;
    }
    GSVD_TRY(gsvd_reader_read(c->readers[worker], start, count, s->data));
    if (c->stats) {
        block_stats(&z->dtype, s->data, (size_t)items, s);
        goto out;
    }
    for (uint64_t i = 0; i < items; i++) {
        GSVD_TRY(put_value(&s->text, z, s->data + i * z->dtype.size));
        GSVD_TRY(gsvd_buf_puts(&s->text, separator(count, nd, i)));
    }
out:
    return rc;
}

static int dump_consume(void *vctx, uint64_t block, void *vslot)
{
    struct dump_ctx *c = vctx;
    struct dump_slot *s = vslot;
    gsvd_progress_report(&c->progress, "reading", block + 1, c->n_blocks);
    if (c->stats) {
        c->n_values += s->n_values;
        c->n_nan += s->n_nan;
        c->sum += s->sum;
        if (s->have_minmax) {
            if (!c->have_minmax || s->min < c->min)
                c->min = s->min;
            if (!c->have_minmax || s->max > c->max)
                c->max = s->max;
            c->have_minmax = 1;
        }
        return GSVD_OK;
    }
    if (s->text.len && fwrite(s->text.data, 1, s->text.len, stdout) != s->text.len) {
        gsvd_log_error("error writing to standard output");
        return GSVD_EIO;
    }
    return GSVD_OK;
}

static int run_dump(gsvd_array *a, const char *slice, int stats, size_t threads,
                    struct gsvd_progress progress)
{
    struct dump_ctx c = {0};
    struct dump_slot *slots = NULL;
    void **ptrs = NULL;
    size_t depth, block_bytes = 1, nw;
    int rc = GSVD_OK;

    c.arr = a;
    c.z = gsvd_array_meta(a);
    c.stats = stats;
    c.progress = progress;
    if (parse_slice(slice, c.z, c.start, c.count) < 0) {
        gsvd_log_error("invalid --slice '%s' for an array of shape with %zu axes", slice,
                       c.z->ndim);
        return GSVD_EINVAL;
    }
    if (c.z->ndim == 0) {
        c.n_blocks = 1;
    } else {
        uint64_t c0 = c.z->chunks[0];
        uint64_t lo = c.start[0] / c0, hi = (c.start[0] + c.count[0] + c0 - 1) / c0;
        c.n_blocks = c.count[0] ? hi - lo : 0;
        for (size_t d = 0; d < c.z->ndim; d++)
            if (c.count[d] == 0)
                c.n_blocks = 0;
        if (gsvd_mul_size(block_bytes, (size_t)c0, &block_bytes) < 0)
            return GSVD_EFORMAT;
        for (size_t d = 1; d < c.z->ndim; d++)
            if (gsvd_mul_size(block_bytes, (size_t)c.count[d], &block_bytes) < 0)
                return GSVD_EFORMAT;
    }
    if (gsvd_mul_size(block_bytes, c.z->dtype.size, &block_bytes) < 0)
        return GSVD_EFORMAT;
    nw = threads;
    if (c.n_blocks < nw)
        nw = c.n_blocks ? (size_t)c.n_blocks : 1;
    depth = 2 * nw;
    slots = gsvd_calloc(depth, sizeof *slots);
    ptrs = gsvd_calloc(depth, sizeof *ptrs);
    if (!slots || !ptrs) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_reader_pool_new(a, nw, &c.readers));
    if (c.n_blocks > 0)
        GSVD_TRY(gsvd_array_prefetch(a, 0, c.start, c.count)); /* read-ahead for remote stores */
    for (size_t i = 0; i < depth; i++) {
        if (c.z->dtype.kind != 'O') {
            slots[i].data = gsvd_malloc(block_bytes);
            if (!slots[i].data) {
                rc = GSVD_ENOMEM;
                goto out;
            }
        }
        ptrs[i] = &slots[i];
    }
    struct gsvd_pipeline_params pp = {.n_workers = nw, .depth = depth, .slots = ptrs};
    GSVD_TRY(gsvd_pipeline_run(&pp, c.n_blocks, dump_produce, dump_consume, &c));
    if (stats) {
        printf("count\t%" PRIu64 "\n", c.n_values);
        if (c.z->dtype.kind != 'O' && c.z->dtype.kind != 'S' && c.z->dtype.kind != 'U') {
            printf("nan\t%" PRIu64 "\n", c.n_nan);
            if (c.have_minmax)
                printf("min\t%.17g\nmax\t%.17g\n", c.min, c.max);
            else
                printf("min\tnan\nmax\tnan\n");
            printf("sum\t%.17g\n", c.sum);
        }
    }
out:
    gsvd_reader_pool_free(c.readers, nw);
    for (size_t i = 0; slots && i < depth; i++) {
        gsvd_buf_free(&slots[i].text);
        gsvd_free(slots[i].data);
        gsvd_strlist_free(&slots[i].strs);
    }
    gsvd_free(slots);
    gsvd_free(ptrs);
    return rc;
}

int gsvd_cmd_dump(int argc, char **argv)
{
    struct dump_opts o = {.common = GSVD_CLI_COMMON_DEFAULT};
    struct gsvd_cli_input in = {0};
    struct gsvd_cli_bar bar;
    gsvd_array *a = NULL;
    int first, kind, rc = gsvd_opts_parse(&gsvd_cmd_dump_spec, argc, argv, &o, &first);

    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    if (first != argc - 1)
        return gsvd_cli_usage_error("dump", first >= argc ? "missing INPUT" : "too many arguments");
    gsvd_cli_common_apply(&o.common);
    rc = gsvd_cli_open_input(argv[first], o.array, &in);
    if (rc < 0)
        goto out;
    kind = gsvd_tree_node_kind(in.tree, in.node);
    if (kind < 0) { /* logged */
        rc = kind;
        goto out;
    }
    if (kind == GSVD_NODE_GROUP) {
        gsvd_log_error("%s: '%s' is a group; name an array (INPUT/ARRAY or --array)", argv[first],
                       in.node);
        rc = GSVD_EINVAL;
        goto out;
    }
    rc = gsvd_array_open(in.tree, in.node, &a);
    if (rc < 0)
        goto out;
    rc = run_dump(a, o.slice, o.stats, o.common.threads,
                  gsvd_cli_progress(&bar, "chunk rows", o.common.progress));
out:
    gsvd_array_close(a);
    gsvd_cli_close_input(&in);
    return gsvd_cli_exit_code(rc);
}
