/* zarr/dest.h - check an output before any work is done.
 *
 * A command (or a library call) that will write a result checks every output it names with
 * these functions before it reads any input, so that an output that cannot be written fails
 * in a moment instead of after hours of work.  The checks are those of the writer's own
 * opening step, run ahead of time and undone:
 *
 *   - a Zarr output (gsvd_dest_check) is opened exactly as gsvd_writer_open opens it
 *     (gsvd_store_open with GSVD_STORE_WRITE | GSVD_STORE_PROBE) and closed again.  For a
 *     local path that runs the existence check and creates (then removes) the staging
 *     directory beside the target, which proves that the parent directory exists, is a
 *     directory and is writable by this process (also as root, on a read-only file system or
 *     under ACLs, where access(2) would guess).  For gs:// and s3:// it sends one listing of at
 *     most one object under the prefix (the bucket exists and the credentials are accepted)
 *     and the existence checks (HEAD of the metadata keys); an existing output that may be
 *     replaced is left as it is (the real open deletes its consolidated metadata later).
 *   - a plain file output (gsvd_dest_check_file: a picture, a text table) is checked the way
 *     its writers write it: a temporary file "PATH.tmp.XXXXXX" is created beside it and
 *     removed again.
 *
 * Nothing is left behind by a check, whatever its verdict; an interrupt (common/cleanup.h)
 * during one removes what it created.  A check is not a reservation: the writer checks again
 * when it opens the output, and two runs racing for one target are resolved there
 * (zarr/store.h).  Messages name the output and what is wrong ("output exists", "cannot create
 * the output in directory 'x': No such file or directory", "bucket 'b' does not exist").
 *
 * Thread safety: as gsvd_store_open (the remote settings are process-wide); different targets
 * may be checked from different threads at once. */
#ifndef GSVD_ZARR_DEST_H
#define GSVD_ZARR_DEST_H
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* Check that a Zarr hierarchy can be written at `url` (a local path, file://, gs://, s3://, or
 * mem: in tests), as gsvd_writer_open(url, overwrite, ...) will write it.  `overwrite` 1: an
 * existing output may be replaced (--force).  Returns GSVD_OK, or (each logged, naming url):
 *   GSVD_EIO          the output exists and overwrite is 0; the parent directory is missing,
 *                     not a directory or not writable; the bucket does not exist,
 *   GSVD_EAUTH        credentials missing or refused (HTTP 401/403), or an anonymous store
 *                     (gs:// without a token, s3:// with --no-sign-request), which cannot write,
 *   GSVD_ENET         the server could not be reached (after the configured retries),
 *   GSVD_EINVAL       an empty or unusable path ("", ".", ".."), an unknown URL scheme, or a
 *                     read-only kind of store (http://, https://),
 *   GSVD_EUNSUPPORTED a zip archive (".zip": zip stores are read-only),
 *   GSVD_ENOTBUILT    a scheme this build lacks (gs://, s3:// without libcurl),
 *   GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_dest_check(const char *url, int overwrite);

/* Check that a plain local file can be written at `path` through a temporary file beside it
 * and a rename (plot's pictures, pca --plink's tables).  `overwrite` 0: an existing file is an
 * error ("output exists", as for Zarr outputs); 1: it may be replaced.  Returns GSVD_OK, or
 * (logged, naming path) GSVD_EIO: it exists and overwrite is 0, it is a directory, or the
 * parent directory is missing, not a directory or not writable; GSVD_EINVAL: an empty path;
 * GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_dest_check_file(const char *path, int overwrite);

GSVD_EXTERN_C_END
#endif /* GSVD_ZARR_DEST_H */
