/* zarr/store_zip_internal.h - for store_zip.c and store_zip_dir.c only: the archive (its byte
 * source and central directory) and what store_zip.c asks of it.
 * store_zip_dir.c owns the archive: it opens the byte source (pread on a local fd, or ranged
 * gets of the archive's key in a remote parent), parses the end records, ZIP64 fields and the
 * central directory into the key table, and closes it; store_zip.c has the store operations
 * (its own state: the members' data offsets under a mutex) and reads members through it.
 * store_zip_dir.c calls nothing in store_zip.c (no object-file cycles).  Thread safety: as
 * zarr/store_zip.c. */
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

/* The archive: its byte source and its central directory, owned by store_zip_dir.c (which
 * opens, reads and closes it); store_zip.c embeds one in its store and reads the directory and
 * the names through it.  Bytes come from a local file (fd >= 0) or from ranged gets of `key`
 * in a remote `parent`; `tail` holds the archive's last bytes, read at open, and serves every
 * read inside it. */
struct zip_archive {
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

/* Open the local archive at `path` into *ar (zeroed by the call) and read its central
 * directory; *ci receives where the directory was.  Returns GSVD_OK, or (logged) GSVD_ENOTFOUND,
 * GSVD_EIO, GSVD_EFORMAT (not a regular file, a bad archive), GSVD_EUNSUPPORTED, GSVD_ENOMEM;
 * on failure what was opened stays in *ar for gsvd_zip_archive_close. */
int gsvd_zip_archive_open_file(struct zip_archive *ar, const char *path,
                               struct gsvd_zip_cd_info *ci);

/* Open the archive stored as `key` in the remote store `parent` into *ar (zeroed by the call);
 * ownership of parent moves to *ar whatever the result.  `display` names the archive in
 * messages.  Returns as gsvd_zip_archive_open_file, or a code of the parent. */
int gsvd_zip_archive_open_on(struct zip_archive *ar, gsvd_store *parent, const char *key,
                             const char *display, struct gsvd_zip_cd_info *ci);

/* Release what *ar holds (names, tail, descriptor, parent) and leave it empty with fd -1.
 * Accepts an archive an open left behind on failure, or a zeroed one whose fd is -1. */
void gsvd_zip_archive_close(struct zip_archive *ar);

/* Bytes [off, off + n) of the remote archive into dst (replaced): one ranged get; with `suffix`
 * the last n bytes, and *size (when not NULL) receives the archive's size.  `what` names the
 * part for messages.  GSVD_ENOTFOUND (logged) for a missing archive, GSVD_EFORMAT (logged) for
 * a short body, GSVD_EINTERNAL for a parent without ranged reads, or the parent's code. */
int gsvd_zip_remote_read(const struct zip_archive *ar, uint64_t off, size_t n, int suffix,
                         struct gsvd_buf *dst, uint64_t *size, const char *what);

/* Read exactly n bytes at archive offset off into dst (from the tail when inside it).  A short
 * read is a truncated archive: GSVD_EFORMAT, logged with `what`; GSVD_EIO for a failed pread. */
int gsvd_zip_read_at(const struct zip_archive *ar, void *dst, size_t n, uint64_t off,
                     const char *what);

#endif /* GSVD_ZARR_STORE_ZIP_INTERNAL_H */
