/* tests/unit/test_array_shard.c - zarr/array_shard.c's cache of shard indexes, shared by the
 * readers of an array: a corrupt index is reported once, whether its readers come one after
 * the other or several at once (each worker of a scan used to read and report it). */
#include "gsvd_config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "common/scope.h"
#include "tests/gsvd_test.h"
#include "zarr/array.h"
#include "zarr/codec.h"
#include "zarr/meta.h"
#include "zarr/store.h"
#include "zarr/tree.h"

struct count_sink {
    pthread_mutex_t mu;
    int n_errors;
};

static void count_errors(void *ud, enum gsvd_log_level level, const char *func, const char *msg)
{
    struct count_sink *c = ud;
    (void)func;
    (void)msg;
    pthread_mutex_lock(&c->mu);
    c->n_errors += level == GSVD_LOG_ERROR;
    pthread_mutex_unlock(&c->mu);
}

struct shard_reader {
    gsvd_array *a;
    const struct gsvd_scope *scope;
    pthread_barrier_t *go;
    uint64_t chunk;
    int rc;
};

static void *read_one(void *arg)
{
    struct shard_reader *r = arg;
    const struct gsvd_scope *prev = gsvd_scope_enter(r->scope);
    struct gsvd_buf raw = GSVD_BUF_INIT, scratch = GSVD_BUF_INIT;
    gsvd_codec_ws *ws = NULL;
    int32_t dst[4];

    r->rc = gsvd_codec_ws_new(&ws);
    pthread_barrier_wait(r->go);
    if (r->rc == GSVD_OK)
        r->rc = gsvd_array_read_chunk(r->a, ws, &r->chunk, dst, &raw, &scratch);
    gsvd_codec_ws_free(ws);
    gsvd_buf_free(&raw);
    gsvd_buf_free(&scratch);
    gsvd_scope_leave(prev);
    return NULL;
}

/* A shard of two inner chunks whose index puts the second past the shard's end: every read of
 * either chunk fails with GSVD_EFORMAT, and the fault is logged once, whether the reads come one
 * after the other or from several threads at once (the workers of a scan each reading it, each
 * reporting it, printed the same error several times). */
static void test_corrupt_shard_once(void)
{
    static const char meta[] =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [8], \"data_type\": \"int32\", "
        "\"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [8]}}, "
        "\"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0, "
        "\"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [4], "
        "\"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}], "
        "\"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}], "
        "\"index_location\": \"end\"}}]}";
    enum { N_THREADS = 6 };
    unsigned char shard[16 + 32] = {0};
    const uint64_t index[4] = {0, 16, 16, 4000}; /* chunk 1: 4000 bytes at 16 of a 16-byte body */
    struct count_sink sink = {PTHREAD_MUTEX_INITIALIZER, 0};
    struct gsvd_scope scope = *gsvd_scope_current();
    gsvd_store *st = NULL;
    gsvd_tree *t = NULL;

    GSVD_CHECK_RC(gsvd_store_open("mem:shard", GSVD_STORE_WRITE, &st), GSVD_OK);
    if (!st)
        return;
    for (size_t i = 0; i < 4; i++)
        for (size_t b = 0; b < 8; b++)
            shard[16 + 8 * i + b] = (unsigned char)(index[i] >> (8 * b));
    GSVD_CHECK_RC(gsvd_store_put(st, "zarr.json", meta, strlen(meta)), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "c/0", shard, sizeof shard), GSVD_OK);
    scope.log_fn = count_errors;
    scope.log_ud = &sink;
    scope.log_level = GSVD_LOG_DEBUG;
    GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
    for (int threads = 1; t && threads <= N_THREADS; threads += N_THREADS - 1) {
        struct shard_reader r[N_THREADS];
        pthread_t th[N_THREADS];
        pthread_barrier_t go;
        gsvd_array *a = NULL;
        size_t n = threads == 1 ? 2 : N_THREADS; /* one thread: chunk 0, then chunk 1 */

        GSVD_CHECK_RC(gsvd_array_open(t, "", &a), GSVD_OK);
        if (!a)
            break;
        sink.n_errors = 0;
        pthread_barrier_init(&go, NULL, (unsigned)(threads == 1 ? 1 : n));
        for (size_t i = 0; i < n; i++) {
            r[i] = (struct shard_reader){a, &scope, &go, i % 2, GSVD_OK};
            if (threads == 1)
                read_one(&r[i]);
            else
                GSVD_CHECK(pthread_create(&th[i], NULL, read_one, &r[i]) == 0);
        }
        for (size_t i = 0; threads > 1 && i < n; i++)
            pthread_join(th[i], NULL);
        for (size_t i = 0; i < n; i++)
            GSVD_CHECK_RC(r[i].rc, GSVD_EFORMAT);
        GSVD_CHECK(sink.n_errors == 1);
        if (sink.n_errors != 1)
            fprintf(stderr, "  %d threads: %d errors logged\n", threads, sink.n_errors);
        pthread_barrier_destroy(&go);
        gsvd_array_close(a);
    }
    gsvd_tree_close(t);
    gsvd_store_close(st);
}

int main(void)
{
    gsvd_meta_global_init(); /* cJSON allocates through gsvd_malloc */
    test_corrupt_shard_once();
    return gsvd_test_report("test_array_shard");
}
