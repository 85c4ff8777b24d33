/* lib/backend_registry.c - the one file that names every compiled-in compute backend.
 * The CUDA backend lives in the module gensvd_cuda.so and is loaded on first use, so runs that
 * never probe a GPU do not map the CUDA libraries.  It is looked for at $GENSVD_CUDA_MODULE,
 * else next to the gensvd binary, next to the library holding this code (libgensvd.so, or the
 * binary itself), in that directory's gensvd/, in ../bin and ../../bin from it (the gensvd-cuda
 * package's /usr/bin, seen from /usr/lib or /usr/lib/MULTIARCH), and in the configured install's
 * bin directory.  The module
 * is handed the program's table at init (analysis/backend_internal.h, struct
 * gsvd_backend_host) and needs no exported symbol. */
#define _GNU_SOURCE /* dladdr: which file holds this code */
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

/* `dir` + "/" + name into path when that file exists; 1 if it does. */
static int try_dir(char *path, size_t len, const char *dir, size_t dir_len, const char *name)
{
    int n = snprintf(path, len, "%.*s/%s", (int)dir_len, dir, name);
    return n > 0 && (size_t)n < len && access(path, F_OK) == 0;
}

/* Where the module is: see the top of the file.  0 and path set, or -1. */
static int find_module(char *path, size_t len)
{
    const char *env = getenv("GENSVD_CUDA_MODULE");
    char self[PATH_MAX];
    ssize_t n;
    Dl_info info;
    const char *slash;

    if (env && *env) {
        snprintf(path, len, "%s", env);
        return 0;
    }
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        slash = strrchr(self, '/');
        if (slash && try_dir(path, len, self, (size_t)(slash - self), "gensvd_cuda.so"))
            return 0;
    }
    if (dladdr((void *)&cuda_module, &info) && info.dli_fname &&
        (slash = strrchr(info.dli_fname, '/')) != NULL) {
        size_t d = (size_t)(slash - info.dli_fname);
        /* beside the library, then where the binary's package puts it (PREFIX/bin, the
         * library being in PREFIX/lib or PREFIX/lib/MULTIARCH) */
        if (try_dir(path, len, info.dli_fname, d, "gensvd_cuda.so") ||
            try_dir(path, len, info.dli_fname, d, "gensvd/gensvd_cuda.so") ||
            try_dir(path, len, info.dli_fname, d, "../bin/gensvd_cuda.so") ||
            try_dir(path, len, info.dli_fname, d, "../../bin/gensvd_cuda.so"))
            return 0;
    }
    return try_dir(path, len, GSVD_INSTALL_BINDIR, strlen(GSVD_INSTALL_BINDIR), "gensvd_cuda.so")
               ? 0
               : -1;
}

static void cuda_module_load(void)
{
    char path[PATH_MAX];
    void *h;

    if (find_module(path, sizeof path) < 0) {
        snprintf(cuda_module.error, sizeof cuda_module.error,
                 "no gensvd_cuda.so next to the program or the library, nor in %s (set "
                 "GENSVD_CUDA_MODULE)",
                 GSVD_INSTALL_BINDIR);
        return;
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
