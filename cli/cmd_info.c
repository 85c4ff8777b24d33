/* cli/cmd_info.c - `gensvd info`: the tree of groups and arrays with their layout and sizes. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/array.h"
#include "zarr/store.h"

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
static const struct gsvd_opt_group info_group = {NULL, info_options, GSVD_ARRAY_LEN(info_options),
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
    .n_groups = GSVD_ARRAY_LEN(info_groups),
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
    while (v >= 1024 && u + 1 < GSVD_ARRAY_LEN(units)) {
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

static int print_array(struct gsvd_cli_input *in, const char *path, int depth,
                       const struct info_opts *o)
{
    int rc = GSVD_OK;
    gsvd_array *a = NULL;
    struct gsvd_strlist dims = GSVD_STRLIST_INIT;
    char shape[256], chunks[256], dt[32], codecs[256], stored[32], raw[32];
    uint64_t stored_bytes = 0, n_chunks = 0, items = 1, total_chunks = 1;
    const struct gsvd_zarray *z;
    const char *name = strrchr(path, '/');

    GSVD_TRY(gsvd_array_open(in->tree, path, &a));
    z = gsvd_array_meta(a);
    GSVD_TRY(gsvd_array_dim_names(a, &dims));
    dims_text(z->shape, z->ndim, shape, sizeof shape);
    dims_text(z->chunks, z->ndim, chunks, sizeof chunks);
    gsvd_dtype_format(&z->dtype, dt, sizeof dt);
    gsvd_codec_chain_describe(z->codecs, codecs, sizeof codecs);
    for (size_t d = 0; d < z->ndim; d++) {
        items *= z->shape[d];
        total_chunks *= z->sharded ? z->shard_grid[d] : z->grid[d];
    }
    printf("%*s%s  array  shape %s  dtype %s  chunks %s  codecs %s", 2 * depth, "",
           name ? name + 1 : (*path ? path : "/"), shape, dt, chunks, codecs);
    if (z->order == 'F')
        printf("  order F");
    if (z->zarr_format == 3)
        printf("  format v3");
    if (dims.n) {
        printf("  dims ");
        for (size_t i = 0; i < dims.n; i++)
            printf("%s%s", i ? "," : "", dims.items[i]);
    }
    if (!o->no_sizes) {
        GSVD_TRY(gsvd_array_stored_bytes(a, &stored_bytes, &n_chunks));
        human(stored_bytes, o->exact_bytes, stored, sizeof stored);
        printf("  stored %s in %llu/%llu %s", stored, (unsigned long long)n_chunks,
               (unsigned long long)total_chunks, z->sharded ? "shards" : "chunks");
        if (z->dtype.kind != 'O') {
            human(items * z->dtype.size, o->exact_bytes, raw, sizeof raw);
            printf("  raw %s", raw);
            if (stored_bytes > 0)
                printf("  ratio %.2f", (double)(items * z->dtype.size) / (double)stored_bytes);
        }
    }
    putchar('\n');
out:
    gsvd_strlist_free(&dims);
    gsvd_array_close(a);
    return rc;
}

static int print_node(struct gsvd_cli_input *in, const char *path, int depth,
                      const struct info_opts *o)
{
    int rc = GSVD_OK, kind = gsvd_tree_node_kind(in->tree, path);
    struct gsvd_strlist children = GSVD_STRLIST_INIT;
    char *sub = NULL;
    const char *name = strrchr(path, '/');

    if (kind < 0)
        return kind;
    if (kind == GSVD_NODE_ARRAY)
        return print_array(in, path, depth, o);
    if (kind == GSVD_NODE_NONE) {
        gsvd_log_error("%s/%s: no Zarr group or array here", gsvd_store_url(in->store), path);
        return GSVD_ENOTFOUND;
    }
    printf("%*s%s/  group%s%s\n", 2 * depth, "",
           name ? name + 1 : (*path ? path : gsvd_store_url(in->store)),
           depth == 0 && gsvd_tree_format(in->tree) == 3 ? "  format v3" : "",
           depth == 0 && gsvd_tree_is_consolidated(in->tree) ? "  consolidated" : "");
    GSVD_TRY(gsvd_tree_children(in->tree, path, &children));
    for (size_t i = 0; i < children.n; i++) {
        gsvd_free(sub);
        sub = NULL;
        GSVD_TRY(gsvd_key_join(path, children.items[i], &sub));
        GSVD_TRY(print_node(in, sub, depth + 1, o));
    }
out:
    gsvd_free(sub);
    gsvd_strlist_free(&children);
    return rc;
}

int gsvd_cmd_info(int argc, char **argv)
{
    struct info_opts o = {.common = GSVD_CLI_COMMON_DEFAULT};
    struct gsvd_cli_input in = {0};
    int first, rc = gsvd_opts_parse(&gsvd_cmd_info_spec, argc, argv, &o, &first);

    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    if (first != argc - 1)
        return gsvd_cli_usage_error("info", first >= argc ? "missing INPUT" : "too many arguments");
    gsvd_cli_common_apply(&o.common);
    rc = gsvd_cli_open_input(argv[first], NULL, &in);
    if (rc == GSVD_OK)
        rc = print_node(&in, in.node, 0, &o);
    gsvd_cli_close_input(&in);
    return gsvd_cli_exit_code(rc);
}
