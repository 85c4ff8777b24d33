/* zarr/writer_meta.c - the metadata of one output array: v2 .zarray and .zattrs, v3
 * zarr.json (data type, fill value, codecs, sharding_indexed) read back with the v3 parser so
 * the encoder uses the model a reader of the output gets, and the shard shape check. */
#include "gsvd_config.h"
#include "zarr/writer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/meta_v3.h"
#include "zarr/writer_internal.h"

#define MAX_SHARDS ((uint64_t)1 << 28) /* pending-shard table entries per array */

/* .zattrs text: {"_ARRAY_DIMENSIONS": [...]} merged with the spec's extra members. */
int gsvd_writer_array_attrs(const struct gsvd_array_spec *s, struct gsvd_buf *b)
{
    int rc = GSVD_OK;
    GSVD_TRY(gsvd_buf_puts(b, "{\n    \"_ARRAY_DIMENSIONS\": ["));
    for (size_t d = 0; d < s->ndim; d++) {
        char name[32];
        if (d)
            GSVD_TRY(gsvd_buf_puts(b, ", "));
        if (s->dims[d]) {
            GSVD_TRY(gsvd_json_quote(b, s->dims[d]));
        } else {
            snprintf(name, sizeof name, "dim_%zu", d);
            GSVD_TRY(gsvd_json_quote(b, name));
        }
    }
    GSVD_TRY(gsvd_buf_puts(b, "]"));
    if (s->attrs_json) {
        /* splice the members of the extra object after ours */
        const char *p = strchr(s->attrs_json, '{'), *e = strrchr(s->attrs_json, '}');
        if (!p || !e || e < p) {
            gsvd_log_error("%s: attributes are not a JSON object", s->path);
            rc = GSVD_EINVAL;
            goto out;
        }
        p++;
        while (p < e && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
            p++;
        if (p < e) {
            GSVD_TRY(gsvd_buf_puts(b, ",\n    "));
            GSVD_TRY(gsvd_buf_append(b, p, (size_t)(e - p)));
        }
    }
    GSVD_TRY(gsvd_buf_puts(b, "\n}"));
    GSVD_TRY(gsvd_meta_check_object(b->data, b->len, s->path));
out:
    return rc;
}

int gsvd_writer_shard_shape(const struct gsvd_writer_params *p, const char *what, size_t ndim,
                            const uint64_t *shape, const uint64_t *chunks, uint64_t *shard_out)
{
    for (size_t d = 0; d < ndim; d++) {
        uint64_t ext = chunks[d], want = 0;
        uint64_t grid = shape[d] / chunks[d] + (shape[d] % chunks[d] != 0);

        if (d == 0)
            want = p->shard[0];
        else if (d == 1)
            want = p->shard[1] ? p->shard[1] : p->shard[0];
        if (want && grid > 1) {
            if (want % chunks[d] != 0) {
                gsvd_log_error("%s: shard extent %llu on axis %zu is not a multiple of the chunk "
                               "extent %llu",
                               what, (unsigned long long)want, d, (unsigned long long)chunks[d]);
                return GSVD_EINVAL;
            }
            ext = want < grid * chunks[d] ? want : grid * chunks[d];
        }
        if (shard_out)
            shard_out[d] = ext;
    }
    return GSVD_OK;
}

/* The v3 data_type name of a numeric dtype, or NULL. */
static const char *v3_type_name(const struct gsvd_dtype *dt)
{
    static const char *const ints[] = {"int8", "int16", NULL, "int32", NULL, NULL, NULL, "int64"};
    static const char *const uints[] = {"uint8", "uint16", NULL, "uint32",
                                        NULL,    NULL,     NULL, "uint64"};
    if (dt->size < 1 || dt->size > 8)
        return NULL;
    switch (dt->kind) {
    case 'b':
        return dt->size == 1 ? "bool" : NULL;
    case 'i':
        return ints[dt->size - 1];
    case 'u':
        return uints[dt->size - 1];
    case 'f':
        return dt->size == 4 ? "float32" : dt->size == 8 ? "float64" : NULL;
    case 'O':
        return "string";
    default:
        return NULL;
    }
}

/* fill_value in its v3 JSON form: numbers, true/false, "NaN", "Infinity", "-Infinity", "" (a
 * string, or base64 of no bytes: an all-zero fixed-length bytes value). */
static int v3_fill(const struct gsvd_array_spec *s, struct gsvd_buf *b)
{
    const unsigned char *f = s->fill;
    if (s->dtype.kind == 'O')
        return gsvd_buf_puts(b, "\"\"");
    if (s->dtype.kind == 'S') {
        for (size_t i = 0; f && i < s->dtype.size; i++)
            if (f[i]) {
                gsvd_log_error("%s: a fixed-length bytes fill other than zeros is not written "
                               "as Zarr v3",
                               s->path);
                return GSVD_EUNSUPPORTED;
            }
        return gsvd_buf_puts(b, "\"\"");
    }
    if (!f)
        return gsvd_buf_puts(b, s->dtype.kind == 'b'   ? "false"
                                : s->dtype.kind == 'f' ? "0.0"
                                                       : "0");
    if (s->dtype.kind == 'b')
        return gsvd_buf_puts(b, f[0] ? "true" : "false");
    if (s->dtype.kind == 'f') {
        double v;
        float v4;
        if (s->dtype.size == 4) {
            memcpy(&v4, f, 4);
            v = v4;
        } else {
            memcpy(&v, f, 8);
        }
        if (isnan(v))
            return gsvd_buf_puts(b, "\"NaN\"");
        if (isinf(v))
            return gsvd_buf_puts(b, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        return gsvd_buf_printf(b, "%.17g", v);
    }
    if (s->dtype.kind == 'i') {
        int64_t v = 0;
        switch (s->dtype.size) {
        case 1:
            v = *(const int8_t *)f;
            break;
        case 2: {
            int16_t t;
            memcpy(&t, f, 2);
            v = t;
            break;
        }
        case 4: {
            int32_t t;
            memcpy(&t, f, 4);
            v = t;
            break;
        }
        default:
            memcpy(&v, f, 8);
            break;
        }
        return gsvd_buf_printf(b, "%lld", (long long)v);
    }
    uint64_t u = 0;
    memcpy(&u, f, s->dtype.size); /* little-endian host, as the writer assumes throughout */
    return gsvd_buf_printf(b, "%llu", (unsigned long long)u);
}

static int put_dims(struct gsvd_buf *b, size_t n, const uint64_t *v)
{
    int rc = GSVD_OK;
    GSVD_TRY(gsvd_buf_puts(b, "["));
    for (size_t d = 0; d < n; d++)
        GSVD_TRY(gsvd_buf_printf(b, "%s%llu", d ? ", " : "", (unsigned long long)v[d]));
    GSVD_TRY(gsvd_buf_puts(b, "]"));
out:
    return rc;
}

/* zarr.json of a v3 array as zarr-python 3 writes it: the v2 chain `chain` gives the
 * compressor; `shard` (NULL: unsharded) the shard shape. */
static int array_doc_v3(const struct gsvd_array_spec *s, const gsvd_codec_chain *chain,
                        const uint64_t *shard, struct gsvd_buf *b)
{
    static const char *const bytes_le = "{\"name\": \"bytes\", \"configuration\": "
                                        "{\"endian\": \"little\"}}";
    const char *type = v3_type_name(&s->dtype);
    struct gsvd_buf comp = GSVD_BUF_INIT, inner = GSVD_BUF_INIT, tname = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    if (s->dtype.kind == 'S') {
        GSVD_TRY(gsvd_buf_printf(&tname,
                                 "{\"name\": \"null_terminated_bytes\", \"configuration\": "
                                 "{\"length_bytes\": %zu}}",
                                 s->dtype.size));
    } else if (type) {
        GSVD_TRY(gsvd_buf_printf(&tname, "\"%s\"", type));
    }
    if (!tname.len || (s->dtype.kind != 'O' && s->dtype.byteorder == '>')) {
        gsvd_log_error("%s: data type %c%zu is not written as Zarr v3", s->path, s->dtype.kind,
                       s->dtype.size);
        return GSVD_EUNSUPPORTED;
    }
    GSVD_TRY(gsvd_codec_chain_to_json_v3(chain, &comp));
    /* the array -> bytes codec, then the compressor */
    GSVD_TRY(gsvd_buf_puts(&inner, s->dtype.kind == 'O' ? "{\"name\": \"vlen-utf8\", "
                                                          "\"configuration\": {}}"
                                   : s->dtype.size == 1 || s->dtype.kind == 'S'
                                       ? "{\"name\": \"bytes\"}"
                                       : bytes_le));
    if (comp.len)
        GSVD_TRY(gsvd_buf_printf(&inner, ", %s", comp.data));
    GSVD_TRY(gsvd_buf_puts(b, "{\n    \"zarr_format\": 3,\n    \"node_type\": \"array\",\n"
                              "    \"shape\": "));
    GSVD_TRY(put_dims(b, s->ndim, s->shape));
    GSVD_TRY(gsvd_buf_printf(b,
                             ",\n    \"data_type\": %s,\n    \"chunk_grid\": {\"name\": "
                             "\"regular\", \"configuration\": {\"chunk_shape\": ",
                             tname.data));
    GSVD_TRY(put_dims(b, s->ndim, shard ? shard : s->chunks));
    GSVD_TRY(gsvd_buf_puts(b, "}},\n    \"chunk_key_encoding\": {\"name\": \"default\", "
                              "\"configuration\": {\"separator\": \"/\"}},\n    \"fill_value\": "));
    GSVD_TRY(v3_fill(s, b));
    GSVD_TRY(gsvd_buf_puts(b, ",\n    \"codecs\": ["));
    if (shard) {
        GSVD_TRY(gsvd_buf_puts(b, "{\"name\": \"sharding_indexed\", \"configuration\": "
                                  "{\"chunk_shape\": "));
        GSVD_TRY(put_dims(b, s->ndim, s->chunks));
        GSVD_TRY(gsvd_buf_printf(b,
                                 ", \"codecs\": [%s], \"index_codecs\": [%s, {\"name\": "
                                 "\"crc32c\"}], \"index_location\": \"end\"}}",
                                 inner.data, bytes_le));
    } else {
        GSVD_TRY(gsvd_buf_puts(b, inner.data));
    }
    GSVD_TRY(gsvd_buf_printf(b, "],\n    \"attributes\": %s,\n    \"dimension_names\": [",
                             s->attrs_json ? s->attrs_json : "{}"));
    for (size_t d = 0; d < s->ndim; d++) {
        char name[32];
        if (d)
            GSVD_TRY(gsvd_buf_puts(b, ", "));
        snprintf(name, sizeof name, "dim_%zu", d);
        GSVD_TRY(gsvd_json_quote(b, s->dims[d] ? s->dims[d] : name));
    }
    GSVD_TRY(gsvd_buf_puts(b, "],\n    \"storage_transformers\": []\n}"));
out:
    gsvd_buf_free(&comp);
    gsvd_buf_free(&inner);
    gsvd_buf_free(&tname);
    return rc;
}

/* The v3 metadata of `s` into a->meta (read back from the zarr.json text it also leaves in
 * `text`), and the pending-shard table of a sharded array. */
int gsvd_writer_array_meta_v3(gsvd_writer *w, const struct gsvd_array_spec *s, gsvd_warray *a,
                              struct gsvd_buf *text)
{
    int rc = GSVD_OK;
    gsvd_codec_chain *chain = NULL;
    uint64_t shard[GSVD_MAX_DIMS];
    int sharded =
        (w->p.shard[0] || w->p.shard[1]) && s->ndim >= 1 && strchr("biuf", s->dtype.kind) != NULL;
    uint64_t n = 1;

    if (s->attrs_json)
        GSVD_TRY(gsvd_meta_check_object(s->attrs_json, strlen(s->attrs_json), s->path));
    if (s->compressor_json)
        rc = gsvd_codec_chain_parse_json(s->compressor_json, s->filters_json, &s->dtype, s->path,
                                         &chain);
    else
        rc = gsvd_codec_chain_default(&s->dtype, &chain);
    if (rc < 0)
        goto out;
    for (size_t d = 0; d < s->ndim; d++)
        if (s->chunks[d] == 0) {
            gsvd_log_error("%s: chunk extent 0 on axis %zu", s->path, d);
            rc = GSVD_EINVAL;
            goto out;
        }
    if (sharded)
        GSVD_TRY(gsvd_writer_shard_shape(&w->p, s->path, s->ndim, s->shape, s->chunks, shard));
    GSVD_TRY(array_doc_v3(s, chain, sharded ? shard : NULL, text));
    GSVD_TRY(gsvd_zarray_parse_v3(text->data, text->len, s->path, &a->meta));
    if (!a->meta.sharded)
        goto out;
    for (size_t d = 0; d < s->ndim; d++)
        if (gsvd_mul_u64(n, a->meta.shard_grid[d], &n) < 0 || n > MAX_SHARDS) {
            gsvd_log_error("%s: more than %llu shards", s->path, (unsigned long long)MAX_SHARDS);
            rc = GSVD_EINVAL;
            goto out;
        }
    a->n_shards = n;
    a->pending = gsvd_calloc((size_t)n, sizeof *a->pending);
    if (!a->pending)
        rc = GSVD_ENOMEM;
out:
    gsvd_codec_chain_free(chain);
    return rc;
}

/* The v2 metadata of `s` into a->meta. */
int gsvd_writer_array_meta_v2(const struct gsvd_array_spec *s, gsvd_warray *a)
{
    int rc = GSVD_OK;

    a->meta.ndim = s->ndim;
    a->meta.dtype = s->dtype;
    a->meta.order = 'C';
    a->meta.sep = '.';
    for (size_t d = 0; d < s->ndim; d++) {
        if (s->chunks[d] == 0) {
            gsvd_log_error("%s: chunk extent 0 on axis %zu", s->path, d);
            rc = GSVD_EINVAL;
            goto out;
        }
        a->meta.shape[d] = s->shape[d];
        a->meta.chunks[d] = s->chunks[d];
    }
    GSVD_TRY(gsvd_zarray_derive(&a->meta, s->path));
    if (s->dtype.kind == 'O') {
        a->meta.fill_str = gsvd_strdup("");
        if (!a->meta.fill_str) {
            rc = GSVD_ENOMEM;
            goto out;
        }
    } else {
        a->meta.fill = gsvd_calloc(1, s->dtype.size);
        if (!a->meta.fill) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        if (s->fill) {
            memcpy(a->meta.fill, s->fill, s->dtype.size);
            a->meta.has_fill = 1;
        }
    }
    if (s->compressor_json)
        rc = gsvd_codec_chain_parse_json(s->compressor_json, s->filters_json, &s->dtype, s->path,
                                         &a->meta.codecs);
    else
        rc = gsvd_codec_chain_default(&s->dtype, &a->meta.codecs);
out:
    return rc;
}
