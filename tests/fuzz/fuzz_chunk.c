/* tests/fuzz/fuzz_chunk.c - libFuzzer target for chunk decoding through the real reader.
 * Input: byte 0 picks one of a fixed set of small arrays (dtype, codec chain, order, separator,
 * rank, fill value, edge chunks; see `arrays`); the rest of the input is stored as that array's
 * one stored chunk in a mem: store next to its .zarray (the others, where the grid has more,
 * are missing and read as fill_value).  The store is then opened as a tree, the array opened, and
 * the whole array read with gsvd_reader_read (numeric, S and U), gsvd_reader_read_strings (1-D
 * strings) or gsvd_reader_read_objects ('O').  Any return code is fine; a crash, leak or
 * sanitizer report is not.  Built with standalone.c when libFuzzer is not available. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/array.h"
#include "zarr/meta.h"
#include "zarr/reader.h"
#include "zarr/store.h"
#include "zarr/tree.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ZA_HEAD "{\"zarr_format\": 2, \"fill_value\": null, "

/* One array per selector; the selector is data[0] % GSVD_ARRAY_LEN(arrays).  Each has exactly
 * one chunk, `key`.  Keep in step with the seed corpus (tests/fuzz/corpus/chunk/NN_*). */
static const struct {
    const char *zarray;
    const char *key;
} arrays[] = {
    /* 0: |i1, blosc zstd bit shuffle, 2-D, chunk larger than the array */
    {ZA_HEAD "\"shape\": [5, 4], \"chunks\": [6, 5], \"dtype\": \"|i1\", \"order\": \"C\", "
             "\"compressor\": {\"blocksize\": 0, \"clevel\": 5, \"cname\": \"zstd\", \"id\": "
             "\"blosc\", \"shuffle\": 2}, \"filters\": null}",
     "0.0"},
    /* 1: <f8, zstd, F order */
    {ZA_HEAD "\"shape\": [4, 3], \"chunks\": [4, 3], \"dtype\": \"<f8\", \"order\": \"F\", "
             "\"compressor\": {\"id\": \"zstd\", \"level\": 1}, \"filters\": null}",
     "0.0"},
    /* 2: |O vlen-utf8 strings, zlib, 2-D */
    {"{\"zarr_format\": 2, \"fill_value\": \"\", \"shape\": [3, 2], \"chunks\": [3, 2], "
     "\"dtype\": \"|O\", \"order\": \"C\", \"compressor\": {\"id\": \"zlib\", \"level\": 1}, "
     "\"filters\": [{\"id\": \"vlen-utf8\"}]}",
     "0.0"},
    /* 3: >i4, no compressor, 1-D */
    {ZA_HEAD "\"shape\": [7], \"chunks\": [7], \"dtype\": \">i4\", \"order\": \"C\", "
             "\"compressor\": null, \"filters\": null}",
     "0"},
    /* 4: <u2, gzip with delta, "/" separator */
    {ZA_HEAD "\"shape\": [3, 4], \"chunks\": [3, 4], \"dtype\": \"<u2\", \"order\": \"C\", "
             "\"dimension_separator\": \"/\", \"compressor\": {\"id\": \"gzip\", \"level\": 1}, "
             "\"filters\": [{\"dtype\": \"<u2\", \"id\": \"delta\"}]}",
     "0/0"},
    /* 5: <f4, lz4, 0-d */
    {ZA_HEAD "\"shape\": [], \"chunks\": [], \"dtype\": \"<f4\", \"order\": \"C\", "
             "\"compressor\": {\"acceleration\": 1, \"id\": \"lz4\"}, \"filters\": null}",
     "0"},
    /* 6: |S3, zlib, 1-D strings */
    {ZA_HEAD "\"shape\": [4], \"chunks\": [5], \"dtype\": \"|S3\", \"order\": \"C\", "
             "\"compressor\": {\"id\": \"zlib\", \"level\": 1}, \"filters\": null}",
     "0"},
    /* 7: >U2, blosc lz4 byte shuffle, 1-D strings */
    {ZA_HEAD "\"shape\": [3], \"chunks\": [3], \"dtype\": \">U2\", \"order\": \"C\", "
             "\"compressor\": {\"blocksize\": 0, \"clevel\": 5, \"cname\": \"lz4\", \"id\": "
             "\"blosc\", \"shuffle\": 1}, \"filters\": null}",
     "0"},
    /* 8: |b1, no compressor, F order, 3-D */
    {ZA_HEAD "\"shape\": [2, 3, 2], \"chunks\": [2, 3, 2], \"dtype\": \"|b1\", \"order\": \"F\", "
             "\"compressor\": null, \"filters\": null}",
     "0.0.0"},
    /* 9: |O vlen-utf8, no compressor, F order */
    {"{\"zarr_format\": 2, \"fill_value\": 0, \"shape\": [2, 2], \"chunks\": [2, 2], "
     "\"dtype\": \"|O\", \"order\": \"F\", \"compressor\": null, "
     "\"filters\": [{\"id\": \"vlen-utf8\"}]}",
     "0.0"},
    /* 10: <i8, fill -1, F order, 3 x 2 grid of edge chunks: only 0.0 stored, the rest fill */
    {"{\"zarr_format\": 2, \"fill_value\": -1, \"shape\": [5, 3], \"chunks\": [2, 2], "
     "\"dtype\": \"<i8\", \"order\": \"F\", \"compressor\": null, \"filters\": null}",
     "0.0"},
    /* 11: <f2, fill NaN, blosc lz4 byte shuffle (typesize 2), chunk 1 missing */
    {"{\"zarr_format\": 2, \"fill_value\": \"NaN\", \"shape\": [3], \"chunks\": [2], "
     "\"dtype\": \"<f2\", \"order\": \"C\", \"compressor\": {\"blocksize\": 0, \"clevel\": 5, "
     "\"cname\": \"lz4\", \"id\": \"blosc\", \"shuffle\": 1}, \"filters\": null}",
     "0"},
    /* 12: >u8, the largest fill, zstd, "/" separator, row 1 missing */
    {"{\"zarr_format\": 2, \"fill_value\": 18446744073709551615, \"shape\": [2, 2], "
     "\"chunks\": [1, 2], \"dtype\": \">u8\", \"order\": \"C\", \"dimension_separator\": "
     "\"/\", \"compressor\": {\"id\": \"zstd\", \"level\": 1}, \"filters\": null}",
     "0/0"},
    /* 13: |b1, fill true, zlib, 2 x 2 grid over a 3 x 3 array (edge chunks, C order) */
    {"{\"zarr_format\": 2, \"fill_value\": true, \"shape\": [3, 3], \"chunks\": [2, 2], "
     "\"dtype\": \"|b1\", \"order\": \"C\", \"compressor\": {\"id\": \"zlib\", \"level\": 1}, "
     "\"filters\": null}",
     "1.1"},
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gsvd_meta_global_init();
    gsvd_log_set_level(GSVD_LOG_OFF); /* every rejected input would log */
    return 0;
}

/* Read the whole array with the call that fits its dtype; the return code does not matter. */
static void read_all(gsvd_array *a)
{
    const struct gsvd_zarray *z = gsvd_array_meta(a);
    uint64_t start[GSVD_MAX_DIMS] = {0};
    struct gsvd_strlist sl = GSVD_STRLIST_INIT;
    gsvd_reader *r = NULL;
    unsigned char *dst = NULL;
    size_t n = 1;

    if (gsvd_reader_new(a, &r) != GSVD_OK)
        return;
    for (size_t d = 0; d < z->ndim; d++)
        n *= (size_t)z->shape[d]; /* tiny fixed shapes: no overflow */
    if (z->dtype.kind == 'O') {
        if (gsvd_reader_read_objects(r, start, z->shape, &sl) == GSVD_OK && sl.n != n)
            __builtin_trap(); /* success must mean one string per element */
    } else {
        dst = gsvd_malloc(n * z->dtype.size);
        if (dst)
            (void)!gsvd_reader_read(r, start, z->shape, dst);
        if (z->ndim == 1 && (z->dtype.kind == 'S' || z->dtype.kind == 'U') &&
            gsvd_reader_read_strings(r, 0, z->shape[0], &sl) == GSVD_OK && sl.n != n)
            __builtin_trap();
    }
    gsvd_free(dst);
    gsvd_strlist_free(&sl);
    gsvd_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvd_store *st = NULL;
    gsvd_tree *t = NULL;
    gsvd_array *a = NULL;
    size_t sel;

    if (size < 1)
        return 0;
    sel = data[0] % GSVD_ARRAY_LEN(arrays);
    if (gsvd_store_open("mem:fuzz", GSVD_STORE_WRITE, &st) != GSVD_OK)
        return 0;
    if (gsvd_store_put(st, ".zarray", arrays[sel].zarray, strlen(arrays[sel].zarray)) != GSVD_OK ||
        gsvd_store_put(st, arrays[sel].key, data + 1, size - 1) != GSVD_OK)
        goto out;
    if (gsvd_tree_open(st, &t) != GSVD_OK)
        __builtin_trap(); /* the fixed metadata is valid: failing here is a bug */
    if (gsvd_array_open(t, "", &a) != GSVD_OK)
        __builtin_trap();
    read_all(a);
out:
    gsvd_array_close(a);
    gsvd_tree_close(t);
    gsvd_store_close(st);
    return 0;
}
