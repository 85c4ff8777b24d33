/* zarr/store_file.c - local directory store.
 * Reads go straight to files under the root.  A writable store creates a staging directory
 * ".NAME.gensvd-XXXXXX" next to the target; commit renames it into place (moving an existing
 * target aside first when overwriting, then deleting it), so readers never see a partial store
 * and a failed run leaves nothing behind. */
#include "gsvd_config.h"
#include "zarr/store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/store_internal.h"

struct store_file {
    struct gsvd_store base;
    char *root;    /* directory that keys are relative to (the staging dir when writing) */
    char *target;  /* final path of a writable store; NULL for reads */
    int committed; /* 1 after a successful commit */
};

/* Remove a directory tree; best effort (used on cleanup paths that cannot fail). */
static int remove_tree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    int rc = 0;

    if (!d)
        return unlink(path) == 0 || errno == ENOENT ? 0 : -1;
    while ((e = readdir(d)) != NULL) {
        char *sub;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        sub = gsvd_asprintf("%s/%s", path, e->d_name);
        if (!sub) {
            rc = -1;
            continue;
        }
        struct stat sb;
        if (lstat(sub, &sb) == 0 && S_ISDIR(sb.st_mode))
            rc |= remove_tree(sub);
        else if (unlink(sub) != 0)
            rc = -1;
        gsvd_free(sub);
    }
    closedir(d);
    return rmdir(path) == 0 ? rc : -1;
}

/* Split "a/b/c.zarr" into parent "a/b" and name "c.zarr" (both owned by the caller). */
static int split_path(const char *path, char **parent, char **name)
{
    size_t len = strlen(path);
    const char *slash;

    while (len > 1 && path[len - 1] == '/')
        len--;
    slash = NULL;
    for (size_t i = len; i > 0; i--) {
        if (path[i - 1] == '/') {
            slash = path + i - 1;
            break;
        }
    }
    if (!slash) {
        *parent = gsvd_strdup(".");
        *name = gsvd_strndup(path, len);
    } else {
        *parent = slash == path ? gsvd_strdup("/") : gsvd_strndup(path, (size_t)(slash - path));
        *name = gsvd_strndup(slash + 1, len - (size_t)(slash + 1 - path));
    }
    return *parent && *name ? GSVD_OK : GSVD_ENOMEM;
}

static int open_write(struct store_file *fs, const char *path, unsigned flags)
{
    int rc = GSVD_OK;
    char *parent = NULL, *name = NULL;
    struct stat sb;

    if (!*path) {
        gsvd_log_error("empty output path");
        return GSVD_EINVAL;
    }
    if (stat(path, &sb) == 0 && !(flags & GSVD_STORE_OVERWRITE)) {
        gsvd_log_error("%s: output exists (remove it, or overwrite it with --force)", path);
        return GSVD_EIO;
    }
    GSVD_TRY(split_path(path, &parent, &name));
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, "/") == 0) {
        gsvd_log_error("%s: not a usable output path", path);
        rc = GSVD_EINVAL;
        goto out;
    }
    fs->target = gsvd_strdup(path);
    fs->root = gsvd_asprintf("%s/.%s.gensvd-XXXXXX", parent, name);
    if (!fs->target || !fs->root) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (!mkdtemp(fs->root)) {
        gsvd_log_error("%s: cannot create staging directory in %s: %s", path, parent,
                       strerror(errno));
        fs->root[0] = '\0';
        rc = GSVD_EIO;
        goto out;
    }
    /* mkdtemp makes it private; the finished output gets the usual permissions */
    mode_t mask = umask(0);
    umask(mask);
    if (chmod(fs->root, 0777 & ~mask) != 0)
        gsvd_log_warn("%s: cannot set permissions: %s", fs->root, strerror(errno));
out:
    gsvd_free(parent);
    gsvd_free(name);
    return rc;
}

static void file_close(gsvd_store *st)
{
    struct store_file *fs = (struct store_file *)st;
    if (!fs)
        return;
    if (fs->target && !fs->committed && fs->root && fs->root[0])
        remove_tree(fs->root);
    gsvd_free(fs->root);
    gsvd_free(fs->target);
    gsvd_free(fs);
}

static int file_open(const char *path, unsigned flags, gsvd_store **out)
{
    int rc = GSVD_OK;
    struct store_file *fs = gsvd_calloc(1, sizeof *fs);
    struct stat sb;

    *out = NULL;
    if (!fs)
        return GSVD_ENOMEM;
    fs->base.ops = &gsvd_store_file_ops;
    if (flags & GSVD_STORE_WRITE) {
        GSVD_TRY(open_write(fs, path, flags));
    } else {
        if (stat(path, &sb) != 0) {
            gsvd_log_error("%s: %s", path, strerror(errno));
            rc = errno == ENOENT ? GSVD_ENOTFOUND : GSVD_EIO;
            goto out;
        }
        if (!S_ISDIR(sb.st_mode)) {
            gsvd_log_error("%s: not a directory (a Zarr store is a directory)", path);
            rc = GSVD_EFORMAT;
            goto out;
        }
        fs->root = gsvd_strdup(path);
        if (!fs->root) {
            rc = GSVD_ENOMEM;
            goto out;
        }
    }
    *out = &fs->base;
    fs = NULL;
out:
    file_close(fs ? &fs->base : NULL);
    return rc;
}

static int file_get(gsvd_store *st, const char *key, struct gsvd_buf *dst)
{
    struct store_file *fs = (struct store_file *)st;
    int rc = GSVD_OK, fd = -1;
    char *path = gsvd_asprintf("%s/%s", fs->root, key);
    struct stat sb;

    if (!path)
        return GSVD_ENOMEM;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) {
            rc = GSVD_ENOTFOUND;
        } else {
            gsvd_log_error("%s: %s", path, strerror(errno));
            rc = GSVD_EIO;
        }
        goto out;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        /* keys are always leaves: a directory (or device) here is a malformed store */
        gsvd_log_error("%s: not a regular file", path);
        rc = GSVD_EFORMAT;
        goto out;
    }
    GSVD_TRY(gsvd_buf_reserve(dst, (size_t)sb.st_size));
    for (;;) {
        ssize_t n;
        if (dst->cap - dst->len < 2)
            GSVD_TRY(gsvd_buf_reserve(dst, 65536));
        n = read(fd, dst->data + dst->len, dst->cap - dst->len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            gsvd_log_error("%s: read failed: %s", path, strerror(errno));
            rc = GSVD_EIO;
            goto out;
        }
        if (n == 0)
            break;
        dst->len += (size_t)n;
    }
    dst->data[dst->len] = '\0';
out:
    if (fd >= 0)
        close(fd);
    gsvd_free(path);
    return rc;
}

/* pread of a range, with the file's size from fstat: shard indexes and inner chunks. */
static int file_get_range(gsvd_store *st, const char *key, uint64_t offset, uint64_t length,
                          int suffix, struct gsvd_buf *dst, uint64_t *size)
{
    struct store_file *fs = (struct store_file *)st;
    int rc = GSVD_OK, fd = -1;
    char *path = gsvd_asprintf("%s/%s", fs->root, key);
    struct stat sb;
    uint64_t total, start, n;

    if (!path)
        return GSVD_ENOMEM;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) {
            rc = GSVD_ENOTFOUND;
        } else {
            gsvd_log_error("%s: %s", path, strerror(errno));
            rc = GSVD_EIO;
        }
        goto out;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        gsvd_log_error("%s: not a regular file", path);
        rc = GSVD_EFORMAT;
        goto out;
    }
    total = (uint64_t)sb.st_size;
    start = suffix ? (length < total ? total - length : 0) : (offset < total ? offset : total);
    n = length < total - start ? length : total - start;
    *size = total;
    GSVD_TRY(gsvd_buf_reserve(dst, (size_t)n + 1));
    while (dst->len < n) {
        ssize_t got =
            pread(fd, dst->data + dst->len, (size_t)n - dst->len, (off_t)(start + dst->len));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            gsvd_log_error("%s: read failed: %s", path, strerror(errno));
            rc = GSVD_EIO;
            goto out;
        }
        if (got == 0)
            break; /* the file shrank under us: the caller sees a short range */
        dst->len += (size_t)got;
    }
    dst->data[dst->len] = '\0';
out:
    if (fd >= 0)
        close(fd);
    gsvd_free(path);
    return rc;
}

/* mkdir -p for the parent directories of root/key. */
static int make_parents(const char *root, const char *key)
{
    int rc = GSVD_OK;
    char *path = gsvd_asprintf("%s/%s", root, key);
    size_t skip = strlen(root) + 1;

    if (!path)
        return GSVD_ENOMEM;
    for (char *p = path + skip; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            gsvd_log_error("%s: cannot create directory: %s", path, strerror(errno));
            rc = GSVD_EIO;
            break;
        }
        *p = '/';
    }
    gsvd_free(path);
    return rc;
}

static int file_put(gsvd_store *st, const char *key, const void *data, size_t n)
{
    struct store_file *fs = (struct store_file *)st;
    int rc = GSVD_OK, fd = -1;
    char *path = NULL;
    const char *p = data;

    GSVD_TRY(make_parents(fs->root, key));
    path = gsvd_asprintf("%s/%s", fs->root, key);
    if (!path) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        gsvd_log_error("%s: cannot create: %s", path, strerror(errno));
        rc = GSVD_EIO;
        goto out;
    }
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            gsvd_log_error("%s: write failed: %s", path, strerror(errno));
            rc = GSVD_EIO;
            goto out;
        }
        p += w;
        n -= (size_t)w;
    }
    if (close(fd) != 0) {
        fd = -1;
        gsvd_log_error("%s: write failed: %s", path, strerror(errno));
        rc = GSVD_EIO;
        goto out;
    }
    fd = -1;
out:
    if (fd >= 0)
        close(fd);
    gsvd_free(path);
    return rc;
}

static int file_list(gsvd_store *st, const char *prefix, struct gsvd_strlist *names)
{
    struct store_file *fs = (struct store_file *)st;
    int rc = GSVD_OK;
    char *path = *prefix ? gsvd_asprintf("%s/%s", fs->root, prefix) : gsvd_strdup(fs->root);
    DIR *d = NULL;
    struct dirent *e;

    if (!path)
        return GSVD_ENOMEM;
    d = opendir(path);
    if (!d) {
        rc = (errno == ENOENT || errno == ENOTDIR) ? GSVD_OK : GSVD_EIO;
        if (rc < 0)
            gsvd_log_error("%s: cannot list: %s", path, strerror(errno));
        goto out;
    }
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        GSVD_TRY(gsvd_strlist_push(names, e->d_name));
    }
out:
    if (d)
        closedir(d);
    gsvd_free(path);
    return rc;
}

static int file_commit(gsvd_store *st)
{
    struct store_file *fs = (struct store_file *)st;
    int rc = GSVD_OK;
    char *old = NULL;
    struct stat sb;

    if (fs->committed)
        return GSVD_OK;
    if (lstat(fs->target, &sb) == 0) {
        /* move the existing target aside; it is deleted only after the new one is in place */
        old = gsvd_asprintf("%s.gensvd-old-XXXXXX", fs->root);
        if (!old)
            return GSVD_ENOMEM;
        if (!mkdtemp(old) || rmdir(old) != 0 || rename(fs->target, old) != 0) {
            gsvd_log_error("%s: cannot move the existing output aside: %s", fs->target,
                           strerror(errno));
            rc = GSVD_EIO;
            goto out;
        }
    }
    if (rename(fs->root, fs->target) != 0) {
        gsvd_log_error("%s: cannot move the finished output into place: %s", fs->target,
                       strerror(errno));
        rc = GSVD_EIO;
        if (old && rename(old, fs->target) != 0)
            gsvd_log_error("%s: previous output left at %s", fs->target, old);
        goto out;
    }
    fs->committed = 1;
    if (old && remove_tree(old) != 0)
        gsvd_log_warn("%s: could not delete the replaced output at %s", fs->target, old);
out:
    gsvd_free(old);
    return rc;
}

static int file_size(gsvd_store *st, const char *key, uint64_t *size)
{
    struct store_file *fs = (struct store_file *)st;
    struct stat sb;
    int rc = GSVD_OK;
    char *path = gsvd_asprintf("%s/%s", fs->root, key);

    if (!path)
        return GSVD_ENOMEM;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        rc = GSVD_ENOTFOUND;
    else
        *size = (uint64_t)sb.st_size;
    gsvd_free(path);
    return rc;
}

const struct gsvd_store_ops gsvd_store_file_ops = {
    .version = GSVD_STORE_OPS_VERSION,
    .name = "file",
    .open = file_open,
    .close = file_close,
    .get = file_get,
    .put = file_put,
    .list = file_list,
    .commit = file_commit,
    .size = file_size,
    .prefetch = NULL,
    .get_range = file_get_range,
};
