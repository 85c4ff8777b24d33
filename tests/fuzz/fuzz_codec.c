/* tests/fuzz/fuzz_codec.c - libFuzzer target for the codec chains (zarr/codec.h).
 * Input: byte 0 picks the compressor (none, blosc, zstd, zlib, gzip, lz4) and the filter/dtype
 * variant (|u1 plain; <i4, >f8 or <f4 with delta); the rest is one chunk.  The chunk is
 * decoded into a fixed FUZZ_CAP bytes through that chain, and as a vlen-utf8 chunk of
 * FUZZ_ITEMS strings through the same compressor.  Any return code is fine; a crash, leak or
 * sanitizer report is not.  Built with standalone.c when libFuzzer is not available. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/codec.h"
#include "zarr/dtype.h"

#define FUZZ_CAP 256
#define FUZZ_ITEMS 4
#define FUZZ_MAX_VLEN (1 << 16)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const comps[] = {
    "null",
    "{\"blocksize\":0,\"clevel\":5,\"cname\":\"zstd\",\"id\":\"blosc\",\"shuffle\":1}",
    "{\"id\":\"zstd\",\"level\":1}",
    "{\"id\":\"zlib\",\"level\":1}",
    "{\"id\":\"gzip\",\"level\":1}",
    "{\"acceleration\":1,\"id\":\"lz4\"}",
};

static const struct {
    const char *dtype, *filters;
} variants[] = {
    {"|u1", "null"},
    {"<i4", "[{\"astype\":\"<i4\",\"dtype\":\"<i4\",\"id\":\"delta\"}]"},
    {">f8", "[{\"astype\":\">f8\",\"dtype\":\">f8\",\"id\":\"delta\"}]"},
    {"<f4", "[{\"astype\":\"<f4\",\"dtype\":\"<f4\",\"id\":\"delta\"}]"},
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gsvd_log_set_level(GSVD_LOG_OFF); /* every rejected input would log */
    return 0;
}

/* Parse a chain that is known to be valid; a failure here is a bug (or ENOMEM), so trap. */
static gsvd_codec_chain *chain(const char *comp, const char *filters, const char *typestr)
{
    struct gsvd_dtype dt;
    gsvd_codec_chain *c = NULL;

    if (gsvd_dtype_parse(typestr, &dt) != GSVD_OK ||
        gsvd_codec_chain_parse_json(comp, filters, &dt, "fuzz", &c) != GSVD_OK)
        __builtin_trap();
    return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned char dst[FUZZ_CAP];
    struct gsvd_strlist sl = GSVD_STRLIST_INIT;
    gsvd_codec_ws *ws = NULL;
    gsvd_codec_chain *c = NULL;
    size_t ci, vi;

    if (size < 1)
        return 0;
    ci = data[0] % GSVD_ARRAY_LEN(comps);
    vi = (data[0] / GSVD_ARRAY_LEN(comps)) % GSVD_ARRAY_LEN(variants);
    if (gsvd_codec_ws_new(&ws) != GSVD_OK)
        __builtin_trap();

    c = chain(comps[ci], variants[vi].filters, variants[vi].dtype);
    (void)!gsvd_codec_chain_decode(c, ws, data + 1, size - 1, dst, sizeof dst, "fuzz/0");
    gsvd_codec_chain_free(c);

    c = chain(comps[ci], "[{\"id\":\"vlen-utf8\"}]", "|O");
    if (gsvd_codec_chain_decode_vlen(c, ws, data + 1, size - 1, FUZZ_ITEMS, FUZZ_MAX_VLEN, "fuzz/0",
                                     &sl) == GSVD_OK &&
        sl.n != FUZZ_ITEMS)
        __builtin_trap(); /* success must mean exactly the expected count */
    gsvd_codec_chain_free(c);

    gsvd_strlist_free(&sl);
    gsvd_codec_ws_free(ws);
    return 0;
}
