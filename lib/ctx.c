/* lib/ctx.c - the version, errors, element types and the context of include/gensvd.h: its
 * settings, its log sink (the caller's callback, and the last error), and the scope every call
 * enters (lib_internal.h). */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/backend.h"
#include "analysis/cpu/blas_room.h"
#include "common/alloc.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parse.h"
#include "plot/png.h"
#include "zarr/codec.h"
#include "zarr/meta.h"
#if GSVD_HAVE_MPI
#include "mpi/comm_mpi.h"
#endif

/* The public codes are the internal ones (common/err.h), value for value. */
_Static_assert(
    (int)GENSVD_ENOMEM == (int)GSVD_ENOMEM && (int)GENSVD_EINVAL == (int)GSVD_EINVAL &&
        (int)GENSVD_EIO == (int)GSVD_EIO && (int)GENSVD_ENOTFOUND == (int)GSVD_ENOTFOUND &&
        (int)GENSVD_EFORMAT == (int)GSVD_EFORMAT &&
        (int)GENSVD_EINCONSIST == (int)GSVD_EINCONSIST &&
        (int)GENSVD_EUNSUPPORTED == (int)GSVD_EUNSUPPORTED &&
        (int)GENSVD_ECODEC == (int)GSVD_ECODEC && (int)GENSVD_ENET == (int)GSVD_ENET &&
        (int)GENSVD_EAUTH == (int)GSVD_EAUTH && (int)GENSVD_EDEGENERATE == (int)GSVD_EDEGENERATE &&
        (int)GENSVD_EGPU == (int)GSVD_EGPU && (int)GENSVD_ENODEVICE == (int)GSVD_ENODEVICE &&
        (int)GENSVD_ENOTBUILT == (int)GSVD_ENOTBUILT &&
        (int)GENSVD_EINTERNAL == (int)GSVD_EINTERNAL &&
        (int)GENSVD_ECANCELED == (int)GSVD_ECANCELED && (int)GENSVD_EPEER == (int)GSVD_EPEER,
    "enum gensvd_error and enum gsvd_err must agree");
_Static_assert((int)GENSVD_LOG_ERROR == (int)GSVD_LOG_ERROR &&
                   (int)GENSVD_LOG_DEBUG == (int)GSVD_LOG_DEBUG,
               "log levels must agree");

/* lib/backend_registry.c */
const char *gsvd_backend_list(void);
const char *gsvd_backend_cuda_info(void);

const char *gensvd_version(void)
{
    return GSVD_VERSION;
}

unsigned gensvd_version_number(void)
{
    return GENSVD_VERSION_NUMBER;
}

const char *gensvd_strerror(int code)
{
    return gsvd_strerror(code);
}

size_t gensvd_dtype_size(enum gensvd_dtype dtype)
{
    /* BYTES and UTF32: the array's width (0 here) */
    static const size_t sizes[] = {0, 1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, sizeof(const char *), 2};
    return (size_t)dtype < sizeof sizes / sizeof sizes[0] ? sizes[dtype] : 0;
}

void gensvd_free(void *p)
{
    gsvd_free(p);
}

/* ---- build information -------------------------------------------------------------------- */

static pthread_once_t info_once = PTHREAD_ONCE_INIT;
static char info_plot[128], info_libs[256], info_blas[160], info_kernels[256], info_mpi[256];

static void info_make(void)
{
    gsvd_plot_formats(info_plot, sizeof info_plot);
    gsvd_codec_library_versions(info_libs, sizeof info_libs);
    {
        /* on a CPU OpenBLAS does not know it runs generic kernels: the gensvd binary restarts
         * itself with better ones, a program using the library sets the variable itself */
        const char *fix = gsvd_blas_core_fix();
        snprintf(info_blas, sizeof info_blas, "OpenBLAS, %s kernels%s%s%s", gsvd_blas_core(),
                 fix ? " (OpenBLAS does not know this CPU; OPENBLAS_CORETYPE=" : "", fix ? fix : "",
                 fix ? " before the program starts selects faster ones)" : "");
    }
    {
        char k[96];
        gsvd_backend_cpu_kernels(k, sizeof k);
        snprintf(info_kernels, sizeof info_kernels,
                 "%s, pdist popcounts on %s, ldprune popcounts on %s%s", k,
                 gsvd_pdist_popcount_engine(), gsvd_ldprune_popcount_engine(),
#ifdef GSVD_CLONES_V3
                 ", vectorised loops for x86-64-v3 at most"
#else
                 ""
#endif
        );
    }
#if GSVD_HAVE_MPI
    snprintf(info_mpi, sizeof info_mpi,
             "%s (pca, pdist, project, related and ldprune under mpirun/srun)",
             gsvd_comm_mpi_version());
#else
    snprintf(info_mpi, sizeof info_mpi, "not built in");
#endif
}

const char *gensvd_build_info(const char *key)
{
    if (!key)
        return "";
    /* OpenBLAS's kernel set: asked for at start-up, before anything else is made (under a
     * tight `ulimit -v`), so not through info_make */
    if (!strcmp(key, "blas core"))
        return gsvd_blas_core();
    if (!strcmp(key, "blas core fix")) {
        const char *fix = gsvd_blas_core_fix();
        return fix ? fix : "";
    }
    pthread_once(&info_once, info_make);
    if (!strcmp(key, "backends"))
        return gsvd_backend_list();
    if (!strcmp(key, "cuda"))
        return gsvd_backend_cuda_info();
    if (!strcmp(key, "mpi"))
        return info_mpi;
    if (!strcmp(key, "stores"))
        return gsvd_store_supported();
    if (!strcmp(key, "codecs"))
        return gsvd_codec_supported();
    if (!strcmp(key, "plot"))
        return info_plot;
    if (!strcmp(key, "libraries"))
        return info_libs;
    if (!strcmp(key, "blas"))
        return info_blas;
    if (!strcmp(key, "cpu kernels"))
        return info_kernels;
    return "";
}

/* ---- process-wide set-up ------------------------------------------------------------------ */

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static int global_rc;

/* curl_global_init and blosc_init, once for the process (never undone: other users of those
 * libraries in the process may rely on them), and cJSON's allocation hooks: gsvd_malloc and
 * gsvd_free (malloc and free, with out-of-memory reporting), so that a metadata parse that ran
 * out of memory says so instead of calling the JSON invalid (include/gensvd.h names this
 * among the process-wide settings). */
static void global_init(void)
{
    gsvd_meta_global_init();
    global_rc = gsvd_store_global_init();
    gsvd_codec_global_init();
    /* gensvd runs BLAS on its own threads, one BLAS thread each (as the gensvd binary does);
     * the count is process-wide (include/gensvd.h says so) */
    gsvd_blas_set_threads(1);
}

int lib_global_init(void)
{
    pthread_once(&global_once, global_init);
    return global_rc;
}

int gensvd_blas_reserve(void)
{
    return gsvd_blas_room_init();
}

size_t gensvd_abandon_outputs(void)
{
    return gsvd_cleanup_run_and_hold();
}

/* ---- the log sink and the calls' scope ---------------------------------------------------- */

/* The process default's callback (gensvd_set_default_log): messages logged outside any call's
 * scope.  Set from one thread while no other calls the library (the header says so). */
static gensvd_log_fn default_log_fn;
static void *default_log_user;

static void default_sink(void *ud, enum gsvd_log_level level, const char *func, const char *msg)
{
    (void)ud;
    (void)func;
    if (default_log_fn)
        default_log_fn(default_log_user, (enum gensvd_log_level)level, msg);
}

int gensvd_set_default_log(gensvd_log_fn fn, void *user, enum gensvd_log_level level)
{
    struct gsvd_scope s = {0};

    if ((int)level < GENSVD_LOG_OFF || (int)level > GENSVD_LOG_DEBUG)
        return GENSVD_EINVAL;
    default_log_fn = fn;
    default_log_user = user;
    s.log_level = fn ? (enum gsvd_log_level)level : GSVD_LOG_OFF;
    s.log_fn = fn ? default_sink : NULL;
    gsvd_scope_set_default(&s);
    return GENSVD_OK;
}

static void ctx_sink(void *ud, enum gsvd_log_level level, const char *func, const char *msg)
{
    gensvd_ctx *ctx = ud;

    (void)func;
    if (level == GSVD_LOG_ERROR) {
        pthread_mutex_lock(&ctx->mu);
        if (!ctx->call_msg[0])
            snprintf(ctx->call_msg, sizeof ctx->call_msg, "%s", msg);
        pthread_mutex_unlock(&ctx->mu);
    }
    if (ctx->log_fn && (int)level <= (int)ctx->log_level)
        ctx->log_fn(ctx->log_user, (enum gensvd_log_level)level, msg);
}

const struct gsvd_scope *lib_begin(gensvd_ctx *ctx)
{
    pthread_mutex_lock(&ctx->mu);
    ctx->call_msg[0] = '\0';
    pthread_mutex_unlock(&ctx->mu);
    return gsvd_scope_enter(&ctx->scope);
}

/* The call in words for a last error that nothing logged: "gensvd_source_set_string" ->
 * "source set string" (a person reads the call, not a C identifier). */
static void call_words(const char *what, char *out, size_t cap)
{
    size_t n = 0;

    if (strncmp(what, "gensvd_", 7) == 0)
        what += 7;
    for (; *what && n + 1 < cap; what++)
        out[n++] = *what == '_' ? ' ' : *what;
    out[n] = '\0';
}

int lib_end(gensvd_ctx *ctx, const struct gsvd_scope *prev, int rc, const char *what)
{
    char call[64];

    call_words(what, call, sizeof call);
    if (rc == GSVD_ECANCELED && atomic_load(&ctx->cancel)) {
        atomic_store(&ctx->cancel, 0);
        snprintf(ctx->last_error, sizeof ctx->last_error, "%s: cancelled", call);
    } else if (rc < 0) {
        pthread_mutex_lock(&ctx->mu);
        if (ctx->call_msg[0])
            snprintf(ctx->last_error, sizeof ctx->last_error, "%s", ctx->call_msg);
        else
            snprintf(ctx->last_error, sizeof ctx->last_error, "%s: %s", call, gsvd_strerror(rc));
        pthread_mutex_unlock(&ctx->mu);
    }
    gsvd_scope_leave(prev);
    return rc;
}

int lib_fail(int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gsvd_log_vmsg(GSVD_LOG_ERROR, "gensvd", fmt, ap);
    va_end(ap);
    return rc;
}

size_t lib_threads(const gensvd_ctx *ctx)
{
    long n;
    if (ctx->threads)
        return ctx->threads;
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (size_t)n : 1;
}

struct gsvd_progress lib_progress(const gensvd_ctx *ctx)
{
    struct gsvd_progress p = {ctx->progress_fn, ctx->progress_user};
    return p;
}

const char *lib_device(const gensvd_ctx *ctx)
{
    return ctx->str[CS_DEVICE] ? ctx->str[CS_DEVICE] : "auto";
}

/* ---- the context -------------------------------------------------------------------------- */

static void remote_refresh(gensvd_ctx *ctx);

gensvd_ctx *gensvd_ctx_new(void)
{
    gensvd_ctx *ctx;
    struct gsvd_remote_params defaults = GSVD_REMOTE_PARAMS_DEFAULT;

    if (lib_global_init() < 0)
        return NULL;
    ctx = gsvd_calloc(1, sizeof *ctx);
    if (!ctx)
        return NULL;
    pthread_mutex_init(&ctx->mu, NULL);
    atomic_init(&ctx->cancel, 0);
    ctx->log_level = GENSVD_LOG_WARN;
    ctx->remote = defaults;
    ctx->scope.log_level = GSVD_LOG_WARN;
    ctx->scope.log_fn = ctx_sink;
    ctx->scope.log_ud = ctx;
    ctx->scope.cancel = &ctx->cancel;
    ctx->scope.remote = &ctx->remote;
    {
        /* GENSVD_* settings from the environment; the context has no callback yet, so a bad
         * value's warning goes to the process default's (gensvd_set_default_log) */
        const struct gsvd_scope *prev = gsvd_scope_enter(NULL);
        gsvd_remote_params_env(&ctx->remote);
        gsvd_scope_leave(prev);
    }
    /* GENSVD_S3_ADDRESSING points into the environment: keep a copy of our own */
    if (ctx->remote.s3_addressing &&
        !(ctx->str[CS_S3_ADDRESSING] = gsvd_strdup(ctx->remote.s3_addressing))) {
        gensvd_ctx_free(ctx);
        return NULL;
    }
    remote_refresh(ctx);
    return ctx;
}

void gensvd_ctx_free(gensvd_ctx *ctx)
{
    if (!ctx)
        return;
    for (size_t i = 0; i < CS_COUNT; i++)
        gsvd_free(ctx->str[i]);
    pthread_mutex_destroy(&ctx->mu);
    gsvd_free(ctx);
}

const char *gensvd_ctx_last_error(const gensvd_ctx *ctx)
{
    return ctx ? ctx->last_error : "";
}

int gensvd_ctx_set_log(gensvd_ctx *ctx, gensvd_log_fn fn, void *user, enum gensvd_log_level level)
{
    if (!ctx)
        return GENSVD_EINVAL;
    if ((int)level < GENSVD_LOG_OFF || (int)level > GENSVD_LOG_DEBUG) {
        /* reported through the callback in place, which stays */
        const struct gsvd_scope *prev = lib_begin(ctx);
        return lib_end(ctx, prev,
                       lib_fail(GSVD_EINVAL,
                                "log level %d is not one of GENSVD_LOG_OFF to GENSVD_LOG_DEBUG",
                                (int)level),
                       "gensvd_ctx_set_log");
    }
    ctx->log_fn = fn;
    ctx->log_user = user;
    ctx->log_level = level;
    /* errors always reach the sink: they become the last error */
    ctx->scope.log_level =
        (int)level > GSVD_LOG_ERROR ? (enum gsvd_log_level)level : GSVD_LOG_ERROR;
    return GENSVD_OK;
}

void gensvd_ctx_set_progress(gensvd_ctx *ctx, gensvd_progress_fn fn, void *user)
{
    if (!ctx)
        return;
    ctx->progress_fn = fn;
    ctx->progress_user = user;
}

void gensvd_ctx_cancel(gensvd_ctx *ctx)
{
    if (ctx)
        atomic_store(&ctx->cancel, 1); /* lock-free: safe in a signal handler */
}

/* ---- context settings --------------------------------------------------------------------- */

static const struct {
    const char *name;
    enum lib_ctx_str slot;
} ctx_strings[] = {
    {"device", CS_DEVICE},
    {"cache-dir", CS_CACHE_DIR},
    {"endpoint", CS_ENDPOINT},
    {"s3-addressing", CS_S3_ADDRESSING},
    {"gcs-token-file", CS_GCS_TOKEN_FILE},
    {"gcs-token", CS_GCS_TOKEN},
    {"aws-access-key-id", CS_AWS_KEY_ID},
    {"aws-secret-access-key", CS_AWS_SECRET},
    {"aws-session-token", CS_AWS_SESSION},
    {"aws-region", CS_AWS_REGION},
};

static const struct {
    const char *name;
    int64_t lo, hi;
} ctx_ints[] = {
    {"threads", 0, 4096},  {"concurrency", 1, 1024},  {"retries", 0, 100},
    {"timeout", 1, 86400}, {"no-sign-request", 0, 1},
};

/* Point the remote settings at the owned strings. */
static void remote_refresh(gensvd_ctx *ctx)
{
    ctx->remote.endpoint = ctx->str[CS_ENDPOINT];
    ctx->remote.s3_addressing = ctx->str[CS_S3_ADDRESSING];
    ctx->remote.gcs_token_file = ctx->str[CS_GCS_TOKEN_FILE];
    ctx->remote.gcs_token = ctx->str[CS_GCS_TOKEN];
    ctx->remote.aws_access_key_id = ctx->str[CS_AWS_KEY_ID];
    ctx->remote.aws_secret_access_key = ctx->str[CS_AWS_SECRET];
    ctx->remote.aws_session_token = ctx->str[CS_AWS_SESSION];
    ctx->remote.aws_region = ctx->str[CS_AWS_REGION];
}

static int set_int(gensvd_ctx *ctx, const char *name, int64_t value)
{
    for (size_t i = 0; i < sizeof ctx_ints / sizeof ctx_ints[0]; i++) {
        if (strcmp(name, ctx_ints[i].name) != 0)
            continue;
        if (value < ctx_ints[i].lo || value > ctx_ints[i].hi)
            return lib_fail(GSVD_EINVAL,
                            "context setting '%s': %lld is out of range (%lld to %lld)", name,
                            (long long)value, (long long)ctx_ints[i].lo, (long long)ctx_ints[i].hi);
        switch (i) {
        case 0:
            ctx->threads = (size_t)value;
            break;
        case 1:
            ctx->remote.concurrency = (unsigned)value;
            break;
        case 2:
            ctx->remote.retries = (unsigned)value;
            break;
        case 3:
            ctx->remote.timeout_s = (unsigned)value;
            break;
        default:
            ctx->remote.no_sign_request = (int)value;
            break;
        }
        return GSVD_OK;
    }
    for (size_t i = 0; i < sizeof ctx_strings / sizeof ctx_strings[0]; i++)
        if (!strcmp(name, ctx_strings[i].name))
            return lib_fail(GSVD_EINVAL, "context setting '%s' takes text (gensvd_ctx_set_string)",
                            name);
    return lib_fail(GSVD_EINVAL, "unknown context setting '%s'", name);
}

int gensvd_ctx_set_int(gensvd_ctx *ctx, const char *name, int64_t value)
{
    const struct gsvd_scope *prev;
    if (!ctx || !name)
        return GENSVD_EINVAL;
    prev = lib_begin(ctx);
    return lib_end(ctx, prev, set_int(ctx, name, value), "gensvd_ctx_set_int");
}

static int set_string(gensvd_ctx *ctx, const char *name, const char *value)
{
    static const char *const devices[] = {"auto", "cpu", "gpu", NULL};
    static const char *const addressing[] = {"auto", "path", "virtual", NULL};
    size_t slot = CS_COUNT;
    char *copy;

    for (size_t i = 0; i < sizeof ctx_strings / sizeof ctx_strings[0]; i++)
        if (!strcmp(name, ctx_strings[i].name))
            slot = ctx_strings[i].slot;
    if (slot == CS_COUNT) {
        for (size_t i = 0; i < sizeof ctx_ints / sizeof ctx_ints[0]; i++) {
            uint64_t v;
            if (strcmp(name, ctx_ints[i].name) != 0)
                continue;
            if (!value || gsvd_parse_uint(value, (uint64_t)ctx_ints[i].lo, (uint64_t)ctx_ints[i].hi,
                                          0, &v) < 0)
                return lib_fail(GSVD_EINVAL,
                                "context setting '%s': '%s' is not an integer from %lld to %lld",
                                name, value ? value : "(null)", (long long)ctx_ints[i].lo,
                                (long long)ctx_ints[i].hi);
            return set_int(ctx, name, (int64_t)v);
        }
        return lib_fail(GSVD_EINVAL, "unknown context setting '%s'", name);
    }
    if (slot == CS_DEVICE && (!value || gsvd_parse_choice(value, devices) < 0))
        return lib_fail(GSVD_EINVAL, "context setting 'device': '%s' is not auto, cpu or gpu",
                        value ? value : "(null)");
    if (slot == CS_DEVICE && !strcmp(value, "gpu")) {
        /* asked for by name: an unusable device fails now, before any input is read */
        int rc = gsvd_backend_check(value);
        if (rc < 0)
            return rc;
    }
    if (slot == CS_S3_ADDRESSING && (!value || gsvd_parse_choice(value, addressing) < 0))
        return lib_fail(GSVD_EINVAL,
                        "context setting 's3-addressing': '%s' is not auto, path or virtual",
                        value ? value : "(null)");
    if (value && slot == CS_ENDPOINT && *value && !strstr(value, "://"))
        return lib_fail(GSVD_EINVAL,
                        "context setting 'endpoint': '%s' is not a URL (http://HOST:PORT or "
                        "https://HOST)",
                        value);
    copy = value && *value ? gsvd_strdup(value) : NULL;
    if (value && *value && !copy)
        return GSVD_ENOMEM;
    gsvd_free(ctx->str[slot]);
    ctx->str[slot] = copy;
    remote_refresh(ctx);
    return GSVD_OK;
}

int gensvd_ctx_set_string(gensvd_ctx *ctx, const char *name, const char *value)
{
    const struct gsvd_scope *prev;
    if (!ctx || !name)
        return GENSVD_EINVAL;
    prev = lib_begin(ctx);
    return lib_end(ctx, prev, set_string(ctx, name, value), "gensvd_ctx_set_string");
}
