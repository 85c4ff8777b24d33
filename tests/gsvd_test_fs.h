/* tests/gsvd_test_fs.h - file-system helpers shared by the unit tests. */
#ifndef GSVD_TESTS_GSVD_TEST_FS_H
#define GSVD_TESTS_GSVD_TEST_FS_H
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"

/* rm -r; best effort. */
static inline void gsvd_test_remove_tree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;

    if (!d) {
        unlink(path);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        char *sub;
        struct stat sb;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        sub = gsvd_asprintf("%s/%s", path, e->d_name);
        if (sub && lstat(sub, &sb) == 0 && S_ISDIR(sb.st_mode))
            gsvd_test_remove_tree(sub);
        else if (sub)
            unlink(sub);
        gsvd_free(sub);
    }
    closedir(d);
    rmdir(path);
}

#endif /* GSVD_TESTS_GSVD_TEST_FS_H */
