/* zarr/store_zip_dir.c - the zip store's archive (struct zip_archive, store_zip_internal.h):
 * opening and closing it, the byte source (pread on a local fd, or ranged gets of the
 * archive's key in a remote parent, with the tail read at open serving every read inside it),
 * the End Of Central Directory record (ZIP64 locator and record when a field is saturated) and
 * the central directory, read into the key table that store_zip.c serves.  See store_zip.c for
 * the checks every entry passes. */
#include "gsvd_config.h"
#include "zarr/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/store_zip_internal.h"

#define SIG_EOCD 0x06054b50u
#define SIG_Z64_LOC 0x07064b50u
#define SIG_Z64_EOCD 0x06064b50u
#define SIG_CDIR 0x02014b50u
#define EOCD_LEN 22u
#define Z64_LOC_LEN 20u
#define Z64_EOCD_LEN 56u
#define CDIR_LEN 46u
#define MAX_COMMENT 65535u
#define LOCAL_TAIL (EOCD_LEN + MAX_COMMENT) /* bytes of a local archive's tail read at open */
/* the remote suffix request: the end records, and the central directory of archives of up to
 * ~3,000 members */
#define REMOTE_TAIL ((uint64_t)256 << 10)

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)gsvd_zip_rd32(p) | ((uint64_t)gsvd_zip_rd32(p + 4) << 32);
}

/* Bytes [off, off + n) of the remote archive into dst (replaced): one ranged get. */
int gsvd_zip_remote_read(const struct zip_archive *ar, uint64_t off, size_t n, int suffix,
                         struct gsvd_buf *dst, uint64_t *size, const char *what)
{
    const struct gsvd_store_ops *ops = ar->parent->ops;
    uint64_t total = UINT64_MAX;
    int rc;

    if (ops->version < 3 || !ops->get_range) {
        gsvd_log_error("%s: the %s store has no ranged reads", ar->path, ops->name);
        return GSVD_EINTERNAL;
    }
    gsvd_buf_clear(dst);
    rc = ops->get_range(ar->parent, ar->key, off, n, suffix, dst, &total);
    if (rc == GSVD_ENOTFOUND) {
        gsvd_log_error("%s: no such archive (HTTP 404 / object not found)", ar->path);
        return GSVD_ENOTFOUND;
    }
    if (rc < 0)
        return rc; /* logged by the remote store, with the URL */
    if (size)
        *size = total;
    if (!suffix && dst->len != n) {
        gsvd_log_error("%s: truncated zip archive (reading %s: %zu of %zu bytes at offset %llu)",
                       ar->path, what, dst->len, n, (unsigned long long)off);
        return GSVD_EFORMAT;
    }
    return GSVD_OK;
}

/* Read exactly n bytes at off; a short read is a truncated archive (GSVD_EFORMAT). */
int gsvd_zip_read_at(const struct zip_archive *ar, void *dst, size_t n, uint64_t off,
                     const char *what)
{
    size_t got = 0;
    if (ar->tail && off >= ar->tail_off && off - ar->tail_off <= ar->tail_len &&
        n <= ar->tail_len - (off - ar->tail_off)) {
        memcpy(dst, ar->tail + (off - ar->tail_off), n);
        return GSVD_OK;
    }
    if (ar->parent) {
        struct gsvd_buf b = GSVD_BUF_INIT;
        int rc = gsvd_zip_remote_read(ar, off, n, 0, &b, NULL, what);
        if (rc == GSVD_OK && n)
            memcpy(dst, b.data, n);
        gsvd_buf_free(&b);
        return rc;
    }
    while (got < n) {
        ssize_t r = pread(ar->fd, (char *)dst + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            gsvd_log_error("%s: reading %s: %s", ar->path, what, strerror(errno));
            return GSVD_EIO;
        }
        if (r == 0) {
            gsvd_log_error("%s: truncated zip archive (reading %s)", ar->path, what);
            return GSVD_EFORMAT;
        }
        got += (size_t)r;
    }
    return GSVD_OK;
}

/* Read the archive's tail into ar->tail: locally by pread (ar->size known), remotely by one
 * suffix request, which also gives the archive's size. */
static int load_tail(struct zip_archive *ar)
{
    int rc = GSVD_OK;
    struct gsvd_buf b = GSVD_BUF_INIT;
    uint64_t total = UINT64_MAX;

    if (!ar->parent) {
        ar->tail_len = (size_t)(ar->size < LOCAL_TAIL ? ar->size : LOCAL_TAIL);
        ar->tail_off = ar->size - ar->tail_len;
        GSVD_TRY(gsvd_buf_reserve(&b, ar->tail_len + 1));
        GSVD_TRY(gsvd_zip_read_at(ar, b.data, ar->tail_len, ar->tail_off,
                                  "the end of central directory"));
        b.len = ar->tail_len;
    } else {
        GSVD_TRY(gsvd_zip_remote_read(ar, 0, REMOTE_TAIL, 1, &b, &total,
                                      "the end of central directory"));
        if (total == UINT64_MAX || b.len > total ||
            b.len != (total < REMOTE_TAIL ? total : REMOTE_TAIL)) {
            gsvd_log_error("%s: the server sent %zu bytes of the archive's end without its size "
                           "(or a short body); cannot locate the zip directory",
                           ar->path, b.len);
            rc = GSVD_EFORMAT;
            goto out;
        }
        ar->size = total;
        ar->tail_len = b.len;
        ar->tail_off = total - b.len;
    }
    ar->tail = (unsigned char *)b.data; /* ownership moves to the store */
    b = (struct gsvd_buf)GSVD_BUF_INIT;
out:
    gsvd_buf_free(&b);
    return rc;
}

/* Find the EOCD in the archive's tail and fill *ci, following the ZIP64 locator when a field
 * is saturated.  GSVD_EFORMAT (logged) when the archive is not a usable zip. */
static int find_eocd(struct zip_archive *ar, struct gsvd_zip_cd_info *ci)
{
    int rc = GSVD_OK;
    unsigned char z[Z64_EOCD_LEN];
    size_t tail = ar->tail_len;
    const unsigned char *buf = ar->tail;
    uint64_t base = ar->tail_off, eocd = UINT64_MAX;

    if (ar->size < EOCD_LEN) {
        gsvd_log_error("%s: not a zip archive (%llu bytes, too short)", ar->path,
                       (unsigned long long)ar->size);
        return GSVD_EFORMAT;
    }
    if (tail > LOCAL_TAIL) { /* the EOCD lies in the last 22 + 65,535 bytes */
        base += tail - LOCAL_TAIL;
        buf += tail - LOCAL_TAIL;
        tail = LOCAL_TAIL;
    }
    for (size_t i = tail - EOCD_LEN + 1; i-- > 0;) {
        if (gsvd_zip_rd32(buf + i) == SIG_EOCD &&
            i + EOCD_LEN + gsvd_zip_rd16(buf + i + 20) <= tail) {
            eocd = base + i;
            break;
        }
    }
    if (eocd == UINT64_MAX) {
        gsvd_log_error("%s: not a zip archive (no end of central directory record; truncated?)",
                       ar->path);
        rc = GSVD_EFORMAT;
        goto out;
    }
    const unsigned char *e = buf + (eocd - base);
    if (gsvd_zip_rd16(e + 4) != 0 || gsvd_zip_rd16(e + 6) != 0 ||
        gsvd_zip_rd16(e + 8) != gsvd_zip_rd16(e + 10)) {
        gsvd_log_error("%s: multi-disk (split) zip archives are not supported", ar->path);
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    ci->n_entries = gsvd_zip_rd16(e + 10);
    ci->cd_size = gsvd_zip_rd32(e + 12);
    ci->cd_off = gsvd_zip_rd32(e + 16);
    ci->cd_end = eocd;
    if (ci->n_entries == 0xFFFF || ci->cd_size == 0xFFFFFFFFu || ci->cd_off == 0xFFFFFFFFu) {
        uint64_t z64;
        if (eocd < Z64_LOC_LEN) {
            gsvd_log_error("%s: ZIP64 archive without a ZIP64 locator", ar->path);
            rc = GSVD_EFORMAT;
            goto out;
        }
        GSVD_TRY(gsvd_zip_read_at(ar, z, Z64_LOC_LEN, eocd - Z64_LOC_LEN, "the ZIP64 locator"));
        if (gsvd_zip_rd32(z) != SIG_Z64_LOC) {
            gsvd_log_error("%s: ZIP64 archive without a ZIP64 locator", ar->path);
            rc = GSVD_EFORMAT;
            goto out;
        }
        if (gsvd_zip_rd32(z + 4) != 0 || gsvd_zip_rd32(z + 16) > 1) {
            gsvd_log_error("%s: multi-disk (split) zip archives are not supported", ar->path);
            rc = GSVD_EUNSUPPORTED;
            goto out;
        }
        z64 = rd64(z + 8);
        if (z64 > eocd - Z64_LOC_LEN || eocd - Z64_LOC_LEN - z64 < Z64_EOCD_LEN) {
            gsvd_log_error("%s: ZIP64 end of central directory offset %llu out of range", ar->path,
                           (unsigned long long)z64);
            rc = GSVD_EFORMAT;
            goto out;
        }
        GSVD_TRY(gsvd_zip_read_at(ar, z, Z64_EOCD_LEN, z64, "the ZIP64 end of central directory"));
        if (gsvd_zip_rd32(z) != SIG_Z64_EOCD) {
            gsvd_log_error("%s: bad ZIP64 end of central directory signature", ar->path);
            rc = GSVD_EFORMAT;
            goto out;
        }
        if (gsvd_zip_rd32(z + 16) != 0 || gsvd_zip_rd32(z + 20) != 0 ||
            rd64(z + 24) != rd64(z + 32)) {
            gsvd_log_error("%s: multi-disk (split) zip archives are not supported", ar->path);
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
                       ar->path, (unsigned long long)ci->cd_off, (unsigned long long)ci->cd_size,
                       (unsigned long long)ci->cd_end);
        rc = GSVD_EFORMAT;
        goto out;
    }
    if (ci->n_entries > ci->cd_size / CDIR_LEN) {
        gsvd_log_error("%s: %llu entries cannot fit a %llu-byte central directory", ar->path,
                       (unsigned long long)ci->n_entries, (unsigned long long)ci->cd_size);
        rc = GSVD_EFORMAT;
        goto out;
    }
out:
    return rc;
}

/* Apply the ZIP64 extended-information extra field (id 1) to the saturated fields of one
 * central directory entry: they appear in the order usize, csize, lho. */
static int apply_zip64(const struct zip_archive *ar, const char *name, const unsigned char *x,
                       size_t xlen, uint64_t *usize, uint64_t *csize, uint64_t *lho)
{
    uint64_t *fields[3] = {usize, csize, lho};
    while (xlen >= 4) {
        uint16_t id = gsvd_zip_rd16(x), len = gsvd_zip_rd16(x + 2);
        if ((size_t)len > xlen - 4)
            break; /* a malformed tail is ignored, as zip readers do, unless we need it */
        if (id == 1) {
            size_t at = 0;
            for (int k = 0; k < 3; k++) {
                if (*fields[k] != 0xFFFFFFFFu)
                    continue;
                if (at + 8 > len) {
                    gsvd_log_error("%s: entry '%s': ZIP64 extra field too short", ar->path, name);
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
                       ar->path, name);
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
static int parse_entry(const struct zip_archive *ar, const unsigned char *p, size_t avail,
                       size_t idx, struct zip_entry *e, size_t *used)
{
    int rc = GSVD_OK;
    uint16_t flags, nlen, xlen, clen;
    char *name = NULL;

    if (avail < CDIR_LEN || gsvd_zip_rd32(p) != SIG_CDIR) {
        gsvd_log_error("%s: central directory entry %zu: bad signature or truncated", ar->path,
                       idx);
        return GSVD_EFORMAT;
    }
    flags = gsvd_zip_rd16(p + 8);
    e->method = gsvd_zip_rd16(p + 10);
    e->crc = gsvd_zip_rd32(p + 16);
    e->csize = gsvd_zip_rd32(p + 20);
    e->usize = gsvd_zip_rd32(p + 24);
    nlen = gsvd_zip_rd16(p + 28);
    xlen = gsvd_zip_rd16(p + 30);
    clen = gsvd_zip_rd16(p + 32);
    e->lho = gsvd_zip_rd32(p + 42);
    e->nlen = nlen;
    e->xlen = xlen;
    if ((size_t)nlen + xlen + clen > avail - CDIR_LEN) {
        gsvd_log_error("%s: central directory entry %zu runs past the directory", ar->path, idx);
        return GSVD_EFORMAT;
    }
    *used = CDIR_LEN + (size_t)nlen + xlen + clen;
    name = gsvd_malloc((size_t)nlen + 1);
    if (!name)
        return GSVD_ENOMEM;
    memcpy(name, p + CDIR_LEN, nlen);
    name[nlen] = '\0';
    if (nlen == 0 || strlen(name) != nlen) {
        gsvd_log_error("%s: central directory entry %zu: empty name or NUL in name", ar->path, idx);
        rc = GSVD_EFORMAT;
        goto out;
    }
    if ((flags & 0x0001) || (flags & 0x0040) || e->method == 99) {
        gsvd_log_error("%s: entry '%s' is encrypted; encrypted zip archives are not supported",
                       ar->path, name);
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    if (e->method != 0 && e->method != 8) {
        gsvd_log_error("%s: entry '%s': compression method %u is not supported (only STORED "
                       "and DEFLATE)",
                       ar->path, name, (unsigned)e->method);
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    if (gsvd_zip_rd16(p + 34) != 0) {
        gsvd_log_error("%s: entry '%s' is on another disk (split archive)", ar->path, name);
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    GSVD_TRY(apply_zip64(ar, name, p + CDIR_LEN + nlen, xlen, &e->usize, &e->csize, &e->lho));
    if (e->method == 0 && e->csize != e->usize) {
        gsvd_log_error("%s: entry '%s': STORED with compressed size %llu != size %llu", ar->path,
                       name, (unsigned long long)e->csize, (unsigned long long)e->usize);
        rc = GSVD_EFORMAT;
        goto out;
    }
    /* DEFLATE expands at most 1032:1, so a larger declared size is a lie (and would make a
     * reader allocate it before finding out) */
    if (e->method == 8 && e->csize < UINT64_MAX / 2048 && e->usize > e->csize * 1032 + 64) {
        gsvd_log_error("%s: entry '%s': declared size %llu impossible for %llu DEFLATE bytes",
                       ar->path, name, (unsigned long long)e->usize, (unsigned long long)e->csize);
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
                       ar->path, name);
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
static int check_spans(struct zip_archive *ar, uint64_t cd_off)
{
    int rc = GSVD_OK;
    struct zip_entry **by = NULL;

    if (ar->n == 0)
        return GSVD_OK;
    by = gsvd_malloc(ar->n * sizeof *by);
    if (!by)
        return GSVD_ENOMEM;
    for (size_t i = 0; i < ar->n; i++)
        by[i] = &ar->ents[i];
    qsort(by, ar->n, sizeof *by, cmp_lho);
    for (size_t i = 0; i < ar->n; i++) {
        struct zip_entry *e = by[i];
        uint64_t limit = i + 1 < ar->n ? by[i + 1]->lho : cd_off;
        uint64_t need = GSVD_ZIP_LOCAL_LEN + strlen(e->name);
        if (limit > cd_off || e->lho > limit || limit - e->lho < need ||
            limit - e->lho - need < e->csize) {
            gsvd_log_error("%s: entry '%s' (offset %llu, %llu bytes) overlaps %s", ar->path,
                           e->name, (unsigned long long)e->lho, (unsigned long long)e->csize,
                           i + 1 < ar->n && limit <= cd_off ? "the next entry"
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
static void strip_common_dir(struct zip_archive *ar)
{
    const char *first, *slash;
    size_t len;
    int has_meta = 0;

    if (ar->n == 0)
        return;
    for (size_t i = 0; i < ar->n; i++)
        if (is_meta_name(ar->ents[i].name))
            return;
    first = ar->ents[0].name;
    slash = strchr(first, '/');
    if (!slash)
        return;
    len = (size_t)(slash - first) + 1;
    for (size_t i = 0; i < ar->n; i++) {
        if (strncmp(ar->ents[i].name, first, len) != 0)
            return;
        has_meta |= is_meta_name(ar->ents[i].name + len);
    }
    if (!has_meta)
        return;
    for (size_t i = 0; i < ar->n; i++)
        memmove(ar->ents[i].name, ar->ents[i].name + len, strlen(ar->ents[i].name + len) + 1);
}

/* zarr-python's ZipStore appends an entry again when a key is rewritten (metadata updated,
 * consolidated): like Python's zipfile, the last one in the central directory wins.  The
 * table is sorted by (name, idx); keep the last of each run. */
static void dedupe(struct zip_archive *ar)
{
    size_t w = 0;
    for (size_t i = 0; i < ar->n; i++) {
        if (i + 1 < ar->n && strcmp(ar->ents[i].name, ar->ents[i + 1].name) == 0) {
            gsvd_free(ar->ents[i].name);
            continue;
        }
        ar->ents[w++] = ar->ents[i];
    }
    ar->n = w;
}

/* Read the central directory into ar->ents: parse, check spans, strip a common top directory,
 * sort by name and keep the last of duplicates. */
static int read_central(struct zip_archive *ar, const struct gsvd_zip_cd_info *ci)
{
    int rc = GSVD_OK;
    unsigned char *cd = NULL;
    size_t pos = 0, n_files = 0;

    if (ci->cd_size > SIZE_MAX) {
        gsvd_log_error("%s: central directory too large", ar->path);
        return GSVD_EFORMAT;
    }
    cd = gsvd_malloc(ci->cd_size ? (size_t)ci->cd_size : 1);
    if (!cd)
        return GSVD_ENOMEM;
    GSVD_TRY(gsvd_zip_read_at(ar, cd, (size_t)ci->cd_size, ci->cd_off, "the central directory"));
    ar->ents = gsvd_calloc(ci->n_entries ? (size_t)ci->n_entries : 1, sizeof *ar->ents);
    if (!ar->ents) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < ci->n_entries; i++) {
        size_t used = 0;
        struct zip_entry *e = &ar->ents[n_files];
        GSVD_TRY(parse_entry(ar, cd + pos, (size_t)ci->cd_size - pos, i, e, &used));
        pos += used;
        e->idx = i;
        if (e->name) {
            n_files++;
            ar->n = n_files;
        }
    }
    if (pos != ci->cd_size) {
        gsvd_log_error("%s: central directory holds %zu bytes after its %llu entries", ar->path,
                       (size_t)ci->cd_size - pos, (unsigned long long)ci->n_entries);
        rc = GSVD_EFORMAT;
        goto out;
    }
    GSVD_TRY(check_spans(ar, ci->cd_off));
    strip_common_dir(ar);
    qsort(ar->ents, ar->n, sizeof *ar->ents, cmp_name);
    dedupe(ar);
out:
    gsvd_free(cd);
    return rc;
}

/* Read the archive's tail (ar->size set for a local archive; ar->parent and ar->key for a
 * remote one, whose size this sets), find its end records and read the central directory into
 * ar->ents / ar->n: checked, a common top directory stripped, sorted by name, the last of
 * duplicates kept.  *ci receives where the directory was. */
static int read_directory(struct zip_archive *ar, struct gsvd_zip_cd_info *ci)
{
    int rc = GSVD_OK;

    GSVD_TRY(load_tail(ar));
    GSVD_TRY(find_eocd(ar, ci));
    GSVD_TRY(read_central(ar, ci));
out:
    return rc;
}

int gsvd_zip_archive_open_file(struct zip_archive *ar, const char *path,
                               struct gsvd_zip_cd_info *ci)
{
    struct stat sb;

    memset(ar, 0, sizeof *ar);
    ar->fd = -1;
    ar->path = gsvd_strdup(path);
    if (!ar->path)
        return GSVD_ENOMEM;
    ar->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (ar->fd < 0) {
        gsvd_log_error("%s: %s", path, strerror(errno));
        return errno == ENOENT ? GSVD_ENOTFOUND : GSVD_EIO;
    }
    if (fstat(ar->fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        gsvd_log_error("%s: not a regular file (a zipped Zarr store is a .zip file)", path);
        return GSVD_EFORMAT;
    }
    ar->size = (uint64_t)sb.st_size;
    return read_directory(ar, ci);
}

int gsvd_zip_archive_open_on(struct zip_archive *ar, gsvd_store *parent, const char *key,
                             const char *display, struct gsvd_zip_cd_info *ci)
{
    memset(ar, 0, sizeof *ar);
    ar->fd = -1;
    ar->parent = parent; /* closed with ar from here on */
    ar->path = gsvd_strdup(display);
    ar->key = gsvd_strdup(key);
    if (!ar->path || !ar->key)
        return GSVD_ENOMEM;
    return read_directory(ar, ci);
}

void gsvd_zip_archive_close(struct zip_archive *ar)
{
    for (size_t i = 0; i < ar->n; i++)
        gsvd_free(ar->ents[i].name);
    gsvd_free(ar->ents);
    if (ar->fd >= 0)
        close(ar->fd);
    if (ar->parent) { /* as gsvd_store_close, which this file does not call (store.c calls it) */
        char *url = ar->parent->url;
        ar->parent->ops->close(ar->parent);
        gsvd_free(url);
    }
    gsvd_free(ar->key);
    gsvd_free(ar->tail);
    gsvd_free(ar->path);
    memset(ar, 0, sizeof *ar);
    ar->fd = -1;
}
