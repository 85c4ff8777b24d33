/* analysis/pdist/pdist_parts.c - see pdist_parts.h.
 * Layout: OUT.gensvd-parts/part-I-of-N.zarr, each a Zarr group written by `pdist --part I/N`
 * (staged and renamed like any output, so a part directory exists only once its run
 * succeeded), holding the full metadata and the chunks of its bands.  The finalizer checks
 * that the N parts agree, moves every chunk file into part 1 (rename: no copy), checks that
 * every chunk is there, writes .zmetadata and renames part 1 to OUT.  Each step can be
 * repeated: a finalizer that died half-way is simply run again. */
#include "gsvd_config.h"
#include "analysis/pdist/pdist_parts.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/meta.h"

#define PARTS_SUFFIX ".gensvd-parts"
#define MAX_PARTS 100000

char *gsvd_pdist_parts_dir(const char *out)
{
    return gsvd_asprintf("%s" PARTS_SUFFIX, out);
}

char *gsvd_pdist_parts_path(const char *out, size_t part, size_t n_parts)
{
    return gsvd_asprintf("%s" PARTS_SUFFIX "/part-%zu-of-%zu.zarr", out, part, n_parts);
}

int gsvd_pdist_parts_prepare(const char *out)
{
    char *dir = gsvd_pdist_parts_dir(out);
    int rc = GSVD_OK;
    if (!dir)
        return GSVD_ENOMEM;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        gsvd_log_error("%s: cannot create the parts directory: %s", dir, strerror(errno));
        rc = GSVD_EIO;
    }
    gsvd_free(dir);
    return rc;
}

static int exists(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0;
}

/* Remove path and, for a directory, everything below it (no symbolic link is followed). */
static int remove_tree(const char *path)
{
    struct stat sb;
    int rc = GSVD_OK;
    if (lstat(path, &sb) != 0)
        return errno == ENOENT ? GSVD_OK : GSVD_EIO;
    if (S_ISDIR(sb.st_mode)) {
        DIR *dp = opendir(path);
        struct dirent *e;
        while (dp && (e = readdir(dp)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *sub = gsvd_asprintf("%s/%s", path, e->d_name);
            if (!sub || remove_tree(sub) < 0)
                rc = sub ? GSVD_EIO : GSVD_ENOMEM;
            gsvd_free(sub);
        }
        if (dp)
            closedir(dp);
    }
    if (rc == GSVD_OK && remove(path) != 0 && errno != ENOENT) {
        gsvd_log_error("%s: cannot remove: %s", path, strerror(errno));
        rc = GSVD_EIO;
    }
    return rc;
}

/* File text into *b (NUL-terminated); GSVD_ENOTFOUND (not logged) when it does not exist. */
static int slurp(const char *path, struct gsvd_buf *b)
{
    b->len = 0;
    if (!exists(path))
        return GSVD_ENOTFOUND;
    return gsvd_buf_read_file(b, path);
}

void gsvd_pdist_parts_drop_command(struct gsvd_buf *b)
{
    char *at = b->data ? strstr(b->data, "\"command\":") : NULL;
    if (!at)
        return;
    char *start = at, *end = strchr(at, '\n');
    while (start > b->data && start[-1] != '\n')
        start--;
    end = end ? end + 1 : b->data + b->len;
    memmove(start, end, (size_t)(b->data + b->len - end) + 1);
    b->len -= (size_t)(end - start);
}

/* The metadata documents a part holds (relative paths), in .zmetadata order. */
static const char *const docs[] = {
    ".zgroup",
    "sample_id/.zarray",
    "sample_id/.zattrs",
    "variant_index/.zarray",
    "variant_index/.zattrs",
    "distance/.zarray",
    "distance/.zattrs",
    "n_sites/.zarray",
    "n_sites/.zattrs",
    ".zattrs"}; /* the writer's order: the root's attributes come last */
static const char *const arrays[] = {"sample_id", "variant_index", "distance", "n_sites"};

/* Every part's metadata equals part 1's (the command line aside). */
static int check_agree(const char *dir, size_t n_parts)
{
    struct gsvd_buf a = GSVD_BUF_INIT, b = GSVD_BUF_INIT;
    int rc = GSVD_OK;
    for (size_t k = 2; k <= n_parts && rc == GSVD_OK; k++)
        for (size_t d = 0; d < GSVD_ARRAY_LEN(docs) && rc == GSVD_OK; d++) {
            char *pa = gsvd_asprintf("%s/part-1-of-%zu.zarr/%s", dir, n_parts, docs[d]);
            char *pb = gsvd_asprintf("%s/part-%zu-of-%zu.zarr/%s", dir, k, n_parts, docs[d]);
            int ra = pa ? slurp(pa, &a) : GSVD_ENOMEM, rb = pb ? slurp(pb, &b) : GSVD_ENOMEM;
            if (ra == GSVD_ENOMEM || rb == GSVD_ENOMEM) {
                rc = GSVD_ENOMEM;
            } else if ((ra < 0) != (rb < 0)) {
                gsvd_log_error("%s: %s is in part %zu but not in part %zu (parts must come from "
                               "the same input and options)",
                               dir, docs[d], ra < 0 ? k : (size_t)1, ra < 0 ? (size_t)1 : k);
                rc = GSVD_EINCONSIST;
            } else if (ra < 0 && ra != GSVD_ENOTFOUND) {
                rc = ra;
            } else if (ra == GSVD_OK) {
                if (strcmp(docs[d], ".zattrs") == 0) {
                    gsvd_pdist_parts_drop_command(&a);
                    gsvd_pdist_parts_drop_command(&b);
                }
                if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0) {
                    gsvd_log_error("%s: part %zu's %s differs from part 1's (parts must come "
                                   "from the same input and options)",
                                   dir, k, docs[d]);
                    rc = GSVD_EINCONSIST;
                }
            }
            gsvd_free(pa);
            gsvd_free(pb);
        }
    gsvd_buf_free(&a);
    gsvd_buf_free(&b);
    return rc;
}

/* 1 if the two files hold the same bytes, 0 if not, or an error. */
static int same_file(const char *a, const char *b)
{
    struct gsvd_buf x = GSVD_BUF_INIT, y = GSVD_BUF_INIT;
    int rc = gsvd_buf_read_file(&x, a);
    if (rc == GSVD_OK)
        rc = gsvd_buf_read_file(&y, b);
    if (rc == GSVD_OK)
        rc = x.len == y.len && (x.len == 0 || memcmp(x.data, y.data, x.len) == 0);
    gsvd_buf_free(&x);
    gsvd_buf_free(&y);
    return rc;
}

/* Move part k's chunk files of every array into part 1. */
static int move_chunks(const char *dir, size_t k, size_t n_parts)
{
    int rc = GSVD_OK;
    for (size_t i = 0; i < GSVD_ARRAY_LEN(arrays) && rc == GSVD_OK; i++) {
        char *from = gsvd_asprintf("%s/part-%zu-of-%zu.zarr/%s", dir, k, n_parts, arrays[i]);
        char *to = gsvd_asprintf("%s/part-1-of-%zu.zarr/%s", dir, n_parts, arrays[i]);
        DIR *dp = from && to ? opendir(from) : NULL;
        struct dirent *e;
        if (!from || !to)
            rc = GSVD_ENOMEM;
        while (dp && rc == GSVD_OK && (e = readdir(dp)) != NULL) {
            if (e->d_name[0] == '.')
                continue; /* metadata, and . and .. */
            char *src = gsvd_asprintf("%s/%s", from, e->d_name);
            char *dst = gsvd_asprintf("%s/%s", to, e->d_name);
            if (!src || !dst) {
                rc = GSVD_ENOMEM;
            } else if (exists(dst)) {
                /* every part writes the ID array; a pair chunk has one writer */
                rc = same_file(src, dst);
                if (rc == 1 && remove(src) == 0) {
                    rc = GSVD_OK;
                } else if (rc >= 0) {
                    gsvd_log_error("%s: chunk %s/%s of part %zu differs from another part's "
                                   "(parts of different runs?)",
                                   dir, arrays[i], e->d_name, k);
                    rc = GSVD_EINCONSIST;
                }
            } else if (rename(src, dst) != 0) {
                gsvd_log_error("%s: cannot move %s to %s: %s", dir, src, dst, strerror(errno));
                rc = GSVD_EIO;
            }
            gsvd_free(src);
            gsvd_free(dst);
        }
        if (dp)
            closedir(dp);
        gsvd_free(from);
        gsvd_free(to);
    }
    return rc;
}

/* Every chunk of array `name` in part 1 (base) is there; names the first missing ones. */
static int check_complete(const char *base, const char *name)
{
    struct gsvd_buf meta = GSVD_BUF_INIT;
    struct gsvd_zarray z = {0};
    char *path = gsvd_asprintf("%s/%s/.zarray", base, name);
    uint64_t missing = 0, total = 1;
    int rc = path ? slurp(path, &meta) : GSVD_ENOMEM;

    if (rc == GSVD_ENOTFOUND) {
        rc = GSVD_OK; /* an array the output does not have */
        goto out;
    }
    if (rc < 0)
        goto out;
    GSVD_TRY(gsvd_zarray_parse(meta.data, meta.len, path, &z));
    for (size_t d = 0; d < z.ndim; d++)
        total *= z.grid[d];
    for (uint64_t c = 0; c < total; c++) {
        char key[256];
        size_t at = 0;
        uint64_t rest = c, idx[GSVD_MAX_DIMS];
        for (size_t d = z.ndim; d-- > 0;) {
            idx[d] = rest % z.grid[d];
            rest /= z.grid[d];
        }
        for (size_t d = 0; d < z.ndim && at < sizeof key - 24; d++)
            at += (size_t)snprintf(key + at, sizeof key - at, "%s%llu", d ? "." : "",
                                   (unsigned long long)idx[d]);
        if (z.ndim == 0)
            snprintf(key, sizeof key, "0");
        char *chunk = gsvd_asprintf("%s/%s/%s", base, name, key);
        if (!chunk) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        if (!exists(chunk)) {
            if (missing < 5)
                gsvd_log_error("%s: chunk %s/%s is missing", base, name, key);
            missing++;
        }
        gsvd_free(chunk);
    }
    if (missing) {
        gsvd_log_error("%s: %llu of %llu chunks of %s are missing", base,
                       (unsigned long long)missing, (unsigned long long)total, name);
        rc = GSVD_EINCONSIST;
    }
out:
    gsvd_zarray_clear(&z);
    gsvd_buf_free(&meta);
    gsvd_free(path);
    return rc;
}

/* .zmetadata of part 1 from its documents. */
static int write_zmetadata(const char *base)
{
    struct gsvd_strlist keys = GSVD_STRLIST_INIT, texts = GSVD_STRLIST_INIT;
    struct gsvd_buf b = GSVD_BUF_INIT, z = GSVD_BUF_INIT;
    char *path = NULL;
    FILE *fp = NULL;
    int rc = GSVD_OK;

    for (size_t d = 0; d < GSVD_ARRAY_LEN(docs); d++) {
        char *p = gsvd_asprintf("%s/%s", base, docs[d]);
        int r = p ? slurp(p, &b) : GSVD_ENOMEM;
        gsvd_free(p);
        if (r == GSVD_ENOTFOUND)
            continue;
        GSVD_TRY(r);
        GSVD_TRY(gsvd_strlist_push(&keys, docs[d]));
        GSVD_TRY(gsvd_strlist_push(&texts, b.data));
    }
    GSVD_TRY(gsvd_zmetadata_emit(&keys, &texts, &z));
    path = gsvd_asprintf("%s/.zmetadata", base);
    if (!path) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    fp = fopen(path, "wb");
    if (!fp || fwrite(z.data, 1, z.len, fp) != z.len || fflush(fp) != 0 || fsync(fileno(fp)) != 0) {
        gsvd_log_error("%s: cannot write: %s", path, strerror(errno));
        rc = GSVD_EIO;
    }
out:
    if (fp && fclose(fp) != 0 && rc == GSVD_OK) {
        gsvd_log_error("%s: cannot write: %s", path, strerror(errno));
        rc = GSVD_EIO;
    }
    gsvd_free(path);
    gsvd_buf_free(&b);
    gsvd_buf_free(&z);
    gsvd_strlist_free(&keys);
    gsvd_strlist_free(&texts);
    return rc;
}

/* The part count N from the directory's part-I-of-N.zarr entries, and which I are present. */
static int scan_parts(const char *dir, size_t *n_parts, unsigned char **have)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    size_t n = 0;
    int rc = GSVD_OK;

    *have = NULL;
    if (!dp) {
        gsvd_log_error("%s: no parts to finalize (%s): run `gensvd pdist --part I/N -o OUT` "
                       "first",
                       dir, strerror(errno));
        return GSVD_ENOTFOUND;
    }
    while ((e = readdir(dp)) != NULL) {
        size_t i = 0, m = 0;
        int end = 0;
        if (sscanf(e->d_name, "part-%zu-of-%zu.zarr%n", &i, &m, &end) != 2 ||
            e->d_name[end] != '\0' || i < 1 || i > m || m > MAX_PARTS)
            continue; /* staging directories of running or killed parts, and anything else */
        if (n && m != n) {
            gsvd_log_error("%s: parts of different splits (of %zu and of %zu); remove the "
                           "stale ones",
                           dir, n, m);
            rc = GSVD_EINCONSIST;
            break;
        }
        if (!n) {
            n = m;
            *have = gsvd_calloc(n + 1, 1);
            if (!*have) {
                rc = GSVD_ENOMEM;
                break;
            }
        }
        (*have)[i] = 1;
    }
    closedir(dp);
    if (rc == GSVD_OK && !n) {
        gsvd_log_error("%s: no finished part (part-I-of-N.zarr) to finalize", dir);
        rc = GSVD_ENOTFOUND;
    }
    *n_parts = n;
    return rc;
}

int gsvd_pdist_parts_discard(const char *out)
{
    char *dir = gsvd_pdist_parts_dir(out);
    int rc = dir ? remove_tree(dir) : GSVD_ENOMEM;
    gsvd_free(dir);
    return rc;
}

int gsvd_pdist_parts_find(const char *out, size_t *n_parts)
{
    char *dir = gsvd_pdist_parts_dir(out);
    unsigned char *have = NULL;
    size_t n = 0, n_missing = 0;
    struct gsvd_buf list = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    *n_parts = 0;
    if (!dir)
        return GSVD_ENOMEM;
    GSVD_TRY(scan_parts(dir, &n, &have));
    for (size_t i = 1; i <= n; i++)
        if (!have[i]) {
            char num[32];
            snprintf(num, sizeof num, "%s%zu", n_missing ? ", " : "", i);
            GSVD_TRY(gsvd_buf_append(&list, num, strlen(num)));
            n_missing++;
        }
    if (n_missing) {
        gsvd_log_error("%s: %zu of %zu parts missing (%.*s): run `gensvd pdist ... --part I/%zu "
                       "-o %s` for them, then finalize again",
                       out, n_missing, n, (int)list.len, list.data ? list.data : "", n, out);
        rc = GSVD_EINCONSIST;
        goto out;
    }
    *n_parts = n;
out:
    gsvd_buf_free(&list);
    gsvd_free(have);
    gsvd_free(dir);
    return rc;
}

int gsvd_pdist_parts_have_array(const char *out, const char *name)
{
    char *dir = gsvd_pdist_parts_dir(out);
    DIR *dp = dir ? opendir(dir) : NULL;
    struct dirent *e;
    int found = 0;

    if (!dir)
        return GSVD_ENOMEM;
    while (dp && !found && (e = readdir(dp)) != NULL) {
        size_t i = 0, m = 0;
        int end = 0;
        if (sscanf(e->d_name, "part-%zu-of-%zu.zarr%n", &i, &m, &end) != 2 ||
            e->d_name[end] != '\0')
            continue;
        char *p = gsvd_asprintf("%s/%s/%s/.zarray", dir, e->d_name, name);
        if (!p) {
            found = GSVD_ENOMEM;
            break;
        }
        found = exists(p);
        gsvd_free(p);
    }
    if (dp)
        closedir(dp);
    gsvd_free(dir);
    return found;
}

int gsvd_pdist_parts_finalize(const char *out, int force)
{
    char *dir = gsvd_pdist_parts_dir(out), *base = NULL, *old = NULL;
    size_t n = 0;
    int rc = GSVD_OK;

    if (!dir)
        return GSVD_ENOMEM;
    GSVD_TRY(gsvd_pdist_parts_find(out, &n));
    if (exists(out) && !force) {
        gsvd_log_error("%s: output exists (remove it, or overwrite it with --force)", out);
        rc = GSVD_EIO;
        goto out;
    }
    GSVD_TRY(check_agree(dir, n));
    for (size_t k = 2; k <= n; k++)
        GSVD_TRY(move_chunks(dir, k, n));
    base = gsvd_asprintf("%s/part-1-of-%zu.zarr", dir, n);
    if (!base) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < GSVD_ARRAY_LEN(arrays); i++)
        GSVD_TRY(check_complete(base, arrays[i]));
    GSVD_TRY(write_zmetadata(base));
    if (exists(out)) { /* --force: the old output out of the way first, then gone */
        old = gsvd_asprintf("%s.gensvd-old-%ld", out, (long)getpid());
        if (!old) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        if (rename(out, old) != 0) {
            gsvd_log_error("%s: cannot move the old output away: %s", out, strerror(errno));
            rc = GSVD_EIO;
            goto out;
        }
    }
    if (rename(base, out) != 0) {
        gsvd_log_error("%s: cannot move %s into place: %s", out, base, strerror(errno));
        rc = GSVD_EIO;
        goto out;
    }
    if (old)
        GSVD_TRY(remove_tree(old));
    GSVD_TRY(remove_tree(dir)); /* the other parts: their metadata only, now */
    gsvd_log_info("%s: %zu parts finalized", out, n);
out:
    gsvd_free(base);
    gsvd_free(old);
    gsvd_free(dir);
    return rc;
}
