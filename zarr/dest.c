/* zarr/dest.c - checks of an output before any work (zarr/dest.h).  A Zarr output is checked
 * by the store's own staged open, undone at once, so the check and the writer cannot disagree
 * about what is writable; a plain file by creating and removing the temporary file its writers
 * would create.  access(2) was not used: it answers for the real uid, says yes to root on a
 * read-only file system and knows nothing of a parent that is a regular file. */
#include "gsvd_config.h"
#include "zarr/dest.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/store.h"

int gsvd_dest_check(const char *url, int overwrite)
{
    gsvd_store *st = NULL;
    unsigned flags = GSVD_STORE_WRITE | GSVD_STORE_PROBE | (overwrite ? GSVD_STORE_OVERWRITE : 0);
    int rc = gsvd_store_open(url, flags, &st);

    gsvd_store_close(st); /* removes the staging directory: nothing was put */
    return rc;
}

/* The directory holding `path` ("." for a bare name), owned by the caller, or NULL. */
static char *parent_dir(const char *path)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    while (len > 0 && path[len - 1] != '/')
        len--;
    if (len == 0)
        return gsvd_strdup(".");
    while (len > 1 && path[len - 1] == '/')
        len--;
    return gsvd_strndup(path, len);
}

static void remove_tmp(void *arg)
{
    unlink((const char *)arg);
}

struct tmp_job {
    char *tmp; /* mkstemp's template, completed in place */
    int fd;
};

static int make_tmp(void *arg)
{
    struct tmp_job *j = arg;
    j->fd = mkstemp(j->tmp);
    return j->fd < 0 ? GSVD_EIO : GSVD_OK;
}

int gsvd_dest_check_file(const char *path, int overwrite)
{
    struct tmp_job job = {NULL, -1};
    struct stat sb;
    char *dir = NULL;
    int rc = GSVD_OK, token;

    if (!*path) {
        gsvd_log_error("empty output path");
        return GSVD_EINVAL;
    }
    if (stat(path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) {
            gsvd_log_error("%s: is a directory (the output is a file)", path);
            return GSVD_EIO;
        }
        if (!overwrite) {
            gsvd_log_error("%s: output exists (remove it, or overwrite it with --force)", path);
            return GSVD_EIO;
        }
    }
    job.tmp = gsvd_asprintf("%s.tmp.XXXXXX", path);
    if (!job.tmp)
        return GSVD_ENOMEM;
    /* created and registered under the cleanup registry's lock (an interrupt in between still
     * removes it), as the writers do */
    token = gsvd_cleanup_add_made(make_tmp, &job, remove_tmp, job.tmp);
    if (job.fd < 0) {
        int err = errno;
        dir = parent_dir(path);
        gsvd_log_error("%s: cannot create the output in directory '%s': %s", path, dir ? dir : ".",
                       strerror(err));
        rc = dir ? GSVD_EIO : GSVD_ENOMEM;
        goto out;
    }
    close(job.fd);
    unlink(job.tmp);
    if (token < 0)
        rc = token; /* GSVD_ENOMEM registering: the file is gone anyway */
out:
    if (token > 0)
        gsvd_cleanup_remove(token);
    gsvd_free(dir);
    gsvd_free(job.tmp);
    return rc;
}
