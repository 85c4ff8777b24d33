/* zarr/store.h - key/value stores holding Zarr hierarchies: local directories ("file"), memory
 * ("mem:", for tests and fuzzing) and, when built with libcurl, http(s):// (read-only), gs://
 * and s3:// (read and write; see zarr/store_http_engine.c for the request engine).
 *
 * Keys are '/'-separated relative paths ("call_genotype/0.0.0").  Every key is validated before
 * use: empty components, "." and "..", leading '/', backslashes and NUL are rejected with
 * GSVD_EFORMAT, so hostile metadata cannot reach outside the store.
 *
 * Writable stores are staged: gsvd_store_open(..., GSVD_STORE_WRITE) writes into a temporary
 * sibling of the target; gsvd_store_commit() moves it into place; closing without a commit
 * removes everything written, so a failed run leaves no partial result.  Remote stores cannot
 * stage: they write each object when put, and the writer puts the consolidated metadata
 * (.zmetadata, or a v3 root zarr.json) last, so an output without it is incomplete; closing an
 * uncommitted remote store logs what was left.
 *
 * Thread safety: get/put/prefetch on one store may be called from several threads at once.
 * gsvd_store_global_init and gsvd_store_set_remote are process-wide and run once in main()
 * before any thread starts; a library context's settings travel in its scope instead. */
#ifndef GSVD_ZARR_STORE_H
#define GSVD_ZARR_STORE_H
#include <stddef.h>
#include <stdint.h>
#include "common/buf.h"
#include "common/gsvd_defs.h"
#include "common/remote.h"
GSVD_EXTERN_C_BEGIN

typedef struct gsvd_store gsvd_store;

/* Process-wide setup of the store layer (libcurl's global init when built with it).  Call once
 * from main() before threads start.  GSVD_ENOMEM / GSVD_EINTERNAL (logged) on failure. */
GSVD_NODISCARD int gsvd_store_global_init(void);
void gsvd_store_global_cleanup(void);

/* Replace the process default of the remote-store settings (common/remote.h), used by opens
 * on threads whose scope carries none (copied; the strings are borrowed).  Process-wide, like
 * the log level: call from main() before threads start. */
void gsvd_store_set_remote(const struct gsvd_remote_params *p);
/* The settings an open on the calling thread uses: its scope's (common/scope.h), else the
 * process default (borrowed). */
const struct gsvd_remote_params *gsvd_store_remote(void);
/* Read the GENSVD_* environment variables of the remote stores into p (GENSVD_CONCURRENCY,
 * GENSVD_RETRY_MAX, GENSVD_RETRY_BASE_MS, GENSVD_HTTP_TIMEOUT, GENSVD_S3_ADDRESSING; docs/
 * remote.md); a malformed value is ignored with a warning.  The strings point into the
 * environment. */
void gsvd_remote_params_env(struct gsvd_remote_params *p);

enum gsvd_store_flags {
    GSVD_STORE_READ = 0,
    GSVD_STORE_WRITE = 1u << 0,     /* staged output; the target must not exist... */
    GSVD_STORE_OVERWRITE = 1u << 1, /* ...unless this is set: commit replaces it */
    GSVD_STORE_PROBE = 1u << 2,     /* with WRITE: open only to check that the output can be
                                       written (zarr/dest.h), then close without a put: every
                                       check of a WRITE open runs, nothing at the target changes
                                       (a remote OVERWRITE keeps the old metadata) */
};

/* Open the store at `url`: a local path, "file://PATH", "mem:NAME", or (with libcurl)
 * "http(s)://HOST/PATH" (read-only), "gs://BUCKET/PREFIX", "s3://BUCKET/PREFIX".  A local path
 * or "zip://PATH" naming a ".zip" file, and a remote URL whose last component ends in ".zip"
 * (or "zip://" + such a URL), open a read-only zip store (zarr/store_zip.c).  Returns
 * GSVD_OK and a new store (caller owns; close with gsvd_store_close), or
 *   GSVD_ENOTFOUND  (logged) a read store whose directory does not exist,
 *   GSVD_EIO        (logged) the staging directory could not be made (the parent directory
 *                   is missing, not a directory or not writable), or the target exists (WRITE
 *                   without OVERWRITE; for remote stores: a .zmetadata, .zgroup, .zarray
 *                   or zarr.json exists under the prefix), or a remote write store's bucket
 *                   does not exist (HTTP 404 on a listing of one object under the prefix),
 *   GSVD_EAUTH      (logged) credentials could not be read, a write store would be
 *                   anonymous, or the server refused a write store's checks (HTTP 401/403),
 *   GSVD_ENET       (logged) the bucket or existence check of a remote write store failed,
 *   GSVD_ENOTBUILT  a known scheme not compiled in (http, https, gs, s3 without libcurl),
 *   GSVD_EINVAL     an unknown scheme. */
GSVD_NODISCARD int gsvd_store_open(const char *url, unsigned flags, gsvd_store **out);

/* Discards uncommitted writes; accepts NULL; cannot fail. */
void gsvd_store_close(gsvd_store *st);

/* Read the whole value of `key` into dst (replacing its contents).  GSVD_ENOTFOUND (not logged)
 * when absent; GSVD_EFORMAT for an invalid key; GSVD_EIO, GSVD_ENET, GSVD_EAUTH (logged). */
GSVD_NODISCARD int gsvd_store_get(gsvd_store *st, const char *key, struct gsvd_buf *dst);

/* Read part of the value of `key` into dst (replacing its contents): bytes [offset, offset +
 * length), or with `suffix` set its last `length` bytes (offset ignored).  A range reaching
 * past the end is cut there, so dst->len may be less than `length`: the caller checks.  *size
 * (when size is not NULL) receives the value's total size, or UINT64_MAX when the store cannot
 * tell.  Stores without ranged reads (ops version < 3 or no get_range) fetch the whole value
 * and cut it.  Returns GSVD_OK, GSVD_ENOTFOUND (not logged) when absent, GSVD_EFORMAT for an
 * invalid key, GSVD_EINVAL (logged) for a length over SIZE_MAX / 2, or the store's errors as for
 * gsvd_store_get. */
GSVD_NODISCARD int gsvd_store_get_range(gsvd_store *st, const char *key, uint64_t offset,
                                        uint64_t length, int suffix, struct gsvd_buf *dst,
                                        uint64_t *size);

/* Write a value (creating parent "directories").  GSVD_EINVAL for a read-only store; remote
 * stores: GSVD_ENET, GSVD_EAUTH, GSVD_EIO (logged, naming the key and the HTTP status). */
GSVD_NODISCARD int gsvd_store_put(gsvd_store *st, const char *key, const void *p, size_t n);

/* Append to `names` the names directly under `prefix` ("" for the root): keys and "directory"
 * names (as with a delimiter listing of an object store), without the prefix, sorted and
 * unique.  GSVD_EUNSUPPORTED (not logged) if this store cannot list. */
GSVD_NODISCARD int gsvd_store_list(gsvd_store *st, const char *prefix, struct gsvd_strlist *names);

/* Size in bytes of the value at `key` without reading it where the store can (else it is
 * read).  GSVD_ENOTFOUND (not logged) when absent. */
GSVD_NODISCARD int gsvd_store_size(gsvd_store *st, const char *key, uint64_t *size);

/* Hint that keys[0..n) will be read soon, in this order.  Remote stores start fetching them
 * (at most `concurrency` at a time, bounded read-ahead memory) so a later get returns without
 * a round trip; each prefetch call replaces the previous plan, dropping unread data.  Stores
 * without the feature ignore it.  Returns GSVD_OK, GSVD_EFORMAT (invalid key, logged) or
 * GSVD_ENOMEM; fetch errors surface at the get of that key. */
GSVD_NODISCARD int gsvd_store_prefetch(gsvd_store *st, const char *const *keys, size_t n);

/* One byte range of one key, for gsvd_store_prefetch_ranges: [offset, offset + length), or the
 * last `length` bytes when `suffix` (offset unused). */
struct gsvd_store_range {
    const char *key; /* borrowed */
    uint64_t offset;
    uint64_t length; /* > 0 */
    int suffix;
};

/* 1 if st reads ahead keys (gsvd_store_prefetch does something: remote stores, archives
 * inside them), else 0. */
int gsvd_store_can_prefetch(const gsvd_store *st);

/* 1 if st reads ahead byte ranges (gsvd_store_prefetch_ranges does something), else 0. */
int gsvd_store_can_prefetch_ranges(const gsvd_store *st);

/* Like gsvd_store_prefetch, for byte ranges: a later gsvd_store_get_range of exactly one of
 * them (same key, offset or suffix, and length) takes the fetched data.  Replaces the previous
 * plan.  Stores without the feature ignore it.  GSVD_OK, GSVD_EFORMAT (invalid key, logged),
 * GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_store_prefetch_ranges(gsvd_store *st, const struct gsvd_store_range *r,
                                              size_t n);

/* Move staged output into place.  GSVD_EINVAL on a read store; GSVD_EIO (logged) on failure,
 * after which the target is as before. */
GSVD_NODISCARD int gsvd_store_commit(gsvd_store *st);

const char *gsvd_store_url(const gsvd_store *st); /* borrowed; valid until close */

/* When `url` names a genotype file that is not Zarr (by its extension: VCF or BCF, a PLINK 1
 * or 2 fileset, BGEN), how to convert it, as a clause for a message ("gensvd reads Zarr:
 * convert a VCF file with bio2zarr (vcf2zarr convert in.vcf.gz in.vcz)"), written into out
 * (cap bytes); otherwise out is "".  Returns out.  Thread-safe. */
const char *gsvd_store_convert_hint(const char *url, char *out, size_t cap);
const char *gsvd_store_scheme(const gsvd_store *st); /* "file", "mem", ... */

/* Validate a key (see above); GSVD_EFORMAT (not logged) if bad. */
GSVD_NODISCARD int gsvd_key_check(const char *key);

/* Join path components with '/', skipping empty ones: ("a/b", ".zarray") -> "a/b/.zarray".
 * Caller owns *out. */
GSVD_NODISCARD int gsvd_key_join(const char *a, const char *b, char **out);

/* Comma-separated list of compiled-in store schemes, for --version.  Static. */
const char *gsvd_store_supported(void);

GSVD_EXTERN_C_END
#endif /* GSVD_ZARR_STORE_H */
