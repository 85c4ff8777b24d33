/* tests/gpu/test_cuda_module.c - the CUDA module's linkage: loaded with dlopen(RTLD_NOW) into
 * this program, which exports no symbol, and handed the program's table at init
 * (analysis/backend_internal.h, struct gsvd_backend_host), the module logs under the
 * program's log level and allocates and frees through the program's allocator.  Needs no GPU:
 * libcudart loads the driver only when the module first asks for a device, and without one
 * the module's create still logs and allocates (then fails with GSVD_ENODEVICE).  Skipped
 * (77) only where the module itself cannot be loaded (no CUDA runtime libraries).
 * With GENSVD_FAIL_ALLOC_AT=1 in a Debug build (GSVD_FAIL_ALLOC) it checks instead that the
 * program's fault-injection counter numbers the module's allocations: the first allocation of
 * the process is the module's, it fails, and the program's gsvd_alloc_failures() counts it.
 * Usage: test_cuda_module PATH/gensvd_cuda.so */
#include "gsvd_config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/backend.h"
#include "analysis/backend_internal.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "gsvd_test.h"

typedef const struct gsvd_backend_ops *(*init_fn)(const struct gsvd_backend_host *);

/* The program's allocator, counted: what the module allocates and frees through its table. */
static size_t n_alloc, n_free;
static int fail_alloc; /* the next allocation fails, as gsvd_calloc's would */

static void *count_malloc(size_t n)
{
    n_alloc++;
    return gsvd_malloc(n);
}

static void *count_calloc(size_t count, size_t size)
{
    if (fail_alloc) {
        fail_alloc = 0;
        return NULL;
    }
    n_alloc++;
    return gsvd_calloc(count, size);
}

static void *count_realloc(void *p, size_t n)
{
    n_alloc += p == NULL;
    return gsvd_realloc(p, n);
}

static void count_free(void *p)
{
    n_free += p != NULL;
    gsvd_free(p);
}

/* Run the module's create (and destroy on success) with the program's level set to `level`;
 * what it wrote to stderr in out (NUL-terminated, truncated to cap - 1).  Returns create's rc. */
static int create_logged(const struct gsvd_backend_ops *ops, enum gsvd_log_level level, char *out,
                         size_t cap)
{
    struct gsvd_backend_params bp = {.n_threads = 1};
    gsvd_backend *be = NULL;
    FILE *tmp = tmpfile();
    int saved = dup(2), rc;
    size_t n = 0;

    out[0] = '\0';
    if (!tmp || saved < 0)
        return GSVD_EIO;
    fflush(stderr);
    dup2(fileno(tmp), 2);
    gsvd_log_set_level(level);
    rc = ops->create(&bp, &be);
    if (rc == GSVD_OK)
        be->ops->destroy(be);
    gsvd_log_set_level(GSVD_LOG_WARN);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    n = fread(out, 1, cap - 1, tmp);
    out[n] = '\0';
    fclose(tmp);
    return rc;
}

static void test_init(init_fn init)
{
    struct gsvd_backend_host old = *gsvd_backend_host_table();

    GSVD_CHECK(init(NULL) == NULL);
    old.version = GSVD_BACKEND_HOST_VERSION - 1;
    GSVD_CHECK(init(&old) == NULL);
    old = *gsvd_backend_host_table();
    old.size = sizeof old - 1;
    GSVD_CHECK(init(&old) == NULL);
}

static void test_shared(init_fn init)
{
    static struct gsvd_backend_host host;
    const struct gsvd_backend_ops *ops;
    char err[4096];
    int rc;

    host = *gsvd_backend_host_table();
    host.malloc = count_malloc;
    host.calloc = count_calloc;
    host.realloc = count_realloc;
    host.free = count_free;
    ops = init(&host);
    GSVD_CHECK(ops && ops->version == GSVD_BACKEND_OPS_VERSION);
    if (!ops)
        return;
    GSVD_CHECK(strcmp(ops->name, "cuda") == 0 && ops->kind == GSVD_BACKEND_DEVICE);
    GSVD_CHECK(ops->analysis && ops->analysis(NULL, GSVD_AN_PCA) != NULL);
    GSVD_CHECK(ops->analysis(NULL, GSVD_AN_PDIST) != NULL);

    /* one log level: the module is silent when the program is, and speaks when it does (an
     * error without a device, the device line with one) */
    rc = create_logged(ops, GSVD_LOG_OFF, err, sizeof err);
    GSVD_CHECK(rc == GSVD_OK || rc == GSVD_ENODEVICE);
    GSVD_CHECK(err[0] == '\0');
    if (err[0])
        fprintf(stderr, "module wrote with the level off: %s\n", err);
    rc = create_logged(ops, GSVD_LOG_INFO, err, sizeof err);
    GSVD_CHECK(strstr(err, "::cuda_create] ") != NULL);

    /* one allocator: the module's allocations reach the program's, every one freed there */
    GSVD_CHECK(n_alloc > 0);
    GSVD_CHECK(n_free == n_alloc);
    if (n_free != n_alloc)
        fprintf(stderr, "%zu allocations, %zu frees\n", n_alloc, n_free);

    /* and its failures: the module's create fails cleanly when the program's allocator does */
    fail_alloc = 1;
    rc = create_logged(ops, GSVD_LOG_OFF, err, sizeof err);
    GSVD_CHECK_RC(rc, GSVD_ENOMEM);
    GSVD_CHECK(n_free == n_alloc);
}

/* GENSVD_FAIL_ALLOC_AT=1: the module's first allocation is the process's first; it fails in
 * the program's allocator and is counted there. */
static void test_fail_at(init_fn init)
{
    struct gsvd_backend_params bp = {.n_threads = 1};
    const struct gsvd_backend_ops *ops = init(gsvd_backend_host_table());
    gsvd_backend *be = NULL;

    GSVD_CHECK(ops != NULL);
    if (!ops)
        return;
    GSVD_CHECK(gsvd_alloc_failures() == 0);
    GSVD_CHECK_RC(ops->create(&bp, &be), GSVD_ENOMEM);
    GSVD_CHECK(be == NULL);
    GSVD_CHECK(gsvd_alloc_failures() == 1);
}

int main(int argc, char **argv)
{
    void *h, *sym;
    init_fn init = NULL;

    if (argc != 2) {
        fprintf(stderr, "usage: test_cuda_module PATH/gensvd_cuda.so\n");
        return 2;
    }
    h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("test_cuda_module: skipped: %s\n", dlerror());
        return 77;
    }
    sym = dlsym(h, "gsvd_cuda_module_init");
    GSVD_CHECK(sym != NULL);
    if (sym) {
        const char *fail_at = getenv("GENSVD_FAIL_ALLOC_AT");
        memcpy(&init, &sym, sizeof init);
        if (fail_at && strcmp(fail_at, "1") == 0) {
            test_fail_at(init);
        } else {
            test_init(init);
            test_shared(init);
        }
    }
    dlclose(h);
    return gsvd_test_report("test_cuda_module");
}
