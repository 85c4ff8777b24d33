/* tests/fuzz/fuzz_meta.c - libFuzzer target for the metadata parsers (zarr/meta.h).
 * The input is fed whole to gsvd_zarray_parse (and, when that succeeds, through
 * gsvd_zarray_emit and a second parse, which must succeed too), gsvd_zmetadata_parse (and
 * gsvd_zmetadata_emit + parse of what it returned), gsvd_zgroup_parse, gsvd_meta_check_object,
 * gsvd_meta_get_string and gsvd_meta_get_string_list.  Any return code is fine; a crash, leak
 * or sanitizer report is not.  Built with standalone.c when libFuzzer is not available. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/meta.h"

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

/* A parsed .zarray must survive emit + parse (ENOMEM aside). */
static void zarray_roundtrip(const struct gsvd_zarray *z)
{
    struct gsvd_buf text = GSVD_BUF_INIT;
    struct gsvd_zarray back;
    int rc = gsvd_zarray_emit(z, &text);

    if (rc == GSVD_OK) {
        rc = gsvd_zarray_parse(text.data, text.len, "fuzz/emitted/.zarray", &back);
        if (rc != GSVD_OK && rc != GSVD_ENOMEM)
            __builtin_trap(); /* we wrote something we cannot read */
        if (rc == GSVD_OK &&
            (back.ndim != z->ndim || back.chunk_bytes != z->chunk_bytes || back.order != z->order))
            __builtin_trap();
        gsvd_zarray_clear(&back);
    }
    gsvd_buf_free(&text);
}

static void zmetadata_roundtrip(const struct gsvd_strlist *keys, const struct gsvd_strlist *docs)
{
    struct gsvd_buf text = GSVD_BUF_INIT;
    struct gsvd_strlist k2 = GSVD_STRLIST_INIT, d2 = GSVD_STRLIST_INIT;
    int rc = gsvd_zmetadata_emit(keys, docs, &text);

    if (rc == GSVD_OK) {
        rc = gsvd_zmetadata_parse(text.data, text.len, "fuzz/emitted/.zmetadata", &k2, &d2);
        if (rc != GSVD_OK && rc != GSVD_ENOMEM)
            __builtin_trap();
        if (rc == GSVD_OK && (k2.n != keys->n || d2.n != docs->n))
            __builtin_trap();
    }
    gsvd_strlist_free(&k2);
    gsvd_strlist_free(&d2);
    gsvd_buf_free(&text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *json = (const char *)data;
    struct gsvd_zarray z;
    struct gsvd_strlist keys = GSVD_STRLIST_INIT, docs = GSVD_STRLIST_INIT;
    struct gsvd_strlist dims = GSVD_STRLIST_INIT;
    char *s = NULL;

    if (gsvd_zarray_parse(json, size, "fuzz/.zarray", &z) == GSVD_OK)
        zarray_roundtrip(&z);
    gsvd_zarray_clear(&z);

    if (gsvd_zmetadata_parse(json, size, "fuzz/.zmetadata", &keys, &docs) == GSVD_OK) {
        if (keys.n != docs.n)
            __builtin_trap();
        zmetadata_roundtrip(&keys, &docs);
    }
    gsvd_strlist_free(&keys);
    gsvd_strlist_free(&docs);

    (void)!gsvd_zgroup_parse(json, size, "fuzz/.zgroup");
    (void)!gsvd_meta_check_object(json, size, "fuzz/.zattrs");
    if (gsvd_meta_get_string(json, size, "vcf_zarr_version", "fuzz/.zattrs", &s) == GSVD_OK && !s)
        __builtin_trap();
    gsvd_free(s);
    (void)!gsvd_meta_get_string_list(json, size, "_ARRAY_DIMENSIONS", "fuzz/.zattrs", &dims);
    gsvd_strlist_free(&dims);
    return 0;
}
