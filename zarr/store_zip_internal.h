/* zarr/store_zip_internal.h - for store_zip.c and store_zip_dir.c only: the zip store's state,
 * its byte source and the central directory reader.
 * store_zip_dir.c parses the archive (end records, ZIP64, central directory) into the store's
 * key table and owns the byte source (pread on a local fd, or ranged gets of the archive's key
 * in a remote parent); store_zip.c has the store operations and reads members.  store_zip_dir.c
 * calls nothing in store_zip.c (no object-file cycles).  Thread safety: as zarr/store_zip.c. */
#ifndef GSVD_ZARR_STORE_ZIP_INTERNAL_H
#define GSVD_ZARR_STORE_ZIP_INTERNAL_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "common/buf.h"
#include "zarr/store_internal.h"

#define GSVD_ZIP_SIG_LOCAL 0x04034b50u /* local file header signature */
#define GSVD_ZIP_LOCAL_LEN 30u         /* fixed part of a local file header */

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

/* Where the central directory is, as the end records give it (store_zip_dir.c). */
struct gsvd_zip_cd_info {
    uint64_t n_entries, cd_size, cd_off;
    uint64_t cd_end; /* where the central directory must end: the (ZIP64) EOCD record */
};

static inline uint16_t gsvd_zip_rd16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t gsvd_zip_rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Bytes [off, off + n) of the remote archive into dst (replaced): one ranged get; with `suffix`
 * the last n bytes, and *size (when not NULL) receives the archive's size.  `what` names the
 * part for messages.  GSVD_ENOTFOUND (logged) for a missing archive, GSVD_EFORMAT (logged) for
 * a short body, GSVD_EINTERNAL for a parent without ranged reads, or the parent's code. */
int gsvd_zip_remote_read(const struct store_zip *zs, uint64_t off, size_t n, int suffix,
                         struct gsvd_buf *dst, uint64_t *size, const char *what);

/* Read exactly n bytes at archive offset off into dst (from the tail when inside it).  A short
 * read is a truncated archive: GSVD_EFORMAT, logged with `what`; GSVD_EIO for a failed pread. */
int gsvd_zip_read_at(const struct store_zip *zs, void *dst, size_t n, uint64_t off,
                     const char *what);

/* Read the archive's tail (zs->size set for a local archive; zs->parent and zs->key for a
 * remote one, whose size this sets), find its end records and read the central directory into
 * zs->ents / zs->n: checked, a common top directory stripped, sorted by name, the last of
 * duplicates kept.  *ci receives where the directory was.  Returns GSVD_OK, or a logged
 * GSVD_EFORMAT / GSVD_EUNSUPPORTED / GSVD_EIO / GSVD_ENOMEM, or a code of the parent; on failure
 * what was read stays in zs for the caller's close. */
int gsvd_zip_read_directory(struct store_zip *zs, struct gsvd_zip_cd_info *ci);

#endif /* GSVD_ZARR_STORE_ZIP_INTERNAL_H */
