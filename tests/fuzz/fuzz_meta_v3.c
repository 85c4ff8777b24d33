/* tests/fuzz/fuzz_meta_v3.c - libFuzzer target for the Zarr v3 metadata parsers
 * (zarr/meta_v3.h).  The input is fed whole to gsvd_zarray_parse_v3, gsvd_v3_node_type,
 * gsvd_v3_attrs and gsvd_v3_consolidated_parse; every document consolidated metadata yields is
 * parsed again as a node and, when it is an array, as an array.  A parsed array must be
 * consistent (chunk_bytes, inner chunks per shard).  Any return code is fine; a crash, leak or
 * sanitizer report is not.  Built with standalone.c when libFuzzer is not available. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/meta.h"
#include "zarr/meta_v3.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gsvd_meta_global_init();          /* cJSON through gsvd_malloc, as in main() */
    gsvd_log_set_level(GSVD_LOG_OFF); /* every rejected input would log */
    return 0;
}

/* The invariants a successful parse promises. */
static void check_array(const struct gsvd_zarray *z)
{
    size_t items = 1, inner = 1;

    for (size_t d = 0; d < z->ndim; d++) {
        items *= (size_t)z->chunks[d];
        if (z->chunks[d] == 0 || z->grid[d] * z->chunks[d] < z->shape[d])
            __builtin_trap();
        if (z->sharded) {
            if (z->per_shard[d] * z->chunks[d] != z->shard[d])
                __builtin_trap();
            inner *= (size_t)z->per_shard[d];
        }
    }
    if (items != z->chunk_items || z->chunk_bytes != items * z->dtype.size || !z->codecs ||
        (z->sharded && inner != z->n_inner) || z->zarr_format != 3)
        __builtin_trap();
}

static void one_doc(const char *text, size_t n)
{
    struct gsvd_zarray z;
    struct gsvd_buf attrs = GSVD_BUF_INIT;

    if (gsvd_zarray_parse_v3(text, n, "fuzz/zarr.json", &z) == GSVD_OK) {
        check_array(&z);
        gsvd_zarray_clear(&z);
    }
    (void)!gsvd_v3_node_type(text, n, "fuzz/zarr.json");
    if (gsvd_v3_attrs(text, n, "fuzz/zarr.json", &attrs) == GSVD_OK && attrs.len > 0 &&
        gsvd_meta_check_object(attrs.data, attrs.len, "fuzz/.zattrs") == GSVD_EFORMAT)
        __builtin_trap(); /* the attributes we made are not an object */
    gsvd_buf_free(&attrs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gsvd_strlist keys = GSVD_STRLIST_INIT, docs = GSVD_STRLIST_INIT;
    const char *text = (const char *)data;

    one_doc(text, size);
    if (gsvd_v3_consolidated_parse(text, size, "fuzz/zarr.json", &keys, &docs) == GSVD_OK) {
        if (keys.n != docs.n || keys.n == 0)
            __builtin_trap();
        for (size_t i = 1; i < docs.n; i++) /* docs[0] is the input itself */
            one_doc(docs.items[i], strlen(docs.items[i]));
    }
    gsvd_strlist_free(&keys);
    gsvd_strlist_free(&docs);
    return 0;
}
