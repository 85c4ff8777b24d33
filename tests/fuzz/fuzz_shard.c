/* tests/fuzz/fuzz_shard.c - libFuzzer target for sharded Zarr v3 reads (zarr/array.c).
 * Input: byte 0 picks one of a fixed set of sharded arrays (index at the end or start, with or
 * without crc32c, inner codecs bytes / zstd / crc32c / transpose, strings; see `arrays`); the
 * rest of the input is stored as the array's first shard "c/0" (or "c/0/0") in a mem: store,
 * whose second shard is absent.  The store is opened as a tree, the array opened and read
 * whole through a reader, twice (the second time from the shard-index cache).  Any return code
 * is fine; a crash, leak or sanitizer report is not.  Built with standalone.c when libFuzzer is
 * not available. */
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

#define HEAD "{\"zarr_format\": 3, \"node_type\": \"array\", \"fill_value\": 0, "
#define LE "{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}"
#define CRC "{\"name\": \"crc32c\"}"
#define KEY1 "\"chunk_key_encoding\": {\"name\": \"default\"}, "

/* One array per selector (data[0] % count); the first shard is `key`.  Keep in step with the
 * seed corpus (tests/fuzz/corpus/shard/NN_*). */
static const struct {
    const char *json;
    const char *key;
} arrays[] = {
    /* 0: int32 [16], shards of 8, inner 2, index at the end with crc32c */
    {HEAD KEY1 "\"shape\": [16], \"data_type\": \"int32\", \"chunk_grid\": {\"name\": "
               "\"regular\", \"configuration\": {\"chunk_shape\": [8]}}, \"codecs\": "
               "[{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [2], "
               "\"codecs\": [" LE "], \"index_codecs\": [" LE ", " CRC "], "
               "\"index_location\": \"end\"}}]}",
     "c/0"},
    /* 1: int16 [16], index at the start without crc32c, inner zstd */
    {HEAD KEY1 "\"shape\": [16], \"data_type\": \"int16\", \"chunk_grid\": {\"name\": "
               "\"regular\", \"configuration\": {\"chunk_shape\": [8]}}, \"codecs\": "
               "[{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [4], "
               "\"codecs\": [" LE ", {\"name\": \"zstd\", \"configuration\": {\"level\": 1}}], "
               "\"index_codecs\": [" LE "], \"index_location\": \"start\"}}]}",
     "c/0"},
    /* 2: uint8 [6, 4], inner transpose + crc32c, index without crc at the end */
    {HEAD KEY1 "\"shape\": [6, 4], \"data_type\": \"uint8\", \"chunk_grid\": {\"name\": "
               "\"regular\", \"configuration\": {\"chunk_shape\": [4, 4]}}, \"codecs\": "
               "[{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [2, 2], "
               "\"codecs\": [{\"name\": \"transpose\", \"configuration\": {\"order\": [1, 0]}}, "
               "{\"name\": \"bytes\"}, " CRC "], \"index_codecs\": [" LE "]}}]}",
     "c/0/0"},
    /* 3: strings [6], inner vlen-utf8, index at the end with crc32c */
    {"{\"zarr_format\": 3, \"node_type\": \"array\", \"fill_value\": \"\", " KEY1
     "\"shape\": [6], \"data_type\": \"string\", \"chunk_grid\": {\"name\": \"regular\", "
     "\"configuration\": {\"chunk_shape\": [4]}}, \"codecs\": [{\"name\": \"sharding_indexed\", "
     "\"configuration\": {\"chunk_shape\": [2], \"codecs\": [{\"name\": \"vlen-utf8\"}], "
     "\"index_codecs\": [" LE ", " CRC "]}}]}",
     "c/0"},
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gsvd_meta_global_init();
    gsvd_log_set_level(GSVD_LOG_OFF); /* every rejected input would log */
    return 0;
}

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
    for (int pass = 0; pass < 2; pass++) {
        if (z->dtype.kind == 'O') {
            if (gsvd_reader_read_objects(r, start, z->shape, &sl) == GSVD_OK && sl.n != n)
                __builtin_trap(); /* success must mean one string per element */
            gsvd_strlist_free(&sl);
        } else if ((dst = dst ? dst : gsvd_malloc(n * z->dtype.size)) != NULL) {
            (void)!gsvd_reader_read(r, start, z->shape, dst);
        }
    }
    gsvd_free(dst);
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
    if (gsvd_store_put(st, "zarr.json", arrays[sel].json, strlen(arrays[sel].json)) != GSVD_OK ||
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
