/* zarr/writer_chunk.c - storing the chunks of an output array: encoded with the array's codec
 * chain (rows gathered from a caller's block, strings through vlen-utf8), counted once each,
 * and for a sharded v3 array held per shard until the shard's last inner chunk arrives, then
 * stored with its index (offset, length per inner chunk, then crc32c). */
#include "gsvd_config.h"
#include "zarr/writer.h"

#include <pthread.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/ndcopy.h"
#include "zarr/store.h"
#include "zarr/writer_internal.h"

void gsvd_writer_pending_free(struct shard_pending *sp, size_t n_inner)
{
    if (!sp)
        return;
    for (size_t i = 0; sp->parts && i < n_inner; i++)
        gsvd_buf_free(&sp->parts[i]);
    gsvd_free(sp->parts);
    gsvd_free(sp->have);
    gsvd_free(sp);
}

/* Store key of chunk (or, sharded, shard) idx: v2 "path/i.j", v3 "path/c/i/j". */
static int chunk_key(const gsvd_warray *a, const uint64_t *idx, char **out)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    int v3 = a->meta.zarr_format == 3;
    int rc = GSVD_OK;

    *out = NULL;
    GSVD_TRY(gsvd_buf_printf(&b, v3 ? "%s/c" : "%s/", a->path));
    if (a->meta.ndim == 0 && !v3)
        GSVD_TRY(gsvd_buf_puts(&b, "0"));
    for (size_t d = 0; d < a->meta.ndim; d++)
        GSVD_TRY(gsvd_buf_printf(&b, "%s%llu",
                                 v3  ? "/"
                                 : d ? "."
                                     : "",
                                 (unsigned long long)idx[d]));
    *out = b.data;
    b.data = NULL;
out:
    gsvd_buf_free(&b);
    return rc;
}

/* Inner chunks of shard sidx inside the array (edge shards have fewer). */
static uint64_t shard_expected(const struct gsvd_zarray *z, const uint64_t *sidx)
{
    uint64_t n = 1;
    for (size_t d = 0; d < z->ndim; d++) {
        uint64_t lo = sidx[d] * z->per_shard[d];
        n *= z->grid[d] - lo < z->per_shard[d] ? z->grid[d] - lo : z->per_shard[d];
    }
    return n;
}

static void store_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A shard object: the inner chunks present, in C order, then the index (offset, length per
 * inner chunk, all-ones for absent ones, little endian) and the index's crc32c. */
static int store_shard(gsvd_warray *a, const uint64_t *sidx, const struct shard_pending *sp)
{
    size_t n_inner = a->meta.n_inner, data = 0, total;
    unsigned char *obj = NULL, *ix;
    char *key = NULL;
    int rc = GSVD_OK;

    for (size_t i = 0; i < n_inner; i++)
        if (sp->have[i] && gsvd_add_size(data, sp->parts[i].len, &data) < 0)
            return GSVD_EINVAL;
    if (gsvd_add_size(data, 16 * n_inner + 4, &total) < 0)
        return GSVD_EINVAL;
    obj = gsvd_malloc(total);
    if (!obj)
        return GSVD_ENOMEM;
    ix = obj + data;
    data = 0;
    for (size_t i = 0; i < n_inner; i++) {
        if (!sp->have[i]) {
            store_le64(ix + 16 * i, UINT64_MAX);
            store_le64(ix + 16 * i + 8, UINT64_MAX);
            continue;
        }
        memcpy(obj + data, sp->parts[i].data, sp->parts[i].len);
        store_le64(ix + 16 * i, data);
        store_le64(ix + 16 * i + 8, sp->parts[i].len);
        data += sp->parts[i].len;
    }
    uint32_t crc = gsvd_crc32c(ix, 16 * n_inner);
    for (int i = 0; i < 4; i++)
        ix[16 * n_inner + (size_t)i] = (unsigned char)(crc >> (8 * i));
    GSVD_TRY(chunk_key(a, sidx, &key));
    GSVD_TRY(gsvd_store_put(a->w->st, key, obj, total));
out:
    gsvd_free(obj);
    gsvd_free(key);
    return rc;
}

/* Keep inner chunk idx of a sharded array; store its shard when it is complete. */
static int put_inner(gsvd_warray *a, const uint64_t *idx, uint64_t flat, const struct gsvd_buf *enc)
{
    const struct gsvd_zarray *z = &a->meta;
    uint64_t sidx[GSVD_MAX_DIMS], fs = 0, pos = 0;
    struct shard_pending *sp, *done = NULL;
    int rc = GSVD_OK;

    for (size_t d = 0; d < z->ndim; d++) {
        sidx[d] = idx[d] / z->per_shard[d];
        fs = fs * z->shard_grid[d] + sidx[d];
        pos = pos * z->per_shard[d] + idx[d] % z->per_shard[d];
    }
    pthread_mutex_lock(&a->lock);
    sp = a->pending[fs];
    if (!sp && (a->written[flat / 8] & (1u << (flat % 8)))) {
        gsvd_log_error("%s: chunk rewritten after its shard was stored", a->path);
        rc = GSVD_EINVAL;
        goto out;
    }
    if (!sp) {
        sp = gsvd_calloc(1, sizeof *sp);
        if (!sp || !(sp->parts = gsvd_calloc(z->n_inner, sizeof *sp->parts)) ||
            !(sp->have = gsvd_calloc(z->n_inner, 1))) {
            gsvd_writer_pending_free(sp, z->n_inner);
            rc = GSVD_ENOMEM;
            goto out;
        }
        a->pending[fs] = sp;
    }
    gsvd_buf_clear(&sp->parts[pos]);
    GSVD_TRY(gsvd_buf_append(&sp->parts[pos], enc->data, enc->len));
    if (!sp->have[pos]) {
        sp->have[pos] = 1;
        sp->n_have++;
        a->written[flat / 8] |= (uint8_t)(1u << (flat % 8));
        a->n_written++;
    }
    if (sp->n_have == shard_expected(z, sidx)) {
        done = sp;
        a->pending[fs] = NULL;
    }
out:
    pthread_mutex_unlock(&a->lock);
    if (done) {
        rc = store_shard(a, sidx, done);
        gsvd_writer_pending_free(done, z->n_inner);
    }
    return rc;
}

static int put_chunk(gsvd_warray *a, const uint64_t *idx, const struct gsvd_buf *enc)
{
    char *key = NULL;
    uint64_t flat = 0;
    int rc;

    for (size_t d = 0; d < a->meta.ndim; d++)
        flat = flat * a->meta.grid[d] + idx[d];
    if (a->meta.sharded)
        return put_inner(a, idx, flat, enc);
    rc = chunk_key(a, idx, &key);
    if (rc < 0)
        return rc;
    rc = gsvd_store_put(a->w->st, key, enc->data, enc->len);
    if (rc == GSVD_OK) {
        pthread_mutex_lock(&a->lock);
        if (!(a->written[flat / 8] & (1u << (flat % 8)))) {
            a->written[flat / 8] |= (uint8_t)(1u << (flat % 8));
            a->n_written++;
        }
        pthread_mutex_unlock(&a->lock);
    }
    gsvd_free(key);
    return rc;
}

int gsvd_warray_write_chunk(gsvd_warray *a, gsvd_codec_ws *ws, const uint64_t *idx,
                            const void *data, struct gsvd_buf *enc)
{
    int rc = GSVD_OK;
    for (size_t d = 0; d < a->meta.ndim; d++)
        if (idx[d] >= a->meta.grid[d]) {
            gsvd_log_error("%s: chunk index %llu out of range on axis %zu", a->path,
                           (unsigned long long)idx[d], d);
            return GSVD_EINVAL;
        }
    GSVD_TRY(gsvd_codec_chain_encode(a->meta.codecs, ws, data, a->meta.chunk_bytes, enc));
    GSVD_TRY(put_chunk(a, idx, enc));
out:
    return rc;
}

/* Copy the part of `data` (rows [row, row+n_rows), all other axes) that falls in chunk cidx
 * into the full-size chunk buffer; the rest of an edge chunk gets the fill value. */
static void gather_chunk(const struct gsvd_zarray *z, const uint64_t *cidx, uint64_t row,
                         uint64_t n_rows, const unsigned char *data, unsigned char *chunk)
{
    size_t nd = z->ndim;
    uint64_t ext[GSVD_MAX_DIMS], sorg[GSVD_MAX_DIMS], dshape[GSVD_MAX_DIMS];
    uint64_t zero[GSVD_MAX_DIMS] = {0};
    int edge = 0;

    for (size_t d = 0; d < nd; d++) {
        uint64_t lo = cidx[d] * z->chunks[d];
        uint64_t end = d == 0 ? row + n_rows : z->shape[d];
        ext[d] = end - lo < z->chunks[d] ? end - lo : z->chunks[d];
        edge |= ext[d] < z->chunks[d];
        dshape[d] = d == 0 ? n_rows : z->shape[d];
        sorg[d] = lo - (d == 0 ? row : 0);
    }
    if (edge)
        gsvd_fill_elems(chunk, z->chunk_items, z->fill, z->dtype.size);
    gsvd_ndcopy(nd, ext, z->dtype.size, data, (struct gsvd_ndbox){dshape, sorg}, chunk,
                (struct gsvd_ndbox){z->chunks, zero});
}

int gsvd_warray_write_rows(gsvd_warray *a, gsvd_codec_ws *ws, uint64_t row, uint64_t n_rows,
                           const void *data)
{
    const struct gsvd_zarray *z = &a->meta;
    int rc = GSVD_OK;
    unsigned char *chunk = NULL;
    struct gsvd_buf enc = GSVD_BUF_INIT;
    uint64_t cidx[GSVD_MAX_DIMS] = {0};

    if (z->ndim == 0 || z->dtype.kind == 'O' || row % z->chunks[0] != 0 || row > z->shape[0] ||
        (n_rows != z->chunks[0] && row + n_rows != z->shape[0]) || n_rows > z->shape[0] - row) {
        gsvd_log_error("%s: rows [%llu, %llu) are not whole chunk rows", a->path,
                       (unsigned long long)row, (unsigned long long)(row + n_rows));
        return GSVD_EINVAL;
    }
    if (n_rows == 0)
        return GSVD_OK;
    chunk = gsvd_malloc(z->chunk_bytes);
    if (!chunk)
        return GSVD_ENOMEM;
    cidx[0] = row / z->chunks[0];
    for (;;) {
        gather_chunk(z, cidx, row, n_rows, data, chunk);
        GSVD_TRY(gsvd_warray_write_chunk(a, ws, cidx, chunk, &enc));
        size_t d = z->ndim;
        while (d-- > 1) {
            if (++cidx[d] < z->grid[d])
                break;
            cidx[d] = 0;
        }
        if (d == 0)
            break;
    }
out:
    gsvd_free(chunk);
    gsvd_buf_free(&enc);
    return rc;
}

int gsvd_warray_write_strings(gsvd_warray *a, gsvd_codec_ws *ws, const char *const *items, size_t n)
{
    const struct gsvd_zarray *z = &a->meta;
    int rc = GSVD_OK;
    struct gsvd_buf enc = GSVD_BUF_INIT;
    unsigned char *chunk = NULL;
    const char **padded = NULL;
    size_t c0;

    if (z->ndim != 1 || n != z->shape[0] || (z->dtype.kind != 'O' && z->dtype.kind != 'S')) {
        gsvd_log_error("%s: expected %llu strings for a 1-D string array", a->path,
                       (unsigned long long)(z->ndim == 1 ? z->shape[0] : 0));
        return GSVD_EINVAL;
    }
    c0 = (size_t)z->chunks[0];
    padded = gsvd_calloc(c0, sizeof *padded);
    chunk = z->dtype.kind == 'S' ? gsvd_malloc(z->chunk_bytes) : NULL;
    if (!padded || (z->dtype.kind == 'S' && !chunk)) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (uint64_t c = 0; c < z->grid[0]; c++) {
        size_t lo = (size_t)c * c0;
        for (size_t i = 0; i < c0; i++)
            padded[i] = lo + i < n ? items[lo + i] : "";
        if (z->dtype.kind == 'O') {
            GSVD_TRY(gsvd_codec_chain_encode_vlen(z->codecs, ws, padded, c0, &enc));
            GSVD_TRY(put_chunk(a, &c, &enc));
        } else {
            memset(chunk, 0, z->chunk_bytes);
            for (size_t i = 0; i < c0; i++) {
                size_t len = strlen(padded[i]);
                if (len > z->dtype.size) {
                    gsvd_log_error("%s: string '%s' longer than %zu bytes", a->path, padded[i],
                                   z->dtype.size);
                    rc = GSVD_EINVAL;
                    goto out;
                }
                memcpy(chunk + i * z->dtype.size, padded[i], len);
            }
            GSVD_TRY(gsvd_warray_write_chunk(a, ws, &c, chunk, &enc));
        }
    }
out:
    gsvd_free(padded);
    gsvd_free(chunk);
    gsvd_buf_free(&enc);
    return rc;
}
