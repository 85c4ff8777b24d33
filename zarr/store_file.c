/* zarr/store_file.c - local directory store.
 * Reads go straight to files under the root.  A writable store creates a staging directory
 * ".NAME.gensvd-XXXXXX" next to the target; commit renames it into place (moving an existing
 * target aside first when overwriting, then deleting it), so readers never see a partial store
 * and a failed run leaves nothing behind.
 *
 * Runs that die without cleaning up (kill -9, power loss) are cleaned up by the next run on
 * the same target.  Every staging directory S has an owner file "S.owner", created whole
 * (linked into place, or O_EXCL) before S and deleted after everything else, holding the owner's
 * pid, boot id and process start time.  Everything a run creates next to the target is named after
 * S: S itself, "S.gensvd-old-XXXXXX" (the previous output moved aside by an overwriting commit) and
 * "S.gensvd-drop" (a staging directory being deleted).  Opening a target for writing first
 * looks for owner files of that exact target whose process is gone (other boot, no such pid,
 * or a pid reused by a later process) and removes their family: staging and dropped
 * directories are deleted; a moved-aside output is put back when the target is missing (the
 * owner died between moving it aside and moving its own output in), else deleted.  A live
 * run's files, files without a valid owner file, and anything not named after a staging
 * directory of this target are never touched.
 *
 * SIGINT/SIGTERM/SIGHUP: the store registers its staging directory with common/cleanup.h;
 * cli/signals.c runs that (gensvd_abandon_outputs) from an ordinary thread, which drops the family
 * as above and exits. */
#define _GNU_SOURCE /* O_TMPFILE: an owner file appears whole or not at all */
#include "gsvd_config.h"
#include "zarr/store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/store_internal.h"

#define OWNER_SUFFIX ".owner"
#define OLD_INFIX ".gensvd-old-"
#define DROP_SUFFIX ".gensvd-drop"
#define OWNER_MAGIC "gensvd staging v1\n"

struct store_file {
    struct gsvd_store base;
    char *root;    /* directory that keys are relative to (the staging dir when writing) */
    char *target;  /* final path of a writable store; NULL for reads */
    char *owner;   /* writable store: the owner file "root.owner"; NULL for reads */
    int committed; /* 1 after a successful commit */
    int cleanup;   /* common/cleanup.h token while the staging directory exists, else 0 */
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

/* ---- owner files and stale staging directories --------------------------------------------- */

/* Read a small text file (at most cap - 1 bytes) into buf, NUL-terminated; -1 on failure. */
static int read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    size_t len = 0;

    if (fd < 0)
        return -1;
    while (len < cap - 1) {
        ssize_t n = read(fd, buf + len, cap - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    return 0;
}

/* This boot's id (Linux), or "" where there is none. */
static void boot_id(char *buf, size_t cap)
{
    if (read_small("/proc/sys/kernel/random/boot_id", buf, cap) != 0)
        buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
}

/* Start time of process pid in clock ticks after boot (field 22 of /proc/PID/stat), or 0 where
 * it cannot be read. */
static unsigned long long start_time(long pid)
{
    char path[64], buf[1024], *p;
    unsigned long long t = 0;

    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (read_small(path, buf, sizeof buf) != 0 || !(p = strrchr(buf, ')')))
        return 0;
    /* after "pid (comm)": field 3 (state) ... field 22 (starttime) */
    for (int field = 3; field <= 22 && p; field++)
        p = strchr(p + 1, ' ');
    if (!p || sscanf(p, " %llu", &t) != 1)
        return 0;
    return t;
}

/* Link the unnamed file fd into place at `path`; fails with EEXIST where the name is taken. */
static int link_unnamed(int fd, const char *path)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

/* The owner file's text, written whole to fd: 0, or -1 with errno set. */
static int put_owner(int fd, const char *text, int n)
{
    ssize_t w = write(fd, text, (size_t)n);
    if (w != n) {
        if (w >= 0)
            errno = EIO; /* short: the disk is full */
        return -1;
    }
    return 0;
}

/* Write the owner file for this process; an existing name is never taken over.  The file
 * appears whole or not at all: it is written unnamed (O_TMPFILE) in its directory and then
 * linked into place, so a run killed in between leaves no empty owner file, which no later run
 * could judge (and so remove).  Where the file system has no unnamed files (or /proc is not
 * mounted) it is created with O_EXCL and written at once.  Returns 0, or -1 with errno set
 * (EEXIST: try another name). */
static int write_owner(const char *path)
{
    char boot[64], text[256];
    long pid = (long)getpid();
    int fd, n, err;

    boot_id(boot, sizeof boot);
    n = snprintf(text, sizeof text, OWNER_MAGIC "pid %ld\nboot %s\nstart %llu\n", pid, boot,
                 start_time(pid));
    if (n <= 0 || (size_t)n >= sizeof text) {
        errno = EIO;
        return -1;
    }
#ifdef O_TMPFILE
    const char *slash = strrchr(path, '/');
    char *dir =
        slash ? gsvd_strndup(path, slash == path ? 1 : (size_t)(slash - path)) : gsvd_strdup(".");
    if (!dir) {
        errno = ENOMEM;
        return -1;
    }
    fd = open(dir, O_WRONLY | O_TMPFILE | O_CLOEXEC, 0644);
    gsvd_free(dir);
    if (fd >= 0) {
        int rc = put_owner(fd, text, n) == 0 ? link_unnamed(fd, path) : -1;
        err = errno;
        close(fd);
        if (rc == 0 || err == EEXIST || err == ENOSPC || err == EDQUOT) {
            errno = err;
            return rc;
        }
        /* no /proc, or linking refused: the plain way below */
    }
#endif
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    if (put_owner(fd, text, n) != 0) {
        err = errno;
        close(fd);
        unlink(path);
        errno = err;
        return -1;
    }
    return close(fd);
}

/* 1 if the owner file at `path` is a valid gensvd owner file whose process is gone, 0 if the
 * owner may be alive or the file is not one of ours.  *pid receives the owner's pid. */
static int owner_dead(const char *path, long *pid)
{
    char text[256], boot[64], now_boot[64] = "";
    unsigned long long start = 0, now_start;
    size_t m = strlen(OWNER_MAGIC);

    if (read_small(path, text, sizeof text) != 0 || strncmp(text, OWNER_MAGIC, m) != 0 ||
        sscanf(text + m, "pid %ld\nboot %63[0-9a-f-]\nstart %llu", pid, boot, &start) != 3 ||
        *pid <= 0)
        return 0;
    boot_id(now_boot, sizeof now_boot);
    if (now_boot[0] && strcmp(boot, now_boot) != 0)
        return 1; /* written before the last reboot */
    if (kill((pid_t)*pid, 0) != 0 && errno == ESRCH)
        return 1;
    now_start = start_time(*pid);
    return start && now_start && now_start != start; /* the pid now names a later process */
}

/* Remove the family of staging directory `stage` (path) for `target`, whose owner file is
 * `owner`: rename the staging directory out of the way (writers still running in this process
 * then fail instead of refilling it), put a moved-aside previous output back when the target
 * is missing or else delete it, delete the staging tree, and delete the owner file last, so an
 * interrupted removal is finished by the next run.  Best effort; cannot fail. */
static void drop_family(const char *dir, const char *stage, const char *target, const char *owner)
{
    const char *base = strrchr(stage, '/') ? strrchr(stage, '/') + 1 : stage;
    size_t lb = strlen(base), lo = strlen(OLD_INFIX);
    char *drop = gsvd_asprintf("%s" DROP_SUFFIX, stage);
    struct stat sb;
    DIR *d;
    struct dirent *e;

    if (drop && rename(stage, drop) != 0 && errno != ENOENT)
        remove_tree(stage);
    d = opendir(dir);
    while (d && (e = readdir(d)) != NULL) {
        char *old;
        if (strncmp(e->d_name, base, lb) != 0 || strncmp(e->d_name + lb, OLD_INFIX, lo) != 0)
            continue;
        old = gsvd_asprintf("%s/%s", dir, e->d_name);
        if (old && lstat(old, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            if (lstat(target, &sb) != 0 && errno == ENOENT && rename(old, target) == 0)
                gsvd_log_warn("%s: put the previous output back (a run was stopped while "
                              "replacing it)",
                              target);
            else
                remove_tree(old);
        }
        gsvd_free(old);
    }
    if (d)
        closedir(d);
    if (drop)
        remove_tree(drop);
    unlink(owner);
    gsvd_free(drop);
}

/* The interrupt path (common/cleanup.h): drop this store's staging family. */
static void cleanup_on_signal(void *arg)
{
    struct store_file *fs = arg;
    char *dir = NULL, *name = NULL;

    if (split_path(fs->root, &dir, &name) == GSVD_OK)
        drop_family(dir, fs->root, fs->target, fs->owner);
    gsvd_free(dir);
    gsvd_free(name);
}

/* 1 if `e` is the name of an owner file of a staging directory of target `name`:
 * ".NAME.gensvd-" + 6 characters of mkdtemp's alphabet + ".owner". */
static int is_owner_name(const char *e, const char *name)
{
    size_t ln = strlen(name), le = strlen(e), lp = strlen(".gensvd-");
    size_t ls = strlen(OWNER_SUFFIX), want = 1 + ln + lp + 6 + ls;

    if (le != want || e[0] != '.' || strncmp(e + 1, name, ln) != 0 ||
        strncmp(e + 1 + ln, ".gensvd-", lp) != 0 || strcmp(e + le - ls, OWNER_SUFFIX) != 0)
        return 0;
    for (size_t i = 1 + ln + lp; i < 1 + ln + lp + 6; i++) {
        char c = e[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            return 0;
    }
    return 1;
}

/* Remove what runs that died while writing `target` (= dir/name) left next to it. */
static void reap_stale(const char *dir, const char *name, const char *target)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct gsvd_strlist owners = GSVD_STRLIST_INIT;

    if (!d)
        return;
    while ((e = readdir(d)) != NULL)
        if (is_owner_name(e->d_name, name) && gsvd_strlist_push(&owners, e->d_name) != GSVD_OK)
            break;
    closedir(d);
    for (size_t i = 0; i < owners.n; i++) {
        char *owner = gsvd_asprintf("%s/%s", dir, owners.items[i]);
        char *stage = owner ? gsvd_strndup(owner, strlen(owner) - strlen(OWNER_SUFFIX)) : NULL;
        long pid = 0;
        if (stage && owner_dead(owner, &pid)) {
            gsvd_log_info("%s: removing %s, left by gensvd process %ld, which is gone", target,
                          stage, pid);
            drop_family(dir, stage, target, owner);
        }
        gsvd_free(owner);
        gsvd_free(stage);
    }
    gsvd_strlist_free(&owners);
}

/* Create the owner file, then the staging directory named after it (both exclusive, so a name
 * is never shared with another run).  Sets fs->owner and fs->root. */
static int make_staging(struct store_file *fs, const char *parent, const char *name)
{
    static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    uint64_t x =
        (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^ (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)fs;

    for (int attempt = 0; attempt < 100; attempt++) {
        char suffix[7];
        for (int i = 0; i < 6; i++) {
            x ^= x << 13; /* xorshift64: names need only differ, not be secret */
            x ^= x >> 7;
            x ^= x << 17;
            suffix[i] = alnum[x % (sizeof alnum - 1)];
        }
        suffix[6] = '\0';
        gsvd_free(fs->root);
        gsvd_free(fs->owner);
        fs->root = gsvd_asprintf("%s/.%s.gensvd-%s", parent, name, suffix);
        fs->owner = gsvd_asprintf("%s/.%s.gensvd-%s" OWNER_SUFFIX, parent, name, suffix);
        if (!fs->root || !fs->owner)
            return GSVD_ENOMEM;
        if (write_owner(fs->owner) != 0) {
            if (errno == EEXIST)
                continue;
            break;
        }
        if (mkdir(fs->root, 0777) == 0)
            return GSVD_OK;
        unlink(fs->owner);
        if (errno != EEXIST)
            break;
    }
    /* the parent is missing, not a directory, or not writable (EACCES, EROFS): say which */
    gsvd_log_error("%s: cannot create the output in directory '%s': %s", fs->target, parent,
                   strerror(errno));
    fs->root[0] = '\0';
    fs->owner[0] = '\0';
    return GSVD_EIO;
}

struct staging_job {
    struct store_file *fs;
    const char *parent, *name;
};

static int staging_make(void *arg)
{
    struct staging_job *j = arg;
    return make_staging(j->fs, j->parent, j->name);
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
    GSVD_TRY(split_path(path, &parent, &name));
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, "/") == 0) {
        gsvd_log_error("%s: not a usable output path", path);
        rc = GSVD_EINVAL;
        goto out;
    }
    /* first: a run that died while replacing the target may have left it moved aside */
    reap_stale(parent, name, path);
    if (stat(path, &sb) == 0 && !(flags & GSVD_STORE_OVERWRITE)) {
        gsvd_log_error("%s: output exists (remove it, or overwrite it with --force)", path);
        rc = GSVD_EIO;
        goto out;
    }
    fs->target = gsvd_strdup(path);
    if (!fs->target) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    /* created and registered under the cleanup registry's lock: an interrupt in between
     * still removes the staging directory */
    rc = gsvd_cleanup_add_made(staging_make, &(struct staging_job){fs, parent, name},
                               cleanup_on_signal, fs);
    if (rc < 0)
        goto out;
    fs->cleanup = rc;
    rc = GSVD_OK;
out:
    gsvd_free(parent);
    gsvd_free(name);
    return rc;
}

/* Remove an uncommitted staging tree, then its owner file (last: until then a later run could
 * finish what we left).  Nothing for a read store or a committed one. */
static void remove_staging(void *arg)
{
    struct store_file *fs = arg;
    if (fs->target && !fs->committed && fs->root && fs->root[0])
        remove_tree(fs->root);
    if (fs->owner && fs->owner[0])
        unlink(fs->owner);
}

static void file_close(gsvd_store *st)
{
    struct store_file *fs = (struct store_file *)st;
    if (!fs)
        return;
    /* the staging tree and its owner file go under the cleanup registry's lock, so an
     * interrupt meanwhile cannot exit between the unregistration and the removal */
    gsvd_cleanup_remove_undone(fs->cleanup, remove_staging, fs);
    gsvd_free(fs->owner);
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
        char hint[1024];
        if (stat(path, &sb) != 0) {
            int e = errno;
            gsvd_store_convert_hint(path, hint, sizeof hint);
            gsvd_log_error("%s: %s%s%s", path, strerror(e), *hint ? "; " : "", hint);
            rc = e == ENOENT ? GSVD_ENOTFOUND : GSVD_EIO;
            goto out;
        }
        if (!S_ISDIR(sb.st_mode)) {
            if (*gsvd_store_convert_hint(path, hint, sizeof hint))
                gsvd_log_error("%s: not a Zarr store; %s", path, hint);
            else
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
            /* EFBIG (ulimit -f), ENOSPC, EDQUOT: the run fails and the staging tree goes */
            gsvd_log_error("%s: write failed: %s (output %s not written)", path,
                           strerror(w < 0 ? errno : EIO), fs->target ? fs->target : fs->root);
            rc = GSVD_EIO;
            goto out;
        }
        p += w;
        n -= (size_t)w;
    }
    if (close(fd) != 0) {
        fd = -1;
        gsvd_log_error("%s: write failed: %s (output %s not written)", path, strerror(errno),
                       fs->target ? fs->target : fs->root);
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
    /* from here the renames must not race the interrupt path; a run stopped during them leaves
     * its owner file, and the next run finishes the job (drop_family) */
    gsvd_cleanup_remove(fs->cleanup);
    fs->cleanup = 0;
    if (lstat(fs->target, &sb) == 0 && !(fs->base.flags & GSVD_STORE_OVERWRITE)) {
        /* another run finished the same output while this one was writing: it wins */
        gsvd_log_error("%s: output appeared while this run was writing it (another gensvd?); "
                       "not replaced (use --force to replace it)",
                       fs->target);
        return GSVD_EIO;
    }
    if (lstat(fs->target, &sb) == 0) {
        /* move the existing target aside; it is deleted only after the new one is in place */
        old = gsvd_asprintf("%s" OLD_INFIX "XXXXXX", fs->root);
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
    if (unlink(fs->owner) == 0)
        fs->owner[0] = '\0';
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
