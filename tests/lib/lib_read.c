/* tests/lib/lib_read.c - a store reader over the public API (include/gensvd.h only), for
 * tests/lib/test_lib_read.py, which compares what it prints with zarr-python:
 *
 *   lib_read [--threads N] tree URL
 *       one line per node of gensvd_source_node: DEPTH TAB group|array TAB PATH
 *   lib_read [--threads N] array URL PATH
 *       the array's facts, one NAME TAB VALUE line each: ndim, shape, chunks (comma-joined),
 *       dtype (the public enum's value), typestr, codecs, order, zarr-format, item-size,
 *       chunk-count, shard-count, dims (comma-joined), stored-bytes, stored-objects
 *   lib_read [--threads N] [--slice A:B,C:D,...] read URL PATH OUT
 *       the region's values in C order into OUT (numbers and fixed-width strings as the blocks
 *       hold them; strings of a string array each followed by a NUL byte), and one line per
 *       block on stdout: START TAB COUNT (comma-joined)
 * Exit status 0, or 1 with the library's last error on stderr. */
#include <gensvd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reading {
    FILE *out;
    size_t ndim, item;
    enum gensvd_dtype dtype;
};

static void print_list(const char *name, const uint64_t *v, size_t n)
{
    printf("%s\t", name);
    for (size_t i = 0; i < n; i++)
        printf("%s%llu", i ? "," : "", (unsigned long long)v[i]);
    putchar('\n');
}

static int on_block(void *user, const uint64_t *start, const uint64_t *count, const void *data)
{
    struct reading *r = user;
    uint64_t n = 1;

    for (size_t d = 0; d < r->ndim; d++) {
        printf("%s%llu", d ? "," : "", (unsigned long long)start[d]);
        n *= count[d];
    }
    putchar('\t');
    for (size_t d = 0; d < r->ndim; d++)
        printf("%s%llu", d ? "," : "", (unsigned long long)count[d]);
    putchar('\n');
    if (r->dtype == GENSVD_DTYPE_STRING) {
        for (uint64_t i = 0; i < n; i++) {
            const char *s = ((const char *const *)data)[i];
            if (fwrite(s, 1, strlen(s) + 1, r->out) != strlen(s) + 1)
                return 1;
        }
        return 0;
    }
    return fwrite(data, r->item, (size_t)n, r->out) == n ? 0 : 1;
}

static int tree(gensvd_source *src)
{
    const char *path;
    unsigned depth;
    enum gensvd_node_kind kind;
    int rc;

    for (size_t i = 0; (rc = gensvd_source_node(src, i, &path, &depth, &kind)) == 0 && path; i++)
        printf("%u\t%s\t%s\n", depth, kind == GENSVD_NODE_GROUP ? "group" : "array", path);
    return rc;
}

static int facts(gensvd_array *a)
{
    static const char *const ints[] = {"zarr-format", "item-size", "chunk-count", "shard-count"};
    static const char *const strs[] = {"dtype", "codecs", "order"};
    const uint64_t *shape, *chunks;
    size_t ndim = gensvd_array_shape(a, &shape, &chunks);
    uint64_t bytes, objects;
    const char *dim;
    int rc;

    printf("ndim\t%zu\n", ndim);
    print_list("shape", shape, ndim);
    print_list("chunks", chunks, ndim);
    printf("dtype\t%d\n", (int)gensvd_array_dtype(a));
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
        int64_t v;
        if ((rc = gensvd_array_get_int(a, ints[i], &v)) != 0)
            return rc;
        printf("%s\t%lld\n", ints[i], (long long)v);
    }
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        printf("%s\t%s\n", strcmp(strs[i], "dtype") ? strs[i] : "typestr",
               gensvd_array_get_string(a, strs[i]));
    printf("dims\t");
    for (size_t i = 0; (dim = gensvd_array_dim_name(a, i)) != NULL; i++)
        printf("%s%s", i ? "," : "", dim);
    putchar('\n');
    if ((rc = gensvd_array_stored_bytes(a, &bytes, &objects)) != 0)
        return rc;
    printf("stored-bytes\t%llu\nstored-objects\t%llu\n", (unsigned long long)bytes,
           (unsigned long long)objects);
    return 0;
}

/* --slice A:B,...: [start, stop) of each axis named; the others whole. */
static int parse_slice(const char *spec, size_t ndim, const uint64_t *shape, uint64_t *start,
                       uint64_t *stop)
{
    for (size_t d = 0; d < ndim; d++) {
        start[d] = 0;
        stop[d] = shape[d];
    }
    for (size_t d = 0; spec && *spec; d++) {
        char *end;
        if (d >= ndim)
            return -1;
        start[d] = strtoull(spec, &end, 10);
        if (*end != ':')
            return -1;
        stop[d] = strtoull(end + 1, &end, 10);
        spec = *end == ',' ? end + 1 : end;
    }
    return 0;
}

static int read_values(gensvd_array *a, const char *slice, const char *file)
{
    uint64_t start[GENSVD_ARRAY_MAX_DIMS], stop[GENSVD_ARRAY_MAX_DIMS];
    const uint64_t *shape;
    struct reading r = {0};
    int64_t item = 0;
    int rc;

    r.ndim = gensvd_array_shape(a, &shape, NULL);
    r.dtype = gensvd_array_dtype(a);
    if ((rc = gensvd_array_get_int(a, "item-size", &item)) != 0)
        return rc;
    r.item = (size_t)item;
    if (parse_slice(slice, r.ndim, shape, start, stop) < 0)
        return fprintf(stderr, "lib_read: bad --slice '%s'\n", slice), GENSVD_EINVAL;
    if (!(r.out = fopen(file, "wb")))
        return fprintf(stderr, "lib_read: cannot write %s\n", file), GENSVD_EIO;
    rc = gensvd_array_read_blocks(a, start, stop, on_block, &r);
    if (fclose(r.out) != 0 && rc == 0)
        rc = GENSVD_EIO;
    return rc;
}

int main(int argc, char **argv)
{
    gensvd_ctx *ctx = gensvd_ctx_new();
    gensvd_source *src = NULL;
    gensvd_array *arr = NULL;
    const char *slice = NULL;
    int a = 1, rc = 0;

    if (!ctx)
        return 1;
    for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
        if (!strcmp(argv[a], "--threads"))
            rc = gensvd_ctx_set_int(ctx, "threads", strtoll(argv[a + 1], NULL, 10));
        else if (!strcmp(argv[a], "--slice"))
            slice = argv[a + 1];
        else
            rc = GENSVD_EINVAL;
    }
    if (rc != 0 || argc - a < 2 || (strcmp(argv[a], "tree") && argc - a < 3) ||
        (!strcmp(argv[a], "read") && argc - a < 4)) {
        fprintf(stderr,
                "usage: lib_read [--threads N] [--slice SPEC] tree|array|read URL [PATH [OUT]]\n");
        gensvd_ctx_free(ctx);
        return 2;
    }
    rc = gensvd_source_open(ctx, argv[a + 1], &src);
    if (rc == 0 && !strcmp(argv[a], "tree"))
        rc = tree(src);
    else if (rc == 0 && (rc = gensvd_array_open(src, argv[a + 2], &arr)) == 0)
        rc = !strcmp(argv[a], "array") ? facts(arr) : read_values(arr, slice, argv[a + 3]);
    if (rc != 0)
        fprintf(stderr, "lib_read: %s (%s)\n", gensvd_ctx_last_error(ctx), gensvd_strerror(rc));
    gensvd_array_close(arr);
    gensvd_source_free(src);
    gensvd_ctx_free(ctx);
    return rc == 0 ? 0 : 1;
}
