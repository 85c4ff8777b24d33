/* tests/interop/write_matrix.c - writes one array per dtype x codec with gensvd's writer, so
 * zarr-python (2.x and 3.x) can check that it reads what gensvd writes (check_written.py).
 * Arrays "<dt>_<codec>": numeric ones are (37, 23) with chunks (10, 7) (edge chunks on both
 * axes), value at C-order flat index i: bool i % 3 == 0; integers (i * 2654435761) mod
 * 2^(8 size) in two's complement; floats (i % 1000) * 0.25 - 100 except NaN where
 * i % 97 == 5.  "str_<codec>" arrays are 1-D, 41 vlen-utf8 strings "s<i>-é", chunks of 10.
 * Usage: write_matrix OUT.zarr */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/codec.h"
#include "zarr/meta.h"
#include "zarr/writer.h"

#define ROWS 37
#define COLS 23

static const struct {
    const char *name;
    const char *json; /* NULL: gensvd's default chain */
} codecs[] = {
    {"default", NULL},
    {"blosc-lz4", "{\"blocksize\": 0, \"clevel\": 5, \"cname\": \"lz4\", \"id\": \"blosc\", "
                  "\"shuffle\": 1}"},
    {"blosc-zlib", "{\"blocksize\": 0, \"clevel\": 3, \"cname\": \"zlib\", \"id\": \"blosc\", "
                   "\"shuffle\": 2}"},
    {"zstd", "{\"id\": \"zstd\", \"level\": 3}"},
    {"zlib", "{\"id\": \"zlib\", \"level\": 5}"},
    {"gzip", "{\"id\": \"gzip\", \"level\": 5}"},
    {"lz4", "{\"acceleration\": 1, \"id\": \"lz4\"}"},
    {"none", "null"},
};

static const struct {
    const char *name;
    struct gsvd_dtype dt;
} dtypes[] = {
    {"b1", {'b', '|', 1}}, {"i1", {'i', '|', 1}}, {"i2", {'i', '<', 2}}, {"i4", {'i', '<', 4}},
    {"i8", {'i', '<', 8}}, {"u1", {'u', '|', 1}}, {"u2", {'u', '<', 2}}, {"u4", {'u', '<', 4}},
    {"u8", {'u', '<', 8}}, {"f2", {'f', '<', 2}}, {"f4", {'f', '<', 4}}, {"f8", {'f', '<', 8}},
};

static uint16_t to_half(double d)
{
    /* exact for the values written here: multiples of 0.25 below 2048, or NaN */
    if (isnan(d))
        return 0x7e00;
    uint16_t sign = d < 0 ? 0x8000 : 0;
    d = fabs(d);
    if (d == 0)
        return sign;
    int e;
    double m = frexp(d, &e); /* d = m * 2^e, m in [0.5, 1) */
    uint16_t exp = (uint16_t)(e - 1 + 15);
    uint16_t man = (uint16_t)((m * 2 - 1) * 1024 + 0.5);
    return (uint16_t)(sign | (exp << 10) | man);
}

static void value(const struct gsvd_dtype *dt, uint64_t i, unsigned char *out)
{
    if (dt->kind == 'b') {
        out[0] = i % 3 == 0;
    } else if (dt->kind == 'i' || dt->kind == 'u') {
        uint64_t v = i * 2654435761u; /* wraps mod 2^64; low bytes are the value */
        memcpy(out, &v, dt->size);    /* little-endian host */
    } else {
        double f = i % 97 == 5 ? NAN : (double)(i % 1000) * 0.25 - 100.0;
        if (dt->size == 8) {
            memcpy(out, &f, 8);
        } else if (dt->size == 4) {
            float x = (float)f;
            memcpy(out, &x, 4);
        } else {
            uint16_t h = to_half(f);
            memcpy(out, &h, 2);
        }
    }
}

int main(int argc, char **argv)
{
    int rc = GSVD_OK;
    gsvd_writer *w = NULL;
    gsvd_codec_ws *ws = NULL;
    unsigned char *data = NULL;
    char path[64], *strs[41] = {0};
    gsvd_warray *a;

    if (argc != 2) {
        fprintf(stderr, "usage: write_matrix OUT.zarr\n");
        return 2;
    }
    gsvd_meta_global_init();
    gsvd_log_set_level(GSVD_LOG_WARN); /* its errors on stderr ("[E::func] msg") */
    GSVD_TRY(gsvd_codec_ws_new(&ws));
    GSVD_TRY(gsvd_writer_open(argv[1], 1, &w));
    GSVD_TRY(gsvd_writer_group(w, "", "{\"writer\": \"gensvd write_matrix\"}"));
    data = gsvd_malloc(ROWS * COLS * 8);
    if (!data) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < 41; i++)
        if (!(strs[i] = gsvd_asprintf("s%zu-\xc3\xa9", i))) {
            rc = GSVD_ENOMEM;
            goto out;
        }
    for (size_t c = 0; c < GSVD_ARRAY_LEN(codecs); c++) {
        for (size_t d = 0; d < GSVD_ARRAY_LEN(dtypes); d++) {
            const struct gsvd_dtype *dt = &dtypes[d].dt;
            struct gsvd_array_spec s = {.path = path,
                                        .ndim = 2,
                                        .shape = {ROWS, COLS},
                                        .chunks = {10, 7},
                                        .dtype = *dt,
                                        .dims = {"rows", "cols"},
                                        .compressor_json = codecs[c].json};
            snprintf(path, sizeof path, "%s_%s", dtypes[d].name, codecs[c].name);
            for (uint64_t i = 0; i < ROWS * COLS; i++)
                value(dt, i, data + i * dt->size);
            GSVD_TRY(gsvd_writer_array(w, &s, &a));
            for (uint64_t r = 0; r < ROWS; r += 10)
                GSVD_TRY(gsvd_warray_write_rows(a, ws, r, ROWS - r < 10 ? ROWS - r : 10,
                                                data + r * COLS * dt->size));
        }
        struct gsvd_array_spec s = {.path = path,
                                    .ndim = 1,
                                    .shape = {41},
                                    .chunks = {10},
                                    .dtype = {'O', '|', sizeof(char *)},
                                    .dims = {"items"},
                                    .compressor_json = codecs[c].json,
                                    .filters_json = "[{\"id\": \"vlen-utf8\"}]"};
        snprintf(path, sizeof path, "str_%s", codecs[c].name);
        if (!codecs[c].json)
            s.filters_json = NULL;
        GSVD_TRY(gsvd_writer_array(w, &s, &a));
        GSVD_TRY(gsvd_warray_write_strings(a, ws, (const char *const *)strs, 41));
    }
    GSVD_TRY(gsvd_writer_commit(w));
out:
    for (size_t i = 0; i < 41; i++)
        gsvd_free(strs[i]);
    gsvd_free(data);
    gsvd_writer_close(w);
    gsvd_codec_ws_free(ws);
    if (rc < 0)
        fprintf(stderr, "write_matrix: %s\n", gsvd_strerror(rc));
    return rc < 0 ? 1 : 0;
}
