/* cli/backend_registry.c - the one file that names every compiled-in compute backend.
 * The CUDA backend lives in the module gensvd_cuda.so next to the binary (or at
 * $GENSVD_CUDA_MODULE) and is loaded on first use, so runs that never probe a GPU do not map
 * the CUDA libraries.  The module is handed this program's table at init
 * (analysis/backend_internal.h, struct gsvd_backend_host) and needs no exported symbol. */
#include "gsvd_config.h"

#include "analysis/backend.h"
#include "analysis/backend_internal.h"
#if GSVD_HAVE_CUDA
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"

/* The loaded module: written once under `once`, read-only afterwards. */
static struct {
    pthread_once_t once;
    const struct gsvd_backend_ops *ops;
    const char *info;
    char error[512];
} cuda_module = {PTHREAD_ONCE_INIT, NULL, NULL, ""};

static void cuda_module_load(void)
{
    char path[PATH_MAX];
    const char *env = getenv("GENSVD_CUDA_MODULE");
    void *h;

    if (env && *env) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        char *slash;
        if (n <= 0) {
            snprintf(cuda_module.error, sizeof cuda_module.error,
                     "cannot locate the gensvd binary to find gensvd_cuda.so");
            return;
        }
        path[n] = '\0';
        slash = strrchr(path, '/');
        if (!slash || (size_t)(slash - path) + sizeof "/gensvd_cuda.so" > sizeof path) {
            snprintf(cuda_module.error, sizeof cuda_module.error, "path too long");
            return;
        }
        memcpy(slash, "/gensvd_cuda.so", sizeof "/gensvd_cuda.so");
    }
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(cuda_module.error, sizeof cuda_module.error, "cannot load the CUDA module: %.400s",
                 dlerror());
        return;
    }
    /* object-to-function pointer conversion the POSIX way (ISO C has none) */
    const struct gsvd_backend_ops *(*init_fn)(const struct gsvd_backend_host *) = NULL;
    const struct gsvd_backend_ops *ops = NULL;
    const char *(*info_fn)(void) = NULL;
    void *sym_init = dlsym(h, "gsvd_cuda_module_init");
    void *sym_info = dlsym(h, "gsvd_cuda_module_info");
    if (sym_init && sym_info) {
        memcpy(&init_fn, &sym_init, sizeof init_fn);
        memcpy(&info_fn, &sym_info, sizeof info_fn);
        /* the module logs and allocates through this program's table from here on */
        ops = init_fn(gsvd_backend_host_table());
    }
    if (!ops || ops->version != GSVD_BACKEND_OPS_VERSION) {
        snprintf(cuda_module.error, sizeof cuda_module.error,
                 "%.400s is not a gensvd CUDA module of this version", path);
        dlclose(h);
        return;
    }
    cuda_module.ops = ops;
    cuda_module.info = info_fn();
}

static const struct gsvd_backend_ops *cuda_ops(void)
{
    pthread_once(&cuda_module.once, cuda_module_load);
    return cuda_module.ops;
}

static int cuda_proxy_probe(char *why, size_t why_len)
{
    const struct gsvd_backend_ops *ops;
    /* no driver device node: no GPU, and no need to map the CUDA libraries to learn that */
    if (access("/dev/nvidiactl", F_OK) != 0 && !getenv("GENSVD_CUDA_MODULE")) {
        snprintf(why, why_len, "no NVIDIA driver (no /dev/nvidiactl)");
        return 0;
    }
    ops = cuda_ops();
    if (!ops) {
        snprintf(why, why_len, "%s", cuda_module.error);
        return 0;
    }
    return ops->probe(why, why_len);
}

/* Creates the module's backend, which carries the module's own vtable. */
static int cuda_proxy_create(const struct gsvd_backend_params *p, gsvd_backend **out)
{
    const struct gsvd_backend_ops *ops = cuda_ops();
    *out = NULL;
    return ops ? ops->create(p, out) : GSVD_ENODEVICE;
}

static const struct gsvd_backend_ops cuda_proxy_ops = {
    .version = GSVD_BACKEND_OPS_VERSION,
    .name = "cuda",
    .kind = GSVD_BACKEND_DEVICE,
    .probe = cuda_proxy_probe,
    .create = cuda_proxy_create,
};
#else
/* Known, not built in: `--device gpu` and `--device cuda` say so (GSVD_ENOTBUILT). */
static const struct gsvd_backend_ops cuda_proxy_ops = {
    .version = GSVD_BACKEND_OPS_VERSION,
    .name = "cuda",
    .kind = GSVD_BACKEND_DEVICE,
};
#endif

const struct gsvd_backend_ops *const gsvd_backend_registry[] = {
    &cuda_proxy_ops,
    &gsvd_backend_cpu_ops,
    NULL,
};

const char *gsvd_backend_list(void);
const char *gsvd_backend_cuda_info(void);

const char *gsvd_backend_list(void)
{
#if GSVD_HAVE_CUDA
    return "cuda, cpu";
#else
    return "cpu";
#endif
}

/* The --version line about CUDA. */
const char *gsvd_backend_cuda_info(void)
{
#if GSVD_HAVE_CUDA
    return cuda_ops() ? cuda_module.info : cuda_module.error;
#else
    return "not built in";
#endif
}
