/* cli/cmd_info.c - `gensvd info`: the tree of groups and arrays with their layout and sizes, as
 * the library walks it (include/gensvd.h: gensvd_source_node, gensvd_array_*), one line per
 * node printed as the walk reaches it. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_base.h"
#include "cli/opts_source.h"
#include "include/gensvd.h"

struct info_opts {
    int exact_bytes; /* --bytes: print byte counts exactly */
    int no_sizes;    /* --no-sizes: skip scanning chunk sizes */
    struct gsvd_cli_common common;
};

static const struct gsvd_opt info_options[] = {
    {.name = "bytes",
     .key = 'b',
     .type = GSVD_OPT_FLAG,
     GSVD_OPT_FIELD(struct info_opts, exact_bytes),
     .value = 1,
     .help = "print sizes as exact byte counts"},
    {.name = "no-sizes",
     .type = GSVD_OPT_FLAG,
     GSVD_OPT_FIELD(struct info_opts, no_sizes),
     .value = 1,
     .help = "do not look up stored chunk sizes (faster on remote stores)"},
};
static const struct gsvd_opt_group info_group = {NULL, info_options, GSVD_CLI_LEN(info_options),
                                                 NULL};
static const struct gsvd_opt_bind info_groups[] = {
    {&info_group, 0},
    {&gsvd_opts_basic, offsetof(struct info_opts, common)},
    {&gsvd_opts_remote, offsetof(struct info_opts, common)},
};
const struct gsvd_cmd_spec gsvd_cmd_info_spec = {
    .name = "info",
    .intro = "Usage: gensvd info [options] INPUT\n"
             "Print the tree of groups and arrays under INPUT (a Zarr v2 or v3 store, group or\n"
             "array):\n"
             "shape, dtype, chunks, codec chain, stored and raw bytes and their ratio.\n",
    .groups = info_groups,
    .n_groups = GSVD_CLI_LEN(info_groups),
    .opts_size = sizeof(struct info_opts),
    .footer = "Exit status: 0 success, 1 failure, 2 usage error.\n",
};

static void human(uint64_t n, int exact, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)n;
    size_t u = 0;
    if (exact || n < 1024) {
        snprintf(buf, len, "%llu%s", (unsigned long long)n, exact ? "" : " B");
        return;
    }
    while (v >= 1024 && u + 1 < GSVD_CLI_LEN(units)) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, "%.1f %s", v, units[u]);
}

static void dims_text(const uint64_t *d, size_t n, char *buf, size_t len)
{
    size_t o = 0;
    if (n == 0) {
        snprintf(buf, len, "()");
        return;
    }
    for (size_t i = 0; i < n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%llu", i ? " x " : "", (unsigned long long)d[i]);
}

/* A number of the array (0 when the name is unknown: cannot happen). */
static uint64_t array_int(const gensvd_array *a, const char *name)
{
    int64_t v = 0;
    return gensvd_array_get_int(a, name, &v) == GENSVD_OK ? (uint64_t)v : 0;
}

/* The line of the array at `path` (below the source's node), named `name`. */
static int print_array(gensvd_source *src, const char *path, const char *name, unsigned depth,
                       const struct info_opts *o)
{
    gensvd_array *a = NULL;
    const uint64_t *shape, *chunk;
    const char *dim;
    char shape_s[256], chunks_s[256], stored_s[32], raw_s[32];
    uint64_t stored = 0, n_stored = 0, items = 1, total, shards, item_size;
    size_t ndim;
    int rc = gensvd_array_open(src, path, &a);

    if (rc != GENSVD_OK)
        return rc;
    ndim = gensvd_array_shape(a, &shape, &chunk);
    dims_text(shape, ndim, shape_s, sizeof shape_s);
    dims_text(chunk, ndim, chunks_s, sizeof chunks_s);
    for (size_t d = 0; d < ndim; d++)
        items *= shape[d];
    shards = array_int(a, "shard-count");
    total = shards ? shards : array_int(a, "chunk-count");
    item_size = array_int(a, "item-size");
    printf("%*s%s  array  shape %s  dtype %s  chunks %s  codecs %s", 2 * (int)depth, "", name,
           shape_s, gensvd_array_get_string(a, "dtype"), chunks_s,
           gensvd_array_get_string(a, "codecs"));
    if (!strcmp(gensvd_array_get_string(a, "order"), "F"))
        printf("  order F");
    if (array_int(a, "zarr-format") == 3)
        printf("  format v3");
    for (size_t i = 0; (dim = gensvd_array_dim_name(a, i)) != NULL; i++)
        printf("%s%s", i ? "," : "  dims ", dim);
    if (!o->no_sizes) {
        rc = gensvd_array_stored_bytes(a, &stored, &n_stored);
        if (rc != GENSVD_OK)
            goto out;
        human(stored, o->exact_bytes, stored_s, sizeof stored_s);
        printf("  stored %s in %llu/%llu %s", stored_s, (unsigned long long)n_stored,
               (unsigned long long)total, shards ? "shards" : "chunks");
        if (gensvd_array_dtype(a) != GENSVD_DTYPE_STRING) {
            human(items * item_size, o->exact_bytes, raw_s, sizeof raw_s);
            printf("  raw %s", raw_s);
            if (stored > 0)
                printf("  ratio %.2f", (double)(items * item_size) / (double)stored);
        }
    }
    putchar('\n');
out:
    gensvd_array_close(a);
    return rc;
}

/* Every node under the source's node, one line each, in the library's walk order. */
static int print_tree(gensvd_source *src, const struct info_opts *o)
{
    const char *node = gensvd_source_get_string(src, "node");
    int64_t format = 0, consolidated = 0;
    int rc = GENSVD_OK;

    if (gensvd_source_get_int(src, "zarr-format", &format) != GENSVD_OK ||
        gensvd_source_get_int(src, "consolidated", &consolidated) != GENSVD_OK || !node)
        return GENSVD_EINTERNAL;
    for (size_t i = 0; rc == GENSVD_OK; i++) {
        const char *path = NULL, *base, *name;
        unsigned depth = 0;
        enum gensvd_node_kind kind = 0;
        rc = gensvd_source_node(src, i, &path, &depth, &kind);
        if (rc != GENSVD_OK || !path)
            break;
        /* the last component of the node's path in the store, "" at the store's root */
        base = *path ? path : node;
        name = strrchr(base, '/') ? strrchr(base, '/') + 1 : base;
        if (kind == GENSVD_NODE_ARRAY) {
            rc = print_array(src, path, *name ? name : "/", depth, o);
            continue;
        }
        printf("%*s%s/  group%s%s\n", 2 * (int)depth, "",
               *name ? name : gensvd_source_get_string(src, "store"),
               depth == 0 && format == 3 ? "  format v3" : "",
               depth == 0 && consolidated ? "  consolidated" : "");
    }
    return rc;
}

int gsvd_cmd_info(int argc, char **argv)
{
    struct info_opts o = {.common = GSVD_CLI_COMMON_DEFAULT};
    const struct gsvd_cli_geno geno = GSVD_CLI_GENO_DEFAULT; /* no input options */
    gensvd_ctx *ctx = NULL;
    gensvd_source *src = NULL;
    int first, rc = gsvd_opts_parse(&gsvd_cmd_info_spec, argc, argv, &o, &first);

    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    if (first != argc - 1)
        return gsvd_cli_usage_error("info", first >= argc ? "missing INPUT" : "too many arguments");
    gsvd_cli_common_apply(&o.common);
    rc = gsvd_cli_ctx(&o.common, NULL, NULL, NULL, &ctx);
    if (rc == GENSVD_OK)
        rc = gsvd_cli_source(ctx, argv[first], &geno, NULL, NULL, NULL, &src);
    if (rc == GENSVD_OK)
        rc = print_tree(src, &o);
    gensvd_source_free(src);
    gensvd_ctx_free(ctx);
    return gsvd_cli_exit_code(rc);
}
