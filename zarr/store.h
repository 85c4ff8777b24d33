/* zarr/store.h - key/value stores holding Zarr hierarchies: local directories ("file"), memory
 * ("mem:", for tests and fuzzing) and, when built with libcurl, http(s), gs and s3 (later).
 *
 * Keys are '/'-separated relative paths ("call_genotype/0.0.0").  Every key is validated before
 * use: empty components, "." and "..", leading '/', backslashes and NUL are rejected with
 * GSVD_EFORMAT, so hostile metadata cannot reach outside the store.
 *
 * Writable stores are staged: gsvd_store_open(..., GSVD_STORE_WRITE) writes into a temporary
 * sibling of the target; gsvd_store_commit() moves it into place; closing without a commit
 * removes everything written, so a failed run leaves no partial result.
 *
 * Thread safety: get/put on one store may be called from several threads at once. */
#ifndef GSVD_ZARR_STORE_H
#define GSVD_ZARR_STORE_H
#include <stddef.h>
#include <stdint.h>
#include "common/buf.h"
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

typedef struct gsvd_store gsvd_store;

enum gsvd_store_flags {
    GSVD_STORE_READ = 0,
    GSVD_STORE_WRITE = 1u << 0,     /* staged output; the target must not exist... */
    GSVD_STORE_OVERWRITE = 1u << 1, /* ...unless this is set: commit replaces it */
};

/* Open the store at `url`: a local path, "file://PATH", or "mem:NAME".  Returns GSVD_OK and a
 * new store (caller owns; close with gsvd_store_close), or
 *   GSVD_ENOTFOUND  (logged) a read store whose directory does not exist,
 *   GSVD_EIO        the staging directory could not be made, or the target exists (WRITE
 *                   without OVERWRITE),
 *   GSVD_ENOTBUILT  a known scheme not compiled in (http, https, gs, s3 without libcurl),
 *   GSVD_EINVAL     an unknown scheme. */
GSVD_NODISCARD int gsvd_store_open(const char *url, unsigned flags, gsvd_store **out);

/* Discards uncommitted writes; accepts NULL; cannot fail. */
void gsvd_store_close(gsvd_store *st);

/* Read the whole value of `key` into dst (replacing its contents).  GSVD_ENOTFOUND (not logged)
 * when absent; GSVD_EFORMAT for an invalid key; GSVD_EIO, GSVD_ENET, GSVD_EAUTH (logged). */
GSVD_NODISCARD int gsvd_store_get(gsvd_store *st, const char *key, struct gsvd_buf *dst);

/* Write a value (creating parent "directories").  GSVD_EINVAL for a read-only store. */
GSVD_NODISCARD int gsvd_store_put(gsvd_store *st, const char *key, const void *p, size_t n);

/* Append to `names` the names directly under `prefix` ("" for the root): keys and "directory"
 * names (as with a delimiter listing of an object store), without the prefix, sorted and
 * unique.  GSVD_EUNSUPPORTED (not logged) if this store cannot list. */
GSVD_NODISCARD int gsvd_store_list(gsvd_store *st, const char *prefix, struct gsvd_strlist *names);

/* Size in bytes of the value at `key` without reading it where the store can (else it is
 * read).  GSVD_ENOTFOUND (not logged) when absent. */
GSVD_NODISCARD int gsvd_store_size(gsvd_store *st, const char *key, uint64_t *size);

/* Move staged output into place.  GSVD_EINVAL on a read store; GSVD_EIO (logged) on failure,
 * after which the target is as before. */
GSVD_NODISCARD int gsvd_store_commit(gsvd_store *st);

const char *gsvd_store_url(const gsvd_store *st);    /* borrowed; valid until close */
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
