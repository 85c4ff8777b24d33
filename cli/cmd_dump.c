/* cli/cmd_dump.c - `gensvd dump`: array values as TSV on stdout, or summary statistics.
 * The library reads the selection block by block (a chunk row of axis 0 each), its threads
 * decoding ahead, and hands the blocks over in order (include/gensvd.h,
 * gensvd_array_read_blocks); each is formatted or summed here as it arrives, so the output is
 * the same for any thread count and memory stays bounded whatever the array's size. */
#include "gsvd_config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_base.h"
#include "cli/opts_source.h"
#include "include/gensvd.h"

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
static const struct gsvd_opt_group dump_group = {NULL, dump_options, GSVD_CLI_LEN(dump_options),
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
    .n_groups = GSVD_CLI_LEN(dump_groups),
    .opts_size = sizeof(struct dump_opts),
    .footer = "Exit status: 0 success, 1 failure, 2 usage error.\n",
};

/* Text on its way to stdout, written in pieces of up to its size. */
struct out {
    size_t len;
    int failed; /* a write to stdout failed (reported once) */
    char buf[1 << 16];
};

static int out_flush(struct out *o)
{
    if (o->len && !o->failed && fwrite(o->buf, 1, o->len, stdout) != o->len) {
        gsvd_cli_msg_log(GENSVD_LOG_ERROR, "error writing to standard output");
        o->failed = 1;
    }
    o->len = 0;
    return o->failed ? -1 : 0;
}

static void out_put(struct out *o, const void *p, size_t n)
{
    if (n > sizeof o->buf - o->len) {
        out_flush(o);
        if (n > sizeof o->buf) { /* a long string: straight through */
            if (!o->failed && fwrite(p, 1, n, stdout) != n) {
                gsvd_cli_msg_log(GENSVD_LOG_ERROR, "error writing to standard output");
                o->failed = 1;
            }
            return;
        }
    }
    memcpy(o->buf + o->len, p, n);
    o->len += n;
}

static void out_puts(struct out *o, const char *s)
{
    out_put(o, s, strlen(s));
}

/* A finite float of `size` bytes with the digits that give it back: %.5g, %.9g, %.17g. */
static void out_float(struct out *o, size_t size, double v)
{
    char t[40];
    int k = size == 2   ? snprintf(t, sizeof t, "%.5g", v)
            : size == 4 ? snprintf(t, sizeof t, "%.9g", v)
                        : snprintf(t, sizeof t, "%.17g", v);
    out_put(o, t, k > 0 ? (size_t)k : 0);
}

static void out_u64(struct out *o, uint64_t v, int negative)
{
    char t[24];
    size_t k = sizeof t;
    do {
        t[--k] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (negative)
        t[--k] = '-';
    out_put(o, t + k, sizeof t - k);
}

/* Parse --slice against the array's shape into [start, stop). */
static int parse_slice(const char *spec, size_t ndim, const uint64_t *shape, uint64_t *start,
                       uint64_t *stop)
{
    size_t d = 0;
    const char *p = spec;

    for (size_t i = 0; i < ndim; i++) {
        start[i] = 0;
        stop[i] = shape[i];
    }
    while (spec && *p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char part[64], *colon;
        uint64_t a = 0, b;
        if (d >= ndim || len >= sizeof part)
            return -1;
        memcpy(part, p, len);
        part[len] = '\0';
        b = shape[d];
        colon = strchr(part, ':');
        if (colon) {
            *colon = '\0';
            if (*part && gsvd_cli_parse_uint(part, 0, shape[d], 0, &a) < 0)
                return -1;
            if (colon[1] && gsvd_cli_parse_uint(colon + 1, 0, shape[d], 0, &b) < 0)
                return -1;
        } else if (*part) {
            if (gsvd_cli_parse_uint(part, 0, shape[d] ? shape[d] - 1 : 0, 0, &a) < 0 ||
                shape[d] == 0)
                return -1;
            b = a + 1;
        }
        if (b < a)
            return -1;
        start[d] = a;
        stop[d] = b;
        d++;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

static uint16_t load_u16(const unsigned char *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* IEEE 754 half precision to double (exact). */
static double half_to_double(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* Element value as double (numeric types) for --stats. */
static double as_double(enum gensvd_dtype t, const unsigned char *p)
{
    union {
        int8_t i1;
        int16_t i2;
        int32_t i4;
        int64_t i8;
        uint16_t u2;
        uint32_t u4;
        uint64_t u8;
        float f4;
        double f8;
    } v;
    switch (t) {
    case GENSVD_DTYPE_BOOL:
        return p[0] != 0;
    case GENSVD_DTYPE_INT8:
        return (int8_t)p[0];
    case GENSVD_DTYPE_UINT8:
        return p[0];
    case GENSVD_DTYPE_INT16:
        memcpy(&v.i2, p, 2);
        return v.i2;
    case GENSVD_DTYPE_UINT16:
        return load_u16(p);
    case GENSVD_DTYPE_INT32:
        memcpy(&v.i4, p, 4);
        return v.i4;
    case GENSVD_DTYPE_UINT32:
        memcpy(&v.u4, p, 4);
        return v.u4;
    case GENSVD_DTYPE_INT64:
        memcpy(&v.i8, p, 8);
        return (double)v.i8;
    case GENSVD_DTYPE_UINT64:
        memcpy(&v.u8, p, 8);
        return (double)v.u8;
    case GENSVD_DTYPE_FLOAT16:
        return half_to_double(load_u16(p));
    case GENSVD_DTYPE_FLOAT32:
        memcpy(&v.f4, p, 4);
        return v.f4;
    case GENSVD_DTYPE_FLOAT64:
        memcpy(&v.f8, p, 8);
        return v.f8;
    default:
        return NAN;
    }
}

/* UTF-8 of code point c into u: its length, or 0 for a surrogate or a value past U+10FFFF. */
static size_t utf8_encode(uint32_t c, unsigned char u[4])
{
    if (c < 0x80) {
        u[0] = (unsigned char)c;
        return 1;
    }
    if (c < 0x800) {
        u[0] = (unsigned char)(0xc0 | (c >> 6));
        u[1] = (unsigned char)(0x80 | (c & 0x3f));
        return 2;
    }
    if (c >= 0xd800 && c <= 0xdfff)
        return 0;
    if (c < 0x10000) {
        u[0] = (unsigned char)(0xe0 | (c >> 12));
        u[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
        u[2] = (unsigned char)(0x80 | (c & 0x3f));
        return 3;
    }
    if (c < 0x110000) {
        u[0] = (unsigned char)(0xf0 | (c >> 18));
        u[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
        u[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
        u[3] = (unsigned char)(0x80 | (c & 0x3f));
        return 4;
    }
    return 0;
}

static void put_escaped(struct out *o, const unsigned char *s, size_t n, int bytes)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = s[i];
        if (ch == '\t') {
            out_put(o, "\\t", 2);
        } else if (ch == '\n') {
            out_put(o, "\\n", 2);
        } else if (ch == '\\') {
            out_put(o, "\\\\", 2);
        } else if (ch < 0x20 || ch == 0x7f || (bytes && ch >= 0x80)) {
            char t[8];
            snprintf(t, sizeof t, "\\x%02x", ch);
            out_put(o, t, 4);
        } else {
            out_put(o, &ch, 1);
        }
    }
}

/* Append one element's text. */
static void put_value(struct out *o, enum gensvd_dtype t, size_t size, const unsigned char *p)
{
    double v;
    switch (t) {
    case GENSVD_DTYPE_BOOL:
        out_put(o, p[0] ? "1" : "0", 1);
        return;
    case GENSVD_DTYPE_INT8:
    case GENSVD_DTYPE_INT16:
    case GENSVD_DTYPE_INT32:
    case GENSVD_DTYPE_INT64: {
        int64_t x;
        if (t == GENSVD_DTYPE_INT64)
            memcpy(&x, p, 8);
        else
            x = (int64_t)as_double(t, p);
        out_u64(o, x < 0 ? 0 - (uint64_t)x : (uint64_t)x, x < 0);
        return;
    }
    case GENSVD_DTYPE_UINT8:
    case GENSVD_DTYPE_UINT16:
    case GENSVD_DTYPE_UINT32:
    case GENSVD_DTYPE_UINT64: {
        uint64_t x = 0;
        memcpy(&x, p, size); /* little-endian host */
        out_u64(o, x, 0);
        return;
    }
    case GENSVD_DTYPE_FLOAT16:
    case GENSVD_DTYPE_FLOAT32:
    case GENSVD_DTYPE_FLOAT64:
        v = as_double(t, p);
        if (isnan(v))
            out_puts(o, "nan");
        else if (isinf(v))
            out_puts(o, v > 0 ? "inf" : "-inf");
        else
            out_float(o, size, v);
        return;
    case GENSVD_DTYPE_BYTES:
        while (size > 0 && p[size - 1] == 0)
            size--; /* numpy strips trailing NULs only */
        put_escaped(o, p, size, 1);
        return;
    case GENSVD_DTYPE_UTF32: {
        size_t n = size / 4;
        uint32_t c;
        while (n > 0 && (memcpy(&c, p + 4 * (n - 1), 4), c == 0))
            n--;
        for (size_t i = 0; i < n; i++) {
            unsigned char u[4];
            size_t k;
            memcpy(&c, p + 4 * i, 4);
            k = utf8_encode(c, u);
            if (k == 0) { /* not a code point: show the raw value */
                char x[16];
                snprintf(x, sizeof x, "\\U%08x", (unsigned)c);
                out_put(o, x, 10);
            } else if (k == 1) {
                put_escaped(o, u, 1, 0);
            } else {
                out_put(o, u, k);
            }
        }
        return;
    }
    default: /* strings come as such (GENSVD_DTYPE_STRING: put_escaped) */
        return;
    }
}

/* Separator after element i of a row-major block with extents cnt[0..nd-1]. */
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

/* --stats of a block, merged into the totals in block order. */
struct stats {
    uint64_t n_values, n_nan;
    double sum, min, max;
    int have_minmax;
};

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

/* (not under a sanitizer: the ifunc resolver runs before its runtime, common/gsvd_defs.h) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&                             \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("avx2", "default")))
#endif
static void
block_stats(enum gensvd_dtype t, size_t size, const unsigned char *data, size_t n, struct stats *s)
{
    memset(s, 0, sizeof *s);
    s->n_values = n;
    if (n == 0 || t == GENSVD_DTYPE_BYTES || t == GENSVD_DTYPE_UTF32 || t == GENSVD_DTYPE_STRING)
        return;
    s->have_minmax = 1;
    if (t == GENSVD_DTYPE_BOOL || t == GENSVD_DTYPE_UINT8)
        INT_STATS(uint8_t, int32_t, (size_t)1 << 20);
    else if (t == GENSVD_DTYPE_INT8)
        INT_STATS(int8_t, int32_t, (size_t)1 << 20);
    else if (t == GENSVD_DTYPE_INT16)
        INT_STATS(int16_t, int32_t, (size_t)1 << 12);
    else if (t == GENSVD_DTYPE_UINT16)
        INT_STATS(uint16_t, int32_t, (size_t)1 << 12);
    else if (t == GENSVD_DTYPE_INT32)
        INT_STATS(int32_t, int64_t, (size_t)1 << 30);
    else if (t == GENSVD_DTYPE_UINT32)
        INT_STATS(uint32_t, int64_t, (size_t)1 << 30);
    else if (t == GENSVD_DTYPE_INT64)
        INT_STATS(int64_t, double, (size_t)1 << 30);
    else if (t == GENSVD_DTYPE_UINT64)
        INT_STATS(uint64_t, double, (size_t)1 << 30);
    else {
        /* floats (f2 converted): NaNs are counted and skipped */
        s->have_minmax = 0;
        for (size_t i = 0; i < n; i++) {
            double v = as_double(t, data + i * size);
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

struct dump {
    enum gensvd_dtype dtype;
    size_t size, ndim;
    int stats;
    struct stats total; /* --stats */
    struct out *out;    /* the values */
};

/* One block from the library, in order: summed into the totals, or written out. */
static int on_block(void *user, const uint64_t *start, const uint64_t *count, const void *data)
{
    struct dump *c = user;
    uint64_t items = 1;

    (void)start;
    for (size_t d = 0; d < c->ndim; d++)
        items *= count[d];
    if (c->stats) {
        struct stats s;
        block_stats(c->dtype, c->size, data, (size_t)items, &s);
        c->total.n_values += s.n_values;
        c->total.n_nan += s.n_nan;
        c->total.sum += s.sum;
        if (s.have_minmax) {
            if (!c->total.have_minmax || s.min < c->total.min)
                c->total.min = s.min;
            if (!c->total.have_minmax || s.max > c->total.max)
                c->total.max = s.max;
            c->total.have_minmax = 1;
        }
        return 0;
    }
    for (uint64_t i = 0; i < items; i++) {
        if (c->dtype == GENSVD_DTYPE_STRING) {
            const char *s = ((const char *const *)data)[i];
            put_escaped(c->out, (const unsigned char *)s, strlen(s), 0);
        } else {
            put_value(c->out, c->dtype, c->size, (const unsigned char *)data + i * c->size);
        }
        out_puts(c->out, separator(count, c->ndim, i));
    }
    return out_flush(c->out);
}

/* The array INPUT (and --array) names, checked to be one. */
static int open_array(gensvd_source *src, const char *input, const char *array, gensvd_array **out)
{
    int kind = gensvd_source_node_kind(src, array);

    *out = NULL;
    if (kind < 0)
        return kind; /* reported */
    if (kind == GENSVD_NODE_GROUP) {
        const char *node = gensvd_source_get_string(src, "node");
        size_t n = strlen(node);
        char msg[4096];
        while (array && *array == '/')
            array++;
        while (n > 0 && node[n - 1] == '/')
            n--;
        snprintf(msg, sizeof msg,
                 "%s: '%.*s%s%s' is a group; name an array (INPUT/ARRAY or --array)", input, (int)n,
                 node, n && array && *array ? "/" : "", array ? array : "");
        gsvd_cli_msg_log(GENSVD_LOG_ERROR, msg);
        return GENSVD_EINVAL;
    }
    return gensvd_array_open(src, array, out);
}

static int run_dump(gensvd_ctx *ctx, const struct dump_opts *o, const char *input)
{
    gensvd_source *src = NULL;
    gensvd_array *arr = NULL;
    const uint64_t *shape;
    uint64_t start[GENSVD_ARRAY_MAX_DIMS], stop[GENSVD_ARRAY_MAX_DIMS];
    struct out out = {0};
    struct dump c = {.stats = o->stats, .out = &out};
    int64_t size = 0;
    const struct gsvd_cli_geno geno = GSVD_CLI_GENO_DEFAULT; /* no input options */
    int rc = gsvd_cli_source(ctx, input, &geno, NULL, NULL, NULL, &src);

    if (rc == GENSVD_OK)
        rc = open_array(src, input, o->array, &arr);
    if (rc != GENSVD_OK)
        goto out;
    c.ndim = gensvd_array_shape(arr, &shape, NULL);
    c.dtype = gensvd_array_dtype(arr);
    rc = gensvd_array_get_int(arr, "item-size", &size);
    c.size = (size_t)size;
    if (rc == GENSVD_OK &&
        (c.ndim > GENSVD_ARRAY_MAX_DIMS || parse_slice(o->slice, c.ndim, shape, start, stop) < 0)) {
        char msg[512];
        snprintf(msg, sizeof msg, "invalid --slice '%s' for an array of shape with %zu axes",
                 o->slice ? o->slice : "(null)", c.ndim);
        gsvd_cli_msg_log(GENSVD_LOG_ERROR, msg);
        rc = GENSVD_EINVAL;
    }
    if (rc == GENSVD_OK)
        rc = gensvd_array_read_blocks(arr, start, stop, on_block, &c);
    out_flush(&out);
    if (rc == GENSVD_OK && o->stats) {
        printf("count\t%" PRIu64 "\n", c.total.n_values);
        if (c.dtype != GENSVD_DTYPE_STRING && c.dtype != GENSVD_DTYPE_BYTES &&
            c.dtype != GENSVD_DTYPE_UTF32) {
            printf("nan\t%" PRIu64 "\n", c.total.n_nan);
            if (c.total.have_minmax)
                printf("min\t%.17g\nmax\t%.17g\n", c.total.min, c.total.max);
            else
                printf("min\tnan\nmax\tnan\n");
            printf("sum\t%.17g\n", c.total.sum);
        }
    }
out:
    gensvd_array_close(arr);
    gensvd_source_free(src);
    return rc;
}

int gsvd_cmd_dump(int argc, char **argv)
{
    struct dump_opts o = {.common = GSVD_CLI_COMMON_DEFAULT};
    struct gsvd_cli_bar bar;
    gensvd_ctx *ctx = NULL;
    int first, rc = gsvd_opts_parse(&gsvd_cmd_dump_spec, argc, argv, &o, &first);

    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    if (first != argc - 1)
        return gsvd_cli_usage_error("dump", first >= argc ? "missing INPUT" : "too many arguments");
    gsvd_cli_common_apply(&o.common);
    rc = gsvd_cli_ctx(&o.common, NULL, &bar, "chunk rows", &ctx);
    if (rc == GENSVD_OK)
        rc = run_dump(ctx, &o, argv[first]);
    gensvd_ctx_free(ctx);
    return gsvd_cli_exit_code(rc);
}
