/* zarr/store_zip.c - read-only store over a local zip archive of a Zarr tree (".vcz.zip" from
 * bio2zarr, zarr-python's ZipStore).  Opened for "zip://PATH" and for local paths ending in
 * ".zip" that are not directories; and, through gsvd_store_zip_open_on(), on an archive object
 * of a remote store (store.c does that for https/gs/s3 URLs naming a ".zip").
 *
 * The bytes come from a byte source: pread on a local fd, or ranged gets of the archive's key
 * in the remote parent.  The archive's tail is read once at open (locally the last 22 + 65,535
 * bytes; remotely one suffix request of 256 KiB, which also gives the size) and serves every
 * read inside it: the end records and usually the central directory, and all members of small
 * archives.  A member is read in one request (header, name, extra field margin and data); a
 * scan's prefetch hands the members' ranges to the parent's read-ahead.
 *
 * Open reads the End Of Central Directory record (ZIP64 locator and record when a field is
 * saturated), then the whole central directory, into a key table sorted by name.  Every entry
 * is checked before anything is served: single disk, no encryption, method STORED or DEFLATE,
 * sizes and local header offsets inside the archive, no two entries' byte spans overlapping,
 * names that are valid store keys (no "..", no absolute paths, no control characters); of
 * entries sharing a name the last wins, as in Python's zipfile.  A get reads the entry's local
 * header (signature, flags and method must agree with the central directory; its name
 * and extra field must fit the entry's span) and its data; DEFLATE is raw-inflated by zlib into
 * exactly the declared size, and a whole read checks the CRC-32.  Ranged reads of STORED entries
 * read only the range.
 *
 * When the archive holds a single top-level directory and no metadata at its root (a directory
 * zipped with its own name, "x.zarr/..."), keys are served relative to that directory.
 *
 * The byte source and the reading of the end records and the central directory are in
 * store_zip_dir.c (store_zip_internal.h); this file has the store operations and the members.
 *
 * The table and the tail are immutable after open, local reads use pread and the remote
 * parent is thread-safe, so workers share the store freely. */
#include "gsvd_config.h"
#include "zarr/store.h"

#include <pthread.h>
#include <string.h>

#include <zlib.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/store_zip_internal.h"

#define LOCAL_MARGIN 64u /* local extra field beyond the central one, read with a member */

/* The store: the archive (store_zip_dir.c's) and what reading members adds to it. */
struct store_zip {
    struct gsvd_store base;
    struct zip_archive ar; /* owned; opened and closed by store_zip_dir.c */
    pthread_mutex_t mu;    /* guards data_at */
    uint64_t *data_at;     /* owned; per entry: offset of its data once a local header was read,
                              0 before (a data offset is never 0) */
};

static void zip_close(gsvd_store *st)
{
    struct store_zip *zs = (struct store_zip *)st;
    if (!zs)
        return;
    gsvd_zip_archive_close(&zs->ar);
    gsvd_free(zs->data_at);
    pthread_mutex_destroy(&zs->mu);
    gsvd_free(zs);
}

static int alloc_data_at(struct store_zip *zs)
{
    zs->data_at = gsvd_calloc(zs->ar.n ? zs->ar.n : 1, sizeof *zs->data_at);
    return zs->data_at ? GSVD_OK : GSVD_ENOMEM;
}

/* A store with an empty archive (fd -1), or NULL. */
static struct store_zip *zip_new(void)
{
    struct store_zip *zs = gsvd_calloc(1, sizeof *zs);
    if (!zs)
        return NULL;
    zs->base.ops = &gsvd_store_zip_ops;
    zs->ar.fd = -1;
    pthread_mutex_init(&zs->mu, NULL);
    return zs;
}

static int zip_open(const char *path, unsigned flags, gsvd_store **out)
{
    int rc = GSVD_OK;
    struct store_zip *zs = NULL;
    struct gsvd_zip_cd_info ci;

    *out = NULL;
    if (flags & GSVD_STORE_WRITE) {
        gsvd_log_error("%s: writing zip archives is not supported (zip stores are read-only; "
                       "write a directory store and zip it)",
                       path);
        return GSVD_EUNSUPPORTED;
    }
    zs = zip_new();
    if (!zs)
        return GSVD_ENOMEM;
    GSVD_TRY(gsvd_zip_archive_open_file(&zs->ar, path, &ci));
    GSVD_TRY(alloc_data_at(zs));
    *out = &zs->base;
    zs = NULL;
out:
    zip_close(zs ? &zs->base : NULL);
    return rc;
}

int gsvd_store_zip_open_on(gsvd_store *parent, const char *key, const char *display,
                           gsvd_store **out)
{
    int rc = GSVD_OK;
    struct store_zip *zs = zip_new();
    struct gsvd_zip_cd_info ci;

    *out = NULL;
    if (!zs) {
        char *url = parent->url;
        parent->ops->close(parent);
        gsvd_free(url);
        return GSVD_ENOMEM;
    }
    GSVD_TRY(gsvd_zip_archive_open_on(&zs->ar, parent, key, display, &ci)); /* owns parent */
    GSVD_TRY(alloc_data_at(zs));
    gsvd_log_debug("%s: %zu members, central directory of %llu bytes%s", display, zs->ar.n,
                   (unsigned long long)ci.cd_size,
                   ci.cd_off >= zs->ar.tail_off ? " (inside the first request)" : "");
    *out = &zs->base;
    zs = NULL;
out:
    zip_close(zs ? &zs->base : NULL);
    return rc;
}

static const struct zip_entry *find(const struct store_zip *zs, const char *key)
{
    size_t lo = 0, hi = zs->ar.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(zs->ar.ents[mid].name, key);
        if (c == 0)
            return &zs->ar.ents[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Check the entry's local header h (GSVD_ZIP_LOCAL_LEN bytes); *data receives the offset of its
 * data. */
static int check_local(const struct store_zip *zs, const struct zip_entry *e,
                       const unsigned char *h, uint64_t *data)
{
    uint64_t off;

    if (gsvd_zip_rd32(h) != GSVD_ZIP_SIG_LOCAL) {
        gsvd_log_error("%s: entry '%s': bad local header signature at offset %llu", zs->ar.path,
                       e->name, (unsigned long long)e->lho);
        return GSVD_EFORMAT;
    }
    if ((gsvd_zip_rd16(h + 6) & 0x0041) != 0) {
        gsvd_log_error("%s: entry '%s' is encrypted; encrypted zip archives are not supported",
                       zs->ar.path, e->name);
        return GSVD_EUNSUPPORTED;
    }
    if (gsvd_zip_rd16(h + 8) != e->method) {
        gsvd_log_error("%s: entry '%s': local header and central directory disagree on the "
                       "method",
                       zs->ar.path, e->name);
        return GSVD_EFORMAT;
    }
    off = e->lho + GSVD_ZIP_LOCAL_LEN + gsvd_zip_rd16(h + 26) + (uint64_t)gsvd_zip_rd16(h + 28);
    if (gsvd_zip_rd16(h + 26) < e->nlen || off > e->limit || e->limit - off < e->csize) {
        gsvd_log_error("%s: entry '%s': data (offset %llu, %llu bytes) overlaps the next entry "
                       "or the central directory",
                       zs->ar.path, e->name, (unsigned long long)off, (unsigned long long)e->csize);
        return GSVD_EFORMAT;
    }
    *data = off;
    return GSVD_OK;
}

/* Remember (or look up: *data 0) the data offset of e, which check_local() accepted. */
static void cache_data_at(struct store_zip *zs, const struct zip_entry *e, uint64_t *data)
{
    size_t i = (size_t)(e - zs->ar.ents);
    pthread_mutex_lock(&zs->mu);
    if (*data)
        zs->data_at[i] = *data;
    else
        *data = zs->data_at[i];
    pthread_mutex_unlock(&zs->mu);
}

/* The offset of the entry's data: from the cache, else by reading and checking its local
 * header (one request for a remote archive, once per entry). */
static int local_data_offset(struct store_zip *zs, const struct zip_entry *e, uint64_t *data)
{
    unsigned char h[GSVD_ZIP_LOCAL_LEN];
    int rc;

    *data = 0;
    cache_data_at(zs, e, data);
    if (*data)
        return GSVD_OK;
    rc = gsvd_zip_read_at(&zs->ar, h, GSVD_ZIP_LOCAL_LEN, e->lho, e->name);
    if (rc == GSVD_OK)
        rc = check_local(zs, e, h, data);
    if (rc == GSVD_OK)
        cache_data_at(zs, e, data);
    return rc;
}

/* Bytes read for a member in one request: its local header, name, the central extra field's
 * length plus a margin for a longer local one, and its data; never past its span's limit. */
static uint64_t member_span(const struct zip_entry *e)
{
    uint64_t want = GSVD_ZIP_LOCAL_LEN + (uint64_t)e->nlen + e->xlen + LOCAL_MARGIN + e->csize;
    return want < e->limit - e->lho ? want : e->limit - e->lho;
}

/* The member's local header and stored bytes into blk (replaced): one read of member_span(),
 * and a second for the rest only when the local extra field outgrew the margin.  *data_at
 * receives the offset of the stored bytes in blk. */
static int read_member(struct store_zip *zs, const struct zip_entry *e, struct gsvd_buf *blk,
                       size_t *data_at)
{
    int rc = GSVD_OK;
    uint64_t span = member_span(e), data, end;
    size_t have;

    if (span > SIZE_MAX / 2 || e->csize > SIZE_MAX / 2) {
        gsvd_log_error("%s: entry '%s' too large for this machine", zs->ar.path, e->name);
        return GSVD_EFORMAT;
    }
    if (zs->ar.parent && !(zs->ar.tail && e->lho >= zs->ar.tail_off)) {
        GSVD_TRY(gsvd_zip_remote_read(&zs->ar, e->lho, (size_t)span, 0, blk, NULL, e->name));
    } else {
        gsvd_buf_clear(blk);
        GSVD_TRY(gsvd_buf_reserve(blk, (size_t)span + 1));
        GSVD_TRY(gsvd_zip_read_at(&zs->ar, blk->data, (size_t)span, e->lho, e->name));
        blk->len = (size_t)span;
    }
    GSVD_TRY(check_local(zs, e, (const unsigned char *)blk->data, &data));
    cache_data_at(zs, e, &data);
    end = data + e->csize; /* <= e->limit, checked */
    have = blk->len;
    if (end - e->lho > have) { /* the margin was short: the rest in a second read */
        GSVD_TRY(gsvd_buf_reserve(blk, (size_t)(end - e->lho) + 1));
        GSVD_TRY(gsvd_zip_read_at(&zs->ar, blk->data + have, (size_t)(end - e->lho) - have,
                                  e->lho + have, e->name));
        blk->len = (size_t)(end - e->lho);
    }
    *data_at = (size_t)(data - e->lho);
out:
    return rc;
}

/* Inflate a raw DEFLATE stream of csize bytes into exactly usize bytes at dst; one spare byte
 * of output space catches a stream that decodes to more than the declared size. */
static int inflate_entry(const struct store_zip *zs, const struct zip_entry *e,
                         const unsigned char *src, unsigned char *dst)
{
    z_stream z;
    int zr = Z_OK, rc = GSVD_OK, spare_mode = 0;
    uint64_t in_left = e->csize, out_left = e->usize;
    const uint64_t step = (uint64_t)1 << 30;
    unsigned char spare;

    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) {
        gsvd_log_error("%s: entry '%s': zlib inflateInit2 failed", zs->ar.path, e->name);
        return GSVD_ENOMEM;
    }
    z.next_in = (Bytef *)(uintptr_t)src; /* zlib's API is not const-correct */
    z.next_out = dst;
    for (;;) {
        if (z.avail_in == 0 && in_left > 0) {
            z.avail_in = (uInt)(in_left < step ? in_left : step);
            in_left -= z.avail_in;
        }
        if (z.avail_out == 0) {
            if (out_left > 0) {
                z.avail_out = (uInt)(out_left < step ? out_left : step);
                out_left -= z.avail_out;
            } else if (!spare_mode) {
                z.next_out = &spare;
                z.avail_out = 1;
                spare_mode = 1;
            } else {
                break; /* the spare byte was written: longer than declared */
            }
        }
        zr = inflate(&z, Z_NO_FLUSH);
        if (zr != Z_OK)
            break;
    }
    if (zr != Z_STREAM_END || out_left != 0 || z.avail_out != (spare_mode ? 1u : 0u)) {
        gsvd_log_error("%s: entry '%s': corrupt DEFLATE data (%s)", zs->ar.path, e->name,
                       zr == Z_STREAM_END ? "size differs from the declared size"
                       : z.msg            ? z.msg
                                          : "truncated or longer than its declared size");
        rc = GSVD_ECODEC;
    }
    inflateEnd(&z);
    return rc;
}

static uint32_t crc32_of(const unsigned char *p, uint64_t n)
{
    uLong c = crc32(0L, Z_NULL, 0);
    while (n > 0) {
        uInt k = n > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uInt)n;
        c = crc32(c, p, k);
        p += k;
        n -= k;
    }
    return (uint32_t)c;
}

/* Append the whole uncompressed value of e to dst, CRC-32 checked. */
static int read_entry(struct store_zip *zs, const struct zip_entry *e, struct gsvd_buf *dst)
{
    int rc = GSVD_OK;
    struct gsvd_buf blk = GSVD_BUF_INIT;
    unsigned char *out;
    size_t start = dst->len, at = 0;

    if (e->usize > SIZE_MAX / 2 || e->csize > SIZE_MAX / 2) {
        gsvd_log_error("%s: entry '%s' too large for this machine", zs->ar.path, e->name);
        return GSVD_EFORMAT;
    }
    GSVD_TRY(read_member(zs, e, &blk, &at));
    GSVD_TRY(gsvd_buf_reserve(dst, (size_t)e->usize + 1));
    out = (unsigned char *)dst->data + start;
    if (e->method == 0) {
        if (e->usize)
            memcpy(out, blk.data + at, (size_t)e->usize);
    } else {
        GSVD_TRY(inflate_entry(zs, e, (const unsigned char *)blk.data + at, out));
    }
    if (crc32_of(out, e->usize) != e->crc) {
        gsvd_log_error("%s: entry '%s': CRC-32 mismatch (archive corrupt)", zs->ar.path, e->name);
        rc = GSVD_EFORMAT;
        goto out;
    }
    dst->len = start + (size_t)e->usize;
out:
    gsvd_buf_free(&blk);
    return rc;
}

static int zip_get(gsvd_store *st, const char *key, struct gsvd_buf *dst)
{
    struct store_zip *zs = (struct store_zip *)st;
    const struct zip_entry *e = find(zs, key);
    return e ? read_entry(zs, e, dst) : GSVD_ENOTFOUND;
}

static int zip_get_range(gsvd_store *st, const char *key, uint64_t offset, uint64_t length,
                         int suffix, struct gsvd_buf *dst, uint64_t *size)
{
    int rc = GSVD_OK;
    struct store_zip *zs = (struct store_zip *)st;
    const struct zip_entry *e = find(zs, key);
    uint64_t total, start, n, data;
    struct gsvd_buf whole = GSVD_BUF_INIT;

    if (!e)
        return GSVD_ENOTFOUND;
    total = e->usize;
    start = suffix ? (length < total ? total - length : 0) : (offset < total ? offset : total);
    n = length < total - start ? length : total - start;
    *size = total;
    if (start == 0 && n == total)
        return read_entry(zs, e, dst); /* whole value: CRC-checked */
    if (e->method == 0) {
        size_t at = dst->len;
        GSVD_TRY(local_data_offset(zs, e, &data));
        GSVD_TRY(gsvd_buf_reserve(dst, (size_t)n + 1));
        GSVD_TRY(gsvd_zip_read_at(&zs->ar, dst->data + at, (size_t)n, data + start, e->name));
        dst->len = at + (size_t)n;
        goto out;
    }
    GSVD_TRY(read_entry(zs, e, &whole));
    GSVD_TRY(gsvd_buf_append(dst, n ? whole.data + start : "", (size_t)n));
out:
    gsvd_buf_free(&whole);
    return rc;
}

/* Remote archives: the members' byte ranges become the parent's read-ahead plan, in order, so
 * a scan reads `concurrency` members at a time as for a directory store's chunks.  Each range
 * is the one read_member() asks for, which takes it.  Absent keys (missing chunks) and members
 * inside the tail already read are skipped. */
static int zip_prefetch(gsvd_store *st, const char *const *keys, size_t n)
{
    const struct store_zip *zs = (const struct store_zip *)st;
    const struct gsvd_store_ops *ops = zs->ar.parent ? zs->ar.parent->ops : NULL;
    struct gsvd_store_range *rs = NULL;
    size_t m = 0;
    int rc;

    if (!ops || ops->version < 4 || !ops->prefetch_ranges || n == 0)
        return GSVD_OK;
    rs = gsvd_calloc(n, sizeof *rs);
    if (!rs)
        return GSVD_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const struct zip_entry *e = find(zs, keys[i]);
        if (!e || e->lho >= zs->ar.tail_off || member_span(e) > SIZE_MAX / 2)
            continue;
        rs[m].key = zs->ar.key;
        rs[m].offset = e->lho;
        rs[m].length = member_span(e);
        m++;
    }
    rc = ops->prefetch_ranges(zs->ar.parent, rs, m);
    gsvd_free(rs);
    return rc;
}

static int zip_size(gsvd_store *st, const char *key, uint64_t *size)
{
    const struct zip_entry *e = find((const struct store_zip *)st, key);
    if (!e)
        return GSVD_ENOTFOUND;
    *size = e->usize;
    return GSVD_OK;
}

/* Immediate children of prefix: names are sorted, so they form one run; a child's names are
 * consecutive save in odd archives holding both "a" and "a/..." (a duplicate is harmless). */
static int zip_list(gsvd_store *st, const char *prefix, struct gsvd_strlist *names)
{
    const struct store_zip *zs = (const struct store_zip *)st;
    size_t plen = strlen(prefix), lo = 0, hi = zs->ar.n;
    const char *last = NULL;
    size_t last_len = 0;

    while (plen > 0 && prefix[plen - 1] == '/')
        plen--;
    if (plen) { /* first name >= prefix */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strncmp(zs->ar.ents[mid].name, prefix, plen) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    for (size_t i = lo; i < zs->ar.n; i++) {
        const char *k = zs->ar.ents[i].name, *rest, *slash;
        size_t len;
        if (plen && strncmp(k, prefix, plen) != 0)
            break;
        if (plen && k[plen] != '/')
            continue;
        rest = plen ? k + plen + 1 : k;
        slash = strchr(rest, '/');
        len = slash ? (size_t)(slash - rest) : strlen(rest);
        if (last && last_len == len && memcmp(last, rest, len) == 0)
            continue;
        int rc = gsvd_strlist_pushn(names, rest, len);
        if (rc < 0)
            return rc;
        last = rest;
        last_len = len;
    }
    return GSVD_OK;
}

const struct gsvd_store_ops gsvd_store_zip_ops = {
    .version = GSVD_STORE_OPS_VERSION,
    .name = "zip",
    .open = zip_open,
    .close = zip_close,
    .get = zip_get,
    .put = NULL,
    .list = zip_list,
    .commit = NULL,
    .size = zip_size,
    .prefetch = zip_prefetch,
    .get_range = zip_get_range,
    .prefetch_ranges = NULL,
};
