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
 * The table and the tail are immutable after open, local reads use pread and the remote
 * parent is thread-safe, so workers share the store freely. */
#include "gsvd_config.h"
#include "zarr/store.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <zlib.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/store_internal.h"

#define SIG_EOCD 0x06054b50u
#define SIG_Z64_LOC 0x07064b50u
#define SIG_Z64_EOCD 0x06064b50u
#define SIG_CDIR 0x02014b50u
#define SIG_LOCAL 0x04034b50u
#define EOCD_LEN 22u
#define Z64_LOC_LEN 20u
#define Z64_EOCD_LEN 56u
#define CDIR_LEN 46u
#define LOCAL_LEN 30u
#define MAX_COMMENT 65535u
#define LOCAL_TAIL (EOCD_LEN + MAX_COMMENT) /* bytes of a local archive's tail read at open */
/* the remote suffix request: the end records, and the central directory of archives of up to
 * ~3,000 members */
#define REMOTE_TAIL ((uint64_t)256 << 10)
#define LOCAL_MARGIN 64u /* local extra field beyond the central one, read with a member */

struct zip_entry {
    char *name;     /* owned; key relative to the served root (directories dropped) */
    uint64_t lho;   /* offset of the local header */
    uint64_t limit; /* end of the span this entry may use: the next entry's header or the CD */
    uint64_t csize; /* compressed size */
    uint64_t usize; /* uncompressed size */
    uint32_t crc;
    uint16_t method; /* 0 STORED, 8 DEFLATE */
    uint16_t nlen;   /* name length as stored (before a common directory is stripped) */
    uint16_t xlen;   /* central extra field length: the local one is usually no longer */
    size_t idx;      /* position in the central directory: a later duplicate wins */
};

/* Bytes come from a local file (fd >= 0) or from ranged gets of `key` in a remote `parent`;
 * `tail` holds the archive's last bytes, read at open, and serves every read inside it. */
struct store_zip {
    struct gsvd_store base;
    char *path; /* owned; the archive (path or URL), for messages */
    int fd;
    gsvd_store *parent; /* owned, or NULL: a local archive */
    char *key;          /* owned: the archive's key in parent */
    unsigned char *tail;
    uint64_t tail_off; /* archive offset of tail[0] */
    size_t tail_len;
    uint64_t size;          /* archive size */
    struct zip_entry *ents; /* owned; sorted by name */
    size_t n;
    pthread_mutex_t mu; /* guards data_at */
    uint64_t *data_at;  /* owned; per entry: offset of its data once a local header was read,
                           0 before (a data offset is never 0) */
};

static uint16_t rd16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32);
}

/* Bytes [off, off + n) of the remote archive into dst (replaced): one ranged get. */
static int remote_read(const struct store_zip *zs, uint64_t off, size_t n, int suffix,
                       struct gsvd_buf *dst, uint64_t *size, const char *what)
{
    const struct gsvd_store_ops *ops = zs->parent->ops;
    uint64_t total = UINT64_MAX;
    int rc;

    if (ops->version < 3 || !ops->get_range) {
        gsvd_log_error("%s: the %s store has no ranged reads", zs->path, ops->name);
        return GSVD_EINTERNAL;
    }
    gsvd_buf_clear(dst);
    rc = ops->get_range(zs->parent, zs->key, off, n, suffix, dst, &total);
    if (rc == GSVD_ENOTFOUND) {
        gsvd_log_error("%s: no such archive (HTTP 404 / object not found)", zs->path);
        return GSVD_ENOTFOUND;
    }
    if (rc < 0)
        return rc; /* logged by the remote store, with the URL */
    if (size)
        *size = total;
    if (!suffix && dst->len != n) {
        gsvd_log_error("%s: truncated zip archive (reading %s: %zu of %zu bytes at offset %llu)",
                       zs->path, what, dst->len, n, (unsigned long long)off);
        return GSVD_EFORMAT;
    }
    return GSVD_OK;
}

/* Read exactly n bytes at off; a short read is a truncated archive (GSVD_EFORMAT). */
static int read_at(const struct store_zip *zs, void *dst, size_t n, uint64_t off, const char *what)
{
    size_t got = 0;
    if (zs->tail && off >= zs->tail_off && off - zs->tail_off <= zs->tail_len &&
        n <= zs->tail_len - (off - zs->tail_off)) {
        memcpy(dst, zs->tail + (off - zs->tail_off), n);
        return GSVD_OK;
    }
    if (zs->parent) {
        struct gsvd_buf b = GSVD_BUF_INIT;
        int rc = remote_read(zs, off, n, 0, &b, NULL, what);
        if (rc == GSVD_OK && n)
            memcpy(dst, b.data, n);
        gsvd_buf_free(&b);
        return rc;
    }
    while (got < n) {
        ssize_t r = pread(zs->fd, (char *)dst + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            gsvd_log_error("%s: reading %s: %s", zs->path, what, strerror(errno));
            return GSVD_EIO;
        }
        if (r == 0) {
            gsvd_log_error("%s: truncated zip archive (reading %s)", zs->path, what);
            return GSVD_EFORMAT;
        }
        got += (size_t)r;
    }
    return GSVD_OK;
}

static void zip_close(gsvd_store *st)
{
    struct store_zip *zs = (struct store_zip *)st;
    if (!zs)
        return;
    for (size_t i = 0; i < zs->n; i++)
        gsvd_free(zs->ents[i].name);
    gsvd_free(zs->ents);
    if (zs->fd >= 0)
        close(zs->fd);
    if (zs->parent) { /* as gsvd_store_close, which this file does not call (store.c calls it) */
        char *url = zs->parent->url;
        zs->parent->ops->close(zs->parent);
        gsvd_free(url);
    }
    gsvd_free(zs->key);
    gsvd_free(zs->tail);
    gsvd_free(zs->data_at);
    pthread_mutex_destroy(&zs->mu);
    gsvd_free(zs->path);
    gsvd_free(zs);
}

struct cd_info {
    uint64_t n_entries, cd_size, cd_off;
    uint64_t cd_end; /* where the central directory must end: the (ZIP64) EOCD record */
};

/* Read the archive's tail into zs->tail: locally by pread (zs->size known), remotely by one
 * suffix request, which also gives the archive's size. */
static int load_tail(struct store_zip *zs)
{
    int rc = GSVD_OK;
    struct gsvd_buf b = GSVD_BUF_INIT;
    uint64_t total = UINT64_MAX;

    if (!zs->parent) {
        zs->tail_len = (size_t)(zs->size < LOCAL_TAIL ? zs->size : LOCAL_TAIL);
        zs->tail_off = zs->size - zs->tail_len;
        GSVD_TRY(gsvd_buf_reserve(&b, zs->tail_len + 1));
        GSVD_TRY(read_at(zs, b.data, zs->tail_len, zs->tail_off, "the end of central directory"));
        b.len = zs->tail_len;
    } else {
        GSVD_TRY(remote_read(zs, 0, REMOTE_TAIL, 1, &b, &total, "the end of central directory"));
        if (total == UINT64_MAX || b.len > total ||
            b.len != (total < REMOTE_TAIL ? total : REMOTE_TAIL)) {
            gsvd_log_error("%s: the server sent %zu bytes of the archive's end without its size "
                           "(or a short body); cannot locate the zip directory",
                           zs->path, b.len);
            rc = GSVD_EFORMAT;
            goto out;
        }
        zs->size = total;
        zs->tail_len = b.len;
        zs->tail_off = total - b.len;
    }
    zs->tail = (unsigned char *)b.data; /* ownership moves to the store */
    b = (struct gsvd_buf)GSVD_BUF_INIT;
out:
    gsvd_buf_free(&b);
    return rc;
}

/* Find the EOCD in the archive's tail and fill *ci, following the ZIP64 locator when a field
 * is saturated.  GSVD_EFORMAT (logged) when the archive is not a usable zip. */
static int find_eocd(struct store_zip *zs, struct cd_info *ci)
{
    int rc = GSVD_OK;
    unsigned char z[Z64_EOCD_LEN];
    size_t tail = zs->tail_len;
    const unsigned char *buf = zs->tail;
    uint64_t base = zs->tail_off, eocd = UINT64_MAX;

    if (zs->size < EOCD_LEN) {
        gsvd_log_error("%s: not a zip archive (%llu bytes, too short)", zs->path,
                       (unsigned long long)zs->size);
        return GSVD_EFORMAT;
    }
    if (tail > LOCAL_TAIL) { /* the EOCD lies in the last 22 + 65,535 bytes */
        base += tail - LOCAL_TAIL;
        buf += tail - LOCAL_TAIL;
        tail = LOCAL_TAIL;
    }
    for (size_t i = tail - EOCD_LEN + 1; i-- > 0;) {
        if (rd32(buf + i) == SIG_EOCD && i + EOCD_LEN + rd16(buf + i + 20) <= tail) {
            eocd = base + i;
            break;
        }
    }
    if (eocd == UINT64_MAX) {
        gsvd_log_error("%s: not a zip archive (no end of central directory record; truncated?)",
                       zs->path);
        rc = GSVD_EFORMAT;
        goto out;
    }
    const unsigned char *e = buf + (eocd - base);
    if (rd16(e + 4) != 0 || rd16(e + 6) != 0 || rd16(e + 8) != rd16(e + 10)) {
        gsvd_log_error("%s: multi-disk (split) zip archives are not supported", zs->path);
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    ci->n_entries = rd16(e + 10);
    ci->cd_size = rd32(e + 12);
    ci->cd_off = rd32(e + 16);
    ci->cd_end = eocd;
    if (ci->n_entries == 0xFFFF || ci->cd_size == 0xFFFFFFFFu || ci->cd_off == 0xFFFFFFFFu) {
        uint64_t z64;
        if (eocd < Z64_LOC_LEN) {
            gsvd_log_error("%s: ZIP64 archive without a ZIP64 locator", zs->path);
            rc = GSVD_EFORMAT;
            goto out;
        }
        GSVD_TRY(read_at(zs, z, Z64_LOC_LEN, eocd - Z64_LOC_LEN, "the ZIP64 locator"));
        if (rd32(z) != SIG_Z64_LOC) {
            gsvd_log_error("%s: ZIP64 archive without a ZIP64 locator", zs->path);
            rc = GSVD_EFORMAT;
            goto out;
        }
        if (rd32(z + 4) != 0 || rd32(z + 16) > 1) {
            gsvd_log_error("%s: multi-disk (split) zip archives are not supported", zs->path);
            rc = GSVD_EUNSUPPORTED;
            goto out;
        }
        z64 = rd64(z + 8);
        if (z64 > eocd - Z64_LOC_LEN || eocd - Z64_LOC_LEN - z64 < Z64_EOCD_LEN) {
            gsvd_log_error("%s: ZIP64 end of central directory offset %llu out of range", zs->path,
                           (unsigned long long)z64);
            rc = GSVD_EFORMAT;
            goto out;
        }
        GSVD_TRY(read_at(zs, z, Z64_EOCD_LEN, z64, "the ZIP64 end of central directory"));
        if (rd32(z) != SIG_Z64_EOCD) {
            gsvd_log_error("%s: bad ZIP64 end of central directory signature", zs->path);
            rc = GSVD_EFORMAT;
            goto out;
        }
        if (rd32(z + 16) != 0 || rd32(z + 20) != 0 || rd64(z + 24) != rd64(z + 32)) {
            gsvd_log_error("%s: multi-disk (split) zip archives are not supported", zs->path);
            rc = GSVD_EUNSUPPORTED;
            goto out;
        }
        ci->n_entries = rd64(z + 32);
        ci->cd_size = rd64(z + 40);
        ci->cd_off = rd64(z + 48);
        ci->cd_end = z64;
    }
    if (ci->cd_off > ci->cd_end || ci->cd_size != ci->cd_end - ci->cd_off) {
        gsvd_log_error("%s: central directory (offset %llu, %llu bytes) does not end at the end "
                       "record (offset %llu); truncated, or data prepended to the archive",
                       zs->path, (unsigned long long)ci->cd_off, (unsigned long long)ci->cd_size,
                       (unsigned long long)ci->cd_end);
        rc = GSVD_EFORMAT;
        goto out;
    }
    if (ci->n_entries > ci->cd_size / CDIR_LEN) {
        gsvd_log_error("%s: %llu entries cannot fit a %llu-byte central directory", zs->path,
                       (unsigned long long)ci->n_entries, (unsigned long long)ci->cd_size);
        rc = GSVD_EFORMAT;
        goto out;
    }
out:
    return rc;
}

/* Apply the ZIP64 extended-information extra field (id 1) to the saturated fields of one
 * central directory entry: they appear in the order usize, csize, lho. */
static int apply_zip64(const struct store_zip *zs, const char *name, const unsigned char *x,
                       size_t xlen, uint64_t *usize, uint64_t *csize, uint64_t *lho)
{
    uint64_t *fields[3] = {usize, csize, lho};
    while (xlen >= 4) {
        uint16_t id = rd16(x), len = rd16(x + 2);
        if ((size_t)len > xlen - 4)
            break; /* a malformed tail is ignored, as zip readers do, unless we need it */
        if (id == 1) {
            size_t at = 0;
            for (int k = 0; k < 3; k++) {
                if (*fields[k] != 0xFFFFFFFFu)
                    continue;
                if (at + 8 > len) {
                    gsvd_log_error("%s: entry '%s': ZIP64 extra field too short", zs->path, name);
                    return GSVD_EFORMAT;
                }
                *fields[k] = rd64(x + 4 + at);
                at += 8;
            }
            return GSVD_OK;
        }
        x += 4 + (size_t)len;
        xlen -= 4 + (size_t)len;
    }
    if (*usize == 0xFFFFFFFFu || *csize == 0xFFFFFFFFu || *lho == 0xFFFFFFFFu) {
        gsvd_log_error("%s: entry '%s': saturated size or offset without a ZIP64 extra field",
                       zs->path, name);
        return GSVD_EFORMAT;
    }
    return GSVD_OK;
}

static int cmp_name(const void *a, const void *b)
{
    const struct zip_entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->idx < y->idx ? -1 : x->idx > y->idx);
}

static int cmp_lho(const void *a, const void *b)
{
    const struct zip_entry *x = *(const struct zip_entry *const *)a;
    const struct zip_entry *y = *(const struct zip_entry *const *)b;
    return x->lho < y->lho ? -1 : x->lho > y->lho;
}

/* Parse one central directory entry at p (avail bytes left); *used receives its length.
 * Directory entries leave e->name NULL. */
static int parse_entry(const struct store_zip *zs, const unsigned char *p, size_t avail, size_t idx,
                       struct zip_entry *e, size_t *used)
{
    int rc = GSVD_OK;
    uint16_t flags, nlen, xlen, clen;
    char *name = NULL;

    if (avail < CDIR_LEN || rd32(p) != SIG_CDIR) {
        gsvd_log_error("%s: central directory entry %zu: bad signature or truncated", zs->path,
                       idx);
        return GSVD_EFORMAT;
    }
    flags = rd16(p + 8);
    e->method = rd16(p + 10);
    e->crc = rd32(p + 16);
    e->csize = rd32(p + 20);
    e->usize = rd32(p + 24);
    nlen = rd16(p + 28);
    xlen = rd16(p + 30);
    clen = rd16(p + 32);
    e->lho = rd32(p + 42);
    e->nlen = nlen;
    e->xlen = xlen;
    if ((size_t)nlen + xlen + clen > avail - CDIR_LEN) {
        gsvd_log_error("%s: central directory entry %zu runs past the directory", zs->path, idx);
        return GSVD_EFORMAT;
    }
    *used = CDIR_LEN + (size_t)nlen + xlen + clen;
    name = gsvd_malloc((size_t)nlen + 1);
    if (!name)
        return GSVD_ENOMEM;
    memcpy(name, p + CDIR_LEN, nlen);
    name[nlen] = '\0';
    if (nlen == 0 || strlen(name) != nlen) {
        gsvd_log_error("%s: central directory entry %zu: empty name or NUL in name", zs->path, idx);
        rc = GSVD_EFORMAT;
        goto out;
    }
    if ((flags & 0x0001) || (flags & 0x0040) || e->method == 99) {
        gsvd_log_error("%s: entry '%s' is encrypted; encrypted zip archives are not supported",
                       zs->path, name);
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    if (e->method != 0 && e->method != 8) {
        gsvd_log_error("%s: entry '%s': compression method %u is not supported (only STORED "
                       "and DEFLATE)",
                       zs->path, name, (unsigned)e->method);
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    if (rd16(p + 34) != 0) {
        gsvd_log_error("%s: entry '%s' is on another disk (split archive)", zs->path, name);
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    GSVD_TRY(apply_zip64(zs, name, p + CDIR_LEN + nlen, xlen, &e->usize, &e->csize, &e->lho));
    if (e->method == 0 && e->csize != e->usize) {
        gsvd_log_error("%s: entry '%s': STORED with compressed size %llu != size %llu", zs->path,
                       name, (unsigned long long)e->csize, (unsigned long long)e->usize);
        rc = GSVD_EFORMAT;
        goto out;
    }
    /* DEFLATE expands at most 1032:1, so a larger declared size is a lie (and would make a
     * reader allocate it before finding out) */
    if (e->method == 8 && e->csize < UINT64_MAX / 2048 && e->usize > e->csize * 1032 + 64) {
        gsvd_log_error("%s: entry '%s': declared size %llu impossible for %llu DEFLATE bytes",
                       zs->path, name, (unsigned long long)e->usize, (unsigned long long)e->csize);
        rc = GSVD_EFORMAT;
        goto out;
    }
    if (name[nlen - 1] == '/') {
        gsvd_free(name); /* a directory: keys are implied by its files */
        name = NULL;
        goto out;
    }
    if (gsvd_key_check(name) < 0) {
        gsvd_log_error("%s: entry '%s': unsafe or invalid name (absolute, '..', '.', '\\', empty "
                       "component or control characters)",
                       zs->path, name);
        rc = GSVD_EFORMAT;
        goto out;
    }
    e->name = name;
    name = NULL;
out:
    gsvd_free(name);
    return rc;
}

/* Check that every entry's span [lho, lho + header + name + csize) lies before the next entry
 * and the central directory, and record that bound as its limit. */
static int check_spans(struct store_zip *zs, uint64_t cd_off)
{
    int rc = GSVD_OK;
    struct zip_entry **by = NULL;

    if (zs->n == 0)
        return GSVD_OK;
    by = gsvd_malloc(zs->n * sizeof *by);
    if (!by)
        return GSVD_ENOMEM;
    for (size_t i = 0; i < zs->n; i++)
        by[i] = &zs->ents[i];
    qsort(by, zs->n, sizeof *by, cmp_lho);
    for (size_t i = 0; i < zs->n; i++) {
        struct zip_entry *e = by[i];
        uint64_t limit = i + 1 < zs->n ? by[i + 1]->lho : cd_off;
        uint64_t need = LOCAL_LEN + strlen(e->name);
        if (limit > cd_off || e->lho > limit || limit - e->lho < need ||
            limit - e->lho - need < e->csize) {
            gsvd_log_error("%s: entry '%s' (offset %llu, %llu bytes) overlaps %s", zs->path,
                           e->name, (unsigned long long)e->lho, (unsigned long long)e->csize,
                           i + 1 < zs->n && limit <= cd_off ? "the next entry"
                                                            : "the central directory or the end");
            rc = GSVD_EFORMAT;
            goto out;
        }
        e->limit = limit;
    }
out:
    gsvd_free(by);
    return rc;
}

static int is_meta_name(const char *s)
{
    return strcmp(s, "zarr.json") == 0 || strcmp(s, ".zgroup") == 0 || strcmp(s, ".zarray") == 0 ||
           strcmp(s, ".zmetadata") == 0 || strcmp(s, ".zattrs") == 0;
}

/* A directory zipped under its own name ("x.zarr/.zgroup", ...): serve keys relative to it.
 * Only when no metadata sits at the root and every entry shares one first component. */
static void strip_common_dir(struct store_zip *zs)
{
    const char *first, *slash;
    size_t len;
    int has_meta = 0;

    if (zs->n == 0)
        return;
    for (size_t i = 0; i < zs->n; i++)
        if (is_meta_name(zs->ents[i].name))
            return;
    first = zs->ents[0].name;
    slash = strchr(first, '/');
    if (!slash)
        return;
    len = (size_t)(slash - first) + 1;
    for (size_t i = 0; i < zs->n; i++) {
        if (strncmp(zs->ents[i].name, first, len) != 0)
            return;
        has_meta |= is_meta_name(zs->ents[i].name + len);
    }
    if (!has_meta)
        return;
    for (size_t i = 0; i < zs->n; i++)
        memmove(zs->ents[i].name, zs->ents[i].name + len, strlen(zs->ents[i].name + len) + 1);
}

/* zarr-python's ZipStore appends an entry again when a key is rewritten (metadata updated,
 * consolidated): like Python's zipfile, the last one in the central directory wins.  The
 * table is sorted by (name, idx); keep the last of each run. */
static void dedupe(struct store_zip *zs)
{
    size_t w = 0;
    for (size_t i = 0; i < zs->n; i++) {
        if (i + 1 < zs->n && strcmp(zs->ents[i].name, zs->ents[i + 1].name) == 0) {
            gsvd_free(zs->ents[i].name);
            continue;
        }
        zs->ents[w++] = zs->ents[i];
    }
    zs->n = w;
}

/* Read the central directory into zs->ents: parse, check spans, strip a common top directory,
 * sort by name and keep the last of duplicates. */
static int read_central(struct store_zip *zs, const struct cd_info *ci)
{
    int rc = GSVD_OK;
    unsigned char *cd = NULL;
    size_t pos = 0, n_files = 0;

    if (ci->cd_size > SIZE_MAX) {
        gsvd_log_error("%s: central directory too large", zs->path);
        return GSVD_EFORMAT;
    }
    cd = gsvd_malloc(ci->cd_size ? (size_t)ci->cd_size : 1);
    if (!cd)
        return GSVD_ENOMEM;
    GSVD_TRY(read_at(zs, cd, (size_t)ci->cd_size, ci->cd_off, "the central directory"));
    zs->ents = gsvd_calloc(ci->n_entries ? (size_t)ci->n_entries : 1, sizeof *zs->ents);
    if (!zs->ents) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < ci->n_entries; i++) {
        size_t used = 0;
        struct zip_entry *e = &zs->ents[n_files];
        GSVD_TRY(parse_entry(zs, cd + pos, (size_t)ci->cd_size - pos, i, e, &used));
        pos += used;
        e->idx = i;
        if (e->name) {
            n_files++;
            zs->n = n_files;
        }
    }
    if (pos != ci->cd_size) {
        gsvd_log_error("%s: central directory holds %zu bytes after its %llu entries", zs->path,
                       (size_t)ci->cd_size - pos, (unsigned long long)ci->n_entries);
        rc = GSVD_EFORMAT;
        goto out;
    }
    GSVD_TRY(check_spans(zs, ci->cd_off));
    strip_common_dir(zs);
    qsort(zs->ents, zs->n, sizeof *zs->ents, cmp_name);
    dedupe(zs);
out:
    gsvd_free(cd);
    return rc;
}

static int alloc_data_at(struct store_zip *zs)
{
    zs->data_at = gsvd_calloc(zs->n ? zs->n : 1, sizeof *zs->data_at);
    return zs->data_at ? GSVD_OK : GSVD_ENOMEM;
}

static int zip_open(const char *path, unsigned flags, gsvd_store **out)
{
    int rc = GSVD_OK;
    struct store_zip *zs = NULL;
    struct stat sb;
    struct cd_info ci;

    *out = NULL;
    if (flags & GSVD_STORE_WRITE) {
        gsvd_log_error("%s: writing zip archives is not supported (zip stores are read-only; "
                       "write a directory store and zip it)",
                       path);
        return GSVD_EUNSUPPORTED;
    }
    zs = gsvd_calloc(1, sizeof *zs);
    if (!zs)
        return GSVD_ENOMEM;
    zs->base.ops = &gsvd_store_zip_ops;
    zs->fd = -1;
    pthread_mutex_init(&zs->mu, NULL);
    zs->path = gsvd_strdup(path);
    if (!zs->path) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    zs->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (zs->fd < 0) {
        gsvd_log_error("%s: %s", path, strerror(errno));
        rc = errno == ENOENT ? GSVD_ENOTFOUND : GSVD_EIO;
        goto out;
    }
    if (fstat(zs->fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        gsvd_log_error("%s: not a regular file (a zipped Zarr store is a .zip file)", path);
        rc = GSVD_EFORMAT;
        goto out;
    }
    zs->size = (uint64_t)sb.st_size;
    GSVD_TRY(load_tail(zs));
    GSVD_TRY(find_eocd(zs, &ci));
    GSVD_TRY(read_central(zs, &ci));
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
    struct store_zip *zs = gsvd_calloc(1, sizeof *zs);
    struct cd_info ci;

    *out = NULL;
    if (!zs) {
        char *url = parent->url;
        parent->ops->close(parent);
        gsvd_free(url);
        return GSVD_ENOMEM;
    }
    zs->base.ops = &gsvd_store_zip_ops;
    zs->fd = -1;
    pthread_mutex_init(&zs->mu, NULL);
    zs->parent = parent; /* closed with zs from here on */
    zs->path = gsvd_strdup(display);
    zs->key = gsvd_strdup(key);
    if (!zs->path || !zs->key) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(load_tail(zs));
    GSVD_TRY(find_eocd(zs, &ci));
    GSVD_TRY(read_central(zs, &ci));
    GSVD_TRY(alloc_data_at(zs));
    gsvd_log_debug("%s: %zu members, central directory of %llu bytes%s", display, zs->n,
                   (unsigned long long)ci.cd_size,
                   ci.cd_off >= zs->tail_off ? " (inside the first request)" : "");
    *out = &zs->base;
    zs = NULL;
out:
    zip_close(zs ? &zs->base : NULL);
    return rc;
}

static const struct zip_entry *find(const struct store_zip *zs, const char *key)
{
    size_t lo = 0, hi = zs->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(zs->ents[mid].name, key);
        if (c == 0)
            return &zs->ents[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Check the entry's local header h (LOCAL_LEN bytes); *data receives the offset of its data. */
static int check_local(const struct store_zip *zs, const struct zip_entry *e,
                       const unsigned char *h, uint64_t *data)
{
    uint64_t off;

    if (rd32(h) != SIG_LOCAL) {
        gsvd_log_error("%s: entry '%s': bad local header signature at offset %llu", zs->path,
                       e->name, (unsigned long long)e->lho);
        return GSVD_EFORMAT;
    }
    if ((rd16(h + 6) & 0x0041) != 0) {
        gsvd_log_error("%s: entry '%s' is encrypted; encrypted zip archives are not supported",
                       zs->path, e->name);
        return GSVD_EUNSUPPORTED;
    }
    if (rd16(h + 8) != e->method) {
        gsvd_log_error("%s: entry '%s': local header and central directory disagree on the "
                       "method",
                       zs->path, e->name);
        return GSVD_EFORMAT;
    }
    off = e->lho + LOCAL_LEN + rd16(h + 26) + (uint64_t)rd16(h + 28);
    if (rd16(h + 26) < e->nlen || off > e->limit || e->limit - off < e->csize) {
        gsvd_log_error("%s: entry '%s': data (offset %llu, %llu bytes) overlaps the next entry "
                       "or the central directory",
                       zs->path, e->name, (unsigned long long)off, (unsigned long long)e->csize);
        return GSVD_EFORMAT;
    }
    *data = off;
    return GSVD_OK;
}

/* Remember (or look up: *data 0) the data offset of e, which check_local() accepted. */
static void cache_data_at(struct store_zip *zs, const struct zip_entry *e, uint64_t *data)
{
    size_t i = (size_t)(e - zs->ents);
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
    unsigned char h[LOCAL_LEN];
    int rc;

    *data = 0;
    cache_data_at(zs, e, data);
    if (*data)
        return GSVD_OK;
    rc = read_at(zs, h, LOCAL_LEN, e->lho, e->name);
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
    uint64_t want = LOCAL_LEN + (uint64_t)e->nlen + e->xlen + LOCAL_MARGIN + e->csize;
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
        gsvd_log_error("%s: entry '%s' too large for this machine", zs->path, e->name);
        return GSVD_EFORMAT;
    }
    if (zs->parent && !(zs->tail && e->lho >= zs->tail_off)) {
        GSVD_TRY(remote_read(zs, e->lho, (size_t)span, 0, blk, NULL, e->name));
    } else {
        gsvd_buf_clear(blk);
        GSVD_TRY(gsvd_buf_reserve(blk, (size_t)span + 1));
        GSVD_TRY(read_at(zs, blk->data, (size_t)span, e->lho, e->name));
        blk->len = (size_t)span;
    }
    GSVD_TRY(check_local(zs, e, (const unsigned char *)blk->data, &data));
    cache_data_at(zs, e, &data);
    end = data + e->csize; /* <= e->limit, checked */
    have = blk->len;
    if (end - e->lho > have) { /* the margin was short: the rest in a second read */
        GSVD_TRY(gsvd_buf_reserve(blk, (size_t)(end - e->lho) + 1));
        GSVD_TRY(
            read_at(zs, blk->data + have, (size_t)(end - e->lho) - have, e->lho + have, e->name));
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
        gsvd_log_error("%s: entry '%s': zlib inflateInit2 failed", zs->path, e->name);
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
        gsvd_log_error("%s: entry '%s': corrupt DEFLATE data (%s)", zs->path, e->name,
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
        gsvd_log_error("%s: entry '%s' too large for this machine", zs->path, e->name);
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
        gsvd_log_error("%s: entry '%s': CRC-32 mismatch (archive corrupt)", zs->path, e->name);
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
        GSVD_TRY(read_at(zs, dst->data + at, (size_t)n, data + start, e->name));
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
    const struct gsvd_store_ops *ops = zs->parent ? zs->parent->ops : NULL;
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
        if (!e || e->lho >= zs->tail_off || member_span(e) > SIZE_MAX / 2)
            continue;
        rs[m].key = zs->key;
        rs[m].offset = e->lho;
        rs[m].length = member_span(e);
        m++;
    }
    rc = ops->prefetch_ranges(zs->parent, rs, m);
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
    size_t plen = strlen(prefix), lo = 0, hi = zs->n;
    const char *last = NULL;
    size_t last_len = 0;

    while (plen > 0 && prefix[plen - 1] == '/')
        plen--;
    if (plen) { /* first name >= prefix */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strncmp(zs->ents[mid].name, prefix, plen) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    for (size_t i = lo; i < zs->n; i++) {
        const char *k = zs->ents[i].name, *rest, *slash;
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
